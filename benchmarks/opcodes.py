"""Where the interpreter's work goes: Python bytecodes executed, per function and rules line.

A profiler's times on a shared machine move by 20-50% from run to run, and
it slows small functions more than large ones. This script counts instead the
Python bytecode instructions each function executes (``sys.settrace`` opcode
events) over a fixed, seeded workload, so two runs give the same counts. A
generated function is named by the rules text it runs (file and line), so
the output reads as "this clause costs so much per step".

    python benchmarks/opcodes.py [--odds] [--steps N] [--seeds K] [--top N]
                                 [--warmup N] [--warmup-games K]
                                 [--rulebook cortes|grands_strateges]

- steps (default): ``--seeds`` seeded random games of the Cortés historical
  set-up (veteran preset), or Grands Stratèges scenario III, ``--steps`` steps
  each, exactly as ``run.py`` plays them, after as many steps of warm-up
  (``--warmup N --warmup-games K``: K games of N steps, on other seeds);
  printed per step. A short warm-up leaves in the counts what a process
  works out once (code generated when first run, movement costs folded
  when first asked): ``--warmup 2000 --warmup-games 6`` leaves most of it
  out, as a long run of a benchmark does;
- ``--odds``: one exact attack distribution (``run.py``'s ``odds_ms``).

A bytecode that calls into C counts once, however much the call does, so
fewer bytecodes are not always fewer machine instructions: a change should
be confirmed with ``instructions.py``, which counts those. (Checking a
tuple's items with ``all(map(...))`` instead of a Python loop executed
fewer bytecodes and 0.5% more instructions per step.) The counting itself
runs the workload about fifty times slower.
"""

from __future__ import annotations

import argparse
import collections
import sys
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(HERE.parent))

import run as R  # noqa: E402

import cortes_rules  # noqa: E402


def count(work: Any) -> collections.Counter[tuple[str, str]]:
    """Bytecodes executed by ``work()``, by (file, function)."""
    counts: collections.Counter[tuple[str, str]] = collections.Counter()

    def enter(frame: Any, event: str, arg: Any) -> Any:
        frame.f_trace_opcodes = True
        frame.f_trace_lines = False
        code = frame.f_code
        key = (code.co_filename, code.co_name)

        def each(frame: Any, event: str, arg: Any) -> Any:
            if event == "opcode":
                counts[key] += 1
            return each

        return each

    sys.settrace(enter)
    try:
        work()
    finally:
        sys.settrace(None)
    return counts


def where(book: cortes_rules.Rulebook, lines_of: dict[str, list[str]], filename: str,
          function: str) -> str:
    """A function's place: the rules text a generated one runs (``lines_of``: each rules
    file's lines, by path), else its Python file."""
    if not filename.startswith("<rules:"):
        return f"{Path(filename).name}: {function}"
    span = book._machine.fast.origins.get(function)
    if span is None:
        return function
    lines = lines_of.get(span.path, [])
    line = lines[span.line - 1].strip() if 0 < span.line <= len(lines) else ""
    return f"{function} {span.path}:{span.line}: {line[:70]}"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--rulebook", choices=("cortes", "grands_strateges"), default="cortes")
    parser.add_argument("--odds", action="store_true", help="one exact attack distribution")
    parser.add_argument("--steps", type=int, default=1000, help="steps per game")
    parser.add_argument("--seeds", type=int, default=2, help="games (seeds 0..K-1)")
    parser.add_argument("--warmup", type=int, default=None, metavar="N",
                        help="steps of each warm-up game (default: --steps); many leave "
                             "out what is worked out once per process")
    parser.add_argument("--warmup-games", type=int, default=None, metavar="K",
                        help="warm-up games (default: --seeds)")
    parser.add_argument("--top", type=int, default=25, help="functions to print")
    args = parser.parse_args(argv)
    if args.rulebook == "cortes":
        book = cortes_rules.load("cortes", options="veteran")
        new_game: dict[str, Any] = {"setup": "historical", "turn_limit": 10}
    else:
        if args.odds:
            parser.error("--odds is measured on Cortés")
        book = cortes_rules.load("grands_strateges", scenario="III")
        new_game = {}
    if args.odds:
        battle = R.battle_at_resolve(book, new_game)
        R.odds_ms(battle, book)     # the battle's code is generated once, before counting
        units, what = 1, "attack distribution"
        counts = count(lambda: R.odds_ms(battle, book))
    else:
        warm_games = args.seeds if args.warmup_games is None else args.warmup_games
        for seed in range(warm_games):
            R.Player(book, new_game, 100 + seed).steps(
                args.steps if args.warmup is None else args.warmup)
        units, what = args.steps * args.seeds, "step"
        counts = count(lambda: [R.Player(book, new_game, seed).steps(args.steps)
                                for seed in range(args.seeds)])
    total = sum(counts.values())
    print(f"{args.rulebook}: {total / units:,.0f} Python bytecodes per {what} "
          f"({units} {what}s)")
    report(book, counts, units, args.top)


def report(book: cortes_rules.Rulebook, counts: collections.Counter[tuple[str, str]],
           units: int, top: int) -> None:
    """Print the ``top`` busiest functions: bytecodes per unit of work, share, name."""
    total = sum(counts.values())
    lines_of = {m.path: m.text.splitlines() for m in book.program.modules}
    for (filename, function), n in counts.most_common(top):
        print(f"{n / units:10,.1f} {100 * n / total:5.1f}%  "
              f"{where(book, lines_of, filename, function)}")


if __name__ == "__main__":
    main()
