"""MkDocs hook: generate the rule reference, one page per shipped rulebook.

Declared under ``hooks:`` in ``mkdocs.yml``. When the site is built, each
shipped rulebook (``rulebook/NAME/``) is loaded and written out as the page
``reference/NAME.md`` (underscores made hyphens), so the reference can never
disagree with the rules; the pages are not kept in git. For every numbered
rule, in rulebook order, a page gives its number and title, our summary,
the clause as written (highlighted by the rules language's Pygments lexer,
``cortes_rules.lexer``), the tables it declares, the rules it refers to and
those that refer to it, the interpretations that concern it with their
readings, and the tests that cite it.

Nothing here knows a game: any rulebook folder gives a page
(:func:`page_markdown`), and the page can be built without MkDocs, which
only :func:`on_files` needs.
"""

from __future__ import annotations

import re
import sys
from collections.abc import Iterable
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mkdocs.structure.files import Files

    from cortes_rules.api import Rulebook
    from cortes_rules.dsl import ir

ROOT = Path(__file__).resolve().parents[1]
FOLDER = "reference"
LANGUAGE = "cortes-rules"
"""The fence language of the clauses: an alias of ``cortes_rules.lexer.RulesLexer``."""

# A rule number in running text or in a clause (8.14, 8.11a, III.4), not part
# of a longer number or word.
_REFERENCE = re.compile(r"(?<![\w.])((?:\d+|[IVXLCDM]+)\.\d+[a-z]?)(?![\w]|\.\d)")
_RANGE = re.compile(_REFERENCE.pattern + r"\s*[-\u2013]\s*" + _REFERENCE.pattern)
_MARKDOWN_SPECIAL = re.compile(r"([\\`*_{}\[\]])")


def _package() -> None:
    """Import the package from this checkout (the hook runs outside any install)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def page_path(rulebook: str) -> str:
    """The reference page of a rulebook, relative to the docs folder."""
    return f"{FOLDER}/{rulebook.replace('_', '-')}.md"


def pages() -> dict[str, str]:
    """Reference page -> the shipped rulebook it is generated from."""
    _package()
    from cortes_rules.rulebook_files import shipped_games

    return {page_path(name): name for name in shipped_games()}


def anchor(number: str) -> str:
    """The anchor of a rule's entry on its page: ``8.14`` -> ``rule-8-14``."""
    return "rule-" + re.sub(r"[^a-z0-9]+", "-", number.lower()).strip("-")


def numbered_rules(program: ir.Program) -> list[ir.Rule]:
    """The numbered rules of a program (optional ones included), in rulebook order."""
    _package()
    from cortes_rules.rule_numbers import rule_key

    return sorted((r for r in program.all_rules if not r.mechanism),
                  key=lambda r: rule_key(r.number))


def clause_block(program: ir.Program, rule: ir.Rule) -> str:
    """A rule's clause in the rules language: its header, its kind, its formal
    statements as the file writes them (the summary and comment lines left out)."""
    _package()
    from cortes_rules.text_index import clause_source

    flag = " optional" if rule.optional else ""
    lines = [f'rule {rule.number} "{rule.title}"{flag} {{']
    if rule.kind != "rule":
        lines.append(f"  {rule.kind}")
    module = next((m for m in program.modules if m.path == rule.span.path), None)
    source = clause_source(module.text, rule.span.line) if module is not None else []
    lines += [f"  {line}" if line else "" for line in source]
    lines.append("}")
    return "\n".join(lines)


def references(text: str, known: Iterable[str], own: str = "") -> list[str]:
    """The rule numbers of ``known`` that ``text`` names, other than ``own``, in
    rulebook order. A range (``8.12-8.15``) names every rule from one end to the
    other."""
    _package()
    from cortes_rules.rule_numbers import rule_key

    order = sorted(set(known), key=rule_key)
    names = set(_REFERENCE.findall(text)) & set(order)
    for first, last in _RANGE.findall(text):
        if first in names and last in names and first.split(".")[0] == last.split(".")[0]:
            names.update(order[order.index(first):order.index(last) + 1])
    names.discard(own)
    return sorted(names, key=rule_key)


