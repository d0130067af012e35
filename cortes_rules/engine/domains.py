"""Option domains that are filtered lists of all the pieces, listed natively.

An option's first parameter often ranges over a list such as
``land_units(side)`` (hex_wargame.rules: a side's units on the map, in
hexes). The interpreter builds that list by walking every piece and testing
each, in Python, at every decision. This stage recognises such a domain:
once the rulebook's functions are expanded (their parameters replaced by the
arguments), it must be a chain of comprehensions
``list(u for u in D where C)`` whose innermost ``D`` is ``pieces``, all the
pieces in their order. The conditions of the chain, joined by ``and`` over
one piece, compile to clause bytecode (``bytecode.ClauseCompiler``) with
the piece in slot 0 and the procedure's variables the conditions read
(``side``) in the slots after it, typed by the values they hold when the
domain is first listed. ``_core.ClauseMachine.filter_pieces`` then gives the
indices of the pieces the conditions hold for, in the interpreter's order,
with no Python object in the loop; ``filter_pieces()`` below is its
specification.

The interpreter stays the judge: a condition that answers ``UNKNOWN`` for any
piece (it would fail, or reads a value that is no integer), a variable that
is missing or of another type, or a procedure variable named ``pieces``
hands the whole domain back to the generated code. Nothing here knows a game.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import attrs

from ..core.world import Piece, Place, Player
from ..dsl import ir
from ..dsl.diagnostics import Span
from . import bytecode as bc

SLOT = "$piece"
"""The name the joined condition gives the piece tested (no rulebook name has a ``$``)."""
ALL_PIECES = "pieces"

TYPES: dict[type[Any], str] = {Piece: "piece", Place: "place", Player: "player"}
"""The clause machine's type of a variable's value, by its class (pieces, places, players)."""
_EXPRESSIONS = bc.EXPRESSIONS   # the IR classes a walk goes into


def substitute(node: Any, mapping: Mapping[str, ir.Expr]) -> Any:
    """``node`` with each free ``Name`` of ``mapping`` replaced by its expression.

    A comprehension's binder hides the name in its condition and element
    (not in its domain, which is read outside it).
    """
    if isinstance(node, ir.Name):
        return mapping.get(node.id, node)
    if isinstance(node, tuple):
        items = tuple(substitute(item, mapping) for item in node)
        return node if all(a is b for a, b in zip(items, node, strict=True)) else items
    if not isinstance(node, _EXPRESSIONS):
        return node
    inner = mapping
    if isinstance(node, ir.Call) and node.binder is not None and node.binder in mapping:
        inner = {k: v for k, v in mapping.items() if k != node.binder}
    changes = {}
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        hidden = isinstance(node, ir.Call) and field.name in ("element", "where")
        new = substitute(value, inner if hidden else mapping)
        if new is not value:
            changes[field.name] = new
    return attrs.evolve(node, **changes) if changes else node


def free_names(node: Any, bound: frozenset[str] = frozenset()) -> set[str]:
    """The names ``node`` reads that no comprehension inside it binds."""
    found: set[str] = set()
    stack: list[tuple[Any, frozenset[str]]] = [(node, bound)]
    while stack:
        current, hidden = stack.pop()
        if isinstance(current, ir.Name):
            if current.id not in hidden:
                found.add(current.id)
        elif isinstance(current, tuple):
            stack.extend((item, hidden) for item in current)
        elif isinstance(current, _EXPRESSIONS):
            inner = hidden
            if isinstance(current, ir.Call) and current.binder is not None:
                inner = hidden | {current.binder}
            for field in attrs.fields(type(current)):
                within = isinstance(current, ir.Call) and field.name in ("element", "where")
                stack.append((getattr(current, field.name), inner if within else hidden))
    return found


def _binders(node: Any) -> set[str]:
    """Every comprehension binder inside ``node``."""
    found: set[str] = set()
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, tuple):
            stack.extend(current)
        elif isinstance(current, _EXPRESSIONS):
            if isinstance(current, ir.Call) and current.binder is not None:
                found.add(current.binder)
            stack.extend(getattr(current, f.name) for f in attrs.fields(type(current)))
    return found


def _replace(node: ir.Expr, mapping: Mapping[str, ir.Expr]) -> ir.Expr | None:
    """``substitute()``, or None when a binder inside would capture a name of the
    replacements."""
    brought = set().union(*(free_names(e) for e in mapping.values())) if mapping else set()
    if brought & _binders(node):
        return None
    result: ir.Expr = substitute(node, mapping)
    return result


def flatten(domain: ir.Expr, functions: Mapping[str, ir.FunctionDecl],
            depth: int = 0) -> list[ir.Expr] | None:
    """The conditions (over ``SLOT``) of a domain that is a filtered list of all the
    pieces, innermost first; None for any other domain."""
    if depth > 16:
        return None
    if isinstance(domain, ir.Name):
        return [] if domain.id == ALL_PIECES else None
    if not isinstance(domain, ir.Call):
        return None
    if domain.binder is None:
        function = functions.get(domain.func)
        if function is None or len(domain.args) != len(function.params) or not all(
                isinstance(a, (ir.Name, ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit))
                for a in domain.args):
            return None     # arguments the interpreter evaluates without fail, only
        body = _replace(function.body, dict(zip(function.params, domain.args, strict=True)))
        return None if body is None else flatten(body, functions, depth + 1)
    if domain.func != "list" or domain.args or domain.domain is None \
            or not isinstance(domain.element, ir.Name) or domain.element.id != domain.binder:
        return None
    inner = flatten(domain.domain, functions, depth + 1)
    if inner is None or domain.where is None:
        return inner
    condition = _replace(domain.where, {domain.binder: ir.Name(SLOT, domain.where.span)})
    return None if condition is None else [*inner, condition]


def joined(conditions: Sequence[ir.Expr]) -> ir.Expr:
    """The conditions joined by ``and``, left to right (``true`` for none)."""
    if not conditions:
        return ir.BoolLit(True, _NOWHERE)
    result = conditions[0]
    for condition in conditions[1:]:
        result = ir.BoolOp("and", result, condition, condition.span)
    return result


def filter_pieces(code: bc.Code, params: Sequence[int], tables: Any, board: Any,
                  piece_values: Sequence[int], place_values: Sequence[int],
                  values: Sequence[int] = ()) -> list[int] | None:
    """The indices of the pieces ``code`` holds for (the piece in slot 0, ``params``
    after it), ascending; None when it answers ``UNKNOWN`` for any piece.

    The specification of ``_core.ClauseMachine.filter_pieces``.
    """
    return filter_items(code, params, range(tables.n_pieces), tables, board, piece_values,
                        place_values, values)


def filter_items(code: bc.Code, params: Sequence[int], items: Sequence[int], tables: Any,
                 board: Any, piece_values: Sequence[int], place_values: Sequence[int],
                 values: Sequence[int] = ()) -> list[int] | None:
    """The positions in ``items`` (piece or place indices) of those ``code`` holds for
    (the item in slot 0, ``params`` after it), ascending; None when it answers
    ``UNKNOWN`` for any.

    The specification of ``_core.ClauseMachine.filter_items``.
    """
    found = []
    for position, index in enumerate(items):
        answer = bc.run(code, (index, *params), tables, board, piece_values, place_values,
                        values)
        if answer == bc.UNKNOWN:
            return None
        if answer:
            found.append(position)
    return found


class PieceDomain:
    """One option's domain over filtered pieces, compiled per types of the variables
    it reads (``indices()`` lists it natively)."""

    def __init__(self, support: Any, condition: ir.Expr, variables: tuple[str, ...]) -> None:
        self.support, self.condition, self.variables = support, condition, variables
        self._codes: dict[tuple[str, ...], bc.Code | None] = {}

    @classmethod
    def build(cls, support: Any, domain: ir.Expr) -> PieceDomain | None:
        """The compiled domain, or None when it is no filtered list of all the pieces."""
        compiler = support.compiler
        conditions = flatten(domain, compiler.functions)
        if conditions is None:
            return None
        condition = joined(conditions)
        read = free_names(condition) & compiler.variables
        return cls(support, condition, tuple(sorted(read)))

    def code_for(self, types: tuple[str, ...]) -> bc.Code | None:
        """The condition's bytecode with the variables of these types (None: it does
        not compile)."""
        if types not in self._codes:
            params = [(SLOT, "piece"), *zip(self.variables, types, strict=True)]
            self._codes[types] = self.support.compiler.compile("", self.condition, params)
        return self._codes[types]

    def indices(self, s: Any, env: Mapping[str, Any]) -> list[int] | None:
        """The indices of the domain's pieces in this state, or None (the generated
        code lists the domain instead)."""
        if ALL_PIECES in env:
            return None
        params = []
        types = []
        for name in self.variables:
            value: Any = env.get(name)
            kind = TYPES.get(type(value))
            if kind is None:
                return None
            types.append(kind)
            params.append(value.index)
        code = self.code_for(tuple(types))
        if code is None:
            return None
        native = s.native
        values = bc.value_cells(code.values, s) if code.values else ()
        found: list[int] | None = self.support.clauses.filter_pieces(
            code.ops, params, native.board, native.pieces, native.places, values)
        return found


_NOWHERE = Span("", 0, 0, 0)
