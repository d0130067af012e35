"""Perfect recall: the actions of a game as one player saw them, replayed from its start.

``GameState.information_state()`` (``cortes_rules.api``) and a record's
player view (``cortes_rules.record.format_record(..., player=...)``) both
replay a game's actions from the position it started in, judging each one
by what the player could see at that moment. This module is that replay,
built on the state alone: it knows no record, notation or rulebook loading.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .actions import Action
    from .machine import GameState

__all__ = ["apply_recorded", "seen_plies"]


def apply_recorded(state: GameState, action: Action) -> None:
    """Apply a recorded action; a dice result or draw that the seeded generator gives
    here is taken as the generator's (it moves on, as when the engine rolled)."""
    if action.is_chance and state.is_chance_node():
        twin = state.clone()
        if twin.apply_chance() == action:
            state.apply_chance()
            return
    state.apply(action)


def seen_plies(game: GameState, actions: Iterable[Action], player: str
               ) -> list[tuple[str | None, Action | None]]:
    """Play ``actions`` on ``game`` (the position they start from, changed in place)
    and return each as ``player`` saw it: ``(who took it, the action)``, the action
    None when it names a piece hidden from ``player`` before or after it and another
    player took it, or when it is a roll or draw some of whose log lines are kept
    from ``player``. Before an action that is not a roll or draw, the seeded dice
    roll at any chance node it skips.

    ``player`` is a player of the game (the callers check it).
    """
    world = game.machine.world
    viewer = world.player[player]

    def hidden(action: Action) -> bool:
        return any(arg in world.piece and game.hidden_from(world.piece[arg], viewer)
                   for arg in action.args if isinstance(arg, str))

    plies: list[tuple[str | None, Action | None]] = []
    for action in actions:
        while game.is_chance_node() and not action.is_chance:
            game.apply_chance()
        actor = game.current_player
        secret = actor != player and hidden(action)
        apply_recorded(game, action)
        if secret or (actor != player and hidden(action)) or (
                action.is_chance and len(game.trail(-1, player)) < len(game.trail(-1))):
            # A roll or draw whose result is written for another player alone (a
            # secret roll) is as hidden from this one as a hidden piece's move.
            plies.append((actor, None))
        else:
            plies.append((actor, action))
    return plies
