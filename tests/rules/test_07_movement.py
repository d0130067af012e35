"""Section 7: land movement (7.1-7.3, 7.5, 7.7, 7.10, 7.13, 7.16)."""

from __future__ import annotations

from pathlib import Path

import pytest

import strategies as S

import cortes_rules
from cortes_rules import Action, IllegalActionError
from positions import GARRISON

ROOT = Path(__file__).resolve().parents[2]


def rejected(state, text):
    """Apply an illegal move; return the rules it was refused under. State must not change."""
    pieces = list(state.positions())
    before = S.fingerprint(state, pieces)
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    assert S.fingerprint(state, pieces) == before
    return caught.value.rules


def spent(state, unit):
    return state.attribute(unit, "spent")


# ------------------------------------------------------------------ 7.1
@pytest.mark.rule("7.1")
def test_7_1_movement_points_run_out(game):
    state = game({"S1": "1110"})  # infantry, 4 MP, clear hexes cost 1
    for hex_id in ("1111", "1112", "1113", "1114"):
        state.apply(f"move S1 {hex_id}")
    assert spent(state, "S1") == 4
    assert "7.1" in rejected(state, "move S1 1115")
    assert not any(a.kind == "move" for a in state.legal_actions())


@pytest.mark.rule("7.1")
def test_7_1_each_hex_entered_is_paid_for(game):
    state = game({"S9": "1110"})  # cavalry, 6 MP
    state.apply("move S9 1111")
    state.apply("move S9 1112")
    assert spent(state, "S9") == 2
    assert "4 of 6 MP left" in state.log[-1].text


@pytest.mark.rule("7.1")
def test_7_1_a_unit_off_the_board_cannot_move(game):
    state = game({"S1": "1110"})  # S2 is not on the map
    assert not any(a.kind == "move" and a.args[0] == "S2" for a in state.legal_actions())
    assert state.why_illegal("move S2 1110")
    rejected(state, "move S2 1110")


@pytest.mark.rule("7.1")
def test_7_1_only_to_an_adjacent_hex(game):
    state = game({"S1": "1110"})
    assert "7.1" in rejected(state, "move S1 1112")


# ------------------------------------------------------------------ 7.2
@pytest.mark.rule("7.2")
def test_7_2_first_stack_cannot_move_after_another_moved(game):
    state = game({"S1": "1110", "S2": "1114"})
    state.apply("move S1 1111")
    state.apply("move S2 1113")
    assert rejected(state, "move S1 1112") == ("7.2",)
    assert not any(a.kind == "move" and a.args[0] == "S1" for a in state.legal_actions())
    state.apply("move S2 1112")  # the stack now moving may go on


@pytest.mark.rule("7.2")
def test_7_2_units_of_one_stack_may_split_and_move_in_turn(game):
    # 7.2 with 7.6: S1 splits off and moves; once S2, left behind, moves on its
    # own, S1's move is over (golden CHANGES.md C1). The first engine let S1
    # go on, and this test used to assert that.
    state = game({"S1": "1110", "S2": "1110"})
    state.apply("move S1 1111")
    state.apply("move S2 1109")  # the unit left behind resumes: allowed
    assert [rule for rule, _ in state.why_illegal("move S1 1112")] == ["7.2"]
    state.apply("move S2 1108")  # and goes on
    assert state.positions() == {"S1": "1111", "S2": "1108"}


@pytest.mark.rule("7.2")
def test_7_2_unused_points_are_lost_at_phase_end(game):
    state = game({**GARRISON, "S1": "1110"})
    state.apply("move S1 1111")
    to = state.phase
    state.apply("end")
    assert state.phase != to
    while state.phase != "spanish_land_movement":
        state.apply("play_on" if state.phase == "end_of_turn" else "end")  # 4.3
    assert spent(state, "S1") == 0  # a new phase, a fresh allowance


