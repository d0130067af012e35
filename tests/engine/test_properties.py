"""Hypothesis properties of the reference interpreter.

Odds (8.9, 8.10, 8.17) are checked over random totals and shifts. The rest
play random legal games from the shipped set-ups (see ``strategies.play``)
and check invariants along the way: stacking at the end of movement (6.6),
movement points (7.1, 7.3), determinism, clone independence, rejected actions
leaving the state alone, action text and id round trips, and exact chance.
Games from the historical set-up are ten times dearer than the demo's, so
they get fewer and shorter examples.
"""

from __future__ import annotations

import os
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import strategies as S
from cortes_rules import Action, IllegalActionError, NotationError
from cortes_rules.dsl import ir
from cortes_rules.engine import hexgrid

_ODDS: dict[tuple[int, int, int], tuple[str, str]] = {}


def odds(book, attack: int, defense: int, shift: int = 0) -> tuple[str, str]:
    """Raw odds and final column of a what-if battle, from the rulebook's own clauses."""
    key = (attack, defense, shift)
    if key not in _ODDS:
        _ODDS[key] = book.evaluate(f"odds_what_if({shift})", attack=attack, defense=defense)
    return _ODDS[key]


def crt_columns(book) -> tuple[tuple[int, int], ...]:
    """The odds columns of the combat results table, left to right."""
    return book.evaluate("columns(crt)")


def column_of(book, text: str) -> int:
    """Index of an odds column ("3:1") in the combat results table."""
    a, b = (int(x) for x in text.split(":"))
    return crt_columns(book).index((a, b))


def new_game(book, setup: str, seed: int):
    # A turn limit keeps every game finite and lets the scripts reach the end.
    return book.new_game(seed=seed, setup=setup, turn_limit=3)


def n(examples: int) -> int:
    """An example budget, scaled by PROPERTY_SCALE (e.g. 20 for a long local search)."""
    return examples * int(os.environ.get("PROPERTY_SCALE", "1"))


# Example budgets per set-up: (max_examples, scripts). A demo step costs about
# 2 ms, a historical one about 15 ms (legal_actions over some 25 units).
BUDGET = {"demo": (n(20), S.scripts(min_size=40, max_size=80)),
          "historical": (n(5), S.scripts(min_size=15, max_size=30))}
SETUPS = ["demo", "historical"]


def script_for(setup):
    return BUDGET[setup][1]


def movement_phases(book) -> set[str]:
    return {p.name for sequence in book.program.of(ir.Sequence) for p in sequence.phases
            if p.activity == "movement"}


# =================================================================== (a) 8.9 / 8.10
@pytest.mark.rule("8.9")
@settings(max_examples=n(300))
@given(attack=S.factors, defense=S.factors, more=st.integers(0, 100), shift=S.shifts)
def test_8_9_8_10_odds_never_decrease_as_attack_grows(book, attack, defense, more, shift):
    low = column_of(book, odds(book, attack, defense, shift)[1])
    high = column_of(book, odds(book, attack + more, defense, shift)[1])
    assert high >= low


@pytest.mark.rule("8.10")
@settings(max_examples=n(300))
@given(attack=S.factors, defense=S.factors, more=st.integers(0, 100), shift=S.shifts)
def test_8_9_8_10_odds_never_increase_as_defence_grows(book, attack, defense, more, shift):
    strong = column_of(book, odds(book, attack, defense, shift)[1])
    weak = column_of(book, odds(book, attack, defense + more, shift)[1])
    assert weak <= strong


@pytest.mark.rule("8.9")
@settings(max_examples=n(300))
@given(attack=S.factors, defense=S.factors)
def test_8_9_8_10_raw_odds_follow_the_rounding_rules(book, attack, defense):
    raw, _ = odds(book, attack, defense)
    if attack >= defense:
        assert raw == f"{attack // defense}:1"  # 8.9: round down
    else:
        assert raw == f"1:{-(-defense // attack)}"  # 8.10: round up


