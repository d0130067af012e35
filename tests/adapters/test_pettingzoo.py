"""The PettingZoo environment passes PettingZoo's own API and seed tests on both rulebooks.

Games are short (a turn limit and a cap on decisions) so that the random
games of ``api_test`` end. The action mask is the legal action ids of the
player to act (4.1: a player acts only as the rules allow); an illegal action
is refused and changes nothing; a seed gives the same game.
"""

from __future__ import annotations

import warnings
from typing import Any

import pytest
from adapter_books import each_book, load
from extras import need

from cortes_rules import CortesRulesError, IllegalActionError
from cortes_rules.adapters.outcomes import utilities

np = need("numpy", "pettingzoo")
need("pettingzoo", "pettingzoo")
from pettingzoo.test import api_test, seed_test  # noqa: E402

from cortes_rules.adapters.pettingzoo import RulesEnv  # noqa: E402


def make(name: str, **kwargs: Any) -> Any:
    options = {"turn_limit": 1, "max_actions": 40, "seed": 5, **kwargs}
    return RulesEnv(load(name), **options)


@pytest.mark.parametrize("name", each_book())
def test_pettingzoos_api_test_passes(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # its advice on agent names and Dict spaces
        api_test(make(name), num_cycles=60)


@pytest.mark.parametrize("name", each_book())
def test_pettingzoos_seed_test_passes(name: str) -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        seed_test(lambda: make(name, max_actions=25), num_cycles=20)


@pytest.mark.parametrize("name", each_book())
def test_the_action_mask_is_the_legal_actions(name: str) -> None:
    env = make(name, max_actions=30)
    env.reset(seed=11)
    rng = np.random.default_rng(11)
    checked = 0
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        if terminated or truncated:
            env.step(None)
            continue
        assert agent == env.game.current_player and not env.game.is_chance_node()
        mask = observation["action_mask"]
        assert np.flatnonzero(mask).tolist() == sorted(env.game.legal_action_ids())
        for other in env.agents:
            if other != agent:
                assert not env.observe(other)["action_mask"].any()
        env.step(int(rng.choice(np.flatnonzero(mask))))
        checked += 1
    assert checked == 30 or env.game.is_terminal()


@pytest.mark.parametrize("name", each_book())
def test_an_illegal_action_is_refused_and_changes_nothing(name: str) -> None:
    env = make(name)
    env.reset(seed=3)
    before = env.game.to_notation()
    agent = env.agent_selection
    illegal = next(i for i in range(env.book.num_distinct_actions)
                   if i not in set(env.game.legal_action_ids()))
    with pytest.raises(IllegalActionError):
        env.step(illegal)
    with pytest.raises(CortesRulesError, match="action id"):
        env.step("pass")
    assert env.game.to_notation() == before and env.agent_selection == agent
    assert env.decisions == 0
    with pytest.raises(CortesRulesError, match="no agent 'nobody'"):
        env.action_space("nobody")
    env = make(name, max_actions=1)
    legal = np.flatnonzero(env.observe(env.agent_selection)["action_mask"])
    env.step(int(legal[0]))
    assert all(env.truncations.values())
    with pytest.raises(CortesRulesError, match="its only action is None"):
        env.step(int(legal[0]))


@pytest.mark.parametrize("name", each_book())
def test_a_seed_gives_the_same_game(name: str) -> None:
    def play(seed: int) -> list[Any]:
        env = make(name, max_actions=20)
        env.reset(seed=seed)
        seen = []
        for agent in env.agent_iter():
            observation, reward, terminated, truncated, _ = env.last()
            seen.append((agent, observation["observation"].tobytes(), reward))
            mask = observation["action_mask"]
            env.step(None if terminated or truncated else int(np.flatnonzero(mask)[-1]))
        return seen

    assert play(8) == play(8)
    assert len(play(8)) > 20


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_rewards_at_the_end_are_the_outcomes_utilities() -> None:
    env = make("grands_strateges", turn_limit=None, max_actions=2000)
    env.reset(seed=1)
    totals = {a: 0.0 for a in env.possible_agents}
    for agent in env.agent_iter():
        observation, reward, terminated, truncated, _ = env.last()
        totals[agent] += reward
        assert not truncated
        env.step(None if terminated else int(np.flatnonzero(observation["action_mask"])[-1]))
    outcome = env.game.outcome()
    assert outcome is not None and outcome.winner is not None
    assert list(totals.values()) == utilities(env.possible_agents, outcome)
    assert totals[outcome.winner] == 1.0 and sorted(totals.values()) == [-1.0, 1.0]


@pytest.mark.rule("8.8")
def test_ansi_rendering_shows_the_agent_to_act_no_hidden_piece() -> None:
    env = make("cortes", render_mode="ansi", max_actions=400)
    env.reset(seed=2)
    for agent in env.agent_iter():
        observation, _, terminated, truncated, _ = env.last()
        seen = env.game.observation(agent)
        if seen["hidden"]:
            text = env.render()
            hidden = set(env.book.piece_ids) - set(seen["pieces"])
            assert "hidden" in text and f"seen by {agent}" in text
            assert not hidden & set(text.replace(":", " ").split())
            return
        env.step(None if terminated or truncated
                 else int(np.flatnonzero(observation["action_mask"])[0]))
    raise AssertionError("no piece was ever hidden from the agent to act")


@pytest.mark.rule("4.1")
def test_bad_arguments_are_refused_with_one_line() -> None:
    book = load("cortes")
    for kwargs, message in (({"render_mode": "human"}, "render_mode"),
                            ({"max_actions": 0}, "max_actions"),
                            ({"seed": "x"}, "seed"),
                            ({"options": "veteran"}, "loaded already")):
        with pytest.raises(CortesRulesError, match=message) as caught:
            RulesEnv(book, **kwargs)
        assert "\n" not in str(caught.value)
