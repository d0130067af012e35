"""Front-end defects found in review, pinned so they stay fixed."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortes_rules.loader import check_path

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


def with_rule(tmp_path: Path, clause: str) -> Path:
    path = tmp_path / "book.rules"
    path.write_text(MINIMAL.read_text() + "\n" + clause + "\n")
    return path


@pytest.mark.rule("11.4")
def test_optional_rules_are_checked_even_when_switched_off(tmp_path: Path) -> None:
    clause = ('rule 11.4 "Cavalry charges" optional {\n  summary "x"\n'
              '  forbid move when to has swamp\n}')
    diagnostics = check_path(with_rule(tmp_path, clause))
    assert [d.rule for d in diagnostics] == ["11.4"]
    assert "unknown terrain 'swamp'" in diagnostics[0].message


@pytest.mark.rule("7.13")
def test_is_belongs_to_units_and_has_to_hexes(tmp_path: Path) -> None:
    clause = ('rule 7.13 "Chinampa city" {\n  summary "x"\n'
              '  forbid move when unit has cavalry\n  forbid move when to is clear\n}')
    diagnostics = check_path(with_rule(tmp_path, clause))
    assert len(diagnostics) == 2
    assert "write 'is' after a unit" in diagnostics[0].message
    assert "write 'has' after a hex" in diagnostics[1].message


@pytest.mark.rule("8.9")
def test_one_name_may_be_defined_once_per_context(tmp_path: Path) -> None:
    clause = ('rule 8.9 "Odds" {\n  summary "x"\n  define combat strength = 1\n'
              '  define loss strength = 2\n}')
    assert check_path(with_rule(tmp_path, clause)) == []
    twice = clause.replace("define loss", "define combat")
    [diagnostic] = check_path(with_rule(tmp_path, twice))
    assert "defined twice" in diagnostic.message