def _nodes(node: Any) -> Iterable[Any]:
    """A node of the IR and every node under it."""
    import attrs

    yield node
    if isinstance(node, tuple):
        for item in node:
            yield from _nodes(item)
    elif attrs.has(type(node)):
        for field in attrs.fields(type(node)):
            value = getattr(node, field.name)
            if isinstance(value, tuple) or attrs.has(type(value)):
                yield from _nodes(value)


def hook_citations(program: ir.Program, rules: Iterable[ir.Rule]) -> dict[str, list[str]]:
    """Rule number -> the rules a clause cites through ``rules(HOOK)``: those
    that contribute to the hook."""
    from cortes_rules.dsl import ir

    rules = list(rules)
    contributors: dict[str, set[str]] = {}
    for rule in program.all_rules:
        for node in _nodes(rule.statements):
            if isinstance(node, ir.Contribute):
                contributors.setdefault(node.hook, set()).add(node.rule)
    cited: dict[str, list[str]] = {}
    for rule in rules:
        found: set[str] = set()
        for node in _nodes(rule.statements):
            if isinstance(node, ir.Call) and node.func == "rules" and len(node.args) == 1 \
                    and isinstance(node.args[0], ir.Name):
                found |= contributors.get(node.args[0].id, set())
        cited[rule.number] = sorted(found)
    return cited


def _text(text: str) -> str:
    """Plain text as Markdown: its special characters escaped."""
    return _MARKDOWN_SPECIAL.sub(r"\\\1", text).replace("<", "&lt;")


def _linked(text: str, known: set[str], own: str) -> str:
    """Plain text as Markdown, each rule number of ``known`` (but ``own``) a link."""
    escaped = _text(text)

    def link(match: re.Match[str]) -> str:
        number = match[1]
        return f"[{number}](#{anchor(number)})" if number in known and number != own \
            else number

    return _REFERENCE.sub(link, escaped)


def _cell(cell: Any) -> str:
    """One table cell as text, as the rules file writes it."""
    from cortes_rules.dsl import ir

    if isinstance(cell, ir.IntCell):
        return str(cell.value)
    if isinstance(cell, ir.DecimalCell):
        return cell.text
    if isinstance(cell, ir.RatioCell):
        return f"{cell.left}:{cell.right}"
    if isinstance(cell, ir.ResultCell):
        return f"{cell.left}/{cell.right}"
    if isinstance(cell, ir.NameCell):
        return cell.name
    if isinstance(cell, ir.KeyedCell):
        return ", ".join(f"{key}: {_cell(value)}" for key, value in cell.entries)
    return str(cell)


def _table_cell(text: str) -> str:
    return _text(text).replace("|", "\\|")


def table_markdown(table: ir.TableDecl) -> list[str]:
    """A table of the rules, rendered from its definition as a Markdown table."""
    header = ["", *(_cell(c) for c in table.columns)]
    out = [f"**{_text(table.label)}** (table `{table.name}`)", "",
           "| " + " | ".join(_table_cell(h) for h in header) + " |",
           "|" + "---|" * len(header)]
    for row in table.rows:
        cells = [_cell(row.key), *(_cell(c) for c in row.cells)]
        out.append("| " + " | ".join(_table_cell(c) for c in cells) + " |")
    out.append("")
    return out


def tables_of(rule: ir.Rule) -> list[ir.TableDecl]:
    """The tables a clause declares (those under a reading included)."""
    from cortes_rules.dsl import ir

    found: list[ir.TableDecl] = []

    def walk(statements: Iterable[Any]) -> None:
        for statement in statements:
            if isinstance(statement, ir.TableDecl):
                found.append(statement)
            elif isinstance(statement, ir.WhenReading):
                walk(statement.body)

    walk(rule.statements)
    return found


