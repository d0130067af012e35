"""Section 8: land combat (8.1-8.23), and the terrain chart's combat column (13.1)."""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest
import strategies as S

from cortes_rules import Action, IllegalActionError
from cortes_rules.dsl import ir
from positions import GARRISON


def refused(state, text):
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    return caught.value.rules


def shifts(state):
    """The (rule, columns) shifts of the open battle."""
    return S.odds_of(state).shifts


def final_line(state):
    return S.odds_entry(state)


def take_losses(state, side):
    """Let ``side`` pay its owed steps, always with the first legal loss."""
    while state.current_player == side and S.kinds(state) == {"lose"}:
        state.apply(state.legal_actions()[0])


def roll_line(state):
    """The log line of the latest dice roll and its result."""
    return next(e for e in reversed(state.log) if " rolls " in e.text)


def steps(state, unit):
    return state.attribute(unit, "steps")


def odds(book, attack, defense, shift=0):
    """The raw odds and final column of a what-if battle, as the rulebook's clauses give them."""
    return book.evaluate(f"odds_what_if({shift})", attack=attack, defense=defense)


def around(book, hex_id):
    """The neighbours of a hex by direction (0 N, 1 NE, ... 5 NW), as the rules read them."""
    return {book.evaluate("direction(a, b)", a=hex_id, b=str(h)): str(h)
            for h in book.evaluate("neighbours(h)", h=hex_id)}


# ------------------------------------------------------------------ 8.1
@pytest.mark.rule("8.1")
def test_8_1_cannot_attack_an_empty_hex(game):
    state = game({"S1": "1110", "A1": "1112"}, phase="spanish_land_combat")
    assert "8.1" in refused(state, "attack 1111")
    assert Action("attack", ("1111",)) not in state.legal_actions()


@pytest.mark.rule("8.1")
def test_8_1_cannot_attack_a_friendly_hex(game):
    state = game({"S1": "1110", "S2": "1111"}, phase="spanish_land_combat")
    assert "8.1" in refused(state, "attack 1111")


@pytest.mark.rule("8.1")
def test_8_1_attacking_is_voluntary(game):
    state = game({**GARRISON, "S1": "1110", "A1": "1111"}, phase="spanish_land_combat")
    assert Action("attack", ("1111",)) in state.legal_actions()
    state.apply("end")
    assert state.phase == "aztec_lake_movement"  # the garrison could take to the lake
    assert steps(state, "A1") == 4


@pytest.mark.rule("8.1")
def test_8_1_combat_only_in_the_combat_phase_and_between_adjacent_units(game):
    state = game({"S1": "1110", "A1": "1111", "A2": "1113"})
    assert state.phase == "spanish_land_movement"
    refused(state, "attack 1111")
    state = game({"S1": "1110", "A2": "1113"}, phase="spanish_land_combat")
    refused(state, "attack 1113")  # nobody next to it may attack it


@pytest.mark.rule("8.1")
def test_8_1_aztecs_attack_in_their_own_combat_phase(game, battle):
    state = game({**GARRISON, "S1": "1110", "A1": "1111"}, phase="aztec_land_combat")
    battle(state, "1110", ["A1"])
    report = S.odds_of(state)
    assert (report.attack, report.defense) == (6, 7)


