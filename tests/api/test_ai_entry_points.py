"""The entry points for AI programs (issue 48, item 5), on both backends.

``random_rollouts(n, seed)`` plays n uniformly random games and gives their
outcomes; ``legal_action_ids_buffer()`` is ``legal_action_ids()`` as a buffer
NumPy reads; ``step(action_id)`` applies an action and the chance events after
it and returns the next decision's legal ids; ``observation_tensor(player,
out=...)`` is the adapters' tensor, written into the caller's array. Every
action they take is one a player could have chosen (4.1); what a tensor
shows a player depends only on what he may know (8.8, Cortés's hidden stacks;
Grands Stratèges's screened deployment, I.1).
"""

from __future__ import annotations

import random
from array import array
from functools import cache

import pytest

import cortes_rules
from cortes_rules import (ArgumentTypeError, CortesRulesError, IllegalActionError, NotationError,
                          Rollouts)
from cortes_rules.engine.ai import rollout_seeds
from cortes_rules.errors import BackendError
from tests.api.test_indistinguishable_positions import _step, _twins

BACKENDS = ["python", "compiled"]


@cache
def _book(name: str, backend: str, options: str = "", scenario: str | None = None
          ) -> cortes_rules.Rulebook:
    try:
        return cortes_rules.load(name, options=options or (), scenario=scenario,
                                 backend=backend)
    except BackendError:
        pytest.skip("the compiled core is not built")


def _numpy():
    return pytest.importorskip("numpy", reason="numpy is not installed: the NumPy checks "
                                               "need it (pip install 'cortes-rules[pettingzoo]')")


# ------------------------------------------------------------ random_rollouts
@pytest.mark.rule("4.1")
def test_rollouts_are_repeatable_and_leave_the_position_alone() -> None:
    book = _book("cortes", "compiled")
    start = book.new_game(seed=5, setup="demo", turn_limit=1)
    before = start.to_notation()
    first = start.random_rollouts(3, 11, max_actions=120)
    assert isinstance(first, Rollouts) and len(first) == 3
    assert first == start.random_rollouts(3, 11, max_actions=120)
    assert start.to_notation() == before and start.undo_depth == 0
    assert first.players == book.players
    assert all(0 < n <= 120 for n in first.lengths)
    for returns, winners, finished in zip(first.returns, first.winners, first.finished,
                                          strict=True):
        assert len(returns) == len(book.players) and sum(returns) == 0
        assert finished or (returns == (0.0, 0.0) and winners == ())
    # Another seed plays other games; the first games of a longer run are these.
    assert start.random_rollouts(3, 12, max_actions=120) != first
    assert start.random_rollouts(4, 11, max_actions=120).lengths[:3] == first.lengths


@pytest.mark.rule("4.1")
def test_each_rollout_is_random_playout_from_its_seeds() -> None:
    book = _book("cortes", "compiled")
    start = book.new_game(seed=2, setup="demo", turn_limit=1)
    played = start.random_rollouts(2, 99)
    for i, (dice, chooser) in enumerate(rollout_seeds(99, 2)):
        game = start.clone()
        game.rng_state = dice
        assert game.random_playout(chooser) == played.lengths[i]
        assert game.is_terminal() and played.finished[i]
        assert tuple(game.outcome().winners) == played.winners[i]


@pytest.mark.rule("4.1")
@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("name", "options", "scenario", "setup", "limit"), [
    ("cortes", "veteran", None, "historical", 200),
    ("cortes", "", None, "demo", None),
    ("grands_strateges", "", "I", None, 60),
])
def test_rollouts_are_the_same_on_both_backends(name, options, scenario, setup, limit) -> None:
    games = [_book(name, b, options, scenario).random_rollouts(
        2, 2024, setup=setup, max_actions=limit, turn_limit=1 if limit is None else None)
        for b in BACKENDS]
    assert games[0] == games[1]
    assert games[0].actions > 0


