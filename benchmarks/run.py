"""The benchmark suite of issue 48: cortes_rules against its anchors, in one run.

Run: python benchmarks/run.py [--quick] [--json PATH] [--repeats N] [--require-compiled]
     python benchmarks/run.py --which

It measures the ``cortes_rules`` this interpreter imports (the installed
package, or the checkout of an editable install): the script never puts its
checkout first on ``sys.path``, and ``--which`` prints the package's folder
and whether its compiled core runs, then stops. When the compiled core is not
the one running (not built, or stale), the figures of the compiled core are
not measured and the report says why; ``--require-compiled`` makes that an
error (exit status 1) before anything is measured, as CI runs it.

Prints a table of figures, then issue 48's targets, each a figure or a ratio
against its anchor measured in the same run, with ``met`` or ``NOT met``; a
missed target never fails the script (a C listing that disagrees with the
engine does: exit status 2, the position printed). With ``--json`` it writes
one JSON object: every figure under its key (flat), and ``targets``, one
entry per target with its value, spread, bound and ``met`` (true, false, or
null when not measured, with the reason).

Every figure is the median of its runs, with its minimum and maximum under
the same key plus ``_min`` / ``_max``. Figures compared with each other are
measured interleaved: a round runs each workload of a group once, forward in
even rounds and backward in odd ones (A B, B A: ``--repeats`` rounded up to
an even number of rounds, 4 with ``--quick``, else 6); a ratio is taken
round by round, then its median, minimum and maximum. Workloads:

- ``cortes``: Cortés with the veteran preset (every optional rule), from the
  historical set-up, games of at most 10 game turns; ``gs``: Grands
  Stratèges, scenario I.
- A **step** is ``legal_action_ids()`` and ``apply`` of a uniformly random
  legal id; at a chance node ``apply_chance()`` (the outcome sampled by the
  game's seeded generator) is one step. Games restart with the next seed.
  ``*_compiled_steps_per_s`` / ``*_python_steps_per_s``: the same seeded
  steps through the public API on the compiled core and on the engine's
  Python backend (both loaded in this process, ``backend=`` of
  :func:`cortes_rules.load`); ``*_speedup`` is their ratio.
  ``*_vm_steps_per_s``: the same kind of step on a state of the native VM of
  the core IR (``cortes_rules.core.vm``; its own ``legal_action_ids`` and
  ``apply``); ``*_vm_vs_chess_steps``. ``*_native_steps_per_s``: the same
  steps through the public API on a native state (``new_game(native=True)``:
  the fast path on the VM, the rest on the engine caught up);
  ``*_native_vs_chess_steps``, ``cortes_native_vs_backgammon_steps``.
  ``pyspiel_chess_steps_per_s``,
  ``pyspiel_backgammon_steps_per_s``: the same step through pyspiel's Python
  API (a chance outcome drawn by its probabilities); the ratios
  ``cortes_vs_chess_steps``, ``cortes_vs_backgammon_steps``,
  ``gs_vs_chess_steps`` (targets a, b).
- **Rollouts**, ``*_rollout_actions_per_s``: whole random games by
  ``Rulebook.random_rollouts(n, seed)`` (on the compiled core it plays on the
  native VM; ``rollout_path`` says so), uniformly random legal actions,
  chance by the game's dice, to the end the rulebook states (Cortés: the
  turn limit); ``*_rollout_actions`` counts the actions of all rounds and
  ``*_games_per_s`` those games per second. Against the reference
  interpreter of the core IR (``cortes_rules.core.run``, the executable
  specification, slow on purpose): ``*_reference_prefix_actions_per_s`` and
  ``*_vm_prefix_actions_per_s``, the first ``REFERENCE_ACTIONS`` actions of
  the same rollouts (same seeds, same choices) played by each, and
  ``*_rollouts_same_on_both``: both took the same actions to the same legal
  ids. ``pyspiel_chess_rollout_actions_per_s``:
  ``pyspiel.evaluate_bots`` with two uniform random bots, whole games, the
  actions counted as games times the mean length of uniform random chess
  games measured in the same run. Ratios ``*_rollouts_vs_chess`` and
  ``*_rollouts_vs_reference`` (VM prefix over reference prefix: target c).
- ``c_listing_us``, ``engine_listing_us``, ``engine_listing_vs_c``,
  ``vm_listing_us``, ``c_recorded_listing_us``, ``listing_vs_c`` (target d):
  the hand-written C listing of the Cortés movement clauses
  (``benchmarks/c_listing.py``, compiled with ``cc`` at run time), the
  compiled engine's listing of the same decisions and the native VM's
  (each listed anew, on the recorded positions the VM reaches by the same
  actions and dice), µs per call, after the C listing and the VM were checked
  to give exactly the engine's legal moves on every position
  (``c_listing_positions``, ``c_listing_vm_positions``,
  ``c_listing_moves_checked``); ``listing_vs_c`` is the VM's over C's.
- ``*_clone_us``: one ``clone()`` of a mid-game state on the compiled core, averaged;
  ``cortes_vm_clone_us``, of a native VM state (300 actions into a game).
- Loads of Cortés (veteran), each in a new process with its own cache folder
  (the import of the package and of its API is not counted; modules the load
  itself imports are): ``cortes_compile_rulebook_s``
  with nothing cached (lark builds the grammar's parse tables, or reads those
  built with the package, then the rulebook is parsed, checked and lowered;
  the tables the engine builds are part of the load);
  ``cortes_compile_with_grammar_tables_s`` with only the grammar's tables
  cached; ``cortes_cached_load_s`` with the checked rulebook in the load
  cache (:mod:`cortes_rules.load_cache`).
- ``cortes_odds_distribution_ms``: from a battle whose attackers are
  committed, the exact distribution of the states reached when every chance
  event that follows ``resolve`` is expanded (all chained rolls, by
  ``chance_outcomes()`` and ``clone()``) down to the next decision; a run is
  the mean of ``ODDS_PER_RUN`` of them, after as many to warm up.
- The bytes of one state (target f, reported, no bound yet), a mid-game
  Cortés state on the compiled core, two honest approximations of what a
  fixed-size native state would replace: ``cortes_state_deep_bytes``, the
  ``sys.getsizeof`` of every object reachable from the state but not from its
  rulebook (the machine, the world's pieces and places, the code: shared by
  every state), each counted once; ``cortes_state_clone_bytes``, the memory
  one ``clone()`` allocates and keeps (``tracemalloc``, over 100 clones kept
  alive: what clones share is not counted); ``cortes_vm_state_bytes``, the
  native VM's state 300 actions into a game (``State.nbytes``: its arrays,
  the slots and heap in use).
- ``package``, ``version``, ``compiled_core`` (whether it runs) and
  ``compiled_core_missing`` (why not), ``pyspiel_missing``,
  ``c_listing_missing``: what was measured, and why not.
"""

