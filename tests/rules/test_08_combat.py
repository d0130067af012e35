"""Section 8: land combat (8.1-8.23), and the terrain chart's combat column (13.1)."""

from __future__ import annotations

from fractions import Fraction

import attrs
import pytest

from cortes_rules import Action, IllegalActionError
from cortes_rules.dsl import ir
from cortes_rules.engine import hexgrid


def refused(state, text):
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    return caught.value.rules


def shifts(state):
    """The (rule, columns) shifts of the open battle."""
    return state.odds(state.battle).shifts


def final_line(state):
    return next(e for e in reversed(state.log) if "final column" in e.text)


def take_losses(state, side):
    """Let ``side`` pay its owed steps, always with the first legal loss."""
    while state.current_player == side and state.battle is not None \
            and state.battle.stage == "lose":
        state.apply(state.legal_actions()[0])


def roll_line(state):
    """The log line of the latest dice roll and its result."""
    return next(e for e in reversed(state.log) if " rolls " in e.text)


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
    state = game({"S1": "1110", "A1": "1111"}, phase="spanish_land_combat")
    assert Action("attack", ("1111",)) in state.legal_actions()
    state.apply("end")
    assert state.phase == "aztec_land_movement"
    assert state.units["A1"].steps == 4


@pytest.mark.rule("8.1")
def test_8_1_combat_only_in_the_combat_phase_and_between_adjacent_units(game):
    state = game({"S1": "1110", "A1": "1111", "A2": "1113"})
    assert state.phase == "spanish_land_movement"
    refused(state, "attack 1111")
    state = game({"S1": "1110", "A2": "1113"}, phase="spanish_land_combat")
    refused(state, "attack 1113")  # nobody next to it may attack it


@pytest.mark.rule("8.1")
def test_8_1_aztecs_attack_in_their_own_combat_phase(game, battle):
    state = game({"S1": "1110", "A1": "1111"}, phase="aztec_land_combat")
    battle(state, "1110", ["A1"])
    assert state.odds(state.battle).values == {"attack": 6, "defense": 7}


