"""Position notation: a whole game state as text a person can read and edit.

Like FEN for chess, a *position* says everything needed to go on playing
from a state: where every piece is and what differs on it from its start
values, the places' and players' attributes (markers, tallies), the
rulebook's values, what was revealed to whom, the turn and phase, the
running procedures with their variables, and the state of the seeded
generator. It knows no game: every name in it is one the rulebook declares.
``GameState.to_notation()`` writes one, ``Rulebook.position()`` reads
one back, and the state read behaves exactly as the one written, from then
on (the same legal actions, the same dice from ``apply_chance``, the same
log lines). The log and the history of actions are not part of a position:
a state read back starts with neither.

The text is made of lines; blank lines and lines whose first character
(after spaces) is ``#`` are ignored. Each other line starts with a keyword.
The writer puts them in the order below, with the pieces, places, players
and values in the rulebook's order and the frame variables sorted by name,
so that equal states give equal texts; the reader takes the lines in any
order, except that ``rulebook`` comes first, frames come bottom of the
stack first, and each ``let`` belongs to the ``frame`` above it::

    rulebook NAME                    the rulebook (its game block's name)
    scenario NAME                    the scenario it was loaded for, if any
    options RULE ...                 the optional rules switched on, if any
    reading ENTRY NAME               an interpretation read otherwise than by default
    seed INT                         the game's seed (default 0)
    rng INT                          the generator's state, 0 .. 2**64-1 (default: the seed's)
    turn INT [of INT]                the game turn, and the turn limit if any (default 1)
    phase NAME [INT]                 the phase (INT: which of several phases of that name)
    roll VALUE                       the last roll, if any
    over TEXT                        the game is over, for this reason
    winners PLAYER ...               ... and these players won
    detail NAME = VALUE              ... and its report says this
    at PLACE: PIECE[(ATTR=VALUE, ...)] ...   the pieces in a place, with their
                                     attributes that differ from their start values
    off: PIECE(ATTR=VALUE, ...) ...  pieces in no place whose attributes differ
    place PLACE: ATTR=VALUE, ...     a place's attributes (markers) that differ
    player PLAYER: ATTR=VALUE, ...   a player's attributes (tallies) that differ
    value NAME = VALUE               a value of the rulebook that differs
    revealed PIECE: PLAYER ...       a hidden piece shown to these players
    frame PROCEDURE PC               a running procedure (bottom of the stack first;
                                     ``turn-sequence`` is the turn sequence), at
                                     instruction PC of its compiled code
    let NAME = VALUE                 a variable of the frame above

A value is ``none``, ``true``, ``false``, a whole number (``-3``), a
fraction (``7/2``), a text in double quotes with JSON escapes (``"a b"``),
a thing the rulebook names (``piece:S1``, ``place:3012``,
``player:spanish``, ``dice:two_dice``, ``table:crt``), a tuple
``(a, b)`` (one item: ``(a,)``), a list ``[a, b]``, a set ``{a, b}``, a
text joined from pieces ``text("S1, S2", (piece:S1, piece:S2))``, a row of
a table ``row(table:NAME, KEY)``, or one option of a sealed choice
``option(PROCEDURE, PC, N)``. An id that is not a plain word is written in
double quotes (``place:"a b"``).

A start value is the one the rulebook's declaration gives a piece, place or
player, or a value, in a game with no piece placed. The PCs are indexes in
the compiled procedures: a position is tied to the rulebook's text (and the
package's version) it was written with. A position with no ``frame`` line
and not over starts at the beginning of its phase: the engine runs the
phase's procedure up to the first decision, as a game entering the phase
would.

Reading checks everything and reports a problem as a
``NotationError`` that names the line.
"""

from __future__ import annotations

import difflib
import json
import re
from collections.abc import Callable, Mapping
from fractions import Fraction
from typing import Any

from .core.world import Dice, Piece, Place, Player, Row, Table
from .dsl import ir
from .engine.compile import NamedText
from .engine.machine import GameState, Machine, Outcome, tick
from .engine.procedures import _PAUSES, PHASE, OptionSpec, Proc
from .engine.typed import is_of_declared_type
from .errors import CortesRulesError, NotationError
from .rule_numbers import rule_key

__all__ = ["read", "write"]

MAIN = "turn-sequence"
_MASK = (1 << 64) - 1
_DEPTH = 64            # how deeply values may nest
_DIGITS = 400          # the longest whole number read
_BARE = re.compile(r'[^\s(),\[\]{}=:"]+')
_INT = re.compile(r"-?(?:0|[1-9][0-9]*)")
_FRACTION = re.compile(r"(-?(?:0|[1-9][0-9]*))/([1-9][0-9]*)")
_TOKEN = re.compile(r'("(?:[^"\\\n]|\\.)*")|([(),\[\]{}=:])|([^\s(),\[\]{}=:"]+)|(\S)')


