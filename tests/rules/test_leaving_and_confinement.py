"""Tepeyac and leaving the map (7.17-7.18), Cuauhtemoc's confinement to the
island (9.2) and his escape (9.6)."""

from __future__ import annotations

from pathlib import Path

import pytest

import strategies as S

import cortes_rules
from cortes_rules import IllegalActionError
from positions import GARRISON

ROOT = Path(__file__).resolve().parents[2]

# Tepeyac is 3300, 3400, 3401 and 3500; the northern causeway reaches it at
# 3401 from 3402. 3012 is a coastal fortress of the island, joined to the
# causeway hex 3011 by a causeway hexside and bordering lake zones 5 and 9.


def rejected(state, text):
    """Apply an illegal action; return the rules it was refused under. State must not change."""
    pieces = list(state.positions())
    before = S.fingerprint(state, pieces)
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    assert S.fingerprint(state, pieces) == before
    return caught.value.rules


def to(state, phase):
    while state.phase != phase:
        state.apply("end")
    return state


# ------------------------------------------------------------------ 7.17
@pytest.mark.rule("7.17")
def test_7_17_spanish_units_that_start_in_tepeyac_may_leave_the_map(book):
    state = book.new_game(positions={**GARRISON, "S1": "3400", "S2": "3402"})
    assert state.phase == "spanish_land_movement"
    assert {str(a) for a in state.legal_actions()} == {"end", "leave S1"}
    state.apply("leave S1")
    assert state.place_of("S1") == "withdrawn.spanish"
    assert state.log[-1].rules == ("7.17",)
    state.apply("end")  # the movement itself follows
    assert state.phase == "spanish_land_movement"
    assert any(a.kind == "move" and a.args[0] == "S2" for a in state.legal_actions())


@pytest.mark.rule("7.17")
def test_7_17_a_unit_entering_tepeyac_this_phase_does_not_leave(book):
    state = book.new_game(positions={**GARRISON, "S2": "3402"})
    state.apply("move S2 3401")  # along the causeway
    assert state.place_of("S2") == "3401"
    rejected(state, "leave S2")  # units leave only as the phase starts


@pytest.mark.rule("7.17")
def test_7_17_tepeyac_is_entered_by_land_only_along_a_causeway(tmp_path):
    # On the shipped map every land neighbour of Tepeyac is a causeway hex; a
    # map with a plain land hex beside it shows the ban.
    shipped = (ROOT / "rulebook" / "cortes" / "map.rules").read_text(encoding="utf-8")
    assert "hex 3300 3400 3401 3500: clear" in shipped
    path = tmp_path / "map.rules"
    path.write_text(shipped.replace("hex 3300 3400 3401 3500: clear",
                                    "hex 3300 3400 3401 3500 3600: clear"), encoding="utf-8")
    book = cortes_rules.load("cortes", map=str(path))
    state = book.new_game(positions={**GARRISON, "S1": "3600"})
    assert "7.17" in rejected(state, "move S1 3500")


@pytest.mark.rule("7.17")
@pytest.mark.rule("7.19")
def test_7_17_tepeyac_is_entered_from_the_lake(game):
    state = game({**GARRISON, "S1": "1110", "A20": "zone.6"}, phase="aztec_lake_movement")
    state.apply("sail A20 3500")
    assert state.place_of("A20") == "3500"


@pytest.mark.rule("7.17")
@pytest.mark.rule("7.4")
@pytest.mark.parametrize(("reading", "allies_leave"), [("whole_side", True),
                                                       ("europeans_only", False)])
def test_7_17_who_leaves_from_tepeyac_both_ways(reading, allies_leave):
    # Interpretation tepeyac_leavers: the Indian allies leave too, or not;
    # a cannon never leaves on its own (7.4).
    book = cortes_rules.load("cortes", readings={"tepeyac_leavers": reading})
    state = book.new_game(positions={**GARRISON, "S1": "3400", "S30": "3500", "S25": "3400"})
    to(state, "spanish_land_movement")   # S30 could take to the lake first (7.19)
    leavers = {str(a) for a in state.legal_actions() if a.kind == "leave"}
    assert leavers == ({"leave S1", "leave S30"} if allies_leave else {"leave S1"})
    assert "7.4" in rejected(state, "leave S25")
    if not allies_leave:
        assert "7.17" in rejected(state, "leave S30")


# ------------------------------------------------------------------ 7.18
@pytest.mark.rule("7.18")
def test_7_18_no_other_unit_leaves_the_map(book):
    state = book.new_game(positions={**GARRISON, "S1": "1110", "S2": "3400", "Cortes": "3400"})
    assert {str(a) for a in state.legal_actions()} == {"end", "leave S2"}
    assert "7.18" in rejected(state, "leave S1")
    assert "7.18" in rejected(state, "leave Cortes")


@pytest.mark.rule("7.18")
def test_7_18_aztec_units_never_leave_from_tepeyac(game):
    state = game({**GARRISON, "S1": "1110", "A20": "3400"}, phase="aztec_land_movement")
    assert not any(a.kind == "leave" for a in state.legal_actions())
    assert "7.18" in rejected(state, "leave A20")


# ------------------------------------------------------------------ 9.2
@pytest.mark.rule("9.2")
def test_9_2_cuauhtemoc_stays_on_the_island(game):
    state = game({**GARRISON, "S1": "1110", "Cuauhtemoc": "3012", "A20": "zone.9"},
                 phase="aztec_lake_movement")
    assert "9.2" in rejected(state, "sail Cuauhtemoc zone.9")
    state.apply("end")
    assert "9.2" in rejected(state, "move Cuauhtemoc 3011")
    state.apply("move Cuauhtemoc 2912")  # within the island he moves freely
    assert state.place_of("Cuauhtemoc") == "2912"


