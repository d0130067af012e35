"""Random games from set-up to the end, with every invariant checked after every action.

Issue 6: at least 40 seeded games per preset (beginner, veteran) run from the
set-up stage (3.1-3.3) to a terminal state or the 20-turn cap with no
exception (with ``--slow``, as CI runs them; 2 per preset without,
tests/budgets.py). The games are shared between two worker processes; the
invariants are in tests/games/invariants.py, and tests/games/soak.py plays
1,000 games per preset with the same checks.
"""

from __future__ import annotations

from concurrent.futures import ProcessPoolExecutor

import pytest
from budgets import budget

import cortes_rules
from cortes_rules import Rulebook

from .invariants import GameChecker, InvariantBroken, play_checked

GAMES_PER_PRESET = budget(40, 2)
TURN_CAP = 20
WORKERS = 2

_BOOK: Rulebook | None = None


def _start(preset: str) -> None:
    global _BOOK
    _BOOK = cortes_rules.load("cortes", options=preset)


def _play(seed: int) -> tuple[int, str, int]:
    assert _BOOK is not None
    try:
        reason, turn = play_checked(_BOOK, seed, max_turns=TURN_CAP)
    except (InvariantBroken, cortes_rules.CortesRulesError) as error:
        return seed, f"FAILED: {error}", -1
    return seed, reason, turn


@pytest.mark.rule("2.10", "3.1", "4.1", "5.2", "5.4", "6.6", "6.7", "8.8")
@pytest.mark.parametrize("preset", ["beginner", "veteran"])
def test_forty_random_games_per_preset_keep_every_invariant(preset: str) -> None:
    with ProcessPoolExecutor(WORKERS, initializer=_start, initargs=(preset,)) as pool:
        results = list(pool.map(_play, range(1, GAMES_PER_PRESET + 1)))
    failures = [f"seed {seed}: {reason}" for seed, reason, _ in results
                if reason.startswith("FAILED")]
    assert not failures, "\n".join(failures)
    assert len(results) == GAMES_PER_PRESET
    # Every game reached an end of its own or the cap, never beyond it.
    assert all(1 <= turn <= TURN_CAP + 1 for _, _, turn in results)


Opened = tuple[GameChecker, cortes_rules.GameState]


@pytest.fixture
def opened(book: Rulebook) -> Opened:
    state = book.new_game(seed=3, setup="historical")
    checker = GameChecker(book, "checker test")
    checker(state)
    return checker, state


@pytest.mark.rule("2.10")
def test_the_checker_sees_a_unit_above_its_starting_steps(opened: Opened) -> None:
    checker, state = opened
    state.set_attribute("S1", "steps", 9)
    with pytest.raises(InvariantBroken, match="S1 has 9 steps"):
        checker(state)


@pytest.mark.rule("5.4")
def test_the_checker_sees_loss_points_that_do_not_recount(opened: Opened) -> None:
    checker, state = opened
    state.set_value("interphases_held", 2)
    checker.phase = None  # the recount runs as each phase begins
    with pytest.raises(InvariantBroken, match="loss points 15, recount 5"):
        checker(state)


@pytest.mark.rule("2.10")
def test_the_checker_sees_a_counter_listed_where_it_is_not(opened: Opened) -> None:
    checker, state = opened
    state.where[state.machine.world.piece["S1"].index] = None
    with pytest.raises(InvariantBroken, match="S1 is listed in place"):
        checker(state)
