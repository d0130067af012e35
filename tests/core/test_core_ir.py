"""The core IR (issue 48, item 1): lowering is total, every node cites its rule,
slots and jumps stay in range, and the printed form is deterministic.

Lowered: both shipped rulebooks under each preset, every Grands Stratèges
scenario with every option, and every rulebook fixture of tests/ (the
fixtures of ``tests/fixtures/bad`` are refused by the checker before lowering).
"""

from __future__ import annotations

import ast
import functools
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import attrs
import pytest

from cli_run import run_cli
from cortes_rules.core import ir as core
from cortes_rules.core.printer import game_text, procedure_text
from cortes_rules.dsl import ir
from cortes_rules.dsl.to_core import to_core
from cortes_rules.errors import UnknownNameError
from cortes_rules.loader import compile_rulebook

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = str(ROOT / "tests/fixtures/good/minimal.rules")
GS_SCENARIOS = ("I", "II", "III", "IV", "V", "VI", "VII", "VIII", "IXa", "IXb", "X")
FIXTURES = sorted(str(p) for p in (ROOT / "tests").rglob("*.rules")
                  if "bad" not in p.parts and p.name != "examples_map.rules")
# Rules no numbered clause states, as core/ir.py lists them.
MARKERS = ("map:", "counters:", "setup:", "core:")

LOADS: list[tuple[str, str, Any, str | None]] = [
    ("cortes", "cortes", (), None),
    ("cortes-beginner", "cortes", "beginner", None),
    ("cortes-veteran", "cortes", "veteran", None),
    *((f"gs-{s}", "grands_strateges", "all", s) for s in GS_SCENARIOS),
    ("gs-basic", "grands_strateges", "basic", None),
    *((Path(f).stem, f, (), None) for f in FIXTURES),
]


@functools.cache
def lowered(name: str, options: Any = (), scenario: str | None = None,
            replace: tuple[tuple[str, str], ...] = ()) -> tuple[ir.Program, core.Game]:
    program, _ = compile_rulebook(name, options=options, scenario=scenario,
                                  replace=dict(replace))
    return program, to_core(program)


def nodes(node: Any) -> Iterator[Any]:
    """Every core IR node under ``node``, itself first (values are no nodes)."""
    stack = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, (tuple, list, frozenset)):
            stack.extend(current)
        elif attrs.has(type(current)) and not isinstance(current, core.Keyed):
            yield current
            stack.extend(getattr(current, f.name) for f in attrs.fields(type(current)))


def slots_in(node: Any) -> Iterator[int]:
    for n in nodes(node):
        if isinstance(n, core.Slot):
            yield n.index
        elif isinstance(n, core.Each):
            yield n.slot


@pytest.mark.rule("4.2")
@pytest.mark.parametrize(("label", "name", "options", "scenario"), LOADS,
                         ids=[load[0] for load in LOADS])
def test_lowering_is_total_and_every_node_cites_a_rule_in_play(
        label: str, name: str, options: Any, scenario: str | None) -> None:
    program, game = lowered(name, options, scenario)
    numbers = set(program.rules)
    bad = {n.rule for n in nodes(game)
           if not n.rule or (n.rule not in numbers and not n.rule.startswith(MARKERS))}
    assert not bad, f"{label}: nodes citing no rule in play: {sorted(bad)[:5]}"
    stated = {p.name for p in program.of(ir.Procedure)}
    assert {p.name for p in game.procedures} == stated
    assert all(p.code for p in (game.main, *game.procedures) if p.name != "turn sequence"
               or game.phases)


@pytest.mark.rule("II.1", rulebook="grands_strateges")
def test_a_replacement_map_is_lowered_too() -> None:
    replace = (("map", str(ROOT / "tests/rules/grands_strateges/examples_map.rules")),)
    _, game = lowered("grands_strateges", "all", None, replace)
    assert sum(p.kind == "hex" for p in game.places) > 100
    assert all(e.a < e.b < len(game.places) for e in game.edges)


@pytest.mark.rule("4.2")
@pytest.mark.parametrize(("label", "name", "options", "scenario"), LOADS,
                         ids=[load[0] for load in LOADS])
def test_slots_and_jump_targets_are_in_range(
        label: str, name: str, options: Any, scenario: str | None) -> None:
    _, game = lowered(name, options, scenario)
    for proc in (game.main, *game.procedures):
        end = len(proc.code)
        assert all(0 <= s < proc.frame for s in slots_in(proc.code)), proc.name
        for at, ins in enumerate(proc.code):
            where = f"{label}: {proc.name} {at} {ins.op}"
            if ins.op in ("jump", "jumpifnot", "fornext", "choose", "sealed", "dispatch",
                          "endturn"):
                assert 0 <= ins.target <= end, where
            if ins.op in ("let", "forinit", "fornext", "roll", "draw", "sealed", "dispatch"):
                assert 0 <= ins.a < proc.frame, where
            if ins.op in ("fornext", "sealed", "dispatch"):
                assert 0 <= ins.b < proc.frame, where
            if ins.op == "call":
                assert 0 <= ins.a < len(game.procedures), where
                assert len(ins.args) <= len(game.procedures[ins.a].params), where
            for option in ins.options:
                assert at < option.body < end, where
                assert all(0 <= s < proc.frame for s, _ in (*option.params, *option.bindings))
    framed = (*game.attributes, *game.values, *game.clauses, *game.derived, *game.hides,
              *game.endings, *game.requirements,
              *(c for h in game.hooks for c in h.entries))
    for clause in framed:
        assert all(0 <= s < clause.frame for s in slots_in(clause)), clause.rule


