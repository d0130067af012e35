"""The native VM of the core IR against the reference interpreter (issue 48, item 3).

Seeded random games are played on both executors of one lowered rulebook
(``cortes_rules.core.run`` is the specification, ``cortes_rules.core.vm`` the
native VM) by ``vm_games.play``: at each step a uniformly random legal action
drawn by ``random.Random(seed)``, or at a chance node the outcome each samples
with its own generator (they must draw the same). At every step the legal
actions, the chance flag and outcomes, the generator, the player to act, the
log lines (turn, phase, text, rules) and the refusal of an illegal action must
be the same, and at the end the outcome. tests/core/test_vm_soak.py plays many
more such games (``--slow``).
"""

from __future__ import annotations

import random
from typing import Any

import pytest

import cortes_rules
from cortes_rules.core.vm import layout

_vm = pytest.importorskip("cortes_rules._vm", reason="the native VM was not built")
from vm_games import CORE, FIXTURES, ROOT, executors, play  # noqa: E402  (tests/core/vm_games.py)

# Whole games: the sequence of play (4.2) and every rule it reaches.
pytestmark = pytest.mark.rule("4.2")


def test_layout_matches_the_extension() -> None:
    """The compiler's opcode and tag tables are the extension's (src_ext/vm_layout.pxd)."""
    abi, expressions, instructions, tags = _vm.version()
    assert abi >= 1
    assert expressions == len(layout.EXPRESSION_OPS)
    assert instructions == len(layout.INSTRUCTIONS)
    assert tags == len(layout.TAGS) == 16


@pytest.mark.parametrize(("stem", "path"), FIXTURES, ids=[f[0] for f in FIXTURES])
def test_fixture_games_match(stem: str, path: str) -> None:
    """Every fixture under tests/fixtures/core and minimal.rules, ten whole games each."""
    for seed in range(10):
        assert play(path, "standard", seed, 2000) < 2000, f"{stem} seed {seed} did not end"


@pytest.mark.parametrize("preset", [None, "beginner", "veteran"])
def test_cortes_opening_matches(preset: str | None) -> None:
    """Cortés, historical set-up: the first 300 steps of one game per preset."""
    assert play("cortes", "historical", 1, 300, options=preset) > 0


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


def test_no_log_is_kept_when_none_is_wanted() -> None:
    """``log=False`` (rollouts) plays the same game and keeps no line."""
    _, vm = executors(str(CORE / "cards.rules"), None, None)
    a = vm.new_game(seed=3, setup="standard")
    b = vm.new_game(seed=3, setup="standard", log=False)
    pick = random.Random(3)
    while not a.is_terminal():
        assert a.legal_action_ids() == b.legal_action_ids()
        if a.is_chance_node():
            assert a.apply_chance() == b.apply_chance()
        else:
            choice = pick.choice(a.legal_action_ids())
            a.apply(choice)
            b.apply(choice)
    assert b.is_terminal() and b.log == [] and a.log
    assert b.outcome.winners == a.outcome.winners


def test_an_illegal_action_is_refused() -> None:
    """An id the decision does not offer is refused with the reference's error."""
    _, vm = executors(str(CORE / "cards.rules"), None, None)
    state = vm.new_game(seed=1, setup="standard")
    while state.is_chance_node():
        state.apply_chance()
    legal = set(state.legal_action_ids())
    wrong = next(n for n in range(10_000) if n not in legal)
    with pytest.raises(Exception, match="not legal here"):
        state.apply(wrong)
    assert set(state.legal_action_ids()) == legal


@pytest.mark.parametrize(("name", "options", "scenario", "new_game"), [
    ("cortes", "veteran", None, {"setup": "historical", "turn_limit": 6}),
    ("grands_strateges", "all", "I", {}),
])
def test_random_playouts_are_the_engines(name: str, options: str, scenario: str | None,
                                         new_game: dict[str, Any]) -> None:
    """A playout on the VM picks what the engine's ``random_playout`` picks (the i-th
    ascending legal id, i drawn from the seed; chance by the game's dice): the same
    number of actions and the same outcome, for three seeds."""
    kw: dict[str, Any] = {"options": options}
    if scenario:
        kw["scenario"] = scenario
    book = cortes_rules.load(name, **kw)
    _, vm = executors(name, options, scenario)
    for seed in range(3):
        engine = book.new_game(seed=seed, **new_game)
        ours = vm.new_game(seed=seed, log=False, **new_game)
        assert ours.random_playout(seed) == engine.random_playout(seed)
        want = engine.outcome()
        assert (ours.outcome.winners, ours.outcome.reason) == (want.winners, want.reason)


def test_a_clone_is_independent() -> None:
    """``clone()`` copies the whole state: the copy plays on as the original would, and
    playing it leaves the original where it was."""
    _, vm = executors("grands_strateges", "all", "I")
    state = vm.new_game(seed=4)
    state.random_playout(4, 40)
    before = (state.legal_action_ids(), state.current_player(), len(state.log))
    copy = state.clone()
    assert (copy.legal_action_ids(), copy.current_player(), len(copy.log)) == before
    twin = state.clone()
    assert copy.random_playout(9) == twin.random_playout(9)
    assert copy.outcome.winners == twin.outcome.winners
    assert (state.legal_action_ids(), state.current_player(), len(state.log)) == before


@pytest.mark.parametrize(("name", "options", "scenario", "new_game", "steps"), [
    ("cortes", "veteran", None, {"setup": "historical", "turn_limit": 4}, 600),
    ("grands_strateges", "all", "I", {}, 400),
])
def test_a_kept_listing_is_the_listing_made_anew(name: str, options: str,
                                                 scenario: str | None,
                                                 new_game: dict[str, Any], steps: int) -> None:
    """The groups a decision takes from the listing before it (none of the cells they read
    written since) give what listing the decision anew gives: at every decision of a
    random game, the legal ids equal those of a clone, which lists from nothing."""
    _, vm = executors(name, options, scenario)
    state = vm.new_game(seed=5, log=False, **new_game)
    pick = random.Random(5)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
            continue
        ids = state.legal_action_ids()
        assert ids == state.clone().legal_action_ids()
        state.apply(pick.choice(ids))
    assert state.groups_reused > 0


def test_a_construct_the_vm_cannot_run_is_refused_at_load() -> None:
    """An operator the VM has no code for is refused when the rulebook is compiled, with
    the rule that states it (VMUnsupported, a CortesRulesError), never met in play."""
    import attrs

    from cortes_rules.core import ir
    from cortes_rules.core.vm.compile import VMUnsupported, compile_game
    from cortes_rules.dsl.to_core import to_core
    from cortes_rules.errors import CortesRulesError

    game = to_core(cortes_rules.load(str(ROOT / "tests/fixtures/good/minimal.rules"))
                   ._machine.program)
    at = next(i for i, ins in enumerate(game.main.code) if ins.args)
    strange = ir.Op("no_such_operator", (), "9.9")
    code = list(game.main.code)
    code[at] = attrs.evolve(code[at], args=(strange, *code[at].args[1:]))
    broken = attrs.evolve(game, main=attrs.evolve(game.main, code=tuple(code)))
    with pytest.raises(VMUnsupported, match=r"no_such_operator.*\[rule 9\.9\]") as raised:
        compile_game(broken)
    assert isinstance(raised.value, CortesRulesError)
