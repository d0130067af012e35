"""A procedure that never reaches a decision is named, not left to hang (``GameState._run``).

Each action runs the procedures until the next decision, chance event or the
end of the game. A rulebook whose procedure goes round a loop for ever is
stopped by a budget that every jump back spends (and every compiled region,
by the instructions it stands for), with an error naming the procedure and
its rule; the state is left as it was before the action.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import RulesRuntimeError
from cortes_rules.engine import machine as machine_module
from minimal_book import MINIMAL


def _book_resting_with(tmp_path: Path, body: str) -> cortes_rules.Rulebook:
    text = MINIMAL.read_text(encoding="utf-8")
    old = 'log "{p} rests" cite "2.2"'
    assert old in text
    path = tmp_path / "race.rules"
    path.write_text(text.replace(old, body, 1), encoding="utf-8")
    return cortes_rules.load(path)


@pytest.mark.rule("2.2", rulebook="minimal_race")
@pytest.mark.parametrize("body", [
    "loop { }",
    "let n = 0\n        loop { set n = n + 1 }",
    "loop { for each u in pieces { set u.walked = u.walked } }",
    "while true { if false { break } }",
], ids=["empty", "counting", "regions", "while"])
def test_a_rest_that_never_ends_is_named_and_changes_nothing(tmp_path, monkeypatch, body):
    monkeypatch.setattr(machine_module, "STEP_BUDGET", 5_000)
    state = _book_resting_with(tmp_path, body).new_game(setup="standard")
    before = state.to_notation()
    with pytest.raises(RulesRuntimeError, match="walk_or_rest runs on without reaching a "
                                                "decision") as caught:
        state.apply("rest")
    assert caught.value.rule == "2.2"
    assert state.to_notation() == before


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_a_long_loop_that_ends_is_not_stopped(tmp_path, monkeypatch):
    monkeypatch.setattr(machine_module, "STEP_BUDGET", 5_000)
    book = _book_resting_with(tmp_path, "let n = 0\n        while n < 4000 { set n = n + 1 }")
    state = book.new_game(setup="standard")
    state.apply("rest")
    assert state.current_player == "blue"


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_a_run_longer_than_the_budget_inside_one_region_is_stopped(tmp_path, monkeypatch):
    """Nested loops with no jump back outside them run as one compiled region; the
    instructions the region stands for (8**4 rounds) are spent from the budget."""
    monkeypatch.setattr(machine_module, "STEP_BUDGET", 5_000)
    items = "[1, 2, 3, 4, 5, 6, 7, 8]"
    body = ("let n = 0\n        " + " ".join(f"for each {v} in {items} {{" for v in "abcd")
            + " set n = n + 1 " + "}" * 4)
    state = _book_resting_with(tmp_path, body).new_game(setup="standard")
    before = state.to_notation()
    with pytest.raises(RulesRuntimeError, match="walk_or_rest runs on without reaching"):
        state.apply("rest")
    assert state.to_notation() == before
