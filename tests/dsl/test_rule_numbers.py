"""Rule numbers in Roman figures (``rule III.4``), as Grands Stratèges prints them.

The minimal race of ``tests/fixtures/good/minimal.rules`` is renumbered with
Roman sections (1.x -> I.x, 2.x -> II.x) and given a few more clauses; the
rulebook must load, play, cite, refuse and list its rules exactly as one
numbered in Arabic figures does, in the order of the numerals' values.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from dsl_helpers import syntax_error
from hypothesis import given
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.cli import main
from cortes_rules.coverage import coverage
from cortes_rules.errors import CortesRulesError, IllegalActionError
from cortes_rules.rule_numbers import is_rule_number, roman_value, rule_key, to_roman

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"
BOOK = "roman_race"
ROMAN = {"1": "I", "2": "II"}

EXTRA = '''
rule II.10 "Tenth rule" {
  summary "A clause numbered ten in section two, listed after the ninth."
  commentary
}

rule II.9 "Ninth rule" {
  summary "A clause numbered nine in section two."
  commentary
}

rule IX.1 "Ninth section" {
  summary "Section nine comes before section ten, though IX sorts after X as letters."
  commentary
}

rule X.1 "An optional rule" optional {
  summary "Resting is not allowed once this optional rule is on."
  forbid rest when true
}
'''


def renumbered(text: str) -> str:
    """The minimal race with every rule number's section in Roman figures."""
    text = re.sub(r"\b([12])\.(\d)\b", lambda m: f"{ROMAN[m[1]]}.{m[2]}", text)
    text = text.replace('game minimal_race "A minimal race" {',
                        f'game {BOOK} "A minimal race in Roman numbers" {{\n'
                        f'  preset strict "No resting" options X.1')
    return text + EXTRA


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout-like folder holding the renumbered race and one test file citing it."""
    folder = tmp_path / "rulebook" / BOOK
    folder.mkdir(parents=True)
    (folder / "race.rules").write_text(renumbered(MINIMAL.read_text(encoding="utf-8")),
                                       encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_race.py").write_text(
        "import pytest\n\n\n@pytest.mark.rule('II.3', rulebook='roman_race')\n"
        "def test_pond() -> None:\n    assert True\n", encoding="utf-8")
    return tmp_path


@pytest.mark.rule("II.2", rulebook=BOOK)
def test_the_renumbered_race_really_uses_roman_numbers() -> None:
    text = renumbered(MINIMAL.read_text(encoding="utf-8"))
    assert 'rule II.4 "A first step"' in text and "despite II.3" in text
    assert 'cite "II.2"' in text and not re.search(r"rule [12]\.\d", text)


@pytest.mark.rule("II.3", rulebook=BOOK)
def test_a_roman_numbered_rulebook_plays_and_cites_its_numbers(checkout: Path) -> None:
    book = cortes_rules.load(checkout / "rulebook" / BOOK)
    assert book.rule("II.3").title == "The pond"
    state = book.new_game(setup="standard")
    assert state.why_illegal("walk R pond") == []          # II.4 lifts II.3 on a first step
    state.apply("walk R meadow")
    assert state.log[-1].rules == ("II.2",)
    state.apply("rest")
    reasons = state.why_illegal("walk R pond")
    assert [rule for rule, _ in reasons] == ["II.3"]
    with pytest.raises(IllegalActionError) as caught:
        state.apply("walk R pond")
    assert caught.value.reasons[0][0] == "II.3"


@pytest.mark.rule("X.1", rulebook=BOOK)
def test_optional_rules_and_presets_take_roman_numbers(checkout: Path) -> None:
    path = checkout / "rulebook" / BOOK
    for options in (["X.1"], "strict"):
        state = cortes_rules.load(path, options=options).new_game(setup="standard")
        assert [rule for rule, _ in state.why_illegal("rest")] == ["X.1"]
    assert cortes_rules.load(path).new_game(setup="standard").why_illegal("rest") == []
    with pytest.raises(CortesRulesError, match=r"no optional rule numbered XI\.1 "
                                               r"\(optional rules: X\.1;"):
        cortes_rules.load(path, options=["XI.1"])


@pytest.mark.rule("II.10", rulebook=BOOK)
def test_coverage_lists_roman_numbers_by_value_with_their_tests(checkout: Path) -> None:
    report = coverage(checkout / "rulebook" / BOOK)
    assert [r.number for r in report.rules] == ["I.1", "I.2", "II.1", "II.2", "II.3", "II.4",
                                                "II.9", "II.10", "IX.1", "X.1"]
    tests = {r.number: r.tests for r in report.rules}
    assert [t.rsplit("::", 1)[-1] for t in tests["II.3"]] == ["test_pond"]


@pytest.mark.rule("II.10", rulebook=BOOK)
def test_cli_shows_a_roman_numbered_clause(checkout: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    path = str(checkout / "rulebook" / BOOK)
    assert main(["rule", "II.10", "--rulebook", path]) == 0
    assert "II.10" in capsys.readouterr().out


@pytest.mark.rule("II.3", rulebook=BOOK)
def test_an_error_inside_a_roman_clause_names_it() -> None:
    diagnostic = syntax_error('rule IV.2 "Walking" {\n  summary "A snippet."\n'
                              '  forbid walk wen true\n}\n')
    assert (diagnostic.span.line, diagnostic.rule) == (3, "IV.2")


@pytest.mark.parametrize("number", ["IIII.1", "VX.2", "IC.3", "IIV.1", "XXXX.4"])
@pytest.mark.rule("II.1", rulebook=BOOK)
def test_a_malformed_roman_section_is_refused_with_a_caret(number: str) -> None:
    diagnostic = syntax_error(f'rule {number} "Bad" {{\n  summary "A snippet."\n}}\n')
    assert (diagnostic.span.line, diagnostic.span.column) == (1, 6)
    assert f"{number.split('.')[0]} is not a Roman numeral" in diagnostic.message
    assert diagnostic.render().splitlines()[2].strip() == "^" * len(number)


@pytest.mark.rule("II.1", rulebook=BOOK)
@given(st.integers(min_value=1, max_value=3999))
def test_every_roman_numeral_reads_back_as_its_value(value: int) -> None:
    numeral = to_roman(value)
    assert roman_value(numeral) == value
    assert is_rule_number(f"{numeral}.1") and is_rule_number(f"{numeral}.12a")
    assert not is_rule_number(numeral.lower() + ".1")


@pytest.mark.rule("II.1", rulebook=BOOK)
@given(st.text(alphabet="IVXLCDM", min_size=1, max_size=9))
def test_only_the_usual_spelling_of_a_numeral_is_read(numeral: str) -> None:
    value = roman_value(numeral)
    assert value is None or to_roman(value) == numeral
    assert is_rule_number(f"{numeral}.3") == (value is not None)


@pytest.mark.rule("II.10", rulebook=BOOK)
@given(st.lists(st.tuples(st.integers(1, 60), st.integers(1, 40), st.sampled_from(["", "a", "b"])),
                min_size=2, max_size=12))
def test_roman_and_arabic_numbers_sort_alike(parts: list[tuple[int, int, str]]) -> None:
    arabic = [f"{s}.{r}{x}" for s, r, x in parts]
    roman = [f"{to_roman(s)}.{r}{x}" for s, r, x in parts]
    by_arabic = sorted(range(len(parts)), key=lambda i: (rule_key(arabic[i]), i))
    by_roman = sorted(range(len(parts)), key=lambda i: (rule_key(roman[i]), i))
    assert by_arabic == by_roman
    assert [parts[i] for i in by_arabic] == sorted(parts, key=lambda p: (p[0], p[1], p[2] != "",
                                                                          p[2]))
