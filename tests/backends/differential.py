"""Play one game on two backends at once and compare everything at every step.

The reference interpreter is the specification (docs/design.md, "The
compiled core"); the compiled core must agree with it move for move: the
same legal-action ids, the same chance outcomes and probabilities, the same
state after each action (places, declared attributes, values, procedure
frames, generator), the same log lines with the rules they cite, and the
same refusal reasons for an illegal action.
"""

from __future__ import annotations

import random
from collections.abc import Iterator, Mapping
from typing import Any

import cortes_rules
from cortes_rules import GameState
from cortes_rules.core.world import Dice, Piece, Place, Player, Table
from cortes_rules.engine.procedures import OptionSpec

#: The shipped games a differential run covers: (rulebook, load arguments, new_game arguments).
Game = tuple[str, Mapping[str, Any], Mapping[str, Any]]


def plain(value: Any) -> Any:
    """A value with the engine's objects replaced by their ids (comparable across backends)."""
    if isinstance(value, (Piece, Place)):
        return (type(value).__name__, value.id)
    if isinstance(value, Player):
        return ("Player", value.name)
    if isinstance(value, (Dice, Table)):
        return (type(value).__name__, value.name)
    if isinstance(value, OptionSpec):   # a sealed choice waiting to be revealed
        return ("OptionSpec", value.kind, [name for name, _ in value.params])
    if isinstance(value, dict):
        return sorted(((repr(plain(k)), plain(v)) for k, v in value.items()))
    if isinstance(value, (frozenset, set)):
        return sorted(repr(plain(v)) for v in value)
    if isinstance(value, (list, tuple)):
        return [plain(v) for v in value]
    if value is None or isinstance(value, (bool, int, str)):
        return value
    return repr(value)


def snapshot(state: GameState) -> dict[str, Any]:
    """Everything a state holds that play can change, in comparable form."""
    return {
        "player": state.current_player,
        "phase": state.phase,
        "turn": state.turn,
        "terminal": state.is_terminal(),
        "outcome": repr(state.outcome()),
        "rng": state.rng_state,
        "positions": state.positions(),
        "piece_attrs": plain(state.piece_attrs),
        "place_attrs": plain(state.place_attrs),
        "player_attrs": plain(state.player_attrs),
        "values": plain(state.values),
        "revealed": sorted(state.revealed),
        "last_roll": plain(state.last_roll),
        "frames": [(frame[0].name, frame[1], plain(frame[2])) for frame in state.stack],
        "log": [(entry.text, entry.rules, plain(getattr(entry, "audience", None)))
                for entry in state.log],
        "history": [str(action) for action in state.history],
        "observations": {player: state.observation(player)
                         for player in (p.name for p in state.machine.world.seats)},
    }


def random_positions(book: cortes_rules.Rulebook, seed: int, steps: int,
                     new_game: Mapping[str, Any]) -> Iterator[tuple[int, GameState,
                                                                     random.Random]]:
    """The positions of one seeded random game: ``(step, state, chooser)``, at most
    ``steps`` of them, the terminal one included.

    After each, once the caller resumes, the game goes on: chance is sampled,
    or ``chooser`` (which the caller may also draw from) picks a legal action.
    The state is one object, changed in place.
    """
    state = book.new_game(seed=seed, **new_game)
    chooser = random.Random(seed)
    for step in range(steps):
        yield step, state, chooser
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(chooser.choice(state.legal_action_ids()))


def step_views(state: GameState) -> dict[str, Any]:
    """What a player or a chance node is offered here."""
    view: dict[str, Any] = {"legal": state.legal_action_ids(), "chance": state.is_chance_node()}
    if view["chance"]:
        view["outcomes"] = [(str(a), p) for a, p in state.chance_outcomes()]
    return view


def play_both(reference: cortes_rules.Rulebook, compiled: cortes_rules.Rulebook, *,
              seed: int, max_steps: int, new_game: Mapping[str, Any],
              probe_every: int = 7) -> int:
    """Play one seeded random game on both rulebooks; assert agreement at every step.

    Returns the number of steps played. Every ``probe_every`` steps an action
    that is not legal is tried on both, and both must refuse it for the same
    reasons and stay unchanged.
    """
    ref = reference.new_game(seed=seed, **new_game)
    fast = compiled.new_game(seed=seed, **new_game)
    chooser = random.Random(seed)
    size = reference.num_distinct_actions
    assert compiled.num_distinct_actions == size
    steps = 0
    while steps < max_steps:
        before = snapshot(ref)
        assert snapshot(fast) == before, f"seed {seed}, step {steps}: states differ"
        if ref.is_terminal():
            break
        views = step_views(ref)
        assert step_views(fast) == views, f"seed {seed}, step {steps}: offers differ"
        if views["chance"]:
            a, b = ref.apply_chance(), fast.apply_chance()
            assert str(a) == str(b), f"seed {seed}, step {steps}: chance drew {a} / {b}"
        else:
            legal = views["legal"]
            if steps % probe_every == 0:
                _probe(ref, fast, legal, chooser, size, before, seed, steps)
            pick = 0 if 0 in legal and chooser.random() < 0.2 else chooser.choice(legal)
            ref.apply(pick)
            fast.apply(pick)
        steps += 1
    return steps


def _probe(ref: GameState, fast: GameState, legal: list[int], chooser: random.Random,
           size: int, before: dict[str, Any], seed: int, steps: int) -> None:
    taken = set(legal)
    for _ in range(20):
        number = chooser.randrange(size)
        if number not in taken:
            break
    else:
        return
    reasons = [_refusal(state, number) for state in (ref, fast)]
    assert reasons[0] == reasons[1], f"seed {seed}, step {steps}: refusals of {number} differ"
    assert snapshot(ref) == before and snapshot(fast) == before, \
        f"seed {seed}, step {steps}: a refused action changed a state"


def _refusal(state: GameState, number: int) -> Any:
    try:
        state.apply(number)
    except cortes_rules.CortesRulesError as error:
        return (type(error).__name__, str(error))
    raise AssertionError(f"action {number} was not listed as legal, yet applied")
