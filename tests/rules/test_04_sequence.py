"""Section 4: the end of a game turn. The Spanish declaration (4.3), the Aztec
objection and its conditions (4.4) and the objection roll (4.5)."""

from __future__ import annotations

from collections.abc import Mapping

import pytest

import cortes_rules
from cortes_rules import GameState
from positions import GARRISON

#: Every phase of a game turn, in order (4.2), the declaration last.
PHASES = ["spanish_lake_movement", "spanish_land_movement", "spanish_lake_combat",
          "spanish_land_combat", "aztec_lake_movement", "aztec_land_movement",
          "aztec_lake_combat", "aztec_land_combat", "end_of_turn"]


def at_declaration(book: cortes_rules.Rulebook, positions: Mapping[str, str],
                   steps: Mapping[str, int] | None = None) -> GameState:
    """A game played through the first pair of player turns, every phase ended at once."""
    state = book.new_game(positions=dict(positions))
    for uid, n in (steps or {}).items():
        state.set_attribute(uid, "steps", n)
    while state.phase != "end_of_turn":
        state.apply("end")
    return state


def texts(state: GameState) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def finish_interphase(state: GameState) -> GameState:
    """Play an interphase through with the first legal choice, keeping no fortress."""
    while state.phase == "end_of_turn" and not state.is_terminal():
        if state.is_chance_node():
            state.apply("roll 3")
            continue
        legal = texts(state)
        if "play_on" in legal and state.current_player == "spanish" and not any(
                a.startswith("redeploy") for a in legal):
            state.apply("play_on")
            break
        state.apply("end" if "end" in legal else legal[0])
    return state


# Positions: a Spanish infantry unit on the mainland and a knight in the city
# meet none of the three conditions of 4.4.
QUIET = {"S1": "1110", "A1": "3016"}


@pytest.mark.rule("4.2")
def test_4_2_the_declaration_is_the_last_step_of_the_game_turn(book) -> None:
    state = book.new_game(positions=QUIET)
    seen = []
    while state.phase not in seen:
        seen.append(state.phase)
        if state.phase == "end_of_turn":
            break
        state.apply("end")
    # Phases with nothing to decide (the lake phases, until stated) pass by
    # themselves; the declaration ends the turn.
    assert seen == [p for p in PHASES if p in seen] and seen[-1] == "end_of_turn"
    assert {"spanish_land_movement", "aztec_land_combat"} <= set(seen)
    assert state.turn == 1


@pytest.mark.rule("4.3")
def test_4_3_the_spanish_player_declares_after_the_aztec_player_turn(book) -> None:
    state = at_declaration(book, QUIET)
    assert state.current_player == "spanish"
    assert texts(state) == ["play_on", "split"]
    state.apply("play_on")
    assert state.phase == "spanish_land_movement" and state.turn == 2
    assert state.evaluate("interphases_held") == 0
    assert "4.3" in state.log[-1].rules or any("4.3" in e.rules for e in state.log[-2:])


@pytest.mark.rule("4.3")
def test_4_3_no_declaration_in_the_middle_of_a_pair(book) -> None:
    state = book.new_game(positions=QUIET)
    while state.phase != "end_of_turn":
        assert "split" not in texts(state) and "play_on" not in texts(state)
        state.apply("end")
    # The Aztec player never declares: he is never offered a declaration.
    assert state.current_player == "spanish"


@pytest.mark.rule("4.3")
def test_4_3_a_split_with_no_condition_goes_straight_to_the_interphase(book) -> None:
    state = at_declaration(book, QUIET)
    state.apply("split")
    # No condition of 4.4 holds: the Aztec player is not asked; the first step
    # of the interphase, the desertion roll (10.2), follows at once.
    assert state.is_chance_node()
    assert state.evaluate("interphases_held") == 1
    finish_interphase(state)
    assert state.phase == "spanish_land_movement" and state.turn == 2


@pytest.mark.rule("4.4")
@pytest.mark.parametrize(("positions", "condition"), [
    ({"S1": "3010", "A1": "3016"}, "2"),            # a Spanish unit on a causeway hex
    ({"S1": "2909", "A1": "3016"}, "2"),            # a Spanish unit in Tenochtitlan
    ({"S30": "2910", "A1": "3016"}, "2"),           # an Indian ally counts: the whole side
    ({**GARRISON, "S1": "1110", "A1": "1210"}, "3"),  # an Aztec unit on the mainland
    ({**GARRISON, "S1": "1110", "A1": "2543"}, "3"),  # Acachinango: land outside the city
])
def test_4_4_each_map_condition_lets_the_aztec_player_object(book, positions, condition) -> None:
    state = at_declaration(book, positions)
    assert state.evaluate("objection_conditions()")[0][1] == condition
    state.apply("split")
    assert state.current_player == "aztec"
    assert texts(state) == ["object", "accept"]


@pytest.mark.rule("4.4")
@pytest.mark.parametrize("positions", [
    {**GARRISON, "S1": "1110", "A1": "3010"},        # an Aztec unit on a causeway hex
    {**GARRISON, "S1": "1110", "A1": "zone.9"},      # an Aztec unit in a lake zone
    {"S1": "1110", "A1": "3016", "S12": "zone.5"},   # a gunboat beside the city
    {"Cortes": "3010", "S1": "1110", "A1": "3016"},  # a leader is not a unit
])
def test_4_4_no_objection_when_no_condition_holds(book, positions) -> None:
    state = at_declaration(book, positions)
    assert state.evaluate("objection_allowed()") is False
    state.apply("split")
    assert state.is_chance_node()  # the desertion roll: no Aztec decision


