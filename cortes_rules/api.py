"""The public API: load a rulebook, start games, ask about rules.

The layers: the engine's state (``engine/machine.py``) runs the rules and
knows no tool; explanations, notation and pictures are built on it; the
``GameState`` here is that state with those tools added, and records,
adapters, the server and the command line are built on this module.

    >>> import cortes_rules
    >>> book = cortes_rules.load("cortes")
    >>> state = book.new_game(seed=1, setup="demo")
    >>> state.current_player
    'spanish'
"""

from __future__ import annotations

import os
from collections.abc import Iterable, Mapping
from typing import Any, cast

from .dsl import ir
from .dsl.diagnostics import Diagnostic
from .engine import collector
from .engine.actions import Action
from .engine.ai import Rollouts, rollout_seeds, utilities
from .engine.compile import RulesRuntimeError
from .engine.backend import select as select_backend
from .engine import machine as engine
from .engine.machine import Machine, Outcome
from .engine.log import _unchain
from .engine.recall import seen_plies
from .dsl.diagnostics import Span, line_of
from . import arguments
from .errors import (
    ArgumentTypeError,
    CortesRulesError,
    NotationError,
    RulesCheckError,
    UnknownNameError,
)
from .explain import Explanation, Route
from .explain import explain as explain_actions
from .explain import move_to as move_along_route
from .explain import reachable as reachable_places
from .loader import compile_rulebook
from .notation import read as read_position
from .notation import write as write_position
from .picture import render_svg
from .rule_numbers import rule_key
from .text_index import program_count

StrPath = str | os.PathLike[str]

__all__ = ["GameState", "Outcome", "Rollouts", "Rulebook", "load"]


