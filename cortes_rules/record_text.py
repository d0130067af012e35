"""The text of a game record: the ``Record`` it holds, read and written back.

``cortes_rules.record`` is the public face (it loads rulebooks, replays and
verifies); this module knows only the format (docs/records.md)::

    cortes-rules-record 2
    # comments run to the end of the line; they are kept
    rulebook cortes
    rulebook-digest 5d41402abc4b2a76
    options 11.1 11.2
    reading minimum_move any_points_left
    seed 7
    turn-limit 1
    setup demo
    move S9 3011    # a comment attached to this action
    resolve
    roll 8
    ? move A12 2910

A ``position`` header followed by lines starting with ``|`` starts the game
from a position in notation instead of a set-up. A text without the first
line ``cortes-rules-record N`` is a record of version 1 (``rulebook``,
``setup``, ``seed`` and ``turn-limit`` headers only); it is still read.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable

import attrs

from .dsl.diagnostics import source_lines
from .engine.actions import Action
from .errors import NotationError, RecordError

MAGIC = "cortes-rules-record"
"""The first word of a record of version 2 or later."""
VERSION = 2
"""The version this package writes (and the newest it reads)."""
HEADERS_V1 = ("rulebook", "setup", "seed", "turn-limit")
HEADERS = ("rulebook", "rulebook-digest", "scenario", "options", "reading", "seed",
           "turn-limit", "setup", "position", "view")
VIEW = "view"
"""The header of one player's view of a game (``format_record(..., player=P)``)."""
BLOCK = "|"
"""The mark that starts each line of a ``position`` block."""
_WHOLE = re.compile(r"-?(?:0|[1-9][0-9]{0,39})")
_WORD = re.compile(r"[^\s#|]+")
_DIGEST = re.compile(r"[0-9a-f]{8,64}")


@attrs.frozen
class Entry:
    """One line of a record's body, in order.

    Attributes:
        line: its line number in the text read (0 for a record built in memory).
        kind: ``"action"`` (played), ``"question"`` (a ``?`` line: why is this
            illegal here? not played) or ``"comment"`` (a line of its own).
        action: the action of an action or question line.
        comment: the comment's text (after ``#``): the whole line's for a
            comment, the one that ends an action or question line otherwise.
    """

    line: int
    kind: str
    action: Action | None = None
    comment: str | None = None


@attrs.frozen
class Record:
    """A parsed record: headers and numbered action lines.

    Attributes:
        path: where the record was read from (for messages).
        rulebook: the rulebook it is played under (a shipped name or a path).
        setup: the set-up it starts from, if any.
        seed: the seed of the dice the engine rolls.
        turn_limit: the game's turn limit, if any.
        actions: ``(line, action)`` for every action line, in order.
        questions: ``(line, number of actions played before it, action)``
            for every ``?`` line.
        version: the format's version (1: no version line).
        digest: the ``rulebook-digest`` header: the rulebook the record was
            written with (``rulebook_digest()``), if given.
        options: the optional rules (numbers or presets) to load the rulebook with.
        readings: ``(entry, reading)`` for each interpretation read otherwise
            than by default.
        scenario: the scenario to load the rulebook for, if any.
        position: the starting position in notation, instead of a set-up.
        entries: the body: actions, questions and comments, in order.
        head_comments: the comments among the headers.
        header_lines: header name -> the line that gives it (for messages).
        warnings: what does not stop a replay but may change it (a rulebook
            that is not the one the record was written with).
    """

    path: str
    rulebook: str
    setup: str | None
    seed: int
    turn_limit: int | None
    actions: tuple[tuple[int, Action], ...]
    questions: tuple[tuple[int, int, Action], ...] = ()
    version: int = VERSION
    digest: str | None = None
    options: tuple[str, ...] = ()
    readings: tuple[tuple[str, str], ...] = ()
    scenario: str | None = None
    position: str | None = None
    entries: tuple[Entry, ...] = ()
    head_comments: tuple[str, ...] = ()
    header_lines: tuple[tuple[str, int], ...] = ()
    warnings: tuple[str, ...] = ()

    def line_of(self, header: str, default: int = 1) -> int:
        """The line of a header (``default`` when the record does not give it)."""
        return dict(self.header_lines).get(header, default)

    def to_text(self) -> str:
        """The record as text, in the newest format (``parse_record`` reads it back)."""
        return write(self)


# ============================================================ writing