# ------------------------------------------------------------------ 7.3
@pytest.mark.rule("7.3")
@pytest.mark.parametrize("options", [(), ("11.6",)])
def test_7_3_one_mp_unit_may_enter_a_two_mp_hex_as_its_first_move(tmp_path, options):
    # S1 given a movement factor of 1, on the mainland next to Chapultepec
    # (1322, major fortress: 2 MP). The minimum move cites 7.3 alone, not the
    # exceptions to 7.5 (9.4, and 11.6 when in use), which did not permit it.
    line = "counter S1 \"Jorge de Alvarado's command\" infantry steps 4 combat 7, 5, 4, 2 move "
    book = _book_with_counter_change(tmp_path, line + "4", line + "1", options)
    state = book.new_game(positions={"S1": "1222"})
    state.apply("move S1 1322")
    assert state.place_of("S1") == "1322"
    assert spent(state, "S1") == 1  # all it had: 0 left
    entry = S.move_entry(state.log, "S1")
    assert S.move_cost(entry) == 2
    assert "7.3" in entry.rules and "9.4" not in entry.rules and "11.6" not in entry.rules
    assert "0 of 1 MP left" in entry.text
    assert not any(a.kind == "move" for a in state.legal_actions())


@pytest.mark.rule("7.19")
def test_7_19_gunboats_never_move_on_land(game):
    state = game({"S12": "1222"})
    assert "7.19" in rejected(state, "move S12 1221")


@pytest.mark.rule("7.3")
def test_7_3_not_as_a_second_move(game):
    state = game({"S1": "1219"})  # infantry, 4 MP
    for hex_id in ("1220", "1221", "1222"):
        state.apply(f"move S1 {hex_id}")
    assert spent(state, "S1") == 3  # 1 MP left, 1322 costs 2
    assert "7.1" in rejected(state, "move S1 1322")


@pytest.mark.rule("7.3")
def test_7_3_minimum_move_does_not_open_forbidden_hexes(game):
    # The one-hex minimum move never enters the quagmire (7.10) or an enemy hex (7.5).
    state = game({"S1": "3022", "A11": "3021"})
    assert "7.10" in rejected(state, "move S1 3023")
    assert "7.5" in rejected(state, "move S1 3021")


def _book_with_counter_change(tmp_path, old, new, options=()):
    """The Cortés rulebook with one counter line of counters.rules rewritten."""
    text = (ROOT / "rulebook" / "cortes" / "counters.rules").read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "counters.rules"
    path.write_text(text.replace(old, new), encoding="utf-8")
    return cortes_rules.load("cortes", counters=str(path), options=list(options))


@pytest.mark.rule("7.3")
def test_7_3_zero_mp_unit_moves_only_one_hex(tmp_path):
    # A unit whose movement factor is 0 may make the minimum move once; spending
    # "all" of 0 points leaves its spent at 0, and that must not let it go on.
    line = "counter S1 \"Jorge de Alvarado's command\" infantry steps 4 combat 7, 5, 4, 2 move "
    book = _book_with_counter_change(tmp_path, line + "4", line + "0")
    state = book.new_game(positions={"S1": "1110"})
    state.apply("move S1 1111")
    assert state.place_of("S1") == "1111" and spent(state, "S1") == 0
    assert "7.3" in state.log[-1].rules
    assert "7.1" in rejected(state, "move S1 1112")
    assert not any(a.kind == "move" for a in state.legal_actions())


@pytest.mark.rule("7.4")
def test_7_4_cannons_never_move_on_their_own(game):
    state = game({"S25": "1110", "S1": "1110"})
    assert "7.4" in rejected(state, "move S25 1111")
    assert not any(a.kind == "move" and a.args[0] == "S25" for a in state.legal_actions())
    state.apply("move S1 1111")  # the infantry beside it moves as usual


# ------------------------------------------------------------------ 7.5
@pytest.mark.rule("7.5")
def test_7_5_no_entry_into_an_enemy_hex(game):
    state = game({**GARRISON, "S1": "1110", "A11": "1111"})
    assert rejected(state, "move S1 1111") == ("7.5",)
    state = game({**GARRISON, "S1": "1110", "A11": "1111"}, phase="aztec_land_movement")
    assert rejected(state, "move A11 1110") == ("7.5",)