@pytest.mark.rule("2.3", rulebook="minimal_race")
def test_a_clause_reads_the_consulting_frame_by_name() -> None:
    _, game = lowered(MINIMAL)
    (forbid, permit) = game.clauses
    assert forbid.when == core.Op("is", (core.Ctx("to", None, "2.3"),), "2.3", "water")
    assert permit.despite == "2.3"
    assert [a.name for a in game.actions] == ["walk", "rest"]


GOLDEN_WALK_OR_REST = """\
procedure walk_or_rest(p)  ; rule 2.2
  slots %0 p, %1 runner, %2 to, %3 from, %4 each:u
  0  choose by %0 end 9  ; rule 2.2
       option walk(%1 in function[runners_of](list(%4 in all:pieces where ((%4.side == %0) and \
(%4.place != none)) yield %4)), %2 in neighbours(%1.place)) with %3 = %1.place -> 1  ; rule 2.2
       option rest() -> 7  ; rule 2.2
  1  put %1 into %2  ; rule 2.2
  2  set %1.walked = (%1.walked + 1)  ; rule 2.2
  3  log '{%1} walks from {%3} to {%2}' cite '2.2'  ; rule 2.2
  4  jumpifnot (%2 in hook[goal_areas]()) 6  ; rule 2.2
  5  finish winner %0 '{%0} reaches the goal'  ; rule 2.2
  6  jump 9  ; rule 2.2
  7  log '{%0} rests' cite '2.2'  ; rule 2.2
  8  jump 9  ; rule 2.2"""


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_golden_print_of_the_minimal_race_procedure() -> None:
    _, game = lowered(MINIMAL)
    proc = game.procedure("walk_or_rest")
    assert "\n".join(procedure_text(proc, game)) == GOLDEN_WALK_OR_REST
    # The function runners_of (rule 1.2) is expanded where it is used, citing its rule.
    (option, _) = proc.code[0].options
    domain = option.params[0][1]
    assert isinstance(domain, core.Op) and (domain.op, domain.key, domain.rule) == (
        "function", "runners_of", "1.2")


@pytest.mark.rule("2.1", rulebook="minimal_race")
def test_the_turn_sequence_is_a_procedure() -> None:
    _, game = lowered(MINIMAL)
    assert [i.op for i in game.main.code] == ["phase", "forinit", "fornext", "call", "jump",
                                              "endturn"]
    assert game.main.code[-1].target == 0


@pytest.mark.rule("6.2", "6.3", "6.4")
def test_the_print_names_what_a_consulted_clause_reads() -> None:
    # broken_limits(hex, side, units) asks the stacking_limit hook, whose
    # contributions read its parameters by name: the print names them.
    text = game_text(lowered("cortes")[1])
    assert "function[broken_limits](hook_failing[stacking_limit]() with hex = " in text
    assert ", side = " in text and ", units = " in text


@pytest.mark.rule("4.2")
def test_printing_is_deterministic() -> None:
    first = game_text(to_core(compile_rulebook("cortes")[0]))
    second = game_text(to_core(compile_rulebook("cortes")[0]))
    assert first == second
    assert "procedure movement(" in first


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_the_command_prints_one_procedure(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, _ = run_cli(capsys, "ir", MINIMAL, "--procedure", "walk_or_rest")
    assert code == 0
    assert out.rstrip("\n") == GOLDEN_WALK_OR_REST
    code, whole, _ = run_cli(capsys, "ir", MINIMAL)
    assert code == 0 and "players (2)" in whole and GOLDEN_WALK_OR_REST in whole


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_an_unknown_procedure_is_named_with_the_nearest(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, game = lowered(MINIMAL)
    with pytest.raises(UnknownNameError, match="did you mean 'walk_or_rest'"):
        game.procedure("walk_or_rst")
    code, _, err = run_cli(capsys, "ir", MINIMAL, "--procedure", "walk_or_rst")
    assert code == 1 and len(err.strip().splitlines()) == 1 and "walk_or_rest" in err
    code, _, err = run_cli(capsys, "ir", "cortse")
    assert code == 1 and "did you mean 'cortes'" in err and "Traceback" not in err


@pytest.mark.rule("4.2")
def test_the_core_ir_imports_nothing_of_the_engine() -> None:
    for module in ("ir.py", "printer.py"):
        tree = ast.parse((ROOT / "cortes_rules/core" / module).read_text(encoding="utf-8"))
        imported = [n.module or "" for n in ast.walk(tree) if isinstance(n, ast.ImportFrom)]
        imported += [a.name for n in ast.walk(tree) if isinstance(n, ast.Import)
                     for a in n.names]
        assert not [m for m in imported if "engine" in m or m.startswith("..dsl")], module