@pytest.mark.rule("9.2")
def test_9_2_without_11_8_he_is_never_released_by_default(game):
    # No Aztec unit is left on the island, but no temple was ever desecrated.
    state = game({"S1": "1110", "A53": "1120", "Cuauhtemoc": "3012"},
                 phase="aztec_lake_movement")
    to(state, "aztec_land_movement")
    assert "9.2" in rejected(state, "move Cuauhtemoc 3011")


@pytest.mark.rule("9.2")
def test_9_2_units_only_releases_him_with_five_units_or_fewer():
    book = cortes_rules.load("cortes", readings={"cuauhtemoc_release": "units_only"})
    island = {f"A{n}": h for n, h in zip(range(20, 26), ("3513", "3514", "3515", "3517",
                                                         "3518", "3312"), strict=True)}
    state = book.new_game(positions={"S1": "1110", "Cuauhtemoc": "3012", **island})
    to(state, "aztec_land_movement")
    assert "9.2" in rejected(state, "move Cuauhtemoc 3011")  # six units on the island
    state = book.new_game(positions={"S1": "1110", "Cuauhtemoc": "3012",
                                     **dict(list(island.items())[:5])})
    to(state, "aztec_lake_movement")
    assert any("9.2" in e.rules and "may leave Tenochtitlan" in e.text for e in state.log)
    to(state, "aztec_land_movement")
    state.apply("move Cuauhtemoc 3011")
    assert state.place_of("Cuauhtemoc") == "3011"


@pytest.mark.rule("9.2")
def test_9_2_whether_he_counts_himself_both_ways():
    island = {f"A{n}": h for n, h in zip(range(20, 25), ("3513", "3514", "3515", "3517",
                                                         "3518"), strict=True)}
    positions = {"S1": "1110", "Cuauhtemoc": "3012", **island}
    for reading, free in (("not_counted", True), ("counted", False)):
        book = cortes_rules.load("cortes", readings={"cuauhtemoc_release": "units_only",
                                                     "cuauhtemoc_counts_himself": reading})
        state = to(book.new_game(positions=positions), "aztec_land_movement")
        assert (state.why_illegal("move Cuauhtemoc 3011") == []) is free, reading


@pytest.mark.rule("9.2")
@pytest.mark.rule("11.8")
def test_9_2_with_11_8_both_temples_must_have_been_desecrated():
    book = cortes_rules.load("cortes", options=["11.8"])
    positions = {"S1": "1110", "Cuauhtemoc": "3012", "A53": "3518"}
    state = book.new_game(positions=positions)
    state.set_value("temples_ever_desecrated", ["2810"])
    to(state, "aztec_land_movement")
    assert "9.2" in rejected(state, "move Cuauhtemoc 3011")
    state = book.new_game(positions=positions)
    state.set_value("temples_ever_desecrated", ["2810", "3016"])
    to(state, "aztec_land_movement")
    state.apply("move Cuauhtemoc 3011")


@pytest.mark.rule("9.2")
@pytest.mark.rule("11.8")
def test_11_8_each_desecration_is_remembered_for_9_2():
    book = cortes_rules.load("cortes", options=["11.8"])
    state = book.new_game(positions={**GARRISON, "S9": "2710", "A1": "1120"})
    assert state.evaluate("count(temples_ever_desecrated)") == 0
    state.apply("move S9 2810")
    assert state.evaluate("count(temples_ever_desecrated)") == 1
    # The marker leaves at the next interphase (11.8); the memory stays.
    state.set_value("desecrated_temples", [])
    assert state.evaluate("count(temples_ever_desecrated)") == 1


# ------------------------------------------------------------------ 9.6
def free_cuauhtemoc(place):
    book = cortes_rules.load("cortes", readings={"cuauhtemoc_release": "units_only"})
    state = book.new_game(positions={**GARRISON, "S1": "1110", "Cuauhtemoc": place})
    state.set_value("cuauhtemoc_free", True)
    return to(state, "aztec_land_movement")


@pytest.mark.rule("9.6")
def test_9_6_a_free_cuauhtemoc_escapes_from_the_west_edge():
    state = free_cuauhtemoc("0810")
    state.apply("end")  # his land movement is over, with points left
    assert {str(a) for a in state.legal_actions()} == {"end", "escape"}
    state.apply("escape")
    assert state.place_of("Cuauhtemoc") == "escaped"
    assert state.log[-1].rules == ("9.6",)
    # He is not captured: the 5 loss points of 5.4 stand.
    assert state.evaluate("loss_points_from_cuauhtemoc()") == 5


@pytest.mark.rule("9.6")
def test_9_6_and_from_the_south_edge_after_moving():
    state = free_cuauhtemoc("1045")
    state.apply("move Cuauhtemoc 1046")
    state.apply("end")
    assert "escape" in {str(a) for a in state.legal_actions()}


@pytest.mark.rule("9.6")
def test_9_6_not_from_inside_the_map_nor_without_a_point_left():
    state = free_cuauhtemoc("1020")
    state.apply("end")
    assert not any(a.kind == "escape" for a in state.legal_actions())
    state = free_cuauhtemoc("0810")
    state.set_attribute("Cuauhtemoc", "spent", 5)
    state.apply("end")
    assert not any(a.kind == "escape" for a in state.legal_actions())


@pytest.mark.rule("9.6")
@pytest.mark.rule("9.2")
def test_9_6_not_before_he_is_free(game):
    state = game({**GARRISON, "S1": "1110", "Cuauhtemoc": "0810"},
                 phase="aztec_land_movement")
    state.apply("end")
    assert not any(a.kind == "escape" for a in state.legal_actions())
