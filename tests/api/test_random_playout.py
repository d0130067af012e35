"""GameState.random_playout: a whole random game played inside the engine.

Front ends doing Monte Carlo search need rollouts that are cheap and
repeatable. Every action a rollout applies must be one a player could have
chosen there (4.1: a player acts only as the rules allow), so replaying its
history through ``apply`` reaches the same game; the same seed gives the
same game; a limit is kept.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from tests.strategies import seeds, setups


@pytest.mark.rule("4.1")
@settings(max_examples=12, deadline=None)
@given(seed=seeds, chooser=seeds, setup=setups, limit=st.integers(min_value=0, max_value=150))
def test_a_rollout_is_legal_repeatable_and_limited(book, seed, chooser, setup, limit):
    first = book.new_game(seed=seed, setup=setup, turn_limit=2)
    second = book.new_game(seed=seed, setup=setup, turn_limit=2)
    taken = first.random_playout(chooser, max_actions=limit)
    assert taken == second.random_playout(chooser, max_actions=limit)
    assert taken == len(first.history) <= limit
    assert taken == limit or first.is_terminal()
    assert [str(a) for a in first.history] == [str(a) for a in second.history]
    replayed = book.new_game(seed=seed, setup=setup, turn_limit=2)
    for action in first.history:
        replayed.apply(action)
    assert [str(e) for e in replayed.log] == [str(e) for e in first.log]


@pytest.mark.rule("4.1")
def test_a_rollout_without_a_limit_plays_to_the_end(book):
    state = book.new_game(seed=3, setup="demo", turn_limit=1)
    state.random_playout(5)
    assert state.is_terminal() and state.outcome() is not None


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("seed, limit", [("1", None), (True, None), (1, -1), (1, 2.5)])
def test_bad_rollout_arguments_are_refused(book, seed, limit):
    state = book.new_game(seed=3, setup="demo")
    with pytest.raises(cortes_rules.CortesRulesError):
        state.random_playout(seed, max_actions=limit)
    assert state.history == []
