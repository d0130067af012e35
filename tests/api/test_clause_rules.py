"""``forbid_rules(kind)`` and ``permit_rules(kind)``: the rules a log line cites.

A kind of action may carry permits that override different rules; the rules
of every one of them are cited, in the order of the rulebook, not only those
of the last group read.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"

TWO_PERMITS = """
rule 2.5 "Tired runners" {
  summary "A runner that has walked twice rests."
  forbid walk when runner.walked >= 2
}

rule 2.6 "A last effort" {
  summary "A runner next to the goal may walk once more."
  permit walk despite 2.5 when to == goal
}
"""


@pytest.mark.rule("2.4")
def test_every_permit_group_of_an_action_is_cited(tmp_path: Path) -> None:
    path = tmp_path / "two_permits.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + TWO_PERMITS, encoding="utf-8")
    machine = cortes_rules.load(path).new_game(seed=1, setup="standard").machine
    assert machine.clause_rules("permit", "walk") == ("2.4", "2.6")
    assert machine.clause_rules("forbid", "walk") == ("2.3", "2.5")
    assert machine.clause_rules("permit", "rest") == ()
