"""Grands Stratèges, the advanced rules VII-XII (optional), on the test board.

Each is off in the basic game and on with its number or the preset
``advanced``; the tests play each both ways where it changes play.
"""

from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

import pytest
from gs_helpers import last_lines, legal, refusal_rules

import cortes_rules
from cortes_rules import GameState

BOARD = Path(__file__).resolve().parent / "examples_map.rules"


@pytest.fixture(scope="module")
def advanced() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", map=BOARD, options="advanced")


def start(book: cortes_rules.Rulebook, positions: Mapping[str, str], *,
          combat: bool = False) -> GameState:
    placed = {"A13": "1601", "B13": "1612", **positions}
    state = book.new_game(positions=placed)
    if combat:
        state.apply("end")
    return state


def fight(state: GameState, target: str, units: list[str]) -> GameState:
    """Open a battle, commit the units, resolve, and keep the odds (X.1) if asked."""
    state.apply(f"attack {target}")
    for uid in units:
        state.apply(f"join {uid}")
    state.apply("resolve")
    if "keep_odds" in legal(state):
        state.apply("keep_odds")
    return state


@pytest.mark.rule("VII.1", rulebook="grands_strateges")
@pytest.mark.rule("VII.2", rulebook="grands_strateges")
def test_a_combined_arms_attack_adds_one_to_the_die(
        advanced: cortes_rules.Rulebook, gs_book: cortes_rules.Rulebook) -> None:
    positions = {"A6": "1002", "A17": "1103", "A24": "1005", "B6": "1003"}
    for book, modifier in ((advanced, 1), (gs_book, 0)):
        state = start(book, positions, combat=True)
        for action in ("attack 1003", "join A6", "join A17", "join A24", "resolve"):
            state.apply(action)
        if "keep_odds" in legal(state):
            state.apply("keep_odds")
        assert f"die modifier {modifier}" in last_lines(state, 8)


@pytest.mark.rule("VIII.1", rulebook="grands_strateges")
@pytest.mark.rule("VIII.4", rulebook="grands_strateges")
def test_a_short_charge_in_the_open_doubles_the_cavalry(
        advanced: cortes_rules.Rulebook) -> None:
    # Light cavalry (A17, 2, moving 6) rides two clear hexes to B6 and charges.
    state = start(advanced, {"A17": "1001", "B6": "1004"})
    state.apply("move A17 1002")
    state.apply("move A17 1003")
    state.apply("end")
    fight(state, "1004", ["A17"])
    assert "attack 4, defence 4" in last_lines(state, 8)


@pytest.mark.rule("VIII.1", rulebook="grands_strateges")
@pytest.mark.rule("VIII.3", rulebook="grands_strateges")
def test_no_charge_after_a_long_ride_or_from_a_controlled_hex(
        advanced: cortes_rules.Rulebook) -> None:
    # Example XXXVI bis. C: four hexes are more than half of 6: no charge.
    state = start(advanced, {"A17": "1001", "B6": "1006"})
    for to in ("1002", "1003", "1004", "1005"):
        state.apply(f"move A17 {to}")
    state.apply("end")
    fight(state, "1006", ["A17"])
    assert "attack 2, defence 4" in last_lines(state, 8)
    # B: starting next to the enemy, in its zone: no charge either.
    state = start(advanced, {"A17": "1003", "B6": "1004"}, combat=True)
    fight(state, "1004", ["A17"])
    assert "attack 2, defence 4" in last_lines(state, 8)


def ride_and_fight(book: cortes_rules.Rulebook, unit: str, path: list[str], enemy: str) -> str:
    """``unit`` rides ``path`` and attacks B6 at ``enemy`` alone: the odds line."""
    state = start(book, {unit: path[0], "B6": enemy})
    for to in path[1:]:
        state.apply(f"move {unit} {to}")
    state.apply("end")
    fight(state, enemy, [unit])
    return last_lines(state, 8)


# Heavy cavalry (A15, 3, moving 5) and light (A17, 2, moving 6) ride into
# contact with B6 (4): along the road down column 02 a hex costs half a point.
CHARGE_RIDES = [
    ("A15", ["1001", "1002", "1003"], "1004", "attack 6, defence 4"),                   # 2
    ("A15", ["0201", "0202", "0203", "0204", "0205"], "0206", "attack 3, defence 4"),   # 2.5
    ("A17", ["1001", "1002", "1003", "1004"], "1005", "attack 4, defence 4"),           # 3
    ("A17", ["0201", "0202", "0203", "0204", "0205", "0206"], "0207",
     "attack 2, defence 4"),                                                            # 3.5
]


