"""The soak differential of the two executors of the core IR (issue 48, item 7).

Many seeded games of every rulebook, preset, set-up, scenario and fixture are
played on the reference interpreter and the native VM together by
``vm_games.play``, which asserts at every step that they give the same legal
ids and texts, chance flag and outcomes, generator state, player to act, log
lines with their rules and refusal of an illegal action, and at the end the
same outcome with no hand-back. The shipped rulebooks play under a low turn
limit so that their games end; the fixtures play whole games. A hypothesis
property then compares random positions of the fixtures and the VM's clone of
them. Everything here is ``slow`` (``--slow``, as CI runs it): about four
minutes on one core.
"""

from __future__ import annotations

import random

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules

pytest.importorskip("cortes_rules._vm", reason="the native VM was not built")
from vm_games import FIXTURES, executors, lines, play  # noqa: E402  (tests/core/vm_games.py)

# Whole games: the sequence of play (4.2) and every rule it reaches.
pytestmark = [pytest.mark.rule("4.2"), pytest.mark.slow]

# What is played. Cortés's presets: none, beginner (every optional rule off, as none,
# so it plays other seeds) and veteran (every one on). Grands Stratèges's presets are
# the two option sets played: basic is none, advanced is "all" (checked below).
CORTES_PRESETS: tuple[str | None, ...] = (None, "beginner", "veteran")
CORTES_SETUPS = ("demo", "historical")
GS_OPTIONS: tuple[str | None, ...] = (None, "all")
GS_SCENARIOS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IXa", "IXb", "X")

# Seeded games per rulebook (the reference runs Cortés and Grands Stratèges at about
# 20-150 steps a second, the fixtures at thousands):
FIXTURE_GAMES = 75                                # whole games per fixture: 6 x 75 = 450
CORTES_GAMES = {"demo": 8, "historical": 3}       # per preset: 3 x (8 + 3) = 33
CORTES_TURN_LIMIT = {"demo": 4, "historical": 2}
GS_GAMES = 2                                      # per option set and scenario: 2 x 11 x 2 = 44
GS_TURN_LIMIT = 1
# In all 450 + 33 + 44 = 527 games (at least 500: test_the_soak_covers_everything).
GAMES = (len(FIXTURES) * FIXTURE_GAMES + len(CORTES_PRESETS) * sum(CORTES_GAMES.values())
         + len(GS_OPTIONS) * len(GS_SCENARIOS) * GS_GAMES)
STEPS = 3000   # no game here is near it: one that reaches it did not end


def test_the_soak_covers_everything() -> None:
    """The presets, set-ups and scenarios played are the rulebooks' own, and the soak
    plays at least 500 games."""
    cortes = cortes_rules.load("cortes")
    assert set(cortes.setups) == set(CORTES_SETUPS)
    assert {p.name for p in cortes.program.game.presets} == {"beginner", "veteran"}
    gs = cortes_rules.load("grands_strateges")
    assert tuple(name for name, _ in gs.scenarios) == GS_SCENARIOS
    assert gs.setups == ()
    presets = {p.name: (p.rules, p.all) for p in gs.program.game.presets}
    assert presets == {"basic": ((), False), "advanced": ((), True)}
    assert GAMES >= 500


@pytest.mark.parametrize(("stem", "path"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_soak(stem: str, path: str) -> None:
    """Every fixture under tests/fixtures/core and minimal.rules: whole games."""
    for seed in range(100, 100 + FIXTURE_GAMES):
        assert play(path, "standard", seed, STEPS) < STEPS, f"{stem} seed {seed} did not end"


@pytest.mark.parametrize("setup", CORTES_SETUPS)
@pytest.mark.parametrize("preset", CORTES_PRESETS)
def test_cortes_soak(preset: str | None, setup: str) -> None:
    """Cortés, each preset and set-up, games to a low turn limit (4.2)."""
    first = 1000 * (1 + CORTES_PRESETS.index(preset))
    for seed in range(first, first + CORTES_GAMES[setup]):
        played = play("cortes", setup, seed, STEPS, options=preset,
                      turn_limit=CORTES_TURN_LIMIT[setup])
        assert played < STEPS, f"seed {seed} did not end"


@pytest.mark.parametrize("scenario", GS_SCENARIOS)
@pytest.mark.parametrize("options", GS_OPTIONS)
def test_grands_strateges_soak(options: str | None, scenario: str) -> None:
    """Grands Stratèges, every scenario with its default options and with all of them,
    games to a low turn limit."""
    for seed in range(100, 100 + GS_GAMES):
        played = play("grands_strateges", None, seed, STEPS, options=options,
                      scenario=scenario, turn_limit=GS_TURN_LIMIT)
        assert played < STEPS, f"seed {seed} did not end"


@settings(max_examples=60, deadline=None)
@given(fixture=st.sampled_from(FIXTURES), seed=st.integers(0, 2**64 - 1),
       steps=st.integers(0, 150))
def test_a_random_position_is_the_same_on_both(fixture: tuple[str, str], seed: int,
                                               steps: int) -> None:
    """After a random number of seeded random steps in a fixture, both executors give
    the same legal ids, player to act and log, and the VM's clone of the position
    lists the same ids and would draw the same chance."""
    reference, vm = executors(fixture[1], None, None)
    ref = reference.new_game(seed=seed, setup="standard")
    ours = vm.new_game(seed=seed, setup="standard")
    pick = random.Random(seed)
    for _ in range(steps):
        if ref.is_terminal():
            break
        if ref.is_chance_node():
            assert ours.apply_chance() == ref.apply_chance()
        else:
            action = pick.choice(ref.legal_action_ids())
            ref.apply(action)
            ours.apply(action)
    assert ours.is_terminal() == ref.is_terminal()
    assert ours.legal_action_ids() == ref.legal_action_ids()
    assert ours.current_player() == ref.current_player()
    assert lines(ours.log) == lines(ref.log)
    copy = ours.clone()
    assert copy.legal_action_ids() == ref.legal_action_ids()
    assert copy.current_player() == ref.current_player()
    assert copy.seed_state == ref.rng_state
    assert lines(copy.log) == lines(ref.log)
