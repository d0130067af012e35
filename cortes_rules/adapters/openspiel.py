"""An OpenSpiel game for any rulebook, through pyspiel's Python games (the ``openspiel`` extra).

    import pyspiel
    from cortes_rules.adapters.openspiel import register

    name = register("cortes")          # "python_cortes_rules_cortes"
    game = pyspiel.load_game(name, {"options": "veteran", "turn_limit": 1, "max_actions": 200})
    state = game.new_initial_state()

The game is sequential, with explicit chance: at a dice roll or a draw,
``chance_outcomes()`` lists the outcomes' action ids with their exact
probabilities. It has imperfect information when the rulebook hides anything
(a ``hide`` clause); observations are the tensors of
``cortes_rules.adapters.tensors`` (strings: the player's observation as
JSON). Utilities come from the outcome (``cortes_rules.adapters.outcomes``):
zero-sum. A game is cut short, with utilities of 0, after ``max_actions``
decisions (chance events not counted), so that every game has a bound.

Parameters of ``pyspiel.load_game``: ``options`` (a preset or rule numbers,
comma-separated), ``scenario`` (a name, or a number in digits), ``setup``,
``seed`` (the game's own dice, used by nothing OpenSpiel asks for),
``turn_limit`` (0: the rulebook's own length) and ``max_actions``.
"""

from __future__ import annotations

import json
import re
from typing import Any

from ..api import GameState, Rulebook
from ..dsl import ir
from ..errors import CortesRulesError, IllegalActionError
from . import MissingExtraError
from .outcomes import load_book, max_utility, min_utility, player_index, utilities

try:
    import numpy as np
    import pyspiel
except ImportError as error:   # the extra is not installed
    raise MissingExtraError("OpenSpiel adapter", ("openspiel",),
                            error.name or "pyspiel") from error

from .tensors import Layout  # noqa: E402  (after the check for its library)

__all__ = ["DEFAULT_MAX_ACTIONS", "game_name", "register"]

DEFAULT_MAX_ACTIONS = 1000
_PARAMETERS: dict[str, Any] = {"options": "", "scenario": "", "setup": "", "seed": 0,
                               "turn_limit": 0, "max_actions": DEFAULT_MAX_ACTIONS}
_registered: dict[str, dict[str, Any]] = {}   # name -> its parameters' defaults


def game_name(book: str) -> str:
    """The name a rulebook's game is registered under: ``python_cortes_rules_NAME``."""
    return "python_cortes_rules_" + re.sub(r"\W", "_", book)


def _game_type(name: str, long_name: str, hidden: bool, players: int,
               parameters: dict[str, Any]) -> Any:
    info = pyspiel.GameType.Information
    return pyspiel.GameType(
        short_name=name, long_name=long_name,
        dynamics=pyspiel.GameType.Dynamics.SEQUENTIAL,
        chance_mode=pyspiel.GameType.ChanceMode.EXPLICIT_STOCHASTIC,
        information=info.IMPERFECT_INFORMATION if hidden else info.PERFECT_INFORMATION,
        utility=pyspiel.GameType.Utility.ZERO_SUM,
        reward_model=pyspiel.GameType.RewardModel.TERMINAL,
        max_num_players=players, min_num_players=players,
        provides_information_state_string=False, provides_information_state_tensor=False,
        provides_observation_string=True, provides_observation_tensor=True,
        parameter_specification=parameters)


def _hides(book: Rulebook) -> bool:
    """Whether the rulebook keeps anything from a player: a hide clause or a sealed choice."""
    if book.program.of(ir.HideDecl):
        return True
    seen: set[int] = set()

    def sealed(node: Any) -> bool:
        if isinstance(node, ir.ChooseSealed):
            return True
        if isinstance(node, (tuple, list)):
            return any(sealed(n) for n in node)
        fields = getattr(type(node), "__attrs_attrs__", None)
        if fields is None or id(node) in seen:
            return False
        seen.add(id(node))
        return any(sealed(getattr(node, f.name)) for f in fields)

    return any(sealed(p) for p in book.program.of(ir.Procedure))


