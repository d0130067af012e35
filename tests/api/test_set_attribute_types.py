"""Values set by hand are stored as their declared type, and a position built by
hand carries the players' attributes too.

``set_attribute("S25", "carrier", "S1")`` stored the text ``"S1"`` in 11.6's
piece-typed ``carrier``, so the rules' ``c.carrier == u`` was silently false
and the cannon stayed behind. Now an id given for a ``piece``, ``place`` or
``player`` attribute becomes the thing, and a value of the wrong type is
refused in words, changing nothing. ``new_game(attributes=...)`` and
``set_player_attribute`` give a player's attribute (Grands Stratèges' morale
value, XI.1) to a position built by hand, and the game's record starts from
that position.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from positions import GARRISON

import cortes_rules
from cortes_rules import ArgumentTypeError, GameState, UnknownIdError, UnknownNameError
from cortes_rules.record import format_record, parse_record, replay

EXAMPLES_MAP = (Path(__file__).resolve().parents[1] / "rules" / "grands_strateges"
                / "examples_map.rules")
CANNON, INFANTRY = "S25", "S1"


@pytest.fixture(scope="module")
def cannons() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes", options=["11.6"])


@pytest.fixture(scope="module")
def morale() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", options=["XI.1", "XI.2"], map=EXAMPLES_MAP)


def _with_cannon(book: cortes_rules.Rulebook) -> GameState:
    return book.new_game(seed=0, positions={**GARRISON, INFANTRY: "3010", CANNON: "3010"})


@pytest.mark.rule("11.6")
def test_a_carrier_set_by_id_carries_the_cannon(cannons: cortes_rules.Rulebook) -> None:
    state = _with_cannon(cannons)
    state.set_attribute(CANNON, "carrier", INFANTRY)
    assert state.evaluate("c.carrier == u", c=CANNON, u=INFANTRY) is True
    state.apply("end")                      # the carriers are chosen: movement begins
    state.apply(f"move {INFANTRY} 3011")
    assert state.place_of(CANNON) == "3011"
    assert any("11.6" in e.rules for e in state.trail(-1))
    # The record starts from the position set by hand, so it replays to the same game.
    again = replay(parse_record(format_record(state)), cannons)
    assert again.same_position(state)


@pytest.mark.rule("11.6")
def test_a_carrier_given_before_the_game_begins(cannons: cortes_rules.Rulebook) -> None:
    state = cannons.new_game(seed=0, positions={**GARRISON, INFANTRY: "3010", CANNON: "3010"},
                             attributes={CANNON: {"carrier": INFANTRY}})
    assert state.evaluate("c.carrier == u", c=CANNON, u=INFANTRY) is True
    assert replay(parse_record(format_record(state)), cannons).same_position(state)


@pytest.mark.rule("11.6")
@pytest.mark.parametrize(("value", "error", "words"), [
    (5, ArgumentTypeError, "is declared piece"),
    (["S1"], ArgumentTypeError, "is declared piece"),
    ("3010", UnknownIdError, "no piece '3010'"),
    ("S99", UnknownIdError, "no piece 'S99'"),
])
def test_a_value_of_the_wrong_type_is_refused_and_changes_nothing(
        cannons: cortes_rules.Rulebook, value: object, error: type, words: str) -> None:
    state = _with_cannon(cannons)
    before = state.to_notation()
    with pytest.raises(error, match=words):
        state.set_attribute(CANNON, "carrier", value)
    assert state.to_notation() == before
    with pytest.raises(error, match=words):
        cannons.new_game(positions={INFANTRY: "3010"}, attributes={CANNON: {"carrier": value}})


@pytest.mark.rule("8.19")
@pytest.mark.parametrize(("name", "value"), [("steps", "2"), ("steps", True), ("steps", 2.0),
                                             ("attacked", 1), ("start", 3010)])
def test_numbers_yes_no_and_places_are_held_to_their_types(
        book: cortes_rules.Rulebook, name: str, value: object) -> None:
    state = book.new_game(seed=8, setup="demo")
    before = state.to_notation()
    with pytest.raises(ArgumentTypeError, match=f"S1.{name} is declared"):
        state.set_attribute("S1", name, value)
    assert state.to_notation() == before


@pytest.mark.rule("8.19")
def test_places_and_values_are_stored_as_things(book: cortes_rules.Rulebook) -> None:
    state = book.new_game(seed=8, setup="demo")
    state.set_attribute("S1", "start", "3010")
    assert state.evaluate("u.start == u.place", u="S1") is True
    state.set_place_attribute("3012", "attacked", True)
    assert state.evaluate("h.attacked", h="3012") is True
    state.set_value("moving", ["S1", "S9"])
    assert state.evaluate("u in moving", u="S9") is True
    with pytest.raises(ArgumentTypeError, match="the value moving is declared list"):
        state.set_value("moving", "S1")


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
def test_a_players_morale_value_is_given_to_a_position_built_by_hand(
        morale: cortes_rules.Rulebook) -> None:
    positions = {"A1": "0101", "B1": "0105", "A13": "1601", "B13": "1612"}
    computed = morale.new_game(seed=0, positions=positions)
    state = morale.new_game(seed=0, positions=positions, attributes={"a": {"morale": 12}})
    assert computed.observation("a")["players"]["a"]["morale"] != 12
    # XI.1 works the value out only where none is given: the one given stays.
    assert state.observation("a")["players"]["a"]["morale"] == 12
    assert state.evaluate("q.morale", q="a") == 12
    assert replay(parse_record(format_record(state)), morale).same_position(state)
    state.set_player_attribute("b", "morale", 9)
    assert state.evaluate("q.morale", q="b") == 9
    with pytest.raises(ArgumentTypeError, match="b.morale is declared int"):
        state.set_player_attribute("b", "morale", "9")
    with pytest.raises(UnknownNameError, match="a player has no declared attribute 'moral'"):
        state.set_player_attribute("b", "moral", 9)
    with pytest.raises(UnknownNameError, match="no piece, place or player 'c'"):
        morale.new_game(seed=0, positions=positions, attributes={"c": {"morale": 1}})
