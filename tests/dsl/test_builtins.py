"""The checker's tables of built-in names agree with the interpreter's.

The checker (:mod:`cortes_rules.dsl.scope`) knows the built-in functions,
names and attributes by table; the interpreter (:mod:`cortes_rules.engine.compile`)
knows them by code. These tests compile and evaluate every built-in the
checker accepts (and read the interpreter's source for comprehensions), so
that a built-in added to one and not to the other fails here rather than as
an "unknown function" in a rulebook, or an error at run time.
"""

from __future__ import annotations

import ast
import inspect

import pytest

from cortes_rules import CortesRulesError
from cortes_rules.dsl import scope
from cortes_rules.dsl.parse import parse_expression
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
def test_builtin_functions_are_the_interpreters(book) -> None:
    # Behavioural: the reference compiler (which the fast path falls back
    # to) compiles a call to every function the checker accepts, and
    # refuses one it does not know.
    compiler = book._machine.compiler
    on_hooks = {"rules", "failing", "applied"}
    unknown = []
    for name in sorted(scope.BUILTIN_FUNCTIONS):
        argument = "move_cost" if name in on_hooks else "1"
        try:
            compiler.expr(parse_expression(f"{name}({argument})"), None)
        except CortesRulesError as error:
            if "unknown function" in str(error):
                unknown.append(name)
    assert unknown == []
    with pytest.raises(CortesRulesError, match="unknown function"):
        compiler.expr(parse_expression("frobnicate(1)"), None)


@pytest.mark.rule("8.9")
def test_comprehensions_are_the_interpreters() -> None:
    comprehension = _method("_comprehension")
    known = {k for k in _dict_keys(comprehension, "reducers")} | _names_compared_with(
        comprehension, "name")
    assert set(scope.COMPREHENSIONS) == known


@pytest.mark.rule("8.9")
def test_builtin_names_and_attributes_are_the_interpreters(book) -> None:
    assert scope.BUILTIN_NAMES == {"players", "pieces", "hexes", "areas", "zones", "turn",
                                   "phase"}
    state = book.new_game()
    for name in scope.BUILTIN_NAMES:
        state.evaluate(name)   # each evaluates in a game
    # Each built-in attribute is read from a piece, a place or a player;
    # a made-up one is refused by all three.
    owners = {"u": "S1", "h": "1110", "p": "spanish"}

    def readable(attribute: str) -> bool:
        for var, ident in owners.items():
            try:
                state.evaluate(f"{var}.{attribute}", **{var: ident})
                return True
            except CortesRulesError as error:
                if "no attribute" not in str(error):
                    return True
        return False

    assert [a for a in sorted(scope.BUILTIN_ATTRIBUTES) if not readable(a)] == []
    assert not readable("frobnicate")
