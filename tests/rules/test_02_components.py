"""Section 2: components. Steps and the dead piles (2.10)."""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules


def _eliminate_a11(game, battle, resolve):
    state = game({"S1": "1110", "S9": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S9"])
    resolve(state, 12)            # 0/4 at the final column: A11 loses both steps
    while state.current_player == "aztec":
        state.apply("lose A11")
    return state


@pytest.mark.rule("2.10")
def test_2_10_each_side_has_a_dead_pile_and_a_box_for_units_gone_for_good(book):
    assert {"dead.spanish", "dead.aztec", "gone.spanish", "gone.aztec"} <= set(book.place_ids)
    state = book.new_game()
    assert state.evaluate("p.kind", p="dead.spanish") == "pool"
    assert state.evaluate("p.kind", p="1110") == "hex"


@pytest.mark.rule("2.10")
def test_2_10_a_unit_losing_its_last_step_goes_to_its_dead_pile(game, battle, resolve):
    state = _eliminate_a11(game, battle, resolve)
    assert state.place_of("A11") == "dead.aztec"
    assert "A11" not in state.pieces_at("1111")
    assert state.attribute("A11", "steps") == 0
    eliminated = [e for e in state.log if "A11 loses a step and is eliminated" in e.text]
    assert eliminated and "2.10" in eliminated[-1].rules


@pytest.mark.rule("2.10")
def test_2_10_units_in_a_dead_pile_take_no_part_in_play(game, battle, resolve):
    state = _eliminate_a11(game, battle, resolve)
    assert state.evaluate("on_map(u)", u="A11") is False
    assert state.evaluate("on_map(u)", u="S1") is True
    assert "A11" not in [str(u) for u in state.evaluate("own_units(s)", s="aztec")]
    assert state.why_illegal("move A11 1111")


@pytest.mark.rule("6.7")
def test_6_7_units_removed_from_an_overstack_go_to_their_dead_pile(book):
    state = book.new_game(positions={"S3": "1110", "S29": "1111", "S30": "1111"})
    state.apply("move S29 1110")
    state.apply("move S30 1110")
    state.apply("end")
    state.apply("remove S3")
    assert state.place_of("S3") == "dead.spanish"


@pytest.mark.rule("2.10")
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_2_10_no_unit_ever_has_more_steps_than_it_started_with(seed):
    # Property over random play from the demonstration set-up: every unit
    # is in exactly one place, never above its starting steps, and a unit
    # with no steps left is never on the map.
    book = _BOOK
    state = book.new_game(setup="demo", seed=seed, turn_limit=2)
    start = {u: state.attribute(u, "steps") for u in book.unit_ids}
    plies = 0
    while not state.is_terminal() and plies < 150:
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(ids[(seed + plies * 7919) % len(ids)])
        plies += 1
        for unit in book.unit_ids:
            steps = state.attribute(unit, "steps")
            assert steps <= start[unit]
            place = state.place_of(unit)
            if place is not None and not place.startswith(("dead.", "gone.")):
                assert steps > 0 or start[unit] == 0


_BOOK = cortes_rules.load("cortes")
