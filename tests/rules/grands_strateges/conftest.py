"""Fixtures for the Grands Stratèges clauses: the rulebook on a test board.

The worked examples of the text are drawn on diagrams it does not reproduce,
so each test sets its units on ``examples_map.rules``: a clear board with the
few features the examples name (forests, a stream, a road, a river, a village,
a marsh, a hill and its ridge line). A game started from positions skips the
deployment and begins with player A's movement phase.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import GameState

BOARD = Path(__file__).resolve().parent / "examples_map.rules"


@pytest.fixture(scope="session")
def gs_book() -> cortes_rules.Rulebook:
    """Grands Stratèges, basic rules, on the test board."""
    return cortes_rules.load("grands_strateges", map=BOARD)


@pytest.fixture
def gs_game(gs_book: cortes_rules.Rulebook) -> Callable[..., GameState]:
    """``gs_game(positions, combat=False)``: player A to move (or to fight).

    Each side also gets one unit in a far corner (A13 at 1601, B13 at 1612),
    so that no example ends the game by eliminating a side's last unit.
    """

    def make(positions: Mapping[str, str], *, combat: bool = False, seed: int = 0) -> GameState:
        placed = dict(positions)
        # A side with no unit on the map has lost (scenario I): keep one unit
        # of each side in a far corner, out of every example's way.
        placed.setdefault("A13", "1601")
        placed.setdefault("B13", "1612")
        state = gs_book.new_game(seed=seed, positions=placed)
        assert state.phase == "a_movement"
        if combat:
            state.apply("end")
            assert state.phase == "a_combat"
        return state

    return make
