"""``sight_lines(a, b)``: the hexes between two hex centres, for line of sight.

Grands Stratèges blocks artillery fire by forests, villages and ridges on
the straight line between the centres of the firing hex and its target
(V.7-V.11). The core gives that line as two lines pushed a hair either way:
they differ only where the line runs along a hexside, and the rulebook says
which reading of such a line it follows. Checked here on the river-crossing
fixture's map (odd columns low) and as properties of the grid.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.engine import hexgrid

ZOC = Path(__file__).resolve().parents[1] / "fixtures" / "core" / "zoc.rules"
MARK = pytest.mark.rule("1.3", rulebook="river_crossing")


@MARK
def test_a_line_down_a_column_passes_each_hex_between() -> None:
    assert hexgrid.sight_lines("0101", "0105") == (("0102", "0103", "0104"),) * 2
    assert hexgrid.sight_lines("0303", "0304") == ((), ())      # neighbours: nothing between
    assert hexgrid.sight_lines("0303", "0303") == ((), ())


@MARK
def test_a_line_along_a_hexside_passes_one_hex_on_each_side() -> None:
    # 0202 and 0402 sit level; column 3 is half a hex lower, so the line runs
    # along the hexside between 0301 and 0302.
    assert hexgrid.sight_lines("0202", "0402") == (("0301",), ("0302",))
    assert hexgrid.sight_lines("0202", "0502") == (("0302", "0402"),) * 2


@MARK
def test_the_language_reads_a_forest_beside_the_line_both_ways() -> None:
    book = cortes_rules.load(ZOC)
    state = book.new_game(setup=book.setups[0])
    lines = state.evaluate("sight_lines(a, b)", a="0202", b="0402")
    assert [[h.id for h in line] for line in lines] == [["0301"], ["0302"]]   # 0302 is wooded
    either = "any(l in sight_lines(a, b) where any(h in l where h has woods))"
    both = "all(l in sight_lines(a, b) where any(h in l where h has woods))"
    assert state.evaluate(either, a="0202", b="0402") is True
    assert state.evaluate(both, a="0202", b="0402") is False
    assert state.evaluate(both, a="0101", b="0401") is False


hexes = st.tuples(st.integers(1, 40), st.integers(1, 40)).map(hexgrid.format_hex)


@MARK
@given(hexes, hexes, st.booleans())
def test_each_line_is_a_chain_of_neighbours_from_one_end_to_the_other(
        a: str, b: str, odd_low: bool) -> None:
    steps = hexgrid.distance(a, b, odd_low)
    for line in hexgrid.sight_lines(a, b, odd_low):
        path = [a, *line, b] if a != b else [a]
        assert len(path) == steps + 1
        for here, there in zip(path, path[1:], strict=False):
            assert hexgrid.adjacent(here, there, odd_low)
        assert all(hexgrid.distance(a, h, odd_low) == i for i, h in enumerate(path))


@MARK
@given(hexes, hexes, st.booleans())
def test_a_line_seen_from_the_other_end_is_the_same_line(a: str, b: str, odd_low: bool) -> None:
    there = hexgrid.sight_lines(a, b, odd_low)
    back = hexgrid.sight_lines(b, a, odd_low)
    assert [tuple(reversed(line)) for line in back] == list(there)
