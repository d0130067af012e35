"""Grands Stratèges: each reading of the registry that changes play, played
both ways (the default and each other reading), on the test board or on the
scenario's boards.

Each test names the entry it plays (``readings={ENTRY: READING}``);
``test_registry.py`` checks that every entry with several readings has one.
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from pathlib import Path

import pytest
from gs_helpers import last_lines, legal, next_turn, refusal_rules

import cortes_rules
from cortes_rules import GameState

BOARD = Path(__file__).resolve().parent / "examples_map.rules"


@functools.cache
def book(options: str = "basic", scenario: str | None = None, board: bool = True,
         **readings: str) -> cortes_rules.Rulebook:
    """The rulebook with ``readings``: on the test board, or on a scenario's own."""
    kwargs: dict[str, object] = {"options": options, "readings": dict(readings)}
    if scenario is not None:
        kwargs["scenario"] = scenario
    if board:
        kwargs["map"] = BOARD
    return cortes_rules.load("grands_strateges", **kwargs)  # type: ignore[arg-type]


def start(rules: cortes_rules.Rulebook, positions: Mapping[str, str], *,
          combat: bool = False) -> GameState:
    """Player A to move (or to fight) on the test board, with a unit of each
    side in a far corner."""
    state = rules.new_game(positions={"A13": "1601", "B13": "1612", **positions})
    if combat:
        state.apply("end")
    return state


def battle(state: GameState, targets: list[str], units: list[str], roll: int | None = None
           ) -> GameState:
    """Open a battle, commit the units, add the other targets and resolve;
    keep the odds (X.1) and roll ``roll`` when given."""
    state.apply(f"attack {targets[0]}")
    for uid in units:
        state.apply(f"join {uid}")
    for target in targets[1:]:
        state.apply(f"attack {target}")
    state.apply("resolve")
    if "keep_odds" in legal(state):
        state.apply("keep_odds")
    if roll is not None:
        state.apply(f"roll {roll}")
    return state


# ------------------------------------------------------------------ II movement
@pytest.mark.rule("II.8", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "cavalry_cost"), [("two_points", 2), ("like_marsh", 3)])
def test_forest_cost_both_ways(reading: str, cavalry_cost: int) -> None:
    rules = book(forest_cost=reading)
    state = start(rules, {"A17": "0604", "A6": "0804"})
    state.apply("move A17 0605")
    assert state.attribute("A17", "spent") == cavalry_cost
    state.apply("move A6 0805")
    assert state.attribute("A6", "spent") == 2      # infantry: 2 either way


@pytest.mark.rule("II.11", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "cost"), [("along_hexside", 1), ("origin_hex", 0.5)])
def test_road_movement_both_ways(reading: str, cost: float) -> None:
    # The road bends 0410-0411-0510: 0410 and 0510 both have it, but it does
    # not run between them.
    state = start(book(road_movement=reading), {"A6": "0410"})
    state.apply("move A6 0510")
    assert state.attribute("A6", "spent") == cost
    # Along the road itself both readings pay half a point.
    state = start(book(road_movement=reading), {"A6": "0410"})
    state.apply("move A6 0411")
    assert state.attribute("A6", "spent") == 0.5


# ------------------------------------------------------------------ IV combat
@pytest.mark.rule("IV.11", rulebook="grands_strateges")
@pytest.mark.rule("IV.12", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "modifier"), [("per_defender", -2), ("once_per_battle", -1)])
def test_terrain_die_per_defender_both_ways(reading: str, modifier: int) -> None:
    # A1 at 0611 attacks B6 (0612) and B7 (0711), each across a stream.
    state = start(book(terrain_die_per_defender=reading),
                  {"A1": "0611", "B6": "0612", "B7": "0711"}, combat=True)
    battle(state, ["0612", "0711"], ["A1"])
    assert f"attack 8, defence 8, odds 1:1, die modifier {modifier}" in last_lines(state, 4)


