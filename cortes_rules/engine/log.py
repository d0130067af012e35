"""The game log: lines kept as templates and values, written out when read.

A procedure's ``log`` statement records the template of its text, the values
of its fields, the rules it cites and who may read it (``EVERYONE``, or the
players it names less those from whom a piece it names is hidden). The
text and the sorted rule numbers are made only when a line is read, so a
step that nobody reads the log of pays for neither. The state keeps its log
as a chain of ``(entry, rest)`` pairs, newest first, which clones share.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ..core.world import Piece, Place, Player
from ..rule_numbers import rule_key
from .compile import NamedText, format_value

EVERYONE = object()   # a log line without ``to``


class LogEntry:
    """One line of a game's log, with the rules it cites and who may read it.

    The interpreter keeps the values a line shows and the rules it cites as
    they were, and writes the text (and sorts the rules) only when read.
    """

    __slots__ = ("turn", "phase", "_text", "_rules", "audience", "_parts", "_values", "_cited",
                 "_line")

    def __init__(self, turn: int, phase: str, text: str, rules: tuple[str, ...],
                 audience: frozenset[str] | None) -> None:
        self.turn, self.phase, self._text, self._rules = turn, phase, text, rules
        self.audience = audience
        self._parts: tuple[Any, ...] = ()
        self._values: tuple[Any, ...] = ()
        self._cited: Any = None
        self._line: str | None = None

    @classmethod
    def later(cls, turn: int, phase: str, parts: tuple[Any, ...], values: tuple[Any, ...],
              cited: Any, audience: frozenset[str] | None) -> LogEntry:
        """A line whose text is written from a template and values when first read."""
        entry = cls(turn, phase, "", (), audience)
        entry._text, entry._rules = None, None   # type: ignore[assignment]
        entry._parts, entry._values, entry._cited = parts, values, cited
        return entry

    @property
    def text(self) -> str:
        """The line's text, without the turn, phase and rules."""
        if self._text is None:
            self._text = _template(self._parts).format(*map(format_value, self._values))
        return self._text

    @property
    def rules(self) -> tuple[str, ...]:
        """The numbers of the rules the line cites, in rule order."""
        if self._rules is None:
            self._rules = _cited_rules(self._cited)
        return self._rules

    def named_pieces(self) -> list[Piece]:
        """The pieces the line names (among its values, and in texts joined from pieces)."""
        return _pieces_named(self._values, [])

    def visible_to(self, player: str | None) -> bool:
        """Whether a player may read this line (None: only lines addressed to everybody)."""
        return self.audience is None or (player is not None and player in self.audience)

    def as_dict(self) -> dict[str, Any]:
        """The line as plain data (turn, phase, text, rules), ready for JSON."""
        return {"turn": self.turn, "phase": self.phase, "text": self.text,
                "rules": list(self.rules)}

    def __str__(self) -> str:
        line = self._line
        if line is None:
            cited = f" [{', '.join(self.rules)}]" if self.rules else ""
            line = self._line = f"T{self.turn} {self.phase}: {self.text}{cited}"
        return line

    __repr__ = __str__


_TEMPLATES: dict[tuple[Any, ...], str] = {}
"""Each log template (its text and its fields in order) as a ``str.format`` pattern."""


def _template(parts: tuple[Any, ...]) -> str:
    """A log line's template as a format pattern: its texts, braces doubled, and ``{}``
    where each field's value goes."""
    try:
        pattern = _TEMPLATES.get(parts)
    except TypeError:   # a part that cannot be a key: worked out each time
        return _pattern(parts)
    if pattern is None:
        pattern = _pattern(parts)
        if len(_TEMPLATES) >= 4096:
            _TEMPLATES.clear()
        _TEMPLATES[parts] = pattern
    return pattern


def _pattern(parts: tuple[Any, ...]) -> str:
    return "".join(p.replace("{", "{{").replace("}", "}}") if isinstance(p, str) else "{}"
                   for p in parts)


_CITED: dict[Any, tuple[str, ...]] = {}
"""The sorted rule numbers of each collection of rule numbers a log line has cited."""


def _cited_rules(cited: Any) -> tuple[str, ...]:
    """The rule numbers a log line cites, without blanks or repeats, in rule order."""
    if cited is None:
        return ()
    if type(cited) is str:
        return (cited,) if cited else ()
    plain = type(cited) in (tuple, frozenset) and all(type(r) is str for r in cited)
    if plain:
        known = _CITED.get(cited)
        if known is not None:
            return known
    items = cited if isinstance(cited, (tuple, frozenset, list)) else (cited,)
    found = tuple(sorted({str(r) for r in items if r}, key=rule_key))
    if plain:
        if len(_CITED) >= 4096:
            _CITED.clear()
        _CITED[cited] = found
    return found


_NO_PIECE = frozenset({int, str, bool, type(None), Fraction, Place, Player})
"""The types of value that name no piece (a text joined from pieces is a NamedText)."""


def _pieces_named(values: Any, out: list[Piece]) -> list[Piece]:
    """``out`` with every piece a log line names added: its values, looking inside
    tuples, lists and sets, and the pieces a text was joined from."""
    for value in values:
        kind = type(value)
        if kind is Piece:
            out.append(value)
        elif kind in _NO_PIECE:
            continue
        elif isinstance(value, (tuple, list, frozenset, set)):
            _pieces_named(value, out)
        elif isinstance(value, NamedText):
            out.extend(value.pieces)
        elif isinstance(value, Piece):
            out.append(value)
    return out


def _log_between(start: tuple[Any, ...] | None, end: tuple[Any, ...] | None
                 ) -> list[LogEntry]:
    """The entries of a log chain after node ``start`` up to node ``end``, oldest first."""
    out = []
    chain = end
    while chain is not None and chain is not start:
        out.append(chain[0])
        chain = chain[1]
    out.reverse()
    return out


def _unchain(chain: tuple[Any, ...] | None) -> list[Any]:
    out = []
    while chain is not None:
        out.append(chain[0])
        chain = chain[1]
    out.reverse()
    return out
