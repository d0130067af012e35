"""Procedures on the compiled core: actions applied and ids listed
(``_core.StepRunner``), the loop of frames (``_core.FrameRunner``), the
writes (``_core.StateWriter``) and log lines (``_core.LogWriter``), against
the reference (docs/design.md section 6).

Each action runs the procedures on the state's stack until the next decision,
chance event or the end of the game. The compiled backend applies an action
id, runs that loop and lists legal ids in the extension, and its generated
code writes attributes and game values, puts pieces and logs lines through
the extension; ``GameState.apply``, ``legal_action_ids``, ``_run``,
``_piece_changed``, ``_put``, ``_write_place``, ``_write_value``,
``_sweep_pieces`` and ``_log_values`` in ``engine/machine.py`` are their
specification. Here the same
compiled rulebook plays seeded games with and without each native part, so
that nothing else differs (illegal actions tried on both every few steps);
both loops stop a runaway procedure with the same error; and the native
writes leave a clone, and an action that fails, as the reference does.
"""

from __future__ import annotations

import random
import tempfile
from pathlib import Path

import pytest
from budgets import budget

import cortes_rules
from cortes_rules import RulesRuntimeError
from cortes_rules.engine.machine import GameState
from differential import play_both, random_positions, snapshot

core = pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


def _without_native_loop(book: cortes_rules.Rulebook) -> cortes_rules.Rulebook:
    book._machine.runner = None
    return book


def _without_native_steps(book: cortes_rules.Rulebook) -> cortes_rules.Rulebook:
    book._machine.steps = None
    return book


WRITES = ("_piece_changed", "_put_op", "_write_place", "_write_value", "_sweep_pieces")


def _without_native_logs(book: cortes_rules.Rulebook) -> cortes_rules.Rulebook:
    book._machine.fast.ns["_log_values"] = GameState._log_values
    return book


def _without_native_writes(book: cortes_rules.Rulebook) -> cortes_rules.Rulebook:
    book._machine.fast.ns.update({name: getattr(GameState, name) for name in WRITES})
    return book


def _native_state_in_step(state) -> None:
    fresh = state.machine._native.state_of(state)
    assert state.native.board.where() == fresh.board.where()
    assert list(state.native.pieces) == list(fresh.pieces)
    assert list(state.native.places) == list(fresh.places)


@pytest.mark.rule("2.1")
def test_2_1_only_the_compiled_backend_runs_frames_and_writes_natively():
    compiled = cortes_rules.load("cortes", backend="compiled")._machine
    assert isinstance(compiled.runner, core.FrameRunner)
    assert isinstance(compiled.steps, core.StepRunner)
    for name in WRITES:
        assert isinstance(compiled.fast.ns[name].__self__, core.StateWriter)
    assert isinstance(compiled.fast.ns["_log_values"].__self__, core.LogWriter)
    reference = cortes_rules.load("cortes", backend="python")._machine
    assert reference.runner is None
    assert reference.steps is None
    for name in (*WRITES, "_log_values"):
        assert reference.fast.ns[name] is getattr(GameState, name)


GAMES = [
    ("cortes", {"options": ("veteran",)}, {"setup": "historical", "turn_limit": 10}, (0, 1)),
    ("cortes", {}, {"setup": "demo", "turn_limit": 10}, (2, 4)),
    ("grands_strateges", {"scenario": "X"}, {}, (3, 5))]


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("without", [_without_native_loop, _without_native_steps,
                                     _without_native_writes, _without_native_logs],
                         ids=["frames", "steps", "writes", "logs"])
@pytest.mark.parametrize("name, kwargs, new_game, seeds", GAMES,
                         ids=["cortes-veteran", "cortes-demo", "grands-strateges"])
def test_2_1_each_native_kernel_plays_as_the_reference(without, name, kwargs, new_game,
                                                       seeds):
    """The same compiled rulebook with and without one kernel: legal ids, chance,
    states, frames, log lines with their audiences, observations and the refusal of
    an illegal action (tried every third step) agree at every step."""
    native = cortes_rules.load(name, backend="compiled", **kwargs)
    plain = without(cortes_rules.load(name, backend="compiled", **kwargs))
    seeds = seeds[:budget(2, 1)]
    played = sum(play_both(plain, native, seed=seed, max_steps=300, new_game=new_game,
                           probe_every=3)
                 for seed in seeds)
    assert played >= 150 * len(seeds)


@pytest.mark.rule("2.1")
def test_2_1_a_playout_with_native_steps_is_the_reference_playout():
    native = cortes_rules.load("cortes", backend="compiled", options=("veteran",))
    plain = _without_native_steps(
        cortes_rules.load("cortes", backend="compiled", options=("veteran",)))
    for seed in range(2):
        games = [book.new_game(seed=seed, setup="historical", turn_limit=3)
                 for book in (plain, native)]
        taken = [game.random_playout(seed + 10) for game in games]
        assert taken[0] == taken[1] > 100
        assert snapshot(games[0]) == snapshot(games[1])


@pytest.mark.rule("11.9")
def test_11_9_the_fog_of_war_keeps_log_lines_from_a_player():
    """With the veteran preset's fog of war (11.9), some lines name a piece hidden from
    a player and are kept from that player (the kernels' test above compares every
    audience with the reference's)."""
    book = cortes_rules.load("cortes", backend="compiled", options=("veteran",))
    game = book.new_game(seed=0, setup="historical", turn_limit=10)
    game.random_playout(0, max_actions=400)
    assert any(entry.audience is not None for entry in game.log)