@pytest.mark.rule("IV.10", rulebook="grands_strateges")
@pytest.mark.rule("IV.12", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "modifier"), [("bridge_replaces", 0), ("both", -1)])
def test_bridge_over_stream_both_ways(reading: str, modifier: int) -> None:
    # B6 in the village 0903, attacked over the bridge that spans the stream.
    state = start(book(bridge_over_stream=reading), {"A1": "0902", "B6": "0903"}, combat=True)
    battle(state, ["0903"], ["A1"])
    assert f"attack 8, defence 12, odds 1:2, die modifier {modifier}" in last_lines(state, 4)


# Example XVII: X (B11, 3) and Y (B17, 2); A (A6) and B (A11) next to X, C
# (A3) next to both, D (A18) next to Y.
XVII = {"B11": "0707", "B17": "0709", "A6": "0706", "A11": "0807", "A3": "0708", "A18": "0710"}


@pytest.mark.rule("IV.7", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "shared"), [("none_left_out", True), ("all_at_once", False)])
def test_several_controllers_both_ways(reading: str, shared: bool) -> None:
    # C and D against Y first: C stands in X's zone too. Read alone, IV.7
    # makes C's battle take in X as well.
    state = start(book(several_controllers=reading), XVII, combat=True)
    state.apply("attack 0709")
    state.apply("join A3")
    state.apply("join A18")
    assert (refusal_rules(state, "resolve") == set()) is shared
    if not shared:
        assert refusal_rules(state, "resolve") == {"IV.7"}


@pytest.mark.rule("IV.8", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "shared"), [("none_left_out", True), ("all_join", False)])
def test_attack_together_both_ways(reading: str, shared: bool) -> None:
    # A and B against X, C left for Y: read alone, IV.8 makes every unit in
    # X's zone next to X join, C among them.
    state = start(book(attack_together=reading), XVII, combat=True)
    state.apply("attack 0707")
    state.apply("join A6")
    state.apply("join A11")
    assert (refusal_rules(state, "resolve") == set()) is shared
    if not shared:
        assert refusal_rules(state, "resolve") == {"IV.8"}
        state.apply("join A3")
        assert refusal_rules(state, "resolve") == set()


# Five units round B11 (3) in the village 1503: 19 against 6, 3:1; a 1 is an
# exchange.
EXCHANGE = {"B11": "1503", "A6": "1403", "A7": "1404", "A8": "1502", "A9": "1504",
            "A11": "1603"}


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "paid_by_a11"), [("printed", True), ("as_defended", False)])
def test_exchange_value_both_ways(reading: str, paid_by_a11: bool) -> None:
    state = start(book(exchange_value=reading), EXCHANGE, combat=True)
    battle(state, ["1503"], ["A6", "A7", "A8", "A9", "A11"], roll=1)
    assert "attack 19, defence 6, odds 3:1" in last_lines(state, 6)
    assert ": EX" in last_lines(state, 6)
    state.apply("lose A11")         # 3: the printed factor of B11, half its defence
    still_owed = any(a.startswith("lose ") for a in legal(state))
    assert still_owed is not paid_by_a11


@pytest.mark.rule("IV.24", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "advance"), [("attacker", True), ("nobody", False)])
def test_exchange_advance_both_ways(reading: str, advance: bool) -> None:
    # Example XXI's exchange: B11 goes, and A7 pays for it.
    positions = {"B11": "0707", "A6": "0706", "A17": "0708", "A7": "0807"}
    state = start(book(exchange_advance=reading), positions, combat=True)
    battle(state, ["0707"], ["A6", "A17", "A7"], roll=1)
    state.apply("lose A7")
    assert ("advance A6 0707" in legal(state)) is advance


