"""The intermediate representation: frozen attrs classes, one per construct.

:mod:`.parse` builds these from the text of one file (a :class:`Module`);
:mod:`.lower` gathers the modules of a rulebook into one :class:`Program`;
:mod:`.check` validates it; the engine executes it. Every node keeps the
:class:`~.diagnostics.Span` it came from, and every statement the number of
the rule clause that states it, so that any diagnostic or adjudication can
cite its rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Union

import attrs

from .diagnostics import Span

# ----------------------------------------------------------------- expressions


@attrs.frozen
class IntLit:
    value: int
    span: Span


@attrs.frozen
class BoolLit:
    value: bool
    span: Span


@attrs.frozen
class Name:
    """A bare name: a context variable, a define, or a declared symbol."""

    id: str
    span: Span


@attrs.frozen
class SetLit:
    items: tuple[Expr, ...]
    span: Span


@attrs.frozen
class Attr:
    """``obj.name``: a unit's, hex's or table row's attribute."""

    obj: Expr
    name: str
    span: Span


@attrs.frozen
class Index:
    """``obj[key]``: a table row by key, or a side-keyed table cell by side."""

    obj: Expr
    key: Expr
    span: Span


@attrs.frozen
class Not:
    operand: Expr
    span: Span


@attrs.frozen
class BoolOp:
    """``and`` / ``or`` of two conditions."""

    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen
class Compare:
    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen
class Member:
    """``item in collection`` (``negated`` for ``not in``)."""

    item: Expr
    collection: Expr
    negated: bool
    span: Span


@attrs.frozen
class Is:
    """``unit is NAME`` (class, side, trait, flag) or ``hex has NAME`` (terrain, feature)."""

    subject: Expr
    op: str
    name: str
    name_span: Span
    span: Span


@attrs.frozen
class Arith:
    """``+ - * / mod``. Division is exact (a rational); use floor/ceil to round."""

    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen
class Neg:
    operand: Expr
    span: Span


@attrs.frozen
class Call:
    """A built-in function.

    Either plain arguments (``adjacent(a, b)``, ``count(s)``) or a
    comprehension over ``binder in domain``: ``count(u in units where C)``,
    ``sum(u.combat for u in attackers)``.
    """

    func: str
    args: tuple[Expr, ...]
    binder: str | None
    domain: Expr | None
    element: Expr | None
    where: Expr | None
    span: Span


Expr = Union[IntLit, BoolLit, Name, SetLit, Attr, Index, Not, BoolOp, Compare, Member, Is,
             Arith, Neg, Call]

# ----------------------------------------------------------------- table cells


@attrs.frozen
class IntCell:
    value: int
    span: Span


@attrs.frozen
class RatioCell:
    """An odds column heading such as ``3:1``."""

    attacker: int
    defender: int
    span: Span


@attrs.frozen
class ResultCell:
    """A combat result such as ``1/2``: attacker's then defender's loss."""

    left: int
    right: int
    span: Span


@attrs.frozen
class NameCell:
    name: str
    span: Span


@attrs.frozen
class KeyedCell:
    """A cell whose value depends on a key, e.g. ``{aztec: 1, spanish: 2}``."""

    entries: tuple[tuple[str, Cell], ...]
    span: Span


Cell = Union[IntCell, RatioCell, ResultCell, NameCell, KeyedCell]

# ----------------------------------------------------------------- statements


@attrs.frozen
class SideDecl:
    name: str
    label: str
    rule: str
    span: Span


@attrs.frozen
class FlagDecl:
    name: str
    label: str
    rule: str
    span: Span


@attrs.frozen
class PropertyDecl:
    name: str
    label: str
    values: tuple[str, ...]
    rule: str
    span: Span


@attrs.frozen
class ClassDecl:
    name: str
    label: str
    side: str
    traits: tuple[str, ...]
    rule: str
    span: Span


@attrs.frozen
class TerrainDecl:
    name: str
    label: str
    kind: str
    rule: str
    span: Span


@attrs.frozen
class HexsideDecl:
    name: str
    label: str
    rule: str
    span: Span


@attrs.frozen
class TableRow:
    key: Cell
    cells: tuple[Cell, ...]
    span: Span


@attrs.frozen
class TableDecl:
    name: str
    label: str
    columns: tuple[Cell, ...]
    rows: tuple[TableRow, ...]
    rule: str
    span: Span


@attrs.frozen
class DiceDecl:
    """``dice NAME = NdS``: N dice of S faces, summed."""

    name: str
    count: int
    faces: int
    rule: str
    span: Span


@attrs.frozen
class Define:
    """A named value computed in one engine context (``move``, ``combat``...)."""

    context: str
    name: str
    expr: Expr
    rule: str
    span: Span


@attrs.frozen
class Cost:
    """The cost of an action; ``override`` clauses replace the base cost when they hold."""

    action: str
    expr: Expr
    override: Expr | None
    rule: str
    span: Span


@attrs.frozen
class Forbid:
    action: str
    when: Expr
    rule: str
    span: Span


@attrs.frozen
class Permit:
    """Lifts one forbid clause (``despite``) when ``when`` holds."""

    action: str
    despite: str
    when: Expr
    spend_all: bool
    rule: str
    span: Span


@attrs.frozen
class Stacking:
    side: str
    requires: Expr
    rule: str
    span: Span


@attrs.frozen
class Overstack:
    """Who removes units from an overstacked hex."""

    remover: str
    rule: str
    span: Span


