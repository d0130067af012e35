"""Where a step's time goes, by the kind of action the step takes.

Plays seeded random games of the Cortés historical set-up (veteran preset)
through the public API, as ``run.py`` does, after some warm-up games on other
seeds, and times each step from ``legal_action_ids()`` to the end of
``apply()`` (a chance event: ``apply_chance()``). Prints, per action kind, how
many steps took it, their share of the time and the mean time of one.
With ``--bytecodes KIND`` it also counts the Python bytecodes the steps of
that kind execute, per function and rules line (as ``opcodes.py`` does).

    python benchmarks/by_action.py [--seeds K] [--steps N] [--warmup-games K]
                                   [--bytecodes KIND] [--top N]

Times move with the machine and with Python's garbage collector (a full
collection of the objects a warm process holds takes about 0.1 s and lands in
whatever step runs then); the shares are steadier than the times.
"""

from __future__ import annotations

import argparse
import collections
import functools
import random
import sys
import time
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import opcodes  # noqa: E402
import run as R  # noqa: E402

import cortes_rules  # noqa: E402

NEW_GAME: dict[str, Any] = {"setup": "historical", "turn_limit": 10}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="games (seeds 0..K-1)")
    parser.add_argument("--steps", type=int, default=1500, help="steps per game")
    parser.add_argument("--warmup-games", type=int, default=6,
                        help="warm-up games of 2,000 steps (seeds 100 and up)")
    parser.add_argument("--bytecodes", metavar="KIND", default=None,
                        help="count the bytecodes of the steps taking this action kind")
    parser.add_argument("--top", type=int, default=25, help="functions to print")
    args = parser.parse_args(argv)
    book = cortes_rules.load("cortes", options="veteran")
    for seed in range(args.warmup_games):
        R.Player(book, NEW_GAME, 100 + seed).steps(2000)
    action = book.action_from_id
    spent: collections.Counter[str] = collections.Counter()
    steps: collections.Counter[str] = collections.Counter()
    counts: collections.Counter[tuple[str, str]] = collections.Counter()
    clock = time.perf_counter
    for seed in range(args.seeds):
        state = book.new_game(seed=seed, **NEW_GAME)
        chooser = random.Random(seed)
        for _ in range(args.steps):
            if state.is_terminal():
                break
            start = clock()
            if state.is_chance_node():
                state.apply_chance()
                kind = "(chance)"
            else:
                number = chooser.choice(state.legal_action_ids())
                kind = action(number).kind
                if kind == args.bytecodes:
                    spent[kind] += clock() - start
                    counts += opcodes.count(functools.partial(state.apply, number))
                    steps[kind] += 1
                    continue
                state.apply(number)
            spent[kind] += clock() - start
            steps[kind] += 1
    timed = {k: t for k, t in spent.items() if k != args.bytecodes}
    total = sum(timed.values())
    print(f"{sum(steps.values()):,} steps; by the action taken:")
    for kind, seconds in sorted(timed.items(), key=lambda kv: -kv[1]):
        print(f"  {kind:14} {steps[kind]:6,} steps {100 * seconds / total:5.1f}% "
              f"{1e6 * seconds / steps[kind]:8.1f} us a step")
    if args.bytecodes is not None:
        n = steps[args.bytecodes]
        if not n:
            print(f"no step took {args.bytecodes!r}")
            return
        print(f"{args.bytecodes}: {sum(counts.values()) / n:,.0f} Python bytecodes a step "
              f"({n} steps, not timed)")
        opcodes.report(book, counts, n, args.top)


if __name__ == "__main__":
    main()
