"""The two shipped rulebooks as the adapters are tested on them, loaded once.

``cortes`` with the veteran preset (its optional rules, fog of war 11.9 among
them; stacks hide what is under their top unit, 8.8) and ``grands_strateges``
scenario 1, both on the backend ``CORTES_RULES_BACKEND`` selects.
"""

from __future__ import annotations

import random

import pytest

import cortes_rules
from cortes_rules import GameState

# name -> (load arguments, the rule marker of a test of the whole game on it)
BOOKS = {
    "cortes": ({"options": "veteran"}, pytest.mark.rule("4.1")),
    "grands_strateges": ({"scenario": 1}, pytest.mark.rule("I.1", rulebook="grands_strateges")),
}


def each_book() -> list[object]:
    """``@pytest.mark.parametrize("name", each_book())``: both rulebooks, each marked."""
    return [pytest.param(name, marks=mark, id=name) for name, (_, mark) in BOOKS.items()]


_loaded: dict[str, cortes_rules.Rulebook] = {}


def load(name: str) -> cortes_rules.Rulebook:
    """A rulebook of ``BOOKS``, loaded once per session."""
    if name not in _loaded:
        _loaded[name] = cortes_rules.load(name, **BOOKS[name][0])
    return _loaded[name]


def random_walk(state: GameState, seed: int, steps: int) -> GameState:
    """Play ``steps`` random decisions (chance by the game's own dice), or to the end."""
    rng = random.Random(seed)
    for _ in range(steps):
        while state.is_chance_node():
            state.apply_chance()
        if state.is_terminal():
            break
        state.apply(rng.choice(state.legal_action_ids()))
    return state
