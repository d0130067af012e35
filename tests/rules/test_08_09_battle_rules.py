"""Battle rules stated in this session: the order of attacks (8.6), stacks
splitting their attacks (8.7), step losses and the 0 result (8.20, 8.22), the
veterans' cannons (8.24) and causeway frontage (8.25), and the leaders'
column shifts (9.1-9.3). Also 7.18 and 7.21: no move leaves the map or
enters a lake zone by land."""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules import IllegalActionError, NotationError
from positions import GARRISON


@pytest.fixture(scope="module")
def veteran() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes", options=["8.24", "8.25"])


def at(book, positions, phase="spanish_land_combat"):
    state = book.new_game(positions={**GARRISON, **positions})
    while state.phase != phase:
        state.apply("end")
    return state


def run(state, *actions):
    for action in actions:
        state.apply(action)
    return state


def rules_of(state, action):
    return [rule for rule, _ in state.why_illegal(action)]


# ------------------------------------------------------------------ 8.6, 8.7
@pytest.mark.rule("8.6")
def test_8_6_one_battle_is_finished_before_the_next_begins(book):
    state = at(book, {"S1": "1110", "S2": "1112", "A1": "1111", "A2": "1113"})
    run(state, "attack 1113", "join S2")
    # While the battle for 1113 is open, no other battle may be opened.
    assert "attack 1111" not in {str(a) for a in state.legal_actions()}
    run(state, "resolve", "roll 9")  # 1:1, 0/0
    # Any number of attacks, in any order: the other hex is attacked next.
    assert "attack 1111" in {str(a) for a in state.legal_actions()}
    run(state, "attack 1111", "join S1", "resolve", "roll 9")
    assert state.phase == "spanish_land_combat"


@pytest.mark.rule("8.7")
def test_8_7_units_of_one_stack_may_attack_different_hexes(book):
    # S1 and S2 share 1111, between A1 in 1110 and A2 in 1112.
    state = at(book, {"S1": "1111", "S2": "1111", "A1": "1110", "A2": "1112"})
    run(state, "attack 1110", "join S1", "resolve", "roll 9")
    assert "join S1" not in {str(a) for a in state.legal_actions()}  # 8.5 still holds
    run(state, "attack 1112", "join S2")
    assert "resolve" in {str(a) for a in state.legal_actions()}


# ------------------------------------------------------------------ 8.20, 8.22
@pytest.mark.rule("8.22")
def test_8_22_a_zero_costs_no_step(book):
    state = at(book, {"S1": "1110", "A1": "1111"})
    run(state, "attack 1111", "join S1", "resolve", "roll 9")  # 1:1 gives 0/0
    assert state.attribute("S1", "steps") == 4 and state.attribute("A1", "steps") == 4
    assert not any(str(a).startswith("lose") for a in state.legal_actions())


@pytest.mark.rule("8.20")
def test_8_20_each_point_of_a_result_is_one_step(book):
    state = at(book, {"S1": "1110", "A1": "1111"})
    run(state, "attack 1111", "join S1", "resolve", "roll 11")  # 1:1 gives 1/2
    run(state, "lose A1", "lose A1", "lose S1")
    assert state.attribute("A1", "steps") == 2 and state.attribute("S1", "steps") == 3


# ------------------------------------------------------------------ 8.24
@pytest.mark.rule("8.24")
@pytest.mark.parametrize("side", ["attack", "defence"])
def test_8_24_a_cannon_raises_the_aztec_loss_by_one(veteran, side):
    if side == "attack":
        state = at(veteran, {"S1": "1110", "S25": "1110", "S26": "1110", "A1": "1111"})
        run(state, "attack 1111", "join S1", "join S25", "join S26", "resolve", "roll 9")
        loser_unit = "A1"
    else:
        state = at(veteran, {"S1": "1110", "S25": "1110", "S26": "1110", "A1": "1111"},
                   phase="aztec_land_combat")
        run(state, "attack 1110", "join A1", "resolve", "roll 6")  # 1:2 gives 0/0
        loser_unit = "A1"
    # A 0/0 result, and the Aztec side owes one step: never two, for two cannons.
    assert "8.24" in state.log[-1].rules
    assert [str(a) for a in state.legal_actions()] == [f"lose {loser_unit}"]
    state.apply(f"lose {loser_unit}")
    assert state.attribute(loser_unit, "steps") == 3
    assert not any(str(a).startswith("lose") for a in state.legal_actions())


@pytest.mark.rule("8.24")
def test_8_24_off_for_beginners_and_without_a_cannon(book, veteran):
    beginner = at(book, {"S1": "1110", "S25": "1110", "A1": "1111"})
    run(beginner, "attack 1111", "join S1", "join S25", "resolve", "roll 9")
    no_cannon = at(veteran, {"S1": "1110", "A1": "1111"})
    run(no_cannon, "attack 1111", "join S1", "resolve", "roll 9")
    for state in (beginner, no_cannon):
        assert state.attribute("A1", "steps") == 4
        assert not any(str(a).startswith("lose") for a in state.legal_actions())


# ------------------------------------------------------------------ 8.25
@pytest.mark.rule("8.25")
def test_8_25_one_spanish_unit_across_a_causeway_hexside(book, veteran):
    # 2910 and 3011 are causeway hexes joined by the northern causeway.
    positions = {"S1": "2910", "S2": "2910", "S25": "2910", "A1": "3011"}
    state = run(at(veteran, positions), "attack 3011", "join S1")
    assert rules_of(state, "join S2") == ["8.25"]
    with pytest.raises(IllegalActionError) as caught:
        state.apply("join S2")
    assert caught.value.rules == ("8.25",)
    assert rules_of(state, "join S25") == []  # infantry may bring its cannon
    state = run(at(book, positions), "attack 3011", "join S1")
    assert rules_of(state, "join S2") == []  # beginners: no frontage limit


