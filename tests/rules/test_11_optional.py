"""Section 11: the optional rules, each switched on alone and checked on and off."""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import GameState
from positions import GARRISON, to_phase

ROOT = Path(__file__).resolve().parents[2]

_BOOKS: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], cortes_rules.Rulebook] = {}


def book_with(*options: str, **readings: str) -> cortes_rules.Rulebook:
    """The Cortés rulebook with those optional rules on (cached for the module)."""
    key = (tuple(sorted(options)), tuple(sorted(readings.items())))
    if key not in _BOOKS:
        _BOOKS[key] = cortes_rules.load("cortes", options=list(options), readings=readings)
    return _BOOKS[key]


def start(book: cortes_rules.Rulebook, positions: Mapping[str, str], phase: str, *,
          steps: Mapping[str, int] | None = None) -> GameState:
    state = book.new_game(positions={**GARRISON, **positions})
    for uid, n in (steps or {}).items():
        state.set_attribute(uid, "steps", n)
    for _ in range(17):
        if state.phase == phase:
            return state
        state.apply("end")
    raise AssertionError(f"never reached {phase}")


def texts(state: GameState) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def settle(state: GameState, rolls: Iterable[int] = ()) -> None:
    """Take every step loss on the first unit offered, rolling ``rolls`` at chance nodes."""
    dice = list(rolls)
    while True:
        if state.is_chance_node():
            if not dice:
                return
            state.apply(f"roll {dice.pop(0)}")
            continue
        lose = [a for a in texts(state) if a.startswith("lose ")]
        if not lose:
            assert not dice, f"rolls left over: {dice}"
            return
        state.apply(lose[0])


def logged(state: GameState, rule: str) -> list[str]:
    return [e.text for e in state.log if rule in e.rules]


# ------------------------------------------------------------------ 11.0
@pytest.mark.rule("11.1")
def test_11_0_each_optional_rule_switches_on_alone() -> None:
    numbers = [f"11.{n}" for n in range(1, 11)]
    for number in numbers:
        on = set(book_with(number).program.options)
        assert number in on and not (on & set(numbers)) - {number}
    assert set(numbers) <= set(cortes_rules.load("cortes", options="veteran").program.options)
    assert not set(numbers) & set(cortes_rules.load("cortes", options="beginner").program.options)


# ------------------------------------------------------------------ 11.7
def knights_hit_spanish(book: cortes_rules.Rulebook, extra: Mapping[str, str] | None = None,
                        attackers: Iterable[str] = ("A1",)) -> GameState:
    """An Aztec attack in which S1 (European) loses two steps: a 12 at 1:2."""
    positions = {"S1": "1110", "A1": "1111", "A11": "1112"} | dict(extra or {})
    state = start(book, positions, "aztec_land_combat")
    state.apply("attack 1110")
    for uid in attackers:
        state.apply(f"join {uid}")
    state.apply("resolve")
    state.apply("roll 12")
    settle(state)
    return state


@pytest.mark.rule("11.7")
def test_11_7_prisoners_on_a_one_or_two_place_a_sacrifice_marker() -> None:
    state = knights_hit_spanish(book_with("11.7"))
    assert state.is_chance_node()
    state.apply("roll 2")
    assert state.current_player == "aztec"
    assert texts(state) == ["sacrifice 2810", "sacrifice 3016"]
    state.apply("sacrifice 3016")
    assert state.evaluate("list(h.id for h in sacrifice_temples)") == ("3016",)
    assert state.evaluate("prisoners_taken_this_turn") == 1
    assert state.evaluate("objection_prisoners()") is True
    # A second capture takes the other temple without asking.
    state2 = knights_hit_spanish(book_with("11.7"))
    state2.apply("roll 1")
    state2.apply("sacrifice 2810")
    assert texts(state2)[0] != "sacrifice 3016"


@pytest.mark.rule("11.7")
def test_11_7_three_to_six_takes_no_prisoners() -> None:
    state = knights_hit_spanish(book_with("11.7"))
    state.apply("roll 3")
    assert state.evaluate("count(sacrifice_temples)") == 0
    assert state.evaluate("prisoners_taken_this_turn") == 0
    assert any("no prisoners" in t for t in logged(state, "11.7"))


@pytest.mark.rule("11.7")
def test_11_7_only_knights_against_europeans_roll() -> None:
    # Warriors alone attacking: no roll.
    book = book_with("11.7")
    state = start(book, {"S1": "1110", "A11": "1111", "A12": "1210"}, "aztec_land_combat")
    state.apply("attack 1110")
    state.apply("join A11")
    state.apply("join A12")
    state.apply("resolve")
    state.apply("roll 12")
    settle(state)
    assert not state.is_chance_node() and not logged(state, "11.7")
    # Knights against an Indian ally: no roll either.
    state = start(book, {"S30": "1110", "A1": "1111"}, "aztec_land_combat")
    state.apply("attack 1110")
    state.apply("join A1")
    state.apply("resolve")
    state.apply("roll 12")
    settle(state)
    assert not state.is_chance_node() and not logged(state, "11.7")


@pytest.mark.rule("11.7")
def test_11_7_off_no_roll_and_no_prisoners() -> None:
    state = knights_hit_spanish(book_with())
    assert not state.is_chance_node()
    assert state.evaluate("prisoners_taken_this_turn") == 0
    assert not logged(state, "11.7")


