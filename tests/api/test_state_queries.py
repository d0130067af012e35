"""Asking a state about an action in any of its three forms, and what repr shows.

A player acts only when and as the rules allow (4.1): ``is_legal`` and
``why_illegal`` must agree with ``legal_action_ids()`` whatever form the
action is given in (an id, an ``Action``, its text), as ``apply`` accepts all
three. The repr of a state and of a rulebook says what they are without
showing anything a player may not see.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings

import cortes_rules
from tests.strategies import run, scripts, seeds, setups


@pytest.mark.rule("4.1")
@settings(max_examples=25, deadline=None)
@given(seed=seeds, setup=setups, script=scripts(max_size=30))
def test_is_legal_agrees_with_the_legal_ids_in_every_form(book, seed, setup, script):
    state = book.new_game(seed=seed, setup=setup)
    run(state, script)
    if state.is_terminal() or state.is_chance_node():
        return
    legal = set(state.legal_action_ids())
    others = random.Random(seed).sample(range(book.num_distinct_actions), 40)
    for number in sorted(legal) + others:
        action = book.action_from_id(number)
        expected = number in legal
        assert state.is_legal(number) is expected
        assert state.is_legal(action) is expected
        assert state.is_legal(str(action)) is expected
        reasons = state.why_illegal(number)
        assert (reasons == []) is expected
        assert reasons == state.why_illegal(action) == state.why_illegal(str(action))


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("bad", [10**9, -1, True, "", "fly S1 3011"])
def test_an_action_that_does_not_exist_is_illegal_with_a_reason(book, bad):
    state = book.new_game(seed=8, setup="demo")
    assert state.is_legal(bad) is False
    [(rule, reason)] = state.why_illegal(bad)
    assert rule is None and reason


@pytest.mark.rule("4.1")
def test_repr_names_the_game_turn_phase_and_player(book):
    state = book.new_game(seed=8, setup="demo")
    assert repr(state) == (f"<GameState 'cortes', turn 1, phase {state.phase!r}, "
                           f"to act: {state.current_player}>")
    veteran = cortes_rules.load("cortes", options="veteran")
    shown = repr(veteran)
    assert shown.startswith("<Rulebook 'cortes', ") and "11.9, 11.10" in shown
    numbered = sum(1 for r in veteran.program.all_rules if not r.mechanism)
    assert f"{numbered} numbered rules, all in play" in shown   # veteran: every option