# ============================================================ what a rulebook gives

class _Context:
    """What the notation needs of one compiled rulebook, worked out once."""

    def __init__(self, machine: Machine) -> None:
        world = machine.world
        # The start values: a game with no piece placed, not yet begun.
        self.blank = GameState(machine, begin=False)
        self.types: dict[tuple[str, str], ir.TypeRef] = {}
        for decl in machine.program.of(ir.AttributeDecl):
            self.types[(decl.owner, decl.name)] = decl.type
        for value in machine.program.of(ir.ValueDecl):
            self.types[("value", value.name)] = value.type
        # The options of every choice, by where they are: (procedure, pc, index).
        self.options: dict[int, tuple[str, int, int]] = {}
        self.procs: dict[str, Proc] = {MAIN: machine.main, **machine.compiled_procs()}
        for name, proc in self.procs.items():
            for pc, ins in enumerate(proc.code):
                if ins[0] in _PAUSES and hasattr(ins[1], "options"):
                    for i, option in enumerate(ins[1].options):
                        self.options.setdefault(id(option), (name, pc, i))
        self.phase_names = [p.name for p in machine.phases]
        self.piece_words = [_word(p.id) for p in world.pieces]
        self.place_words = [_word(p.id) for p in world.places]
        self.kinds: dict[str, Mapping[str, Any]] = {
            "piece": world.piece, "place": world.place, "player": world.player,
            "dice": world.dice, "table": world.tables}
        game = machine.program.game
        self.name = game.name if game else "rulebook"
        interpretations = machine.program.interpretations
        self.default_readings = {k: e.default for k, e in interpretations.items()
                                 if e.default is not None}


def _context(machine: Machine) -> _Context:
    """The notation's view of a compiled rulebook, kept on it (built on first use)."""
    found = getattr(machine, "_notation_context", None)
    if not isinstance(found, _Context):
        found = _Context(machine)
        setattr(machine, "_notation_context", found)   # noqa: B010 - not a Machine field
    return found


# ============================================================ writing

def write(state: GameState) -> str:
    """The position of a game state, as text (see the module's docstring).

    Raises:
        NotationError: the state holds a value the notation cannot write.
    """
    ctx = _context(state.machine)
    machine = state.machine
    program = machine.program
    world = machine.world
    blank = ctx.blank
    lines = [f"rulebook {_word(ctx.name)}"]
    if program.scenario is not None:
        lines.append(f"scenario {_word(program.scenario)}")
    if program.options:
        lines.append("options " + " ".join(sorted(program.options, key=rule_key)))
    for entry, reading in sorted(program.readings.items()):
        if ctx.default_readings.get(entry) != reading:
            lines.append(f"reading {_word(entry)} {_word(reading)}")
    lines.append(f"seed {state.seed}")
    lines.append(f"rng {state.rng_state}")
    limit = f" of {state.turn_limit}" if state.turn_limit is not None else ""
    lines.append(f"turn {state.turn}{limit}")
    phase = ctx.phase_names[state.phase_index]
    same_name = [i for i, n in enumerate(ctx.phase_names) if n == phase]
    which = f" {same_name.index(state.phase_index) + 1}" if len(same_name) > 1 else ""
    lines.append(f"phase {_word(phase)}{which}")
    if state.last_roll is not None:
        lines.append(f"roll {_value(state.last_roll, ctx)}")
    if state.terminal and state.result is not None:
        result = state.result
        lines.append(f"over {_text(result.reason)}")
        if result.winners:
            lines.append("winners " + " ".join(_word(w) for w in result.winners))
        for key, detail in result.details.items():
            lines.append(f"detail {_word(key)} = {_value(detail, ctx)}")

    marked = _changed(state.piece_attrs, blank.piece_attrs, ctx)
    words = ctx.piece_words
    pieces: dict[int, str] = {i: f"{words[i]}({attrs})" for i, attrs in marked.items()}
    for index in sorted(state.occupants):
        listed = " ".join(pieces.pop(p.index, "") or words[p.index]
                          for p in state.occupants[index])
        lines.append(f"at {ctx.place_words[index]}: {listed}")
    if pieces:
        lines.append("off: " + " ".join(pieces[i] for i in sorted(pieces)))
    for index, attrs in sorted(_changed(state.place_attrs, blank.place_attrs, ctx).items()):
        lines.append(f"place {_word(world.places[index].id)}: {attrs}")
    for index, attrs in sorted(_changed(state.player_attrs, blank.player_attrs, ctx).items()):
        lines.append(f"player {_word(world.players[index].name)}: {attrs}")
    for name, value in state.values.items():
        if not _same_value(value, blank.values.get(name, _ABSENT)):
            lines.append(f"value {_word(name)} = {_value(value, ctx)}")
    shown: dict[int, list[int]] = {}
    for piece_index, viewer_index in sorted(state.revealed):
        shown.setdefault(piece_index, []).append(viewer_index)
    for piece_index, viewers in shown.items():
        names = " ".join(_word(world.players[v].name) for v in viewers)
        lines.append(f"revealed {_word(world.pieces[piece_index].id)}: {names}")
    for depth, (proc, pc, env) in enumerate(state.stack):
        name = MAIN if depth == 0 and proc is machine.main else proc.name
        lines.append(f"frame {_word(name)} {pc}")
        for var in sorted(env):
            lines.append(f"  let {_word(var)} = {_value(env[var], ctx)}")
    return "\n".join(lines) + "\n"


