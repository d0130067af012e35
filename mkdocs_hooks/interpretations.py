"""MkDocs hook: generate ``interpretations.md`` from the interpretations registry.

Declared under ``hooks:`` in ``mkdocs.yml``. When the site is built, the
shipped rulebook is loaded and its registry (``rulebook/cortes/
interpretations.rules``) written out as the page, so the page can never
disagree with the entries; the page is not kept in git.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PAGE = "interpretations.md"
RULEBOOK = "cortes"


def page_markdown() -> str:
    """The page's Markdown, from the registry of the shipped rulebook."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import cortes_rules
    from cortes_rules import registry

    book = cortes_rules.load(RULEBOOK)
    return registry.markdown(book, source=f" (`rulebook/{RULEBOOK}/interpretations.rules`)")


def on_files(files: Files, config: Any) -> Files:
    old = files.get_file_from_path(PAGE)
    if old is not None:
        files.remove(old)
    files.append(File.generated(config, PAGE, content=page_markdown()))
    return files
