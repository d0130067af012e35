"""The Python sessions shown in the docs run as written (doctest)."""

from __future__ import annotations

import doctest
import re
from pathlib import Path

import pytest

DOCS = Path(__file__).resolve().parents[2] / "docs"
PAGES = sorted(p for p in DOCS.glob("*.md") if "```pycon" in p.read_text(encoding="utf-8"))


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("page", PAGES, ids=[p.name for p in PAGES])
def test_pycon_sessions_in_docs_run(page: Path) -> None:
    text = page.read_text(encoding="utf-8")
    blocks = re.findall(r"```pycon\n(.*?)```", text, flags=re.S)
    source = "\n".join(b if b.endswith("\n\n") else b + "\n" for b in blocks)
    test = doctest.DocTestParser().get_doctest(source, {}, page.name, str(page), 0)
    runner = doctest.DocTestRunner(optionflags=doctest.ELLIPSIS)
    output: list[str] = []
    runner.run(test, out=output.append)
    assert runner.failures == 0, "".join(output)
    assert runner.tries > 10
