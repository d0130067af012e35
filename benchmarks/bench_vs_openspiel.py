"""Random-playout speed of cortes_rules next to OpenSpiel's chess and backgammon.

Run: python benchmarks/bench_vs_openspiel.py [--seconds S] [--quick] [--json]

Everything is measured side by side in this one run, on this machine:

- steps per second of seeded random playouts, for a fixed wall-time budget
  per engine: cortes_rules from the historical set-up, then pyspiel chess and
  pyspiel backgammon through OpenSpiel's Python API;
- the mean time of one clone() over states sampled during those playouts.

A step of cortes_rules is ``legal_action_ids()``, a seeded random pick (the
"end" action, id 0, with probability 0.15 when it is legal, so that games move
through their phases), ``book.action_from_id`` and ``state.apply``; at a chance
node ``apply_chance()`` is one step. A step of pyspiel is ``legal_actions()``
and ``apply_action`` of a uniformly random pick; at a chance node an outcome of
``chance_outcomes()`` is drawn by its probabilities. A finished game is
restarted (cortes_rules with the next seed). Only the public API of
cortes_rules is used, so the script measures any engine behind it.

Without pyspiel installed (``pip install -e '.[bench]'``) it says so and
measures cortes_rules only. It never fails because a figure is slow.
"""

from __future__ import annotations

import argparse
import json
import math
import platform
import random
import sys
import time
from collections.abc import Callable
from importlib.metadata import PackageNotFoundError, version
from pathlib import Path
from typing import Any

# Measure the checkout this script belongs to, not another installed copy.
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import cortes_rules  # noqa: E402

END_ID = 0  # the "end" action's id (Rulebook.action_id(Action("end")))
END_CHANCE = 0.15
TARGET_RATIO = 80.0  # ours vs pyspiel chess: at most this many times slower
TARGET_CLONE_US = 30.0  # one clone() of ours: under this many microseconds
CLONES = 300  # at least this many clone() calls are timed per engine
SNAPSHOTS = 150  # at most this many states are sampled per engine


class Engine:
    """One game under test: a current state and a seeded random step."""

    name = ""

    def step(self) -> None:
        raise NotImplementedError

    def snapshot(self) -> Any | None:
        """A copy of the current state to time clone() on, None when finished."""
        raise NotImplementedError


class Ours(Engine):
    def __init__(self, seed: int, turns: int) -> None:
        self.name = "cortes_rules (historical)"
        self.book = cortes_rules.load("cortes")
        self.turns = turns
        self.game_seed = seed
        self.games = 1
        self.rng = random.Random(seed)
        self.state = self._new_game()

    def _new_game(self) -> Any:
        return self.book.new_game(seed=self.game_seed, setup="historical",
                                  turn_limit=self.turns)

    def step(self) -> None:
        state = self.state
        if state.is_terminal():
            self.game_seed += 1
            self.games += 1
            state = self.state = self._new_game()
        if state.is_chance_node():
            state.apply_chance()
            return
        ids = state.legal_action_ids()
        rng = self.rng
        if ids[0] == END_ID and rng.random() < END_CHANCE:
            choice = END_ID
        else:
            choice = rng.choice(ids)
        state.apply(self.book.action_from_id(choice))

    def snapshot(self) -> Any | None:
        return None if self.state.is_terminal() else self.state.clone()


class Spiel(Engine):
    def __init__(self, pyspiel: Any, game: str, seed: int) -> None:
        self.name = f"pyspiel {game}"
        self.game = pyspiel.load_game(game)
        self.games = 1
        self.rng = random.Random(seed)
        self.state = self.game.new_initial_state()

    def step(self) -> None:
        state = self.state
        if state.is_terminal():
            self.games += 1
            state = self.state = self.game.new_initial_state()
        rng = self.rng
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            actions = [a for a, _ in outcomes]
            weights = [p for _, p in outcomes]
            state.apply_action(rng.choices(actions, weights)[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))

    def snapshot(self) -> Any | None:
        return None if self.state.is_terminal() else self.state.clone()


