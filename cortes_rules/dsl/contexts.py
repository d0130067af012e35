"""What an expression can see: the contract between the checker and the engine.

Each statement is evaluated by the engine in one *context*, which binds a
fixed set of variables; the checker types expressions against the same
tables, so a rulebook that checks never asks the engine for a name it does
not provide. Types are strings: ``int``, ``num`` (exact rational), ``bool``,
``unit``, ``hex``, ``set:T``, ``name:KIND`` (a declared symbol of a kind),
``table:NAME``, ``row:NAME``, and ``any`` (a table cell, typed at run time).
"""

from __future__ import annotations

from . import ir

UNIT_ATTRIBUTES: dict[str, str] = {
    "side": "name:side",       # the side the unit belongs to
    "class": "name:class",     # its unit class
    "steps": "int",            # steps it has now
    "max_steps": "int",        # steps it started with (2.10)
    "combat": "int",           # combat factor at its current steps
    "move": "int",             # printed movement factor
    "spent": "int",            # movement points spent this phase
    "moved": "int",            # hexes entered this phase
    "attacked": "bool",        # has attacked this phase
    "hex": "hex",              # where it is
}

HEX_ATTRIBUTES: dict[str, str] = {
    "units": "set:unit",           # every unit in the hex
    "terrain": "set:name:terrain",  # its terrain types
    "attacked": "bool",            # has been attacked this phase
}

_BATTLE = {"target": "hex", "attackers": "set:unit", "attack_directions": "set:int",
           "side": "name:side"}

CONTEXTS: dict[str, dict[str, str]] = {
    "move": {"unit": "unit", "from": "hex", "to": "hex", "crossing": "set:name:hexside",
             "side": "name:side"},
    "move_check": {"unit": "unit", "from": "hex", "to": "hex",
                   "crossing": "set:name:hexside", "side": "name:side", "cost": "int"},
    "stack": {"units": "set:unit", "hex": "hex", "side": "name:side"},
    "attack": {"target": "hex", "side": "name:side"},
    "join": {"unit": "unit", "target": "hex", "side": "name:side"},
    "combat": dict(_BATTLE),
    # In `lose`, `side` is the side taking the loss and `involved` its units.
    "lose": {**_BATTLE, "unit": "unit", "involved": "set:unit"},
    "advance": {**_BATTLE, "unit": "unit", "survivors": "set:unit", "would_overstack": "bool"},
    "battle_end": {**_BATTLE, "survivors": "set:unit"},
}

# Which contexts see a `define CONTEXT name = ...`.
DEFINE_SCOPES: dict[str, tuple[str, ...]] = {
    "move": ("move", "move_check"),
    "combat": ("combat", "lose", "advance", "battle_end"),
    "stack": ("stack",),
    "loss": ("lose",),
    "advance": ("advance",),
}
DEFINE_HOME = {"move": "move", "combat": "combat", "stack": "stack", "loss": "lose",
               "advance": "advance"}

# The context a forbid/permit clause of each action kind is evaluated in.
ACTION_CONTEXTS = {"move": "move_check", "attack": "attack", "join": "join", "lose": "lose",
                   "advance": "advance"}

# Built-in functions: name -> (comprehension allowed, plain argument types or None).
FUNCTIONS = {"count", "any", "all", "sum", "max", "min", "distinct", "floor", "ceil",
             "adjacent", "distance"}


def context_of(statement: ir.Statement) -> str | None:
    """The context in which the engine evaluates a statement's expressions."""
    if isinstance(statement, ir.Cost):
        return "move"
    if isinstance(statement, (ir.Forbid, ir.Permit)):
        return ACTION_CONTEXTS.get(statement.action)
    if isinstance(statement, ir.Stacking):
        return "stack"
    if isinstance(statement, (ir.Odds, ir.Shift)):
        return "combat"
    if isinstance(statement, ir.Advance):
        return "battle_end"
    if isinstance(statement, ir.Define):
        return DEFINE_HOME[statement.context]
    return None
