"""What a counter line prints: the fields declared ``printed``, and each piece's values.

The language builds in no field of a counter line but its flags and its side.
A rulebook or a library declares the rest: a ``property`` (a name out of a
fixed set, ``tribe Te``) or a ``printed`` field (a whole number or a list of
them, ``steps 4``, ``combat 7, 5, 4, 2``), each written on the line with its
word. This module reads those declarations for the checker (``.check``),
which refuses a line that writes anything else, and for the world
(``core.world``), which gives every piece its printed values by field name:
what a line writes, then each printed field it does not write at its default
(the type's zero unless the declaration states one).
"""

from __future__ import annotations

from typing import Any

from . import ir

__all__ = ["BUILT_IN_WORDS", "TYPES", "PrintedValue", "declared", "default", "is_list", "literal",
           "type_text", "values"]

PrintedValue = int | str | tuple[int, ...]
"""A printed value: a number, a property's value (a name) or a list of numbers."""

BUILT_IN_WORDS = frozenset({"side", "flags"})
"""The words every counter line may write whatever the rulebook declares."""

TYPES = {"int": "a whole number", "list of int": "a list of whole numbers"}
"""The types a printed field may have, as the checker names them."""


def type_text(decl: ir.PrintedDecl) -> str:
    """The field's type as written (``int``, ``list of int``)."""
    return decl.type.name + (f" of {decl.type.of}" if decl.type.of else "")


def is_list(decl: ir.PrintedDecl) -> bool:
    return decl.type.name == "list"


def declared(program: ir.Program) -> dict[str, ir.PrintedDecl]:
    """The printed fields by the word a counter line writes them with (the first
    declaration of each word)."""
    found: dict[str, ir.PrintedDecl] = {}
    for decl in program.of(ir.PrintedDecl):
        found.setdefault(decl.word, decl)
    return found


def literal(node: ir.Expr | None) -> PrintedValue | None:
    """The value of a default written as a literal (``0``, ``-1``, ``[2, 1]``); None
    for anything else, which the checker refuses."""
    if isinstance(node, ir.IntLit):
        return node.value
    if isinstance(node, ir.Neg) and isinstance(node.operand, ir.IntLit):
        return -node.operand.value
    if isinstance(node, ir.ListLit):
        items = [literal(item) for item in node.items]
        if all(type(item) is int for item in items):
            return tuple(item for item in items if isinstance(item, int))
    return None


def default(decl: ir.PrintedDecl) -> PrintedValue:
    """What a piece whose counter line does not write the field prints: the stated
    default, or the type's zero (0, or the empty list)."""
    stated = literal(decl.default)
    if stated is not None:
        return stated
    return () if is_list(decl) else 0


def values(program: ir.Program, counter: ir.CounterDecl,
           fields: dict[str, ir.PrintedDecl] | None = None) -> dict[str, Any]:
    """A piece's printed values by field name: its properties and printed fields in
    the order its line writes them, then every other printed field at its default.
    ``side`` is left out (it is the piece's side, not a printed value)."""
    fields = declared(program) if fields is None else fields
    out: dict[str, Any] = {}
    for field in counter.fields:
        if field.word == "side":
            continue
        decl = fields.get(field.word)
        name = decl.name if decl is not None else field.word
        if name in out:
            continue
        if decl is not None and is_list(decl):
            out[name] = tuple(field.values)
        elif field.values:
            out[name] = field.values[0]
    for decl in fields.values():
        out.setdefault(decl.name, default(decl))
    return out
