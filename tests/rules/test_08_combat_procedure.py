"""Section 8, the rest of the land combat procedure: the attack sequence (8.6),
stacks split between attacks (8.7), the fog of war (8.8), step losses (8.20),
results of 0 (8.22) and the veterans' rules on cannons (8.24) and causeways
(8.25), each optional rule and each reading tested both ways."""

from __future__ import annotations

import shutil
from collections.abc import Callable, Mapping, Sequence
from pathlib import Path

import pytest
import strategies as S

import cortes_rules
from cortes_rules import Action, IllegalActionError
from cortes_rules.engine.machine import GameState
from positions import GARRISON

CORTES = Path(__file__).resolve().parents[2] / "rulebook" / "cortes"

_BOOKS: dict[tuple[tuple[str, ...], tuple[tuple[str, str], ...]], cortes_rules.Rulebook] = {}


def rulebook(options: Sequence[str] = (), **readings: str) -> cortes_rules.Rulebook:
    """The Cortés rulebook with these optional rules and readings (cached)."""
    key = (tuple(options), tuple(sorted(readings.items())))
    if key not in _BOOKS:
        _BOOKS[key] = cortes_rules.load("cortes", options=list(options), readings=readings)
    return _BOOKS[key]


@pytest.fixture
def play() -> Callable[..., GameState]:
    """``play(positions, options=(), phase=..., **readings)``: a game walked to a phase."""

    def make(positions: Mapping[str, str], *, options: Sequence[str] = (),
             phase: str = "spanish_land_combat", **readings: str) -> GameState:
        # 5.3: an Aztec unit stays in Tenochtitlan, or the game would end.
        state = rulebook(options, **readings).new_game(positions={**GARRISON, **positions})
        for _ in range(17):
            if state.phase == phase:
                return state
            state.apply("end")
        raise AssertionError(f"never reached {phase}")

    return make


def refused(state: GameState, text: str) -> tuple[str, ...]:
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    return caught.value.rules


def fight(state: GameState, target: str, attackers: Sequence[str], roll: int) -> GameState:
    state.apply(f"attack {target}")
    for uid in attackers:
        state.apply(f"join {uid}")
    state.apply("resolve")
    assert state.is_chance_node()
    state.apply(f"roll {roll}")
    return state


def owed(state: GameState, side: str) -> int:
    """How many losses ``side`` takes now, taking the first legal one each time."""
    n = 0
    while state.current_player == side and S.kinds(state) == {"lose"}:
        state.apply(state.legal_actions()[0])
        n += 1
    return n


def lines(state: GameState, text: str) -> list[cortes_rules.LogEntry]:
    return [e for e in state.log if text in e.text]


# ------------------------------------------------------------------ 8.6
@pytest.mark.rule("8.6")
def test_8_6_any_number_of_attacks_in_any_order(play):
    # S1, S2, S3 each next to one Aztec hex; the attacks go 1112, 1110, then 1212.
    state = play({"S1": "1111", "S2": "1111", "S3": "1111",
                  "A11": "1112", "A12": "1110", "A13": "1212"})
    for target, unit in (("1112", "S1"), ("1110", "S2"), ("1212", "S3")):
        assert Action("attack", (target,)) in state.legal_actions()
        fight(state, target, [unit], 8)  # 2:1, 8: 0/0
        assert not S.battle_open(state)
    assert len(lines(state, "battle opened against")) == 3
    assert state.phase == "spanish_land_combat"


@pytest.mark.rule("8.6")
def test_8_6_each_battle_is_finished_before_the_next_opens(play):
    state = play({"S1": "1111", "S2": "1111", "A11": "1112", "A12": "1110"})
    state.apply("attack 1112")
    state.apply("join S1")
    assert not any(a.kind == "attack" for a in state.legal_actions())
    assert state.evaluate('allowed("attack")') is False
    assert "8.6" in state.evaluate('forbid_rules("attack")')
    state.apply("resolve")
    state.apply("roll 8")
    assert Action("attack", ("1110",)) in state.legal_actions()
    opened = lines(state, "battle opened against 1112")[0]
    assert "8.6" in opened.rules


