"""Invariants of a Cortés game, checked after every action of random games.

Issue 6 lists them; each is checked from the state itself, independently of
the clauses that maintain it:

* every counter is in exactly one place (a hex, a lake zone, a pool: a dead
  pile, the permanently eliminated, the withdrawn, the deserted; or off the
  map), the engine's two indexes agree, and a side's pool holds only that
  side's counters (2.10, 10.2, 10.4);
* no unit has more steps than it started with, nor fewer than none (2.10);
* stacking holds whenever no move is under way: at every change of phase
  (6.6), and the overstack procedure (6.7) is never left pending;
* the loss-point total equals a recount from the state (5.4): 5 per
  interphase begun in the log, 1 per European unit (leaders aside) in a
  Spanish dead pile, 5 unless Cuauhtemoc is permanently eliminated;
* hidden information never reaches the other player: no counter hidden
  from a player appears in his observation, and no log line he may see
  names one hidden at the moment it is written (8.8).

``GameChecker`` is used by tests/games/test_random_games.py (the CI games)
and by tests/games/soak.py (1,000 games per preset).
"""

from __future__ import annotations

import json
import re
from typing import Any

from cortes_rules import GameState, Rulebook
from cortes_rules.selfplay import selfplay

POOL_SIDES = {"dead.spanish": "spanish", "dead.aztec": "aztec", "gone.spanish": "spanish",
              "gone.aztec": "aztec", "withdrawn.spanish": "spanish",
              "withdrawn.aztec": "aztec"}
SPANISH_DEAD_PILES = ("dead.spanish", "gone.spanish")
INTERPHASE_BEGINS = re.compile(r"mutual R&R interphase \d+ begins")


class InvariantBroken(AssertionError):
    """An invariant does not hold; the message says which, where and when."""


