"""Arguments of the wrong type are refused at the API's edge, in words.

``trail(0, player=[1])``, ``load("cortes", options=5)`` and ``evaluate(None)``
raised Python's own ``TypeError`` or ``AttributeError`` from deep inside.
Every public call now checks its arguments first and raises an
``ArgumentTypeError`` (a ``CortesRulesError`` that is also a ``TypeError``),
or another ``CortesRulesError`` for a value of the right type that names
nothing. The property throws values of every type at every public call and
accepts only ``CortesRulesError`` subclasses, and a refused call changes
nothing.
"""

from __future__ import annotations

import functools
import os
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import ArgumentTypeError, CortesRulesError, GameState, Rulebook
from cortes_rules.picture import render_svg
from cortes_rules.record import (
    format_record,
    parse_record,
    read_record,
    record_of,
    replay,
    start,
    verify,
)


def n(examples: int) -> int:
    """An example budget, scaled by PROPERTY_SCALE (as in tests/engine/test_properties.py)."""
    return examples * int(os.environ.get("PROPERTY_SCALE", "1"))


@functools.cache
def _book() -> Rulebook:
    return cortes_rules.load("cortes")


@functools.cache
def _played() -> GameState:
    """A game with some history and log: the demo set-up, two actions in."""
    state = _book().new_game(seed=8, setup="demo")
    state.apply("end")
    state.apply("move S9 3011")
    return state


@pytest.mark.rule("1.0")
def test_the_three_calls_of_the_report_are_refused_in_words() -> None:
    state = _played()
    with pytest.raises(ArgumentTypeError, match="a player is named by a string, not list"):
        state.trail(0, player=[1])  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="options is a string or a list of strings"):
        cortes_rules.load("cortes", options=5)  # type: ignore[arg-type]
    with pytest.raises(ArgumentTypeError, match="an expression is a text"):
        _book().evaluate(None)  # type: ignore[arg-type]
    with pytest.raises(TypeError):       # an ArgumentTypeError is a TypeError too
        state.evaluate(None)  # type: ignore[arg-type]


# Values of every kind: most are of the wrong type for the argument they land in;
# the few strings are of the right type and name something or nothing.
ANY_VALUE = st.one_of(
    st.none(), st.booleans(), st.integers(), st.integers(min_value=10 ** 20),
    st.floats(allow_nan=True), st.fractions(max_denominator=5),
    st.text(max_size=6), st.sampled_from(["S9", "3011", "spanish", "end", "8.8", "steps", ""]),
    st.binary(max_size=3), st.lists(st.integers(), max_size=2),
    st.lists(st.sampled_from(["S9", "3011", 7]), min_size=1, max_size=2).map(tuple),
    st.dictionaries(st.text(max_size=2), st.integers(), max_size=2),
    st.frozensets(st.integers(), max_size=2), st.just(object()), st.just(Path("/nonexistent")),
    st.builds(Fraction, st.integers(), st.integers(min_value=1, max_value=3)),
)


def _empty(value: Any) -> bool:
    """An empty collection: a valid ``options`` (none), which would load for real."""
    return isinstance(value, (list, tuple, frozenset, dict, bytes, str)) and not value


def _load_with(key: str) -> Callable[[Rulebook, GameState, Any], object]:
    def call(book: Rulebook, state: GameState, value: Any) -> object:
        if _empty(value) or (key == "backend" and value in ("python", "compiled", "auto")):
            return None   # a valid argument: a real load, not what is tested here
        return cortes_rules.load("cortes", **{key: value})
    return call


