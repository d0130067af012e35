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


@pytest.mark.rule("10.5")
def test_the_canonical_order_of_one_kind_of_value_is_the_order_of_the_key():
    # compile.in_order sorts a collection all of one type (places, pieces,
    # players, numbers, texts) by index or by value: the order the general key
    # gives (entities by index, then numbers, then texts), for every mix.
    from hypothesis import given, settings
    from hypothesis import strategies as st

    from cortes_rules.engine.compile import _order_key, in_order

    world = cortes_rules.load("cortes", backend="python")._machine.world
    entities = st.sampled_from([*world.places[:40], *world.pieces[:40], *world.players])
    values = st.one_of(entities, st.integers(-5, 5), st.booleans(), st.text(max_size=3),
                       st.fractions(max_denominator=4))

    @settings(max_examples=300, deadline=None)
    @given(st.one_of(st.lists(values, max_size=12),
                     st.lists(entities, max_size=12),
                     st.lists(st.sampled_from(world.places), max_size=30, unique=True),
                     st.lists(st.integers(), max_size=12),
                     st.lists(st.text(max_size=3), max_size=12)))
    def check(items):
        for shape in (items, tuple(items), frozenset(items)):
            assert in_order(shape) == sorted(shape, key=_order_key)

    check()
