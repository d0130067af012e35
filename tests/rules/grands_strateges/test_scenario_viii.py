"""Grands Stratèges scenario VIII on the two boards side by side: player B's
reinforcements, set aside before the deployment, are called by a die roll from
turn 3 and enter together by one road of the south edge."""

from __future__ import annotations

import pytest
from gs_helpers import legal

import cortes_rules


@pytest.fixture(scope="module")
def viii() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario="VIII")


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_player_b_sets_aside_three_infantry_two_cavalry_one_artillery(
        viii: cortes_rules.Rulebook) -> None:
    state = viii.new_game(seed=1)
    assert state.phase == "set_aside" and state.current_player == "b"
    for unit in ("B1", "B2", "B3", "B14", "B15"):
        state.apply(f"hold_back {unit}")
    # Three infantry and two cavalry are set aside: only artillery is left to choose.
    assert {a.split()[1] for a in legal(state)} == {f"B{n}" for n in range(21, 26)}
    state.apply("hold_back B21")
    assert state.phase == "deploy"
    assert all(state.place_of(u) == "reinforcements.b"
               for u in ("B1", "B2", "B3", "B14", "B15", "B21"))


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
def test_reinforcements_are_called_from_turn_three_and_take_one_road(
        viii: cortes_rules.Rulebook) -> None:
    positions = {"A6": "0101", "B6": "1622", "B1": "reinforcements.b",
                 "B2": "reinforcements.b"}
    state = viii.new_game(seed=1, positions=positions)
    for _ in range(2):   # turns 1 and 2: no roll
        for action in ("end", "end_combat", "end", "end_combat"):
            state.apply(action)
    state.apply("end")
    state.apply("end_combat")
    assert state.turn == 3 and state.is_chance_node()
    state.apply("roll 2")
    assert "his reinforcements march onto the field" in state.log[-1].text
    entries = {a for a in legal(state) if a.startswith("enter B1 ")}
    assert entries == {"enter B1 0322", "enter B1 0722", "enter B1 2622", "enter B1 3022"}
    state.apply("enter B1 2622")
    state.apply("move B1 2621")
    # The others follow by the same road.
    assert {a for a in legal(state) if a.startswith("enter B2 ")} == {"enter B2 2622"}
