"""Diagnostics: one reported problem in a rules file, rendered with a caret."""

from __future__ import annotations

import re

import attrs

from ..rule_numbers import RULE_NUMBER_PATTERN

_RULE_HEADER = re.compile(rf"^\s*rule\s+({RULE_NUMBER_PATTERN})\b")
_BLOCK_HEADER = re.compile(r"^\s*(map|counters|setup|game)\s+([A-Za-z_]\w*)")
# Characters that end a line for str.splitlines but not for the parser (which
# counts "\n" only), and that would break a rendered diagnostic in a terminal.
_LINE_BREAKS = re.compile("[\r\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029]")


@attrs.frozen
class Span:
    """A place in a source file: 1-based line and column."""

    path: str
    line: int
    column: int
    end_column: int | None = None


@attrs.frozen
class Diagnostic:
    """One problem found in a rules file.

    Attributes:
        span: where it is.
        message: what is wrong.
        rule: the number of the rule clause it is in, if any.
        expected: what would have been accepted there, if known.
        source_line: the text of the offending line.
        severity: "error" (the only severity that stops a load) or "warning".
    """

    span: Span
    message: str
    rule: str | None = None
    expected: tuple[str, ...] = ()
    source_line: str = ""
    severity: str = "error"

    def render(self) -> str:
        """The diagnostic as a compiler would print it."""
        where = f"{self.span.path}:{self.span.line}:{self.span.column}"
        context = f" [rule {self.rule}]" if self.rule else ""
        lines = [f"{where}: {self.severity}: {self.message}{context}"]
        if self.source_line:
            text = _LINE_BREAKS.sub(" ", self.source_line.rstrip("\n")).expandtabs(1)
            lines.append(f"    {text}")
            width = 1
            if self.span.end_column and self.span.end_column > self.span.column:
                width = self.span.end_column - self.span.column
            lines.append("    " + " " * (self.span.column - 1) + "^" * width)
        if self.expected:
            lines.append("  expected: " + ", ".join(self.expected))
        return "\n".join(lines)


def enclosing_block(text: str, line: int) -> str | None:
    """The number of the rule clause around ``line`` (1-based), by scanning upward.

    Used for syntax errors, where no tree exists yet to say which rule the
    error is in. Data blocks answer as ``map NAME`` etc.
    """
    lines = source_lines(text)
    if 0 < line <= len(lines):
        header = re.match(r"^\s*rule\s+([^\s{\"]+)", lines[line - 1])
        if header:  # an error in a rule's own header belongs to that rule
            return header.group(1)
    for index in range(min(line, len(lines)) - 1, -1, -1):
        match = _RULE_HEADER.match(lines[index])
        if match:
            return match.group(1)
        block = _BLOCK_HEADER.match(lines[index])
        if block:
            return f"{block.group(1)} {block.group(2)}"
    return None


def source_lines(text: str) -> list[str]:
    """The lines of a source text as the parser counts them: split at "\\n" only.

    ``str.splitlines`` would also split at form feeds, U+2028 and others,
    which may stand inside a string or a comment; a "\\r" before the "\\n"
    is dropped.
    """
    lines = text.split("\n")
    if lines and lines[-1] == "":
        lines.pop()
    return [line[:-1] if line.endswith("\r") else line for line in lines]


def line_of(text: str, line: int) -> str:
    """Line ``line`` (1-based) of ``text``, or an empty string."""
    lines = source_lines(text)
    return lines[line - 1] if 0 < line <= len(lines) else ""


class SourceLines:
    """The lines of several source texts by path, each text split once, when first
    asked for (a checker quotes many lines of one file: splitting the file for each
    would cost time in proportion to the file's size, every time)."""

    def __init__(self, texts: dict[str, str]) -> None:
        self.texts = texts
        self._lines: dict[str, list[str]] = {}

    def line(self, path: str, line: int) -> str:
        """Line ``line`` (1-based) of the text of ``path``, or an empty string."""
        lines = self._lines.get(path)
        if lines is None:
            lines = self._lines[path] = source_lines(self.texts.get(path, ""))
        return lines[line - 1] if 0 < line <= len(lines) else ""
