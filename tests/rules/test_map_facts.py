"""The shipped map against every fact of the rulebook text about the map.

One test per fact of ``shared/cortes/FACTS.md`` (hex grid, places named by
the rules, terrain, the historical geography), each marked with its rule,
then the fixes of the map audit (7.7, 7.13, 7.16) and the replacement of
the map by another file of the same format (``load(..., map=PATH)``).

The map is our reconstruction (``rulebook/cortes/map.rules``); these tests
pin what any map, ours or a transcription of the printed sheet, must keep.
"""

from __future__ import annotations

import re
from collections import deque
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import Action, RulesCheckError
from cortes_rules.dsl.ir import MapData
from cortes_rules.engine import hexgrid

ROOT = Path(__file__).resolve().parents[2]
MAP_FILE = ROOT / "rulebook" / "cortes" / "map.rules"
NATURAL = {"clear", "quagmire"}
ARTIFICIAL = {"dry_land_city", "chinampa_city", "temple_complex", "fortress",
              "major_fortress", "causeway"}


@pytest.fixture(scope="module")
def m(book: cortes_rules.Rulebook) -> MapData:
    assert book.program.map is not None
    return book.program.map


def place(m: MapData, name: str) -> frozenset[str]:
    assert name in m.places, f"the map names no place {name!r}"
    return m.place_hexes(name)


def adjacent(a: str, b: str) -> bool:
    return b in hexgrid.neighbours(a, True)


def distance(a: str, b: str) -> int:
    return hexgrid.distance(a, b, True)


def causeway_side(m: MapData, a: str, b: str) -> bool:
    return "causeway" in m.hexsides.get(frozenset((a, b)), frozenset())


def along_causeways(m: MapData, start: str) -> set[str]:
    """Every hex reached from ``start`` crossing causeway hexsides only."""
    seen, queue = {start}, deque([start])
    while queue:
        here = queue.popleft()
        for there in hexgrid.neighbours(here, True):
            if there in m.hexes and there not in seen and causeway_side(m, here, there):
                seen.add(there)
                queue.append(there)
    return seen


def by_land(m: MapData, start: str, barred: frozenset[str] = frozenset()) -> set[str]:
    """Every hex a land unit reaches from ``start`` obeying 7.10 and 7.16."""
    seen, queue = {start}, deque([start])
    while queue:
        here = queue.popleft()
        for there in hexgrid.neighbours(here, True):
            if there not in m.hexes or there in seen or there in barred:
                continue
            if "quagmire" in m.hexes[there]:
                continue
            ends_on_causeway = "causeway" in m.hexes[here] | m.hexes[there]
            if ends_on_causeway and not causeway_side(m, here, there):
                continue
            seen.add(there)
            queue.append(there)
    return seen


def water_beside(m: MapData, h: str) -> bool:
    """A neighbour of ``h`` on the sheet (columns 08-44, rows 00-46) that no hex line lists."""
    return any(n not in m.hexes and 8 <= int(n[:2]) <= 44 and int(n[2:]) <= 46
               for n in hexgrid.neighbours(h, True))


# ====================================================================== hex grid
@pytest.mark.rule("2.2")
def test_2_2_land_hexes_have_four_digit_ids_and_the_lake_is_numbered_zones(m):
    assert all(re.fullmatch(r"\d{4}", h) for h in m.hexes)
    assert set(m.zones) == set(range(1, 30))
    assert all(re.fullmatch(r"Lake zone \d+", label) for label in m.zones.values())


@pytest.mark.rule("8.4")
def test_8_4_2924_touches_3024_and_3025(m):
    assert {"2924", "3024", "3025"} <= set(m.hexes)
    assert adjacent("2924", "3024") and adjacent("2924", "3025")


@pytest.mark.rule("7.16")
def test_7_16_2910_touches_3010_and_3011(m):
    assert m.odd_columns_low  # the orientation both examples imply
    assert adjacent("2910", "3010") and adjacent("2910", "3011")


@pytest.mark.rule("2.2")
def test_2_2_the_ids_cited_span_columns_10_to_42_and_rows_00_to_44(m):
    columns = {int(h[:2]) for h in m.hexes}
    rows = {int(h[2:]) for h in m.hexes}
    assert min(columns) <= 10 and max(columns) >= 42
    assert min(rows) == 0 and max(rows) >= 44
    assert "3400" in m.hexes and "4244" in m.hexes  # top row; near the bottom right


