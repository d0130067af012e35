"""Pictures of a position (:mod:`cortes_rules.picture`): every counter where it stands.

The SVG of each Cortés set-up and of each Grands Stratèges scenario (after its
set-up stage, played at random) is parsed as XML: every piece on the board is
one counter, inside the polygon of its hex, at the anchor of its zone, or in
the box of its pool. Highlights, marks and arrows land on the places they
name, bad place ids are refused, ``_repr_svg_`` gives the same picture and
``cortes-rules render`` writes it to a file.
"""

from __future__ import annotations

import random
import re
import xml.etree.ElementTree as ET
from collections import Counter
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import CortesRulesError, GameState
from cortes_rules.cli import main
from cortes_rules.errors import NotationError
from cortes_rules.picture import render_svg

SVG = "{http://www.w3.org/2000/svg}"
GS = "grands_strateges"
GS_SCENARIOS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IXa", "IXb", "X")
ROOT = Path(__file__).resolve().parents[2]
AREAS = ROOT / "tests" / "fixtures" / "core" / "three_players.rules"


@pytest.fixture(scope="module")
def cortes() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes")


def deployed(book: cortes_rules.Rulebook, seed: int = 1) -> GameState:
    """A game of ``book`` after its set-up stage, played with random legal choices."""
    state = book.new_game(seed=seed)
    choose = random.Random(seed)
    while state.phase in book.opening_phases and not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance()
            continue
        ids = state.legal_action_ids()
        state.apply(ids[choose.randrange(len(ids))])
    return state


def parse(svg: str) -> ET.Element:
    return ET.fromstring(svg)


def polygon(element: ET.Element) -> list[tuple[float, float]]:
    return [(float(x), float(y)) for x, y in
            (pair.split(",") for pair in element.attrib["points"].split())]


def inside(point: tuple[float, float], shape: list[tuple[float, float]]) -> bool:
    """Ray casting: whether a point lies inside a polygon."""
    x, y = point
    found = False
    for (x1, y1), (x2, y2) in zip(shape, shape[1:] + shape[:1], strict=True):
        if (y1 > y) != (y2 > y) and x < (x2 - x1) * (y - y1) / (y2 - y1) + x1:
            found = not found
    return found


def centre(element: ET.Element) -> tuple[float, float]:
    match = re.fullmatch(r"translate\(([-\d.]+) ([-\d.]+)\)", element.attrib["transform"])
    assert match, element.attrib["transform"]
    return float(match.group(1)), float(match.group(2))


def counters(root: ET.Element) -> list[ET.Element]:
    return [g for g in root.iter(f"{SVG}g") if g.get("class") == "counter"]


def check_every_counter(state: GameState) -> int:
    """Every placed piece is one counter, where its place is drawn; the count checked."""
    root = parse(render_svg(state))
    drawn = counters(root)
    positions = state.positions()
    assert Counter(g.attrib["data-piece"] for g in drawn) == Counter(list(positions))
    hexes = {e.attrib["data-place"]: polygon(e) for e in root.iter(f"{SVG}polygon")
             if e.get("class") == "hex"}
    zones = {e.attrib["data-place"]: (float(e.attrib["data-x"]), float(e.attrib["data-y"]))
             for e in root.iter(f"{SVG}g") if e.get("class") == "zone"}
    boxes = {e.attrib["data-place"]: e for e in root.iter(f"{SVG}rect")
             if e.get("class") in ("pool", "area")}
    for g in drawn:
        piece, place = g.attrib["data-piece"], g.attrib["data-place"]
        assert place == positions[piece]
        x, y = centre(g)
        if place in hexes:
            assert inside((x, y), hexes[place]), f"{piece} is drawn outside hex {place}"
        elif place in zones:
            zx, zy = zones[place]
            assert abs(x - zx) <= 13 and abs(y - zy) <= 13, f"{piece} is away from {place}"
        else:
            box = boxes[place]
            left, top = float(box.attrib["x"]), float(box.attrib["y"])
            assert left <= x <= left + float(box.attrib["width"])
            assert top <= y <= top + float(box.attrib["height"])
    return len(drawn)


@pytest.mark.rule("2.2")
@pytest.mark.parametrize("setup", ["demo", "historical"])
def test_2_2_every_counter_of_a_cortes_setup_is_on_its_hex_or_zone(
        cortes: cortes_rules.Rulebook, setup: str) -> None:
    assert setup in cortes.setups
    state = cortes.new_game(setup=setup)
    assert check_every_counter(state) == len(cortes.setup_positions(setup))


