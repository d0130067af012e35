"""GameState.log_tail(n): the last lines of the log without walking all of it.

Every game turn (4.1) leaves its events in the log; a front end showing the
latest few lines, and the exact-odds enumeration of the benchmarks, read only
the tail. It must always be the tail of ``log``, and a clone's tail must not
move when the original plays on.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from tests.strategies import run, scripts, seeds, setups


@pytest.mark.rule("4.1")
@settings(max_examples=30, deadline=None)
@given(seed=seeds, setup=setups, script=scripts(max_size=40),
       n=st.integers(min_value=0, max_value=400))
def test_log_tail_is_the_end_of_the_log(book, seed, setup, script, n):
    state = book.new_game(seed=seed, setup=setup)
    run(state, script[: len(script) // 2])
    twin = state.clone()
    kept = twin.log_tail(n)
    run(state, script[len(script) // 2:])
    whole = state.log
    assert state.log_tail(n) == whole[max(0, len(whole) - n):]
    earlier = twin.log
    assert twin.log_tail(n) == kept == earlier[max(0, len(earlier) - n):]