@attrs.frozen
class OneGroup:
    """Units move one group (parent stack) at a time."""

    rule: str
    span: Span


@attrs.frozen
class Odds:
    when: Expr
    attacker: Expr
    defender: Expr
    rule: str
    span: Span


@attrs.frozen
class Shift:
    """A column shift: positive to the right (attacker), negative to the left."""

    columns: int
    when: Expr
    rule: str
    span: Span


@attrs.frozen
class ShiftsCumulative:
    rule: str
    span: Span


@attrs.frozen
class Clamp:
    table: str
    after_shifts: bool
    rule: str
    span: Span


@attrs.frozen
class Resolve:
    table: str
    dice: str
    roller: str
    rule: str
    span: Span


@attrs.frozen
class Results:
    left: str
    right: str
    first: str
    rule: str
    span: Span


@attrs.frozen
class Advance:
    minimum: int
    when: Expr
    rule: str
    span: Span


@attrs.frozen
class Phase:
    name: str
    label: str
    side: str
    activity: str | None
    span: Span


@attrs.frozen
class Sequence:
    name: str
    phases: tuple[Phase, ...]
    rule: str
    span: Span


Statement = Union[SideDecl, FlagDecl, PropertyDecl, ClassDecl, TerrainDecl, HexsideDecl,
                  TableDecl, DiceDecl, Define, Cost, Forbid, Permit, Stacking, Overstack,
                  OneGroup, Odds, Shift, ShiftsCumulative, Clamp, Resolve, Results, Advance,
                  Sequence]


@attrs.frozen
class Rule:
    """One numbered rule clause: ``rule 8.14 "Major fortress" { ... }``."""

    number: str
    title: str
    optional: bool
    summary: str | None
    interpretations: tuple[str, ...]
    statements: tuple[Statement, ...]
    span: Span


# ----------------------------------------------------------------- data blocks


@attrs.frozen
class HexTerrain:
    hexes: tuple[str, ...]
    terrain: tuple[str, ...]
    span: Span


@attrs.frozen
class HexBlock:
    first: str
    last: str
    terrain: tuple[str, ...]
    span: Span


@attrs.frozen
class HexsideFeature:
    a: str
    b: str
    features: tuple[str, ...]
    span: Span


@attrs.frozen
class ZoneDecl:
    number: int
    label: str
    span: Span


@attrs.frozen
class ZoneBorders:
    number: int
    hexes: tuple[str, ...]
    span: Span


@attrs.frozen
class ZoneTouches:
    number: int
    others: tuple[int, ...]
    span: Span


@attrs.frozen
class PlaceDecl:
    name: str
    label: str
    hexes: tuple[str, ...]
    span: Span


@attrs.frozen
class Grid:
    low_columns: str
    span: Span


MapStatement = Union[HexTerrain, HexBlock, HexsideFeature, ZoneDecl, ZoneBorders, ZoneTouches,
                     PlaceDecl, Grid]


@attrs.frozen
class MapBlock:
    name: str
    label: str
    notes: tuple[str, ...]
    statements: tuple[MapStatement, ...]
    span: Span


@attrs.frozen
class CounterDecl:
    id: str
    label: str
    cls: str
    steps: int | None
    combat: tuple[int, ...]
    move: int | None
    flags: tuple[str, ...]
    properties: tuple[tuple[str, str], ...]
    span: Span


@attrs.frozen
class CountersBlock:
    name: str
    label: str
    notes: tuple[str, ...]
    counters: tuple[CounterDecl, ...]
    span: Span


@attrs.frozen
class Placement:
    units: tuple[str, ...]
    hex: str
    span: Span


@attrs.frozen
class SetupBlock:
    name: str
    label: str
    notes: tuple[str, ...]
    placements: tuple[Placement, ...]
    span: Span


@attrs.frozen
class GameBlock:
    name: str
    label: str
    sources: tuple[str, ...]
    notes: tuple[str, ...]
    span: Span


Item = Union[Rule, MapBlock, CountersBlock, SetupBlock, GameBlock]


@attrs.frozen
class Module:
    """The IR of one rules file."""

    path: str
    text: str
    items: tuple[Item, ...]


# ----------------------------------------------------------------- the program


@attrs.frozen
class MapData:
    """A lowered map: hex ids to terrain names, hexsides to features, zones, places."""

    name: str
    label: str
    notes: tuple[str, ...]
    odd_columns_low: bool
    hexes: Mapping[str, frozenset[str]]
    hexsides: Mapping[frozenset[str], frozenset[str]]
    zones: Mapping[int, str]
    zone_borders: Mapping[int, frozenset[str]]
    zone_touches: Mapping[int, frozenset[int]]
    places: Mapping[str, tuple[str, tuple[str, ...]]]
    block: MapBlock


@attrs.frozen
class Program:
    """Every module of a rulebook, gathered and indexed (the output of lowering).

    Attributes:
        modules: the parsed files, in load order.
        rules: rule clauses by number (only those switched on).
        options: the numbers of the optional rules switched on.
        statements: every statement of the enabled rules, in load order.
    """

    modules: tuple[Module, ...]
    game: GameBlock | None
    rules: Mapping[str, Rule]
    all_rules: tuple[Rule, ...]
    options: frozenset[str]
    statements: tuple[Statement, ...]
    map: MapData | None
    counters: CountersBlock | None
    setups: Mapping[str, SetupBlock]

    def of(self, kind: type) -> list:  # type: ignore[type-arg]
        """Every statement of one kind, in load order."""
        return [s for s in self.statements if isinstance(s, kind)]
