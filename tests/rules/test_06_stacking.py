"""Section 6: stacking limits (6.2-6.4), when they hold (6.6), overstacking (6.7)."""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules import Action, IllegalActionError, StartError
from positions import GARRISON

HEX = "1110"  # a clear mainland hex with clear neighbours


class Stack:
    """Units imagined together in one hex: a game never starts overstacked, so
    the limits are asked of a list of units (``broken_limits`` takes one)."""

    def __init__(self, book, units, hex_id=HEX):
        self.state, self.units, self.hex = book.new_game(), list(units), hex_id


def failing(stack, hex_id, side):
    """The rule number of every stacking clause the side's units in the hex break
    (imagined units, or those of a real game)."""
    if not isinstance(stack, Stack):
        return stack.evaluate("broken_limits(h, side, side_units(h, side))", h=hex_id, side=side)
    return stack.state.evaluate("broken_limits(h, side, list(u for u in us where u.side == side))",
                                h=hex_id, side=side, us=stack.units)


def broken(stack, hex_id, side):
    """Numbers of the rules whose stacking clauses the side's units in the hex break."""
    return sorted(set(failing(stack, hex_id, side)))


def place(book, units, hex_id=HEX):
    return Stack(book, units, hex_id)


# ------------------------------------------------------------------ 6.2
@pytest.mark.rule("6.2")
def test_6_2_six_infantry_is_over(book):
    assert broken(place(book, [f"S{i}" for i in range(1, 7)]), HEX, "spanish") == ["6.2"]


@pytest.mark.rule("6.2")
def test_6_2_five_infantry_and_cavalry_is_within(book):
    assert broken(place(book, ["S1", "S2", "S3", "S9", "S10"]), HEX, "spanish") == []


@pytest.mark.rule("6.2")
def test_6_2_cannons_and_cortes_do_not_count(book):
    units = ["S1", "S2", "S3", "S4", "S5", "S25", "S26", "Cortes"]
    assert broken(place(book, units), HEX, "spanish") == []


@pytest.mark.rule("6.2")
def test_6_2_cavalry_counts_with_infantry(book):
    units = ["S1", "S2", "S3", "S4", "S9", "S10"]
    assert broken(place(book, units), HEX, "spanish") == ["6.2"]


@pytest.mark.rule("6.2")
@pytest.mark.parametrize("european", ["S1", "S9", "S25", "Cortes"])
def test_6_2_europeans_never_stack_with_allies(book, european):
    assert broken(place(book, [european, "S29"]), HEX, "spanish") == ["6.2"]


# ------------------------------------------------------------------ 6.3
@pytest.mark.rule("6.3")
def test_6_3_two_tribes_never_share_a_hex(book):
    state = place(book, ["S30", "S47"])  # Texcocoan and Cempoalan regulars
    assert "6.3" in broken(state, HEX, "spanish")
    state = place(book, ["S29", "S36"])  # Texcocoan and Tlaxcalan elite bands
    assert "6.3" in broken(state, HEX, "spanish")


@pytest.mark.rule("6.3")
def test_6_3_two_regulars_never_stack(book):
    assert broken(place(book, ["S37", "S38"]), HEX, "spanish") == ["6.3"]


@pytest.mark.rule("6.3")
def test_6_3_two_elite_bands_never_stack(book):
    # Only 6.3's second clause: two elite bands (of different tribes here, so
    # the tribe clause breaks too).
    assert broken(place(book, ["S29", "S36"]), HEX, "spanish") == ["6.3"]
    assert len(failing(place(book, ["S29", "S36"]), HEX, "spanish")) == 2


@pytest.mark.rule("6.3")
def test_6_3_elite_with_one_regular_of_its_tribe_is_within(book):
    assert broken(place(book, ["S29", "S30"]), HEX, "spanish") == []
    assert broken(place(book, ["S36", "S40"]), HEX, "spanish") == []


