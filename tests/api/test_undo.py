"""GameState.undo(): an action taken back leaves the state exactly as it was.

A front end lets a player take a move back, a search walks down a line and
back up it: after ``undo()`` the state must be the one the action started
from in every respect a caller can see (the position, the decision pending
and its legal actions, the history, log and rule trails, what each player
observes under the veteran preset's fog of war (11.9), and the generator of
the dice), on both backends. The game order (4.1) then goes on from there as
if the action had never been taken.
"""

from __future__ import annotations

import random
from functools import cache
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import GameState, IllegalActionError, NothingToUndoError
from cortes_rules.engine import machine


@cache
def _cortes() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes", options="veteran")


def _new(book: cortes_rules.Rulebook, seed: int) -> GameState:
    """A seeded game: Cortés from its historical set-up (its set-up stage lists
    thousands of placements a decision), Grands Stratèges as the scenario opens."""
    return book.new_game(seed=seed, setup="historical" if book is _cortes() else None)


@cache
def _gs() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario="I")


def _look(state: GameState) -> tuple[Any, ...]:
    """Everything a caller can read of a state, as one comparable value."""
    players = list(state.machine.world.player)
    trail = [str(e) for e in state.trail()] if state.history else None
    return (state.to_notation(), state.legal_action_ids(), [str(a) for a in state.history],
            [str(e) for e in state.log], [state.observation(p) for p in players], trail,
            state.rng_state, state.current_player, state.is_terminal(),
            repr(state.outcome()), state.turn, state.phase, state.undo_depth,
            state.is_chance_node(), [(str(a), p) for a, p in state.chance_outcomes()])


def _step(state: GameState, rng: random.Random) -> tuple[int, bool]:
    """One action of a random game: (its id, whether it was a sampled chance outcome)."""
    if state.is_chance_node():
        state.apply_chance()
        return state.machine.space.number(state.history[-1]), True
    number = rng.choice(state.legal_action_ids())
    state.apply(number)
    return number, False


