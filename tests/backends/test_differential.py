"""The compiled core against the reference interpreter, move for move.

docs/design.md ("The compiled core") makes the reference interpreter the
specification: on the same rulebook, seed and actions the compiled backend
must offer the same legal-action ids and chance outcomes, reach the same
states, write the same log lines citing the same rules, show each player the
same observation, and refuse an illegal action for the same reasons.

508 seeded random games are played through both backends side by side (with
``--slow``, as CI runs them; 106 without, tests/budgets.py): 100 from each
Cortés set-up with the optional rules off, 100 with the veteran preset, and 28
of each of the eleven Grands Stratèges scenarios; plus hypothesis-generated
starting positions of Cortés.
"""

from __future__ import annotations

import functools
import os

import pytest
from hypothesis import given, settings
from budgets import budget
from hypothesis import strategies as st

import cortes_rules
from differential import play_both, snapshot, step_views

core = pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")
if os.environ.get("CORTES_RULES_BACKEND", "").strip().lower() == "python":
    # Each test here loads both backends itself; the pass on the compiled core runs them.
    pytest.skip("the differential tests run in the compiled pass", allow_module_level=True)

STEPS = 45       # steps per game: past the first movement and into the first battles
CORTES_GAMES = budget(50, 10)   # per Cortés set-up and preset
GS_GAMES = budget(28, 6)        # per Grands Stratèges scenario


@functools.lru_cache(maxsize=None)
def pair(name: str, options: tuple[str, ...] = (), scenario: str | None = None
         ) -> tuple[cortes_rules.Rulebook, cortes_rules.Rulebook]:
    """The same rulebook loaded once, run by the reference and by the compiled core."""
    reference = cortes_rules.load(name, options=options, scenario=scenario, backend="python")
    compiled = cortes_rules.Rulebook(reference.program, reference.warnings, backend="compiled")
    assert (reference.backend, compiled.backend) == ("python", "compiled")
    return reference, compiled


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("options", [(), ("veteran",)], ids=["basic", "veteran"])
@pytest.mark.parametrize("setup", ["historical", "demo"])
def test_cortes_games_agree_on_both_backends(options, setup):
    reference, compiled = pair("cortes", options)
    played = 0
    for seed in range(CORTES_GAMES):
        played += play_both(reference, compiled, seed=seed, max_steps=STEPS,
                            new_game={"setup": setup, "turn_limit": 10})
    assert played >= CORTES_GAMES * 10


GS_SCENARIOS = ["I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IXa", "IXb", "X"]


@pytest.mark.rule("I")
@pytest.mark.parametrize("scenario", GS_SCENARIOS)
def test_grands_strateges_games_agree_on_both_backends(scenario):
    reference, compiled = pair("grands_strateges", scenario=scenario)
    played = sum(play_both(reference, compiled, seed=seed, max_steps=STEPS, new_game={})
                 for seed in range(GS_GAMES))
    assert played >= GS_GAMES * 10


@pytest.mark.rule("2.1")
@settings(max_examples=40)
@given(data=st.data(), seed=st.integers(0, 2**64 - 1))
def test_generated_positions_agree_on_both_backends(data, seed):
    """Cortés pieces placed anywhere on the map: both backends accept or refuse alike."""
    reference, compiled = pair("cortes", ())
    world = reference._machine.world
    pieces = data.draw(st.lists(st.sampled_from([p.id for p in world.pieces]),
                                min_size=1, max_size=12, unique=True))
    hexes = [h.id for h in world.hexes]
    positions = {p: data.draw(st.sampled_from(hexes)) for p in pieces}
    results = []
    for book in (reference, compiled):
        try:
            state = book.new_game(seed=seed, setup="historical", positions=positions)
        except cortes_rules.CortesRulesError as error:
            results.append((type(error).__name__, str(error)))
        else:
            results.append((snapshot(state), step_views(state)))
    assert results[0] == results[1]
    if isinstance(results[0][0], dict):
        play_both(reference, compiled, seed=seed % 1000, max_steps=15,
                  new_game={"setup": "historical", "positions": positions})


@pytest.mark.rule("8.18")
@settings(max_examples=200)
@given(state=st.integers(0, 2**64 - 1), n=st.integers(1, 2**63), count=st.integers(0, 5),
       faces=st.integers(1, 40))
def test_native_generator_is_the_reference_bit_for_bit(state, n, count, faces):
    """The dice of 8.18 (and every roll) come from SplitMix64; the native kernel draws
    exactly the numbers of engine/rng.py, so a seed gives one game on both backends."""
    from cortes_rules.engine import rng
    assert core.next_state(state) == rng.next_state(state)
    assert core.below(state, n) == rng.below(state, n)
    assert core.roll_dice(state, count, faces) == rng.roll_dice(state, count, faces)
