"""The rulebook's own worked examples, replayed against the engine.

Each example is checked where the rulebook states it (odds arithmetic, the
charts) and, where it describes play, through a real position in a GameState.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import strategies as S

from cortes_rules import Action, IllegalActionError
from positions import GARRISON


def _final_column_entry(state):
    """The log line that reports a battle's odds and final column."""
    return S.odds_entry(state)


def odds(book, attack, defense, shift=0):
    """The raw odds and final column of a what-if battle, as the rulebook's clauses give them."""
    return book.evaluate(f"odds_what_if({shift})", attack=attack, defense=defense)


def adjacent(book, a, b):
    return book.evaluate("adjacent(a, b)", a=a, b=b)


def roll_line(state):
    """The log line of the latest dice roll and its result."""
    return next(e for e in reversed(state.log) if " rolls " in e.text)


# ------------------------------------------------------------------ 8.9 / 8.10
@pytest.mark.rule("8.9")
def test_8_9_26_against_7_is_3_to_1(book):
    assert odds(book, 26, 7) == ("3:1", "3:1")


@pytest.mark.rule("8.10")
def test_8_10_5_against_11_is_1_to_3(book):
    assert odds(book, 5, 11) == ("1:3", "1:3")


# ------------------------------------------------------------------ 8.14
@pytest.mark.rule("8.14")
def test_8_14_3_to_1_against_chapultepec_is_1_to_2_by_odds(book):
    assert "major_fortress" in book.evaluate("h.terrain", h="1322")
    assert odds(book, 26, 7, shift=-3) == ("3:1", "1:2")


@pytest.mark.rule("8.14")
def test_8_14_3_to_1_against_chapultepec_is_1_to_2_in_battle(game, battle):
    # 1321 (N of 1322) and 1422 (NE) are neighbouring directions: no concentric
    # assault (8.11), so the major fortress is the only shift. 7+7+7 = 21 vs 6: 3:1.
    state = game({"A1": "1322", "S1": "1321", "S2": "1321", "S3": "1422"},
                 phase="spanish_land_combat")
    battle(state, "1322", ["S1", "S2", "S3"])
    state.apply("resolve")
    entry = _final_column_entry(state)
    assert "attack 21" in entry.text and "defense 6" in entry.text
    assert "odds 3:1" in entry.text
    assert entry.text.endswith("final column 1:2")
    assert "8.14" in entry.rules
    assert "8.11" not in entry.rules  # no concentric assault: only applied shifts are cited
    assert state.is_chance_node()


# ------------------------------------------------------------------ 8.18
@pytest.mark.rule("8.18")
def test_8_18_roll_5_at_3_to_1_is_1_2_in_the_table(book):
    assert book.evaluate("cell(crt, r, c)", r=5, c=(3, 1)) == (1, 2)
    # No other roll gives 1/2 at 3:1, so its chance is that of rolling 5: 4 in 36.
    forecast = book.evaluate("results_what_if(0)", attack=26, defense=7)
    assert forecast[(1, 2)] == Fraction(1, 9)


@pytest.mark.rule("8.18")
def test_8_18_roll_5_at_3_to_1_is_1_2_in_battle(game, battle, resolve):
    # Clear hex 1120, attackers from one hex: 21 vs 6 is 3:1 with no shift.
    state = game({"A1": "1120", "S1": "1121", "S2": "1121", "S3": "1121"},
                 phase="spanish_land_combat")
    battle(state, "1120", ["S1", "S2", "S3"])
    resolve(state, 5)
    line = roll_line(state)
    assert "rolls 5 at 3:1" in line.text and "result 1/2" in line.text
    assert "8.18" in line.rules
    # The defender owes two steps (8.19: he allocates first), the attacker one.
    assert state.current_player == "aztec"
    assert state.legal_actions() == [Action("lose", ("A1",))]
    state.apply("lose A1")
    state.apply("lose A1")
    assert state.current_player == "spanish"
    assert {str(a) for a in state.legal_actions()} == {"lose S1", "lose S2", "lose S3"}
    state.apply("lose S2")
    assert state.attribute("A1", "steps") == 2
    assert [state.attribute(u, "steps") for u in ("S1", "S2", "S3")] == [4, 3, 4]
    assert not S.battle_open(state) and state.current_player == "spanish"


# ------------------------------------------------------------------ 7.16
@pytest.mark.rule("7.16")
def test_7_16_aztec_cannot_cut_from_2910_to_3010(book, game):
    state = game({**GARRISON, "A11": "2910"}, phase="aztec_land_movement")
    assert adjacent(book, "2910", "3010")
    with pytest.raises(IllegalActionError) as caught:
        state.apply("move A11 3010")
    assert "7.16" in caught.value.rules
    assert state.place_of("A11") == "2910"


