"""MkDocs hook: generate the interpretations pages from the registries.

Declared under ``hooks:`` in ``mkdocs.yml``. When the site is built, each
shipped rulebook is loaded and its registry (``rulebook/NAME/
interpretations.rules``) written out as a page, so the pages can never
disagree with the entries; the pages are not kept in git.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

from mkdocs.structure.files import File, Files

ROOT = Path(__file__).resolve().parents[1]
PAGES = {"interpretations.md": "cortes",
         "interpretations-grands-strateges.md": "grands_strateges"}


def page_markdown(rulebook: str = "cortes") -> str:
    """A page's Markdown, from the registry of a shipped rulebook."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))
    import cortes_rules
    from cortes_rules import registry

    book = cortes_rules.load(rulebook)
    return registry.markdown(book, source=f" (`rulebook/{rulebook}/interpretations.rules`)")


def on_files(files: Files, config: Any) -> Files:
    for page, rulebook in PAGES.items():
        old = files.get_file_from_path(page)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, page, content=page_markdown(rulebook)))
    return files
