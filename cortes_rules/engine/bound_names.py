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

from typing import Any

import attrs

from ..dsl import ir

ENGINE_NAMES = frozenset({"piece", "place", "player", "viewer"})
"""Names the engine binds when it evaluates a clause: a hide clause's piece or
player and viewer, a derived value's owner (engine/machine.py)."""


def names_bound(program: ir.Program) -> frozenset[str]:
    """Every name the variables of some evaluation of ``program`` may hold."""
    found: set[str] = set(ENGINE_NAMES)
    stack: list[Any] = list(program.statements)
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
            continue
        if not attrs.has(type(node)):
            continue
        if isinstance(node, (ir.Procedure, ir.FunctionDecl)):
            found.update(node.params)
        elif isinstance(node, (ir.Let, ir.ForEach, ir.OptionParam, ir.ChooseSealed, ir.Roll,
                               ir.Draw, ir.ActionParam)):
            found.add(node.name)
        elif isinstance(node, ir.Option):
            found.update(name for name, _ in node.bindings)
        elif isinstance(node, ir.Call) and node.binder is not None:
            found.add(node.binder)
        elif isinstance(node, (ir.AttributeDecl, ir.DeriveDecl)):
            found.add(node.owner)
        elif isinstance(node, ir.StartRequireDecl) and node.var:
            found.add(node.var)
        stack.extend(getattr(node, f.name) for f in attrs.fields(type(node)))
    return frozenset(found)
