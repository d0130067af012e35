"""Section 7: the terrain types and their movement costs (7.8-7.15).

Costs are charged through 7.7 from the terrain effects chart (13.1); the
clauses 7.9 and 7.12-7.15 restate the chart's costs as load-time
requirements, so a chart that disagrees with the text is refused naming the
rule. Each cost is also checked on a legal move, for units of both sides,
through the movement points it spends.
"""

from __future__ import annotations

import shutil
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import RulesCheckError
from cortes_rules._resources import data_dir
from cortes_rules.dsl import ir
from positions import GARRISON

NATURAL = {"clear", "quagmire"}
ARTIFICIAL = {"dry_land_city", "chinampa_city", "temple_complex", "fortress",
              "major_fortress", "causeway"}


def spent_entering(game, unit: str, origin: str, target: str) -> int:
    phase = "aztec_land_movement" if unit.startswith(("A", "Cuauhtemoc")) else \
        "spanish_land_movement"
    state = game({**GARRISON, unit: origin}, phase=phase)
    state.apply(f"move {unit} {target}")
    assert state.place_of(unit) == target
    return int(state.attribute(unit, "spent"))


def edited_copy(tmp_path: Path, edits: dict[str, tuple[str, str]]) -> Path:
    """A copy of the shipped Cortés rulebook with text replaced in some files."""
    folder = tmp_path / "cortes"
    shutil.copytree(data_dir("rulebook") / "cortes", folder)
    for file, (old, new) in edits.items():
        path = folder / file
        text = path.read_text(encoding="utf-8")
        assert old in text, f"{old!r} not in {file}"
        path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return folder


def refused_rules(folder: Path) -> dict[str, str]:
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(folder)
    return {d.rule: d.message for d in caught.value.diagnostics if d.rule}


def terrain_kinds(book: cortes_rules.Rulebook) -> dict[str, str]:
    return {t.name: t.kind for t in book.program.of(ir.TerrainDecl)}


@pytest.fixture(scope="module")
def wrong_chart(tmp_path_factory) -> dict[str, str]:
    """Load a rulebook whose chart (13.1) contradicts 7.9, 7.12-7.15."""
    rows = {
        "row clear                 1 ": "row clear                 2 ",
        "row dry_land_city         1 ": "row dry_land_city         2 ",
        "row chinampa_city         2 ": "row chinampa_city         1 ",
        "row temple_complex        2 ": "row temple_complex        1 ",
        "row major_fortress        2 ": "row major_fortress        3 ",
    }
    folder = edited_copy(tmp_path_factory.mktemp("chart"), {})
    path = folder / "13-tables.rules"
    text = path.read_text(encoding="utf-8")
    for old, new in rows.items():
        assert old in text, old
        text = text.replace(old, new, 1)
    path.write_text(text, encoding="utf-8")
    return refused_rules(folder)


# ------------------------------------------------------------------ 7.8
@pytest.mark.rule("7.8")
def test_7_8_the_natural_terrain_types_are_clear_and_quagmire(book):
    kinds = terrain_kinds(book)
    assert {name for name, kind in kinds.items() if kind == "natural"} == NATURAL


@pytest.mark.rule("7.8")
def test_7_8_no_hex_holds_two_natural_terrains(book):
    for hex_id, terrain in book.program.map.hexes.items():
        assert len(set(terrain) & NATURAL) <= 1, hex_id
    quagmire = [h for h, t in book.program.map.hexes.items() if "quagmire" in t]
    assert quagmire == ["3023"]


# ------------------------------------------------------------------ 7.9
@pytest.mark.rule("7.9")
@pytest.mark.parametrize("unit", ["S1", "S9", "S30", "A1", "A11"])
def test_7_9_clear_costs_every_unit_1(game, unit):
    assert spent_entering(game, unit, "1110", "1111") == 1


@pytest.mark.rule("7.9")
def test_7_9_a_market_square_costs_what_clear_costs(book, game):
    squares = book.program.map.place_hexes("market_squares")
    assert "3017" in squares and book.program.map.hexes["3017"] == frozenset({"clear"})
    assert spent_entering(game, "A11", "3018", "3017") == 1


