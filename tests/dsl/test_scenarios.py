"""Scenarios: starting situations of one game, chosen when the rulebook is loaded.

A wargame such as Grands Stratèges comes with scenarios, each with its own
board, forces, deployment, special rules, victory conditions and length. A
``scenario NAME "Title" { ... }`` block names its map and the optional rules
it switches on, and holds statements that hold only when it is chosen:
``load(path, scenario="long")``, by name or number, the first by default.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.cli import main
from cortes_rules.errors import CortesRulesError

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"

SCENARIOS = '''
rule 2.9 "A tail wind" optional {
  summary "With a tail wind the red runner may not rest."
  forbid rest when p == red
}

map loop "A track round a hill" {
  area start "Start"
  area hill "Hill"
  area goal "Goal"
  area puddle "A puddle": water
  adjacent start: hill
  adjacent hill: goal, puddle
}

scenario I "The sprint" {
  map track
  summary "The usual track; whoever walks five areas first also wins."
  value sprint_target: int = 5 "areas to walk"
  finish when any(u in pieces where u.walked >= sprint_target) winner red "five areas walked"
}

scenario II "Round the hill" {
  map loop
  options 2.9
  summary "The track round the hill, with a tail wind."
  value hill_bonus: int = 1 "a point for the climb"
}
'''


@pytest.fixture
def path(tmp_path: Path) -> Path:
    text = MINIMAL.read_text(encoding="utf-8")
    # The set-up places the runners at start, an area of both maps.
    file = tmp_path / "race.rules"
    file.write_text(text + SCENARIOS, encoding="utf-8")
    return file


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_the_first_scenario_is_played_unless_another_is_named(path: Path) -> None:
    book = cortes_rules.load(path)
    assert book.scenarios == (("I", "The sprint"), ("II", "Round the hill"))
    assert book.scenario == "I"
    assert book.evaluate("sprint_target") == 5
    assert "pond" in book.place_ids and "hill" not in book.place_ids
    assert "scenario:I" in book.program.rules


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_a_scenario_brings_its_map_its_options_and_its_statements(path: Path) -> None:
    for asked in ("II", "ii", 2, "2"):
        book = cortes_rules.load(path, scenario=asked)
        assert book.scenario == "II"
        assert "hill" in book.place_ids and "pond" not in book.place_ids
        assert "2.9" in book.program.options
        assert "scenario:I" not in book.program.rules
    state = cortes_rules.load(path, scenario="II").new_game(setup="standard")
    assert state.evaluate("hill_bonus") == 1
    assert "rest" not in {str(a) for a in state.legal_actions()}


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_a_scenario_statement_cites_its_scenario(path: Path) -> None:
    book = cortes_rules.load(path)
    state = book.new_game(setup="standard")
    assert book.program.rules["scenario:I"].statements[0].rule == "scenario:I"
    assert not state.is_terminal()


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_unknown_scenarios_are_refused_with_the_list(path: Path) -> None:
    with pytest.raises(CortesRulesError, match=r"no scenario 'III' .*scenarios: I, II"):
        cortes_rules.load(path, scenario="III")
    with pytest.raises(CortesRulesError, match="has no scenarios"):
        cortes_rules.load(MINIMAL, scenario="I")


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_check_and_selfplay_take_every_scenario(path: Path,
                                                capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", str(path)]) == 0
    out = capsys.readouterr().out
    assert f"{path}, scenario I: ok" in out and f"{path}, scenario II: ok" in out
    assert main(["selfplay", "--rulebook", str(path), "--scenario", "II", "--seed", "1",
                 "--setup", "standard", "--max-turns", "3"]) == 0
    assert "scenario II, seed 1" in capsys.readouterr().out


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_a_scenario_without_a_summary_is_reported(tmp_path: Path) -> None:
    file = tmp_path / "race.rules"
    file.write_text(MINIMAL.read_text(encoding="utf-8") +
                    'scenario I "Bare" {\n  value x: int = 1 "x"\n}\n', encoding="utf-8")
    with pytest.raises(cortes_rules.RulesCheckError, match="scenario I has no summary"):
        cortes_rules.load(file)
