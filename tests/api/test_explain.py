"""``explain``: the rule trail and the exact outcomes of a question, checked by hand.

Each worked case computes its answer independently of the engine: the two
dice (or one die) counted face by face, the column of the printed results
table (13.2 for Cortés, IV.19 for Grands Stratèges) copied here from the
rulebook, the losses capped by the steps in the battle, and the chained
rolls (9.4, 11.7) by their stated numbers. The explanation must agree
exactly, as fractions.
"""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import CortesRulesError
from cortes_rules.explain import SCHEMA, explain, reach
from positions import to_phase
from positions import GARRISON

GS_BOARD = Path(__file__).resolve().parents[1] / "rules" / "grands_strateges" / "examples_map.rules"

TWO_DICE = {total: Fraction(6 - abs(total - 7), 36) for total in range(2, 13)}
ONE_DIE = {face: Fraction(1, 6) for face in range(1, 7)}

# Columns of the Cortés results table (13.2), rolls 2-12: (attacker, defender) steps.
CRT_1_1 = [(3, 1), (2, 1), (3, 2), (1, 0), (1, 1), (2, 2), (1, 1), (0, 0), (0, 1), (1, 2), (1, 3)]
CRT_4_1 = [(1, 1), (1, 1), (0, 1), (2, 4), (0, 3), (1, 3), (0, 2), (1, 3), (0, 3), (0, 4), (0, 5)]


def column(values):
    return dict(zip(range(2, 13), values, strict=True))


def result_chances(table_column):
    """P(result a/d), counted over the two dice."""
    out: dict[tuple[int, int], Fraction] = {}
    for total, result in column(table_column).items():
        out[result] = out.get(result, Fraction(0)) + TWO_DICE[total]
    return out


def odds_line(answer):
    """The line that states a battle's odds: in the question's trail, or first in every path."""
    lines = [line for step in answer.steps for line in step.trail]
    lines += [line for outcome in answer.outcomes for path in outcome.paths
              for line in path.trail]
    return next(line for line in lines if "final column" in line.text or "odds" in line.text
                and "attack" in line.text)


def in_battle(book, positions, phase):
    return to_phase(book.new_game(seed=0, positions={**GARRISON, **positions}), phase)


@pytest.fixture(scope="module")
def veteran():
    return cortes_rules.load("cortes", options="veteran")


@pytest.fixture(scope="module")
def gs_book():
    return cortes_rules.load("grands_strateges", map=GS_BOARD)


# ------------------------------------------------------------------ an attack on a major fortress
@pytest.mark.rule("8.14")
@pytest.mark.rule("9.3")
@pytest.mark.rule("9.4")
def test_explain_3_to_1_into_a_major_fortress_with_cortes(book):
    # S1 (7) and S20 (4) with Cortés in 1321 against A11 (3) in Chapultepec
    # (1322): 11 to 3 is 3:1 (8.9); three left for the major fortress (8.14)
    # and one right for Cortés (9.3) give 1:1.
    state = in_battle(book, {"S1": "1321", "S20": "1321", "Cortes": "1321", "A11": "1322"},
                      "spanish_land_combat")
    before = state.to_notation()
    answer = explain(state, "attack 1322; join S1; join S20; join Cortes; resolve")
    assert state.to_notation() == before          # the question is asked on a copy
    assert answer.legal
    odds = odds_line(answer)
    assert "odds 3:1" in odds.text and "final column 1:1" in odds.text
    assert {"8.9", "8.14", "9.3", "8.17"} <= set(odds.rules)
    assert "-3 [8.14]" in odds.text and "+1 [9.3]" in odds.text

    total = sum((o.probability for o in answer.outcomes), Fraction(0))
    assert total == 1
    for (lost_a, lost_d), chance in result_chances(CRT_1_1).items():
        assert answer.probability(f"result {lost_a}/{lost_d} ") == chance, (lost_a, lost_d)
    # Spanish 6 steps in the battle (S1 4, S20 2), Aztec 2 (A11).
    spanish = -sum(TWO_DICE[r] * min(a, 6) for r, (a, _) in column(CRT_1_1).items())
    aztec = -sum(TWO_DICE[r] * min(d, 2) for r, (_, d) in column(CRT_1_1).items())
    assert answer.expected["spanish"]["steps"] == spanish
    assert answer.expected["aztec"]["steps"] == aztec
    # 9.4: Cortés, leading the attack, is taken on a 2, or on a 12 as well
    # when the attackers lose steps.
    taken = sum(TWO_DICE[r] * (Fraction(1, 36) + (Fraction(1, 36) if a > 0 else 0))
                for r, (a, _) in column(CRT_1_1).items())
    assert answer.probability("Cortes is captured or killed leading the attack") == taken
    assert sum(o.probability for o in answer.outcomes
               if ("Cortes", "1321", "gone.spanish") in o.moved) == taken
    assert "13.2" in answer.rules and "9.4" in answer.rules