@pytest.mark.rule("11.7")
def test_11_7_each_marker_shifts_aztec_attacks_one_column_right() -> None:
    book = book_with("11.7")
    state = start(book, {"S1": "1110", "A1": "1111"}, "aztec_land_combat")
    state.set_value("sacrifice_temples", ("2810", "3016"))
    state.apply("attack 1110")
    state.apply("join A1")
    # 6 against 7 is 1:2; two markers make it 2:1 (1:2 -> 1:1 -> 2:1).
    assert state.evaluate("odds_report(true)[2]") == (2, 1)
    # Not in defence: a Spanish attack on the Aztec knight is not shifted.
    state = start(book, {"S1": "1110", "A1": "1111"}, "spanish_land_combat")
    state.set_value("sacrifice_temples", ("2810", "3016"))
    state.apply("attack 1111")
    state.apply("join S1")
    assert state.evaluate("odds_report(true)[2]") == (1, 1)


@pytest.mark.rule("11.7")
def test_11_7_markers_leave_after_the_desertion_test_that_counts_them() -> None:
    from test_10_interphase import run, split
    book = book_with("11.7")
    positions = {"S1": "1110", "A1": "3016", "S30": "1210", "S31": "1212"}
    state = split(book, {**GARRISON, **positions})
    assert state.is_chance_node()
    # The test is made by hand: the markers count -1 each (reading markers).
    state.set_value("sacrifice_temples", ("2810", "3016"))
    run(state, [2], exact=False)  # 2 - 2 = 0: the regulars go home
    assert state.place_of("S30") == "deserted"
    assert state.evaluate("count(sacrifice_temples)") == 0


@pytest.mark.rule("11.7")
@pytest.mark.parametrize(("reading", "deserted"), [("markers", False), ("prisoners", True)])
def test_11_7_prisoners_without_a_marker_and_desertion_both_ways(reading: str,
                                                                 deserted: bool) -> None:
    from test_10_interphase import run, split
    book = book_with("11.7", prisoners_and_desertion=reading)
    state = split(book, {**GARRISON, "S1": "1110", "A1": "3016", "S30": "1210"})
    state.set_value("prisoners_since_interphase", 1)   # both temples were desecrated
    run(state, [1], exact=False)  # 1, less 1 under the reading prisoners
    assert (state.place_of("S30") == "deserted") is deserted


# ------------------------------------------------------------------ 11.8
def walk(state: GameState, moves: Iterable[str]) -> None:
    for move in moves:
        state.apply(move)


TEMPLE_WALK = {"S9": "2910", "S1": "2910", "Cortes": "2910", "A11": "3016"}


@pytest.mark.rule("11.8")
def test_11_8_cavalry_entering_a_temple_desecrates_it() -> None:
    state = start(book_with("11.8"), TEMPLE_WALK, "spanish_land_movement")
    state.apply("move S9 2810")
    assert state.evaluate("list(h.id for h in desecrated_temples)") == ("2810",)
    assert any("desecrated" in t for t in logged(state, "11.8"))


@pytest.mark.rule("11.8")
def test_11_8_infantry_only_with_cortes() -> None:
    book = book_with("11.8")
    state = start(book, {"S1": "2910", "A11": "3016"}, "spanish_land_movement")
    state.apply("move S1 2810")
    assert state.evaluate("count(desecrated_temples)") == 0
    state = start(book, TEMPLE_WALK, "spanish_land_movement")
    state.apply("move S1 2810")
    assert state.evaluate("count(desecrated_temples)") == 0
    state.apply("move Cortes 2810")   # Cortes joins the infantry: now stacked
    assert state.evaluate("list(h.id for h in desecrated_temples)") == ("2810",)


@pytest.mark.rule("11.8")
def test_11_8_desecration_flips_a_sacrifice_marker_and_ends_at_the_interphase() -> None:
    from test_10_interphase import run
    book = book_with("11.7", "11.8")
    state = start(book, TEMPLE_WALK, "spanish_land_movement")
    state.set_value("sacrifice_temples", ("2810", "3016"))
    state.apply("move S9 2810")
    assert state.evaluate("list(h.id for h in sacrifice_temples)") == ("3016",)
    while state.phase != "end_of_turn":
        state.apply("end")
    state.apply("split")
    if not state.is_chance_node():
        state.apply("accept")
    run(state, [6], exact=False)
    assert state.evaluate("count(desecrated_temples)") == 0


@pytest.mark.rule("11.8")
def test_11_8_no_sacrifice_on_a_desecrated_temple() -> None:
    book = book_with("11.7", "11.8")
    state = knights_hit_spanish(book)
    state.set_value("desecrated_temples", ("2810", "3016"))
    state.apply("roll 1")
    assert state.evaluate("count(sacrifice_temples)") == 0
    assert state.evaluate("prisoners_taken_this_turn") == 1   # the capture still counts (4.4)
    state = knights_hit_spanish(book)
    state.set_value("desecrated_temples", ("2810",))
    state.apply("roll 1")
    assert texts(state) == ["sacrifice 3016"]


@pytest.mark.rule("11.8")
def test_11_8_off_nothing_is_desecrated() -> None:
    state = start(book_with(), TEMPLE_WALK, "spanish_land_movement")
    state.apply("move S9 2810")
    assert state.evaluate("count(desecrated_temples)") == 0 and not logged(state, "11.8")


