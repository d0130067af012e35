"""What a rules writer gets wrong, found at load with file:line:column, a caret and the rule.

- braces in a log (or finish) text that enclose no field, and braces in a
  ``fail`` text, which shows no fields;
- a declaration that takes a built-in's name (``attribute place owner``);
- a name that only an optional rule not in play declares ("declared in 4.1,
  which is not in play", not "unknown procedure");
- type errors plain at load: an attribute the type lacks, a piece compared
  with a number;
- ``first(E for x in S, D)`` takes a default as ``max`` does;
- ``evaluate`` of a table function with nothing to read says so in words;
- a clause citing an interpretation its registry lacks, by a statement or
  in a comment, is refused by ``cortes-rules check``.

The snippets stand in rule 3.1 after the core prelude; they concern no rule
of a game and are marked "1.0".
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dsl_helpers import CORE_PRELUDE, PRELUDE, cli, write

import cortes_rules
from cortes_rules import RulesCheckError
from cortes_rules.dsl.diagnostics import Diagnostic
from cortes_rules.engine.compile import RulesRuntimeError
from cortes_rules.loader import check_path

pytestmark = pytest.mark.rule("1.0")

PLAY = '''
rule 2.2 "Playing" {
  summary "A player pokes a soldier or passes."
  action poke(u: piece) "Poke a soldier"
  action pass "Pass"
  procedure play(p) {
    choose by p {
      option poke(u in pieces) { set u.moved = true }
      option pass { }
    }
  }
}
'''


def snippet(tmp_path: Path, statement: str, extra: str = "") -> Path:
    clause = f'rule 3.1 "Snippet" {{\n  summary "A snippet."\n  {statement}\n}}\n'
    return write(tmp_path, "snippet.rules", CORE_PRELUDE + PLAY + clause + extra)


def line_of_snippet(path: Path) -> int:
    return path.read_text(encoding="utf-8").split("\n").index('rule 3.1 "Snippet" {') + 3


def only(path: Path) -> Diagnostic:
    diagnostics = check_path(path)
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    return diagnostics[0]


def assert_at(diagnostic: Diagnostic, path: Path, statement: str, at: str,
              message: str, rule: str = "3.1", after: str = "") -> None:
    """The diagnostic points at ``at`` (its first place after ``after``) in the
    snippet's line, cites ``rule`` and says ``message``; its rendering has the
    file:line:column and a caret there."""
    column = 3 + statement.index(at, statement.index(after) + len(after) if after else 0)
    assert message in diagnostic.message, diagnostic.render()
    assert (diagnostic.span.line, diagnostic.span.column) == (line_of_snippet(path), column), \
        diagnostic.render()
    assert diagnostic.rule == rule
    lines = diagnostic.render().splitlines()
    assert lines[0].startswith(f"{diagnostic.span.path}:{diagnostic.span.line}:{column}: error:")
    assert lines[0].endswith(f"[rule {rule}]")
    assert lines[2].index("^") == 4 + column - 1


# ------------------------------------------------------------------ braces in texts


@pytest.mark.parametrize("text, at", [
    ("{f()} wins", "{f()}"),
    ("{p} faces {enemy(p)}", "{enemy(p)}"),
    ("{p.score + 1} points", "{p.score + 1}"),
    ("{ p } moves", "{ p }"),
    ("{p moves", "{"),
    ("p} moves", "}"),
])
def test_braces_that_enclose_no_field_are_a_diagnostic(tmp_path: Path, text: str,
                                                       at: str) -> None:
    statement = f'procedure tell(p) {{ log "{text}" cite "3.1" }}'
    path = snippet(tmp_path, statement)
    assert_at(only(path), path, statement, at,
              "in a text is not a field" if at not in "{}" else "brace in a text",
              after="log ")


def test_a_call_in_a_finish_text_is_a_diagnostic_too(tmp_path: Path) -> None:
    statement = 'finish when turn > 3 "{winner(turn)} has won"'
    path = snippet(tmp_path, statement)
    assert_at(only(path), path, statement, "{winner(turn)}", "is not a field")


def test_a_field_in_a_fail_text_is_a_diagnostic(tmp_path: Path) -> None:
    statement = 'procedure tell(p) { fail "{p} cannot" }'
    path = snippet(tmp_path, statement)
    assert_at(only(path), path, statement, "{p}", "a fail text is shown as it is written")


def test_names_and_attribute_paths_are_fields(tmp_path: Path) -> None:
    path = snippet(tmp_path, 'procedure tell(p) { log "{p} has {p.score} at turn {turn}" '
                             'cite "3.1" }')
    assert check_path(path) == []


# ------------------------------------------------------------------ built-in names


@pytest.mark.parametrize("statement, at, message", [
    ('attribute place owner: player = none "Who holds it"', "owner",
     "place attribute 'owner' would hide the built-in attribute"),
    ('attribute player name: int = 0 "A number"', "name",
     "player attribute 'name' would hide the built-in attribute"),
    ("derive piece side = piece.place", "side",
     "piece attribute 'side' would hide the built-in attribute"),
    ('property id "Id" values slow, fast', "id",
     "property 'id' would hide the built-in piece attribute"),
    ('printed place: int "A number"', "place",
     "printed field 'place' would hide the built-in piece attribute"),
    ("function max(a, b) = a", "max", "function 'max' would hide the built-in function"),
    ("function first(a) = a", "first", "function 'first' would hide the built-in function"),
    ('value turn: int = 0 "A turn of our own"', "turn",
     "'turn' is a name every rulebook has (the game turn)"),
    ('hook pieces: int "Our pieces"', "pieces", "'pieces' is a name every rulebook has"),
])
def test_a_declaration_that_hides_a_built_in_is_a_diagnostic(tmp_path: Path, statement: str,
                                                              at: str, message: str) -> None:
    path = snippet(tmp_path, statement)
    assert_at(only(path), path, statement, at, message)


def test_a_name_built_in_for_another_kind_of_thing_is_free(tmp_path: Path) -> None:
    # Places have an owner, pieces do not: a piece attribute 'owner' hides nothing.
    assert check_path(snippet(tmp_path, 'attribute piece owner: player = none "Owner"')) == []


# ------------------------------------------------------------------ optional rules not in play

OPTIONAL = '''
rule 4.1 "Rallies" optional {
  summary "An optional rule."
  function rally_bonus(x) = x + 1
  procedure rally(p) { log "{p} rallies" cite "4.1" }
  action charge(u: piece) "Charge"
  attribute piece rallied: bool = false "Has rallied"
}
'''


@pytest.mark.parametrize("statement, at, message", [
    ("function total(x) = rally_bonus(x) * 2", "rally_bonus", "unknown function 'rally_bonus'"),
    ("procedure always(p) { call rally(p) }", "call rally", "unknown procedure 'rally'"),
    ("forbid charge when true", "forbid", "forbid charge: action charge"),
    ("forbid poke when u.rallied", "u.rallied", "unknown attribute 'rallied'"),
])
def test_a_name_declared_only_by_an_optional_rule_not_in_play_says_so(
        tmp_path: Path, statement: str, at: str, message: str) -> None:
    path = snippet(tmp_path, statement, OPTIONAL)
    diagnostic = only(path)
    assert_at(diagnostic, path, statement, at, message)
    assert "declared in 4.1, which is not in play" in diagnostic.message
    with pytest.raises(RulesCheckError, match="declared in 4.1, which is not in play"):
        cortes_rules.load(str(path))
    if not statement.startswith("forbid charge"):
        cortes_rules.load(str(path), options=["4.1"])   # with 4.1 in play, all is well


# ------------------------------------------------------------------ types known at load


@pytest.mark.parametrize("statement, at, message", [
    ("forbid poke when u == 3", "u == 3", "this compares a piece with a number"),
    ("forbid poke when u.place == u", "u.place == u", "this compares a place with a piece"),
    ('forbid poke when u.side == "red"', 'u.side == "red"', "this compares a player with a text"),
    ("function late(x) = red > 2", "red > 2", "'>' compares a player with a number"),
    ("forbid poke when u.terrain == none", "u.terrain",
     "a piece has no attribute 'terrain' (a place has one)"),
    ("function f() = count(h in hexes where h.moved)", "h.moved",
     "a place has no attribute 'moved' (a piece has one)"),
    ("procedure g(p) { for each u in pieces where u.score > 0 { log \"x\" } }", "u.score",
     "a piece has no attribute 'score' (a player has one)"),
    ("procedure g(p) { let q = first(pieces) if q > 1 { log \"x\" } }", "q > 1",
     "'>' compares a piece with a number"),
])
def test_a_type_error_plain_at_load_is_a_diagnostic(tmp_path: Path, statement: str, at: str,
                                                    message: str) -> None:
    path = snippet(tmp_path, statement)
    assert_at(only(path), path, statement, at, message)


@pytest.mark.parametrize("statement", [
    "forbid poke when u.place.owner == red",             # a player with a player
    "forbid poke when count(u.place.pieces) > 2",        # a number with a number
    "function score_of(x) = x.score > 2",                # x has no known type
    "procedure g(p) { let q = first(pieces) set q = 3 if q > 1 { log \"x\" } }",  # q is changed
])
def test_what_the_types_do_not_show_wrong_is_left_alone(tmp_path: Path, statement: str) -> None:
    assert check_path(snippet(tmp_path, statement)) == []


@pytest.mark.parametrize("name", ["cortes", "grands_strateges"])
def test_the_shipped_rulebooks_have_no_type_error(name: str) -> None:
    words = ("compares", "has no attribute", "would hide", "is not a field")
    found = [d.render() for d in check_path(name) if any(w in d.message for w in words)]
    assert found == []


# ------------------------------------------------------------------ first(...)


@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_first_takes_a_default_as_max_does(tmp_path: Path, backend: str) -> None:
    path = snippet(tmp_path, "function opening(xs) = first(x * 2 for x in xs where x > 1, 0)\n"
                             "  function top(xs) = max(x * 2 for x in xs where x > 1, 0)")
    assert check_path(path) == []
    book = cortes_rules.load(str(path), backend=backend)
    assert book.evaluate("opening([1, 3, 5])") == 6
    assert book.evaluate("opening([1])") == 0
    assert book.evaluate("first(u for u in pieces, none)") is None
    assert book.evaluate("top([1])") == 0


def test_first_with_two_further_arguments_is_refused_as_max_is(tmp_path: Path) -> None:
    statement = "function f(xs) = first(x for x in xs, 0, 1)"
    path = snippet(tmp_path, statement)
    assert_at(only(path), path, statement, "first", "first(x in S ...) takes 1 further")


# ------------------------------------------------------------------ evaluate


def test_evaluate_of_a_table_function_with_no_battle_says_what_is_missing(
        tmp_path: Path) -> None:
    book = cortes_rules.load(str(write(tmp_path, "prelude.rules", PRELUDE)))
    with pytest.raises(RulesRuntimeError) as caught:
        book.evaluate("terrain_effects[first(odds_ratio)].move")
    message = str(caught.value)
    assert "table terrain_effects has no row none (rows: clear, quagmire, fortress, " \
        "chinampa_city)" in message
    with pytest.raises(RulesRuntimeError) as caught:
        book.evaluate("odds_what_if(0)", attack=3, defense=1)
    assert "none cannot be indexed" in str(caught.value)
    for said in (message, str(caught.value)):
        assert "NoneType" not in said and not said.rstrip().endswith(": None")
    assert book.evaluate("terrain_effects[clear].move") == 1


# ------------------------------------------------------------------ citations

REGISTRY = '''
interpretation poke_range "How far a poke reaches" {
  rules 3.1
  says "The text does not say."
  reading adjacent_only "Only next door." default
}
'''


def test_a_formal_citation_of_a_missing_entry_is_refused_at_load(tmp_path: Path) -> None:
    statement = "interpretation poke_range, poke_rnage"
    path = snippet(tmp_path, statement, REGISTRY)
    diagnostic = only(path)
    assert_at(diagnostic, path, statement, "poke_rnage",
              "rule 3.1 cites interpretation poke_rnage, which the registry does not hold; "
              "did you mean 'poke_range'?")
    with pytest.raises(RulesCheckError):
        cortes_rules.load(str(path))


def test_a_formal_citation_of_a_held_entry_is_clean_and_rendered(tmp_path: Path) -> None:
    from cortes_rules.dsl import ir, render
    path = snippet(tmp_path, "interpretation poke_range", REGISTRY)
    assert check_path(path) == []
    book = cortes_rules.load(str(path))
    [cite] = [s for s in book.program.rules["3.1"].statements
              if isinstance(s, ir.CiteInterpretation)]
    assert render.statement(cite) == "interpretation poke_range"


def test_check_refuses_a_comment_citing_a_missing_entry(tmp_path: Path) -> None:
    statement = "# The reach: interpretation poke_range; the rest, interpretation poke_reach."
    path = snippet(tmp_path, statement, REGISTRY)
    diagnostic = only(path)
    assert_at(diagnostic, path, statement, "poke_reach",
              "this comment cites interpretation poke_reach, which the registry does not hold")
    result = cli("check", str(path))
    assert result.returncode == 1
    assert f"{line_of_snippet(path)}:{3 + statement.index('poke_reach')}: error:" \
        in result.stderr
    # A load runs the rules, which a comment does not change: it only warns.
    book = cortes_rules.load(str(path))
    assert [w.message for w in book.warnings] == [diagnostic.message]


def test_citations_in_comments_are_read_as_the_rulebooks_write_them(tmp_path: Path) -> None:
    statements = "\n  ".join([
        "# Two of them: interpretations poke_range and poke_lenght, the second",
        "# misspelt; and a list over two lines: interpretations poke_range,",
        "# poke_wide and poke_range.",
        "# Prose is no citation: the interpretations registry, an interpretation of it.",
        'value v: int = 1 "a # interpretation poke_x in a string" # (interpretation poke_tall)',
    ])
    path = snippet(tmp_path, statements, REGISTRY)
    found = sorted((d.span.line, d.message.split(",")[0]) for d in check_path(path))
    first = line_of_snippet(path)
    assert found == [
        (first, "this comment cites interpretation poke_lenght"),
        (first + 2, "this comment cites interpretation poke_wide"),
        (first + 4, "this comment cites interpretation poke_tall"),
    ]


@pytest.mark.parametrize("name", ["cortes", "grands_strateges"])
def test_no_shipped_rulebook_cites_an_entry_its_registry_lacks(name: str) -> None:
    dangling = [d.render() for d in check_path(name) if "cites interpretation" in d.message]
    assert dangling == []
