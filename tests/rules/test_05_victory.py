"""Section 5: how to win. Sudden death (5.2), loss points (5.4), levels (5.5)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from cortes_rules import CortesRulesError
from positions import GARRISON


@pytest.mark.rule("5.2")
def test_5_2_cortes_captured_ends_the_game_for_the_aztec_player(book):
    state = book.new_game(positions={"S1": "1110", "Cortes": "gone.spanish"})
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome.winners == ("aztec",)
    assert outcome.details == {"level": "Aztec sudden death victory"}
    assert state.legal_actions() == []


@pytest.mark.rule("5.2")
def test_5_2_cortes_in_play_does_not_end_the_game(book):
    state = book.new_game(positions={"S1": "1110", "Cortes": "1110"})
    assert not state.is_terminal()


@pytest.mark.rule("5.2")
def test_5_2_the_game_ends_as_soon_as_cortes_is_taken_in_play(book):
    # Cortés's stack is wiped out; the Aztec capture roll of 9.4 comes up 7
    # and the game ends right after that roll, before any advance.
    state = book.new_game(positions={**GARRISON, "S1": "1011", "Cortes": "1011", "A1": "1012"})
    while state.phase != "aztec_land_combat":
        state.apply("end")
    state.set_attribute("S1", "steps", 1)
    for action in ("attack 1011", "join A1", "resolve", "roll 12"):
        state.apply(action)
    while not state.is_terminal() and not state.is_chance_node():
        state.apply(state.legal_actions()[0])  # S1's last step, then A1's (1/3 at 2:1, 9.3)
    assert state.place_of("S1") == "dead.spanish"
    state.apply("roll 7")
    assert state.place_of("Cortes") == "gone.spanish"
    assert state.is_terminal() and state.outcome().winner == "aztec"
    assert state.legal_actions() == []


@pytest.mark.rule("5.4")
def test_5_4_dead_spanish_units_count_one_each_but_not_allies(book):
    positions = {"S1": "1110", "S2": "dead.spanish", "S12": "dead.spanish",
                 "S25": "gone.spanish", "S29": "dead.spanish", "S30": "gone.spanish"}
    state = book.new_game(positions=positions)
    assert state.evaluate("loss_points_from_dead_units()") == 3   # S2, gunboat S12, cannon S25
    assert state.evaluate("loss_points_from_cuauhtemoc()") == 5
    assert state.evaluate("loss_points_from_interphases()") == 0
    assert state.evaluate("loss_points()") == 8


@pytest.mark.rule("5.4")
def test_5_4_cuauhtemoc_taken_saves_five_points(book):
    state = book.new_game(positions={"S1": "1110", "Cuauhtemoc": "gone.aztec"})
    assert state.evaluate("loss_points_from_cuauhtemoc()") == 0
    assert state.evaluate("loss_points()") == 0


@pytest.mark.rule("5.4")
def test_5_4_each_interphase_held_costs_five(book):
    state = book.new_game(positions={"S1": "1110"})
    state.set_value("interphases_held", 3)
    assert state.evaluate("loss_points_from_interphases()") == 15
    assert state.evaluate("loss_points()") == 20


@pytest.mark.rule("5.4")
def test_5_4_setting_an_undeclared_value_is_refused(book):
    state = book.new_game(positions={"S1": "1110"})
    with pytest.raises(CortesRulesError, match="no value 'interphases'"):
        state.set_value("interphases", 3)


@pytest.mark.rule("5.5")
@pytest.mark.parametrize("points, level, winner", [
    (0, "decisive Spanish victory", "spanish"),
    (1, "decisive Spanish victory", "spanish"),
    (8, "decisive Spanish victory", "spanish"),
    (9, "historical Spanish victory", "spanish"),
    (16, "historical Spanish victory", "spanish"),
    (17, "Aztec moral victory", "aztec"),
    (24, "Aztec moral victory", "aztec"),
    (25, "Aztec cosmological victory", "aztec"),
    (60, "Aztec cosmological victory", "aztec"),
])
def test_5_5_levels_of_victory(book, points, level, winner):
    state = book.new_game(positions={"S1": "1110"})
    assert state.evaluate("victory_level(p)", p=points) == level
    assert str(state.evaluate("victory_winner(p)", p=points)) == winner


@pytest.mark.rule("5.5")
@given(points=st.integers(0, 200))
def test_5_5_more_loss_points_never_favour_the_spanish(book, points):
    state = book.new_game(positions={"S1": "1110"})
    order = ["decisive Spanish victory", "historical Spanish victory",
             "Aztec moral victory", "Aztec cosmological victory"]
    here = order.index(state.evaluate("victory_level(p)", p=points))
    after = order.index(state.evaluate("victory_level(p)", p=points + 1))
    assert after >= here


def at_spanish_land_combat(book, positions):
    state = book.new_game(positions=positions)
    while state.phase != "spanish_land_combat":
        state.apply("end")
    return state


@pytest.mark.rule("5.3", "5.5")
def test_5_3_an_empty_city_at_the_end_of_the_spanish_turn_ends_the_game(book):
    state = at_spanish_land_combat(book, {"S1": "1110", "A1": "1210"})
    assert not state.is_terminal()  # not before the Spanish player turn is over
    state.apply("end")
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome.reason == "Tenochtitlan is conquered at the end of a Spanish player turn"
    # No interphase, no dead Spanish unit, Cuauhtemoc never taken: 5 points (5.4),
    # a decisive Spanish victory (5.5).
    assert outcome.winners == ("spanish",)
    assert outcome.details == {"level": "decisive Spanish victory", "loss_points": 5,
                               "from_interphases": 0, "from_dead_units": 0,
                               "from_cuauhtemoc": 5}


@pytest.mark.rule("5.3")
def test_5_3_the_game_goes_on_until_the_spanish_player_turn_is_over(book):
    state = book.new_game(positions={"S1": "1110", "A1": "1210"})
    # The city is empty from the start: only the end of the Spanish land
    # combat phase, the last of the player turn (4.2), ends the game.
    phases = []
    while state.phase != "spanish_land_combat":
        assert not state.is_terminal()
        phases.append(state.phase)
        state.apply("end")
    assert phases[0] == "spanish_land_movement"
    assert not state.is_terminal()


@pytest.mark.rule("5.3")
@pytest.mark.parametrize(("defender", "conquered"), [
    ("3518", False),      # an Aztec unit on the island holds the city
    ("zone.17", True),    # a unit in a lake zone is not in Tenochtitlan
    ("3010", True),       # nor is one on a causeway hex outside the island
])
def test_5_3_only_an_aztec_unit_on_the_island_holds_the_city(book, defender, conquered):
    state = at_spanish_land_combat(book, {"S1": "1110", "A1": defender})
    state.apply("end")
    assert state.is_terminal() is conquered


@pytest.mark.rule("5.3")
def test_5_3_cuauhtemoc_alone_still_holds_the_city(book):
    state = at_spanish_land_combat(book, {"S1": "1110", "Cuauhtemoc": "3016"})
    state.apply("end")
    assert not state.is_terminal()


@pytest.mark.rule("5.1", "5.5")
def test_5_1_loss_points_add_the_three_causes_and_give_the_level(book):
    state = book.new_game(positions={**GARRISON, "S1": "dead.spanish", "S2": "gone.spanish",
                                     "S30": "dead.spanish", "Cuauhtemoc": "gone.aztec"})
    state.set_value("interphases_held", 2)
    # 10 for two interphases, 1 each for S1 and S2 (the ally S30 is not
    # counted), nothing for a captured Cuauhtemoc.
    assert state.evaluate("loss_points()") == 12
    assert state.evaluate("victory_level(loss_points())") == "historical Spanish victory"
    state.set_value("interphases_held", 4)
    assert str(state.evaluate("victory_winner(loss_points())")) == "aztec"
