"""A decision reached from a listed position is listed once, in full (``GameState._check_live``).

Every action runs on to the next decision and checks that it offers a legal
action. When the legal actions of the position the action started from were
listed, the caller will most likely list the next ones too (random play,
search, a front end), so the check lists them all and keeps them for
``legal_action_ids()``. Whatever is kept, the actions offered must be those a
fresh listing finds, and a listing that fails is left for when it is asked
for, exactly as without the check.
"""

from __future__ import annotations

import random

import pytest

import cortes_rules
from cortes_rules import RulesRuntimeError
from cortes_rules.engine.machine import GameState
from minimal_book import MINIMAL


def _fresh_ids(state: cortes_rules.GameState) -> list[int]:
    twin = state.clone()
    twin._legal = None
    return twin.legal_action_ids()


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("seed", range(2))
def test_the_actions_kept_are_those_a_fresh_listing_finds(seed):
    book = cortes_rules.load("cortes", options="veteran")
    state = book.new_game(seed=seed, setup="historical")
    rng = random.Random(seed)
    kept = 0
    for _ in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
            continue
        kept += state._legal is not None
        ids = state.legal_action_ids()
        assert ids == _fresh_ids(state)
        state.apply(rng.choice(ids))
    assert kept > 200


@pytest.mark.rule("II.1", rulebook="grands_strateges")
def test_a_listed_position_lists_the_next_decision_once(monkeypatch):
    book = cortes_rules.load("grands_strateges", scenario="III")
    state = book.new_game(seed=2)
    rng = random.Random(2)
    for _ in range(40):   # through the deployment, into the first movement phase
        state.apply(rng.choice(state.legal_action_ids()))
    calls = []
    real = GameState._candidates

    def counting(self, option, env, out, stop=False):
        calls.append(stop)
        return real(self, option, env, out, stop)

    monkeypatch.setattr(GameState, "_candidates", counting)
    ids = state.legal_action_ids()
    state.apply(rng.choice(ids))
    during = list(calls)
    calls.clear()
    assert state.legal_action_ids() == _fresh_ids(state)
    assert during and not any(during)     # the check listed every option in full
    assert len(calls) == len(during)      # only the fresh listing listed again
    # Without a listing before the action, the check stops at the first action.
    state.apply(rng.choice(state.legal_action_ids()))
    unlisted = state.clone()
    unlisted._legal = None
    action = rng.choice(_fresh_ids(state))
    calls.clear()
    unlisted.apply(action)
    assert calls and all(calls)


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_a_listing_that_fails_is_left_for_when_it_is_asked_for(tmp_path):
    text = MINIMAL.read_text(encoding="utf-8")
    old = ("option walk(runner in runners_of(p), to in neighbours(runner.place)) "
           "with from = runner.place {")
    assert old in text
    path = tmp_path / "race.rules"
    # Walking into the goal cannot be evaluated once a runner has walked.
    path.write_text(text.replace(old, old[:-1] + "where to != goal or [0][runner.walked + 3]"
                                 " == 0 {", 1), encoding="utf-8")
    book = cortes_rules.load(path)
    listed, unlisted = book.new_game(setup="standard"), book.new_game(setup="standard")
    for action in ("walk R meadow", "walk B meadow"):
        listed.legal_action_ids()
        listed.apply(action)      # the check stops at a first action, as it always did
        unlisted.apply(action)
    assert listed.to_notation() == unlisted.to_notation()
    for state in (listed, unlisted):
        with pytest.raises(RulesRuntimeError) as caught:
            state.legal_action_ids()
        assert caught.value.rule == "2.2"
