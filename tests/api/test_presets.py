"""Presets: named sets of optional rules, stated in the rulebook's game block."""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import CortesRulesError, RulesCheckError

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"
SOURCE_LINE = '  source "Written for the cortes_rules test suite; not a published game."\n'
OPTIONAL = '''
rule 3.1 "A first option" optional {
  summary "An optional rule that states nothing yet, to be switched on by a preset."
}

rule 3.2 "A second option" optional {
  summary "Another optional rule that states nothing yet."
}
'''
VETERAN = ["8.24", "8.25", "11.1", "11.2", "11.3", "11.4", "11.5", "11.6", "11.7", "11.8",
           "11.9", "11.10"]


def rulebook(tmp_path: Path, presets: str) -> Path:
    text = MINIMAL.read_text(encoding="utf-8")
    assert SOURCE_LINE in text
    path = tmp_path / "race.rules"
    path.write_text(text.replace(SOURCE_LINE, SOURCE_LINE + presets, 1) + OPTIONAL,
                    encoding="utf-8")
    return path


def switched_on(book: cortes_rules.Rulebook) -> set[str]:
    return set(book.program.options)


@pytest.mark.rule("11.1")
@pytest.mark.parametrize("options", ["veteran", ["veteran"], "all", ["beginner", "all"]])
def test_veteran_switches_every_optional_rule_on(options: str | list[str]) -> None:
    book = cortes_rules.load("cortes", options=options)
    assert switched_on(book) == set(VETERAN)
    assert "11.4" in book.program.rules and "8.24" in book.program.rules


@pytest.mark.rule("11.1")
@pytest.mark.parametrize("options", ["beginner", ["beginner"], (), ""])
def test_beginner_switches_every_optional_rule_off(options: str | list[str]) -> None:
    book = cortes_rules.load("cortes", options=options)
    assert switched_on(book) == set()
    assert "11.4" not in book.program.rules and "8.25" not in book.program.rules


@pytest.mark.rule("11.4")
def test_presets_and_rule_numbers_add_up() -> None:
    book = cortes_rules.load("cortes", options=["beginner", "11.4", "8.24"])
    assert switched_on(book) == {"11.4", "8.24"}
    assert switched_on(cortes_rules.load("cortes", options="11.6")) == {"11.6"}


@pytest.mark.rule("11.1")
def test_the_shipped_presets_are_stated_in_the_game_block() -> None:
    game = cortes_rules.load("cortes").program.game
    assert game is not None
    presets = {p.name: p for p in game.presets}
    assert set(presets) == {"beginner", "veteran"}
    assert presets["veteran"].all and not presets["veteran"].rules
    assert not presets["beginner"].all and not presets["beginner"].rules
    assert presets["beginner"].span.path.endswith("00-game.rules")


@pytest.mark.rule("11.1")
@pytest.mark.parametrize("options, message", [
    ("expert", "no preset 'expert'"),
    (["veteran", "expert"], "no preset 'expert'"),
    (["11.99"], "no optional rule numbered 11.99"),
    (["4.2"], "no optional rule numbered 4.2"),
])
def test_unknown_presets_and_rules_are_refused_clearly(options: str | list[str],
                                                       message: str) -> None:
    with pytest.raises(CortesRulesError, match=message) as caught:
        cortes_rules.load("cortes", options=options)
    assert "presets: beginner, veteran" in str(caught.value)
    assert "optional rules: 8.24, 8.25, 11.1," in str(caught.value)


@pytest.mark.rule("11.1")
def test_an_option_that_is_not_a_string_is_refused() -> None:
    with pytest.raises(CortesRulesError, match="rule number or a preset name"):
        cortes_rules.load("cortes", options=[11.4])  # type: ignore[list-item]


@pytest.mark.rule("3.1")
def test_a_preset_may_list_rule_numbers(tmp_path: Path) -> None:
    path = rulebook(tmp_path, '  preset first "Only the first option" options 3.1\n'
                              '  preset both "Both options" options 3.1, 3.2\n'
                              '  preset plain "No option" options none\n')
    assert switched_on(cortes_rules.load(path, options="first")) == {"3.1"}
    assert switched_on(cortes_rules.load(path, options="both")) == {"3.1", "3.2"}
    assert switched_on(cortes_rules.load(path, options=["plain", "3.2"])) == {"3.2"}
    with pytest.raises(CortesRulesError, match="presets: first, both, plain"):
        cortes_rules.load(path, options="veteran")


@pytest.mark.rule("3.1")
@pytest.mark.parametrize("presets, message, rule", [
    ('  preset odd "A rule that is not optional" options 2.2\n',
     "preset 'odd' names 2.2: not an optional rule", "2.2"),
    ('  preset odd "A rule that does not exist" options 9.9\n',
     "preset 'odd' names 9.9: no such rule", "9.9"),
    ('  preset twice "Once" options none\n  preset twice "Twice" options all\n',
     "preset 'twice' is named twice", "game minimal_race"),
    ('  preset all "Everything" options all\n',
     "a preset may not be called 'all'", "game minimal_race"),
])
def test_a_bad_preset_is_a_check_error_naming_its_line(tmp_path: Path, presets: str,
                                                       message: str, rule: str) -> None:
    path = rulebook(tmp_path, presets)
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(path)
    found = [d for d in caught.value.diagnostics if message in d.message]
    assert found, [d.message for d in caught.value.diagnostics]
    assert found[0].rule == rule
    lines = path.read_text(encoding="utf-8").splitlines()
    assert lines[found[0].span.line - 1].lstrip().startswith("preset ")


@pytest.mark.rule("3.1")
def test_a_preset_line_that_does_not_parse_is_a_syntax_error(tmp_path: Path) -> None:
    path = rulebook(tmp_path, '  preset odd "No options word" 3.1\n')
    with pytest.raises(cortes_rules.RulesSyntaxError) as caught:
        cortes_rules.load(path)
    assert caught.value.diagnostics[0].span.line == 8
