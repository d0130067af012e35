"""Named places and zone groups of a map: what a ``place`` line names, what the checker refuses.

A place is a named group of hexes (the island, the mainland, an edge of the
sheet): hexes, rectangles of hexes, earlier places, every hex, the hexes of
a terrain, the shore of a lake zone, less what follows ``except``.
"""

from __future__ import annotations

from pathlib import Path

import pytest

from cortes_rules.dsl import lower
from cortes_rules.dsl.parse import parse_text
from cortes_rules.loader import check_path

TERRAIN = ('rule 7.7 "Terrain" {\n  summary "Terrain types."\n'
           '  terrain clear "Clear" natural\n  terrain dry "Dry city" artificial\n'
           '  terrain road "Road" artificial\n}\n')
MAP = '''map m "M" {
  grid columns odd low
  hexes 0101..0304: clear
  hex 0202: clear, dry
  hex 0203 0303: clear, road
  zone 1 "Zone 1"
  zone 2 "Zone 2"
  zone 1 borders 0101 0102
  zone 2 borders 0304 0203
  zone 1 touches 2
%s}
'''


def places(lines: str) -> dict[str, tuple[str, ...]]:
    module = parse_text(TERRAIN + MAP % lines, "m.rules")
    block = next(i for i in module.items if i.__class__.__name__ == "MapBlock")
    return {name: hexes for name, (_, hexes) in lower.lower_map(block).places.items()}


def problems(tmp_path: Path, lines: str) -> list[str]:
    path = tmp_path / "m.rules"
    path.write_text(TERRAIN + MAP % lines, encoding="utf-8")
    return [d.message for d in check_path(path)]


@pytest.mark.rule("2.14")
@pytest.mark.parametrize("line, hexes", [
    ('place a "A" at 0101 0202', ("0101", "0202")),
    ('place a "A" at 0101..0202', ("0101", "0102", "0201", "0202")),
    ('place a "A" at 0303..0306', ("0303", "0304")),  # only the map's hexes of a rectangle
    ('place a "A" at all except 0101..0203 0301..0304', ("0104", "0204")),
    ('place a "A" at terrain road', ("0203", "0303")),
    ('place a "A" at terrain clear except terrain dry terrain road',
     ("0101", "0102", "0103", "0104", "0201", "0204", "0301", "0302", "0304")),
    ('place a "A" at shore', ("0101", "0102", "0203", "0304")),
    ('place a "A" at shore 2 except terrain road', ("0304",)),
], ids=["hexes", "rectangle", "rectangle-clipped", "all-except", "terrain", "terrain-except",
        "shore", "shore-of-a-zone"])
def test_a_place_names_its_hexes_in_several_ways(line: str, hexes: tuple[str, ...]) -> None:
    assert places("  " + line + "\n")["a"] == hexes


@pytest.mark.rule("2.14")
def test_a_place_may_name_earlier_places() -> None:
    found = places('  place a "A" at 0101..0104\n  place b "B" at 0201 0202\n'
                   '  place c "C" at a b except 0102\n  place d "D" at all except c\n')
    assert found["c"] == ("0101", "0103", "0104", "0201", "0202")
    assert "0102" in found["d"] and "0101" not in found["d"]
    assert list(found) == ["a", "b", "c", "d"]  # in declaration order


@pytest.mark.rule("2.12")
def test_a_zone_group_names_lake_zones() -> None:
    module = parse_text(TERRAIN + MAP % '  zones east "East edge" at 2 1\n', "m.rules")
    block = next(i for i in module.items if i.__class__.__name__ == "MapBlock")
    assert dict(lower.lower_map(block).zone_groups) == {"east": ("East edge", (2, 1))}


@pytest.mark.rule("2.14")
@pytest.mark.parametrize("line, message", [
    ('place a "A" at 0909', "hex 0909 is not on the map"),
    ('place a "A" at 0101 except 0909', "hex 0909 is not on the map"),
    ('place a "A" at 0801..0909', "no hex of the map lies in 0801..0909"),
    ('place a "A" at nowhere', "unknown place 'nowhere'"),
    ('place a "A" at b\n  place b "B" at 0101', "place b is used before it is declared"),
    ('place a "A" at terrain swamp', "unknown terrain 'swamp'"),
    ('place a "A" at shore 7', "zone 7 is not declared"),
    ('place a "A" at 0101\n  place a "A again" at 0102', "place a is declared twice"),
    ('place a "A" at 0101 except 0101', "place a holds no hex"),
    ('zones e "E" at 1 9', "zone 9 is not declared"),
    ('zones e "E" at 1\n  zones e "E" at 2', "zone group e is declared twice"),
], ids=["hex-off-map", "excluded-hex-off-map", "empty-rectangle", "unknown-place",
        "later-place", "unknown-terrain", "undeclared-zone", "place-twice", "empty-place",
        "group-zone-undeclared", "group-twice"])
def test_the_checker_refuses_a_bad_place(tmp_path: Path, line: str, message: str) -> None:
    found = problems(tmp_path, "  " + line + "\n")
    assert any(message in m for m in found), found


@pytest.mark.rule("2.14")
def test_good_places_pass_the_checker(tmp_path: Path) -> None:
    assert problems(tmp_path, '  place a "A" at 0101..0104 except shore\n'
                    '  place b "B" at a terrain road\n  zones e "E" at 1 2\n') == []
