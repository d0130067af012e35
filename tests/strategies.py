"""Hypothesis strategies for the Cortés rules tests, the random-play driver, and
readers that look at a game only through the public API.

A *script* is a list of ``(mode, pick)`` pairs drawn by hypothesis. The
driver :func:`play` turns it into a game: at each decision it takes the
legal actions (sorted by id) and plays ``legal[pick % len(legal)]``. In the
STICKY modes, when the unit moved last can still move, it picks among that
unit's moves instead, so units travel several hexes as real players make
them; in the HURRY mode it ends the phase when it may, so games get on to
combat and to later turns. Dice rolls are left to the state's own seeded generator
(``apply_chance``), so a game is fixed by its seed and its script.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from cortes_rules import Action, GameState, LogEntry

# ----------------------------------------------------------------- odds
#: Attack or defence totals of a battle (a full Cortés stack totals about 40).
factors = st.integers(min_value=1, max_value=200)
#: Net column shifts, as terrain and concentric assaults can add up to.
shifts = st.integers(min_value=-6, max_value=6)

# ----------------------------------------------------------------- play
seeds = st.integers(min_value=0, max_value=2**32 - 1)
setups = st.sampled_from(["demo", "historical"])


#: Script step modes: HURRY plays ``end`` when it is legal, STICKY keeps moving the
#: unit that moved last, anything else picks among all legal actions.
HURRY, STICKY = 0, (1, 2, 3)
Script = list[tuple[int, int]]


def scripts(min_size: int = 1, max_size: int = 60) -> st.SearchStrategy[Script]:
    """Choices for :func:`play`: ``(mode, pick)`` per decision, mode in 0..9."""
    return st.lists(st.tuples(st.integers(min_value=0, max_value=9),
                              st.integers(min_value=0, max_value=10_000)),
                    min_size=min_size, max_size=max_size)


# ----------------------------------------------------------------- reading a state
@dataclass(frozen=True)
class PieceSnapshot:
    """A piece as the public API shows it: where it is and its declared attributes."""

    place: str | None
    steps: int
    spent: int
    moved: int
    attacked: bool


def snapshot_pieces(state: GameState, pieces: Iterable[str]) -> dict[str, PieceSnapshot]:
    return {p: PieceSnapshot(state.place_of(p), state.attribute(p, "steps"),
                             state.attribute(p, "spent"), state.attribute(p, "moved"),
                             state.attribute(p, "attacked"))
            for p in pieces}


def fingerprint(state: GameState, pieces: Iterable[str]) -> dict[str, Any]:
    """Everything an outside observer sees of a state, for equality checks.

    ``pieces`` is every piece id of the rulebook (``book.piece_ids``). The
    legal actions are left out: they are dear to list in the historical set-up,
    and tests that need them compare them separately.
    """
    return {
        "positions": state.positions(),
        "pieces": snapshot_pieces(state, pieces),
        "log": [str(entry) for entry in state.log],
        "log_rules": [entry.rules for entry in state.log],
        "history": [str(a) for a in state.history],
        "phase": state.phase,
        "turn": state.turn,
        "current_player": state.current_player,
        "terminal": state.is_terminal(),
        "chance": state.chance_outcomes(),
    }


#: Action kinds that are only possible while a battle is open.
BATTLE_KINDS = frozenset({"resolve", "cancel", "join", "lose", "advance", "stop"})


def battle_open(state: GameState) -> bool:
    """Whether a battle is under way: its dice are due or a battle decision is."""
    return state.is_chance_node() or any(a.kind in BATTLE_KINDS
                                         for a in state.legal_actions())


def kinds(state: GameState) -> set[str]:
    """The kinds of the legal actions."""
    return {a.kind for a in state.legal_actions()}


_MOVE_COST = re.compile(r": cost (\d+)")


def move_entry(entries: Iterable[LogEntry], unit: str) -> LogEntry:
    """The log line of ``unit``'s latest move among ``entries``."""
    found = [e for e in entries if e.text.startswith(f"{unit} moves ")]
    assert found, f"no move of {unit} was logged"
    return found[-1]


def move_cost(entry: LogEntry) -> int:
    """The cost a move's log line states."""
    match = _MOVE_COST.search(entry.text)
    assert match, entry.text
    return int(match.group(1))


