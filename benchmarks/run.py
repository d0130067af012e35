"""The benchmark suite of issue 8: both cores of cortes_rules and OpenSpiel, in one run.

Run: python benchmarks/run.py [--quick] [--json PATH] [--repeats N] [--require-compiled]
     python benchmarks/run.py --which

It measures the ``cortes_rules`` this interpreter imports (the installed
package, or the checkout of an editable install): the script never puts its
checkout first on ``sys.path``, and ``--which`` prints the package's folder
and whether its compiled core runs, then stops. When the compiled core is not
the one running (not built, or stale), the figures of the compiled core are
not measured and the report says why; ``--require-compiled`` makes that an
error (exit status 1) before anything is measured, as CI runs it.

Prints a table and, with ``--json``, writes one flat JSON object. Every figure
is the median of ``--repeats`` runs (3 with ``--quick``, else 5), with its
minimum and maximum under the same key plus ``_min`` / ``_max``. Workloads:

- ``cortes``: Cortés with the veteran preset (every optional rule), from the
  historical set-up; ``gs``: Grands Stratèges, scenario III (the pitched battle).
- A **step** is ``legal_action_ids()`` and ``apply`` of a uniformly random
  legal id; at a chance node ``apply_chance()`` (the outcome sampled by the
  game's seeded generator) is one step. Games restart with the next seed.
- ``*_compiled_steps_per_s`` / ``*_reference_steps_per_s``: the same seeded
  steps on the compiled core and on the reference interpreter (both loaded
  in this process, ``backend=`` of :func:`cortes_rules.load`); ``*_speedup``
  is their ratio, run by run. Without the compiled core only
  ``*_reference_steps_per_s`` is measured.
- ``*_games_per_s`` and ``*_rollout_actions_per_s``: whole random games on
  the compiled core, to the end the rulebook states (Grands Stratèges
  scenario III) or, for Cortés, whose uniformly random games rarely reach
  one, to a limit of 10 game turns. A rollout is ``GameState.random_playout``:
  uniformly random legal actions chosen inside the engine, chance by the
  game's dice.
- ``cortes_odds_distribution_ms``: from a battle whose attackers are
  committed, the exact distribution of the states reached when every chance
  event that follows ``resolve`` is expanded (all chained rolls, by
  ``chance_outcomes()`` and ``clone()``) down to the next decision. One
  distribution takes about a millisecond, so a run is the mean of
  ``ODDS_PER_RUN`` of them, after as many to warm up (the first in a process
  also generates the code of the battle's statements, once; see
  docs/performance.md).
- ``*_clone_us``: one ``clone()`` of a mid-game state on the compiled core, averaged.
- Loads of Cortés (veteran), each in a new process with its own cache folder
  (the import of the package is not counted): ``cortes_compile_rulebook_s``
  with nothing cached (lark builds the grammar's parse tables, or reads those
  built with the package, then the
  rulebook is parsed, checked and lowered); ``cortes_compile_with_grammar_tables_s``
  with only the grammar's tables cached (a rulebook seen for the first time on
  a machine that has loaded one before); ``cortes_cached_load_s`` with the
  checked rulebook in the load cache (:mod:`cortes_rules.load_cache`).
- ``package``, ``version``, ``compiled_core`` (whether it runs) and
  ``compiled_core_missing`` (why not): what was measured.
- ``pyspiel_chess_steps_per_s``, ``pyspiel_backgammon_steps_per_s``: the same
  step through pyspiel's Python API; ``pyspiel_chess_rollout_actions_per_s``:
  ``pyspiel.evaluate_bots`` with two uniform random bots, whole games, the
  actions counted as games times the mean length of uniform random chess
  games measured in the same run.

Targets (issue 8) are printed beside the figures; a missed target never fails
the script.
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

# The package measured is the one this interpreter imports: sys.path starts
# with this script's folder (benchmarks/), never with the checkout around it.
import cortes_rules

clock = time.perf_counter
ODDS_PER_RUN = 20
Figures = dict[str, Any]


# ------------------------------------------------------------------ stepping
class Player:
    """Seeded random steps through the public API, restarting finished games."""

    def __init__(self, book: cortes_rules.Rulebook, new_game: dict[str, Any], seed: int) -> None:
        self.book, self.new_game, self.seed = book, new_game, seed
        self.rng = random.Random(seed)
        self.state = book.new_game(seed=seed, **new_game)
        self.games = 0

    def steps(self, n: int) -> None:
        state, rng, choice = self.state, self.rng, self.rng.choice
        for _ in range(n):
            if state.is_terminal():
                self.games += 1
                self.seed += 1
                state = self.state = self.book.new_game(seed=self.seed, **self.new_game)
            if state.is_chance_node():
                state.apply_chance()
            else:
                state.apply(choice(state.legal_action_ids()))
        del rng

    def whole_games(self, n: int) -> int:
        """Play ``n`` games to their end inside the engine (``random_playout``).

        Returns the number of actions taken.
        """
        taken = 0
        for game in range(n):
            state = self.book.new_game(seed=self.seed + game, **self.new_game)
            taken += state.random_playout(self.seed + game)
        return taken


def steps_per_s(book: cortes_rules.Rulebook, new_game: dict[str, Any], steps: int,
                seed: int) -> float:
    player = Player(book, new_game, seed)
    start = clock()
    player.steps(steps)
    return steps / (clock() - start)


def clone_us(book: cortes_rules.Rulebook, new_game: dict[str, Any], seed: int) -> float:
    player = Player(book, new_game, seed)
    states = []
    for _ in range(60):
        player.steps(7)
        if not player.state.is_terminal():
            states.append(player.state.clone())
    start = clock()
    rounds = 10
    for _ in range(rounds):
        for s in states:
            s.clone()
    return (clock() - start) / (rounds * len(states)) * 1e6


# ------------------------------------------------------------------ odds
def battle_at_resolve(book: cortes_rules.Rulebook, new_game: dict[str, Any]) -> Any:
    """A state of a random game where ``resolve`` is legal and leads to a chance node."""
    resolve = book.action_id("resolve")
    for seed in range(200):
        player = Player(book, new_game, seed)
        for _ in range(400):
            state = player.state
            if state.is_terminal():
                break
            if not state.is_chance_node() and resolve in state.legal_action_ids():
                twin = state.clone()
                twin.apply(resolve)
                if twin.is_chance_node():
                    return state
            player.steps(1)
    raise RuntimeError("no battle reached resolve in 200 random games")


def exact_outcomes(state: Any) -> dict[tuple[str, ...], Fraction]:
    """Every chance path from ``state`` to the next decision, by log lines, exactly."""
    found: dict[tuple[str, ...], Fraction] = {}
    stack = [(state, Fraction(1))]
    while stack:
        here, weight = stack.pop()
        if not here.is_chance_node():
            key = tuple(str(e) for e in here.log_tail(6))
            found[key] = found.get(key, Fraction(0)) + weight
            continue
        for action, p in here.chance_outcomes():
            twin = here.clone()
            twin.apply(action)
            stack.append((twin, weight * p))
    return found


def odds_ms(battle: Any, book: cortes_rules.Rulebook) -> float:
    start = clock()
    state = battle.clone()
    state.apply(book.action_id("resolve"))
    outcomes = exact_outcomes(state)
    took = (clock() - start) * 1e3
    assert sum(outcomes.values()) == 1
    return took


# ------------------------------------------------------------------ pyspiel
def spiel_steps_per_s(pyspiel: Any, game_name: str, steps: int, seed: int) -> float:
    game = pyspiel.load_game(game_name)
    rng = random.Random(seed)
    state = game.new_initial_state()
    start = clock()
    for _ in range(steps):
        if state.is_terminal():
            state = game.new_initial_state()
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            state.apply_action(rng.choices([a for a, _ in outcomes],
                                           [p for _, p in outcomes])[0])
        else:
            state.apply_action(rng.choice(state.legal_actions()))
    return steps / (clock() - start)


def chess_mean_length(pyspiel: Any, games: int, seed: int) -> float:
    game = pyspiel.load_game("chess")
    rng = random.Random(seed)
    total = 0
    for _ in range(games):
        state = game.new_initial_state()
        while not state.is_terminal():
            state.apply_action(rng.choice(state.legal_actions()))
            total += 1
    return total / games


def spiel_rollout_actions_per_s(pyspiel: Any, games: int, mean_length: float,
                                seed: int) -> float:
    game = pyspiel.load_game("chess")
    bots = [pyspiel.make_uniform_random_bot(p, seed + p) for p in range(2)]
    start = clock()
    for g in range(games):
        pyspiel.evaluate_bots(game.new_initial_state(), bots, seed + g)
    return games * mean_length / (clock() - start)


# ------------------------------------------------------------------ the run
def repeat(figures: Figures, key: str, repeats: int, run: Callable[[int], float],
           warm: Callable[[], Any] | None = None) -> None:
    """Median, min and max of ``repeats`` runs of ``run(i)`` under ``key``, after ``warm()``."""
    if warm is not None:
        warm()
    values = [run(i) for i in range(repeats)]
    figures[key] = statistics.median(values)
    figures[key + "_min"] = min(values)
    figures[key + "_max"] = max(values)


def running() -> Figures:
    """What a run measures: the package this interpreter imports, and whether its
    compiled core is the one running (and why not)."""
    try:
        cortes_rules.backend("compiled")
    except cortes_rules.BackendError as error:
        compiled, missing = False, str(error)
    else:
        compiled, missing = True, ""
    return {"package": str(Path(cortes_rules.__file__).resolve().parent),
            "version": cortes_rules.__version__, "compiled_core": compiled,
            "compiled_core_missing": missing}


def measure(quick: bool, repeats: int, seed: int) -> Figures:
    steps = 600 if quick else 3000
    games = 1 if quick else 3
    figures: Figures = {"python": platform.python_version(), "quick": quick,
                        "repeats": repeats, "steps_per_run": steps, **running()}

    with tempfile.TemporaryDirectory() as caches:
        def load_in_new_process(i: int, kept: str) -> float:
            folder = Path(caches) / f"{kept}-{i}"
            if kept != "nothing":
                load_seconds(folder)   # fills the cache
            if kept == "grammar":
                for entry in folder.glob("*.pickle"):
                    entry.unlink()
            return load_seconds(folder)

        for key, kept in (("cortes_compile_rulebook_s", "nothing"),
                          ("cortes_compile_with_grammar_tables_s", "grammar"),
                          ("cortes_cached_load_s", "everything")):
            repeat(figures, key, repeats, lambda i, kept=kept: load_in_new_process(i, kept))
    reference = cortes_rules.load("cortes", options="veteran", backend="python")
    workloads = {
        "cortes": (reference, {"setup": "historical", "turn_limit": 10}),
        "gs": (cortes_rules.load("grands_strateges", scenario="III", backend="python"), {}),
    }
    if not figures["compiled_core"]:
        # Only the reference interpreter can be measured: no figure of the compiled core.
        for name, (ref, new_game) in workloads.items():
            repeat(figures, f"{name}_reference_steps_per_s", repeats,
                   lambda i, r=ref, g=new_game: steps_per_s(r, g, steps, seed + 100 * i),
                   warm=lambda r=ref, g=new_game: [steps_per_s(r, g, steps, seed - w)
                                                   for w in range(1, 6)])
        return spiel_figures(figures, quick, repeats, steps, seed)
    for name, (ref, new_game) in workloads.items():
        compiled = cortes_rules.Rulebook(ref.program, ref.warnings, backend="compiled")
        assert compiled.backend == "compiled"
        figures[f"{name}_backend"] = compiled.backend
        ratios: list[float] = []

        def both(i: int, ref: Any = ref, compiled: Any = compiled, name: str = name,
                 new_game: dict[str, Any] = new_game, ratios: list[float] = ratios) -> float:
            slow = steps_per_s(ref, new_game, steps, seed + 100 * i)
            fast = steps_per_s(compiled, new_game, steps, seed + 100 * i)
            ratios.append(fast / slow)
            figures.setdefault(f"_{name}_reference", []).append(slow)
            return fast
        # Warm both, untimed, on other seeds: the interpreter generates its fast
        # paths (expressions, regions of statements) when they first run.
        repeat(figures, f"{name}_compiled_steps_per_s", repeats, both,
               warm=lambda r=ref, c=compiled, g=new_game: [
                   steps_per_s(b, g, steps, seed - w) for b in (r, c) for w in range(1, 6)])
        slow_runs = figures.pop(f"_{name}_reference")
        figures[f"{name}_reference_steps_per_s"] = statistics.median(slow_runs)
        figures[f"{name}_reference_steps_per_s_min"] = min(slow_runs)
        figures[f"{name}_reference_steps_per_s_max"] = max(slow_runs)
        figures[f"{name}_speedup"] = statistics.median(ratios)
        figures[f"{name}_speedup_min"] = min(ratios)
        figures[f"{name}_speedup_max"] = max(ratios)

        def rollouts(i: int, compiled: Any = compiled, new_game: dict[str, Any] = new_game,
                     name: str = name) -> float:
            player = Player(compiled, new_game, seed + 1000 * i)
            begin = clock()
            taken = player.whole_games(games)
            took = clock() - begin
            figures.setdefault(f"_{name}_games", []).append(games / took)
            return taken / took
        repeat(figures, f"{name}_rollout_actions_per_s", repeats, rollouts)
        per_game = figures.pop(f"_{name}_games")
        figures[f"{name}_games_per_s"] = statistics.median(per_game)
        figures[f"{name}_games_per_s_min"] = min(per_game)
        figures[f"{name}_games_per_s_max"] = max(per_game)
        repeat(figures, f"{name}_clone_us", repeats,
               lambda i, c=compiled, g=new_game: clone_us(c, g, seed + i))

    cortes = cortes_rules.Rulebook(reference.program, reference.warnings, backend="compiled")
    battle = battle_at_resolve(cortes, {"setup": "historical", "turn_limit": 10})
    repeat(figures, "cortes_odds_distribution_ms", repeats,
           lambda i: statistics.mean(odds_ms(battle, cortes) for _ in range(ODDS_PER_RUN)),
           warm=lambda: [odds_ms(battle, cortes) for _ in range(ODDS_PER_RUN)])
    return spiel_figures(figures, quick, repeats, steps, seed)


def spiel_figures(figures: Figures, quick: bool, repeats: int, steps: int,
                  seed: int) -> Figures:
    """OpenSpiel's figures of the same run, added to ``figures`` (none without pyspiel)."""
    try:
        import pyspiel
    except ImportError:
        print("pyspiel is not installed (pip install -e '.[bench]'): no OpenSpiel figures",
              file=sys.stderr)
        return figures
    spiel_steps = steps * 20
    repeat(figures, "pyspiel_chess_steps_per_s", repeats,
           lambda i: spiel_steps_per_s(pyspiel, "chess", spiel_steps, seed + i))
    repeat(figures, "pyspiel_backgammon_steps_per_s", repeats,
           lambda i: spiel_steps_per_s(pyspiel, "backgammon", spiel_steps, seed + i))
    length = chess_mean_length(pyspiel, 20 if quick else 100, seed)
    figures["pyspiel_chess_random_game_length"] = length
    repeat(figures, "pyspiel_chess_rollout_actions_per_s", repeats,
           lambda i: spiel_rollout_actions_per_s(pyspiel, 20 if quick else 100, length,
                                                 seed + 7 * i))
    return figures