def write(record: Record) -> str:
    """A record as text of version ``VERSION``; equal records give equal texts."""
    lines = [f"{MAGIC} {VERSION}"]
    lines.extend(f"#{text}" for text in record.head_comments)
    lines.append(f"rulebook {record.rulebook}")
    if record.digest:
        lines.append(f"rulebook-digest {record.digest}")
    if record.scenario is not None:
        lines.append(f"scenario {record.scenario}")
    if record.options:
        lines.append("options " + " ".join(record.options))
    lines.extend(f"reading {entry} {reading}" for entry, reading in record.readings)
    if record.position is None:
        lines.append(f"seed {record.seed}")
        if record.turn_limit is not None:
            lines.append(f"turn-limit {record.turn_limit}")
        if record.setup:
            lines.append(f"setup {record.setup}")
    else:
        lines.append("position")
        lines.extend(f"{BLOCK} {ln}".rstrip() for ln in source_lines(record.position))
    entries = record.entries or tuple(Entry(n, "action", a) for n, a in record.actions)
    for entry in entries:
        if entry.kind == "comment":
            lines.append(f"#{entry.comment}")
            continue
        text = f"? {entry.action}" if entry.kind == "question" else str(entry.action)
        lines.append(text + (f"  #{entry.comment}" if entry.comment is not None else ""))
    return "\n".join(lines) + "\n"


# ============================================================ reading

ActionReader = Callable[[str], Action]
"""Makes an action of its text (``Rulebook.parse_action``); raises NotationError."""


@attrs.define
class Headers:
    """The headers of a record as read, before its rulebook is known."""

    path: str
    version: int = 1
    values: dict[str, tuple[int, str]] = attrs.Factory(dict)
    readings: list[tuple[int, str, str]] = attrs.Factory(list)
    position: list[str] | None = None
    position_line: int = 0
    comments: list[tuple[int, str]] = attrs.Factory(list)
    """(line, text) of the comments among the headers."""
    last: int = 0
    """The last line of the headers (a position block's last line included)."""

    def error(self, message: str, line: int) -> RecordError:
        """A RecordError of this record at a line."""
        return RecordError(message, path=self.path, line=line)

    def whole(self, name: str, default: int | None, low: int | None = None) -> int | None:
        """A header's whole number (``default`` when absent)."""
        if name not in self.values:
            return default
        line, given = self.values[name]
        try:
            if self.version > 1 and not _WHOLE.fullmatch(given):
                raise ValueError(given)
            value = int(given)
        except ValueError:
            raise self.error(f"seed and turn-limit must be whole numbers, not "
                             f"{_clip(given)!r}", line) from None
        if low is not None and value < low:
            raise self.error(f"{name} must be at least {low}, not {value}", line)
        return value

    def word(self, name: str) -> str | None:
        """A header's single word, if given."""
        return self.values[name][1] if name in self.values else None


@attrs.define
class Body:
    """The lines after the headers, before their actions are read."""

    lines: list[tuple[int, str, str | None, str | None]] = attrs.Factory(list)
    """(line, kind, action text or None, comment or None)."""


def _split(raw: str) -> tuple[str, str | None]:
    """A line's code and its comment (after the first ``#``), if any."""
    code, mark, comment = raw.partition("#")
    return code.strip(), comment.rstrip() if mark else None


def _clip(text: str, width: int = 40) -> str:
    """A piece of a line short enough for a one-line message."""
    return text if len(text) <= width else text[:width] + "..."


def _version(raw: str, headers: Headers, number: int) -> bool:
    """Whether a line is the version line (and read it into ``headers``)."""
    code, _ = _split(raw)
    word, _, rest = code.partition(" ")
    if word != MAGIC:
        if word.lower().replace("_", "-") in (MAGIC, MAGIC.replace("-record", "")):
            raise headers.error(f"a record's first line is '{MAGIC} {VERSION}', not "
                                f"{_clip(code)!r}", number)
        return False
    given = rest.strip()
    if not re.fullmatch(r"[1-9][0-9]{0,5}", given):
        raise headers.error(f"the version line is '{MAGIC} N' with N a whole number "
                            f"(this package writes {VERSION}), not {_clip(code)!r}", number)
    version = int(given)
    if version > VERSION:
        raise headers.error(f"record version {version} is newer than this package reads "
                            f"(1 to {VERSION}): upgrade cortes_rules", number)
    headers.version = max(version, 2) if version > 1 else 1
    return True


