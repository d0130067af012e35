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

At a dice roll, a ``roll N`` line supplies the result (from physical dice,
say); when the next line is anything else, the engine rolls with the
record's seed, so a record of player decisions plus a seed replays the same
game on any machine. Any problem names the file and line.
"""

from __future__ import annotations

from collections.abc import Iterator

import attrs

from .api import Rulebook, load
from .dsl.diagnostics import source_lines
from .engine.actions import Action
from .engine.machine import GameState
from .errors import CortesRulesError, IllegalActionError, NotationError, RecordError

_HEADERS = ("rulebook", "setup", "seed", "turn-limit")


@attrs.frozen
class Record:
    """A parsed record: headers and numbered action lines."""

    path: str
    rulebook: str
    setup: str | None
    seed: int
    turn_limit: int | None
    actions: tuple[tuple[int, Action], ...]
    questions: tuple[tuple[int, int, Action], ...] = ()
    """``(line, number of actions played before it, action)`` for each ``?`` line."""


def _lines(text: str) -> Iterator[tuple[int, str]]:
    # Lines end at "\n" only: str.splitlines would also end one at a form
    # feed or a U+2028 inside a comment and play the rest as an action.
    for number, raw in enumerate(source_lines(text), start=1):
        line = raw.split("#", 1)[0].strip()
        if line:
            yield number, line


def parse_record(text: str, path: str = "<record>") -> Record:
    """Read a record's text.

    Raises:
        RecordError: a header or an action line is malformed (names the line).
    """
    headers: dict[str, str] = {}
    actions: list[tuple[int, Action]] = []
    questions: list[tuple[int, int, Action]] = []
    for number, line in _lines(text):
        if line.startswith("?"):
            try:
                questions.append((number, len(actions), Action.parse(line[1:])))
            except NotationError as error:
                raise RecordError(f"not an action: {line[1:].strip()!r} ({error})", path=path,
                                  line=number) from None
            continue
        word, _, rest = line.partition(" ")
        if word in _HEADERS:
            if actions:
                raise RecordError(f"header {word!r} after the first action", path=path,
                                  line=number)
            if word in headers:
                raise RecordError(f"header {word!r} given twice", path=path, line=number)
            headers[word] = rest.strip()
            continue
        try:
            actions.append((number, Action.parse(line)))
        except NotationError as error:
            raise RecordError(f"not an action: {line!r} ({error})", path=path,
                              line=number) from None
    try:
        seed = int(headers.get("seed", "0"))
        limit = int(headers["turn-limit"]) if "turn-limit" in headers else None
    except ValueError as error:
        raise RecordError(f"seed and turn-limit must be whole numbers ({error})", path=path,
                          line=1) from None
    return Record(path, headers.get("rulebook", "cortes"), headers.get("setup"), seed, limit,
                  tuple(actions), tuple(questions))


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
    if book is None:
        try:
            book = load(record.rulebook)
        except CortesRulesError as error:
            raise RecordError(str(error), path=record.path, line=1) from None
    try:
        state = book.new_game(seed=record.seed if seed is None else seed, setup=record.setup,
                              turn_limit=record.turn_limit)
    except CortesRulesError as error:
        raise RecordError(str(error), path=record.path, line=1) from None
    for number, action in record.actions:
        while state.is_chance_node() and action.kind != "roll":
            state.apply_chance()
        try:
            state.apply(action)
        except IllegalActionError as error:
            raise RecordError(f"illegal at this point: {error}", path=record.path,
                              line=number) from None
    return state


def format_record(state: GameState, *, rulebook: str = "cortes", setup: str | None = None,
                  include_rolls: bool = True) -> str:
    """A state's history as record text (rolls included unless asked not to)."""
    lines = [f"rulebook {rulebook}"]
    if setup:
        lines.append(f"setup {setup}")
    lines.append(f"seed {state.seed}")
    if state.turn_limit is not None:
        lines.append(f"turn-limit {state.turn_limit}")
    lines.extend(str(a) for a in state.history if include_rolls or not a.is_chance)
    return "\n".join(lines) + "\n"
