"""The static world of a core game: players, places, pieces, dice, tables.

Built once per rulebook from the checked program (``Program``).
Everything here is fixed for the whole game; what changes during play lives
in the machine's state as flat arrays indexed by the integer ids given here
(``Piece.index``, ``Place.index``, ``Player.index``).

Nothing in this module knows a game or a genre: places are nodes of a graph
(hexes generated from a grid declaration, declared areas, pools), pieces are
records with typed attributes, players are seats in turn order.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

from ..dsl import ir, printed
from ..engine import hexgrid
from ..errors import CortesRulesError, UnknownIdError


def zone_id(number: int) -> str:
    """The place id of a map's water zone ``number``."""
    return f"zone.{number}"


class Player:
    """A seat at the table; a *party* is run by the rules and never chooses."""

    __slots__ = ("index", "name", "label", "party")

    def __init__(self, index: int, name: str, label: str, party: bool) -> None:
        self.index, self.name, self.label, self.party = index, name, label, party

    def __str__(self) -> str:
        return self.name

    __repr__ = __str__


class Place:
    """A node of the board graph: a hex, an area, a zone or an off-board pool.

    Zones (``zone.N``) are the water of a map: a zone's neighbours are the
    zones it touches, and ``shore`` links zones and the hexes bordering them
    both ways (a hex's neighbours stay hexes).
    """

    __slots__ = ("index", "id", "label", "kind", "features", "neighbours", "owner", "shore")

    def __init__(self, index: int, ident: str, label: str, kind: str,
                 features: frozenset[str], owner: Player | None = None) -> None:
        self.index, self.id, self.label, self.kind = index, ident, label, kind
        self.features = features
        self.neighbours: tuple[Place, ...] = ()
        self.owner = owner
        self.shore: tuple[Place, ...] = ()
        """For a zone, the hexes on its shore; for a hex, the zones it borders."""

    def __str__(self) -> str:
        return self.id

    __repr__ = __str__


class Piece:
    """A counter, card or marker: its printed (static) values."""

    __slots__ = ("index", "id", "label", "cls", "side", "tags", "props")

    def __init__(self, index: int, ident: str, label: str, cls: str, side: Player | None,
                 tags: frozenset[str], props: Mapping[str, Any]) -> None:
        self.index, self.id, self.label, self.cls, self.side = index, ident, label, cls, side
        self.tags, self.props = tags, props

    def __str__(self) -> str:
        return self.id

    __repr__ = __str__


class Dice:
    """Dice to roll: ``count`` dice of ``sides`` numbered faces, or one die of named faces."""

    __slots__ = ("name", "count", "sides", "faces")

    def __init__(self, name: str, count: int, sides: int,
                 faces: tuple[str, ...] | None = None) -> None:
        self.name, self.count, self.sides, self.faces = name, count, sides, faces

    def __str__(self) -> str:
        return self.name


class Table:
    """A two-dimensional table declared in the rules: cells by row key and column."""

    __slots__ = ("name", "rule", "columns", "rows")

    def __init__(self, name: str, rule: str, columns: tuple[Any, ...],
                 rows: Mapping[Any, tuple[Any, ...]]) -> None:
        self.name, self.rule, self.columns, self.rows = name, rule, columns, rows


class Row:
    """One row of a table, read by column name (``terrain_effects[clear].move``)."""

    __slots__ = ("table", "cells")

    def __init__(self, table: Table, cells: tuple[Any, ...]) -> None:
        self.table, self.cells = table, cells


def _cell(cell: ir.Cell) -> Any:
    if isinstance(cell, ir.IntCell):
        return cell.value
    if isinstance(cell, ir.DecimalCell):
        return cell.value
    if isinstance(cell, ir.RatioCell):
        return (cell.left, cell.right)
    if isinstance(cell, ir.ResultCell):
        return (cell.left, cell.right)
    if isinstance(cell, ir.NameCell):
        return cell.name
    return {key: _cell(value) for key, value in cell.entries}


