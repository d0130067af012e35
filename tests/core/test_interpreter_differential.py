"""The reference interpreter of the core IR against the engine (issue 48, item 2).

Seeded random games are played by both the engine (``cortes_rules.load(...)
.new_game``) and ``cortes_rules.core.run`` on the lowered rulebook: at each
step a uniformly random legal action (the same for both, drawn by
``random.Random(seed)``) or, at a chance node, the outcome each samples with
its own seeded generator. At every step the legal actions (as texts), the
chance flag, the player to act and the log lines (turn, phase, text and
rules) must be the same; at the end, the outcome. A game that does not match
yet is marked ``xfail(strict=True)`` naming the construct.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import pytest

import cortes_rules
from cortes_rules.core.run import Interpreter

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "tests/fixtures/core"
# Whole games: the sequence of play (4.2) and every rule it reaches.
pytestmark = pytest.mark.rule("4.2")


@functools.cache
def loaded(name: str, options: str | None, scenario: str | None) -> tuple[Any, Interpreter]:
    kw: dict[str, Any] = {}
    if options:
        kw["options"] = options
    if scenario:
        kw["scenario"] = scenario
    rulebook = cortes_rules.load(name, **kw)
    return rulebook, Interpreter.of(rulebook)


def lines(log: Any) -> list[tuple[int, str, str, tuple[str, ...]]]:
    return [(e.turn, e.phase, e.text, tuple(e.rules)) for e in log]


def play(name: str, setup: str | None, seed: int, steps: int, options: str | None = None,
         scenario: str | None = None) -> int:
    """Play one game on both executors, asserting at every step; the steps played."""
    rulebook, interpreter = loaded(name, options, scenario)
    engine = rulebook.new_game(seed=seed, setup=setup)
    ours = interpreter.new_game(seed=seed, setup=setup)
    pick = random.Random(seed)
    seen = 0
    for step in range(steps):
        where = f"seed {seed}, step {step}"
        legal = [str(a) for a in engine.legal_actions()]
        assert ours.legal_actions() == legal, where
        assert ours.is_chance_node() == engine.is_chance_node(), where
        assert ours.current_player() == engine.current_player, where
        log = lines(engine.log)
        assert lines(ours.log[seen:]) == log[seen:], where
        seen = len(log)
        assert ours.is_terminal() == engine.is_terminal(), where
        if engine.is_terminal():
            want, got = engine.outcome(), ours.outcome
            assert (got.winners, got.reason, got.scores, got.details, got.rule) == (
                want.winners, want.reason, want.scores, want.details, want.rule), where
            return step
        if engine.is_chance_node():
            assert ours.board.action_text(ours.apply_chance()) == str(engine.apply_chance()), \
                where
        else:
            action = pick.choice(legal)
            engine.apply(action)
            ours.apply(action)
    return steps


FIXTURES = [("minimal", str(ROOT / "tests/fixtures/good/minimal.rules"), "standard")] + [
    (p.stem, str(p), "standard") for p in sorted(CORE.glob("*.rules"))]


@pytest.mark.parametrize(("stem", "path", "setup"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_games_match(stem: str, path: str, setup: str) -> None:
    """Every fixture under tests/fixtures/core and minimal.rules, ten whole games each."""
    for seed in range(10):
        assert play(path, setup, seed, 2000) < 2000, f"{stem} seed {seed} did not end"


@pytest.mark.parametrize("preset", [None, "beginner", "veteran"])
def test_cortes_opening_matches(preset: str | None) -> None:
    """Cortés, historical set-up: the first 400 steps of one game per preset."""
    assert play("cortes", "historical", 1, 400, options=preset) > 0


def test_grands_strateges_scenario_i_matches() -> None:
    """Grands Stratèges scenario I (every option): two whole games."""
    for seed in range(2):
        assert play("grands_strateges", None, seed, 1000, options="all", scenario="I") < 1000


@pytest.mark.slow
@pytest.mark.parametrize("preset", [None, "beginner", "veteran"])
def test_cortes_games_match(preset: str | None) -> None:
    """Cortés, historical set-up: three games of up to 1,500 steps per preset."""
    for seed in range(3):
        play("cortes", "historical", seed, 1500, options=preset)


@pytest.mark.slow
def test_grands_strateges_scenario_i_games_match() -> None:
    """Grands Stratèges scenario I: five whole games."""
    for seed in range(5):
        play("grands_strateges", None, seed, 3000, options="all", scenario="I")
