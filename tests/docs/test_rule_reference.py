"""The generated rule reference and the rules language's Pygments lexer.

- ``mkdocs_hooks/rule_reference.py`` writes one page per shipped rulebook:
  every numbered rule has exactly one entry, in rulebook order, holding its
  clause as written in a block highlighted as the rules language, its
  tables, links that land on entries, its interpretations and the tests that
  cite it. The page is built here without MkDocs.
- ``cortes_rules.lexer`` tokenizes every shipped rules file without an error
  token, its keywords are the grammar's, and ``pyproject.toml`` registers it
  as a Pygments plugin.
"""

from __future__ import annotations

import functools
import importlib.metadata
import importlib.util
import re
import sys
import tomllib
from pathlib import Path
from types import ModuleType

import lark
import pytest
from pygments import highlight
from pygments.formatters import HtmlFormatter
from pygments.token import Error, Keyword, Name, Number, Token

import cortes_rules
from cortes_rules import lexer
from cortes_rules._resources import data_dir, grammar_path
from cortes_rules.dsl import ir
from cortes_rules.rule_numbers import rule_key

ROOT = Path(__file__).resolve().parents[2]
RULEBOOKS = ["cortes", pytest.param("grands_strateges",
                                    marks=pytest.mark.rule("I.1", rulebook="grands_strateges"))]
RULES_FILES = sorted(data_dir("rulebook").rglob("*.rules"))
_HEADING = re.compile(r"^### (?P<number>\S+) .* \{ #(?P<anchor>rule-[a-z0-9-]+) \}$", re.M)
_BLOCK = re.compile(r"^```(?P<info>\S*)\n(?P<body>.*?)^```$", re.M | re.S)


def _hook() -> ModuleType:
    spec = importlib.util.spec_from_file_location(
        "rule_reference", ROOT / "mkdocs_hooks" / "rule_reference.py")
    assert spec is not None and spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    sys.modules.setdefault("rule_reference", module)
    spec.loader.exec_module(module)
    return module


reference = _hook()


@functools.cache
def _book(name: str) -> cortes_rules.Rulebook:
    return cortes_rules.load(name, options="all")


@functools.cache
def _page(name: str) -> str:
    return str(reference.page_markdown(name, interpretations_page="../interpretations.md"))


def _entries(page: str) -> list[tuple[str, str, str]]:
    """``(number, anchor, text)`` of each rule entry of a page, in page order."""
    heads = list(_HEADING.finditer(page))
    ends = [h.start() for h in heads[1:]] + [len(page)]
    return [(h["number"], h["anchor"], page[h.end():end]) for h, end in zip(heads, ends,
                                                                             strict=True)]


def _numbered(name: str) -> list[ir.Rule]:
    return [r for r in _book(name).program.all_rules if not r.mechanism]


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name", RULEBOOKS)
def test_every_numbered_rule_has_one_entry_in_rulebook_order(name: str) -> None:
    numbers = [number for number, _, _ in _entries(_page(name))]
    expected = sorted((r.number for r in _numbered(name)), key=rule_key)
    assert len(expected) > 50
    assert numbers == expected
    assert len(set(numbers)) == len(numbers)


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name", RULEBOOKS)
def test_each_entry_holds_its_clause_as_written_in_a_rules_language_block(name: str) -> None:
    assert reference.LANGUAGE in lexer.RulesLexer.aliases
    rules = {r.number: r for r in _numbered(name)}
    texts = {m.path: m.text for m in _book(name).program.modules}
    for number, _, text in _entries(_page(name)):
        rule = rules[number]
        blocks = [b for b in _BLOCK.finditer(text) if b["info"] == reference.LANGUAGE]
        assert len(blocks) == 1, number
        lines = blocks[0]["body"].rstrip("\n").split("\n")
        assert lines[0] == f'rule {number} "{rule.title}"' + \
            (" optional" if rule.optional else "") + " {"
        assert lines[-1] == "}"
        written = {line.strip() for line in
                   texts[rule.span.path].splitlines()[rule.span.line - 1:]}
        body = [line.strip() for line in lines[1:-1] if line.strip()]
        assert all(line in written for line in body), number
        if rule.statements:   # a stated rule shows its statements
            assert [line for line in body if line != rule.kind], number
        if rule.summary:
            assert reference._linked(rule.summary, set(rules), number) in text


