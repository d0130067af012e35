"""The native executor of the core IR (issue 48, item 3): compiled at load, run in C.

``VM(game)`` compiles a ``core.ir.Game`` (``compile.compile_game``: integer
tables, no C compiler needed for a user's rulebook) and loads it into the
Cython VM (``cortes_rules._vm``, from ``src_ext/_vm.pyx``); ``new_game()``
starts a native state, which answers the same questions as the reference
interpreter's ``core.run.State`` (legal ids and texts, apply, chance, the
player to act, the log, the outcome), and tests/core/test_vm.py holds the two
to each other step by step.
"""

from __future__ import annotations

from typing import Any

from ...dsl.to_core import to_core
from .. import ir
from ..run.board import Board
from ..run.evaluate import RulesError
from ..run.state import Line, Outcome
from ..run.values import cited_rules
from .compile import VMUnsupported, compile_game

__all__ = ["VM", "VMUnsupported"]


class VM:
    """One lowered rulebook, compiled for the native VM."""

    def __init__(self, game: ir.Game, rewrite: bool = True) -> None:
        from ... import _vm   # the extension: absent on a machine that built none

        self.game = game
        self.rules_error = RulesError
        self.compiled = compile_game(game, rewrite)
        self.program = _vm.Program(self.compiled, Board(game), Line, Outcome, cited_rules,
                                   RulesError)

    @classmethod
    def of(cls, rulebook: object, rewrite: bool = True) -> VM:
        """The VM of a loaded ``cortes_rules.Rulebook`` (its checked program)."""
        return cls(to_core(rulebook._machine.program), rewrite)  # type: ignore[attr-defined]

    def new_game(self, *, seed: int = 0, setup: str | None = None,
                 turn_limit: int | None = None, log: bool = True) -> Any:
        """A native game state; ``log=False`` keeps no log lines (rollouts)."""
        return self.program.new_game(seed, setup, turn_limit, log)