@pytest.mark.rule("7.5")
def test_7_5_friendly_hexes_may_be_entered(game):
    state = game({"S1": "1110", "S2": "1111"})
    state.apply("move S1 1111")
    assert state.pieces_at("1111") == ["S1", "S2"]


# ------------------------------------------------------------------ 7.7 / 7.9
@pytest.mark.rule("7.7")
@pytest.mark.parametrize("origin, target, cost", [
    ("1110", "1111", 1),   # clear
    ("1105", "1104", 1),   # dry-land city (Tlacopan)
    ("3021", "3020", 2),   # chinampa city
    ("1222", "1322", 2),   # major fortress (Chapultepec)
    ("2615", "2514", 2),   # fortress (western coastal fortress)
    ("2709", "2810", 2),   # temple complex (Tlatelolco)
])
def test_7_7_terrain_costs_follow_the_chart(game, origin, target, cost):
    state = game({"S1": origin})
    state.apply(f"move S1 {target}")
    entry = S.move_entry(state.log, "S1")
    assert S.move_cost(entry) == cost
    assert "7.7" in entry.rules and "13.1" in entry.rules
    assert spent(state, "S1") == cost


# ------------------------------------------------------------------ 7.10
@pytest.mark.rule("7.10")
def test_7_10_quagmire_is_never_entered(book, game):
    assert book.evaluate("h.terrain", h="3023") == frozenset({"quagmire"})
    state = game({"S1": "3022"})
    assert "7.10" in rejected(state, "move S1 3023")
    state = game({"A1": "3024"}, phase="aztec_land_movement")
    assert "7.10" in rejected(state, "move A1 3023")


# ------------------------------------------------------------------ 7.13
@pytest.mark.rule("7.13")
def test_7_13_cavalry_cannot_enter_chinampa_off_a_causeway(book, game):
    state = game({"S9": "3021"})
    assert "chinampa_city" in book.evaluate("h.terrain", h="3020")
    assert rejected(state, "move S9 3020") == ("7.13",)
    state = game({"S9": "2924"})  # causeway hex, but not a causeway hexside into 3024
    assert "7.13" in rejected(state, "move S9 3024")


@pytest.mark.rule("7.13")
def test_7_13_other_units_enter_chinampa_freely(game):
    state = game({"S1": "3021", "S29": "3019"})
    state.apply("move S1 3020")
    assert spent(state, "S1") == 2


@pytest.mark.rule("7.13")
def test_7_13_cavalry_enters_chinampa_along_a_causeway(book, game):
    # The Tlacopan causeway runs on into the city as a road: 2514-2614 is a
    # causeway hexside into the chinampa hex 2614.
    assert "chinampa_city" in book.evaluate("h.terrain", h="2614")
    state = game({"S9": "2514"})
    assert state.why_illegal(Action("move", ("S9", "2614"))) == []
    state.apply("move S9 2614")
    assert state.place_of("S9") == "2614"
    assert spent(state, "S9") == 2  # the chinampa hex's own cost (7.7): 2514 is no causeway hex
    state.apply("move S9 2714")  # on along the road, chinampa again
    assert state.place_of("S9") == "2714"
    state = game({"S9": "2615"})  # beside 2614, but no causeway crosses 2615-2614
    assert rejected(state, "move S9 2614") == ("7.13",)


# ------------------------------------------------------------------ 7.16
@pytest.mark.rule("7.16")
def test_7_16_causeway_rate_is_1_for_aztecs_and_2_for_spanish(game):
    state = game({**GARRISON, "A11": "2910"}, phase="aztec_land_movement")
    state.apply("move A11 3011")
    entry = S.move_entry(state.log, "A11")
    assert (S.move_cost(entry), entry.rules) == (1, ("7.16", "13.1"))
    assert "across a causeway hexside" in entry.text
    assert spent(state, "A11") == 1
    state = game({"S1": "3010", "S29": "3009"})
    state.apply("move S1 3011")
    entry = S.move_entry(state.log, "S1")
    assert (S.move_cost(entry), entry.rules) == (2, ("7.16", "13.1"))
    assert spent(state, "S1") == 2
    state.apply("move S29 3010")  # allies pay the Spanish rate too
    assert spent(state, "S29") == 2


