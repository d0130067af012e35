"""The concrete fact behind a refusal: a clause's condition as it holds in a position.

A ``forbid`` clause refuses an action when its condition holds. ``fact()``
says which parts of the condition make it hold here, in the clause's own
terms, with the names the position binds replaced by their values:
``forbid move when not adjacent(from, to)`` refusing ``move S9 2709`` from
2910 gives ``adjacent(2910, 2709) is false``; ``forbid move when cost >
unit.move - unit.spent`` gives ``cost (3) is more than S9.move - S9.spent (2)``.

The walk follows the logic of the condition: both sides of an ``and`` that
holds, the first side of an ``or`` that holds, a negation turned round
(``is not``, ``has no``), the first item that makes an ``any(...)`` hold and
the first that breaks an ``all(...)``. A boolean attribute or value is
followed by its label, where the rulebook gives one. Nothing here knows a
game: the words are the clause's and the operators'.

It is worked out only when a refusal is explained, never while a legal
action is applied. Told to a player, a piece hidden from him shows as ``?``,
and so does anything read from it; an item that would make an ``any(...)``
hold is one he can see when there is one.
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from ..core.world import Piece, Place, Player
from ..dsl import ir
from ..dsl.diagnostics import Span
from ..dsl.render import expr as render_expr
from ..errors import CortesRulesError
from .compile import _as_iterable, format_value

Evaluate = Callable[[ir.Expr, dict[str, Any]], Any]
"""Works out an expression in the position, with the variables given."""

_WORDS = {"==": "is", "!=": "is not", "<": "is less than", "<=": "is at most",
          ">": "is more than", ">=": "is at least"}
_OPPOSITE = {"==": "!=", "!=": "==", "<": ">=", ">=": "<", ">": "<=", "<=": ">"}
_ENTITIES = (Piece, Place)
_QUANTIFIERS = ("any", "all")
_SMALL = 6
"""A collection of at most this many items is shown with its items."""

_UNKNOWN = object()
_NOWHERE = Span("<fact>", 0, 0)


@attrs.define
class Facts:
    """Says why a condition has the truth value it has in one position.

    Attributes:
        evaluate: works out an expression here (it may raise CortesRulesError).
        env: the variables the clause sees (the action's arguments, the option's
            bindings, the procedure's variables).
        values: the game's declared values, by name.
        display: a value as the reader may be told it (a hidden piece as ``?``).
        secret: whether a value is a piece hidden from the reader.
        secret_attribute: whether reading an attribute of an object would tell
            the reader something hidden from him.
        labels: the label of each declared attribute and value, by name.
        reader: who is told (None: the umpire, who sees everything).
    """

    evaluate: Evaluate
    env: dict[str, Any]
    values: dict[str, Any]
    display: Callable[[Any], str]
    secret: Callable[[Any], bool]
    secret_attribute: Callable[[Any, str], bool]
    labels: dict[str, str]
    reader: str | None = None

    def holding(self, node: ir.Expr) -> str:
        """Why ``node``, which holds here, holds."""
        return self.why(node, True, self.env)

    def why(self, node: ir.Expr, truth: bool, env: dict[str, Any]) -> str:
        """Why ``node`` has the truth value ``truth`` with the variables ``env``."""
        if isinstance(node, ir.Not):
            return self.why(node.operand, not truth, env)
        if isinstance(node, ir.BoolOp):
            both = (node.op == "and") == truth
            if both:
                return f"{self.why(node.left, truth, env)} and {self.why(node.right, truth, env)}"
            for side in (node.left, node.right):
                if self._truth(side, env) is truth:
                    return self.why(side, truth, env)
            return self._plain(node, truth, env)
        if isinstance(node, ir.Compare):
            op = node.op if truth else _OPPOSITE.get(node.op, node.op)
            words = _WORDS.get(op, op)
            return f"{self.term(node.left, env)} {words} {self.term(node.right, env)}"
        if isinstance(node, ir.Member):
            inside = node.negated != truth
            return (f"{self.term(node.item, env)} is {'' if inside else 'not '}in "
                    f"{self.text(node.collection, env)}")
        if isinstance(node, ir.Is):
            subject = self.term(node.subject, env)
            if node.op == "has":
                return f"{subject} {'has' if truth else 'has no'} {node.name}"
            return f"{subject} {'is' if truth else 'is not'} {node.name}"
        if isinstance(node, ir.Call) and node.func in _QUANTIFIERS and node.binder:
            return self._quantified(node, truth, env)
        if isinstance(node, (ir.Name, ir.Attr, ir.Call, ir.Index)):
            label = self._label(node)
            shown = f"{self.text(node, env)} is {'true' if truth else 'false'}"
            return f"{shown} ({label})" if label else shown
        if isinstance(node, ir.BoolLit) and node.reading is not None:
            return f"reading {node.reading}" if truth else f"not reading {node.reading}"
        return self._plain(node, truth, env)

    # ------------------------------------------------------------ quantifiers
    def _quantified(self, node: ir.Call, truth: bool, env: dict[str, Any]) -> str:
        """``any(x in D where C)`` and ``all(...)``: the item that decides, or the test."""
        binder = node.binder or ""
        test = node.where if node.where is not None else node.element
        domain = self.text(node.domain, env) if node.domain is not None else "?"
        # any(...) holding and all(...) failing are shown by an item; the other two
        # hold of every item, and are shown as the test.
        witnessed = (node.func == "any") == truth
        if not witnessed or test is None:
            inner = self.text(test, env, bound=(binder,)) if test is not None else ""
            if node.func == "any":
                return f"no {binder} in {domain}" + (f" where {inner}" if inner else "")
            return f"{inner} for every {binder} in {domain}" if inner else (
                f"every {binder} in {domain}")
        items = self._items(node, env)
        wanted = node.func == "any"
        found = [x for x in items if self._truth(test, {**env, binder: x}) is wanted]
        seen = [x for x in found if not self.secret(x)]
        if not seen:
            if found:
                return f"a piece hidden from {self.reader} in {domain}"
            return self._plain(node, truth, env)
        item = seen[0]
        inner = self.why(test, wanted, {**env, binder: item})
        return f"{self.display(item)} in {domain}: {inner}"

    def _items(self, node: ir.Call, env: dict[str, Any]) -> list[Any]:
        if node.domain is None:
            return []
        try:
            return list(_as_iterable(self.evaluate(node.domain, env)))
        except (CortesRulesError, TypeError):
            return []

    # ------------------------------------------------------------ terms
    def term(self, node: ir.Expr, env: dict[str, Any]) -> str:
        """A term of a comparison: its text, and its value where that says more."""
        text = self.text(node, env)
        if isinstance(node, (ir.IntLit, ir.StrLit, ir.NoneLit, ir.BoolLit, ir.Name)):
            return text
        value = self._value(node, env)
        if value is _UNKNOWN:
            return text
        shown = self._shown(node, value, env)
        return text if shown is None or shown == text else f"{text} ({shown})"

    def text(self, node: ir.Expr, env: dict[str, Any], bound: Iterable[str] = ()) -> str:
        """The expression's text, each variable replaced by its value (``bound`` excepted)."""
        return render_expr(self._substituted(node, env, frozenset(bound)))

    def _substituted(self, node: Any, env: dict[str, Any], bound: frozenset[str]) -> Any:
        if isinstance(node, ir.Name):
            if node.id in bound:
                return node
            return ir.Name(self._name(node.id, env), node.span)
        if isinstance(node, ir.Call) and node.binder is not None:
            inner = bound | {node.binder}
            return attrs.evolve(
                node,
                args=tuple(self._substituted(a, env, bound) for a in node.args),
                domain=(self._substituted(node.domain, env, bound)
                        if node.domain is not None else None),
                element=(self._substituted(node.element, env, inner)
                         if node.element is not None else None),
                where=(self._substituted(node.where, env, inner)
                       if node.where is not None else None))
        if isinstance(node, ir.Call) and node.binder is None and node.args:
            return attrs.evolve(node, args=tuple(self._argument(a, env, bound)
                                                 for a in node.args))
        if isinstance(node, tuple):
            return tuple(self._substituted(x, env, bound) for x in node)
        if attrs.has(type(node)) and not isinstance(node, (Span, ir.Is)):
            changes = {f.name: self._substituted(getattr(node, f.name), env, bound)
                       for f in attrs.fields(type(node))
                       if f.name != "span" and _holds_expression(getattr(node, f.name))}
            return attrs.evolve(node, **changes) if changes else node
        if isinstance(node, ir.Is):
            return attrs.evolve(node, subject=self._substituted(node.subject, env, bound))
        return node

    def _argument(self, node: ir.Expr, env: dict[str, Any], bound: frozenset[str]) -> Any:
        """An argument of a call: an attribute that holds a piece or a place shows it
        (``adjacent(S29.hex (3010), 2810)``)."""
        done = self._substituted(node, env, bound)
        if not isinstance(node, ir.Attr) or bound & _names_in(node):
            return done
        value = self._value(node, env)
        if not isinstance(value, _ENTITIES):
            return done
        return ir.Name(f"{render_expr(done)} ({self._shown(node, value, env)})", node.span)

    def _name(self, name: str, env: dict[str, Any]) -> str:
        """How a name reads in a fact: a piece or place by its id, another variable or
        game value as ``name (value)``, a declared symbol as written."""
        if name in env:
            value = env[name]
        elif name in self.values:
            value = self.values[name]
        else:
            # A built-in (``phase``, ``turn``) shows its value; a declared symbol
            # (a player, a table, a set of places) is its own name.
            value = self._value(_name_node(name), env)
            if type(value) not in (int, str, bool):
                return name
        if isinstance(value, _ENTITIES):
            return self.display(value)
        shown = _small(value, self.display)
        return name if shown is None or shown == name else f"{name} ({shown})"

    def _shown(self, node: ir.Expr, value: Any, env: dict[str, Any]) -> str | None:
        if isinstance(node, ir.Attr):
            try:
                owner = self.evaluate(node.obj, env)
            except CortesRulesError:
                return None
            if self.secret(owner) or self.secret_attribute(owner, node.name):
                return "?"
        return _small(value, self.display)

    def _label(self, node: ir.Expr) -> str:
        if isinstance(node, ir.Attr):
            return self.labels.get(node.name, "")
        if isinstance(node, ir.Name):
            return self.labels.get(node.id, "")
        return ""

    # ------------------------------------------------------------ evaluation
    def _value(self, node: ir.Expr, env: dict[str, Any]) -> Any:
        try:
            return self.evaluate(node, env)
        except CortesRulesError:
            return _UNKNOWN

    def _truth(self, node: ir.Expr, env: dict[str, Any]) -> bool | None:
        value = self._value(node, env)
        return None if value is _UNKNOWN else bool(value)

    def _plain(self, node: ir.Expr, truth: bool, env: dict[str, Any]) -> str:
        text = self.text(node, env)
        return text if truth else f"not ({text})"


@functools.cache
def _name_node(name: str) -> ir.Name:
    """A bare name as an expression (one node per name, so that its compiled form is kept)."""
    return ir.Name(name, _NOWHERE)


def _names_in(node: Any) -> frozenset[str]:
    """The bare names an expression reads."""
    if isinstance(node, ir.Name):
        return frozenset((node.id,))
    if isinstance(node, tuple):
        return frozenset().union(*(_names_in(x) for x in node))
    if attrs.has(type(node)) and not isinstance(node, Span):
        return frozenset().union(*(_names_in(getattr(node, f.name))
                                   for f in attrs.fields(type(node)) if f.name != "span"))
    return frozenset()


def _holds_expression(value: Any) -> bool:
    if isinstance(value, tuple):
        return any(_holds_expression(x) for x in value)
    return attrs.has(type(value)) and not isinstance(value, Span)


def _small(value: Any, display: Callable[[Any], str]) -> str | None:
    """A value as a fact shows it, or None when it is too big to say (a table, a map's
    worth of places)."""
    if isinstance(value, (tuple, list, frozenset, set)):
        if len(value) > _SMALL:
            return None
        return display(value) if value else "nothing"
    if isinstance(value, (int, str, bool, Piece, Place, Player)) or value is None:
        return display(value)
    text = format_value(value)
    return text if len(text) <= 40 else None