# ------------------------------------------------------------------ 11.9
@pytest.mark.rule("11.9")
@pytest.mark.parametrize("options", [("11.9",), ()])
def test_11_9_one_movement_point_less_while_both_temples_are_desecrated(
        options: tuple[str, ...]) -> None:
    book = book_with(*options)
    state = book.new_game(positions={**GARRISON, "S1": "1110", "A11": "1212"})
    state.set_value("desecrated_temples", ("2810", "3016"))
    while state.phase != "aztec_land_movement":
        state.apply("end")
    assert state.attribute("A11", "spent") == (1 if options else 0)
    if options:
        assert logged(state, "11.9")


@pytest.mark.rule("11.9")
def test_11_9_one_temple_is_not_enough() -> None:
    state = book_with("11.9").new_game(positions={**GARRISON, "S1": "1110", "A11": "1212"})
    state.set_value("desecrated_temples", ("2810",))
    while state.phase != "aztec_land_movement":
        state.apply("end")
    assert state.attribute("A11", "spent") == 0


FOG = {"S1": "1110", "S2": "1110", "S9": "1210", "A11": "1111", "A1": "1112", "A12": "3016"}


def fogged(book: cortes_rules.Rulebook, positions: Mapping[str, str] | None = None,
           temples: tuple[str, ...] = ("2810", "3016"), phase: str = "spanish_land_movement"
           ) -> GameState:
    state = book.new_game(positions={**GARRISON, **dict(positions or FOG)})
    state.set_value("desecrated_temples", temples)
    return to_phase(state, phase)


def on_map_seen(state: GameState, player: str) -> set[str]:
    """The pieces in hexes that ``player``'s observation shows."""
    seen = state.observation(player)["pieces"]
    return {uid for uid, place in state.positions().items() if place.isdigit() and uid in seen}


@pytest.mark.rule("11.9")
def test_11_9_the_aztecs_see_only_the_top_unit_of_each_spanish_stack() -> None:
    state = fogged(book_with("11.9"))
    seen = state.observation("aztec")
    assert "S1" in seen["pieces"] and "S2" not in seen["pieces"] and "S9" in seen["pieces"]
    assert seen["hidden"] == {"1110": 1}
    # The Spanish player still sees everything, and his own stack.
    assert state.observation("spanish")["hidden"] == {}
    # S9 moving under S1: the line naming it is not addressed to the Aztec player.
    state.apply("move S9 1110")
    assert not state.log[-1].visible_to("aztec") and state.log[-1].visible_to("spanish")
    assert state.observation("aztec")["hidden"] == {"1110": 2}


@pytest.mark.rule("11.9")
@pytest.mark.parametrize(("options", "temples"), [(("11.9",), ("2810",)),
                                                  ((), ("2810", "3016"))])
def test_11_9_open_with_one_temple_or_without_the_rule(options: tuple[str, ...],
                                                       temples: tuple[str, ...]) -> None:
    state = fogged(book_with(*options), temples=temples)
    assert {"S1", "S2", "S9"} <= on_map_seen(state, "aztec")
    assert state.observation("aztec")["hidden"] == {}


@pytest.mark.rule("11.9")
@pytest.mark.rule("9.4")
def test_11_9_a_fighting_unit_is_on_top_so_a_lone_leader_shows() -> None:
    book = book_with("11.9")
    # Cortes comes first in the counter mix, but S1 is the unit on top.
    state = fogged(book, {"Cortes": "1110", "S1": "1110", "A11": "1111", "A12": "3016"})
    assert on_map_seen(state, "aztec") >= {"S1"} and "Cortes" not in on_map_seen(state, "aztec")
    # Cortes with nothing but a cannon: Cortes on top, and the hex may be entered (9.4).
    state = fogged(book, {"Cortes": "1110", "S25": "1110", "S1": "1114", "A11": "1111",
                          "A12": "3016"}, phase="aztec_land_movement")
    assert "Cortes" in on_map_seen(state, "aztec") and "S25" not in on_map_seen(state, "aztec")
    assert "move A11 1110" in texts(state)


@pytest.mark.rule("11.9")
def test_11_9_the_attacked_stack_is_shown_and_the_attack_stays_declared() -> None:
    state = fogged(book_with("11.9"), phase="aztec_land_combat")
    state.apply("attack 1110")
    assert {"S1", "S2"} <= on_map_seen(state, "aztec")
    assert [str(a) for a in state.legal_actions()] == ["join A11"]
    assert "11.9" in [rule for rule, _ in state.why_illegal("cancel")]
    state.apply("join A11")
    state.apply("resolve")
    state.apply("roll 7")
    while any(a.kind == "lose" for a in state.legal_actions()):
        state.apply(state.legal_actions()[0])
    # The battle over, S2 is closed again.
    assert "S2" not in on_map_seen(state, "aztec")


@pytest.mark.rule("11.9")
def test_11_9_the_other_reading_lets_him_call_the_attack_off() -> None:
    state = fogged(book_with("11.9", fog_of_war_top_unit="may_call_off"), phase="aztec_land_combat")
    state.apply("attack 1110")
    assert "cancel" in texts(state)
    state.apply("cancel")
    assert "S2" not in on_map_seen(state, "aztec")


@pytest.mark.rule("11.9")
@pytest.mark.rule("11.2")
def test_11_9_a_failed_ambush_still_lets_him_drop_the_attack() -> None:
    positions = {"S1": "1110", "S2": "1110", "A1": "1111", "A11": "3016"}
    state = fogged(book_with("11.2", "11.3", "11.9"), positions, phase="aztec_land_combat")
    state.apply("attack 1110")
    state.apply("join A1")
    state.apply("resolve")
    # The stack was shown when he declared the attack: he may ambush any of its units.
    assert texts(state) == ["resolve", "ambush S1", "ambush S2", "ambush_stack"]
    state.apply("ambush S2")
    state.apply("ambush_roll")
    state.apply("roll 5")
    assert texts(state) == ["resolve", "cancel"]
    state.apply("cancel")
    assert state.evaluate("ambush_failed") is False
    assert "S2" not in on_map_seen(state, "aztec")


