"""A Pygments lexer for the rules language (``*.rules`` files).

Registered as a Pygments plugin (the ``pygments.lexers`` entry point in
``pyproject.toml``), so once the package is installed Pygments and every tool
built on it (the documentation site, ``pygmentize -l cortes-rules``) highlight
the language. Nothing else in the package imports this module, and Pygments
is not a dependency of the package: only of its ``docs`` and ``test`` extras.

The keywords are not typed here. They are read from the grammar
(``grammar/rules.lark``) when the module is imported: every word the grammar
writes as a literal (``"forbid"``, ``"when"``) and every word a keyword
terminal spells out (``OWNER: /(piece|place|player)\\b/``). A word the
grammar learns from a rulebook's forms (``shift 3 left when ...``) is a name
here, as it is for the grammar until the forms are loaded.
"""

from __future__ import annotations

import re
from pathlib import Path

from pygments.lexer import RegexLexer, bygroups, include, words
from pygments.token import (
    Comment,
    Keyword,
    Name,
    Number,
    Operator,
    Punctuation,
    String,
    Whitespace,
)

from ._resources import grammar_path

__all__ = ["RulesLexer", "grammar_keywords"]

# A quoted literal of a grammar rule: "forbid".
_LITERAL = re.compile(r'"([A-Za-z_][A-Za-z0-9_]*)"')
# A terminal defined by a regular expression: NAME.2: /.../
_TERMINAL = re.compile(r"^\s*[A-Z_][A-Z0-9_]*(?:\.\d+)?\s*:\s*/(?P<regex>.*)/\s*$")
# A lark comment: // to the end of the line (not inside a /regex/ of a terminal).
_GRAMMAR_COMMENT = re.compile(r"(?:^|\s)//.*$")
_WORD = re.compile(r"[a-z][a-z_]*")


def grammar_keywords(path: Path | None = None) -> frozenset[str]:
    """The keywords of the rules language, as the grammar writes them.

    Args:
        path: a grammar file (default: the package's ``rules.lark``).

    Returns:
        Every word that some terminal of the grammar other than ``NAME``
        matches: the quoted literals of its rules, and the words spelt out by
        terminals such as ``TERRAIN_KIND: /(natural|artificial)\\b/``.
    """
    text = (path or grammar_path()).read_text(encoding="utf-8")
    found: set[str] = set()
    for line in text.splitlines():
        terminal = _TERMINAL.match(line)
        if terminal is not None:
            # Alternatives of plain words: drop character classes, groups and \b.
            regex = re.sub(r"\[[^\]]*\]", "\0", terminal["regex"])
            for part in regex.replace("(", "|").replace(")", "|").split("|"):
                part = part.removesuffix(r"\b")
                if _WORD.fullmatch(part):
                    found.add(part)
            continue
        found.update(_LITERAL.findall(_GRAMMAR_COMMENT.sub("", line)))
    return frozenset(found)


KEYWORDS = grammar_keywords()
# How some of the grammar's keywords are coloured: the literals of
# expressions, and the words that act as operators. Only words the grammar
# has count (a test checks that each of these is one).
CONSTANTS = frozenset({"true", "false", "none"}) & KEYWORDS
OPERATOR_WORDS = frozenset({"and", "or", "not", "in", "is", "has", "mod"}) & KEYWORDS
OTHER_KEYWORDS = KEYWORDS - CONSTANTS - OPERATOR_WORDS

# Rule numbers (8.14, 8.11a, III.4), odds (3:1), results (1/2), dice (2d6),
# hex ids (3016): the grammar's RULE_NO, RATIO, RESULT, DICE and HEX_ID.
_RULE_NO = r"(?:\d+|[IVXLCDM]+)\.\d+[a-z]?\b"


class RulesLexer(RegexLexer):
    """The rules language of cortes_rules: rule clauses, mechanisms, data blocks."""

    name = "cortes-rules"
    aliases = ["cortes-rules", "rules"]
    filenames = ["*.rules"]
    mimetypes = ["text/x-cortes-rules"]

    tokens = {
        "root": [
            # A table's cells may be decimals (0.5), which look like rule numbers.
            *([(r"table\b", Keyword, "table")] if "table" in KEYWORDS else []),
            (r"\s+", Whitespace),
            (r"#[^\n]*", Comment.Single),
            (r'"[^"\n]*"', String.Double),
            (_RULE_NO, Name.Label),
            (r"\d+:\d+\b", Number),
            (r"\d+/\d+\b", Number),
            (r"\d+d\d+\b", Number),
            (r"\d+", Number.Integer),
            # After a dot a word is an attribute (unit.move), never a keyword.
            (r"(\.)([A-Za-z_][A-Za-z0-9_]*)", bygroups(Punctuation, Name.Attribute)),
            (words(sorted(CONSTANTS), suffix=r"\b"), Keyword.Constant),
            (words(sorted(OPERATOR_WORDS), suffix=r"\b"), Operator.Word),
            (words(sorted(OTHER_KEYWORDS), suffix=r"\b"), Keyword),
            (r"([A-Za-z_][A-Za-z0-9_]*)(\s*)(\()", bygroups(Name.Function, Whitespace,
                                                          Punctuation)),
            (r"[A-Za-z_][A-Za-z0-9_]*", Name),
            (r"==|!=|<=|>=|\.\.|[<>=+\-*/]", Operator),
            (r"[{}()\[\],:.]", Punctuation),
        ],
        "table": [
            (r"\{", Punctuation, ("#pop", "table-body")),
            include("root"),
        ],
        "table-body": [
            (r"\d+\.\d+\b", Number.Float),
            (r"\{", Punctuation, "#push"),
            (r"\}", Punctuation, "#pop"),
            include("root"),
        ],
    }
