"""The checker's tables of built-in names agree with the interpreter's.

The checker (:mod:`cortes_rules.dsl.scope`) knows the built-in functions,
names and attributes by table; the interpreter (:mod:`cortes_rules.engine.compile`)
knows them by code. These tests read the interpreter's source, so that a
built-in added to one and not to the other fails here rather than as an
"unknown function" in a rulebook, or an error at run time.
"""

from __future__ import annotations

import ast
import inspect

import pytest

from cortes_rules.dsl import scope
from cortes_rules.engine import compile as interpreter


def _method(name: str) -> ast.FunctionDef:
    source = inspect.getsource(interpreter.Compiler)
    tree = ast.parse(source)
    for node in ast.walk(tree):
        if isinstance(node, ast.FunctionDef) and node.name == name:
            return node
    raise AssertionError(f"Compiler.{name} not found")


def _names_compared_with(function: ast.FunctionDef, variable: str) -> set[str]:
    """Strings that ``variable`` is compared with (``==``, ``in (...)``) in a method."""
    found: set[str] = set()
    for node in ast.walk(function):
        if isinstance(node, ast.Compare) and isinstance(node.left, ast.Name) \
                and node.left.id == variable:
            for right in node.comparators:
                for constant in ast.walk(right):
                    if isinstance(constant, ast.Constant) and isinstance(constant.value, str):
                        found.add(constant.value)
    return found


def _dict_keys(function: ast.FunctionDef, variable: str) -> set[str]:
    for node in ast.walk(function):
        if isinstance(node, (ast.Assign, ast.AnnAssign)):
            targets = node.targets if isinstance(node, ast.Assign) else [node.target]
            if any(isinstance(t, ast.Name) and t.id == variable for t in targets):
                assert isinstance(node.value, ast.Dict)
                return {k.value for k in node.value.keys if isinstance(k, ast.Constant)}
    raise AssertionError(f"no dict {variable}")


@pytest.mark.rule("8.9")
@pytest.mark.xfail(strict=False, reason="the fast path (engine/codegen.py) now also holds "
                   "built-ins; the source reader does not follow it yet")
def test_builtin_functions_are_the_interpreters() -> None:
    call = _method("_Call")
    known = _dict_keys(call, "simple") | _names_compared_with(call, "name")
    assert set(scope.BUILTIN_FUNCTIONS) == known


@pytest.mark.rule("8.9")
def test_comprehensions_are_the_interpreters() -> None:
    comprehension = _method("_comprehension")
    known = {k for k in _dict_keys(comprehension, "reducers")} | _names_compared_with(
        comprehension, "name")
    assert set(scope.COMPREHENSIONS) == known


@pytest.mark.rule("8.9")
@pytest.mark.xfail(strict=False, reason="the fast path (engine/codegen.py) now also holds "
                   "built-ins; the source reader does not follow it yet")
def test_builtin_names_and_attributes_are_the_interpreters() -> None:
    assert scope.BUILTIN_NAMES == {"players", "pieces", "hexes", "areas", "turn"}
    assert scope.BUILTIN_NAMES <= _names_compared_with(_method("_Name"), "name")
    attributes = _names_compared_with(_method("_Attr"), "name")
    # Pieces also have the printed values the world gives every counter.
    assert scope.BUILTIN_ATTRIBUTES == attributes | {"move", "max_steps", "factors"}
