"""Grands Stratèges scenario VIII on the two boards side by side: player B's
reinforcements, set aside before the deployment, are called by a die roll from
turn 3 and enter together by one road of the south edge; with the morale
rules on, the scenario's three ways of applying them (variants a, b, c)."""

from __future__ import annotations

import pytest
from gs_helpers import legal

import cortes_rules


@pytest.fixture(scope="module")
def viii() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario="VIII")


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_player_b_sets_aside_three_infantry_two_cavalry_one_artillery(
        viii: cortes_rules.Rulebook) -> None:
    state = viii.new_game(seed=1)
    assert state.phase == "set_aside" and state.current_player == "b"
    for unit in ("B1", "B2", "B3", "B14", "B15"):
        state.apply(f"hold_back {unit}")
    # Three infantry and two cavalry are set aside: only artillery is left to choose.
    assert {a.split()[1] for a in legal(state)} == {f"B{n}" for n in range(21, 26)}
    state.apply("hold_back B21")
    assert state.phase == "deploy"
    assert all(state.place_of(u) == "reinforcements.b"
               for u in ("B1", "B2", "B3", "B14", "B15", "B21"))


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
def test_reinforcements_are_called_from_turn_three_and_take_one_road(
        viii: cortes_rules.Rulebook) -> None:
    positions = {"A6": "0101", "B6": "1622", "B1": "reinforcements.b",
                 "B2": "reinforcements.b"}
    state = viii.new_game(seed=1, positions=positions)
    for _ in range(2):   # turns 1 and 2: no roll
        for action in ("end", "end_combat", "end", "end_combat"):
            state.apply(action)
    state.apply("end")
    state.apply("end_combat")
    assert state.turn == 3 and state.is_chance_node()
    state.apply("roll 2")
    assert "his reinforcements march onto the field" in state.log[-1].text
    entries = {a for a in legal(state) if a.startswith("enter B1 ")}
    assert entries == {"enter B1 0322", "enter B1 0722", "enter B1 2622", "enter B1 3022"}
    state.apply("enter B1 2622")
    state.apply("move B1 2621")
    # The others follow by the same road.
    assert {a for a in legal(state) if a.startswith("enter B2 ")} == {"enter B2 2622"}


# The morale variants, with the morale rules (XI) on. Player A has brought 23
# factors and lost 8 (A2); player B has brought 35 and lost 22 (B1-B3).
MORALE = ["XI.1", "XI.2", "XI.3", "XI.4"]
BROKEN_B = {"A1": "1510", "A7": "1512", "A11": "0105", "B6": "1511", "B4": "1513",
            "B13": "3020", "A2": "eliminated.a", "B1": "eliminated.b",
            "B2": "eliminated.b", "B3": "eliminated.b"}


def morale_game(variant: str) -> cortes_rules.GameState:
    book = cortes_rules.load("grands_strateges", scenario="VIII", options=MORALE,
                             readings={"scenario_viii_morale": variant})
    return book.new_game(seed=1, positions=BROKEN_B)


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
@pytest.mark.rule("XI.2", rulebook="grands_strateges")
def test_variant_a_half_and_variant_b_forty_and_sixty_percent() -> None:
    half = morale_game("half")
    # Variant a is XI.1's own value: half the factors in play at the start.
    assert (half.evaluate("a.morale"), half.evaluate("b.morale")) == (15 / 2, 13 / 2)
    uneven = morale_game("forty_sixty")
    # Variant b: 40% of A's 23 factors (9.2, rounded up), 60% of B's 35.
    assert (uneven.evaluate("a.morale"), uneven.evaluate("b.morale")) == (10, 21)
    assert uneven.evaluate("demoralised(b)") and not uneven.evaluate("demoralised(a)")


def fight_two_battles(state: cortes_rules.GameState) -> cortes_rules.GameState:
    """A1 drives B6 back (1:1, a 4); then A7 is destroyed attacking B4 (a 1)."""
    state.apply("end")
    for action in ("attack 1511", "join A1", "resolve", "roll 4", "retreat B6 1411", "stop"):
        state.apply(action)
    for action in ("attack 1513", "join A7", "resolve", "roll 1"):
        state.apply(action)
    assert any(": AE" in e.text for e in state.log[-3:])
    assert state.evaluate("losses(a)") == 12
    return state


@pytest.mark.rule("XI.4", rulebook="grands_strateges")
def test_without_variant_c_both_armies_break() -> None:
    state = fight_two_battles(morale_game("forty_sixty"))
    assert state.evaluate("demoralised(a)") and state.evaluate("demoralised(b)")


@pytest.mark.rule("XI.4", rulebook="grands_strateges")
@pytest.mark.rule("XI.2", rulebook="grands_strateges")
def test_variant_c_the_first_army_to_break_spares_the_other() -> None:
    state = morale_game("forty_sixty_first_only")
    assert state.evaluate("first_broken") == ()
    state = fight_two_battles(state)
    # B was past its breaking point when the first battle ended: it broke first.
    assert [str(q) for q in state.evaluate("first_broken")] == ["b"]
    assert any("demoralised first" in e.text for e in state.log)
    # A's losses (12) pass its value (10), but it can no longer break.
    assert state.evaluate("losses(a) >= a.morale")
    assert not state.evaluate("demoralised(a)")
    assert state.evaluate("demoralised(b)")


@pytest.mark.rule("XI.4", rulebook="grands_strateges")
def test_variant_c_armies_breaking_in_the_same_battle_both_break() -> None:
    # A has lost 14 of the 29 factors it brought (A2 and A3): past its 12.
    positions = dict(BROKEN_B, A3="eliminated.a")
    book = cortes_rules.load("grands_strateges", scenario="VIII", options=MORALE,
                             readings={"scenario_viii_morale": "forty_sixty_first_only"})
    state = book.new_game(seed=1, positions=positions)
    state.apply("end")
    # A, demoralised, may not advance after its win (XI.3): no choice to stop.
    for action in ("attack 1511", "join A1", "resolve", "roll 4", "retreat B6 1411"):
        state.apply(action)
    assert "advance A1 1511" not in legal(state)
    assert sorted(str(q) for q in state.evaluate("first_broken")) == ["a", "b"]
    assert state.evaluate("demoralised(a)") and state.evaluate("demoralised(b)")