class GameState(engine.GameState):
    """One position of a game, with everything needed to go on from it, and the
    tools built on it: explanations, routes, notation, information states, pictures.

    Create one with ``Rulebook.new_game()`` or ``Rulebook.position()``. The
    state itself (``cortes_rules.engine.machine.GameState``: legal actions,
    apply, chance, undo, observation) knows none of these tools; this class
    adds them, and adds nothing to its fast path (``legal_action_ids()``,
    ``apply()``, ``step()`` and ``clone()`` are the state's own).
    """

    origin: tuple[Any, ...] | None = None
    """How the game began, for its record (``cortes_rules.record``):
    ``("setup", NAME or None, positions or None, attributes or None)`` from
    ``Rulebook.new_game``,
    ``("position", TEXT)`` from ``Rulebook.position``; None when unknown. A
    class default, so that making and copying states costs nothing more."""

    @classmethod
    def _of(cls, state: engine.GameState) -> GameState:
        """A state a tool beneath the API made (``notation.read``), as this class: the
        same object, whose class becomes this one (the two hold the same fields)."""
        state.__class__ = cls
        return cast(GameState, state)

    def _set_by_hand(self) -> None:
        """After a set-up write (``engine.GameState._set_by_hand``): before any
        action, the game's record starts from this position (its set-up no longer
        says it all)."""
        super()._set_by_hand()
        if self._history is None and self.origin is not None:
            try:
                self.origin = ("position", self.to_notation())
            except NotationError:   # a value the notation cannot write: as before
                pass

    def explain(self, question: Any, *, player: str | None = None,
                policy: Any = None, rolls: int | None = None) -> Explanation:
        """What a sequence of actions would do from here, with rule trails and exact odds.

        See ``cortes_rules.explain.explain()`` (the state is left unchanged).
        Returns an ``Explanation``.
        """
        return explain_actions(self, question, player=player, policy=policy, rolls=rolls)

    def reachable(self, piece: str, *, kind: str | None = None, cost: str | None = None,
                  player: str | None = None) -> dict[str, Route]:
        """Every place ``piece`` can reach from here, each with its cheapest cost and route.

        The piece's legal steps of one kind (``move S9 3011``: the piece, then
        a place) are applied on copies, one after the other, as its player
        would make them this phase. ``cost`` names a numeric attribute whose
        growth is a step's cost (in Cortés, ``spent``: movement points);
        without it each step costs 1. ``player`` answers in that player's
        view (refused while pieces are hidden from him). Returns
        ``{place: Route}`` (``cortes_rules.explain.Route``: ``cost``,
        ``steps`` with their rule trails, ``actions``). The state is left
        unchanged.

        Raises:
            CortesRulesError: an unknown piece or attribute, or no step of
                that shape for the piece here.
        """
        return reachable_places(self, piece, kind=kind, cost=cost, player=player)

    def move_to(self, piece: str, destination: str, *, kind: str | None = None,
                cost: str | None = None, player: str | None = None) -> Route:
        """Take ``piece`` to ``destination`` by its cheapest route, one step after the
        other (a person's "move S9 to 3213"), and return that ``Route`` with the
        rule trail of each step. Nothing is applied when the place cannot be
        reached.

        Raises:
            CortesRulesError: the place cannot be reached (and the rule that
                refuses the last step), or as ``reachable()``.
        """
        return move_along_route(self, piece, destination, kind=kind, cost=cost,
                                player=player)

    def to_notation(self) -> str:
        """This position as text (``cortes_rules.notation``); ``Rulebook.position`` reads it."""
        return write_position(self)

    def information_state(self, player: str) -> dict[str, Any]:
        """What one player knows: what he sees now and everything he saw on the way.

        With perfect recall, as OpenSpiel's information states: the player's
        ``observation()`` now; every action of the game as he saw it (his own,
        the dice, and another player's unless it named a piece hidden from
        him just before or just after it, which shows only whose it was); and
        every log line he could read when it was written (a line about a unit
        shown during a battle stays in what he knows after the unit is hidden
        again). Two states whose histories a player cannot tell apart give
        him the same information state.

        The game is replayed from its start (``cortes_rules.engine.recall``)
        to judge each action as the player could see it then, so this takes
        about as long as the game has taken to play.

        Raises:
            CortesRulesError: no player of that name.
        """
        self._viewer(player)
        plies = seen_plies(self._start(), self.history, player)
        return {
            "player": player,
            "observation": self.observation(player),
            "actions": [{"by": actor, "action": str(action) if action is not None else None}
                        for actor, action in plies],
            "log": [str(e) for e in self.log if e.visible_to(player)],
        }

    def _start(self) -> GameState:
        """The position this game started from, as ``origin`` says: where its record
        (``cortes_rules.record.record_of``) starts it."""
        book = Rulebook._checked(self.machine.program, (), self.machine)
        origin = self.origin
        if origin is not None and origin[0] == "position":
            return book.position(origin[1])
        if origin is None or origin[2] is None:
            return book.new_game(seed=self.seed, setup=origin[1] if origin else None,
                                 turn_limit=self.turn_limit)
        return book.new_game(seed=self.seed, positions=origin[2], turn_limit=self.turn_limit,
                             attributes=origin[3] if len(origin) > 3 else None)

    def _repr_svg_(self) -> str:
        """The position as an SVG picture, for Jupyter (``cortes_rules.picture.render_svg``)."""
        return render_svg(self)


