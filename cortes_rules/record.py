"""Game records: a saved game as text, one action per line.

A record starts with header lines, then lists actions in their text form::

    # comments run to the end of the line
    rulebook cortes
    setup demo
    seed 7
    turn-limit 1
    move S9 3011
    attack 3012
    join S1
    resolve
    roll 8          # optional: without it, the seeded generator rolls
    ? move A12 2910  # a question: why is this illegal here? (not played)

Every action line must be an action the rulebook declares, with arguments of
the declared types (``cortes_rules.Rulebook.parse_action()``); it is
checked when the record is read. Without a ``rulebook`` line the record
belongs to the only rulebook shipped with the package.

At a chance node (a dice roll, a draw) a ``roll N`` or ``draw PIECE`` line
supplies the result (from physical dice, say); when the next line is
anything else, the engine rolls with the record's seed, so a record of the
players' decisions plus a seed replays the same game on any machine. Any
problem names the file and line.
"""

from __future__ import annotations

import functools
from collections.abc import Iterator

import attrs

from .api import Rulebook, load
from .dsl.diagnostics import source_lines
from .engine.actions import Action
from .engine.machine import GameState
from .errors import CortesRulesError, IllegalActionError, NotationError, RecordError
from ._resources import data_dir
from .loader import shipped_rulebooks

