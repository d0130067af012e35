"""Grands Stratèges scenario IV, first option: the reinforcement groups enter by
their roads from their turns on (groups I-IV on turns 2, 3, 5 and 6)."""

from __future__ import annotations

import pytest
from gs_helpers import next_turn

import cortes_rules
from cortes_rules import GameState


@pytest.fixture(scope="module")
def iv() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario="IV")


def entries(state: GameState) -> set[str]:
    return {str(a) for a in state.legal_actions() if str(a).startswith("enter ")}


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_each_group_enters_by_its_road_from_its_turn(iv: cortes_rules.Rulebook) -> None:
    positions = {"A6": "1010", "B6": "2012", "A2": "reinforcements.a",
                 "A4": "reinforcements.a", "B2": "reinforcements.b"}
    state = iv.new_game(seed=1, positions=positions)
    assert entries(state) == set()            # turn 1: nobody yet
    next_turn(state)
    assert state.turn == 2
    # Group I of player A by board A's west road; group II must wait.
    assert entries(state) == {"enter A2 0301"}
    state.apply("enter A2 0301")
    state.apply("end")
    state.apply("end_combat")
    # Player B's group I by board B's east road, at the south edge.
    assert entries(state) == {"enter B2 3022"}
    state.apply("end")
    state.apply("end_combat")
    assert state.turn == 3
    assert entries(state) == {"enter A4 3001"}