def load_seconds(cache: Path) -> float:
    """One ``load`` of Cortés (veteran) in a new process with this cache folder (import not
    counted), of the package this process imported (``-P``: the working folder is not
    put first on the path)."""
    program = ("import sys, time; import cortes_rules; "
               "assert cortes_rules.__file__ == sys.argv[1], cortes_rules.__file__; "
               "start = time.perf_counter(); cortes_rules.load('cortes', options='veteran'); "
               "print(time.perf_counter() - start)")
    done = subprocess.run([sys.executable, "-P", "-c", program, cortes_rules.__file__],
                          env={**os.environ, "CORTES_RULES_CACHE": str(cache)},
                          capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


# ------------------------------------------------------------------ report
TARGETS: list[tuple[str, str, Callable[[Figures], float | None], str, float]] = [
    ("compiled steps/s vs pyspiel chess", "x", lambda f: _ratio(f, "cortes_compiled_steps_per_s",
                                                             "pyspiel_chess_steps_per_s"),
     ">=", 2.0),
    ("compiled steps/s vs pyspiel backgammon", "x",
     lambda f: _ratio(f, "cortes_compiled_steps_per_s", "pyspiel_backgammon_steps_per_s"),
     ">=", 2.0),
    ("rollout actions/s vs chess evaluate_bots", "x",
     lambda f: _ratio(f, "cortes_rollout_actions_per_s", "pyspiel_chess_rollout_actions_per_s"),
     ">=", 3.0),
    ("compiled vs reference (same seeds)", "x", lambda f: f.get("cortes_speedup"), ">=", 300.0),
    ("exact attack distribution", "ms", lambda f: f.get("cortes_odds_distribution_ms"),
     "<", 1.0),
    ("clone()", "µs", lambda f: f.get("cortes_clone_us"), "<", 2.0),
    ("cached load of the rulebook", "s", lambda f: f.get("cortes_cached_load_s"), "<", 0.1),
    ("cold load of the rulebook", "s", lambda f: f.get("cortes_compile_rulebook_s"), "<", 1.0),
]


def _ratio(f: Figures, ours: str, theirs: str) -> float | None:
    if ours not in f or theirs not in f:
        return None
    return f[ours] / f[theirs]


def describe(f: Figures) -> list[str]:
    """The lines saying what is measured: the package, and whether the compiled core runs."""
    core = ("compiled core running" if f["compiled_core"] else
            f"compiled core NOT running ({f['compiled_core_missing']}): no figure of the "
            "compiled core is measured")
    return [f"cortes_rules {f['version']} from {f['package']}", core]


def report(f: Figures) -> None:
    print(f"cortes_rules benchmarks: python {f['python']}, median of {f['repeats']} runs "
          "[min, max]")
    for line in describe(f):
        print(f"  {line}")
    for key in sorted(k for k in f if k + "_min" in f):
        print(f"  {key:<44}{f[key]:>14.4g}   [{f[key + '_min']:.4g}, {f[key + '_max']:.4g}]")
    print("targets (issue 8):")
    for label, unit, value, op, bound in TARGETS:
        got = value(f)
        if got is None:
            print(f"  {label:<44}{'-':>14}   (not measured)")
            continue
        met = got >= bound if op == ">=" else got < bound
        print(f"  {label:<44}{got:>13.4g}{unit}   target {op} {bound:g}{unit}: "
              f"{'met' if met else 'NOT met'}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and games")
    parser.add_argument("--json", metavar="PATH", help="write the figures to PATH as JSON")
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs per figure (default 3 with --quick, else 5)")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--which", action="store_true",
                        help="print the package measured and whether its compiled core runs")
    parser.add_argument("--require-compiled", action="store_true",
                        help="fail (exit status 1) unless the compiled core runs")
    args = parser.parse_args(argv)
    what = running()
    if args.which:
        print("\n".join(describe(what)))
        return 0
    if args.require_compiled and not what["compiled_core"]:
        print(f"run.py: {describe(what)[1]}", file=sys.stderr)
        return 1
    repeats = args.repeats or (3 if args.quick else 5)
    figures = measure(args.quick, repeats, args.seed)
    report(figures)
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2, sort_keys=True) + "\n",
                                   encoding="utf-8")
        print(f"figures written to {args.json}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