def _interpretation(item: dict[str, Any], page: str | None, depends: bool) -> list[str]:
    """One interpretations entry naming a rule: its title, kind and readings."""
    name = f"`{item['id']}`"
    if page is not None:
        name = f"[{name}]({page}#{item['id'].lower()})"
    kind = (item["kind"] or "defect").replace("_", " ")
    note = "; this clause depends on the reading chosen" if depends else ""
    out = [f"- {name}: {_text(item['title'])} ({_text(kind)}{note})"]
    for reading in item["readings"]:
        marks = ["default"] if reading["default"] else []
        if reading["name"] == item["chosen"] and not reading["default"]:
            marks.append("chosen")
        mark = f" ({', '.join(marks)})" if marks else ""
        out.append(f"    - `{reading['name']}`{mark}: {_text(reading['text'])}")
    return out


def page_markdown(rulebook: str, *, interpretations_page: str | None = None,
                  tests: str | Path | None = None) -> str:
    """The reference page of a rulebook, in Markdown.

    Args:
        rulebook: a shipped rulebook's name, a folder or one rules file.
        interpretations_page: the page of the rulebook's interpretations
            registry, relative to the reference page (entries then link to
            it); without it the readings are shown here only.
        tests: the folder of tests to scan for ``pytest.mark.rule`` (default:
            ``tests/`` of the checkout the rulebook is in).
    """
    _package()
    import cortes_rules
    from cortes_rules import registry
    from cortes_rules.coverage import DEFINITION, STATED, SUMMARY_ONLY, coverage

    book: Rulebook = cortes_rules.load(rulebook, options="all")
    program = book.program
    rules = numbered_rules(program)
    known = {r.number for r in rules}
    report = coverage(rulebook, tests=tests)
    covered = {r.number: r for r in report.rules}
    counts = report.counts()
    entries = {e.id: registry.record(book, e) for e in book.interpretations}
    blocks = {r.number: clause_block(program, r) for r in rules}
    through_hooks = hook_citations(program, rules)
    cites = {r.number: references(f"{r.summary or ''}\n{blocks[r.number]}\n"
                                  + " ".join(through_hooks[r.number]), known, r.number)
             for r in rules}
    cited_by: dict[str, list[str]] = {}
    for rule in rules:
        for number in cites[rule.number]:
            cited_by.setdefault(number, []).append(rule.number)
    tables = [(rule, table) for rule in rules for table in tables_of(rule)]

    out = [f"# Rule reference: {_text(book.title)}", "",
           "<!-- Generated from the rulebook when the site is built; edit the rulebook, "
           "not this page. -->", "",
           f"Every numbered rule of the rulebook `{rulebook}`, in rulebook order: its number "
           "and title, our summary, the clause that states it in the "
           "[rules language](../language.md), the tables it declares, the rules it refers "
           "to, the interpretations that concern it and the tests that cite it. The page is "
           "generated from the rulebook when the site is built; `cortes-rules rule NUMBER "
           f"--rulebook {rulebook}` prints the same clause, and `cortes-rules coverage "
           f"{rulebook}` the same tests.", "",
           f"{counts['rules']} numbered rules: {counts[STATED]} stated by formal statements, "
           f"{counts[SUMMARY_ONLY]} by their summary alone, {counts[DEFINITION]} definitions "
           f"or commentary; {counts['tested']} cited by tests.", ""]
    if tables:
        out += ["Tables: " + ", ".join(f"[{_text(t.label)}](#{anchor(r.number)}) ({r.number})"
                                       for r, t in tables) + ".", ""]
    section = None
    for rule in rules:
        head = rule.number.split(".", 1)[0]
        if head != section:
            section = head
            out += [f"## Section {head}", ""]
        out += _entry(rule, blocks[rule.number], cites[rule.number],
                      cited_by.get(rule.number, []), covered.get(rule.number), known,
                      [(entries[i], i in rule.readings) for i in entries
                       if rule.number in entries[i]["rules"] or i in rule.readings],
                      interpretations_page)
    out += _other_tables(program)
    return "\n".join(out)


