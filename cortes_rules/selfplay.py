"""Self-play: a game between two players who choose uniformly among the legal actions.

``cortes-rules selfplay --seed N [--options PRESET|RULES] [--max-turns K]
[--setup NAME] [--scenario NAME]`` plays one such game and prints how it ended: the outcome
the rulebook's own ending rules give (winner, reason, and whatever the
ending reports: a level of victory, loss points by cause), or that it was
unfinished after K game turns. Nothing here knows a game: the players, the
turn and the outcome all come from the rulebook.

The seed drives both the dice (the game's own generator, through
``apply_chance``) and the players' choices (a separate generator), so a seed
always gives the same game.
"""

from __future__ import annotations

import random
from collections.abc import Callable, Iterable, Iterator, Mapping
from dataclasses import dataclass, field
from typing import Any

from .api import GameState, Rulebook, load
from .engine.machine import Outcome
from .errors import CortesRulesError
from .rule_numbers import rule_key

#: The set-up a game starts from when none is named, if the rulebook has it
#: and no opening sequence in which the players set up themselves.
DEFAULT_SETUP = "historical"
#: The turn cap when none is given: 20 game turns, or for a rulebook with
#: scenarios (which state their own length) SCENARIO_TURN_CAP.
DEFAULT_TURN_CAP = 20
SCENARIO_TURN_CAP = 100
#: Decisions after which a game is abandoned as stuck (far beyond any real game).
MAX_DECISIONS = 1_000_000


@dataclass
class SelfPlayResult:
    """What one self-played game did and how it ended."""

    rulebook: str
    seed: int
    setup: str | None
    options: tuple[str, ...]
    max_turns: int
    scenario: str | None = None
    turn: int = 1
    decisions: int = 0
    chance_events: int = 0
    outcome: Outcome | None = None
    moves_by_player: dict[str, int] = field(default_factory=dict)
    readings: tuple[str, ...] = ()
    """The readings chosen other than the defaults, as ``entry=reading``."""

    @property
    def finished(self) -> bool:
        return self.outcome is not None

    def lines(self) -> Iterator[str]:
        """The report as text lines."""
        options = ", ".join(self.options) or "none"
        scenario = f"scenario {self.scenario}, " if self.scenario else ""
        readings = f", readings: {', '.join(self.readings)}" if self.readings else ""
        yield (f"Self-play of {self.rulebook}: {scenario}seed {self.seed}, set-up "
               f"{self.setup or 'placed by the players'}, optional rules on: {options}"
               f"{readings}")
        players = ", ".join(f"{p} {n}" for p, n in self.moves_by_player.items())
        yield (f"{self.decisions} decisions ({players or 'none'}), "
               f"{self.chance_events} chance events")
        if self.outcome is None:
            yield f"Unfinished after {self.max_turns} turn{'s' if self.max_turns != 1 else ''}."
            return
        yield f"Game over in turn {self.turn}: {self.outcome.reason}"
        yield f"Winner: {', '.join(self.outcome.winners) or 'none'}"
        for name, value in self.outcome.scores.items():
            yield f"  score {name}: {_shown(value)}"
        for name, value in self.outcome.details.items():
            yield f"  {name}: {_shown(value)}"


def _shown(value: Any) -> str:
    if isinstance(value, dict):
        return ", ".join(f"{k} {_shown(v)}" for k, v in value.items())
    if isinstance(value, (list, tuple)):
        return ", ".join(_shown(v) for v in value)
    return str(value)


def parse_options(text: str | None) -> list[str]:
    """``"veteran"`` or ``"11.4,11.6"`` as a list of options (empty: none)."""
    return [part.strip() for part in (text or "").split(",") if part.strip()]


def parse_readings(texts: Iterable[str] | None) -> dict[str, str]:
    """``["loss_order=attacker_first", ...]`` as ``{entry: reading}``."""
    chosen: dict[str, str] = {}
    for text in texts or ():
        entry, sep, reading = text.partition("=")
        if not sep or not entry.strip() or not reading.strip():
            raise CortesRulesError(f"a reading is given as ENTRY=READING, not {text!r}")
        chosen[entry.strip()] = reading.strip()
    return chosen