@pytest.mark.rule("7.16")
def test_7_16_aztec_goes_2910_3011_3010_along_the_causeway(game):
    state = game({**GARRISON, "A11": "2910"}, phase="aztec_land_movement")
    state.apply("move A11 3011")
    state.apply("move A11 3010")
    assert state.place_of("A11") == "3010"
    assert state.attribute("A11", "spent") == 2  # Aztec causeway rate: 1 per hex
    moves = [e for e in state.log if e.text.startswith("A11 moves")]
    assert len(moves) == 2 and all("7.16" in e.rules for e in moves)


# ------------------------------------------------------------------ 8.4 / 8.5
@pytest.mark.rule("8.4")
def test_8_4_2924_touches_3024_and_3025(book):
    assert adjacent(book, "2924", "3024")
    assert adjacent(book, "2924", "3025")
    assert adjacent(book, "3024", "2924") and adjacent(book, "3025", "2924")


@pytest.mark.rule("8.5")
def test_8_4_8_5_attacker_from_2924_has_one_target_hex(game, battle, resolve):
    # S1 on the causeway at 2924 touches both 3024 and 3025; S2 in Xoloco (2925)
    # touches 3025 only.
    state = game({"S1": "2924", "S2": "2925", "A11": "3024", "A12": "3025"},
                 phase="spanish_land_combat")
    assert {"attack 3024", "attack 3025"} <= {str(a) for a in state.legal_actions()}
    battle(state, "3024", ["S1"])
    # A battle has a single target: S2 cannot join from a hex not next to it
    # (8.4) and no second target can be opened while this battle is open.
    with pytest.raises(IllegalActionError) as caught:
        state.apply("join S2")
    assert "8.4" in caught.value.rules
    assert Action("attack", ("3025",)) not in state.legal_actions()
    assert state.why_illegal(Action("attack", ("3025",)))
    # 7 vs 3 is 2:1, chinampa (8.13) makes 1:1; a roll of 9 there is 0/0.
    resolve(state, 9)
    assert not S.battle_open(state)
    state.apply("attack 3025")
    with pytest.raises(IllegalActionError) as caught:
        state.apply("join S1")
    assert "8.5" in caught.value.rules
    state.apply("join S2")
    assert [str(u) for u in state.evaluate("attackers")] == ["S2"]


# ------------------------------------------------------------------ 8.21
@pytest.mark.rule("8.21")
def test_8_21_two_step_unit_is_reduced_first(game, battle, resolve):
    # Three knights: A1 with 2 steps, A2 and A3 with 1 (combat 3 + 2 + 2 = 7).
    # S1 (7) against them in clear terrain is 1:1; a roll of 11 there is 1/2.
    state = game({"A1": "1120", "A2": "1120", "A3": "1120", "S1": "1121"},
                 phase="spanish_land_combat", steps={"A1": 2, "A2": 1, "A3": 1})
    battle(state, "1120", ["S1"])
    resolve(state, 11)
    assert "result 1/2" in roll_line(state).text
    assert state.current_player == "aztec"
    assert state.legal_actions() == [Action("lose", ("A1",))]
    for unit in ("A2", "A3"):
        with pytest.raises(IllegalActionError) as caught:
            state.apply(f"lose {unit}")
        assert caught.value.rules == ("8.21",)
    state.apply("lose A1")
    # Now every unit has one step: the second loss may fall on any of them.
    assert {str(a) for a in state.legal_actions()} == {"lose A1", "lose A2", "lose A3"}
    state.apply("lose A3")
    assert state.attribute("A1", "steps") == 1 and state.attribute("A2", "steps") == 1
    assert state.place_of("A3") == "dead.aztec"
    assert state.current_player == "spanish"


@pytest.mark.rule("8.21")
def test_8_21_same_example_on_the_attacking_side(game, battle, resolve):
    # The attacker allocates under the same rule: S1 at 2 steps, S2 and S3 at 1.
    # 4 + 2 + 2 = 8 against A1 (6) in clear: 1:1; a roll of 7 there is 2/2.
    state = game({"A1": "1120", "S1": "1121", "S2": "1121", "S3": "1121"},
                 phase="spanish_land_combat", steps={"S1": 2, "S2": 1, "S3": 1})
    battle(state, "1120", ["S1", "S2", "S3"])
    resolve(state, 7)
    assert "result 2/2" in roll_line(state).text
    state.apply("lose A1")
    state.apply("lose A1")
    assert state.current_player == "spanish"
    assert state.legal_actions() == [Action("lose", ("S1",))]
    assert "8.21" in {r for r, _ in state.why_illegal(Action("lose", ("S2",)))}