from __future__ import annotations

import argparse
import gc
import json
import math
import os
import platform
import random
import statistics
import subprocess
import sys
import tempfile
import time
import tracemalloc
import types
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

# The package measured is the one this interpreter imports: sys.path starts
# with this script's folder (benchmarks/), never with the checkout around it.
import cortes_rules

import c_listing

clock = time.perf_counter
ODDS_PER_RUN = 20
ROLLOUT_PATH = "Rulebook.random_rollouts(n, seed)"
REFERENCE_ACTIONS = {True: 60, False: 150}   # by --quick: the reference is slow on purpose
CORTES_GAME: dict[str, Any] = {"setup": "historical", "turn_limit": 10}
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


def vm_steps_per_s(vm: Any, new_game: dict[str, Any], steps: int, seed: int) -> float:
    """Seeded random steps on states of the native VM (``Player.steps``, on the VM)."""
    rng, game = random.Random(seed), seed
    state = vm.new_game(seed=game, **new_game)
    start = clock()
    for _ in range(steps):
        if state.is_terminal():
            game += 1
            state = vm.new_game(seed=game, **new_game)
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(rng.choice(state.legal_action_ids()))
    return steps / (clock() - start)


def prefix_actions(executor: Any, new_game: dict[str, Any], games: int, seed: int,
                   actions: int, log: bool) -> tuple[float, list[Any]]:
    """Seconds for the first ``actions`` actions of rollouts ``seed``'s first ``games`` (the
    seeds ``Rulebook.random_rollouts`` gives them), and each game's legal ids at the cut."""
    from cortes_rules.engine.ai import rollout_seeds

    took, ends = 0.0, []
    for dice, chooser in rollout_seeds(seed, games):
        kw = {} if log else {"log": False}
        state = executor.new_game(seed=dice, **new_game, **kw)
        start = clock()
        state.random_playout(chooser, actions)
        took += clock() - start
        ends.append(state.legal_action_ids())
    return took, ends


