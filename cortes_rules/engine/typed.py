"""A caller's value for a declared attribute or value, stored as its declared type.

A rulebook declares each attribute and value with a type (``attribute piece
held_by: piece = none``). Values set by hand (``GameState.set_attribute``,
``set_player_attribute``, ``set_place_attribute``, ``set_value``,
``new_game(attributes=...)``) are stored as the rules' own ``set`` would
store them: a piece id given for a ``piece`` attribute becomes that piece, so
the rules' comparisons (``c.held_by == u``) see it; a value of the wrong kind
is refused in words. The position notation reads its values with the same
test (``is_of_declared_type``).
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any

from ..arguments import describe
from ..core.world import Piece, Place, Player, World
from ..dsl import ir
from ..errors import ArgumentTypeError, UnknownIdError, UnknownNameError

__all__ = ["declared", "is_of_declared_type"]

_THINGS: dict[str, type] = {"piece": Piece, "place": Place, "player": Player}


def is_of_declared_type(value: Any, type_ref: ir.TypeRef | None) -> bool:
    """Whether a value is of the kind a declaration gives (ints may be fractions, and
    any collection stands for a list or a set)."""
    name = type_ref.name if type_ref is not None else None
    if name == "int":
        return type(value) in (int, Fraction)
    if name == "bool":
        return type(value) is bool
    if name in _THINGS:
        return value is None or isinstance(value, _THINGS[name])
    if name in ("list", "set"):   # the language's collections stand for one another
        return isinstance(value, (tuple, list, frozenset))
    return True


def declared(value: Any, type_ref: ir.TypeRef | None, world: World, what: str) -> Any:
    """``value`` as a state stores a value of the declared type ``type_ref``.

    Whole numbers (and fractions) for ``int``; ``True`` or ``False`` for
    ``bool``; for ``piece``, ``place`` and ``player``, ``None``, the thing, or
    its id (its name, for a player), which becomes the thing; for ``list``
    and ``set``, any list, tuple or set, its items taken by the type after
    ``of`` (``list of place``), or, with none, an id becoming its thing. Any
    other type takes the value as given, an id becoming its thing.

    Args:
        what: the attribute or value, for messages (``"C2.held_by"``).

    Raises:
        ArgumentTypeError: the value is not of the declared type.
        UnknownIdError, UnknownNameError: an id names nothing of that kind.
    """
    name = type_ref.name if type_ref is not None else None
    item = type_ref.of if type_ref is not None else None
    return _declared(value, name, item, world, what)


def _declared(value: Any, name: str | None, item: str | None, world: World, what: str) -> Any:
    if name == "int":
        if type(value) is int or type(value) is Fraction:
            return value
        raise ArgumentTypeError(f"{what} is declared int: a whole number (or a Fraction), "
                                f"not {describe(value)}")
    if name == "bool":
        if type(value) is bool:
            return value
        raise ArgumentTypeError(f"{what} is declared bool: True or False, not "
                                f"{describe(value)}")
    if name in _THINGS:
        return _thing(value, name, world, what)
    if name in ("list", "set"):
        if not isinstance(value, (list, tuple, set, frozenset)):
            raise ArgumentTypeError(f"{what} is declared {name}: a list, tuple or set, not "
                                    f"{describe(value)}")
        items = [_declared(v, item, None, world, f"an item of {what}") for v in value]
        if name == "set" or isinstance(value, (set, frozenset)):
            return frozenset(items)
        return tuple(items)
    return _any(value, world)


def _thing(value: Any, kind: str, world: World, what: str) -> Any:
    """A piece, place or player of ``world`` from itself, its id or None."""
    if value is None:
        return None
    tables: dict[str, Mapping[str, Any]] = {"piece": world.piece, "place": world.place,
                                            "player": world.player}
    table = tables[kind]
    if isinstance(value, (Piece, Place, Player)) and isinstance(value, _THINGS[kind]):
        ident = value.name if isinstance(value, Player) else value.id
        if table.get(ident) is value:
            return value
        raise ArgumentTypeError(f"{what} is declared {kind}: {ident} is a {kind} of another "
                                f"rulebook")
    if isinstance(value, str):
        found = table.get(value)
        if found is not None:
            return found
        from .action_space import _nearest

        error = UnknownNameError if kind == "player" else UnknownIdError
        raise error(f"{what} is declared {kind}: no {kind} {value!r} in this rulebook"
                    f"{_nearest(value, table)}")
    raise ArgumentTypeError(f"{what} is declared {kind}: a {kind}'s "
                            f"{'name' if kind == 'player' else 'id'} or None, not "
                            f"{describe(value)}")


def _any(value: Any, world: World) -> Any:
    """A value of no declared kind: ids (in lists and tuples too) become their things."""
    if isinstance(value, list):
        return [_any(v, world) for v in value]
    if isinstance(value, tuple):
        return tuple(_any(v, world) for v in value)
    if isinstance(value, str):
        for table in (world.piece, world.place, world.player):
            if value in table:
                return table[value]
    return value