@pytest.mark.rule("6.3")
def test_6_3_elite_with_two_regulars_is_over(book):
    assert broken(place(book, ["S29", "S30", "S31"]), HEX, "spanish") == ["6.3"]


# ------------------------------------------------------------------ 6.4
@pytest.mark.rule("6.4")
def test_6_4_four_knights_is_over(book):
    assert broken(place(book, ["A1", "A2", "A3", "A4"]), HEX, "aztec") == ["6.4"]


@pytest.mark.rule("6.4")
def test_6_4_three_knights_is_within(book):
    assert broken(place(book, ["A1", "A2", "A3"]), HEX, "aztec") == []


@pytest.mark.rule("6.4")
def test_6_4_knight_with_two_regulars_is_over(book):
    assert broken(place(book, ["A1", "A11", "A12"]), HEX, "aztec") == ["6.4"]


@pytest.mark.rule("6.4")
def test_6_4_knight_with_one_regular_is_within(book):
    assert broken(place(book, ["A1", "A11"]), HEX, "aztec") == []


@pytest.mark.rule("6.4")
def test_6_4_two_knights_with_a_regular_is_over(book):
    assert broken(place(book, ["A1", "A2", "A11"]), HEX, "aztec") == ["6.4"]


@pytest.mark.rule("6.4")
def test_6_4_two_regulars_is_over(book):
    assert broken(place(book, ["A11", "A12"]), HEX, "aztec") == ["6.4"]


@pytest.mark.rule("6.4")
def test_6_4_limits_are_per_side(book):
    # The Spanish limits are not applied to Aztec units, nor the reverse.
    state = place(book, ["A1", "A2", "A3", "A4"])
    assert broken(state, HEX, "spanish") == []
    state = place(book, [f"S{i}" for i in range(1, 7)])
    assert broken(state, HEX, "aztec") == []


# ------------------------------------------------------------------ 6.6
@pytest.mark.rule("6.6")
def test_6_6_units_may_pass_through_a_full_hex(book):
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"S6": "1111"}
    state = book.new_game(positions=positions)
    state.apply("move S6 1110")  # six infantry for a moment
    state.apply("move S6 1109")
    state.apply("end")
    assert state.phase == "spanish_land_combat"
    assert state.current_player == "spanish"
    assert not any(a.kind == "remove" for a in state.legal_actions())
    assert len(state.pieces_at("1110")) == 5 and state.place_of("S6") == "1109"


@pytest.mark.rule("6.6")
def test_6_6_limits_are_checked_when_the_move_ends_not_per_step(book):
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"S6": "1111"}
    state = book.new_game(positions=positions)
    state.apply("move S6 1110")
    # Mid-move the hex is over its limit, and nobody has been asked to remove.
    assert broken(state, "1110", "spanish") == ["6.2"]
    assert state.current_player == "spanish"
    assert not any(a.kind == "remove" for a in state.legal_actions())


# ------------------------------------------------------------------ 6.7
def _overstacked_by_end(book):
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"S6": "1111", "A1": "0815"}
    state = book.new_game(positions=positions)
    state.apply("move S6 1110")
    state.apply("end")
    return state


@pytest.mark.rule("6.7")
def test_6_7_overstack_at_end_of_phase_lets_the_opponent_remove(book):
    state = _overstacked_by_end(book)
    assert state.current_player == "aztec"
    assert state.phase == "spanish_land_movement"
    legal = state.legal_actions()
    assert legal and all(a.kind == "remove" for a in legal)
    assert {a.args[0] for a in legal} == {f"S{i}" for i in range(1, 7)}
    assert "6.7" in state.log[-1].rules and "6.2" in state.log[-1].rules
    with pytest.raises(IllegalActionError):
        state.apply("end")


@pytest.mark.rule("6.7")
def test_6_7_removal_stops_once_within_limits_and_the_phase_ends(book):
    state = _overstacked_by_end(book)
    state.apply("remove S3")
    assert state.place_of("S3") == "dead.spanish"
    assert len(state.pieces_at("1110")) == 5
    assert broken(state, "1110", "spanish") == []
    assert state.phase == "spanish_land_combat"
    assert state.current_player == "spanish"