# Each public call with the drawn value in one argument. Calls that change a state
# are made on a clone, whose position is compared before and after.
CALLS: dict[str, Callable[[Rulebook, GameState, Any], object]] = {
    "load": lambda b, s, v: cortes_rules.load(v) if v not in ("cortes",) else None,
    **{f"load.{k}": _load_with(k) for k in ("options", "map", "counters", "setups",
                                            "readings", "scenario", "backend",
                                            "every_reading")},
    "backend": lambda b, s, v: cortes_rules.backend(v),
    "Rulebook.interpretation": lambda b, s, v: b.interpretation(v),
    "Rulebook.depends_on": lambda b, s, v: b.depends_on(v),
    "Rulebook.rule": lambda b, s, v: b.rule(v),
    "Rulebook.parse_action": lambda b, s, v: b.parse_action(v),
    "Rulebook.action_id": lambda b, s, v: b.action_id(v),
    "Rulebook.action_from_id": lambda b, s, v: b.action_from_id(v),
    "Rulebook.evaluate": lambda b, s, v: b.evaluate(v),
    "Rulebook.evaluate.variable": lambda b, s, v: b.evaluate("odds_what_if(0)", attack=v,
                                                             defense=7),
    "Rulebook.setup_positions": lambda b, s, v: b.setup_positions(v),
    "Rulebook.new_game.seed": lambda b, s, v: b.new_game(seed=v, setup="demo"),
    "Rulebook.new_game.setup": lambda b, s, v: b.new_game(setup=v),
    "Rulebook.new_game.positions": lambda b, s, v: b.new_game(positions=v),
    "Rulebook.new_game.position": lambda b, s, v: b.new_game(positions={"S9": v}),
    "Rulebook.new_game.turn_limit": lambda b, s, v: b.new_game(setup="demo", turn_limit=v),
    "Rulebook.new_game.attributes": lambda b, s, v: b.new_game(setup="demo", attributes=v),
    "Rulebook.new_game.attribute": lambda b, s, v: b.new_game(
        setup="demo", attributes={"S9": {"steps": v}}),
    "Rulebook.position": lambda b, s, v: b.position(v),
    "GameState.place_of": lambda b, s, v: s.place_of(v),
    "GameState.attribute": lambda b, s, v: s.attribute(v, "steps"),
    "GameState.attribute.name": lambda b, s, v: s.attribute("S9", v),
    "GameState.set_attribute": lambda b, s, v: s.set_attribute("S9", "steps", v),
    "GameState.set_attribute.piece": lambda b, s, v: s.set_attribute(v, "steps", 2),
    "GameState.set_attribute.place": lambda b, s, v: s.set_attribute("S9", "start", v),
    "GameState.set_place_attribute": lambda b, s, v: s.set_place_attribute("3011", "attacked",
                                                                            v),
    "GameState.set_player_attribute": lambda b, s, v: s.set_player_attribute(v, "score", 1),
    "GameState.set_value": lambda b, s, v: s.set_value("battle_target", v),
    "GameState.set_value.name": lambda b, s, v: s.set_value(v, 1),
    "GameState.same_position": lambda b, s, v: s.same_position(v),
    "GameState.pieces_at": lambda b, s, v: s.pieces_at(v),
    "GameState.evaluate": lambda b, s, v: s.evaluate(v),
    "GameState.evaluate.variable": lambda b, s, v: s.evaluate("u", u=v),
    "GameState.log_tail": lambda b, s, v: s.log_tail(v),
    "GameState.trail": lambda b, s, v: s.trail(v),
    "GameState.trail.player": lambda b, s, v: s.trail(0, player=v),
    "GameState.explain": lambda b, s, v: s.explain(v, rolls=0),
    "GameState.explain.player": lambda b, s, v: s.explain("end", player=v, rolls=0),
    "GameState.explain.rolls": lambda b, s, v: s.explain("end", rolls=v),
    "GameState.reachable": lambda b, s, v: s.reachable(v),
    "GameState.reachable.cost": lambda b, s, v: s.reachable("S9", cost=v),
    "GameState.reachable.kind": lambda b, s, v: s.reachable("S9", kind=v),
    "GameState.move_to": lambda b, s, v: s.move_to("S9", v),
    "GameState.move_to.piece": lambda b, s, v: s.move_to(v, "3012"),
    "GameState.why_illegal": lambda b, s, v: s.why_illegal(v),
    "GameState.why_illegal.player": lambda b, s, v: s.why_illegal("move S9 3012", player=v),
    "GameState.is_legal": lambda b, s, v: s.is_legal(v),
    "GameState.apply": lambda b, s, v: s.apply(v),
    "GameState.random_playout.seed": lambda b, s, v: s.random_playout(v, 2),
    "GameState.random_playout.max": lambda b, s, v: s.random_playout(1, v)
    if not (type(v) is int and v > 20) else None,
    "GameState.observation": lambda b, s, v: s.observation(v),
    "GameState.information_state": lambda b, s, v: s.information_state(v),
    "Action.parse": lambda b, s, v: cortes_rules.Action.parse(v),
    "record.parse_record": lambda b, s, v: parse_record(v),
    "record.parse_record.path": lambda b, s, v: parse_record("rulebook cortes\n", v),
    "record.parse_record.book": lambda b, s, v: parse_record("rulebook cortes\n", book=v),
    "record.read_record": lambda b, s, v: read_record(v),
    "record.replay": lambda b, s, v: replay(v, b),
    "record.replay.book": lambda b, s, v: replay(record_of(s), v),
    "record.replay.to_ply": lambda b, s, v: replay(record_of(s), b, to_ply=v),
    "record.verify": lambda b, s, v: verify(v, b),
    "record.start": lambda b, s, v: start(v, b),
    "record.record_of": lambda b, s, v: record_of(v),
    "record.format_record.player": lambda b, s, v: format_record(s, player=v),
    "record.format_record.setup": lambda b, s, v: format_record(s, setup=v),
    "render_svg": lambda b, s, v: render_svg(v),
    "render_svg.viewer": lambda b, s, v: render_svg(s, viewer=v),
    "render_svg.highlight": lambda b, s, v: render_svg(s, highlight=v),
    "render_svg.marked": lambda b, s, v: render_svg(s, marked=v),
    "render_svg.arrows": lambda b, s, v: render_svg(s, arrows=v),
    "render_svg.title": lambda b, s, v: render_svg(s, title=v),
}


def _position(state: GameState) -> tuple[Any, ...]:
    return (state.to_notation(), len(state.history), len(state.log))


@pytest.mark.rule("1.0")
@settings(max_examples=n(600), deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(st.sampled_from(sorted(CALLS)), ANY_VALUE)
def test_any_argument_is_taken_or_refused_with_a_cortes_rules_error(
        name: str, value: Any) -> None:
    book, played = _book(), _played()
    state = played.clone()
    before = _position(state)
    try:
        CALLS[name](book, state, value)
    except CortesRulesError:
        assert _position(state) == before, name   # a refused call changes nothing
    assert _position(played) == before, name      # the original is never touched


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("name", sorted(CALLS))
def test_each_call_refuses_a_list_where_its_argument_goes(name: str) -> None:
    book, played = _book(), _played()
    state = played.clone()
    before = _position(state)
    try:
        CALLS[name](book, state, [object()])
    except CortesRulesError:
        assert _position(state) == before
    else:
        # Only calls that take any value may accept one (a variable of an
        # expression, a comparison with another state).
        assert name in {"GameState.same_position", "GameState.is_legal",
                        "GameState.why_illegal", "GameState.evaluate.variable",
                        "render_svg.highlight", "render_svg.marked", "render_svg.arrows",
                        "Rulebook.evaluate.variable"}, name
