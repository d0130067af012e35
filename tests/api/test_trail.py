"""``GameState.trail(ply)``: the rule trail of each applied action, as data."""

from __future__ import annotations

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortes_rules import CortesRulesError
from positions import to_phase
from positions import GARRISON


@pytest.mark.rule("8.18")
@settings(max_examples=8, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1))
def test_the_trails_of_all_actions_are_the_log_after_the_first_action(book, seed):
    state = book.new_game(seed=seed, setup="historical")
    opening = len(state.log)             # lines written before any action (the set-up)
    state.random_playout(seed, 300)
    plies = len(state.history)
    trails = [entry for ply in range(plies) for entry in state.trail(ply)]
    assert trails == state.log[opening:]
    assert state.trail() == state.trail(plies - 1)
    for player in book.players:
        assert state.trail(player=player) == [e for e in state.trail() if e.visible_to(player)]


@pytest.mark.rule("8.18")
def test_an_attack_trail_names_the_rules_in_order(game):
    state = game({**GARRISON, "S1": "1321", "A11": "1322"}, phase="spanish_land_combat")
    state.apply("attack 1322")
    state.apply("join S1")
    state.apply("resolve")
    (odds,) = state.trail()
    assert {"8.9", "8.14", "8.17"} <= set(odds.rules)
    assert odds.as_dict()["rules"] == list(odds.rules)
    state.apply("roll 7")                # the roll is an action with its own trail
    lines = state.trail()
    assert "13.2" in lines[0].rules and "rolls 7" in lines[0].text
    assert state.trail(-2) == [odds]


@pytest.mark.rule("8.18")
def test_a_trail_of_no_such_ply_is_a_clear_error(book, game):
    state = game({**GARRISON, "S1": "1321"})
    with pytest.raises(CortesRulesError, match="no action at ply 99"):
        state.trail(99)
    with pytest.raises(CortesRulesError, match="whole number"):
        state.trail("last")
    state.apply("end")
    with pytest.raises(CortesRulesError, match="no player 'nobody'"):
        state.trail(player="nobody")
    copy = to_phase(state.clone(), "spanish_land_combat")
    assert copy.trail(0) == state.trail(0)