@pytest.mark.rule("11.9")
@pytest.mark.rule("8.8")
def test_11_9_spanish_attackers_out_of_a_stack_are_shown_at_the_odds() -> None:
    state = fogged(book_with("11.9"), phase="spanish_land_combat")
    state.apply("attack 1111")
    state.apply("join S2")
    assert not state.log[-1].visible_to("aztec")
    assert "S2" not in on_map_seen(state, "aztec")
    state.apply("resolve")
    assert state.is_chance_node()
    assert "S2" in on_map_seen(state, "aztec")
    assert state.log[-1].visible_to("aztec") and "S2 against 1111" in state.log[-1].text


# ------------------------------------------------------------------ 11.10
def disease_interphase(book: cortes_rules.Rulebook) -> GameState:
    from test_10_interphase import split
    return split(book, {**GARRISON, "S1": "1110", "A1": "3016", "A11": "3017"})


@pytest.mark.rule("11.10")
@pytest.mark.parametrize("roll", [2, 12])
def test_11_10_disease_on_two_or_twelve(roll: int) -> None:
    from test_10_interphase import run
    state = disease_interphase(book_with("11.10"))
    # desertion (no allies: 3), recovery rolls none; then the disease roll,
    # the Spanish die (2 steps) and the Aztec dice (3 steps).
    run(state, [3, roll, 2, 3], exact=True)
    assert state.attribute("S1", "steps") == 2
    aztec_steps = state.attribute("A1", "steps") + state.attribute("A11", "steps")
    assert aztec_steps == 4 + 2 - 3
    assert any("disease strikes" in t for t in logged(state, "11.10"))


@pytest.mark.rule("11.10")
def test_11_10_no_disease_otherwise_and_nothing_when_off() -> None:
    from test_10_interphase import run
    state = disease_interphase(book_with("11.10"))
    run(state, [3, 7], exact=True)
    assert state.attribute("S1", "steps") == 4
    assert any("no disease" in t for t in logged(state, "11.10"))
    state = disease_interphase(book_with())
    run(state, [3], exact=True)
    assert not logged(state, "11.10")


# ------------------------------------------------------------------ 11.1
RAIDERS = {"S1": "1110", "A11": "0820", "A12": "1212", "A13": "0830", "A1": "0840"}


def raid_phase(book: cortes_rules.Rulebook, held: int = 1,
               steps: Mapping[str, int] | None = None) -> GameState:
    state = book.new_game(positions={**GARRISON, **RAIDERS})
    state.set_value("interphases_held", held)
    for uid, n in (steps or {}).items():
        state.set_attribute(uid, "steps", n)
    while state.phase != "aztec_land_movement":
        state.apply("end")
    state.apply("end")
    return state


@pytest.mark.rule("11.1")
def test_11_1_a_full_strength_regular_on_the_edge_may_raid_once() -> None:
    state = raid_phase(book_with("11.1"), steps={"A13": 1})
    # A12 is off the edge, A13 is worn down, A1 is a knight: only A11 may go.
    assert state.current_player == "aztec" and texts(state) == ["end", "raid A11"]
    state.apply("raid A11")
    assert state.place_of("A11") == "raided"
    assert state.evaluate("raid_since_interphase") is True
    assert state.phase == "aztec_land_combat"   # one raid per phase
    assert any("on a raid" in t for t in logged(state, "11.1"))


@pytest.mark.rule("11.1")
def test_11_1_no_raid_before_the_first_interphase_nor_without_a_point_left() -> None:
    state = raid_phase(book_with("11.1"), held=0)
    assert state.phase == "aztec_land_combat"
    state = book_with("11.1").new_game(positions={**GARRISON, **RAIDERS})
    state.set_value("interphases_held", 1)
    while state.phase != "aztec_land_movement":
        state.apply("end")
    state.apply("move A11 0821")
    state.apply("move A11 0820")
    state.apply("move A11 0821")
    state.apply("move A11 0820")   # four points spent, none left for the exit
    state.apply("end")
    assert texts(state) == ["end", "raid A13"]
    state.apply("end")
    assert state.phase == "aztec_land_combat" and state.place_of("A11") == "0820"


@pytest.mark.rule("11.1")
@pytest.mark.rule("7.9")
def test_11_1_a_raid_leaves_from_a_clear_hex_only_never_a_city(tmp_path: Path) -> None:
    # The shipped map has no city on the south or west edge; on a map with
    # one, a unit in it stands on clear ground under the city but not on a
    # clear hex (7.9), and may not raid from it.
    shipped = (ROOT / "rulebook" / "cortes" / "map.rules").read_text(encoding="utf-8")
    line = "  hex 1003 1004 1104: clear, dry_land_city\n"
    assert line in shipped
    town = tmp_path / "map.rules"
    town.write_text(shipped.replace(line, line + "  hex 0820: clear, dry_land_city\n"),
                    encoding="utf-8")
    book = cortes_rules.load("cortes", options=["11.1"], map=town)
    # A11 stands in the city at 0820: only A13, on clear 0830, may go.
    assert texts(raid_phase(book)) == ["end", "raid A13"]
    assert texts(raid_phase(book_with("11.1"))) == ["end", "raid A11", "raid A13"]
    clear_edge = 'list(h.id for h in west_edge where h.id in ["0820", "0830"] and clear_hex(h))'
    assert book.evaluate(clear_edge) == ("0830",)
    assert book_with("11.1").evaluate(clear_edge) == ("0820", "0830")
    # The other reading takes any hex on clear ground, the city included.
    ground = cortes_rules.load("cortes", options=["11.1"], map=town,
                               readings={"raid_exit_hex": "clear_ground"})
    assert texts(raid_phase(ground)) == ["end", "raid A11", "raid A13"]


