"""The golden trace format: one reader and one writer, shared by the generator and the test.

A trace records one seeded game, ply by ply, as the engine played it when the
trace was written. It is plain text, one fact per line, so that a change in
the engine's behaviour shows up as a readable ``git diff``::

    # Golden trace, written by tests/golden/generate.py from the engine at 07590b8. ...
    game demo-01
    setup demo
    seed 8
    turn-limit 2
    ply-cap 400

    ply 1
    turn 1
    to-act spanish
    phase spanish_land_movement
    legal end | move S1 2908 | ...
    action move S9 3011
    log T1 Spanish land movement: S9 moves 3010 -> 3011 ... [7.7, 7.16]

    ...

    end terminal
    final A1 2810 4
    final S1 off 0

The header gives everything ``Rulebook.new_game`` needs: ``rulebook`` and
``scenario`` (only for a rulebook other than Cortés) name what is loaded; ``setup`` is a set-up
name or ``none``; ``positions`` (only when the game adds its own units) lists
``unit@hex`` pairs; ``options`` (only when some are on) names the optional
rules the rulebook is loaded with (a preset such as ``veteran``, or rule
numbers separated by commas); ``legal-form digest`` (full games only) says
that each ``legal`` line holds ``#COUNT DIGEST`` (how many legal actions
there are and the first 12 hex digits of the SHA-256 of their texts, in order,
joined by " | ") instead of the list itself, which would make a full game's
trace tens of megabytes. Each ply gives the state before the action (game turn,
side to act, or ``chance`` at a dice roll, phase and the legal actions in the
engine's order), the action taken and every log entry the action added. The
trace ends with ``end terminal`` (the game is over) or ``end cap`` (the ply
cap was reached first); a finished game then gives its ``outcome`` (winners,
or ``none``, and the reason) and one ``detail`` line per thing the ending
reports (a level of victory, loss points by cause); last comes one ``final``
line per unit: its place, or ``off`` when it is in none, and its steps.

Only the public API is used, so that a rewritten engine can replay the
traces; :func:`unit_place_and_steps` is the one place that reads a unit's
state, for a later engine to adapt.
"""

from __future__ import annotations

import difflib
import hashlib
import re
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field
from pathlib import Path
from typing import Any

HERE = Path(__file__).resolve().parent
TRACES = HERE / "traces"
SUFFIX = ".trace"

#: What the traces record (named in every file's first line): the behaviour of the
#: first engine (commit 07590b8) with the deliberate changes listed in CHANGES.md.
RECORDED_AT = "07590b8 with the deliberate changes of CHANGES.md"
BANNER = (f"# Golden trace, written by tests/golden/generate.py from the engine at "
          f"{RECORDED_AT}. Do not edit by hand.")

LEGAL_SEPARATOR = " | "
OFF_MAP = "off"
ENDINGS = ("terminal", "cap")
LEGAL_FORMS = ("full", "digest")


class TraceFormatError(ValueError):
    """A trace file does not follow the format."""


# ------------------------------------------------------------------ the records
@dataclass(frozen=True)
class Header:
    """How to start the game again: the arguments of ``Rulebook.new_game``."""

    game: str
    setup: str | None
    seed: int
    turn_limit: int
    ply_cap: int
    positions: Mapping[str, str] = field(default_factory=dict)
    options: str | None = None
    legal_form: str = "full"
    rulebook: str = "cortes"
    scenario: str | None = None

    def lines(self) -> list[str]:
        lines = [f"game {self.game}"]
        if self.rulebook != "cortes":
            lines.append(f"rulebook {self.rulebook}")
        if self.scenario:
            lines.append(f"scenario {self.scenario}")
        lines.append(f"setup {self.setup or 'none'}")
        if self.positions:
            pairs = " ".join(f"{u}@{h}" for u, h in sorted(self.positions.items(),
                                                           key=lambda item: unit_key(item[0])))
            lines.append(f"positions {pairs}")
        if self.options:
            lines.append(f"options {self.options}")
        if self.legal_form != "full":
            lines.append(f"legal-form {self.legal_form}")
        lines += [f"seed {self.seed}", f"turn-limit {self.turn_limit}",
                  f"ply-cap {self.ply_cap}"]
        return lines