class GameChecker:
    """Checks every invariant of one game after each action (``__call__``)."""

    def __init__(self, book: Rulebook, label: str) -> None:
        self.book = book
        self.label = label
        world = book._machine.world
        self.pieces = world.pieces
        self.kind_of = {p.id: p.kind for p in world.places}
        self.side_of = {p.id: (p.side.name if p.side is not None else None)
                        for p in world.pieces}
        self.counted_dead = {p.id for p in book.evaluate(
            "list(u for u in pieces where u is european and not (u is leader))")}
        self.cuauhtemoc = [p.id for p in book.evaluate(
            "list(u for u in pieces where u is cuauhtemoc)")]
        self.start_steps: list[int] | None = None
        self.phase: tuple[int, str] | None = None
        self.log_seen = 0
        # What each player could not see when the last check ran (before the
        # action now being checked): viewer name -> piece ids.
        self.hidden_before: dict[str, set[str]] = {}
        self.interphases = 0
        self.actions = 0

    def fail(self, state: GameState, what: str) -> None:
        raise InvariantBroken(f"{self.label}, action {self.actions} (turn {state.turn}, "
                              f"{state.phase}): {what}")

    def __call__(self, state: GameState) -> None:
        if self.start_steps is None:
            self.start_steps = list(state.piece_attrs["steps"])
        self.one_place_each(state)
        self.steps_within_start(state)
        self.no_hidden_piece_in_new_log(state)
        phase = (state.turn, state.phase)
        changed = phase != self.phase
        if changed or state.is_terminal():
            # The dearer checks run as each phase begins and at the end: the
            # loss points and the observations are functions of the state,
            # so these states test them as well as every state would.
            self.phase = phase
            # Stacking is settled as moves and phases end (6.6, 6.7): a game
            # won at once in mid-phase (5.2, Cortés taken under 9.4 while
            # another move left a hex overstacked) ends before it is.
            if changed:
                self.stacking_holds(state)
            self.observations_hide(state)
            self.loss_points_recount(state)
        self.actions += 1

    # 2.10, 10.2, 10.4: one place per counter.
    def one_place_each(self, state: GameState) -> None:
        seen: dict[int, int] = {}
        for index, members in state.occupants.items():
            for piece in members:
                if piece.index in seen:
                    self.fail(state, f"{piece.id} is listed in two places")
                seen[piece.index] = index
                if state.where[piece.index] is None or state.where[piece.index].index != index:
                    self.fail(state, f"{piece.id} is listed in place #{index} but is "
                                     f"recorded at {state.where[piece.index]}")
        for piece, place in zip(self.pieces, state.where, strict=True):
            if place is None:
                continue
            if piece.index not in seen:
                self.fail(state, f"{piece.id} is at {place.id} but not listed there")
            kind = self.kind_of[place.id]
            if kind not in ("hex", "zone", "pool"):
                self.fail(state, f"{piece.id} is in {place.id}, a place of kind {kind}")
            owner = POOL_SIDES.get(place.id)
            if owner is not None and self.side_of[piece.id] != owner:
                self.fail(state, f"{piece.id} ({self.side_of[piece.id]}) is in {place.id}")

    # 2.10: full strength at the start, never more.
    def steps_within_start(self, state: GameState) -> None:
        assert self.start_steps is not None
        for piece, now, start in zip(self.pieces, state.piece_attrs["steps"],
                                     self.start_steps, strict=True):
            if not 0 <= now <= start:
                self.fail(state, f"{piece.id} has {now} steps (it started with {start})")

    # 6.6, 6.7: within the limits whenever a phase changes.
    def stacking_holds(self, state: GameState) -> None:
        crowded = [h for h, members in state.occupants.items()
                   if len(members) > 1 and self.kind_of[state.machine.world.places[h].id] == "hex"]
        for h in crowded:
            hex_id = state.machine.world.places[h].id
            breaches = state.evaluate("stacking_breaches(h)", h=hex_id)
            if breaches:
                self.fail(state, f"{hex_id} is over the stacking limits ({breaches}) "
                                 f"when the phase changes")

    # 5.4: loss points from the state.
    def loss_points_recount(self, state: GameState) -> None:
        positions = state.positions()
        dead = sum(1 for p in self.counted_dead if positions.get(p) in SPANISH_DEAD_PILES)
        cuauhtemoc = 0 if all(positions.get(c) == "gone.aztec" for c in self.cuauhtemoc) else 5
        expected = 5 * self.interphases + dead + cuauhtemoc
        got = state.evaluate("loss_points()")
        if got != expected:
            self.fail(state, f"loss points {got}, recount {expected} (interphases "
                             f"{self.interphases}, dead units {dead}, Cuauhtemoc {cuauhtemoc})")

    # 8.8: hidden information.
    def no_hidden_piece_in_new_log(self, state: GameState) -> None:
        log = state.log
        new = log[self.log_seen:]
        self.log_seen = len(log)
        self.interphases += sum(1 for e in new if INTERPHASE_BEGINS.search(str(e)))
        if not state.machine.hides:
            return
        for viewer in state.machine.world.players:
            # Only the other side's pieces (and pieces of no side) can be hidden
            # from a player; observations_hide checks that his own never are.
            hidden_now = {p.id for p in self.pieces
                          if self.side_of[p.id] != viewer.name and state.hidden_from(p, viewer)}
            # A line is judged against the pieces hidden both before and after
            # the action: one action may reveal a stack, log its losses and
            # hide it again once the battle is over (8.8), and a line written
            # while the stack was shown is no leak. A piece hidden throughout
            # must never be named.
            hidden = hidden_now & self.hidden_before.get(viewer.name, hidden_now)
            self.hidden_before[viewer.name] = hidden_now
            if not hidden:
                continue
            for entry in new:
                if entry.visible_to(viewer.name):
                    named = hidden & set(re.findall(r"[A-Za-z]+\d*", str(entry)))
                    if named:
                        self.fail(state, f"{viewer.name} may see the log line {entry} "
                                         f"naming hidden {sorted(named)}")

    def observations_hide(self, state: GameState) -> None:
        for viewer in state.machine.world.players:
            hidden = {p.id for p in self.pieces if state.hidden_from(p, viewer)}
            own = sorted(h for h in hidden if self.side_of[h] == viewer.name)
            if own:
                self.fail(state, f"{viewer.name}'s own pieces {own} are hidden from him")
            if not hidden:
                continue
            # The log is history: each line was checked against what was hidden
            # when it was written (no_hidden_piece_in_new_log); a unit seen then
            # and covered by another since is no leak.
            observation = state.observation(viewer.name)
            observation.pop("log")
            seen = observation_words(observation)
            leaked = hidden & seen
            if leaked:
                self.fail(state, f"{viewer.name}'s observation names hidden {sorted(leaked)}")


def observation_words(observation: dict[str, Any]) -> set[str]:
    """Every word of an observation (keys and values), to look for hidden ids."""
    return set(re.findall(r"[A-Za-z]+\d*", json.dumps(observation, default=str)))


def play_checked(book: Rulebook, seed: int, *, max_turns: int = 20) -> tuple[str, int]:
    """One random game from the set-up stage with every invariant checked after each action.

    Returns how it ended (the outcome's reason, or "unfinished") and the turn.
    """
    checker = GameChecker(book, f"seed {seed}")
    result = selfplay(book, seed=seed, max_turns=max_turns, after_each=checker)
    return (result.outcome.reason if result.outcome else "unfinished", result.turn)