@pytest.mark.rule("2.1")
def test_2_1_native_writes_stamp_what_the_reference_writes_stamp():
    """The stamps (which cached listings check) that an action changes are the same
    ones with the native writes as with the reference's, action by action."""
    native = cortes_rules.load("cortes", backend="compiled", options=("veteran",))
    plain = _without_native_writes(
        cortes_rules.load("cortes", backend="compiled", options=("veteran",)))
    games = [book.new_game(seed=4, setup="historical", turn_limit=10)
             for book in (plain, native)]
    chooser = random.Random(4)
    changed_any = 0
    for _ in range(600):
        if games[0].is_terminal():
            break
        befores = [list(game.stamps) for game in games]
        if games[0].is_chance_node():
            for game in games:
                game.apply_chance()
        else:
            pick = chooser.choice(games[0].legal_action_ids())
            for game in games:
                game.apply(pick)
        changed = [{i for i, (a, b) in enumerate(zip(before, game.stamps, strict=True))
                    if a != b}
                   for before, game in zip(befores, games, strict=True)]
        assert changed[0] == changed[1]
        changed_any += bool(changed[0])
    assert changed_any > 300


@pytest.mark.slow   # every movement of two long games, each on a clone
@pytest.mark.rule("7.1")
def test_7_1_native_writes_on_a_clone_leave_the_original_alone():
    """Every movement of seeded games made on a clone: the original keeps its
    positions, attributes, stamps and native state (copy on write)."""
    book = cortes_rules.load("cortes", backend="compiled", options=("veteran",))
    moves = 0
    for seed in range(2):
        for _, state, chooser in random_positions(
                book, seed, 400, {"setup": "historical", "turn_limit": 10}):
            if state.is_terminal() or state.is_chance_node():
                continue
            moving = [n for n in state.legal_action_ids()
                      if book.action_from_id(n).kind == "move"]
            if moving:
                before, stamps = snapshot(state), list(state.stamps)
                twin = state.clone()
                twin.apply(chooser.choice(moving))
                assert snapshot(state) == before
                assert state.stamps == stamps
                _native_state_in_step(state)
                _native_state_in_step(twin)
                moves += 1
    assert moves > 50


def _diving_book(tmp_path: Path, backend: str) -> cortes_rules.Rulebook:
    text = MINIMAL.read_text(encoding="utf-8")
    old = 'log "{p} rests" cite "2.2"'
    assert old in text
    text = text.replace(old, "call dive(0)", 1) + (
        '\nrule 2.5 "Diving" {\n  summary "A test procedure that calls itself for ever."\n'
        "  procedure dive(n) { call dive(n + 1) }\n}\n")
    path = tmp_path / "race.rules"
    path.write_text(text, encoding="utf-8")
    return cortes_rules.load(path, backend=backend)


@pytest.mark.rule("2.2", rulebook="minimal_race")
@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_2_2_a_procedure_that_calls_itself_for_ever_is_stopped_alike(tmp_path, backend):
    state = _diving_book(tmp_path, backend).new_game(setup="standard")
    before = state.to_notation()
    with pytest.raises(RulesRuntimeError, match="procedures call each other too deeply") \
            as caught:
        state.apply("rest")
    assert caught.value.rule == "2.5"
    assert state.to_notation() == before
    assert state.legal_action_ids() == state.clone().legal_action_ids()


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_2_2_an_action_that_fails_after_native_writes_changes_nothing(tmp_path, monkeypatch):
    """The rest moves the runner and writes its count, then never reaches a decision:
    the writes are undone, the native board and columns with them."""
    from cortes_rules.engine import machine as machine_module
    monkeypatch.setattr(machine_module, "STEP_BUDGET", 5_000)
    text = MINIMAL.read_text(encoding="utf-8").replace(
        'log "{p} rests" cite "2.2"',
        "for each u in runners_of(p) { put u into meadow\n set u.walked = 7 }\n"
        "        loop { }", 1)
    path = tmp_path / "race.rules"
    path.write_text(text, encoding="utf-8")
    state = cortes_rules.load(path, backend="compiled").new_game(setup="standard")
    state.legal_action_ids()      # the native support is made by a first listing
    assert state.native is not None
    before, stamps = snapshot(state), list(state.stamps)
    with pytest.raises(RulesRuntimeError, match="runs on without reaching a decision"):
        state.apply("rest")
    assert snapshot(state) == before
    assert state.stamps == stamps
    _native_state_in_step(state)


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_2_2_a_revealed_piece_is_named_to_the_player_it_was_shown_to():
    """Each runner is hidden from the other player until its side's rest shows it:
    after Red's rest, a line naming Blue's runner is for Blue alone; after Blue's,
    for everyone. The native log lines give each line the reference's audience."""
    text = MINIMAL.read_text(encoding="utf-8").replace(
        'log "{p} rests" cite "2.2"',
        'for each u in runners_of(p) { reveal u to next_player(p) }\n'
        '        for each u in pieces { log "{u} waits" cite "2.2" }', 1)
    text += ('\nrule 2.6 "Screens" {\n  summary "A test clause: a runner is hidden from the'
             ' other player."\n  hide piece when piece.side != viewer\n}\n')
    path = Path(tempfile.mkdtemp()) / "race.rules"
    path.write_text(text, encoding="utf-8")
    audiences = []
    for native in (False, True):
        book = cortes_rules.load(path, backend="compiled")
        if not native:
            _without_native_logs(book)
        state = book.new_game(setup="standard")
        state.apply("rest")     # Red shows his runner to Blue; both runners wait
        state.apply("rest")     # Blue shows his to Red; both wait
        audiences.append([(entry.text, entry.audience) for entry in state.log])
    assert audiences[0] == audiences[1]
    waits = [audience for text, audience in audiences[1] if text.endswith("waits")]
    assert waits == [None, frozenset({"blue"}), None, None]