def register(book: str, **defaults: Any) -> str:
    """Register a rulebook's game with pyspiel and return its name.

    ``defaults`` override the parameters' defaults (``options="veteran"``,
    ``scenario="1"``...); ``pyspiel.load_game(name, {...})`` may still change them.
    Registering a rulebook again with the same defaults only returns the name.
    The rulebook itself is loaded by ``pyspiel.load_game``, with its parameters.

    Raises:
        CortesRulesError: an unknown parameter, a default of the wrong type, or
            other defaults for a rulebook registered already.
    """
    name = game_name(book)
    parameters = dict(_PARAMETERS)
    for key, value in defaults.items():
        if key not in parameters:
            raise CortesRulesError(f"no parameter {key!r} (parameters: {', '.join(parameters)})")
        if isinstance(value, bool) or type(value) is not type(parameters[key]):
            raise CortesRulesError(f"parameter {key!r} takes a value of type "
                                   f"{type(parameters[key]).__name__}, not {value!r}")
        parameters[key] = value
    if name in _registered:
        if _registered[name] != parameters:
            raise CortesRulesError(f"{name} is registered already, with other defaults "
                                   f"(pass them to pyspiel.load_game instead)")
        return name
    # The players and what is hidden are those of the rulebook as loaded; the
    # registered type is a placeholder that each game replaces with its own.
    registered = _game_type(name, f"cortes_rules: {book}", True, 2, parameters)

    class Game(RulesGame):
        """This rulebook's game."""

        rulebook = book
        defaults = parameters

    pyspiel.register_game(registered, Game)
    _registered[name] = parameters
    return name


class _Shared:
    """What a game's states share (deep copies, as pyspiel's clones make, keep the object)."""

    def __init__(self, book: Rulebook, first: GameState, max_actions: int) -> None:
        self.book = book
        self.layout = Layout(book)
        self.first = first
        self.max_actions = max_actions

    def __deepcopy__(self, memo: dict[int, Any]) -> _Shared:
        return self


class _Position:
    """Holds a game state; a deep copy is the state's own cheap ``clone()``."""

    def __init__(self, value: GameState) -> None:
        self.value = value

    def __deepcopy__(self, memo: dict[int, Any]) -> _Position:
        return _Position(self.value.clone())


class RulesGame(pyspiel.Game):  # type: ignore[misc]
    """A pyspiel game of a rulebook (subclassed by ``register`` for each rulebook)."""

    rulebook = ""
    defaults: dict[str, Any] = _PARAMETERS

    def __init__(self, params: dict[str, Any] | None = None) -> None:
        params = {**self.defaults, **(params or {})}
        book = load_book(self.rulebook, options=str(params["options"]),
                         scenario=str(params["scenario"]))
        max_actions = int(params["max_actions"])
        if max_actions < 1:
            raise CortesRulesError(f"max_actions is at least 1, not {max_actions}")
        n = len(book.players)
        game_type = _game_type(game_name(self.rulebook), book.title, _hides(book), n,
                               dict(self.defaults))
        info = pyspiel.GameInfo(
            num_distinct_actions=book.num_distinct_actions,
            max_chance_outcomes=book.num_distinct_actions,
            num_players=n, min_utility=min_utility(n), max_utility=max_utility(n),
            utility_sum=0.0, max_game_length=max_actions)
        super().__init__(game_type, info, params)
        turn_limit = int(params["turn_limit"]) or None
        first = book.new_game(seed=int(params["seed"]), setup=str(params["setup"]) or None,
                              turn_limit=turn_limit)
        self.shared = _Shared(book, first, max_actions)

    @property
    def book(self) -> Rulebook:
        """The rulebook, as loaded with this game's parameters."""
        return self.shared.book

    def new_initial_state(self) -> RulesState:
        """A new game (every game starts the same; the chance events differ)."""
        return RulesState(self)

    def make_py_observer(self, iig_obs_type: Any = None, params: Any = None) -> RulesObserver:
        """An observer of what one player sees (the only kind offered).

        Raises:
            CortesRulesError: another kind of observation is asked for
                (perfect recall, public information only), or parameters.
        """
        if params:
            raise CortesRulesError(f"an observer takes no parameters, not {params!r}")
        if iig_obs_type is not None and (
                iig_obs_type.perfect_recall or not iig_obs_type.public_info
                or iig_obs_type.private_info != pyspiel.PrivateInfoType.SINGLE_PLAYER):
            raise CortesRulesError("this game observes one player's view, without perfect "
                                   "recall: no other observation type is offered")
        return RulesObserver(self.shared.layout)