def try_move(state: GameState, unit: str, to: str) -> LogEntry:
    """Move ``unit`` to ``to`` in a clone of ``state``; the move's log line."""
    twin = state.clone()
    twin.apply(f"move {unit} {to}")
    return move_entry(twin.log, unit)


@dataclass(frozen=True)
class Odds:
    """The odds line the engine logs when a battle is resolved."""

    attack: int
    defense: int
    odds: str
    shifts: tuple[tuple[str, int], ...]
    column: str
    rules: tuple[str, ...]
    text: str


_ODDS = re.compile(r"attack (\d+), defense (\d+); odds (\d+:\d+)(?:, shifts (.*))?; "
                   r"final column (\d+:\d+)$")
_SHIFT = re.compile(r"([+-]\d+) \[([^\]]+)\]")


def odds_entry(state: GameState) -> LogEntry:
    """The latest log line that reports a battle's odds and final column."""
    found = [e for e in state.log if "final column" in e.text]
    assert found, "no odds line was logged"
    return found[-1]


def parse_odds(entry: LogEntry) -> Odds:
    match = _ODDS.search(entry.text)
    assert match, entry.text
    attack, defense, odds, shift_text, column = match.groups()
    found = tuple((rule, int(n)) for n, rule in _SHIFT.findall(shift_text or ""))
    return Odds(int(attack), int(defense), odds, found, column, entry.rules, entry.text)


def odds_of(state: GameState) -> Odds:
    """The odds of the open battle, read from the line resolving it logs (in a clone)."""
    twin = state.clone()
    twin.apply("resolve")
    return parse_odds(odds_entry(twin))


# ----------------------------------------------------------------- the driver
def choose(legal: list[Action], mode: int, pick: int, last_unit: str | None) -> Action:
    """The action a script step picks among the legal actions."""
    assert legal, "no legal action in a live state"
    pool = legal
    if mode == HURRY and Action("end") in legal:
        return Action("end")
    if mode in STICKY and last_unit is not None:
        same = [a for a in legal if a.kind == "move" and a.args[0] == last_unit]
        if same:
            pool = same
    return pool[pick % len(pool)]


@dataclass(frozen=True)
class Before:
    """What a hook sees of the state before an action, and a move's cost and rules as logged."""

    pieces: dict[str, PieceSnapshot]
    cost: int | None = None
    rules: tuple[str, ...] = ()


Hook = Callable[[GameState, Action, Before], None]


def play(state: GameState, script: Script, hook: Hook | None = None,
         on_legal: Callable[[GameState, list[Action]], None] | None = None) -> Iterator[Action]:
    """Play ``script`` on ``state`` (in place), yielding every action applied.

    ``hook(state, action, before)`` runs after each action with a
    :class:`Before` record of the pieces on the board when play began
    (their snapshots before the action, and a move's cost as its log line
    states it); ``on_legal(state, legal)`` sees every list of legal actions a
    player chose from. Chance nodes are resolved with ``apply_chance`` and do
    not consume script steps.
    """
    pieces = tuple(state.positions()) if hook else ()
    last_unit: str | None = None
    for mode, pick in script:
        while state.is_chance_node():
            before = Before(snapshot_pieces(state, pieces)) if hook else None
            action = state.apply_chance()
            if hook and before is not None:
                hook(state, action, before)
            yield action
        if state.is_terminal():
            return
        legal = state.legal_actions()
        if on_legal:
            on_legal(state, legal)
        action = choose(legal, mode, pick, last_unit)
        snapshot = snapshot_pieces(state, pieces) if hook else {}
        logged = len(state.log)
        state.apply(action)
        cost, rules = None, ()
        if action.kind == "move":
            last_unit = action.args[0]
            # The move is made later (or not at all) when ending the previous
            # unit's move opened an overstack removal first (6.7, golden C1).
            made = [e for e in state.log[logged:] if e.text.startswith(f"{last_unit} moves ")]
            if hook and made:
                cost, rules = move_cost(made[-1]), made[-1].rules
        if hook:
            hook(state, action, Before(snapshot, cost, rules))
        yield action


def run(state: GameState, script: Script, hook: Hook | None = None,
        on_legal: Callable[[GameState, list[Action]], None] | None = None) -> list[Action]:
    """:func:`play` to the end of the script; the actions applied."""
    return list(play(state, script, hook, on_legal))
