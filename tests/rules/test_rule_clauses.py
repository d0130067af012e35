"""Every numbered rule of the text is a clause of the rulebook.

The list of numbered rules is fixed here from the source text: sections 2
to 11 (1 is the introduction, 12 the designer's notes) and the two charts
of section 13. The text prints no 8.11 (it numbers concentric assault and
dry-land city both 8.12); 8.2 cites concentric assault as 8.11, so the
rulebook states it as 8.11 and the list keeps it.
"""

from __future__ import annotations

import re

import pytest

import cortes_rules
from cortes_rules.dsl import ir

RANGES = {2: 14, 3: 3, 4: 5, 5: 5, 6: 7, 7: 21, 8: 28, 9: 6, 10: 14, 11: 10}
NUMBERED = [f"{section}.{n}" for section, last in RANGES.items()
            for n in range(1, last + 1)] + ["13.1", "13.2"]
OPTIONAL = ["8.24", "8.25"] + [f"11.{n}" for n in range(1, 11)]
# Words that show up in a French sentence and hardly ever in an English one.
FRENCH = re.compile(r"\b(le|les|des|du|est|une|dans|avec|pour|sur|qui|aux|être|peut)\b",
                    re.IGNORECASE)


@pytest.fixture(scope="module")
def clauses() -> list[ir.Rule]:
    """Every rule clause of the shipped rulebook, optional ones included."""
    book = cortes_rules.load("cortes", options="all")
    return [r for r in book.program.all_rules if not r.mechanism]


@pytest.mark.rule("8.11")
def test_the_list_of_numbered_rules_is_the_texts() -> None:
    assert len(NUMBERED) == 115 and len(set(NUMBERED)) == 115
    assert NUMBERED[:3] == ["2.1", "2.2", "2.3"] and NUMBERED[-3:] == ["11.10", "13.1", "13.2"]


@pytest.mark.parametrize("number", [pytest.param(n, marks=pytest.mark.rule(n), id=n)
                                    for n in NUMBERED])
def test_each_numbered_rule_has_one_clause_with_title_and_english_summary(
        clauses: list[ir.Rule], number: str) -> None:
    found = [r for r in clauses if r.number == number]
    assert len(found) == 1, f"{number}: {len(found)} clauses"
    rule = found[0]
    assert rule.title.strip(), f"{number} has no title"
    assert rule.summary is not None and len(rule.summary.split()) >= 5, \
        f"{number}: the summary is missing or too short to state the rule"
    for text in (rule.title, rule.summary):
        assert not FRENCH.search(text), f"{number}: {text!r} reads as French"


@pytest.mark.rule("2.14")
def test_no_clause_outside_the_texts_numbering(clauses: list[ir.Rule]) -> None:
    assert sorted({r.number for r in clauses} - set(NUMBERED)) == []


@pytest.mark.rule("11.1")
def test_optional_rules_are_section_11_and_the_veterans_rules(clauses: list[ir.Rule]) -> None:
    assert sorted((r.number for r in clauses if r.optional), key=NUMBERED.index) == OPTIONAL


@pytest.mark.rule("2.14")
def test_definition_and_commentary_clauses_say_so(clauses: list[ir.Rule]) -> None:
    marked = {r.number: r.kind for r in clauses if r.kind != "rule"}
    assert marked["2.14"] == "definition" and marked["6.1"] == "definition"
    assert marked["2.4"] == "commentary" and marked["8.2"] == "commentary"
    # Rules of play are never marked: the interphase steps, the victory rules.
    assert not {"4.4", "5.3", "10.4", "11.7"} & set(marked)