class NativeGameState(GameState):
    """A ``GameState`` whose play runs on the native VM (``Rulebook.new_game(native=True)``).

    The fast path (``legal_action_ids()``, ``apply()``, ``apply_chance()``,
    ``step()``, ``clone()``, ``is_terminal()``, ``is_chance_node()``,
    ``current_player``, ``outcome()``) runs on a VM state
    (``cortes_rules.core.vm``) that plays the same game, with the same dice,
    as the engine would. The engine's own state is kept as it was when the VM
    took over, with the actions taken since: anything else asked of this
    state (an observation, an explanation, the log, undo, a refusal's
    reasons) first plays those actions on the engine, and from then on the
    state is a plain ``GameState`` again, with the same history, log and
    generator as one that was never native. A refused action, or one the VM
    cannot run, is handed to the engine in the same way, which refuses it
    with its rules or plays it.
    """

    # The instance holds only _vm_state, _base, _behind, machine and origin while
    # native: any other attribute is missing, and reading it catches the engine up.

    def __getattr__(self, name: str) -> Any:
        if name.startswith("__") or "_base" not in self.__dict__:
            raise AttributeError(name)
        self._catch_up()
        return getattr(self, name)

    def _catch_up(self) -> None:
        """Play the actions taken natively on the engine; this becomes a ``GameState``."""
        mine = self.__dict__
        engine_state = mine["_base"].clone()
        for sampled, number in _unchain(mine["_behind"]):
            if sampled:
                drawn = engine_state.apply_chance()
                if self.machine.space.action(number) != drawn:
                    raise CortesRulesError(f"the VM drew {self.machine.space.action(number)} "
                                           f"where the engine draws {drawn}")
            else:
                engine_state.apply(number)
        caught_up = engine_state.__dict__
        if "origin" in mine:
            caught_up["origin"] = mine["origin"]
        self.__class__ = GameState  # type: ignore[assignment]
        self.__dict__ = caught_up

    def _hand_over(self) -> GameState:
        """Stop playing natively: the engine, caught up, takes the state on."""
        self._catch_up()
        return self

    def _took(self, sampled: bool, number: int) -> None:
        mine = self.__dict__
        mine["_behind"] = ((sampled, number), mine["_behind"])

    def legal_action_ids(self) -> list[int]:
        ids: list[int] = self._vm_state.legal_action_ids()
        return ids

    def legal_action_ids_buffer(self) -> Any:
        from array import array
        return array("i", self._vm_state.legal_action_ids())

    def is_terminal(self) -> bool:
        return bool(self._vm_state.is_terminal())

    def is_chance_node(self) -> bool:
        return bool(self._vm_state.is_chance_node())

    @property
    def current_player(self) -> str | None:
        player: str | None = self._vm_state.current_player()
        return player

    def outcome(self) -> Outcome | None:
        found = self._vm_state.outcome
        if found is None:
            return None
        return Outcome(tuple(found.winners), found.reason, found.scores, found.details,
                       found.rule)

    def apply(self, action: Action | str | int) -> None:
        number = action if type(action) is int else self._identify(action)[2]
        try:
            self._vm_state.apply(number)
        except Exception:   # refused, or a rule the VM cannot evaluate: the engine says
            GameState.apply(self._hand_over(), action)
            return
        self._took(False, number)

    def apply_chance(self) -> Action:
        vm_state = self._vm_state
        if not vm_state.is_chance_node():
            return GameState.apply_chance(self._hand_over())
        try:
            number = vm_state.apply_chance()
        except Exception:
            return GameState.apply_chance(self._hand_over())
        self._took(True, number)
        return self.machine.space.action(number)

    def step(self, action_id: int) -> list[int]:
        # Each call dispatches on the class the state has then: a hand-over to the
        # engine part way makes the rest of the step the engine's.
        self.apply(arguments.whole(action_id, "an action id"))
        while self.is_chance_node():
            self.apply_chance()
        return self.legal_action_ids()

    def clone(self) -> NativeGameState:
        twin = object.__new__(NativeGameState)
        copied = self.__dict__.copy()
        copied["_vm_state"] = copied["_vm_state"].clone()
        twin.__dict__ = copied
        return twin

    def __reduce_ex__(self, protocol: Any) -> Any:
        return self._hand_over().__reduce_ex__(protocol)