@pytest.mark.rule("3.2")
def test_3_2_the_historical_setup_draws_the_lake_zone_pile(
        cortes: cortes_rules.Rulebook) -> None:
    state = cortes.new_game(setup="historical")
    root = parse(render_svg(state))
    in_zone = [g for g in counters(root) if g.attrib["data-place"] == "zone.11"]
    assert len(in_zone) == len(state.pieces_at("zone.11")) >= 2
    labels = {e.attrib["data-place"]: "".join(e.itertext()).strip()
              for e in root.iter(f"{SVG}g") if e.get("class") == "zone"}
    # Every zone of the map is drawn, numbered.
    assert labels == {z: z.split(".")[1] for z in cortes.place_ids if z.startswith("zone.")}


@pytest.mark.rule("2.2")
def test_2_2_every_hex_is_drawn_once_with_its_terrain_in_the_legend(
        cortes: cortes_rules.Rulebook) -> None:
    root = parse(render_svg(cortes.new_game(setup="demo")))
    hexes = [e.attrib["data-place"] for e in root.iter(f"{SVG}polygon")
             if e.get("class") == "hex"]
    assert sorted(hexes) == sorted(cortes.hex_ids)
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    for label in ("Clear", "Major fortress", "Causeway crossing the hexside", "Chapultepec"):
        assert label in text


@pytest.mark.rule("2.10")
def test_2_10_a_reduced_unit_shows_the_factor_for_its_steps_left(
        cortes: cortes_rules.Rulebook) -> None:
    state = cortes.new_game(positions={"S29": "1539"})
    full = [g for g in counters(parse(render_svg(state))) if g.attrib["data-piece"] == "S29"]
    state.set_attribute("S29", "steps", 2)
    reduced = [g for g in counters(parse(render_svg(state))) if g.attrib["data-piece"] == "S29"]
    texts_full = {"".join(t.itertext()) for t in full[0].iter(f"{SVG}text")}
    texts_reduced = {"".join(t.itertext()) for t in reduced[0].iter(f"{SVG}text")}
    assert "6-5" in texts_full and "3-5" in texts_reduced   # 2.4: 6 at 4 steps, 3 at 2
    dots = [c.attrib["fill"] for c in reduced[0].iter(f"{SVG}circle")]
    assert dots.count("#222") == 2 and dots.count("#fff") == 2


@pytest.mark.rule("I.1", rulebook=GS)
@pytest.mark.parametrize("scenario", GS_SCENARIOS)
def test_every_counter_of_a_grands_strateges_scenario_is_drawn_where_it_stands(
        scenario: str) -> None:
    book = cortes_rules.load(GS, scenario=scenario)
    state = deployed(book)
    assert state.phase not in book.opening_phases
    on_map = [p for p in state.positions().values() if p[0].isdigit()]
    assert check_every_counter(state) == len(state.positions())
    assert on_map or scenario == "V"   # scenario V's corps all wait to enter


@pytest.mark.rule("II.8", rulebook=GS)
def test_ii_8_hexside_features_are_drawn_by_how_they_run() -> None:
    book = cortes_rules.load(GS, scenario="I")
    root = parse(render_svg(book.new_game()))
    text = " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))
    assert "River (drawn along the hexside)" in text
    assert "Road (drawn from hex to hex)" in text
    assert "Bridge (a sign on the hexside)" in text


@pytest.mark.rule("7.16")
def test_7_16_highlights_marks_and_arrows_land_on_their_places(
        cortes: cortes_rules.Rulebook) -> None:
    state = cortes.new_game(setup="demo")
    svg = render_svg(state, highlight={"3009": "2", "zone.5": None}, marked=["2910"],
                     arrows=[("3010", "2910", "3:1"), ("2909", "3010")])
    root = parse(svg)
    hexes = {e.attrib["data-place"]: polygon(e) for e in root.iter(f"{SVG}polygon")
             if e.get("class") == "hex"}
    shaded = {e.attrib["data-place"]: e for e in root.iter()
              if e.get("class") == "highlight"}
    assert set(shaded) == {"3009", "zone.5"}
    assert all(inside(p, hexes["3009"]) for p in polygon(shaded["3009"]))
    assert [t.text for t in root.iter(f"{SVG}text") if t.get("class") == "highlight-text"] \
        == ["2"]
    marked = [e.attrib["data-place"] for e in root.iter() if e.get("class") == "marked"]
    assert marked == ["2910"]
    arrows = [(g.attrib["data-from"], g.attrib["data-to"]) for g in root.iter(f"{SVG}g")
              if g.get("class") == "arrow"]
    assert arrows == [("3010", "2910"), ("2909", "3010")]
    first = next(g for g in root.iter(f"{SVG}g") if g.get("class") == "arrow")
    line = [e for e in first.iter(f"{SVG}line")][-1]
    start = (float(line.attrib["x1"]), float(line.attrib["y1"]))
    end = (float(line.attrib["x2"]), float(line.attrib["y2"]))
    assert inside(start, hexes["3010"]) and inside(end, hexes["2910"])
    assert "3:1" in "".join(first.itertext())
    plain = parse(render_svg(state))
    assert not [e for e in plain.iter() if e.get("class") in ("highlight", "marked", "arrow")]


