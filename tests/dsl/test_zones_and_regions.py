"""Water zones are places, and the map's named places are names of the language.

The core knows no lake: a map's zones become places of kind ``zone``
(``zone(N)``, id ``zone.N``) whose neighbours are the zones they touch, and
``shore`` links a zone and the hexes bordering it both ways. A named place
of the map (``place tenochtitlan ...``) or zone group is a bare name that
evaluates to its places, in map order.
"""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules import CortesRulesError, RulesCheckError


@pytest.fixture(scope="module")
def state(book: cortes_rules.Rulebook):
    return book.new_game()


@pytest.mark.rule("7.20")
def test_zones_are_places_that_touch_as_the_map_says(state) -> None:
    assert state.evaluate("count(zones)") == 29
    assert state.evaluate("zone(11).kind") == "zone"
    assert state.evaluate("zone(11).id") == "zone.11"
    assert state.evaluate("list(z.id for z in neighbours(zone(5)))") == ("zone.9",)
    assert state.evaluate("adjacent(zone(4), zone(6))") is True
    assert state.evaluate("adjacent(zone(4), zone(29))") is False


@pytest.mark.rule("7.19")
def test_shore_links_zones_and_hexes_both_ways(state) -> None:
    shore = state.evaluate("list(h.id for h in zone(5).shore)")
    assert shore == ("2811", "2812", "2910", "2912", "3011", "3012")
    assert state.evaluate('list(z.id for z in first(h for h in hexes where h.id == "3011")'
                          '.shore)') == ("zone.5", "zone.9")
    assert state.evaluate("count(zone(11).shore)") == 0   # open water
    # a hex's neighbours stay hexes: land movement never sees the water
    assert state.evaluate("all(h in hexes where all(n in neighbours(h) where n.kind == \"hex\"))")


@pytest.mark.rule("2.14")
def test_named_places_are_names_of_the_language(state) -> None:
    assert state.evaluate('first(h for h in hexes where h.id == "3016") in tenochtitlan')
    assert not state.evaluate('first(h for h in hexes where h.id == "1205") in tenochtitlan')
    assert state.evaluate("list(z.id for z in east_edge)") == (
        "zone.7", "zone.11", "zone.15", "zone.21", "zone.29")


@pytest.mark.rule("7.20")
def test_a_zone_that_does_not_exist_is_a_clear_error(state) -> None:
    with pytest.raises(CortesRulesError, match="no zone 99"):
        state.evaluate("zone(99)")


@pytest.mark.rule("3.2")
def test_setups_and_positions_place_pieces_in_zones(book) -> None:
    state = book.new_game(positions={"Cortes": "zone.11"})
    assert state.place_of("Cortes") == "zone.11"


@pytest.mark.rule("3.2")
def test_a_setup_names_a_zone_by_number(tmp_path) -> None:
    good = tmp_path / "good.rules"
    good.write_text('setup lakeside "Test" {\n  place Cortes at zone 11\n}\n')
    book = cortes_rules.load("cortes", setups=good)
    assert "lakeside" in book.setups
    bad = tmp_path / "bad.rules"
    bad.write_text('setup lakeside "Test" {\n  place Cortes at zone 99\n}\n')
    with pytest.raises(RulesCheckError, match="zone.99"):
        cortes_rules.load("cortes", setups=bad)
