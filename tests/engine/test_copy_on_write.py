"""Clones share their attribute columns and game values until one of them writes
(copy on write).

``GameState.clone()`` is O(1): the attributes of pieces and places and the
game values stay shared until a state writes to one, and then only the column
(or the table of values) written is copied
(``apply()`` clones before every action, to restore the state on error, so a
whole-table copy would be paid at every step). These tests drive a family of
clones with random writes and random legal actions, and hold every state to
a model of what it alone has done.

Within ``apply()`` the arrays a state owns are written in place instead, each
write logged: the last tests make an action fail midway and require every
array to be as it was, and a clone taken while an action runs to share
nothing with it.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
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


_ZOC = Path(__file__).resolve().parents[1] / "fixtures" / "core" / "zoc.rules"


def _arrays(state) -> tuple[object, ...]:
    """Copies of everything an action may write in place: where the pieces are, what
    the places hold, the attribute columns, the game values and the stamps."""
    return (list(state.where), dict(state.occupants),
            {k: list(v) for k, v in state.piece_attrs.items()},
            {k: list(v) for k, v in state.place_attrs.items()},
            dict(state.values), list(state.stamps))


def _native_cells(state) -> tuple[list[int], list[int]] | None:
    """Copies of the native attribute columns (compiled backend, once listed natively)."""
    if state.native is None:
        return None
    return list(state.native.pieces), list(state.native.places)


def _arrays_of(state) -> tuple[object, ...]:
    """The arrays themselves (not copies), to tell whether two states share them."""
    return (state.where, state.occupants, state.piece_attrs, state.place_attrs,
            state.values, state.stamps)


# Every piece given the same values (a sweep: columns written whole, one stamp).
_SWEEP = ("          for each u in pieces {\n            set u.attacked = true\n"
          "            set u.spent = 7\n          }\n")


@pytest.mark.rule("3.2", rulebook="zoc")
@pytest.mark.parametrize("sweep", [False, True])
@pytest.mark.parametrize("clone_first", [False, True])
def test_3_2_an_action_that_fails_midway_leaves_every_array_as_it_was(
        tmp_path, clone_first, sweep):
    # apply() writes what the state owns in place and logs each write; an action
    # that moves a unit, sets its attributes and a game value (and, with
    # ``sweep``, the attributes of every piece) and then fails (on a unit's
    # second step) undoes them all, stamps and the native columns included,
    # whether the arrays were the state's own or shared with a clone taken before.
    source = _ZOC.read_text()
    marker = "          set unit.spent = unit.spent + 1\n"
    assert marker in source
    path = tmp_path / "zoc.rules"
    path.write_text(source.replace(marker, marker + "          set turn_count = turn_count + 5\n"
                                   "          if unit.spent >= 2 {\n"
                                   + (_SWEEP if sweep else "")
                                   + "            fail \"a second step\"\n          }\n"))
    book = cortes_rules.load(path)
    state = book.new_game(seed=1, setup="standard")
    moves = [n for n in state.legal_action_ids() if str(book.action_from_id(n)).startswith("move")]
    state.apply(moves[0])
    unit = str(book.action_from_id(moves[0])).split()[1]
    again = next(n for n in state.legal_action_ids()
                 if str(book.action_from_id(n)).startswith(f"move {unit} "))
    twin = state.clone() if clone_first else None
    before, legal = _arrays(state), state.legal_action_ids()
    native = _native_cells(state)
    with pytest.raises(cortes_rules.RulesRuntimeError, match="a second step"):
        state.apply(again)
    assert _arrays(state) == before
    assert _native_cells(state) == native
    assert state.legal_action_ids() == legal
    if twin is not None:
        assert _arrays(twin) == before
        assert _native_cells(twin) == native
    # The state goes on as if the failed action had never been tried.
    other = next(n for n in legal if not str(book.action_from_id(n)).startswith(f"move {unit} "))
    replay = book.new_game(seed=1, setup="standard")
    replay.apply(moves[0])
    for done in (state, replay):
        done.apply(other)
    assert _arrays(state)[:5] == _arrays(replay)[:5]
    assert state.legal_action_ids() == replay.legal_action_ids()


@pytest.mark.rule("3.2", rulebook="zoc")
def test_3_2_a_clone_taken_while_an_action_runs_shares_nothing_the_action_may_undo():
    book = cortes_rules.load(_ZOC)
    state = book.new_game(seed=1, setup="standard")
    state.legal_action_ids()
    state._undo = []
    try:
        twin = state.clone()
    finally:
        state._undo = None
    assert twin._undo is None
    for mine, its in zip(_arrays_of(state), _arrays_of(twin), strict=True):
        assert mine is not its and mine == its
    assert all(c is not d for c, d in zip(state.piece_attrs.values(),
                                          twin.piece_attrs.values(), strict=True))
