"""A filtered ``for each`` whose body writes only its item's attributes and place
scans natively.

The start of every phase (hex_wargame.rules, ``begin_phase``) clears the
attack and closed marks of the hexes that have one (8.x, 7.6); a unit
sailing on the lake takes along the leaders it carries (7.19, 9.5); a
carrier takes its cannons along (11.6). On the compiled backend the clause
machine finds the items at once (``native.item_scan``) and the loop goes
through them alone. It must play exactly as the loop that tests every item:
the same attribute values, positions and log, the same loop variable and
position afterwards, and the same count of instructions for the step budget.
"""

from __future__ import annotations

from array import array
from pathlib import Path

import attrs
import pytest

import cortes_rules
from cortes_rules.dsl import ir
from cortes_rules.engine import bytecode as bc
from cortes_rules.engine import machine as machine_module
from cortes_rules.engine import procedures
from cortes_rules.engine import native
from cortes_rules.engine.procedures import REGION

from test_lazy_procedures import _play

pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")


def _played(monkeypatch, seed: int, steps: int, scan: bool, counted: list[int]):
    with monkeypatch.context() as patch:
        original = machine_module.Machine.item_scan

        def item_scan(self, st):
            made = original(self, st) if scan else None
            if made is None:
                return None

            def counting(s, env, items):
                found = made(s, env, items)
                # (an empty list is left to the loop: nothing to scan)
                counted.append(-1 if found is None and items else len(found or ()))
                return found
            return counting
        patch.setattr(machine_module.Machine, "item_scan", item_scan)
        book = cortes_rules.load("cortes", options="veteran", backend="compiled")
        game = book.new_game(seed=seed, setup="historical")
        return book, game, _play(game, seed, steps)


def _place_attributes(game) -> dict[str, list[str]]:
    return {name: [str(v) for v in column] for name, column in game.place_attrs.items()}


@pytest.mark.rule("8.1")
@pytest.mark.parametrize("seed", range(2))
def test_8_1_a_native_scan_plays_as_the_loop_that_tests_every_item(monkeypatch, seed):
    scans: list[int] = []
    _, scanned, by_scan = _played(monkeypatch, seed, 300, True, scans)
    assert scans and min(scans) >= 0            # every scan answered
    assert max(scans) > 0                       # and found marked hexes
    loops: list[int] = []
    _, looped, by_loop = _played(monkeypatch, seed, 300, False, loops)
    assert not loops
    assert by_scan == by_loop
    assert scanned.to_notation() == looped.to_notation()
    assert _place_attributes(scanned) == _place_attributes(looped)


@pytest.mark.rule("8.1")
def test_8_1_a_scan_leaves_the_count_and_the_loop_as_the_loop_did(monkeypatch):
    # begin_phase's region, run on the same position both ways with hexes
    # marked: the same count, the same hexes cleared, the loop variable at
    # the last hex and the loop's position at its end.
    results = []
    for scan in (True, False):
        scans: list[int] = []
        book, game, _ = _played(monkeypatch, 5, 60, scan, scans)
        hexes = book._machine.world.hexes
        for place in (hexes[3], hexes[40]):
            game._write_place("attacked", place.index, True)
        game._write_place("closed", hexes[40].index, True)
        marked = sum(1 for h in hexes if game.place_attrs["attacked"][h.index]
                     or game.place_attrs["closed"][h.index])
        assert marked >= 2
        ins = book._machine.procs["begin_phase"].code[0]
        assert ins[0] == REGION
        env: dict[str, object] = {}
        count = ins[1](game, env)
        assert (scans[-1:] == [marked]) == scan
        loop = next(v for k, v in env.items() if k.startswith("$for") and v[0] == tuple(hexes))
        assert env["h"] == hexes[-1] and loop[1] == len(hexes)
        assert not any(game.place_attrs["attacked"][h.index] for h in hexes)
        assert not any(game.place_attrs["closed"][h.index] for h in hexes)
        results.append((count, _place_attributes(game)))
    assert results[0] == results[1]
    assert results[0][0] > 0


def _filtered_loops(book):
    """Every ``for each ... where`` of the rulebook's procedures, by (file, line)."""
    found = {}

    def walk(node):
        if isinstance(node, ir.ForEach) and node.where is not None:
            found[(Path(node.span.path).name, node.span.line)] = node
        if attrs.has(type(node)):
            for field in attrs.fields(type(node)):
                value = getattr(node, field.name)
                for child in value if isinstance(value, tuple) else (value,):
                    walk(child)
    for procedure in book._machine.program.of(ir.Procedure):
        walk(procedure)
    return found


@pytest.mark.rule("7.19")
def test_7_19_loops_that_move_their_own_item_are_scanned_and_others_are_not():
    # 7.19/9.5: a sailing unit takes along the leaders it carries; 11.6: a
    # carrier takes its cannons along, and cannons left alone are destroyed.
    # Their bodies put and set only the loop's item. 9.5's loop over leaders
    # on the lake binds a variable: the scan is not offered.
    book = cortes_rules.load("cortes", options="veteran", backend="compiled")
    loops = _filtered_loops(book)
    for line in (("07-movement.rules", 204), ("11-optional.rules", 313),
                 ("11-optional.rules", 319)):
        loop = loops[line]
        assert "put" in procedures._own_writes(loop.name, loop.body)
        assert book._machine.item_scan(loop) is not None
    refused = loops[("09-leaders.rules", 144)]
    assert procedures._own_writes(refused.name, refused.body) is None
    assert book._machine.item_scan(refused) is None


def _code(*ops):
    return bc.Code("7.19", ("x", "y"), array("q", [n for pair in ops for n in pair]))


@pytest.mark.rule("7.19")
@pytest.mark.parametrize("ops, own", [
    # the item's own place, compared with a parameter: unchanged by moving others
    (((bc.PARAM, 0), (bc.WHERE, 0), (bc.PARAM, 1), (bc.EQ, 0), (bc.RETURN, 0)), True),
    # another slot's place, a place's count, owners, tags of its pieces, its
    # pieces: each may change as the body moves earlier items
    (((bc.PARAM, 1), (bc.WHERE, 0), (bc.PARAM, 1), (bc.EQ, 0), (bc.RETURN, 0)), False),
    (((bc.PARAM, 1), (bc.COUNT, 0), (bc.RETURN, 0)), False),
    (((bc.PARAM, 1), (bc.PARAM, 0), (bc.OWNED, 0), (bc.RETURN, 0)), False),
    (((bc.PARAM, 1), (bc.ANY_TAG, 0), (bc.RETURN, 0)), False),
    (((bc.PARAM, 1), (bc.QUANTIFY, bc.quantify_arg(bc.ANY_OF, 0, 2, 2)),
      (bc.CONST, 1), (bc.RETURN, 0), (bc.RETURN, 0)), False),
    # a place's neighbours are fixed by the map
    (((bc.PARAM, 1), (bc.QUANTIFY, bc.quantify_arg(bc.ANY_OF, 1, 2, 2)),
      (bc.CONST, 1), (bc.RETURN, 0), (bc.RETURN, 0)), True),
])
def test_7_19_a_moving_loops_filter_may_read_only_its_items_place(ops, own):
    assert native._own_place(_code(*ops)) is own
