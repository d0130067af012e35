"""GameState.random_playout: a whole random game played inside the engine.

Front ends doing Monte Carlo search need rollouts that are cheap and
repeatable. Every action a rollout applies must be one a player could have
chosen there (4.1: a player acts only as the rules allow), so replaying its
history through ``apply`` reaches the same game; the same seed gives the
same game; a limit is kept.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.engine.rng import below
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
    # The playout's actions skip apply()'s snapshots, not its effects: the same
    # choices made through the public API give the very same state, the dice's
    # generator included.
    stepped = book.new_game(seed=seed, setup=setup, turn_limit=2)
    state = chooser & 0xFFFF_FFFF_FFFF_FFFF
    while not stepped.is_terminal() and len(stepped.history) < limit:
        if stepped.is_chance_node():
            stepped.apply_chance()
        else:
            ids = stepped.legal_action_ids()
            state, i = below(state, len(ids))
            stepped.apply(ids[i])
    assert stepped.to_notation() == first.to_notation()
    assert stepped.same_position(first) and stepped.rng_state == first.rng_state


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


_RACE = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


@pytest.mark.rule("2.2", rulebook="minimal_race")
@pytest.mark.parametrize("seed", range(6))
def test_a_playout_that_fails_leaves_the_state_as_it_was(tmp_path, seed):
    # A runner's second walk runs into a broken rule (before it could reach the
    # goal), so every playout fails sooner or later. Its actions run without
    # apply()'s per-action snapshot: the failure takes the state back to where
    # the playout started, not to the action before the failure.
    text = _RACE.read_text(encoding="utf-8")
    old = "        set runner.walked = runner.walked + 1\n"
    assert old in text
    path = tmp_path / "race.rules"
    path.write_text(text.replace(old, old + '        if runner.walked == 2 { fail "worn out" }\n'),
                    encoding="utf-8")
    state = cortes_rules.load(path).new_game(seed=1, setup="standard")
    state.apply("rest")

    def seen(state):
        return (state.positions(), [str(a) for a in state.history],
                [str(e) for e in state.log], state.current_player, state.legal_action_ids())

    before = seen(state)
    with pytest.raises(cortes_rules.RulesRuntimeError, match="worn out"):
        state.random_playout(seed)
    assert seen(state) == before
    state.apply("rest")          # and play goes on from there
    assert len(state.history) == 2


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("collector_on", [True, False])
def test_a_playout_leaves_the_garbage_collector_as_it_found_it(book, collector_on):
    # The playout holds the cyclic collector off while it plays (a full
    # collection walks every object the rulebook holds) and gives it back as it
    # was, also when the playout fails.
    import gc

    from cortes_rules.engine.machine import GameState

    was = gc.isenabled()
    seen: list[bool] = []
    real = GameState.legal_action_ids

    def spy(self):
        seen.append(gc.isenabled())
        return real(self)

    try:
        (gc.enable if collector_on else gc.disable)()
        with pytest.MonkeyPatch.context() as patch:
            patch.setattr(GameState, "legal_action_ids", spy)
            state = book.new_game(seed=3, setup="demo", turn_limit=1)
            assert state.random_playout(5, max_actions=20) == 20
            assert seen and not any(seen)
            assert gc.isenabled() is collector_on

            def broken(self):
                raise cortes_rules.RulesRuntimeError("broken on purpose")

            patch.setattr(GameState, "legal_action_ids", broken)
            with pytest.raises(cortes_rules.RulesRuntimeError, match="on purpose"):
                state.random_playout(5)
            assert gc.isenabled() is collector_on
    finally:
        (gc.enable if was else gc.disable)()


@pytest.mark.rule("4.1")
@settings(max_examples=6, deadline=None)
@given(seed=seeds)
def test_the_history_is_the_actions_applied_by_id_each_made_when_read(book, seed):
    # Applying an action id records the id; the history turns each into its
    # Action (the very object the rulebook hands out for that id) when read,
    # dice rolls included.
    state = book.new_game(seed=seed, setup="historical", turn_limit=2)
    chooser = random.Random(seed)
    applied = []
    for _ in range(120):
        if state.is_terminal():
            break
        number = chooser.choice(state.legal_action_ids())
        state.apply(number)
        applied.append(number)
    history = state.history
    assert [str(a) for a in history] == [str(book.action_from_id(n)) for n in applied]
    assert all(a is book.action_from_id(n) for a, n in zip(history, applied, strict=True))
    assert any(a.is_chance for a in history) or len(applied) < 120
