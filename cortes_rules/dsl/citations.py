"""Where a rulebook cites an entry of its interpretations registry.

A clause cites an entry in two ways, and the checker (``.check``) refuses a
citation of an id the registry does not hold:

- formally, with the statement ``interpretation ID, ...`` inside the clause
  (``ir.CiteInterpretation``);
- in a comment, as the rules files have long done: the word
  ``interpretation`` (or ``interpretations``) followed by one id, or by a
  list of them (``interpretations forest_cost and hill_terrain``), which may
  run on to the next comment line. A word is taken for an id when it has an
  underscore or a figure (every id of the shipped registries has one) or when
  the registry holds it: ``the interpretations registry`` cites nothing.
"""

from __future__ import annotations

import bisect
import functools
import re
from collections.abc import Iterator

import attrs

from ..rule_numbers import RULE_NUMBER_PATTERN
from . import ir
from .diagnostics import Span

_ID = r"[A-Za-z_][A-Za-z0-9_]*"
_CITATION = re.compile(
    rf"\binterpretations?\s+({_ID}(?:\s*,\s*{_ID})*(?:,?\s+and\s+{_ID})?)")
_WORD = re.compile(_ID)
_HEADER = re.compile(
    rf"^[ \t]*(?:rule[ \t]+({RULE_NUMBER_PATTERN})\b|"
    rf"(mechanism|scenario|interpretation|map|counters|setup|game)[ \t]+({_ID}))",
    re.MULTILINE)


@attrs.frozen
class CommentCitation:
    """An id cited in a comment: where, and the block it is written in."""

    entry: str
    line: int
    column: int
    block: str | None


def formal(statements: tuple[object, ...]) -> Iterator[ir.CiteInterpretation]:
    """The ``interpretation ID`` statements of a clause, inside reading guards too."""
    stack = list(statements)
    while stack:
        statement = stack.pop()
        if isinstance(statement, ir.CiteInterpretation):
            yield statement
        elif isinstance(statement, ir.WhenReading):
            stack.extend(statement.body)


def in_comments(text: str, known: frozenset[str]) -> list[CommentCitation]:
    """The ids cited in the comments of a rules file, in order."""
    return [c for c in _comment_citations(text) if _looks_cited(c.entry, known)]


def _looks_cited(word: str, known: frozenset[str]) -> bool:
    return word in known or "_" in word or any(ch.isdigit() for ch in word)


@functools.lru_cache(maxsize=64)
def _comment_citations(text: str) -> tuple[CommentCitation, ...]:
    """Every word in a citation's place in the comments (the text is read once: a
    load checks the same files several times)."""
    headers = [(text.count("\n", 0, m.start()) + 1, _block(m)) for m in _HEADER.finditer(text)]
    starts = [line for line, _ in headers]
    found: list[CommentCitation] = []
    # A paragraph of comments: consecutive lines' comment texts joined by a space,
    # with where each piece starts (offset in the paragraph, line, column).
    paragraph: list[str] = []
    pieces: list[tuple[int, int, int]] = []
    length = 0
    last_line = -1

    def flush() -> None:
        joined = "".join(paragraph)
        offsets = [offset for offset, _, _ in pieces]
        for match in _CITATION.finditer(joined):
            for word in _WORD.finditer(match[1]):
                if word[0] == "and":
                    continue
                at = match.start(1) + word.start()
                index = bisect.bisect_right(offsets, at) - 1
                offset, line, column = pieces[index]
                header = bisect.bisect_right(starts, line) - 1
                block = headers[header][1] if header >= 0 else None
                found.append(CommentCitation(word[0], line, column + at - offset, block))

    for number, line in enumerate(text.split("\n"), start=1):
        if "#" not in line:
            continue
        hash_at = _comment_start(line)
        if hash_at < 0:
            continue
        if number != last_line + 1 and paragraph:
            flush()
            paragraph, pieces, length = [], [], 0
        piece = line[hash_at + 1:].rstrip("\r") + " "
        pieces.append((length, number, hash_at + 2))
        paragraph.append(piece)
        length += len(piece)
        last_line = number
    if paragraph:
        flush()
    return tuple(found)


def _comment_start(line: str) -> int:
    """Where a line's comment starts (its ``#`` outside a string), or -1."""
    at = line.find("#")
    while at >= 0:
        if line.count('"', 0, at) % 2 == 0:
            return at
        at = line.find("#", at + 1)
    return -1


def _block(match: re.Match[str]) -> str:
    """How a diagnostic names the block a header starts (as the checker does)."""
    if match[1] is not None:
        return match[1]
    kind, name = match[2], match[3]
    if kind == "mechanism":
        return f"lib:{name}"
    if kind == "scenario":
        return f"scenario:{name}"
    return f"{kind} {name}"


def span_of(path: str, citation: CommentCitation) -> Span:
    return Span(path, citation.line, citation.column, citation.column + len(citation.entry))


__all__ = ["CommentCitation", "formal", "in_comments", "span_of"]
