"""Section 3: the set-up stage (3.1-3.3) as place actions, the lake zones closed
to the Aztecs (2.12), and the named set-ups checked against it."""

from __future__ import annotations

import random
from collections.abc import Callable

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import GameState, IllegalActionError

SET_UP = ("spanish_set_up", "aztec_set_up")

# The groups of 3.2, written out here from the text (not read from the rules).
CAMPS = {
    "1004": ["S1", "S2", "S3", "S25", "S36", "S37", "S38", "S39", "S40"],
    "1539": ["S4", "S5", "S6", "S26", "S29", "S30", "S31", "S32", "S33"],
    "4244": ["S7", "S8", "S27", "S28", "S34", "S35", "S41", "S42", "S43", "S44", "S45", "S46",
             "S47", "S48"],
}
BY_CAPTAIN = {"S9": "1004", "S10": "1539", "S11": "4244"}
LAKE = ["Cortes"] + [f"S{n}" for n in range(12, 25)]
EAST_ZONES = ["zone.7", "zone.11", "zone.15", "zone.21", "zone.29"]


@pytest.fixture(scope="module")
def books() -> Callable[..., cortes_rules.Rulebook]:
    """``books(entry=reading)``: the rulebook loaded with those readings (cached)."""
    cache: dict[tuple[tuple[str, str], ...], cortes_rules.Rulebook] = {}

    def get(**readings: str) -> cortes_rules.Rulebook:
        key = tuple(sorted(readings.items()))
        if key not in cache:
            cache[key] = cortes_rules.load("cortes", readings=readings)
        return cache[key]

    return get


def rules_of(state: GameState, action: str) -> set[str | None]:
    return {rule for rule, _ in state.why_illegal(action)}


def distance(state: GameState, a: str, b: str) -> int:
    return int(state.evaluate("distance(a, b)", a=a, b=b))


def spanish_historical(book: cortes_rules.Rulebook, state: GameState) -> GameState:
    """Play the Spanish half of the historical set-up as place actions."""
    for uid, place in book.setup_positions("historical").items():
        if uid.startswith("S") or uid == "Cortes":
            state.apply(f"place {uid} {place}")
    assert state.phase == "aztec_set_up"
    return state


def random_set_up(state: GameState, seed: int) -> GameState:
    choose = random.Random(seed)
    while state.phase in SET_UP:
        ids = state.legal_action_ids()
        state.apply(ids[choose.randrange(len(ids))])
    return state


# ------------------------------------------------------------------ 3.1
@pytest.mark.rule("3.1")
def test_3_1_a_game_without_a_setup_opens_with_the_set_up_stage(book) -> None:
    state = book.new_game(seed=1)
    assert book.opening_phases == SET_UP
    assert "spanish_set_up" not in book.phases        # played once, not every turn
    assert state.turn == 1 and state.phase == "spanish_set_up"
    assert state.current_player == "spanish"
    assert {a.kind for a in state.legal_actions()} == {"place"}
    assert all(state.place_of(u) is None for u in ("S1", "Cortes", "A1", "Cuauhtemoc"))


@pytest.mark.rule("3.1")
def test_3_1_a_named_setup_or_a_position_skips_the_stage(book) -> None:
    # Turn 1 opens with the Spanish lake movement (7.19) when a Spanish unit
    # could move on the lake, with his land movement otherwise.
    assert book.new_game(setup="historical").phase == "spanish_lake_movement"
    assert book.new_game(setup="demo").phase == "spanish_lake_movement"
    assert book.new_game(positions={"S1": "1110"}).phase == "spanish_land_movement"
    with pytest.raises(IllegalActionError):
        book.new_game(setup="historical").apply("place S1 1004")


@pytest.mark.rule("3.1")
def test_3_1_substitutes_are_set_aside_every_unit_starts_at_full_strength(book) -> None:
    state = random_set_up(book.new_game(seed=3), seed=3)
    placed = state.positions()
    assert len(placed) == 103                          # Cortés, 1-48, Cuauhtemoc, 1-53
    for uid in placed:
        assert state.attribute(uid, "steps") == state.attribute(uid, "max_steps")
        assert not placed[uid].startswith(("dead.", "gone."))
    # One piece per unit: a four-step unit's substitute counter is never placed.
    assert sum(1 for u in placed if state.attribute(u, "max_steps") == 4) == 11 + 2 + 10


