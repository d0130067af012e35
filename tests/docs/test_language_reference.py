"""docs/language.md is a complete reference of the rules language.

The page's conventions, which this test relies on:

- Every ```` ```text ```` block of ``docs/language.md`` is rules-language
  code. It parses with :func:`cortes_rules.dsl.parse.parse_text`, with the
  forms of ``rulebook/lib/hex_wargame.rules`` available (as in a rulebook
  that ``use``\\ s the library).
- A block that is a whole file starts (after comments) with an item:
  ``rule``, ``mechanism``, ``game``, ``scenario``, ``interpretation``,
  ``map``, ``counters`` or ``setup``. Any other block says where it stands
  in a comment on its first line, and is wrapped before it is parsed:

  ``# inside a rule clause``
      in ``rule 0.0 "Fragment" { summary "..." BLOCK }``;
  ``# inside a procedure``
      in a procedure of such a clause;
  ``# inside a choose``
      in ``choose by p { BLOCK }`` in such a procedure.

- A block whose first line is ``# refused inside a rule clause`` (or
  ``# refused`` before another of the places above) is wrapped the same
  way; the grammar reads it, but the parser refuses it (a
  ``RulesSyntaxError``). Refused blocks are fragments, so that the older
  test of ``tests/docs/test_docs_examples.py``, which parses every block
  that starts with an item, leaves them alone.

Completeness is read from the grammar (``grammar/rules.lark``), never
listed here, so a construct added to the grammar later fails this test
until the page shows it. The page's blocks, parsed by lark with every token
kept, must together use every rule and alias of the grammar that can be a
node of a parse tree (each kind of item, statement, step, option clause,
data line, table cell, operator, literal and comprehension), every terminal
(each keyword and punctuation), every word of a terminal that is a choice
of words (``player|party``, ``odd|even``, ``mod``...), every built-in
function of ``cortes_rules/dsl/scope.py`` as a call and every built-in name.
"""

from __future__ import annotations

import functools
import re
from collections.abc import Iterator
from pathlib import Path

import lark
import pytest

from cortes_rules._resources import grammar_path
from cortes_rules.dsl import ir
from cortes_rules.dsl.forms import grammar_rules, parse_pattern
from cortes_rules.dsl.parse import parse_text
from cortes_rules.dsl.scope import BUILTIN_FUNCTIONS, BUILTIN_NAMES, COMPREHENSIONS
from cortes_rules.errors import RulesSyntaxError
from cortes_rules.loader import library_path

ROOT = Path(__file__).resolve().parents[2]
PAGE = ROOT / "docs" / "language.md"
# The marks name the page and the section each test checks; ``rulebook=``
# keeps them out of the rule coverage of the shipped rulebooks.
DOC = "docs/language.md"
FENCE = "text"
ITEMS = ("rule", "mechanism", "game", "scenario", "interpretation", "map", "counters", "setup")
REFUSED = "# refused "
_SUMMARY = '  summary "A fragment of docs/language.md."\n'
WRAPPERS = {
    "# inside a rule clause": ('rule 0.0 "Fragment" {\n' + _SUMMARY, "}\n"),
    "# inside a procedure": ('rule 0.0 "Fragment" {\n' + _SUMMARY + "procedure fragment() {\n",
                             "}\n}\n"),
    "# inside a choose": ('rule 0.0 "Fragment" {\n' + _SUMMARY + "procedure fragment(p) {\n"
                          "choose by p {\n", "}\n}\n}\n"),
}
_OPENING = re.compile(r"^```(?P<info>[\w-]*)[^\n]*$")
_HEADING = re.compile(r"^#{2,4} (?P<title>.+)$")


class Block:
    """One rules-language block of the page."""

    def __init__(self, text: str, line: int, section: str) -> None:
        self.text, self.line, self.section = text, line, section
        first = text.split("\n", 1)[0].strip()
        self.refused = first.startswith(REFUSED)
        if self.refused:
            first = "# " + first[len(REFUSED):]
        self.marker = first if first in WRAPPERS else None

    @property
    def first_word(self) -> str:
        for line in self.text.splitlines():
            code = line.split("#", 1)[0].strip()
            if code:
                return code.split()[0]
        return ""

    @property
    def is_file(self) -> bool:
        return self.marker is None and self.first_word in ITEMS

    def as_file(self) -> str:
        """The block as a rules file (wrapped as its first line says)."""
        if self.marker is None:
            return self.text
        before, after = WRAPPERS[self.marker]
        return before + self.text + after

    @property
    def id(self) -> str:
        return f"line{self.line}"


