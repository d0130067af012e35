"""Clauses that state no rule of play: definitions and commentary.

A `definition` or `commentary` clause carries a summary and no statements;
each test here checks that, and where the clause describes how play runs
(8.2, the order of a battle's steps) that the engine follows it.
"""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules.dsl import ir


def clause(book: cortes_rules.Rulebook, number: str) -> ir.Rule:
    return book.rule(number)


def is_commentary(rule: ir.Rule, kind: str) -> bool:
    return rule.kind == kind and not rule.statements and bool(rule.summary)


# ------------------------------------------------------------------ section 2
@pytest.mark.rule("2.1")
def test_2_1_is_commentary_on_the_components(book):
    rule = clause(book, "2.1")
    assert is_commentary(rule, "commentary")
    assert "128" in rule.summary and "six-sided dice" in rule.summary


@pytest.mark.rule("2.4")
def test_2_4_is_commentary_whose_example_the_counter_mix_keeps(book):
    rule = clause(book, "2.4")
    assert is_commentary(rule, "commentary")
    for fact in ("Texcocoan elite", "four steps", "combat factor 6", "movement factor 5", "lake"):
        assert fact in rule.summary, fact


@pytest.mark.rule("2.6")
def test_2_6_is_commentary_listing_the_roster(book):
    rule = clause(book, "2.6")
    assert is_commentary(rule, "commentary")
    for span in ("1-11", "12-24", "25-28", "29", "36", "1-10", "11-53", "Cuauhtemoc"):
        assert span in rule.summary, span


@pytest.mark.rule("2.11")
def test_2_11_defines_the_movement_factor(book):
    rule = clause(book, "2.11")
    assert is_commentary(rule, "definition")
    assert "movement points" in rule.summary


# ------------------------------------------------------------------ section 7
@pytest.mark.rule("7.8")
def test_7_8_defines_the_natural_terrain_types(book):
    rule = clause(book, "7.8")
    assert is_commentary(rule, "definition")
    assert "clear" in rule.summary and "quagmire" in rule.summary


@pytest.mark.rule("7.11")
def test_7_11_defines_the_artificial_terrain_types(book):
    rule = clause(book, "7.11")
    assert is_commentary(rule, "definition")
    for name in ("dry-land city", "chinampa city", "temple complex", "fortress",
                 "major fortress", "causeway"):
        assert name in rule.summary, name


# ------------------------------------------------------------------ 8.2
@pytest.mark.rule("8.2")
def test_8_2_is_commentary_on_the_order_of_a_battle(book):
    rule = clause(book, "8.2")
    assert is_commentary(rule, "commentary")
    assert "five steps" in rule.summary


@pytest.mark.rule("8.2")
def test_8_2_a_battle_runs_its_five_steps_in_order(game, battle, resolve):
    # Attack a dry-land city (Tlacopan) so that a terrain shift shows up.
    state = game({"S1": "1105", "S9": "1105", "A11": "1104"}, phase="spanish_land_combat")
    start = len(state.log)
    battle(state, "1104", ["S1", "S9"])
    resolve(state, 5)
    while state.current_player == "aztec":
        state.apply(str(state.legal_actions()[0]))
    entries = state.log[start:]

    def first(*rules: str) -> int:
        return next(i for i, e in enumerate(entries) if set(rules) & set(e.rules))

    chosen = first("8.4")            # (1) the attackers join
    odds = first("8.9", "8.10")      # (2) odds
    shifted = first("8.12")          # (3) shifts (dry-land city)
    rolled = first("8.18")           # (4) the roll on the table
    applied = first("8.21", "8.20")  # (5) the losses
    assert chosen < odds <= shifted < rolled < applied
    assert "final column 3:1" in entries[shifted].text  # 4:1 shifted one left


# ------------------------------------------------------------------ 10.3
@pytest.mark.rule("10.3")
def test_10_3_is_commentary_naming_the_sub_steps_in_order(book):
    rule = clause(book, "10.3")
    assert is_commentary(rule, "commentary")
    assert "10.4 to 10.9" in rule.summary
    steps = [book.rule(f"10.{n}") for n in range(4, 10)]
    assert all(s.summary for s in steps)
    lines = [(s.span.path, s.span.line) for s in steps]
    assert lines == sorted(lines)  # stated in the order they are carried out
