"""The OpenSpiel game passes OpenSpiel's own random-simulation test on both rulebooks.

``pyspiel.random_sim_test`` plays random games through pyspiel (chance
sampled from ``chance_outcomes()``), checking clones, histories, sorted legal
actions and their mask, observation tensors and utilities. Around it: legal
actions are the rulebook's legal action ids (4.1), chance outcomes carry the
rulebook's exact odds, the observer's tensor is the adapter's tensor of what
the player may see, and the same chance outcomes and actions give the same game.
"""

from __future__ import annotations

from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest
from adapter_books import each_book, load
from extras import need

from cortes_rules import CortesRulesError, IllegalActionError

np = need("numpy", "openspiel")
pyspiel = need("pyspiel", "openspiel")
from cortes_rules.adapters.openspiel import game_name, register  # noqa: E402
from cortes_rules.adapters.tensors import Layout  # noqa: E402

PARAMETERS = {
    "cortes": {"options": "veteran", "turn_limit": 1, "max_actions": 40},
    "grands_strateges": {"scenario": "1", "max_actions": 60},
}
MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


def game(name: str, **changes: Any) -> Any:
    return pyspiel.load_game(register(name), {**PARAMETERS[name], **changes})


@pytest.mark.parametrize("name", each_book())
def test_openspiels_random_simulation_test_passes(name: str) -> None:
    loaded = game(name)
    assert loaded.get_type().information == pyspiel.GameType.Information.IMPERFECT_INFORMATION
    assert loaded.num_players() == len(load(name).players)
    assert loaded.num_distinct_actions() == load(name).num_distinct_actions
    pyspiel.random_sim_test(loaded, num_sims=2, serialize=False, verbose=False)


@pytest.mark.parametrize("name", each_book())
def test_legal_actions_chance_odds_and_observations_are_the_rulebooks(name: str) -> None:
    loaded = game(name, max_actions=300)
    layout = Layout(load(name))
    observer = loaded.make_py_observer()
    rng = np.random.default_rng(4)
    state = loaded.new_initial_state()
    chances = 0
    while not state.is_terminal():
        inner = state.game_state
        if state.is_chance_node():
            chances += 1
            odds = inner.chance_outcomes()
            assert state.chance_outcomes() == [(load(name).action_id(a), float(p))
                                               for a, p in odds]
            assert sum(p for _, p in odds) == Fraction(1)
            actions, probs = zip(*state.chance_outcomes(), strict=True)
            state.apply_action(int(rng.choice(actions, p=probs)))
            continue
        player = state.current_player()
        assert load(name).players[player] == inner.current_player
        assert state.legal_actions() == sorted(inner.legal_action_ids())
        for p in range(loaded.num_players() if state.move_number() % 5 == 0 else 0):
            observer.set_from(state, p)
            expected = layout.encode(inner, load(name).players[p])
            np.testing.assert_array_equal(observer.tensor, expected)
            assert np.array_equal(state.observation_tensor(p), expected)
        state.apply_action(int(rng.choice(state.legal_actions())))
    assert chances > 0 or name == "grands_strateges"
    assert len(state.returns()) == loaded.num_players() and sum(state.returns()) == 0


@pytest.mark.parametrize("name", each_book())
def test_the_same_chance_outcomes_and_actions_give_the_same_game(name: str) -> None:
    def play(seed: int) -> tuple[list[int], str, list[float]]:
        rng = np.random.default_rng(seed)
        state = game(name).new_initial_state()
        while not state.is_terminal():
            if state.is_chance_node():
                actions, probs = zip(*state.chance_outcomes(), strict=True)
                state.apply_action(int(rng.choice(actions, p=probs)))
            else:
                state.apply_action(int(rng.choice(state.legal_actions())))
        return state.history(), str(state), state.returns()

    assert play(6) == play(6)
    assert play(6)[0] != play(7)[0]


@pytest.mark.rule("2.1", rulebook="minimal_race")
def test_a_rulebook_that_hides_nothing_is_a_perfect_information_game() -> None:
    loaded = pyspiel.load_game(register(str(MINIMAL)), {"setup": "standard", "max_actions": 30})
    assert loaded.get_type().information == pyspiel.GameType.Information.PERFECT_INFORMATION
    pyspiel.random_sim_test(loaded, num_sims=3, serialize=False, verbose=False)


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_a_win_is_worth_one_and_a_loss_minus_one() -> None:
    state = game("grands_strateges", max_actions=500).new_initial_state()
    while not state.is_terminal():
        state.apply_action(state.legal_actions()[-1])   # as in test_pettingzoo: B wins
    outcome = state.game_state.outcome()
    assert outcome is not None and outcome.winners == ("b",)
    assert state.returns() == [-1.0, 1.0]


@pytest.mark.rule("4.1")
def test_registration_and_observer_refusals_are_clear() -> None:
    assert register("cortes") == register("cortes") == game_name("cortes")
    with pytest.raises(CortesRulesError, match="no parameter 'speed'"):
        register("some_rulebook", speed=3)
    with pytest.raises(CortesRulesError, match="takes a value of type int"):
        register("some_rulebook", max_actions="many")
    with pytest.raises(CortesRulesError, match="registered already, with other defaults"):
        register("cortes", turn_limit=3)
    loaded = game("cortes")
    with pytest.raises(CortesRulesError, match="perfect recall"):
        loaded.make_py_observer(pyspiel.IIGObservationType(perfect_recall=True))
    state = loaded.new_initial_state()
    assert state.legal_actions(1 - state.current_player()) == []
    assert state.current_player() == 0 and state.returns() == [0.0, 0.0]


@pytest.mark.parametrize("name", each_book())
def test_an_illegal_action_is_refused_and_changes_nothing(name: str) -> None:
    state = game(name, max_actions=3).new_initial_state()
    legal = set(state.legal_actions())
    illegal = next(i for i in range(game(name).num_distinct_actions()) if i not in legal)
    before = str(state)
    with pytest.raises(IllegalActionError):
        state.apply_action(illegal)
    assert str(state) == before and state.history() == []
    while not state.is_terminal():   # three decisions, then the game is cut short
        state.apply_action(state.legal_actions()[0])
    assert state.game_state.outcome() is None and state.returns() == [0.0, 0.0]
    with pytest.raises(IllegalActionError, match="cut short after 3 decisions"):
        state.apply_action(0)