@pytest.mark.rule("4.4")
def test_4_4_condition_1_prisoners_taken_is_read_from_a_value(book) -> None:
    state = at_declaration(book, QUIET)
    assert state.evaluate("objection_prisoners()") is False
    state.set_value("prisoners_taken_this_turn", 1)
    assert state.evaluate("objection_conditions()") == ((True, "1"),) or \
        [c[1] for c in state.evaluate("objection_conditions()")] == ["1"]
    state.apply("split")
    assert texts(state) == ["object", "accept"]
    state.apply("accept")
    finish_interphase(state)
    # The count belongs to the player turn just ended: it starts again at 0.
    assert state.evaluate("prisoners_taken_this_turn") == 0


@pytest.mark.rule("4.4")
def test_4_4_accepting_lets_the_interphase_run(book) -> None:
    state = at_declaration(book, {"S1": "3010", "A1": "3016"})
    state.apply("split")
    state.apply("accept")
    assert state.evaluate("interphases_held") == 1
    assert state.evaluate("objection_tried") is False


# Six knights at full strength on the map, a seventh reduced and an eighth in
# the dead pile: 6 count.
KNIGHTS = {"S1": "3010", "A1": "3016", "A2": "3016", "A3": "3016", "A4": "3115",
           "A5": "2916", "A6": "3017", "A7": "2711", "A8": "dead.aztec"}


@pytest.mark.rule("4.5")
def test_4_5_knights_at_full_strength_on_the_map_count(book) -> None:
    state = at_declaration(book, KNIGHTS, steps={"A7": 3})
    assert state.evaluate("full_strength_knights()") == 6
    # A knight on the lake is on the map too.
    lake = at_declaration(book, dict(KNIGHTS, A6="zone.9"), steps={"A7": 3})
    assert lake.evaluate("full_strength_knights()") == 6


@pytest.mark.rule("4.5")
def test_4_5_twelve_or_more_refuses_the_interphase(book) -> None:
    state = at_declaration(book, KNIGHTS, steps={"A7": 3})
    state.apply("split")
    state.apply("object")
    assert state.is_chance_node()
    state.apply("roll 6")  # 6 + 6 knights = 12
    assert state.phase == "spanish_land_movement" and state.turn == 2
    assert state.evaluate("interphases_held") == 0
    assert "4.5" in state.log[-1].rules and "refused" in state.log[-1].text
    # Another pair of player turns is played before the next declaration.
    while state.phase != "end_of_turn":
        assert "split" not in texts(state)
        state.apply("end")
    assert state.turn == 2 and texts(state) == ["play_on", "split"]


@pytest.mark.rule("4.5")
def test_4_5_eleven_or_less_and_the_interphase_goes_ahead(book) -> None:
    state = at_declaration(book, KNIGHTS, steps={"A7": 3})
    state.apply("split")
    state.apply("object")
    state.apply("roll 5")  # 5 + 6 = 11
    assert state.evaluate("interphases_held") == 1
    assert state.evaluate("objection_tried") is True   # the desertion roll loses 1 (10.2)
    assert state.phase == "end_of_turn" and state.is_chance_node()


@pytest.mark.rule("4.5")
def test_4_5_one_roll_however_many_conditions_hold(book) -> None:
    positions = dict(KNIGHTS, A9="1210")  # conditions 2 and 3 both hold
    state = at_declaration(book, positions)
    state.set_value("prisoners_taken_this_turn", 2)  # and condition 1
    assert len(state.evaluate("objection_conditions()")) == 3
    state.apply("split")
    state.apply("object")
    rolls_before = sum(1 for e in state.log if "objection roll" in e.text)
    state.apply("roll 1")  # 1 + 7 knights = 8: the interphase goes ahead
    assert sum(1 for e in state.log if "objection roll" in e.text) == rolls_before + 1
    assert state.evaluate("interphases_held") == 1
    assert state.is_chance_node()  # the next roll is the desertion test, not a second objection


# ------------------------------------------------------------------ readings
@pytest.mark.rule("4.4")
def test_4_4_objection_lake_units_both_ways() -> None:
    positions = {"S1": "1110", "A1": "3016", "S12": "zone.5"}  # zone 5 borders the city
    land_only = at_declaration(cortes_rules.load("cortes"), positions)
    assert land_only.evaluate("objection_allowed()") is False
    zones = at_declaration(
        cortes_rules.load("cortes", readings={"objection_lake_units": "zones_count"}), positions)
    assert zones.evaluate("objection_allowed()") is True
    zones.apply("split")
    assert texts(zones) == ["object", "accept"]
    # Open water bordering no city hex meets neither reading.
    far = at_declaration(
        cortes_rules.load("cortes", readings={"objection_lake_units": "zones_count"}),
        {"S1": "1110", "A1": "3016", "S12": "zone.11"})
    assert far.evaluate("objection_allowed()") is False


@pytest.mark.rule("4.3")
def test_4_3_rr_acceptance_both_ways() -> None:
    free = cortes_rules.load("cortes", readings={"rr_acceptance": "free_refusal"})
    state = at_declaration(free, QUIET)  # no condition of 4.4 holds
    state.apply("split")
    assert texts(state) == ["accept", "refuse"]
    state.apply("refuse")
    assert state.phase == "spanish_land_movement" and state.evaluate("interphases_held") == 0
    # Under the default the Aztec player can only object, by the roll.
    default = at_declaration(cortes_rules.load("cortes"), {"S1": "3010", "A1": "3016"})
    default.apply("split")
    assert "refuse" not in texts(default) and "object" in texts(default)
