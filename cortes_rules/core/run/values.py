"""The values the reference interpreter computes with, and what the language does to them.

Pieces, places and players are small objects compared by identity; tables,
rows and dice are what their ``Ref`` names. The canonical order of a
collection (``in_order``), the text of a value (``text``), the ``is`` test,
indexing and the arithmetic the language defines live here, each written
from the language's definition (docs/language.md) as the engine states it.
"""

from __future__ import annotations

import itertools
import math
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import Any

from ...rule_numbers import rule_key


class Player:
    """A seat or a party (``core.ir.Player``), by index."""

    __slots__ = ("index", "name", "label", "party")

    def __init__(self, index: int, name: str, label: str, party: bool) -> None:
        self.index, self.name, self.label, self.party = index, name, label, party

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


class Place:
    """A node of the board graph (``core.ir.Place``): its neighbours in the engine's
    order (hexes by direction, areas and zones by index) and, for zones and hexes,
    the shore."""

    __slots__ = ("index", "id", "label", "kind", "features", "owner", "coords",
                 "neighbours", "shore")

    def __init__(self, index: int, ident: str, label: str, kind: str,
                 features: frozenset[str], owner: Player | None,
                 coords: tuple[int, ...]) -> None:
        self.index, self.id, self.label, self.kind = index, ident, label, kind
        self.features, self.owner, self.coords = features, owner, coords
        self.neighbours: tuple[Place, ...] = ()
        self.shore: tuple[Place, ...] = ()

    def __str__(self) -> str:
        return self.id

    __repr__ = __str__


class Piece:
    """A piece (``core.ir.Piece``): class, side, tags and printed values."""

    __slots__ = ("index", "id", "label", "cls", "side", "tags", "props")

    def __init__(self, index: int, ident: str, label: str, cls: str, side: Player | None,
                 tags: frozenset[str], props: dict[str, Any]) -> None:
        self.index, self.id, self.label, self.cls, self.side = index, ident, label, cls, side
        self.tags, self.props = tags, props

    def __str__(self) -> str:
        return self.id

    __repr__ = __str__


class Table:
    """A table (``core.ir.Table``): rows by key, cells by column."""

    __slots__ = ("name", "rule", "columns", "rows")

    def __init__(self, name: str, rule: str, columns: tuple[Any, ...],
                 rows: dict[Any, tuple[Any, ...]]) -> None:
        self.name, self.rule, self.columns, self.rows = name, rule, columns, rows

    def __str__(self) -> str:
        return self.name


class Row:
    """One row of a table, read by column name."""

    __slots__ = ("table", "cells")

    def __init__(self, table: Table, cells: tuple[Any, ...]) -> None:
        self.table, self.cells = table, cells


class Dice:
    """Dice (``core.ir.Dice``): ``count`` dice of ``sides`` faces, or named ``faces``."""

    __slots__ = ("name", "count", "sides", "faces")

    def __init__(self, name: str, count: int, sides: int, faces: tuple[str, ...] | None) -> None:
        self.name, self.count, self.sides, self.faces = name, count, sides, faces

    def __str__(self) -> str:
        return self.name


ENTITIES = (Piece, Place, Player)
NUMBERS = (int, Fraction, float)


def order_key(value: Any) -> Any:
    """The canonical order: pieces, places and players by index, then numbers, then text."""
    if isinstance(value, ENTITIES):
        return (0, value.index)
    if isinstance(value, (int, Fraction)):
        return (1, value)
    return (2, str(value))


def in_order(values: Iterable[Any]) -> list[Any]:
    return sorted(values, key=order_key)


def items(value: Any) -> Iterable[Any]:
    """The items of a collection in the order the rules visit them: sequences as they
    are, sets in the canonical order, dice by their outcomes, a place none."""
    if isinstance(value, (tuple, list)):
        return value
    if isinstance(value, (frozenset, set)):
        return in_order(value)
    if isinstance(value, Dice):
        return [x for x, _ in dice_outcomes(value)]
    if isinstance(value, Place):
        return ()
    raise TypeError(f"cannot iterate over {value!r}")


