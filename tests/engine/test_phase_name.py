"""``phase``: the name of the phase being played, readable in any clause.

A clause may depend on the phase (Grands Stratèges II.7 forbids battles in
the movement phases). The name is text; the checker refuses a name the turn
sequence does not have, and a refused action that no choice offers still
names the forbid clause that keeps it out, beside the sequence of play (2.1)
that offers no such action in the phase.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from minimal_book import MINIMAL

TWO_PHASES = '''    phase walking "Walk or rest" by red does walk_or_rest
    phase waiting "Blue walks or rests" by blue does walk_or_rest
'''

QUIET = '''
rule 2.5 "Quiet while Blue plays" {
  summary "Nobody walks into the meadow during Blue's phase, and nobody shouts while Red plays."
  action shout "Shout"
  forbid walk when phase == "waiting" and to == meadow
  forbid shout when phase in ["walking"]
}
'''


def two_phase_book(tmp_path: Path, clause: str = QUIET) -> cortes_rules.Rulebook:
    text = MINIMAL.read_text(encoding="utf-8")
    one_phase = '    phase walking "Walk or rest" for each player does walk_or_rest\n'
    assert one_phase in text
    path = tmp_path / "two_phases.rules"
    path.write_text(text.replace(one_phase, TWO_PHASES) + clause, encoding="utf-8")
    return cortes_rules.load(path)


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_phase_is_the_name_of_the_phase_being_played(tmp_path: Path) -> None:
    state = two_phase_book(tmp_path).new_game(setup="standard")
    assert state.evaluate("phase") == "walking"
    state.apply("rest")
    assert state.phase == "waiting"
    assert state.evaluate("phase") == "waiting"
    state.apply("rest")
    assert state.evaluate("phase") == "walking"
    assert state.evaluate("turn") == 2


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_a_clause_on_the_phase_follows_the_phase(tmp_path: Path) -> None:
    state = two_phase_book(tmp_path).new_game(setup="standard")
    red = {str(a) for a in state.legal_actions()}
    assert "walk R meadow" in red
    state.apply("rest")
    blue = {str(a) for a in state.legal_actions()}
    assert "walk B meadow" not in blue and "walk B pond" in blue
    assert state.why_illegal("walk B meadow")[0][0] == "2.5"
    # Cached enumerations do not survive the change of phase.
    state.apply("rest")
    assert "walk R meadow" in {str(a) for a in state.legal_actions()}


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_an_action_no_choice_offers_cites_the_forbid_that_holds(tmp_path: Path) -> None:
    state = two_phase_book(tmp_path).new_game(setup="standard")
    reasons = state.why_illegal("shout")
    assert [rule for rule, _ in reasons] == ["2.5", "2.1"]
    assert reasons[0].clause == 'forbid shout when phase in ["walking"]'
    assert reasons[0].fact == 'phase (walking) is in ["walking"]'
    assert "no shout action is possible now, in Walk or rest" in reasons[1].fact
    assert reasons[1].title == "Sequence of play"
    with pytest.raises(cortes_rules.IllegalActionError, match="2.5"):
        state.apply("shout")
    state.apply("rest")
    # In Blue's phase the clause does not hold: only the sequence of play refuses.
    assert [rule for rule, _ in state.why_illegal("shout")] == ["2.1"]


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_a_phase_the_sequence_lacks_is_refused_with_a_hint(tmp_path: Path) -> None:
    clause = QUIET.replace('phase == "waiting"', 'phase == "wating"')
    with pytest.raises(cortes_rules.RulesCheckError, match="no phase 'wating'.*waiting"):
        two_phase_book(tmp_path, clause)


@pytest.mark.rule("2.5", rulebook="minimal_race")
def test_a_variable_named_phase_is_not_the_built_in(tmp_path: Path) -> None:
    clause = QUIET.replace('forbid shout when phase in ["walking"]',
                           'function noisy(phase) = phase == "anything"\n'
                           '  forbid shout when noisy("walking")')
    state = two_phase_book(tmp_path, clause).new_game(setup="standard")
    assert [rule for rule, _ in state.why_illegal("shout")] == ["2.1"]