@pytest.mark.rule("3.1")
def test_3_1_a_random_set_up_ends_with_turn_1_starting(book) -> None:
    state = random_set_up(book.new_game(seed=11), seed=11)
    # Cortes and the gunboats are on the lake: the turn opens with lake movement.
    assert state.turn == 1 and state.phase == "spanish_lake_movement"
    assert state.current_player == "spanish"
    assert "turn 1 begins" in str(state.log[-1])
    assert state.start_breaches() == []                # stacking, no shared hex
    assert state.evaluate("setting_up") is False


# ------------------------------------------------------------------ 3.2
@pytest.mark.rule("3.2")
def test_3_2_the_spanish_player_sets_up_first(book) -> None:
    state = book.new_game()
    assert all(a.args[0].startswith("S") or a.args[0] == "Cortes"
               for a in state.legal_actions())
    assert rules_of(state, "place A1 3016") == {"3.2"}
    assert rules_of(state, "place Cuauhtemoc 3016") == {"3.2"}
    # Spanish units in any order: the last one placed hands over to the Aztecs.
    spanish_historical(book, state)
    assert state.current_player == "aztec"
    assert {a.args[0][0] for a in state.legal_actions()} <= {"A", "C"}


@pytest.mark.rule("3.2")
@pytest.mark.parametrize("camp", sorted(CAMPS))
def test_3_2_each_group_within_two_hexes_of_its_camp(book, camp) -> None:
    state = book.new_game()
    away = {str(h): distance(state, str(h), camp) for h in state.evaluate("hexes")}
    near = [h for h, d in away.items() if d <= 2]
    far = [h for h, d in away.items() if d == 3]
    assert near and far
    for uid in CAMPS[camp]:
        assert state.why_illegal(f"place {uid} {near[0]}") == []
        assert state.why_illegal(f"place {uid} {camp}") == []
        assert rules_of(state, f"place {uid} {far[0]}") == {"3.2"}
        assert rules_of(state, f"place {uid} zone.11") == {"3.2"}
        legal = {a.args[1] for a in state.legal_actions() if a.args[0] == uid}
        assert legal == {h for h in near}               # every hex in reach, no other
    others = [c for c in CAMPS if c != camp]
    assert rules_of(state, f"place {CAMPS[camp][0]} {others[0]}") == {"3.2"}


@pytest.mark.rule("3.2")
def test_3_2_cortes_and_the_gunboats_in_lake_zone_11(book) -> None:
    state = book.new_game()
    for uid in LAKE:
        assert {a.args[1] for a in state.legal_actions() if a.args[0] == uid} == {"zone.11"}
        assert rules_of(state, f"place {uid} zone.10") == {"3.2"}
        assert rules_of(state, f"place {uid} 4244") == {"3.2"}
    state.apply("place Cortes zone.11")
    state.apply("place S12 zone.11")
    assert state.place_of("Cortes") == state.place_of("S12") == "zone.11"


@pytest.mark.rule("3.2")
def test_3_2_units_9_to_11_both_readings(books) -> None:
    by_captain = books().new_game()
    any_camp = books(units_9_to_11_setup="any_camp").new_game()
    for uid, camp in BY_CAPTAIN.items():
        for other in CAMPS:
            if other == camp:
                assert by_captain.why_illegal(f"place {uid} {other}") == []
            else:
                assert rules_of(by_captain, f"place {uid} {other}") == {"3.2"}
            assert any_camp.why_illegal(f"place {uid} {other}") == []


@pytest.mark.rule("3.2")
@pytest.mark.rule("6.2")
@pytest.mark.rule("6.3")
def test_3_2_within_the_normal_stacking_limits(book) -> None:
    state = book.new_game()
    state.apply("place S1 1004")
    assert state.why_illegal("place S2 1004") == []
    assert rules_of(state, "place S36 1004") == {"3.2"}     # allies never with Europeans
    state.apply("place S37 1003")
    assert rules_of(state, "place S38 1003") == {"3.2"}     # two regulars
    assert state.why_illegal("place S36 1003") == []        # elite with one regular
    state.apply("place S29 1539")
    assert state.why_illegal("place S30 1539") == []        # Texcocoan elite and regular
    state.apply("place S30 1539")
    assert rules_of(state, "place S31 1539") == {"3.2"}