@pytest.mark.rule("11.1")
def test_11_1_off_no_raid() -> None:
    state = raid_phase(book_with())
    assert state.phase == "aztec_land_combat"


@pytest.mark.rule("11.1")
@pytest.mark.parametrize(("raided", "deserted"), [(True, True), (False, False)])
def test_11_1_a_raid_takes_one_off_the_desertion_roll(raided: bool, deserted: bool) -> None:
    from test_10_interphase import run, split
    state = split(book_with("11.1"), {**GARRISON, "S1": "1110", "A1": "3016", "S30": "1210"})
    state.set_value("raid_since_interphase", raided)
    run(state, [1], exact=False)
    assert (state.place_of("S30") == "deserted") is deserted
    assert state.evaluate("raid_since_interphase") is False


# ------------------------------------------------------------------ 11.6
CANNON = {"S1": "1110", "S2": "1110", "S25": "1110", "A1": "1212", "A11": "3016"}


@pytest.mark.rule("11.6")
def test_11_6_a_cannon_moves_only_carried_by_infantry() -> None:
    state = book_with("11.6").new_game(positions={**GARRISON, **CANNON})
    assert texts(state) == ["end", "carry S25 S1", "carry S25 S2"]
    state.apply("carry S25 S1")
    state.apply("end")
    assert "move S25 1111" not in texts(state)       # never on its own (7.4)
    state.apply("move S1 1111")
    assert state.place_of("S25") == "1111"
    state.apply("move S2 1109")                       # another unit: no cannon
    assert state.place_of("S25") == "1111"


@pytest.mark.rule("11.6")
def test_11_6_the_carrier_changes_only_at_the_start_of_a_spanish_movement_phase() -> None:
    state = book_with("11.6").new_game(positions={**GARRISON, **CANNON})
    state.apply("carry S25 S1")
    state.apply("end")
    assert not any(a.startswith(("carry", "drop")) for a in texts(state))
    while state.phase != "spanish_land_movement" or state.turn == 1:
        state.apply("play_on" if state.phase == "end_of_turn" else "end")
    assert texts(state) == ["end", "carry S25 S2", "drop S25"]


@pytest.mark.rule("11.6")
def test_11_6_off_the_cannon_stays_put() -> None:
    state = book_with().new_game(positions={**GARRISON, **CANNON})
    assert not any(a.startswith("carry") for a in texts(state))
    state.apply("move S1 1111")
    assert state.place_of("S25") == "1110"


@pytest.mark.rule("11.6")
@pytest.mark.parametrize(("reading", "where"), [("counted", "gone.spanish"),
                                                ("not_counted", None)])
def test_11_6_an_aztec_unit_enters_a_lone_cannon_hex_and_destroys_it(
        reading: str, where: str | None) -> None:
    book = book_with("11.6", cannon_loss_points=reading)
    state = start(book, {"S25": "1110", "S1": "1010", "A11": "1111", "A12": "3016"},
                  "aztec_land_movement")
    state.apply("move A11 1110")
    assert state.place_of("A11") == "1110"
    assert state.place_of("S25") == where
    assert state.evaluate("loss_points_from_dead_units()") == (1 if where else 0)
    # Without 11.6 the cannon bars the hex (7.5).
    state = start(book_with(), {"S25": "1110", "S1": "1010", "A11": "1111", "A12": "3016"},
                  "aztec_land_movement")
    assert "move A11 1110" not in texts(state)


@pytest.mark.rule("11.6")
@pytest.mark.rule("7.19")
def test_11_6_an_aztec_unit_landing_from_the_lake_destroys_a_lone_cannon() -> None:
    positions = {"S25": "3517", "S1": "1110", "A11": "zone.10", "A12": "3016"}
    state = start(book_with("11.6"), positions, "aztec_lake_movement")
    state.apply("sail A11 3517")
    assert state.place_of("A11") == "3517" and state.place_of("S25") == "gone.spanish"
    state = start(book_with(), positions, "aztec_lake_movement")
    assert "sail A11 3517" not in texts(state)


def cannon_battle(book: cortes_rules.Rulebook, aztec_attacks: bool, roll: int) -> GameState:
    positions = {"S1": "1110", "S25": "1110", "A1": "1111", "A12": "3016"}
    state = book.new_game(positions={**GARRISON, **positions})
    if "11.6" in book.program.options:
        state.apply("carry S25 S1")
    phase = "aztec_land_combat" if aztec_attacks else "spanish_land_combat"
    while state.phase != phase:
        state.apply("end")
    state.apply("attack 1110" if aztec_attacks else "attack 1111")
    state.apply("join A1" if aztec_attacks else "join S1")
    state.apply("resolve")
    state.apply(f"roll {roll}")
    settle(state)
    return state


