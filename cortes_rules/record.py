"""Game records: a whole game as text, like PGN for chess (docs/records.md).

A record of version 2 starts with the line ``cortes-rules-record 2``, gives
its headers, then every action in order, the dice results and draws
included::

    cortes-rules-record 2
    # comments run to the end of the line; reading keeps them
    rulebook cortes
    rulebook-digest 0123456789abcdef
    options 11.1 11.2
    seed 7
    turn-limit 1
    setup demo
    move S9 3011
    attack 3012
    join S1
    resolve
    roll 8          # optional: without it, the seeded generator rolls
    ? move A12 2910  # a question: why is this illegal here? (not played)

Instead of ``seed``, ``turn-limit`` and ``setup``, a ``position`` header
followed by ``| ``-prefixed lines starts the game from a position in
notation (docs/notation.md). A text without the version line is a record
of version 1 (headers ``rulebook``, ``setup``, ``seed`` and ``turn-limit``
only): it is still read, and written back as version 2.

Every action line must be an action the rulebook declares, with arguments of
the declared types (``cortes_rules.Rulebook.parse_action()``); it is
checked when the record is read. Without a ``rulebook`` line the record
belongs to the default rulebook.

At a chance node (a dice roll, a draw) a ``roll N`` or ``draw PIECE`` line
supplies the result (from physical dice, say); when the next line is
anything else, the engine rolls with the record's seed, so a record of the
players' decisions plus a seed replays the same game on any machine. Any
problem names the file and line.

A record is the whole game, hidden pieces and dice included: it is for the
players after the game, or for a referee, not for an opponent during it.
"""

from __future__ import annotations

import functools
import hashlib
from collections.abc import Mapping
from pathlib import Path

import attrs

from .api import GameState, Rulebook, load
from .dsl import ir
from .engine.actions import Action
from .engine.recall import apply_recorded
from .engine.recall import seen_plies as _seen_plies
from . import arguments
from .errors import (ArgumentTypeError, CortesRulesError, IllegalActionError, NotationError,
                     RecordError, UnknownNameError)
from .notation import write
from .rulebook_files import default_rulebook, shipped_games
from .rule_numbers import rule_key
from .record_text import (MAGIC, VERSION, VIEW, Entry, Record, lines_of, notation_line, options_of,
                          read_body, split)

__all__ = ["MAGIC", "VERSION", "Entry", "Failure", "Record", "Verification", "apply_recorded",
           "default_rulebook", "format_record", "shipped_games",
           "parse_record", "read_record", "record_of", "replay", "rulebook_digest", "verify"]

DIGEST_DIGITS = 16
"""How many hexadecimal digits of the rulebook's SHA-256 a record keeps."""


@functools.lru_cache(maxsize=8)
def load_cached(name: str, options: tuple[str, ...] = (),
                readings: tuple[tuple[str, str], ...] = (),
                scenario: str | None = None) -> Rulebook:
    """``load(name, ...)``, compiled once per run for every record that names it."""
    # Compiling a rulebook takes seconds; reading and replaying records of
    # the same rulebook in one run shares one compiled copy (rulebooks are
    # factories: games never change them).
    return load(name, options=options, readings=dict(readings) or None, scenario=scenario)


_DIGESTS: dict[int, tuple[ir.Program, str]] = {}


def rulebook_digest(book: Rulebook | ir.Program) -> str:
    """The version of a rulebook's text: the start of a SHA-256 of its files.

    It is worked out from every rules file the rulebook was compiled from (names and
    contents), not the options, readings or scenario, which a record gives
    in headers of their own. Two rulebooks with equal digests play alike.
    """
    program = book.program if isinstance(book, Rulebook) else book
    found = _DIGESTS.get(id(program))
    if found is not None and found[0] is program:
        return found[1]
    digest = hashlib.sha256()
    for module in program.modules:
        digest.update(Path(module.path).name.encode("utf-8", "surrogateescape") + b"\0")
        digest.update(module.text.encode("utf-8", "surrogateescape") + b"\0")
    text = digest.hexdigest()[:DIGEST_DIGITS]
    if len(_DIGESTS) > 32:
        _DIGESTS.clear()
    _DIGESTS[id(program)] = (program, text)
    return text


