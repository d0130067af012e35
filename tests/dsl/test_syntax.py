"""Syntax errors: where they are reported, what the parser expected, which rule they are in.

A table of known-bad snippets, each with the place, message and rule it must
be reported with (in the manner of lark's ``match_examples``): snippets of
the core language, and snippets of the hex-wargame forms (read with the
forms of rulebook/lib/hex_wargame.rules, as the loader reads a rulebook that
uses it). Then regression tests for front-end bugs found and fixed.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dsl_helpers import PRELUDE, cli, library_forms, one_rule, syntax_error, write

from cortes_rules.dsl.diagnostics import enclosing_block, line_of
from cortes_rules.errors import RulesSyntaxError
from cortes_rules.loader import check_path, compile_rulebook

# (rule, statement on line 3, where the caret goes, message, one of the "expected" entries)
CORE_SNIPPETS = [
    pytest.param("13.1", 'terrain clear "Clear" natual', "natual",
                 "unexpected 'natual'", "'natural'", id="misspelt-terrain-kind"),
    pytest.param("8.18", "dice two_dice = two d6", "two d6",
                 "unexpected 'two'", "dice such as 2d6", id="dice-in-words"),
    pytest.param("7.3", "permit move despite rule 7.1 when unit.spent == 0", "rule 7.1",
                 "unexpected 'rule'", "a rule number such as 8.14 or III.4",
                 id="despite-rule-word"),
    pytest.param("8.11", "function concentric() = count(attack_directions) >> 3", "> 3",
                 "unexpected '>'", "a whole number", id="doubled-operator"),
    pytest.param("13.2", 'table crt "CRT" { columns 1:1 2:1 row 2 1/1 0/1 row 3 1/0 = 0/0 }',
                 "= 0/0", "unexpected '='", "a result such as 1/2", id="stray-token-in-row"),
    pytest.param("7.10", "forbid move to has quagmire", "to has",
                 "unexpected 'to'", "'when'", id="missing-when"),
    pytest.param("8.1", 'action attack(target hex) "Attack a hex"', "hex)",
                 "unexpected 'hex'", "':'", id="action-parameter-without-colon"),
    pytest.param("7.7", 'hook move_cost int "The cost of a hex"', "int",
                 "unexpected 'int'", "':'", id="hook-without-type-colon"),
    pytest.param("7.7", "contribute move_cost 1", "1",
                 "unexpected '1'", "'='", id="contribution-without-equals"),
    pytest.param("4.2", "procedure play(p) { choose p { option end { } } }", "p { option",
                 "unexpected 'p'", "'by'", id="choose-without-by"),
    pytest.param("4.2", "procedure play(p) { for u in pieces { } }", "u in",
                 "unexpected 'u'", "'each'", id="for-without-each"),
    pytest.param("8.18", "procedure play(p) { roll 2d6 }", "2d6",
                 "unexpected '2d6'", "a name", id="roll-without-a-name"),
]

# Snippets written with the hex_wargame library's forms. Where the parser wanted
# one of a form's words, its "expected" list is not yet readable (see the xfail
# test below), so only the place and the message are checked for those (None).
FORM_SNIPPETS = [
    pytest.param("8.14", "shift 3 lef when target has major_fortress", "lef",
                 "unexpected 'lef'", None, id="misspelt-direction"),
    pytest.param("8.9", "define melee attack = 1", "melee",
                 "unexpected 'melee'", None, id="unknown-define-context"),
    pytest.param("8.9", "odds when attack >= defense floor(attack / defense) to 1", "floor",
                 "unexpected 'floor'", "':'", id="odds-without-colon"),
    pytest.param("8.17", "clamp odds to crt during shifts", "during",
                 "unexpected 'during'", None, id="clamp-during"),
    pytest.param("6.7", "overstack removed by the opponent", "the",
                 "unexpected 'the'", None, id="role-with-article"),
    pytest.param("8.23", "advance into target at least one when count(survivors) > 0", "one",
                 "unexpected 'one'", "a number", id="number-in-words"),
]

# The error is only found on the next line, at the rule's closing brace.
UNCLOSED_SNIPPETS = [
    pytest.param("7.1", "forbid move when (cost > unit.move", "')'", id="unclosed-paren"),
    pytest.param("7.5", "forbid move when any(u in to.units where u.side != unit.side", "')'",
                 id="unclosed-call"),
    pytest.param("8.1", "forbid attack when target.units[0 > 1", "']'", id="unclosed-index"),
]

# Syntax errors in data blocks cite the block.
BLOCK_SNIPPETS = [
    pytest.param('map valley "V" {\n  grid columns odd high\n}\n', "map valley", "high",
                 "unexpected 'high'", "'low'", id="map-grid"),
    # A field's values are numbers or names; which fits is the checker's to say
    # (tests/dsl/test_printed_fields.py).
    pytest.param('counters mix "M" {\n  counter S1 "Cortes" cortes steps "two"\n}\n',
                 "counters mix", '"two"', "unexpected '\"two\"'", "a number",
                 id="counter-steps"),
    pytest.param('setup historical "H" {\n  place S1 at 291\n}\n', "setup historical", "291",
                 "unexpected '291'", "a four-digit hex id", id="setup-short-hex"),
]


def _marked(params: list[object]) -> list[object]:
    return [pytest.param(*p.values, marks=pytest.mark.rule(p.values[0]), id=p.id)
            for p in params]


def _check_snippet(rule: str, statement: str, at: str, message: str, expected: str | None,
                   forms: tuple[object, ...]) -> None:
    diagnostic = syntax_error(one_rule(rule, statement), forms=forms)
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index(at))
    assert diagnostic.message == message
    assert diagnostic.rule == rule
    if expected is not None:
        assert expected in diagnostic.expected
    assert diagnostic.source_line == "  " + statement
    assert diagnostic.span.path == "snippet.rules"


@pytest.mark.parametrize("rule, statement, at, message, expected", _marked(CORE_SNIPPETS))
def test_core_syntax_snippet(rule: str, statement: str, at: str, message: str,
                             expected: str) -> None:
    _check_snippet(rule, statement, at, message, expected, ())


@pytest.mark.parametrize("rule, statement, at, message, expected", _marked(FORM_SNIPPETS))
def test_form_syntax_snippet(rule: str, statement: str, at: str, message: str,
                             expected: str | None) -> None:
    _check_snippet(rule, statement, at, message, expected, library_forms())


@pytest.mark.rule("8.14")
def test_a_form_is_no_statement_without_its_library() -> None:
    diagnostic = syntax_error(one_rule("8.14", "shift 3 left when target has fortress"))
    assert diagnostic.message == "unexpected 'shift'"
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3)
    assert "'forbid'" in diagnostic.expected and "'procedure'" in diagnostic.expected


@pytest.mark.parametrize("rule, statement, expected", _marked(UNCLOSED_SNIPPETS))
def test_unclosed_snippet(rule: str, statement: str, expected: str) -> None:
    diagnostic = syntax_error(one_rule(rule, statement))
    assert (diagnostic.span.line, diagnostic.span.column) == (4, 1)
    assert diagnostic.message == "unexpected '}'"
    assert diagnostic.rule == rule
    assert expected in diagnostic.expected


@pytest.mark.parametrize("text, block, at, message, expected", [
    pytest.param(*p.values, marks=pytest.mark.rule(p.values[1]), id=p.id)
    for p in BLOCK_SNIPPETS])
def test_block_syntax_snippet(text: str, block: str, at: str, message: str,
                              expected: str) -> None:
    diagnostic = syntax_error(text)
    line = text.splitlines()[1]
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 1 + line.index(at))
    assert diagnostic.message == message
    assert diagnostic.rule == block
    assert expected in diagnostic.expected


@pytest.mark.rule("8.14")
def test_unquoted_title() -> None:
    diagnostic = syntax_error('rule 8.14 Major fortress {\n  summary "S."\n}\n')
    assert (diagnostic.span.line, diagnostic.span.column) == (1, 11)
    assert diagnostic.message == "unexpected 'Major'"
    assert diagnostic.rule == "8.14"
    assert diagnostic.expected == ("a quoted string",)


@pytest.mark.rule("4.2")
def test_empty_sequence() -> None:
    text = 'rule 4.2 "Sequence of play" {\n  summary "S."\n  sequence game_turn {\n  }\n}\n'
    diagnostic = syntax_error(text)
    assert (diagnostic.span.line, diagnostic.span.column) == (4, 3)
    assert diagnostic.expected == ("'phase'",)


@pytest.mark.rule("8.15")
def test_unterminated_string_points_at_its_quote() -> None:
    statement = 'summary "Defenders in a fortress shift the odds two columns left.'
    text = f'rule 8.15 "Fortresses and temples" {{\n  {statement}\n}}\n'
    diagnostic = syntax_error(text)
    assert (diagnostic.span.line, diagnostic.span.column) == (2, 11)
    assert diagnostic.message == "unexpected character '\"'"
    assert diagnostic.expected == ("a quoted string",)


@pytest.mark.rule("2.5")
def test_missing_final_brace_is_end_of_file() -> None:
    text = 'rule 2.5 "Nationality" {\n  summary "S."\n  side aztec "Aztec"\n'
    diagnostic = syntax_error(text)
    assert diagnostic.message == "unexpected end of file"
    assert diagnostic.rule == "2.5"
    assert diagnostic.span.line == 3
    assert "'}'" in diagnostic.expected and "'side'" in diagnostic.expected


@pytest.mark.rule("4.2")
def test_set_of_an_expression_is_a_syntax_error() -> None:
    statement = "procedure play(p) { set p.score + 1 = 2 }"
    diagnostic = syntax_error(one_rule("4.2", statement))
    assert "'set' needs a variable or 'thing.attribute' on its left" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index("p.score"))
    assert diagnostic.rule == "4.2"


# ------------------------------------------------------------------ several files


@pytest.mark.rule("8.14")
@pytest.mark.rule("8.15")
def test_syntax_errors_of_every_file_are_reported_together(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    write(folder, "01-a.rules", one_rule("8.14", "shift 3 lef when target has fortress"))
    write(folder, "02-b.rules", one_rule("8.15", "shift 2 rigth when target has fortress"))
    write(folder, "03-c.rules", PRELUDE)
    diagnostics = check_path(folder)
    assert [(Path(d.span.path).name, d.rule, d.message) for d in diagnostics] == [
        ("01-a.rules", "8.14", "unexpected 'lef'"),
        ("02-b.rules", "8.15", "unexpected 'rigth'")]
    with pytest.raises(RulesSyntaxError):
        compile_rulebook(folder)


@pytest.mark.rule("8.14")
def test_enclosing_block_and_line_of() -> None:
    text = "# c\nrule 8.14 \"M\" {\n  x\n}\nmap valley \"V\" {\n  y\n}\n"
    assert enclosing_block(text, 1) is None
    assert enclosing_block(text, 3) == "8.14"
    assert enclosing_block(text, 6) == "map valley"
    assert line_of(text, 3) == "  x"
    assert line_of(text, 99) == "" and line_of(text, 0) == ""


# ------------------------------------------------------------------ fixed front-end bugs


@pytest.mark.rule("8.9")
def test_bad_comprehension_binding_is_a_syntax_error() -> None:
    # Raised inside lark's Transformer, this used to escape as lark's VisitError.
    statement = "function attack() = sum(u.combat where u.steps > 1)"
    diagnostic = syntax_error(one_rule("8.9", statement))
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index("u.combat"))
    assert "expected 'NAME in COLLECTION'" in diagnostic.message
    assert diagnostic.rule == "8.9"
    assert diagnostic.source_line == "  " + statement


@pytest.mark.rule("8.9")
def test_cli_reports_a_bad_binding_without_traceback(tmp_path: Path) -> None:
    statement = "function attack() = count(u.steps where u.steps > 1)"
    path = write(tmp_path, "binding.rules", one_rule("8.9", statement))
    result = cli("check", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    column = 3 + statement.index("u.steps")
    assert f"{path}:3:{column}: error: expected 'NAME in COLLECTION'" in result.stderr
    assert "[rule 8.9]" in result.stderr


@pytest.mark.rule("8.18")
@pytest.mark.parametrize("text, wanted", [
    # The keyword 'dice' collides with the terminal DICE; lark names it __ANON_0.
    ('rule 8.18 "Resolving combat" {\n  summary "S."\n', "'dice'"),
    # '-' is lark's MINUS; '..' is another anonymous terminal.
    (one_rule("8.11", "function concentric() = count(a) >> 3"), "'-'"),
    ('map valley "V" {\n  hexes 0101 0303: clear\n}\n', "'..'"),
])
def test_expected_lists_only_readable_names(text: str, wanted: str) -> None:
    diagnostic = syntax_error(text)
    assert wanted in diagnostic.expected
    assert not any("anon" in e or e == "'minus'" for e in diagnostic.expected), \
        diagnostic.expected


@pytest.mark.rule("8.9")
@pytest.mark.parametrize("rule, statement, word", [
    # 'combatant' used to read as the word 'combat' then the name 'ant', silently.
    ("8.9", "define combatant = 3", "combatant"),
    ("8.18", "resolve on crt with two_dice rolled by attackers", "attackers"),
    ("8.17", "clamp odds to crt afterwards shifts", "afterwards"),
    ("8.14", "shift 3 leftward when target has major_fortress", "leftward"),
])
def test_form_words_end_at_a_word_boundary(rule: str, statement: str, word: str) -> None:
    diagnostic = syntax_error(one_rule(rule, statement), forms=library_forms())
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index(word))
    assert diagnostic.message == f"unexpected {word!r}"


@pytest.mark.rule("7.1")
def test_keyword_string_ends_at_a_word_boundary() -> None:
    statement = "forbid move whenever unit.spent > 0"
    diagnostic = syntax_error(one_rule("7.1", statement))
    assert diagnostic.span.column == 3 + statement.index("whenever")
    assert diagnostic.message.startswith("unexpected 'whenever'")


@pytest.mark.rule("8.9")
@pytest.mark.parametrize("expression", [
    "attack modifier",    # read as: attack mod ifier
    "attack order",       # read as: attack or der
    "unit isolated",      # read as: unit is olated
    "target hasty",       # read as: target has ty
])
def test_operator_keywords_end_at_a_word_boundary(expression: str) -> None:
    syntax_error(one_rule("8.9", f"function x() = {expression}"))


# ------------------------------------------------------------------ fixed bugs


@pytest.mark.rule("8.14")
def test_expected_lists_a_forms_words() -> None:
    diagnostic = syntax_error(one_rule("8.14", "shift 3 lef when target has fortress"),
                              forms=library_forms())
    assert "'left'" in diagnostic.expected and "'right'" in diagnostic.expected