# ------------------------------------------------------------------ V artillery
@pytest.mark.rule("V.1", rulebook="grands_strateges")
@pytest.mark.rule("V.5", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "survives"), [("contact", False), ("bombard", True)])
def test_adjacent_bombardment_both_ways(reading: str, survives: bool) -> None:
    # The battery in the village 1503 stands next to B1 (1502), which cannot
    # control a village: 4 against 8, a 1 at 1:2 is AE.
    state = start(book(adjacent_bombardment=reading), {"A24": "1503", "B1": "1502"},
                  combat=True)
    battle(state, ["1502"], ["A24"], roll=1)
    assert "odds 1:2" in last_lines(state, 4) and ": AE" in last_lines(state, 4)
    assert (state.place_of("A24") == "1503") is survives


@pytest.mark.rule("V.8", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "in_sight"), [("own_hexside", False), ("one_hex_back", True)])
def test_ridge_distance_both_ways(reading: str, in_sight: bool) -> None:
    # From 1408, one hex back from the crest on the south side of 1409.
    state = start(book(ridge_distance=reading), {"A24": "1408", "B6": "1411"}, combat=True)
    assert ("attack 1411" in legal(state)) is in_sight
    if not in_sight:
        assert refusal_rules(state, "attack 1411") == {"IV.3", "V.8"}
    # From the crest's own hex both readings see beyond it.
    state = start(book(ridge_distance=reading), {"A24": "1409", "B6": "1412"}, combat=True)
    assert "attack 1412" in legal(state)


@pytest.mark.rule("V.11", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "in_sight"), [("both_sides", True), ("either_side", False)])
def test_line_along_hexside_both_ways(reading: str, in_sight: bool) -> None:
    # From 0504 to 0606 the line runs along the hexside between the forest
    # 0605 and the clear 0505.
    state = start(book(line_along_hexside=reading), {"A24": "0504", "B6": "0606"}, combat=True)
    assert ("attack 0606" in legal(state)) is in_sight
    if not in_sight:
        assert refusal_rules(state, "attack 0606") == {"IV.3", "V.7"}


@pytest.mark.rule("V.14", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "cavalry_helped"), [("any_unit", True),
                                                          ("infantry_only", False)])
def test_diversion_arms_both_ways(reading: str, cavalry_helped: bool) -> None:
    # Example XXXI, with light cavalry (A17) or infantry (A6) between B6 and
    # B7; the battery at 0710 bombards B7.
    for unit, helped in (("A17", cavalry_helped), ("A6", True)):
        state = start(book(diversion_arms=reading),
                      {unit: "0707", "B6": "0706", "B7": "0708", "A24": "0710"}, combat=True)
        state.apply("attack 0708")
        state.apply("join A24")
        assert (refusal_rules(state, "resolve") == set()) is helped, unit
        if not helped:
            assert refusal_rules(state, "resolve") == {"V.14"}


@pytest.mark.rule("V.13", rulebook="grands_strateges")
@pytest.mark.rule("IV.24", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "advance"), [("emptied", True), ("not_emptied", False)])
def test_woodland_artillery_hex_both_ways(reading: str, advance: bool) -> None:
    state = start(book(woodland_artillery_hex=reading), {"A1": "1103", "B24": "1102"},
                  combat=True)
    state.apply("attack 1102")
    state.apply("join A1")
    state.apply("resolve")
    assert state.place_of("B24") == "eliminated.b" and not state.is_chance_node()
    assert ("advance A1 1102" in legal(state)) is advance
    if advance:
        state.apply("advance A1 1102")
        assert state.place_of("A1") == "1102"