def split(text: str, path: str) -> tuple[Headers, Body]:
    """A record's lines sorted into headers and body (nothing checked against a rulebook).

    Raises:
        RecordError: a header is malformed, repeated or comes after an action.
    """
    if not isinstance(text, str):
        raise RecordError(f"a record is a text, not {type(text).__name__}", path=path, line=0)
    headers, body = Headers(path), Body()
    known: tuple[str, ...] = HEADERS_V1
    first = True
    in_block = False
    for number, raw in enumerate(source_lines(text), start=1):
        if in_block:
            if raw.startswith(BLOCK):
                assert headers.position is not None
                rest = raw[1:]
                headers.position.append(rest[1:] if rest.startswith(" ") else rest)
                headers.last = number
                continue
            in_block = False
            if not headers.position:
                raise headers.error(f"the position block is empty: each of its lines starts "
                                    f"with '{BLOCK} '", headers.position_line)
        code, comment = _split(raw)
        if first and code:
            first = False
            if _version(raw, headers, number):
                known = HEADERS if headers.version > 1 else HEADERS_V1
                continue
        if raw.lstrip().startswith(BLOCK):
            raise headers.error(f"a line starting with '{BLOCK}' belongs to a position block, "
                                f"after a 'position' header", number)
        if not code:
            if comment is not None:
                if body.lines:
                    body.lines.append((number, "comment", None, comment))
                else:
                    headers.comments.append((number, comment))
            continue
        if code.startswith("?"):
            body.lines.append((number, "question", code[1:].strip(), comment))
            continue
        word, _, rest = code.partition(" ")
        rest = rest.strip()
        if word not in known:
            body.lines.append((number, "action", code, comment))
            continue
        if any(kind == "action" for _, kind, _, _ in body.lines):
            raise headers.error(f"header {word!r} after the first action", number)
        headers.last = number
        if comment is not None:
            headers.comments.append((number, comment))
        if word == "reading":
            parts = rest.split()
            if len(parts) != 2 or not all(_WORD.fullmatch(p) for p in parts):
                raise headers.error(f"a reading line is 'reading ENTRY READING', not "
                                    f"{_clip(code)!r}", number)
            if any(parts[0] == e for _, e, _ in headers.readings):
                raise headers.error(f"interpretation {parts[0]!r} read twice", number)
            headers.readings.append((number, parts[0], parts[1]))
            continue
        if word in headers.values:
            raise headers.error(f"header {word!r} given twice (first at line "
                                f"{headers.values[word][0]})", number)
        if word == "position":
            if rest:
                raise headers.error("the 'position' header stands alone; the position's "
                                    f"lines follow, each starting with '{BLOCK} '", number)
            headers.values[word] = (number, "")
            headers.position, headers.position_line, in_block = [], number, True
            continue
        if headers.version > 1 and word != "options" and not _WORD.fullmatch(rest):
            raise headers.error(f"header {word!r} takes one word, not {_clip(rest)!r}", number)
        if headers.version > 1 and word == "options" and not rest:
            raise headers.error("an options line names at least one option", number)
        headers.values[word] = (number, rest)
    if in_block and not headers.position:
        raise headers.error(f"the record ends in an empty position block: each of its lines "
                            f"starts with '{BLOCK} '", headers.position_line)
    _check_headers(headers)
    # The comments after the last header open the body (they tell of the first actions).
    opening = [(n, "comment", None, c) for n, c in headers.comments if n > headers.last]
    headers.comments = [(n, c) for n, c in headers.comments if n <= headers.last]
    body.lines[:0] = opening
    return headers, body


def _check_headers(headers: Headers) -> None:
    """What the headers must agree on, whatever the rulebook."""
    if headers.version == 1:
        return
    if VIEW in headers.values:
        line, player = headers.values[VIEW]
        raise headers.error(f"this is {player}'s view of a game, not a record: what that "
                            f"player may not see is left out, so it cannot be replayed", line)
    given = headers.values.get("rulebook-digest")
    if given is not None and not _DIGEST.fullmatch(given[1]):
        raise headers.error(f"rulebook-digest is 8 to 64 lowercase hexadecimal digits, not "
                            f"{_clip(given[1])!r}", given[0])
    if "position" in headers.values:
        for name in ("setup", "seed", "turn-limit"):
            if name in headers.values:
                raise headers.error(f"'{name}' and 'position' cannot both be given: the "
                                    f"position holds the seed, the turn limit and where every "
                                    f"piece stands", headers.values[name][0])


def read_body(headers: Headers, body: Body, reader: ActionReader,
              ) -> tuple[list[Entry], list[tuple[int, Action]], list[tuple[int, int, Action]]]:
    """The body's entries, its actions and its questions, each action read by ``reader``.

    Raises:
        RecordError: a line is not an action of the rulebook (names the line).
    """
    entries: list[Entry] = []
    actions: list[tuple[int, Action]] = []
    questions: list[tuple[int, int, Action]] = []
    for number, kind, code, comment in body.lines:
        if code is None:
            entries.append(Entry(number, kind, None, comment))
            continue
        try:
            action = reader(code)
        except NotationError as error:
            raise headers.error(f"not an action of this rulebook: {_clip(code)!r} "
                                f"({str(error).splitlines()[0]})", number) from None
        if kind == "question":
            questions.append((number, len(actions), action))
        else:
            actions.append((number, action))
        entries.append(Entry(number, kind, action, comment))
    return entries, actions, questions


def options_of(text: str | None) -> tuple[str, ...]:
    """The words of an ``options`` header."""
    return tuple(text.split()) if text else ()


def notation_line(error: NotationError, start: int) -> int:
    """The line of a record that a NotationError about its position block means."""
    found = re.match(r"line ([0-9]+):", str(error))
    return start + int(found.group(1)) if found else start


def lines_of(values: Iterable[tuple[str, tuple[int, str]]]) -> tuple[tuple[str, int], ...]:
    """Header name -> line pairs, for ``Record.header_lines``."""
    return tuple((name, line) for name, (line, _) in values)
