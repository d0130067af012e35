"""A set is visited in the canonical order, never in Python's hash order.

``distinct``, ``union`` and ``set`` build sets; a comprehension over one
(``list(x for x in s)``, ``first(...)``) used to visit it in hash order, and
a Place's hash is its address in memory, so the same seed and actions could
give two orders, and two games, in two processes (the Cortés redeployment
causeways of 10.5 came out in different orders under two loads of the same
rulebook). Places, pieces and players are visited by index.
"""

from __future__ import annotations

import pytest

import cortes_rules

PLACES = {"a": "3011", "b": "2910", "c": "3010"}


@pytest.mark.rule("10.5")
@pytest.mark.parametrize("loads", range(3))
def test_a_comprehension_over_a_set_visits_it_by_index(loads):
    book = cortes_rules.load("cortes", backend="python")   # a fresh World each time
    state = book.new_game(seed=0, setup="historical")
    assert [str(h) for h in state.evaluate("list(x for x in distinct([c, a, b]))",
                                           **PLACES)] == ["2910", "3010", "3011"]
    assert str(state.evaluate("first(x for x in union([[c], [a, b]]))", **PLACES)) == "2910"
    assert [str(h) for h in state.evaluate("list(x for x in set([a, c]) where x != b)",
                                           **PLACES)] == ["3010", "3011"]