def vm_clone_us(state: Any, clones: int = 2000) -> float:
    """µs per ``clone()`` of a native VM state."""
    start = clock()
    for _ in range(clones):
        state.clone()
    return (clock() - start) / clones * 1e6


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


# ------------------------------------------------------------------ rollouts and state size
def rollout_actions(book: cortes_rules.Rulebook, new_game: dict[str, Any], games: int,
                    seed: int) -> tuple[int, float]:
    """Actions taken and seconds spent by ``games`` random playouts, seeds ``seed`` on."""
    taken, took = 0, 0.0
    for game in range(games):
        state = book.new_game(seed=seed + game, **new_game)
        start = clock()
        taken += state.random_playout(seed + game)
        took += clock() - start
    return taken, took


def mid_game(book: cortes_rules.Rulebook, new_game: dict[str, Any], seed: int) -> Any:
    player = Player(book, new_game, seed)
    player.steps(300)
    return player.state


def _shared_with(book: cortes_rules.Rulebook) -> set[int]:
    """The ids of every object reachable from a rulebook (held by all its states)."""
    seen: set[int] = set()
    stack: list[Any] = [book, book._machine]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType)):
            continue
        seen.add(id(obj))
        stack.extend(gc.get_referents(obj))
    return seen


def state_deep_bytes(book: cortes_rules.Rulebook, state: Any) -> int:
    """``sys.getsizeof`` summed over the objects reachable from ``state`` and not from its
    rulebook, each once."""
    seen = _shared_with(book)
    total, stack = 0, [state]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, (type, types.ModuleType, types.FunctionType)):
            continue
        seen.add(id(obj))
        total += sys.getsizeof(obj)
        stack.extend(gc.get_referents(obj))
    return total


def state_clone_bytes(state: Any, clones: int = 100) -> float:
    """The memory one ``clone()`` allocates and keeps, over ``clones`` clones kept alive."""
    gc.collect()
    tracemalloc.start()
    before = tracemalloc.get_traced_memory()[0]
    kept = [state.clone() for _ in range(clones)]
    after = tracemalloc.get_traced_memory()[0]
    tracemalloc.stop()
    del kept
    return (after - before) / clones


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
def put(figures: Figures, key: str, values: list[float]) -> None:
    """The median of ``values`` under ``key``, with ``_min`` and ``_max``."""
    figures[key] = statistics.median(values)
    figures[key + "_min"] = min(values)
    figures[key + "_max"] = max(values)


def repeat(figures: Figures, key: str, repeats: int, run: Callable[[int], float],
           warm: Callable[[], Any] | None = None) -> None:
    """Median, min and max of ``repeats`` runs of ``run(i)`` under ``key``, after ``warm()``."""
    if warm is not None:
        warm()
    put(figures, key, [run(i) for i in range(repeats)])


def interleave(figures: Figures, runs: dict[str, Callable[[int], float]], rounds: int,
               ratios: dict[str, tuple[str, str]]) -> dict[str, list[float]]:
    """Run every workload once a round, forward in even rounds and backward in odd ones
    (A B, B A); each figure, and each ratio ``key: (a, b)`` taken round by round as a / b,
    goes into ``figures`` as its median, min and max. Returns the runs."""
    names = list(runs)
    values: dict[str, list[float]] = {name: [] for name in names}
    for r in range(rounds):
        for name in names if r % 2 == 0 else names[::-1]:
            values[name].append(runs[name](r))
    for name in names:
        put(figures, name, values[name])
    for key, (a, b) in ratios.items():
        if a in values and b in values:
            put(figures, key, [x / y for x, y in zip(values[a], values[b], strict=True)])
    return values


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


def import_pyspiel() -> Any:
    """pyspiel, or None when it is not installed."""
    try:
        import pyspiel
    except ImportError:
        return None
    return pyspiel