@pytest.mark.rule("VIII.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("unit", "path", "enemy", "odds"), CHARGE_RIDES)
def test_a_charge_follows_at_most_two_points_heavy_or_three_light(
        advanced: cortes_rules.Rulebook, unit: str, path: list[str], enemy: str,
        odds: str) -> None:
    # The text fixes the figures: a heavy unit that spent 2.5 along the road
    # does not charge, though 2.5 is half of its 5 (interpretation
    # charge_allowance, reading printed).
    assert odds in ride_and_fight(advanced, unit, path, enemy)


@pytest.mark.rule("VIII.1", rulebook="grands_strateges")
def test_the_charge_allowance_as_half_the_factor(advanced: cortes_rules.Rulebook) -> None:
    half = cortes_rules.load("grands_strateges", map=BOARD, options="advanced",
                             readings={"charge_allowance": "half_factor"})
    heavy_on_roads = ("A15", ["0201", "0202", "0203", "0204", "0205"], "0206")
    assert "attack 6, defence 4" in ride_and_fight(half, *heavy_on_roads)
    assert "attack 3, defence 4" in ride_and_fight(advanced, *heavy_on_roads)
    # Light cavalry is allowed 3 either way, and not 3.5.
    assert "attack 2, defence 4" in ride_and_fight(half, *CHARGE_RIDES[3][:3])


@pytest.mark.rule("VIII.2", rulebook="grands_strateges")
def test_no_charge_into_a_village(advanced: cortes_rules.Rulebook) -> None:
    # Example XXXVI: Z, in a village, is fought at the cavalry's own factor.
    state = start(advanced, {"A17": "1501", "B6": "1503"})
    state.apply("move A17 1502")
    state.apply("end")
    for action in ("attack 1503", "join A17", "resolve"):
        state.apply(action)
    assert "attack 2, defence 8" in last_lines(state, 8)


@pytest.mark.rule("IX.1", rulebook="grands_strateges")
def test_example_xxxvii_long_range_fire_at_half_strength(
        advanced: cortes_rules.Rulebook, gs_book: cortes_rules.Rulebook) -> None:
    positions = {"A24": "1001", "B6": "1004"}
    assert "attack 1004" not in legal(start(gs_book, positions, combat=True))
    state = fight(start(advanced, positions, combat=True), "1004", ["A24"])
    assert "attack 2, defence 4, odds 1:2" in last_lines(state, 8)
    # B on the high ground (the hill 1210) reaches four hexes down, at half
    # its factor too; three is its normal range there.
    high = {"A24": "1210", "B6": "1206"}
    assert "attack 1206" not in legal(start(gs_book, high, combat=True))
    state = fight(start(advanced, high, combat=True), "1206", ["A24"])
    assert "attack 2, defence 4, odds 1:2" in last_lines(state, 8)


@pytest.mark.rule("X.1", rulebook="grands_strateges")
def test_example_xxxviii_reading_three_to_one_as_two_to_one(
        advanced: cortes_rules.Rulebook) -> None:
    state = start(advanced, {"A1": "1002", "A6": "1103", "B6": "1003"}, combat=True)
    for action in ("attack 1003", "join A1", "join A6", "resolve"):
        state.apply(action)
    assert {"keep_odds", "lower_odds 1"} <= legal(state)
    state.apply("lower_odds 1")
    state.apply("roll 1")
    # At 2:1 a 1 is an AR, not the exchange 3:1 would give.
    assert "at 2:1: AR" in last_lines(state, 8)


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
@pytest.mark.rule("XI.2", rulebook="grands_strateges")
@pytest.mark.rule("XI.3", rulebook="grands_strateges")
def test_a_demoralised_army_does_not_advance(advanced: cortes_rules.Rulebook) -> None:
    state = start(advanced, {"A1": "1002", "B6": "1003", "B7": "1010"})
    # Morale is half the factors in play: A1 + A13 = 11 -> 5.5; B6 + B7 + B13 = 11.
    assert state.evaluate("q.morale", q="a") * 2 == 11
    state.apply("end")
    for action in ("attack 1003", "join A1", "resolve"):
        state.apply(action)
    if "keep_odds" in legal(state):
        state.apply("keep_odds")
    state.apply("roll 6")       # 8 against 4 at 2:1: DR
    retreat = next(a for a in sorted(legal(state)) if a.startswith("retreat B6 "))
    state.apply(retreat)
    assert "advance A1 1003" in legal(state)
    # With A2 (8) already lost, army A (morale 5.5) is demoralised: no advance.
    state = start(advanced, {"A1": "1002", "A2": "eliminated.a", "B6": "1003", "B7": "1010"})
    state.apply("end")
    assert state.evaluate("demoralised(q)", q="a")
    for action in ("attack 1003", "join A1", "resolve"):
        state.apply(action)
    if "keep_odds" in legal(state):
        state.apply("keep_odds")
    state.apply("roll 6")
    state.apply(next(a for a in sorted(legal(state)) if a.startswith("retreat B6 ")))
    assert not any(a.startswith("advance ") for a in legal(state))


@pytest.mark.rule("XI.4", rulebook="grands_strateges")
def test_both_armies_may_be_demoralised(advanced: cortes_rules.Rulebook) -> None:
    state = start(advanced, {"A1": "1002", "A2": "eliminated.a", "B1": "1010",
                             "B2": "eliminated.b"})
    state.apply("end")
    assert state.evaluate("demoralised(q)", q="a")
    assert state.evaluate("demoralised(q)", q="b")


@pytest.mark.rule("XII.1", rulebook="grands_strateges")
@pytest.mark.rule("XII.3", rulebook="grands_strateges")
@pytest.mark.rule("XII.4", rulebook="grands_strateges")
def test_cavalry_slips_away_from_infantry_for_half_its_points(
        advanced: cortes_rules.Rulebook, gs_book: cortes_rules.Rulebook) -> None:
    positions = {"A17": "1003", "B6": "1004"}
    assert "III.6" in refusal_rules(start(gs_book, positions), "move A17 1002")
    state = start(advanced, positions)
    state.apply("move A17 1002")
    assert state.attribute("A17", "spent") == 4     # half of 6, plus the clear hex
    # Into another controlled hex in the same phase: refused.
    state = start(advanced, {"A17": "1003", "B6": "1004", "B7": "1101"})
    assert "XII.4" in refusal_rules(state, "move A17 1002")


@pytest.mark.rule("XII.2", rulebook="grands_strateges")
def test_infantry_slips_away_from_artillery_only(advanced: cortes_rules.Rulebook) -> None:
    state = start(advanced, {"A6": "1003", "B24": "1004"})
    state.apply("move A6 1002")
    assert state.attribute("A6", "spent") == 3
    state = start(advanced, {"A6": "1003", "B6": "1004"})
    assert "III.6" in refusal_rules(state, "move A6 1002")


@pytest.mark.rule("VIII.2", rulebook="grands_strateges")
def test_example_xxxvi_no_charge_through_a_forest_but_a_normal_fight(
        advanced: cortes_rules.Rulebook) -> None:
    # Y (B6) stands behind the forest 0605: A (A17) reaches it through the
    # wood with 2 of its 6 points, but only open ground allows a charge.
    state = start(advanced, {"A17": "0604", "B6": "0606"})
    state.apply("move A17 0605")
    state.apply("end")
    fight(state, "0606", ["A17"])
    assert "attack 2, defence 4" in last_lines(state, 8)
    # Z in the village (1503) is not charged either: test_no_charge_into_a_village.


@pytest.mark.rule("XII.2", rulebook="grands_strateges")
@pytest.mark.rule("XII.4", rulebook="grands_strateges")
def test_example_xxxix_leaving_a_zone_without_fighting(
        advanced: cortes_rules.Rulebook) -> None:
    # B (A17) slips away from Y (B6) into 1002, which no enemy controls, with
    # 2 points left; its next hex, 0902, lies in U's (B7) zone: refused.
    state = start(advanced, {"A17": "1003", "B6": "1004", "B7": "0803"})
    state.apply("move A17 1002")
    assert "XII.4" in refusal_rules(state, "move A17 0902")
    assert refusal_rules(state, "move A17 1001") == set()
    # C (A6, infantry) held by an infantry unit (B6) and a battery (B24) may
    # not slip away: only artillery alone lets infantry go (XII.2).
    state = start(advanced, {"A6": "1003", "B6": "1004", "B24": "1103"})
    assert "III.6" in refusal_rules(state, "move A6 1002")
