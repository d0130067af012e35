"""Soak run: many random games per preset, every invariant checked after every action.

    python tests/games/soak.py                 # 1,000 games per preset, seeds 1-1000
    python tests/games/soak.py --games 200 --first-seed 5001 --presets veteran --workers 4

Each game starts from the set-up stage and runs to a terminal state or the
20-turn cap (issue 6). The script prints, per preset, how the games ended
(reasons counted), the turns they lasted and any failure (a broken
invariant or an error) with its seed, and exits 1 if there was one. A
failing seed replays alone with ``--games 1 --first-seed SEED``.
"""

from __future__ import annotations

import argparse
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

import cortes_rules  # noqa: E402
from tests.games.invariants import InvariantBroken, play_checked  # noqa: E402

_BOOK: cortes_rules.Rulebook | None = None
_CAP = 20


def _start(preset: str, cap: int) -> None:
    global _BOOK, _CAP
    _BOOK = cortes_rules.load("cortes", options=preset)
    _CAP = cap


def _play(seed: int) -> tuple[int, str, int]:
    assert _BOOK is not None
    try:
        reason, turn = play_checked(_BOOK, seed, max_turns=_CAP)
    except (InvariantBroken, cortes_rules.CortesRulesError) as error:
        return seed, f"FAILED: {error}", -1
    except Exception as error:  # a crash is what a soak run is for: report it with its seed
        return seed, f"FAILED (crash): {type(error).__name__}: {error}", -1
    return seed, reason, turn


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=1000, help="games per preset")
    parser.add_argument("--first-seed", type=int, default=1)
    parser.add_argument("--presets", default="beginner,veteran")
    parser.add_argument("--max-turns", type=int, default=20)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--progress", type=int, default=100, metavar="N",
                        help="print a line every N games (0: only the summary)")
    args = parser.parse_args(argv)
    failed = 0
    for preset in args.presets.split(","):
        began = time.perf_counter()
        seeds = range(args.first_seed, args.first_seed + args.games)
        with ProcessPoolExecutor(args.workers, initializer=_start,
                                 initargs=(preset, args.max_turns)) as pool:
            results = []
            for result in pool.map(_play, seeds, chunksize=4):
                results.append(result)
                if args.progress and len(results) % args.progress == 0:
                    bad = sum(1 for _, reason, _ in results if reason.startswith("FAILED"))
                    print(f"  {preset}: {len(results)} games, {bad} failed, "
                          f"{time.perf_counter() - began:.0f} s", flush=True)
        endings = Counter(reason for _, reason, _ in results if not reason.startswith("FAILED"))
        turns = [turn for _, reason, turn in results if not reason.startswith("FAILED")]
        failures = [(seed, reason) for seed, reason, _ in results if reason.startswith("FAILED")]
        failed += len(failures)
        print(f"preset {preset}: {len(results)} games, seeds {seeds.start}-{seeds.stop - 1}, "
              f"{time.perf_counter() - began:.0f} s, {len(failures)} failed", flush=True)
        for reason, n in endings.most_common():
            print(f"  {n:5d}  {reason}")
        if turns:
            print(f"  turns: min {min(turns)}, mean {sum(turns) / len(turns):.1f}, "
                  f"max {max(turns)}")
        for seed, reason in failures:
            print(f"  seed {seed}: {reason}")
    return 1 if failed else 0


if __name__ == "__main__":
    sys.exit(main())
