"""A hex holds at most one terrain of each kind: natural, artificial and relief.

A terrain's kind is the word its declaration ends with. Cortés (7.7) gives a
hex one natural and one artificial terrain; Grands Stratèges declares its
hills of the kind ``relief``, a height the ground may cover, so a map may
hold a wooded hill, which the artillery rules read as a hill (V.2) and the
movement rules as woods (II.8). Two terrains of one kind on a hex are an
error citing the rule that declares them.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.loader import check_path

ROOT = Path(__file__).resolve().parents[2]
EXAMPLES_MAP = ROOT / "tests" / "rules" / "grands_strateges" / "examples_map.rules"


def _rulebook(tmp_path: Path, hexes: str) -> Path:
    path = tmp_path / "map.rules"
    path.write_text('rule 3.1 "Terrain" {\n  summary "Terrain types."\n'
                    '  terrain clear "Clear" natural\n  terrain forest "Forest" natural\n'
                    '  terrain hill "Hill" relief\n  terrain crag "Crag" relief\n'
                    '  terrain town "Town" artificial\n}\n'
                    'map m "M" {\n  grid columns odd low\n' + hexes + "}\n", encoding="utf-8")
    return path


@pytest.mark.rule("7.7")
def test_a_terrain_of_another_kind_joins_a_natural_and_an_artificial_one(tmp_path: Path) -> None:
    path = _rulebook(tmp_path, "  hex 0101: forest, hill, town\n  hex 0102: hill\n")
    assert [d.render() for d in check_path(path)] == []


@pytest.mark.rule("7.7")
def test_two_terrains_of_one_kind_are_refused_citing_the_rule_declaring_them(
        tmp_path: Path) -> None:
    path = _rulebook(tmp_path, "  hex 0101: clear, hill, crag\n")
    problems = [d for d in check_path(path) if "at most one" in d.message]
    assert len(problems) == 1
    assert "at most one relief terrain, not hill and crag" in problems[0].message
    assert problems[0].rule == "3.1"


@pytest.mark.rule("II.8", rulebook="grands_strateges")
@pytest.mark.rule("V.2", rulebook="grands_strateges")
def test_a_wooded_hill_is_a_hill_for_the_guns_and_woods_for_the_march(tmp_path: Path) -> None:
    text = EXAMPLES_MAP.read_text(encoding="utf-8")
    assert text.count("  hex 1210: hill\n") == 1
    board = tmp_path / "wooded_hill.rules"
    board.write_text(text.replace("  hex 1210: hill\n", "  hex 1210: forest, hill\n"),
                     encoding="utf-8")
    book = cortes_rules.load("grands_strateges", map=board)
    state = book.new_game(seed=0, positions={"A24": "1210", "A13": "1601", "B13": "1612"})
    assert state.evaluate("h has hill and h has forest", h="1210") is True
    # Entering it costs an infantry unit the forest's 2 points, not the hill's 1 (II.8).
    assert state.evaluate("terrain_cost(u, h)", u="A1", h="1210") == 2
    # Artillery on it reaches three hexes down, as from any hill (V.2).
    assert state.evaluate("normal_range(g, t)", g="A24", t="1207") == 3