def _readings_of(program: ir.Program) -> tuple[tuple[str, str], ...]:
    """The readings a rulebook was loaded with that are not the defaults, sorted."""
    defaults = {k: e.default for k, e in program.interpretations.items()}
    return tuple(sorted((k, v) for k, v in program.readings.items() if defaults.get(k) != v))


# ============================================================ reading

def parse_record(text: str, path: str = "<record>", book: Rulebook | None = None, *,
                 rulebook: str | None = None) -> Record:
    """Read a record's text, checking every action against the rulebook.

    Args:
        text: the record.
        path: its name in messages.
        book: the rulebook to check the actions against (default: the one
            the record names, loaded once per run with its options, readings
            and scenario).
        rulebook: a rulebook name or path to load instead of the one the
            record names (with the record's options, readings and scenario).

    Returns:
        The record; its ``warnings`` say when the rulebook is not the one
        the record was written with (another digest, other options).

    Raises:
        RecordError: a header or an action line is malformed, or an action
            is not one the rulebook declares (names the file and line).
    """
    arguments.text(text, "a record")
    arguments.text(path, "a record's name")
    _check_book(book)
    if rulebook is not None:
        arguments.path(rulebook, "a rulebook")
    headers, body = split(text, path)
    name_line, name = headers.values.get("rulebook", (1, ""))
    options = options_of(headers.word("options"))
    readings = tuple((entry, reading) for _, entry, reading in headers.readings)
    scenario = headers.word("scenario")
    try:
        name = name or default_rulebook()
        if book is None:
            book = load_cached(rulebook or name, options, readings, scenario)
    except CortesRulesError as error:
        raise RecordError(_first(error), path=path,
                          line=_blame(headers.values, headers.readings, error, name_line)) \
            from None
    seed = headers.whole("seed", 0)
    limit = headers.whole("turn-limit", None, low=1)
    assert seed is not None
    setup = headers.word("setup")
    if setup is not None and headers.version > 1 and setup not in book.setups:
        raise RecordError(f"no set-up {setup!r} in {book.name} (set-ups: "
                          f"{', '.join(book.setups) or 'none'})", path=path,
                          line=headers.values["setup"][0])
    entries, actions, questions = read_body(headers, body, book.parse_action)
    digest = headers.word("rulebook-digest")
    position = "\n".join(headers.position) + "\n" if headers.position is not None else None
    if position is not None:   # a bad position is reported on reading, with its line
        try:
            book.position(position)
        except NotationError as error:
            raise RecordError(f"the position: {_first(error)}", path=path,
                              line=notation_line(error, headers.position_line)) from None
    record = Record(path, name, setup, seed, limit, tuple(actions), tuple(questions),
                    version=headers.version, digest=digest, options=options,
                    readings=readings, scenario=scenario, position=position,
                    entries=tuple(entries), head_comments=tuple(c for _, c in headers.comments),
                    header_lines=lines_of(headers.values.items())
                    + tuple(("reading", n) for n, _, _ in headers.readings[:1]))
    return attrs.evolve(record, warnings=mismatches(record, book))


def read_record(path: str | Path, book: Rulebook | None = None, *,
                rulebook: str | None = None) -> Record:
    """Read a record file (``parse_record`` of its text, named by its path).

    Raises:
        RecordError: the file cannot be read, or its text is not a record.
    """
    arguments.path(path, "a record file")
    try:
        text = Path(path).read_text(encoding="utf-8")
    except (OSError, UnicodeError) as error:
        raise RecordError(f"cannot read this file ({type(error).__name__})", path=str(path),
                          line=0) from None
    return parse_record(text, str(path), book, rulebook=rulebook)


def _first(error: Exception) -> str:
    lines = str(error).splitlines()
    return lines[0] if lines else type(error).__name__


def _blame(values: Mapping[str, tuple[int, str]], readings: list[tuple[int, str, str]],
           error: Exception, default: int) -> int:
    """The header line a failed load most likely means."""
    text = str(error).lower()
    for word, header in (("scenario", "scenario"), ("option", "options"),
                         ("preset", "options")):
        if word in text and header in values:
            return values[header][0]
    if readings and ("reading" in text or "interpretation" in text):
        return next((n for n, entry, _ in readings if entry.lower() in text), readings[0][0])
    return default


