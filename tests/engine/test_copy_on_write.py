"""Clones share their attribute columns and game values until one of them writes
(copy on write).

``GameState.clone()`` is O(1): the attributes of pieces and places and the
game values stay shared until a state writes to one, and then only the column
(or the table of values) written is copied
(``apply()`` clones before every action, to restore the state on error, so a
whole-table copy would be paid at every step). These tests drive a family of
clones with random writes and random legal actions, and hold every state to
a model of what it alone has done.
"""

from __future__ import annotations

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

from cortes_rules import IllegalActionError

ATTRIBUTES = ("steps", "spent", "moved")
CLONE, WRITE, PLAY, SET = "clone", "write", "play", "set"
# A declared game value (05-victory.rules) that set_value() writes.
VALUE = "interphases_held"


def snapshot(state, pieces) -> dict[tuple[str, str], object]:
    """Every watched attribute of every piece, and where each piece is."""
    found: dict[tuple[str, str], object] = {
        (p, a): state.attribute(p, a) for p in pieces for a in ATTRIBUTES}
    found.update(((p, "place"), state.place_of(p)) for p in pieces)
    found.update((("value", name), value) for name, value in state.values.items())
    return found


operations = st.lists(st.one_of(
    st.tuples(st.just(CLONE), st.integers(0, 7)),
    st.tuples(st.just(WRITE), st.integers(0, 7), st.integers(0, 104),
              st.sampled_from(ATTRIBUTES), st.integers(0, 3)),
    st.tuples(st.just(PLAY), st.integers(0, 7), st.integers(0, 2**16)),
    st.tuples(st.just(SET), st.integers(0, 7), st.integers(0, 5)),
), min_size=1, max_size=25)


@pytest.mark.rule("4.2")
@settings(max_examples=25)
@given(ops=operations)
def test_a_write_or_an_action_changes_only_the_state_it_is_made_on(book, ops):
    pieces = book.piece_ids
    states = [book.new_game(seed=3, setup="demo", turn_limit=2)]
    models = [snapshot(states[0], pieces)]
    for op in ops:
        i = op[1] % len(states)
        state = states[i]
        if op[0] == CLONE:
            states.append(state.clone())
            models.append(dict(models[i]))
        elif op[0] == WRITE:
            piece = pieces[op[2] % len(pieces)]
            state.set_attribute(piece, op[3], op[4])
            models[i][(piece, op[3])] = op[4]
        elif op[0] == SET:
            state.set_value(VALUE, op[2])
            models[i][("value", VALUE)] = op[2]
        else:
            if state.is_terminal():
                continue
            if state.is_chance_node():
                state.apply_chance()
            else:
                legal = state.legal_action_ids()
                state.apply(legal[op[2] % len(legal)])
            models[i] = snapshot(state, pieces)   # what the action did is its own affair
        for twin, model in zip(states, models, strict=True):
            assert snapshot(twin, pieces) == model


@pytest.mark.rule("4.2")
def test_a_refused_action_after_a_write_leaves_both_states_as_they_were(book):
    state = book.new_game(seed=3, setup="demo", turn_limit=2)
    piece = book.piece_ids[0]
    twin = state.clone()
    state.set_attribute(piece, "spent", 2)
    before, twin_before = snapshot(state, book.piece_ids), snapshot(twin, book.piece_ids)
    legal = set(state.legal_action_ids())
    illegal = next(n for n in range(book.num_distinct_actions) if n not in legal)
    with pytest.raises(IllegalActionError):
        state.apply(illegal)
    assert snapshot(state, book.piece_ids) == before
    assert snapshot(twin, book.piece_ids) == twin_before
    assert (state.attribute(piece, "spent"), twin.attribute(piece, "spent")) == (2, 0)


@pytest.mark.rule("4.2")
def test_a_game_value_written_after_a_clone_is_the_writers_alone(book):
    # The values are shared by a clone until one side writes: the first write
    # copies them, and a refused action puts the writer's own copy back.
    state = book.new_game(seed=3, setup="demo", turn_limit=2)
    twin = state.clone()
    assert twin.values is state.values
    twin.set_value(VALUE, 4)
    assert (state.values[VALUE], twin.values[VALUE]) == (0, 4)
    third = twin.clone()
    state.set_value(VALUE, 2)
    third.set_value(VALUE, 5)
    assert [s.values[VALUE] for s in (state, twin, third)] == [2, 4, 5]
    legal = set(twin.legal_action_ids())
    illegal = next(n for n in range(book.num_distinct_actions) if n not in legal)
    with pytest.raises(IllegalActionError):
        twin.apply(illegal)
    assert [s.values[VALUE] for s in (state, twin, third)] == [2, 4, 5]