@pytest.mark.rule("11.6")
@pytest.mark.parametrize("aztec_attacks", [True, False])
def test_11_6_a_cannon_in_the_battle_costs_the_aztecs_one_more_step(aztec_attacks: bool) -> None:
    # Aztec attack: 6 against 7 is 1:2, a 9 there is 2/2: the knight loses 2.
    # Spanish attack: 7 against 6 is 1:1, a 9 there is 0/0: nobody loses.
    state = cannon_battle(book_with("11.6"), aztec_attacks, 9)
    assert state.attribute("A1", "steps") == (1 if aztec_attacks else 3)
    assert any("one more step" in t for t in logged(state, "11.6"))
    plain = cannon_battle(book_with(), aztec_attacks, 9)
    assert plain.attribute("A1", "steps") == (2 if aztec_attacks else 4)


@pytest.mark.rule("11.6")
@pytest.mark.parametrize(("reading", "lost"), [("once", 1), ("cumulative", 2)])
def test_11_6_with_8_24_the_bonus_both_ways(reading: str, lost: int) -> None:
    book = book_with("11.6", "8.24", cannon_bonus_twice=reading)
    state = cannon_battle(book, True, 9)       # 2/2 at 1:2, the cannon defending
    assert state.attribute("A1", "steps") == 2 - lost


@pytest.mark.rule("11.6")
def test_11_6_a_cannon_shares_the_fate_of_its_carrier() -> None:
    book = book_with("11.6")
    state = book.new_game(positions={**GARRISON, "S1": "1110", "S25": "1110", "A1": "1111",
                                     "A2": "1111", "A3": "1210", "A12": "3016"})
    state.set_attribute("S1", "steps", 1)
    state.apply("carry S25 S1")
    while state.phase != "aztec_land_combat":
        state.apply("end")
    state.apply("attack 1110")
    for uid in ("A1", "A2", "A3"):
        state.apply(f"join {uid}")
    state.apply("resolve")
    state.apply("roll 12")
    settle(state)
    assert state.place_of("S1") == "dead.spanish"
    assert state.place_of("S25") == "dead.spanish"
    assert any("shares the fate" in t for t in logged(state, "11.6"))


# ------------------------------------------------------------------ 11.4 and 11.5
CHARGE = {"S9": "1110", "S1": "1110", "A11": "1111", "A12": "3016"}


def charge_battle(book: cortes_rules.Rulebook, positions: Mapping[str, str] | None = None,
                  attackers: Iterable[str] = ("S9",)) -> GameState:
    state = start(book, dict(positions or CHARGE), "spanish_land_combat")
    state.apply("attack 1111")
    for uid in attackers:
        state.apply(f"join {uid}")
    state.apply("resolve")
    return state


@pytest.mark.rule("11.4")
def test_11_4_cavalry_may_charge_before_the_battle() -> None:
    state = charge_battle(book_with("11.4", "11.5"))
    assert state.current_player == "spanish" and texts(state) == ["resolve", "charge"]
    state.apply("charge")
    odds = dict((str(a), p) for a, p in state.chance_outcomes())
    assert len(odds) == 6
    state.apply("roll 3")          # regular warriors only: 3-6 succeeds
    assert any("it succeeds" in t for t in logged(state, "11.4"))


@pytest.mark.rule("11.4")
def test_11_4_against_knights_only_five_or_six_succeeds() -> None:
    positions = dict(CHARGE, A1="1111")
    state = charge_battle(book_with("11.4", "11.5"), positions)
    state.apply("charge")
    state.apply("roll 4")
    assert any("it fails" in t for t in logged(state, "11.4"))
    # A failed charge: the battle goes on as usual, to its own roll.
    assert state.is_chance_node()
    assert [str(a) for a, _ in state.chance_outcomes()][0] == "roll 2"
    assert state.place_of("S9") == "1110"


@pytest.mark.rule("11.4")
def test_11_4_no_charge_without_cavalry_or_when_off() -> None:
    state = charge_battle(book_with("11.4", "11.5"), attackers=("S1",))
    assert state.is_chance_node()   # straight to the battle's roll
    state = charge_battle(book_with())
    assert state.is_chance_node() and not logged(state, "11.4")


@pytest.mark.rule("11.4")
def test_11_4_alone_a_successful_charge_changes_nothing() -> None:
    state = charge_battle(book_with("11.4"))
    state.apply("charge")
    state.apply("roll 6")
    assert state.is_chance_node()   # the battle is rolled as usual
    assert state.attribute("A11", "steps") == 2
    assert not any("loses" in t or "drives" in t for t in logged(state, "11.5"))


@pytest.mark.rule("11.5")
def test_11_5_a_successful_charge_costs_a_step_and_drives_the_stack_back() -> None:
    state = charge_battle(book_with("11.4", "11.5"))
    state.apply("charge")
    state.apply("roll 3")
    assert texts(state) == ["lose A11"]
    state.apply("lose A11")
    assert state.current_player == "spanish"
    assert "drive 1110" not in texts(state)          # never into a Spanish hex (7.5)
    state.apply("drive 1012")
    assert state.place_of("A11") == "1012" and state.attribute("A11", "steps") == 1
    assert state.place_of("S9") == "1111"            # the cavalry must enter
    assert texts(state) == ["stop", "advance S1"]    # the others may
    state.apply("stop")
    assert state.place_of("S1") == "1110"
    # The combat phase goes on: S9 may attack the hex the Aztecs fell back to.
    legal = texts(state)
    assert "attack 1012" in legal
    state.apply("attack 1012")
    assert texts(state) == ["cancel", "join S9"]


