"""How much of a compiled step already runs natively, and the ceiling the rest leaves.

Plays seeded random games of the Cortés historical set-up (veteran preset)
through the public API, as ``run.py`` does, on the compiled backend, after
warm-up games on other seeds, and splits the time of a step three ways:

- the clause machine (``_core.ClauseMachine``: native listings of moves,
  pairs and items, filters, compiled conditions), timed call by call through
  a proxy put in front of it; these calls run no Python bytecode;
- Python's cyclic garbage collector (``gc.callbacks``), which lands in
  whatever step allocates when a generation fills up;
- everything else: the generated code of the rules, the interpreter's
  machinery around it, and the extension's other kernels, which still call
  back into that code.

It then prints the ceiling of each part: the steps per second if everything
but that part took no time at all. If pyspiel is installed, chess and
backgammon through pyspiel's Python API are measured in the same run and the
ceilings are also given as ratios to them (the targets of issue 8 ask for 2x).

    python benchmarks/floor.py [--seeds K] [--steps N] [--warmup-games K]

It measures the ``cortes_rules`` this interpreter imports (the installed
package, or an editable install's checkout), names it and its backend in its
first line, and stops with exit status 1, measuring nothing, when the compiled
core is not the one running.

The proxy adds a Python call around each native call, timed outside the
native part: the clause machine's share is measured as is, the rest's is
slightly high. Times move with the machine (about ±10% here); the shares are
steadier.
"""

from __future__ import annotations

import argparse
import gc
import sys
import time
from typing import Any

# This script's folder (benchmarks/, for run.py) starts sys.path; the checkout
# around it is never put on it: the package measured is the one installed.
import run as R

import cortes_rules

NEW_GAME: dict[str, Any] = {"setup": "historical", "turn_limit": 10}


class Timed:
    """Stands in front of the clause machine and adds up the time of every call."""

    def __init__(self, machine: Any) -> None:
        self._machine = machine
        self.seconds = 0.0
        self.calls = 0

    def __getattr__(self, name: str) -> Any:
        method = getattr(self._machine, name)
        clock = time.perf_counter

        def timed(*args: Any, **kwargs: Any) -> Any:
            start = clock()
            try:
                return method(*args, **kwargs)
            finally:
                self.seconds += clock() - start
                self.calls += 1
        return timed


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seeds", type=int, default=4, help="games (seeds 0..K-1)")
    parser.add_argument("--steps", type=int, default=1500,
                        help="steps per seed (a game that ends is followed by a new one)")
    parser.add_argument("--warmup-games", type=int, default=6,
                        help="warm-up games of 2,000 steps (seeds 100 and up)")
    args = parser.parse_args(argv)
    what = R.running()
    print(R.describe(what)[0])
    if not what["compiled_core"]:
        print(f"floor.py: {R.describe(what)[1]}", file=sys.stderr)
        return 1
    book = cortes_rules.load("cortes", options="veteran", backend="compiled")
    print(f"backend: {book.backend}")
    for seed in range(args.warmup_games):
        R.Player(book, NEW_GAME, 100 + seed).steps(2000)
    support = book._machine.native_support()
    if support is None:
        print("the compiled core is not in use: nothing to split")
        return 1
    timed = Timed(support.clauses)
    support.clauses = timed
    collecting = [0.0, 0.0]     # time spent collecting; when the current collection began

    def collector(phase: str, info: dict[str, Any]) -> None:
        if phase == "start":
            collecting[1] = time.perf_counter()
        else:
            collecting[0] += time.perf_counter() - collecting[1]

    gc.callbacks.append(collector)
    try:
        start = time.perf_counter()
        for seed in range(args.seeds):
            R.Player(book, NEW_GAME, seed).steps(args.steps)
        taken = args.seeds * args.steps
        total = time.perf_counter() - start
    finally:
        gc.callbacks.remove(collector)
        support.clauses = timed._machine
    parts = [("clause machine (native)", timed.seconds),
             ("garbage collector", collecting[0]),
             ("everything else", total - timed.seconds - collecting[0])]
    print(f"{taken:,} steps in {total:.2f} s: {taken / total:,.0f} steps/s, "
          f"{1e6 * total / taken:.1f} us a step; {timed.calls / taken:.2f} native calls a step")
    anchors = {}
    try:
        import pyspiel
    except ImportError:
        print("(pyspiel is not installed: no ratios to chess and backgammon)")
    else:
        anchors = {name: R.spiel_steps_per_s(pyspiel, name, 20_000, 1)
                   for name in ("chess", "backgammon")}
        print("pyspiel in this run: " + ", ".join(f"{name} {rate:,.0f} steps/s"
                                                  for name, rate in anchors.items()))
    for name, seconds in parts:
        per_step = 1e6 * seconds / taken
        ceiling = taken / seconds if seconds > 0 else float("inf")
        ratios = "".join(f", {ceiling / rate:.2f}x {spiel}" for spiel, rate in anchors.items())
        print(f"  {name:26} {per_step:7.1f} us a step {100 * seconds / total:5.1f}%"
              f"   ceiling if only this remained: {ceiling:10,.0f} steps/s{ratios}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
