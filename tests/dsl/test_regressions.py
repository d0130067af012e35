"""Front-end defects found in review, pinned so they stay fixed."""

from __future__ import annotations

from pathlib import Path

import pytest
from dsl_helpers import one_rule, write

from cortes_rules.dsl import render
from cortes_rules.dsl.parse import parse_expression
from cortes_rules.loader import check_path

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


def with_rule(tmp_path: Path, clause: str) -> Path:
    return write(tmp_path, "book.rules", MINIMAL.read_text() + "\n" + clause + "\n")


@pytest.mark.rule("2.3")
def test_render_names_strings_none_lists_and_conditionals() -> None:
    # The interpreter renders a forbid clause's condition to explain a refusal; this
    # raised TypeError for strings, none, lists, tuples and if-then-else.
    text = 'if x == "left" then [a, none] else (b,)'
    assert render.expr(parse_expression(text)) == text


@pytest.mark.rule("1.2")
def test_a_class_without_a_side_is_no_unknown_side(tmp_path: Path) -> None:
    # The parser gives such a class the side "None"; the checker used to report it.
    assert check_path(with_rule(tmp_path, one_rule("1.3", 'class marker "Marker"'))) == []


@pytest.mark.rule("2.5")
def test_one_function_name_is_declared_once(tmp_path: Path) -> None:
    clause = one_rule("2.5", "function strength() = 1\n  function strength() = 2")
    [diagnostic] = check_path(with_rule(tmp_path, clause))
    assert diagnostic.message.startswith("function 'strength' is declared twice")
    assert diagnostic.rule == "2.5"
