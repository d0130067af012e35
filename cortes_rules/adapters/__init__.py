"""Adapters to AI libraries: a PettingZoo environment and an OpenSpiel game.

Each adapter is an optional extra and is imported only when asked for::

    from cortes_rules.adapters.pettingzoo import RulesEnv   # cortes-rules[pettingzoo]
    from cortes_rules.adapters.openspiel import register    # cortes-rules[openspiel]

``cortes_rules.adapters.tensors`` turns what one player may see of a game
(``GameState.observation``) into a flat tensor; ``cortes_rules.adapters.outcomes``
maps players to integers and outcomes to utilities. None of them knows a
particular game: they read the rulebook's world (its pieces, places, players,
phases and declared attributes).

This package imports none of the libraries itself: importing it works without
the extras. Importing an adapter whose library is missing raises
``MissingExtraError`` (both a ``CortesRulesError`` and an ``ImportError``,
defined in ``cortes_rules.errors``), which names the extra to install.
"""

from __future__ import annotations

from ..errors import MissingExtraError

__all__ = ["MissingExtraError"]
