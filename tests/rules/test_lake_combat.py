"""Lake combat (8.26), the gunboats' doubling (8.27), shore bombardment (8.28)
and a carried leader's fate (9.5)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strategies as S

import cortes_rules
from cortes_rules import IllegalActionError
from positions import GARRISON

# Zone 10 borders 3513-3518 (3516 is a coastal fortress); a gunboat has
# combat 4 at full strength, a regular warrior 3 (two steps each).


def rejected(state, text):
    """Apply an illegal action; return the rules it was refused under. State must not change."""
    pieces = list(state.positions())
    before = S.fingerprint(state, pieces)
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    assert S.fingerprint(state, pieces) == before
    return caught.value.rules


def at(state, phase):
    while state.phase != phase:
        state.apply("end")
    return state


def spanish_lake_combat(game, positions):
    return at(game({**GARRISON, "S1": "1110", **positions}, phase="spanish_lake_movement"),
              "spanish_lake_combat")


def fight(state, roll):
    """Roll the open lake battle; a surplus first asks for `resolve` (8.26)."""
    if not state.is_chance_node():
        state.apply("resolve")
    state.apply(f"roll {roll}")
    return state


def steps(state, uid):
    return state.attribute(uid, "steps")


# ------------------------------------------------------------------ 8.26
@pytest.mark.rule("8.26")
def test_8_26_opposing_units_in_a_zone_must_fight(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10"})
    # No attack to choose and no way to end the phase: the battle's roll is due.
    assert state.is_chance_node()
    assert any(e.rules == ("8.26",) and "lake battle in zone.10" in e.text for e in state.log)


@pytest.mark.rule("8.26")
def test_8_26_lake_combat_is_fought_in_the_aztec_phase_too(game):
    state = game({**GARRISON, "S1": "1110", "S12": "zone.10", "A20": "zone.10"},
                 phase="spanish_lake_movement")
    state.apply("end")      # Spanish lake movement
    state.apply("end")      # Spanish land movement
    fight(state, 9)         # the Spanish lake battle: 1:1, 0/0
    assert state.phase == "spanish_land_combat"
    at(state, "aztec_lake_combat")  # the Aztec battle's roll is due at once
    assert state.is_chance_node()
    assert "lake battle in zone.10" in state.log[-2].text and "8.26" in state.log[-2].rules
    assert state.log[-1].text.startswith("A20 against zone.10 (S12)")


@pytest.mark.rule("8.26")
def test_8_26_the_attacker_may_keep_back_his_surplus_units_only(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "S13": "zone.10", "S14": "zone.10",
                                       "A20": "zone.10"})
    state.apply("hold S12")
    state.apply("hold S13")
    # Two surplus units (three against one): a third may not be kept back.
    assert {str(a) for a in state.legal_actions()} == {"resolve"}
    with pytest.raises(IllegalActionError):
        state.apply("hold S14")
    fight(state, 9)
    odds_line = next(e.text for e in reversed(state.log) if "against zone.10" in e.text)
    assert odds_line.startswith("S14 against zone.10 (A20)")


@pytest.mark.rule("8.26")
def test_8_26_no_surplus_no_choice(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10", "A21": "zone.10"})
    assert state.is_chance_node()
    assert not any("stays out" in e.text for e in state.log)


@pytest.mark.rule("8.26")
def test_8_26_no_terrain_effect_on_the_lake(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10"})
    odds_line = next(e for e in reversed(state.log) if "against zone.10" in e.text)
    assert "shifts" not in odds_line.text and "final column 1:1" in odds_line.text


@pytest.mark.rule("8.26")
def test_8_26_both_sides_may_stay_in_the_zone_after_the_battle(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10"})
    fight(state, 9)  # 0/0 at 1:1
    assert state.positions()["S12"] == state.positions()["A20"] == "zone.10"
    assert state.phase == "spanish_land_combat"


# ------------------------------------------------------------------ 8.27
@pytest.mark.rule("8.27")
def test_8_27_gunboats_double_the_aztec_loss(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10", "A1": "zone.10"})
    fight(state, 8)  # 4 against 3 + 6: 1:3, roll 8 -> 3/0
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10"})
    fight(state, 8)  # 1:1, roll 8 -> 1/1, the Aztec 1 doubled to 2
    assert "raised to 1/2" in state.log[-1].text and state.log[-1].rules == ("8.27",)
    state.apply("lose A20")
    state.apply("lose A20")
    assert state.positions()["A20"] == "dead.aztec"


@pytest.mark.rule("8.27")
def test_8_27_in_defence_too(game):
    state = game({**GARRISON, "S1": "1110", "S12": "zone.10", "A1": "zone.10"},
                 phase="spanish_lake_movement")
    at(state, "spanish_lake_combat")
    fight(state, 9)  # 4 against 6: 1:2, roll 9 -> 2/2; the Aztec 2 doubled
    assert "raised to 2/4" in state.log[-1].text


@pytest.mark.rule("8.27")
def test_8_27_without_gunboats_nothing_is_doubled(game):
    state = spanish_lake_combat(game, {"S29": "zone.10", "A20": "zone.10"})
    fight(state, 8)  # 6 against 3: 2:1, roll 8 -> 0/0
    assert not any("raised" in e.text for e in state.log[-3:])


@pytest.mark.rule("8.27")
def test_8_27_a_doubled_zero_stays_zero_by_default(game):
    state = spanish_lake_combat(game, {"S12": "zone.10", "A20": "zone.10"})
    fight(state, 9)  # 0/0 at 1:1
    assert not any("raised" in e.text for e in state.log[-3:])


@pytest.mark.rule("8.27")
def test_8_27_a_doubled_zero_becomes_one_under_becomes_one():
    book = cortes_rules.load("cortes", readings={"doubled_zero": "becomes_one"})
    state = book.new_game(positions={**GARRISON, "S1": "1110", "S12": "zone.10",
                                     "A20": "zone.10"})
    at(state, "spanish_lake_combat")
    fight(state, 9)  # 0/0 at 1:1 -> 0/1
    assert "raised to 0/1" in state.log[-1].text
    assert {str(a) for a in state.legal_actions()} == {"lose A20"}


# ------------------------------------------------------------------ 8.28
def bombardment(game, positions):
    state = spanish_lake_combat(game, positions)
    assert state.phase == "spanish_lake_combat"
    return state


@pytest.mark.rule("8.28")
def test_8_28_a_unit_alone_in_a_zone_bombards_an_enemy_hex_on_its_shore(game):
    state = bombardment(game, {"S12": "zone.10", "A20": "3517"})
    targets = {str(a) for a in state.legal_actions() if a.kind == "bombard"}
    assert targets == {"bombard S12 3517", "bombard S12 3518"}
    state.apply("bombard S12 3517")
    state.apply("roll 3")  # gunboats hit on 1-3
    assert "a hit" in state.log[-1].text and state.log[-1].rules == ("8.28",)
    state.apply("lose A20")
    assert steps(state, "A20") == 1


@pytest.mark.rule("8.28")
def test_8_28_a_gunboat_misses_on_4(game):
    state = bombardment(game, {"S12": "zone.10", "A20": "3517"})
    state.apply("bombard S12 3517")
    state.apply("roll 4")
    assert "a miss" in state.log[-1].text
    assert steps(state, "A20") == 2


@pytest.mark.rule("8.28")
@pytest.mark.rule("11.7")
@pytest.mark.parametrize(("reading", "roll_made"), [("no_prisoners", False),
                                                    ("knights_take_prisoners", True)])
def test_8_28_bombarding_knights_and_prisoners_both_ways(reading, roll_made):
    # Interpretation bombardment_prisoners: knight A1 in zone 10 hits S1 on 3517.
    book = cortes_rules.load("cortes", options=["11.7"],
                             readings={"bombardment_prisoners": reading})
    state = book.new_game(positions={**GARRISON, "S1": "3517", "A1": "zone.10"})
    at(state, "aztec_lake_combat")
    state.apply("bombard A1 3517")
    state.apply("roll 1")                   # Aztec units hit on a 1
    state.apply("lose S1")
    assert state.is_chance_node() is roll_made
    if roll_made:
        state.apply("roll 2")               # 1-2: prisoners, and a sacrifice marker
        assert state.legal_actions()[0].kind == "sacrifice"
        assert state.evaluate("prisoners_since_interphase") == 1
    else:
        assert state.evaluate("prisoners_since_interphase") == 0


@pytest.mark.rule("8.28")
def test_8_28_no_unit_bombards_twice(game):
    state = bombardment(game, {"S12": "zone.10", "A20": "3517"})
    state.apply("bombard S12 3517")
    state.apply("roll 6")
    assert "8.28" in rejected(state, "bombard S12 3518")


@pytest.mark.rule("8.28")
def test_8_28_four_units_at_most_fire_on_one_hex(game):
    boats = {f"S{n}": "zone.10" for n in range(12, 17)}
    state = bombardment(game, {**boats, "A1": "3517"})
    for n in range(12, 16):
        state.apply(f"bombard S{n} 3517")
        state.apply("roll 6")
    assert "8.28" in rejected(state, "bombard S16 3517")
    state.apply("bombard S16 3518")  # another hex is still open to it


@pytest.mark.rule("8.28")
def test_8_28_units_that_fought_a_lake_battle_do_not_bombard_but_kept_ones_do(game):
    state = bombardment(game, {"S12": "zone.10", "S13": "zone.10", "A20": "zone.10",
                               "A1": "3517"})
    state.apply("hold S13")
    fight(state, 9)  # 0/0
    bombarders = {a.args[0] for a in state.legal_actions() if a.kind == "bombard"}
    assert bombarders == {"S13"}
    assert "8.28" in rejected(state, "bombard S12 3517")


@pytest.mark.rule("8.28")
def test_8_28_only_gunboats_fire_on_coastal_fortresses_adding_one(game):
    state = bombardment(game, {"S12": "zone.10", "S29": "zone.10", "A20": "3516"})
    assert "8.28" in rejected(state, "bombard S29 3516")
    state.apply("bombard S12 3516")
    state.apply("roll 3")  # 3 + 1 = 4: a miss against a fortress
    assert "a miss" in state.log[-1].text and "+ 1" in state.log[-1].text


@pytest.mark.rule("8.28")
def test_8_28_aztecs_and_allies_hit_on_a_one_only(game):
    state = game({**GARRISON, "S1": "3517", "A20": "zone.10"})
    at(state, "aztec_lake_combat")
    state.apply("bombard A20 3517")
    state.apply("roll 2")
    assert "a miss" in state.log[-1].text
    state = game({**GARRISON, "S1": "3517", "A20": "zone.10"})
    at(state, "aztec_lake_combat")
    state.apply("bombard A20 3517")
    state.apply("roll 1")
    assert "a hit" in state.log[-1].text
    state.apply("lose S1")
    assert steps(state, "S1") == 3


@pytest.mark.rule("8.28")
def test_8_28_hexes_off_the_shore_are_never_bombarded(game):
    # Zone 1 borders 1200-1205 and others; 1107 is inland.
    state = game({**GARRISON, "S1": "1110", "S12": "zone.1", "A20": "1107"},
                 phase="spanish_lake_movement")
    state.apply("end")  # lake movement
    state.apply("end")  # land movement
    assert state.phase == "spanish_land_combat"  # nothing to bombard: the phase is skipped


# ------------------------------------------------------------------ 9.5
@pytest.mark.rule("9.5")
def test_9_5_a_carried_leader_shares_his_carriers_fate(game):
    state = spanish_lake_combat(game, {"Cortes": "zone.10", "S12": "zone.10",
                                       "A1": "zone.10", "A2": "zone.10"})
    fight(state, 4)  # 4 against 12: 1:3, shifted to 1:2 by Cortes (9.3): 2/1, doubled 2/2
    state.apply("lose A1")
    state.apply("lose A1")
    state.apply("lose S12")
    state.apply("lose S12")
    assert state.positions()["Cortes"] == "gone.spanish"
    assert any("9.5" in e.rules and "Cortes" in e.text for e in state.log[-3:])


# ------------------------------------------------------------------ properties
@pytest.mark.rule("8.26")
@pytest.mark.rule("8.28")
@settings(max_examples=25)
@given(st.lists(st.integers(min_value=0, max_value=10_000), min_size=1, max_size=30))
def test_8_26_after_the_lake_combat_phase_no_unit_fought_or_fired_twice(book, picks):
    state = book.new_game(seed=11, positions={
        **GARRISON, "S1": "1110", "S12": "zone.10", "S13": "zone.10", "S14": "zone.14",
        "A20": "zone.10", "A1": "3517", "A21": "zone.14", "A22": "3515"})
    at(state, "spanish_lake_combat")
    fired = []
    for pick in picks:
        if state.phase != "spanish_lake_combat":
            break
        if state.is_chance_node():
            state.apply_chance()
            continue
        legal = state.legal_actions()
        action = legal[pick % len(legal)]
        if action.kind == "bombard":
            assert action.args[0] not in fired
            assert state.positions()[action.args[0]].startswith("zone.")
            fired.append(action.args[0])
        state.apply(action)
    assert len(fired) == len(set(fired))


@pytest.mark.rule("8.28")
def test_8_28_four_per_hex_from_all_zones_or_from_each_zone(book):
    # 3518 borders zones 10 and 14: four boats in zone 10, one in zone 14.
    boats = {**{f"S{n}": "zone.10" for n in range(12, 16)}, "S16": "zone.14"}
    positions = {"S1": "1110", "A53": "3518", **boats}
    state = at(book.new_game(positions=positions), "spanish_lake_combat")
    for n in range(12, 16):
        state.apply(f"bombard S{n} 3518")
        state.apply("roll 6")
    assert "8.28" in rejected(state, "bombard S16 3518")  # four_in_all, the default
    per_zone = cortes_rules.load("cortes", readings={"bombardment_limit": "four_per_zone"})
    state = at(per_zone.new_game(positions=positions), "spanish_lake_combat")
    for n in range(12, 16):
        state.apply(f"bombard S{n} 3518")
        state.apply("roll 6")
    state.apply("bombard S16 3518")  # a fifth unit, from another zone
    assert state.is_chance_node()


@pytest.mark.rule("9.4")
@pytest.mark.parametrize("reading", ["capture_rolls", "battles_only"])
def test_9_4_a_leader_in_a_bombarded_hex_rolls_for_capture_or_not(reading):
    # Cuauhtemoc stacked with A53 (two steps) on 3518, two gunboats in zone 10.
    book = cortes_rules.load("cortes", readings={"bombardment_capture": reading})
    positions = {**GARRISON, "S1": "1110", "Cuauhtemoc": "3518", "S12": "zone.10",
                 "S13": "zone.10"}
    state = at(book.new_game(positions=positions), "spanish_lake_combat")
    for boat, shot, capture in (("S12", 1, 5), ("S13", 2, 7)):
        state.apply(f"bombard {boat} 3518")
        state.apply(f"roll {shot}")
        state.apply("lose A53")
        if reading == "battles_only":
            assert not state.is_chance_node()
            continue
        # A step lost with A53 surviving: taken on a 12; A53 gone: taken on a 7.
        assert state.is_chance_node()
        state.apply(f"roll {capture}")
        assert state.log[-1].rules == ("9.4",)
    if reading == "capture_rolls":
        assert any(e.text == "Cuauhtemoc survives the losses of his stack: 5 rolled"
                   for e in state.log)
        assert state.log[-1].text == "Cuauhtemoc is captured or killed: 7 rolled"
        assert state.positions()["Cuauhtemoc"] == "gone.aztec"
    else:   # alone on 3518, for any Spanish unit that enters to take
        assert state.positions()["Cuauhtemoc"] == "3518"
        assert "A53" not in {u for u, p in state.positions().items() if p == "3518"}