_HEADERS = ("rulebook", "setup", "seed", "turn-limit")
LIBRARY_FOLDER = "lib"
"""The folder of ``rulebook/`` that holds libraries of mechanisms, not a rulebook."""


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
    """

    path: str
    rulebook: str
    setup: str | None
    seed: int
    turn_limit: int | None
    actions: tuple[tuple[int, Action], ...]
    questions: tuple[tuple[int, int, Action], ...] = ()


def rulebook_names() -> list[str]:
    """The rulebooks shipped with the package, by name (libraries left out)."""
    return [name for name in shipped_rulebooks() if name != LIBRARY_FOLDER]


def default_rulebook() -> str:
    """The rulebook a record or a command means when it names none.

    It is the one the file ``DEFAULT`` of the shipped rulebooks' folder names
    (data, so that no game is named in the code), or else the only shipped one.

    Raises:
        CortesRulesError: several rulebooks are shipped and none is the default
            (or none is shipped), so one must be named.
    """
    names = rulebook_names()
    marker = data_dir("rulebook") / "DEFAULT"
    if marker.is_file():
        named = marker.read_text(encoding="utf-8").strip()
        if named in names:
            return named
    if len(names) != 1:
        raise CortesRulesError(f"name a rulebook (shipped: {', '.join(names) or 'none'})")
    return names[0]


@functools.lru_cache(maxsize=8)
def load_cached(name: str) -> Rulebook:
    """``load(name)``, compiled once per run for every record that names it."""
    # Compiling a rulebook takes seconds; reading and replaying records of
    # the same rulebook in one run shares one compiled copy (rulebooks are
    # factories: games never change them).
    return load(name)


def _lines(text: str) -> Iterator[tuple[int, str]]:
    # Lines end at "\n" only: str.splitlines would also end one at a form
    # feed or a U+2028 inside a comment and play the rest as an action.
    for number, raw in enumerate(source_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield number, line


def parse_record(text: str, path: str = "<record>", book: Rulebook | None = None) -> Record:
    """Read a record's text, checking every action against the rulebook.

    Args:
        text: the record.
        path: its name in messages.
        book: the rulebook to check the actions against (default: the one
            the record names, loaded once per run).

    Raises:
        RecordError: a header or an action line is malformed, or an action
            is not one the rulebook declares (names the line).
    """
    headers: dict[str, tuple[int, str]] = {}
    lines: list[tuple[int, str, bool]] = []      # (line, action text, is a question)
    for number, line in _lines(text):
        if line.startswith("?"):
            lines.append((number, line[1:].strip(), True))
            continue
        word, _, rest = line.partition(" ")
        if word in _HEADERS:
            if any(not question for _, _, question in lines):
                raise RecordError(f"header {word!r} after the first action", path=path,
                                  line=number)
            if word in headers:
                raise RecordError(f"header {word!r} given twice", path=path, line=number)
            headers[word] = (number, rest.strip())
            continue
        lines.append((number, line, False))
    values: dict[str, int | None] = {"seed": 0, "turn-limit": None}
    for name in values:
        if name in headers:
            number, given = headers[name]
            try:
                values[name] = int(given)
            except ValueError:
                raise RecordError(f"seed and turn-limit must be whole numbers, not {given!r}",
                                  path=path, line=number) from None
    rulebook_line, rulebook = headers.get("rulebook", (1, ""))
    try:
        rulebook = rulebook or default_rulebook()
        if book is None:
            book = load_cached(rulebook)
    except CortesRulesError as error:
        raise RecordError(str(error).splitlines()[0], path=path, line=rulebook_line) from None
    actions: list[tuple[int, Action]] = []
    questions: list[tuple[int, int, Action]] = []
    for number, action_text, question in lines:
        try:
            action = book.parse_action(action_text)
        except NotationError as error:
            raise RecordError(f"not an action of this rulebook: {action_text!r} ({error})",
                              path=path, line=number) from None
        if question:
            questions.append((number, len(actions), action))
        else:
            actions.append((number, action))
    seed, limit = values["seed"], values["turn-limit"]
    assert seed is not None
    return Record(path, rulebook, headers.get("setup", (0, None))[1], seed, limit,
                  tuple(actions), tuple(questions))


def start(record: Record, book: Rulebook | None = None, *,
          seed: int | None = None) -> GameState:
    """The game a record starts from (its set-up, seed and turn limit).

    Raises:
        RecordError: the rulebook, set-up or turn limit is unusable (names line 1).
    """
    try:
        book = book if book is not None else load_cached(record.rulebook)
        return book.new_game(seed=record.seed if seed is None else seed, setup=record.setup,
                             turn_limit=record.turn_limit)
    except CortesRulesError as error:
        raise RecordError(str(error).splitlines()[0], path=record.path, line=1) from None


def play(state: GameState, line: int, action: Action, *, path: str = "<record>") -> None:
    """Apply one recorded action, rolling the seeded dice first at chance nodes it skips.

    Raises:
        RecordError: the action is illegal where it stands (names the line
            and the rules that forbid it).
    """
    try:
        while state.is_chance_node() and not action.is_chance:
            state.apply_chance()
        state.apply(action)
    except IllegalActionError as error:
        raise RecordError(f"illegal at this point: {error}", path=path, line=line) from None
    except CortesRulesError as error:
        raise RecordError(f"cannot be played here: {error}", path=path, line=line) from None


def replay(record: Record, book: Rulebook | None = None, *,
           seed: int | None = None) -> GameState:
    """Play a record from its start and return the final state.

    Args:
        record: the parsed record.
        book: the rulebook to play it under (default: the one it names).
        seed: a seed replacing the record's (the decisions may then no
            longer fit the dice).

    Raises:
        RecordError: an action is illegal where it stands (names the line
            and the rules that forbid it).
    """
    state = start(record, book, seed=seed)
    for number, action in record.actions:
        play(state, number, action, path=record.path)
    return state


def format_record(state: GameState, *, rulebook: str | None = None, setup: str | None = None,
                  include_rolls: bool = True) -> str:
    """A state's history as record text (chance results included unless asked not to).

    Args:
        state: the game to write down.
        rulebook: the ``rulebook`` header (default: the name of the game's
            rulebook, as its game block gives it).
        setup: the set-up the game started from, if any.
        include_rolls: write the dice rolls and draws too; without them the
            record replays only with the same seed.
    """
    if rulebook is None:
        game = state.machine.program.game
        rulebook = game.name if game is not None else default_rulebook()
    lines = [f"rulebook {rulebook}"]
    if setup:
        lines.append(f"setup {setup}")
    lines.append(f"seed {state.seed}")
    if state.turn_limit is not None:
        lines.append(f"turn-limit {state.turn_limit}")
    lines.extend(str(a) for a in state.history if include_rolls or not a.is_chance)
    return "\n".join(lines) + "\n"