# ------------------------------------------------------------------ a concentric Aztec attack
@pytest.mark.rule("8.11")
@pytest.mark.rule("8.13")
@pytest.mark.rule("11.7")
def test_explain_concentric_aztec_attack_into_chinampa_with_two_sacrifices(veteran):
    # Knights A1 (3019, north) and A2 (3021, south) attack S1 in the chinampa
    # city 3020: 12 to 7 is 1:1 (8.9); opposite hexes shift one right (8.11),
    # two sacrifice markers two more (11.7); chinampa helps only Aztec
    # defenders (8.13), so the battle is read at 4:1.
    state = in_battle(veteran, {"A1": "3019", "A2": "3021", "S1": "3020"}, "aztec_land_combat")
    state.set_value("sacrifice_temples", ["2810", "3016"])
    answer = explain(state, "attack 3020; join A1; join A2; resolve")
    assert answer.legal
    odds = odds_line(answer)
    assert "odds 1:1" in odds.text and "final column 4:1" in odds.text
    assert {"8.11", "11.7", "8.9"} <= set(odds.rules)
    assert "8.13" not in odds.rules
    assert sum((o.probability for o in answer.outcomes), Fraction(0)) == 1
    for (lost_a, lost_d), chance in result_chances(CRT_4_1).items():
        assert answer.probability(f"result {lost_a}/{lost_d} ") == chance, (lost_a, lost_d)
    assert answer.expected["spanish"]["steps"] == -sum(
        TWO_DICE[r] * min(d, 4) for r, (_, d) in column(CRT_4_1).items())
    assert answer.expected["aztec"]["steps"] == -sum(
        TWO_DICE[r] * min(a, 8) for r, (a, _) in column(CRT_4_1).items())
    # 11.7: S1 loses a step in every result of the column, so the knights
    # take prisoners on a 1 or 2 of one die; both temples already hold a marker.
    assert answer.probability("the knights take prisoners, but no temple is free") \
        == Fraction(2, 6)
    assert answer.probability("the knights take no prisoners") == Fraction(4, 6)


# ------------------------------------------------------------------ refusals
@pytest.mark.rule("7.13")
def test_explain_cavalry_into_chinampa_off_the_causeway_is_refused(book):
    state = in_battle(book, {"S9": "3021"}, "spanish_land_movement")
    answer = explain(state, "move S9 3020")
    assert not answer.legal
    assert answer.refusal.rules == ("7.13",)
    assert answer.refusal.action == "move S9 3020" and answer.refusal.index == 0
    assert answer.outcomes == ()
    assert "illegal here" in str(answer) and "[7.13]" in str(answer)


@pytest.mark.rule("6.2")
@pytest.mark.rule("6.7")
def test_explain_a_sixth_infantry_unit_breaks_6_2(book):
    infantry = {f"S{i}": "1110" for i in range(1, 6)}
    state = in_battle(book, {**infantry, "S6": "1111"}, "spanish_land_movement")
    answer = explain(state, "move S6 1110; end")
    assert answer.legal
    (outcome,) = answer.outcomes
    lines = [line for step in answer.steps for line in step.trail] + list(outcome.trail)
    overstacked = [line for line in lines if "overstacked" in line.text]
    assert overstacked and "6.2" in overstacked[0].rules and "6.7" in overstacked[0].rules
    # 6.7: the opponent removes one unit (here by the default policy).
    assert outcome.probability == 1
    assert sum(1 for _, _, to in outcome.moved if to == "dead.spanish") == 1
    assert answer.expected["spanish"]["steps"] == -4


@pytest.mark.rule("8.5")
def test_explain_names_the_first_refused_action_of_a_sequence(book):
    state = in_battle(book, {"S1": "1110", "S2": "1110", "A11": "1111"}, "spanish_land_combat")
    answer = explain(state, ["attack 1111", "join S1", "join S1"])
    assert [step.action for step in answer.steps] == ["attack 1111", "join S1"]
    assert answer.refusal.index == 2 and answer.refusal.action == "join S1"
    assert answer.refusal.reasons


