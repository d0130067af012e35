"""Deep and long rules text: every construct works, or is refused with a diagnostic.

A chain of one boolean operator works however long it is (the parser groups
its terms as a balanced tree); anything else that nests, an operator, a
call, a set, list or tuple inside another, a block inside a block, is
refused past ``MAX_NESTING`` levels with file:line:column, a caret and the
rule, never with Python's RecursionError. Just under the limit, the
rulebook checks, loads, goes through the load cache and plays on both
backends. And the time a load takes grows in step with the text's size.

None of this concerns a rule of a game: the tests are marked "1.0", as the
other bad-input tests are.
"""

from __future__ import annotations

import time
from collections.abc import Callable
from pathlib import Path

import pytest
from dsl_helpers import CORE_PRELUDE, write

import cortes_rules
from cortes_rules import RulesSyntaxError
from cortes_rules.dsl.diagnostics import Diagnostic
from cortes_rules.dsl.parse import MAX_NESTING
from cortes_rules.loader import check_path

pytestmark = pytest.mark.rule("1.0")

# A turn in which the player pokes a soldier or passes, then clause 3.1.
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


def book(tmp_path: Path, statements: str) -> Path:
    """The core prelude, the turn above, and rule 3.1 holding ``statements`` on its
    third line."""
    clause = f'rule 3.1 "Deep" {{\n  summary "A deep clause."\n  {statements}\n}}\n'
    return write(tmp_path, "deep.rules", CORE_PRELUDE + PLAY + clause)


def third_line(path: Path) -> int:
    """The line number of rule 3.1's third line (its statements) in ``book``'s file."""
    lines = path.read_text(encoding="utf-8").split("\n")
    return lines.index('rule 3.1 "Deep" {') + 3


def or_chain(n: int, term: Callable[[int], str]) -> str:
    return " or ".join(term(i) for i in range(n))


# ------------------------------------------------------------------ long chains work


@pytest.mark.parametrize("op, terms", [("or", 1000), ("and", 1000), ("or", 5000)])
def test_a_long_chain_of_one_operator_checks_loads_and_evaluates(
        tmp_path: Path, op: str, terms: int) -> None:
    if op == "or":
        body = " or ".join(f"x == {i}" for i in range(terms))
    else:
        body = " and ".join(f"x != {i}" for i in range(terms))
    path = book(tmp_path, f"function big(x) = {body}")
    assert check_path(path) == []
    for backend in ("python", "compiled"):
        rulebook = cortes_rules.load(str(path), backend=backend)
        inside, outside = rulebook.evaluate(f"big({terms - 1})"), rulebook.evaluate(
            f"big({terms})")
        assert (inside, outside) == ((True, False) if op == "or" else (False, True))


def test_a_forbid_clause_of_1000_terms_refuses_what_it_says(tmp_path: Path) -> None:
    condition = or_chain(1000, lambda i: f"turn == {i + 2}") + " or not u.moved"
    path = book(tmp_path, f"forbid poke when {condition}")
    assert check_path(path) == []
    for backend in ("python", "compiled"):
        game = cortes_rules.load(str(path), backend=backend).new_game(positions={})
        # No piece, so no poke is offered; the clause itself compiled and runs.
        assert [str(a) for a in game.legal_actions()] == ["pass"]