# ====================================================================== named places
@pytest.mark.rule("2.14")
def test_2_14_3016_is_the_temple_complex_the_island_is_centred_on(m):
    assert m.hexes["3016"] == {"clear", "temple_complex"}
    island = place(m, "tenochtitlan")
    assert "3016" in island and place(m, "tenochtitlan_temple") == {"3016"}
    reach = {h: max(distance(h, x) for x in island) for h in island}
    assert reach["3016"] <= min(reach.values()) + 1  # no island hex is much more central


@pytest.mark.rule("7.14")
def test_7_14_2810_is_the_tlatelolco_temple_complex_and_the_only_other_temple(m):
    assert m.hexes["2810"] == {"clear", "temple_complex"}
    assert place(m, "tlatelolco") == {"2810"} and "2810" in place(m, "tenochtitlan")
    assert {h for h, t in m.hexes.items() if "temple_complex" in t} == {"2810", "3016"}
    assert place(m, "temples") == {"2810", "3016"}


@pytest.mark.rule("7.10")
def test_7_10_3023_is_the_single_quagmire_neither_land_nor_water(m):
    assert {h for h, t in m.hexes.items() if "quagmire" in t} == {"3023"}
    assert m.hexes["3023"] == {"quagmire"}
    assert place(m, "quagmire") == {"3023"}
    assert "3023" not in place(m, "land") | place(m, "tenochtitlan")
    assert "3023" not in m.shore()  # not water either: it borders no lake zone


@pytest.mark.rule("8.14")
def test_8_14_1322_is_chapultepec_a_major_fortress_on_the_mainland(m):
    assert m.hexes["1322"] == {"clear", "major_fortress"}
    assert {h for h, t in m.hexes.items() if "major_fortress" in t} == {"1322"}
    assert place(m, "chapultepec") == {"1322"} and "1322" in place(m, "mainland")


@pytest.mark.rule("10.5")
def test_10_5_2543_is_the_acachinango_fortress_on_the_southern_causeway(m):
    assert m.hexes["2543"] == {"clear", "fortress"}
    assert place(m, "acachinango") == {"2543"}
    ends = {n for n in hexgrid.neighbours("2543", True) if causeway_side(m, "2543", n)}
    assert ends == {"2542", "2443", "2644"}  # the causeway from the city and its two branches
    assert "2543" in along_causeways(m, "2920")  # on the causeway from the main city
    assert "2543" not in place(m, "tenochtitlan")


@pytest.mark.rule("9.2")
def test_9_2_2921_to_2924_join_xoloco_to_the_main_city_and_are_off_the_island(m):
    stretch = {"2921", "2922", "2923", "2924"}
    assert place(m, "xoloco_stretch") == stretch
    assert all(m.hexes[h] == {"causeway"} for h in stretch)
    assert not stretch & place(m, "tenochtitlan")
    chain = ["2920", "2921", "2922", "2923", "2924", "2925"]
    assert all(causeway_side(m, a, b) for a, b in zip(chain, chain[1:], strict=False))
    assert place(m, "xoloco") == {"2925"} and "fortress" in m.hexes["2925"]
    assert "2920" in place(m, "tenochtitlan")  # the main city at the other end
    # Xoloco's end of the island (2925, 3024, 3025) touches the main city
    # only through the stretch (and the quagmire, which nobody enters).
    xoloco_end = {"2925", "3024", "3025"}
    assert xoloco_end <= place(m, "tenochtitlan")
    for h in xoloco_end:
        assert all(n in xoloco_end for n in hexgrid.neighbours(h, True)
                   if n in place(m, "tenochtitlan")), h


@pytest.mark.rule("7.16")
def test_7_16_2910_3010_is_no_causeway_hexside_but_2910_3011_3010_is(m):
    assert all("causeway" in m.hexes[h] for h in ("2910", "3010", "3011"))
    assert not causeway_side(m, "2910", "3010")
    assert causeway_side(m, "2910", "3011") and causeway_side(m, "3011", "3010")


@pytest.mark.rule("8.4")
def test_8_4_2924_3024_and_3025_hold_units(m):
    # An attacker in 2924 has defenders in 3024 and 3025 beside it.
    assert "causeway" in m.hexes["2924"]
    assert {"3024", "3025"} <= place(m, "land")