class RulesState(pyspiel.State):  # type: ignore[misc]
    """A pyspiel state: the rulebook's game state and a count of decisions."""

    def __init__(self, game: RulesGame) -> None:
        super().__init__(game)
        self.shared: _Shared = game.shared
        self.position = _Position(self.shared.first.clone())
        self.decisions = 0

    @property
    def game_state(self) -> GameState:
        """The rulebook's game state (a live object: do not apply actions to it)."""
        state: GameState = self.position.value
        return state

    def _cut_short(self) -> bool:
        decisions: int = self.decisions
        return decisions >= self.shared.max_actions

    def current_player(self) -> int:
        """The player to act, ``PlayerId.CHANCE`` or ``PlayerId.TERMINAL``."""
        state = self.position.value
        if state.is_terminal() or self._cut_short():
            return int(pyspiel.PlayerId.TERMINAL)
        if state.is_chance_node():
            return int(pyspiel.PlayerId.CHANCE)
        return player_index(self.shared.book, str(state.current_player))

    def is_terminal(self) -> bool:
        """Whether the game is over, or cut short after ``max_actions`` decisions."""
        state: GameState = self.position.value
        return state.is_terminal() or self._cut_short()

    def _legal_actions(self, player: int) -> list[int]:
        """The legal action ids of ``player``, ascending (none if it is not to act)."""
        if player != self.current_player() or player < 0:
            return []
        return sorted(self.position.value.legal_action_ids())

    def chance_outcomes(self) -> list[tuple[int, float]]:
        """At a chance node: each outcome's action id and probability."""
        book = self.shared.book
        return [(book.action_id(action), float(p))
                for action, p in self.position.value.chance_outcomes()]

    def _apply_action(self, action: int) -> None:
        """Apply an action id (a decision or a chance outcome) to the rulebook's game.

        Raises:
            IllegalActionError: the action is not legal there, or the game was cut
                short (the state is unchanged).
        """
        if self._cut_short():
            raise IllegalActionError(action, [(None, f"the game was cut short after "
                                                     f"{self.shared.max_actions} decisions")])
        state = self.position.value
        chance = state.is_chance_node()
        state.apply(int(action))
        if not chance:
            self.decisions += 1

    def _action_to_string(self, player: int, action: int) -> str:
        return str(self.shared.book.action_from_id(int(action)))

    def returns(self) -> list[float]:
        """The utilities (zeros before the end and in a game cut short)."""
        book = self.shared.book
        return utilities(book.players, self.position.value.outcome())

    def __str__(self) -> str:
        state = self.position.value
        return f"{state}\n{self.decisions} decisions"


class RulesObserver:
    """What one player sees, as pyspiel's Python observers give it: ``tensor`` and ``dict``."""

    def __init__(self, layout: Layout) -> None:
        self.layout = layout
        self.tensor = np.zeros(layout.size, np.float32)
        self.dict = layout.views(self.tensor)

    def set_from(self, state: RulesState, player: int) -> None:
        """Write ``player``'s view of ``state`` into ``tensor``."""
        name = self.layout.players[player]
        self.layout.encode(state.game_state, name, out=self.tensor)

    def string_from(self, state: RulesState, player: int) -> str:
        """``player``'s observation (``GameState.observation``, without the log) as JSON."""
        seen: dict[str, Any] = dict(state.game_state.observation(self.layout.players[player]))
        seen.pop("log", None)
        # A number the rules made by exact division (a Fraction) is written as "7/2".
        return json.dumps(seen, sort_keys=True, separators=(",", ":"), default=str)