@pytest.mark.rule("3.2")
def test_3_2_iztapalapa_overstacks_only_when_forced(book) -> None:
    state = book.new_game()
    state.apply("place S41 4244")
    # Eighteen other hexes are in reach: no need to over-stack.
    assert rules_of(state, "place S42 4244") == {"3.2"}
    assert rules_of(state, "place S7 4244") == {"3.2"}
    # With no other hex left in its area, the unit may go over the limits.
    only = state.evaluate("[h]", h="4244")
    state.set_attribute("S42", "set_up_area", only)
    assert state.why_illegal("place S42 4244") == []
    state.apply("place S42 4244")
    assert "over the stacking limits" in str(state.log[-1])
    # Another camp's group never may.
    state.apply("place S30 1539")
    state.set_attribute("S31", "set_up_area", state.evaluate("[h]", h="1539"))
    assert rules_of(state, "place S31 1539") == {"3.2"}


@pytest.mark.rule("3.2")
def test_3_2_iztapalapa_overstack_as_advice(books) -> None:
    state = books(setup_overstack_minimum="advice").new_game()
    state.apply("place S41 4244")
    assert state.why_illegal("place S42 4244") == []
    assert state.why_illegal("place S7 4244") == []
    state.apply("place S30 1539")
    assert rules_of(state, "place S31 1539") == {"3.2"}


@pytest.mark.rule("3.2")
def test_3_2_the_historical_setup_is_a_legal_set_up(book) -> None:
    """The named set-up, replayed as place actions, Spanish first, is accepted whole."""
    positions = book.setup_positions("historical")
    assert len(positions) == 103
    state = spanish_historical(book, book.new_game())
    for uid, place in positions.items():
        if uid.startswith("A") or uid == "Cuauhtemoc":
            assert state.why_illegal(f"place {uid} {place}") == [], uid
            state.apply(f"place {uid} {place}")
    assert state.phase == "spanish_lake_movement"
    assert state.positions() == book.new_game(setup="historical").positions()


# ------------------------------------------------------------------ 3.3
@pytest.mark.rule("3.3")
def test_3_3_at_least_four_hexes_from_the_nearest_spanish_unit(book) -> None:
    state = spanish_historical(book, book.new_game())
    spanish = [p for u, p in state.positions().items() if u.startswith("S") and "." not in p]
    hexes = [str(h) for h in state.evaluate("land")]

    def nearest(h: str) -> int:
        return min(distance(state, h, p) for p in spanish)

    three = next(h for h in hexes if nearest(h) == 3)
    four = next(h for h in hexes if nearest(h) == 4)
    assert rules_of(state, f"place A11 {three}") == {"3.3"}
    assert state.why_illegal(f"place A11 {four}") == []
    assert rules_of(state, "place A11 1004") >= {"3.3"}


@pytest.mark.rule("3.3")
def test_3_3_four_hexes_counted_both_ways(books) -> None:
    book = books(setup_distance="hexes_between")
    state = spanish_historical(book, book.new_game())
    spanish = [p for u, p in state.positions().items() if u.startswith("S") and "." not in p]
    hexes = [str(h) for h in state.evaluate("land")]

    def nearest(h: str) -> int:
        return min(distance(state, h, p) for p in spanish)

    four = next(h for h in hexes if nearest(h) == 4)
    five = next(h for h in hexes if nearest(h) == 5)
    assert rules_of(state, f"place A11 {four}") == {"3.3"}
    assert state.why_illegal(f"place A11 {five}") == []