def page_blocks() -> Iterator[Block]:
    """Every ```text block of the page, with the section it is in."""
    lines = PAGE.read_text(encoding="utf-8").splitlines()
    section = "The rules language"
    i = 0
    while i < len(lines):
        heading = _HEADING.match(lines[i])
        if heading:
            section = heading["title"]
        opening = _OPENING.match(lines[i])
        if opening is None or not opening["info"]:
            i += 1
            continue
        j = i + 1
        while j < len(lines) and lines[j].rstrip() != "```":
            j += 1
        if opening["info"] == FENCE:
            yield Block("\n".join(lines[i + 1:j]) + "\n", i + 1, section)
        i = j + 1


BLOCKS = list(page_blocks())


@functools.cache
def library_forms() -> tuple[ir.FormDecl, ...]:
    path = library_path("hex_wargame")
    module = parse_text(path.read_text(encoding="utf-8"), str(path))
    return tuple(s for item in module.items if isinstance(item, ir.Rule)
                 for s in item.statements if isinstance(s, ir.FormDecl))


@functools.cache
def base_grammar() -> lark.Lark:
    return lark.Lark(grammar_path().read_text(encoding="utf-8"), parser="lalr",
                     maybe_placeholders=True)


@functools.cache
def tree_parser() -> lark.Lark:
    """The grammar with the library's forms, keeping every token in the tree."""
    grammar = grammar_path().read_text(encoding="utf-8")
    alternatives, rules = grammar_rules(library_forms())
    grammar = grammar.replace("// @form-uses", "| " + alternatives, 1) + "\n" + rules + "\n"
    return lark.Lark(grammar, parser="lalr", maybe_placeholders=True, keep_all_tokens=True)


@functools.cache
def trees() -> tuple[lark.Tree, ...]:
    return tuple(tree_parser().parse(b.as_file()) for b in BLOCKS)


def constructs() -> set[str]:
    """The names of the grammar's rules and aliases that can be nodes of a tree:
    not the inlined ``_rules``, not ``start``, and not the expansions of a
    ``?rule`` that only pass one child on."""
    names = set()
    for rule in base_grammar().rules:
        name = rule.alias or str(rule.origin.name)
        if name.startswith("_") or name == "start":
            continue
        if rule.options.expand1 and not rule.alias:
            continue
        names.add(name)
    return names


def _word_choices(pattern: str) -> tuple[str, ...]:
    """The words of a terminal that is a choice of literal words (``(odd|even)\\b``,
    ``\\*|\\/|mod\\b``), or none."""
    inner = pattern.replace("\\b", "")
    if inner.startswith("(?:") and inner.endswith(")"):
        inner = inner[3:-1]
    elif inner.startswith("(") and inner.endswith(")"):
        inner = inner[1:-1]
    words = tuple(re.sub(r"\\(.)", r"\1", w) for w in inner.split("|"))
    if len(words) < 2 or not all(re.fullmatch(pattern, w) for w in words):
        return ()
    return words


def _tokens(tree: lark.Tree) -> Iterator[lark.Token]:
    for token in tree.scan_values(lambda v: isinstance(v, lark.Token)):
        yield token


def _patterns(parser: lark.Lark) -> dict[str, str]:
    return {t.name: t.pattern.value for t in parser.terminals}


@pytest.mark.rule("The rules language", rulebook=DOC)
def test_the_page_blocks_are_found_and_each_says_what_it_is() -> None:
    assert len(BLOCKS) >= 50
    for block in BLOCKS:
        where = f"docs/language.md:{block.line}"
        assert block.is_file or block.marker is not None, \
            f"{where}: a fragment must say where it stands ({', '.join(WRAPPERS)})"
        if block.refused:
            assert block.marker is not None, f"{where}: a refused block is a fragment"
    assert {b.marker for b in BLOCKS} >= set(WRAPPERS)
    assert any(b.refused for b in BLOCKS)


@pytest.mark.rule("The rules language", rulebook=DOC)
@pytest.mark.parametrize("block", [
    pytest.param(b, id=b.id, marks=pytest.mark.rule(b.section, rulebook=DOC))
    for b in BLOCKS if not b.refused])