class World:
    """Indexes over one program's static data."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        of = program.of
        # ---------------------------------------------------------- players
        decls = [(d.name, d.label, d.party) for d in of(ir.PlayerDecl)]
        decls += [(d.name, d.label, False) for d in of(ir.SideDecl)]
        self.players: tuple[Player, ...] = tuple(
            Player(i, n, label, party) for i, (n, label, party) in enumerate(decls))
        self.player: dict[str, Player] = {p.name: p for p in self.players}
        self.seats: tuple[Player, ...] = tuple(p for p in self.players if not p.party)
        # ---------------------------------------------------------- symbols
        classes = {c.name: c for c in of(ir.ClassDecl)}
        symbols: set[str] = set(classes)
        for kind in (ir.TerrainDecl, ir.HexsideDecl, ir.FlagDecl):
            symbols |= {d.name for d in of(kind)}
        for decl in of(ir.PropertyDecl):
            symbols |= set(decl.values)
        for decl in classes.values():
            symbols |= set(decl.traits)
        self.symbols = frozenset(symbols)
        # ---------------------------------------------------------- places
        places: list[Place] = []
        data = program.map
        self.odd_columns_low = data.odd_columns_low if data else True
        if data is not None:
            for hex_id in sorted(data.hexes):
                places.append(Place(len(places), hex_id, hex_id, "hex", data.hexes[hex_id]))
            for name, (label, features) in data.areas.items():
                places.append(Place(len(places), name, label, "area", features))
            for number in sorted(data.zones):
                places.append(Place(len(places), zone_id(number), data.zones[number], "zone",
                                    frozenset()))
        self.hexes: tuple[Place, ...] = tuple(p for p in places if p.kind == "hex")
        self.areas: tuple[Place, ...] = tuple(p for p in places if p.kind == "area")
        self.zones: tuple[Place, ...] = tuple(p for p in places if p.kind == "zone")
        self.pools: dict[str, Any] = {}
        for pool in of(ir.PoolDecl):
            if pool.per_player:
                per: dict[Player, Place] = {}
                for player in self.players:
                    place = Place(len(places), f"{pool.name}.{player.name}",
                                  f"{pool.label} ({player.label})", "pool", frozenset(),
                                  owner=player)
                    places.append(place)
                    per[player] = place
                self.pools[pool.name] = per
            else:
                place = Place(len(places), pool.name, pool.label, "pool", frozenset())
                places.append(place)
                self.pools[pool.name] = place
        self.places: tuple[Place, ...] = tuple(places)
        self.place: dict[str, Place] = {p.id: p for p in places}
        self._hexsides: dict[frozenset[int], frozenset[str]] = {}
        # Each hex's cube coordinates by place index, worked out when first measured.
        self._cubes: dict[int, tuple[int, int, int]] = {}
        if data is not None:
            for hex_place in self.hexes:
                hex_place.neighbours = tuple(
                    self.place[n] for n in hexgrid.neighbours(hex_place.id, self.odd_columns_low)
                    if n in self.place and self.place[n].kind == "hex")
            for area in self.areas:
                area.neighbours = tuple(self.place[n] for n in sorted(
                    data.area_links.get(area.id, ()), key=lambda n: self.place[n].index)
                    if n in self.place)
            for key, features in data.hexsides.items():
                if all(k in self.place for k in key):
                    self._hexsides[frozenset(self.place[k].index for k in key)] = features
            for key, features in data.area_borders.items():
                if all(k in self.place for k in key):
                    self._hexsides[frozenset(self.place[k].index for k in key)] = features
            coast: dict[str, list[Place]] = {}
            for number in sorted(data.zones):
                zone = self.place[zone_id(number)]
                zone.neighbours = tuple(self.place[zone_id(n)]
                                        for n in sorted(data.zone_touches.get(number, ()))
                                        if zone_id(n) in self.place)
                zone.shore = tuple(sorted((self.place[h] for h in data.zone_borders.get(number, ())
                                           if h in self.place), key=lambda p: p.index))
                for hex_place in zone.shore:
                    coast.setdefault(hex_place.id, []).append(zone)
            for hex_id, zones in coast.items():
                self.place[hex_id].shore = tuple(zones)
        # Named places of the map (a set of hexes) and zone groups (a set of zones).
        self.regions: dict[str, tuple[Place, ...]] = {}
        if data is not None:
            for name, (_, ids) in data.places.items():
                self.regions[name] = tuple(sorted((self.place[i] for i in ids if i in self.place),
                                                  key=lambda p: p.index))
            for name, (_, numbers) in data.zone_groups.items():
                self.regions[name] = tuple(self.place[zone_id(n)] for n in sorted(numbers)
                                           if zone_id(n) in self.place)
        # ---------------------------------------------------------- pieces
        pieces: list[Piece] = []
        counters = program.counters.counters if program.counters else ()
        fields = printed.declared(program)
        for counter in counters:
            decl = classes.get(counter.cls)
            # What the line prints by field name, each printed field it does not write
            # at its default (the fields a library declares: dsl.printed).
            props = printed.values(program, counter, fields)
            # The class gives the side, or the counter line does (`side b`).
            written = counter.given("side")
            side_name = (str(written[0]) if written else None) or (
                decl.side if decl is not None else None)
            side = self.player.get(side_name) if side_name else None
            tags = {counter.cls, *(decl.traits if decl else ()), *counter.flags}
            if side is not None:
                tags.add(side.name)
            pieces.append(Piece(len(pieces), counter.id, counter.label, counter.cls, side,
                                frozenset(tags), props))
        self.pieces: tuple[Piece, ...] = tuple(pieces)
        self.piece: dict[str, Piece] = {p.id: p for p in pieces}
        # ---------------------------------------------------------- data
        self.tables: dict[str, Table] = {}
        for t in of(ir.TableDecl):
            rows = {_cell(r.key): tuple(_cell(c) for c in r.cells) for r in t.rows}
            self.tables[t.name] = Table(t.name, t.rule, tuple(_cell(c) for c in t.columns), rows)
        self.dice: dict[str, Dice] = {}
        for d in of(ir.DiceDecl):
            self.dice[d.name] = Dice(d.name, d.count, d.faces)
        for f in of(ir.FaceDieDecl):
            self.dice[f.name] = Dice(f.name, 1, len(f.faces), f.faces)

    # -------------------------------------------------------------- graph
    def hexside(self, a: Place, b: Place) -> frozenset[str]:
        """Features of the hexside (or area border) between two places."""
        return self._hexsides.get(frozenset((a.index, b.index)), frozenset())

    def adjacent(self, a: Place, b: Place) -> bool:
        return b in a.neighbours

    def direction(self, a: Place, b: Place) -> int | None:
        """The direction (0-5) from hex ``a`` to a neighbouring hex ``b``; none off the hexes."""
        if a.kind != "hex" or b.kind != "hex":
            return None
        return hexgrid.direction(a.id, b.id, self.odd_columns_low)

    def distance(self, a: Place, b: Place) -> int:
        if a.kind == "hex" and b.kind == "hex":
            cubes = self._cubes
            if a.index not in cubes:
                cubes[a.index] = hexgrid.cube(a.id, self.odd_columns_low)
            if b.index not in cubes:
                cubes[b.index] = hexgrid.cube(b.id, self.odd_columns_low)
            return hexgrid.cube_distance(cubes[a.index], cubes[b.index])
        raise CortesRulesError(f"distance is measured between hexes, not {a} and {b}")

    def sight_lines(self, a: Place, b: Place) -> tuple[tuple[Place, ...], ...]:
        """The map's hexes between two hexes along the straight line joining their
        centres, as two lines pushed a hair either way (see
        ``hexgrid.sight_lines()``); they differ only where it runs along a hexside."""
        if a.kind != "hex" or b.kind != "hex":
            raise CortesRulesError(f"sight lines run between hexes, not {a} and {b}")
        return tuple(tuple(self.place[h] for h in line if h in self.place)
                     for line in hexgrid.sight_lines(a.id, b.id, self.odd_columns_low))

    def zone(self, number: Any) -> Place:
        """The water zone numbered ``number`` (``zone(11)`` in the language)."""
        place = self.place.get(zone_id(number)) if isinstance(number, int) else None
        if place is None or place.kind != "zone":
            raise CortesRulesError(f"the map has no zone {number!r}")
        return place

    def resolve_place(self, text: str) -> Place:
        try:
            return self.place[text]
        except KeyError:
            raise UnknownIdError(f"no place {text!r} in this rulebook") from None
