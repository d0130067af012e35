"""The engine knows no fact of Grands Stratèges: the rulebook states it all.

Every name a Grands Stratèges clause declares (functions, values, hooks,
actions, attributes, procedures, tables, pools; 170 or so that Cortés does
not also declare) is looked for in the engine's Python source, as a name or a
string. None may appear there: removing ``rulebook/grands_strateges/`` leaves
an engine that has never heard of it.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.dsl import ir

PACKAGE = Path(cortes_rules.__file__).resolve().parent
DECLARATIONS = (ir.FunctionDecl, ir.ValueDecl, ir.HookDecl, ir.ActionDecl, ir.AttributeDecl,
                ir.Procedure, ir.TableDecl, ir.PoolDecl)
# Words the engine uses for its own ends that a clause also happens to use:
# the stamp offset of what places hold, Python's sys.exit, the core's
# built-in name for a map's zones, and the core IR's numbered registers of a
# procedure's frame.
COINCIDENCES = {"holds", "exit", "zones", "slot"}


def _declared(program: ir.Program) -> set[str]:
    return {d.name for kind in DECLARATIONS for d in program.of(kind)}


def _python_words() -> dict[str, str]:
    """Every identifier and string constant of the package, with one place it occurs."""
    words: dict[str, str] = {}
    for path in sorted(PACKAGE.rglob("*.py")):
        for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
            word = None
            if isinstance(node, ast.Name):
                word = node.id
            elif isinstance(node, ast.Constant) and isinstance(node.value, str):
                word = node.value
            elif isinstance(node, ast.Attribute):
                word = node.attr
            if word is not None:
                words.setdefault(word, f"{path.name}:{getattr(node, 'lineno', 0)}")
    return words


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_no_name_of_a_grands_strateges_clause_is_in_the_engine() -> None:
    names: set[str] = set()
    for scenario in ("I", "II", "IV", "V", "VI", "VII", "VIII", "IXa", "IXb", "X"):
        book = cortes_rules.load("grands_strateges", scenario=scenario, options="advanced")
        names |= _declared(book.program)
    cortes = cortes_rules.load("cortes", options="veteran")
    own = names - _declared(cortes.program) - COINCIDENCES
    assert len(own) > 150
    words = _python_words()
    assert {name: words[name] for name in sorted(own) if name in words} == {}