# ------------------------------------------------------------------ VI leaving the map
@pytest.mark.rule("VI.1", rulebook="grands_strateges")
@pytest.mark.rule("IV.22", rulebook="grands_strateges")
@pytest.mark.parametrize("reading", ["when_forced", "by_choice"])
def test_retreat_off_map_both_ways(reading: str) -> None:
    # B6 on the west edge at 0104, beaten at 2:1: 0105 is open to it.
    state = start(book(retreat_off_map=reading), {"A1": "0204", "B6": "0104"}, combat=True)
    battle(state, ["0104"], ["A1"], roll=6)
    choices = {a for a in legal(state) if a.startswith(("retreat ", "withdraw "))}
    if reading == "when_forced":
        assert choices == {"retreat B6 0105"}
    else:
        assert choices == {"retreat B6 0105", "withdraw B6"}
        state.apply("withdraw B6")
        assert state.place_of("B6") == "off_map.b"
        assert state.evaluate("u.left_from == h", u="B6", h="0104")
        assert state.evaluate("losses(b)") == 4
    # With no hex open on the map, the unit is eliminated under either reading.
    state = start(book(retreat_off_map=reading), {"A1": "0102", "A6": "0202", "B6": "0101"},
                  combat=True)
    battle(state, ["0101"], ["A1", "A6"], roll=3)
    assert "odds 3:1" in last_lines(state, 4) and ": DR" in last_lines(state, 4)
    if reading == "by_choice":
        assert {a for a in legal(state) if a.startswith(("retreat ", "withdraw "))} == {
            "withdraw B6"}
        state.apply("withdraw B6")
    assert state.evaluate("losses(b)") == 4


# ------------------------------------------------------------------ VII-XII the advanced rules
@pytest.mark.rule("VIII.1", rulebook="grands_strateges")
@pytest.mark.rule("VIII.2", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "attack"), [("must_move", 2), ("may_stand", 4)])
def test_standing_charge_both_ways(reading: str, attack: int) -> None:
    # A17 stands in the forest 0605, next to B6 in the clear (0606), which
    # cannot control a forest hex; it attacks without moving.
    state = start(book("advanced", standing_charge=reading), {"A17": "0605", "B6": "0606"},
                  combat=True)
    battle(state, ["0606"], ["A17"])
    assert f"attack {attack}, defence 4" in last_lines(state, 4)


@pytest.mark.rule("VIII.1", rulebook="grands_strateges")
@pytest.mark.rule("VIII.4", rulebook="grands_strateges")
def test_charge_choice_both_ways() -> None:
    # A17 rides two clear hexes into contact with B6: a charge either way...
    def ride(rules: cortes_rules.Rulebook) -> GameState:
        state = start(rules, {"A17": "1001", "B6": "1004"})
        state.apply("move A17 1002")
        state.apply("move A17 1003")
        state.apply("end")
        state.apply("attack 1004")
        state.apply("join A17")
        state.apply("resolve")
        return state

    automatic = ride(book("advanced"))
    assert not any(a.startswith(("charge ", "hold ")) for a in legal(automatic))
    automatic.apply("keep_odds")
    assert "attack 4, defence 4" in last_lines(automatic, 4)
    # ...but declared, the attacker may also hold it back.
    for choice, attack in (("charge A17", 4), ("hold A17", 2)):
        declared = ride(book("advanced", charge_choice="declared"))
        assert {"charge A17", "hold A17"} <= legal(declared)
        declared.apply(choice)
        declared.apply("keep_odds")
        assert f"attack {attack}, defence 4" in last_lines(declared, 4)


@pytest.mark.rule("VIII.2", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "attack"), [("streams_close", 2), ("rivers_only", 4)])
def test_open_ground_both_ways(reading: str, attack: int) -> None:
    # A17 rides 0609-0610-0611 (2 points) and attacks B6 across the stream
    # between 0611 and 0612.
    state = start(book("advanced", open_ground=reading), {"A17": "0609", "B6": "0612"})
    state.apply("move A17 0610")
    state.apply("move A17 0611")
    state.apply("end")
    battle(state, ["0612"], ["A17"])
    assert f"attack {attack}, defence 4" in last_lines(state, 4)


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "morale"), [("with_reinforcements", 9.5),
                                                  ("deployed_only", 5.5)])
def test_morale_base_both_ways(reading: str, morale: float) -> None:
    # A1 (8) and A13 (3) on the map, A2 (8) waiting to enter.
    state = start(book("advanced", morale_base=reading),
                  {"A1": "1002", "A2": "reinforcements.a", "B6": "1010"})
    assert state.evaluate("q.morale", q="a") == morale


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
@pytest.mark.rule("XI.2", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "morale", "broken"), [("exact", 5.5, False),
                                                            ("rounded_down", 5, True)])