@pytest.mark.rule("7.16")
def test_7_16_stepping_off_a_causeway_costs_the_terrain_entered(game):
    # The causeway rate is for going from causeway hex to causeway hex. 2910 ->
    # 2810 crosses a causeway hexside, but 2810 is the Tlatelolco temple (2 MP).
    state = game({**GARRISON, "A11": "2910"}, phase="aztec_land_movement")
    entry = S.try_move(state, "A11", "2810")
    assert (S.move_cost(entry), entry.rules) == (2, ("7.7", "13.1"))
    state = game({"S1": "1305"})  # the end of the Tlacopan causeway onto clear 1205
    entry = S.try_move(state, "S1", "1205")
    assert (S.move_cost(entry), entry.rules) == (1, ("7.7", "13.1"))
    state = game({"S1": "2709"})  # not along a causeway: the temple's own cost
    entry = S.try_move(state, "S1", "2810")
    assert (S.move_cost(entry), entry.rules) == (2, ("7.7", "13.1"))


@pytest.mark.rule("7.16")
def test_7_16_stepping_onto_a_causeway_costs_the_side_rate(game):
    # Entering a causeway hex from the hex at its end: the chart's causeway
    # cost, by side, as the hex's terrain (7.7, 13.1).
    state = game({"S1": "1205"})
    entry = S.try_move(state, "S1", "1305")
    assert (S.move_cost(entry), entry.rules) == (2, ("7.7", "13.1"))
    state = game({"A11": "2810"}, phase="aztec_land_movement")
    entry = S.try_move(state, "A11", "2910")
    assert (S.move_cost(entry), entry.rules) == (1, ("7.7", "13.1"))


@pytest.mark.rule("7.16")
def test_7_16_a_city_road_is_not_causeway_movement(game):
    # 2810-2811 is a causeway hexside between two city hexes: the dry-land
    # city's own cost, whatever the side.
    state = game({"A11": "2810"}, phase="aztec_land_movement")
    entry = S.try_move(state, "A11", "2811")
    assert (S.move_cost(entry), entry.rules) == (1, ("7.7", "13.1"))
    state = game({"A11": "2812"}, phase="aztec_land_movement")
    entry = S.try_move(state, "A11", "2813")  # chinampa along the road
    assert (S.move_cost(entry), entry.rules) == (2, ("7.7", "13.1"))


@pytest.mark.rule("7.16")
def test_7_16_causeway_hexes_are_entered_only_along_the_causeway(game):
    state = game({"S1": "2909"})  # 2909 and 3010 touch, but no causeway hexside joins them
    assert "7.16" in rejected(state, "move S1 3010")
    assert "7.16" in rejected(state, "move S1 2910")  # 2909-2910 is no causeway hexside
    state = game({"A11": "2909"}, phase="aztec_land_movement")
    assert "7.16" in rejected(state, "move A11 2910")  # whatever the side
    state = game({"S1": "2810"})
    state.apply("move S1 2910")  # 2810-2910 is a causeway hexside
    assert spent(state, "S1") == 2


@pytest.mark.rule("7.16")
def test_7_16_causeway_hexes_are_left_only_along_the_causeway(game):
    # 2910 and 2909 touch, but no causeway crosses their hexside.
    state = game({"S1": "2910"})
    assert "7.16" in rejected(state, "move S1 2909")
    state.apply("move S1 2810")  # along the causeway into Tlatelolco
    assert state.place_of("S1") == "2810" and spent(state, "S1") == 2
    state = game({**GARRISON, "A11": "2924"}, phase="aztec_land_movement")
    assert "7.16" in rejected(state, "move A11 3024")
    state.apply("move A11 2925")  # 2924-2925 is a causeway hexside
    assert spent(state, "A11") == 2  # into the Xoloco fortress: its own cost (7.7, 7.16)
