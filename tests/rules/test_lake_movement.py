"""Lake movement (7.19-7.21), its bans (2.12, 7.5) and leaders on the lake (9.5)."""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strategies as S

import cortes_rules
from cortes_rules import IllegalActionError
from positions import GARRISON

ROOT = Path(__file__).resolve().parents[2]

# Zone 10 borders 3513-3518 and touches zones 11, 14 and 15 (the east-edge
# zones 7, 11, 15 are closed to Aztec units); 3518 also borders zone 14.


def rejected(state, text):
    """Apply an illegal action; return the rules it was refused under. State must not change."""
    pieces = list(state.positions())
    before = S.fingerprint(state, pieces)
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    assert S.fingerprint(state, pieces) == before
    return caught.value.rules


def lake(game, positions, side="spanish"):
    return game({**GARRISON, **positions}, phase=f"{side}_lake_movement")


# ------------------------------------------------------------------ 7.19
@pytest.mark.rule("7.19")
def test_7_19_a_gunboat_moves_one_zone_per_phase(game):
    state = lake(game, {"S12": "zone.10"})
    state.apply("sail S12 zone.14")
    assert state.positions()["S12"] == "zone.14"
    assert state.log[-1].rules == ("7.19",)
    assert "7.19" in rejected(state, "sail S12 zone.19")


@pytest.mark.rule("7.19")
def test_7_19_a_gunboat_never_enters_a_land_hex(game):
    state = lake(game, {"S12": "zone.10"})
    assert "7.19" in rejected(state, "sail S12 3517")
    assert not any(a.kind == "sail" and a.args[1] == "3517" for a in state.legal_actions())


@pytest.mark.rule("7.19")
def test_7_19_an_aztec_unit_on_the_shore_enters_a_zone_it_borders_and_no_further(game):
    state = lake(game, {"S1": "1110", "A1": "3517"}, side="aztec")
    targets = {a.args[1] for a in state.legal_actions() if a.kind == "sail" and a.args[0] == "A1"}
    assert targets == {"zone.10"}
    state.apply("sail A1 zone.10")
    assert "7.19" in rejected(state, "sail A1 zone.14")


@pytest.mark.rule("7.19")
def test_7_19_a_unit_in_a_zone_lands_on_its_shore_or_moves_to_an_adjacent_zone(game):
    state = lake(game, {"S1": "1110", "A1": "zone.10"}, side="aztec")
    targets = {a.args[1] for a in state.legal_actions() if a.kind == "sail" and a.args[0] == "A1"}
    # 2.12 closes zones 11 and 15; zone 14 and the shore hexes stay open.
    assert targets == {"zone.6", "zone.9", "zone.14",
                       "3513", "3514", "3515", "3516", "3517", "3518"}
    state.apply("sail A1 3516")
    assert state.positions()["A1"] == "3516"


@pytest.mark.rule("7.19")
def test_7_19_no_unit_moves_on_the_lake_and_on_land_in_one_phase(game):
    state = lake(game, {"S1": "1110", "A1": "zone.10"}, side="aztec")
    state.apply("sail A1 3517")
    state.apply("end")
    assert state.phase == "aztec_land_movement"
    assert "7.19" in rejected(state, "move A1 3417")
    # Units that did not move on the lake move on land as usual.
    state.apply("move A53 3418")


@pytest.mark.rule("7.19")
def test_7_19_land_units_never_move_on_the_lake(game):
    state = lake(game, {"S1": "3517", "S9": "3515", "S36": "3514", "S12": "zone.14"})
    assert "7.19" in rejected(state, "sail S1 zone.10")
    assert "7.19" in rejected(state, "sail S9 zone.10")
    assert "7.19" in rejected(state, "sail S36 zone.10")  # a Tlaxcalan band: no blue box
    movers = {a.args[0] for a in state.legal_actions() if a.kind == "sail"}
    assert movers == {"S12"}


@pytest.mark.rule("7.19")
def test_7_19_a_lake_capable_ally_moves_on_the_lake(game):
    state = lake(game, {"S29": "3517"})
    state.apply("sail S29 zone.10")
    assert state.positions()["S29"] == "zone.10"


@pytest.mark.rule("7.19")
def test_7_19_a_side_without_lake_movers_goes_straight_to_land_movement(book):
    state = book.new_game(positions={"S1": "1110", **GARRISON})
    assert state.phase == "spanish_land_movement"
    with_boat = book.new_game(positions={"S1": "1110", "S12": "zone.10", **GARRISON})
    assert with_boat.phase == "spanish_lake_movement"


