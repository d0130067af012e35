"""Python's conventions for the errors: each is a ``CortesRulesError`` and, where
Python has one for its cause, that exception too.

- an illegal action is a ``ValueError``, as python-chess's ``IllegalMoveError``;
- a name the rulebook does not hold (a set-up, a player, a piece, a place, a
  rule, a value, an attribute, an interpretation, a scenario, an option) is
  an ``UnknownNameError``, also a ``LookupError``; a piece or place id is an
  ``UnknownIdError``, also a ``NotationError``;
- ``load()`` of an unknown name lists the shipped games, and only games.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import cortes_rules
from cortes_rules import (
    ArgumentTypeError,
    CortesRulesError,
    IllegalActionError,
    NotationError,
    UnknownIdError,
    UnknownNameError,
)
from cortes_rules.loader import shipped_games


@pytest.mark.rule("7.5")
def test_an_illegal_action_is_a_value_error(book: cortes_rules.Rulebook) -> None:
    state = book.new_game(seed=8, setup="demo")
    state.apply("end")
    with pytest.raises(ValueError) as caught:
        state.apply("move S2 2810")       # into a hex of Aztec units
    assert isinstance(caught.value, IllegalActionError)
    assert isinstance(caught.value, CortesRulesError)
    assert caught.value.rules == ("7.5",)


def _unknown_names(book: cortes_rules.Rulebook) -> list[Any]:
    state = book.new_game(seed=8, setup="demo")
    state.apply("end")
    calls: list[tuple[str, Callable[[], object]]] = [
        ("set-up", lambda: book.new_game(setup="nowhere")),
        ("set-up", lambda: book.setup_positions("nowhere")),
        ("player", lambda: state.observation("nobody")),
        ("player", lambda: state.why_illegal("end", player="nobody")),
        ("player", lambda: state.trail(0, player="nobody")),
        ("player", lambda: state.information_state("nobody")),
        ("piece", lambda: state.place_of("S99")),
        ("piece", lambda: state.attribute("S99", "steps")),
        ("piece", lambda: state.reachable("S99")),
        ("place", lambda: state.pieces_at("9999")),
        ("place", lambda: book.new_game(positions={"S1": "9999"})),
        ("rule", lambda: book.rule("99.9")),
        ("interpretation", lambda: book.interpretation("no_such_entry")),
        ("attribute", lambda: state.attribute("S1", "no_such_attribute")),
        ("attribute", lambda: state.clone().set_attribute("S1", "no_such_attribute", 1)),
        ("value", lambda: state.clone().set_value("no_such_value", 1)),
        ("option", lambda: cortes_rules.load("cortes", options="no_such_preset")),
        ("rulebook", lambda: cortes_rules.load("no_such_game")),
        ("scenario", lambda: cortes_rules.load("grands_strateges", scenario="XCIX")),
    ]
    return [pytest.param(call, id=f"{kind}-{i}") for i, (kind, call) in enumerate(calls)]


@pytest.mark.rule("1.0")
def test_every_unknown_name_is_a_lookup_error(book: cortes_rules.Rulebook) -> None:
    for param in _unknown_names(book):
        (call,) = param.values
        with pytest.raises(LookupError) as caught:
            call()
        assert isinstance(caught.value, UnknownNameError), param.id
        assert isinstance(caught.value, CortesRulesError), param.id
        assert "no " in str(caught.value), param.id


@pytest.mark.rule("1.0")
def test_an_unknown_piece_or_place_is_also_bad_notation(book: cortes_rules.Rulebook) -> None:
    state = book.new_game(seed=8, setup="demo")
    for call in (lambda: state.place_of("S99"), lambda: state.pieces_at("9999"),
                 lambda: book.new_game(positions={"S99": "3010"})):
        with pytest.raises(UnknownIdError) as caught:
            call()
        assert isinstance(caught.value, NotationError)
        assert isinstance(caught.value, LookupError)


@pytest.mark.rule("1.0")
def test_load_lists_only_the_shipped_games() -> None:
    assert shipped_games() == ["cortes", "grands_strateges"]
    with pytest.raises(UnknownNameError) as caught:
        cortes_rules.load("no_such_game")
    message = str(caught.value)
    assert "(cortes, grands_strateges)" in message
    assert "lib" not in message.replace("no_such_game", "")


@pytest.mark.rule("1.0")
def test_the_new_errors_are_exported() -> None:
    for error in (UnknownNameError, UnknownIdError, ArgumentTypeError):
        assert error.__name__ in cortes_rules.__all__
        assert issubclass(error, CortesRulesError)
    assert issubclass(ArgumentTypeError, TypeError)
    assert issubclass(IllegalActionError, ValueError)