_ABSENT = object()


def _changed(table: Mapping[str, list[Any]], defaults: Mapping[str, list[Any]],
             ctx: _Context) -> dict[int, str]:
    """``NAME=VALUE, ...`` of the attributes that differ from their start values, by owner."""
    found: dict[int, list[str]] = {}
    for name, values in table.items():
        base = defaults[name]
        if values is base:
            continue
        index = 0
        for value, start in zip(values, base, strict=True):
            if value is not start and not _same_value(value, start):
                found.setdefault(index, []).append(f"{_word(name)}={_value(value, ctx)}")
            index += 1
    return {index: ", ".join(parts) for index, parts in found.items()}


def _same_value(a: Any, b: Any) -> bool:
    """Whether two values are the same to the notation (same types, all the way down)."""
    if a is b:
        return True
    if type(a) is not type(b):
        return False
    if isinstance(a, (tuple, list)):
        return len(a) == len(b) and all(_same_value(x, y) for x, y in zip(a, b, strict=True))
    if isinstance(a, frozenset):
        return bool(a == b) and sorted(map(repr, a)) == sorted(map(repr, b))
    if isinstance(a, NamedText):
        return str(a) == str(b) and _same_value(a.pieces, b.pieces)
    return bool(a == b)


def _word(text: str) -> str:
    """A name as a bare word when it is one, else in double quotes."""
    return text if _BARE.fullmatch(text) else _text(text)


def _text(text: str) -> str:
    """A text in double quotes, JSON escapes, every unprintable character escaped."""
    out = []
    for c in json.dumps(str(text), ensure_ascii=False):
        if c.isprintable():
            out.append(c)
        elif ord(c) > 0xFFFF:
            high, low = divmod(ord(c) - 0x10000, 0x400)
            out.append(f"\\u{0xD800 + high:04x}\\u{0xDC00 + low:04x}")
        else:
            out.append(f"\\u{ord(c):04x}")
    return "".join(out)


def _value(value: Any, ctx: _Context) -> str:
    """A value of the rules language, as the notation writes it."""
    if value is None:
        return "none"
    if value is True:
        return "true"
    if value is False:
        return "false"
    kind = type(value)
    if kind is int:
        return str(value)
    if kind is Fraction:
        return f"{value.numerator}/{value.denominator}"
    if kind is str:
        return _text(value)
    if kind is NamedText:
        return f"text({_text(str(value))}, {_value(tuple(value.pieces), ctx)})"
    if kind is Piece:
        return f"piece:{_word(value.id)}"
    if kind is Place:
        return f"place:{_word(value.id)}"
    if kind is Player:
        return f"player:{_word(value.name)}"
    if kind is Dice:
        return f"dice:{_word(value.name)}"
    if kind is Table:
        return f"table:{_word(value.name)}"
    if kind is tuple:
        if len(value) == 1:
            return f"({_value(value[0], ctx)},)"
        return "(" + ", ".join(_value(v, ctx) for v in value) + ")"
    if kind is list:
        return "[" + ", ".join(_value(v, ctx) for v in value) + "]"
    if kind is frozenset:
        return "{" + ", ".join(sorted(_value(v, ctx) for v in value)) + "}"
    if kind is Row:
        key = next((k for k, cells in value.table.rows.items() if cells is value.cells),
                   _ABSENT)
        if key is not _ABSENT:
            return f"row(table:{_word(value.table.name)}, {_value(key, ctx)})"
    if kind is OptionSpec:
        where = ctx.options.get(id(value))
        if where is not None:
            return f"option({_word(where[0])}, {where[1]}, {where[2]})"
    raise NotationError(f"a position cannot hold {value!r} (a {kind.__name__})")


# ============================================================ reading

class _Error(Exception):
    """A problem with one line: the reader adds the line's number."""