# ------------------------------------------------------------------ 8.7
@pytest.mark.rule("8.7")
def test_8_7_one_stack_attacks_two_hexes_and_keeps_a_unit_back(play):
    state = play({"S1": "1111", "S2": "1111", "S3": "1111", "A11": "1112", "A12": "1110"})
    fight(state, "1112", ["S1"], 8)
    state.apply("attack 1110")
    state.apply("join S2")  # a stack-mate of S1 attacks another hex
    state.apply("resolve")
    state.apply("roll 8")
    assert state.attribute("S1", "attacked") and state.attribute("S2", "attacked")
    assert not state.attribute("S3", "attacked")
    state.apply("end")
    assert state.phase != "spanish_land_combat"


@pytest.mark.rule("8.7")
def test_8_7_each_unit_joins_by_itself_citing_the_rule(play):
    state = play({"S1": "1111", "S2": "1111", "A11": "1112"})
    state.apply("attack 1112")
    state.apply("join S1")
    joined = lines(state, "S1 joins the attack on 1112")[0]
    assert "8.7" in joined.rules


@pytest.mark.rule("8.7")
def test_8_7_the_other_way_a_stack_attacks_as_a_whole(tmp_path):
    # The library's other form, for games without 8.7: once a unit of a stack
    # has attacked, the rest of it joins no other battle.
    folder = tmp_path / "cortes"
    shutil.copytree(CORTES, folder)
    combat = folder / "08-combat.rules"
    text = combat.read_text(encoding="utf-8")
    line = "  units of one stack may attack different hexes\n"
    assert line in text
    combat.write_text(text.replace(line, "  stacks attack as a whole\n"), encoding="utf-8")
    state = cortes_rules.load(folder).new_game(
        positions={"S1": "1111", "S2": "1111", "A11": "1112", "A12": "1110"})
    while state.phase != "spanish_land_combat":
        state.apply("end")
    fight(state, "1112", ["S1"], 8)
    # S2 is the only unit next to 1110, and it may not join: no attack there.
    assert Action("attack", ("1110",)) not in state.legal_actions()
    assert "8.7" in state.evaluate('forbid_rules("join")')


# ------------------------------------------------------------------ 8.8
STACK = {"S1": "1110", "S2": "1110", "A1": "1111", "A2": "1111", "A3": "1111"}


@pytest.mark.rule("8.8")
def test_8_8_spanish_see_only_the_top_aztec_unit(play):
    state = play(STACK)
    seen = state.observation("spanish")
    assert "A1" in seen["pieces"]  # the top counter (interpretation stack_top)
    assert "A2" not in seen["pieces"] and "A3" not in seen["pieces"]
    assert seen["hidden"] == {"1111": 2}


@pytest.mark.rule("8.8")
def test_8_8_aztecs_see_every_spanish_unit(play):
    state = play(STACK)
    seen = state.observation("aztec")
    assert {"S1", "S2", "A1", "A2", "A3"} <= set(seen["pieces"])
    assert seen["hidden"] == {}


@pytest.mark.rule("8.8")
def test_8_8_the_stack_is_shown_when_the_odds_are_computed(play):
    state = play(STACK)
    state.apply("attack 1111")
    state.apply("join S1")
    state.apply("join S2")
    assert "A2" not in state.observation("spanish")["pieces"]
    assert not any("A2" in line for line in state.observation("spanish")["log"])
    assert state.evaluate('allowed("cancel")') is True  # not looked yet: he may call it off
    state.apply("resolve")
    assert state.is_chance_node()
    seen = state.observation("spanish")
    assert {"A1", "A2", "A3"} <= set(seen["pieces"])
    assert any("(A1, A2, A3)" in line for line in seen["log"])
    # Having looked, he may no longer call the attack off.
    assert state.evaluate('allowed("cancel")') is False
    assert "8.8" in state.evaluate('forbid_rules("cancel")')
    state.apply("roll 8")  # 14 vs 18: 1:2, 8: 1/1
    while S.kinds(state) == {"lose"}:
        state.apply(state.legal_actions()[0])
    assert not S.battle_open(state)
    # After the battle the stack is closed again.
    assert state.observation("spanish")["hidden"] == {"1111": 2}