def mismatches(record: Record, book: Rulebook) -> tuple[str, ...]:
    """How a rulebook differs from the one a record was written with (empty: not at all)."""
    found: list[str] = []
    if record.rulebook in shipped_games() and record.rulebook != book.name:
        found.append(f"the record is of the rulebook {record.rulebook}, the rulebook given "
                     f"is {book.name}")
    if record.digest is not None and record.digest != rulebook_digest(book):
        found.append(f"the record was written with rulebook version {record.digest}, this "
                     f"is version {rulebook_digest(book)}: its rules may have changed")
    if record.version > 1:
        wanted = sorted(book.program.options)
        try:
            # The record may name presets: compare what they switch on.
            asked = sorted(load_cached(record.rulebook, record.options, record.readings,
                                       record.scenario).program.options) \
                if any(not o[:1].isdigit() for o in record.options) else sorted(record.options)
        except CortesRulesError:
            asked = sorted(record.options)
        if asked != wanted:
            found.append(f"the record asks for options {' '.join(asked) or 'none'}, the "
                         f"rulebook given has {' '.join(wanted) or 'none'}")
        if record.scenario is not None and record.scenario != book.scenario:
            found.append(f"the record is of scenario {record.scenario}, the rulebook given "
                         f"is of {book.scenario or 'none'}")
    return tuple(found)


# ============================================================ playing

def book_of(record: Record) -> Rulebook:
    """The rulebook a record names, loaded with its options, readings and scenario.

    Raises:
        RecordError: it cannot be loaded (names the header's line).
    """
    try:
        return load_cached(record.rulebook, record.options, record.readings, record.scenario)
    except CortesRulesError as error:
        raise RecordError(_first(error), path=record.path,
                          line=record.line_of("rulebook")) from None


def start(record: Record, book: Rulebook | None = None, *,
          seed: int | None = None) -> GameState:
    """The game a record starts from (its set-up or position, seed and turn limit).

    Raises:
        RecordError: the rulebook, set-up, position or turn limit is unusable
            (names the line).
    """
    _check_record(record)
    _check_book(book)
    if seed is not None:
        arguments.whole(seed, "a seed")
    book = book if book is not None else book_of(record)
    if record.position is not None:
        line = record.line_of("position")
        if seed is not None:
            raise RecordError("a record that starts from a position holds its own seed and "
                              "dice: no other seed can be given", path=record.path, line=line)
        try:
            state = book.position(record.position)
        except NotationError as error:
            raise RecordError(f"the position: {_first(error)}", path=record.path,
                              line=notation_line(error, line)) from None
        state.origin = ("position", record.position)
        return state
    try:
        state = book.new_game(seed=record.seed if seed is None else seed, setup=record.setup,
                              turn_limit=record.turn_limit)
    except CortesRulesError as error:
        line = record.line_of("setup", record.line_of("rulebook"))
        raise RecordError(_first(error), path=record.path, line=line) from None
    return state


def play(state: GameState, line: int, action: Action, *, path: str = "<record>") -> None:
    """Apply one recorded action, rolling the seeded dice first at chance nodes it skips.

    Raises:
        RecordError: the action is illegal where it stands (names the line
            and the rules that forbid it).
    """
    try:
        while state.is_chance_node() and not action.is_chance:
            state.apply_chance()
        apply_recorded(state, action)
    except IllegalActionError as error:
        raise RecordError(f"illegal at this point: {error}", path=path, line=line) from None
    except CortesRulesError as error:
        raise RecordError(f"cannot be played here: {_first(error)}", path=path,
                          line=line) from None


def _plies(record: Record, to_ply: int | None) -> tuple[tuple[int, Action], ...]:
    if to_ply is None:
        return record.actions
    if isinstance(to_ply, bool) or not isinstance(to_ply, int) or to_ply < 0:
        raise CortesRulesError(f"a ply is a whole number of at least 0, not {to_ply!r}")
    if to_ply > len(record.actions):
        raise CortesRulesError(f"{record.path}: ply {to_ply}, but the record holds "
                               f"{len(record.actions)} action"
                               f"{'s' if len(record.actions) != 1 else ''}")
    return record.actions[:to_ply]