def selfplay(rulebook: str | Rulebook, *, seed: int = 0,
             options: str | Iterable[str] = (), max_turns: int | None = None,
             setup: str | None = None, max_decisions: int = MAX_DECISIONS,
             after_each: Callable[[GameState], None] | None = None,
             scenario: str | int | None = None,
             readings: Mapping[str, str] | None = None) -> SelfPlayResult:
    """Play one game with uniformly random legal choices for every player.

    Args:
        rulebook: a rulebook name or path, or a loaded ``Rulebook``
            (``options`` then must be empty: it is already compiled).
        seed: seeds the dice and the choices.
        options: optional rules: rule numbers, presets (``"veteran"``) or ``"all"``.
        max_turns: stop, unfinished, once this many game turns are complete
            (default: 20, or 100 for a rulebook with scenarios, which end by
            their own length).
        setup: a named set-up. By default a rulebook with an opening sequence
            (a set-up stage) is played from it, on an empty map; otherwise the
            game starts from ``historical`` if the rulebook has it, else its
            first set-up.
        max_decisions: give up (an error) after this many decisions.
        after_each: called with the state after the set-up and after every
            action (decision or chance), e.g. to check invariants; what it
            raises propagates.
        scenario: for a rulebook with scenarios, the one to play (by name or
            number; by default the first).
        readings: a reading for some interpretations entries (entry id ->
            reading name); every other entry keeps its default.

    Raises:
        CortesRulesError: bad options, set-up or limits; a rulebook that
            cannot be loaded; a position where a player has no legal action.
    """
    if isinstance(seed, bool) or not isinstance(seed, int):
        raise CortesRulesError(f"a seed is a whole number, not {seed!r}")
    if max_turns is not None and (isinstance(max_turns, bool) or not isinstance(max_turns, int)
                                  or max_turns < 1):
        raise CortesRulesError(f"the turn limit is a whole number of at least 1, "
                               f"not {max_turns!r}")
    if isinstance(rulebook, Rulebook):
        if options or scenario is not None or readings:
            raise CortesRulesError("options, readings and scenarios are chosen when a "
                                   "rulebook is loaded: pass its name, not a loaded rulebook")
        book = rulebook
    else:
        book = load(rulebook, options=options, scenario=scenario, readings=readings)
    max_turns, setup = game_defaults(book, max_turns, setup)
    state = book.new_game(seed=seed, setup=setup)
    result = SelfPlayResult(book.name, seed, setup, tuple(_ordered(book.program.options)),
                            max_turns, book.scenario,
                            moves_by_player={p: 0 for p in book.players},
                            readings=tuple(f"{entry.id}={book.readings[entry.id]}"
                                           for entry in book.interpretations
                                           if book.readings.get(entry.id) != entry.default))
    choose = random.Random(seed)
    if after_each is not None:
        after_each(state)
    while not state.is_terminal() and state.turn <= max_turns:
        if state.is_chance_node():
            state.apply_chance()
            result.chance_events += 1
            if after_each is not None:
                after_each(state)
            continue
        player = state.current_player
        ids = state.legal_action_ids()
        if not ids:
            raise CortesRulesError(f"seed {seed}: {player} has no legal action in turn "
                                   f"{state.turn}, {state.phase_label}, and the game is not "
                                   f"over: the rules leave it stuck")
        if result.decisions >= max_decisions:
            raise CortesRulesError(f"seed {seed}: still in turn {state.turn} after "
                                   f"{result.decisions} decisions; abandoned")
        state.apply(ids[choose.randrange(len(ids))])
        if after_each is not None:
            after_each(state)
        result.decisions += 1
        if player is not None:
            result.moves_by_player[player] = result.moves_by_player.get(player, 0) + 1
    result.turn = state.turn
    result.outcome = state.outcome()
    return result


def game_defaults(book: Rulebook, max_turns: int | None,
                  setup: str | None) -> tuple[int, str | None]:
    """The turn cap and set-up a self-played game of ``book`` uses when given these:
    the defaults ``selfplay`` documents for those left out (None)."""
    if max_turns is None:
        max_turns = SCENARIO_TURN_CAP if book.scenarios else DEFAULT_TURN_CAP
    if setup is None and book.setups and not book.opening_phases:
        setup = DEFAULT_SETUP if DEFAULT_SETUP in book.setups else book.setups[0]
    return max_turns, setup


def _ordered(numbers: Iterable[str]) -> list[str]:
    return sorted(numbers, key=rule_key)