@pytest.mark.rule("8.8")
def test_8_8_calling_off_before_the_odds_shows_nothing(play):
    state = play(STACK)
    state.apply("attack 1111")
    state.apply("join S1")
    state.apply("cancel")
    assert state.observation("spanish")["hidden"] == {"1111": 2}
    assert Action("attack", ("1111",)) in state.legal_actions()


@pytest.mark.rule("8.8")
def test_8_8_the_aztec_attacker_may_still_call_off_after_the_odds(play):
    state = play({"S1": "1110", "A1": "1111", "A11": "1111"}, phase="aztec_land_combat")
    state.apply("attack 1110")
    state.apply("join A1")
    state.apply("resolve")
    assert state.is_chance_node()
    assert state.evaluate('allowed("cancel")') is True


@pytest.mark.rule("8.8")
def test_8_8_aztec_attackers_out_of_a_hidden_stack_are_shown_at_the_odds(play):
    # Interpretation fog_attackers: A2 attacks out of A1's stack; A3 stays home.
    state = play({"S1": "1110", **{a: "1111" for a in ("A1", "A2", "A3")}},
                 phase="aztec_land_combat")
    state.apply("attack 1110")
    state.apply("join A2")
    joined = state.log[-1]
    assert "A2 joins" in joined.text and not joined.visible_to("spanish")
    assert "A2" not in state.observation("spanish")["pieces"]
    state.apply("resolve")
    assert state.is_chance_node()
    seen = state.observation("spanish")
    assert "A2" in seen["pieces"] and "A3" not in seen["pieces"]
    odds = [e for e in state.log if e.text.startswith("A2 against 1110")]
    assert len(odds) == 1 and odds[0].visible_to("spanish")
    assert odds[0].text in seen["log"][-1]
    state.apply("roll 2")  # 6 vs 7: 1:2, 2: 3/1
    assert "A2" in state.observation("spanish")["pieces"]  # still shown while losses are taken
    while S.battle_open(state):
        state.apply(state.legal_actions()[0])
    # The battle over, A2 is back under A1 (or gone): hidden again.
    assert "A2" not in state.observation("spanish")["pieces"]
    under_a1 = 1 + (state.positions()["A2"] == "1111")
    assert state.observation("spanish")["hidden"] == {"1111": under_a1}


@pytest.mark.rule("8.8")
def test_8_8_beginners_see_every_stack(play):
    state = play(STACK, beginner_fog="open")
    assert {"A1", "A2", "A3"} <= set(state.observation("spanish")["pieces"])
    assert state.observation("spanish")["hidden"] == {}
    hidden = play(STACK, beginner_fog="hidden")
    assert hidden.observation("spanish")["hidden"] == {"1111": 2}


# ------------------------------------------------------------------ 8.20
@pytest.mark.rule("8.20")
def test_8_20_each_step_meets_one_point(play):
    # 2:1, 11: 0/2 against a four-step knight band: two flips meet the result.
    state = play({"S1": "1110", "S2": "1110", "A1": "1111"})
    fight(state, "1111", ["S1"], 11)  # 7 vs 6: 1:1, 11: 1/2
    assert owed(state, "aztec") == 2
    assert state.attribute("A1", "steps") == 2
    line = lines(state, "A1 loses a step")[0]
    assert "8.20" in line.rules and "8.19" in line.rules


@pytest.mark.rule("8.20")
def test_8_20_a_two_point_result_eliminates_a_two_step_unit(play):
    state = play({"S1": "1110", "A11": "1111"})
    fight(state, "1111", ["S1"], 11)  # 2:1, 11: 0/2
    assert "8.22" in lines(state, "rolls 11")[0].rules  # the Spanish 0
    assert owed(state, "aztec") == 2
    assert state.place_of("A11") == "dead.aztec"


