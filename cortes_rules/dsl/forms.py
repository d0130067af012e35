"""Forms: syntax that libraries teach the language, expanded onto plain statements.

A library declares ``form NAME "pattern" { statements }``. The pattern is a
phrase of words and holes, e.g. ``"shift {n:int} {dir:left|right} when
{c:expr}"``. Loading a rulebook that uses the library extends the grammar
with one rule per form (the words become keywords there), so a rule clause
can write ``shift 3 left when target has major_fortress``; expansion then
replaces that statement by the form's body with each hole's value put in
place of its name, stamped with the rule number of the clause that wrote it.

Nothing here knows any particular form: the vocabulary lives in the
libraries (``rulebook/lib/``).
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

import attrs

from ..errors import RulesSyntaxError
from . import ir
from .diagnostics import Diagnostic, Span

# Kinds of hole and the grammar symbol each one reads.
HOLE_SYMBOLS = {"expr": "expr", "int": "SIGNED_INT", "name": "NAME", "rule": "RULE_NO",
                "dice": "DICE", "string": "STRING"}
_TOKEN = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*):([A-Za-z_|]+)\}|(\S+)")
_WORD = re.compile(r"[A-Za-z_][A-Za-z0-9_]*")
_PUNCTUATION = re.compile(r"[:/=<>+\-*,.]+")


@attrs.frozen
class Hole:
    name: str
    kind: str                      # a key of HOLE_SYMBOLS, or "words"
    words: tuple[str, ...] = ()


@attrs.frozen
class Pattern:
    """A parsed form pattern: literal words and holes, in order."""

    parts: tuple[str | Hole, ...]

    @property
    def holes(self) -> tuple[Hole, ...]:
        return tuple(p for p in self.parts if isinstance(p, Hole))


def parse_pattern(decl: ir.FormDecl) -> Pattern:
    """Read a form's pattern string.

    Raises:
        RulesSyntaxError: a hole of an unknown kind, a word that is not a
            word, or a pattern that starts with a hole.
    """
    parts: list[str | Hole] = []
    for match in _TOKEN.finditer(decl.pattern):
        name, kind, word = match.groups()
        if word is not None:
            if not (_WORD.fullmatch(word) or _PUNCTUATION.fullmatch(word)):
                raise _error(decl, f"the pattern word {word!r} is neither a word nor punctuation")
            parts.append(word)
        elif "|" in kind:
            words = tuple(kind.split("|"))
            if not all(_WORD.fullmatch(w) for w in words):
                raise _error(decl, f"hole {{{name}:{kind}}}: alternatives must be words")
            parts.append(Hole(name, "words", words))
        elif kind in HOLE_SYMBOLS:
            parts.append(Hole(name, kind))
        else:
            raise _error(decl, f"hole {{{name}:{kind}}}: unknown kind {kind!r} (kinds: "
                         f"{', '.join(HOLE_SYMBOLS)}, or words such as left|right)")
    if not parts or not isinstance(parts[0], str) or not _WORD.fullmatch(parts[0]):
        raise _error(decl, "a form's pattern must start with a word")
    names = [h.name for h in parts if isinstance(h, Hole)]
    if len(set(names)) != len(names):
        raise _error(decl, "a form's holes must have different names")
    return Pattern(tuple(parts))


def _error(decl: ir.FormDecl, message: str) -> RulesSyntaxError:
    return RulesSyntaxError([Diagnostic(decl.span, f"form {decl.name}: {message}",
                                        rule=decl.rule, source_line="")])


def grammar_rules(forms: Sequence[ir.FormDecl]) -> tuple[str, str]:
    """Grammar text for the forms: the alternatives to add to statements, and the rules."""
    alternatives: list[str] = []
    rules: list[str] = []
    terminals: dict[tuple[str, ...], str] = {}
    for index, decl in enumerate(forms):
        symbols = []
        for part in parse_pattern(decl).parts:
            if isinstance(part, str):
                symbols.append('"' + part + '"')
            elif part.kind == "words":
                key = part.words
                if key not in terminals:
                    terminals[key] = f"FORM_WORDS_{len(terminals)}"
                symbols.append(terminals[key])
            else:
                symbols.append(HOLE_SYMBOLS[part.kind])
        alternatives.append(f"form_use_{index}")
        rules.append(f"form_use_{index}: {' '.join(symbols)}")
    for words, name in terminals.items():
        rules.append(f"{name}: /({'|'.join(words)})\\b/")
    return " | ".join(alternatives), "\n".join(rules)


def hole_values(decl: ir.FormDecl, children: Sequence[Any], span: Span) -> tuple[Any, ...]:
    """The values a form use gives its holes, from the parse tree's children."""
    values = []
    holes = parse_pattern(decl).holes
    for hole, child in zip(holes, children, strict=True):
        if hole.kind == "expr":
            values.append(child)
        elif hole.kind == "int":
            values.append(int(str(child)))
        elif hole.kind == "string":
            values.append(str(child)[1:-1])
        else:
            values.append(str(child))
    return tuple(values)


