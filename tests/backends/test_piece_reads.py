"""Pieces that share folded values (engine/piece_reads.py, fold.EdgeBindings profiles).

A value folded per piece and edge is worked out once per profile: the
pieces the bindings read alike. These tests check which reads the scan
finds, that a piece used as more than its printed values gets a profile of
its own, and, exhaustively on a small map, that every piece's shared value
is the one the interpreter's binding gives that piece.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.engine import tables as tables_stage
from cortes_rules.engine.bytecode import INEXACT, number_cell
from cortes_rules.engine.fold import EdgeBindings
from cortes_rules.engine.machine import GameState
from cortes_rules.engine.procedures import CHOOSE
from cortes_rules.engine.piece_reads import PieceReads

CORE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "core"
BINDING = "with origin = unit.place {"


def _zoc(tmp_path, bindings: str, functions: str = ""):
    """The zone-of-control fixture, its move option given extra bindings."""
    source = (CORE_FIXTURES / "zoc.rules").read_text()
    assert BINDING in source
    source = source.replace(BINDING, f"with origin = unit.place, {bindings} {{")
    if functions:
        marker = "  function on_map(q) ="
        assert marker in source
        source = source.replace(marker, functions + "\n" + marker)
    path = tmp_path / "zoc.rules"
    path.write_text(source)
    book = cortes_rules.load(path)
    machine = book._machine
    move = next(o for p in machine.compiled_procs().values() for ins in p.code if ins[0] == CHOOSE
                for o in ins[1].options if o.kind == "move")
    return machine, move, EdgeBindings(machine, move)


def _agrees_with_the_interpreter(machine, move, edges) -> int:
    """Every piece, on every hex, along every edge: the folded value (through the
    column shared by its profile) equals the interpreter's binding for that piece."""
    tables = tables_stage.lower(machine.world)
    state = GameState(machine, seed=0, begin=False)
    checked = 0
    for unit in machine.world.pieces:
        for here in machine.world.hexes:
            state._put(unit, here)
            for edge in range(tables.neighbour_start[here.index],
                              tables.neighbour_start[here.index + 1]):
                there = machine.world.places[tables.neighbours[edge]]
                env = {"unit": unit, "to": there}
                for name, fn in move.bindings:
                    env[name] = fn(state, env)
                for name in edges.numbers:
                    assert edges.fill(name, tables, unit.index, edge) == \
                        number_cell(env[name]), (name, unit, here, there)
                    assert edges.value(name, unit.index, here.index, there.index) == env[name]
                    checked += 1
            state._put(unit, None)
    return checked


@pytest.mark.rule("3.1", rulebook="zoc")
def test_3_1_a_value_reading_a_units_tag_is_shared_by_the_units_with_that_tag(tmp_path):
    machine, move, edges = _zoc(tmp_path, "price = if unit is red_infantry and to has woods "
                                          "then 2 else 1")
    assert edges.numbers == ("price",)
    classes = {p.cls for p in machine.world.pieces}
    assert len(classes) == 2 and edges.profiles == 2
    assert _agrees_with_the_interpreter(machine, move, edges) > 100


@pytest.mark.rule("3.1", rulebook="zoc")
def test_3_1_a_unit_passed_to_a_function_is_followed_under_the_parameters_name(tmp_path):
    machine, move, edges = _zoc(
        tmp_path, "price = toll(unit, to)",
        "  function toll(u, h) = if u.side == red and h has woods then 3 else extra(h)\n"
        "  function extra(h) = if unit.move > 1 and h has town then 2 else 1")
    assert edges.numbers == ("price",)
    sides = {(p.side, p.props.get("move")) for p in machine.world.pieces}
    assert edges.profiles == len(sides)
    assert _agrees_with_the_interpreter(machine, move, edges) > 100
    # Read through the function, the printed identifier tells every unit apart.
    machine, move, edges = _zoc(
        tmp_path, "price = toll(unit)",
        "  function toll(u) = if u.id == first(pieces).id then 5 else 1")
    assert edges.profiles == len(machine.world.pieces)
    assert _agrees_with_the_interpreter(machine, move, edges) > 100


@pytest.mark.rule("3.1", rulebook="zoc")
def test_3_1_a_unit_compared_or_collected_gets_a_profile_of_its_own(tmp_path):
    for binding in ("price = if unit == first(pieces) then 2 else 1",
                    "price = count(u in pieces where u != unit and u.side == unit.side)",
                    "price = if unit in list(u for u in pieces where u.move > 1) "
                    "then 2 else 1"):
        machine, move, edges = _zoc(tmp_path, binding)
        assert edges.numbers == ("price",), binding
        assert edges.profiles == len(machine.world.pieces), binding
        assert _agrees_with_the_interpreter(machine, move, edges) > 100


@pytest.mark.rule("3.2", rulebook="zoc")
def test_3_2_a_declared_attribute_of_the_unit_is_no_part_of_a_profile(tmp_path):
    # unit.spent changes during a game: such a binding is not folded at all,
    # and the scan refuses to call two units alike by it.
    machine, _, edges = _zoc(tmp_path, "price = unit.spent + 1")
    assert "price" not in edges.names
    node = next(e for n, e in next(
        o for p in machine.compiled_procs().values() for ins in p.code if ins[0] == CHOOSE
        for o in ins[1].options if o.kind == "move").decl.bindings if n == "price")
    assert PieceReads(machine.fast).of(node, frozenset({"unit"})) is None


@pytest.mark.rule("7.7")
def test_7_7_the_cortes_movement_cost_reads_only_the_units_side():
    # 7.7's terrain costs and the causeway rate of 7.16 depend on the unit's
    # side alone: three profiles (the two sides and the ownerless) stand for
    # every counter.
    book = cortes_rules.load("cortes", options=("veteran",))
    machine = book._machine
    move = next(o for p in machine.compiled_procs().values() for ins in p.code if ins[0] == CHOOSE
                for o in ins[1].options if o.kind == "move")
    edges = EdgeBindings(machine, move)
    sides = {p.side for p in machine.world.pieces}
    assert edges.profiles == len(sides) < len(machine.world.pieces)
    for a, b in zip(machine.world.pieces, machine.world.pieces[1:], strict=False):
        assert (edges.profile_of[a.index] == edges.profile_of[b.index]) == (a.side == b.side)
    # A shared cell is written for every unit of the profile at once.
    tables = tables_stage.lower(machine.world)
    unit = next(p for p in machine.world.pieces if p.side is not None)
    here = next(h for h in machine.world.hexes if h.neighbours)
    edge = tables.neighbour_start[here.index]
    cell = edges.fill("cost", tables, unit.index, edge)
    column = edges.column("cost", tables)
    for other in machine.world.pieces:
        at = other.index * len(tables.neighbours) + edge
        if other.side == unit.side:
            assert column[at] == cell
        assert cell != INEXACT
