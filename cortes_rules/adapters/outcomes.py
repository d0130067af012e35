"""What every adapter needs of a rulebook: players as integers, outcomes as utilities.

Players are numbered in the rulebook's turn order (``Rulebook.players``):
parties run by the rules themselves have no number, since they never decide.
An outcome becomes one utility per player, whatever the game:

- no winner (a draw, the turn limit reached), or every player a winner: 0 each;
- otherwise each winner gets +1 and each of the others ``-w / (n - w)`` for
  ``w`` winners among ``n`` players: +1 and -1 in a two-player game.

The utilities always sum to zero, so the game is zero-sum for any number of
players, and lie between ``-(n - 1)`` and +1. (``utilities`` itself lives in
``engine/ai.py``, where ``random_rollouts`` scores its games with it.)
"""

from __future__ import annotations

from collections.abc import Iterable

from ..api import Rulebook, load
from ..engine.ai import utilities
from ..errors import CortesRulesError, UnknownNameError

__all__ = ["load_book", "max_utility", "min_utility", "player_index", "player_name",
           "utilities"]


def player_index(book: Rulebook, player: str) -> int:
    """The integer of a player (its place in ``book.players``).

    Raises:
        CortesRulesError: the name is not one of the rulebook's players.
    """
    try:
        return book.players.index(player)
    except ValueError:
        raise UnknownNameError(f"no player {player!r} among the players of this rulebook "
                               f"({', '.join(book.players)})") from None


def player_name(book: Rulebook, index: int) -> str:
    """The player with a given integer.

    Raises:
        CortesRulesError: no player has that integer.
    """
    if isinstance(index, bool) or not isinstance(index, int) or not (
            0 <= index < len(book.players)):
        raise CortesRulesError(f"a player is a whole number from 0 to {len(book.players) - 1}, "
                               f"not {index!r}")
    return book.players[index]


def min_utility(num_players: int) -> float:
    """The lowest utility ``utilities`` gives (one winner, every other player loses)."""
    return -float(max(num_players - 1, 1))


def max_utility(num_players: int) -> float:
    """The highest utility ``utilities`` gives."""
    return 1.0


def load_book(name: str | Rulebook, *, options: str | Iterable[str] = (),
              scenario: str | int | None = None) -> Rulebook:
    """A rulebook for an adapter: loaded from a name, or taken as it is.

    ``options`` may be a preset, a rule number, or several separated by commas
    (``"11.4,11.9"``); a ``scenario`` of digits is read as the scenario's number.

    Raises:
        CortesRulesError: options or a scenario for a rulebook loaded already, or
            what ``cortes_rules.load`` raises.
    """
    if isinstance(name, Rulebook):
        if options or scenario not in (None, ""):
            raise CortesRulesError("options and scenario are for a rulebook loaded by name: "
                                   "this one is loaded already")
        return name
    if isinstance(options, str):
        options = [o.strip() for o in options.split(",") if o.strip()]
    if isinstance(scenario, str):
        scenario = int(scenario) if scenario.strip().isdigit() else (scenario.strip() or None)
    return load(name, options=options, scenario=scenario)