@pytest.mark.rule("8.25")
def test_8_25_lake_capable_allies_and_other_hexsides_are_free(veteran):
    # S29 is a lake-capable elite band: the limit does not bind it.
    state = run(at(veteran, {"S29": "2910", "S30": "2910", "A1": "3011"}),
                "attack 3011", "join S30")
    assert rules_of(state, "join S29") == []
    # On dry land (1110 and 1111 are clear hexes) two units attack together.
    state = run(at(veteran, {"S1": "1110", "S2": "1110", "A1": "1111"}),
                "attack 1111", "join S1")
    assert rules_of(state, "join S2") == []


# ------------------------------------------------------------------ 9.1-9.3
def final_column(state):
    return state.log[-1].text.split("final column ")[1].split(" ")[0]


@pytest.mark.rule("9.1", "9.3")
def test_9_3_cortes_attacking_with_his_stack_shifts_one_right(book):
    with_him = run(at(book, {"S1": "1110", "Cortes": "1110", "A1": "1111"}),
                   "attack 1111", "join S1", "join Cortes", "resolve")
    assert final_column(with_him) == "2:1" and "9.3" in with_him.log[-1].rules
    # Cortés in the stack but not in the attack lends nothing (9.1).
    without = run(at(book, {"S1": "1110", "Cortes": "1110", "A1": "1111"}),
                  "attack 1111", "join S1", "resolve")
    assert final_column(without) == "1:1"


@pytest.mark.rule("9.3")
def test_9_3_cortes_defending_shifts_one_left(book):
    state = run(at(book, {"S1": "1111", "Cortes": "1111", "A1": "1110"},
                   phase="aztec_land_combat"), "attack 1111", "join A1", "resolve")
    assert final_column(state) == "1:3" and "9.3" in state.log[-1].rules


@pytest.mark.rule("9.2")
def test_9_2_cuauhtemoc_in_an_aztec_attack_shifts_two_right(book):
    state = run(at(book, {"S1": "1110", "A1": "1111", "Cuauhtemoc": "1111"},
                   phase="aztec_land_combat"),
                "attack 1110", "join A1", "join Cuauhtemoc", "resolve")
    assert final_column(state) == "2:1" and "9.2" in state.log[-1].rules
    # He gives no help in defence.
    state = run(at(book, {"S1": "1110", "A1": "1111", "Cuauhtemoc": "1111"}),
                "attack 1111", "join S1", "resolve")
    assert final_column(state) == "1:1" and "9.2" not in state.log[-1].rules


@pytest.mark.rule("8.4")
@pytest.mark.rule("8.11")
def test_8_4_leaders_and_cannons_join_only_beside_a_unit_that_fights(book):
    # Interpretation stepless_attackers: 1110 and 1112 are opposite each other
    # around 1111, so Cortes or a cannon joining from 1112 would make the
    # attack concentric; alone there, neither may join.
    for piece in ("Cortes", "S25"):
        state = run(at(book, {"S1": "1110", piece: "1112", "A11": "1111"}),
                    "attack 1111", "join S1")
        assert rules_of(state, f"join {piece}") == ["8.4"]
    # Beside a unit of its hex that attacks (a cannon: infantry), it may.
    state = run(at(book, {"S1": "1110", "S2": "1112", "S25": "1112", "A11": "1111"}),
                "attack 1111", "join S1")
    assert rules_of(state, "join S25") == ["8.4"]        # S2 has not joined yet
    run(state, "join S2", "join S25")
    assert "S25 joins" in state.log[-1].text
    # A leader or cannon alone next to an enemy opens no battle.
    state = at(book, {"Cortes": "1110", "S25": "1112", "A11": "1111", "S1": "1114"})
    assert "attack 1111" not in [str(a) for a in state.legal_actions()]


@pytest.mark.rule("8.4")
@pytest.mark.rule("8.11")
def test_8_4_the_other_reading_lets_them_join_from_any_hex(book):
    free = cortes_rules.load("cortes", readings={"stepless_attackers": "from_any_hex"})
    state = run(at(free, {"S1": "1110", "Cortes": "1112", "A11": "1111"}),
                "attack 1111", "join S1", "join Cortes", "resolve")
    assert "8.11" in state.log[-1].rules      # 1110 and 1112: a concentric assault


# ------------------------------------------------------------------ 7.18, 7.21
@pytest.mark.rule("7.18")
def test_7_18_no_move_leaves_the_map(book):
    # 0800 is a corner hex: every move offered stays on a hex of the map.
    state = at(book, {"S1": "0800"}, phase="spanish_land_movement")
    moves = [a for a in state.legal_actions() if a.kind == "move"]
    assert moves and all(a.args[1] in book.hex_ids for a in moves)
    with pytest.raises(NotationError):
        state.apply("move S1 0700")


@pytest.mark.rule("7.21")
def test_7_21_land_movement_never_enters_a_lake_zone(book):
    state = at(book, {"S1": "2910"}, phase="spanish_land_movement")
    assert all(not a.args[1].startswith("zone.") for a in state.legal_actions()
               if a.kind == "move")
    with pytest.raises(NotationError):
        state.apply("move S1 zone.5")  # a move names a hex; a zone is not one
    assert state.place_of("S1") == "2910"