class _Line:
    """The tokens of one line, read left to right."""

    def __init__(self, text: str, ctx: _Context) -> None:
        self.ctx = ctx
        self.tokens: list[tuple[str, str]] = []
        for match in _TOKEN.finditer(text):
            quoted, punct, word, stray = match.groups()
            if quoted is not None:
                self.tokens.append(("text", quoted))
            elif punct is not None:
                self.tokens.append(("punct", punct))
            elif word is not None:
                self.tokens.append(("word", word))
            else:
                if stray == '"':
                    raise _Error("a text in double quotes is not closed")
                raise _Error(f"cannot read {text[match.start():match.start() + 20]!r}")
        self.at = 0

    # ------------------------------------------------------------ tokens
    def peek(self, ahead: int = 0) -> tuple[str, str] | None:
        i = self.at + ahead
        return self.tokens[i] if i < len(self.tokens) else None

    def next(self, what: str) -> tuple[str, str]:
        token = self.peek()
        if token is None:
            raise _Error(f"the line ends where {what} should be")
        self.at += 1
        return token

    def punct(self, char: str) -> bool:
        """Take ``char`` if it comes next."""
        if self.peek() == ("punct", char):
            self.at += 1
            return True
        return False

    def expect(self, char: str, what: str) -> None:
        if not self.punct(char):
            token = self.peek()
            found = "the end of the line" if token is None else repr(_shown(token))
            raise _Error(f"expected {char!r} {what}, found {found}")

    def name(self, what: str) -> str:
        """A word, or a text in double quotes."""
        kind, text = self.next(what)
        if kind == "word":
            return text
        if kind == "text":
            return _unquote(text)
        raise _Error(f"expected {what}, found {text!r}")

    def number(self, what: str, low: int | None = None, high: int | None = None) -> int:
        text = self.name(what)
        value = _whole(text, what)
        if low is not None and value < low:
            raise _Error(f"{what} must be at least {low}, not {text}")
        if high is not None and value > high:
            raise _Error(f"{what} must be at most {high}, not {text}")
        return value

    def end(self) -> None:
        token = self.peek()
        if token is not None:
            raise _Error(f"unexpected {_shown(token)!r} at the end of the line")

    def done(self) -> bool:
        return self.at >= len(self.tokens)

    # ------------------------------------------------------------ values
    def value(self, depth: int = 0) -> Any:
        if depth > _DEPTH:
            raise _Error(f"values nest more than {_DEPTH} deep")
        kind, text = self.next("a value")
        if kind == "text":
            return _unquote(text)
        if kind == "punct":
            closer = {"(": ")", "[": "]", "{": "}"}.get(text)
            if closer is None:
                raise _Error(f"expected a value, found {text!r}")
            items, trailing = self.items(closer, depth)
            if text == "(":
                if len(items) == 1 and not trailing:
                    raise _Error("a tuple of one item is written with a comma: (x,)")
                return tuple(items)
            if text == "[":
                return items
            try:
                return frozenset(items)
            except TypeError:
                raise _Error("a set cannot hold lists or sets") from None
        if text == "none":
            return None
        if text in ("true", "false"):
            return text == "true"
        if text[0].isdigit() or text[0] == "-":
            fraction = _FRACTION.fullmatch(text)
            if fraction is not None:
                if len(text) > _DIGITS:
                    raise _Error(f"the number {text[:20]}... is too long")
                return Fraction(int(fraction.group(1)), int(fraction.group(2)))
            return _whole(text, "a number")
        if text in self.ctx.kinds and self.punct(":"):
            return self.thing(text)
        if text in ("text", "row", "option") and self.punct("("):
            return self.call(text, depth)
        raise _Error(f"{text!r} is not a value: write texts in double quotes and things "
                     f"with their kind (piece:ID, place:ID, player:NAME)")

    def items(self, closer: str, depth: int) -> tuple[list[Any], bool]:
        items: list[Any] = []
        trailing = False
        while not self.punct(closer):
            if items:
                self.expect(",", "between items")
                if self.punct(closer):
                    trailing = True
                    break
            items.append(self.value(depth + 1))
        return items, trailing

    def thing(self, kind: str) -> Any:
        return _lookup(self.ctx.kinds[kind], self.name(f"a {kind}'s name"), kind)

    def call(self, what: str, depth: int) -> Any:
        if what == "text":
            kind, quoted = self.next("a text")
            if kind != "text":
                raise _Error("text(...) takes a text in double quotes first")
            self.expect(",", "after the text")
            pieces = self.value(depth + 1)
            self.expect(")", "to close text(...)")
            if not isinstance(pieces, tuple) or not all(isinstance(p, Piece) for p in pieces):
                raise _Error("text(...) takes a tuple of pieces second")
            return NamedText(_unquote(quoted), pieces)
        if what == "row":
            table = self.value(depth + 1)
            if not isinstance(table, Table):
                raise _Error("row(...) takes a table first (table:NAME)")
            self.expect(",", "after the table")
            key = self.value(depth + 1)
            self.expect(")", "to close row(...)")
            try:
                cells = table.rows[key]
            except (KeyError, TypeError):
                raise _Error(f"table {table.name} has no row {_safe(key)}") from None
            return Row(table, cells)
        proc = _lookup(self.ctx.procs, self.name("a procedure"), "procedure")
        self.expect(",", "after the procedure")
        pc = self.number("an instruction number", 0, len(proc.code) - 1)
        self.expect(",", "after the instruction number")
        ins = proc.code[pc]
        options = getattr(ins[1], "options", None) if ins[0] in _PAUSES else None
        if not options:
            raise _Error(f"instruction {pc} of {proc.name} is not a choice")
        index = self.number("an option number", 0, len(options) - 1)
        self.expect(")", "to close option(...)")
        return options[index]

    def assignments(self) -> list[tuple[str, Any]]:
        """``NAME=VALUE, ...`` up to the end of the line."""
        found: list[tuple[str, Any]] = []
        while not self.done():
            if found:
                self.expect(",", "between attributes")
            name = self.name("an attribute")
            self.expect("=", f"after {name}")
            found.append((name, self.value()))
        return found


