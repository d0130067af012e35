"""``hide piece and place when C``: a piece hidden together with where it is.

``hide piece when C`` keeps a piece's identity from a player but lets him
count hidden pieces by place (a stack whose units he cannot see). A screened
deployment (Grands Stratèges, scenario I) keeps the place too: the piece is
counted as somewhere unknown.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cortes_rules.dsl.render import statement
from minimal_book import minimal_with

SCREEN = '''
rule 2.6 "A screen" {
  summary "Until a runner has walked, the other player does not know where it stands."
  hide piece and place when piece.walked == 0 and piece.side != viewer
}
'''

VEIL = '''
rule 2.6 "A veil" {
  summary "Until a runner has walked, the other player does not know which runner it is."
  hide piece when piece.walked == 0 and piece.side != viewer
}
'''



@pytest.mark.rule("2.6", rulebook="minimal_race")
def test_a_screened_piece_is_counted_nowhere_in_particular(tmp_path: Path) -> None:
    state = minimal_with(tmp_path, SCREEN).new_game(setup="standard")
    seen = state.observation("red")
    assert "B" not in seen["pieces"]
    assert seen["hidden"] == {"unknown": 1}
    assert "R" in seen["pieces"] and seen["pieces"]["R"]["place"] == "start"
    # Once it has walked, it is seen where it is.
    state.apply("walk R meadow")
    state.apply("walk B pond")
    assert state.observation("red")["pieces"]["B"]["place"] == "pond"
    assert state.observation("red")["hidden"] == {}


@pytest.mark.rule("2.6", rulebook="minimal_race")
def test_a_veiled_piece_is_still_counted_where_it_stands(tmp_path: Path) -> None:
    state = minimal_with(tmp_path, VEIL).new_game(setup="standard")
    assert state.observation("red")["hidden"] == {"start": 1}


@pytest.mark.rule("2.6", rulebook="minimal_race")
def test_the_clause_is_shown_as_written(tmp_path: Path) -> None:
    book = minimal_with(tmp_path, SCREEN)
    hide = next(s for s in book.rule("2.6").statements if type(s).__name__ == "HideDecl")
    assert statement(hide).startswith("hide piece and place when")
