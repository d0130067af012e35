"""One seeded game on both executors of the core IR, compared at every step (issue 48).

``cortes_rules.core.run`` (the reference interpreter) is the specification and
``cortes_rules.core.vm`` (the native VM) must answer as it does. ``play`` starts
one game of a lowered rulebook on each and walks them together: at a decision a
uniformly random legal action drawn by ``random.Random(seed)``, at a chance node
the outcome each samples with its own generator (they must draw the same). At
every step it asserts that the two give the same legal ids and texts, chance
flag, chance outcomes with their probabilities, generator state, player to act,
log lines (turn, phase, text, rules) and refusal of an action that is not
legal; at the end, the same outcome, and that the VM handed nothing back.

Used by tests/core/test_vm.py (a few games) and tests/core/test_vm_soak.py (the
soak of item 7). Import it after ``pytest.importorskip("cortes_rules._vm")``.
"""

from __future__ import annotations

import functools
import random
from pathlib import Path
from typing import Any

import cortes_rules
from cortes_rules.core.run import Interpreter, RulesError
from cortes_rules.core.vm import VM
from cortes_rules.dsl.to_core import to_core

ROOT = Path(__file__).resolve().parents[2]
CORE = ROOT / "tests/fixtures/core"
# The fixture rulebooks (each with the set-up "standard"): (name, path).
FIXTURES = [("minimal", str(ROOT / "tests/fixtures/good/minimal.rules"))] + [
    (p.stem, str(p)) for p in sorted(CORE.glob("*.rules"))]


@functools.cache
def executors(name: str, options: str | None, scenario: str | None) -> tuple[Any, Any]:
    """The reference interpreter and the VM of one rulebook, lowered once per process."""
    kw: dict[str, Any] = {}
    if options:
        kw["options"] = options
    if scenario:
        kw["scenario"] = scenario
    game = to_core(cortes_rules.load(name, **kw)._machine.program)
    return Interpreter(game), VM(game)


def lines(log: Any) -> list[tuple[int, str, str, tuple[str, ...]]]:
    return [(e.turn, e.phase, e.text, tuple(e.rules)) for e in log]


def refusal(state: Any, action: int) -> str:
    """The message with which ``state`` refuses ``action`` (a test fails if it is taken)."""
    try:
        state.apply(action)
    except RulesError as error:
        return str(error)
    raise AssertionError(f"action {action} was taken, but it is not legal here")


def play(name: str, setup: str | None, seed: int, steps: int, options: str | None = None,
         scenario: str | None = None, turn_limit: int | None = None) -> int:
    """One game on both executors, asserting at every step; the steps played."""
    reference, vm = executors(name, options, scenario)
    ref = reference.new_game(seed=seed, setup=setup, turn_limit=turn_limit)
    ours = vm.new_game(seed=seed, setup=setup, turn_limit=turn_limit)
    pick = random.Random(seed)
    for step in range(steps):
        where = f"{name} options={options} scenario={scenario} setup={setup} " \
                f"seed {seed}, step {step}"
        legal = ref.legal_actions()
        ids = ref.legal_action_ids()
        assert ours.legal_actions() == legal, where
        assert ours.legal_action_ids() == ids, where
        assert ours.is_chance_node() == ref.is_chance_node(), where
        assert ours.current_player() == ref.current_player(), where
        assert ours.seed_state == ref.rng_state, where
        assert lines(ours.log) == lines(ref.log), where
        assert ours.is_terminal() == ref.is_terminal(), where
        if ref.is_terminal():
            want, got = ref.outcome, ours.outcome
            assert (got.winners, got.reason, got.scores, got.details, got.rule) == (
                want.winners, want.reason, want.scores, want.details, want.rule), where
            assert refusal(ours, 0) == refusal(ref, 0), where
            assert ours.fallbacks == 0, where
            return step
        # The first id the position does not offer is refused alike, and changes nothing
        # (the next step's comparisons would see it).
        taken = set(ids)
        wrong = next(n for n in range(len(ids) + 1) if n not in taken)
        assert refusal(ours, wrong) == refusal(ref, wrong), where
        if ref.is_chance_node():
            assert ours.chance_outcomes() == ref.chance_outcomes(), where
            assert ours.apply_chance() == ref.apply_chance(), where
        else:
            action = pick.choice(legal)
            ref.apply(action)
            ours.apply(action)
    assert ours.fallbacks == 0
    return steps