def _shown(token: tuple[str, str]) -> str:
    return token[1]


def _unquote(quoted: str) -> str:
    try:
        text = json.loads(quoted)
    except ValueError:
        raise _Error(f"bad escape in the text {quoted[:30]}") from None
    if not isinstance(text, str):   # pragma: no cover - the token is a JSON string
        raise _Error("expected a text")
    return text


def _whole(text: str, what: str) -> int:
    if not _INT.fullmatch(text):
        raise _Error(f"{what}: {text[:30]!r} is not a whole number")
    if len(text) > _DIGITS:
        raise _Error(f"{what}: the number {text[:20]}... is too long")
    return int(text)


def _safe(value: Any) -> str:
    try:
        return repr(value)[:60]
    except Exception:   # pragma: no cover - values read here have a repr
        return "?"


def _lookup(table: Mapping[str, Any], key: str, kind: str) -> Any:
    found = table.get(key)
    if found is None:
        close = difflib.get_close_matches(key, list(table), n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise _Error(f"no {kind} {key!r} in this rulebook{hint}")
    return found


class _Reader:
    """Reads a position into a new state of one rulebook."""

    HEADERS = ("rulebook", "scenario", "options", "seed", "rng", "turn", "phase", "roll",
               "over", "winners")

    def __init__(self, machine: Machine) -> None:
        self.ctx = _context(machine)
        self.machine = machine
        self.seen: dict[str, int] = {}
        self.readings: dict[str, str] = {}
        self.options: frozenset[str] = frozenset()
        self.seed = 0
        self.rng: int | None = None
        self.turn = 1
        self.limit: int | None = None
        self.phase: int | None = None
        self.roll: Any = None
        self.reason: str | None = None
        self.winners: tuple[str, ...] = ()
        self.details: dict[str, Any] = {}
        self.where: dict[int, Place] = {}
        self.listed: dict[int, int] = {}   # piece index -> the line listing it
        blank = self.ctx.blank
        self.piece_attrs = {k: v[:] for k, v in blank.piece_attrs.items()}
        self.place_attrs = {k: v[:] for k, v in blank.place_attrs.items()}
        self.player_attrs = {k: v[:] for k, v in blank.player_attrs.items()}
        self.values = dict(blank.values)
        self.owned: set[tuple[str, int]] = set()   # place/player lines seen
        self.value_lines: set[str] = set()
        self.revealed: set[tuple[int, int]] = set()
        self.frames: list[tuple[int, Proc, int, dict[str, Any]]] = []
        self.places_listed: dict[int, int] = {}   # place index -> its 'at' line
        self.current = 0   # the number of the line being read
        self.detail_line = 0

    def read(self, text: str) -> GameState:
        number = 0
        first = True
        for number, raw in enumerate(text.split("\n"), start=1):
            line = raw[:-1] if raw.endswith("\r") else raw
            stripped = line.strip()
            if not stripped or stripped.startswith("#"):
                continue
            self.current = number
            try:
                self.line(line, first)
            except _Error as error:
                raise NotationError(f"line {number}: {error}") from None
            first = False
        if first:
            raise NotationError("line 1: an empty position: it starts with 'rulebook NAME'")
        try:
            return self.finish()
        except _Error as error:
            text_error = str(error)
            if text_error.startswith("line "):
                raise NotationError(text_error) from None
            raise NotationError(f"line {number}: {text_error}") from None

    # ------------------------------------------------------------ one line
    def line(self, text: str, first: bool) -> None:
        tokens = _Line(text, self.ctx)
        keyword = tokens.name("a keyword")
        if first and keyword != "rulebook":
            raise _Error(f"a position starts with 'rulebook {self.ctx.name}', not {keyword!r}")
        if keyword in self.HEADERS:
            if keyword in self.seen:
                raise _Error(f"a second '{keyword}' line (the first is line "
                             f"{self.seen[keyword]})")
            self.seen[keyword] = self.current
        handler: Callable[[_Line], None] | None = getattr(self, "do_" + keyword, None)
        if handler is None or keyword.startswith("_"):
            known = ("rulebook, scenario, options, reading, seed, rng, turn, phase, roll, "
                     "over, winners, detail, at, off, place, player, value, revealed, "
                     "frame, let")
            close = difflib.get_close_matches(keyword, known.split(", "), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _Error(f"unknown keyword {keyword!r}{hint}; the keywords are {known}")
        handler(tokens)
        tokens.end()

    # ------------------------------------------------------------ the header
    def do_rulebook(self, line: _Line) -> None:
        name = line.name("the rulebook's name")
        if name != self.ctx.name:
            raise _Error(f"this position is of the rulebook {name!r}, not {self.ctx.name!r}")

    def do_scenario(self, line: _Line) -> None:
        name = line.name("a scenario")
        loaded = self.machine.program.scenario
        if loaded is None:
            raise _Error(f"the rulebook {self.ctx.name!r} has no scenarios")
        if name != loaded:
            raise _Error(f"this position is of scenario {name!r}; the rulebook was loaded "
                         f"for {loaded!r}: load it with scenario={name!r}")

    def do_options(self, line: _Line) -> None:
        found: list[str] = []
        while not line.done():
            found.append(line.name("a rule number"))
        self.options = frozenset(found)

    def do_reading(self, line: _Line) -> None:
        entry_id = line.name("an interpretation")
        entries = self.machine.program.interpretations
        entry = _lookup(entries, entry_id, "interpretation")
        reading = line.name("a reading")
        if entry.reading(reading) is None:
            names = ", ".join(r.name for r in entry.readings)
            raise _Error(f"interpretation {entry_id!r} has no reading {reading!r} "
                         f"(readings: {names})")
        if entry_id in self.readings:
            raise _Error(f"a second reading of {entry_id!r}")
        self.readings[entry_id] = reading

    def do_seed(self, line: _Line) -> None:
        self.seed = line.number("the seed")

    def do_rng(self, line: _Line) -> None:
        self.rng = line.number("the generator's state", 0, _MASK)

    def do_turn(self, line: _Line) -> None:
        self.turn = line.number("the turn", 1)
        if not line.done():
            if line.name("'of'") != "of":
                raise _Error("write the turn limit as 'turn N of LIMIT'")
            self.limit = line.number("the turn limit", 1)
            if self.turn > self.limit:
                raise _Error(f"turn {self.turn} is past the turn limit {self.limit}")

    def do_phase(self, line: _Line) -> None:
        name = line.name("a phase")
        names = self.ctx.phase_names
        same = [i for i, n in enumerate(names) if n == name]
        if not same:
            close = difflib.get_close_matches(name, names, n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _Error(f"no phase {name!r} in this rulebook{hint}")
        which = line.number("which phase of that name", 1, len(same)) if not line.done() else 1
        self.phase = same[which - 1]

    def do_roll(self, line: _Line) -> None:
        self.roll = line.value()

    def do_over(self, line: _Line) -> None:
        kind, quoted = line.next("the reason the game ended")
        if kind != "text":
            raise _Error("write the reason the game ended in double quotes")
        self.reason = _unquote(quoted)

    def do_winners(self, line: _Line) -> None:
        found = []
        while not line.done():
            found.append(_lookup(self.machine.world.player, line.name("a player"),
                                 "player").name)
        self.winners = tuple(found)

    def do_detail(self, line: _Line) -> None:
        name = line.name("a detail")
        line.expect("=", f"after {name}")
        if name in self.details:
            raise _Error(f"a second detail {name!r}")
        self.details[name] = line.value()
        self.detail_line = self.detail_line or self.current

    # ------------------------------------------------------------ pieces, places, players
    def do_at(self, line: _Line) -> None:
        place = line.thing("place")
        line.expect(":", "after the place")
        if place.index in self.places_listed:
            raise _Error(f"a second 'at {place.id}' line (the first is line "
                         f"{self.places_listed[place.index]})")
        self.places_listed[place.index] = self.current
        self.pieces(line, place)

    def do_off(self, line: _Line) -> None:
        line.expect(":", "after 'off'")
        self.pieces(line, None)

    def pieces(self, line: _Line, place: Place | None) -> None:
        while not line.done():
            piece = line.thing("piece")
            if piece.index in self.listed:
                raise _Error(f"piece {piece.id} is listed twice (also on line "
                             f"{self.listed[piece.index]})")
            self.listed[piece.index] = self.current
            if place is not None:
                self.where[piece.index] = place
            if line.punct("("):
                first = True
                while not line.punct(")"):
                    if line.done():
                        raise _Error(f"the attributes of {piece.id} are not closed with ')'")
                    if not first:
                        line.expect(",", "between attributes")
                    first = False
                    self.attribute("piece", piece.index, piece.id, line, self.piece_attrs)

    def attribute(self, owner: str, index: int, who: str, line: _Line,
                  table: dict[str, list[Any]]) -> None:
        name = line.name("an attribute")
        if name not in table:
            close = difflib.get_close_matches(name, list(table), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            known = ", ".join(table) or "none"
            raise _Error(f"a {owner} has no attribute {name!r}{hint} (attributes: {known})")
        line.expect("=", f"after {name}")
        value = line.value()
        type_ref = self.ctx.types.get((owner, name))
        if not is_of_declared_type(value, type_ref):
            kind = type_ref.name if type_ref is not None else "?"
            raise _Error(f"{who}.{name} is declared {kind}, not {_value_or_repr(value, self.ctx)}")
        key = (owner + "." + name, index)
        if key in self.owned:
            raise _Error(f"{who}.{name} is given twice")
        self.owned.add(key)
        table[name][index] = value

    def owner_line(self, line: _Line, owner: str, thing: Any, who: str, index: int,
                   table: dict[str, list[Any]]) -> None:
        line.expect(":", f"after the {owner}")
        first = True
        while not line.done():
            if not first:
                line.expect(",", "between attributes")
            first = False
            self.attribute(owner, index, who, line, table)

    def do_place(self, line: _Line) -> None:
        place = line.thing("place")
        self.owner_line(line, "place", place, place.id, place.index, self.place_attrs)

    def do_player(self, line: _Line) -> None:
        player = line.thing("player")
        self.owner_line(line, "player", player, player.name, player.index, self.player_attrs)

    def do_value(self, line: _Line) -> None:
        name = line.name("a value's name")
        if name not in self.values:
            close = difflib.get_close_matches(name, list(self.values), n=1)
            hint = f" (did you mean {close[0]!r}?)" if close else ""
            raise _Error(f"no value {name!r} in this rulebook{hint}")
        if name in self.value_lines:
            raise _Error(f"a second line for the value {name!r}")
        self.value_lines.add(name)
        line.expect("=", f"after {name}")
        value = line.value()
        type_ref = self.ctx.types.get(("value", name))
        if not is_of_declared_type(value, type_ref):
            kind = type_ref.name if type_ref is not None else "?"
            raise _Error(f"the value {name} is declared {kind}, not "
                         f"{_value_or_repr(value, self.ctx)}")
        self.values[name] = value

    def do_revealed(self, line: _Line) -> None:
        piece = line.thing("piece")
        line.expect(":", "after the piece")
        while not line.done():
            player = line.thing("player")
            self.revealed.add((piece.index, player.index))

    # ------------------------------------------------------------ frames
    def do_frame(self, line: _Line) -> None:
        name = line.name("a procedure")
        if (name == MAIN) != (not self.frames):
            raise _Error("the first frame is the turn sequence ('frame turn-sequence PC'), "
                         "and only the first")
        proc = _lookup(self.ctx.procs, name, "procedure")
        pc = line.number(f"the instruction number in {name}", 0, len(proc.code))
        self.frames.append((self.current, proc, pc, {}))

    def do_let(self, line: _Line) -> None:
        if not self.frames:
            raise _Error("'let' gives a variable of the frame above it: there is none")
        name = line.name("a variable")
        if not name.startswith("$") and name not in self.machine.fast.env_names:
            raise _Error(f"{name!r} is no variable of this rulebook: nothing in it binds "
                         "that name")
        line.expect("=", f"after {name}")
        env = self.frames[-1][3]
        if name in env:
            raise _Error(f"a second 'let {name}' in this frame")
        env[name] = line.value()

    # ------------------------------------------------------------ the state
    def finish(self) -> GameState:
        machine, ctx = self.machine, self.ctx
        program = machine.program
        if self.options != program.options:
            wanted = " ".join(sorted(self.options, key=rule_key)) or "none"
            loaded = " ".join(sorted(program.options, key=rule_key)) or "none"
            raise _Error(f"line {self.seen.get('options', 1)}: this position is played with "
                         f"the optional rules {wanted}; the rulebook was loaded with {loaded}")
        if program.scenario is not None and "scenario" not in self.seen:
            raise _Error(f"line 1: the rulebook was loaded for scenario {program.scenario!r}; "
                         "the position names none ('scenario NAME')")
        readings = {**ctx.default_readings, **self.readings}
        if readings != dict(program.readings):
            differ = sorted(k for k in set(readings) | set(program.readings)
                            if readings.get(k) != program.readings.get(k))
            raise _Error(f"line 1: the position reads the interpretations "
                         f"{', '.join(differ)} otherwise than the rulebook was loaded with")
        if self.phase is None:
            raise _Error("the position names no phase ('phase NAME')")
        over = self.reason is not None
        if not over and ("winners" in self.seen or self.details):
            at = self.seen.get("winners") or self.detail_line
            raise _Error(f"line {at}: 'winners' and 'detail' describe a game that is over: "
                         "add 'over TEXT'")
        if not over and self.frames:
            at, proc, pc, _ = self.frames[-1]
            if pc >= len(proc.code) or proc.code[pc][0] not in _PAUSES:
                raise _Error(f"line {at}: instruction {pc} of {_proc_name(proc)} is not a "
                             "decision or a chance event, where a game waits")
        state = ctx.blank.clone()
        world = machine.world
        where: list[Place | None] = [None] * len(world.pieces)
        occupants: dict[int, list[Piece]] = {}
        for index, place in sorted(self.where.items()):
            where[index] = place
            occupants.setdefault(place.index, []).append(world.pieces[index])
        state.__dict__.update(
            seed=self.seed,
            rng_state=self.rng if self.rng is not None else self.seed & _MASK,
            turn=self.turn, turn_limit=self.limit, phase_index=self.phase,
            where=where, occupants={k: tuple(v) for k, v in occupants.items()},
            stamps=[tick()] * machine.stamp_count,
            _stamps_shared=False, _places_shared=False, _pieces_shared=False,
            _board_shared=False, _values_shared=False, _ecache={},
            piece_attrs=self.piece_attrs, place_attrs=self.place_attrs,
            player_attrs=self.player_attrs, values=self.values,
            revealed=frozenset(self.revealed), terminal=over, result=None,
            last_roll=self.roll, drawn=None, _log=None, _history=None, _legal=None,
            stack=[[proc, pc, env] for _, proc, pc, env in self.frames])
        state._forget_undo()   # a position starts its own undo stack
        state._native_rebuild()   # the compiled backend's native state, from the above
        if over:
            scores = {}
            if "score" in state.player_attrs:
                scores = {p.name: state.player_attrs["score"][p.index] for p in world.seats}
            state.result = Outcome(self.winners, self.reason or "", scores, self.details)
            return state
        if not self.frames:
            self.begin_phase(state)
            return state
        self.probe(state, self.frames[-1][0])
        return state

    def begin_phase(self, state: GameState) -> None:
        """No frame: start the phase, running its procedure to the first decision."""
        main = self.machine.main
        at = self.seen.get("phase", 1)
        pc = next(i for i, ins in enumerate(main.code) if ins[:2] == (PHASE, self.phase))
        state.stack = [[main, pc, {}]]
        try:
            state._run()
            state._check_endings()
        except RecursionError:
            raise _Error(f"line {at}: the phase cannot begin in this position: the rules "
                         "call procedures too deeply") from None
        except Exception as error:   # values written by hand can break any rule they feed
            raise _Error(f"line {at}: the phase cannot begin in this position: "
                         f"{_failure(error)}") from None
        self.probe(state, at)

    def probe(self, state: GameState, at: int) -> None:
        """Ask the state what a caller would, so that a broken frame shows now, by its line."""
        try:
            if state.terminal:
                return
            _ = state.current_player
            if state.is_chance_node():
                state.chance_outcomes()
            else:
                state.legal_action_ids()
        except Exception as error:   # a hand-made frame can break anything it feeds
            raise _Error(f"line {at}: the game cannot go on from this position: "
                         f"{_failure(error)}") from None


def _failure(error: Exception) -> str:
    """What went wrong, for a message: the text of our errors, the kind of any other."""
    if isinstance(error, CortesRulesError):
        return str(error)
    return f"{type(error).__name__}: {error}"


def _proc_name(proc: Proc) -> str:
    return MAIN if proc.name == "the turn sequence" else proc.name


def _value_or_repr(value: Any, ctx: _Context) -> str:
    try:
        return _value(value, ctx)
    except NotationError:
        return _safe(value)


def read(machine: Machine, text: str) -> GameState:
    """A new game state from a position's text (see the module's docstring).

    Raises:
        NotationError: the text is not a position of this rulebook, as loaded;
            the message names the line and what is wrong.
    """
    if not isinstance(text, str):
        raise NotationError(f"a position is a text, not {type(text).__name__}")
    try:
        return _Reader(machine).read(text)
    except NotationError:
        raise
    except (ArithmeticError, AttributeError, LookupError, TypeError, ValueError,
            RecursionError) as error:   # a safety net: every problem should be named above
        raise NotationError(f"the position cannot be read: {_failure(error)}") from None
