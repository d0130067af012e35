"""Hypothesis strategies for the Cortés rules tests, and the random-play driver.

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

from collections.abc import Callable, Iterator
from dataclasses import dataclass
from typing import Any

from hypothesis import strategies as st

from cortes_rules import Action, GameState

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


@dataclass(frozen=True)
class UnitSnapshot:
    hex: str | None
    steps: int
    spent: int
    attacked: bool


def snapshot_units(state: GameState) -> dict[str, UnitSnapshot]:
    return {u: UnitSnapshot(s.hex, s.steps, s.spent, s.attacked) for u, s in state.units.items()}


def fingerprint(state: GameState) -> dict[str, Any]:
    """Everything an outside observer can see of a state, for equality checks."""
    return {
        "positions": state.positions(),
        "units": snapshot_units(state),
        "log": [str(entry) for entry in state.log],
        "log_len": len(state.log),
        "phase": state.phase,
        "turn": state.turn,
        "current_player": state.current_player,
        "terminal": state.is_terminal(),
        "battle": repr(state.battle),
        "removal": repr(state.removal),
        "rng": state.rng_state,
        "history": [str(a) for a in state.history],
    }


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
    """What a hook sees of the state before an action: its units, and a move's cost."""

    units: dict[str, UnitSnapshot]
    cost: Any = None


Hook = Callable[[GameState, Action, Before], None]


def play(state: GameState, script: Script, hook: Hook | None = None,
         on_legal: Callable[[GameState, list[Action]], None] | None = None) -> Iterator[Action]:
    """Play ``script`` on ``state`` (in place), yielding every action applied.

    ``hook(state, action, before)`` runs after each action with a
    :class:`Before` record; ``on_legal(state, legal)`` sees every list of
    legal actions a player chose from. Chance nodes are resolved with
    ``apply_chance`` and do not consume script steps.
    """
    last_unit: str | None = None
    for mode, pick in script:
        while state.is_chance_node():
            before = Before(snapshot_units(state))
            action = state.apply_chance()
            if hook:
                hook(state, action, before)
            yield action
        if state.is_terminal():
            return
        legal = state.legal_actions()
        if on_legal:
            on_legal(state, legal)
        action = choose(legal, mode, pick, last_unit)
        cost = state.move_cost(*action.args)[0] if action.kind == "move" else None
        before = Before(snapshot_units(state), cost)
        state.apply(action)
        if action.kind == "move":
            last_unit = action.args[0]
        if hook:
            hook(state, action, before)
        yield action


def run(state: GameState, script: Script, hook: Hook | None = None,
        on_legal: Callable[[GameState, list[Action]], None] | None = None) -> list[Action]:
    """:func:`play` to the end of the script; the actions applied."""
    return list(play(state, script, hook, on_legal))
