"""Who decides in a sealed round is worked out once a decision is collected (``_sealed_next``).

While a sealed round collects its decisions nothing changes the state (the
bodies run once all are in), so the players taking part, found when a
decision is collected, are kept for the rest of the round. Whatever is kept,
the next player and the legal actions must be those a state without the kept
players works out afresh.
"""

from __future__ import annotations

import random

import pytest

import cortes_rules
from cortes_rules.engine.procedures import SEALED


def _sealed_spec(state: cortes_rules.GameState):
    pending = state._pending()
    return pending[1][1] if pending is not None and pending[0] == SEALED else None


def _play_checking(state: cortes_rules.GameState, seed: int, steps: int) -> int:
    """Play random actions; at every sealed decision compare with a fresh evaluation.
    Returns the number of sealed decisions met."""
    rng = random.Random(seed)
    met = 0
    for _ in range(steps):
        if state.is_terminal():
            break
        if _sealed_spec(state) is not None:
            met += 1
            fresh = state.clone()
            fresh._choosers = None
            assert fresh.current_player == state.current_player
            assert fresh.legal_action_ids() == state.legal_action_ids()
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(rng.choice(state.legal_action_ids()))
    return met


@pytest.mark.rule("2.3", rulebook="sealed_bids")
@pytest.mark.parametrize("seed", range(4))
def test_the_next_bidder_is_the_one_a_fresh_evaluation_names(seed: int) -> None:
    from cortes_rules.api import load

    book = load("tests/fixtures/core/sealed_bids.rules")
    assert _play_checking(book.new_game(seed=seed, setup="standard"), seed, 200) > 10


@pytest.mark.rule("scenario_play", rulebook="grands_strateges")
def test_the_deployment_round_names_the_players_a_fresh_evaluation_names() -> None:
    book = cortes_rules.load("grands_strateges", scenario="III")
    assert _play_checking(book.new_game(seed=3), 3, 60) > 20


@pytest.mark.rule("scenario_play", rulebook="grands_strateges")
def test_the_players_of_a_round_are_evaluated_once_a_decision_is_collected() -> None:
    book = cortes_rules.load("grands_strateges", scenario="III")
    state = book.new_game(seed=1)
    spec = _sealed_spec(state)
    assert spec is not None
    calls = []
    players = spec.player
    spec.player = lambda s, env: calls.append(1) or players(s, env)
    try:
        rng = random.Random(1)
        state.apply(rng.choice(state.legal_action_ids()))   # the first of the round
        calls.clear()
        state.legal_action_ids()
        state.apply(rng.choice(state.legal_action_ids()))   # the second: the round ends
        # Listing, apply and the run all ask who decides. Of this round, only the
        # last decision (a new tuple of decisions) needs the players again; the
        # next round starts after the bodies have run, and needs them once.
        assert len(calls) == 2
        assert _sealed_spec(state) is spec
    finally:
        spec.player = players
