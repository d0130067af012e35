"""A counter line may name its side (``side b``) when its class has none.

Grands Stratèges gives both armies the same mix of infantry, cavalry and
artillery, so its classes belong to no side and each counter says whose it
is. A class that has a side keeps it: a counter naming another is refused,
as is a side the rulebook does not declare.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.errors import RulesCheckError

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"

SHARED_CLASS = '''
rule 1.3 "Walkers" {
  summary "Walkers belong to either player; the counter says whose."
  class walker "Walker"
}
'''


def _book(tmp_path: Path, counters: str) -> cortes_rules.Rulebook:
    text = MINIMAL.read_text(encoding="utf-8") + SHARED_CLASS
    text = text.replace('  counter B "Blue runner" blue_runner\n',
                        '  counter B "Blue runner" blue_runner\n' + counters)
    path = tmp_path / "race.rules"
    path.write_text(text, encoding="utf-8")
    return cortes_rules.load(path)


@pytest.mark.rule("1.3", rulebook="minimal_race")
def test_a_counter_names_its_side_when_its_class_has_none(tmp_path: Path) -> None:
    book = _book(tmp_path, '  counter W1 "Red walker" walker side red\n'
                           '  counter W2 "Blue walker" walker side blue\n')
    state = book.new_game(setup="standard", positions={"W1": "meadow", "W2": "meadow"})
    assert state.evaluate("W.side == red", W="W1")
    assert state.evaluate("W is blue", W="W2")
    assert not state.evaluate("W is red", W="W2")
    # The side is not left behind as a property of the piece.
    assert state.evaluate("count(u in pieces where u.side == blue)") == 2


@pytest.mark.rule("1.3", rulebook="minimal_race")
def test_a_counter_may_not_contradict_its_class_side(tmp_path: Path) -> None:
    with pytest.raises(RulesCheckError) as error:
        _book(tmp_path, '  counter R2 "Red runner" red_runner side blue\n')
    assert "counter R2 is given side blue, but its class red_runner belongs to side red" \
        in str(error.value)


@pytest.mark.rule("1.3", rulebook="minimal_race")
def test_a_counter_side_must_be_declared(tmp_path: Path) -> None:
    with pytest.raises(RulesCheckError) as error:
        _book(tmp_path, '  counter W3 "Green walker" walker side green\n')
    assert "green" in str(error.value) and "side" in str(error.value)
