"""Expressions of the core IR, evaluated directly (``core.ir`` module docstring).

``Evaluator.value(e, slots, ctx)`` evaluates one expression: ``slots`` is the
frame whose ``Slot`` nodes it reads, ``ctx`` the frame a ``Ctx`` node reads by
name (``Scope``: the consulting procedure's frame, or the clause's own).
``if``, ``and`` and ``or`` are lazy; every other ``Op`` evaluates its
arguments left to right first. The state (``State``) supplies what changes.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from .. import ir
from . import values as v

if TYPE_CHECKING:
    from .state import State

UNBOUND = object()
"""What a slot holds before anything is written to it."""


class Scope:
    """A frame as ``Ctx`` reads it: its variables by name, and its slots."""

    __slots__ = ("names", "slots")

    def __init__(self, names: dict[str, int], slots: list[Any]) -> None:
        self.names, self.slots = names, slots

    def get(self, name: str) -> Any:
        at = self.names.get(name)
        return UNBOUND if at is None else self.slots[at]


def variables(slot_names: tuple[str, ...]) -> dict[str, int]:
    """The slot of each variable of a frame by name (the first slot of a name)."""
    found: dict[str, int] = {}
    for i, name in enumerate(slot_names):
        found.setdefault(name, i)
    return found


class Bound(Scope):
    """A function's parameters by name over the frame that called it (``Op.params``)."""

    __slots__ = ("given", "outer")

    def __init__(self, given: dict[str, Any], outer: Scope) -> None:
        self.given, self.outer = given, outer

    def get(self, name: str) -> Any:
        found = self.given.get(name, UNBOUND)
        return self.outer.get(name) if found is UNBOUND else found


class RulesError(Exception):
    """A rule cannot be evaluated or carried out here (the engine's RulesRuntimeError)."""


class Evaluator:
    """The expression half of the interpreter; ``State`` inherits it."""

    drawn: set[str] | None
    values: list[Any]

    def ref(self, e: ir.Ref) -> Any:
        raise NotImplementedError   # what the state's tables hold (``State.ref``)

    def value(self, e: ir.Expr, slots: list[Any], ctx: Scope) -> Any:
        kind = type(e)
        if kind is ir.Slot:
            found = slots[e.index]   # type: ignore[union-attr]
            if found is UNBOUND:
                raise RulesError(f"a variable is read before it is set [rule {e.rule}]")
            return found
        if kind is ir.Op:
            return self.op(e, slots, ctx)  # type: ignore[arg-type]
        if kind is ir.Const:
            return self.const(e.value)  # type: ignore[union-attr]
        if kind is ir.Global:
            return self.values[e.index]  # type: ignore[union-attr]
        if kind is ir.Ref:
            return self.ref(e)  # type: ignore[arg-type]
        if kind is ir.Ctx:
            found = ctx.get(e.name)  # type: ignore[union-attr]
            if found is not UNBOUND:
                return found
            if e.default is None:  # type: ignore[union-attr]
                raise RulesError(f"unknown name {e.name!r} [rule {e.rule}]")  # type: ignore
            return self.value(e.default, slots, ctx)  # type: ignore[union-attr]
        return self.each(e, slots, ctx)  # type: ignore[arg-type]

    def const(self, value: Any) -> Any:
        return value

    def op(self, e: ir.Op, slots: list[Any], ctx: Scope) -> Any:
        name = e.op
        lazy = _LAZY.get(name)
        if lazy is not None:
            return lazy(self, e, slots, ctx)  # type: ignore[arg-type]
        args = [self.value(a, slots, ctx) for a in e.args]
        pure = v.PURE.get(name)
        if pure is not None:
            return pure(*args)
        return _OPS[name](self, e, args, ctx)

    def each(self, e: ir.Each, slots: list[Any], ctx: Scope) -> Any:
        """A comprehension (``Each``): each item of the domain bound to ``e.slot`` (and,
        with ``e.name``, seen by that name by the clauses it consults)."""
        domain = self.value(e.domain, slots, ctx)
        seen = Bound({}, ctx) if e.name else None
        ctx = seen or ctx

        def bind(x: Any) -> None:
            slots[e.slot] = x
            if seen is not None:
                seen.given[e.name] = x

        if e.reduce == "distribution":
            weighted = (v.dice_outcomes(domain) if isinstance(domain, v.Dice) else
                        [(x, Fraction(1, len(list(v.items(domain))))) for x in v.items(domain)])
            chances: dict[Any, Fraction] = {}
            for x, weight in weighted:
                bind(x)
                if e.where is None or self.value(e.where, slots, ctx):
                    got = self.value(e.element, slots, ctx) if e.element is not None else x
                    chances[got] = chances.get(got, Fraction(0)) + weight
            return dict(sorted(chances.items(), key=lambda kv: v.order_key(kv[0])))
        if e.reduce == "all":
            for x in v.items(domain):
                bind(x)
                if e.where is not None and not self.value(e.where, slots, ctx):
                    return False
                if e.element is not None and not self.value(e.element, slots, ctx):
                    return False
            return True
        found = []
        for x in v.items(domain):
            bind(x)
            if e.where is None or self.value(e.where, slots, ctx):
                if e.reduce == "any" and e.element is None:
                    return True
                found.append(self.value(e.element, slots, ctx) if e.element is not None else x)
        if e.default is not None and e.reduce in ("max", "min", "first"):
            if not found:
                return self.value(e.default, slots, ctx)
            return found[0] if e.reduce == "first" else (max if e.reduce == "max" else min)(
                found)
        return _REDUCE[e.reduce](found)


