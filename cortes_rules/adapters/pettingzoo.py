"""A PettingZoo AEC environment for any rulebook (the ``pettingzoo`` extra).

    from cortes_rules.adapters.pettingzoo import RulesEnv

    env = RulesEnv("cortes", options="veteran", turn_limit=1, max_actions=200, seed=7)
    env.reset(seed=7)
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, info = env.last()
        mask = observation["action_mask"]
        action = None if terminated or truncated else env.action_space(agent).sample(mask)
        env.step(action)

The agents are the rulebook's players. Chance events (dice, draws) are
resolved inside the environment by the game's own seeded generator, so a
seed gives the same game for the same actions. An observation is a dict:
``observation``, the player's tensor (``cortes_rules.adapters.tensors``), and
``action_mask``, 1 at each legal action id of the agent to act (all 0 for the
others). Rewards come at the end, from the outcome
(``cortes_rules.adapters.outcomes.utilities``); the game is truncated after
``max_actions`` decisions.
"""

from __future__ import annotations

import random
from typing import Any

from ..api import GameState, Rulebook
from ..errors import CortesRulesError
from . import MissingExtraError
from .outcomes import load_book, utilities

try:
    import numpy as np
    from gymnasium import spaces
    from pettingzoo import AECEnv
except ImportError as error:   # the extra is not installed
    raise MissingExtraError("PettingZoo adapter", ("pettingzoo",),
                            error.name or "pettingzoo") from error

from .tensors import Layout  # noqa: E402  (after the check for its library)

__all__ = ["RulesEnv", "env"]