@pytest.mark.rule("8.14")
def test_the_clause_of_8_14_is_highlighted_by_the_lexer() -> None:
    text = dict((n, t) for n, _, t in _entries(_page("cortes")))["8.14"]
    block = next(b["body"] for b in _BLOCK.finditer(text) if b["info"] == reference.LANGUAGE)
    html = highlight(block, lexer.RulesLexer(), HtmlFormatter())
    assert '<span class="k">rule</span>' in html
    assert '<span class="nl">8.14</span>' in html
    assert '<span class="k">when</span>' in html
    assert '<span class="ow">has</span>' in html
    assert 'class="err"' not in html


@pytest.mark.rule("13.2")
@pytest.mark.parametrize("name", RULEBOOKS)
def test_tables_are_rendered_from_their_definitions(name: str) -> None:
    entries = {n: t for n, _, t in _entries(_page(name))}
    tables = [(r.number, t) for r in _numbered(name) for t in reference.tables_of(r)]
    assert tables
    for number, table in tables:
        text = entries[number]
        rows = [line.replace("\\", "") for line in text.splitlines() if line.startswith("| ")]
        header = "| " + " | ".join(["", *(reference._cell(c) for c in table.columns)]) + " |"
        assert header in rows
        for row in table.rows:
            cells = [reference._cell(row.key), *(reference._cell(c) for c in row.cells)]
            assert "| " + " | ".join(cells) + " |" in rows, (number, table.name)


@pytest.mark.rule("13.2")
def test_the_combat_results_table_reads_as_printed() -> None:
    text = {n: t for n, _, t in _entries(_page("cortes"))}["13.2"]
    assert "| 2 | 8/0 | 4/0 | 3/1 | 3/1 | 2/1 | 2/1 | 1/1 | 1/1 | 1/1 | 1/2 | 1/2 |" in text
    assert "|  | 1:4 | 1:3 |" in text


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name", RULEBOOKS)
def test_every_rule_link_lands_on_an_entry(name: str) -> None:
    page = _page(name)
    anchors = {a for _, a, _ in _entries(page)}
    links = re.findall(r"\]\(#([^)]+)\)", page)
    assert links
    assert set(links) <= anchors


@pytest.mark.rule("8.11")
def test_references_name_the_rules_a_clause_cites() -> None:
    known = ["8.11", "8.12", "8.13", "8.14", "8.15", "8.26", "8.1"]
    assert reference.references("see 8.12-8.15 and (8.26); 3:1, 0.5", known, "8.11") == \
        ["8.12", "8.13", "8.14", "8.15", "8.26"]
    entries = {n: t for n, _, t in _entries(_page("cortes"))}
    refers = re.search(r"\*\*Refers to:\*\* (.*)", entries["13.1"])
    assert refers is not None and "[8.14](#rule-8-14)" in refers[1]
    assert "[13.1](#rule-13-1)" in entries["8.14"]   # referred to by


@pytest.mark.rule("10.2")
def test_a_clause_citing_a_hooks_rules_refers_to_its_contributors() -> None:
    book = _book("cortes")
    cited = reference.hook_citations(book.program, _numbered("cortes"))
    assert "11.7" in cited["10.2"]   # cite ... + rules(desertion_modifier); 11.7 contributes
    entries = {n: t for n, _, t in _entries(_page("cortes"))}
    refers = re.search(r"\*\*Refers to:\*\* (.*)", entries["10.2"])
    assert refers is not None and "[11.7](#rule-11-7)" in refers[1]
    assert "11.7" not in (book.program.rules["10.2"].summary or "")


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name", RULEBOOKS)
def test_interpretations_are_listed_with_their_readings(name: str) -> None:
    entries = {n: t for n, _, t in _entries(_page(name))}
    book = _book(name)
    assert book.interpretations
    for entry in book.interpretations:
        for number in entry.rules:
            if number not in entries:   # an entry may name a rule the rulebook lacks
                continue
            text = entries[number]
            assert f"[`{entry.id}`](../interpretations.md#{entry.id.lower()})" in text
            for reading in entry.readings:
                assert f"`{reading.name}`" in text, (number, entry.id, reading.name)


