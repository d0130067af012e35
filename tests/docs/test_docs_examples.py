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


@pytest.mark.rule("8.11")
def test_every_interpretation_is_listed_in_the_docs(book) -> None:  # type: ignore[no-untyped-def]
    page = (DOCS / "interpretations.md").read_text(encoding="utf-8")
    stated = [(rule.number, text) for rule in book.program.all_rules
              for text in rule.interpretations]
    assert len(stated) >= 8
    missing = [f"{number}: {text}" for number, text in stated if text not in page]
    assert not missing, "docs/interpretations.md lacks:\n" + "\n".join(missing)
