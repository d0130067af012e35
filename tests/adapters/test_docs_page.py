"""The examples of docs/adapters.md run: each plays a whole game through its library (4.1)."""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest
from extras import need

PAGE = Path(__file__).resolve().parents[2] / "docs" / "adapters.md"
BLOCKS = re.findall(r"```python\n(.*?)```", PAGE.read_text(encoding="utf-8"), re.S)


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("block", BLOCKS, ids=["pettingzoo", "openspiel"])
def test_the_pages_examples_play_a_game_to_its_end(block: str) -> None:
    need(*(("pettingzoo", "pettingzoo") if "pettingzoo" in block else ("pyspiel", "openspiel")))
    printed = io.StringIO()
    with contextlib.redirect_stdout(printed):
        exec(compile(block, str(PAGE), "exec"), {})
    text = printed.getvalue()
    # The PettingZoo example ends at the turn limit; the OpenSpiel one with a winner.
    assert "turn limit (1) was reached" in text or text.startswith("[-1.0, 1.0]"), text
