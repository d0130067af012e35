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


@pytest.mark.rule("10.5")
def test_a_frozen_sets_order_is_kept_by_identity_not_by_equality():
    # A frozen set is put in order once and found again by identity: Python
    # takes frozenset({1}) and frozenset({True}) for equal, the rules do not.
    from cortes_rules.engine.compile import _as_iterable

    one, true = frozenset({1}), frozenset({True})
    assert _as_iterable(one) == (1,)
    assert [type(x) for x in _as_iterable(true)] == [bool]
    mixed = frozenset({"b", 3, "a", 1})
    assert _as_iterable(mixed) == (1, 3, "a", "b")
    assert _as_iterable(mixed) is _as_iterable(mixed)     # kept
    changing = {3, 1}
    assert _as_iterable(changing) == [1, 3]
    changing.add(0)                                         # a set is never kept
    assert _as_iterable(changing) == [0, 1, 3]