@pytest.mark.rule("6.7")
def test_6_7_remover_may_only_take_units_from_the_overstacked_hex(book):
    state = _overstacked_by_end(book)
    with pytest.raises(IllegalActionError) as caught:
        state.apply("remove A1")
    assert caught.value.reasons
    assert state.place_of("A1") == "0815"


@pytest.mark.rule("6.7")
def test_6_7_moving_another_stack_ends_the_first_and_triggers_removal(book):
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"S6": "1111", "S7": "1114"}
    state = book.new_game(positions=positions)
    state.apply("move S6 1110")
    assert state.current_player == "spanish"
    state.apply("move S7 1113")  # another group: S6's move is over (7.2, 6.6)
    assert state.current_player == "aztec"
    assert all(a.kind == "remove" for a in state.legal_actions())
    state.apply("remove S6")
    assert state.current_player == "spanish"
    assert state.phase == "spanish_land_movement"  # the Spanish phase goes on


@pytest.mark.rule("6.7")
def test_6_7_aztec_overstack_is_removed_by_the_spanish(book):
    state = book.new_game(positions={**GARRISON, "A11": "1110", "A12": "1111"})
    while state.phase != "aztec_land_movement":
        state.apply("end")
    state.apply("move A12 1110")
    state.apply("end")
    assert state.current_player == "spanish"
    assert {str(a) for a in state.legal_actions()} == {"remove A11", "remove A12"}
    state.apply("remove A11")
    assert state.phase == "aztec_land_combat"
    assert state.current_player == "aztec"


@pytest.mark.rule("6.7")
def test_6_7_every_hex_a_group_overstacks_is_brought_within_limits(book):
    # The Texcocoan pair S29 + S30 starts in 1111 and splits: each half ends
    # next to a European (6.2), in 1110 and in 1112. Each hex is settled as
    # soon as the move ending there is over (6.6, 6.7; golden CHANGES.md C1).
    state = book.new_game(positions={"S3": "1110", "S4": "1112", "S29": "1111",
                                     "S30": "1111"})
    state.apply("move S29 1110")
    state.apply("move S30 1112")           # S29's move is over: 1110 first
    assert state.current_player == "aztec"
    assert {str(a) for a in state.legal_actions()} == {"remove S3", "remove S29"}
    state.apply("remove S29")
    assert state.place_of("S30") == "1112"  # then S30's move is made
    state.apply("end")                      # S30's move is over: 1112
    assert state.current_player == "aztec"
    state.apply(state.legal_actions()[0])
    assert state.phase == "spanish_land_combat"
    assert broken(state, "1110", "spanish") == []
    assert broken(state, "1112", "spanish") == []


@pytest.mark.rule("6.7")
def test_6_7_demo_group_split_over_two_hexes(book):
    # From the demo set-up: S1 goes to 3108; the Texcocoan pair on 3009 then
    # splits, S29 next to S9 on 3010 and S30 next to S1 on 3108; each hex
    # breaks 6.2 and is settled as the move ending there is over.
    state = book.new_game(seed=0, setup="demo")
    state.apply("end")                          # no lake movement (7.19)
    for text in ("move S1 3009", "move S1 3108", "move S29 3010", "move S30 3108"):
        state.apply(text)
    assert state.current_player == "aztec"     # S29's move is over: 3010
    assert {str(a) for a in state.legal_actions()} == {"remove S9", "remove S29"}
    state.apply("remove S9")
    assert state.current_player == "spanish" and state.place_of("S30") == "3108"
    state.apply("end")                          # S30's move is over: 3108
    assert {str(a) for a in state.legal_actions()} == {"remove S1", "remove S30"}
    state.apply("remove S30")
    assert state.phase == "spanish_land_combat"
    assert broken(state, "3010", "spanish") == [] and broken(state, "3108", "spanish") == []