_REDUCE: dict[str, Callable[[list[Any]], Any]] = {
    "count": len, "any": lambda xs: any(bool(x) for x in xs),
    "sum": lambda xs: v.absorb(sum, xs), "max": lambda xs: v.absorb(max, xs),
    "min": lambda xs: v.absorb(min, xs), "distinct": frozenset, "set": frozenset,
    "list": tuple, "first": lambda xs: xs[0] if xs else None,
    "union": lambda xs: frozenset(x for c in xs for x in c),
    "sorted": lambda xs: tuple(v.in_order(xs)),
}


def _if(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> Any:
    test, then, otherwise = e.args
    return s.value(then if s.value(test, slots, ctx) else otherwise, slots, ctx)


def _and(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> bool:
    return all(s.value(a, slots, ctx) for a in e.args)


def _or(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> bool:
    return any(s.value(a, slots, ctx) for a in e.args)


def _function(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> Any:
    """An expanded function: its arguments first when the clauses it consults read its
    parameters; its rule joins the trail being kept (not a library's)."""
    if e.params:
        given = [s.value(a, slots, ctx) for a in e.args[1:]]
        ctx = Bound(dict(zip(e.params, given, strict=True)), ctx)
    if s.drawn is not None and not e.rule.startswith("lib:"):
        s.drawn.add(e.rule)
    return s.value(e.args[0], slots, ctx)


def _with_rules(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> Any:
    """``with_rules(x)``: x and the rules its evaluation drew on, in rule order."""
    outer, s.drawn = s.drawn, set()
    try:
        found = s.value(e.args[0], slots, ctx)
        drawn = s.drawn
    finally:
        s.drawn = outer
    if outer is not None:
        outer |= drawn
    return (found, tuple(v.cited_rules(tuple(drawn))))


def _defined(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> bool:
    try:
        s.value(e.args[0], slots, ctx)
    except (RulesError, ArithmeticError, TypeError, KeyError, ValueError, IndexError,
            AttributeError):
        return False
    return True


def _hook(which: str) -> Callable[[State, ir.Op, list[Any], Scope], Any]:
    def hook(s: State, e: ir.Op, slots: list[Any], ctx: Scope) -> Any:
        applying = s.applying(e.key, ctx)
        if which == "values":
            return tuple(x for x, _ in applying)
        if which == "rules":
            return tuple(r for _, r in applying)
        if which == "failing":
            return tuple(r for x, r in applying if not x)
        return tuple(applying)
    return hook


_LAZY = {"if": _if, "and": _and, "or": _or, "function": _function,
         "with_rules": _with_rules, "defined": _defined, "hook": _hook("values"),
         "hook_rules": _hook("rules"), "hook_failing": _hook("failing"),
         "hook_applied": _hook("applied")}


def _compare(test: Callable[[Any, Any], bool]) -> Callable[..., bool]:
    return lambda s, e, a, ctx: test(v.rank(a[0]), v.rank(a[1]))


_OPS: dict[str, Callable[..., Any]] = {
    "==": lambda s, e, a, ctx: a[0] == a[1],
    "!=": lambda s, e, a, ctx: a[0] != a[1],
    "<": _compare(lambda x, y: x < y), "<=": _compare(lambda x, y: x <= y),
    ">": _compare(lambda x, y: x > y), ">=": _compare(lambda x, y: x >= y),
    "+": lambda s, e, a, ctx: v.add(a[0], a[1]),
    "-": lambda s, e, a, ctx: a[0] - a[1],
    "*": lambda s, e, a, ctx: a[0] * a[1],
    "/": lambda s, e, a, ctx: v.divide(a[0], a[1]),
    "mod": lambda s, e, a, ctx: a[0] % a[1],
    "neg": lambda s, e, a, ctx: -a[0],
    "not": lambda s, e, a, ctx: not a[0],
    "in": lambda s, e, a, ctx: a[0] in a[1],
    "notin": lambda s, e, a, ctx: a[0] not in a[1],
    "list": lambda s, e, a, ctx: tuple(a),
    "set": lambda s, e, a, ctx: frozenset(a),
    "index": lambda s, e, a, ctx: v.index(a[0], a[1]),
    "is": lambda s, e, a, ctx: v.is_test(a[0], e.key),
    "attr": lambda s, e, a, ctx: s.attribute(a[0], e.key),
    "turn": lambda s, e, a, ctx: s.turn,
    "phase": lambda s, e, a, ctx: s.game.phases[s.phase_index].name,
    "rolled": lambda s, e, a, ctx: s.last_roll,
    "next_player": lambda s, e, a, ctx: s.next_player(a[0]),
    "distance": lambda s, e, a, ctx: s.board.distance(a[0], a[1]),
    "sight_lines": lambda s, e, a, ctx: s.board.sight_lines(a[0], a[1]),
    "direction": lambda s, e, a, ctx: s.board.direction(a[0], a[1]),
    "hexside": lambda s, e, a, ctx: s.board.hexside(a[0], a[1]),
    "zone": lambda s, e, a, ctx: s.board.zone(a[0]),
    "allowed": lambda s, e, a, ctx: s.allowed(a[0], ctx),
    "forbid_rules": lambda s, e, a, ctx: s.board.clause_rules("forbid", a[0]),
    "permit_rules": lambda s, e, a, ctx: s.board.clause_rules("permit", a[0]),
    "forbids_reading": lambda s, e, a, ctx: s.board.forbids_reading(a[0]),
}
