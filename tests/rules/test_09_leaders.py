"""Section 9: leaders. Capture or death of a leader after a battle (9.4)."""

from __future__ import annotations

from fractions import Fraction

import pytest

import cortes_rules
from cortes_rules import IllegalActionError, RulesCheckError
from positions import GARRISON


def _lose_all(state, side):
    """Take every step owed by ``side``, on its first unit able to lose one."""
    while not state.is_terminal() and state.current_player == side and \
            any(a.kind == "lose" for a in state.legal_actions()):
        state.apply(next(a for a in state.legal_actions() if a.kind == "lose"))


def _aztec_defenders_wiped(game, battle, resolve, extra=None):
    positions = {"S1": "1110", "S9": "1110", "A11": "1111", "Cuauhtemoc": "1111",
                 "A12": "1113"} | (extra or {})
    state = game(positions, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S9"])
    resolve(state, 12)      # the last column's 12: the defenders lose everything
    _lose_all(state, "aztec")
    return state


@pytest.mark.rule("9.4")
def test_9_4_leader_whose_stack_is_eliminated_is_taken_on_a_7(game, battle, resolve):
    state = _aztec_defenders_wiped(game, battle, resolve)
    assert state.place_of("A11") == "dead.aztec"
    assert state.is_chance_node()
    odds = dict((str(a), p) for a, p in state.chance_outcomes())
    assert odds["roll 7"] == Fraction(6, 36)
    state.apply("roll 7")
    assert state.place_of("Cuauhtemoc") == "gone.aztec"
    assert any("9.4" in e.rules and "captured or killed" in e.text for e in state.log)


@pytest.mark.rule("9.4")
def test_9_4_otherwise_he_flees_to_the_nearest_friendly_stack(game, battle, resolve):
    state = _aztec_defenders_wiped(game, battle, resolve, {"A13": "1116"})
    state.apply("roll 6")
    # A12 two hexes away is nearer than A13: the only choice offered.
    assert [str(a) for a in state.legal_actions()] == ["flee 1113"]
    assert state.current_player == "aztec"
    state.apply("flee 1113")
    assert state.place_of("Cuauhtemoc") == "1113"


@pytest.mark.rule("9.4")
def test_9_4_owner_chooses_among_equally_near_stacks(game, battle, resolve):
    state = _aztec_defenders_wiped(game, battle, resolve, {"A13": "1109"})
    state.apply("roll 6")
    assert {str(a) for a in state.legal_actions()} == {"flee 1113",
                                                         "flee 1109"}


@pytest.mark.rule("9.4")
def test_9_4_leader_of_a_surviving_stack_is_taken_only_on_a_12(game, battle, resolve):
    state = game({"S1": "1110", "A1": "1111", "Cuauhtemoc": "1111"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 3)           # a small loss: the knights survive
    _lose_all(state, "aztec")
    _lose_all(state, "spanish")
    assert state.attribute("A1", "steps") < 4 and state.place_of("A1") == "1111"
    assert state.is_chance_node()
    state.apply("roll 11")
    assert state.place_of("Cuauhtemoc") == "1111"
    assert any("survives" in e.text for e in state.log)


@pytest.mark.rule("9.4")
def test_9_4_no_roll_for_a_leader_whose_stack_lost_nothing(game, battle, resolve):
    state = game({"S1": "1110", "A1": "1111", "Cuauhtemoc": "1111"},
                 phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    resolve(state, 5)           # 1/0 at 1:1 (7 against 6): the knights lose nothing
    _lose_all(state, "spanish")
    assert state.attribute("A1", "lost") == 0
    assert not state.is_chance_node()
    assert state.place_of("Cuauhtemoc") == "1111"


def _cortes_attacks(game, battle, resolve, roll):
    state = game({"S1": "1110", "Cortes": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "Cortes"])   # 2:1 (8.9, 13.2), one right for Cortés (9.3)
    resolve(state, roll)
    _lose_all(state, "aztec")
    _lose_all(state, "spanish")
    assert state.is_chance_node()
    return state


@pytest.mark.rule("9.4")
def test_9_4_attacking_leader_is_taken_on_a_2_when_the_attackers_lose_nothing(game, battle,
                                                                                 resolve):
    state = _cortes_attacks(game, battle, resolve, 7)     # 0/1 at 3:1
    assert state.attribute("S1", "lost") == 0
    state.apply("roll 2")
    assert state.place_of("Cortes") == "gone.spanish"
    assert state.is_terminal() and state.outcome().winner == "aztec"   # 5.2


@pytest.mark.rule("9.4")
def test_9_4_attacking_leader_survives_a_12_when_the_attackers_lose_nothing(game, battle,
                                                                           resolve):
    state = _cortes_attacks(game, battle, resolve, 7)
    state.apply("roll 12")
    assert state.place_of("Cortes") == "1110"


@pytest.mark.rule("9.4")
def test_9_4_attacking_leader_is_taken_on_a_12_when_the_attackers_lose_steps(game, battle,
                                                                            resolve):
    state = _cortes_attacks(game, battle, resolve, 4)     # 1/1 at 3:1
    assert state.attribute("S1", "lost") == 1
    state.apply("roll 12")
    assert state.place_of("Cortes") == "gone.spanish"


@pytest.mark.rule("9.4")
def test_a_procedure_hook_takes_only_procedure_names(tmp_path):
    lib = tmp_path / "game.rules"
    lib.write_text('''game g "G" { }
rule 1.1 "Players" {
  summary "Two players."
  side a "A"
  side b "B"
  hook after: procedure "steps"
  contribute after = not_a_procedure
  function not_a_procedure() = 1
  procedure p(x) { call each after(x) }
  sequence t { phase one "One" by a does p }
}
''')
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(lib)
    assert "hook after takes the name of a procedure" in str(caught.value)


# ------------------------------------------------------------------ 9.4, last paragraph
def _refused(state, text):
    """Apply an illegal action; return the rules it was refused under. State must not change."""
    before = state.positions()
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    assert state.positions() == before
    return caught.value.rules


@pytest.mark.rule("9.4")
@pytest.mark.rule("7.5")
def test_9_4_a_unit_entering_a_lone_leaders_hex_takes_him(game):
    state = game({**GARRISON, "S1": "1110", "Cuauhtemoc": "1111", "A12": "1114"})
    assert "move S1 1111" in [str(a) for a in state.legal_actions()]
    assert state.why_illegal("move S1 1111") == []
    state.apply("move S1 1111")
    # Taken at once, without a roll (an exception to 7.5).
    assert not state.is_chance_node()
    assert state.place_of("Cuauhtemoc") == "gone.aztec" and state.place_of("S1") == "1111"
    assert state.log[-1].rules == ("7.5", "9.4")
    assert "Cuauhtemoc is captured or killed" in state.log[-1].text


@pytest.mark.rule("9.4")
@pytest.mark.rule("5.2")
def test_9_4_cortes_alone_but_for_a_cannon_is_taken_and_the_aztecs_win(game):
    state = game({**GARRISON, "Cortes": "1110", "S25": "1110", "A11": "1111", "S1": "1114"},
                 phase="aztec_land_movement")
    state.apply("move A11 1110")
    assert state.place_of("Cortes") == "gone.spanish"
    assert state.is_terminal() and state.outcome().winner == "aztec"


@pytest.mark.rule("9.4")
@pytest.mark.rule("7.5")
def test_9_4_only_a_lone_leader_and_only_a_unit_that_is_not_a_leader(game):
    # A leader does not take a leader; a leader with a unit beside him is not alone.
    state = game({**GARRISON, "Cortes": "1110", "S1": "1112", "Cuauhtemoc": "1111",
                  "A12": "1113"})
    assert "7.5" in _refused(state, "move Cortes 1111")
    state = game({**GARRISON, "S1": "1110", "Cuauhtemoc": "1111", "A12": "1111"})
    assert "7.5" in _refused(state, "move S1 1111")
    state = game({**GARRISON, "Cortes": "1110", "S1": "1110", "A11": "1111"},
                 phase="aztec_land_movement")
    assert "7.5" in _refused(state, "move A11 1110")
    # A cannon alone is not a leader: without 11.6 it bars the hex (7.5).
    state = game({**GARRISON, "S25": "1110", "S1": "1114", "A11": "1111"},
                 phase="aztec_land_movement")
    assert "7.5" in _refused(state, "move A11 1110")


@pytest.mark.rule("9.4")
@pytest.mark.rule("7.19")
def test_9_4_a_unit_landing_from_the_lake_takes_a_lone_leader(game):
    state = game({**GARRISON, "Cortes": "3517", "S1": "1110", "A1": "zone.10"},
                 phase="aztec_lake_movement")
    state.apply("sail A1 3517")
    assert state.place_of("Cortes") == "gone.spanish"
    assert state.is_terminal() and state.outcome().winner == "aztec"