def dice_outcomes(dice: Dice) -> list[tuple[Any, Fraction]]:
    """Every result of a roll (a total, or a named face) with its exact chance."""
    if dice.faces is not None:
        counts: dict[str, int] = {}
        for name in dice.faces:
            counts[name] = counts.get(name, 0) + 1
        return [(f, Fraction(n, len(dice.faces))) for f, n in counts.items()]
    ways = {0: 1}
    for _ in range(dice.count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for face in range(1, dice.sides + 1):
                nxt[total + face] = nxt.get(total + face, 0) + n
        ways = nxt
    whole = dice.sides ** dice.count
    return [(total, Fraction(n, whole)) for total, n in sorted(ways.items())]


def text(value: Any) -> str:
    """A value as log lines and action texts show it."""
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, (tuple, list)):
        return ", ".join(text(v) for v in value)
    if isinstance(value, frozenset):
        return ", ".join(text(v) for v in in_order(value))
    if value is None:
        return "none"
    return str(value)


def cited_rules(cited: Any) -> tuple[str, ...]:
    """The rule numbers a log line cites, without blanks or repeats, in rule order."""
    if cited is None:
        return ()
    if isinstance(cited, str):
        return (cited,) if cited else ()
    found = cited if isinstance(cited, (tuple, frozenset, list)) else (cited,)
    return tuple(sorted({str(r) for r in found if r}, key=rule_key))


def is_test(value: Any, name: str) -> bool:
    """``value is name``: a piece's tag, a place's feature, a member, a player's name."""
    if isinstance(value, Piece):
        return name in value.tags
    if isinstance(value, Place):
        return name in value.features
    if isinstance(value, (frozenset, set, tuple)):
        return name in value
    if isinstance(value, Player):
        return value.name == name
    return bool(value == name)


def index(target: Any, key: Any) -> Any:
    """``target[key]``: a table's row, a keyed cell's entry (by player name), an item."""
    if isinstance(target, Table):
        return Row(target, target.rows[key])
    if isinstance(target, dict):
        if isinstance(key, Player) and key not in target:
            key = key.name
        return target[key]
    return target[key]


def rank(value: Any) -> Any:
    """Ordering for comparisons: a cell that is no number is beyond every number."""
    return value if isinstance(value, NUMBERS) else math.inf


def absorb(reduce: Any, values: Iterable[Any]) -> Any:
    """``sum``/``max``/``min`` in which a name cell (``prohibited``) absorbs the numbers."""
    found = list(values)
    for item in found:
        if not isinstance(item, NUMBERS):
            return item
    return reduce(found)


def add(a: Any, b: Any) -> Any:
    if isinstance(a, frozenset):
        return a | (b if isinstance(b, frozenset) else frozenset(b))
    return a + b


def divide(a: Any, b: Any) -> Any:
    result = Fraction(a, b)
    return result.numerator if result.denominator == 1 else result


def plain(value: Any) -> Any:
    """A value as plain Python, as an outcome reports it (ids, names, lists)."""
    if isinstance(value, (Piece, Place)):
        return value.id
    if isinstance(value, Player):
        return value.name
    if isinstance(value, (list, tuple, frozenset, set)):
        found = [plain(v) for v in value]
        return sorted(found, key=str) if isinstance(value, (frozenset, set)) else found
    return value


def first(c: Any, *default: Any) -> Any:
    return next(iter(items(c)), default[0] if default else None)


PURE: dict[str, Callable[..., Any]] = {
    "count": len, "len": len, "any": any, "all": all,
    "sum": lambda c: absorb(sum, c),
    "max": lambda *c: absorb(max, c[0] if len(c) == 1 else c),
    "min": lambda *c: absorb(min, c[0] if len(c) == 1 else c),
    "distinct": frozenset, "set_of": frozenset,
    "list_of": lambda c: tuple(items(c)),
    "floor": math.floor, "ceil": math.ceil, "abs": abs, "first": first,
    "sorted": lambda c: tuple(in_order(c)),
    "str": text,
    "join": lambda c, sep: sep.join(text(x) for x in items(c)),
    "rest": lambda c: tuple(c)[1:],
    "subsets": lambda c, k: tuple(itertools.combinations(tuple(c), k)),
    "union": lambda c: frozenset(itertools.chain.from_iterable(c)),
    "is_number": lambda x: isinstance(x, (int, Fraction)) and not isinstance(x, bool),
    "neighbours": lambda p: p.neighbours,
    "adjacent": lambda a, b: b in a.neighbours,
    "columns": lambda t: t.columns,
    "table_rule": lambda t: t.rule,
    "cell": lambda t, r, c: index(t, r).cells[t.columns.index(c)],
}
"""The built-in functions of plain arguments (``Op`` names), as the language defines them."""
