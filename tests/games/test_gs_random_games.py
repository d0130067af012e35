"""Grands Stratèges: seeded random games of each stated scenario, basic and advanced,
with the invariants the rules promise checked after every action.

- II.6: at the end of every movement phase each hex holds at most one unit;
- IV.2, IV.7: when a combat phase ends, no unit of the phasing player stands in
  a hex controlled by an enemy it could still attack (one not attacked yet);
- IV.21: no unit retreats into a hex an enemy controls, or into an enemy's hex;
- scenario I: until both deployments are made, neither player sees where the
  other's units are;
- scenarios IXa, IXb and X: a player never sees what an enemy unit is while it
  is face down; scenario VII: player A never sees player B's corps (nor their
  roads) before they enter.

Each scenario plays 8 seeded games, basic and advanced (with ``--slow``, as CI
runs them; one without, tests/budgets.py). Self-play to the end of each
scenario, and games with each of the scenarios' options, are ``slow``.
"""

from __future__ import annotations

import random

import pytest
from budgets import budget

import cortes_rules
from cortes_rules import GameState

GAMES = budget(8, 1)
ACTION_CAP = 40000


def _check_before(state: GameState, action: str) -> None:
    if action.startswith("retreat "):
        _, unit, hex_id = action.split()
        side = state.evaluate("u.side", u=unit)
        assert not state.evaluate("enemy_controls(h, s)", h=hex_id, s=side), \
            f"{unit} retreats into {hex_id}, which an enemy controls"
        assert not state.evaluate("any(x in h.pieces where x.side != s)", h=hex_id, s=side)


def _check_after(state: GameState, before_phase: str, combat_voluntary: bool,
                 secret_corps: bool) -> None:
    if before_phase.endswith("_movement") and state.phase != before_phase:
        crowded = state.evaluate("list(h for h in hexes where count(h.pieces) > 1)")
        assert not crowded, f"after {before_phase}: more than one unit in {crowded}"
    if before_phase.endswith("_combat") and state.phase != before_phase \
            and not state.is_terminal() and not combat_voluntary:
        side = before_phase[0]
        owing = state.evaluate("list(u for u in own_units(s) where must_attack(u, s))", s=side)
        assert not owing, f"after {before_phase}: {owing} still had to attack"
    if state.evaluate("deploying"):
        for viewer, other in (("a", "b"), ("b", "a")):
            seen = state.observation(viewer)
            assert not any(uid.startswith(other.upper()) for uid in seen["pieces"]), \
                f"{viewer} sees the other side's deployment"
            assert not any(key[0].isdigit() for key in seen["hidden"])
    face_down = state.evaluate("count(face_down_movement) > 0")
    for viewer, other in (("a", "b"), ("b", "a")):
        enemy = {uid: record for uid, record in state.observation(viewer)["pieces"].items()
                 if uid.startswith(other.upper())}
        if face_down:
            shown = [uid for uid, record in enemy.items() if record["shown"]["face_up"] is not True]
            assert not shown, f"{viewer} sees face-down units {shown}"
        waiting = [uid for uid, record in enemy.items()
                   if record["place"] == f"reinforcements.{other}"]
        assert not (secret_corps and viewer == "a" and waiting), \
            f"{viewer} sees the corps {waiting} waiting to enter"


def play(book: cortes_rules.Rulebook, seed: int) -> GameState:
    state = book.new_game(seed=seed)
    rng = random.Random(seed)
    for _ in range(ACTION_CAP):
        if state.is_terminal():
            return state
        if state.is_chance_node():
            state.apply_chance()
            continue
        phase, turn = state.phase, state.turn
        action = str(rng.choice(state.legal_actions()))
        _check_before(state, action)
        state.apply(action)
        # Scenario VI's night turns (10-12) make combat voluntary.
        _check_after(state, phase, book.scenario == "VI" and 10 <= turn <= 12,
                     book.scenario == "VII")
    raise AssertionError(f"seed {seed}: no end after {ACTION_CAP} actions")


@pytest.mark.rule("II.6", "IV.2", "IV.7", "IV.21", "I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("scenario", ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IXa",
                                      "IXb", "X"])
@pytest.mark.parametrize("options", ["basic", "advanced"])
def test_random_games_of_each_scenario_keep_every_invariant(scenario: str, options: str) -> None:
    book = cortes_rules.load("grands_strateges", scenario=scenario, options=options)
    outcomes = [play(book, seed).outcome() for seed in range(1, GAMES + 1)]
    assert all(o is not None for o in outcomes)
    # Every game ends with a result: a winner, or a draw when the turns run out.
    assert all(o.reason for o in outcomes if o is not None)
    assert all(o.details for o in outcomes if o is not None)


@pytest.mark.slow   # exhaustive self-play: every scenario to its end, five seeds each
@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("scenario", ["1", "2", "3", "4", "5", "6", "7", "8", "IXa", "IXb",
                                      "10"])
def test_selfplay_reaches_the_end_of_each_scenario(scenario: str) -> None:
    from cortes_rules.selfplay import selfplay

    for seed in range(1, 6):
        result = selfplay("grands_strateges", scenario=scenario, seed=seed)
        assert result.finished and result.outcome is not None
        assert result.outcome.reason.startswith(("The scenario's", "Player", "The result"))


# The scenarios' own options (registry entries of kind "choice"), each played
# with the advanced rules on.
CHOICES = [("IV", "scenario_iv_options", "option_2"), ("IV", "scenario_iv_options", "option_3"),
           ("IV", "scenario_iv_options", "option_4"),
           ("VIII", "scenario_viii_morale", "forty_sixty"),
           ("VIII", "scenario_viii_morale", "half_first_only"),
           ("VIII", "scenario_viii_morale", "forty_sixty_first_only"),
           ("X", "scenario_x_reserve", "chosen"), ("X", "scenario_x_reserve", "drawn"),
           ("X", "scenario_x_reserve", "rolled")]


@pytest.mark.slow   # soak games: three whole games for each option of the scenarios
@pytest.mark.rule("II.6", "IV.2", "IV.7", "IV.21", "I.1", "XI.2", rulebook="grands_strateges")
@pytest.mark.parametrize(("scenario", "entry", "reading"), CHOICES)
def test_random_games_with_each_scenario_option(scenario: str, entry: str, reading: str) -> None:
    book = cortes_rules.load("grands_strateges", scenario=scenario, options="advanced",
                             readings={entry: reading})
    for seed in (1, 2, 3):
        outcome = play(book, seed).outcome()
        assert outcome is not None and outcome.reason and outcome.details


# Readings of the registry that add decisions or endings of their own.
READINGS = [("IV", "basic", "retreat_off_map", "by_choice"),
            ("III", "advanced", "charge_choice", "declared"),
            ("VI", "basic", "vi_early_end", "automatic"),
            ("VI", "advanced", "night_battles", "free")]


@pytest.mark.rule("II.6", "IV.2", "IV.7", "IV.21", "VI.1", "VIII.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("scenario", "options", "entry", "reading"), READINGS)
def test_random_games_with_readings_that_add_decisions(scenario: str, options: str, entry: str,
                                                        reading: str) -> None:
    book = cortes_rules.load("grands_strateges", scenario=scenario, options=options,
                             readings={entry: reading})
    for seed in (1, 2):
        outcome = play(book, seed).outcome()
        assert outcome is not None and outcome.reason and outcome.details