@pytest.mark.rule("7.17")
def test_7_17_tepeyac_is_the_land_around_3400_reached_only_by_causeway_or_lake(m):
    tepeyac = place(m, "tepeyac")
    assert "3400" in tepeyac and tepeyac <= place(m, "land")
    assert all(distance(h, "3400") <= 1 for h in tepeyac)
    assert tepeyac <= place(m, "mainland")  # not Tenochtitlan (2.14)
    for h in tepeyac:  # no land hex outside Tepeyac touches it
        for n in hexgrid.neighbours(h, True):
            if n in m.hexes and n not in tepeyac:
                assert "causeway" in m.hexes[n] and causeway_side(m, h, n), (h, n)
    assert tepeyac & m.shore()  # the lake reaches it
    assert tepeyac & along_causeways(m, "2810")  # the northern causeway reaches it


@pytest.mark.rule("10.8")
def test_10_8_the_aztecs_have_tenochtitlan_beyond_four_hexes_of_tepeyac(m):
    tepeyac = place(m, "tepeyac")
    island = place(m, "tenochtitlan")
    assert all(min(distance(h, t) for t in tepeyac) > 4 for h in island)


@pytest.mark.rule("3.2")
def test_3_2_the_spanish_set_up_centres_1004_1539_4244(m):
    assert place(m, "tlacopan_camp") == {"1004"}
    assert place(m, "coyoacan_camp") == {"1539"}
    assert place(m, "iztapalapa_camp") == {"4244"}
    land = place(m, "mainland")
    for centre in ("1004", "1539", "4244"):
        assert centre in land
        room = [h for h in land if distance(h, centre) <= 2]
        assert len(room) >= 7  # room for its group within the stacking limits (6.x)


@pytest.mark.rule("3.3")
def test_3_3_the_aztecs_have_land_four_hexes_from_every_spanish_camp(m):
    far = [h for h in place(m, "tenochtitlan")
           if all(distance(h, c) > 2 + 4 for c in ("1004", "1539", "4244"))]
    assert len(far) >= 53  # every Aztec unit could start on the island


@pytest.mark.rule("3.2")
def test_3_2_lake_zone_11_exists_on_the_east_edge(m):
    assert 11 in m.zones and 11 in m.zone_groups["east_edge"][1]


@pytest.mark.rule("2.12")
def test_2_12_lake_zones_7_11_15_21_29_are_the_east_edge(m):
    assert set(m.zone_groups["east_edge"][1]) == {7, 11, 15, 21, 29}
    chain = [7, 11, 15, 21, 29]  # they run down the edge, each touching the next
    assert all(b in m.zone_touches[a] for a, b in zip(chain, chain[1:], strict=False))
    island = place(m, "tenochtitlan")
    assert not any(m.zone_borders.get(z, frozenset()) & island for z in chain)  # far from the city
    assert m.zone_borders[29] <= place(m, "mainland")  # its shore: Iztapalapa, south-east
    assert all(int(h[:2]) >= 40 and int(h[2:]) >= 40 for h in m.zone_borders[29])


@pytest.mark.rule("10.5")
def test_10_5_the_four_coastal_fortresses_of_tenochtitlan(m):
    forts = place(m, "coastal_fortresses")
    assert len(forts) == 4
    assert forts <= place(m, "tenochtitlan") and forts <= place(m, "coastal")
    assert all("fortress" in m.hexes[h] for h in forts)
    assert forts == {h for h in place(m, "tenochtitlan") if "fortress" in m.hexes[h]}


@pytest.mark.rule("8.28")
def test_8_28_gunboats_reach_every_coastal_fortress_from_a_zone(m):
    for fort in place(m, "coastal_fortresses"):
        assert any(fort in hexes for hexes in m.zone_borders.values()), fort


@pytest.mark.rule("9.6")
def test_9_6_land_hexes_on_the_west_and_south_edges(m):
    west, south = place(m, "west_edge"), place(m, "south_edge")
    assert west and south and (west | south) <= place(m, "land")
    assert all(h[:2] == "08" for h in west) and all(h[2:] == "46" for h in south)
    assert min(int(h[:2]) for h in m.hexes) == 8 and max(int(h[2:]) for h in m.hexes) == 46
    # Cuauhtemoc can walk from the island to both edges (by the causeways).
    reached = by_land(m, "3016")
    assert west & reached and south & reached


@pytest.mark.rule("11.1")
def test_11_1_clear_hexes_on_the_west_and_south_edges(m):
    for edge in ("west_edge", "south_edge"):
        assert any(m.hexes[h] == {"clear"} for h in place(m, edge)), edge


@pytest.mark.rule("7.20")
def test_7_20_zone_4_reaches_6_and_9_across_the_causeway(m):
    assert {6, 9} <= m.zone_touches[4]
    # the northern causeway lies between them: no water joins them directly
    assert m.zone_borders[4] & m.zone_borders[9] & place(m, "causeways")
    assert m.zone_borders[4] & m.zone_borders[6] & place(m, "causeways")