@pytest.mark.rule("7.16")
@pytest.mark.parametrize("kwargs, error", [
    ({"highlight": ["9999"]}, NotationError),
    ({"marked": {"nowhere": "x"}}, NotationError),
    ({"arrows": [("3010", "0000")]}, NotationError),
    ({"arrows": [("3010",)]}, CortesRulesError),
    ({"highlight": "3009"}, CortesRulesError),
])
def test_7_16_bad_highlights_are_refused(cortes: cortes_rules.Rulebook, kwargs: dict[str, object],
                                         error: type[Exception]) -> None:
    state = cortes.new_game(setup="demo")
    with pytest.raises(error):
        render_svg(state, **kwargs)  # type: ignore[arg-type]


@pytest.mark.rule("2.2")
def test_2_2_repr_svg_is_the_picture_and_well_formed(cortes: cortes_rules.Rulebook) -> None:
    state = cortes.new_game(setup="historical")
    svg = state._repr_svg_()
    assert svg == render_svg(state)
    root = parse(svg)
    assert root.tag == f"{SVG}svg" and float(root.attrib["width"]) > 500


@pytest.mark.rule("1.3", rulebook="three_players")
def test_a_board_of_areas_draws_each_counter_in_its_area() -> None:
    book = cortes_rules.load(AREAS)
    state = book.new_game(setup="standard")
    assert set(state.positions().values()) == {"shore", "ford", "wood", "highlands"}
    assert check_every_counter(state) == 7
    root = parse(render_svg(state))
    areas = {e.attrib["data-place"] for e in root.iter(f"{SVG}rect") if e.get("class") == "area"}
    assert areas == {place for place in book.place_ids if "." not in place and
                     not place[0].isdigit()} - {"scattered"}
    assert "wall" in " ".join("".join(t.itertext()) for t in root.iter(f"{SVG}text"))


@pytest.mark.rule("2.2")
def test_2_2_cli_render_writes_the_picture(tmp_path: Path,
                                           capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.svg"
    assert main(["render", "--setup", "demo", "-o", str(out)]) == 0
    root = parse(out.read_text(encoding="utf-8"))
    book = cortes_rules.load("cortes")
    assert {g.attrib["data-piece"] for g in counters(root)} == set(book.setup_positions("demo"))
    assert str(out) in capsys.readouterr().out


@pytest.mark.rule("I.1", rulebook=GS)
def test_cli_render_deploys_a_scenario(tmp_path: Path) -> None:
    out = tmp_path / "gs.svg"
    assert main(["render", "--rulebook", GS, "--scenario", "I", "--deploy", "--seed", "3",
                 "-o", str(out)]) == 0
    placed = [g.attrib["data-place"] for g in counters(parse(out.read_text(encoding="utf-8")))]
    assert len(placed) == 16 and all(p.isdigit() for p in placed)


@pytest.mark.rule("2.2")
def test_2_2_cli_render_refuses_bad_input(tmp_path: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    out = tmp_path / "map.svg"
    assert main(["render", "--setup", "nosuch", "-o", str(out)]) == 1
    assert "no set-up 'nosuch'" in capsys.readouterr().err
    assert not out.exists()
    with pytest.raises(SystemExit) as exit_info:
        main(["render"])
    assert exit_info.value.code == 2
    assert "-o/--output" in capsys.readouterr().err


ZOC = ROOT / "tests" / "fixtures" / "core" / "zoc.rules"


def counter_texts(state: GameState, piece: str) -> list[str]:
    [g] = [g for g in counters(parse(render_svg(state))) if g.attrib["data-piece"] == piece]
    return ["".join(t.itertext()) for t in g.iter(f"{SVG}text")]


@pytest.mark.rule("1.2", rulebook="zoc")
def test_what_a_counter_draws_is_what_its_printed_declarations_say(tmp_path: Path) -> None:
    # issue 48, item 1: no Python names a field; zoc.rules (no hex_wargame) declares
    # its combat and movement factors 'drawn as value', so the foot reads "2-2".
    state = cortes_rules.load(ZOC).new_game(setup="standard")
    texts = counter_texts(state, "B1")
    assert texts[1:] == ["blue infantry", "2-2"]
    # Undrawn, a printed field is written beside the class, as a property is.
    text = ZOC.read_text(encoding="utf-8").replace(
        'printed combat: int "combat factor" drawn as value', 'printed combat: int "combat factor"')
    path = tmp_path / "zoc.rules"
    path.write_text(text, encoding="utf-8")
    texts = counter_texts(cortes_rules.load(path).new_game(setup="standard"), "B1")
    assert texts[1:] == ["blue infantry 2", "2"]