class Rulebook:
    """A compiled, checked rulebook: the factory of games.

    Attributes:
        program: the checked IR (every clause, with its rule number).
        warnings: diagnostics that did not stop the load.
    """

    def __init__(self, program: ir.Program, warnings: Iterable[Diagnostic] = (),
                 backend: str | None = None) -> None:
        machine = Machine(program, select_backend(backend))
        _check_static(program, machine)
        self._setup(program, warnings, machine)

    def _setup(self, program: ir.Program, warnings: Iterable[Diagnostic],
               machine: Machine) -> None:
        self.program = program
        self.warnings = tuple(warnings)
        self._machine = machine
        self._blank: GameState | None = None
        self._vm: Any = None   # the native VM (core.vm.VM), False: none, None: not yet asked

    @classmethod
    def _checked(cls, program: ir.Program, warnings: Iterable[Diagnostic],
                 machine: Machine) -> Rulebook:
        """A rulebook whose program passed ``_check_static`` already (see ``load``)."""
        book = cls.__new__(cls)
        book._setup(program, warnings, machine)
        return book

    def __repr__(self) -> str:
        extra = f", scenario={self.program.scenario!r}" if self.program.scenario else ""
        options = ", ".join(sorted(self.program.options, key=rule_key))
        return (f"<Rulebook {self.name!r}{extra}, {program_count(self.program)}, "
                f"options: {options or 'none'}, backend {self.backend!r}>")

    @property
    def backend(self) -> str:
        """The core this rulebook's games run on: ``"compiled"`` or ``"python"``."""
        return self._machine.backend.name

    @property
    def name(self) -> str:
        """The game's name, as its ``game`` block gives it (``cortes``)."""
        return self.program.game.name if self.program.game else "rulebook"

    @property
    def title(self) -> str:
        """The game's full title (``Cortés: Conquest of the Aztec Empire``)."""
        return self.program.game.label if self.program.game else self.name

    @property
    def players(self) -> tuple[str, ...]:
        """The players in turn order (parties run by the rules are not included)."""
        return tuple(p.name for p in self._machine.world.seats)

    @property
    def sides(self) -> tuple[str, ...]:
        """The sides: the players, under the name wargames give them."""
        return self.players

    @property
    def phases(self) -> tuple[str, ...]:
        """The phase names of the turn sequence, in order."""
        return tuple(p.name for p in self._machine.turn_phases)

    @property
    def opening_phases(self) -> tuple[str, ...]:
        """The phase names of the opening sequence (played once, before the first turn)."""
        return tuple(p.name for p in self._machine.phases[len(self._machine.turn_phases):])

    @property
    def piece_ids(self) -> tuple[str, ...]:
        """Every piece (unit, counter, card, marker) in the rulebook's order."""
        return tuple(p.id for p in self._machine.world.pieces)

    unit_ids = piece_ids

    @property
    def hex_ids(self) -> tuple[str, ...]:
        """Every hex of the map, in the map's order."""
        return tuple(p.id for p in self._machine.world.hexes)

    @property
    def place_ids(self) -> tuple[str, ...]:
        """Every place: hexes, areas, then off-board pools."""
        return tuple(p.id for p in self._machine.world.places)

    @property
    def interpretations(self) -> tuple[ir.Interpretation, ...]:
        """The interpretations registry: every entry, in the rulebook's order."""
        return tuple(self.program.interpretations.values())

    @property
    def readings(self) -> dict[str, str]:
        """Interpretation id -> the reading this rulebook was loaded with
        (the default unless ``load(..., readings=...)`` chose another)."""
        return dict(self.program.readings)

    def interpretation(self, entry_id: str) -> ir.Interpretation:
        """An entry of the interpretations registry by id.

        Raises:
            UnknownNameError: no entry has that id.
        """
        arguments.name(entry_id, "an interpretation")
        try:
            return self.program.interpretations[entry_id]
        except KeyError:
            known = ", ".join(self.program.interpretations) or "none"
            raise UnknownNameError(f"no interpretation {entry_id!r} (interpretations: "
                                   f"{known})") from None

    def depends_on(self, entry_id: str) -> tuple[str, ...]:
        """The numbers of the clauses whose statements change with an entry's reading."""
        arguments.name(entry_id, "an interpretation")
        return tuple(r.number for r in self.program.rules.values() if entry_id in r.readings)

    @property
    def setups(self) -> tuple[str, ...]:
        """The names of the set-ups the rulebook declares, for ``new_game(setup=...)``."""
        return tuple(self.program.setups)

    @property
    def scenarios(self) -> tuple[tuple[str, str], ...]:
        """The rulebook's scenarios as (name, title), whichever was loaded."""
        return self.program.scenarios

    @property
    def scenario(self) -> str | None:
        """The scenario this rulebook was loaded for (none if it has no scenarios)."""
        return self.program.scenario

    @property
    def num_distinct_actions(self) -> int:
        """How many integer action ids exist (ids are 0 .. this - 1)."""
        return self._machine.space.size

    def rule(self, number: str) -> ir.Rule:
        """A rule clause by number.

        Raises:
            UnknownNameError: the rulebook has no rule of that number.
        """
        arguments.name(number, "a rule")
        try:
            return self.program.rules[number]
        except KeyError:
            raise UnknownNameError(f"no rule {number} in this rulebook") from None

    def parse_action(self, text: str) -> Action:
        """An action of this rulebook from its text form (canonical, validated).

        Raises:
            NotationError: the text is not an action of this rulebook.
        """
        arguments.text(text, "an action's text form")
        return self._machine.space.action(self._machine.space.number(text))

    def action_id(self, action: Action | str) -> int:
        """The stable integer id of an action."""
        return self._machine.space.number(action)

    def action_from_id(self, number: int) -> Action:
        """The action with a given integer id."""
        if isinstance(number, bool) or not isinstance(number, int):
            raise NotationError(f"an action id is a whole number, not {number!r}")
        return self._machine.space.action(number)

    def evaluate(self, text: str, **variables: Any) -> Any:
        """The value of an expression of the rules language, with some variables bound.

        A what-if question for the rulebook's own clauses, e.g. the odds of 26
        against 7 factors three columns left (Cortés 8.9, 8.14, 8.17)::

            book.evaluate("odds_what_if(-3)", attack=26, defense=7)   # ('3:1', '1:2')

        Raises:
            CortesRulesError: the text does not parse or cannot be evaluated.
            ArgumentTypeError: the text is not a string.
        """
        arguments.text(text, "an expression")
        if self._blank is None:
            self._blank = GameState(self._machine, seed=0)
        return self._blank.evaluate(text, **variables)

    def setup_positions(self, name: str) -> dict[str, str]:
        """Where a named set-up places each piece.

        Raises:
            UnknownNameError: the rulebook declares no set-up of that name.
        """
        arguments.name(name, "a set-up")
        try:
            setup = self.program.setups[name]
        except KeyError:
            known = ", ".join(self.program.setups) or "none"
            raise UnknownNameError(f"no set-up {name!r} (set-ups: {known})") from None
        return {u: p.hex for p in setup.placements for u in p.units}

    def new_game(self, *, seed: int = 0, setup: str | None = None,
                 positions: Mapping[str, str] | None = None,
                 turn_limit: int | None = None,
                 attributes: Mapping[str, Mapping[str, Any]] | None = None,
                 native: bool = False) -> GameState:
        """Start a game.

        Args:
            seed: seeds the dice the engine rolls itself; the same seed and
                actions give the same game on any machine.
            setup: a set-up declared in the rulebook, e.g. ``"demo"``. Without
                one the game opens with the rulebook's set-up stage, if it has one.
            positions: piece id -> place id, added to (or instead of) the set-up;
                ``positions={}`` with no set-up asks for an empty board.
            turn_limit: end the game after this many game turns.
            attributes: starting values of declared attributes, given before
                the game begins: a piece or place id, or a player's name ->
                ``{attribute: value}``, each value of the attribute's declared
                type (``{"north": {"score": 3}, "C2": {"held_by": "C1"}}``; see
                ``GameState.set_attribute``).
            native: play on the native VM (``NativeGameState``): the same game,
                with the fast path in C, when the compiled core runs, the
                rulebook's constructs are all the VM's and the game starts
                from a set-up alone (no ``positions`` or ``attributes``);
                otherwise the engine's state, as without it.

        Raises:
            UnknownNameError: an unknown set-up, or ``attributes`` names an
                unknown owner or attribute.
            UnknownIdError: ``positions`` names an unknown piece or place (it is
                a ``NotationError`` too).
            ArgumentTypeError: an argument of the wrong type.
            CortesRulesError: a turn limit below 1, or no set-up and no positions
                for a rulebook that declares set-ups and has no set-up stage (the
                board would be empty).
            StartError: the starting position breaks a rule of the rulebook.
        """
        arguments.whole(seed, "a seed")
        if turn_limit is not None and arguments.whole(turn_limit, "a turn limit") < 1:
            raise CortesRulesError(f"a turn limit is a whole number of at least 1, "
                                   f"not {turn_limit!r}")
        setup = arguments.optional_name(setup, "a set-up")
        if positions is not None:
            positions = arguments.mapping_of_names(positions, "positions (piece -> place)")
        if setup is None and positions is None and self.setups and not self.opening_phases:
            raise CortesRulesError(
                f"name a set-up (setup=...; set-ups: {', '.join(self.setups)}), or pass "
                f"positions=... (positions={{}} for an empty board): this rulebook has no "
                f"set-up stage, so the game would start with nothing on the map")
        placed = dict(self.setup_positions(setup)) if setup else {}
        placed.update(positions or {})
        state = GameState(self._machine, seed=seed, positions=placed, turn_limit=turn_limit,
                          attributes=attributes)
        # Checked by now: kept as given, for the record (a position block then).
        kept = {o: dict(v) for o, v in attributes.items()} if attributes else None
        state.origin = ("setup", setup, None if positions is None and kept is None else placed,
                        kept)
        if native and positions is None and kept is None:
            return self._on_vm(state, seed, setup, turn_limit)
        return state

    def _on_vm(self, state: GameState, seed: int, setup: str | None,
               turn_limit: int | None) -> GameState:
        """``state`` made native (``NativeGameState``), when the VM runs this rulebook."""
        vm = self._native_vm()
        if vm is None:
            return state
        base = object.__new__(GameState)
        base.__dict__ = state.__dict__
        native = object.__new__(NativeGameState)
        native.__dict__ = {"_vm_state": vm.new_game(seed=seed, setup=setup,
                                                    turn_limit=turn_limit, log=False),
                           "_base": base, "_behind": None, "machine": state.machine,
                           "origin": state.origin}
        return native

    def random_rollouts(self, n: int, seed: int, *, setup: str | None = None,
                        max_actions: int | None = None, turn_limit: int | None = None
                        ) -> Rollouts:
        """Play ``n`` uniformly random games from the start, every chance event sampled.

        The games start from ``new_game(seed=seed, setup=setup, turn_limit=...)``
        and are played as ``GameState.random_rollouts(n, seed, ...)`` plays them
        (each with its own dice and choices drawn from ``seed``): the same
        arguments give the same games on both backends and every machine.

        Args:
            n: how many games to play (0 or more).
            seed: seeds the games' dice and the random players' choices.
            setup: a set-up declared in the rulebook (as for ``new_game``).
            max_actions: cut each game after this many actions (then it is
                scored as unfinished: every return 0).
            turn_limit: end each game after this many game turns.

        Returns:
            A ``Rollouts``: per game, the players' returns, the number of
            actions, the winners and whether it finished.

        Raises:
            ArgumentTypeError: an argument of the wrong type.
            CortesRulesError: ``n`` or ``max_actions`` below 0, or what
                ``new_game`` raises for ``setup`` and ``turn_limit``.
            RulesRuntimeError: a game reached a decision with no legal action.
        """
        arguments.whole(n, "n (how many games to play)")
        arguments.whole(seed, "a seed")
        start = self.new_game(seed=seed, setup=setup, turn_limit=turn_limit)
        vm = self._native_vm()
        if vm is None:
            return start.random_rollouts(n, seed, max_actions=max_actions)
        count = arguments.whole(n, "n (how many games to play)")
        if count < 0:
            raise CortesRulesError(f"n (how many games to play) is at least 0, not {n}")
        if max_actions is not None and (arguments.whole(max_actions, "max_actions") < 0):
            raise CortesRulesError(f"max_actions is at least 0, not {max_actions}")
        players = self.players
        returns, lengths, winners, finished = [], [], [], []
        for dice, chooser in rollout_seeds(seed, count):
            game = vm.new_game(seed=dice, setup=setup, turn_limit=turn_limit, log=False)
            try:
                lengths.append(game.random_playout(chooser, max_actions))
            except vm.rules_error as error:
                raise RulesRuntimeError(str(error)) from None
            outcome = game.outcome
            returns.append(tuple(utilities(players, outcome)))
            winners.append(outcome.winners if outcome is not None else ())
            finished.append(outcome is not None)
        return Rollouts(players, tuple(returns), tuple(lengths), tuple(winners), tuple(finished))

    def _native_vm(self) -> Any:
        """The native VM of this rulebook, compiled on first use, when the compiled core
        runs and the VM can run every construct of the rulebook (else None: the engine
        plays the rollouts, with the same results)."""
        if self._vm is None:
            self._vm = False
            if self.backend == "compiled":
                # Imported here, not above: the VM and its compiler are needed only by
                # rollouts, and would add to every ``import cortes_rules``.
                from .core.vm import VM, VMUnsupported
                try:
                    self._vm = VM.of(self)
                except (ImportError, VMUnsupported):
                    self._vm = False
        return self._vm or None

    def position(self, text: str) -> GameState:
        """A game state from a position's text (``GameState.to_notation``; docs/notation.md).

        Raises:
            NotationError: the text is not a position of this rulebook as loaded;
                the message names the line.
        """
        state = GameState._of(read_position(self._machine, text))
        state.origin = ("position", text)
        return state


