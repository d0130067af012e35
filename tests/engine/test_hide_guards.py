"""Hide clauses whose leading tests read only the piece and the viewer (``engine/visibility.py``).

Those tests are worked out once for every piece and viewer; a clause they
already answer no for is not evaluated. Whatever is skipped, a piece must be
hidden from exactly the players the whole clauses hide it from.
"""

from __future__ import annotations

import random
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.engine.visibility import _settled_no
from minimal_book import minimal_with

VEIL = '''
rule 2.6 "A veil" {
  summary "Until a runner has walked, the other player does not know which runner it is."
  hide piece when piece.side != viewer and piece.walked == 0
}
'''


def _every_clause(state: cortes_rules.GameState, piece, viewer, hides) -> bool:
    """The answer of the clauses evaluated in full, none skipped."""
    if (piece.index, viewer.index) in state.revealed:
        return False
    return any(fn(state, {"piece": piece, "viewer": viewer}) for fn in hides.fns)


@pytest.mark.rule("2.6", rulebook="minimal_race")
def test_a_clause_whose_leading_test_says_no_is_not_evaluated(tmp_path: Path) -> None:
    book = minimal_with(tmp_path, VEIL)
    state = book.new_game(setup="standard")
    hides = state.machine.hides
    world = state.machine.world
    for piece in world.pieces:
        for viewer in world.players:
            applying = hides.applying(piece, viewer)
            # Only the other side's runner can be hidden; the attribute test that
            # follows reads the state, so it is never settled in advance.
            assert applying == (hides.fns if piece.side is not viewer else ())
    assert state.observation("red")["hidden"] == {"start": 1}
    state.apply("walk R meadow")
    state.apply("walk B pond")
    assert state.observation("red")["hidden"] == {}


@pytest.mark.rule("2.6", rulebook="minimal_race")
def test_a_leading_test_that_fails_or_is_not_a_truth_value_keeps_the_clause() -> None:
    def fails(state, env):
        raise cortes_rules.CortesRulesError("cannot evaluate")

    assert _settled_no((lambda s, e: True, lambda s, e: False), None, {}) is True
    assert _settled_no((lambda s, e: True,), None, {}) is False
    assert _settled_no((fails, lambda s, e: False), None, {}) is False
    assert _settled_no((lambda s, e: 0,), None, {}) is False
    assert _settled_no((), None, {}) is False


@pytest.mark.rule("11.9")
@pytest.mark.parametrize("seed", [0, 1])
def test_11_9_the_fog_of_war_hides_what_the_whole_clauses_hide(seed: int) -> None:
    book = cortes_rules.load("cortes", options="veteran")
    state = book.new_game(setup="historical", seed=seed)
    machine = state.machine
    hides, world = machine.hides, machine.world
    assert hides, "the veteran preset plays with the fog of war"
    skipped = hidden = 0
    chooser = random.Random(seed)
    for _ in range(400):
        if state.terminal:
            break
        for piece in world.pieces:
            for viewer in world.players:
                held = state.hidden_from(piece, viewer)
                assert held == _every_clause(state, piece, viewer, hides), (piece, viewer)
                hidden += held
                skipped += not hides.applying(piece, viewer)
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(ids[chooser.randrange(len(ids))])
    assert skipped > 0 and hidden > 0