@pytest.mark.rule("11.5")
@pytest.mark.rule("9.4")
def test_11_5_the_charged_stack_is_never_driven_onto_a_lone_leader_or_cannon() -> None:
    # Cortes alone (9.4) and a cannon alone (11.6) may be entered by an Aztec
    # unit that moves; the drive is not such a move.
    positions = dict(CHARGE, Cortes="1112", S25="1211")
    state = charge_battle(book_with("11.4", "11.5", "11.6"), positions)
    state.apply("charge")
    state.apply("roll 3")
    state.apply("lose A11")
    drives = {a for a in texts(state) if a.startswith("drive ")}
    assert drives == {"drive 1011", "drive 1012", "drive 1212"}


@pytest.mark.rule("11.5")
def test_11_5_no_cavalry_charges_twice_in_a_combat_phase() -> None:
    positions = dict(CHARGE, A13="1012")
    state = charge_battle(book_with("11.4", "11.5"), positions)
    state.apply("charge")
    state.apply("roll 3")
    state.apply("lose A11")
    state.apply("drive 1211")
    state.apply("stop")
    state.apply("attack 1012")
    state.apply("join S9")
    state.apply("resolve")
    assert state.is_chance_node()   # S9 charged already: no second charge offered


@pytest.mark.rule("11.5")
def test_11_5_each_successful_die_costs_a_step() -> None:
    positions = dict(CHARGE, S10="1110", A1="1111")
    state = charge_battle(book_with("11.4", "11.5"), positions, attackers=("S9", "S10"))
    state.apply("charge")
    state.apply("roll 6")
    state.apply("roll 5")
    settle(state)
    steps = state.attribute("A11", "steps") + state.attribute("A1", "steps")
    assert steps == 4          # two steps of six, against knights on a 6 and a 5
    state.apply("drive 1212")
    assert state.place_of("A11") == "1212" and state.place_of("A1") == "1212"
    assert state.place_of("S9") == "1111" and state.place_of("S10") == "1111"


@pytest.mark.rule("11.5")
def test_11_5_off_a_successful_charge_has_no_effect() -> None:
    state = charge_battle(book_with("11.4"))
    state.apply("charge")
    state.apply("roll 3")
    assert state.is_chance_node() and state.place_of("A11") == "1111"


@pytest.mark.rule("11.5")
@pytest.mark.parametrize(("reading", "eliminated"), [("stays", False), ("eliminated", True)])
def test_11_5_a_stack_with_nowhere_to_go_both_ways(reading: str, eliminated: bool) -> None:
    positions = {"S9": "1110", "S1": "1211", "S2": "1212", "S3": "1112", "S4": "1012",
                 "S5": "1011", "A11": "1111", "A12": "3016"}
    state = charge_battle(book_with("11.4", "11.5", charge_blocked=reading), positions)
    state.apply("charge")
    state.apply("roll 4")
    state.apply("lose A11")
    if eliminated:
        assert state.place_of("A11") == "dead.aztec" and state.place_of("S9") == "1111"
    else:
        assert state.place_of("A11") == "1111" and state.attribute("A11", "steps") == 1
        assert state.is_chance_node()     # the battle is fought as usual
        assert state.place_of("S9") == "1110"


# ------------------------------------------------------------------ 11.2 and 11.3
AMBUSH = {"S1": "1110", "S2": "1110", "A1": "1111", "A11": "3016"}


def ambush_battle(book: cortes_rules.Rulebook, positions: Mapping[str, str] | None = None,
                  attackers: Iterable[str] = ("A1",)) -> GameState:
    state = start(book, dict(positions or AMBUSH), "aztec_land_combat")
    state.apply("attack 1110")
    for uid in attackers:
        state.apply(f"join {uid}")
    state.apply("resolve")
    return state


@pytest.mark.rule("11.2")
def test_11_2_knights_may_try_an_ambush_on_a_unit_or_the_stack() -> None:
    state = ambush_battle(book_with("11.2", "11.3"))
    assert state.current_player == "aztec"
    assert texts(state) == ["resolve", "ambush S1", "ambush S2", "ambush_stack"]
    state.apply("ambush S1")
    assert texts(state) == ["ambush_roll", "ambush_press"]
    state.apply("ambush_roll")
    state.apply("roll 5")            # 1-5: no ambush
    assert any("no ambush" in t for t in logged(state, "11.2"))
    assert texts(state) == ["resolve", "cancel"]


@pytest.mark.rule("11.2")
def test_11_2_one_die_per_knight_until_a_six() -> None:
    positions = dict(AMBUSH, A2="1111")
    state = ambush_battle(book_with("11.2", "11.3"), positions, attackers=("A1", "A2"))
    state.apply("ambush_stack")
    state.apply("ambush_roll")
    state.apply("roll 4")
    state.apply("ambush_roll")      # the second knight
    state.apply("roll 6")
    assert any("A2 rolls 6: the ambush is sprung" in t for t in logged(state, "11.2"))
    assert any(t.startswith("lure") for t in texts(state))


@pytest.mark.rule("11.2")
def test_11_2_a_knight_may_give_up_a_step_to_spring_on_four() -> None:
    state = ambush_battle(book_with("11.2", "11.3"))
    state.apply("ambush S1")
    state.apply("ambush_press")
    assert state.attribute("A1", "steps") == 3
    state.apply("roll 4")
    assert any("sprung" in t for t in logged(state, "11.2"))
    # A knight of one step may not press.
    state = start(book_with("11.2"), AMBUSH, "aztec_land_combat", steps={"A1": 1})
    state.apply("attack 1110")
    state.apply("join A1")
    state.apply("resolve")
    state.apply("ambush S1")
    assert state.is_chance_node()


