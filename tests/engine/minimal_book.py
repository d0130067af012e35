"""The minimal test rulebook with one more clause appended, loaded from a
temporary file (for the engine tests of one language construct)."""

from __future__ import annotations

from pathlib import Path

import cortes_rules

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


def minimal_with(tmp_path: Path, clause: str) -> cortes_rules.Rulebook:
    """Load ``minimal.rules`` followed by ``clause``."""
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + clause, encoding="utf-8")
    return cortes_rules.load(path)
