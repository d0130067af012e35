"""Which names the variables of an evaluation (its ``env``) can ever hold.

The rules language scopes names dynamically: an expression reads a name from
the variables in scope (a procedure's, a function's parameters, a
comprehension's item) before the rulebook's declarations, so a hook's
contribution can read the ``unit`` its caller bound. Generated code
(engine/codegen.py) therefore looked every free name up in ``env`` first,
declarations included: ``env.get("combat_table", MISS)`` at the top of each
function that reads the hook, and a test of the result.

A name that nothing ever binds is always the declaration. ``names_bound``
gathers every name something can bind: the parameters of procedures,
functions and actions; ``let``, ``for each``, ``roll``, ``draw``, option
parameters and bindings, a sealed round's chooser; comprehension variables;
the owners of attributes and derived values and the variable of a start
requirement; and the names the engine itself binds (``piece``, ``place``,
``player``, ``viewer``, for visibility and derived values). Generated code
reads only these from ``env``; any other name goes straight to its
declaration, as the reference interpreter (engine/compile.py) finds it,
since no ``env`` ever holds it. A superset is always safe: a name listed
that is never bound costs a lookup, nothing else. Nothing here knows a game.
"""

from __future__ import annotations

import typing
from typing import Any

import attrs

from ..dsl import ir

ENGINE_NAMES = frozenset({"piece", "place", "player", "viewer"})
"""Names the engine binds when it evaluates a clause: a hide clause's piece or
player and viewer, a derived value's owner (engine/machine.py)."""


def names_bound(program: ir.Program) -> frozenset[str]:
    """Every name the variables of some evaluation of ``program`` may hold."""
    return frozenset(_binders(program.statements, ENGINE_NAMES, expressions=True))


def procedure_variables(program: ir.Program) -> frozenset[str]:
    """Every name a procedure of the program may bind: parameters, lets, loops, options,
    the results of rolls and draws, a sealed round's chooser. (The clause compiler,
    engine/bytecode.py, reads a global name as such only where none of these can hide
    it.)

    A subset of ``names_bound``: the same walk, from the procedures alone and
    without going into expressions, whose comprehension variables a procedure's
    variables never hold. (``set name = ...`` binds nothing: it changes a variable
    bound by one of these, or a game value.)
    """
    return frozenset(_binders(program.of(ir.Procedure), (), expressions=False))


def _binders(roots: Any, start: Any, *, expressions: bool) -> set[str]:
    """The names bound anywhere under ``roots``, with ``start``; below expressions too
    when ``expressions`` is true."""
    found: set[str] = set(start)
    stack: list[Any] = list(roots)
    fields = _FIELDS
    while stack:
        node = stack.pop()
        kind = type(node)
        if kind is tuple or kind is list:
            stack.extend(node)
            continue
        names = fields.get(kind)
        if names is None:
            names = fields[kind] = _node_fields(kind)
        if not names or (not expressions and kind in _EXPRESSIONS):
            continue
        if kind is ir.Procedure or kind is ir.FunctionDecl:
            found.update(node.params)
        elif kind in _BINDERS:
            found.add(node.name)
        elif kind is ir.Option:
            found.update(name for name, _ in node.bindings)
        elif kind is ir.Call and node.binder is not None:
            found.add(node.binder)
        elif kind is ir.AttributeDecl or kind is ir.DeriveDecl:
            found.add(node.owner)
        elif kind is ir.StartRequireDecl and node.var:
            found.add(node.var)
        for name in names:
            value = getattr(node, name)
            if value is not None and type(value) not in _LEAVES:
                stack.append(value)
    return found


_BINDERS = frozenset({ir.Let, ir.ForEach, ir.OptionParam, ir.ChooseSealed, ir.Roll, ir.Draw,
                      ir.ActionParam})
_LEAVES = frozenset({str, int, bool, float})
_EXPRESSIONS = frozenset(typing.get_args(ir.Expr))
_FIELDS: dict[type, tuple[str, ...]] = {}
"""The fields of each node type that may hold nodes (its position aside), by type."""


def _node_fields(kind: type) -> tuple[str, ...]:
    if not attrs.has(kind):
        return ()
    return tuple(f.name for f in attrs.fields(kind) if f.name != "span")