@pytest.mark.rule("7.20")
def test_7_20_zone_5_reaches_9_and_only_9_the_reading_we_follow(m):
    # 7.20 says zone 5 reaches 3 and 9, then only 9; the map follows the second.
    assert m.zone_touches[5] == {9}
    assert 3 in m.zones and 3 not in m.zone_touches[5]


@pytest.mark.rule("7.20")
def test_7_20_zone_adjacency_is_symmetric_and_connects_the_lake(m):
    for zone, others in m.zone_touches.items():
        assert zone not in others and all(zone in m.zone_touches[o] for o in others)
    seen, queue = {1}, deque([1])
    while queue:
        for other in m.zone_touches[queue.popleft()]:
            if other not in seen:
                seen.add(other)
                queue.append(other)
    assert seen == set(m.zones)


# ====================================================================== terrain
@pytest.mark.rule("7.7")
def test_7_7_every_hex_has_at_most_one_natural_and_one_artificial_terrain(m):
    for h, terrain in m.hexes.items():
        assert terrain <= NATURAL | ARTIFICIAL, h
        assert len(terrain & NATURAL) <= 1 and len(terrain & ARTIFICIAL) <= 1, h
    used = set().union(*m.hexes.values())
    assert used == NATURAL | ARTIFICIAL  # every terrain type of 7.8 and 7.11 is on the map


@pytest.mark.rule("7.16")
def test_7_16_every_causeway_hex_lies_on_causeway_hexsides(m):
    for h in place(m, "causeways"):
        sides = [n for n in hexgrid.neighbours(h, True) if causeway_side(m, h, n)]
        assert len(sides) >= 2, h  # one in, one out: no causeway hex is a dead end
    for key, features in m.hexsides.items():
        a, b = sorted(key)
        assert features == {"causeway"} and adjacent(a, b)


@pytest.mark.rule("7.19")
def test_7_19_coastal_hexes_are_the_land_hexes_on_a_zone_shore(m):
    assert place(m, "coastal") == m.shore() - place(m, "causeways")
    assert place(m, "coastal") <= place(m, "land")
    for h in m.shore():  # a shore hex has water beside it
        assert water_beside(m, h), h
    for h in place(m, "land") | place(m, "causeways"):  # every hex beside water is shore
        if water_beside(m, h):
            assert h in m.shore(), h


@pytest.mark.rule("7.9")
def test_7_9_the_clear_hexes_of_tenochtitlan_are_its_market_squares(m):
    clear = {h for h in place(m, "tenochtitlan") if m.hexes[h] == {"clear"}}
    assert clear and place(m, "market_squares") == clear


# ====================================================================== geography
@pytest.mark.rule("2.14")
def test_2_14_the_mainland_is_the_land_outside_tenochtitlan(m):
    land, island, mainland = place(m, "land"), place(m, "tenochtitlan"), place(m, "mainland")
    assert island <= land and not island & mainland
    assert land == island | mainland | place(m, "acachinango")  # the fort on the causeway aside
    assert not place(m, "causeways") & land


