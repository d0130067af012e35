"""What the reference interpreter makes once per game (``core.ir.Game``): the values
its ``Ref`` nodes name, the graph's neighbours and edges, the action space.

The action space numbers actions as the engine's does (``engine/action_space.py``):
each declared kind takes a block of ids, one per combination of its parameters'
values (pieces, places, hexes or players in index order, ints 0..1023), in the
order the kinds are declared; then ``roll`` (every total up to the largest, then
the named faces, sorted) and ``draw`` (every piece).
"""

from __future__ import annotations

from typing import Any

from .. import ir
from ...engine.hexgrid import cube_distance, cube_sight_lines
from . import values as v

INT_RANGE = 1024


class Kind:
    """An action kind: its parameters' domains fix its ids (``base`` the first)."""

    def __init__(self, name: str, domains: tuple[tuple[Any, ...], ...], base: int) -> None:
        self.name, self.domains, self.base = name, domains, base
        self.positions = [{x: i for i, x in enumerate(d)} for d in domains]
        self.size = 1
        for d in domains:
            self.size *= len(d)

    def encode(self, values: Any) -> int:
        number = 0
        for at, value in zip(self.positions, values, strict=False):
            number = number * len(at) + at[value]
        return self.base + number

    def decode(self, number: int) -> tuple[Any, ...]:
        rest, found = number - self.base, []
        for domain in reversed(self.domains):
            rest, i = divmod(rest, len(domain))
            found.append(domain[i])
        return tuple(reversed(found))