def measure(quick: bool, repeats: int, seed: int) -> Figures:
    steps = 1000 if quick else 3000
    games = 1 if quick else 3
    rounds = 2 * math.ceil(repeats / 2)
    figures: Figures = {"python": platform.python_version(), "quick": quick,
                        "repeats": repeats, "rounds": rounds, "steps_per_run": steps,
                        "rollout_path": ROLLOUT_PATH, **running()}
    pyspiel = import_pyspiel()
    if pyspiel is None:
        figures["pyspiel_missing"] = ("pyspiel is not installed (pip install -e '.[bench]'): "
                                      "no OpenSpiel anchor")
        print(figures["pyspiel_missing"], file=sys.stderr)
    compiled_core = figures["compiled_core"]

    loads(figures, repeats)
    python_books = {"cortes": cortes_rules.load("cortes", options="veteran", backend="python"),
                 "gs": cortes_rules.load("grands_strateges", scenario="I", backend="python")}
    compiled = {name: cortes_rules.Rulebook(ref.program, ref.warnings, backend="compiled")
                for name, ref in python_books.items()} if compiled_core else {}
    for name, book in compiled.items():
        figures[f"{name}_backend"] = book.backend
    new_game = {"cortes": CORTES_GAME, "gs": {}}
    # The core IR's two executors: the native VM and the reference interpreter.
    from cortes_rules.core.run import Interpreter
    from cortes_rules.dsl.to_core import to_core

    cores = {name: to_core(book._machine.program) for name, book in python_books.items()}
    interpreters = {name: Interpreter(game) for name, game in cores.items()}
    vms = {name: book._native_vm() for name, book in compiled.items()}
    figures["rollout_path"] = (f"{ROLLOUT_PATH} on the native VM" if all(vms.values())
                               and vms else f"{ROLLOUT_PATH} on the engine")

    # Stepping through the Python API (targets a, b), and compiled over reference.
    stepping: dict[str, Callable[[int], float]] = {}
    for name in ("cortes", "gs"):
        books = [("python", python_books[name])]
        if name in compiled:
            books.insert(0, ("compiled", compiled[name]))
        for label, book in books:
            # Warm, untimed, on other seeds: the interpreter generates its fast
            # paths (expressions, regions of statements) when they first run.
            for w in range(1, 4):
                steps_per_s(book, new_game[name], steps, seed - w)
            stepping[f"{name}_{label}_steps_per_s"] = (
                lambda r, b=book, g=new_game[name]: steps_per_s(b, g, steps, seed + 100 * r))
        if name in compiled:
            # The same steps on a native state of the public API (new_game(native=True)).
            native_game = {**new_game[name], "native": True}
            steps_per_s(compiled[name], native_game, steps, seed - 1)   # warm
            stepping[f"{name}_native_steps_per_s"] = (
                lambda r, b=compiled[name], g=native_game: steps_per_s(b, g, steps,
                                                                      seed + 100 * r))
        if vms.get(name) is not None:
            vm_steps_per_s(vms[name], new_game[name], steps, seed - 1)   # warm
            stepping[f"{name}_vm_steps_per_s"] = (
                lambda r, v=vms[name], g=new_game[name]: vm_steps_per_s(v, g, steps,
                                                                        seed + 100 * r))
    if pyspiel is not None:
        for game in ("chess", "backgammon"):
            stepping[f"pyspiel_{game}_steps_per_s"] = (
                lambda r, game=game: spiel_steps_per_s(pyspiel, game, steps * 20, seed + r))
    interleave(figures, stepping, rounds, {
        "cortes_vs_chess_steps": ("cortes_compiled_steps_per_s", "pyspiel_chess_steps_per_s"),
        "cortes_vs_backgammon_steps": ("cortes_compiled_steps_per_s",
                                       "pyspiel_backgammon_steps_per_s"),
        "gs_vs_chess_steps": ("gs_compiled_steps_per_s", "pyspiel_chess_steps_per_s"),
        "cortes_speedup": ("cortes_compiled_steps_per_s", "cortes_python_steps_per_s"),
        "gs_speedup": ("gs_compiled_steps_per_s", "gs_python_steps_per_s"),
        "cortes_vm_vs_chess_steps": ("cortes_vm_steps_per_s", "pyspiel_chess_steps_per_s"),
        "gs_vm_vs_chess_steps": ("gs_vm_steps_per_s", "pyspiel_chess_steps_per_s"),
        "cortes_native_vs_chess_steps": ("cortes_native_steps_per_s",
                                         "pyspiel_chess_steps_per_s"),
        "cortes_native_vs_backgammon_steps": ("cortes_native_steps_per_s",
                                              "pyspiel_backgammon_steps_per_s"),
        "gs_native_vs_chess_steps": ("gs_native_steps_per_s", "pyspiel_chess_steps_per_s")})

    # Whole random games (target c), and against the reference interpreter.
    rollouts: dict[str, Callable[[int], float]] = {}
    per_game = {"cortes": games, "gs": 5 * games}
    cut = REFERENCE_ACTIONS[quick]
    for name in ("cortes", "gs"):
        if name not in compiled:
            continue
        book = compiled[name]
        book.random_rollouts(1, seed - 1, **new_game[name])   # warm (compiles the VM)

        def rollout(r: int, book: Any = book, name: str = name) -> float:
            start = clock()
            played = book.random_rollouts(per_game[name], seed + 1000 * r, **new_game[name])
            took = clock() - start
            figures.setdefault(f"_{name}_actions", []).append(played.actions)
            figures.setdefault(f"_{name}_games", []).append(per_game[name] / took)
            return played.actions / took
        rollouts[f"{name}_rollout_actions_per_s"] = rollout
        for label, executor in (("vm", vms[name]), ("reference", interpreters[name])):
            if executor is None:
                continue

            def prefix(r: int, e: Any = executor, name: str = name, label: str = label) -> float:
                took, ends = prefix_actions(e, new_game[name], games, seed + 1000 * r, cut,
                                            log=label == "reference")
                figures.setdefault(f"_{name}_{label}_ends", []).append(ends)
                return games * cut / took
            rollouts[f"{name}_{label}_prefix_actions_per_s"] = prefix
    if pyspiel is not None:
        length = chess_mean_length(pyspiel, 20 if quick else 100, seed)
        figures["pyspiel_chess_random_game_length"] = length
        rollouts["pyspiel_chess_rollout_actions_per_s"] = (
            lambda r: spiel_rollout_actions_per_s(pyspiel, 20 if quick else 100, length,
                                                  seed + 7 * r))
    interleave(figures, rollouts, rounds, {
        "cortes_rollouts_vs_chess": ("cortes_rollout_actions_per_s",
                                     "pyspiel_chess_rollout_actions_per_s"),
        "gs_rollouts_vs_chess": ("gs_rollout_actions_per_s",
                                 "pyspiel_chess_rollout_actions_per_s"),
        "cortes_rollouts_vs_reference": ("cortes_vm_prefix_actions_per_s",
                                         "cortes_reference_prefix_actions_per_s"),
        "gs_rollouts_vs_reference": ("gs_vm_prefix_actions_per_s",
                                     "gs_reference_prefix_actions_per_s")})
    for name in ("cortes", "gs"):
        if f"_{name}_actions" in figures:
            figures[f"{name}_rollout_actions"] = sum(figures.pop(f"_{name}_actions"))
            put(figures, f"{name}_games_per_s", figures.pop(f"_{name}_games"))
        ends = [figures.pop(f"_{name}_{label}_ends", None) for label in ("vm", "reference")]
        if ends[0] is not None and ends[1] is not None:
            figures[f"{name}_rollouts_same_on_both"] = ends[0] == ends[1]
    if not compiled_core:
        return figures

    for name, book in compiled.items():
        repeat(figures, f"{name}_clone_us", repeats,
               lambda i, c=book, g=new_game[name]: clone_us(c, g, seed + i))
    cortes = compiled["cortes"]
    battle = battle_at_resolve(cortes, CORTES_GAME)
    repeat(figures, "cortes_odds_distribution_ms", repeats,
           lambda i: statistics.mean(odds_ms(battle, cortes) for _ in range(ODDS_PER_RUN)),
           warm=lambda: [odds_ms(battle, cortes) for _ in range(ODDS_PER_RUN)])
    state = mid_game(cortes, CORTES_GAME, seed)
    figures["cortes_state_deep_bytes"] = state_deep_bytes(cortes, state)
    figures["cortes_state_clone_bytes"] = state_clone_bytes(state)
    if vms.get("cortes") is not None:
        native = vms["cortes"].new_game(seed=seed, log=False, **CORTES_GAME)
        native.random_playout(seed, 300)
        figures["cortes_vm_state_bytes"] = native.nbytes
        repeat(figures, "cortes_vm_clone_us", repeats, lambda i: vm_clone_us(native))

    # The VM's movement listing against a hand-written C listing (target d).
    if c_listing.compiler() is None:
        figures["c_listing_missing"] = "no C compiler (cc) on this machine"
        print(f"run.py: {figures['c_listing_missing']}: no figure of the C listing",
              file=sys.stderr)
    else:
        try:
            figures.update(c_listing.measure(cortes, 20 if quick else 60, rounds, seed))
        except c_listing.ListingMismatch as error:
            figures["c_listing_error"] = str(error)
    return figures