class _Static:
    """Stands in for a game state while conditions on the rules alone are evaluated."""

    drawn = None


def _check_static(program: ir.Program, machine: Machine) -> None:
    """What can only be judged once the rulebook is compiled: ``require`` clauses
    and a turn sequence that gives somebody something to do.

    Raises:
        RulesCheckError: every problem found, each naming its clause.
    """
    problems: list[Diagnostic] = []
    texts = {m.path: m.text for m in program.modules}

    def report(span: Any, message: str, rule: str | None) -> None:
        problems.append(Diagnostic(span, message, rule=rule,
                                   source_line=line_of(texts.get(span.path, ""), span.line)))

    for clause in program.of(ir.RequireDecl):
        try:
            test = machine.compiler.expr(clause.test, clause.rule)
            holds = test(cast(GameState, _Static()), {})
        except CortesRulesError as error:
            report(clause.span, f"cannot check this requirement: {error}", clause.rule)
            continue
        if not holds:
            report(clause.span, clause.message, clause.rule)
    for name, setup in program.setups.items():
        positions = {u: p.hex for p in setup.placements for u in p.units}
        try:
            breaches = GameState(machine, positions=positions, begin=False).start_breaches()
        except CortesRulesError as error:
            breaches = [(None, str(error))]
        for rule, message in breaches:
            report(setup.span, f"set-up {name!r}: {message}", rule)
    sequence = next((s for s in program.of(ir.Sequence) if not s.opening), None)
    if sequence is None:
        report(Span(program.modules[0].path if program.modules else "<rules>", 1, 1),
               "this rulebook states no turn sequence", None)
    elif not any(p.activity in machine.procs for p in sequence.phases):
        report(sequence.span, "no phase of the turn sequence does anything: name a procedure "
               "with 'does'", sequence.rule)
    if problems:
        raise RulesCheckError(problems)


