"""Shared fixtures: the compiled Cortés rulebook and small helpers to build positions.

The rulebook is compiled once per session (``book``). ``game`` starts a game
from a set-up and/or explicit positions and walks it to a named phase;
``battle`` opens a battle and commits attackers; ``resolve`` rolls a chosen
number. Hypothesis runs derandomized by default so that CI is reproducible;
set ``HYPOTHESIS_PROFILE=explore`` for a randomized search, and
``PROPERTY_SCALE=20`` to multiply the example budgets of tests/engine/test_properties.py.

Tests marked ``slow`` (soak games, exhaustive self-play, long property runs)
are left out unless ``--slow`` is given, and the tests with a budget
(``tests/budgets.py``: examples, seeded games) run a smaller one of the same
check: ``python -m pytest -n auto`` is the contributor's run,
``python -m pytest -n auto --slow`` the whole suite (CI).

The tests use the checkout they belong to: its root goes first on
``sys.path``. With ``CORTES_RULES_TEST_INSTALLED=1`` they use the installed
package instead (CI runs the user-facing tests so, from a copy of the tests
outside the source tree, against the wheel installed in a fresh venv), and
the run stops at once if the package imported is not an installed one.
"""

from __future__ import annotations

import os
import sys
import sysconfig
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import pytest
from hypothesis import HealthCheck, settings

ROOT = Path(__file__).resolve().parents[1]
INSTALLED = os.environ.get("CORTES_RULES_TEST_INSTALLED", "") not in ("", "0")
if not INSTALLED and str(ROOT) not in sys.path:  # the package is used from the checkout
    sys.path.insert(0, str(ROOT))

import cortes_rules  # noqa: E402

if INSTALLED:
    _where = Path(cortes_rules.__file__).resolve()
    _installed = {Path(sysconfig.get_path(k)).resolve() for k in ("purelib", "platlib")}
    if not any(_where.is_relative_to(folder) for folder in _installed):
        raise pytest.UsageError(f"CORTES_RULES_TEST_INSTALLED is set but cortes_rules comes "
                                f"from {_where.parent}, not from {sorted(map(str, _installed))}")
from cortes_rules import GameState  # noqa: E402
from positions import to_phase  # noqa: E402  (tests/ is on sys.path, as for every test)

settings.register_profile(
    "ci", derandomize=True, deadline=None, print_blob=True, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.register_profile(
    "explore", deadline=None, max_examples=500, database=None,
    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "ci"))


def pytest_addoption(parser: pytest.Parser) -> None:
    parser.addoption("--slow", action="store_true",
                     help="also run the tests marked slow, and every budget in full "
                          "(the whole suite, as CI runs it)")


def pytest_configure(config: pytest.Config) -> None:
    import budgets   # tests/ is on sys.path, as for every test

    budgets.FULL = bool(config.getoption("slow"))


def pytest_report_header(config: pytest.Config) -> list[str]:
    """Name the package and the core the suite runs on (CI runs it on each backend)."""
    from cortes_rules.engine.backend import ENV
    return [f"cortes_rules backend: {cortes_rules.backend()} ({ENV}={os.environ.get(ENV, '')!r})",
            f"cortes_rules from {Path(cortes_rules.__file__).resolve().parent}"
            f"{' (installed)' if INSTALLED else ''}; slow tests and full budgets: "
            f"{'yes' if config.getoption('slow') else 'no (--slow runs them)'}"]


@pytest.fixture(scope="session")
def book() -> cortes_rules.Rulebook:
    """The shipped Cortés rulebook, compiled once."""
    return cortes_rules.load("cortes")


@pytest.fixture
def game(book: cortes_rules.Rulebook) -> Callable[..., GameState]:
    """``game(positions, phase=..., setup=..., seed=..., steps={uid: n})`` -> a GameState."""

    def make(positions: Mapping[str, str] | None = None, *,
             phase: str = "spanish_land_movement", setup: str | None = None,
             seed: int = 0, steps: Mapping[str, int] | None = None) -> GameState:
        state = book.new_game(seed=seed, setup=setup, positions=dict(positions or {}))
        for uid, n in (steps or {}).items():
            # Worn-down units for loss examples: set before any action is taken.
            state.set_attribute(uid, "steps", n)
        return to_phase(state, phase)

    return make


@pytest.fixture
def battle() -> Callable[[GameState, str, Iterable[str]], GameState]:
    """``battle(state, target, attackers)``: open an attack and commit the attackers."""

    def open_battle(state: GameState, target: str, attackers: Iterable[str]) -> GameState:
        state.apply(f"attack {target}")
        for uid in attackers:
            state.apply(f"join {uid}")
        return state

    return open_battle


@pytest.fixture
def resolve() -> Callable[[GameState, int], GameState]:
    """``resolve(state, roll)``: resolve the open battle with a chosen two-dice total."""

    def do(state: GameState, roll: int) -> GameState:
        state.apply("resolve")
        assert state.is_chance_node()
        state.apply(f"roll {roll}")
        return state

    return do


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    """Every test names the rulebook rule it checks (``@pytest.mark.rule("8.17")``).

    The marker feeds the rule-coverage report; a test without one is a
    collection error, so none slips in unnoticed.
    """
    missing = [item.nodeid for item in items if item.get_closest_marker("rule") is None]
    if missing:
        raise pytest.UsageError("tests without @pytest.mark.rule(...):\n  " +
                                "\n  ".join(missing))
    if not config.getoption("slow"):
        slow = [item for item in items if item.get_closest_marker("slow") is not None]
        if slow:
            config.hook.pytest_deselected(items=slow)
            items[:] = [item for item in items if item.get_closest_marker("slow") is None]