@pytest.mark.rule("2.1")
def test_the_tests_that_cite_a_rule_are_listed() -> None:
    text = {n: t for n, _, t in _entries(_page("cortes"))}["2.1"]
    assert "test_rule_reference.py::test_the_tests_that_cite_a_rule_are_listed`" in text


# ---------------------------------------------------------------- the lexer


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("path", RULES_FILES, ids=[p.name for p in RULES_FILES])
def test_the_lexer_reads_every_shipped_rules_file_without_an_error(path: Path) -> None:
    text = path.read_text(encoding="utf-8")
    tokens = list(lexer.RulesLexer().get_tokens(text))
    assert [value for kind, value in tokens if kind in Error] == []
    assert "".join(value for _, value in tokens).rstrip("\n") == text.rstrip("\n")
    assert any(kind in Keyword for kind, _ in tokens)


@pytest.mark.rule("13.2")
def test_the_lexer_tells_the_tokens_of_the_language_apart() -> None:
    text = ('rule 8.11a "T" optional {\n  permit move despite III.4 when x.move >= 0101\n'
            '  table t "T" { columns 3:1 1/2  row road 0.5 {a: 1} }\n  dice d = 2d6  # note\n}\n'
            "'")
    tokens = [(kind, value) for kind, value in lexer.RulesLexer().get_tokens(text)
              if value.strip()]
    assert (Name.Label, "8.11a") in tokens and (Name.Label, "III.4") in tokens
    assert (Keyword, "optional") in tokens and (Keyword, "despite") in tokens
    # An attribute after a dot; the same word as an action's name is no attribute.
    assert (Name.Attribute, "move") in tokens
    assert any(value == "move" and kind not in Name.Attribute for kind, value in tokens)
    assert (Number, "3:1") in tokens and (Number, "1/2") in tokens and (Number, "2d6") in tokens
    assert (Number.Float, "0.5") in tokens
    assert (Token.Comment.Single, "# note") in tokens
    assert tokens[-1] == (Error, "'")   # a quote is no token of the language


def _lark_keywords() -> set[str]:
    """The words some terminal of the grammar other than NAME matches, as lark compiles it."""
    text = grammar_path().read_text(encoding="utf-8")
    parser = lark.Lark(text, parser="lalr")
    words = set(re.findall(r"[A-Za-z_][A-Za-z0-9_]*", text))
    return {w for w in words for t in parser.terminals
            if t.name != "NAME" and re.fullmatch(t.pattern.to_regexp(), w)}


@pytest.mark.rule("2.1")
def test_the_lexer_keywords_are_the_grammar_keywords() -> None:
    keywords = _lark_keywords()
    assert {"rule", "forbid", "permit", "when", "natural", "party", "mod"} <= keywords
    assert lexer.KEYWORDS == keywords
    assert lexer.CONSTANTS == {"true", "false", "none"}
    assert lexer.OPERATOR_WORDS == {"and", "or", "not", "in", "is", "has", "mod"}


@pytest.mark.rule("2.1")
def test_the_lexer_is_registered_as_a_pygments_plugin() -> None:
    project = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))["project"]
    plugins = project["entry-points"]["pygments.lexers"]
    assert list(plugins.values()) == ["cortes_rules.lexer:RulesLexer"]
    assert not any("pygments" in d.lower() for d in project["dependencies"])
    assert any(d.startswith("pygments") for d in project["optional-dependencies"]["docs"])
    installed = [e for e in importlib.metadata.entry_points(group="pygments.lexers")
                 if e.value == "cortes_rules.lexer:RulesLexer"]
    if installed:   # an installed package: Pygments finds it by its alias and files
        from pygments.lexers import get_lexer_by_name, get_lexer_for_filename

        assert get_lexer_by_name("cortes-rules").name == lexer.RulesLexer.name
        assert get_lexer_for_filename("08-combat.rules").name == lexer.RulesLexer.name
