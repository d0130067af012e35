"""Opening sequences: phases played once, before the first game turn (the core
feature the Cortés set-up stage of section 3 is stated with)."""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.errors import RulesCheckError

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"

# Before the race, each player in turn places his runner in the start area
# (a set-up stage), when the game begins with the runners off the track.
OPENING = '''
rule 1.3 "Lining up" {
  summary "Before the first turn, Red then Blue puts his runner on the start area."
  action line_up(runner: piece, to: place) "Put a runner on the track"
  opening sequence lining_up {
    phase red_lines_up "Red lines up" by red does line_up_runner
    phase blue_lines_up "Blue lines up" by blue does line_up_runner
  }
  procedure line_up_runner(p) {
    for each r in pieces where r.side == p and r.place == none {
      choose by p {
        option line_up(runner in [r], to in [start]) {
          put runner into to
          log "{runner} lines up" cite "1.3"
        }
      }
    }
  }
}
'''


@pytest.fixture(scope="module")
def race(tmp_path_factory: pytest.TempPathFactory) -> cortes_rules.Rulebook:
    path = tmp_path_factory.mktemp("race") / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + OPENING, encoding="utf-8")
    return cortes_rules.load(str(path))


@pytest.mark.rule("4.2")
def test_opening_phases_come_before_the_first_turn_and_only_once(race) -> None:
    assert race.phases == ("walking",)
    assert race.opening_phases == ("red_lines_up", "blue_lines_up")
    state = race.new_game()
    assert (state.turn, state.phase, state.current_player) == (1, "red_lines_up", "red")
    state.apply("line_up R start")
    assert (state.phase, state.current_player) == ("blue_lines_up", "blue")
    state.apply("line_up B start")
    assert (state.turn, state.phase, state.current_player) == (1, "walking", "red")
    state.apply("rest")
    state.apply("rest")
    # Turn 2 starts with the turn sequence, not with the opening again.
    assert (state.turn, state.phase, state.current_player) == (2, "walking", "red")
    assert [str(e).split(": ", 1)[1] for e in state.log[:2]] == [
        "R lines up [1.3]", "B lines up [1.3]"]


@pytest.mark.rule("4.2")
def test_an_opening_with_nothing_to_do_is_passed_at_once(race) -> None:
    state = race.new_game(setup="standard")
    assert (state.turn, state.phase) == (1, "walking")


@pytest.mark.rule("4.2")
@pytest.mark.parametrize(("text", "message"), [
    (OPENING.replace("red_lines_up", "walking"), "phase 'walking' appears twice"),
    (OPENING.replace("does line_up_runner", "does line_up_runners", 1),
     "unknown procedure 'line_up_runners'"),
    (OPENING.replace("by blue", "by green"), "unknown player 'green'"),
])
def test_opening_phases_are_checked_like_the_turn_sequence(tmp_path, text, message) -> None:
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + text, encoding="utf-8")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(str(path))
    assert message in str(caught.value)


@pytest.mark.rule("4.2")
def test_an_opening_is_not_a_turn_sequence(tmp_path) -> None:
    text = MINIMAL.read_text(encoding="utf-8").replace("  sequence turn {",
                                                       "  opening sequence turn {")
    path = tmp_path / "race.rules"
    path.write_text(text, encoding="utf-8")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(str(path))
    assert "turn sequence" in str(caught.value)