@dataclass(frozen=True)
class Ply:
    """One decision: the state before it, the action taken and the log it added."""

    number: int
    turn: int
    to_act: str
    phase: str
    legal: tuple[str, ...]
    action: str
    log: tuple[str, ...]

    def before_lines(self) -> list[str]:
        """The facts about the state before the action, as written in a trace."""
        return [f"ply {self.number}", f"turn {self.turn}", f"to-act {self.to_act}",
                f"phase {self.phase}", _line("legal", LEGAL_SEPARATOR.join(self.legal))]

    def lines(self) -> list[str]:
        return [*self.before_lines(), f"action {self.action}",
                *(_line("log", entry) for entry in self.log)]


@dataclass(frozen=True)
class Final:
    """Where a unit is at the end of a trace, and its steps."""

    unit: str
    place: str
    steps: int

    def line(self) -> str:
        return f"final {self.unit} {self.place} {self.steps}"


@dataclass(frozen=True)
class Trace:
    header: Header
    plies: tuple[Ply, ...]
    end: str
    finals: tuple[Final, ...]
    outcome: tuple[str, ...] = ()

    def lines(self) -> list[str]:
        lines = [BANNER, *self.header.lines()]
        for ply in self.plies:
            lines += ["", *ply.lines()]
        lines += ["", *self.end_lines()]
        return lines

    def end_lines(self) -> list[str]:
        """The ``end`` line, the outcome and detail lines, and the final lines."""
        return [f"end {self.end}", *self.outcome, *(final.line() for final in self.finals)]


def _line(key: str, value: str) -> str:
    if "\n" in value or "\r" in value:
        raise TraceFormatError(f"a {key} line cannot hold a line break: {value!r}")
    return f"{key} {value}" if value else key


def unit_key(unit_id: str) -> tuple[str, int, str]:
    """Natural order of unit ids: A2 before A10, then leaders by name."""
    match = re.fullmatch(r"([A-Za-z]+)(\d+)", unit_id)
    if match:
        return match.group(1), int(match.group(2)), ""
    return unit_id, -1, unit_id


# ------------------------------------------------------------------ writing
def format_trace(trace: Trace) -> str:
    return "\n".join(trace.lines()) + "\n"


def write_trace(trace: Trace, directory: Path = TRACES) -> Path:
    directory.mkdir(parents=True, exist_ok=True)
    path = directory / f"{trace.header.game}{SUFFIX}"
    path.write_text(format_trace(trace), encoding="utf-8", newline="\n")
    return path


# ------------------------------------------------------------------ reading
def _split(line: str) -> tuple[str, str]:
    key, _, value = line.partition(" ")
    return key, value


def _int(value: str, where: str) -> int:
    try:
        return int(value)
    except ValueError:
        raise TraceFormatError(f"{where}: not a whole number: {value!r}") from None


