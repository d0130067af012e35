"""A player's view of a game as a flat tensor: ``Layout``, for the adapters.

The encoder lives in ``cortes_rules.engine.tensors`` (its module docstring
gives the layout), where ``GameState.observation_tensor`` finds it too: one
implementation, which this module re-exports. Importing it without NumPy
raises ``MissingExtraError``, naming the extras that bring it.
"""

from __future__ import annotations

from ..engine.tensors import Layout, layout_of

__all__ = ["Layout", "layout_of"]
