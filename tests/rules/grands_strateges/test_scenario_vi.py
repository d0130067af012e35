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