@pytest.mark.rule("6.7")
def test_6_7_opponent_cannot_remove_a_unit_that_does_not_count(book):
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"S6": "1111", "Cortes": "1110"}
    state = book.new_game(positions=positions)
    state.apply("move S6 1110")
    state.apply("end")
    assert state.current_player == "aztec"
    assert Action("remove", ("Cortes",)) not in state.legal_actions()
    assert state.why_illegal(Action("remove", ("Cortes",)))
    state.apply("remove S2")  # one counting unit is enough
    assert state.phase == "spanish_land_combat"
    assert state.place_of("Cortes") == "1110"


@pytest.mark.rule("6.7")
def test_6_7_refusing_a_removal_that_does_not_count_cites_6_7(book):
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"S6": "1111", "Cortes": "1110"}
    state = book.new_game(positions=positions)
    state.apply("move S6 1110")
    state.apply("end")
    assert state.current_player == "aztec"
    assert "6.7" in {r for r, _ in state.why_illegal(Action("remove", ("Cortes",)))}


@pytest.mark.rule("6.7")
def test_6_7_opponent_removes_the_fewest_units(book):
    state = book.new_game(positions={"S3": "1110", "S29": "1111", "S30": "1111"})
    state.apply("move S29 1110")
    state.apply("move S30 1110")
    state.apply("end")
    assert state.current_player == "aztec"
    assert {str(a) for a in state.legal_actions()} == {"remove S3"}
    state.apply("remove S3")
    assert state.phase == "spanish_land_combat"
    assert set(state.pieces_at("1110")) == {"S29", "S30"}


# ------------------------------------------------------------------ 6.5
@pytest.mark.rule("6.5")
def test_6_5_the_limits_bind_land_hexes_only(book):
    # Lake zones are not places of the game yet; what 6.5 needs of the engine
    # today is that the limits are enforced in hexes and nowhere else. Every
    # Aztec warrior in one place that is not a hex is a legal start...
    warriors = {f"A{n}": "dead.aztec" for n in range(11, 54)}
    state = book.new_game(positions=warriors | {"A1": "dead.aztec", "A2": "dead.aztec"})
    assert len(state.pieces_at("dead.aztec")) == 45
    # ...while two of them in one land hex break 6.4 at once.
    with pytest.raises(StartError) as caught:
        book.new_game(positions={"A11": HEX, "A12": HEX})
    assert [rule for rule, _ in caught.value.reasons] == ["6.4"]


@pytest.mark.rule("6.5")
def test_6_5_any_number_of_gunboats_break_no_limit(book):
    # Any number of gunboats may share a zone: no stacking clause counts them
    # (not the five infantry and cavalry of 6.2, not the allies' 6.3).
    boats = [f"S{n}" for n in range(12, 25)]
    assert broken(place(book, boats), HEX, "spanish") == []


@pytest.mark.rule("6.7", "5.2")
@pytest.mark.parametrize(("reading", "removable"), [
    ("kept", ["remove S29", "remove S30"]),  # the two allies go, never Cortés
    ("removable", ["remove Cortes"]),        # the fewest units: Cortés alone
])
def test_6_7_overstack_removal_and_leaders_both_ways(reading, removable):
    book = cortes_rules.load("cortes", readings={"overstack_leaders": reading})
    # Cortés ends his move on an allied band and its regular unit: Europeans
    # never stack with allies (6.2), so the hex is over the limits.
    state = book.new_game(positions={**GARRISON, "Cortes": "1110", "S29": "1111",
                                     "S30": "1111"})
    state.apply("move Cortes 1111")
    state.apply("end")
    assert state.current_player == "aztec"
    assert sorted(str(a) for a in state.legal_actions()) == removable
    state.apply(removable[0])
    if reading == "removable":
        assert state.place_of("Cortes") == "dead.spanish"
    else:
        state.apply(removable[1])
        assert state.place_of("Cortes") == "1111"
        assert state.pieces_at("1111") == ["Cortes"]