@pytest.mark.rule("7.19")
def test_7_19_units_stay_on_the_lake_from_turn_to_turn(game):
    state = lake(game, {"S1": "1110", "A1": "zone.10"}, side="aztec")
    while state.phase != "end_of_turn":
        state.apply("end")
    state.apply("play_on")
    while state.phase != "aztec_lake_movement":
        state.apply("end")
    assert state.phase == "aztec_lake_movement" and state.turn == 2
    assert state.positions()["A1"] == "zone.10"
    state.apply("sail A1 zone.14")  # the flag of the first turn is cleared


@pytest.mark.rule("7.19")
@pytest.mark.rule("6.6")
def test_7_19_stacking_is_checked_in_the_hex_units_land_in(game):
    # Two regular warriors never stack (6.4): the Spanish player removes one.
    state = lake(game, {"S1": "1110", "A20": "zone.10", "A21": "3517"}, side="aztec")
    state.apply("sail A20 3517")
    state.apply("end")
    assert {a.kind for a in state.legal_actions()} == {"remove"}
    assert "6.4" in state.log[-1].rules


# ------------------------------------------------------------------ 2.12, 7.5
@pytest.mark.rule("2.12")
def test_2_12_aztec_units_never_enter_the_east_edge_zones(game):
    state = lake(game, {"S1": "1110", "A1": "zone.10"}, side="aztec")
    assert "2.12" in rejected(state, "sail A1 zone.11")
    assert "2.12" in rejected(state, "sail A1 zone.15")


@pytest.mark.rule("7.5")
def test_7_5_no_unit_lands_in_a_hex_held_by_the_enemy(game):
    state = lake(game, {"S1": "3517", "A1": "zone.10"}, side="aztec")
    assert "7.5" in rejected(state, "sail A1 3517")


@pytest.mark.rule("7.19")
@pytest.mark.parametrize(("reading", "lands"), [("causeway_hexes_too", True),
                                                ("land_hexes_only", False)])
def test_7_19_landing_on_a_causeway_hex_both_ways(reading, lands):
    # Interpretation landing_on_causeways: 3402 is a causeway hex on the
    # shore of zone 4, 3401 a land hex of Tepeyac on the same shore.
    book = cortes_rules.load("cortes", readings={"landing_on_causeways": reading})
    state = book.new_game(positions={**GARRISON, "S1": "1110", "A20": "zone.4"})
    while state.phase != "aztec_lake_movement":
        state.apply("end")
    sails = {str(a) for a in state.legal_actions() if a.kind == "sail"}
    assert "sail A20 3401" in sails
    assert ("sail A20 3402" in sails) is lands
    if not lands:
        assert "7.19" in rejected(state, "sail A20 3402")


# ------------------------------------------------------------------ 7.20, 7.21
@pytest.mark.rule("7.20")
def test_7_20_lake_zones_are_adjacent_across_the_causeways(game):
    # The text's examples: zone 4 reaches 6 and 9, zone 5 reaches 9 (only, by
    # the default reading of zone5_reach).
    state = lake(game, {"S1": "1110", "A1": "zone.4", "A2": "zone.5"}, side="aztec")
    legal = state.legal_actions()
    zones = {a.args[0]: set() for a in legal if a.kind == "sail"}
    for a in legal:
        if a.kind == "sail" and a.args[1].startswith("zone."):
            zones[a.args[0]].add(a.args[1])
    assert {"zone.6", "zone.9"} <= zones["A1"]
    assert zones["A2"] == {"zone.9"}


@pytest.mark.rule("7.20")
def test_7_20_a_map_against_the_examples_is_refused(tmp_path):
    import cortes_rules
    from cortes_rules import RulesCheckError
    shipped = (ROOT / "rulebook" / "cortes" / "map.rules").read_text(encoding="utf-8")
    assert "zone 4 touches 6 9" in shipped
    bad = tmp_path / "map.rules"
    bad.write_text(shipped.replace("zone 4 touches 6 9", "zone 4 touches 9"), encoding="utf-8")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load("cortes", map=str(bad))
    assert "7.20" in str(caught.value)


@pytest.mark.rule("7.21")
def test_7_21_enemy_units_do_not_block_lake_movement(game):
    state = lake(game, {"S1": "1110", "S12": "zone.10", "A1": "zone.14"}, side="aztec")
    state.apply("sail A1 zone.10")
    assert {state.positions()["A1"], state.positions()["S12"]} == {"zone.10"}


@pytest.mark.rule("7.21")
def test_7_21_land_movement_never_enters_a_lake_zone(game):
    state = game({**GARRISON, "S1": "1205"})
    assert state.why_illegal("move S1 zone.1")
    assert not any(a.kind == "move" and a.args[1].startswith("zone.")
                   for a in state.legal_actions())