def parse_trace(text: str, name: str = "<trace>") -> Trace:
    """Read a trace written by :func:`format_trace`.

    Raises:
        TraceFormatError: the text does not follow the format; the message
            names the line.
    """
    lines = [(n, line) for n, line in enumerate(text.splitlines(), start=1)
             if not line.startswith("#")]
    at = 0

    def where(n: int) -> str:
        return f"{name}:{n}"

    def take(key: str, optional: bool = False) -> str | None:
        nonlocal at
        while at < len(lines) and not lines[at][1]:
            at += 1
        if at == len(lines):
            if optional:
                return None
            raise TraceFormatError(f"{name}: ends where a {key!r} line was expected")
        n, line = lines[at]
        found, value = _split(line)
        if found != key:
            if optional:
                return None
            raise TraceFormatError(f"{where(n)}: expected a {key!r} line, found {line!r}")
        at += 1
        return value

    def take_all(key: str) -> list[str]:
        nonlocal at
        values = []
        while at < len(lines) and _split(lines[at][1])[0] == key:
            values.append(_split(lines[at][1])[1])
            at += 1
        return values

    game = take("game")
    rulebook = take("rulebook", optional=True) or "cortes"
    scenario = take("scenario", optional=True)
    setup = take("setup")
    positions_text = take("positions", optional=True)
    positions: dict[str, str] = {}
    for pair in (positions_text or "").split():
        unit, sep, hex_id = pair.partition("@")
        if not sep or not unit or not hex_id:
            raise TraceFormatError(f"{name}: bad position {pair!r} (expected unit@hex)")
        positions[unit] = hex_id
    options = take("options", optional=True)
    legal_form = take("legal-form", optional=True) or "full"
    if legal_form not in LEGAL_FORMS:
        raise TraceFormatError(f"{name}: legal-form must be one of {LEGAL_FORMS}, "
                               f"not {legal_form!r}")
    seed = _int(take("seed") or "", f"{name} seed")
    turn_limit = _int(take("turn-limit") or "", f"{name} turn-limit")
    ply_cap = _int(take("ply-cap") or "", f"{name} ply-cap")
    assert game is not None and setup is not None
    header = Header(game, None if setup == "none" else setup, seed, turn_limit, ply_cap,
                    positions, options or None, legal_form, rulebook, scenario)

    plies: list[Ply] = []
    while (number := take("ply", optional=True)) is not None:
        ply_number = _int(number, f"{name} ply")
        if ply_number != len(plies) + 1:
            raise TraceFormatError(f"{name}: ply {ply_number} out of order")
        turn = _int(take("turn") or "", f"{name} ply {ply_number} turn")
        to_act = take("to-act")
        phase = take("phase")
        legal = take("legal") or ""  # an empty list would be a bare "legal" line
        action = take("action")
        assert to_act is not None and phase is not None and action is not None
        log = take_all("log")
        plies.append(Ply(ply_number, turn, to_act, phase,
                         tuple(legal.split(LEGAL_SEPARATOR)) if legal else (), action,
                         tuple(log)))

    end = take("end")
    if end not in ENDINGS:
        raise TraceFormatError(f"{name}: the end line must be one of {ENDINGS}, not {end!r}")
    outcome = []
    if (found := take("outcome", optional=True)) is not None:
        outcome = [f"outcome {found}", *(f"detail {d}" for d in take_all("detail"))]
    finals = []
    for value in take_all("final"):
        parts = value.split()
        if len(parts) != 3:
            raise TraceFormatError(f"{name}: bad final line {value!r}")
        finals.append(Final(parts[0], parts[1], _int(parts[2], f"{name} final {parts[0]}")))
    while at < len(lines) and not lines[at][1]:
        at += 1
    if at != len(lines):
        n, line = lines[at]
        raise TraceFormatError(f"{where(n)}: unexpected line {line!r}")
    return Trace(header, tuple(plies), end, tuple(finals), tuple(outcome))


def read_trace(path: Path) -> Trace:
    return parse_trace(path.read_text(encoding="utf-8"), path.name)


def trace_files(directory: Path = TRACES) -> list[Path]:
    return sorted(directory.glob(f"*{SUFFIX}"))


# ------------------------------------------------------------------ the engine side
_BOOKS: dict[str, Any] = {}


def book_for(header: Header, default: Any) -> Any:
    """The rulebook a trace is played with: ``default`` (Cortés), or the header's
    rulebook loaded with its options and scenario."""
    if header.rulebook == "cortes" and not header.options and not header.scenario:
        return default
    key = f"{header.rulebook}|{header.options or ''}|{header.scenario or ''}"
    if key not in _BOOKS:
        import cortes_rules

        _BOOKS[key] = cortes_rules.load(header.rulebook, options=header.options or (),
                                        scenario=header.scenario)
    return _BOOKS[key]