def load(name_or_path: StrPath, *, options: str | Iterable[str] = (),
         map: StrPath | None = None, counters: StrPath | None = None,
         setups: StrPath | None = None, readings: Mapping[str, str] | None = None,
         scenario: str | int | None = None, backend: str | None = None,
         every_reading: bool = False) -> Rulebook:
    """Compile and check a rulebook.

    Args:
        name_or_path: a shipped rulebook ("cortes"), a folder of ``*.rules``
            files, or a single file.
        options: optional rules to switch on: by number (``["11.4"]``), by a
            preset the rulebook names (``"veteran"``, ``"beginner"``), or ``"all"``.
        readings: interpretation id -> reading, for the entries of the
            interpretations registry to read otherwise than by default, e.g.
            ``{"minimum_move": "any_points_left"}`` (``cortes-rules interpretations``
            lists them).
        map: a file whose map block replaces the rulebook's own map (e.g. a
            map drawn from the printed one).
        counters: a file whose counter blocks replace the rulebook's counter mix.
        setups: a file whose set-up blocks replace the rulebook's set-ups.
        scenario: for a rulebook with scenarios (Grands Stratèges), the one to
            play, by name (``"IXa"``) or number (``4`` for ``"IV"``); by default
            the first. It brings its map, its optional rules and its own
            statements (forces, deployment, victory conditions, length).
        backend: ``"compiled"``, ``"python"`` or ``"auto"``; by default the
            environment variable ``CORTES_RULES_BACKEND`` decides, else ``auto``
            (the compiled core when it is built). See ``cortes_rules.backend()``.
        every_reading: also check the rules under every reading of the
            interpretations registry that this load does not follow, as
            ``cortes-rules check`` does. Without it a load checks what it
            runs: the readings chosen, with every optional rule switched on.

    Raises:
        RulesSyntaxError, RulesCheckError: the rules are broken; every
            diagnostic gives file:line:column, the line, a caret and the rule.
        UnknownNameError: no shipped rulebook of that name and no such path, or
            an unknown option, scenario, interpretation or reading.
        ArgumentTypeError: an argument of the wrong type (``options=5``).
    """
    _check_load_arguments(name_or_path, options, map, counters, setups, readings, scenario,
                          backend, every_reading)
    replace = {k: v for k, v in (("map", map), ("counters", counters), ("setups", setups))
               if v is not None}
    built: list[tuple[ir.Program, Machine]] = []

    def verify(program: ir.Program) -> None:
        # The checks that need the compiled rulebook run once, before the
        # program is kept in the load cache: a program read from there passed.
        machine = Machine(program, select_backend(backend))
        _check_static(program, machine)
        built.append((program, machine))

    with collector.paused():
        program, warnings = compile_rulebook(name_or_path, options=options, replace=replace,
                                             readings=readings, scenario=scenario,
                                             every_reading=every_reading, verify=verify)
        machine = next((m for p, m in built if p is program), None)
        if machine is None:
            machine = Machine(program, select_backend(backend))
        return Rulebook._checked(program, warnings, machine)


