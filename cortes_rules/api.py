"""The public API: load a rulebook, start games, ask about rules.

    >>> import cortes_rules
    >>> book = cortes_rules.load("cortes")
    >>> state = book.new_game(seed=1, setup="demo")
    >>> state.current_player
    'spanish'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from fractions import Fraction

import attrs

from .dsl import ir
from .dsl.diagnostics import Diagnostic
from .engine.actions import Action
from .engine.book import Book
from .engine.machine import Machine, State
from .engine.state import GameState, column_index, raw_odds, result_distribution
from .errors import CortesRulesError
from .loader import compile_rulebook

StrPath = str | os.PathLike[str]


@attrs.frozen
class Outcome:
    """How a finished game ended.

    Attributes:
        winner: the winning side, or None when the rules name none.
        reason: why the game ended, citing rules where it can.
    """

    winner: str | None
    reason: str


class Rulebook:
    """A compiled, checked rulebook: the factory of games.

    Attributes:
        program: the checked IR (every clause, with its rule number).
        warnings: diagnostics that did not stop the load.
    """

    def __init__(self, program: ir.Program, warnings: Iterable[Diagnostic] = ()) -> None:
        self.program = program
        self.warnings = tuple(warnings)
        self._book = Book(program)
        # A rulebook stated on the core (it declares procedures) runs on the
        # core's interpreter; the Cortés slice still runs on the first engine
        # until it is re-expressed on the core's mechanism library.
        self._machine: Machine | None = Machine(program) if program.of(ir.Procedure) else None

    @property
    def name(self) -> str:
        return self.program.game.name if self.program.game else "rulebook"

    @property
    def title(self) -> str:
        return self.program.game.label if self.program.game else self.name

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides, in declaration order."""
        return self._book.sides

    @property
    def players(self) -> tuple[str, ...]:
        """The players (sides) in turn order; parties run by the rules are not included."""
        if self._machine is not None:
            return tuple(p.name for p in self._machine.world.seats)
        return self._book.sides

    @property
    def phases(self) -> tuple[str, ...]:
        """The phase names of the turn sequence, in order."""
        return tuple(p.name for p in self._book.phases)

    @property
    def unit_ids(self) -> tuple[str, ...]:
        return self._book.unit_ids

    @property
    def hex_ids(self) -> tuple[str, ...]:
        return self._book.hex_ids

    @property
    def setups(self) -> tuple[str, ...]:
        return tuple(self.program.setups)

    @property
    def num_distinct_actions(self) -> int:
        """How many integer action ids exist (ids are 0 .. this - 1)."""
        if self._machine is not None:
            return self._machine.space.size
        return self._book.num_distinct_actions

    def rule(self, number: str) -> ir.Rule:
        """A rule clause by number."""
        try:
            return self.program.rules[number]
        except KeyError:
            raise CortesRulesError(f"no rule {number} in this rulebook") from None

    def action_id(self, action: Action | str) -> int:
        """The stable integer id of an action."""
        if self._machine is not None:
            return self._machine.space.number(action)
        return self._book.action_id(Action.parse(action) if isinstance(action, str) else action)

    def action_from_id(self, number: int) -> Action:
        if self._machine is not None:
            return self._machine.space.action(number)
        return self._book.action_from_id(number)

    def odds(self, attack: int, defense: int, shift: int = 0) -> tuple[str, str]:
        """What-if odds: ``(raw odds, final column)`` for two totals and a net shift.

        Uses the rulebook's odds clauses (8.9-8.10 in Cortés) and its clamp
        clause (8.17); e.g. ``book.odds(26, 7) == ("3:1", "3:1")`` and
        ``book.odds(26, 7, shift=-3) == ("3:1", "1:2")``.
        """
        ratio, _ = raw_odds(self._book, attack, defense)
        clamp = self._book.clamp
        if clamp is None:
            raise CortesRulesError("this rulebook has no clamp clause, so no odds columns")
        column = self._book.tables[clamp.table].columns[column_index(self._book, ratio, shift)]
        return f"{ratio[0]}:{ratio[1]}", f"{column[0]}:{column[1]}"

    def forecast(self, attack: int, defense: int,
                 shift: int = 0) -> dict[tuple[int, int], Fraction]:
        """What-if results: exact chances of each ``(attacker loss, defender loss)``.

        For two combat totals and a net column shift, e.g. ``book.forecast(26, 7)``
        at 3:1 gives ``(1, 2)`` (a roll of 5) a chance of 4/36.
        """
        _, column = self.odds(attack, defense, shift)
        a, d = column.split(":")
        return result_distribution(self._book, (int(a), int(d)))

    def setup_positions(self, name: str) -> dict[str, str]:
        """Where a named set-up places each unit."""
        try:
            setup = self.program.setups[name]
        except KeyError:
            known = ", ".join(self.program.setups) or "none"
            raise CortesRulesError(f"no set-up {name!r} (set-ups: {known})") from None
        return {u: p.hex for p in setup.placements for u in p.units}

    def new_game(self, *, seed: int = 0, setup: str | None = None,
                 positions: Mapping[str, str] | None = None,
                 turn_limit: int | None = None) -> GameState:
        """Start a game.

        Args:
            seed: seeds the dice the engine rolls itself; the same seed and
                actions give the same game on any machine.
            setup: a set-up declared in the rulebook, e.g. ``"demo"``.
            positions: unit id -> hex id, added to (or instead of) the set-up.
            turn_limit: end the game after this many game turns.
        """
        placed = dict(self.setup_positions(setup)) if setup else {}
        placed.update(positions or {})
        if self._machine is not None:
            return State(self._machine, seed=seed, positions=placed,  # type: ignore[return-value]
                         turn_limit=turn_limit)
        return GameState(self._book, seed=seed, positions=placed, turn_limit=turn_limit)


def outcome(state: GameState) -> Outcome | None:
    """How a game ended, or None while it goes on."""
    if not state.is_terminal():
        return None
    return Outcome(None, f"the turn limit ({state.turn_limit}) was reached; the rulebook "
                   "states no victory conditions yet, so no side is named the winner")


def load(name_or_path: StrPath = "cortes", *, options: Iterable[str] = (),
         map: StrPath | None = None, counters: StrPath | None = None,
         setups: StrPath | None = None) -> Rulebook:
    """Compile and check a rulebook.

    Args:
        name_or_path: a shipped rulebook ("cortes"), a folder of ``*.rules``
            files, or a single file.
        options: optional rules to switch on by number, or ``["all"]``.
        map, counters, setups: files whose blocks replace the rulebook's own
            map, counter mix or set-ups (e.g. a map drawn from the printed one).

    Raises:
        RulesSyntaxError, RulesCheckError: the rules are broken; every
            diagnostic gives file:line:column, the line, a caret and the rule.
    """
    replace = {k: v for k, v in (("map", map), ("counters", counters), ("setups", setups))
               if v is not None}
    program, warnings = compile_rulebook(name_or_path, options=options, replace=replace)
    return Rulebook(program, warnings)
