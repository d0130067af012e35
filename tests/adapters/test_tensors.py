"""The observation tensor shows a player what ``GameState.observation`` shows, and no more.

A piece hidden from a player (8.8: what is under the top unit of an enemy
stack; Grands Stratèges' counters face down) appears in that player's tensor
only as a count in the place it is in: the tensor is compared entry by entry
with one built from ``observation()`` alone, and altering a hidden piece
leaves the tensor as it was while the player who sees the piece sees the
change.
"""

from __future__ import annotations

from typing import Any

import pytest
from adapter_books import each_book, load, random_walk
from extras import need
from hypothesis import given, settings
from hypothesis import strategies as st

from cortes_rules import CortesRulesError, GameState

np = need("numpy", "pettingzoo")
Layout = need("cortes_rules.adapters.tensors", "pettingzoo").Layout


def _number(value: Any) -> float:
    """A value of the observation as the tensor holds it: a whole number or a yes/no, else 0."""
    return float(value) if type(value) in (int, bool) else 0.0


def tensor_from_observation(layout: Any, state: GameState, player: str) -> Any:
    """The tensor as ``observation(player)`` alone gives it (the reference)."""
    book, seen = layout.book, state.observation(player)
    tensor = np.zeros(layout.size, np.float32)
    view = layout.views(tensor)
    places = {place: i for i, place in enumerate(book.place_ids)}
    off, hidden = len(places), len(places) + 1
    for i, piece in enumerate(book.piece_ids):
        record = seen["pieces"].get(piece)
        if record is None:
            view["pieces"][i, hidden] = 1
            continue
        view["pieces"][i, off if record["place"] is None else places[record["place"]]] = 1
        for j, name in enumerate(layout.piece_attributes):
            shown = record["shown"] if name in record["shown"] else record["bookkeeping"]
            view["piece_attributes"][i, j] = _number(shown[name])
    for place, count in seen["hidden"].items():
        view["hidden_counts"][{"off": off, "unknown": hidden}.get(place) or places[place]] = count
    for p, attributes in enumerate(seen["players"].values()):
        for j, name in enumerate(layout.player_attributes):
            if name in attributes:
                view["player_attributes"][p, j] = _number(attributes[name])
            else:
                view["player_attributes_hidden"][p, j] = 1
    for j, name in enumerate(layout.values):
        view["values"][j] = _number(seen["values"][name])
    view["turn"][0] = seen["turn"]
    view["phase"][layout.phases.index(seen["phase"])] = 1
    to_act = seen["to_act"]
    if to_act is not None:
        view["to_act"][book.players.index(to_act) if to_act in book.players else -1] = 1
    view["viewer"][book.players.index(player)] = 1
    return tensor


@pytest.mark.parametrize("name", each_book())
@settings(max_examples=4, deadline=None)
@given(seed=st.integers(0, 2**32), steps=st.integers(0, 160))
def test_the_tensor_is_what_the_observation_shows(name: str, seed: int, steps: int) -> None:
    book = load(name)
    layout = Layout(book)
    state = random_walk(book.new_game(seed=seed), seed, steps)
    for player in book.players:
        np.testing.assert_array_equal(layout.encode(state, player),
                                      tensor_from_observation(layout, state, player))


def _with_hidden_piece(name: str, viewer: str) -> tuple[GameState, str]:
    """A game in which some piece is hidden from ``viewer``, and that piece."""
    book = load(name)
    for seed in range(20):
        state = book.new_game(seed=seed)
        for _ in range(60):
            shown = state.observation(viewer)["pieces"]
            hidden = [p for p in book.piece_ids
                      if p not in shown and state.place_of(p) is not None]
            if hidden:
                return state, hidden[0]
            random_walk(state, seed, 10)
            if state.is_terminal():
                break
    raise AssertionError(f"no piece of {name} was ever hidden from {viewer}")


@pytest.mark.parametrize("name, viewer", [
    pytest.param("cortes", "spanish", marks=pytest.mark.rule("8.8"), id="cortes"),
    pytest.param("grands_strateges", "b", id="grands_strateges",
                 marks=pytest.mark.rule("scenario_play", rulebook="grands_strateges")),
])
def test_altering_a_hidden_piece_leaves_the_tensor_unchanged(name: str, viewer: str) -> None:
    book = load(name)
    layout = Layout(book)
    state, piece = _with_hidden_piece(name, viewer)
    other = next(p for p in book.players if p != viewer)
    assert piece in state.observation(other)["pieces"]   # its own side sees it
    attribute = layout.piece_attributes[0]
    before = {p: layout.encode(state, p) for p in book.players}
    altered = state.clone()
    altered.set_attribute(piece, attribute, 7 + int(state.attribute(piece, attribute)))
    np.testing.assert_array_equal(layout.encode(altered, viewer), before[viewer])
    assert not np.array_equal(layout.encode(altered, other), before[other])
    # The hidden piece counts in its place (or in "unknown"), and that is all.
    view = layout.views(before[viewer])
    index = book.piece_ids.index(piece)
    assert view["pieces"][index].tolist() == [0.0] * (len(book.place_ids) + 1) + [1.0]
    assert not view["piece_attributes"][index].any()
    assert view["hidden_counts"].sum() == sum(state.observation(viewer)["hidden"].values())


@pytest.mark.rule("4.1")
def test_a_stranger_or_a_game_of_another_rulebook_is_refused() -> None:
    layout = Layout(load("cortes"))
    state = load("cortes").new_game(seed=1)
    with pytest.raises(CortesRulesError, match="no player 'nobody'"):
        layout.encode(state, "nobody")
    with pytest.raises(CortesRulesError, match="another rulebook"):
        layout.encode(load("grands_strateges").new_game(seed=1), "spanish")
    views = layout.views(layout.encode(state, "spanish"))
    assert views["viewer"].tolist() == [1.0, 0.0] and views["to_act"].sum() == 1