def _take_back_every_action(book: cortes_rules.Rulebook, seed: int, actions: int) -> None:
    state = _new(book, seed)
    rng = random.Random(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        before = state.clone()
        seen = _look(before)
        chance = state.is_chance_node()
        number, _ = _step(state, rng)
        after = _look(state)
        taken = state.undo()
        assert book.action_id(taken) == number
        assert _look(state) == seen
        assert state.same_position(before)
        # The same action again gives the same state; a chance node samples the
        # same outcome again (the generator was taken back too).
        if chance:
            assert book.action_id(state.apply_chance()) == number
        else:
            state.apply(number)
        assert _look(state) == after
    assert state.undo_depth == len(state.history) > 0


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("seed", [3, 11])
def test_every_action_of_a_veteran_game_is_taken_back_exactly(seed):
    _take_back_every_action(_cortes(), seed, 200)


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("seed", [2, 9])
def test_every_action_of_a_scenario_is_taken_back_exactly(seed):
    _take_back_every_action(_gs(), seed, 200)


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("name, scenario", [("cortes", None), ("grands_strateges", "I")])
def test_checkpoints_every_three_actions_give_the_same_undo(monkeypatch, name, scenario):
    # Checkpoints close together: most undos replay from one, many start from a
    # checkpoint taken at a chance node (the generator as it was before the draw).
    monkeypatch.setattr(machine, "CHECKPOINT_EVERY", 3)
    options = "veteran" if name == "cortes" else ()
    book = cortes_rules.load(name, options=options, scenario=scenario)
    state = book.new_game(seed=21, setup="historical" if name == "cortes" else None)
    rng = random.Random(21)
    looks = [_look(state)]
    for _ in range(200):
        if state.is_terminal():
            break
        before = state.clone()
        chance = state.is_chance_node()
        number, _ = _step(state, rng)
        after = _look(state)
        state.clone()   # the last action is replayed from a checkpoint, not undone in place
        assert book.action_id(state.undo()) == number
        assert _look(state) == looks[-1] == _look(before)
        if chance:
            assert book.action_id(state.apply_chance()) == number
        else:
            state.apply(number)
        assert _look(state) == after
        looks.append(after)
    while len(looks) > 1:
        looks.pop()
        state.clone()
        state.undo()
        assert _look(state) == looks[-1]


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("make", [_cortes, _gs], ids=["cortes", "grands_strateges"])
def test_apply_then_undo_without_a_clone_goes_back_in_place(make):
    # Nothing clones the state between an action and its undo: the last action is
    # taken back at once (its writes undone in place), not replayed.
    book = make()
    state = _new(book, 12)
    rng = random.Random(12)
    for _ in range(150):
        if state.is_terminal():
            break
        seen = _look(state)
        chance = state.is_chance_node()
        number, _ = _step(state, rng)
        after = _look(state)
        assert state._last is not None   # the fast path is the one under test
        assert book.action_id(state.undo()) == number
        assert _look(state) == seen
        if chance:
            assert book.action_id(state.apply_chance()) == number
        else:
            state.apply(number)
        assert _look(state) == after
        # A clone taken after an action shares what the action wrote: undoing on
        # either leaves the other as it is.
        twin = state.clone()
        twin.undo()
        assert _look(twin) == seen and _look(state) == after
        state.undo()
        assert _look(state) == seen and _look(twin) == seen
        _step(state, random.Random(number))   # another action, if it is a decision
        state.undo()
        assert _look(state) == seen
        if chance:
            state.apply_chance()
        else:
            state.apply(number)


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("make", [_cortes, _gs], ids=["cortes", "grands_strateges"])
def test_undos_in_a_row_go_back_to_the_start_and_no_further(make):
    book = make()
    state = _new(book, 7)
    rng = random.Random(7)
    looks = [_look(state)]
    while len(looks) <= 60 and not state.is_terminal():
        _step(state, rng)
        looks.append(_look(state))
    assert state.can_undo
    while len(looks) > 1:
        looks.pop()
        state.undo()
        assert _look(state) == looks[-1]
    assert not state.can_undo and state.undo_depth == 0 and state.history == []
    with pytest.raises(NothingToUndoError, match="nothing to undo"):
        state.undo()
    assert _look(state) == looks[0]


@pytest.mark.rule("4.1")
@settings(max_examples=12, deadline=None)
@given(seed=st.integers(0, 2**32 - 1),
       moves=st.lists(st.tuples(st.booleans(), st.integers(0, 2**16)), max_size=45))
def test_apply_and_undo_agree_with_a_replay_from_the_start(seed, moves):
    book = _cortes()
    state = _new(book, seed)
    model: list[tuple[int, bool]] = []   # the actions kept, as (id, sampled)
    for back, pick in moves:
        if back and model:
            model.pop()
            state.undo()
        elif not state.is_terminal():
            model.append(_step(state, random.Random(pick)))
    replayed = _new(book, seed)
    for number, sampled in model:
        if sampled:
            assert book.action_id(replayed.apply_chance()) == number
        else:
            replayed.apply(number)
    assert _look(state)[:-2] == _look(replayed)[:-2]   # all but the undo depth...
    assert state.undo_depth == len(model)              # ...which counts the model's actions


@pytest.mark.rule("4.1")
def test_a_clone_carries_the_undo_stack_and_stays_independent():
    book = _cortes()
    state = _new(book, 5)
    rng = random.Random(5)
    looks = [_look(state)]
    for _ in range(40):
        _step(state, rng)
        looks.append(_look(state))
    twin = state.clone()
    assert twin.undo_depth == state.undo_depth == 40
    for k in range(1, 26):
        twin.undo()
        assert _look(twin) == looks[-1 - k]
        assert _look(state) == looks[-1]   # the original never moves
    # The original goes on and takes back on its own; the twin is unaffected.
    _step(state, rng)
    state.undo()
    state.undo()
    assert _look(state) == looks[-2]
    assert _look(twin) == looks[-26]


@pytest.mark.rule("4.1")
def test_an_illegal_action_after_an_undo_changes_nothing():
    book = _cortes()
    state = _new(book, 4)
    rng = random.Random(4)
    for _ in range(30):
        _step(state, rng)
    state.undo()
    state.undo()
    seen = _look(state)
    legal = set(state.legal_action_ids())
    wrong = next(n for n in range(10_000) if n not in legal)
    with pytest.raises(IllegalActionError):
        state.apply(wrong)
    with pytest.raises(cortes_rules.CortesRulesError):
        state.apply("no such action at all")
    assert _look(state) == seen
    state.undo()   # the undo stack is intact too
    assert state.undo_depth == 27


@pytest.mark.rule("4.1")
def test_a_position_read_or_edited_starts_its_own_undo_stack():
    book = _cortes()
    state = _new(book, 8)
    rng = random.Random(8)
    for _ in range(12):
        _step(state, rng)
    read = book.position(state.to_notation())
    assert read.undo_depth == 0 and not read.can_undo
    seen = _look(read)
    with pytest.raises(NothingToUndoError):
        read.undo()
    assert _look(read) == seen
    _step(read, rng)
    read.undo()
    assert _look(read) == seen
    # An edit outside any action cannot be replayed: it starts a new stack.
    piece = next(iter(state.positions()))
    state.set_attribute(piece, "steps", state.attribute(piece, "steps"))
    assert state.undo_depth == 0
    with pytest.raises(NothingToUndoError):
        state.undo()


@pytest.mark.rule("4.1")
def test_a_playout_is_taken_back_one_action_at_a_time():
    book = _cortes()
    state = _new(book, 6)
    rng = random.Random(6)
    for _ in range(5):
        _step(state, rng)
    stepped = state.clone()
    taken = state.random_playout(21, max_actions=40)
    assert taken == 40 and state.undo_depth == 45
    # The same game, action by action, through the public API.
    looks = [_look(stepped)]
    for action in state.history[5:]:
        if stepped.is_chance_node():
            assert stepped.apply_chance() == action
        else:
            stepped.apply(action)
        looks.append(_look(stepped))
    assert _look(state) == looks[-1]
    for k in range(1, 41):
        state.undo()
        assert _look(state) == looks[-1 - k]