def loads(figures: Figures, repeats: int) -> None:
    """The loads of Cortés (veteran) in new processes (target e)."""
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


def load_seconds(cache: Path) -> float:
    """One ``load`` of Cortés (veteran) in a new process with this cache folder (import not
    counted), of the package this process imported (``-P``: the working folder is not
    put first on the path)."""
    # ``cortes_rules`` imports its API on first use: ``load`` is looked up (and the API
    # imported) before the clock starts, so that only the load is timed.
    program = ("import sys, time; import cortes_rules; "
               "assert cortes_rules.__file__ == sys.argv[1], cortes_rules.__file__; "
               "load = cortes_rules.load; "
               "start = time.perf_counter(); load('cortes', options='veteran'); "
               "print(time.perf_counter() - start)")
    done = subprocess.run([sys.executable, "-P", "-c", program, cortes_rules.__file__],
                          env={**os.environ, "CORTES_RULES_CACHE": str(cache)},
                          capture_output=True, text=True, check=True)
    return float(done.stdout.split()[-1])


# ------------------------------------------------------------------ targets and report
# Issue 48's targets: (name, what, figure key, comparison, bound, unit, needs), where
# ``needs`` names what the figure cannot be measured without.
TARGETS: list[tuple[str, str, str, str, float, str, tuple[str, ...]]] = [
    ("a_cortes_vs_chess", "Cortés steps/s vs pyspiel chess steps/s", "cortes_vs_chess_steps",
     ">=", 2.0, "x", ("compiled", "pyspiel")),
    ("a_cortes_vs_backgammon", "Cortés steps/s vs pyspiel backgammon steps/s",
     "cortes_vs_backgammon_steps", ">=", 2.0, "x", ("compiled", "pyspiel")),
    ("b_gs_vs_chess", "Grands Stratèges I steps/s vs pyspiel chess", "gs_vs_chess_steps",
     ">=", 1.0, "x", ("compiled", "pyspiel")),
    ("c_cortes_rollouts_vs_chess", "Cortés rollout actions/s vs chess evaluate_bots",
     "cortes_rollouts_vs_chess", ">=", 3.0, "x", ("compiled", "pyspiel")),
    ("c_gs_rollouts_vs_chess", "Grands Stratèges I rollouts vs chess evaluate_bots",
     "gs_rollouts_vs_chess", ">=", 1.0, "x", ("compiled", "pyspiel")),
    ("c_cortes_rollouts_vs_reference", "Cortés rollouts vs reference, same seeds",
     "cortes_rollouts_vs_reference", ">=", 300.0, "x", ("compiled",)),
    ("c_gs_rollouts_vs_reference", "Grands Stratèges I rollouts vs reference",
     "gs_rollouts_vs_reference", ">=", 300.0, "x", ("compiled",)),
    ("d_listing_vs_c", "VM's Cortés movement listing vs hand-written C", "listing_vs_c",
     "<=", 3.0, "x", ("compiled", "cc")),
    ("e_clone", "clone() of a Cortés state", "cortes_clone_us", "<=", 1.0, "µs",
     ("compiled",)),
    ("e_cold_load", "cold load of Cortés (veteran), new process",
     "cortes_compile_rulebook_s", "<=", 1.0, "s", ()),
    ("e_cached_load", "cached load of Cortés (veteran), new process", "cortes_cached_load_s",
     "<=", 0.1, "s", ()),
    ("e_attack_distribution", "exact result distribution of one attack",
     "cortes_odds_distribution_ms", "<=", 0.2, "ms", ("compiled",)),
]
# Reported without a bound (target f): the bytes of one state.
REPORTED = [("f_state_bytes_deep", "bytes of one Cortés state (getsizeof, deep)",
             "cortes_state_deep_bytes", "B"),
            ("f_state_bytes_clone", "bytes one clone() allocates and keeps",
             "cortes_state_clone_bytes", "B"),
            ("f_vm_state_bytes", "bytes of one Cortés state on the native VM",
             "cortes_vm_state_bytes", "B")]


