"""Moves a person makes: every hex a unit can reach this phase, and a move to one of them.

``GameState.reachable(unit)`` walks the unit's legal movement steps (7.1) on
copies of the position, cheapest first; ``move_to(unit, hex)`` applies the
cheapest route found, each step with its rule trail.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from cortes_rules.errors import CortesRulesError


def _movement(book, seed: int, steps: int):
    """A seeded game played at random until a movement decision after ``steps`` actions."""
    state = book.new_game(seed=seed, setup="historical")
    rng = random.Random(seed)
    taken = 0
    while not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance()
            continue
        moves = [a for a in state.legal_actions() if a.kind == "move"]
        if moves and taken >= steps:
            return state, moves[rng.randrange(len(moves))].args[0]
        ids = state.legal_action_ids()
        state.apply(ids[rng.randrange(len(ids))])
        taken += 1
    return None, None


@pytest.mark.rule("7.1")
def test_every_route_leads_to_its_place_at_its_cost_in_movement_points(book) -> None:
    state = book.new_game(seed=8, setup="demo")
    state.apply("end")
    before = state.to_notation()
    routes = state.reachable("S9", cost="spent")
    assert state.to_notation() == before               # asked on copies
    assert routes["3010"].cost == 0 and routes["3010"].steps == ()
    assert len(routes) > 3
    for place, route in routes.items():
        game = state.clone()
        for action in route.actions:
            game.apply(action)
        assert game.place_of("S9") == place
        assert game.attribute("S9", "spent") - state.attribute("S9", "spent") == route.cost
        assert all(step.trail for step in route.steps)   # each step cites its rules
    # One step: every place a legal move of S9 enters is reached.
    entered = {a.args[1] for a in state.legal_actions() if a.kind == "move" and a.args[0] == "S9"}
    assert entered <= set(routes)


@pytest.mark.rule("7.1")
def test_move_to_takes_the_cheapest_route_and_refuses_a_place_out_of_reach(book) -> None:
    state = book.new_game(seed=8, setup="demo")
    state.apply("end")
    routes = state.reachable("S9", cost="spent")
    far = max(routes.values(), key=lambda r: (r.cost, r.place))
    played = state.clone()
    route = played.move_to("S9", far.place, cost="spent")
    assert route.actions == far.actions and route.cost == far.cost
    assert played.place_of("S9") == far.place
    assert [str(a) for a in played.history[-len(far.actions):]] == list(far.actions)
    beyond = next(p for p in book.hex_ids if p not in routes)
    before = state.to_notation()
    with pytest.raises(CortesRulesError, match=f"S9 cannot reach {beyond}"):
        state.move_to("S9", beyond, cost="spent")
    assert state.to_notation() == before
    with pytest.raises(CortesRulesError, match="no piece"):
        state.reachable("S999")
    with pytest.raises(CortesRulesError, match="no place"):
        state.move_to("S9", "9999")


@pytest.mark.rule("7.1")
@settings(max_examples=12, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 60))
def test_a_route_is_cheapest_through_every_place_it_passes(book, seed: int, steps: int) -> None:
    state, unit = _movement(book, seed, steps)
    if state is None:
        return
    routes = state.reachable(unit, cost="spent")
    start = state.place_of(unit)
    assert routes[start].cost == 0
    for route in routes.values():
        game = state.clone()
        spent = state.attribute(unit, "spent")
        for action in route.actions:
            game.apply(action)
            here = game.place_of(unit)
            # Each place on the way is reached no dearer than this route reaches it.
            assert routes[here].cost <= game.attribute(unit, "spent") - spent
        assert game.place_of(unit) == route.place