def test_morale_threshold_both_ways(reading: str, morale: float, broken: bool) -> None:
    # 11 in play (A1 and A13); A11 (3) and A17 (2) lost before the start: 5.
    state = start(book("advanced", morale_threshold=reading),
                  {"A1": "1002", "A11": "eliminated.a", "A17": "eliminated.a", "B6": "1010"})
    assert state.evaluate("q.morale", q="a") == morale
    assert state.evaluate("demoralised(q)", q="a") is broken


# ------------------------------------------------------------------ the scenarios
@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "seen"), [("screened", False), ("open", True)])
def test_screened_deployment_both_ways(reading: str, seen: bool) -> None:
    state = book(scenario="I", screened_deployment=reading).new_game(seed=1)
    assert state.phase == "deploy"
    state.apply("place A1 0101")
    assert ("A1" in state.observation("b")["pieces"]) is seen


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "over"), [("every_unit", False), ("on_the_map", True)])
def test_wipe_out_both_ways(reading: str, over: bool) -> None:
    # Scenario IV: player A has nothing left on the map, but his group I
    # still waits to enter.
    rules = book(scenario="IV", board=False, wipe_out=reading)
    waiting = {uid: "reinforcements.a" for uid in ("A2", "A8", "A14", "A22")}
    state = rules.new_game(seed=1, positions={"A1": "eliminated.a", "B1": "1620", **waiting})
    assert state.is_terminal() is over
    if over:
        outcome = state.outcome()
        assert outcome is not None and outcome.winners == ("b",)


@pytest.mark.rule("V.12", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "enters"), [("as_artillery", False), ("costs_only", True)])
def test_face_down_terrain_both_ways(reading: str, enters: bool) -> None:
    # Scenario X: A6, face down, moves as artillery; 0206 is a forest with no
    # road from 0105.
    state = book(scenario="X", board=False, face_down_terrain=reading).new_game(
        seed=1, positions={"A6": "0105", "B6": "1620"})
    state.apply("roll 3")
    state.apply("roll 3")
    assert state.evaluate("face_down(u)", u="A6")
    if enters:
        state.apply("move A6 0206")
        assert state.attribute("A6", "spent") == 2
    else:
        assert "V.12" in refusal_rules(state, "move A6 0206")


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "hidden"), [("face_down", True), ("face_up", False)])
def test_scenario_x_face_down_both_ways(reading: str, hidden: bool) -> None:
    state = book(scenario="X", board=False, scenario_x_face_down=reading).new_game(
        seed=1, positions={"A6": "0105", "B6": "1620"})
    state.apply("roll 3")
    state.apply("roll 3")
    assert ("A6" not in state.observation("b")["pieces"]) is hidden
    assert state.evaluate("allowance(u)", u="A6") == (3 if hidden else 4)


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "told"), [("hidden", False), ("told", True)])
def test_scenario_x_rates_both_ways(reading: str, told: bool) -> None:
    state = book(scenario="X", board=False, scenario_x_rates=reading).new_game(
        seed=1, positions={"A6": "0105", "B6": "1620"})
    state.apply("roll 1")           # player A: 40%
    state.apply("roll 6")           # player B: 60%
    seen_by_b = state.observation("b")["players"]["a"]
    assert ("loss_rate" in seen_by_b) is told
    if told:
        assert str(seen_by_b["loss_rate"]) == "40"
    assert any("40%" in line for line in state.observation("b")["log"]) is told


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "told"), [("hidden", False), ("told", True)])
def test_scenario_x_reserve_turn_both_ways(reading: str, told: bool) -> None:
    rules = book(scenario="X", board=False, scenario_x_reserve="rolled",
                 scenario_x_reserve_turn=reading)
    state = rules.new_game(seed=1)
    while state.phase == "reserves":
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(sorted(str(a) for a in state.legal_actions())[0])
    turn_a = state.evaluate("q.reserve_turn", q="a")
    assert 3 <= turn_a <= 8
    seen_by_b = state.observation("b")["players"]["a"]
    assert ("reserve_turn" in seen_by_b) is told
    assert any(f"enter on turn {turn_a}" in line
               for line in state.observation("b")["log"]) is told