def _why_missing(f: Figures, needs: tuple[str, ...]) -> str:
    reasons = {"compiled": "compiled core not running" if not f.get("compiled_core") else "",
               "pyspiel": "pyspiel missing" if f.get("pyspiel_missing") else "",
               "cc": f.get("c_listing_missing") or f.get("c_listing_error", "")[:60]}
    return "; ".join(r for r in (reasons.get(n, "") for n in needs) if r) or "not measured"


def targets(f: Figures) -> dict[str, dict[str, Any]]:
    """Each target's value, spread, bound and whether it is met (None: not measured)."""
    found: dict[str, dict[str, Any]] = {}
    for name, what, key, op, bound, unit, needs in TARGETS:
        entry: dict[str, Any] = {"what": what, "figure": key, "bound": f"{op} {bound:g}{unit}"}
        if key not in f:
            entry.update(value=None, met=None, why=_why_missing(f, needs))
        else:
            value = f[key]
            entry.update(value=value, min=f.get(key + "_min"), max=f.get(key + "_max"),
                         met=value >= bound if op == ">=" else value <= bound)
        found[name] = entry
    for name, what, key, unit in REPORTED:
        found[name] = {"what": what, "figure": key, "bound": None, "value": f.get(key),
                       "met": None, "unit": unit}
    return found