# ------------------------------------------------------------------ Grands Stratèges
@pytest.mark.rule("IV.11", rulebook="grands_strateges")
@pytest.mark.rule("IV.19", rulebook="grands_strateges")
@pytest.mark.rule("IV.20", rulebook="grands_strateges")
def test_explain_grands_strateges_attack_across_a_stream(gs_book):
    # A1 (8) in 1007 attacks B6 in the forest 1008 behind a stream: the
    # forest doubles B6 (4 -> 8), so 1:1, and the stream takes one off the
    # die (IV.11, IV.12). Column 1:1 of the table, by the roll as it counts.
    table_1_1 = {6: "DR", 5: "DR", 4: "DR", 3: "AR", 2: "AR", 1: "AR"}
    state = gs_book.new_game(seed=0, positions={"A1": "1007", "B6": "1008",
                                                "A13": "1601", "B13": "1612"})
    state.apply("end")
    answer = explain(state, "attack 1008; join A1; resolve")
    odds = odds_line(answer)
    assert "odds 1:1" in odds.text and "die modifier -1" in odds.text
    assert {"IV.11", "IV.12"} <= set(odds.rules)
    expected: dict[str, Fraction] = {}
    for face, chance in ONE_DIE.items():
        result = table_1_1[max(face - 1, 1)]
        expected[result] = expected.get(result, Fraction(0)) + chance
    for result, chance in expected.items():
        assert answer.probability(f"at 1:1: {result}") == chance
    retreats = {o.probability: o for o in answer.outcomes}
    assert set(retreats) == {Fraction(2, 3), Fraction(1, 3)}
    assert ("A1", "1007", retreats[Fraction(2, 3)].moved[0][2]) in retreats[Fraction(2, 3)].moved
    assert any("IV.20" in line.rules for line in retreats[Fraction(1, 3)].trail)


# ------------------------------------------------------------------ the answer as data
@pytest.mark.rule("8.18")
def test_explain_as_json_follows_the_schema(book):
    state = in_battle(book, {"S1": "1110", "A11": "1111"}, "spanish_land_combat")
    data = json.loads(json.dumps(explain(state, "attack 1111; join S1; resolve").as_dict()))
    assert data["schema"] == SCHEMA and data["legal"] is True and data["refusal"] is None
    assert data["total_probability"] == "1"
    assert abs(sum(o["p"] for o in data["outcomes"]) - 1) < 1e-12
    for outcome in data["outcomes"]:
        assert Fraction(outcome["probability"]) == sum(
            Fraction(path["probability"]) for path in outcome["paths"])
        for path in outcome["paths"]:
            assert all(set(line) == {"text", "rules"} for line in path["trail"])
    assert set(data["expected"]["aztec"]["steps"]) == {"exact", "value"}


@pytest.mark.rule("8.8")
def test_explain_refuses_a_players_view_over_hidden_pieces(veteran):
    # Veterans' fog of war hides Aztec stacks below their top unit (8.8).
    state = in_battle(veteran, {"S1": "1110", "A1": "1111", "A11": "1111"},
                      "spanish_land_combat")
    with pytest.raises(CortesRulesError, match="hidden from spanish"):
        explain(state, "attack 1111; join S1; resolve", player="spanish")
    with pytest.raises(CortesRulesError, match="no player"):
        explain(state, "attack 1111", player="nobody")
    with pytest.raises(CortesRulesError, match="no action"):
        explain(state, " ; ")


# ------------------------------------------------------------------ properties
@pytest.mark.rule("8.18")
@settings(max_examples=6, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 2**32 - 1), plies=st.integers(0, 400))
def test_explaining_any_legal_action_leaves_the_state_and_sums_to_one(book, monkeypatch,
                                                                       seed, plies):
    monkeypatch.setattr("cortes_rules.explain.MAX_BRANCHES", 3000)
    state = book.new_game(seed=seed, setup="historical")
    state.random_playout(seed, plies)
    while state.is_chance_node():
        state.apply_chance()
    if state.is_terminal():
        return
    before = state.to_notation()
    ids = state.legal_action_ids()
    action = ids[seed % len(ids)]
    try:
        answer = state.explain(action)
    except CortesRulesError as error:
        assert "branch beyond 3000" in str(error)
    else:
        assert answer.legal and answer.steps[0].action == str(book.action_from_id(action))
        assert sum((o.probability for o in answer.outcomes), Fraction(0)) == 1
        assert all(o.paths and o.probability == sum((p.probability for p in o.paths), Fraction(0))
                   for o in answer.outcomes)
    assert state.to_notation() == before