# ------------------------------------------------------------------ 8.3
@pytest.mark.rule("8.3")
def test_8_3_all_defenders_defend_together(game, battle):
    state = game({"S1": "1110", "S2": "1110", "A1": "1111", "A11": "1111"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S2"])
    report = state.odds(state.battle)
    assert report.values == {"attack": 14, "defense": 9}
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
def test_8_4_attackers_may_come_from_several_hexes(game, battle):
    around = list(hexgrid.neighbours("1110"))
    units = [f"S{i}" for i in range(1, 7)]
    state = game(dict(zip(units, around, strict=True)) | {"A1": "1110"},
                 phase="spanish_land_combat")
    battle(state, "1110", units)
    assert state.odds(state.battle).values["attack"] == 42


@pytest.mark.rule("8.5")
def test_8_5_no_hex_is_attacked_twice(game, battle, resolve):
    state = game({"S1": "1110", "S2": "1112", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 7 vs 6 is 1:1; 9 there is 0/0
    assert state.battle is None
    assert "8.5" in refused(state, "attack 1111")


@pytest.mark.rule("8.5")
def test_8_5_no_unit_attacks_twice(game, battle, resolve):
    # S1 touches both 1111 and 1109; S2 touches 1109 only.
    state = game({"S1": "1110", "S2": "1108", "A1": "1111", "A2": "1109"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 7 vs 6 is 1:1; 9 there is 0/0
    assert state.units["S1"].attacked
    state.apply("attack 1109")
    assert refused(state, "join S1") == ("8.5",)
    state.apply("join S2")


@pytest.mark.rule("8.5")
def test_8_5_attack_flags_clear_at_the_next_phase(game, battle, resolve):
    state = game({"S1": "1110", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)
    while state.phase != "spanish_land_combat" or state.turn != 2:
        state.apply("end")
    assert not state.units["S1"].attacked
    assert state.is_legal(Action("attack", ("1111",)))


# ------------------------------------------------------------------ 8.9 / 8.10
@pytest.mark.rule("8.9")
def test_8_9_high_odds_round_down_in_battle(game, battle):
    # 7 + 6 = 13 against 6: 2.17 -> 2:1
    state = game({"S1": "1110", "S9": "1110", "A1": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S9"])
    report = state.odds(state.battle)
    assert report.ratio == (2, 1) and report.column == (2, 1)
    assert "8.9" in report.rules


@pytest.mark.rule("8.10")
def test_8_10_low_odds_round_up_in_battle(game, battle):
    # A11 (3) against S1 + S2 (14): 14 / 3 = 4.67 -> 1:5, off the table -> 1:4
    state = game({"S1": "1110", "S2": "1110", "A11": "1111"}, phase="aztec_land_combat")
    battle(state, "1110", ["A11"])
    report = state.odds(state.battle)
    assert report.ratio == (1, 5) and report.column == (1, 4)
    assert "8.10" in report.rules


@pytest.mark.rule("8.10")
def test_8_10_equal_factors_are_1_to_1(book):
    assert book.odds(7, 7) == ("1:1", "1:1")
    assert book.odds(6, 7) == ("1:2", "1:2")


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
def test_8_11_concentric_assault_shifts_one_right(game, battle, directions):
    around = hexgrid.neighbours("1110")
    assert _concentric(game, battle, [around[d] for d in directions]) == (("8.11", 1),)


@pytest.mark.rule("8.11")
@pytest.mark.parametrize("directions", [(0,), (0, 1), (0, 2), (0, 1, 2), (4, 5, 0)])
def test_8_11_no_concentric_assault(game, battle, directions):
    around = hexgrid.neighbours("1110")
    assert _concentric(game, battle, [around[d] for d in directions]) == ()


@pytest.mark.rule("8.11")
def test_8_11_opposite_hexes_are_opposite_on_the_map():
    # The directions 8.11 reads: N/S of 1110 are 1109/1111, NE/SW are 1210/1011.
    around = hexgrid.neighbours("1110")
    assert around[0] == "1109" and around[3] == "1111"
    assert hexgrid.direction("1110", "1210") == 1 and hexgrid.direction("1110", "1011") == 4


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
        assert rule in state.odds(state.battle).rules


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
    state = game({"S1": "1104", "A1": "1105"}, phase="aztec_land_combat")
    battle(state, "1104", ["A1"])
    assert shifts(state) == (("8.12", -1),)


@pytest.mark.rule("8.15")
def test_8_15_fortress_helps_spanish_defenders(game, battle):
    state = game({"S1": "2543", "A1": "2542"}, phase="aztec_land_combat")
    battle(state, "2543", ["A1"])
    assert shifts(state) == (("8.15", -2),)


# ------------------------------------------------------------------ 8.16
@pytest.mark.rule("8.16")
def test_8_16_concentric_and_terrain_add_up(game, battle):
    # Chapultepec attacked from north and south: +1 (8.11) and -3 (8.14).
    state = game({"A1": "1322", "S1": "1321", "S2": "1321", "S3": "1323"},
                 phase="spanish_land_combat")
    battle(state, "1322", ["S1", "S2", "S3"])
    report = state.odds(state.battle)
    assert report.ratio == (3, 1)
    assert sorted(report.shifts) == [("8.11", 1), ("8.14", -3)]
    assert report.column == (1, 1)
    assert "8.16" in report.rules


# ------------------------------------------------------------------ 8.17
@pytest.mark.rule("8.17")
def test_8_17_shift_before_clamp(book):
    assert book.odds(12, 1, shift=-3) == ("12:1", "8:1")  # 9:1, then clamped; not 5:1
    assert book.odds(4, 18, shift=1) == ("1:5", "1:4")    # 1:4 after the shift; not 1:3
    assert book.odds(100, 1) == ("100:1", "8:1")
    assert book.odds(1, 100) == ("1:100", "1:4")


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
    report = state.odds(state.battle)
    assert report.ratio == (1, 5) and report.shifts == (("8.11", 1),)
    assert report.column == (1, 4)


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
    crt = book._book.tables["crt"]
    for roll in range(2, 13):
        state = game({"S1": "1110", "A1": "1111", "A2": "1111"},
                     phase="spanish_land_combat")
        battle(state, "1111", ["S1"])  # 7 vs 12: 1:2
        resolve(state, roll)
        left, right = crt.cell(roll, (1, 2))
        line = next(e for e in reversed(state.log) if "rolls" in e.text)
        assert f"rolls {roll} at 1:2: result {left}/{right}" in line.text


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
    assert state.units["A11"].hex is None
    assert state.current_player == "spanish"
    assert {str(a) for a in state.legal_actions()} == {"lose S1"}  # S2 did not attack
    for _ in range(3):
        state.apply("lose S1")
    assert state.units["S1"].steps == 1 and state.units["S2"].steps == 4


@pytest.mark.rule("8.20")
def test_8_20_flipping_a_two_step_unit_is_one_point(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 2:1, 9: 0/1
    assert "result 0/1" in roll_line(state).text
    state.apply("lose A11")
    assert state.units["A11"].steps == 1 and state.units["A11"].hex == "1111"
    assert state.battle is None


@pytest.mark.rule("8.20")
def test_8_20_eliminating_a_two_step_unit_is_two_points(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 11)  # 2:1, 11: 0/2
    state.apply("lose A11")
    assert state.current_player == "aztec"
    state.apply("lose A11")
    assert state.units["A11"].hex is None and state.units["A11"].steps == 0
    assert any(e.text.startswith("A11 loses a step and is eliminated") for e in state.log)


@pytest.mark.rule("8.20")
def test_8_20_losses_beyond_the_steps_in_the_battle_are_void(game, battle, resolve):
    state = game({"S1": "1110", "S2": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S2"])
    resolve(state, 12)  # 14 vs 3: 4:1, 12: 0/5 against two steps
    state.apply("lose A11")
    state.apply("lose A11")
    assert state.battle is not None and state.battle.stage == "advance"


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
    assert state.units["A11"].steps == 1 and state.units["A1"].steps == 3


# ------------------------------------------------------------------ 8.22
@pytest.mark.rule("8.22")
def test_8_22_zero_result_costs_no_step(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 8)  # 2:1, 8: 0/0
    assert "result 0/0" in roll_line(state).text
    assert state.battle is None
    assert state.current_player == "spanish"
    assert not any(a.kind == "lose" for a in state.legal_actions())
    assert state.units["S1"].steps == 4 and state.units["A11"].steps == 2


@pytest.mark.rule("8.22")
def test_8_22_zero_on_one_side_only(game, battle, resolve):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 9)  # 0/1: the attacker owes nothing
    state.apply("lose A11")
    assert state.battle is None and state.units["S1"].steps == 4


# ------------------------------------------------------------------ 8.23
def _emptied(game, battle, resolve, positions, attackers):
    state = game(positions | {"A11": "1111"}, phase="spanish_land_combat", steps={"A11": 1})
    battle(state, "1111", attackers)
    resolve(state, 12)  # high odds against one step: the hex is emptied
    take_losses(state, "aztec")
    take_losses(state, "spanish")
    assert state.units["A11"].hex is None
    return state


@pytest.mark.rule("8.23")
def test_8_23_advance_is_mandatory_when_the_hex_is_emptied(game, battle, resolve):
    state = _emptied(game, battle, resolve, {"S1": "1110", "S2": "1110"}, ["S1", "S2"])
    assert state.current_player == "spanish"
    assert {str(a) for a in state.legal_actions()} == {"advance S1", "advance S2"}
    assert refused(state, "stop") == ("8.23",)
    refused(state, "end")
    refused(state, "attack 1112")  # before the next battle
    state.apply("advance S2")
    assert state.units["S2"].hex == "1111" and state.units["S2"].spent == 0
    assert Action("stop") in state.legal_actions()
    state.apply("advance S1")  # more may follow if stacking allows
    assert state.battle is not None
    state.apply("stop")
    assert state.battle is None
    assert set(state.units_in("1111")) == {"S1", "S2"}


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
    assert state.battle is None
    assert not any(a.kind == "advance" for a in state.legal_actions())


@pytest.mark.rule("8.23")
def test_8_23_defenders_never_advance(game, battle, resolve):
    # The attacker is wiped out: nobody advances into the attacker's hex.
    state = game({"S1": "1110", "A1": "1111", "A2": "1111", "A3": "1111"},
                 phase="spanish_land_combat", steps={"S1": 1})
    battle(state, "1111", ["S1"])
    resolve(state, 2)  # 2 vs 18: 1:9 -> 1:4; 2 there is 8/0
    state.apply("lose S1")
    assert state.battle is None and state.units["S1"].hex is None
    assert state.units_in("1110") == []


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
    table = book._book.tables["terrain_effects"]
    column = table.columns.index("combat")
    return {row: cells[column] for row, cells in table.rows.items()}


@pytest.mark.rule("13.1")
def test_13_1_combat_column_agrees_with_shift_clauses(book):
    combat = _combat_column(book)
    assert combat["major_fortress"] == -3  # the chart is read at all
    by_terrain: dict[str, int] = {}
    for clause in book.program.of(ir.Shift):
        for terrain in _terrains_tested(clause.when, set(combat)):
            assert terrain not in by_terrain, f"two shift clauses name {terrain}"
            by_terrain[terrain] = clause.columns
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
    terrain_of = book._book.terrain
    for terrain, value in _combat_column(book).items():
        if value == "prohibited":
            continue
        wanted = frozenset({terrain}) if terrain in {"clear", "causeway"} \
            else frozenset({"clear", terrain})
        target = next(h for h in book.hex_ids if terrain_of(h) == wanted)
        source = next(h for h in book._book.neighbours(target)
                      if "quagmire" not in terrain_of(h))
        state = book.new_game(positions={"A11": target, "S1": source})
        while state.phase != "spanish_land_combat":
            state.apply("end")
        state.apply("attack " + target)
        state.apply("join S1")
        net = sum(columns for _, columns in state.odds(state.battle).shifts)
        assert net == value, (terrain, target, state.odds(state.battle).shifts)


@pytest.mark.rule("13.1")
def test_13_1_chinampa_shift_is_for_aztec_defenders_only(book):
    assert _combat_column(book)["chinampa_city"] == -1
    state = book.new_game(positions={"S1": "3020", "A1": "3021"})
    while state.phase != "aztec_land_combat":
        state.apply("end")
    state.apply("attack 3020")
    state.apply("join A1")
    assert state.odds(state.battle).shifts == ()