# ------------------------------------------------------------------ 8.3
@pytest.mark.rule("8.3")
def test_8_3_all_defenders_defend_together(game, battle):
    state = game({"S1": "1110", "S2": "1110", "A1": "1111", "A11": "1111"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S2"])
    report = S.odds_of(state)
    assert (report.attack, report.defense) == (14, 9)
    assert "8.3" in report.rules


# ------------------------------------------------------------------ 8.4 / 8.5
@pytest.mark.rule("8.4")
def test_8_4_only_units_next_to_the_target_join(game):
    state = game({"S1": "1110", "S2": "1112", "A1": "1111"}, phase="spanish_land_combat")
    state.apply("attack 1111")
    state.apply("join S1")
    state.apply("join S2")  # 1112 touches 1111 too
    state = game({"S1": "1110", "S3": "1113", "A1": "1111"}, phase="spanish_land_combat")
    state.apply("attack 1111")
    assert refused(state, "join S3") == ("8.4",)


@pytest.mark.rule("8.4")
def test_8_4_attackers_may_come_from_several_hexes(book, game, battle):
    hexes = [around(book, "1110")[d] for d in range(6)]
    units = [f"S{i}" for i in range(1, 7)]
    state = game(dict(zip(units, hexes, strict=True)) | {"A1": "1110"},
                 phase="spanish_land_combat")
    battle(state, "1110", units)
    assert S.odds_of(state).attack == 42


@pytest.mark.rule("8.5")
def test_8_5_no_hex_is_attacked_twice(game, battle, resolve):
    state = game({"S1": "1110", "S2": "1112", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 7 vs 6 is 1:1; 9 there is 0/0
    assert not S.battle_open(state)
    assert "8.5" in refused(state, "attack 1111")


@pytest.mark.rule("8.5")
def test_8_5_no_unit_attacks_twice(game, battle, resolve):
    # S1 touches both 1111 and 1109; S2 touches 1109 only.
    state = game({"S1": "1110", "S2": "1108", "A1": "1111", "A2": "1109"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 7 vs 6 is 1:1; 9 there is 0/0
    assert state.attribute("S1", "attacked")
    state.apply("attack 1109")
    assert refused(state, "join S1") == ("8.5",)
    state.apply("join S2")


@pytest.mark.rule("8.5")
def test_8_5_attack_flags_clear_at_the_next_phase(game, battle, resolve):
    state = game({**GARRISON, "S1": "1110", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)
    while state.phase != "spanish_land_combat" or state.turn != 2:
        state.apply("play_on" if state.phase == "end_of_turn" else "end")  # 4.3
    assert not state.attribute("S1", "attacked")
    assert Action("attack", ("1111",)) in state.legal_actions()


# ------------------------------------------------------------------ 8.9 / 8.10
@pytest.mark.rule("8.9")
def test_8_9_high_odds_round_down_in_battle(game, battle):
    # 7 + 6 = 13 against 6: 2.17 -> 2:1
    state = game({"S1": "1110", "S9": "1110", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S9"])
    report = S.odds_of(state)
    assert report.odds == "2:1" and report.column == "2:1"
    assert "8.9" in report.rules


@pytest.mark.rule("8.10")
def test_8_10_low_odds_round_up_in_battle(game, battle):
    # A11 (3) against S1 + S2 (14): 14 / 3 = 4.67 -> 1:5, off the table -> 1:4
    state = game({**GARRISON, "S1": "1110", "S2": "1110", "A11": "1111"}, phase="aztec_land_combat")
    battle(state, "1110", ["A11"])
    report = S.odds_of(state)
    assert report.odds == "1:5" and report.column == "1:4"
    assert "8.10" in report.rules


@pytest.mark.rule("8.10")
def test_8_10_equal_factors_are_1_to_1(book):
    assert odds(book, 7, 7) == ("1:1", "1:1")
    assert odds(book, 6, 7) == ("1:2", "1:2")


# ------------------------------------------------------------------ 8.11
def _concentric(game, battle, attacker_hexes):
    units = [f"S{i}" for i in range(1, len(attacker_hexes) + 1)]
    state = game(dict(zip(units, attacker_hexes, strict=True)) | {"A1": "1110"},
                 phase="spanish_land_combat")
    battle(state, "1110", units)
    return shifts(state)


@pytest.mark.rule("8.11")
@pytest.mark.parametrize("directions", [(0, 3), (1, 4), (2, 5), (0, 2, 4), (1, 3, 5),
                                        (0, 1, 2, 3), (0, 1, 2, 4, 5)])
def test_8_11_concentric_assault_shifts_one_right(book, game, battle, directions):
    hexes = around(book, "1110")
    assert _concentric(game, battle, [hexes[d] for d in directions]) == (("8.11", 1),)


@pytest.mark.rule("8.11")
@pytest.mark.parametrize("directions", [(0,), (0, 1), (0, 2), (0, 1, 2), (4, 5, 0)])
def test_8_11_no_concentric_assault(book, game, battle, directions):
    hexes = around(book, "1110")
    assert _concentric(game, battle, [hexes[d] for d in directions]) == ()


@pytest.mark.rule("8.11")
def test_8_11_opposite_hexes_are_opposite_on_the_map(book):
    # The directions 8.11 reads: N/S of 1110 are 1109/1111, NE/SW are 1210/1011.
    hexes = around(book, "1110")
    assert hexes[0] == "1109" and hexes[3] == "1111"
    assert hexes[1] == "1210" and hexes[4] == "1011"


# ------------------------------------------------------------------ 8.12-8.15
def _case(rule, target, attacker_hex, expected, name):
    # Each case carries the marker of the rule it checks (13.1 for the 0 rows).
    return pytest.param(rule, target, attacker_hex, expected, id=name,
                        marks=pytest.mark.rule(rule))


TERRAIN_CASES = [
    # rule, target hex, attacker hex, expected shifts
    _case("8.12", "1104", "1105", (("8.12", -1),), "dry-land-city"),
    _case("8.13", "3020", "3021", (("8.13", -1),), "chinampa-aztec"),
    _case("8.14", "1322", "1321", (("8.14", -3),), "major-fortress"),
    _case("8.15", "2514", "2614", (("8.15", -2),), "fortress"),
    _case("8.15", "2810", "2709", (("8.15", -2),), "temple-complex"),
    _case("13.1", "1110", "1111", (), "clear"),
    _case("13.1", "2910", "2909", (), "causeway"),
]


@pytest.mark.parametrize("rule, target, attacker_hex, expected", TERRAIN_CASES)
def test_8_12_to_8_15_terrain_shifts_for_aztec_defenders(game, battle, rule, target,
                                                         attacker_hex, expected):
    state = game({"A11": target, "S1": attacker_hex}, phase="spanish_land_combat")
    battle(state, target, ["S1"])
    assert shifts(state) == expected
    if expected:
        assert rule in S.odds_of(state).rules


@pytest.mark.rule("8.13")
def test_8_13_chinampa_does_not_help_spanish_defenders(game, battle):
    state = game({"S1": "3020", "A1": "3021"}, phase="aztec_land_combat")
    battle(state, "3020", ["A1"])
    assert shifts(state) == ()
    state.apply("resolve")
    line = final_line(state)
    assert line.text.endswith("final column 1:2")  # 6 vs 7, unshifted
    assert "8.13" not in line.rules


@pytest.mark.rule("8.12")
def test_8_12_dry_land_city_helps_spanish_defenders(game, battle):
    state = game({**GARRISON, "S1": "1104", "A1": "1105"}, phase="aztec_land_combat")
    battle(state, "1104", ["A1"])
    assert shifts(state) == (("8.12", -1),)


@pytest.mark.rule("8.15")
def test_8_15_fortress_helps_spanish_defenders(game, battle):
    state = game({**GARRISON, "S1": "2543", "A1": "2542"}, phase="aztec_land_combat")
    battle(state, "2543", ["A1"])
    assert shifts(state) == (("8.15", -2),)


# ------------------------------------------------------------------ 8.16
@pytest.mark.rule("8.16")
def test_8_16_concentric_and_terrain_add_up(game, battle):
    # Chapultepec attacked from north and south: +1 (8.11) and -3 (8.14).
    state = game({"A1": "1322", "S1": "1321", "S2": "1321", "S3": "1323"},
                 phase="spanish_land_combat")
    battle(state, "1322", ["S1", "S2", "S3"])
    report = S.odds_of(state)
    assert report.odds == "3:1"
    assert sorted(report.shifts) == [("8.11", 1), ("8.14", -3)]
    assert report.column == "1:1"
    assert "8.16" in report.rules


# ------------------------------------------------------------------ 8.17
@pytest.mark.rule("8.17")
def test_8_17_shift_before_clamp(book):
    assert odds(book, 12, 1, shift=-3) == ("12:1", "8:1")  # 9:1, then clamped; not 5:1
    assert odds(book, 4, 18, shift=1) == ("1:5", "1:4")    # 1:4 after the shift; not 1:3
    assert odds(book, 100, 1) == ("100:1", "8:1")
    assert odds(book, 1, 100) == ("1:100", "1:4")


@pytest.mark.rule("8.17")
def test_8_17_shift_before_clamp_in_battle_high_end(game, battle):
    # 35 against 1 in Chapultepec: 35:1, three left is 32:1, still beyond 8:1.
    positions = {f"S{i}": "1321" for i in range(1, 6)} | {"A11": "1322"}
    state = game(positions, phase="spanish_land_combat", steps={"A11": 1})
    battle(state, "1322", [f"S{i}" for i in range(1, 6)])
    state.apply("resolve")
    line = final_line(state)
    assert "odds 35:1" in line.text and line.text.endswith("final column 8:1")
    assert "8.17" in line.rules


@pytest.mark.rule("8.17")
def test_8_17_shift_before_clamp_in_battle_low_end(game, battle):
    # Two one-step infantry (2 + 2) from opposite hexes against three knights (18):
    # 1:5, concentric one right is 1:4; clamping first would have given 1:3.
    state = game({"A1": "1110", "A2": "1110", "A3": "1110", "S1": "1109", "S2": "1111"},
                 phase="spanish_land_combat", steps={"S1": 1, "S2": 1})
    battle(state, "1110", ["S1", "S2"])
    report = S.odds_of(state)
    assert report.odds == "1:5" and report.shifts == (("8.11", 1),)
    assert report.column == "1:4"


# ------------------------------------------------------------------ 8.18
@pytest.mark.rule("8.18")
def test_8_18_two_dice_outcomes(game, battle):
    state = game({"S1": "1110", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    state.apply("resolve")
    assert state.is_chance_node() and state.current_player == "chance"
    outcomes = dict((int(a.args[0]), p) for a, p in state.chance_outcomes())
    assert sorted(outcomes) == list(range(2, 13))
    assert outcomes[7] == Fraction(6, 36) and outcomes[2] == outcomes[12] == Fraction(1, 36)
    assert sum(outcomes.values()) == 1
    assert {str(a) for a in state.legal_actions()} == {f"roll {n}" for n in range(2, 13)}
    for bad in ("roll 1", "roll 13", "roll 0"):
        assert state.why_illegal(Action.parse(bad))


@pytest.mark.rule("8.18")
def test_8_18_result_is_read_in_the_final_column(book, game, battle, resolve):
    for roll in range(2, 13):
        state = game({"S1": "1110", "A1": "1111", "A2": "1111"},
                     phase="spanish_land_combat")
        battle(state, "1111", ["S1"])  # 7 vs 12: 1:2
        resolve(state, roll)
        left, right = book.evaluate("cell(crt, r, c)", r=roll, c=(1, 2))
        line = next(e for e in reversed(state.log) if "rolls" in e.text)
        assert f"rolls {roll} at 1:2: result {left}/{right}" in line.text


def _two_dice_column(book, column):
    """The results of one table column under two dice, counted by hand: result -> chance."""
    chances: dict[tuple[int, int], Fraction] = {}
    for first in range(1, 7):
        for second in range(1, 7):
            cell = book.evaluate("cell(crt, r, c)", r=first + second, c=column)
            chances[cell] = chances.get(cell, Fraction(0)) + Fraction(1, 36)
    return chances


@pytest.mark.rule("8.18")
def test_8_18_forecast_of_an_open_battle_is_its_final_column_under_two_dice(
        book, game, battle):
    # Chapultepec from north and south: 21 vs 6 is 3:1, +1 (8.11) -3 (8.14) is 1:1.
    state = game({"A1": "1322", "S1": "1321", "S2": "1321", "S3": "1323"},
                 phase="spanish_land_combat")
    battle(state, "1322", ["S1", "S2", "S3"])
    forecast = state.evaluate("battle_forecast()")
    assert forecast == _two_dice_column(book, (1, 1))
    assert sum(forecast.values()) == 1
    assert forecast == book.evaluate("results_what_if(-2)", attack=21, defense=6)
    assert S.odds_of(state).column == "1:1"


@pytest.mark.rule("8.18")
@pytest.mark.parametrize("attack, defense, shift, column", [
    (26, 7, 0, (3, 1)), (26, 7, -3, (1, 2)), (12, 1, -3, (8, 1)), (4, 18, 1, (1, 4))])
def test_8_18_what_if_results_follow_the_what_if_column(book, attack, defense, shift,
                                                        column):
    forecast = book.evaluate(f"results_what_if({shift})", attack=attack, defense=defense)
    assert forecast == _two_dice_column(book, column)
    assert all(isinstance(p, Fraction) and p > 0 for p in forecast.values())
    assert sum(forecast.values()) == 1
    assert odds(book, attack, defense, shift)[1] == f"{column[0]}:{column[1]}"


# ------------------------------------------------------------------ 8.19 / 8.20
@pytest.mark.rule("8.19")
def test_8_19_left_is_attacker_right_is_defender(game, battle, resolve):
    # 2:1 (7 vs 3), roll 3: 3/2. The defender allocates first.
    state = game({"S1": "1110", "S2": "1109", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 3)
    assert "result 3/2" in roll_line(state).text
    assert state.current_player == "aztec"
    state.apply("lose A11")
    state.apply("lose A11")
    assert state.place_of("A11") == "dead.aztec"
    assert state.current_player == "spanish"
    assert {str(a) for a in state.legal_actions()} == {"lose S1"}  # S2 did not attack
    for _ in range(3):
        state.apply("lose S1")
    assert steps(state, "S1") == 1 and steps(state, "S2") == 4


@pytest.mark.rule("8.20")
def test_8_20_flipping_a_two_step_unit_is_one_point(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 2:1, 9: 0/1
    assert "result 0/1" in roll_line(state).text
    state.apply("lose A11")
    assert steps(state, "A11") == 1 and state.place_of("A11") == "1111"
    assert not S.battle_open(state)


@pytest.mark.rule("8.20")
def test_8_20_eliminating_a_two_step_unit_is_two_points(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 11)  # 2:1, 11: 0/2
    state.apply("lose A11")
    assert state.current_player == "aztec"
    state.apply("lose A11")
    assert state.place_of("A11") == "dead.aztec" and steps(state, "A11") == 0
    assert any(e.text.startswith("A11 loses a step and is eliminated") for e in state.log)


@pytest.mark.rule("8.20")
def test_8_20_losses_beyond_the_steps_in_the_battle_are_void(game, battle, resolve):
    state = game({"S1": "1110", "S2": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S2"])
    resolve(state, 12)  # 14 vs 3: 4:1, 12: 0/5 against two steps
    state.apply("lose A11")
    state.apply("lose A11")
    assert S.battle_open(state) and S.kinds(state) == {"advance"}


# ------------------------------------------------------------------ 8.21
@pytest.mark.rule("8.21")
def test_8_21_no_elimination_while_another_unit_has_steps_to_spare(game, battle, resolve):
    # A1 (4 steps, 6) and A11 (2 steps, 3): 9. S1 + S2 (14) is 1:1; 7 there is 2/2.
    state = game({"A1": "1111", "A11": "1111", "S1": "1110", "S2": "1110"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S2"])
    resolve(state, 7)
    assert "result 2/2" in roll_line(state).text
    state.apply("lose A11")  # flipping A11 is allowed
    assert refused(state, "lose A11") == ("8.21",)  # eliminating it is not, A1 has 4
    state.apply("lose A1")
    assert steps(state, "A11") == 1 and steps(state, "A1") == 3


# ------------------------------------------------------------------ 8.22
@pytest.mark.rule("8.22")
def test_8_22_zero_result_costs_no_step(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 8)  # 2:1, 8: 0/0
    assert "result 0/0" in roll_line(state).text
    assert not S.battle_open(state)
    assert state.current_player == "spanish"
    assert not any(a.kind == "lose" for a in state.legal_actions())
    assert steps(state, "S1") == 4 and steps(state, "A11") == 2


@pytest.mark.rule("8.22")
def test_8_22_zero_on_one_side_only(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 0/1: the attacker owes nothing
    state.apply("lose A11")
    assert not S.battle_open(state) and steps(state, "S1") == 4


# ------------------------------------------------------------------ 8.23
def _emptied(game, battle, resolve, positions, attackers):
    state = game(positions | {"A11": "1111"}, phase="spanish_land_combat", steps={"A11": 1})
    battle(state, "1111", attackers)
    resolve(state, 12)  # high odds against one step: the hex is emptied
    take_losses(state, "aztec")
    take_losses(state, "spanish")
    assert state.place_of("A11") == "dead.aztec"
    return state


@pytest.mark.rule("8.23")
def test_8_23_advance_is_mandatory_when_the_hex_is_emptied(game, battle, resolve):
    state = _emptied(game, battle, resolve, {"S1": "1110", "S2": "1110"}, ["S1", "S2"])
    assert state.current_player == "spanish"
    assert {str(a) for a in state.legal_actions()} == {"advance S1", "advance S2"}
    refused(state, "stop")
    refused(state, "end")
    refused(state, "attack 1112")  # before the next battle
    state.apply("advance S2")
    assert state.place_of("S2") == "1111" and state.attribute("S2", "spent") == 0
    assert Action("stop") in state.legal_actions()
    state.apply("advance S1")  # more may follow if stacking allows
    assert S.battle_open(state)
    state.apply("stop")
    assert not S.battle_open(state)
    assert set(state.pieces_at("1111")) == {"S1", "S2"}


@pytest.mark.rule("8.23")
def test_8_23_refusing_to_stop_before_advancing_cites_8_23(game, battle, resolve):
    state = _emptied(game, battle, resolve, {"S1": "1110", "S2": "1110"}, ["S1", "S2"])
    assert refused(state, "stop") == ("8.23",)


@pytest.mark.rule("8.23")
def test_8_23_advance_respects_stacking(game, battle, resolve):
    state = _emptied(game, battle, resolve, {"S1": "1110", "S29": "1112"}, ["S1", "S29"])
    state.apply("advance S1")
    assert refused(state, "advance S29") == ("8.23",)  # Europeans and allies (6.2)
    assert state.legal_actions() == [Action("stop")]
    state.apply("stop")


@pytest.mark.rule("8.23")
def test_8_23_no_advance_while_defenders_remain(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 0/1
    state.apply("lose A11")
    assert not S.battle_open(state)
    assert not any(a.kind == "advance" for a in state.legal_actions())


@pytest.mark.rule("8.23")
def test_8_23_defenders_never_advance(game, battle, resolve):
    # The attacker is wiped out: nobody advances into the attacker's hex.
    state = game({"S1": "1110", "A1": "1111", "A2": "1111", "A3": "1111"},
                 phase="spanish_land_combat", steps={"S1": 1})
    battle(state, "1111", ["S1"])
    resolve(state, 2)  # 2 vs 18: 1:9 -> 1:4; 2 there is 8/0
    state.apply("lose S1")
    assert not S.battle_open(state) and state.place_of("S1") == "dead.spanish"
    assert state.pieces_at("1110") == []


# ------------------------------------------------------------------ 13.1 vs 8.12-8.15
def _terrains_tested(expr, names):
    """Terrain names ``t`` in sub-expressions ``target has t``."""
    found = set()
    if isinstance(expr, ir.Is) and expr.op == "has" and isinstance(expr.subject, ir.Name) \
            and expr.subject.id == "target" and expr.name in names:
        found.add(expr.name)
    if attrs.has(type(expr)):
        for field in attrs.fields(type(expr)):
            value = getattr(expr, field.name)
            for item in value if isinstance(value, tuple) else (value,):
                if attrs.has(type(item)):
                    found |= _terrains_tested(item, names)
    return found


def _combat_column(book):
    """Terrain -> the combat column of the terrain effects chart, read by the rules language."""
    return {t.name: book.evaluate("terrain_effects[t].combat", t=t.name)
            for t in book.program.of(ir.TerrainDecl)}


def _constant(expr):
    """The value of a shift contribution's constant expression, as a form writes it."""
    if isinstance(expr, ir.IntLit):
        return expr.value
    if isinstance(expr, ir.Neg):
        return -_constant(expr.operand)
    if isinstance(expr, ir.StrLit):
        return expr.value
    if isinstance(expr, ir.Compare) and expr.op == "==":
        return _constant(expr.left) == _constant(expr.right)
    if isinstance(expr, ir.Cond):
        return _constant(expr.then) if _constant(expr.test) else _constant(expr.otherwise)
    raise AssertionError(f"not a constant shift: {expr!r}")


@pytest.mark.rule("13.1")
def test_13_1_combat_column_agrees_with_shift_clauses(book):
    combat = _combat_column(book)
    assert combat["major_fortress"] == -3  # the chart is read at all
    by_terrain: dict[str, int] = {}
    clauses = [c for c in book.program.of(ir.Contribute) if c.hook == "column_shift"]
    assert clauses
    for clause in clauses:
        for terrain in _terrains_tested(clause.when, set(combat)):
            assert terrain not in by_terrain, f"two shift clauses name {terrain}"
            by_terrain[terrain] = _constant(clause.value)
            assert clause.rule in {"8.12", "8.13", "8.14", "8.15"}, clause.rule
    assert set(by_terrain) == {"dry_land_city", "chinampa_city", "major_fortress",
                               "fortress", "temple_complex"}
    for terrain, value in combat.items():
        if value == "prohibited":
            assert terrain not in by_terrain
            continue
        assert by_terrain.get(terrain, 0) == value, terrain


@pytest.mark.rule("13.1")
def test_13_1_combat_column_agrees_with_shifts_in_play(book):
    """Each chart row's combat value is the net terrain shift of a battle there."""
    terrain_of = {str(h): terrain
                  for h, terrain in book.evaluate("list((h, h.terrain) for h in hexes)")}
    for terrain, value in _combat_column(book).items():
        if value == "prohibited":
            continue
        wanted = frozenset({terrain}) if terrain in {"clear", "causeway"} \
            else frozenset({"clear", terrain})
        target = next(h for h in book.hex_ids if terrain_of[h] == wanted)
        source = next(str(h) for h in book.evaluate("neighbours(h)", h=target)
                      if "quagmire" not in terrain_of[str(h)])
        state = book.new_game(positions={"A11": target, "S1": source})
        while state.phase != "spanish_land_combat":
            state.apply("end")
        state.apply("attack " + target)
        state.apply("join S1")
        net = sum(columns for _, columns in S.odds_of(state).shifts)
        assert net == value, (terrain, target, S.odds_of(state).shifts)


@pytest.mark.rule("13.1")
def test_13_1_chinampa_shift_is_for_aztec_defenders_only(book):
    assert _combat_column(book)["chinampa_city"] == -1
    state = book.new_game(positions={"S1": "3020", "A1": "3021"})
    while state.phase != "aztec_land_combat":
        state.apply("end")
    state.apply("attack 3020")
    state.apply("join A1")
    assert S.odds_of(state).shifts == ()