@pytest.mark.rule("2.14")
def test_2_14_tlatelolco_is_in_the_north_of_the_island(m):
    rows = sorted(int(h[2:]) for h in place(m, "tenochtitlan"))
    assert int("2810"[2:]) < int("3016"[2:]) and int("2810"[2:]) <= rows[len(rows) // 4]


@pytest.mark.rule("7.16")
def test_7_16_the_causeways_of_1521(m):
    # north to Tepeyac through Tlatelolco; west to Tlacopan; south through
    # Xoloco to Acachinango, forking to Coyoacan (south-west) and Iztapalapa.
    north = along_causeways(m, "2810")
    assert north & place(m, "tepeyac")
    west = along_causeways(m, "2514")
    assert "1205" in west and distance("1205", "1004") <= 3
    south = along_causeways(m, "2920")
    assert {"2925", "2543"} <= south
    assert "1739" in south and distance("1739", "1539") <= 2 and int("1739"[:2]) < 25
    assert "4044" in south and distance("4044", "4244") <= 2 and int("4044"[:2]) > 25
    # the causeways ran into the city, to the temple precinct
    assert "3016" in north and "3016" in west and "3016" in south


@pytest.mark.rule("10.2")
def test_10_2_chapultepec_lies_on_the_western_mainland(m):
    island_west = min(int(h[:2]) for h in place(m, "tenochtitlan"))
    assert int("1322"[:2]) < island_west
    assert "1322" in by_land(m, "1004")  # joined to Tlacopan by land


@pytest.mark.rule("3.2")
def test_3_2_the_camps_lie_where_the_historical_camps_were(m):
    # Tlacopan north-west of the city, Coyoacan south-west, Iztapalapa south-east.
    col, row = 30, 16  # 3016
    assert int("1004"[:2]) < col and int("1004"[2:]) < row
    assert int("1539"[:2]) < col and int("1539"[2:]) > row
    assert int("4244"[:2]) > col and int("4244"[2:]) > row
    assert {"1004"} <= place(m, "tlacopan") and {"1539"} <= place(m, "coyoacan")
    assert {"4244"} <= place(m, "iztapalapa")


# ====================================================================== the audit's fixes
@pytest.mark.rule("7.13")
def test_7_13_some_chinampa_hexes_lie_on_causeway_hexsides(m, game):
    on_road = {h for h, t in m.hexes.items() if "chinampa_city" in t
               for n in hexgrid.neighbours(h, True) if causeway_side(m, h, n)}
    assert {"2614", "2714", "2813", "2814", "3019", "3020"} <= on_road
    state = game({"S9": "2920"})  # cavalry rides the Iztapalapa road into the city
    assert state.why_illegal(Action("move", ("S9", "3020"))) == []
    state.apply("move S9 3020")
    state.apply("move S9 3019")
    assert state.place_of("S9") == "3019"


@pytest.mark.rule("7.16")
def test_7_16_the_spanish_pay_1_to_enter_clear_1205_from_1305(game):
    state = game({"S1": "1305"})
    state.apply("move S1 1205")
    entry = state.log[-1]
    assert "cost 1" in entry.text and entry.rules == ("7.7", "13.1")


@pytest.mark.rule("7.7")
def test_7_7_a_map_with_two_artificial_terrains_in_a_hex_is_refused(tmp_path):
    text = MAP_FILE.read_text(encoding="utf-8").replace(
        "hex 1322: clear, major_fortress", "hex 1322: clear, major_fortress, fortress")
    path = tmp_path / "map.rules"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load("cortes", map=str(path))
    # The check cites the rule that declares the terrains and their kinds (13.1's
    # chart); 7.7 states the limit in words.
    assert "at most one artificial terrain" in str(caught.value) and "13.1" in str(caught.value)


# ====================================================================== replacement
@pytest.mark.rule("2.2")
def test_2_2_another_map_file_of_the_same_format_replaces_ours(tmp_path, m):
    # A "transcribed" map: ours with the market square 2711 made a dry-land
    # city and Tepeyac one hex larger.
    text = MAP_FILE.read_text(encoding="utf-8")
    text = text.replace("  hex 2711 2916 3017 3115: clear\n",
                        "  hex 2916 3017 3115: clear\n  hex 2711: clear, dry_land_city\n")
    text = text.replace("hex 3300 3400 3401 3500: clear", "hex 3300 3400 3401 3500 3600: clear")
    text = text.replace('"Tepeyac, the land hexes around 3400" at 3300 3400 3401 3500',
                        '"Tepeyac, the land hexes around 3400" at 3300 3400 3401 3500 3600')
    text = text.replace("market_squares \"Market squares of Tenochtitlan (its clear hexes, 7.9)\" "
                        "at 2711 2916 3017 3115", "market_squares \"Market squares\" at 2916 3017 "
                        "3115")
    path = tmp_path / "printed-map.rules"
    path.write_text(text, encoding="utf-8")
    book = cortes_rules.load("cortes", map=str(path))
    other = book.program.map
    assert other is not None and other.block.span.path == str(path)
    assert other.hexes["2711"] == {"clear", "dry_land_city"}
    assert "3600" in other.place_hexes("tepeyac") and "3600" in other.place_hexes("mainland")
    assert "3600" in book.hex_ids and "3600" not in m.hexes
    assert book.evaluate("h.terrain", h="2711") == frozenset({"clear", "dry_land_city"})
    state = book.new_game(setup="historical")  # the set-ups still fit the new map
    assert state.place_of("A1") == "3016"


@pytest.mark.rule("7.20")
def test_7_20_zone_5_reaches_3_too_under_the_other_reading():
    # the load option zone5_reach picks the first example of 7.20 instead
    other = cortes_rules.load("cortes", readings={"zone5_reach": "three_and_nine"})
    assert other.program.map is not None
    assert other.program.map.zone_touches[5] == {3, 9}
    assert 5 in other.program.map.zone_touches[3]
