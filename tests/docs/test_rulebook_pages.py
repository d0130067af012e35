"""The generated map, counters and coverage pages of each shipped rulebook.

- ``mkdocs_hooks/map_and_counters.py``: the map page holds the picture of
  the position ``cortes-rules render`` draws (the same SVG), with every
  piece on the map drawn once, under a notice that the map is a
  reconstruction; the counters page lists every piece of the counters block
  exactly once, with its printed values, under its side and class.
- ``mkdocs_hooks/coverage_pages.py``: the coverage page lists every numbered
  rule once, in rulebook order, with its state and the tests that cite it.

The pages are built here without MkDocs; ``mkdocs build --strict`` (CI)
checks that their links land.
"""

from __future__ import annotations

import functools
import importlib.util
import re
import sys
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path
from types import ModuleType

import pytest

import cortes_rules
from cortes_rules.cli import main
from cortes_rules.coverage import coverage

ROOT = Path(__file__).resolve().parents[2]
SVG = "{http://www.w3.org/2000/svg}"
GS = "grands_strateges"
_PICTURE = re.compile(r'^<div class="rulebook-map">\n(?P<svg><svg .*?^</svg>)\n</div>$',
                      re.M | re.S)
_ROW = re.compile(r"^\| `(?P<id>[^`]+)` \| (?P<rest>.*) \|$", re.M)


