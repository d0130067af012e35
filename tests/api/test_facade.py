"""The state and its users, in layers (issue 48, item 4).

The engine's state (``cortes_rules.engine.machine.GameState``) knows nothing
of explanations, notation, records or pictures; the public
``cortes_rules.GameState`` (``cortes_rules.api``) is a subclass that adds
them. So every state a user is handed must be of the public class, however it
was made, and the tools the subclass adds must answer as they did when they
lived on the state: an information state replayed from the game's origin is
the one its record gives.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest

import cortes_rules
from cortes_rules import api
from cortes_rules.engine import machine as engine
from cortes_rules.record import record_of, replay, seen_plies, start, verify

TOOLS = ("origin", "explain", "reachable", "move_to", "to_notation", "information_state",
         "_repr_svg_")
FAST_PATH = ("legal_action_ids", "legal_actions", "apply", "apply_chance", "step", "clone",
             "undo", "observation")


@cache
def _veteran() -> cortes_rules.Rulebook:
    """Cortés with the veteran preset: pieces hidden from the other side (11.9)."""
    return cortes_rules.load("cortes", options="veteran")


def _play(state: cortes_rules.GameState, seed: int, actions: int) -> None:
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(rng.choice(state.legal_action_ids()))


@pytest.mark.rule("1.0")
def test_the_engine_state_holds_no_tool_and_the_public_class_no_step() -> None:
    assert cortes_rules.GameState is api.GameState
    assert issubclass(api.GameState, engine.GameState)
    for name in TOOLS:
        assert not hasattr(engine.GameState, name), name
        assert hasattr(api.GameState, name), name
    for name in FAST_PATH:
        # The fast path is the state's own: the public class adds no call to it.
        assert name not in vars(api.GameState), name


@pytest.mark.rule("1.0")
def test_every_way_of_making_a_state_gives_the_public_class() -> None:
    book = _veteran()
    state = book.new_game(seed=4, setup="demo")
    _play(state, 4, 70)   # past the first undo checkpoint (every 64 actions)
    made: dict[str, Any] = {"new_game": state, "clone": state.clone(),
                            "position": book.position(state.to_notation())}
    undone = state.clone()   # cloned: its undo replays from the last checkpoint
    undone.undo()
    made["undo"] = undone
    record = record_of(state)
    made["record start"] = start(record)
    made["record replay"] = replay(record)
    made["record verify"] = verify(record).state
    for how, made_state in made.items():
        assert type(made_state) is api.GameState, how
    assert made["record replay"].same_position(state)


def _seen_by_record(state: cortes_rules.GameState, player: str) -> list[dict[str, Any]]:
    """The actions of an information state, as the game's record judges them."""
    return [{"by": actor, "action": str(action) if action is not None else None}
            for actor, action in seen_plies(record_of(state), state, player)]


def _games() -> dict[str, cortes_rules.GameState]:
    """Games of each origin: a set-up, given positions and attributes, a position's
    text, and a set-up edited by hand before the first action."""
    book = _veteran()
    positions = book.setup_positions("historical")
    games = {
        "setup": book.new_game(seed=7, setup="historical"),
        "positions": book.new_game(seed=7, positions=positions,
                                   attributes={"S9": {"steps": 1}}),
        "position text": book.position(book.new_game(seed=7, setup="historical")
                                       .to_notation()),
    }
    edited = book.new_game(seed=7, setup="historical")
    edited.set_attribute("S9", "steps", 1)
    games["edited"] = edited
    return games


@pytest.mark.rule("11.9")
@pytest.mark.parametrize("origin", ["setup", "positions", "position text", "edited"])
def test_the_information_state_replays_the_game_from_its_origin_as_its_record_does(
        origin: str) -> None:
    state = _games()[origin]
    kind = state.origin[0] if state.origin else None
    assert kind == ("position" if origin in ("position text", "edited") else "setup")
    _play(state, 7, 80)
    # The position the replay starts from is the one the game's record starts from.
    assert state._start().same_position(start(record_of(state)))
    for player in state.machine.world.player:
        known = state.information_state(player)
        assert known["actions"] == _seen_by_record(state, player), (origin, player)
        assert len(known["actions"]) == len(state.history)
    # Under the fog of war the Spanish player does not see every Aztec action (8.8).
    assert any(seen["action"] is None
               for seen in state.information_state("spanish")["actions"])
