"""The engine's view of a checked program: indexes built once per rulebook.

:class:`Book` turns the IR into what the interpreter asks for at every
step: unit specs by id, terrain by hex, table cells by row and column, the
clauses of each kind grouped by action, and the numbering of actions (their
stable integer ids).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import attrs

from ..dsl import ir
from ..dsl.contexts import DEFINE_SCOPES
from ..errors import NotationError
from . import hexgrid
from .actions import Action


@attrs.frozen
class UnitSpec:
    """What a counter says: fixed for the whole game."""

    id: str
    label: str
    cls: str
    side: str
    max_steps: int
    combat: tuple[int, ...]
    move: int
    tags: frozenset[str]
    properties: Mapping[str, str | int]

    def combat_at(self, steps: int) -> int:
        """The combat factor at a number of steps (0 when eliminated or stepless)."""
        if steps <= 0 or not self.combat:
            return 0
        return self.combat[self.max_steps - steps]


@attrs.frozen
class Table:
    """A two-dimensional table: cells by row key and column heading."""

    name: str
    rule: str
    columns: tuple[Any, ...]
    rows: Mapping[Any, tuple[Any, ...]]

    def cell(self, row: Any, column: Any) -> Any:
        return self.rows[row][self.columns.index(column)]


def cell_value(cell: ir.Cell) -> Any:
    """A table cell as a Python value: int, (a, b) pair, name, or dict."""
    if isinstance(cell, ir.IntCell):
        return cell.value
    if isinstance(cell, ir.RatioCell):
        return (cell.attacker, cell.defender)
    if isinstance(cell, ir.ResultCell):
        return (cell.left, cell.right)
    if isinstance(cell, ir.NameCell):
        return cell.name
    return {key: cell_value(value) for key, value in cell.entries}


def ratio_rank(ratio: tuple[int, int]) -> int:
    """Position of odds a:1 or 1:b on a line where 1:1 is 0, 2:1 is 1, 1:2 is -1."""
    attacker, defender = ratio
    return attacker - 1 if attacker >= defender else -(defender - 1)


# Action kinds and the shape of their arguments, in id order.
NULLARY = ("end", "resolve", "cancel", "stop")
PER_UNIT = ("join", "lose", "advance", "remove")


class Book:
    """Indexes over one checked program. Read-only once built."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        of = program.of
        self.sides: tuple[str, ...] = tuple(s.name for s in of(ir.SideDecl))
        classes = {c.name: c for c in of(ir.ClassDecl)}
        self._symbols: set[str] = set(self.sides) | set(classes)
        for kind in (ir.TerrainDecl, ir.HexsideDecl, ir.FlagDecl):
            self._symbols |= {d.name for d in of(kind)}
        for decl in of(ir.PropertyDecl):
            self._symbols |= set(decl.values)
        for decl in classes.values():
            self._symbols |= set(decl.traits)
        self.units: dict[str, UnitSpec] = {}
        counters = program.counters.counters if program.counters else ()
        for counter in counters:
            decl = classes[counter.cls]
            tags = {counter.cls, decl.side, *decl.traits, *counter.flags}
            self.units[counter.id] = UnitSpec(
                id=counter.id, label=counter.label, cls=counter.cls, side=decl.side,
                max_steps=counter.steps or 0, combat=counter.combat, move=counter.move or 0,
                tags=frozenset(tags), properties=dict(counter.properties))
        self.unit_ids: tuple[str, ...] = tuple(self.units)
        self.map = program.map
        self.odd_columns_low = program.map.odd_columns_low if program.map else True
        self.hex_ids: tuple[str, ...] = tuple(sorted(program.map.hexes)) if program.map else ()
        self.tables: dict[str, Table] = {}
        for decl in of(ir.TableDecl):
            rows = {cell_value(r.key): tuple(cell_value(c) for c in r.cells) for r in decl.rows}
            self.tables[decl.name] = Table(decl.name, decl.rule,
                                           tuple(cell_value(c) for c in decl.columns), rows)
        self.dice = {d.name: d for d in of(ir.DiceDecl)}
        self._defines: dict[str, dict[str, ir.Define]] = {}
        for define in of(ir.Define):
            for context in DEFINE_SCOPES[define.context]:
                self._defines.setdefault(context, {}).setdefault(define.name, define)
        self.base_costs = [c for c in of(ir.Cost) if c.override is None]
        self.cost_overrides = sorted((c for c in of(ir.Cost) if c.override is not None),
                                     key=lambda c: _rule_key(c.rule))
        self.forbids: dict[str, list[ir.Forbid]] = {}
        for forbid in of(ir.Forbid):
            self.forbids.setdefault(forbid.action, []).append(forbid)
        self.permits: dict[str, list[ir.Permit]] = {}
        for permit in of(ir.Permit):
            self.permits.setdefault(permit.action, []).append(permit)
        self.stacking: dict[str, list[ir.Stacking]] = {}
        for limit in of(ir.Stacking):
            self.stacking.setdefault(limit.side, []).append(limit)
        self.overstack: ir.Overstack | None = next(iter(of(ir.Overstack)), None)
        self.one_group: ir.OneGroup | None = next(iter(of(ir.OneGroup)), None)
        self.odds: list[ir.Odds] = of(ir.Odds)
        self.shifts: list[ir.Shift] = of(ir.Shift)
        self.cumulative: ir.ShiftsCumulative | None = next(iter(of(ir.ShiftsCumulative)), None)
        self.clamp: ir.Clamp | None = next(iter(of(ir.Clamp)), None)
        self.resolve: ir.Resolve | None = next(iter(of(ir.Resolve)), None)
        self.results: ir.Results | None = next(iter(of(ir.Results)), None)
        self.advance: ir.Advance | None = next(iter(of(ir.Advance)), None)
        sequence = next(iter(of(ir.Sequence)), None)
        self.sequence: ir.Sequence | None = sequence
        self.phases: tuple[ir.Phase, ...] = sequence.phases if sequence else ()
        self._max_roll = max((d.count * d.faces for d in self.dice.values()), default=0)
        self._build_action_index()

    # -------------------------------------------------------------- lookups
    def unit(self, unit_id: str) -> UnitSpec:
        try:
            return self.units[unit_id]
        except KeyError:
            raise NotationError(f"no unit {unit_id!r} in this rulebook") from None

    def terrain(self, hex_id: str) -> frozenset[str]:
        assert self.map is not None
        return self.map.hexes.get(hex_id, frozenset())

    def on_map(self, hex_id: str) -> bool:
        return self.map is not None and hex_id in self.map.hexes

    def adjacent(self, a: str, b: str) -> bool:
        return hexgrid.adjacent(a, b, self.odd_columns_low)

    def neighbours(self, hex_id: str) -> list[str]:
        """Neighbours of a hex that are on the map, in direction order."""
        return [h for h in hexgrid.neighbours(hex_id, self.odd_columns_low) if self.on_map(h)]

    def hexside(self, a: str, b: str) -> frozenset[str]:
        """Features of the hexside between two hexes (empty when none)."""
        assert self.map is not None
        return self.map.hexsides.get(frozenset((a, b)), frozenset())

    def define(self, context: str, name: str) -> ir.Define | None:
        return self._defines.get(context, {}).get(name)

    def is_symbol(self, name: str) -> bool:
        return name in self._symbols

    def opponent(self, side: str) -> str:
        others = [s for s in self.sides if s != side]
        return others[0]

    def column_ranks(self) -> list[int]:
        """Ranks of the clamp table's odds columns, left to right."""
        assert self.clamp is not None
        return [ratio_rank(c) for c in self.tables[self.clamp.table].columns]

    # -------------------------------------------------------------- action ids
    def _build_action_index(self) -> None:
        self._hex_index = {h: i for i, h in enumerate(self.hex_ids)}
        self._unit_index = {u: i for i, u in enumerate(self.unit_ids)}
        n_units, n_hexes = len(self.unit_ids), len(self.hex_ids)
        offset = len(NULLARY)
        self._roll_base = offset
        offset += self._max_roll + 1
        self._move_base = offset
        offset += n_units * n_hexes
        self._attack_base = offset
        offset += n_hexes
        self._unit_bases = {}
        for kind in PER_UNIT:
            self._unit_bases[kind] = offset
            offset += n_units
        self.num_distinct_actions = offset

    def action_id(self, action: Action) -> int:
        """The stable integer id of an action in this rulebook."""
        kind, args = action.kind, action.args
        try:
            if kind in NULLARY:
                return NULLARY.index(kind)
            if kind == "roll":
                value = int(args[0])
                if not 0 <= value <= self._max_roll:
                    raise KeyError(value)
                return self._roll_base + value
            if kind == "move":
                return (self._move_base + self._unit_index[args[0]] * len(self.hex_ids)
                        + self._hex_index[args[1]])
            if kind == "attack":
                return self._attack_base + self._hex_index[args[0]]
            return self._unit_bases[kind] + self._unit_index[args[0]]
        except (KeyError, ValueError, IndexError):
            raise NotationError(f"{action} names no unit, hex or value of this rulebook") from None

    def action_from_id(self, number: int) -> Action:
        """The action with a given integer id."""
        if not 0 <= number < self.num_distinct_actions:
            raise NotationError(f"no action has id {number}")
        if number < len(NULLARY):
            return Action(NULLARY[number])
        if number < self._move_base:
            return Action("roll", (str(number - self._roll_base),))
        if number < self._attack_base:
            unit, hexnum = divmod(number - self._move_base, len(self.hex_ids))
            return Action("move", (self.unit_ids[unit], self.hex_ids[hexnum]))
        if number < self._unit_bases[PER_UNIT[0]]:
            return Action("attack", (self.hex_ids[number - self._attack_base],))
        for kind in reversed(PER_UNIT):
            if number >= self._unit_bases[kind]:
                return Action(kind, (self.unit_ids[number - self._unit_bases[kind]],))
        raise NotationError(f"no action has id {number}")  # pragma: no cover


def _rule_key(number: str) -> tuple[int, ...]:
    return tuple(int("".join(ch for ch in part if ch.isdigit()) or 0)
                 for part in number.split("."))

