"""Count the machine instructions of a fixed workload, for comparisons that timing cannot make.

Timings on a shared virtual machine vary by 20-50% from one minute to the
next, more than most changes to the engine move them. The number of
instructions a workload executes hardly varies at all: this script counts
them with valgrind's cachegrind (``apt-get install valgrind``), once for a
load of the rulebook alone and once for the load plus the work, and prints
the difference per unit of work.

    python benchmarks/instructions.py [--steps N] [--seeds K] [--odds N] [--warm]
                                      [--backend compiled] [--backend python]
                                      [--rulebook cortes|grands_strateges]

- steps: ``--seeds`` seeded random games of the Cortés historical set-up
  (veteran preset), or of Grands Stratèges scenario III with ``--rulebook
  grands_strateges``, ``--steps`` steps each, through the public API exactly
  as ``run.py`` plays them; printed per step. The interpreter generates the
  code of a clause when first run, so the count includes that one-time
  work; with ``--warm`` both runs first play as many games on other seeds,
  which leaves most of it out (compare code generation changes this way);
- odds: ``--odds`` exact attack distributions (``run.py``'s
  ``odds_ms``), printed per distribution.

To compare two commits, run the script in a checkout of each: the figures
come from the checkout the script belongs to. Hash randomisation is fixed
(``PYTHONHASHSEED=0``) so that sets iterate alike in both runs. Under
cachegrind the work runs about fifty times slower than natively: keep it small.
"""

from __future__ import annotations

import argparse
import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent

WORKLOAD = """
import sys
sys.path.insert(0, {benchmarks!r})
import run as R
import cortes_rules
if {rulebook!r} == "cortes":
    book = cortes_rules.load("cortes", options="veteran", backend={backend!r})
    new_game = {{"setup": "historical", "turn_limit": 10}}
else:
    book = cortes_rules.load("grands_strateges", scenario="III", backend={backend!r})
    new_game = {{}}
if {what!r} == "odds":
    battle = R.battle_at_resolve(book, new_game)
    R.odds_ms(battle, book)   # generates the battle's code, in both runs
else:
    for seed in range({warm}):   # games on other seeds generate most code, in both runs
        R.Player(book, new_game, 100 + seed).steps({steps})
for _ in range({count}):
    if {what!r} == "steps":
        for seed in range({seeds}):
            R.Player(book, new_game, seed).steps({steps})
    else:
        R.odds_ms(battle, book)
"""


def instructions(what: str, count: int, backend: str, args: argparse.Namespace) -> int:
    """The instructions valgrind counts for the workload run ``count`` times (0: the load only):
    a batch of games for steps, one distribution for odds."""
    source = WORKLOAD.format(benchmarks=str(HERE), what=what, count=count, backend=backend,
                             rulebook=args.rulebook, seeds=args.seeds, steps=args.steps,
                             warm=args.seeds if args.warm else 0)
    env = dict(os.environ, PYTHONHASHSEED="0")
    # valgrind follows no exec: give it the interpreter itself, not a launcher script.
    python = os.path.realpath(sys.executable)
    done = subprocess.run(
        ["valgrind", "--tool=cachegrind", "--cache-sim=no", "--cachegrind-out-file=/dev/null",
         python, "-c", source], env=env, capture_output=True, text=True, check=False)
    found = re.search(r"I\s+refs:\s+([\d,]+)", done.stderr)
    if done.returncode != 0 or found is None:
        sys.exit(f"the workload failed under valgrind:\n{done.stderr[-2000:]}")
    return int(found.group(1).replace(",", ""))


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--steps", type=int, default=1000, help="steps per game")
    parser.add_argument("--seeds", type=int, default=3, help="games (seeds 0..K-1)")
    parser.add_argument("--odds", type=int, default=50, help="attack distributions")
    parser.add_argument("--warm", action="store_true",
                        help="play as many games on other seeds first, in both runs, so that "
                             "the count per step leaves out most one-time code generation")
    parser.add_argument("--backend", action="append", choices=("compiled", "python"),
                        help="the backend to count (repeat to count both; default compiled)")
    parser.add_argument("--rulebook", choices=("cortes", "grands_strateges"), default="cortes",
                        help="steps of Cortés (default) or of Grands Stratèges scenario III "
                             "(which has no attack distribution counted)")
    args = parser.parse_args(argv)
    if shutil.which("valgrind") is None:
        sys.exit("valgrind is not installed (Debian: apt-get install valgrind)")
    steps = args.steps * args.seeds
    # Fill the load cache first (natively): a run that found it stale would
    # count a cold compilation that its load-only partner does not.
    subprocess.run([sys.executable, "-c", WORKLOAD.format(
        benchmarks=str(HERE), what="steps", count=0, backend="python", rulebook=args.rulebook,
        seeds=0, steps=0, warm=0)],
        check=True)
    print(f"checkout: {HERE.parent}")
    per: dict[str, float] = {}
    for backend in args.backend or ["compiled"]:
        per[backend] = (instructions("steps", 1, backend, args)
                        - instructions("steps", 0, backend, args)) / steps
        game = "Cortés historical" if args.rulebook == "cortes" else "Grands Stratèges III"
        print(f"{backend}: instructions per step ({game}, {steps} steps): "
              f"{per[backend]:,.0f}")
        if args.rulebook == "cortes":
            per_odds = (instructions("odds", args.odds, backend, args)
                        - instructions("odds", 0, backend, args)) / args.odds
            print(f"{backend}: instructions per attack distribution ({args.odds}): "
                  f"{per_odds:,.0f}")
    if len(per) == 2:
        print(f"reference / compiled, per step: {per['python'] / per['compiled']:.3f}")


if __name__ == "__main__":
    main()
