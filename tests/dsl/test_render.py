"""IR back to text: :mod:`cortes_rules.dsl.render` round-trips through the parser.

Every expression of the shipped rulebook and of the hex_wargame library
renders to text that parses back to the same tree, and so does every
declaration; a hypothesis property does the same for generated expressions
(up to the grouping of a chain of ``and`` or of ``or``, which the parser
builds as a balanced tree and which is written flat).
The IR the parser builds keeps each statement's rule number and span, and a
form use expands into statements stamped with the using clause's rule.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from dsl_helpers import PRELUDE, SHIPPED, library_forms, one_rule, strip_spans, write
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortes_rules.dsl import ir, render
from cortes_rules.dsl.diagnostics import Span
from cortes_rules.dsl.parse import parse_text
from cortes_rules.loader import compile_rulebook, parse_files, rule_files

_EXPRESSIONS = ir.Expr.__args__  # type: ignore[attr-defined]


def reparse_expr(text: str) -> ir.Expr:
    module = parse_text(one_rule("8.9", f"function x() = {text}"), "roundtrip.rules")
    rule = module.items[0]
    assert isinstance(rule, ir.Rule)
    [function] = rule.statements
    assert isinstance(function, ir.FunctionDecl)
    return function.body


def ungrouped(node: Any) -> Any:
    """``strip_spans`` of a tree, each chain of one boolean operator as the list of
    its terms: the grouping of ``a or b or c`` means nothing to ``or``."""
    if isinstance(node, ir.BoolOp):
        return ("BoolOp", node.op, tuple(ungrouped(t) for t in node.terms()))
    if attrs.has(type(node)):
        return (type(node).__name__, *(
            (field.name, ungrouped(getattr(node, field.name)))
            for field in attrs.fields(type(node))
            if field.name != "span" and not field.name.endswith("_span")))
    if isinstance(node, tuple):
        return tuple(ungrouped(item) for item in node)
    return node


def top_expressions(node: Any) -> Iterator[ir.Expr]:
    """The outermost expressions anywhere inside a statement (procedure bodies too)."""
    if isinstance(node, _EXPRESSIONS):
        yield node
    elif isinstance(node, tuple):
        for item in node:
            yield from top_expressions(item)
    elif attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            yield from top_expressions(getattr(node, field.name))


def shipped_modules() -> list[ir.Module]:
    """The hex_wargame library and the Cortés files, forms expanded, as the loader reads them."""
    return parse_files(rule_files(SHIPPED))


@pytest.mark.rule("8.11")
def test_shipped_expressions_round_trip() -> None:
    count = 0
    kinds: set[str] = set()
    for module in shipped_modules():
        for item in module.items:
            if not isinstance(item, ir.Rule):
                continue
            for statement in item.statements:
                if isinstance(statement, ir.FormDecl):
                    continue
                for expression in top_expressions(statement):
                    text = render.expr(expression)
                    again = reparse_expr(text)
                    assert strip_spans(again) == strip_spans(expression), text
                    assert render.expr(again) == text
                    kinds.add(type(expression).__name__)
                    count += 1
    assert count >= 250
    # Strings, lists, tuples, none and if-then-else are all among them.
    assert {"StrLit", "ListLit", "TupleLit", "NoneLit", "Cond"} <= kinds


RENDERED_LATER = (ir.TableDecl, ir.Sequence, ir.Procedure, ir.FormDecl)


@pytest.mark.rule("8.9")
def test_shipped_rules_round_trip_through_render_statement() -> None:
    """Re-rendering every declaration of every clause gives the same IR modulo spans."""
    for module in shipped_modules():
        lines = []
        kept: list[ir.Rule] = []
        for item in module.items:
            if not isinstance(item, ir.Rule):
                continue
            kept.append(item)
            optional = " optional" if item.optional else ""
            if item.mechanism:
                lines.append(f'mechanism {item.number.removeprefix("lib:")} "{item.title}" {{')
            else:
                lines.append(f'rule {item.number} "{item.title}"{optional} {{')
            lines.append(f'  summary "{item.summary}"')
            for statement in item.statements:
                if not isinstance(statement, RENDERED_LATER):
                    lines.append("  " + render.statement(statement))
            lines.append("}")
        again = parse_text("\n".join(lines) + "\n", module.path)
        assert len(again.items) == len(kept)
        for old, new in zip(kept, again.items, strict=True):
            assert isinstance(new, ir.Rule)
            expected = [s for s in old.statements if not isinstance(s, RENDERED_LATER)]
            assert strip_spans(new.statements) == strip_spans(tuple(expected)), old.number


@pytest.mark.rule("2.8")
def test_render_statement_of_the_abbreviated_declarations() -> None:
    text = one_rule("4.2", 'sequence turn {\n    phase a "A" by red\n    phase b "B" by red\n  }\n'
                    '  procedure play(p) { log "x" }\n  class card "Card"')
    rule = parse_text(text, "r.rules").items[0]
    assert isinstance(rule, ir.Rule)
    sequence, procedure, card = rule.statements
    assert render.statement(sequence) == "sequence turn (2 phases)"
    assert render.statement(procedure) == "procedure play(p) (1 statements)"
    assert render.statement(card) == 'class card "Card"'


@pytest.mark.rule("8.14")
def test_statements_carry_their_rule_and_span() -> None:
    text = one_rule("7.10", "forbid move when to has fortress", "Quagmire")
    module = parse_text(text, "m.rules")
    rule = module.items[0]
    assert isinstance(rule, ir.Rule)
    assert (rule.number, rule.title, rule.summary, rule.optional) == (
        "7.10", "Quagmire", "A snippet.", False)
    [forbid] = rule.statements
    assert isinstance(forbid, ir.Forbid)
    assert forbid.action == "move" and forbid.rule == "7.10"
    assert (forbid.span.path, forbid.span.line, forbid.span.column) == ("m.rules", 3, 3)
    assert isinstance(forbid.when, ir.Is)
    assert (forbid.when.name_span.column, forbid.when.name_span.end_column) == (27, 35)


@pytest.mark.rule("8.14")
def test_a_form_use_expands_into_statements_of_its_clause(tmp_path: Any) -> None:
    text = PRELUDE + one_rule("8.14", "shift 3 left when target has fortress", "Major fortress")
    # Parsed with the library's forms, the clause holds one use of the form...
    parsed = parse_text(text, "m.rules", library_forms())
    use = parsed.items[-1].statements[0]  # type: ignore[union-attr]
    assert isinstance(use, ir.FormUse) and use.form == "shift"
    # ...which the loader expands into the form's statement, stamped with 8.14.
    program, _ = compile_rulebook(write(tmp_path, "m.rules", text))
    [shift] = [c for c in program.of(ir.Contribute) if c.rule == "8.14"]
    assert shift.hook == "column_shift"
    assert render.statement(shift) == ('contribute column_shift = if "left" == "right" then 3 '
                                       'else -3 when target has fortress')
    # The condition keeps the place where the clause wrote it.
    assert shift.when is not None
    line = text.count("\n", 0, text.index("shift 3")) + 1
    assert (shift.when.span.path.endswith("m.rules"), shift.when.span.line) == (True, line)


# ------------------------------------------------------------------ generated expressions

_S = Span("<generated>", 1, 1)
_NAMES = st.sampled_from(["unit", "target", "attackers", "aztec", "knight", "steps", "u", "t",
                          "defense"])
_FUNCS = st.sampled_from(["count", "sum", "max", "floor", "adjacent", "any"])
_LEAVES = st.one_of(
    st.integers(0, 120).map(lambda v: ir.IntLit(v, _S)),
    st.booleans().map(lambda v: ir.BoolLit(v, _S)),
    _NAMES.map(lambda n: ir.Name(n, _S)),
    st.just(ir.NoneLit(_S)),
    st.sampled_from(["", "left", "a b", "3:1", "{x}"]).map(lambda v: ir.StrLit(v, _S)),
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
        st.lists(inner, max_size=3).map(lambda xs: ir.ListLit(tuple(xs), _S)),
        st.lists(inner, min_size=1, max_size=3).map(lambda xs: ir.TupleLit(tuple(xs), _S)),
        st.tuples(inner, inner, inner).map(lambda t: ir.Cond(t[0], t[1], t[2], _S)),
        st.tuples(_FUNCS, st.lists(inner, min_size=1, max_size=3)).map(
            lambda t: ir.Call(t[0], tuple(t[1]), None, None, None, None, _S)),
        st.just(ir.Call("rolled", (), None, None, None, None, _S)),
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
    # The parser reads back the tree that was rendered (a chain of 'and' or of
    # 'or' grouped its own way)...
    assert ungrouped(parsed) == ungrouped(expression), text
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
    ("[ a,b ]", "[a, b]"),
    ("( a , )", "(a,)"),
    ("(a,b)", "(a, b)"),
    ('x=="left"', 'x == "left"'),
    ("x != none", "x != none"),
    ("if a then b else c", "if a then b else c"),
    ("(if a then b else c) + 1", "(if a then b else c) + 1"),
    ("1 + (if a then b else c)", "1 + (if a then b else c)"),
    ("if a then b else c + 1", "if a then b else c + 1"),
    ("rolled( )", "rolled()"),
])
def test_render_expr_canonical_text(text: str, canonical: str) -> None:
    assert render.expr(reparse_expr(text)) == canonical
    assert strip_spans(reparse_expr(canonical)) == strip_spans(reparse_expr(text))
