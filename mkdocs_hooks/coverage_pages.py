"""MkDocs hook: the rule coverage page of each shipped rulebook.

Declared under ``hooks:`` in ``mkdocs.yml``. When the site is built, the
coverage report of each shipped rulebook (:func:`cortes_rules.coverage.coverage`,
the same as ``cortes-rules coverage NAME``) is written out as the page
``coverage/NAME.md`` (underscores made hyphens), which is not kept in git:
every numbered rule, section by section, with whether a clause states it,
where that clause is, and which tests cite it, each rule linked to its entry
of the rule reference.

Nothing here knows a game; the page can be built without MkDocs
(:func:`coverage_markdown`), which only :func:`on_files` needs.
"""

from __future__ import annotations

import posixpath
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mkdocs.structure.files import Files

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "coverage"


def _package() -> None:
    """Import the package from this checkout (the hook runs outside any install)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def page_path(rulebook: str) -> str:
    """The coverage page of a rulebook, relative to the docs folder."""
    return f"{FOLDER}/{rulebook.replace('_', '-')}.md"


def pages() -> dict[str, str]:
    """Coverage page -> the shipped rulebook it is generated from."""
    _package()
    from cortes_rules.rulebook_files import shipped_games

    return {page_path(name): name for name in shipped_games()}


def coverage_markdown(rulebook: str, *, tests: str | Path | None = None) -> str:
    """The coverage page of a rulebook, in Markdown.

    Args:
        rulebook: a shipped rulebook's name, a folder or one rules file.
        tests: the folder of tests to scan (default: ``tests/`` of the
            checkout the rulebook is in).
    """
    _package()
    import cortes_rules
    from cortes_rules.coverage import DEFINITION, STATED, SUMMARY_ONLY, coverage
    from mkdocs_hooks.rule_reference import _text, anchor
    from mkdocs_hooks.rule_reference import page_path as reference_page

    book = cortes_rules.load(rulebook)
    report = coverage(rulebook, tests=tests)
    counts = report.counts()
    reference = f"../{reference_page(rulebook)}"

    def link(number: str) -> str:
        return f"[{number}]({reference}#{anchor(number)})"

    # Clauses and tests are shown relative to the folders they share.
    clause_root = _common_folder(c for r in report.rules for c in r.clauses)
    test_root = _common_folder(t.split("::", 1)[0] for r in report.rules for t in r.tests)
    untested = [r.number for r in report.rules if not r.tests]
    summary_only = [r.number for r in report.rules if r.state == SUMMARY_ONLY]
    out = ["---", "hide:", "  - toc", "---", "",
           f"# Rule coverage: {_text(book.title)}", "",
           "<!-- Generated from the rulebook and the tests when the site is built. -->", "",
           f"Every numbered rule of the rulebook `{rulebook}` (optional ones included), in "
           "rulebook order: whether a clause of the [rules language](../language.md) states "
           "it, where that clause is, and the tests that cite it with "
           "`@pytest.mark.rule(...)`. The same report is printed by `cortes-rules coverage "
           f"{rulebook}`; each rule number leads to its entry in the "
           f"[rule reference]({reference}). Clauses are in `{clause_root or '.'}/`, tests in "
           f"`{test_root or '.'}/`.", "",
           "| State | Meaning | Rules |", "|---|---|---|",
           f"| {STATED} | the clause holds formal statements, which the engine runs | "
           f"{counts[STATED]} |",
           f"| {SUMMARY_ONLY} | the clause holds only our summary: no formal statement yet | "
           f"{counts[SUMMARY_ONLY]} |",
           f"| {DEFINITION} | the clause says it states no rule of play | "
           f"{counts[DEFINITION]} |", "",
           f"{counts['rules']} numbered rules; {counts['tested']} cited by tests, "
           f"{counts['untested']} by none.", ""]
    if summary_only:
        out += ["Stated by their summary alone: " + ", ".join(link(n) for n in summary_only)
                + ".", ""]
    if untested:
        out += ["Cited by no test: " + ", ".join(link(n) for n in untested) + ".", ""]
    section = None
    for rule in report.rules:
        head = rule.number.split(".", 1)[0]
        if head != section:
            if section is not None:
                out.append("")
            section = head
            out += [f"## Section {head}", "",
                    "| Rule | Title | State | Clause | Tests |", "|---|---|---|---|---|"]
        title = _text(rule.title).replace("|", "\\|") + (" (optional)" if rule.optional
                                                          else "")
        clauses = "<br>".join(f"`{_under(c, clause_root)}`" for c in rule.clauses)
        tests = _tests_cell(rule.tests, test_root)
        out.append(f"| {link(rule.number)} | {title} | {rule.state} | {clauses} | {tests} |")
    out.append("")
    return "\n".join(out)


def _common_folder(paths: Iterable[str]) -> str:
    """The folder that holds every path (``""`` for none or no common folder)."""
    folders = {posixpath.dirname(p) for p in paths}
    if not folders:
        return ""
    common = posixpath.commonpath(sorted(folders))
    return "" if common in (".", "/") else common


def _under(path: str, root: str) -> str:
    """A path relative to a folder that holds it."""
    return path[len(root) + 1:] if root and path.startswith(root + "/") else path


def _tests_cell(tests: list[str], root: str) -> str:
    """The tests of a rule, their count then one line per file: its tests' names."""
    if not tests:
        return "none"
    by_file: dict[str, list[str]] = {}
    for test in tests:
        file, _, name = test.partition("::")
        by_file.setdefault(_under(file, root), []).append(name)
    lines = [f"**{len(tests)}**"]
    for file, names in by_file.items():
        shown = ", ".join(f"`{n}`" for n in names if n)
        lines.append(f"`{file}`" + (f": {shown}" if shown else ""))
    return "<br>".join(lines)


def on_files(files: Files, config: Any) -> Files:
    from mkdocs.structure.files import File

    for page, rulebook in pages().items():
        old = files.get_file_from_path(page)
        if old is not None:
            files.remove(old)
        files.append(File.generated(config, page, content=coverage_markdown(rulebook)))
    return files