@pytest.mark.rule("3.3")
@pytest.mark.rule("2.12")
def test_3_3_any_lake_zone_but_the_five_eastern_ones(book) -> None:
    state = spanish_historical(book, book.new_game())
    zones = [str(z) for z in state.evaluate("zones")]
    assert len(zones) == 29
    for zone in zones:
        if zone in EAST_ZONES:
            assert rules_of(state, f"place A11 {zone}") == {"2.12"}
            assert rules_of(state, f"place A1 {zone}") == {"2.12"}
        else:
            assert state.why_illegal(f"place A11 {zone}") == []
    offered = {a.args[1] for a in state.legal_actions() if a.args[0] == "A11"}
    assert not offered & set(EAST_ZONES)
    assert set(zones) - set(EAST_ZONES) <= offered


@pytest.mark.rule("3.3")
def test_3_3_no_quagmire_and_causeways_both_ways(books) -> None:
    state = spanish_historical(books(), books().new_game())
    assert rules_of(state, "place A11 3023") == {"3.3"}          # the quagmire (7.10)
    assert state.why_illegal("place A11 3108") == []             # a causeway hex
    strict = books(setup_causeways="land_only")
    other = spanish_historical(strict, strict.new_game())
    assert rules_of(other, "place A11 3108") == {"3.3"}
    assert other.why_illegal("place A11 3016") == []


@pytest.mark.rule("3.3")
@pytest.mark.rule("9.2")
def test_3_3_cuauhtemoc_starts_on_the_island(book) -> None:
    state = spanish_historical(book, book.new_game())
    assert state.why_illegal("place Cuauhtemoc 3016") == []
    assert rules_of(state, "place Cuauhtemoc 1322") == {"3.3"}
    assert "3.3" in rules_of(state, "place Cuauhtemoc zone.10")
    offered = {a.args[1] for a in state.legal_actions() if a.args[0] == "Cuauhtemoc"}
    assert offered and offered <= {str(h) for h in state.evaluate("tenochtitlan")}


@pytest.mark.rule("3.3")
@pytest.mark.rule("6.4")
def test_3_3_within_the_aztec_stacking_limits(book) -> None:
    state = spanish_historical(book, book.new_game())
    state.apply("place A11 3016")
    assert rules_of(state, "place A12 3016") == {"3.3"}          # two regulars
    assert state.why_illegal("place A1 3016") == []              # a knight and a regular
    for uid in ("A1", "A2", "A3"):
        state.apply(f"place {uid} 2810")
    assert rules_of(state, "place A4 2810") == {"3.3"}           # a fourth knight
    assert state.why_illegal("place Cuauhtemoc 2810") == []      # the leader does not count
    for uid in ("A12", "A13"):                                    # no limit on the lake
        state.apply(f"place {uid} zone.10")


# ------------------------------------------------------------------ a completed set-up
def check_completed(state: GameState) -> None:
    """Every unit where 3.2 and 3.3 allow, within the stacking limits, turn 1 begun."""
    positions = state.positions()
    assert len(positions) == 103
    camp_of = {u: c for c, units in CAMPS.items() for u in units} | BY_CAPTAIN
    spanish_hexes = []
    for uid, place in positions.items():
        if uid in LAKE:
            assert place == "zone.11", uid
        elif uid.startswith("S"):
            assert "." not in place and distance(state, place, camp_of[uid]) <= 2, uid
            spanish_hexes.append(place)
    for uid, place in positions.items():
        if uid.startswith("A") or uid == "Cuauhtemoc":
            if place.startswith("zone."):
                assert place not in EAST_ZONES and uid != "Cuauhtemoc"
            else:
                assert place != "3023"
                assert min(distance(state, place, p) for p in spanish_hexes) >= 4, uid
    assert state.start_breaches() == []
    assert state.turn == 1 and state.phase == "spanish_lake_movement"


@pytest.mark.rule("3.2")
@pytest.mark.rule("3.3")
def test_a_random_completed_set_up_is_legal(book) -> None:
    check_completed(random_set_up(book.new_game(seed=5), seed=5))


@pytest.mark.rule("3.2")
@pytest.mark.rule("3.3")
@pytest.mark.rule("6.2")
@settings(max_examples=6)
@given(seed=st.integers(min_value=0, max_value=2**32 - 1))
def test_any_random_completed_set_up_satisfies_3_2_3_3_and_stacking(book, seed: int) -> None:
    check_completed(random_set_up(book.new_game(seed=seed), seed=seed))