def measure(engine: Engine, seconds: float, chunk: int) -> dict[str, Any]:
    """Steps per second for `seconds` of stepping, and the mean clone() time.

    The clock runs only while stepping, in chunks of `chunk` steps; between
    chunks a state is sampled (outside the clock) until SNAPSHOTS are kept.
    Then clone() is timed over the samples, round after round, until at least
    CLONES clones were made.
    """
    step: Callable[[], None] = engine.step
    clock = time.perf_counter
    busy = 0.0
    steps = 0
    snapshots: list[Any] = []
    while busy < seconds:
        start = clock()
        for _ in range(chunk):
            step()
        busy += clock() - start
        steps += chunk
        if len(snapshots) < SNAPSHOTS:
            snap = engine.snapshot()
            if snap is not None:
                snapshots.append(snap)
    result: dict[str, Any] = {
        "steps": steps, "seconds": round(busy, 4), "steps_per_s": steps / busy,
        "games_started": engine.games, "clone_us": None, "clones": 0,
    }
    if snapshots:
        rounds = math.ceil(CLONES / len(snapshots))
        spent = 0.0
        for _ in range(rounds):
            start = clock()
            twins = [s.clone() for s in snapshots]
            spent += clock() - start
            del twins
        result["clones"] = rounds * len(snapshots)
        result["clone_us"] = spent / result["clones"] * 1e6
        result["clone_states"] = len(snapshots)
    return result


def open_spiel_version() -> str | None:
    try:
        return version("open_spiel")
    except PackageNotFoundError:
        return None


def report(figures: dict[str, Any]) -> None:
    rows = figures["engines"]
    ours = rows["cortes_rules (historical)"]
    print(f"random playouts, {figures['seconds_per_engine']} s per engine, seed "
          f"{figures['seed']}, cortes_rules turn limit {figures['turn_limit']}; "
          f"python {figures['python']}, open_spiel {figures['open_spiel'] or '-'}; "
          f"cortes_rules from {figures['cortes_rules']}")
    print(f"{'engine':<28}{'steps/s':>12}     ratio to ours")
    for name, row in rows.items():
        if row is ours:
            ratio = ""
        else:
            ratio = f"{row['steps_per_s'] / ours['steps_per_s']:.1f}x faster"
        print(f"{name:<28}{row['steps_per_s']:>12.1f}     {ratio}")
    met = "met" if ours["clone_us"] < TARGET_CLONE_US else "not met"
    clone = (f"clone(): cortes_rules {ours['clone_us']:.1f} µs (mean over {ours['clones']} "
             f"clones of {ours['clone_states']} mid-game states; target: under "
             f"{TARGET_CLONE_US:.0f} µs, {met})")
    chess = rows.get("pyspiel chess")
    if chess is not None:
        clone += f"; pyspiel chess {chess['clone_us']:.2f} µs ({chess['clones']} clones)"
    print(clone)
    if chess is not None:
        ratio = figures["ours_slower_than_chess"]
        verdict = "met" if ratio <= TARGET_RATIO else "not met"
        print(f"ours vs pyspiel chess: ours is {ratio:.1f}x slower "
              f"(target: at most {TARGET_RATIO:.0f}x, {verdict})")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--seconds", type=float, default=3.0,
                        help="wall-time budget of stepping per engine (default 3)")
    parser.add_argument("--quick", action="store_true",
                        help="a smoke run of about 0.5 s per engine")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--turns", type=int, default=10,
                        help="turn limit of each cortes_rules game (default 10)")
    parser.add_argument("--json", action="store_true", help="print the figures as JSON")
    args = parser.parse_args(argv)
    seconds = 0.5 if args.quick else args.seconds

    try:
        import pyspiel
    except ImportError:
        pyspiel = None
        print("pyspiel is not installed (pip install -e '.[bench]'): "
              "measuring cortes_rules only", file=sys.stderr if args.json else sys.stdout)

    engines: list[tuple[Engine, int]] = [(Ours(args.seed, args.turns), 1)]
    if pyspiel is not None:
        engines.append((Spiel(pyspiel, "chess", args.seed), 64))
        engines.append((Spiel(pyspiel, "backgammon", args.seed), 64))

    figures: dict[str, Any] = {
        "seconds_per_engine": seconds, "seed": args.seed, "turn_limit": args.turns,
        "python": platform.python_version(),
        "cortes_rules": str(Path(cortes_rules.__file__).resolve().parent),
        "open_spiel": open_spiel_version() if pyspiel is not None else None,
        "engines": {},
    }
    for engine, chunk in engines:
        figures["engines"][engine.name] = measure(engine, seconds, chunk)
    rows = figures["engines"]
    if "pyspiel chess" in rows:
        ours = rows["cortes_rules (historical)"]["steps_per_s"]
        figures["ours_slower_than_chess"] = rows["pyspiel chess"]["steps_per_s"] / ours
        figures["target_ratio"] = TARGET_RATIO
    figures["target_clone_us"] = TARGET_CLONE_US

    if args.json:
        print(json.dumps(figures, indent=2, ensure_ascii=False))
    else:
        report(figures)
    return 0


if __name__ == "__main__":
    sys.exit(main())
