"""Decimal numbers in table cells (``0.5``), read exactly as fractions.

Grands Stratèges charges half a movement point to enter a hex along a road
(II.11 and its terrain table); a table states that as ``0.5``. The cell keeps
its text for the reference and the ``rule`` command, and its value is the
exact fraction, so costs add up without rounding.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path

import pytest
from dsl_helpers import syntax_error

import cortes_rules
from cortes_rules.cli import main

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"

PACE = '''
rule 2.5 "Pace" {
  summary "Points to enter an area: half a point along the track, one and a half wading."
  table pace "Points to enter an area" {
    columns      cost    slope
    row track    0.5     -0.25
    row wading   1.5     0
    row climb    1       2.0
  }
}
'''


@pytest.fixture
def book(tmp_path: Path) -> cortes_rules.Rulebook:
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + PACE, encoding="utf-8")
    return cortes_rules.load(path)


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_a_decimal_cell_is_an_exact_fraction(book: cortes_rules.Rulebook) -> None:
    assert book.evaluate('pace["track"].cost') == Fraction(1, 2)
    total = book.evaluate('pace["track"].cost + pace["track"].cost + pace["wading"].cost')
    assert total == Fraction(5, 2)
    assert book.evaluate('pace["track"].slope') == Fraction(-1, 4)
    assert book.evaluate('pace["climb"].slope') == 2
    assert book.evaluate('pace["track"].cost * 3 <= pace["wading"].cost')


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_the_rule_command_shows_a_decimal_as_written(
        tmp_path: Path, book: cortes_rules.Rulebook, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "2.5", "--rulebook", str(tmp_path / "race.rules")]) == 0
    out = capsys.readouterr().out
    assert "0.5" in out and "-0.25" in out and "2.0" in out and "Fraction" not in out


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_a_decimal_outside_a_table_is_a_syntax_error_with_a_caret() -> None:
    diagnostic = syntax_error('rule 2.5 "Pace" {\n  summary "A snippet."\n'
                              '  function half() = 0.5\n}\n')
    # Read as the number 0 and a field: the caret falls inside "0.5".
    assert diagnostic.span.line == 3 and 21 <= diagnostic.span.column <= 23
    assert "unexpected" in diagnostic.message and diagnostic.rule == "2.5"


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_a_decimal_of_too_many_figures_is_refused() -> None:
    diagnostic = syntax_error('rule 2.5 "Pace" {\n  summary "A snippet."\n'
                              '  table t "T" { columns c row a 0.' + "1" * 30 + ' }\n}\n')
    assert "number too long" in diagnostic.message and diagnostic.rule == "2.5"
