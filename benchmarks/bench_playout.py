"""Throughput of the reference interpreter on random legal playouts.

Run: python benchmarks/bench_playout.py [--games N] [--seed S]
Prints actions applied per second, legal_actions() calls per second and
clone() calls per second, all measured in this one run.
"""

from __future__ import annotations

import argparse
import random
import sys
import time
from pathlib import Path

# Measure the checkout this script belongs to, not another installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cortes_rules  # noqa: E402


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", type=int, default=5)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turns", type=int, default=2)
    args = parser.parse_args()
    book = cortes_rules.load("cortes")
    chooser = random.Random(args.seed)
    applied = listed = cloned = 0
    t_apply = t_list = t_clone = 0.0
    for game in range(args.games):
        state = book.new_game(seed=args.seed + game, setup="historical", turn_limit=args.turns)
        while not state.is_terminal():
            if state.is_chance_node():
                state.apply_chance()
                continue
            start = time.perf_counter()
            actions = state.legal_actions()
            t_list += time.perf_counter() - start
            listed += 1
            start = time.perf_counter()
            state.clone()
            t_clone += time.perf_counter() - start
            cloned += 1
            # Prefer ending phases now and then so games finish.
            action = actions[0] if chooser.random() < 0.15 else chooser.choice(actions)
            start = time.perf_counter()
            state.apply(action)
            t_apply += time.perf_counter() - start
            applied += 1
    print(f"reference interpreter, {args.games} games of {args.turns} turns "
          f"from the historical set-up")
    print(f"  apply():         {applied / t_apply:10.1f} actions/s ({applied} actions)")
    print(f"  legal_actions(): {listed / t_list:10.1f} calls/s")
    print(f"  clone():         {cloned / t_clone:10.1f} calls/s")


if __name__ == "__main__":
    main()
