"""Shared helpers of the server's tests: games and records.

``demo_record(hidden=False)`` is a record that starts from the Cortés
``demo`` set-up's position with the Aztec stack at 2810 cut to its top
unit, so that nothing is hidden from the Spanish player (8.8): his view
then shows routes and forecasts, which are withheld while pieces are hidden
from him.
"""

from __future__ import annotations

from functools import cache
from typing import Any

import cortes_rules
from cortes_rules.record import format_record

SPANISH, AZTEC = "spanish", "aztec"


@cache
def cortes(options: str = "") -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes", options=options or ())


def demo_record(*, hidden: bool = True, seed: int = 8) -> str:
    """A record of no action yet from the demo set-up (its stack at 2810 cut to
    its top unit unless ``hidden``)."""
    book = cortes()
    state = book.new_game(seed=seed, setup="demo")
    if hidden:
        return format_record(state)
    text = state.to_notation()
    assert "at 2810: A1 A2\n" in text
    return format_record(book.position(text.replace("at 2810: A1 A2\n", "at 2810: A2\n")))


def state_of(client: Any, game: str) -> cortes_rules.GameState:
    """The server's own state of a game (to check that a refusal changed nothing)."""
    return client.app.state.games.get(game).state  # type: ignore[no-any-return]


def fingerprint(client: Any, game: str) -> tuple[str, tuple[str, ...], tuple[str, ...]]:
    """Everything a request could change in a game: its position, its actions and
    who took them."""
    kept = client.app.state.games.get(game)
    return (kept.state.to_notation(), tuple(map(str, kept.state.history)),
            tuple(kept.actors))


def long_decision_record(least: int = 100) -> str:
    """A record of a demo game played at random up to a decision of at least
    ``least`` actions (a redeployment: one unit, hundreds of hexes)."""
    return format_record(long_decision(least))


def long_decision(least: int = 100) -> Any:
    """The state of ``long_decision_record``: a demo game at a decision of at
    least ``least`` actions."""
    import random

    book = cortes()
    state = book.new_game(seed=1, setup="demo")
    rng = random.Random(1)
    while state.is_chance_node() or len(state.legal_actions()) < least:
        assert not state.is_terminal() and len(state.history) < 500
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(ids[rng.randrange(len(ids))])
    return state