# ------------------------------------------------------------------ 8.22
@pytest.mark.rule("8.22")
def test_8_22_a_zero_costs_nothing_and_says_so(play):
    state = play({"S1": "1110", "A11": "1111"})
    fight(state, "1111", ["S1"], 9)  # 2:1, 9: 0/1
    assert "8.22" in lines(state, "rolls 9")[0].rules
    assert owed(state, "aztec") == 1
    assert state.attribute("S1", "steps") == 4


# ------------------------------------------------------------------ 8.24
CANNON_ATTACK = {"S1": "1110", "S25": "1110", "A11": "1111"}


@pytest.mark.rule("8.24")
def test_8_24_a_cannon_in_the_attack_raises_the_aztec_loss(play):
    state = play(CANNON_ATTACK, options=["8.24"])
    fight(state, "1111", ["S1", "S25"], 9)  # 7 vs 3: 2:1, 9: 0/1
    raised = lines(state, "the result is raised to 0/2")
    assert raised and raised[0].rules == ("8.24",)
    assert owed(state, "aztec") == 2


@pytest.mark.rule("8.24")
def test_8_24_off_the_cannon_changes_nothing(play):
    state = play(CANNON_ATTACK)
    fight(state, "1111", ["S1", "S25"], 9)
    assert not lines(state, "raised")
    assert owed(state, "aztec") == 1


@pytest.mark.rule("8.24")
def test_8_24_never_more_than_one_however_many_cannons(play):
    state = play(CANNON_ATTACK | {"S26": "1110", "S27": "1110"}, options=["8.24"])
    fight(state, "1111", ["S1", "S25", "S26", "S27"], 9)
    assert lines(state, "the result is raised to 0/2")
    assert owed(state, "aztec") == 2


@pytest.mark.rule("8.24")
def test_8_24_a_cannon_in_defence_raises_the_aztec_attacker_loss(play):
    positions = {"S1": "1110", "S25": "1110", "A1": "1111"}
    state = play(positions, options=["8.24"], phase="aztec_land_combat")
    fight(state, "1110", ["A1"], 5)  # 6 vs 7: 1:2, 5: 1/0
    assert lines(state, "the result is raised to 2/0")
    assert owed(state, "aztec") == 2
    assert state.attribute("S1", "steps") == 4


@pytest.mark.rule("8.24")
def test_8_24_the_spanish_loss_is_never_raised(play):
    state = play(CANNON_ATTACK, options=["8.24"])
    fight(state, "1111", ["S1", "S25"], 7)  # 2:1, 7: 1/2 -> 1/3
    assert lines(state, "the result is raised to 1/3")
    assert "8.22" not in lines(state, "rolls 7")[0].rules  # no 0 on either side


@pytest.mark.rule("8.24")
@pytest.mark.rule("8.22")
def test_8_24_a_zero_is_raised_by_default(play):
    state = play(CANNON_ATTACK, options=["8.24"])
    fight(state, "1111", ["S1", "S25"], 8)  # 2:1, 8: 0/0 -> 0/1
    assert lines(state, "the result is raised to 0/1")
    assert owed(state, "aztec") == 1


@pytest.mark.rule("8.24")
@pytest.mark.rule("8.22")
def test_8_24_a_zero_stays_a_zero_in_the_other_reading(play):
    state = play(CANNON_ATTACK, options=["8.24"], cannon_zero="zero_stays")
    fight(state, "1111", ["S1", "S25"], 8)
    assert not lines(state, "raised")
    assert "8.22" in lines(state, "rolls 8")[0].rules
    assert not S.battle_open(state)
    assert state.attribute("A11", "steps") == 2
    # A result of one or more is still raised in that reading.
    state = play(CANNON_ATTACK, options=["8.24"], cannon_zero="zero_stays")
    fight(state, "1111", ["S1", "S25"], 9)
    assert owed(state, "aztec") == 2


@pytest.mark.rule("8.24")
def test_8_24_is_a_veterans_rule(play):
    state = play(CANNON_ATTACK, options=["veteran"])
    fight(state, "1111", ["S1", "S25"], 9)
    assert owed(state, "aztec") == 2
    state = play(CANNON_ATTACK, options=["beginner"])
    fight(state, "1111", ["S1", "S25"], 9)
    assert owed(state, "aztec") == 1