def test_every_rules_block_parses(block: Block) -> None:
    parse_text(block.as_file(), f"docs/language.md:{block.line}", library_forms())


@pytest.mark.rule("Interpretations: the registry of readings", rulebook=DOC)
@pytest.mark.parametrize("block", [
    pytest.param(b, id=b.id, marks=pytest.mark.rule(b.section, rulebook=DOC))
    for b in BLOCKS if b.refused])
def test_refused_blocks_are_read_by_the_grammar_and_refused_by_the_parser(block: Block) -> None:
    tree_parser().parse(block.as_file())   # the grammar has the construct...
    with pytest.raises(RulesSyntaxError) as caught:   # ...only to refuse it
        parse_text(block.as_file(), f"docs/language.md:{block.line}", library_forms())
    assert "interpretations registry" in caught.value.diagnostics[0].message


@pytest.mark.rule("Files and items", rulebook=DOC)
def test_every_construct_of_the_grammar_has_an_example() -> None:
    expected = constructs()
    assert {"rule", "scenario_block", "shuffle_stmt", "option_cite", "gen_filter_arg",
            "not_member", "place_shore", "written_field", "printed_decl", "drawn_dots",
            "player_place"} <= expected
    seen = {str(node.data) for tree in trees() for node in tree.iter_subtrees()}
    missing = sorted(expected - seen)
    assert not missing, "docs/language.md shows no example of: " + ", ".join(missing)


@pytest.mark.rule("Lexical rules", rulebook=DOC)
def test_every_keyword_and_token_of_the_grammar_has_an_example() -> None:
    base = base_grammar()
    ignored = set(base.ignore_tokens)
    expected = {t.pattern.value for t in base.terminals if t.name not in ignored}
    patterns = _patterns(tree_parser())
    tokens = [(patterns[t.type], str(t)) for tree in trees() for t in _tokens(tree)]
    missing = sorted(expected - {pattern for pattern, _ in tokens})
    assert not missing, "docs/language.md never writes: " + ", ".join(missing)
    choices = {t.name: _word_choices(t.pattern.value) for t in base.terminals}
    assert choices["PLAYER_KIND"] == ("player", "party")
    assert choices["MUL_OP"] == ("*", "/", "mod")
    for name, words in choices.items():
        used = {text for pattern, text in tokens if pattern == patterns[name]}
        unused = sorted(set(words) - used)
        assert not unused, f"docs/language.md never writes {name} as: " + ", ".join(unused)


@pytest.mark.rule("Built-in functions", rulebook=DOC)
def test_every_built_in_function_and_name_has_an_example() -> None:
    called, named = set(), set()
    for tree in trees():
        for node in tree.iter_subtrees():
            if node.data in ("call", "call0"):
                called.add(str(node.children[0]))
            elif node.data == "name":
                named.add(str(node.children[0]))
    functions = set(BUILTIN_FUNCTIONS) | set(COMPREHENSIONS)
    missing = sorted(functions - called)
    assert not missing, "docs/language.md calls no: " + ", ".join(missing)
    missing = sorted(set(BUILTIN_NAMES) - named)
    assert not missing, "docs/language.md never uses the name: " + ", ".join(missing)


@pytest.mark.rule("Built-in functions", rulebook=DOC)
def test_the_built_in_table_lists_every_built_in_function() -> None:
    text = PAGE.read_text(encoding="utf-8")
    table = text.split("### Built-in functions", 1)[1].split("\n\n", 2)[1]
    listed = set(re.findall(r"`([a-z_]+)\(", table))
    missing = sorted((set(BUILTIN_FUNCTIONS) | set(COMPREHENSIONS)) - listed)
    assert not missing, "the built-in table of docs/language.md lacks: " + ", ".join(missing)


@pytest.mark.rule("Forms", rulebook=DOC)
def test_every_form_declared_on_the_page_has_a_valid_pattern() -> None:
    forms = [s for b in BLOCKS if not b.refused
             for item in parse_text(b.as_file(), f"docs/language.md:{b.line}",
                                    library_forms()).items
             if isinstance(item, ir.Rule)
             for s in item.statements if isinstance(s, ir.FormDecl)]
    assert len(forms) >= 3
    kinds = {h.kind for f in forms for h in parse_pattern(f).holes}
    assert kinds == {"expr", "int", "name", "rule", "dice", "string", "words"}
