"""Helpers of the Grands Stratèges tests."""

from __future__ import annotations

from cortes_rules import GameState


def refusal_rules(state: GameState, action: str) -> set[str]:
    """The rules ``why_illegal`` cites for an action (empty when it is legal)."""
    return {rule for rule, _ in state.why_illegal(action) if rule}
