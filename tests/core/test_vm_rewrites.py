"""The native VM's load-time rewrites change no result (issue 48, item 3).

At load the compiler rewrites five kinds of expression (``core.vm.compile``):
``memo`` (an expression of one slot that reads nothing that changes: its value
kept per piece and place), ``keyed`` (the same for an expression of several
slots and names, its value kept with the rules it cites, per values read),
``partition`` (a static domain filtered by a fixed attribute: split once at
load), ``once`` (what every candidate of a listing shares: found once per
listing) and ``inv`` (what every item of a comprehension shares: found once
per run of it). Here seeded random games are played on a VM
compiled with them and one compiled without (``rewrite=False``), step by step:
the same legal ids, chance outcomes, log lines with their rules, and outcome.
The reference interpreter is held to the rewritten VM by tests/core/test_vm.py.
"""

from __future__ import annotations

import functools
import random
from typing import Any

import pytest

import cortes_rules
from cortes_rules.core.vm import VM, layout
from cortes_rules.dsl.to_core import to_core

pytest.importorskip("cortes_rules._vm", reason="the native VM was not built")
from vm_games import FIXTURES, lines  # noqa: E402  (tests/core/vm_games.py)

# Whole games: the sequence of play (4.2) and every rule it reaches.
pytestmark = pytest.mark.rule("4.2")


@functools.cache
def both(name: str, options: str | None = None) -> tuple[VM, VM]:
    """The VM of one rulebook with the rewrites, and without them."""
    book = cortes_rules.load(name, **({"options": options} if options else {}))
    game = to_core(book._machine.program)
    return VM(game), VM(game, rewrite=False)


def opcodes(vm: VM) -> dict[str, int]:
    """How many nodes of each kind the compiled expressions hold (walked node by node)."""
    expr, found, at = vm.compiled.expr, {}, 0
    while at < len(expr):
        name = layout.EXPRESSION_OPS[expr[at]]
        found[name] = found.get(name, 0) + 1
        at += 4 + expr[at + 3]
    return found


def play_both(name: str, seed: int, steps: int, options: str | None = None,
              **new_game: Any) -> int:
    """Seeded random steps on both VMs, compared at every step; the steps played."""
    fast, plain = (vm.new_game(seed=seed, **new_game) for vm in both(name, options))
    rng = random.Random(seed)
    for step in range(steps):
        where = f"{name} seed {seed} step {step}"
        assert fast.is_terminal() == plain.is_terminal(), where
        if fast.is_terminal():
            got, want = fast.outcome, plain.outcome
            assert (got.winners, got.reason, got.scores, got.details, got.rule) == (
                want.winners, want.reason, want.scores, want.details, want.rule), where
            return step
        assert fast.is_chance_node() == plain.is_chance_node(), where
        if fast.is_chance_node():
            assert fast.chance_outcomes() == plain.chance_outcomes(), where
            fast.apply_chance()
            plain.apply_chance()
        else:
            ids = fast.legal_action_ids()
            assert ids == plain.legal_action_ids(), where
            assert fast.current_player() == plain.current_player(), where
            action = rng.choice(ids)
            fast.apply(action)
            plain.apply(action)
        assert lines(fast.log) == lines(plain.log), where
    return steps


REWRITES = {"partition", "memo", "keyed", "once", "inv"}


def test_cortes_uses_the_rewrites() -> None:
    """Cortés's rules hold these: a comprehension over one side's pieces (6.2's
    stacking, the library's ``own_units``) split by side, 10.8's distance to Tepeyac
    kept per place, a move's cost (7.7, 7.16: fixed by the unit and the hexes and
    hexside) kept with the rules it cites, and the attack option's list of land units
    found once a listing."""
    found = opcodes(both("cortes", "veteran")[0])
    for rewrite in ("partition", "memo", "keyed", "once"):
        assert found.get(rewrite, 0) > 0, rewrite
    assert not REWRITES & set(opcodes(both("cortes", "veteran")[1]))


def test_grands_strateges_uses_inv() -> None:
    """Grands Stratèges's scenario forces (read for each piece waiting to enter) are
    found once each time the comprehension over the pieces runs."""
    assert opcodes(both("grands_strateges")[0]).get("inv", 0) > 0


@pytest.mark.parametrize("seed", range(3))
def test_cortes_games_are_the_same_without_rewrites(seed: int) -> None:
    """Cortés, historical set-up, veteran: whole games to the tenth turn."""
    assert play_both("cortes", seed, 4000, "veteran", setup="historical",
                     turn_limit=10) > 100


def test_grands_strateges_is_the_same_without_rewrites() -> None:
    """Grands Stratèges scenario I: the first 600 steps of two games."""
    for seed in range(2):
        assert play_both("grands_strateges", seed, 600) > 100


@pytest.mark.parametrize(("stem", "path"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixtures_are_the_same_without_rewrites(stem: str, path: str) -> None:
    """Every fixture rulebook: five whole games each."""
    for seed in range(5):
        assert play_both(path, seed, 2000, setup="standard") < 2000, f"{stem} seed {seed}"