def _entry(rule: ir.Rule, block: str, cites: list[str], cited_by: list[str],
           covered: Any, known: set[str], interpretations: list[tuple[dict[str, Any], bool]],
           interpretations_page: str | None) -> list[str]:
    out = [f"### {rule.number} {_text(rule.title)} {{ #{anchor(rule.number)} }}", ""]
    notes = []
    if rule.optional:
        notes.append("Optional rule.")
    if rule.kind != "rule":
        notes.append(f"A {rule.kind}: it states no rule of play.")
    elif covered is not None and not rule.statements:
        notes.append("Stated by its summary alone: no formal statement yet.")
    notes.append(f"In `{rule.span.path}`, line {rule.span.line}.")
    out += ["*" + " ".join(notes) + "*", ""]
    if rule.summary:
        out += [_linked(rule.summary, known, rule.number), ""]
    out += [f"```{LANGUAGE}", block, "```", ""]
    for table in tables_of(rule):
        out += table_markdown(table)
    if cites:
        out += ["**Refers to:** " + ", ".join(f"[{n}](#{anchor(n)})" for n in cites), ""]
    if cited_by:
        out += ["**Referred to by:** " + ", ".join(f"[{n}](#{anchor(n)})" for n in cited_by),
                ""]
    if interpretations:
        out += ["**Interpretations:**", ""]
        for item, depends in interpretations:
            out += _interpretation(item, interpretations_page, depends)
        out.append("")
    tests = covered.tests if covered is not None else []
    if tests:
        out += [f"**Tests** ({len(tests)}):", ""]
        out += [f"- `{test}`" for test in tests]
        out.append("")
    else:
        out += ["**Tests:** none cites it.", ""]
    return out


def _other_tables(program: ir.Program) -> list[str]:
    """The tables declared outside the numbered rules (by mechanisms, scenarios)."""
    found = [(rule, table) for rule in program.all_rules if rule.mechanism
             for table in tables_of(rule)]
    if not found:
        return []
    out = ["## Other tables", "",
           "Tables declared outside the numbered rules: by a mechanism or a scenario of "
           "the rulebook.", ""]
    for rule, table in found:
        out += [f"### {_text(table.label)}", "",
                f"*Declared by `{rule.number}` ({_text(rule.title)}), in `{table.span.path}`, "
                f"line {table.span.line}.*", ""]
        out += table_markdown(table)
    return out


def on_files(files: Files, config: Any) -> Files:
    from mkdocs.structure.files import File

    _check_lexer()

    interpretations = _interpretation_pages()
    for page, rulebook in pages().items():
        old = files.get_file_from_path(page)
        if old is not None:
            files.remove(old)
        registry_page = interpretations.get(rulebook)
        content = page_markdown(rulebook, interpretations_page=(
            f"../{registry_page}" if registry_page is not None else None))
        files.append(File.generated(config, page, content=content))
    return files


def _interpretation_pages() -> dict[str, str]:
    """Rulebook -> the page the interpretations hook generates for it."""
    _package()
    try:
        from mkdocs_hooks.interpretations import PAGES
    except ImportError:
        return {}
    return {rulebook: page for page, rulebook in PAGES.items()}


def _check_lexer() -> None:
    """Warn (an error under ``--strict``) when Pygments does not know the rules
    language: the package is not installed, so its plugin is not registered,
    and the clauses would be shown unhighlighted."""
    import logging

    from pygments.lexers import get_lexer_by_name
    from pygments.util import ClassNotFound

    try:
        get_lexer_by_name(LANGUAGE)
    except ClassNotFound:
        logging.getLogger("mkdocs.hooks.rule_reference").warning(
            "Pygments has no lexer %r: install the package (pip install -e '.[docs]') "
            "so that the rule reference's clauses are highlighted", LANGUAGE)