# Scenario VI on its own boards, played to the night turns (10-12).
def _to_turn(state: GameState, turn: int) -> GameState:
    while state.turn < turn:
        next_turn(state)
    return state


@pytest.mark.rule("IV.8", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "alone"), [("bound", False), ("free", True)])
def test_night_battles_both_ways(reading: str, alone: bool) -> None:
    # A6 at 0504; on the night of turn 10 B6 and B7 close in on it from both
    # sides. Combat is not compulsory, but a battle B6 fights alone leaves
    # B7, in A6's zone too, out (IV.8).
    rules = book(scenario="VI", board=False, night_battles=reading)
    state = _to_turn(rules.new_game(seed=1, positions={"A6": "0504", "B6": "0502",
                                                         "B7": "0506"}), 10)
    state.apply("end")
    state.apply("end_combat")
    state.apply("move B6 0503")
    state.apply("move B7 0505")
    state.apply("end")
    assert state.phase == "b_combat"
    state.apply("attack 0504")
    state.apply("join B6")
    assert (refusal_rules(state, "resolve") == set()) is alone
    if not alone:
        assert refusal_rules(state, "resolve") == {"IV.8"}
    state.apply("cancel")
    assert refusal_rules(state, "end_combat") == set()     # no battle is compulsory


@pytest.mark.rule("XII.3", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "spent"), [("printed_factor", 4), ("this_turn", 3.5)])
def test_slip_cost_both_ways(reading: str, spent: float) -> None:
    # A17 (light cavalry, 6) at 0405; on turn 9 B6 moves into the village
    # 0305 beside it, where A17 cannot hold it to a battle. On the night of
    # turn 10 A17 (5 points) slips away to 0504.
    rules = book("advanced", scenario="VI", board=False, slip_cost=reading)
    state = _to_turn(rules.new_game(seed=1, positions={"A17": "0405", "B6": "0206"}), 9)
    state.apply("end")
    state.apply("end_combat")
    state.apply("move B6 0305")
    state.apply("end")
    state.apply("end_combat")
    assert state.turn == 10 and state.phase == "a_movement"
    state.apply("move A17 0504")
    assert state.attribute("A17", "spent") == spent


@pytest.mark.rule("VI.2", rulebook="grands_strateges")
@pytest.mark.rule("XI.2", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "lost"), [("lost", 8), ("not_lost", 0)])
def test_escaped_morale_both_ways(reading: str, lost: int) -> None:
    rules = book("advanced", scenario="VI", board=False, escaped_morale=reading)
    state = rules.new_game(seed=1, positions={"A1": "0105", "A6": "3010", "B6": "1612"})
    state.apply("exit A1")
    assert state.evaluate("escaped()") == 8
    assert state.evaluate("losses(a)") == lost


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "may_stop"), [("catch_up", True), ("compulsory", False)])
def test_vi_entry_both_ways(reading: str, may_stop: bool) -> None:
    rules = book(scenario="VI", board=False, vi_entry=reading)
    waiting = {f"A{n}": "reinforcements.a" for n in range(1, 8)}
    state = rules.new_game(seed=1, positions={"B6": "1612", **waiting})
    for n, to in zip(range(1, 5), ("3201", "3203", "3205", "3207"), strict=True):
        state.apply(f"enter A{n} {to}")
    # Four of the five: may player A stop there?
    assert (refusal_rules(state, "end") == set()) is may_stop
    state.apply("enter A5 3209")
    assert refusal_rules(state, "end") == set()