def _check_load_arguments(name_or_path: Any, options: Any, map: Any, counters: Any,
                          setups: Any, readings: Any, scenario: Any, backend: Any,
                          every_reading: Any) -> None:
    """Refuse ``load``'s arguments of the wrong type before anything is read.

    Raises:
        ArgumentTypeError: the first argument of the wrong type.
    """
    arguments.path(name_or_path, "a rulebook (a shipped one's name, or a path)")
    arguments.names(options, "options", "an option is a rule number or a preset name")
    for what, given in (("map", map), ("counters", counters), ("setups", setups)):
        if given is not None:
            arguments.path(given, f"{what}=")
    if readings is not None:
        arguments.mapping_of_names(readings, "readings (interpretation -> reading)")
    if scenario is not None and (isinstance(scenario, bool)
                                 or not isinstance(scenario, (str, int))):
        raise ArgumentTypeError(f"a scenario is named by a string or numbered by a whole "
                                f"number, not {arguments.describe(scenario)}")
    arguments.optional_name(backend, "a backend")
    arguments.flag(every_reading, "every_reading")


def backend(choice: str | None = None) -> str:
    """The core games run on when ``load`` is not told: ``"compiled"`` or ``"python"``.

    Raises:
        BackendError: ``CORTES_RULES_BACKEND`` (or ``choice``) names no backend,
            or asks for ``compiled`` and the extension cannot be imported.
        ArgumentTypeError: ``choice`` is not a string.
    """
    return select_backend(arguments.optional_name(choice, "a backend")).name