def replay(record: Record, book: Rulebook | None = None, *,
           seed: int | None = None, to_ply: int | None = None) -> GameState:
    """Play a record from its start and return the state reached.

    Args:
        record: the parsed record.
        book: the rulebook to play it under (default: the one it names).
        seed: a seed replacing the record's (the decisions may then no
            longer fit the dice).
        to_ply: stop after this many of the record's actions (dice results
            and draws count, as every action line does); default: all.

    Raises:
        RecordError: an action is illegal where it stands (names the line
            and the rules that forbid it).
        CortesRulesError: ``to_ply`` is not a ply of the record.
    """
    _check_record(record)
    if to_ply is not None:
        arguments.whole(to_ply, "a ply")
    plies = _plies(record, to_ply)
    state = start(record, book, seed=seed)
    for number, action in plies:
        play(state, number, action, path=record.path)
    return state


@attrs.frozen
class Failure:
    """The first action of a record that cannot be played.

    Attributes:
        ply: its place among the record's actions, from 1.
        line: its line in the record.
        action: its text.
        reasons: ``(rule number or None, explanation)`` pairs
            (``GameState.why_illegal``).
    """

    ply: int
    line: int
    action: str
    reasons: tuple[tuple[str | None, str], ...]

    @property
    def rules(self) -> tuple[str, ...]:
        """The numbers of the rules that forbid the action."""
        return tuple(dict.fromkeys(r for r, _ in self.reasons if r))

    def __str__(self) -> str:
        text = "; ".join(f"[{r}] {m}" if r else m for r, m in self.reasons)
        return f"line {self.line}, ply {self.ply}: {self.action} is illegal: {text}"


@attrs.frozen
class Verification:
    """What ``verify`` found.

    Attributes:
        path: the record's name.
        played: how many actions were legal and played.
        total: how many actions the record holds.
        failure: the first illegal action, or None when every one is legal.
        warnings: the record's warnings (another rulebook version...).
        state: the state after the last legal action.
    """

    path: str
    played: int
    total: int
    failure: Failure | None
    warnings: tuple[str, ...]
    state: GameState

    @property
    def ok(self) -> bool:
        """Whether every action of the record is legal where it stands."""
        return self.failure is None


def verify(record: Record, book: Rulebook | None = None, *,
           seed: int | None = None) -> Verification:
    """Replay a record checking every action; report the first illegal one.

    Unlike ``replay``, an illegal action is not an exception: the result
    names its ply, its line and the rules that forbid it.

    Raises:
        RecordError: the record cannot even start (a bad set-up or position).
    """
    state = start(record, book, seed=seed)
    for ply, (number, action) in enumerate(record.actions, start=1):
        try:
            while state.is_chance_node() and not action.is_chance:
                state.apply_chance()
            reasons: tuple[tuple[str | None, str], ...] = tuple(state.why_illegal(action))
            if not reasons:
                apply_recorded(state, action)
        except IllegalActionError as error:
            reasons = error.reasons
        except CortesRulesError as error:
            # A clause that cannot be evaluated names its rule (RulesRuntimeError).
            reasons = ((getattr(error, "rule", None), _first(error)),)
        if reasons:
            return Verification(record.path, ply - 1, len(record.actions),
                                Failure(ply, number, str(action), reasons),
                                record.warnings, state)
    return Verification(record.path, len(record.actions), len(record.actions), None,
                        record.warnings, state)


def _check_record(record: object) -> None:
    if not isinstance(record, Record):
        raise ArgumentTypeError(f"a record is a Record (parse_record, read_record), not "
                                f"{arguments.describe(record)}")


def _check_book(book: object) -> None:
    if book is not None and not isinstance(book, Rulebook):
        raise ArgumentTypeError(f"a rulebook is a Rulebook (cortes_rules.load), not "
                                f"{arguments.describe(book)}")


def _check_state(state: object) -> None:
    if not isinstance(state, GameState):
        raise ArgumentTypeError(f"a game is a GameState, not {arguments.describe(state)}")


# ============================================================ writing

