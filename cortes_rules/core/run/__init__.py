"""The reference interpreter: a direct, readable executor of the core IR (issue 48, item 2).

``Interpreter(game)`` prepares a ``core.ir.Game`` (its entities, graph and action
space, ``board.Board``); ``new_game()`` starts a ``state.State``, which runs the
game's procedures instruction by instruction (``state``), evaluating the one
expression form directly (``evaluate``) over the values of ``values``. No code
is generated, and nothing here reads the surface IR or imports the engine's
machine: the executable specification of what the core IR means.
"""

from __future__ import annotations

from ...dsl.to_core import to_core
from .. import ir
from .board import Board
from .evaluate import RulesError
from .state import Line, Outcome, State

__all__ = ["Interpreter", "Line", "Outcome", "RulesError", "State"]


class Interpreter:
    """One lowered rulebook, ready to start games on."""

    def __init__(self, game: ir.Game) -> None:
        self.game = game
        self.board = Board(game)

    @classmethod
    def of(cls, rulebook: object) -> Interpreter:
        """The interpreter of a loaded ``cortes_rules.Rulebook`` (its checked program)."""
        return cls(to_core(rulebook._machine.program))  # type: ignore[attr-defined]

    def new_game(self, *, seed: int = 0, setup: str | None = None,
                 turn_limit: int | None = None) -> State:
        return State(self.board, seed=seed, setup=setup, turn_limit=turn_limit)