# =================================================================== (b) 8.17
def _raw_index(book, attack: int, defense: int) -> int:
    """Where the raw odds sit on the line of columns, beyond the ends too."""
    columns = crt_columns(book)
    rank = (attack // defense - 1) if attack >= defense else -(-(-defense // attack) - 1)
    first = columns[0]
    first_rank = (first[0] - 1) if first[0] >= first[1] else -(first[1] - 1)
    return rank - first_rank


@pytest.mark.rule("8.17")
@settings(max_examples=n(400))
@given(attack=S.factors, defense=S.factors, shift=S.shifts)
def test_8_17_final_column_is_clamp_of_raw_plus_shift(book, attack, defense, shift):
    last = len(crt_columns(book)) - 1
    expected = min(max(_raw_index(book, attack, defense) + shift, 0), last)
    assert column_of(book, odds(book, attack, defense, shift)[1]) == expected


@pytest.mark.rule("8.17")
def test_8_17_clamping_first_would_differ(book):
    columns = crt_columns(book)
    last = len(columns) - 1

    def clamp_first(a, d, shift):
        return min(max(min(max(_raw_index(book, a, d), 0), last) + shift, 0), last)

    # 12:1 with three left is 9:1, clamped to 8:1; clamping first gives 5:1.
    assert odds(book, 12, 1, -3) == ("12:1", "8:1")
    assert columns[clamp_first(12, 1, -3)] == (5, 1)
    # 1:5 one right is 1:4; clamping first gives 1:3.
    assert odds(book, 4, 18, 1) == ("1:5", "1:4")
    assert columns[clamp_first(4, 18, 1)] == (1, 3)
    # Over a grid of totals, the rulebook's answer is clamp-after, and often differs.
    differing = 0
    for a in range(1, 40, 2):
        for d in range(1, 40, 2):
            for s in (-4, -2, -1, 1, 3):
                final = column_of(book, odds(book, a, d, s)[1])
                last_first = min(max(_raw_index(book, a, d) + s, 0), last)
                assert final == last_first, (a, d, s)
                differing += final != clamp_first(a, d, s)
    assert differing > 50


# =================================================================== (c) 6.6
def _assert_stacking_holds(book, state, when):
    # Limits hold in land hexes (6.5: none on the lake).
    hexes = set(book.hex_ids)
    for hex_id in sorted(set(state.positions().values()) & hexes):
        for side in book.sides:
            broken = state.evaluate("broken_limits(h, side, side_units(h, side))",
                                    h=hex_id, side=side)
            assert not broken, f"{when}: {hex_id} breaks {broken} for {side}"


def _check_stacking_after_movement(book, setup, seed, script):
    state = new_game(book, setup, seed)
    _assert_stacking_holds(book, state, "at set-up")
    moving = movement_phases(book)
    where = [(state.turn, state.phase)]

    def hook(st_, action, before):
        previous = where[0]
        where[0] = (st_.turn, st_.phase)
        # A movement phase is over only once its overstacks are settled (6.7).
        if previous[1] in moving and where[0] != previous:
            _assert_stacking_holds(book, st_, f"after {previous[1]} of turn {previous[0]} "
                                              f"(history {[str(a) for a in st_.history]})")

    S.run(state, script, hook)


@pytest.mark.rule("6.6")
@settings(max_examples=BUDGET["demo"][0])
@given(seed=S.seeds, script=BUDGET["demo"][1])
def test_6_6_no_overstack_after_movement_demo(book, seed, script):
    _check_stacking_after_movement(book, "demo", seed, script)


@pytest.mark.rule("6.6")
@settings(max_examples=BUDGET["historical"][0])
@given(seed=S.seeds, script=BUDGET["historical"][1])
def test_6_6_no_overstack_after_movement_historical(book, seed, script):
    _check_stacking_after_movement(book, "historical", seed, script)


# =================================================================== (d) 7.1 / 7.3
def _movement_points(book, setup, seed, script, *, first_step_rule: bool):
    state = new_game(book, setup, seed)
    steps_taken: Counter[tuple[int, str, str]] = Counter()

    def hook(st_, action, before):
        if action.kind != "move" or before.cost is None:  # not made yet (6.7 first)
            return
        uid = action.args[0]
        move = st_.attribute(uid, "move")
        was, now = before.pieces[uid].spent, st_.attribute(uid, "spent")
        key = (st_.turn, st_.phase, uid)
        left = move - was
        assert isinstance(before.cost, int) and before.cost > 0
        assert 0 <= now <= move, f"{uid} spent {now} of {move} (7.1)"
        if before.cost <= left:
            assert now == was + before.cost
            assert "7.3" not in before.rules
        else:
            # Beyond what it had left: only as a minimum move, which cites 7.3.
            assert "7.3" in before.rules and now == move, (uid, before)
        if before.cost > left and first_step_rule:
            # Beyond what it had left: only a first step, and it spends everything (7.3).
            assert steps_taken[key] == 0, (
                f"{uid} made a minimum move (cost {before.cost}, {left} MP left) after "
                f"{steps_taken[key]} earlier step(s) this phase: "
                f"{[str(a) for a in st_.history]}")
            assert was == 0 and now == move
        steps_taken[key] += 1

    S.run(state, script, hook)


@pytest.mark.rule("7.1")
@pytest.mark.parametrize("setup", SETUPS)
@settings(max_examples=n(8))
@given(seed=S.seeds, data=st.data())
def test_7_1_spent_never_exceeds_the_movement_factor(book, setup, seed, data):
    script = data.draw(script_for(setup), label="script")
    _movement_points(book, setup, seed, script, first_step_rule=False)


@pytest.mark.rule("7.3")
@pytest.mark.parametrize("setup", SETUPS)
@settings(max_examples=n(10))
@given(seed=S.seeds, data=st.data())
def test_7_3_overspend_only_on_a_units_first_step(book, setup, seed, data):
    script = data.draw(script_for(setup), label="script")
    _movement_points(book, setup, seed, script, first_step_rule=True)


# =================================================================== (e) determinism
@pytest.mark.rule("8.18")
@pytest.mark.parametrize("setup", SETUPS)
@settings(max_examples=n(5))
@given(seed=S.seeds, data=st.data())
def test_same_seed_and_choices_give_the_same_game(book, setup, seed, data):
    script = data.draw(script_for(setup), label="script")
    first, second = new_game(book, setup, seed), new_game(book, setup, seed)
    played = S.run(first, script)
    assert S.run(second, script) == played
    assert S.fingerprint(first, book.piece_ids) == S.fingerprint(second, book.piece_ids)
    assert first.legal_action_ids() == second.legal_action_ids()
    assert [e.rules for e in first.log] == [e.rules for e in second.log]
    # Replaying the recorded actions (rolls included) gives the same game too.
    third = new_game(book, setup, seed + 1)
    for action in played:
        third.apply(action)
    assert third.positions() == first.positions()
    assert [str(e) for e in third.log] == [str(e) for e in first.log]
    assert third.history == first.history


# =================================================================== (f) clones, rejections
@pytest.mark.rule("4.2")
@pytest.mark.parametrize("setup", SETUPS)
@settings(max_examples=n(5))
@given(seed=S.seeds, data=st.data())
def test_clone_is_independent(book, setup, seed, data):
    script = data.draw(script_for(setup), label="script")
    cut = data.draw(st.integers(0, len(script)), label="cut")
    state = new_game(book, setup, seed)
    pieces = book.piece_ids
    S.run(state, script[:cut])
    frozen = S.fingerprint(state, pieces)
    legal = state.legal_action_ids()
    twin = state.clone()
    assert S.fingerprint(twin, pieces) == frozen
    S.run(twin, script[cut:] + [(5, 1)] * 5)
    assert S.fingerprint(state, pieces) == frozen  # the original did not move
    assert state.legal_action_ids() == legal
    # ... and the original, played the same way, follows the clone exactly
    # (its dice too: the clone took a copy of the generator).
    S.run(state, script[cut:] + [(5, 1)] * 5)
    assert S.fingerprint(state, pieces) == S.fingerprint(twin, pieces)


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("setup", SETUPS)
@settings(max_examples=n(5))
@given(seed=S.seeds, data=st.data(),
       probes=st.lists(st.integers(0, 2**31), min_size=1, max_size=15))
def test_rejected_actions_leave_the_state_unchanged(book, setup, seed, data, probes):
    script = data.draw(script_for(setup), label="script")
    state = new_game(book, setup, seed)
    # One action of every kind, then random ids (mostly moves: they are most of the ids).
    fixed = [book.action_id(text) for text in (
        "end", "resolve", "cancel", "stop", "move S1 1110", "attack 1110", "join S1",
        "lose S1", "advance S1", "remove S1", "roll 7")]
    pieces = book.piece_ids
    checked = Counter()

    def probe(st_, legal):
        legal_set = set(legal)
        ids = st_.legal_action_ids()
        for number in fixed + [p % book.num_distinct_actions for p in probes]:
            action = book.action_from_id(number)
            if action.kind == "move" and st_.place_of(action.args[0]) is None:
                # Known engine bug, pinned by the strict xfail
                # test_7_1_a_unit_off_the_board_cannot_move: asking why a unit off the
                # board cannot move raises RulesRuntimeError. Drop this skip once fixed.
                checked["skipped off-board move"] += 1
                continue
            reasons = st_.why_illegal(action)
            assert (not reasons) == (action in legal_set), (str(action), reasons)
            if not reasons:
                continue
            before = S.fingerprint(st_, pieces)
            with pytest.raises(IllegalActionError) as caught:
                st_.apply(action)
            # The error is what the player who decides may be told (8.8: of a
            # piece hidden from him, only that it is hidden).
            decider = st_.current_player
            told = (st_.why_illegal(action, player=decider)
                    if decider in book.players else reasons)
            assert tuple(caught.value.reasons) == tuple(told)
            assert S.fingerprint(st_, pieces) == before, str(action)
            with pytest.raises(IllegalActionError):
                st_.apply(number)  # by id too
            checked["rejected"] += 1
        for text in ("move S1", "fly S1 1110", "roll x", ""):
            before = S.fingerprint(st_, pieces)
            with pytest.raises(NotationError):
                st_.apply(text)
            assert S.fingerprint(st_, pieces) == before
        assert st_.legal_action_ids() == ids

    S.run(state, script, on_legal=probe)
    assert checked["rejected"] > 0


# =================================================================== (g) round trips
@pytest.mark.rule("4.2")
@pytest.mark.parametrize("setup", SETUPS)
@settings(max_examples=n(5))
@given(seed=S.seeds, data=st.data())
def test_action_text_and_id_round_trip(book, setup, seed, data):
    script = data.draw(script_for(setup), label="script")
    seen: set[Action] = set()

    def check(st_, legal):
        ids = [book.action_id(a) for a in legal]
        assert ids == sorted(set(ids)), "legal actions are not sorted by id, or repeat"
        seen.update(legal)
        seen.update(a for a, _ in st_.chance_outcomes())

    state = new_game(book, setup, seed)
    S.run(state, script, on_legal=check)
    for action in seen:
        assert Action.parse(str(action)) == action
        number = book.action_id(action)
        assert 0 <= number < book.num_distinct_actions
        assert book.action_from_id(number) == action
        assert book.action_id(str(action)) == number


@pytest.mark.rule("4.2")
@settings(max_examples=n(200))
@given(number=st.integers(0, 2**31))
def test_action_ids_round_trip_over_the_whole_range(book, number):
    number %= book.num_distinct_actions
    action = book.action_from_id(number)
    assert book.action_id(action) == number
    assert Action.parse(str(action)) == action


# =================================================================== (h) chance
def _check_chance(st_):
    outcomes = st_.chance_outcomes()
    probabilities = [p for _, p in outcomes]
    assert all(isinstance(p, Fraction) and p > 0 for p in probabilities)
    assert sum(probabilities) == 1
    actions = [a for a, _ in outcomes]
    assert len(set(actions)) == len(actions)
    assert set(actions) == set(st_.legal_actions())
    table = {int(a.args[0]): p for a, p in outcomes}
    if sorted(table) == list(range(1, 7)):  # one die: the rolls of 4.5 and section 10
        assert all(p == Fraction(1, 6) for p in table.values())
        return
    assert sorted(table) == list(range(2, 13))  # 2d6 (8.18)
    assert table[7] == Fraction(6, 36)
    assert all(table[n] == table[14 - n] for n in range(2, 13))


@pytest.mark.rule("8.18")
@settings(max_examples=n(15))
@given(seed=S.seeds, script=BUDGET["demo"][1])
def test_8_18_chance_outcomes_are_exact_and_sum_to_one(book, seed, script):
    state = new_game(book, "demo", seed)

    def hook(st_, action, before):
        if st_.is_chance_node():
            _check_chance(st_)

    S.run(state, script, hook)


def _battle_before_resolve(book):
    """Spanish S1 committed against A1 in hex 1111, the battle not yet resolved."""
    state = book.new_game(seed=3, positions={"S1": "1110", "A1": "1111"})
    while state.phase != "spanish_land_combat":
        state.apply("end")
    state.apply("attack 1111")
    state.apply("join S1")
    return state


@pytest.mark.rule("8.18")
def test_8_18_chance_node_in_a_built_battle(book):
    state = _battle_before_resolve(book)
    assert state.chance_outcomes() == []
    state.apply("resolve")
    _check_chance(state)
    outcomes = {a for a, _ in state.chance_outcomes()}
    roll = state.apply_chance()
    assert roll in outcomes
    assert state.history[-1] == roll
    assert not state.is_chance_node()


@pytest.mark.rule("8.18")
def test_8_18_roll_outcomes_are_fresh_lists_and_other_totals_are_refused(book):
    # The outcomes of a roll are worked out once per dice and kept: what a
    # caller does with the list it gets must not change the next answer, and a
    # total the dice cannot show is still refused without touching the state.
    state = _battle_before_resolve(book)
    state.apply("resolve")
    first = state.chance_outcomes()
    ids = [book.action_id(str(a)) for a, _ in first]
    assert ids == sorted(ids) == state.legal_action_ids()
    first.clear()
    assert [book.action_id(str(a)) for a, _ in state.chance_outcomes()] == ids
    assert sum(p for _, p in state.chance_outcomes()) == 1
    before = state.to_notation()
    with pytest.raises(IllegalActionError, match="cannot come up 1"):
        state.apply("roll 1")
    assert state.to_notation() == before
    assert state.why_illegal("roll 7") == []


# =================================================================== geometry (8.4, 8.11)
@pytest.mark.rule("8.11")
@settings(max_examples=n(200))
@given(hex_index=st.integers(0, 10_000))
def test_8_11_directions_are_symmetric_and_opposite(book, hex_index):
    # The geometry the rules read (neighbours, direction, adjacent, distance),
    # asked through the rules language.
    hex_id = book.hex_ids[hex_index % len(book.hex_ids)]
    rows = book.evaluate("list((o, direction(h, o), direction(o, h), adjacent(o, h), "
                         "distance(h, o)) for o in neighbours(h))", h=hex_id)
    around = [str(row[0]) for row in rows]
    assert 1 <= len(around) <= 6 and len(set(around)) == len(around)
    for _, d, back, touching, distance in rows:
        assert d is not None and 0 <= d <= 5
        assert back == (d + 3) % 6
        assert touching
        assert distance == 1
    assert not book.evaluate("adjacent(h, h)", h=hex_id)
    if len(around) == 6:  # interior hex: the list is in direction order
        assert [row[1] for row in rows] == list(range(6))


@pytest.mark.rule("8.11")
@settings(max_examples=n(200))
@given(first=st.integers(0, 10_000), second=st.integers(0, 10_000))
def test_8_11_distance_is_a_metric_counted_in_hex_steps(book, first, second):
    # The distance the rules read (the world keeps each hex's cube coordinates
    # once measured) is the hex-step count: the same from either end, zero only
    # from a hex to itself, one step nearer or farther across a hexside, and
    # what the grid's own formula gives for the two hex ids.
    a = book.hex_ids[first % len(book.hex_ids)]
    b = book.hex_ids[second % len(book.hex_ids)]
    there, back = book.evaluate("[distance(a, b), distance(b, a)]", a=a, b=b)
    assert there == back == hexgrid.distance(a, b)
    assert (there == 0) == (a == b)
    for step in book.evaluate("list(distance(a, o) for o in neighbours(b))", a=a, b=b):
        assert abs(step - there) <= 1
    assert book.evaluate("distance(a, b)", a=a, b=b) == there   # asked again: the same
