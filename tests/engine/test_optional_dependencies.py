"""A clause that is always in force may not lean on an optional rule.

The checker reads every rule with all optional rules on, so that a broken
optional rule is found before anyone switches it on; the rulebook as loaded
(some of them off) is checked too, so that a name only an optional rule
declares is reported at its file:line:column instead of failing later.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from minimal_book import MINIMAL, minimal_with

LEANING = '''
rule 2.8 "Tired runners" optional {
  summary "A runner that has walked twice is tired."
  function tired(u) = u.walked >= 2
}

rule 2.9 "Resting" {
  summary "Only a tired runner may rest."
  forbid rest when not any(u in runners_of(p) where tired(u))
}
'''


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_a_name_from_a_rule_switched_off_is_reported_where_it_is_used(tmp_path: Path) -> None:
    with pytest.raises(cortes_rules.RulesCheckError) as caught:
        minimal_with(tmp_path, LEANING)
    message = str(caught.value)
    assert "race.rules:" in message and "unknown function 'tired'" in message
    assert "[rule 2.9]" in message


@pytest.mark.rule("2.9", rulebook="minimal_race")
def test_with_the_optional_rule_on_the_rulebook_loads(tmp_path: Path) -> None:
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + LEANING, encoding="utf-8")
    book = cortes_rules.load(path, options=["2.8"])
    state = book.new_game(setup="standard")
    assert "rest" not in {str(a) for a in state.legal_actions()}
    assert state.why_illegal("rest")[0][0] == "2.9"