# ------------------------------------------------------------------ an R&R request
@pytest.mark.rule("4.4")
@pytest.mark.rule("4.5")
def test_explain_an_objection_to_an_interphase(veteran):
    # Seven full-strength knights on the map (6.4: three to a hex), Spanish
    # units on a causeway hex (4.4 condition 2) and Aztecs on land outside
    # the city (condition 3): one die + 7 refuses the interphase on 5 or 6.
    knights = {"A1": "1111", "A2": "1111", "A3": "1111", "A4": "1112", "A5": "1112",
               "A6": "1112", "A7": "1212"}
    state = in_battle(veteran, {**knights, "S1": "2921", "S2": "1110"}, "end_of_turn")
    answer = explain(state, "split; object", rolls=1)
    objection = answer.steps[1].trail[0]
    assert "conditions 2, 3 of 4.4 hold" in objection.text and objection.rules == ("4.4",)
    refused = sum((ONE_DIE[face] for face in ONE_DIE if face + 7 >= 12), Fraction(0))
    assert answer.probability("the interphase is refused") == refused == Fraction(1, 3)
    assert answer.probability("the interphase goes ahead") == 1 - refused
    assert "4.5" in answer.rules
    with pytest.raises(CortesRulesError, match="rolls is a whole number"):
        explain(state, "split; object", rolls=-1)


# ------------------------------------------------------------------ reach
@pytest.mark.rule("7.13")
@pytest.mark.rule("7.7")
def test_reach_finds_the_cheapest_way_in_and_names_the_rule_that_bars_it(book):
    state = in_battle(book, {"S9": "3021", "S1": "3021"}, "spanish_land_movement")
    # Cavalry reaches the chinampa hex 3020 only along the causeway (7.13):
    # 3021 -> 2920 (clear, 1 MP) -> 3020 across the causeway hexside (2 MP).
    found = reach(state, "S9", "3020", cost="spent")
    assert found.reachable and found.cost == 3
    assert [step.action for step in found.steps] == ["move S9 2920", "move S9 3020"]
    assert all("7.7" in step.trail[0].rules for step in found.steps)
    # Infantry walks straight in for the chinampa hex's 2 MP.
    direct = reach(state, "S1", "3020", cost="spent")
    assert [step.action for step in direct.steps] == ["move S1 3020"] and direct.cost == 2
    # Boxed in by chinampa hexes without a causeway, the cavalry cannot move.
    boxed = in_battle(book, {"S9": "3220"}, "spanish_land_movement")
    barred = reach(boxed, "S9", "3120", kind="move", cost="spent")
    assert not barred.reachable and barred.refusal.rules == ("7.13",)
    assert "cannot reach" in str(barred) and "[7.13]" in str(barred)
    assert state.to_notation() == in_battle(book, {"S9": "3021", "S1": "3021"},
                                            "spanish_land_movement").to_notation()
    with pytest.raises(CortesRulesError, match="no place"):
        reach(state, "S9", "9999")


# ------------------------------------------------------------------ a charge
@pytest.mark.rule("11.4")
@pytest.mark.rule("11.5")
def test_explain_a_cavalry_charge_then_the_battle(veteran):
    # S9 (cavalry, 6) charges A11 (a regular warrior, 3) in clear 1111: one
    # die succeeds on 3-6 (11.4). A success takes a step and drives the
    # warrior off, ending the battle (11.5); a failure leaves the battle to
    # be fought at 2:1 (8.9), column 2:1 of 13.2.
    crt_2_1 = [(2, 1), (3, 2), (1, 2), (2, 2), (1, 1), (1, 2), (0, 0), (0, 1), (1, 2), (0, 2),
               (1, 3)]
    state = in_battle(veteran, {"S9": "1110", "A11": "1111"}, "spanish_land_combat")
    answer = explain(state, "attack 1111; join S9; resolve; charge")
    assert answer.probability("it succeeds") == Fraction(4, 6)
    assert answer.probability("rides into 1111, vacated by the charge") == Fraction(4, 6)
    fails = Fraction(2, 6)
    for (lost_a, lost_d), chance in result_chances(crt_2_1).items():
        assert answer.probability(f"result {lost_a}/{lost_d} ") == fails * chance
    assert sum((o.probability for o in answer.outcomes), Fraction(0)) == 1
    driven = [o for o in answer.outcomes if ("S9", "1110", "1111") in o.moved
              and any(p == "A11" and to not in ("1111", "dead.aztec") for p, _, to in o.moved)]
    assert sum(o.probability for o in driven) == Fraction(4, 6)
