"""Stage 2: the modules of one rulebook into a single ``Program``.

Lowering gathers the rule clauses of every file, switches optional rules on
or off, keeps the first map, counter mix and set-ups found, and expands the
map's statements (blocks of hexes, later lines overriding earlier ones) into
plain lookup tables. It judges nothing: the checker (``.check``) reports
every problem, including those lowering had to step over (a duplicate rule
number keeps its first clause here).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Any

import attrs

from . import ir


def registry(modules: Sequence[ir.Module]) -> dict[str, ir.Interpretation]:
    """The interpretation entries of a rulebook by id (the first of a duplicated id)."""
    entries: dict[str, ir.Interpretation] = {}
    for module in modules:
        for item in module.items:
            if isinstance(item, ir.Interpretation):
                entries.setdefault(item.id, item)
    return entries


def chosen_readings(entries: Mapping[str, ir.Interpretation],
                    readings: Mapping[str, str] | None = None) -> dict[str, str]:
    """Each entry's default reading, replaced by the ones chosen."""
    chosen = {i: e.default for i, e in entries.items() if e.default is not None}
    chosen.update(readings or {})
    return chosen


def lower(modules: Sequence[ir.Module], options: Iterable[str] = (),
          readings: Mapping[str, str] | None = None) -> ir.Program:
    """Gather parsed modules into one program, keeping enabled rules only.

    Args:
        modules: parsed files, in load order.
        options: numbers of the optional rules to switch on.
        readings: interpretation entry id -> the reading chosen (the others
            keep their default). Statements guarded by ``when reading`` are
            kept or dropped, and ``reading ID is NAME`` becomes true or false.
    """
    enabled = frozenset(options)
    entries = registry(modules)
    chosen = chosen_readings(entries, readings)
    all_rules: list[ir.Rule] = []
    rules: dict[str, ir.Rule] = {}
    statements: list[ir.Statement] = []
    game = None
    maps: list[ir.MapBlock] = []
    counters: list[ir.CountersBlock] = []
    setups: dict[str, ir.SetupBlock] = {}
    for module in modules:
        for item in module.items:
            if isinstance(item, ir.Rule):
                all_rules.append(item)
                if item.optional and item.number not in enabled:
                    continue
                if item.number not in rules:
                    if item.has_readings:
                        used: set[str] = set()
                        flat = tuple(resolve_readings(item.statements, chosen, used))
                        item = attrs.evolve(item, statements=flat,
                                            readings=tuple(sorted(used)))
                    rules[item.number] = item
                    statements.extend(item.statements)
            elif isinstance(item, ir.GameBlock):
                game = game or item
            elif isinstance(item, ir.MapBlock):
                maps.append(item)
            elif isinstance(item, ir.CountersBlock):
                counters.append(item)
            elif isinstance(item, ir.SetupBlock):
                setups.setdefault(item.name, item)
    return ir.Program(
        modules=tuple(modules), game=game, rules=MappingProxyType(rules),
        all_rules=tuple(all_rules), options=enabled, statements=tuple(statements),
        map=lower_map(maps[0], chosen) if maps else None,
        counters=counters[0] if counters else None,
        setups=MappingProxyType(setups), interpretations=MappingProxyType(entries),
        readings=MappingProxyType(chosen))


def resolve_readings(statements: Iterable[Any], chosen: Mapping[str, str],
                     used: set[str] | None = None, *, fold: bool = True) -> Iterable[Any]:
    """Statements with ``when reading`` guards kept (their bodies spliced in) or
    dropped, and (with ``fold``) every ``reading ID is NAME`` folded into true
    or false.

    ``used`` collects the ids of the entries met on the way."""
    used = set() if used is None else used
    for statement in statements:
        if isinstance(statement, ir.WhenReading):
            used.add(statement.entry)
            if chosen.get(statement.entry) == statement.reading:
                yield from resolve_readings(statement.body, chosen, used, fold=fold)
        else:
            yield fold_readings(statement, chosen, used) if fold else statement


def fold_readings(node: Any, chosen: Mapping[str, str], used: set[str] | None = None) -> Any:
    """A copy of ``node`` with each ``reading ID is NAME`` replaced by its truth."""
    if isinstance(node, ir.ReadingIs):
        if used is not None:
            used.add(node.entry)
        return ir.BoolLit(chosen.get(node.entry) == node.reading, node.span,
                          reading=f"{node.entry} is {node.reading}")
    if isinstance(node, tuple):
        items = tuple(fold_readings(x, chosen, used) for x in node)
        return items if any(a is not b for a, b in zip(items, node, strict=True)) else node
    if not attrs.has(type(node)) or isinstance(node, _LEAVES):
        return node
    changes = {}
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        if isinstance(value, tuple) or attrs.has(type(value)):
            new = fold_readings(value, chosen, used)
            if new is not value:
                changes[field.name] = new
    return attrs.evolve(node, **changes) if changes else node


# Nodes that never hold an expression.
_LEAVES = (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit, ir.Name, ir.TypeRef, ir.ActionParam,
           ir.IntCell, ir.DecimalCell, ir.RatioCell, ir.ResultCell, ir.NameCell, ir.KeyedCell)


