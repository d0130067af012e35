"""``hide player NAME when C``: one attribute of a player kept from another.

A secret roll made at the start (Grands Stratèges scenarios IXb and X: each
army's demoralisation rate) is stored in a player attribute; the other
player's observation must not show it while the clause holds.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.dsl.render import statement
from minimal_book import minimal_with

SECRET = '''
rule 2.7 "A secret pace" {
  summary "Each player notes a pace the other does not see until his runner has walked twice."
  attribute player pace: int = 3 "the pace the player noted"
  hide player pace when player != viewer and sum(u.walked for u in runners_of(player)) < 2
}
'''



@pytest.mark.rule("2.7", rulebook="minimal_race")
def test_a_hidden_attribute_is_shown_only_to_its_owner(tmp_path: Path) -> None:
    state = minimal_with(tmp_path, SECRET).new_game(setup="standard")
    red_sees = state.observation("red")["players"]
    assert red_sees["red"]["pace"] == 3
    assert "pace" not in red_sees["blue"]
    assert state.observation("blue")["players"]["blue"]["pace"] == 3
    assert "pace" not in state.observation("blue")["players"]["red"]


@pytest.mark.rule("2.7", rulebook="minimal_race")
def test_the_attribute_is_shown_once_the_condition_fails(tmp_path: Path) -> None:
    state = minimal_with(tmp_path, SECRET).new_game(setup="standard")
    state.apply("walk R meadow")
    state.apply("rest")
    assert "pace" not in state.observation("blue")["players"]["red"]
    state.apply("walk R start")
    assert state.observation("blue")["players"]["red"]["pace"] == 3


@pytest.mark.rule("2.7", rulebook="minimal_race")
def test_hiding_an_undeclared_attribute_is_refused(tmp_path: Path) -> None:
    clause = SECRET.replace("hide player pace", "hide player speed")
    with pytest.raises(cortes_rules.CortesRulesError, match="player attribute 'speed'"):
        minimal_with(tmp_path, clause)


@pytest.mark.rule("2.7", rulebook="minimal_race")
def test_the_clause_is_shown_as_written(tmp_path: Path) -> None:
    book = minimal_with(tmp_path, SECRET)
    hide = next(s for s in book.rule("2.7").statements if type(s).__name__ == "HideDecl")
    assert statement(hide).startswith("hide player pace when player != viewer")