def new_game(book: Any, header: Header) -> Any:
    """Start the game a header describes (public API only)."""
    return book_for(header, book).new_game(seed=header.seed, setup=header.setup,
                                           positions=dict(header.positions),
                                           turn_limit=header.turn_limit)


def digest(legal: Sequence[str]) -> str:
    """``#COUNT DIGEST`` for a list of legal action texts (``legal-form digest``)."""
    text = LEGAL_SEPARATOR.join(legal)
    return f"#{len(legal)} {hashlib.sha256(text.encode('utf-8')).hexdigest()[:12]}"


def unit_place_and_steps(state: Any, unit_id: str) -> tuple[str | None, int]:
    """A unit's hex (None when it is off the map) and its steps.

    The one place the golden traces read a unit's state; an engine that keeps
    its units differently only has to change this helper.
    """
    import cortes_rules

    try:
        steps = state.attribute(unit_id, "steps")
    except cortes_rules.CortesRulesError:  # a rulebook whose units have no steps to lose
        steps = state.attribute(unit_id, "max_steps")
    return state.place_of(unit_id), steps


def observe(state: Any, legal_form: str = "full") -> tuple[int, str, str, tuple[str, ...]]:
    """``(turn, side to act or "chance", phase, legal action texts)`` of a live state.

    With ``legal_form="digest"`` the legal actions are one text, their :func:`digest`.
    """
    to_act = state.current_player
    if to_act is None:
        raise TraceFormatError("a finished game has no side to act")
    legal = tuple(str(action) for action in state.legal_actions())
    if legal_form == "digest":
        legal = (digest(legal),)
    return (state.turn, str(to_act), state.phase, legal)


def apply_and_log(state: Any, action: Any) -> tuple[str, tuple[str, ...]]:
    """Apply an action (or roll the dice, for ``None`` at a chance node).

    Returns the text of the action taken and the log entries it added.
    """
    before = len(state.log)
    if action is None:
        taken = state.apply_chance()
    else:
        state.apply(action)
        taken = action
    return str(taken), tuple(str(entry) for entry in state.log[before:])


def finals(state: Any, unit_ids: Iterable[str]) -> tuple[Final, ...]:
    """A final line for each unit (the generator passes every unit of the rulebook)."""
    rows = []
    for unit_id in unit_ids:
        place, steps = unit_place_and_steps(state, unit_id)
        rows.append(Final(unit_id, place or OFF_MAP, steps))
    return tuple(rows)


def ending(state: Any) -> str:
    return "terminal" if state.is_terminal() else "cap"


def outcome_lines(state: Any) -> tuple[str, ...]:
    """``outcome WINNERS; REASON`` and ``detail NAME VALUE`` lines of a finished game."""
    outcome = state.outcome()
    if outcome is None:
        return ()
    winners = ",".join(outcome.winners) or "none"
    return (_line("outcome", f"{winners}; {outcome.reason}"),
            *(_line("detail", f"{name} {value}") for name, value in outcome.details.items()))


# ------------------------------------------------------------------ reporting
def expand(lines: Iterable[str]) -> list[str]:
    """Lines for a diff: a legal line becomes one line per action."""
    out = []
    for line in lines:
        key, value = _split(line)
        if key == "legal":
            out += [f"legal {a}" for a in value.split(LEGAL_SEPARATOR)] if value else ["legal"]
        else:
            out.append(line)
    return out


def short_diff(expected: Sequence[str], actual: Sequence[str], limit: int = 40) -> str:
    """A unified diff of two lists of trace lines, cut to ``limit`` lines."""
    diff = list(difflib.unified_diff(expand(expected), expand(actual), "expected (trace)",
                                     "actual (engine)", n=2, lineterm=""))
    if len(diff) > limit:
        diff = diff[:limit] + [f"... ({len(diff) - limit} more diff lines)"]
    return "\n".join(diff)