# ------------------------------------------------------------------ expansion


def expand_modules(modules: Sequence[ir.Module]) -> list[ir.Module]:
    """Every form use of every rule clause replaced by its form's statements."""
    forms = {f.name: f for m in modules for f in _form_decls(m)}
    out = []
    for module in modules:
        items = []
        for item in module.items:
            if isinstance(item, ir.Rule) and _uses_forms(item.statements):
                item = attrs.evolve(item, statements=tuple(_expand(item, item.statements,
                                                                   forms)))
            elif isinstance(item, ir.ScenarioBlock) and _uses_forms(item.clause.statements):
                clause = item.clause
                item = attrs.evolve(item, clause=attrs.evolve(
                    clause, statements=tuple(_expand(clause, clause.statements, forms))))
            items.append(item)
        out.append(ir.Module(module.path, module.text, tuple(items)))
    return out


def _form_decls(module: ir.Module) -> Iterable[ir.FormDecl]:
    for item in module.items:
        if isinstance(item, ir.Rule):
            yield from (s for s in item.statements if isinstance(s, ir.FormDecl))


def _uses_forms(statements: Iterable[Any]) -> bool:
    return any(isinstance(s, ir.FormUse)
               or (isinstance(s, ir.WhenReading) and _uses_forms(s.body)) for s in statements)


def _expand(rule: ir.Rule, statements: Iterable[Any],
            forms: Mapping[str, ir.FormDecl]) -> Iterable[Any]:
    for statement in statements:
        if isinstance(statement, ir.WhenReading):
            yield attrs.evolve(statement, body=tuple(_expand(rule, statement.body, forms)))
            continue
        if not isinstance(statement, ir.FormUse):
            yield statement
            continue
        decl = forms[statement.form]
        holes = parse_pattern(decl).holes
        bindings = {h.name: (h, v) for h, v in zip(holes, statement.values, strict=True)}
        for body in decl.body:
            # The statement takes the place and the rule number of the phrase
            # that wrote it, so diagnostics point at the rule clause.
            yield _substitute(attrs.evolve(body, rule=rule.number, span=statement.span),
                              bindings, statement.span)


def _hole_expr(hole: Hole, value: Any, span: Span) -> Any:
    if hole.kind == "expr":
        return value
    if hole.kind == "int":
        return ir.IntLit(value, span)
    if hole.kind == "name":
        return ir.Name(value, span)
    return ir.StrLit(value, span)


def _substitute(node: Any, bindings: Mapping[str, tuple[Hole, Any]], span: Span) -> Any:
    """A copy of ``node`` with the holes' names replaced by their values."""
    if isinstance(node, ir.Name) and node.id in bindings:
        hole, value = bindings[node.id]
        return _hole_expr(hole, value, span)
    if isinstance(node, tuple):
        return tuple(_substitute(x, bindings, span) for x in node)
    if not attrs.has(type(node)):
        return node
    changes = {}
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if field.name in ("span", "rule"):
            continue
        if isinstance(value, str) and value in bindings and bindings[value][0].kind in (
                "name", "words", "rule", "string"):
            changes[field.name] = bindings[value][1]
        elif isinstance(value, (tuple,)) or attrs.has(type(value)):
            new = _substitute(value, bindings, span)
            if new is not value:
                changes[field.name] = new
    return attrs.evolve(node, **changes) if changes else node
