"""Focused tests of the rules-language front end: parse, check, diagnostics, render.

- a table of known-bad snippets, each with the place, message and rule it
  must be reported with (in the manner of lark's ``match_examples``);
- the exact rendered caret format;
- that every problem in a file is reported at once;
- that :func:`cortes_rules.dsl.render.expr` round-trips through the parser.

Near the end, regression tests for front-end bugs found (and since fixed)
while writing these tests, then ``xfail(strict=True)`` tests that pin the
bugs still open: each one fails (XPASS) once its bug is fixed, and should
then lose its marker.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortes_rules.dsl import ir, render
from cortes_rules.dsl.diagnostics import Diagnostic, Span, enclosing_block, line_of
from cortes_rules.dsl.parse import parse_text
from cortes_rules.errors import RulesCheckError, RulesSyntaxError
from cortes_rules.loader import check_path, compile_rulebook

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "rulebook" / "cortes"

# A small vocabulary for the semantic snippets: two sides, three classes,
# four terrain types, a hexside feature, the terrain effects chart.
PRELUDE = '''\
rule 2.5 "Nationality" {
  summary "Two sides: the Spanish player and the Aztec player."
  side spanish "Spanish"
  side aztec "Aztec"
}

rule 2.8 "Unit types" {
  summary "The counter's picture gives its type."
  class infantry "Spanish infantry" side spanish traits european
  class cavalry "Spanish cavalry" side spanish traits european
  class knight "Aztec knight" side aztec
}

rule 13.1 "Terrain effects chart" {
  summary "Movement cost and combat effect of each terrain type."
  terrain clear "Clear" natural
  terrain quagmire "Quagmire" natural
  terrain fortress "Fortress" artificial
  terrain chinampa_city "Chinampa city" artificial
  hexside causeway "Causeway crossing the hexside"
  table terrain_effects "Terrain effects chart" {
    columns             move         combat
    row clear           1            0
    row quagmire        prohibited   prohibited
    row fortress        2            -2
    row chinampa_city   2            -1
  }
}
'''


def one_rule(number: str, statement: str, title: str = "Snippet") -> str:
    """A rule clause whose third line is ``statement``."""
    return f'rule {number} "{title}" {{\n  summary "A snippet."\n  {statement}\n}}\n'


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def strip_spans(node: Any) -> Any:
    """An IR node as nested tuples, without its spans: IR equality modulo positions."""
    if attrs.has(type(node)):
        return (type(node).__name__, *(
            (field.name, strip_spans(getattr(node, field.name)))
            for field in attrs.fields(type(node)) if field.name not in ("span", "name_span")))
    if isinstance(node, tuple):
        return tuple(strip_spans(item) for item in node)
    return node


# ------------------------------------------------------------------ known-bad snippets: syntax

# (rule, statement on line 3, where the caret goes, message, one of the "expected" entries)
SYNTAX_SNIPPETS = [
    pytest.param("8.14", "shift 3 lef when target has major_fortress", "lef",
                 "unexpected 'lef'", "'left'", id="misspelt-direction"),
    pytest.param("13.1", 'terrain clear "Clear" natual', "natual",
                 "unexpected 'natual'", "'natural'", id="misspelt-terrain-kind"),
    pytest.param("8.9", "define melee attack = 1", "melee",
                 "unexpected 'melee'", "'combat'", id="unknown-define-context"),
    pytest.param("8.9", "odds when attack >= defense floor(attack / defense) to 1", "floor",
                 "unexpected 'floor'", "':'", id="odds-without-colon"),
    pytest.param("8.17", "clamp odds to crt during shifts", "during",
                 "unexpected 'during'", "'after'", id="clamp-during"),
    pytest.param("8.18", "dice two_dice = two d6", "two d6",
                 "unexpected 'two'", "dice such as 2d6", id="dice-in-words"),
    pytest.param("6.7", "overstack removed by the opponent", "the",
                 "unexpected 'the'", "'opponent'", id="role-with-article"),
    pytest.param("7.3", "permit move despite rule 7.1 when unit.spent == 0", "rule 7.1",
                 "unexpected 'rule'", "a rule number such as 8.14", id="despite-rule-word"),
    pytest.param("8.23", "advance into target at least one when count(survivors) > 0", "one",
                 "unexpected 'one'", "a whole number", id="number-in-words"),
    pytest.param("8.11", "define combat concentric = count(attack_directions) >> 3", "> 3",
                 "unexpected '>'", "a whole number", id="doubled-operator"),
    pytest.param("13.2", 'table crt "CRT" { columns 1:1 2:1 row 2 1/1 0/1 row 3 1/0 = 0/0 }',
                 "= 0/0", "unexpected '='", "a result such as 1/2", id="stray-token-in-row"),
    pytest.param("7.10", "forbid move to has quagmire", "to has",
                 "unexpected 'to'", "'when'", id="missing-when"),
]

# The error is only found on the next line, at the rule's closing brace.
UNCLOSED_SNIPPETS = [
    pytest.param("8.19", "results read attacker / defender in steps allocated by owner defender",
                 "'first'", id="results-without-first"),
    pytest.param("7.1", "forbid move when (cost > unit.move", "')'", id="unclosed-paren"),
    pytest.param("7.5", "forbid move when any(u in to.units where u.side != unit.side", "')'",
                 id="unclosed-call"),
    pytest.param("8.1", "forbid attack when target.units[0 > 1", "']'", id="unclosed-index"),
]

# Syntax errors in data blocks cite the block.
BLOCK_SNIPPETS = [
    pytest.param('map valley "V" {\n  grid columns odd high\n}\n', "map valley", "high",
                 "unexpected 'high'", "'low'", id="map-grid"),
    pytest.param('counters mix "M" {\n  counter S1 "Cortes" cortes steps two\n}\n',
                 "counters mix", "two", "unexpected 'two'", "a whole number", id="counter-steps"),
    pytest.param('setup historical "H" {\n  place S1 at 291\n}\n', "setup historical", "291",
                 "unexpected '291'", "a four-digit hex id", id="setup-short-hex"),
]


def syntax_error(text: str, path: str = "snippet.rules") -> Diagnostic:
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(text, path)
    assert len(caught.value.diagnostics) == 1
    return caught.value.diagnostics[0]


@pytest.mark.parametrize("rule, statement, at, message, expected", [
    pytest.param(*p.values, marks=pytest.mark.rule(p.values[0]), id=p.id)
    for p in SYNTAX_SNIPPETS])
def test_syntax_snippet(rule: str, statement: str, at: str, message: str,
                        expected: str) -> None:
    text = one_rule(rule, statement)
    diagnostic = syntax_error(text)
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index(at))
    assert diagnostic.message == message
    assert diagnostic.rule == rule
    assert expected in diagnostic.expected
    assert diagnostic.source_line == "  " + statement
    assert diagnostic.span.path == "snippet.rules"


@pytest.mark.parametrize("rule, statement, expected", [
    pytest.param(*p.values, marks=pytest.mark.rule(p.values[0]), id=p.id)
    for p in UNCLOSED_SNIPPETS])
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


# ------------------------------------------------------------------ known-bad snippets: checker

# (rule, statement, where the caret goes, message substring)
CHECK_SNIPPETS = [
    pytest.param("7.13", "forbid move when unit is knight and unit is cavalry", "unit is knight",
                 "this condition is always false", id="classes-of-two-sides"),
    pytest.param("7.13", "forbid move when unit is spanish and unit is knight", "unit is spanish",
                 "this condition is always false", id="side-and-class-disagree"),
    pytest.param("7.10", "forbid move when to has forest", "forest",
                 "unknown terrain 'forest'", id="unknown-terrain"),
    pytest.param("7.16", "forbid move when crossing has fortress", "fortress",
                 "unknown hexside 'fortress'", id="terrain-is-no-hexside"),
    pytest.param("7.1", "forbid move when unit.hex.height > 1", "unit.hex",
                 "unknown hex attribute 'height'", id="unknown-hex-attribute"),
    pytest.param("7.7", "cost move = unit.steps > 1", "unit.steps",
                 "a cost must be int or num, not bool", id="cost-is-a-condition"),
    pytest.param("6.4", "stacking for aztec requires count(units)", "count",
                 "a stacking limit must be bool, not int", id="stacking-limit-is-a-number"),
    pytest.param("8.9", "define combat attack = count(target)", "count",
                 "count(...) takes one set", id="count-of-a-hex"),
    pytest.param("8.9", "define combat attack = floor(target)", "target",
                 "floor needs any or int or num, not hex", id="floor-of-a-hex"),
    pytest.param("8.4", "define combat near = adjacent(target)", "adjacent",
                 "adjacent takes 2 argument(s), not 1", id="adjacent-arity"),
    pytest.param("8.11", "define combat directions = {1, aztec}", "{1",
                 "a set mixes int and name:side", id="mixed-set"),
    pytest.param("8.9", "define combat attack = -aztec", "-aztec",
                 "cannot negate name:side", id="negated-side"),
    pytest.param("8.9", "define combat attack = attack + 1", "define",
                 "'attack' is defined in terms of itself", id="self-definition"),
    pytest.param("8.9", "define combat attack = sum(u in attackers where u.steps > 1)", "sum",
                 "sum(...) takes 'E for x in S'", id="sum-without-element"),
    pytest.param("8.9", "define combat attack = target.units.steps", "target",
                 "set:unit has no attribute 'steps'", id="attribute-of-a-set"),
    pytest.param("8.9", "define combat attack = target[1]", "target",
                 "cannot index hex with [...]", id="index-a-hex"),
    pytest.param("8.9", "define combat attack = count(u in target where u.steps > 1)",
                 "target where", "cannot iterate over hex", id="iterate-over-a-hex"),
    pytest.param("8.9", "define combat attack = count(u in attackers where u.steps)",
                 "u.steps)", "'where' needs a condition, not int", id="where-is-a-number"),
    pytest.param("7.5", "forbid move when unit in {1, 2}", "unit in",
                 "cannot look for unit in a set of int", id="unit-in-set-of-ints"),
    pytest.param("8.13", "define combat aztecs = all(defenders)", "all",
                 "all(...) takes 'x in S where C'", id="all-without-condition"),
    pytest.param("8.1", "forbid attack when unit.side != side", "unit",
                 "unknown name in a attack clause 'unit'", id="no-unit-when-attacking"),
    pytest.param("7.7", "cost move = terrain_effects[forest].move", "forest",
                 "unknown row of table terrain_effects 'forest'", id="unknown-table-row"),
    pytest.param("8.12", "shift 1 left when 2 == 3", "2 == 3",
                 "this condition is always false", id="false-comparison"),
    pytest.param("8.12", "shift 0 right when target has fortress", "shift",
                 "a shift of zero columns", id="zero-shift"),
    pytest.param("6.2", "stacking for tlaxcala requires count(units) <= 5", "stacking",
                 "unknown side 'tlaxcala'", id="unknown-stacking-side"),
    # Action kinds are names since the core declares its own; an unknown one is a
    # checker error that suggests the closest kind.
    pytest.param("7.1", "forbid movement when unit.spent > 0", "forbid",
                 "unknown action 'movement'; did you mean 'move'", id="unknown-action-kind"),
]


@pytest.mark.parametrize("rule, statement, at, message", [
    pytest.param(*p.values, marks=pytest.mark.rule(p.values[0]), id=p.id)
    for p in CHECK_SNIPPETS])
def test_check_snippet(tmp_path: Path, rule: str, statement: str, at: str,
                       message: str) -> None:
    extra = "  define combat defenders = target.units\n" if rule == "8.13" else ""
    text = PRELUDE + "\n" + one_rule(rule, statement).replace("  summary", extra + "  summary")
    path = write(tmp_path, "snippet.rules", text)
    diagnostics = check_path(path)
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    diagnostic = diagnostics[0]
    line = text.splitlines().index("  " + statement) + 1
    assert (diagnostic.span.line, diagnostic.span.column) == (line, 3 + statement.index(at))
    assert message in diagnostic.message
    assert diagnostic.rule == rule
    assert diagnostic.source_line == "  " + statement


@pytest.mark.rule("2.5")
def test_prelude_is_clean(tmp_path: Path) -> None:
    assert check_path(write(tmp_path, "prelude.rules", PRELUDE)) == []


@pytest.mark.rule("7.10")
def test_unknown_name_suggests_a_close_one(tmp_path: Path) -> None:
    path = write(tmp_path, "s.rules", PRELUDE + one_rule("7.10", "forbid move when to has quagmir"))
    [diagnostic] = check_path(path)
    assert diagnostic.message == "unknown terrain 'quagmir'; did you mean 'quagmire'?"
    assert diagnostic.expected == ()


# ------------------------------------------------------------------ the caret format


@pytest.mark.rule("8.14")
def test_render_exact_format() -> None:
    diagnostic = Diagnostic(Span("cortes/08-combat.rules", 3, 11, 14), "unexpected 'lef'",
                            rule="8.14", expected=("left or right",),
                            source_line="  shift 3 lef when target has major_fortress")
    assert diagnostic.render() == (
        "cortes/08-combat.rules:3:11: error: unexpected 'lef' [rule 8.14]\n"
        "      shift 3 lef when target has major_fortress\n"
        "              ^^^\n"
        "  expected: left or right")


@pytest.mark.rule("8.14")
def test_render_without_rule_source_or_end() -> None:
    bare = Diagnostic(Span("x.rules", 2, 5), "something is wrong")
    assert bare.render() == "x.rules:2:5: error: something is wrong"
    one = Diagnostic(Span("x.rules", 2, 5), "m", rule="8.14", source_line="abcdefgh",
                     severity="warning")
    assert one.render() == "x.rules:2:5: warning: m [rule 8.14]\n    abcdefgh\n        ^"
    # An end before the start (a span over several lines) still gets one caret.
    back = Diagnostic(Span("x.rules", 2, 5, 3), "m", source_line="abcdefgh")
    assert back.render().splitlines()[-1] == "        ^"


@pytest.mark.rule("7.10")
def test_render_of_a_real_diagnostic(tmp_path: Path) -> None:
    path = write(tmp_path, "q.rules", PRELUDE + one_rule("7.10", "forbid move when to has swamp"))
    [diagnostic] = check_path(path)
    line = PRELUDE.count("\n") + 3
    assert diagnostic.render() == (
        f"{diagnostic.span.path}:{line}:27: error: unknown terrain 'swamp' [rule 7.10]\n"
        "      forbid move when to has swamp\n"
        "                              ^^^^^\n"
        "  expected: chinampa_city, clear, fortress, quagmire")


@pytest.mark.rule("7.10")
def test_caret_under_the_name_after_a_tab(tmp_path: Path) -> None:
    text = PRELUDE + ('\nrule 7.10 "Quagmire" {\n  summary "S."\n'
                      '\tforbid move when to has swamp\n}\n')
    [diagnostic] = check_path(write(tmp_path, "tab.rules", text))
    lines = diagnostic.render().splitlines()
    source, caret = lines[1], lines[2]
    start = caret.index("^")
    assert source[start:start + caret.count("^")] == "swamp"


@pytest.mark.rule("8.14")
def test_cli_prints_the_same_rendering(tmp_path: Path) -> None:
    path = write(tmp_path, "cli.rules", PRELUDE + one_rule("8.14", "shift 0 left when 1 > 2"))
    diagnostics = check_path(path)
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "cortes_rules", "check", str(path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    expected = "\n".join(d.render() for d in diagnostics) + f"\n{path}: 2 errors\n"
    assert result.stderr == expected
    assert result.stdout == ""


# ------------------------------------------------------------------ every problem at once


THREE_ERRORS = PRELUDE + '''
rule 7.10 "Quagmire" {
  summary "The quagmire hex can never be entered."
  forbid move when to has swamp
}

rule 8.12 "Dry-land city" {
  summary "Defenders in a dry-land city shift the odds one column left."
  shift 0 left when target has fortress
}

rule 8.21 "Allocating step losses" {
  summary "No unit is eliminated while another still has more than one step."
  forbid lose when unit == 1
}
'''


@pytest.mark.rule("7.10")
@pytest.mark.rule("8.12")
@pytest.mark.rule("8.21")
def test_three_errors_are_reported_together(tmp_path: Path) -> None:
    path = write(tmp_path, "three.rules", THREE_ERRORS)
    diagnostics = check_path(path)
    assert [d.rule for d in diagnostics] == ["7.10", "8.12", "8.21"]
    assert [d.span.line for d in diagnostics] == sorted(d.span.line for d in diagnostics)
    assert "unknown terrain 'swamp'" in diagnostics[0].message
    assert "a shift of zero columns" in diagnostics[1].message
    assert "cannot compare unit with int" in diagnostics[2].message
    with pytest.raises(RulesCheckError) as caught:
        compile_rulebook(path)
    assert caught.value.diagnostics == tuple(diagnostics)
    text = str(caught.value)
    assert all(d.render() in text for d in diagnostics)


@pytest.mark.rule("8.14")
@pytest.mark.rule("8.15")
def test_syntax_errors_of_every_file_are_reported_together(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    write(folder, "01-a.rules", one_rule("8.14", "shift 3 lef when x"))
    write(folder, "02-b.rules", one_rule("8.15", "shift 2 rigth when x"))
    write(folder, "03-c.rules", PRELUDE)
    diagnostics = check_path(folder)
    assert [(Path(d.span.path).name, d.rule, d.message) for d in diagnostics] == [
        ("01-a.rules", "8.14", "unexpected 'lef'"),
        ("02-b.rules", "8.15", "unexpected 'rigth'")]
    with pytest.raises(RulesSyntaxError):
        compile_rulebook(folder)


@pytest.mark.rule("2.5")
@pytest.mark.rule("13.1")
def test_errors_across_files_sorted_by_file(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    vocabulary = PRELUDE.replace('  terrain clear "Clear" natural\n',
                                 '  terrain clear "Clear" natural\n'
                                 '  terrain clear "Clear again" natural\n')
    assert vocabulary != PRELUDE
    write(folder, "01-vocabulary.rules", vocabulary)
    write(folder, "02-movement.rules", one_rule("7.10", "forbid move when to has swamp"))
    diagnostics = check_path(folder)
    assert [(Path(d.span.path).name, d.rule) for d in diagnostics] == [
        ("01-vocabulary.rules", "13.1"), ("02-movement.rules", "7.10")]
    assert "declared twice" in diagnostics[0].message


@pytest.mark.rule("8.14")
def test_enclosing_block_and_line_of() -> None:
    text = "# c\nrule 8.14 \"M\" {\n  x\n}\nmap valley \"V\" {\n  y\n}\n"
    assert enclosing_block(text, 1) is None
    assert enclosing_block(text, 3) == "8.14"
    assert enclosing_block(text, 6) == "map valley"
    assert line_of(text, 3) == "  x"
    assert line_of(text, 99) == "" and line_of(text, 0) == ""


# ------------------------------------------------------------------ IR from the parser


@pytest.mark.rule("8.14")
def test_statements_carry_their_rule_and_span() -> None:
    text = PRELUDE + "\n" + one_rule("8.14", "shift 3 left when target has fortress",
                                     "Major fortress")
    module = parse_text(text, "m.rules")
    rule = module.items[-1]
    assert isinstance(rule, ir.Rule)
    assert (rule.number, rule.title, rule.summary, rule.optional) == (
        "8.14", "Major fortress", "A snippet.", False)
    [shift] = rule.statements
    assert isinstance(shift, ir.Shift)
    assert shift.columns == -3 and shift.rule == "8.14"
    line = PRELUDE.count("\n") + 4
    assert (shift.span.path, shift.span.line, shift.span.column) == ("m.rules", line, 3)
    assert isinstance(shift.when, ir.Is)
    assert (shift.when.name_span.column, shift.when.name_span.end_column) == (32, 40)
    assert all(s.rule == "13.1" for s in module.items[2].statements)


# ------------------------------------------------------------------ render round trip


def reparse_expr(text: str) -> ir.Expr:
    module = parse_text(one_rule("8.9", f"define combat x = {text}"), "roundtrip.rules")
    [define] = module.items[0].statements
    assert isinstance(define, ir.Define)
    return define.expr


def expressions(node: Any) -> list[ir.Expr]:
    """The top-level expressions of a statement."""
    found = []
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, ir.Expr.__args__):  # type: ignore[attr-defined]
            found.append(value)
    return found


def shipped_modules() -> list[ir.Module]:
    return [parse_text(path.read_text(encoding="utf-8"), path.name)
            for path in sorted(SHIPPED.glob("*.rules"))]


@pytest.mark.rule("8.11")
def test_shipped_expressions_round_trip() -> None:
    count = 0
    for module in shipped_modules():
        for item in module.items:
            if not isinstance(item, ir.Rule):
                continue
            for statement in item.statements:
                for expression in expressions(statement):
                    text = render.expr(expression)
                    again = reparse_expr(text)
                    assert strip_spans(again) == strip_spans(expression), text
                    assert render.expr(again) == text
                    count += 1
    assert count >= 30


@pytest.mark.rule("8.9")
def test_shipped_rules_round_trip_through_render_statement() -> None:
    """Re-rendering every statement of every rule gives the same IR modulo spans."""
    for module in shipped_modules():
        lines = []
        kept: list[ir.Rule] = []
        for item in module.items:
            if not isinstance(item, ir.Rule):
                continue
            kept.append(item)
            optional = " optional" if item.optional else ""
            lines.append(f'rule {item.number} "{item.title}"{optional} {{')
            lines.append(f'  summary "{item.summary}"')
            for statement in item.statements:
                if not isinstance(statement, (ir.TableDecl, ir.Sequence)):
                    lines.append("  " + render.statement(statement))
            lines.append("}")
        again = parse_text("\n".join(lines) + "\n", module.path)
        assert len(again.items) == len(kept)
        for old, new in zip(kept, again.items, strict=True):
            assert isinstance(new, ir.Rule)
            expected = [s for s in old.statements
                        if not isinstance(s, (ir.TableDecl, ir.Sequence))]
            assert strip_spans(new.statements) == strip_spans(tuple(expected)), old.number


_S = Span("<generated>", 1, 1)
_NAMES = st.sampled_from(["unit", "target", "attackers", "aztec", "knight", "steps", "u", "t",
                          "defense"])
_FUNCS = st.sampled_from(["count", "sum", "max", "floor", "adjacent", "any"])
_LEAVES = st.one_of(
    st.integers(0, 120).map(lambda v: ir.IntLit(v, _S)),
    st.booleans().map(lambda v: ir.BoolLit(v, _S)),
    _NAMES.map(lambda n: ir.Name(n, _S)),
)


def _extend(inner: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    pair = st.tuples(inner, inner)
    return st.one_of(
        st.tuples(st.sampled_from(["+", "-", "*", "/", "mod"]), pair).map(
            lambda t: ir.Arith(t[0], t[1][0], t[1][1], _S)),
        st.tuples(st.sampled_from(["==", "!=", "<", "<=", ">", ">="]), pair).map(
            lambda t: ir.Compare(t[0], t[1][0], t[1][1], _S)),
        st.tuples(st.sampled_from(["and", "or"]), pair).map(
            lambda t: ir.BoolOp(t[0], t[1][0], t[1][1], _S)),
        # st.tuples keeps hypothesis from spreading one_of's branches through the map,
        # which would make the unary operators far likelier than the others.
        st.tuples(inner).map(lambda t: ir.Not(t[0], _S)),
        st.tuples(inner).map(lambda t: ir.Neg(t[0], _S)),
        st.tuples(inner, _NAMES).map(lambda t: ir.Attr(t[0], t[1], _S)),
        pair.map(lambda t: ir.Index(t[0], t[1], _S)),
        st.tuples(pair, st.booleans()).map(lambda t: ir.Member(t[0][0], t[0][1], t[1], _S)),
        st.tuples(inner, st.sampled_from(["is", "has"]), _NAMES).map(
            lambda t: ir.Is(t[0], t[1], t[2], _S, _S)),
        st.lists(inner, max_size=3).map(lambda xs: ir.SetLit(tuple(xs), _S)),
        st.tuples(_FUNCS, st.lists(inner, min_size=1, max_size=3)).map(
            lambda t: ir.Call(t[0], tuple(t[1]), None, None, None, None, _S)),
        # f(x in S where C, ...)
        st.tuples(_FUNCS, _NAMES, pair, st.lists(inner, max_size=1)).map(
            lambda t: ir.Call(t[0], tuple(t[3]), t[1], t[2][0], None, t[2][1], _S)),
        # f(E for x in S [where C], ...)
        st.tuples(_FUNCS, _NAMES, pair, st.one_of(st.none(), inner),
                  st.lists(inner, max_size=1)).map(
            lambda t: ir.Call(t[0], tuple(t[4]), t[1], t[2][0], t[2][1], t[3], _S)),
    )


def _expressions(depth: int) -> st.SearchStrategy[Any]:
    """Expressions at most ``depth`` operators deep, every operator equally likely at each level."""
    if depth == 0:
        return _LEAVES
    inner = _expressions(depth - 1)
    return st.one_of(_extend(inner), _LEAVES)


EXPRESSIONS = _expressions(4)


@pytest.mark.rule("8.9")
@settings(max_examples=400, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(EXPRESSIONS)
def test_render_expr_round_trips(expression: ir.Expr) -> None:
    text = render.expr(expression)
    parsed = reparse_expr(text)
    # The parser reads back the tree that was rendered...
    assert strip_spans(parsed) == strip_spans(expression), text
    # ...so rendering is a fixed point of render-then-parse.
    assert render.expr(parsed) == text
    assert render.expr(reparse_expr(render.expr(parsed))) == text


@pytest.mark.rule("8.9")
@pytest.mark.parametrize("text, canonical", [
    ("(attack)/(defense)", "attack / defense"),
    ("a - (b - c)", "a - (b - c)"),
    ("(a - b) - c", "a - b - c"),
    ("not (a and b)", "not (a and b)"),
    ("(not a) and b", "not a and b"),
    ("-(u.combat)", "-u.combat"),
    ("(-u).combat", "(-u).combat"),
    ("count( u in units where (u is knight) )", "count(u in units where u is knight)"),
    ("sum(u.combat for u in attackers where u.steps>1)",
     "sum(u.combat for u in attackers where u.steps > 1)"),
    ("(a < b) == c", "(a < b) == c"),
    ("{ }", "{}"),
    ("a mod (b * c)", "a mod (b * c)"),
])
def test_render_expr_canonical_text(text: str, canonical: str) -> None:
    assert render.expr(reparse_expr(text)) == canonical
    assert strip_spans(reparse_expr(canonical)) == strip_spans(reparse_expr(text))


# ------------------------------------------------------------------ fixed front-end bugs


@pytest.mark.rule("8.9")
def test_bad_comprehension_binding_is_a_syntax_error() -> None:
    # Raised inside lark's Transformer, this used to escape as lark's VisitError.
    statement = "define combat attack = sum(u.combat where u.steps > 1)"
    diagnostic = syntax_error(one_rule("8.9", statement))
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index("u.combat"))
    assert "expected 'NAME in COLLECTION'" in diagnostic.message
    assert diagnostic.rule == "8.9"
    assert diagnostic.source_line == "  " + statement


@pytest.mark.rule("8.9")
def test_cli_reports_a_bad_binding_without_traceback(tmp_path: Path) -> None:
    path = write(tmp_path, "binding.rules",
                 one_rule("8.9", "define combat attack = count(u.steps where u.steps > 1)"))
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    result = subprocess.run([sys.executable, "-m", "cortes_rules", "check", str(path)],
                            cwd=ROOT, env=env, capture_output=True, text=True, timeout=120)
    assert result.returncode == 1
    assert "Traceback" not in result.stderr
    assert f"{path}:3:32: error: expected 'NAME in COLLECTION'" in result.stderr
    assert "[rule 8.9]" in result.stderr


@pytest.mark.rule("8.18")
@pytest.mark.parametrize("text, wanted", [
    # The keyword 'dice' collides with the terminal DICE; lark names it __ANON_0.
    ('rule 8.18 "Resolving combat" {\n  summary "S."\n', "'dice'"),
    # '-' is lark's MINUS; '..' is another anonymous terminal.
    (one_rule("8.11", "define combat concentric = count(a) >> 3"), "'-'"),
    ('map valley "V" {\n  hexes 0101 0303: clear\n}\n', "'..'"),
])
def test_expected_lists_only_readable_names(text: str, wanted: str) -> None:
    diagnostic = syntax_error(text)
    assert wanted in diagnostic.expected
    assert not any("anon" in e or e == "'minus'" for e in diagnostic.expected), \
        diagnostic.expected


@pytest.mark.rule("8.9")
@pytest.mark.parametrize("rule, statement, word, expected", [
    # 'combatant' used to read as the context 'combat' then the name 'ant', silently.
    ("8.9", "define combatant = 3", "combatant", "'combat'"),
    ("8.18", "resolve on crt with two_dice rolled by attackers", "attackers", "'attacker'"),
    ("8.17", "clamp odds to crt afterwards shifts", "afterwards", "'after'"),
    ("8.14", "shift 3 leftward when target has major_fortress", "leftward", "'left'"),
])
def test_keyword_terminals_end_at_a_word_boundary(rule: str, statement: str, word: str,
                                                  expected: str) -> None:
    diagnostic = syntax_error(one_rule(rule, statement))
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + statement.index(word))
    assert diagnostic.message == f"unexpected {word!r}"
    assert expected in diagnostic.expected


@pytest.mark.rule("counters more")
def test_second_counters_block_is_reported(tmp_path: Path) -> None:
    text = PRELUDE + '''
counters mix "The counter mix" {
  counter S1 "Spanish infantry" infantry steps 2 combat 3, 2 move 5
}

counters more "More counters" {
  counter S2 "Lancers" lancer steps 2 combat 3 move 6
}
'''
    [diagnostic] = check_path(write(tmp_path, "two-mixes.rules", text))
    line = text.splitlines().index('counters more "More counters" {') + 1
    assert (diagnostic.span.line, diagnostic.span.column) == (line, 1)
    assert diagnostic.message.startswith("a second counters block")
    assert diagnostic.rule == "counters more"


# ------------------------------------------------------------------ fixed front-end bugs


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
    syntax_error(one_rule("8.9", f"define combat x = {expression}"))