class Board:
    """The static side of one game: entities, graph, tables, dice, clauses, actions."""

    def __init__(self, game: ir.Game) -> None:
        self.game = game
        self.players = tuple(v.Player(i, p.name, p.label, p.party)
                             for i, p in enumerate(game.players))
        self.seats = tuple(p for p in self.players if not p.party)
        self.places = tuple(v.Place(i, p.id, p.label, p.kind, p.features,
                                    self.players[p.owner] if p.owner >= 0 else None, p.coords)
                            for i, p in enumerate(game.places))
        self.hexes = tuple(p for p in self.places if p.kind == "hex")
        self.place = {p.id: p for p in self.places}
        self.at_coords = {p.coords: p for p in self.hexes}
        self.pieces = tuple(v.Piece(i, p.id, p.label, p.cls,
                                    self.players[p.side] if p.side >= 0 else None, p.tags,
                                    {k: _value(x) for k, x in p.props})
                            for i, p in enumerate(game.pieces))
        self.edges: dict[frozenset[int], ir.Edge] = {}
        self._graph(game)
        self.all = (self.seats, self.pieces, self.hexes,
                    tuple(p for p in self.places if p.kind == "area"),
                    tuple(p for p in self.places if p.kind == "zone"))
        self.tables = tuple(v.Table(t.name, t.rule, tuple(_value(c) for c in t.columns),
                                    {_value(k): tuple(_value(c) for c in cells)
                                     for k, cells in t.rows}) for t in game.tables)
        self.dice = tuple(v.Dice(d.name, d.count, d.sides, d.faces or None) for d in game.dice)
        self.regions = tuple(tuple(self.places[i] for i in r.places) for r in game.regions)
        self.pools = tuple({self.players[i]: self.places[at] for i, at in enumerate(p.places)}
                           for p in game.pools)
        self.hooks = {h.name: h for h in game.hooks}
        self.actions = {a.name: i for i, a in enumerate(game.actions)}
        self.forbids: list[list[tuple[ir.Clause, list[ir.Clause]]]] = [[] for _ in game.actions]
        for c in game.clauses:
            if c.kind == "forbid":
                lifts = [p for p in game.clauses if p.kind == "permit"
                         and p.action == c.action and p.despite == c.rule]
                self.forbids[c.action].append((c, lifts))
        self._space(game)

    def _graph(self, game: ir.Game) -> None:
        """Neighbours as the engine orders them: a hex's by direction, others by index."""
        near: dict[int, list[tuple[int, int]]] = {p.index: [] for p in self.places}
        shore: dict[int, list[int]] = {p.index: [] for p in self.places}
        for e in game.edges:
            self.edges[frozenset((e.a, e.b))] = e
            if e.kind == "adjacent":
                back = (e.direction + 3) % 6 if e.direction >= 0 else -1
                near[e.a].append((e.direction if e.direction >= 0 else e.b, e.b))
                near[e.b].append((back if back >= 0 else e.a, e.a))
            elif e.kind == "shore":
                shore[e.a].append(e.b)
                shore[e.b].append(e.a)
        for p in self.places:
            p.neighbours = tuple(self.places[b] for _, b in sorted(near[p.index]))
            p.shore = tuple(self.places[b] for b in sorted(shore[p.index]))

    def _space(self, game: ir.Game) -> None:
        domains = {"piece": self.pieces, "place": self.places, "hex": self.hexes,
                   "player": self.players, "int": tuple(range(INT_RANGE))}
        self.kinds: list[Kind] = []
        base = 0
        for a in game.actions:
            kind = Kind(a.name, tuple(domains.get(p.type, ()) for p in a.params), base)
            self.kinds.append(kind)
            base += kind.size
        totals = [t for d in self.dice if d.faces is None
                  for t in range(d.count, d.count * d.sides + 1)]
        faces = sorted({f for d in self.dice if d.faces for f in d.faces})
        self.roll = Kind("roll", ((*range(max(totals, default=0) + 1), *faces),), base)
        self.draw = Kind("draw", (self.pieces,), base + self.roll.size)
        self.by_base = [k for k in (*self.kinds, self.roll, self.draw) if k.size]

    def kind_of(self, number: int) -> Kind:
        return max((k for k in self.by_base if k.base <= number), key=lambda k: k.base)

    def action_text(self, number: int) -> str:
        kind = self.kind_of(number)
        return " ".join((kind.name, *(v.text(x) for x in kind.decode(number))))

    # ------------------------------------------------------------ graph functions
    def hexside(self, a: v.Place, b: v.Place) -> frozenset[str]:
        e = self.edges.get(frozenset((a.index, b.index)))
        return e.features if e is not None else frozenset()

    def direction(self, a: v.Place, b: v.Place) -> int | None:
        e = self.edges.get(frozenset((a.index, b.index)))
        if e is None or e.direction < 0 or a.kind != "hex" or b.kind != "hex":
            return None
        return e.direction if e.a == a.index else (e.direction + 3) % 6

    def distance(self, a: v.Place, b: v.Place) -> int:
        if a.kind != "hex" or b.kind != "hex":
            raise ValueError(f"distance is measured between hexes, not {a} and {b}")
        return cube_distance(a.coords, b.coords)

    def sight_lines(self, a: v.Place, b: v.Place) -> tuple[tuple[v.Place, ...], ...]:
        """The hexes strictly between two hexes along the line joining their centres,
        pushed a hair either way (``engine/hexgrid.sight_lines``, in cube coordinates)."""
        return tuple(tuple(found for found in map(self.at_coords.get, cubes)
                           if found is not None)
                     for cubes in cube_sight_lines(a.coords, b.coords))

    def zone(self, number: Any) -> v.Place:
        found = self.place.get(f"zone.{number}") if isinstance(number, int) else None
        if found is None or found.kind != "zone":
            raise ValueError(f"the map has no zone {number!r}")
        return found

    def clause_rules(self, which: str, kind: str) -> tuple[str, ...]:
        """The rules of the forbid (or permit) clauses on an action kind; permits by
        the group of the rule they lift, in the order the groups first appear."""
        action = self.actions.get(kind, -1)
        if which == "forbid":
            return tuple(dict.fromkeys(c.rule for c, _ in self.forbids[action])) \
                if action >= 0 else ()
        groups: dict[str, list[str]] = {}
        for c in self.game.clauses:
            if c.kind == "permit" and c.action == action:
                groups.setdefault(c.despite, []).append(c.rule)
        return tuple(dict.fromkeys(r for rules in groups.values() for r in rules))

    def forbids_reading(self, attribute: str) -> tuple[str, ...]:
        """The rules of the forbid clauses whose condition reads ``x.attribute`` itself
        (outside the functions it calls, as the engine reads the clause's text)."""
        found: list[str] = []
        for per_kind in self._kinds_in_order():
            for c, _ in per_kind:
                if _reads(c.when, attribute) and c.rule not in found:
                    found.append(c.rule)
        return tuple(found)

    def _kinds_in_order(self) -> list[list[tuple[ir.Clause, list[ir.Clause]]]]:
        order = list(dict.fromkeys(c.action for c in self.game.clauses if c.kind == "forbid"))
        return [self.forbids[a] for a in order]


def _reads(node: Any, attribute: str) -> bool:
    if isinstance(node, ir.Op):
        if node.op == "attr" and node.key == attribute:
            return True
        if node.op == "function":
            return False
        return any(_reads(a, attribute) for a in node.args)
    if isinstance(node, ir.Each):
        return any(_reads(x, attribute) for x in (node.domain, node.where, node.element,
                                                   node.default))
    if isinstance(node, ir.Ctx):
        return False
    return False


def _value(cell: Any) -> Any:
    """A table cell or printed value as the interpreter holds it (a keyed cell: a dict)."""
    if isinstance(cell, ir.Keyed):
        return {k: _value(x) for k, x in cell.entries}
    return cell