def describe(f: Figures) -> list[str]:
    """The lines saying what is measured: the package, and whether the compiled core runs."""
    core = ("compiled core running" if f["compiled_core"] else
            f"compiled core NOT running ({f['compiled_core_missing']}): no figure of the "
            "compiled core is measured")
    return [f"cortes_rules {f['version']} from {f['package']}", core]


def report(f: Figures) -> None:
    print(f"cortes_rules benchmarks: python {f['python']}, median of {f['repeats']} runs "
          f"({f.get('rounds', f['repeats'])} interleaved rounds) [min, max]")
    for line in describe(f):
        print(f"  {line}")
    for key in sorted(k for k in f if k + "_min" in f):
        print(f"  {key:<44}{f[key]:>14.4g}   [{f[key + '_min']:.4g}, {f[key + '_max']:.4g}]")
    for key in sorted(k for k in f if k.endswith(("_bytes", "_rollout_actions"))):
        print(f"  {key:<44}{f[key]:>14.6g}")
    if "rollout_path" in f:
        print(f"  rollouts: {f['rollout_path']}")
    print("targets (issue 48):")
    for entry in targets(f).values():
        label = entry["what"]
        if entry["bound"] is None:
            value = entry["value"]
            shown = "-" if value is None else f"{value:,.0f} {entry['unit']}"
            print(f"  {label:<52}{shown:>14}   (reported, no bound yet)")
        elif entry["met"] is None:
            print(f"  {label:<52}{'-':>14}   (not measured: {entry['why']})")
        else:
            unit = entry["bound"].lstrip("<>= 0123456789.")
            print(f"  {label:<52}{entry['value']:>13.4g}{unit}   "
                  f"[{entry['min']:.4g}, {entry['max']:.4g}]   target {entry['bound']}: "
                  f"{'met' if entry['met'] else 'NOT met'}")
    if "c_listing_error" in f:
        print(f"C LISTING DIFFERS FROM THE ENGINE:\n{f['c_listing_error']}")


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--quick", action="store_true", help="fewer steps and games")
    parser.add_argument("--json", metavar="PATH", help="write the figures to PATH as JSON")
    parser.add_argument("--repeats", type=int, default=None,
                        help="runs per figure (default 3 with --quick, else 5); interleaved "
                             "groups run this rounded up to an even number of rounds")
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
        written = {**figures, "targets": targets(figures)}
        Path(args.json).write_text(json.dumps(written, indent=2, sort_keys=True) + "\n",
                                   encoding="utf-8")
        print(f"figures written to {args.json}")
    return 2 if "c_listing_error" in figures else 0


if __name__ == "__main__":
    sys.exit(main())