@pytest.mark.rule("4.1")
def test_rulebook_rollouts_run_on_the_native_vm() -> None:
    """On the compiled core, ``Rulebook.random_rollouts`` plays on the native VM of the core
    IR (issue 48, item 5); the reference backend's rulebook plays on the engine."""
    pytest.importorskip("cortes_rules._vm", reason="the native VM was not built")
    assert _book("cortes", "compiled", "veteran", None)._native_vm() is not None
    assert _book("grands_strateges", "compiled", "", "I")._native_vm() is not None
    assert _book("cortes", "python", "veteran", None)._native_vm() is None


@pytest.mark.rule("4.1")
@pytest.mark.parametrize(("call", "error", "words"), [
    (lambda s: s.random_rollouts(-1, 0), CortesRulesError, "at least 0"),
    (lambda s: s.random_rollouts("3", 0), ArgumentTypeError, "how many games"),
    (lambda s: s.random_rollouts(True, 0), ArgumentTypeError, "how many games"),
    (lambda s: s.random_rollouts(1, 1.5), ArgumentTypeError, "a seed"),
    (lambda s: s.random_rollouts(1, 0, max_actions=-2), CortesRulesError, "max_actions"),
    (lambda s: s.random_rollouts(1, 0, max_actions="9"), ArgumentTypeError, "max_actions"),
])
def test_rollouts_refuse_bad_arguments(call, error, words) -> None:
    state = _book("cortes", "compiled").new_game(seed=1, setup="demo")
    with pytest.raises(error, match=words):
        call(state)
    with pytest.raises(ArgumentTypeError, match="a seed"):
        _book("cortes", "compiled").random_rollouts(1, None, setup="demo")


# ------------------------------------------------------------ the legal ids as a buffer
def _walk(book: cortes_rules.Rulebook, seed: int, steps: int, setup: str | None):
    """The positions of a seeded random game, one per action."""
    rng = random.Random(seed)
    state = book.new_game(seed=seed, setup=setup)
    for _ in range(steps):
        if state.is_terminal():
            return
        yield state
        _step(state, rng)


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "scenario", "setup"), [
    ("cortes", None, "historical"), ("grands_strateges", "I", None)])
def test_the_buffer_holds_the_legal_ids(backend, name, scenario, setup) -> None:
    book = _book(name, backend, scenario=scenario)
    seen = 0
    for state in _walk(book, 7, 120, setup):
        buffer = state.legal_action_ids_buffer()
        assert isinstance(buffer, array) and buffer.typecode == "i"
        assert buffer.tolist() == state.legal_action_ids()
        assert memoryview(buffer).format == "i"
        seen += 1
    assert seen > 20


@pytest.mark.rule("4.1")
def test_numpy_reads_the_buffer_without_a_copy() -> None:
    np = _numpy()
    state = _book("cortes", "compiled").new_game(seed=3, setup="historical")
    buffer = state.legal_action_ids_buffer()
    view = np.frombuffer(buffer, dtype=np.int32)
    assert view.tolist() == state.legal_action_ids() and len(view) > 0
    assert np.shares_memory(view, np.asarray(buffer))
    assert np.asarray(buffer).dtype == np.int32


# ------------------------------------------------------------ step
@pytest.mark.rule("4.1")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "scenario", "setup", "seed"), [
    ("cortes", None, "historical", 4), ("cortes", None, "demo", 8),
    ("grands_strateges", "I", None, 5)])