# ------------------------------------------------------------------ 9.5
@pytest.mark.rule("9.5")
def test_9_5_cortes_picks_his_gunboat_and_goes_with_it(game):
    state = lake(game, {"Cortes": "zone.10", "S12": "zone.10", "S13": "zone.10"})
    assert {str(a) for a in state.legal_actions()} == {"board S12", "board S13"}
    state.apply("board S13")
    assert str(state.attribute("Cortes", "aboard")) == "S13"
    state.apply("sail S12 zone.14")
    assert state.positions()["Cortes"] == "zone.10"
    state.apply("sail S13 zone.14")
    assert state.positions()["Cortes"] == "zone.14"
    assert state.log[-1].rules == ("9.5",)


@pytest.mark.rule("9.5")
def test_9_5_a_leader_on_the_water_moves_only_with_his_carrier(game):
    state = lake(game, {"Cortes": "zone.10", "S12": "zone.10"})
    assert "9.5" in rejected(state, "sail Cortes zone.14")
    state.apply("sail S12 zone.14")
    assert state.positions()["Cortes"] == "zone.14"
    assert "7.19" in rejected(state, "sail Cortes 3518")  # he went with it: he has moved


@pytest.mark.rule("9.5")
def test_9_5_cortes_boards_only_where_a_gunboat_waits(game):
    state = lake(game, {"Cortes": "3517", "S1": "3517", "S12": "zone.14"})
    assert "9.5" in rejected(state, "sail Cortes zone.10")
    state.apply("sail S12 zone.10")
    state.apply("sail Cortes zone.10")
    assert state.positions()["Cortes"] == "zone.10"
    assert str(state.attribute("Cortes", "aboard")) == "S12"


@pytest.mark.rule("9.5")
def test_9_5_cortes_lands_from_his_boat_on_the_shore(game):
    state = lake(game, {"Cortes": "zone.10", "S12": "zone.10"})
    state.apply("sail Cortes 3517")
    assert state.positions()["Cortes"] == "3517"
    assert state.positions()["S12"] == "zone.10"


@pytest.mark.rule("9.5")
def test_9_5_cuauhtemoc_is_carried_by_any_aztec_unit_but_not_by_a_spanish_one(game):
    state = lake(game, {"S1": "1110", "Cuauhtemoc": "zone.10", "A20": "zone.10"}, side="aztec")
    state.apply("sail A20 zone.14")
    assert state.positions()["Cuauhtemoc"] == "zone.14"


# ------------------------------------------------------------------ properties
@pytest.mark.rule("7.19")
@pytest.mark.rule("2.12")
@settings(max_examples=40)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=12))
def test_7_19_any_lake_phase_keeps_every_unit_to_one_legal_lake_move(book, choices):
    state = book.new_game(seed=3, setup="historical")
    for _ in range(8):  # both movement phases of the Spanish, then the Aztec, lake phase
        if state.phase.endswith("lake_movement"):
            break
        state.apply("end")
    start = dict(state.positions())
    moved = set()
    for pick in choices:
        legal = [a for a in state.legal_actions() if a.kind in ("sail", "board")]
        if not legal:
            break
        action = legal[pick % len(legal)]
        assert action.args[0] not in moved or action.kind == "board"
        state.apply(action)
        if action.kind == "sail":
            moved.add(action.args[0])
    for uid, place in state.positions().items():
        if place != start.get(uid):
            assert uid in moved or state.attribute(uid, "sailed")
        if place.startswith("zone.") and uid.startswith("A"):
            assert place not in ("zone.7", "zone.11", "zone.15", "zone.21", "zone.29")


@pytest.mark.rule("9.5")
@pytest.mark.rule("7.19")
def test_9_5_where_cortes_lands_both_readings(book):
    # Default (disembark_anywhere = bordering_zone): on the shore of his zone only.
    state = book.new_game(positions={**GARRISON, "Cortes": "zone.10", "S12": "zone.10"})
    rejected(state, "sail Cortes 1205")
    import cortes_rules
    anywhere = cortes_rules.load("cortes", readings={"disembark_anywhere": "any_coast"})
    state = anywhere.new_game(positions={**GARRISON, "Cortes": "zone.10", "S12": "zone.10"})
    state.apply("sail Cortes 1205")  # a coastal hex of zone 1, far across the lake
    assert state.positions()["Cortes"] == "1205"
    # Only Cortes lands anywhere: a gunboat's moves are unchanged.
    assert not any(a.kind == "sail" and a.args == ("S12", "1205") for a in state.legal_actions())