def hex_block(first: str, last: str) -> list[str]:
    """Every hex id in the rectangle of columns and rows spanned by two corners."""
    c1, r1, c2, r2 = int(first[:2]), int(first[2:]), int(last[:2]), int(last[2:])
    return [f"{c:02d}{r:02d}"
            for c in range(min(c1, c2), max(c1, c2) + 1)
            for r in range(min(r1, r2), max(r1, r2) + 1)]


def lower_map(block: ir.MapBlock, chosen: Mapping[str, str] | None = None) -> ir.MapData:
    """Expand a map block's statements into lookup tables (the lines of a
    ``when reading`` guard only under that reading)."""
    odd_low = True
    hexes: dict[str, frozenset[str]] = {}
    hexsides: dict[frozenset[str], frozenset[str]] = {}
    zones: dict[int, str] = {}
    borders: dict[int, set[str]] = {}
    touches: dict[int, set[int]] = {}
    places: dict[str, tuple[str, tuple[str, ...]]] = {}
    areas: dict[str, tuple[str, frozenset[str]]] = {}
    links: dict[str, set[str]] = {}
    area_borders: dict[frozenset[str], frozenset[str]] = {}
    place_decls: list[ir.PlaceDecl] = []
    zone_groups: dict[str, tuple[str, tuple[int, ...]]] = {}
    for statement in resolve_readings(block.statements, chosen or {}, fold=False):
        if isinstance(statement, ir.Grid):
            odd_low = statement.low_columns == "odd"
        elif isinstance(statement, ir.HexBlock):
            for hex_id in hex_block(statement.first, statement.last):
                hexes[hex_id] = frozenset(statement.terrain)
        elif isinstance(statement, ir.HexTerrain):
            for hex_id in statement.hexes:
                hexes[hex_id] = frozenset(statement.terrain)
        elif isinstance(statement, ir.HexsideFeature):
            key = frozenset((statement.a, statement.b))
            hexsides[key] = hexsides.get(key, frozenset()) | frozenset(statement.features)
        elif isinstance(statement, ir.ZoneDecl):
            zones[statement.number] = statement.label
        elif isinstance(statement, ir.ZoneBorders):
            borders.setdefault(statement.number, set()).update(statement.hexes)
        elif isinstance(statement, ir.ZoneTouches):
            for other in statement.others:
                touches.setdefault(statement.number, set()).add(other)
                touches.setdefault(other, set()).add(statement.number)
        elif isinstance(statement, ir.PlaceDecl):
            place_decls.append(statement)
        elif isinstance(statement, ir.ZoneGroup):
            zone_groups.setdefault(statement.name, (statement.label, statement.zones))
        elif isinstance(statement, ir.AreaDecl):
            areas[statement.name] = (statement.label, frozenset(statement.features))
        elif isinstance(statement, ir.AreaAdjacent):
            for linked in statement.others:
                links.setdefault(statement.name, set()).add(linked)
                links.setdefault(linked, set()).add(statement.name)
        elif isinstance(statement, ir.AreaBorder):
            key = frozenset((statement.a, statement.b))
            area_borders[key] = area_borders.get(key, frozenset()) | frozenset(statement.features)
    frozen_borders = {k: frozenset(v) for k, v in borders.items()}
    # Places are resolved once every hex and zone shore is known, in order,
    # so that a place may name the places declared before it.
    for decl in place_decls:
        if decl.name in places:
            continue  # the checker reports the second declaration
        members = place_items(decl.items, hexes, frozen_borders, places)
        members -= place_items(decl.excluded, hexes, frozen_borders, places)
        places[decl.name] = (decl.label, tuple(sorted(members)))
    return ir.MapData(
        name=block.name, label=block.label, notes=block.notes, odd_columns_low=odd_low,
        hexes=MappingProxyType(hexes), hexsides=MappingProxyType(hexsides),
        zones=MappingProxyType(zones),
        zone_borders=MappingProxyType(frozen_borders),
        zone_touches=MappingProxyType({k: frozenset(v) for k, v in touches.items()}),
        places=MappingProxyType(places), block=block, areas=MappingProxyType(areas),
        area_links=MappingProxyType({k: frozenset(v) for k, v in links.items()}),
        area_borders=MappingProxyType(area_borders), zone_groups=MappingProxyType(zone_groups))


def place_items(items: Iterable[ir.PlaceItem], hexes: dict[str, frozenset[str]],
                borders: dict[int, frozenset[str]],
                places: dict[str, tuple[str, tuple[str, ...]]]) -> set[str]:
    """The hexes a list of place items stands for (unknown names stand for none)."""
    chosen: set[str] = set()
    for item in items:
        if item.kind == "hex":
            chosen.add(item.args[0])
        elif item.kind == "range":
            chosen.update(h for h in hex_block(*item.args) if h in hexes)
        elif item.kind == "place":
            chosen.update(places.get(item.args[0], ("", ()))[1])
        elif item.kind == "all":
            chosen.update(hexes)
        elif item.kind == "terrain":
            chosen.update(h for h, terrain in hexes.items() if item.args[0] in terrain)
        elif item.kind == "shore":
            zones = [int(item.args[0])] if item.args else list(borders)
            for zone in zones:
                chosen.update(borders.get(zone, ()))
    return chosen