def _hook(name: str) -> ModuleType:
    spec = importlib.util.spec_from_file_location(name, ROOT / "mkdocs_hooks" / f"{name}.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault(name, module)
    spec.loader.exec_module(module)
    return module


pages = _hook("map_and_counters")
coverage_pages = _hook("coverage_pages")


@functools.cache
def _position(name: str) -> object:
    return pages.starting_position(name)


@functools.cache
def _map_page(name: str) -> str:
    return str(pages.map_markdown(name, position=_position(name)))


@functools.cache
def _counters_page(name: str) -> str:
    return str(pages.counters_markdown(name))


@functools.cache
def _coverage_page(name: str) -> str:
    return str(coverage_pages.coverage_markdown(name))


def _picture(page: str) -> ET.Element:
    match = _PICTURE.search(page)
    assert match, "the page holds no picture at full size"
    return ET.fromstring(match["svg"])


# ------------------------------------------------------------------ the map page


@pytest.mark.parametrize("name", [pytest.param("cortes", marks=pytest.mark.rule("2.2")),
                                  pytest.param(GS, marks=pytest.mark.rule("II.8", rulebook=GS))])
def test_the_map_page_draws_every_piece_on_the_map_once(name: str) -> None:
    position = _position(name)
    state = position.state
    world = state.machine.world
    on_map = {piece: place for piece, place in state.positions().items()
              if world.place[place].kind != "pool"}
    assert len(on_map) >= 10
    root = _picture(_map_page(name))
    drawn = [g for g in root.iter(f"{SVG}g") if g.get("class") == "counter"]
    assert Counter(g.attrib["data-piece"] for g in drawn if g.attrib["data-place"] in
                   on_map.values()) == Counter(list(on_map))
    assert {g.attrib["data-piece"]: g.attrib["data-place"] for g in drawn} == \
        state.positions()
    hexes = [e.attrib["data-place"] for e in root.iter(f"{SVG}polygon")
             if e.get("class") == "hex"]
    assert sorted(hexes) == sorted(position.book.hex_ids)
    # Each place that holds a piece has a row, naming its pieces.
    page = _map_page(name)
    for place in set(on_map.values()):
        row = next(line for line in page.splitlines() if line.startswith(f"| `{place}`"))
        assert all(f"`{p}`" in row for p, where in on_map.items() if where == place)


@pytest.mark.rule("3.2")
def test_the_cortes_map_page_draws_the_historical_setup() -> None:
    position = _position("cortes")
    assert position.setup == "historical" and not position.deployed
    book = cortes_rules.load("cortes")
    assert position.state.positions() == book.setup_positions("historical")
    page = _map_page("cortes")
    assert "The set-up `historical`" in page
    assert "Cortes" in position.state.pieces_at("zone.11")   # 3.2: Cortés on lake zone 11


@pytest.mark.rule("I.1", rulebook=GS)
def test_the_grands_strateges_map_page_draws_a_scenario_after_its_set_up_stage() -> None:
    position = _position(GS)
    assert position.setup is None and position.deployed
    assert position.book.scenario == position.book.scenarios[0][0]
    assert position.state.phase not in position.book.opening_phases
    assert position.state.positions()
    assert position.command.endswith("--deploy")


@pytest.mark.parametrize("name", [pytest.param("cortes", marks=pytest.mark.rule("2.2")),
                                  pytest.param(GS, marks=pytest.mark.rule("II.8", rulebook=GS))])
def test_the_map_page_picture_is_what_the_render_command_draws(
        name: str, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.svg"
    command = _position(name).command.split()
    assert command[:2] == ["cortes-rules", "render"]
    args = command[1:]
    args[args.index("-o") + 1] = str(out)
    assert main(args) == 0
    capsys.readouterr()
    match = _PICTURE.search(_map_page(name))
    assert match is not None
    assert match["svg"] == out.read_text(encoding="utf-8").strip()


@pytest.mark.parametrize("name", [pytest.param("cortes", marks=pytest.mark.rule("2.2")),
                                  pytest.param(GS, marks=pytest.mark.rule("II.8", rulebook=GS))])
def test_the_map_page_says_plainly_that_the_map_is_a_reconstruction(name: str) -> None:
    page = _map_page(name)
    notice = re.search(r'^!!! warning "(?P<title>[^"]+)"\n(?P<body>(?:    .*\n)+)', page, re.M)
    assert notice is not None
    assert "not the printed map" in notice["title"]
    body = " ".join(notice["body"].split())
    assert "does not reproduce the printed map" in body
    assert "**our reconstruction**" in body
    assert "agrees with every fact the rules text states" in body
    assert notice.start() < page.index('<div class="rulebook-map">')
    # The map file's own notes follow, as written.
    program = cortes_rules.load(name).program
    assert program.map is not None and program.map.notes
    for note in program.map.notes:
        assert f"- {pages._text(note)}" in page


@pytest.mark.rule("2.2")
def test_terrain_counts_are_those_of_the_map() -> None:
    page = _map_page("cortes")
    data = cortes_rules.load("cortes").program.map
    assert data is not None
    quagmire = sum(1 for features in data.hexes.values() if "quagmire" in features)
    assert quagmire == 1   # 2.14: a single quagmire hex
    assert re.search(r"^\| Quagmire \| `quagmire` \| natural \| \[[\d.]+\]\([^)]*\) \| 1 \|$",
                     page, re.M)


# ------------------------------------------------------------------ the counters page


def _rows(page: str) -> list[tuple[str, list[str]]]:
    return [(m["id"], [c.strip() for c in m["rest"].split(" | ")])
            for m in _ROW.finditer(page)]


@pytest.mark.parametrize("name", [pytest.param("cortes", marks=pytest.mark.rule("2.10")),
                                  pytest.param(GS, marks=pytest.mark.rule("IV.14",
                                                                          rulebook=GS))])
def test_the_counters_page_lists_every_piece_once_with_its_values(name: str) -> None:
    page = _counters_page(name)
    counters = cortes_rules.load(name).program.counters
    assert counters is not None and len(counters.counters) >= 50
    rows = _rows(page)
    assert Counter(i for i, _ in rows) == Counter(c.id for c in counters.counters)
    cells = dict(rows)
    for counter in counters.counters:
        # The printed fields each rulebook declares: steps, combat, move (hex_wargame's,
        # and Grands Strateges' own), by the words the counter lines write them with.
        label, steps, factors, move = cells[counter.id][:4]
        assert label.replace("\\", "") == counter.label
        assert steps == ", ".join(map(str, counter.given("steps") or ()))
        assert factors == (", ".join(map(str, counter.given("combat") or ())) or "none")
        assert move == ", ".join(map(str, counter.given("move") or ()))


@pytest.mark.rule("2.10")
def test_counters_are_grouped_by_side_then_class() -> None:
    page = _counters_page("cortes")
    book = cortes_rules.load("cortes")
    world = book.new_game().machine.world
    sections = re.split(r"^## ", page, flags=re.M)[1:]
    by_section = {s.splitlines()[0]: {i for i, _ in _rows(s)} for s in sections}
    spanish = by_section["Spanish (`spanish`)"]
    aztec = by_section["Aztec (`aztec`)"]
    assert spanish == {p.id for p in world.pieces if p.side is not None and
                       p.side.name == "spanish"}
    assert aztec == {p.id for p in world.pieces if p.side is not None and p.side.name == "aztec"}
    assert by_section["Pieces of no side"] == {"Marker1", "Marker2"}   # 2.13
    # 2.4: unit 29, the Texcocoan elite band: four steps, 6 at full strength, moves 5, lake.
    s29 = dict(_rows(page))["S29"]
    assert s29[1:4] == ["4", "6, 5, 3, 2", "5"] and "lake-capable" in s29[4] and "Te" in s29


@pytest.mark.rule("IV.14", rulebook=GS)
def test_a_counter_without_a_class_side_is_listed_under_its_own_side() -> None:
    page = _counters_page(GS)
    sections = re.split(r"^## ", page, flags=re.M)[1:]
    by_section = {s.splitlines()[0]: [i for i, _ in _rows(s)] for s in sections}
    assert by_section["Player A (`a`)"] == [f"A{n}" for n in range(1, 26)]
    assert by_section["Player B (`b`)"] == [f"B{n}" for n in range(1, 26)]


# ------------------------------------------------------------------ the coverage page


_COVERAGE_ROW = re.compile(r"^\| \[(?P<number>[^\]]+)\]\(\.\./reference/[a-z-]+\.md#"
                           r"(?P<anchor>rule-[a-z0-9-]+)\) \| (?P<rest>.*) \|$", re.M)


@pytest.mark.parametrize("name", [pytest.param("cortes", marks=pytest.mark.rule("8.14")),
                                  pytest.param(GS, marks=pytest.mark.rule("I.1", rulebook=GS))])
def test_the_coverage_page_lists_every_numbered_rule_once_in_order(name: str) -> None:
    report = coverage(name)
    rows = list(_COVERAGE_ROW.finditer(_coverage_page(name)))
    assert [r["number"] for r in rows] == [r.number for r in report.rules]
    assert len(rows) > 50
    for row, rule in zip(rows, report.rules, strict=True):
        cells = row["rest"].split(" | ")
        assert cells[1] == rule.state
        tests = cells[3]
        if not rule.tests:
            assert tests == "none"
            continue
        assert tests.startswith(f"**{len(rule.tests)}**<br>")
        for test in rule.tests:
            file, _, function = test.partition("::")
            assert f"`{file.removeprefix('tests/')}`" in tests
            if function:   # a module's pytestmark cites every test of the file: the file alone
                assert f"`{function}`" in tests


@pytest.mark.rule("8.14")
def test_the_coverage_page_names_the_tests_citing_8_14() -> None:
    row = next(r for r in _COVERAGE_ROW.finditer(_coverage_page("cortes"))
               if r["number"] == "8.14")
    assert row["anchor"] == "rule-8-14"
    files = dict(part.split(": ", 1) for part in row["rest"].split("<br>")[1:])
    assert "`test_the_clause_of_8_14_is_highlighted_by_the_lexer`" in \
        files["`docs/test_rule_reference.py`"]
    assert "`test_the_coverage_page_names_the_tests_citing_8_14`" in \
        files["`docs/test_rulebook_pages.py`"]
    assert "`08-combat.rules:" in row["rest"]
