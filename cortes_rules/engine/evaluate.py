"""The reference evaluator of rules-language expressions.

An :class:`Env` binds a context's variables (see
:mod:`cortes_rules.dsl.contexts`) and evaluates expressions against a game
state, computing ``define``\\ d values on demand. While it works it records
the rules it drew on (defines used, tables read) in :attr:`Env.trail`, so an
adjudication can cite every rule behind it.

Values: ints and exact :class:`~fractions.Fraction`\\ s, bools, strings (declared
names), frozensets, :class:`UnitView`, :class:`HexView`, :class:`TableRef`,
:class:`RowRef`, and table cells (ints, names, ``{side: value}`` dicts).
A name cell such as ``prohibited`` absorbs ``max``/``min``/``sum``: the
result is that name, which the engine reads as "not allowed".
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..dsl import ir
from . import hexgrid

if TYPE_CHECKING:
    from .state import GameState


class EvaluationError(Exception):
    """An expression cannot be evaluated in this state (e.g. a division by zero)."""

    def __init__(self, message: str, span: Any = None) -> None:
        super().__init__(message)
        self.span = span


class UnitView:
    """A unit as expressions see it: its counter's values and its current state."""

    __slots__ = ("id", "state")

    def __init__(self, state: GameState, unit_id: str) -> None:
        self.state = state
        self.id = unit_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, UnitView) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("unit", self.id))

    def __repr__(self) -> str:
        return f"<unit {self.id}>"

    def attribute(self, name: str) -> Any:
        spec = self.state.book.unit(self.id)
        live = self.state.units[self.id]
        if name == "side":
            return spec.side
        if name == "class":
            return spec.cls
        if name == "steps":
            return live.steps
        if name == "max_steps":
            return spec.max_steps
        if name == "combat":
            return spec.combat_at(live.steps)
        if name == "move":
            return spec.move
        if name == "spent":
            return live.spent
        if name == "moved":
            return live.moved
        if name == "attacked":
            return live.attacked
        if name == "hex":
            return HexView(self.state, live.hex) if live.hex else None
        if name in spec.properties:
            return spec.properties[name]
        raise EvaluationError(f"unit {self.id} has no {name!r}")

    def has(self, name: str) -> bool:
        return name in self.state.book.unit(self.id).tags


class HexView:
    """A hex as expressions see it."""

    __slots__ = ("id", "state")

    def __init__(self, state: GameState, hex_id: str) -> None:
        self.state = state
        self.id = hex_id

    def __eq__(self, other: object) -> bool:
        return isinstance(other, HexView) and other.id == self.id

    def __hash__(self) -> int:
        return hash(("hex", self.id))

    def __repr__(self) -> str:
        return f"<hex {self.id}>"

    def attribute(self, name: str) -> Any:
        if name == "units":
            return frozenset(UnitView(self.state, u) for u in self.state.units_in(self.id))
        if name == "terrain":
            return self.state.book.terrain(self.id)
        if name == "attacked":
            return self.id in self.state.attacked_hexes
        raise EvaluationError(f"a hex has no {name!r}")

    def has(self, name: str) -> bool:
        return name in self.state.book.terrain(self.id)


class TableRef:
    __slots__ = ("name",)

    def __init__(self, name: str) -> None:
        self.name = name


class RowRef:
    __slots__ = ("key", "table")

    def __init__(self, table: str, key: Any) -> None:
        self.table = table
        self.key = key


def _numeric(value: Any) -> bool:
    return isinstance(value, (int, Fraction)) and not isinstance(value, bool)