@pytest.mark.rule("11.2")
def test_11_2_after_a_failed_ambush_the_attack_may_be_dropped() -> None:
    state = ambush_battle(book_with("11.2", "11.3"))
    state.apply("ambush S1")
    state.apply("ambush_roll")
    state.apply("roll 1")
    state.apply("cancel")
    assert not state.is_chance_node()
    assert state.evaluate("target.attacked", target="1110") is False
    assert state.attribute("A1", "attacked") is False
    assert "attack 1110" in texts(state)


@pytest.mark.rule("11.2")
def test_11_2_off_or_without_knights_no_ambush() -> None:
    assert ambush_battle(book_with()).is_chance_node()
    positions = {"S1": "1110", "A11": "1111", "A12": "3016"}
    assert ambush_battle(book_with("11.2", "11.3"), positions, attackers=("A11",)).is_chance_node()


@pytest.mark.rule("11.2")
def test_11_2_alone_a_sprung_ambush_moves_nobody() -> None:
    state = ambush_battle(book_with("11.2"))
    state.apply("ambush S1")
    state.apply("ambush_roll")
    state.apply("roll 6")
    assert state.is_chance_node() and state.place_of("S1") == "1110"


def sprung(book: cortes_rules.Rulebook, who: str = "ambush S1") -> GameState:
    state = ambush_battle(book)
    state.apply(who)
    state.apply("ambush_roll")
    state.apply("roll 6")
    return state


@pytest.mark.rule("11.3")
def test_11_3_the_ambushers_draw_the_trapped_units_along_their_path() -> None:
    state = sprung(book_with("11.2", "11.3"))
    assert "stop" not in texts(state)           # at least one hex
    assert "lure 1110" not in texts(state)      # never into the Spanish hex
    state.apply("lure 1112")
    state.apply("lure 1113")
    state.apply("lure 1114")
    assert not any(t.startswith("lure") for t in texts(state))   # three hexes at most
    assert state.place_of("A1") == "1114" and state.place_of("A11") == "3016"
    assert state.place_of("S1") == "1113" and state.place_of("S2") == "1110"
    assert state.attribute("S1", "dragged") == 3
    # The battle against the trapped unit follows at once; no calling it off.
    assert texts(state) == ["join A1"]
    state.apply("join A1")
    assert "cancel" not in texts(state)
    state.apply("resolve")
    assert state.is_chance_node()


@pytest.mark.rule("11.3")
def test_11_3_the_whole_stack_may_be_trapped_and_ambushers_stacked_go_along() -> None:
    positions = dict(AMBUSH, A12="1111")
    state = start(book_with("11.2", "11.3"), positions, "aztec_land_combat")
    state.apply("attack 1110")
    state.apply("join A1")
    state.apply("resolve")
    state.apply("ambush_stack")
    state.apply("ambush_roll")
    state.apply("roll 6")
    state.apply("lure 1112")
    state.apply("stop")
    assert state.place_of("A12") == "1112"      # stacked with the knight: it goes along
    assert state.place_of("S1") == "1111" and state.place_of("S2") == "1111"


@pytest.mark.rule("11.3")
@pytest.mark.parametrize("reading", ["any_path", "straight_line"])
def test_11_3_the_path_both_ways(reading: str) -> None:
    state = sprung(book_with("11.2", "11.3", ambush_path=reading))
    state.apply("lure 1112")
    bends = {"lure 1012", "lure 1212"} & set(texts(state))
    assert bool(bends) is (reading == "any_path")
    assert "lure 1113" in texts(state)


@pytest.mark.rule("11.3")
def test_11_3_off_the_battle_is_fought_where_it_was() -> None:
    state = sprung(book_with("11.2"))
    assert state.is_chance_node() and state.place_of("A1") == "1111"


@pytest.mark.rule("11.3")
def test_11_3_no_further_than_the_trapped_units_movement_allows() -> None:
    # Chinampa city costs 2: infantry (4 MP) is dragged two hexes, not three,
    # as the clarification's example says.
    positions = {"S1": "2616", "A1": "2617", "A11": "3016"}
    state = start(book_with("11.2", "11.3"), positions, "aztec_land_combat")
    state.apply("attack 2616")
    state.apply("join A1")
    state.apply("resolve")
    state.apply("ambush S1")
    state.apply("ambush_roll")
    state.apply("roll 6")
    state.apply("lure 2618")
    state.apply("lure 2619")
    assert texts(state) == ["join A1"]       # no third hex: the battle follows
    assert state.place_of("S1") == "2618" and state.attribute("S1", "dragged") == 4


@pytest.mark.rule("11.10")
def test_11_10_the_owner_picks_any_unit_even_a_last_step() -> None:
    from test_10_interphase import split
    state = split(book_with("11.10"), {**GARRISON, "S1": "1110", "S2": "1010", "A1": "3016"})
    while True:                 # up to the disease roll, the only two-dice roll
        if state.is_chance_node():
            if len(state.chance_outcomes()) == 11:
                break
            state.apply("roll 3")
            continue
        legal = texts(state)
        state.apply("end" if "end" in legal else legal[0])
    state.set_attribute("S1", "steps", 1)
    state.apply("roll 12")
    state.apply("roll 1")       # one Spanish step
    assert "lose S1" in texts(state) and "lose S2" in texts(state)   # 8.21 does not bind
    state.apply("lose S1")
    assert state.place_of("S1") == "dead.spanish"