class RulesEnv(AECEnv):  # type: ignore[misc]
    """An agent-environment-cycle game of a rulebook.

    Args:
        book: a loaded rulebook, or the name of one to load with ``options``
            and ``scenario`` (as ``cortes_rules.load``).
        setup: a set-up the rulebook declares (``new_game(setup=...)``).
        turn_limit: end each game after this many game turns (the rulebook's
            own ending at the limit).
        max_actions: truncate a game after this many decisions (chance events
            not counted); None for no limit.
        seed: seeds the games of the resets that are given no seed.
        render_mode: None, or ``"ansi"`` (``render()`` returns what the agent
            to act sees, as text).

    Raises:
        CortesRulesError: a bad argument.
    """

    metadata: dict[str, Any] = {"render_modes": [None, "ansi"], "name": "cortes_rules_v0",
                "is_parallelizable": False}

    def __init__(self, book: str | Rulebook, *, options: str | tuple[str, ...] = (),
                 scenario: str | int | None = None, setup: str | None = None,
                 turn_limit: int | None = None, max_actions: int | None = None,
                 seed: int = 0, render_mode: str | None = None) -> None:
        super().__init__()
        if render_mode not in self.metadata["render_modes"]:
            raise CortesRulesError(f"render_mode is None or 'ansi', not {render_mode!r}")
        if max_actions is not None and (isinstance(max_actions, bool)
                                        or not isinstance(max_actions, int) or max_actions < 1):
            raise CortesRulesError(f"max_actions is a whole number of at least 1, "
                                   f"not {max_actions!r}")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise CortesRulesError(f"a seed is a whole number, not {seed!r}")
        self.book = load_book(book, options=options, scenario=scenario)
        self.layout = Layout(self.book)
        self.render_mode = render_mode
        self._setup = setup
        self._turn_limit = turn_limit
        self._max_actions = max_actions
        self._seeds = random.Random(seed)
        self.possible_agents = list(self.book.players)
        size = self.book.num_distinct_actions
        observation = spaces.Dict({
            "observation": spaces.Box(self.layout.low, self.layout.high, dtype=np.float32),
            "action_mask": spaces.Box(0, 1, (size,), dtype=np.int8),
        })
        self.observation_spaces = {a: observation for a in self.possible_agents}
        self.action_spaces = {a: spaces.Discrete(size) for a in self.possible_agents}
        self.game: GameState = self._new_game(seed)
        self._begin()

    def observation_space(self, agent: str) -> Any:
        """The observation space of an agent (the same object at every call)."""
        return self.observation_spaces[self._agent(agent)]

    def action_space(self, agent: str) -> Any:
        """The action space of an agent: every action id of the rulebook."""
        return self.action_spaces[self._agent(agent)]

    def _agent(self, agent: str) -> str:
        if agent not in self.possible_agents:
            raise CortesRulesError(f"no agent {agent!r} (agents: "
                                   f"{', '.join(self.possible_agents)})")
        return agent

    def _new_game(self, seed: int) -> GameState:
        state = self.book.new_game(seed=seed, setup=self._setup, turn_limit=self._turn_limit)
        self._resolve_chance(state)
        return state

    @staticmethod
    def _resolve_chance(state: GameState) -> None:
        while state.is_chance_node():
            state.apply_chance()

    def _begin(self) -> None:
        self.agents = self.possible_agents[:]
        self.rewards = {a: 0.0 for a in self.agents}
        self._cumulative_rewards = {a: 0.0 for a in self.agents}
        self.terminations = {a: False for a in self.agents}
        self.truncations = {a: False for a in self.agents}
        self.infos: dict[str, dict[str, Any]] = {a: {} for a in self.agents}
        self.decisions = 0
        self._select()

    def _select(self) -> None:
        """Point ``agent_selection`` at the player to act (kept once the game is over)."""
        player = self.game.current_player
        if player is not None:
            if player not in self.possible_agents:
                raise CortesRulesError(f"{player!r} is to act, and is not an agent of this "
                                       f"environment")
            self.agent_selection = player

    def reset(self, seed: int | None = None, options: dict[str, Any] | None = None) -> None:
        """Start a new game: with ``seed``, or the next seed of the environment's own.

        ``options`` is accepted, as PettingZoo asks, and not used.
        """
        if seed is not None and (isinstance(seed, bool) or not isinstance(seed, int)):
            raise CortesRulesError(f"a seed is a whole number, not {seed!r}")
        if seed is not None:
            self._seeds = random.Random(seed)
        self.game = self._new_game(self._seeds.getrandbits(63))
        self._begin()

    def observe(self, agent: str) -> dict[str, Any]:
        """What ``agent`` sees, and the legal actions if it is to act."""
        mask = np.zeros(self.book.num_distinct_actions, np.int8)
        if agent == self.game.current_player and not self._over():
            mask[self.game.legal_action_ids()] = 1
        return {"observation": self.layout.encode(self.game, agent), "action_mask": mask}

    def _over(self) -> bool:
        return self.game.is_terminal() or (self._max_actions is not None
                                            and self.decisions >= self._max_actions)

    def step(self, action: Any) -> None:
        """Apply the agent to act's action (an action id), then any chance events.

        Raises:
            IllegalActionError: the action is not legal (the game is unchanged).
            CortesRulesError: not an action id, or an action for an agent whose
                game is over (its only action is None).
        """
        agent = self.agent_selection
        if self.terminations[agent] or self.truncations[agent]:
            if action is not None:
                raise CortesRulesError(f"the game is over for {agent}: its only action is None")
            self._was_dead_step(action)
            return
        if isinstance(action, (bool, np.bool_)) or not isinstance(action, (int, np.integer)):
            raise CortesRulesError(f"an action is a whole number (an action id), "
                                   f"not {action!r}")
        self.game.apply(int(action))
        self._resolve_chance(self.game)
        self.decisions += 1
        self._cumulative_rewards[agent] = 0.0
        self._clear_rewards()
        if self.game.is_terminal():
            values = utilities(self.possible_agents, self.game.outcome())
            for name, value in zip(self.possible_agents, values, strict=True):
                self.rewards[name] = value
                self.terminations[name] = True
        elif self._max_actions is not None and self.decisions >= self._max_actions:
            for name in self.agents:
                self.truncations[name] = True
        else:
            self._select()
        self._accumulate_rewards()

    def render(self) -> str | None:
        """What the agent to act sees, as text (``render_mode="ansi"``), else None."""
        if self.render_mode != "ansi":
            return None
        seen = self.game.observation(self.agent_selection)
        lines = [f"turn {seen['turn']}, {seen['phase']}; to act: {seen['to_act']}; "
                 f"seen by {self.agent_selection}"]
        places: dict[str, list[str]] = {}
        for piece, record in seen["pieces"].items():
            places.setdefault(record["place"] or "off", []).append(piece)
        for place, count in seen["hidden"].items():
            places.setdefault(place, []).append(f"+{count} hidden")
        lines += [f"  {place}: {' '.join(items)}" for place, items in sorted(places.items())]
        return "\n".join(lines)

    def close(self) -> None:
        """Nothing to release."""


def env(book: str | Rulebook, **kwargs: Any) -> RulesEnv:
    """A ``RulesEnv`` (PettingZoo's conventional constructor name)."""
    return RulesEnv(book, **kwargs)