class Env:
    """Variables of one context, and the memory of what was used.

    Args:
        state: the game state expressions read.
        context: the context's name (``move``, ``combat``...).
        variables: the context's variables, as values.
    """

    def __init__(self, state: GameState, context: str, variables: Mapping[str, Any]) -> None:
        self.state = state
        self.book = state.book
        self.context = context
        self.variables = dict(variables)
        self.trail: set[str] = set()
        self._defines: dict[str, Any] = {}

    def bind(self, **more: Any) -> Env:
        """A copy of this env with more variables (defines are recomputed)."""
        env = Env(self.state, self.context, {**self.variables, **more})
        env.trail = self.trail
        return env

    # -------------------------------------------------------------- names
    def name(self, ident: str, local: Mapping[str, Any]) -> Any:
        if ident in local:
            return local[ident]
        if ident in self.variables:
            return self.variables[ident]
        define = self.book.define(self.context, ident)
        if define is not None:
            if ident not in self._defines:
                self._defines[ident] = self.eval(define.expr)
            self.trail.add(define.rule)
            return self._defines[ident]
        if ident in self.book.tables:
            return TableRef(ident)
        if self.book.is_symbol(ident):
            return ident
        raise EvaluationError(f"unknown name {ident!r}")

    # -------------------------------------------------------------- evaluation
    def eval(self, node: ir.Expr, local: Mapping[str, Any] | None = None) -> Any:
        """The value of an expression."""
        local = local or {}
        ev = self.eval
        if isinstance(node, ir.IntLit):
            return node.value
        if isinstance(node, ir.BoolLit):
            return node.value
        if isinstance(node, ir.Name):
            return self.name(node.id, local)
        if isinstance(node, ir.SetLit):
            return frozenset(ev(i, local) for i in node.items)
        if isinstance(node, ir.Attr):
            return self.attribute(ev(node.obj, local), node.name, node)
        if isinstance(node, ir.Index):
            return self.index(node, local)
        if isinstance(node, ir.Not):
            return not ev(node.operand, local)
        if isinstance(node, ir.BoolOp):
            if node.op == "and":
                return bool(ev(node.left, local)) and bool(ev(node.right, local))
            return bool(ev(node.left, local)) or bool(ev(node.right, local))
        if isinstance(node, ir.Compare):
            return _compare(node.op, ev(node.left, local), ev(node.right, local))
        if isinstance(node, ir.Member):
            found = ev(node.item, local) in ev(node.collection, local)
            return not found if node.negated else found
        if isinstance(node, ir.Is):
            subject = ev(node.subject, local)
            if isinstance(subject, (UnitView, HexView)):
                return subject.has(node.name)
            return node.name in subject
        if isinstance(node, ir.Arith):
            return self.arith(node, ev(node.left, local), ev(node.right, local))
        if isinstance(node, ir.Neg):
            return -ev(node.operand, local)
        if isinstance(node, ir.Call):
            return self.call(node, local)
        raise EvaluationError(f"cannot evaluate {node!r}")

    def attribute(self, value: Any, name: str, node: ir.Attr) -> Any:
        if isinstance(value, (UnitView, HexView)):
            return value.attribute(name)
        if isinstance(value, RowRef):
            table = self.book.tables[value.table]
            self.trail.add(table.rule)
            return table.cell(value.key, name)
        raise EvaluationError(f"no attribute {name!r} on {value!r}", node.span)

    def index(self, node: ir.Index, local: Mapping[str, Any]) -> Any:
        base = self.eval(node.obj, local)
        if isinstance(base, TableRef):
            key_node = node.key
            if isinstance(key_node, ir.Name) and key_node.id not in local and (
                    key_node.id not in self.variables) and self.book.define(
                    self.context, key_node.id) is None:
                key: Any = key_node.id
            else:
                key = self.eval(key_node, local)
            return RowRef(base.name, key)
        key = self.eval(node.key, local)
        if isinstance(base, Mapping):
            if key not in base:
                raise EvaluationError(f"no entry {key!r} in {dict(base)!r}", node.span)
            return base[key]
        raise EvaluationError(f"cannot index {base!r}", node.span)

    def arith(self, node: ir.Arith, left: Any, right: Any) -> Any:
        if not (_numeric(left) and _numeric(right)):
            return right if _numeric(left) else left  # a name cell absorbs arithmetic
        if node.op == "+":
            return left + right
        if node.op == "-":
            return left - right
        if node.op == "*":
            return left * right
        if right == 0:
            raise EvaluationError("division by zero", node.span)
        if node.op == "/":
            result = Fraction(left) / Fraction(right)
            return int(result) if result.denominator == 1 else result
        return left % right

    def call(self, node: ir.Call, local: Mapping[str, Any]) -> Any:
        func = node.func
        if node.binder is None:
            args = [self.eval(a, local) for a in node.args]
            if func == "floor":
                return math.floor(args[0])
            if func == "ceil":
                return math.ceil(args[0])
            if func == "adjacent":
                return self.book.adjacent(args[0].id, args[1].id)
            if func == "distance":
                return hexgrid.distance(args[0].id, args[1].id, self.book.odd_columns_low)
            return _aggregate(func, list(args[0]))
        assert node.domain is not None
        domain = sorted(self.eval(node.domain, local), key=_order)
        picked = []
        for item in domain:
            inner = {**local, node.binder: item}
            if node.where is not None and not self.eval(node.where, inner):
                if func == "all":
                    return False
                continue
            picked.append(self.eval(node.element, inner) if node.element is not None else item)
        if func == "all":
            return True
        return _aggregate(func, picked)


def _order(value: Any) -> Any:
    """A total order over set members, so iteration is deterministic."""
    if isinstance(value, (UnitView, HexView)):
        return (1, value.id)
    return (0, str(value)) if not _numeric(value) else (0, f"{value:020}")


def _aggregate(func: str, items: list[Any]) -> Any:
    if func == "count":
        return len(items)
    if func == "any":
        return len(items) > 0
    if func == "distinct":
        return frozenset(items)
    absorbing = [i for i in items if not _numeric(i)]
    if absorbing:
        return absorbing[0]
    if func == "sum":
        return sum(items)
    if not items:
        raise EvaluationError(f"{func} of nothing")
    return max(items) if func == "max" else min(items)


def _compare(op: str, left: Any, right: Any) -> bool:
    if op == "==":
        return bool(left == right)
    if op == "!=":
        return bool(left != right)
    if not (_numeric(left) or isinstance(left, float)) or not (
            _numeric(right) or isinstance(right, float)):
        # A name cell ("prohibited") is beyond every number.
        left = math.inf if not (_numeric(left) or isinstance(left, float)) else left
        right = math.inf if not (_numeric(right) or isinstance(right, float)) else right
    return bool({"<": left < right, "<=": left <= right, ">": left > right,
                 ">=": left >= right}[op])


def first_true(env: Env, clauses: Iterable[Any], attribute: str = "when") -> Any:
    """The first clause whose condition holds, or None."""
    for clause in clauses:
        if env.eval(getattr(clause, attribute)):
            return clause
    return None
