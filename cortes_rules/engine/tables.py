"""The static world lowered to integer tables: what the native core reads.

This stage comes after ``World`` (built from the checked program) and
before the native kernels of ``cortes_rules._core`` (docs/design.md, "The
compiled core"). Everything a rule can read about the board and the
counters that never changes during a game becomes flat arrays of machine
integers, indexed by the ids ``World`` already gives (``Piece.index``,
``Place.index``, ``Player.index``):

- names (piece classes, traits, flags, sides, terrain and hexside features)
  are interned as small integers, the *symbols*;
- a piece's tags and a place's or a hexside's features are bitsets over the
  symbols, ``words`` 64-bit words each;
- the board graph is in compressed rows (``neighbour_start`` and
  ``neighbours``, one row per place, in ``Place.neighbours`` order), with the
  features of each hexside crossed along an edge (``edge_features``), and the
  shore links the same way;
- the counters' integer values (the printed fields a rulebook declares, such
  as a hex wargame's ``move`` and ``max_steps``, and its properties) are
  columns, one per property whose every value is an integer;
  a property whose every value is a text or missing (a tribe) is a column of
  codes, the text's place among the property's texts in sorted order
  (``ABSENT`` where missing: reading it fails), read only to tell values apart;
- the map's named groups of places (regions, zone groups) are rows of one
  flag per place.

Nothing here knows a game: the names come from the rulebook. ``check()``
decodes the tables and compares them with the ``World`` they came from; it
is how the tests hold this stage to the interpreter's view of the world.
"""

from __future__ import annotations

from array import array
from collections.abc import Iterable, Sequence
from typing import Any

import attrs

from ..core.world import World

NONE = -1
ABSENT = -(1 << 62)
"""A text property's code where the piece lacks the property (the interpreter fails
to read it); the same number as ``bytecode.INEXACT``, so the machines answer
``UNKNOWN`` there."""
"""The index standing for no player or no place."""
KINDS = ("hex", "area", "zone", "pool")
"""Place kinds, by their number in ``Tables.place_kind``."""


@attrs.frozen(eq=False)
class Tables:
    """One rulebook's static world as integer arrays (see the module's docstring)."""

    symbols: tuple[str, ...]
    words: int
    piece_ids: tuple[str, ...]
    place_ids: tuple[str, ...]
    player_names: tuple[str, ...]
    piece_side: array[int]            # player index, or NONE
    piece_class: array[int]           # symbol of the piece's class
    piece_tags: array[int]            # words per piece
    place_kind: array[int]            # index into KINDS
    place_owner: array[int]           # player index, or NONE
    place_features: array[int]        # words per place
    neighbour_start: array[int]       # n_places + 1 offsets into neighbours
    neighbours: array[int]
    edge_features: array[int]         # words per entry of neighbours: the hexside crossed
    shore_start: array[int]
    shore: array[int]
    columns: dict[str, array[int]]    # integer properties of pieces, by name
    symbol_index: dict[str, int]
    region_names: tuple[str, ...]
    region_member: array[int]    # n_places flags per region
    texts: dict[str, tuple[str, ...]] = attrs.field(factory=dict)
    """Properties of pieces that hold texts: the texts of each, sorted."""
    text_columns: dict[str, array[int]] = attrs.field(factory=dict)
    """Their codes by piece: an index into ``texts[name]``, or ``ABSENT``."""

    def properties(self) -> list[tuple[str, array[int]]]:
        """Every column of piece properties as the machines number them (``PROPERTY``'s
        argument): the integer ones by name, then the text ones by name."""
        return [*((name, self.columns[name]) for name in sorted(self.columns)),
                *((name, self.text_columns[name]) for name in sorted(self.text_columns))]

    @property
    def n_pieces(self) -> int:
        return len(self.piece_ids)

    @property
    def n_places(self) -> int:
        return len(self.place_ids)

    def symbol(self, name: str) -> int:
        """The number of an interned name (KeyError if the rulebook never declares it)."""
        return self.symbol_index[name]

    def has(self, bits: array[int], row: int, symbol: int) -> bool:
        """Whether row ``row`` of a bitset array holds ``symbol``."""
        word, bit = divmod(symbol, 64)
        return bool(bits[row * self.words + word] >> bit & 1)

    def names(self, bits: array[int], row: int) -> frozenset[str]:
        """The symbols of row ``row`` of a bitset array."""
        return frozenset(name for i, name in enumerate(self.symbols) if self.has(bits, row, i))

    def neighbours_of(self, place: int) -> Sequence[int]:
        return self.neighbours[self.neighbour_start[place]:self.neighbour_start[place + 1]]

    def shore_of(self, place: int) -> Sequence[int]:
        return self.shore[self.shore_start[place]:self.shore_start[place + 1]]


