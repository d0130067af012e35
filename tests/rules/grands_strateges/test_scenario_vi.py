"""Grands Stratèges scenario VI: player A enters five units a turn by the east
edge of board B and wins by leaving through the west edge of board A; night
turns 10-12 cut every movement factor by one and forbid leaving the map."""

from __future__ import annotations

import pytest
from gs_helpers import next_turn

import cortes_rules


@pytest.fixture(scope="module")
def vi() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario="VI")


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
def test_player_a_enters_five_a_turn_and_scores_by_the_west_edge(
        vi: cortes_rules.Rulebook) -> None:
    waiting = {f"A{n}": "reinforcements.a" for n in range(1, 8)}
    state = vi.new_game(seed=1, positions={"A20": "0205", "B6": "1612", **waiting})
    for n, to in zip(range(1, 6), ("3201", "3203", "3205", "3207", "3209"), strict=True):
        state.apply(f"enter A{n} {to}")
    # Five this turn: the sixth waits.
    assert not any(str(a).startswith("enter ") for a in state.legal_actions())
    state.apply("move A20 0105")
    state.apply("exit A20")
    assert state.evaluate("escaped()") == 2


@pytest.mark.rule("II.9", rulebook="grands_strateges")
def test_night_turns_cut_movement_and_keep_units_on_the_map(vi: cortes_rules.Rulebook) -> None:
    state = vi.new_game(seed=1, positions={"A6": "1005", "A20": "0105", "B6": "1612"})
    for _ in range(9):
        next_turn(state)
    assert state.turn == 10
    for to in ("1006", "1007", "1008"):
        state.apply(f"move A6 {to}")
    # An infantry division has 3 points at night, not 4.
    assert {r for r, _ in state.why_illegal("move A6 1009")} == {"II.9"}
    assert "scenario:VI" in {r for r, _ in state.why_illegal("exit A20")}


def _escape(book: cortes_rules.Rulebook, leaving: list[str], staying: list[str]):
    """Player A's units ``leaving`` march off board A's west edge on turn 1;
    ``staying`` stand on the map, far from it. Player A then ends his phases."""
    edge = ("0101", "0103", "0105", "0107")
    positions = {uid: edge[n] for n, uid in enumerate(leaving)}
    positions.update({uid: f"30{n + 10}" for n, uid in enumerate(staying)})
    state = book.new_game(seed=1, positions={**positions, "B6": "1612"})
    for uid in leaving:
        state.apply(f"exit {uid}")
        if state.is_terminal():
            return state
    state.apply("end")
    state.apply("end_combat")
    return state


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
def test_a_settled_result_lets_the_phasing_player_stop_the_game(
        vi: cortes_rules.Rulebook) -> None:
    # A1 and A2 (8 each) and A17 (2) leave by the west edge: 18 is more than
    # 16, a great victory no later turn can take away.
    state = _escape(vi, ["A1", "A2", "A17"], [])
    assert state.evaluate("result_settled()") and state.phase == "b_movement"
    assert {"call_game", "play_on"} <= {str(a) for a in state.legal_actions()}
    state.apply("call_game")
    outcome = state.outcome()
    assert state.is_terminal() and outcome is not None and outcome.winners == ("a",)
    assert outcome.details["level"] == "great victory for player A"
    assert outcome.details["escaped"] == 18
    # Playing on is a choice too: the offer comes back at the next phase.
    state = _escape(vi, ["A1", "A2", "A17"], [])
    state.apply("play_on")
    assert not state.is_terminal()


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
def test_no_stop_while_a_unit_of_a_could_still_change_the_result(
        vi: cortes_rules.Rulebook) -> None:
    # 8 out (a victory) with A2 (8) still on the map: 16 would still be a
    # victory, but A17 too would make 18, a great victory. Not settled.
    state = _escape(vi, ["A1"], ["A2", "A17"])
    assert not state.evaluate("result_settled()")
    assert "call_game" not in {str(a) for a in state.legal_actions()}
    # With A2 alone left, 16 is the most A can reach: the victory is settled.
    state = _escape(vi, ["A1"], ["A2"])
    assert state.evaluate("result_settled()")
    assert "call_game" in {str(a) for a in state.legal_actions()}


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "stops"), [("automatic", True), ("full_length", False)])
def test_stopping_early_by_itself_or_never(reading: str, stops: bool) -> None:
    book = cortes_rules.load("grands_strateges", scenario="VI",
                             readings={"vi_early_end": reading})
    state = _escape(book, ["A1", "A2", "A17"], [])
    assert state.is_terminal() is stops
    if stops:
        outcome = state.outcome()
        assert outcome is not None and outcome.winners == ("a",)
        assert outcome.details["level"] == "great victory for player A"
    else:
        assert state.phase == "b_movement"
        assert "call_game" not in {str(a) for a in state.legal_actions()}
