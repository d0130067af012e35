"""Entry points for AI programs: rollouts, the legal ids as a buffer, one-call steps.

Search and learning programs ask the same few things of a game millions of
times: play it out at random from here, the legal ids of this decision, take
this action and give me the next decision. ``GameState.random_rollouts``,
``GameState.legal_action_ids_buffer`` and ``GameState.step`` (and
``Rulebook.random_rollouts``) answer them through this module, in integers,
on the state's own fast paths (``random_playout``, ``legal_action_ids``,
``apply`` of an id: the compiled core's where it is built).

Their signatures are the ones a native executor of the rules will keep:
what they return (a ``Rollouts`` of tuples, an ``array('i')``, a list of
ids) is made of numbers, never of the engine's objects.

Every rollout, step and refusal is the same on both backends and on every
machine: the generators are SplitMix64 (``engine/rng.py``).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from typing import TYPE_CHECKING

import attrs

from .. import arguments
from ..errors import CortesRulesError
from .rng import next_state

if TYPE_CHECKING:
    from .machine import GameState, Outcome

__all__ = ["Rollouts", "legal_ids_buffer", "random_rollouts", "rollout_seeds", "step",
           "utilities"]

_MASK = (1 << 64) - 1


def utilities(players: Sequence[str], outcome: Outcome | None) -> list[float]:
    """One utility per player, in order, for an outcome (zeros for None: an unfinished game).

    No winner (a draw, the turn limit reached) or every player a winner: 0
    each. Otherwise each winner gets +1 and each of the others ``-w / (n - w)``
    for ``w`` winners among ``n`` players (+1 and -1 in a two-player game), so
    the utilities always sum to zero.
    """
    if outcome is None:
        return [0.0] * len(players)
    winners = {p for p in players if p in outcome.winners}
    if not winners or len(winners) == len(players):
        return [0.0] * len(players)
    loss = -len(winners) / (len(players) - len(winners))
    return [1.0 if p in winners else loss for p in players]


@attrs.frozen
class Rollouts:
    """What ``random_rollouts`` played: one entry per game, in the order played.

    Attributes:
        players: the players, in turn order: the order of each row of ``returns``.
        returns: for each game, one utility per player (``utilities``): +1 for a
            winner, the losers share the loss, all 0 for a draw or for a game
            cut short by ``max_actions``.
        lengths: for each game, how many actions it took (decisions and chance events).
        winners: for each game, the winning players (none in a draw or a game cut short).
        finished: for each game, whether it reached the end (not cut by ``max_actions``).
    """

    players: tuple[str, ...]
    returns: tuple[tuple[float, ...], ...]
    lengths: tuple[int, ...]
    winners: tuple[tuple[str, ...], ...]
    finished: tuple[bool, ...]

    def __len__(self) -> int:
        return len(self.lengths)

    @property
    def actions(self) -> int:
        """How many actions the games took in all."""
        return sum(self.lengths)

    def mean_returns(self) -> tuple[float, ...]:
        """Each player's mean utility over the games (zeros when there is none)."""
        n = len(self.returns)
        return tuple(sum(row[i] for row in self.returns) / n if n else 0.0
                     for i in range(len(self.players)))


def rollout_seeds(seed: int, n: int) -> list[tuple[int, int]]:
    """The (dice, chooser) seeds of each of ``n`` rollouts, drawn from ``seed`` with SplitMix64.

    The dice seed becomes the game's generator (its chance events); the
    chooser's picks each decision's action (``GameState.random_playout``).
    """
    generator = seed & _MASK
    seeds = []
    for _ in range(n):
        generator, dice = next_state(generator)
        generator, chooser = next_state(generator)
        seeds.append((dice, chooser))
    return seeds


def _count(n: object) -> int:
    """``n``, checked as a number of rollouts."""
    count = arguments.whole(n, "n (how many games to play)")
    if count < 0:
        raise CortesRulesError(f"n (how many games to play) is at least 0, not {count}")
    return count


def _limit(max_actions: object) -> int | None:
    """``max_actions``, checked: None or a whole number of at least 0."""
    if max_actions is None:
        return None
    limit = arguments.whole(max_actions, "max_actions")
    if limit < 0:
        raise CortesRulesError(f"max_actions is a whole number of at least 0, not {limit}")
    return limit


def random_rollouts(state: GameState, n: int, seed: int, *,
                    max_actions: int | None = None) -> Rollouts:
    """``n`` uniformly random games played on from ``state``, which is left as it is.

    Game ``i`` is a clone of ``state`` whose dice generator is reseeded with
    the ``i``-th dice seed of ``rollout_seeds(seed, n)`` (so that the games'
    chance events differ), played by ``random_playout`` with the ``i``-th
    chooser seed.

    Raises:
        ArgumentTypeError: ``n``, ``seed`` or ``max_actions`` is not a whole number.
        CortesRulesError: ``n`` or ``max_actions`` is below 0.
        RulesRuntimeError: a game reached a decision with no legal action, or a
            rule could not be evaluated.
    """
    count = _count(n)
    seed = arguments.whole(seed, "a seed")
    limit = _limit(max_actions)
    players = tuple(p.name for p in state.machine.world.seats)
    returns: list[tuple[float, ...]] = []
    lengths: list[int] = []
    winners: list[tuple[str, ...]] = []
    finished: list[bool] = []
    for dice, chooser in rollout_seeds(seed, count):
        game = state.clone()
        game.rng_state = dice
        lengths.append(game.random_playout(chooser, limit))
        outcome = game.outcome()
        returns.append(tuple(utilities(players, outcome)))
        winners.append(outcome.winners if outcome is not None else ())
        finished.append(game.is_terminal())
    return Rollouts(players, tuple(returns), tuple(lengths), tuple(winners), tuple(finished))


def legal_ids_buffer(state: GameState) -> array[int]:
    """``state.legal_action_ids()`` as an ``array('i')``, ascending: one buffer of C ints.

    ``numpy.frombuffer(buffer, dtype=numpy.int32)`` or ``numpy.asarray(buffer)``
    read it without a copy. Today's compiled core lists the ids as Python
    ints (its listing is kept for ``apply``), so the buffer is filled from
    them; a native executor fills it without them.
    """
    return array("i", state.legal_action_ids())


def step(state: GameState, action_id: int) -> list[int]:
    """Apply an action id, then every chance event that follows, and return the next
    decision's legal ids (none once the game is over).

    The chance events are drawn from the state's own generator, as
    ``apply_chance`` draws them (and ``undo`` takes each back as one action).

    Raises:
        ArgumentTypeError: ``action_id`` is not a whole number.
        NotationError: no action has that id.
        IllegalActionError: the action is illegal here; the state is left unchanged.
        RulesRuntimeError: a rule cannot be evaluated; the action (or the chance
            event) that met it is not applied.
    """
    number = arguments.whole(action_id, "an action id")
    state.apply(number)
    while state.is_chance_node():
        state.apply_chance()
    return state.legal_action_ids()