# ------------------------------------------------------------------ 8.25
# Tlatelolco (2810) faces the causeway hex 2910 across a causeway hexside.
CAUSEWAY = {"S1": "2810", "S2": "2810", "A11": "2910"}


@pytest.mark.rule("8.25")
def test_8_25_only_one_spanish_unit_attacks_across_a_causeway(play):
    state = play(CAUSEWAY, options=["8.25"])
    state.apply("attack 2910")
    state.apply("join S1")
    assert refused(state, "join S2") == ("8.25",)


@pytest.mark.rule("8.25")
def test_8_25_off_every_unit_may_attack_across(play):
    state = play(CAUSEWAY)
    state.apply("attack 2910")
    state.apply("join S1")
    state.apply("join S2")
    assert S.odds_of(state).attack == 14


@pytest.mark.rule("8.25")
def test_8_25_binds_allies_without_lake_capability_only(play):
    # The Texcocoans (S29, S30) may move on the lake; the Tlaxcalans (S36, S37) may not.
    state = play({"S29": "2810", "S30": "2810", "A11": "2910"}, options=["8.25"])
    state.apply("attack 2910")
    state.apply("join S29")
    state.apply("join S30")  # both lake-capable: no limit
    state = play({"S36": "2810", "S37": "2810", "A11": "2910"}, options=["8.25"])
    state.apply("attack 2910")
    state.apply("join S36")
    assert refused(state, "join S37") == ("8.25",)


@pytest.mark.rule("8.25")
def test_8_25_does_not_bind_units_from_other_hexsides(play):
    state = play({"S1": "2810", "S2": "2811", "A11": "2910"}, options=["8.25"])
    state.apply("attack 2910")
    state.apply("join S1")
    state.apply("join S2")  # 2811-2910 is no causeway hexside
    assert S.odds_of(state).attack == 14


@pytest.mark.rule("8.25")
def test_8_25_does_not_bind_aztecs(play):
    state = play({"S1": "2910", "A1": "2810", "A2": "2810"}, options=["8.25"],
                 phase="aztec_land_combat")
    state.apply("attack 2910")
    state.apply("join A1")
    state.apply("join A2")
    assert S.odds_of(state).attack == 12


@pytest.mark.rule("8.25")
def test_8_25_infantry_may_bring_one_cannon(play):
    state = play(CAUSEWAY | {"S25": "2810", "S26": "2810"}, options=["8.25"])
    state.apply("attack 2910")
    # No infantry with it yet: nor may it join at all before some (8.4,
    # interpretation stepless_attackers).
    assert refused(state, "join S25") == ("8.4", "8.25")
    state.apply("join S1")
    state.apply("join S25")
    assert refused(state, "join S26") == ("8.25",)  # one cannon only
    state = play({"S9": "2810", "S25": "2810", "A11": "2910"}, options=["8.25"])
    state.apply("attack 2910")
    state.apply("join S9")
    assert refused(state, "join S25") == ("8.4", "8.25")  # cavalry brings no cannon


@pytest.mark.rule("8.25")
def test_8_25_stacking_and_defence_are_not_limited(play):
    # Five Spanish units on a causeway hex all defend.
    units = {f"S{i}": "2910" for i in range(1, 6)}
    state = play(units | {"A1": "2810"}, options=["8.25"], phase="aztec_land_combat")
    state.apply("attack 2910")
    state.apply("join A1")
    assert S.odds_of(state).defense == 35


@pytest.mark.rule("8.25")
def test_8_25_cortes_counts_as_the_one_unit_by_default(play):
    positions = CAUSEWAY | {"Cortes": "2810"}
    state = play(positions, options=["8.25"])
    state.apply("attack 2910")
    state.apply("join S1")
    assert refused(state, "join Cortes") == ("8.25",)
    state = play(positions, options=["8.25"], causeway_cortes="cortes_free")
    state.apply("attack 2910")
    state.apply("join S1")
    state.apply("join Cortes")
    assert refused(state, "join S2") == ("8.25",)