def test_a_1000_term_chain_goes_through_the_load_cache(tmp_path: Path,
                                                       monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTES_RULES_CACHE", str(tmp_path / "cache"))
    path = book(tmp_path, "function big(x) = " + or_chain(1000, lambda i: f"x == {i}"))
    first = cortes_rules.load(str(path))
    kept = list((tmp_path / "cache").glob("*.pickle"))
    assert kept, "the program was not kept in the load cache"
    again = cortes_rules.load(str(path))
    assert first.evaluate("big(999)") is again.evaluate("big(999)") is True


def test_the_balanced_chain_keeps_its_terms_in_order_and_renders_flat() -> None:
    from cortes_rules.dsl import render
    from cortes_rules.dsl.parse import parse_expression
    text = " or ".join(f"x == {i}" for i in range(100))
    node = parse_expression(text)
    assert [render.expr(t) for t in node.terms()] == [f"x == {i}" for i in range(100)]
    assert render.expr(node) == text
    depth = 0
    stack = [(node, 1)]
    while stack:
        current, level = stack.pop()
        depth = max(depth, level)
        for child in (getattr(current, "left", None), getattr(current, "right", None)):
            if child is not None:
                stack.append((child, level + 1))
    assert depth <= 16   # 100 terms: a balanced tree, not a list 100 deep


# ------------------------------------------------------------------ deep nesting is refused


def deep(n: int) -> dict[str, str]:
    """Constructs nested ``n`` deep, each the third line of rule 3.1."""
    return {
        "set": "function big(x) = " + "{" * n + "1" + "}" * n,
        "list": "function big(x) = " + "[" * n + "1" + "]" * n,
        "tuple": "function big(x) = " + "(" * n + "1" + ",)" * n,
        "not": "function big(x) = " + "not " * n + "x",
        "minus": "function big(x) = " + "-" * n + "x",
        "call": "function big(x) = " + "abs(" * n + "x" + ")" * n,
        "plus": "function big(x) = " + " + ".join("x" for _ in range(n + 1)),
        "if-then-else": "function big(x) = " + "if x then " * n + "1" + " else 2" * n,
        "if": "procedure big(p) { " + "if turn > 0 { " * n + "log \"x\"" + " }" * n + " }",
        "else-if": "procedure big(p) { if turn == 0 { log \"0\" } "
                   + " ".join(f"else if turn == {i} {{ log \"{i}\" }}" for i in range(1, n))
                   + " }",
        "loop": "procedure big(p) { " + "loop { " * n + "break" + " }" * n + " }",
        "for-each": "procedure big(p) { " + "for each u in pieces { " * n + "log \"x\""
                    + " }" * n + " }",
        "when-reading": "when reading r is a { " * n + "value v: int = 1 \"v\"" + " }" * n,
    }


@pytest.mark.parametrize("construct", list(deep(1)))
def test_nesting_1000_deep_is_a_diagnostic_not_a_recursion_error(tmp_path: Path,
                                                                  construct: str) -> None:
    path = book(tmp_path, deep(1000)[construct])
    with pytest.raises(RulesSyntaxError) as caught:
        cortes_rules.load(str(path))
    [diagnostic] = caught.value.diagnostics
    assert_diagnostic(diagnostic, path, "nested too deeply")
    assert check_path(path) == [diagnostic]


def assert_diagnostic(diagnostic: Diagnostic, path: Path, message: str) -> None:
    assert message in diagnostic.message
    assert f"more than {MAX_NESTING} levels" in diagnostic.message
    assert diagnostic.rule == "3.1"
    assert diagnostic.span.line == third_line(path)
    assert diagnostic.span.column >= 3
    lines = diagnostic.render().splitlines()
    assert lines[0].startswith(f"{diagnostic.span.path}:{diagnostic.span.line}:"
                               f"{diagnostic.span.column}: error: ")
    assert lines[2].strip() == "^"


def test_the_cli_reports_deep_nesting_without_a_traceback(tmp_path: Path) -> None:
    from dsl_helpers import cli
    path = book(tmp_path, deep(1000)["set"])
    result = cli("check", str(path))
    assert result.returncode == 1
    assert "Traceback" not in result.stderr and "RecursionError" not in result.stderr
    assert f":{third_line(path)}:" in result.stderr and "nested too deeply" in result.stderr


# ------------------------------------------------------------------ just under the limit


def test_nesting_just_under_the_limit_checks_loads_caches_and_plays(
        tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTES_RULES_CACHE", str(tmp_path / "cache"))
    n = MAX_NESTING - 10
    procedure = ("procedure big(p) {\n    " + "if turn >= 0 { " * n
                 + "set p.score = p.score + 1" + " }" * n + "\n  }")
    statements = "\n  ".join([
        procedure,
        "function sharp(x) = " + "not " * n + "x",
        "function nest(x) = " + "[" * n + "x" + "]" * n,
    ])
    path = book(tmp_path, statements)
    text = path.read_text(encoding="utf-8").replace(
        "option pass { }", "option pass { call big(p) }")
    path.write_text(text, encoding="utf-8")
    assert check_path(path) == []
    for backend in ("python", "compiled"):
        for _ in range(2):  # built, then read back from the load cache
            rulebook = cortes_rules.load(str(path), backend=backend)
            game = rulebook.new_game(positions={})
            game.apply("pass")
            assert game.evaluate("red.score") == 1
            assert game.evaluate("sharp(true)") is (n % 2 == 0)


# ------------------------------------------------------------------ loading is linear


def long_rulebook(size: int) -> str:
    """A rulebook of about ``size`` characters: clauses with values, functions,
    forbid clauses, procedures with log lines and comments, as a long rulebook has."""
    parts = [CORE_PRELUDE, PLAY]
    written = 0
    number = 1
    while written < size:
        clause = f'''rule 5.{number} "Clause {number}" {{
  summary "A generated clause, number {number} of a long rulebook."
  # A comment saying what the clause is for, as the comments of a rulebook do.
  value v{number}: int = {number} "a value"
  function f{number}(x) = if x > {number} then x - {number}
    else count(q in pieces where q.moved) + v{number}
  forbid poke when u.moved and turn == {number} or f{number}(turn) > 1000
  procedure step{number}(p) {{
    for each u in pieces where not u.moved {{
      set u.moved = true
      log "{{p}} marks {{u}} in clause {number}" cite "5.{number}"
      log "{{u}} is marked" cite "5.{number}"
      log "{{u}} stands in {{u.place}}" cite "5.{number}"
      log "turn {{turn}}: {{p}} has marked {{u}}" cite "5.{number}"
    }}
  }}
}}

'''
        parts.append(clause)
        written += len(clause)
        number += 1
    return "".join(parts)


def load_seconds(path: Path) -> float:
    """The least processor time of two cold loads (time the other processes of a
    loaded machine take is not counted)."""
    times = []
    for _ in range(2):
        start = time.process_time()
        cortes_rules.load(str(path), backend="python")
        times.append(time.process_time() - start)
    return min(times)


def test_load_time_grows_in_step_with_the_texts_size(tmp_path: Path,
                                                     monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("CORTES_RULES_CACHE", "off")
    small = write(tmp_path, "small.rules", long_rulebook(60_000))
    large = write(tmp_path, "large.rules", long_rulebook(480_000))
    cortes_rules.load(str(small), backend="python")   # the parser's tables, built once
    per_byte_small = load_seconds(small) / len(small.read_text(encoding="utf-8"))
    per_byte_large = load_seconds(large) / len(large.read_text(encoding="utf-8"))
    # Linear: the same time per byte, give or take the noise of a shared machine.
    # (Before, each log line split the whole file to quote its line, and the
    # garbage collector walked the growing IR again and again: eight times the
    # text took three to four times as long per byte.)
    assert per_byte_large < 2 * per_byte_small, (per_byte_small, per_byte_large)
