"""Reproducers of the defects the rules-machine rework fixed (tests/golden/CHANGES.md C1-C5).

Each test states a position through the public API only and checks the
reading recorded in the Cortés clauses (rulebook/cortes/07-movement.rules and
08-combat.rules).
"""

from __future__ import annotations

import pytest

import cortes_rules
from positions import GARRISON


@pytest.fixture(scope="module")
def cortes() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes")


def at_phase(state: cortes_rules.GameState, phase: str) -> cortes_rules.GameState:
    for _ in range(17):
        if state.phase == phase:
            return state
        state.apply("end")
    raise AssertionError(f"never reached {phase}")


def take_losses(state: cortes_rules.GameState) -> None:
    """Both sides take their losses on the first unit offered."""
    while state.legal_actions() and all(a.kind == "lose" for a in state.legal_actions()):
        state.apply(state.legal_actions()[0])


def texts(state: cortes_rules.GameState) -> list[str]:
    return [entry.text for entry in state.log]


# ------------------------------------------------------------------ C1: 7.2, 7.6, 6.6, 6.7
@pytest.mark.rule("7.2")
def test_7_2_a_split_off_unit_finishes_when_the_units_left_behind_move(cortes):
    state = cortes.new_game(positions={"S1": "1010", "S9": "1010"})
    for action in ("move S9 1011", "move S9 1012", "move S1 1009"):
        state.apply(action)
    reasons = state.why_illegal("move S9 1013")
    assert [rule for rule, _ in reasons] == ["7.2"]
    with pytest.raises(cortes_rules.IllegalActionError) as caught:
        state.apply("move S9 1013")
    assert caught.value.rules == ("7.2",)
    assert state.place_of("S9") == "1012"


@pytest.mark.rule("7.6")
def test_7_6_a_stack_moves_together_when_each_unit_follows_the_last(cortes):
    state = cortes.new_game(positions={"S1": "1010", "S9": "1010"})
    for action in ("move S9 1011", "move S1 1011", "move S9 1012", "move S1 1012"):
        state.apply(action)
    assert state.positions() == {"S1": "1012", "S9": "1012"}
    assert state.why_illegal("move S9 1013") == []


@pytest.mark.rule("6.7")
def test_6_7_an_overstack_is_settled_as_soon_as_the_move_ends(cortes):
    # S1 (European infantry) joins the Texcocoan ally S29: 6.2 is broken.
    state = cortes.new_game(positions={"S1": "1010", "S29": "1011", "S9": "1013"})
    state.apply("move S1 1011")
    assert state.current_player == "spanish"       # S1 may still go on
    state.apply("move S9 1014")                     # another stack: S1's move is over
    assert state.current_player == "aztec"          # the opponent removes at once
    assert sorted(str(a) for a in state.legal_actions()) == ["remove S1", "remove S29"]
    assert texts(state)[-1].startswith("1011 is overstacked")
    state.apply("remove S29")
    assert state.place_of("S29") == "dead.spanish"
    assert state.place_of("S9") == "1014"            # then S9's move is made
    assert texts(state)[-1].startswith("S9 moves 1013 -> 1014")


# ------------------------------------------------------------------ C2, C3: 8.1, 8.23
@pytest.mark.rule("8.1")
def test_8_1_a_hex_holding_only_a_cannon_is_not_attacked(cortes):
    state = at_phase(cortes.new_game(positions={**GARRISON, "S25": "1011", "A1": "1012"}),
                     "aztec_land_combat")
    assert "attack 1011" not in {str(a) for a in state.legal_actions()}
    assert [rule for rule, _ in state.why_illegal("attack 1011")] == ["8.1"]


@pytest.mark.rule("8.23")
def test_8_23_a_hex_left_with_only_a_cannon_is_empty_and_the_cannon_is_taken(cortes):
    state = at_phase(cortes.new_game(positions={**GARRISON, "S1": "1011", "S25": "1011",
                                                "A1": "1012", "A2": "1010"}),
                     "aztec_land_combat")
    state.set_attribute("S1", "steps", 1)
    for action in ("attack 1011", "join A1", "join A2", "resolve", "roll 12"):
        state.apply(action)
    take_losses(state)
    assert state.place_of("S1") == "dead.spanish"
    assert [str(a) for a in state.legal_actions()] == ["advance A1", "advance A2"]
    state.apply("advance A1")
    assert state.place_of("S25") == "gone.spanish"
    assert any(t == "S25 is taken as A1 enters 1011" for t in texts(state))


# ------------------------------------------------------------------ C4: 8.23 with 7.4
@pytest.mark.rule("7.4")
def test_7_4_a_cannon_advances_only_after_infantry(cortes):
    state = at_phase(cortes.new_game(positions={"S1": "1010", "S25": "1010", "A11": "1011"}),
                     "spanish_land_combat")
    for action in ("attack 1011", "join S1", "join S25", "resolve", "roll 12"):
        state.apply(action)
    take_losses(state)
    assert state.place_of("A11") == "dead.aztec"
    assert [rule for rule, _ in state.why_illegal("advance S25")] == ["7.4"]
    assert [rule for rule, _ in state.why_illegal("stop")] == ["8.23"]  # the 8.23 advance
    state.apply("advance S1")
    assert state.why_illegal("advance S25") == []


# ------------------------------------------------------------------ C5: 8.23 with 7.16
@pytest.mark.rule("7.16")
def test_7_16_an_advance_into_a_causeway_hex_needs_a_causeway_hexside(cortes):
    # 3024 touches the causeway hex 2924 across a plain hexside.
    state = at_phase(cortes.new_game(positions={"A1": "3024", "S30": "2924"}),
                     "aztec_land_combat")
    state.set_attribute("S30", "steps", 1)
    for action in ("attack 2924", "join A1", "resolve", "roll 12"):
        state.apply(action)
    take_losses(state)
    assert state.place_of("S30") == "dead.spanish"
    assert [rule for rule, _ in state.why_illegal("advance A1")] == ["7.16"]
    assert [str(a) for a in state.legal_actions()] == ["stop"]