def record_of(state: GameState, *, rulebook: str | None = None, setup: str | None = None,
              include_rolls: bool = True) -> Record:
    """A state's game as a ``Record`` (its ``to_text()`` is ``format_record``'s text).

    The record starts as the game did: from its set-up (``new_game(setup=...)``),
    or from a position (``Rulebook.position``, or ``new_game(positions=...)``,
    written as a ``position`` block), and names the rulebook with its
    digest, options, readings and scenario.
    """
    _check_state(state)
    arguments.optional_name(rulebook, "a rulebook")
    arguments.optional_name(setup, "a set-up")
    machine = state.machine
    program = machine.program
    if rulebook is None:
        rulebook = program.game.name if program.game is not None else default_rulebook()
    position: str | None = None
    origin = state.origin
    if origin is not None and origin[0] == "position":
        position = origin[1]
    elif origin is not None and origin[2] is not None:
        first = GameState(machine, seed=state.seed, positions=origin[2],
                          turn_limit=state.turn_limit,
                          attributes=origin[3] if len(origin) > 3 else None)
        position = write(first)
    elif setup is None and origin is not None:
        setup = origin[1]
    actions = tuple((0, a) for a in state.history if include_rolls or not a.is_chance)
    return Record("<record>", rulebook, None if position else setup, state.seed,
                  state.turn_limit, actions, digest=rulebook_digest(program),
                  options=tuple(sorted(program.options, key=rule_key)),
                  readings=_readings_of(program), scenario=program.scenario, position=position,
                  entries=tuple(Entry(0, "action", a) for _, a in actions))


def format_record(state: GameState, *, rulebook: str | None = None, setup: str | None = None,
                  include_rolls: bool = True, player: str | None = None) -> str:
    """A state's game as record text (chance results included unless asked not to).

    Args:
        state: the game to write down.
        rulebook: the ``rulebook`` header (default: the name of the game's
            rulebook, as its game block gives it).
        setup: the set-up the game started from (default: the one
            ``new_game`` was given).
        include_rolls: write the dice rolls and draws too; without them the
            record replays only with the same seed.
        player: write this player's view instead of the record: each action
            that names a piece hidden from the player (before or after it),
            unless the player took it, becomes a comment saying only whose it
            was; the seed and a starting position are left out. A view
            cannot be replayed (reading one is a RecordError).

    Raises:
        CortesRulesError: ``player`` is not a player of the game.
    """
    arguments.optional_name(player, "a player")
    record = record_of(state, rulebook=rulebook, setup=setup, include_rolls=include_rolls)
    if player is None:
        return record.to_text()
    return player_view(record, state, player)


def player_view(record: Record, state: GameState, player: str) -> str:
    """One player's view of a recorded game (see ``format_record``)."""
    plies = seen_plies(record, state, player)
    lines = [f"{MAGIC} {VERSION}", f"{VIEW} {player}",
             "# One player's view: what that player may not see is left out. Not a record:",
             "# it cannot be replayed.", f"rulebook {record.rulebook}"]
    if record.scenario is not None:
        lines.append(f"scenario {record.scenario}")
    if record.options:
        lines.append("options " + " ".join(record.options))
    lines.extend(f"reading {entry} {reading}" for entry, reading in record.readings)
    if record.setup:
        lines.append(f"setup {record.setup}")
    if record.position is not None:
        lines.append("# the starting position is left out")
    for actor, action in plies:
        if action is None:
            lines.append(f"# (an action of {actor} that {player} does not see)")
        else:
            lines.append(str(action))
    return "\n".join(lines) + "\n"


def seen_plies(record: Record, state: GameState, player: str
               ) -> list[tuple[str | None, Action | None]]:
    """Each recorded action as ``player`` saw it: ``(who took it, the action)``,
    the action None when it names a piece hidden from ``player`` before or
    after it and another player took it, or when it is a roll or draw some of
    whose log lines are kept from ``player``.

    The record is replayed from its start (the game of ``state``'s rulebook),
    so each action is judged by what the player could see at that moment.

    Raises:
        CortesRulesError: ``player`` is not a player of the game.
    """
    world = state.machine.world
    if world.player.get(arguments.name(player, "a player")) is None:
        raise UnknownNameError(f"no player {player!r} (players: "
                               f"{', '.join(p.name for p in world.players)})")
    game = start(record, Rulebook._checked(state.machine.program, (), state.machine))
    return _seen_plies(game, (action for _, action in record.actions), player)