def lower(world: World) -> Tables:
    """The integer tables of a world (see the module's docstring)."""
    names: set[str] = set(world.symbols)
    for piece in world.pieces:
        names |= piece.tags | {piece.cls}
    for place in world.places:
        names |= place.features
        for other in place.neighbours:
            names |= world.hexside(place, other)
    symbols = tuple(sorted(names))
    index = {name: i for i, name in enumerate(symbols)}
    words = max(1, (len(symbols) + 63) // 64)

    def bitset(rows: Iterable[Iterable[str]]) -> array[int]:
        out = array("Q")
        for row in rows:
            cells = [0] * words
            for name in row:
                word, bit = divmod(index[name], 64)
                cells[word] |= 1 << bit
            out.extend(cells)
        return out

    def side(player: Any) -> int:
        return NONE if player is None else int(player.index)

    def rows(links: Sequence[Sequence[Any]]) -> tuple[array[int], array[int]]:
        start, flat = array("i", [0]), array("i")
        for row in links:
            flat.extend(p.index for p in row)
            start.append(len(flat))
        return start, flat

    places = world.places
    neighbour_start, neighbours = rows([p.neighbours for p in places])
    shore_start, shore = rows([p.shore for p in places])
    columns: dict[str, array[int]] = {}
    props = sorted({name for piece in world.pieces for name in piece.props})
    for name in props:
        # A column holds 64-bit integers; any other value leaves the property out.
        values = [v for v in (piece.props.get(name) for piece in world.pieces)
                  if type(v) is int and -(1 << 63) <= v < 1 << 63]
        if len(values) == len(world.pieces):
            columns[name] = array("q", values)
    texts: dict[str, tuple[str, ...]] = {}
    text_columns: dict[str, array[int]] = {}
    for name in props:
        held = [piece.props.get(name) for piece in world.pieces]
        if all(v is None or type(v) is str for v in held) \
                and any(type(v) is str for v in held):
            texts[name] = tuple(sorted({v for v in held if v is not None}))
            code = {text: i for i, text in enumerate(texts[name])}
            text_columns[name] = array("q", (ABSENT if v is None else code[v] for v in held))
    return Tables(
        symbols=symbols, words=words,
        piece_ids=tuple(p.id for p in world.pieces),
        place_ids=tuple(p.id for p in places),
        player_names=tuple(p.name for p in world.players),
        piece_side=array("i", (side(p.side) for p in world.pieces)),
        piece_class=array("i", (index[p.cls] for p in world.pieces)),
        piece_tags=bitset(p.tags for p in world.pieces),
        place_kind=array("b", (KINDS.index(p.kind) for p in places)),
        place_owner=array("i", (side(p.owner) for p in places)),
        place_features=bitset(p.features for p in places),
        neighbour_start=neighbour_start, neighbours=neighbours,
        edge_features=bitset(world.hexside(p, q) for p in places for q in p.neighbours),
        shore_start=shore_start, shore=shore,
        columns=columns, symbol_index=index, texts=texts, text_columns=text_columns,
        region_names=tuple(world.regions),
        region_member=array("b", (int(place in members) for members in
                                  (frozenset(world.regions[name]) for name in world.regions)
                                  for place in places)),
    )


def check(tables: Tables, world: World) -> list[str]:
    """Where the tables, decoded, disagree with the world they were lowered from ([] if nowhere)."""
    wrong: list[str] = []
    if tables.piece_ids != tuple(p.id for p in world.pieces):
        wrong.append("piece ids")
    if tables.place_ids != tuple(p.id for p in world.places):
        wrong.append("place ids")
    if tables.player_names != tuple(p.name for p in world.players):
        wrong.append("player names")
    players = world.players
    for piece in world.pieces:
        i = piece.index
        side = tables.piece_side[i]
        if (players[side] if side != NONE else None) is not piece.side:
            wrong.append(f"{piece.id}: side")
        if tables.symbols[tables.piece_class[i]] != piece.cls:
            wrong.append(f"{piece.id}: class")
        if tables.names(tables.piece_tags, i) != piece.tags | {piece.cls}:
            wrong.append(f"{piece.id}: tags")
        for name, column in tables.columns.items():
            if column[i] != piece.props.get(name):
                wrong.append(f"{piece.id}: {name}")
        for name, column in tables.text_columns.items():
            text = tables.texts[name][column[i]] if column[i] != ABSENT else None
            if text != piece.props.get(name):
                wrong.append(f"{piece.id}: {name}")
    for r, name in enumerate(tables.region_names):
        row = tables.region_member[r * len(world.places):(r + 1) * len(world.places)]
        if [p for p, flag in zip(world.places, row, strict=True) if flag] != \
                sorted(world.regions[name], key=lambda p: p.index):
            wrong.append(f"region {name}")
    if tables.region_names != tuple(world.regions):
        wrong.append("region names")
    edge = 0
    for place in world.places:
        i = place.index
        if KINDS[tables.place_kind[i]] != place.kind:
            wrong.append(f"{place.id}: kind")
        owner = tables.place_owner[i]
        if (players[owner] if owner != NONE else None) is not place.owner:
            wrong.append(f"{place.id}: owner")
        if tables.names(tables.place_features, i) != place.features:
            wrong.append(f"{place.id}: features")
        if list(tables.neighbours_of(i)) != [p.index for p in place.neighbours]:
            wrong.append(f"{place.id}: neighbours")
        if list(tables.shore_of(i)) != [p.index for p in place.shore]:
            wrong.append(f"{place.id}: shore")
        for other in place.neighbours:
            if tables.names(tables.edge_features, edge) != world.hexside(place, other):
                wrong.append(f"{place.id}-{other.id}: hexside")
            edge += 1
    return wrong
