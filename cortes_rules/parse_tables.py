"""The rules grammar's parse tables, built with the package so a first load need not.

lark needs about half a second to build the LALR tables of the rules grammar
and as much again for the grammar a library's forms extend. A load keeps
them in the load cache's folder (``cortes_rules.load_cache.grammar_tables()``),
so only a machine's very first load pays. The build pays instead:
``setup.py`` runs ``build()``, which parses every shipped rulebook and one
expression with an empty cache folder and keeps the table files written,
in ``cortes_rules/_tables/`` (``cortes_rules.load_cache.SHIPPED_TABLES``;
not in git: they are build output).

A load that finds no table in its cache folder (or runs with the cache off)
reads the shipped one. A table's file name hashes the grammar, the parser's
options and the versions of lark and Python, so a table built by another
lark or another Python is never read: it is built on first use and kept in
the cache folder. A user's rulebook that uses the shipped libraries' forms
uses the same tables.

Run ``python -m cortes_rules.parse_tables FOLDER`` to build them by hand.
"""

from __future__ import annotations

import os
import shutil
import sys
import tempfile
from pathlib import Path

def build(into: Path) -> list[Path]:
    """Build the tables every shipped rulebook and the expression parser use, into
    ``into``; the files written, sorted."""
    from . import load_cache
    from .dsl import parse
    from .loader import parse_files, resolve, rule_files, shipped_rulebooks

    into.mkdir(parents=True, exist_ok=True)
    previous = os.environ.get(load_cache.ENV)
    shipped = load_cache.SHIPPED_TABLES
    with tempfile.TemporaryDirectory() as scratch:
        os.environ[load_cache.ENV] = scratch
        load_cache.SHIPPED_TABLES = Path(scratch) / "read none"   # build every table
        try:
            _forget_parsers()
            for name in shipped_rulebooks():
                parse_files(rule_files(resolve(name)))
            parse.parse_expression("1")
        finally:
            load_cache.SHIPPED_TABLES = shipped
            _forget_parsers()
            if previous is None:
                os.environ.pop(load_cache.ENV, None)
            else:
                os.environ[load_cache.ENV] = previous
        written = []
        for table in sorted(Path(scratch).glob("grammar-*.tables")):
            shutil.copyfile(table, into / table.name)
            written.append(into / table.name)
    return written


def _forget_parsers() -> None:
    """Drop the parsers already built in this process, so tables are written afresh."""
    from .dsl import parse

    for built in (parse._parser, parse._parser_for, parse._expression_parser):
        built.cache_clear()


def main(argv: list[str] | None = None) -> int:
    args = sys.argv[1:] if argv is None else argv
    if len(args) != 1:
        print("usage: python -m cortes_rules.parse_tables FOLDER", file=sys.stderr)
        return 2
    for path in build(Path(args[0])):
        print(path)
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
