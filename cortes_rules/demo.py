"""``cortes-rules demo``: replay the shipped demonstration record, narrated.

The record (``rulebook/cortes/demo.record``) holds a set-up, a seed and the
players' decisions; the dice come from the seed. Each adjudication is
printed with the numbers of the rules that decided it, and each ``?`` line
of the record is answered with the rules that forbid that action there.
"""

from __future__ import annotations

from typing import TextIO

from ._resources import data_dir
from .api import load
from .errors import IllegalActionError, RecordError
from .record import parse_record


def run_demo(*, seed: int | None = None, out: TextIO) -> int:
    """Play the demonstration and write its log to ``out``; returns an exit status."""
    path = data_dir("rulebook") / "cortes" / "demo.record"
    record = parse_record(path.read_text(encoding="utf-8"), "rulebook/cortes/demo.record")
    book = load(record.rulebook)
    state = book.new_game(seed=record.seed if seed is None else seed, setup=record.setup,
                          turn_limit=record.turn_limit)
    write = out.write
    write(f"{book.title}\n")
    write(f"Demonstration: set-up {record.setup!r}, seed {state.seed}, "
          f"{len(book.program.rules)} rule clauses loaded.\n")
    write("Map and counter values are a reconstruction (see docs/data-format.md).\n")
    for unit, hex_id in sorted(state.positions().items(), key=lambda p: (p[1], p[0])):
        label = state.attribute(unit, "label")
        kind = state.attribute(unit, "class")
        steps = state.attribute(unit, "max_steps")
        write(f"  {unit:<4} {label} ({kind}, {steps} steps) at {hex_id}\n")
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
                why = "; ".join(f"[{r}] {m}" if r else m for r, m in reasons)
                write(f"  ? {action}: illegal. {why}\n")
            else:
                write(f"  ? {action}: legal here.\n")

    for played, (line, action) in enumerate(record.actions):
        flush()
        ask(played)
        while state.is_chance_node() and action.kind != "roll":
            state.apply_chance()
        try:
            state.apply(action)
        except IllegalActionError as error:
            flush()
            raise RecordError(f"illegal at this point (the record's decisions fit seed "
                              f"{record.seed}): {error}", path=record.path, line=line) from None
    flush()
    ask(len(record.actions))
    outcome = state.outcome()
    write("\nFinal positions:\n")
    for unit, hex_id in sorted(state.positions().items(), key=lambda p: (p[1], p[0])):
        steps = state.attribute(unit, "steps")
        write(f"  {unit:<4} at {hex_id}, {steps} step{'' if steps == 1 else 's'}\n")
    if outcome is not None:
        write(f"Game over: {outcome.reason}.\n")
    return 0
