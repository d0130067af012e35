"""Where the grammar and the shipped rulebooks are.

In an installed wheel they sit inside the package (``cortes_rules/grammar``,
``cortes_rules/rulebook``); in a source checkout they sit at the top level
of the repository, next to the package.
"""

from __future__ import annotations

from pathlib import Path

_PACKAGE = Path(__file__).resolve().parent


def data_dir(name: str) -> Path:
    """The folder ``grammar`` or ``rulebook``, installed or in the checkout."""
    for candidate in (_PACKAGE / name, _PACKAGE.parent / name):
        if candidate.is_dir() and any(candidate.iterdir()):
            return candidate
    raise FileNotFoundError(f"cortes_rules: cannot find the {name!r} folder near {_PACKAGE}")


def grammar_path() -> Path:
    """The rules-language grammar file."""
    return data_dir("grammar") / "rules.lark"
