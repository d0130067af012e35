"""Grands Stratèges, section IV: combat, its results, retreats and advances.

The battles of examples X-XXIV, set on the test board (``examples_map.rules``)
with units of the factors the examples give.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable

import pytest
from gs_helpers import fight, last_lines, legal, refusal_rules

from cortes_rules import GameState

GameMaker = Callable[..., GameState]


@pytest.mark.rule("IV.16", rulebook="grands_strateges")
@pytest.mark.rule("IV.14", rulebook="grands_strateges")
def test_example_xiv_eight_against_four_is_two_to_one(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "0602", "B6": "0603"}, combat=True), ["0603"], ["A1"], 6)
    assert "attack 8, defence 4, odds 2:1" in last_lines(state)


@pytest.mark.rule("IV.14", rulebook="grands_strateges")
@pytest.mark.rule("IV.16", rulebook="grands_strateges")
def test_example_xv_one_unit_against_two_is_one_to_one(gs_game: GameMaker) -> None:
    state = gs_game({"A1": "0602", "B17": "0601", "B6": "0701"}, combat=True)
    state.apply("attack 0601")
    state.apply("join A1")
    # Both units control A1's hex: its battle must take in both (IV.7).
    assert "IV.7" in refusal_rules(state, "resolve")
    state.apply("attack 0701")
    state.apply("resolve")
    state.apply("roll 6")
    assert "attack 8, defence 6, odds 1:1" in last_lines(state)


@pytest.mark.rule("IV.10", rulebook="grands_strateges")
def test_example_xvi_a_village_doubles_the_defence(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "1502", "B11": "1503"}, combat=True), ["1503"], ["A1"], 6)
    assert "attack 8, defence 6, odds 1:1" in last_lines(state)


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
@pytest.mark.rule("IV.21", rulebook="grands_strateges")
def test_example_xix_defender_retreats_at_one_to_one_on_a_four(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "0602", "B1": "0603"}, combat=True), ["0603"], ["A1"], 4)
    assert "at 1:1: DR" in last_lines(state)
    assert state.current_player == "b"
    assert "retreat B1 0604" in legal(state)


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
@pytest.mark.rule("IV.10", rulebook="grands_strateges")
def test_example_xix_in_a_forest_the_attacker_retreats_instead(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "0604", "B1": "0605"}, combat=True), ["0605"], ["A1"], 4)
    assert "attack 8, defence 16, odds 1:2" in last_lines(state)
    assert "at 1:2: AR" in last_lines(state)
    assert state.current_player == "a"
    assert any(action.startswith("retreat A1 ") for action in legal(state))


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
def test_example_xx_attacker_eliminated_at_one_to_two_on_a_one(gs_game: GameMaker) -> None:
    state = gs_game({"B3": "0707", "A11": "0706", "A17": "0708"}, combat=True)
    state = fight(state, ["0707"], ["A11", "A17"], 1)
    assert "attack 5, defence 6, odds 1:2" in last_lines(state)
    assert state.place_of("A11") == "eliminated.a"
    assert state.place_of("A17") == "eliminated.a"
    assert state.place_of("B3") == "0707"


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
def test_example_xxi_the_exchange_spares_a_unit_too_weak_alone(gs_game: GameMaker) -> None:
    positions = {"B11": "0707", "A6": "0706", "A17": "0708", "A7": "0807"}
    state = fight(gs_game(positions, combat=True), ["0707"], ["A6", "A17", "A7"], 1)
    assert "attack 10, defence 3, odds 3:1" in last_lines(state)
    assert state.place_of("B11") == "eliminated.b"
    choices = {a for a in legal(state) if a.startswith("lose ")}
    assert choices == {"lose A6", "lose A7"}
    assert "IV.19" in refusal_rules(state, "lose A17")
    state.apply("lose A7")
    assert state.place_of("A6") == "0706" and state.place_of("A17") == "0708"
    # On a 6 only the defender would have gone.
    state = fight(gs_game(positions, combat=True), ["0707"], ["A6", "A17", "A7"], 6)
    assert state.place_of("B11") == "eliminated.b"
    assert all(state.place_of(u) != "eliminated.a" for u in ("A6", "A17", "A7"))


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
def test_example_xxii_two_weak_units_may_pay_the_exchange_together(gs_game: GameMaker) -> None:
    positions = {"B6": "0707", "A3": "0706", "A17": "0708", "A18": "0807", "A4": "0808"}
    state = fight(gs_game(positions, combat=True), ["0707"], ["A3", "A17", "A18", "A4"], 1)
    assert "attack 14, defence 4, odds 3:1" in last_lines(state) or \
        "defence 4, odds 4:1" in last_lines(state)
    assert {a for a in legal(state) if a.startswith("lose ")} == {
        "lose A3", "lose A17", "lose A18", "lose A4"}
    state.apply("lose A17")
    # With A17 gone, only A18 completes a set in which no unit is spare.
    assert {a for a in legal(state) if a.startswith("lose ")} == {"lose A18"}
    state.apply("lose A18")
    assert state.place_of("A3") == "0706" and state.place_of("A4") == "0808"


@pytest.mark.rule("IV.2", rulebook="grands_strateges")
@pytest.mark.rule("III.7", rulebook="grands_strateges")
def test_example_x_a_unit_in_a_village_need_not_attack(gs_game: GameMaker) -> None:
    # Z (A6) in the clear next to B (B6) in the village must attack it...
    state = gs_game({"A6": "1502", "B6": "1503"}, combat=True)
    assert refusal_rules(state, "end_combat") == {"IV.2"}
    # ...but a unit in the village need not attack the enemy next to it.
    state = gs_game({"A6": "1503", "B6": "1502"}, combat=True)
    state.apply("end_combat")
    assert state.phase == "b_movement"


@pytest.mark.rule("IV.3", rulebook="grands_strateges")
def test_example_x_no_battle_across_a_river_without_bridge(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1302", "B6": "1403"}, combat=True)
    state.apply("attack 1403")
    assert "IV.3" in refusal_rules(state, "join A6")


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
def test_example_xi_a_unit_attacks_every_controller_at_once(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0707", "B6": "0706", "B7": "0708"}, combat=True)
    state.apply("attack 0706")
    state.apply("join A6")
    assert "IV.7" in refusal_rules(state, "resolve")
    state.apply("attack 0708")
    assert "resolve" in legal(state)


@pytest.mark.rule("IV.8", rulebook="grands_strateges")
def test_example_xii_units_in_one_zone_attack_together(gs_game: GameMaker) -> None:
    state = gs_game({"B6": "0707", "A6": "0706", "A7": "0708", "A8": "0807"}, combat=True)
    state.apply("attack 0707")
    state.apply("join A6")
    assert "IV.8" in refusal_rules(state, "resolve")
    state.apply("join A7")
    state.apply("join A8")
    assert "resolve" in legal(state)


@pytest.mark.rule("IV.5", rulebook="grands_strateges")
def test_a_unit_attacks_once_per_phase(gs_game: GameMaker) -> None:
    # A1 in the forest (which no enemy controls) may pick its battle.
    state = gs_game({"A1": "0805", "B1": "0804", "B2": "0806"}, combat=True)
    fight(state, ["0804"], ["A1"], 6)     # 8 against 8, a 6: DR
    assert "at 1:1: DR" in last_lines(state)
    state.apply(next(a for a in sorted(legal(state)) if a.startswith("retreat B1 ")))
    state.apply("stop")
    state.apply("attack 0806")
    assert "IV.5" in refusal_rules(state, "join A1")


@pytest.mark.rule("IV.6", rulebook="grands_strateges")
def test_a_unit_is_attacked_once_per_phase(gs_game: GameMaker) -> None:
    state = gs_game({"A1": "0503", "A7": "0606", "B1": "0504"}, combat=True)
    fight(state, ["0504"], ["A1"], 6)     # 8 against 8, a 6: DR
    # Into the forest, which A7 next to it cannot control.
    state.apply("retreat B1 0605")
    state.apply("stop")
    assert "IV.6" in refusal_rules(state, "attack 0605")


@pytest.mark.rule("IV.21", rulebook="grands_strateges")
def test_example_xxiii_no_uncontrolled_hex_to_retreat_into(gs_game: GameMaker) -> None:
    state = gs_game({"B6": "0707", "A1": "0706", "A6": "0808", "A7": "0608"}, combat=True)
    fight(state, ["0707"], ["A1", "A6", "A7"], 4)
    assert "odds 4:1" in last_lines(state) and ": DR" in last_lines(state)
    assert state.place_of("B6") == "eliminated.b"


@pytest.mark.rule("IV.21", rulebook="grands_strateges")
@pytest.mark.rule("III.7", rulebook="grands_strateges")
def test_example_xxiv_retreat_into_the_forest_not_into_a_controlled_hex(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "0603", "B6": "0604"}, combat=True), ["0604"], ["A1"], 6)
    assert "odds 2:1" in last_lines(state) and ": DR" in last_lines(state)
    retreats = {a for a in legal(state) if a.startswith("retreat ")}
    assert retreats == {"retreat B6 0605", "retreat B6 0704", "retreat B6 0504"}
    assert "IV.21" in refusal_rules(state, "retreat B6 0703")


@pytest.mark.rule("IV.23", rulebook="grands_strateges")
@pytest.mark.rule("IV.24", rulebook="grands_strateges")
def test_a_retreat_pushes_a_friend_back_and_the_winner_advances(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "0201", "B6": "0101", "B7": "0102"}, combat=True),
                  ["0101"], ["A1"], 6)
    assert {a for a in legal(state) if a.startswith("retreat ")} == {"retreat B6 0102"}
    state.apply("retreat B6 0102")
    assert {a for a in legal(state) if a.startswith("retreat ")} == {
        "retreat B7 0103", "retreat B7 0203"}
    state.apply("retreat B7 0103")
    assert state.place_of("B6") == "0102" and state.place_of("B7") == "0103"
    assert "advance A1 0101" in legal(state)
    state.apply("advance A1 0101")
    assert state.place_of("A1") == "0101"


@pytest.mark.rule("IV.23", rulebook="grands_strateges")
def test_a_broken_chain_eliminates_the_first_unit(gs_game: GameMaker) -> None:
    positions = {"A1": "0201", "A6": "0204", "B6": "0101", "B7": "0102"}
    state = fight(gs_game(positions, combat=True), ["0101"], ["A1"], 6)
    state.apply("retreat B6 0102")
    # B7 has nowhere to go (A6 controls 0103 and 0203): the chain is undone.
    assert state.place_of("B6") == "eliminated.b"
    assert state.place_of("B7") == "0102"


XVII = {"B11": "0707", "B17": "0709", "A6": "0706", "A11": "0807", "A3": "0708", "A18": "0710"}


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.rule("IV.8", rulebook="grands_strateges")
def test_example_xvii_the_attacker_shares_the_enemies_out_either_way(
        gs_game: GameMaker) -> None:
    # X (B11, 3) and Y (B17, 2); A (A6, 4) and B (A11, 3) next to X, C (A3, 6)
    # next to both, D (A18, 2) next to Y.
    # 1. C and D attack Y at 4:1, then A and B attack X at 2:1 (either order).
    state = gs_game(XVII, combat=True)
    fight(state, ["0709"], ["A3", "A18"], 3)
    assert "attack 8, defence 2, odds 4:1" in last_lines(state)
    while not state.is_chance_node() and "attack 0707" not in legal(state):
        state.apply(sorted(legal(state))[0])
    fight(state, ["0707"], ["A6", "A11"], 3)
    assert "attack 7, defence 3, odds 2:1" in last_lines(state)
    # 2. D attacks Y at 1:1, then A, B and C attack X at 4:1.
    state = gs_game(XVII, combat=True)
    fight(state, ["0709"], ["A18"], 6)
    assert "attack 2, defence 2, odds 1:1" in last_lines(state)
    while "attack 0707" not in legal(state):
        state.apply(sorted(legal(state))[0])
    fight(state, ["0707"], ["A6", "A11", "A3"], 3)
    assert "attack 13, defence 3, odds 4:1" in last_lines(state)


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
def test_example_xviii_c_cannot_join_the_attack_on_x(gs_game: GameMaker) -> None:
    # C is the only unit that can attack Y: it may not spend itself on X.
    positions = {"B11": "0707", "B17": "0709", "A6": "0706", "A11": "0807", "A3": "0708"}
    state = gs_game(positions, combat=True)
    state.apply("attack 0707")
    for unit in ("A6", "A11", "A3"):
        state.apply(f"join {unit}")
    assert "IV.7" in refusal_rules(state, "resolve")


# Example XVIII on the test board: X (B11, 3) at 0706, Y (B17, 2) at 0606 and
# Z (B3, 6) at 0704; A (A6, 4) and B (A11, 3) next to X only, C (A3, 6) next
# to all three, E (A7, 4) in the forest 0805 next to Z only (Z cannot control
# it), D (A18, 2) next to nobody. The hexes are ours; the text draws them.
XVIII = {"B11": "0706", "B17": "0606", "B3": "0704",
         "A6": "0707", "A11": "0807", "A3": "0705", "A7": "0805", "A18": "0909"}
# The battles of its two plans, each with a roll that moves nobody into
# another battle: (targets, attackers, roll, odds line).
XVIII_BATTLES = {
    "A+B vs X": (["0706"], ["A6", "A11"], 1, "attack 7, defence 3, odds 2:1"),    # AR
    "C vs Y": (["0606"], ["A3"], 6, "attack 6, defence 2, odds 3:1"),             # DE
    "E vs Z": (["0704"], ["A7"], 1, "attack 4, defence 6, odds 1:2"),             # AE
    "C vs Y+Z": (["0606", "0704"], ["A3"], 1, "attack 6, defence 8, odds 1:2"),   # AE
}


def _fight_through(state: GameState, battle: tuple[list[str], list[str], int, str]) -> None:
    """Fight one battle of a plan; retreat to the first hex offered, never advance."""
    targets, units, roll, odds = battle
    fight(state, targets, units, roll)
    assert odds in last_lines(state, 8)
    while not state.is_terminal():
        choices = sorted(legal(state))
        if "stop" in choices:
            state.apply("stop")
        elif choices and all(c.startswith("retreat ") for c in choices):
            state.apply(choices[0])
        else:
            break


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.rule("IV.8", rulebook="grands_strateges")
@pytest.mark.rule("IV.9", rulebook="grands_strateges")
@pytest.mark.parametrize("order", list(itertools.permutations(
    ["A+B vs X", "C vs Y", "E vs Z"])), ids=" then ".join)
def test_example_xviii_first_plan_in_every_order(gs_game: GameMaker,
                                                 order: tuple[str, ...]) -> None:
    # 1. A and B attack X at 2:1, C attacks Y at 3:1, E attacks Z at 1:2. The
    # text lists them in that order; the attacker may fight them in any
    # order (IV.9), and the plan is legal in each: C may leave Z out because
    # E can still attack it, and then E must.
    state = gs_game(XVIII, combat=True)
    for name in order:
        assert refusal_rules(state, "end_combat") != set()
        _fight_through(state, XVIII_BATTLES[name])
    assert refusal_rules(state, "end_combat") == set()


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.rule("IV.3", rulebook="grands_strateges")
@pytest.mark.parametrize("order", [("A+B vs X", "C vs Y+Z"), ("C vs Y+Z", "A+B vs X")],
                         ids=" then ".join)
def test_example_xviii_second_plan_e_stays_out(gs_game: GameMaker,
                                               order: tuple[str, ...]) -> None:
    # 2. E, in a forest Z cannot control, need not attack; then C must take
    # on Y and Z together at 1:2, and A and B still fight X.
    state = gs_game(XVIII, combat=True)
    for name in order:
        _fight_through(state, XVIII_BATTLES[name])
    assert state.attribute("A7", "attacked") is False
    assert refusal_rules(state, "end_combat") == set()


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.parametrize("order", [("A+B vs X", "C vs Y"), ("C vs Y", "A+B vs X")],
                         ids=" then ".join)
def test_example_xviii_z_may_not_be_left_to_nobody(gs_game: GameMaker,
                                                   order: tuple[str, ...]) -> None:
    # C attacks Y alone and E stays out: Z, which controls C, is attacked by
    # nobody. The phase may not end, whichever battle came first.
    state = gs_game(XVIII, combat=True)
    for name in order:
        _fight_through(state, XVIII_BATTLES[name])
    assert refusal_rules(state, "end_combat") == {"IV.7"}
    _fight_through(state, XVIII_BATTLES["E vs Z"])
    assert refusal_rules(state, "end_combat") == set()


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.parametrize("before", [(), ("E vs Z",)], ids=["first", "after E vs Z"])
def test_example_xviii_c_never_joins_the_attack_on_x(gs_game: GameMaker,
                                                      before: tuple[str, ...]) -> None:
    # Y must be attacked and C is the only unit that can: C may not spend
    # itself on X, before or after any other battle.
    state = gs_game(XVIII, combat=True)
    for name in before:
        _fight_through(state, XVIII_BATTLES[name])
    state.apply("attack 0706")
    for unit in ("A6", "A11", "A3"):
        state.apply(f"join {unit}")
    assert "IV.7" in refusal_rules(state, "resolve")


# The same diagram, colours attacking: player A's units stand where X, Y and Z
# are and player B's where A, B, C and E are.
XVIII_COLOURS = {"A11": "0706", "A17": "0606", "A3": "0704",
                 "B6": "0707", "B11": "0807", "B3": "0705", "B7": "0805", "B18": "0909"}
XVIII_COLOUR_BATTLES = {
    "X vs A+B": (["0707", "0807"], ["A11"], 1, "attack 3, defence 7, odds 1:3"),  # AE
    "Z vs E": (["0805"], ["A3"], 1, "attack 6, defence 8, odds 1:2"),             # AE
    "Y vs C": (["0705"], ["A17"], 1, "attack 2, defence 6, odds 1:3"),            # AE
}


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.rule("IV.10", rulebook="grands_strateges")
@pytest.mark.parametrize("order", list(itertools.permutations(XVIII_COLOUR_BATTLES)),
                         ids=" then ".join)
def test_example_xviii_the_colours_attack_in_every_order(
        gs_game: GameMaker, order: tuple[str, ...]) -> None:
    # X attacks A and B at 1:3; Z, in E's zone, attacks E (doubled in the
    # forest) at 1:2, leaving C to Y; Y attacks C at 1:3.
    state = gs_game(XVIII_COLOURS, combat=True)
    for name in order:
        _fight_through(state, XVIII_COLOUR_BATTLES[name])
    assert refusal_rules(state, "end_combat") == set()


# Example XXV, its diagram reconstructed on the test board: X (B7, 4) with
# A (A17, 2) and B (A1, 8) next to it; Y (B8, 4) with C (A6, 4) and D (A7, 4,
# in the village 1503); Z (B6, 4) at 1304, next to X but to no attacker.
# The text draws it; the hexes are ours.
XXV = {"B7": "1405", "B8": "1404", "B6": "1304",
       "A17": "1505", "A1": "1406", "A6": "1403", "A7": "1503"}


@pytest.mark.rule("IV.25", rulebook="grands_strateges")
@pytest.mark.rule("IV.24", rulebook="grands_strateges")
@pytest.mark.rule("IV.23", rulebook="grands_strateges")
def test_example_xxv_the_order_of_battles_decides_a_retreat(gs_game: GameMaker) -> None:
    # Fought first, the battle against X leaves X a way back (pushing Z).
    first = fight(gs_game(XXV, combat=True), ["1405"], ["A17", "A1"], 6)
    assert "odds 2:1" in last_lines(first) and ": DR" in last_lines(first)
    assert {a for a in legal(first) if a.startswith("retreat B7")} != set()
    # Diagram 2: C and D against Y first; DR; Y's only way back is next to Z.
    state = fight(gs_game(XXV, combat=True), ["1404"], ["A6", "A7"], 6)
    assert ": DR" in last_lines(state)
    assert {a for a in legal(state) if a.startswith("retreat ")} == {"retreat B8 1303"}
    state.apply("retreat B8 1303")
    state.apply("advance A6 1404")
    # Diagram 3: A and B win against X, which cannot retreat and is removed.
    fight(state, ["1405"], ["A17", "A1"], 6)
    assert ": DR" in last_lines(state)
    assert state.place_of("B7") == "eliminated.b"
    assert {a for a in legal(state) if a.startswith("advance ")} == {
        "advance A1 1405", "advance A17 1405"}
    # The attacker advances B (8): in his next combat phase Z must attack it,
    # at 1:2. Had A (2) advanced, Z would have attacked at 2:1.
    for advancing, odds in (("A1", "attack 4, defence 8, odds 1:2"),
                            ("A17", "attack 4, defence 2, odds 2:1")):
        after = state.clone()
        after.apply(f"advance {advancing} 1405")
        after.apply("end_combat")
        after.apply("end")
        assert after.phase == "b_combat"
        assert "IV.2" in refusal_rules(after, "end_combat")
        after.apply("attack 1405")
        after.apply("join B6")
        after.apply("resolve")
        assert odds in last_lines(after, 1)
