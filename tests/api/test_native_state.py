"""A game played natively through the public API (``new_game(native=True)``, issue 48 item 4).

``NativeGameState`` answers the fast path (legal ids, apply, chance, clone, the
player to act, the end) from the native VM, and hands everything else to the
engine, caught up on the actions taken natively. Seeded random games are
played on a native state and on an engine state side by side: at every step
the same legal ids, chance flag, player to act and drawn outcomes; at the end
the same outcome; and once the native state is asked for its log (which
catches the engine up) the same history, log lines with their rules,
generator, undo depth and position text as the engine state's. A refused
action is refused by the engine, with its rules, and changes nothing.
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import cortes_rules
from cortes_rules.api import NativeGameState
from cortes_rules.errors import IllegalActionError

pytest.importorskip("cortes_rules._vm", reason="the native VM was not built")

# Whole games: the sequence of play (4.2) and every rule it reaches.
pytestmark = pytest.mark.rule("4.2")

GAMES = [("cortes", {}, "historical", 2), ("cortes", {"options": "veteran"}, "historical", 2),
         ("grands_strateges", {"options": "all", "scenario": "I"}, None, 2)]


def _book(name: str, load: dict[str, Any]) -> Any:
    book = cortes_rules.load(name, **load)
    if book.backend != "compiled":
        pytest.skip("the native state needs the compiled core")
    return book


def _side_by_side(book: Any, setup: str | None, seed: int, turns: int) -> tuple[Any, Any]:
    """One random game on an engine state and on a native state, compared at every step."""
    engine = book.new_game(seed=seed, setup=setup, turn_limit=turns)
    native = book.new_game(seed=seed, setup=setup, turn_limit=turns, native=True)
    assert type(native) is NativeGameState and type(engine) is not NativeGameState
    rng = random.Random(seed)
    while not engine.is_terminal():
        assert not native.is_terminal()
        assert native.is_chance_node() == engine.is_chance_node()
        assert native.current_player == engine.current_player
        if engine.is_chance_node():
            assert native.apply_chance() == engine.apply_chance()
            continue
        ids = engine.legal_action_ids()
        assert native.legal_action_ids() == ids
        assert list(native.legal_action_ids_buffer()) == ids
        action = book.action_from_id(rng.choice(ids))
        engine.apply(action)
        native.apply(action)
    assert native.is_terminal() and type(native) is NativeGameState
    mine, theirs = native.outcome(), engine.outcome()
    assert (mine.winners, mine.reason, mine.scores, mine.details, mine.rule) == \
        (theirs.winners, theirs.reason, theirs.scores, theirs.details, theirs.rule)
    return engine, native


def _same_record(engine: Any, native: Any) -> None:
    lines = [(e.turn, e.text, tuple(e.rules)) for e in native.log]   # catches up
    assert type(native) is not NativeGameState
    assert lines == [(e.turn, e.text, tuple(e.rules)) for e in engine.log]
    assert native.history == engine.history
    assert native.rng_state == engine.rng_state
    assert native.undo_depth == engine.undo_depth
    assert native.to_notation() == engine.to_notation()


@pytest.mark.parametrize(("name", "load", "setup", "turns"), GAMES,
                         ids=["cortes", "cortes-veteran", "gs-I"])
def test_a_native_game_is_the_engines_game(name: str, load: dict[str, Any],
                                           setup: str | None, turns: int) -> None:
    book = _book(name, load)
    for seed in range(2):
        engine, native = _side_by_side(book, setup, seed, turns)
        _same_record(engine, native)


@pytest.mark.rule("4.2")
def test_a_question_part_way_hands_the_game_to_the_engine_unchanged() -> None:
    """Asked for its observation part way, the native state becomes the engine's
    state of the same game, and play goes on there as on an engine state."""
    book = _book("cortes", {})
    engine = book.new_game(seed=5, setup="historical")
    native = book.new_game(seed=5, setup="historical", native=True)
    for _ in range(60):
        number = native.step(native.legal_action_ids()[0])
        assert engine.step(engine.legal_action_ids()[0]) == number
    assert str(native.observation("aztec")) == str(engine.observation("aztec"))
    assert type(native) is not NativeGameState
    for _ in range(20):
        assert native.step(native.legal_action_ids()[-1]) == \
            engine.step(engine.legal_action_ids()[-1])
    _same_record(engine, native)
    assert str(native.undo()) == str(engine.undo())


@pytest.mark.rule("7.1")
def test_a_refused_action_is_the_engines_refusal_and_changes_nothing() -> None:
    book = _book("cortes", {})
    engine = book.new_game(seed=2, setup="historical")
    native = book.new_game(seed=2, setup="historical", native=True)
    legal = set(engine.legal_action_ids())
    illegal = next(i for i in range(book.num_distinct_actions) if i not in legal)
    with pytest.raises(IllegalActionError) as refused:
        engine.apply(illegal)
    with pytest.raises(IllegalActionError) as also:
        native.apply(illegal)
    assert str(also.value) == str(refused.value)
    assert native.legal_action_ids() == engine.legal_action_ids()
    assert native.history == engine.history == []


def test_a_clone_of_a_native_state_plays_on_alone() -> None:
    book = _book("cortes", {})
    native = book.new_game(seed=3, setup="historical", native=True)
    for _ in range(30):
        native.step(native.legal_action_ids()[0])
    twin = native.clone()
    assert type(twin) is NativeGameState
    ids = twin.legal_action_ids()
    twin.step(ids[-1])
    assert native.legal_action_ids() == ids
    before = native.history
    assert twin.history[:len(before)] == before and len(twin.history) > len(before)


def test_native_is_ignored_where_the_vm_cannot_start_the_game() -> None:
    """A game started from given positions is the engine's: the VM starts only from
    a set-up."""
    book = _book("cortes", {})
    placed = book.setup_positions("historical")
    state = book.new_game(seed=1, positions=placed, native=True)
    assert type(state) is not NativeGameState
