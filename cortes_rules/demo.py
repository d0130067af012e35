"""``cortes-rules demo``: replay a shipped demonstration record, narrated.

A shipped rulebook may hold a demonstration record (``demo.record`` in its
folder): a set-up, a seed and the players' decisions; the dice come from
the seed. Each adjudication is printed with the numbers of the rules that
decided it, and each ``?`` line of the record is answered with the rules
that forbid that action there.
"""

from __future__ import annotations

from typing import TextIO

from ._resources import data_dir
from .api import GameState, Rulebook
from .dsl import ir
from .errors import CortesRulesError, RecordError
from .record import load_cached, parse_record, play, shipped_games, start
from .text_index import program_count

DEMO_FILE = "demo.record"
_PLAYOUT_LIMIT = 10_000
"""At most this many random actions end a demonstration that left its record."""


def demo_rulebooks() -> list[str]:
    """The shipped rulebooks that hold a demonstration record."""
    root = data_dir("rulebook")
    return [name for name in shipped_games() if (root / name / DEMO_FILE).is_file()]


def run_demo(*, seed: int | None = None, out: TextIO, rulebook: str | None = None) -> int:
    """Play a demonstration and write its log to ``out``; returns an exit status.

    Args:
        seed: dice seed replacing the record's.
        out: where the narration goes.
        rulebook: the shipped rulebook whose demonstration to play (default:
            the first that has one).

    Raises:
        CortesRulesError: no such demonstration; RecordError when an action
            of the record is illegal with the record's own seed. With another
            seed, the recorded decisions are played while they fit the dice,
            then the game goes on with legal decisions chosen at random.
    """
    names = demo_rulebooks()
    if rulebook is None:
        if not names:
            raise CortesRulesError("no shipped rulebook holds a demonstration record")
        rulebook = names[0]
    elif rulebook not in names:
        raise CortesRulesError(f"no demonstration record for {rulebook!r} (rulebooks with "
                               f"one: {', '.join(names) or 'none'})")
    path = data_dir("rulebook") / rulebook / DEMO_FILE
    shown_path = f"rulebook/{rulebook}/{DEMO_FILE}"
    book = load_cached(rulebook)
    record = parse_record(path.read_text(encoding="utf-8"), shown_path, book)
    state = start(record, book, seed=seed)
    write = out.write
    program = book.program
    write(f"{book.title}\n")
    libraries = program.game.uses if program.game is not None else ()
    using = f", on the librar{'y' if len(libraries) == 1 else 'ies'} " \
            f"{', '.join(libraries)}" if libraries else ""
    write(f"Demonstration: set-up {record.setup!r}, seed {state.seed}, "
          f"{program_count(program)}{using}.\n")
    for note in program.game.notes if program.game is not None else ():
        write(f"Note: {note}\n")
    write("\nPieces:\n")
    for piece, place in sorted(state.positions().items(), key=lambda p: (p[1], p[0])):
        label = state.attribute(piece, "label")
        kind = state.attribute(piece, "class")
        write(f"  {piece:<4} {label} ({kind}) at {place}\n")
    questions = list(record.questions)
    shown = 0
    heading = ""

    def section(title: str) -> None:
        nonlocal heading
        if title != heading:
            write(f"\n== {title}\n")
            heading = title

    def flush() -> None:
        nonlocal shown
        for entry in state.log[shown:]:
            section(f"Turn {entry.turn}, {entry.phase}")
            cited = f"  [{', '.join(entry.rules)}]" if entry.rules else ""
            write(f"  {entry.text}{cited}\n")
        shown = len(state.log)

    def ask(played: int) -> None:
        while questions and questions[0][1] == played:
            _, _, action = questions.pop(0)
            section(f"Turn {state.turn}, {state.phase_label}")
            reasons = state.why_illegal(action)
            if reasons:
                # The rule and the fact of the position; the rule's summary is
                # what `cortes-rules rule N` prints.
                why = "; ".join(f"[{r.rule}] {r.title}: {r.fact}" for r in reasons)
                write(f"  ? {action}: illegal. {why}\n")
            else:
                write(f"  ? {action}: legal here.\n")

    for played, (line, action) in enumerate(record.actions):
        flush()
        ask(played)
        try:
            play(state, line, action, path=record.path)
        except RecordError:
            flush()
            if seed is None or seed == record.seed:
                raise
            # Other dice: the recorded decisions stop fitting the results. The
            # game goes on with decisions taken at random (seeded), so that
            # every seed gives a whole demonstration.
            write(f"\n(With seed {seed} the record's decisions stop fitting the dice at "
                  f"line {line}: {action} cannot be played here. From here on, each "
                  f"decision is a legal action chosen at random, seeded by {seed}.)\n")
            questions.clear()
            heading = ""
            state.random_playout(seed, _PLAYOUT_LIMIT)
            break
    else:
        flush()
        ask(len(record.actions))
    flush()
    write("\nFinal positions:\n")
    start_state = start(record, book, seed=seed)
    world = book._machine.world
    off_board: dict[str, list[str]] = {}
    for piece, place in sorted(state.positions().items(), key=lambda p: (p[1], p[0])):
        if world.place[place].kind == "pool":
            off_board.setdefault(world.place[place].label, []).append(piece)
            continue
        changed = _changed_attributes(book, start_state, state, piece)
        write(f"  {piece:<4} at {place}{changed}\n")
    gone = [piece for piece in start_state.positions() if state.place_of(piece) is None]
    if gone:
        off_board.setdefault("off the board", []).extend(gone)
    for label, pieces in off_board.items():
        write(f"  {label}: {', '.join(pieces)}\n")
    outcome = state.outcome()
    if outcome is not None:
        winners = ", ".join(outcome.winners) or "none"
        write(f"Game over: {outcome.reason}; winner: {winners}.\n")
    return 0


def _changed_attributes(book: Rulebook, before: GameState, after: GameState,
                        piece: str) -> str:
    """The piece's declared whole-number attributes that the game changed, as text."""
    parts = []
    for decl in book.program.of(ir.AttributeDecl):
        if decl.owner != "piece" or decl.type.name != "int":
            continue
        new = after.attribute(piece, decl.name)
        if new != before.attribute(piece, decl.name):
            parts.append(f"{decl.name} {new}")
    return f" ({', '.join(parts)})" if parts else ""
