"""Generated code looks up in a procedure's variables only the names something binds.

Names are scoped dynamically: an expression reads a name from the variables
in scope before the rulebook's declarations. Generated code reads a name from
``env`` only when something in the rulebook can bind it
(``engine/bound_names.py``); any other name goes straight to its declaration.
These tests hold that set to what games really bind, and check that a
variable still shadows a declaration of the same name.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.engine.bound_names import ENGINE_NAMES, names_bound, procedure_variables
from cortes_rules.dsl import ir
from cortes_rules.dsl.parse import parse_expression
from minimal_book import MINIMAL
from tests.backends.differential import random_positions

CARDS = Path(__file__).resolve().parents[1] / "fixtures" / "core" / "cards.rules"


def _variables_seen(book: cortes_rules.Rulebook, seed: int, steps: int, **new_game) -> set[str]:
    """Every variable any frame holds at the decisions and chance events of a seeded game."""
    seen: set[str] = set()
    for _, state, _ in random_positions(book, seed, steps, new_game):
        for _proc, _pc, env in state.stack:
            seen.update(name for name in env if not name.startswith("$"))
    return seen


@pytest.mark.rule("4.2")
def test_every_variable_of_a_cortes_game_is_a_bound_name():
    book = cortes_rules.load("cortes", options="veteran")
    bound = book._machine.fast.env_names
    seen = _variables_seen(book, 3, 1500, setup="historical")
    assert {"unit", "to", "cost", "total"} <= seen
    assert seen <= bound, sorted(seen - bound)


@pytest.mark.rule("II.1", rulebook="grands_strateges")
def test_every_variable_of_a_grands_strateges_game_is_a_bound_name():
    book = cortes_rules.load("grands_strateges", scenario="III")
    bound = book._machine.fast.env_names
    seen = _variables_seen(book, 1, 300)
    assert {"unit", "to", "side"} <= seen
    assert seen <= bound, sorted(seen - bound)


@pytest.mark.rule("3.2", rulebook="high_card")
def test_draws_rolls_functions_comprehensions_and_the_engine_bind_names():
    program = cortes_rules.load(CARDS)._machine.program
    bound = names_bound(program)
    assert ENGINE_NAMES <= bound
    assert {"c", "d", "p", "q"} <= bound              # a draw's card, procedure parameters
    assert "c" in procedure_variables(program)        # the clause compiler sees the draw's too
    cortes = cortes_rules.load("cortes")._machine
    assert "total" in cortes.fast.env_names           # roll total = first(combat_dice)
    assert "total" in procedure_variables(cortes.program)
    assert {"hex", "units"} <= cortes.fast.env_names  # broken_limits(hex, side, units)
    assert "combat_table" not in cortes.fast.env_names   # a hook nothing binds


@pytest.mark.rule("7.1")
@pytest.mark.parametrize(("name", "item"), [("cortes", "k"), ("grands_strateges", "v")])
def test_procedure_variables_are_the_names_bound_that_a_procedure_binds(name, item):
    # One walk gives both sets: a procedure's variables are names bound, and a
    # comprehension's item that no procedure binds (`k` of `... for k in
    # subsets(...)`) or a function's parameter is bound without being one.
    program = cortes_rules.load(name)._machine.program
    variables, bound = procedure_variables(program), names_bound(program)
    assert variables <= bound
    assert {"side", "unit", "to"} <= variables
    assert item in bound and item not in variables
    functions = {p for f in program.of(ir.FunctionDecl) for p in f.params}
    assert functions <= bound


def _race(tmp_path: Path, old: str, new: str) -> cortes_rules.Rulebook:
    text = MINIMAL.read_text(encoding="utf-8")
    assert old in text
    path = tmp_path / "race.rules"
    path.write_text(text.replace(old, new, 1), encoding="utf-8")
    return cortes_rules.load(path)


def _walk(book: cortes_rules.Rulebook, *actions: str) -> cortes_rules.GameState:
    state = book.new_game(setup="standard")
    for action in actions:
        state.apply(action)
    return state


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_a_variable_still_hides_the_declaration_of_its_name(tmp_path):
    plain = cortes_rules.load(MINIMAL)
    assert "goal_areas" not in plain._machine.fast.env_names
    assert not _walk(plain, "walk R meadow").is_terminal()
    shadowed = _race(tmp_path, "        if to in goal_areas {",
                     "        let goal_areas = [meadow]\n        if to in goal_areas {")
    assert "goal_areas" in shadowed._machine.fast.env_names
    state = _walk(shadowed, "walk R meadow")
    assert state.is_terminal() and state.outcome().winners == ("red",)


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_a_name_nothing_binds_is_read_from_its_declaration():
    book = cortes_rules.load(MINIMAL)
    machine = book._machine
    state = book.new_game(setup="standard")
    world = machine.world
    node = parse_expression("to in goal_areas")
    generated = machine.fast_expr(node, "2.2")
    # No procedure, function or option binds goal_areas, so no evaluation's
    # variables ever hold it: generated code reads the hook without a lookup.
    odd = {"to": world.place["meadow"], "goal_areas": (world.place["meadow"],)}
    assert generated(state, odd) is False
    assert generated(state, {"to": world.place["goal"]}) is True
    bound = machine.fast.env_names
    assert "to" in bound and "goal_areas" not in bound


def _race_with_bonus(tmp_path: Path, bound: str) -> cortes_rules.Rulebook:
    """The minimal race where the walk's body reads a variable that an earlier part of
    the procedure binds only when ``bound`` holds."""
    text = MINIMAL.read_text(encoding="utf-8")
    text = text.replace("    choose by p {\n",
                        f"    if {bound} {{ let bonus = 1 }}\n    choose by p {{\n", 1)
    text = text.replace("set runner.walked = runner.walked + 1",
                        "set runner.walked = bonus", 1)
    path = tmp_path / f"race_{bound}.rules"
    path.write_text(text, encoding="utf-8")
    return cortes_rules.load(path)


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_a_region_missing_a_variable_it_needs_runs_as_its_instructions(tmp_path, monkeypatch):
    """Generated code reads a variable that no declaration stands behind without a test
    for its absence: the region (or expression) first checks that every such variable
    is there, and otherwise leaves the work to the instructions (or the reference),
    which fail as they always did."""
    state = _walk(_race_with_bonus(tmp_path, "true"), "walk R meadow")
    assert state.attribute("R", "walked") == 1

    def refusal(regions: bool) -> tuple[str, str | None]:
        book = _race_with_bonus(tmp_path, "false")
        book._machine.regions = regions
        state = book.new_game(setup="standard")
        before = state.to_notation()
        with pytest.raises(cortes_rules.RulesRuntimeError) as caught:
            state.apply("walk R meadow")
        assert state.to_notation() == before
        return str(caught.value), caught.value.rule

    with_regions, without = refusal(True), refusal(False)
    assert "bonus" in with_regions[0]
    assert with_regions == without


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_an_expression_missing_a_variable_fails_as_the_reference_does():
    book = cortes_rules.load(MINIMAL)
    state = book.new_game(setup="standard")
    node = parse_expression("to")
    generated = book._machine.fast_expr(node, "2.2")
    reference = book._machine.compiler.expr(node, "2.2")
    assert generated(state, {"to": book._machine.world.place["goal"]}).id == "goal"
    errors = []
    for fn in (generated, reference):
        with pytest.raises(cortes_rules.RulesRuntimeError) as caught:
            fn(state, {})
        errors.append(str(caught.value))
    assert errors[0] == errors[1] and "to" in errors[0]


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_the_bound_names_are_gathered_when_first_needed_not_at_load():
    """A cached load must stay cheap: the walk over the program runs with the first
    generated code, once."""
    book = cortes_rules.load(MINIMAL)
    fast = book._machine.fast
    assert "env_names" not in vars(fast)
    _walk(book, "walk R meadow")
    first = fast.env_names
    assert "env_names" in vars(fast) and fast.env_names is first
