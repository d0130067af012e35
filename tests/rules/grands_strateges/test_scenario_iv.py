"""Grands Stratèges scenario IV: the four ways the reinforcement groups may
arrive. Option 1: by their roads from their turns on (groups I-IV on turns 2,
3, 5 and 6); option 2: the same turns and roads in the player's order;
option 3: any road of his edge; option 4: called by a die."""

from __future__ import annotations

import pytest
from gs_helpers import end_phases, next_turn

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
    end_phases(state)
    # Player B's group I by board B's east road, at the south edge.
    assert entries(state) == {"enter B2 3022"}
    end_phases(state)
    assert state.turn == 3
    assert entries(state) == {"enter A4 3001"}


def with_option(option: str) -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario="IV",
                             readings={"scenario_iv_options": option})


def routes(state: GameState) -> set[str]:
    return {str(a) for a in state.legal_actions() if str(a).startswith("route ")}


# A's groups I (A2) and III (A5) wait off the map; B's group I (B2).
WAITING = {"A6": "1010", "B6": "2012", "A2": "reinforcements.a",
           "A5": "reinforcements.a", "B2": "reinforcements.b"}


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_option_2_the_player_orders_his_groups_on_the_schedule() -> None:
    state = with_option("option_2").new_game(seed=1, positions=WAITING)
    assert routes(state) == set() and entries(state) == set()
    next_turn(state)
    # Turn 2 is group I's turn and board A's west road: A may send group III.
    assert routes(state) == {"route 1 0301", "route 3 0301"}
    state.apply("route 3 0301")
    assert entries(state) == {"enter A5 0301"}
    state.apply("enter A5 0301")
    end_phases(state)
    assert routes(state) == {"route 1 3022"}
    state.apply("route 1 3022")
    end_phases(state)
    # Turn 3, the second road of the schedule, takes the group still waiting.
    assert routes(state) == {"route 1 3001"}
    state.apply("route 1 3001")
    assert entries(state) == {"enter A2 3001"}


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_option_3_any_road_of_the_owners_edge() -> None:
    state = with_option("option_3").new_game(seed=1, positions=WAITING)
    next_turn(state)
    assert routes(state) == {f"route {k} {h}" for k in (1, 3)
                             for h in ("0301", "0701", "2601", "3001")}
    state.apply("route 1 2601")
    assert entries(state) == {"enter A2 2601"}
    end_phases(state)
    state.apply("route 1 0722")
    assert entries(state) == {"enter B2 0722"}
    end_phases(state)
    assert state.turn == 3
    assert routes(state) == {f"route 3 {h}" for h in ("0301", "0701", "2601", "3001")}
    state.apply("route 3 0301")
    next_turn(state)
    # No route on turn 4: the schedule brings no group that turn.
    assert state.turn == 4 and routes(state) == set()


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_option_4_a_die_calls_the_groups() -> None:
    state = with_option("option_4").new_game(seed=1, positions=WAITING)
    assert not state.is_chance_node()          # turn 1: no roll
    next_turn(state)
    assert state.turn == 2 and state.is_chance_node()
    state.apply("roll 3")                      # group III, by its road of option 1
    assert "group 3 marches onto the field" in state.log[-1].text
    assert entries(state) == {"enter A5 0701"}
    end_phases(state)
    state.apply("roll 5")                      # B: a 5 brings nobody; with one
    assert state.is_chance_node()              # group left he rolls again
    state.apply("roll 6")
    assert entries(state) == set()
    end_phases(state)
    # Turn 3: A has one group left and rolls a second time after a miss.
    assert state.turn == 3
    state.apply("roll 3")                      # group III has been called already
    assert state.is_chance_node()
    state.apply("roll 1")
    # Group III, called on turn 2 and not yet in, may still come on.
    assert entries(state) == {"enter A2 0301", "enter A5 0701"}


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_the_four_options_are_a_players_choice_in_the_registry() -> None:
    entry = cortes_rules.load("grands_strateges", scenario="IV").interpretation(
        "scenario_iv_options")
    assert entry.kind == "choice"
    assert [r.name for r in entry.readings] == ["option_1", "option_2", "option_3", "option_4"]
    assert entry.default == "option_1"