@pytest.mark.rule("7.9")
def test_7_9_a_chart_charging_more_for_clear_is_refused(wrong_chart):
    assert "1 MP for clear" in wrong_chart["7.9"]


# ------------------------------------------------------------------ 7.11
@pytest.mark.rule("7.11")
def test_7_11_the_six_artificial_terrain_types(book):
    kinds = terrain_kinds(book)
    assert {name for name, kind in kinds.items() if kind == "artificial"} == ARTIFICIAL
    assert set(kinds) == NATURAL | ARTIFICIAL


@pytest.mark.rule("7.11")
def test_7_11_no_hex_holds_two_artificial_terrains(book):
    for hex_id, terrain in book.program.map.hexes.items():
        assert len(set(terrain) & ARTIFICIAL) <= 1, hex_id


# ------------------------------------------------------------------ 7.12
@pytest.mark.rule("7.12")
@pytest.mark.parametrize("unit", ["S1", "S30", "A11"])
def test_7_12_dry_land_city_costs_every_unit_1(book, game, unit):
    assert "dry_land_city" in book.program.map.hexes["1104"]  # Tlacopan
    assert spent_entering(game, unit, "1105", "1104") == 1


@pytest.mark.rule("7.12")
def test_7_12_a_chart_charging_more_for_dry_land_city_is_refused(wrong_chart):
    assert "dry-land city" in wrong_chart["7.12"]


# ------------------------------------------------------------------ 7.13
@pytest.mark.rule("7.13")
def test_7_13_a_chart_with_another_chinampa_cost_is_refused(wrong_chart):
    assert "2 MP for chinampa city" in wrong_chart["7.13"]


# ------------------------------------------------------------------ 7.14
@pytest.mark.rule("7.14")
@pytest.mark.parametrize("unit, origin, target", [
    ("S1", "2709", "2810"), ("A11", "2709", "2810"),
    ("S30", "2916", "3016"), ("A1", "2916", "3016"),
])
def test_7_14_a_temple_complex_costs_every_unit_2(book, game, unit, origin, target):
    assert "temple_complex" in book.program.map.hexes[target]
    assert spent_entering(game, unit, origin, target) == 2


@pytest.mark.rule("7.14")
def test_7_14_the_temple_complexes_are_2810_and_3016(book):
    temples = sorted(h for h, t in book.program.map.hexes.items() if "temple_complex" in t)
    assert temples == ["2810", "3016"]


@pytest.mark.rule("7.14")
def test_7_14_a_chart_with_another_temple_cost_is_refused(wrong_chart):
    assert "2 MP for a temple complex" in wrong_chart["7.14"]


@pytest.mark.rule("7.14")
def test_7_14_a_map_with_the_temple_elsewhere_is_refused(tmp_path):
    folder = edited_copy(tmp_path, {"map.rules": (
        "hex 2810 3016: clear, temple_complex",
        "hex 2810: clear, temple_complex\n  hex 3016: clear, dry_land_city")})
    refused = refused_rules(folder)
    assert "2810 and 3016" in refused["7.14"]


# ------------------------------------------------------------------ 7.15
@pytest.mark.rule("7.15")
@pytest.mark.parametrize("unit, origin, target, terrain", [
    ("S1", "2615", "2514", "fortress"), ("A11", "2615", "2514", "fortress"),
    ("S1", "1222", "1322", "major_fortress"), ("A1", "1222", "1322", "major_fortress"),
])
def test_7_15_fortresses_and_major_fortresses_cost_every_unit_2(book, game, unit, origin,
                                                                  target, terrain):
    assert terrain in book.program.map.hexes[target]
    assert spent_entering(game, unit, origin, target) == 2


@pytest.mark.rule("7.15")
def test_7_15_a_chart_without_the_major_fortress_row_is_refused_at_load(tmp_path):
    folder = edited_copy(tmp_path, {"13-tables.rules": (
        "    row major_fortress        2                          -3\n", "")})
    refused = refused_rules(folder)
    assert "major_fortress" in refused["7.15"]


@pytest.mark.rule("7.15")
def test_7_15_a_chart_with_another_fortress_cost_is_refused(wrong_chart):
    assert "fortresses and major fortresses" in wrong_chart["7.15"]
    assert set(wrong_chart) == {"7.9", "7.12", "7.13", "7.14", "7.15"}