def test_step_is_apply_then_chance_then_the_legal_ids(backend, name, scenario, setup,
                                                      seed) -> None:
    book = _book(name, backend, scenario=scenario)
    stepped = book.new_game(seed=seed, setup=setup)
    applied = book.new_game(seed=seed, setup=setup)
    rng = random.Random(seed)
    while stepped.is_chance_node():
        stepped.apply_chance()
        applied.apply_chance()
    ids = stepped.legal_action_ids()
    chances = 0
    for _ in range(150):
        if not ids:
            break
        number = ids[rng.randrange(len(ids))]
        ids = stepped.step(number)
        applied.apply(number)
        while applied.is_chance_node():
            applied.apply_chance()
            chances += 1
        assert ids == applied.legal_action_ids()
        assert not stepped.is_chance_node()
        assert stepped.to_notation() == applied.to_notation()
        assert stepped.rng_state == applied.rng_state
        assert stepped.undo_depth == applied.undo_depth
    assert ids == [] or not stepped.is_terminal()
    assert [str(a) for a in stepped.history] == [str(a) for a in applied.history]
    if name == "cortes" and setup == "historical":
        assert chances > 0   # the battles' dice were rolled inside step()


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("backend", BACKENDS)
def test_an_illegal_step_raises_and_changes_nothing(backend) -> None:
    book = _book("cortes", backend)
    state = book.new_game(seed=1, setup="historical")
    state.step(state.legal_action_ids()[0])
    legal = set(state.legal_action_ids())
    illegal = next(n for n in range(book.num_distinct_actions) if n not in legal)
    before, depth, rng = state.to_notation(), state.undo_depth, state.rng_state
    with pytest.raises(IllegalActionError):
        state.step(illegal)
    with pytest.raises(NotationError, match="no action has id"):
        state.step(book.num_distinct_actions + 5)
    with pytest.raises(ArgumentTypeError, match="an action id"):
        state.step("move A1 2709")
    assert state.to_notation() == before and state.undo_depth == depth
    assert state.rng_state == rng and set(state.legal_action_ids()) == legal


# ------------------------------------------------------------ observation tensors
@pytest.mark.rule("8.8")
@pytest.mark.parametrize("backend", BACKENDS)
def test_the_tensor_is_the_adapters_and_fills_out_in_place(backend) -> None:
    np = _numpy()
    from cortes_rules.adapters.tensors import Layout

    book = _book("cortes", backend, "veteran")
    state = book.new_game(seed=2, setup="historical")
    layout = state.observation_layout()
    assert layout is book.new_game(seed=3, setup="historical").observation_layout()
    for player in book.players:
        tensor = state.observation_tensor(player)
        assert tensor.shape == (layout.size,) and tensor.dtype == np.float32
        np.testing.assert_array_equal(tensor, Layout(book).encode(state, player))
        out = np.full(layout.size, 5.0, np.float32).reshape(1, layout.size)
        address = out.ctypes.data
        assert state.observation_tensor(player, out=out) is out
        assert out.ctypes.data == address and out.shape == (1, layout.size)
        np.testing.assert_array_equal(out.reshape(-1), tensor)
    views = layout.views(state.observation_tensor("aztec"))
    assert views["viewer"].tolist() == [0.0, 1.0]


@pytest.mark.rule("4.1")
def test_a_wrong_out_array_is_refused() -> None:
    np = _numpy()
    state = _book("cortes", "compiled").new_game(seed=2, setup="historical")
    size = state.observation_layout().size
    for out, words in ((np.zeros(size, np.float64), "float32"),
                       (np.zeros(size + 1, np.float32), "float32 values"),
                       (np.zeros((size, 2), np.float32)[:, 0], "C-contiguous"),
                       ([0.0] * size, "numpy array")):
        with pytest.raises(ArgumentTypeError, match=words):
            state.observation_tensor("spanish", out=out)
    with pytest.raises(CortesRulesError, match="no player"):
        state.observation_tensor("nobody")


@pytest.mark.rule("8.8")
@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options", "scenario", "setup", "depth", "only"), [
    ("cortes", "veteran", None, "historical", 300, "spanish"),
    ("grands_strateges", "", "I", None, 12, None),
])
def test_positions_a_player_cannot_tell_apart_give_him_equal_tensors(
        backend, name, options, scenario, setup, depth, only) -> None:
    np = _numpy()
    book = _book(name, backend, options, scenario)
    pairs = 0
    for seed in range(40):
        if pairs >= 3:
            break
        rng = random.Random(seed)
        state = book.new_game(seed=seed, setup=setup)
        player = only or book.players[seed % len(book.players)]
        for _ in range(rng.randrange(depth)):
            if state.is_terminal():
                break
            _step(state, rng)
        made = None if state.is_terminal() else _twins(book, state, player, rng)
        if made is None:
            continue
        first, twin, _ = made
        np.testing.assert_array_equal(first.observation_tensor(player),
                                      twin.observation_tensor(player))
        pairs += 1
    assert pairs > 0, "no pair of positions told apart only by hidden pieces was found"
