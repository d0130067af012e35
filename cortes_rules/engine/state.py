"""The game state and its transitions: the reference interpreter proper.

A :class:`GameState` walks the rulebook's turn sequence. In a phase that
``does movement`` the phasing player moves units one hex at a time; in one
that ``does combat`` he opens battles, commits attackers, resolves them
(a chance node: the dice), allocates losses and advances. Every legality
question is answered by the rulebook's clauses (costs, forbid/permit,
stacking, odds, shifts, tables); the engine only knows the shape of these
mechanisms. Every adjudication is logged with the numbers of the rules that
decided it.

Validation never mutates: :meth:`GameState.apply` first asks
:meth:`GameState.why_illegal`, and only a legal action changes the state.
"""

from __future__ import annotations

import itertools
from collections.abc import Iterable, Mapping
from fractions import Fraction
from typing import Any

import attrs

from ..dsl import ir
from ..errors import IllegalActionError, NotationError
from . import hexgrid, rng
from .actions import Action
from .book import Book, ratio_rank
from .evaluate import Env, EvaluationError, HexView, UnitView, first_true

CHANCE = "chance"
Reason = tuple[str | None, str]


@attrs.define
class UnitState:
    """What changes about a unit during play."""

    hex: str | None
    steps: int
    spent: int = 0
    moved: int = 0
    attacked: bool = False
    eliminated: bool = False


@attrs.frozen
class LogEntry:
    """One line of the adjudication log."""

    turn: int
    phase: str
    text: str
    rules: tuple[str, ...]

    def __str__(self) -> str:
        cited = f" [{', '.join(self.rules)}]" if self.rules else ""
        return f"T{self.turn} {self.phase}: {self.text}{cited}"


@attrs.frozen
class OddsReport:
    """How a battle's final odds column was found.

    Attributes:
        values: the numeric values the odds clauses computed (attack, defense...).
        ratio: the raw odds, attacker to defender.
        shifts: ``(rule, columns)`` for every shift that applied (+ is right).
        column: the final column heading, e.g. ``(1, 2)`` for 1:2.
        rules: every rule that contributed.
    """

    values: Mapping[str, Any]
    ratio: tuple[int, int]
    shifts: tuple[tuple[str, int], ...]
    column: tuple[int, int]
    rules: tuple[str, ...]


@attrs.define
class Battle:
    """An open battle, from ``attack`` to the end of the advance."""

    target: str
    side: str
    attackers: list[str] = attrs.Factory(list)
    stage: str = "join"          # join -> roll -> lose -> advance
    odds: OddsReport | None = None
    losers: list[str] = attrs.Factory(list)   # sides still to take losses, in order
    owed: dict[str, int] = attrs.Factory(dict)
    involved: dict[str, list[str]] = attrs.Factory(dict)
    advanced: list[str] = attrs.Factory(list)
    required: int = 0


@attrs.define
class Removal:
    """An overstacked hex waiting for units to be removed (the overstack clause)."""

    hex: str
    side: str
    remover: str
    rule: str
    then_end_phase: bool = False


def _ratio_text(ratio: tuple[int, int]) -> str:
    return f"{ratio[0]}:{ratio[1]}"


class GameState:
    """One position of a game, with everything needed to go on from it.

    Create one with :meth:`cortes_rules.Rulebook.new_game`.
    """

    def __init__(self, book: Book, *, seed: int, positions: Mapping[str, str],
                 turn_limit: int | None = None) -> None:
        self.book = book
        self.seed = seed
        self.rng_state = seed & ((1 << 64) - 1)
        self.turn = 1
        self.turn_limit = turn_limit
        self.phase_index = 0
        self.units: dict[str, UnitState] = {
            uid: UnitState(hex=None, steps=spec.max_steps) for uid, spec in book.units.items()}
        for uid, hex_id in positions.items():
            book.unit(uid)
            if not book.on_map(hex_id):
                raise NotationError(f"hex {hex_id} is not on the map")
            self.units[uid].hex = hex_id
        self.attacked_hexes: set[str] = set()
        self.start_hex: dict[str, str | None] = {}
        self.active_group: str | None = None
        self.closed_groups: set[str] = set()
        self.unchecked_hexes: list[str] = []
        self.battle: Battle | None = None
        self.removal: Removal | None = None
        self.terminal = False
        self.log: list[LogEntry] = []
        self.history: list[Action] = []
        if not book.phases:
            raise NotationError("this rulebook states no turn sequence")
        self._begin_phase()

    # ================================================================ queries
    @property
    def phase(self) -> str:
        """The name of the current phase (as the turn sequence declares it)."""
        return self.book.phases[self.phase_index].name

    @property
    def phase_label(self) -> str:
        return self.book.phases[self.phase_index].label

    @property
    def phasing_side(self) -> str:
        """The side whose phase it is."""
        return self.book.phases[self.phase_index].side

    @property
    def current_player(self) -> str | None:
        """The side to act, :data:`CHANCE` at a dice roll, None when the game is over."""
        if self.terminal:
            return None
        if self.removal is not None:
            return self.removal.remover
        if self.battle is not None:
            if self.battle.stage == "roll":
                return CHANCE
            if self.battle.stage == "lose":
                return self.battle.losers[0]
        return self.phasing_side

    def is_chance_node(self) -> bool:
        """Whether the next action is a dice roll."""
        return self.current_player == CHANCE

    def is_terminal(self) -> bool:
        return self.terminal

    def outcome(self) -> Any:
        """How the game ended (an :class:`~cortes_rules.api.Outcome`), None while it goes on."""
        from ..api import outcome

        return outcome(self)

    def units_in(self, hex_id: str) -> list[str]:
        """Ids of the units in a hex, in counter order."""
        return [u for u, s in self.units.items() if s.hex == hex_id]

    def positions(self) -> dict[str, str]:
        """Where every unit on the map is."""
        return {u: s.hex for u, s in self.units.items() if s.hex is not None}

    def side_of(self, unit_id: str) -> str:
        return self.book.unit(unit_id).side

    def _on_map(self, unit_id: str) -> bool:
        return self.units[unit_id].hex is not None

    # ================================================================ copying
    def clone(self) -> GameState:
        """An independent copy: applying actions to it leaves this state alone."""
        twin = object.__new__(GameState)
        twin.__dict__.update(self.__dict__)
        twin.units = {u: attrs.evolve(s) for u, s in self.units.items()}
        twin.attacked_hexes = set(self.attacked_hexes)
        twin.start_hex = dict(self.start_hex)
        twin.closed_groups = set(self.closed_groups)
        twin.unchecked_hexes = list(self.unchecked_hexes)
        if self.battle is not None:
            b = self.battle
            twin.battle = attrs.evolve(b, attackers=list(b.attackers), losers=list(b.losers),
                                       owed=dict(b.owed),
                                       involved={k: list(v) for k, v in b.involved.items()},
                                       advanced=list(b.advanced))
        twin.removal = attrs.evolve(self.removal) if self.removal else None
        twin.log = list(self.log)
        twin.history = list(self.history)
        return twin

    # ================================================================ legality
    def legal_actions(self) -> list[Action]:
        """Every legal action, sorted by integer id."""
        candidates = self._candidates()
        legal = [a for a in candidates if not self.why_illegal(a)]
        return sorted(set(legal), key=self.book.action_id)

    def legal_action_ids(self) -> list[int]:
        """The integer ids of the legal actions, ascending (see ``Rulebook.action_id``)."""
        return [self.book.action_id(a) for a in self.legal_actions()]

    def __str__(self) -> str:
        player = self.current_player or "nobody (game over)"
        lines = [f"turn {self.turn}, {self.phase_label}; to act: {player}"]
        by_hex: dict[str, list[str]] = {}
        for unit_id, hex_id in self.positions().items():
            by_hex.setdefault(hex_id, []).append(f"{unit_id}({self.units[unit_id].steps})")
        lines.extend(f"  {h}: {' '.join(units)}" for h, units in sorted(by_hex.items()))
        return "\n".join(lines)

    def is_legal(self, action: Action) -> bool:
        return not self.why_illegal(action)

    def why_illegal(self, action: Action) -> list[Reason]:
        """Why an action is illegal here: ``(rule number or None, explanation)`` pairs.

        An empty list means the action is legal.
        """
        try:
            self.book.action_id(action)
        except NotationError as error:
            return [(None, str(error))]
        if self.terminal:
            return [(None, "the game is over")]
        handler = getattr(self, f"_check_{action.kind}")
        try:
            return list(handler(*action.args))
        except EvaluationError as error:
            return [(None, f"the rules cannot be evaluated for this action here: {error}")]

    def _candidates(self) -> Iterable[Action]:
        if self.terminal:
            return []
        if self.removal is not None:
            return [Action("remove", (u,)) for u in self.units_in(self.removal.hex)]
        battle = self.battle
        if battle is not None:
            if battle.stage == "join":
                return [Action("resolve"), Action("cancel"),
                        *(Action("join", (u,)) for u in self._own_units(battle.side))]
            if battle.stage == "roll":
                return [a for a, _ in self.chance_outcomes()]
            if battle.stage == "lose":
                return [Action("lose", (u,)) for u in battle.involved[battle.losers[0]]]
            return [Action("stop"), *(Action("advance", (u,)) for u in battle.attackers)]
        activity = self.book.phases[self.phase_index].activity
        actions = [Action("end")]
        if activity == "movement":
            for uid in self._own_units(self.phasing_side):
                hex_id = self.units[uid].hex
                assert hex_id is not None
                actions.extend(Action("move", (uid, n)) for n in self.book.neighbours(hex_id))
        elif activity == "combat":
            targets = {n for uid in self._own_units(self.phasing_side)
                       for n in self.book.neighbours(self.units[uid].hex or "")}
            actions.extend(Action("attack", (h,)) for h in sorted(targets))
        return actions

    def _own_units(self, side: str) -> list[str]:
        return [u for u, s in self.units.items()
                if s.hex is not None and self.book.units[u].side == side]

    def _busy(self) -> list[Reason]:
        if self.removal is not None:
            return [(self.removal.rule, f"units must first be removed from overstacked hex "
                     f"{self.removal.hex}")]
        if self.battle is not None:
            return [(None, f"the battle for {self.battle.target} is not finished")]
        return []

    def _unit_problem(self, unit_id: str, side: str | None = None) -> list[Reason]:
        if unit_id not in self.units:
            return [(None, f"no unit {unit_id}")]
        if not self._on_map(unit_id):
            return [(None, f"{unit_id} is not on the map")]
        if side is not None and self.side_of(unit_id) != side:
            return [(None, f"{unit_id} is not a {side} unit")]
        return []

    # ---------------------------------------------------------------- phases
    def _check_end(self) -> list[Reason]:
        return self._busy()

    # ---------------------------------------------------------------- movement
    def _move_env(self, unit_id: str, to: str) -> Env:
        origin = self.units[unit_id].hex
        assert origin is not None
        crossing = self.book.hexside(origin, to) if self.book.adjacent(origin, to) else frozenset()
        return Env(self, "move", {
            "unit": UnitView(self, unit_id), "from": HexView(self, origin),
            "to": HexView(self, to), "crossing": crossing, "side": self.side_of(unit_id)})

    def move_cost(self, unit_id: str, to: str) -> tuple[Any, tuple[str, ...]]:
        """The movement cost of one step and the rules that set it."""
        env = self._move_env(unit_id, to)
        chosen = None
        for clause in self.book.cost_overrides:
            assert clause.override is not None
            if env.eval(clause.override):
                chosen = clause
                break
        if chosen is None:
            chosen = self.book.base_costs[0]
        value = env.eval(chosen.expr)
        return value, tuple(sorted({chosen.rule, *env.trail}, key=_rule_order))

    def _check_move(self, unit_id: str, to: str) -> list[Reason]:
        activity = self.book.phases[self.phase_index].activity
        if activity != "movement":
            return [(None, f"there is no movement in the {self.phase_label} phase")]
        problems = self._busy() or self._unit_problem(unit_id, self.phasing_side)
        if problems:
            return problems
        if not self.book.on_map(to):
            return [(None, f"{to} is not a hex of the map")]
        group = self.book.one_group
        start = self.start_hex.get(unit_id)
        if group is not None and start in self.closed_groups:
            return [(group.rule, f"{unit_id}'s stack (from {start}) has finished moving "
                     "this phase")]
        return self._move_verdict(unit_id, to)[0]

    def _move_verdict(self, unit_id: str, to: str) -> tuple[list[Reason], bool, Any,
                                                             tuple[str, ...]]:
        """(reasons, spend all, cost, cost rules) of one step by the rules' clauses."""
        cost, cost_rules = self.move_cost(unit_id, to)
        env = self._move_env(unit_id, to).bind(cost=cost)
        reasons, permits = forbidding(self.book, "move", env)
        spend_all = any(p.spend_all for p in permits)
        if not isinstance(cost, int) and not reasons:
            reasons.append((cost_rules[0], f"entering {to} costs {cost!r} "
                            f"(rules {', '.join(cost_rules)})"))
        return reasons, spend_all, cost, cost_rules

    def _apply_move(self, unit_id: str, to: str) -> None:
        reasons, spend_all, cost, cost_rules = self._move_verdict(unit_id, to)
        start = self.start_hex.get(unit_id)
        if self.book.one_group is not None and start != self.active_group:
            self._close_group()
        self.active_group = start
        unit = self.units[unit_id]
        spec = self.book.units[unit_id]
        origin = unit.hex
        crossing = self.book.hexside(origin or "", to)
        permit_rules: tuple[str, ...] = ()
        if spend_all and cost > spec.move - unit.spent:
            permit_rules = tuple(p.rule for p in self.book.permits.get("move", []))
            unit.spent = spec.move
        else:
            unit.spent += cost
        unit.hex = to
        unit.moved += 1
        via = f" across a {', '.join(sorted(crossing))} hexside" if crossing else ""
        note = " (all its movement points: minimum move)" if permit_rules else ""
        self._log(f"{unit_id} moves {origin} -> {to}{via}: cost {cost}{note}, "
                  f"{spec.move - unit.spent} of {spec.move} MP left",
                  (*cost_rules, *permit_rules))

    def _close_group(self) -> None:
        """End the active group's move and hold its hexes to the stacking limits."""
        if self.active_group is None:
            return
        group = self.active_group
        self.closed_groups.add(group)
        self.active_group = None
        self.unchecked_hexes = sorted({
            s.hex for u, s in self.units.items()
            if s.hex is not None and self.start_hex.get(u) == group
            and self.side_of(u) == self.phasing_side})
        self._check_next_hex()

    def _check_next_hex(self) -> None:
        """Open a removal for the next overstacked hex of the group just closed."""
        while self.unchecked_hexes:
            hex_id = self.unchecked_hexes.pop(0)
            if self._open_removal(hex_id, self.phasing_side):
                return

    def stacking_violations(self, hex_id: str, side: str, extra: Iterable[str] = (),
                            without: Iterable[str] = ()) -> list[ir.Stacking]:
        """The stacking clauses a side's units in a hex break.

        ``extra`` units are counted as if they were there, ``without`` units
        as if they were not.
        """
        members = ({u for u in self.units_in(hex_id) if self.side_of(u) == side}
                   | set(extra)) - set(without)
        env = Env(self, "stack", {"units": frozenset(UnitView(self, u) for u in members),
                                  "hex": HexView(self, hex_id), "side": side})
        return [c for c in self.book.stacking.get(side, []) if not env.eval(c.requires)]

    def _open_removal(self, hex_id: str, side: str) -> bool:
        broken = self.stacking_violations(hex_id, side)
        if not broken:
            return False
        clause = self.book.overstack
        rules = tuple(c.rule for c in broken)
        if clause is None:
            self._log(f"{hex_id} is overstacked", rules)
            return False
        remover = self.book.opponent(side) if clause.remover == "opponent" else side
        self.removal = Removal(hex_id, side, remover, clause.rule)
        self._log(f"{hex_id} is overstacked; {remover} removes units until it is within "
                  "the limits", (*rules, clause.rule))
        return True

    def _check_remove(self, unit_id: str) -> list[Reason]:
        removal = self.removal
        if removal is None:
            return [(None, "no hex is waiting for units to be removed")]
        problems = self._unit_problem(unit_id, removal.side)
        if problems:
            return problems
        if self.units[unit_id].hex != removal.hex:
            return [(removal.rule, f"{unit_id} is not in the overstacked hex {removal.hex}")]
        if unit_id not in self.fewest_removals(removal.hex, removal.side):
            return [(removal.rule, f"removing {unit_id} is not part of removing the fewest "
                     f"units that bring {removal.hex} within the limits")]
        return []

    def fewest_removals(self, hex_id: str, side: str) -> set[str]:
        """Units that belong to some smallest set whose removal ends the overstack."""
        members = [u for u in self.units_in(hex_id) if self.side_of(u) == side]
        for size in range(1, len(members) + 1):
            found: set[str] = set()
            for subset in itertools.combinations(members, size):
                if not self.stacking_violations(hex_id, side, without=subset):
                    found.update(subset)
            if found:
                return found
        return set(members)

    def _apply_remove(self, unit_id: str) -> None:
        removal = self.removal
        assert removal is not None
        self._eliminate(unit_id)
        self._log(f"{removal.remover} removes {unit_id} from {removal.hex}", (removal.rule,))
        if not self.stacking_violations(removal.hex, removal.side):
            self.removal = None
            self._check_next_hex()
            if self.removal is not None:
                self.removal.then_end_phase = removal.then_end_phase
            elif removal.then_end_phase:
                self._end_phase()

    # ---------------------------------------------------------------- combat
    def _battle_env(self, context: str, battle: Battle, **more: Any) -> Env:
        directions = set()
        for uid in battle.attackers:
            hex_id = self.units[uid].hex
            if hex_id is not None:
                d = hexgrid.direction(battle.target, hex_id, self.book.odd_columns_low)
                if d is not None:
                    directions.add(d)
        return Env(self, context, {
            "target": HexView(self, battle.target), "side": battle.side,
            "attackers": frozenset(UnitView(self, u) for u in battle.attackers),
            "attack_directions": frozenset(directions), **more})  # `more` may replace side

    def _check_attack(self, hex_id: str) -> list[Reason]:
        if self.book.phases[self.phase_index].activity != "combat":
            return [(None, f"there is no combat in the {self.phase_label} phase")]
        problems = self._busy()
        if problems:
            return problems
        if not self.book.on_map(hex_id):
            return [(None, f"{hex_id} is not a hex of the map")]
        env = Env(self, "attack", {"target": HexView(self, hex_id), "side": self.phasing_side})
        reasons, _ = forbidding(self.book, "attack", env)
        if not reasons:
            probe = Battle(hex_id, self.phasing_side)
            if not any(not self._join_reasons(probe, u)
                       for u in self._own_units(self.phasing_side)):
                reasons.append((None, f"no unit of yours may attack {hex_id}"))
        return reasons

    def _apply_attack(self, hex_id: str) -> None:
        self.battle = Battle(hex_id, self.phasing_side)
        defenders = ", ".join(self.units_in(hex_id))
        self._log(f"battle opened against {hex_id} ({defenders})",
                  tuple(c.rule for c in self.book.forbids.get("attack", [])))

    def _join_reasons(self, battle: Battle, unit_id: str) -> list[Reason]:
        problems = self._unit_problem(unit_id, battle.side)
        if problems:
            return problems
        if unit_id in battle.attackers:
            return [(None, f"{unit_id} already attacks {battle.target}")]
        env = Env(self, "join", {"unit": UnitView(self, unit_id),
                                 "target": HexView(self, battle.target), "side": battle.side})
        return forbidding(self.book, "join", env)[0]

    def _check_join(self, unit_id: str) -> list[Reason]:
        if self.battle is None or self.battle.stage != "join":
            return [(None, "no battle is open to join")]
        return self._join_reasons(self.battle, unit_id)

    def _apply_join(self, unit_id: str) -> None:
        assert self.battle is not None
        self.battle.attackers.append(unit_id)
        self._log(f"{unit_id} joins the attack on {self.battle.target}",
                  tuple(c.rule for c in self.book.forbids.get("join", [])))

    def _check_cancel(self) -> list[Reason]:
        if self.battle is None or self.battle.stage != "join":
            return [(None, "no battle is waiting to be resolved")]
        return []

    def _apply_cancel(self) -> None:
        assert self.battle is not None
        self._log(f"the attack on {self.battle.target} is called off", ())
        self.battle = None

    def odds(self, battle: Battle) -> OddsReport:
        """The final odds column of a battle: odds, shifts, clamping.

        Raises:
            EvaluationError: the odds cannot be computed (e.g. a defence of 0).
        """
        book = self.book
        env = self._battle_env("combat", battle)
        clause = first_true(env, book.odds)
        if clause is None:
            raise EvaluationError("no odds clause applies to this battle")
        ratio = (int(env.eval(clause.attacker)), int(env.eval(clause.defender)))
        values = {k: v for k, v in env._defines.items() if isinstance(v, (int, Fraction))
                  and not isinstance(v, bool)}
        shifts = []
        for shift in book.shifts:
            before = set(env.trail)
            if env.eval(shift.when):
                shifts.append((shift.rule, shift.columns))
            else:  # cite only what decided an applied clause
                env.trail.clear()
                env.trail.update(before)
        if book.cumulative is None:
            shifts = shifts[:1]
        total = sum(columns for _, columns in shifts)
        clamp = book.clamp
        assert clamp is not None
        final = column_index(book, ratio, total)
        column = book.tables[clamp.table].columns[final]
        rules = {clause.rule, clamp.rule, *env.trail, *(r for r, _ in shifts)}
        if book.cumulative is not None and len(shifts) > 1:
            rules.add(book.cumulative.rule)
        return OddsReport(values, ratio, tuple(shifts), column,
                          tuple(sorted(rules, key=_rule_order)))

    def forecast(self) -> dict[tuple[int, int], Fraction]:
        """The exact chances of each result of the open battle, before its roll.

        Keys are ``(attacker's step loss, defender's step loss)``; the
        probabilities are exact and sum to 1. Ask it once attackers have
        joined (or at the roll itself).
        """
        battle = self.battle
        if battle is None or not battle.attackers or battle.stage not in ("join", "roll"):
            raise EvaluationError("no battle with attackers is waiting for its roll")
        report = battle.odds or self.odds(battle)
        return result_distribution(self.book, report.column)

    def _check_resolve(self) -> list[Reason]:
        battle = self.battle
        if battle is None or battle.stage != "join":
            return [(None, "no battle is waiting to be resolved")]
        if not battle.attackers:
            return [(None, "no unit has joined the attack yet")]
        try:
            self.odds(battle)
        except EvaluationError as error:
            return [(None, f"the odds cannot be worked out: {error}")]
        return []

    def _apply_resolve(self) -> None:
        battle = self.battle
        assert battle is not None
        report = self.odds(battle)
        battle.odds = report
        battle.stage = "roll"
        values = ", ".join(f"{k} {v}" for k, v in sorted(report.values.items()))
        shifts = ", ".join(f"{'+' if c > 0 else ''}{c} [{r}]" for r, c in report.shifts)
        self._log(f"{' + '.join(battle.attackers)} against {battle.target}: {values}; odds "
                  f"{_ratio_text(report.ratio)}" + (f", shifts {shifts}" if shifts else "")
                  + f"; final column {_ratio_text(report.column)}", report.rules)

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """At a dice roll: every outcome with its exact probability."""
        if not self.is_chance_node():
            return []
        resolve = self.book.resolve
        assert resolve is not None
        dice = self.book.dice[resolve.dice]
        return [(Action("roll", (str(total),)), p)
                for total, p in rng.dice_distribution(dice.count, dice.faces)]

    def _check_roll(self, value: str) -> list[Reason]:
        if not self.is_chance_node():
            return [(None, "no dice roll is due")]
        if value not in {a.args[0] for a, _ in self.chance_outcomes()}:
            return [(None, f"the dice cannot come up {value}")]
        return []

    def _apply_roll(self, value: str) -> None:
        battle = self.battle
        assert battle is not None and battle.odds is not None
        resolve, results = self.book.resolve, self.book.results
        assert resolve is not None and results is not None
        table = self.book.tables[resolve.table]
        left, right = table.cell(int(value), battle.odds.column)
        defender = self.book.opponent(battle.side)
        owed = {battle.side if results.left == "attacker" else defender: left,
                defender if results.right == "defender" else battle.side: right}
        battle.owed = owed
        battle.involved = {battle.side: list(battle.attackers),
                           defender: self._defenders(battle)}
        first = battle.side if results.first == "attacker" else defender
        battle.losers = [s for s in (first, self.book.opponent(first)) if owed[s] > 0]
        self._log(f"{resolve.roller} rolls {value} at {_ratio_text(battle.odds.column)}: "
                  f"result {left}/{right} (attacker/defender steps)",
                  tuple(sorted({resolve.rule, table.rule, results.rule}, key=_rule_order)))
        battle.stage = "lose"
        self._settle_losses()

    def _defenders(self, battle: Battle) -> list[str]:
        env = self._battle_env("combat", battle)
        define = self.book.define("combat", "defenders")
        assert define is not None
        units = env.eval(define.expr)
        return sorted((u.id for u in units), key=self.book.unit_ids.index)

    def _settle_losses(self) -> None:
        """Skip sides whose losses are paid or who have no steps left."""
        battle = self.battle
        assert battle is not None
        while battle.losers:
            side = battle.losers[0]
            able = [u for u in battle.involved[side]
                    if self._on_map(u) and self.units[u].steps > 0]
            if battle.owed[side] > 0 and able:
                battle.involved[side] = [u for u in battle.involved[side] if self._on_map(u)]
                return
            battle.losers.pop(0)
        self._after_losses()

    def _check_lose(self, unit_id: str) -> list[Reason]:
        battle = self.battle
        if battle is None or battle.stage != "lose":
            return [(None, "no combat losses are being taken")]
        side = battle.losers[0]
        if unit_id not in battle.involved[side] or not self._on_map(unit_id):
            return [(None, f"{unit_id} is not a {side} unit in the battle for {battle.target}")]
        if self.units[unit_id].steps <= 0:
            return [(None, f"{unit_id} has no steps to lose")]
        env = self._battle_env("lose", battle, unit=UnitView(self, unit_id), side=side,
                               involved=frozenset(UnitView(self, u)
                                                  for u in battle.involved[side]
                                                  if self._on_map(u)))
        return forbidding(self.book, "lose", env)[0]

    def _apply_lose(self, unit_id: str) -> None:
        battle = self.battle
        assert battle is not None
        side = battle.losers[0]
        unit = self.units[unit_id]
        unit.steps -= 1
        battle.owed[side] -= 1
        results = self.book.results
        rules = [results.rule] if results else []
        rules += [c.rule for c in self.book.forbids.get("lose", [])]
        if unit.steps == 0:
            self._eliminate(unit_id)
            what = "is eliminated"
        else:
            what = f"drops to {unit.steps} step{'s' if unit.steps != 1 else ''}"
        self._log(f"{unit_id} loses a step and {what} ({battle.owed[side]} more owed by "
                  f"{side})", tuple(r for r in rules if r))
        self._settle_losses()

    def _after_losses(self) -> None:
        battle = self.battle
        assert battle is not None
        survivors = [u for u in battle.attackers if self._on_map(u)]
        clause = self.book.advance
        if clause is not None and survivors:
            env = self._battle_env("battle_end", battle, survivors=frozenset(
                UnitView(self, u) for u in survivors))
            if env.eval(clause.when):
                battle.stage = "advance"
                battle.required = clause.minimum
                self._log(f"{battle.target} is empty: at least {clause.minimum} surviving "
                          "attacker must advance into it", (clause.rule,))
                return
        self._finish_battle()

    def _advance_reasons(self, battle: Battle, unit_id: str) -> list[Reason]:
        if unit_id not in battle.attackers or not self._on_map(unit_id):
            return [(None, f"{unit_id} is not a surviving attacker")]
        if unit_id in battle.advanced:
            return [(None, f"{unit_id} has already advanced")]
        survivors = frozenset(UnitView(self, u) for u in battle.attackers if self._on_map(u))
        over = bool(self.stacking_violations(battle.target, battle.side, extra=[unit_id]))
        env = self._battle_env("advance", battle, unit=UnitView(self, unit_id),
                               survivors=survivors, would_overstack=over)
        return forbidding(self.book, "advance", env)[0]

    def _check_advance(self, unit_id: str) -> list[Reason]:
        if self.battle is None or self.battle.stage != "advance":
            return [(None, "no advance after combat is due")]
        return self._advance_reasons(self.battle, unit_id)

    def _apply_advance(self, unit_id: str) -> None:
        battle = self.battle
        assert battle is not None
        origin = self.units[unit_id].hex
        self.units[unit_id].hex = battle.target
        battle.advanced.append(unit_id)
        rule = self.book.advance.rule if self.book.advance else ""
        self._log(f"{unit_id} advances {origin} -> {battle.target} (no MP spent)",
                  (rule,) if rule else ())

    def _check_stop(self) -> list[Reason]:
        battle = self.battle
        if battle is None or battle.stage != "advance":
            return [(None, "no advance after combat is due")]
        if len(battle.advanced) < battle.required and any(
                not self._advance_reasons(battle, u) for u in battle.attackers):
            rule = self.book.advance.rule if self.book.advance else None
            return [(rule, f"at least {battle.required} surviving attacker must advance "
                     f"into {battle.target}")]
        return []

    def _apply_stop(self) -> None:
        self._finish_battle()

    def _finish_battle(self) -> None:
        battle = self.battle
        assert battle is not None
        for uid in battle.attackers:
            self.units[uid].attacked = True
        self.attacked_hexes.add(battle.target)
        self.battle = None
        marks = [c.rule for kind in ("attack", "join") for c in self.book.forbids.get(kind, [])
                 if "attacked" in _expr_text(c.when)]
        self._log(f"the battle for {battle.target} is over; its units and hex have fought "
                  "this phase", marks)

    def _eliminate(self, unit_id: str) -> None:
        unit = self.units[unit_id]
        unit.hex = None
        unit.steps = 0
        unit.eliminated = True

    # ================================================================ phases
    def _apply_end(self) -> None:
        if self.book.phases[self.phase_index].activity == "movement":
            self._close_group()
            if self.removal is not None:
                self.removal.then_end_phase = True
                return
        self._end_phase()

    def _end_phase(self) -> None:
        self.phase_index += 1
        if self.phase_index == len(self.book.phases):
            self.phase_index = 0
            self.turn += 1
            if self.turn_limit is not None and self.turn > self.turn_limit:
                self.terminal = True
                self.phase_index = len(self.book.phases) - 1
                return
        self._begin_phase()

    def _begin_phase(self) -> None:
        for unit in self.units.values():
            unit.spent = 0
            unit.moved = 0
            unit.attacked = False
        self.attacked_hexes.clear()
        self.start_hex = {u: s.hex for u, s in self.units.items()}
        self.active_group = None
        self.closed_groups = set()
        if self.book.phases[self.phase_index].activity is None:
            self._end_phase()

    # ================================================================ applying
    def apply(self, action: Action | str) -> None:
        """Apply a legal action.

        Raises:
            IllegalActionError: the action is not legal here; it names the
                rules that forbid it, and the state is left unchanged.
            NotationError: the text of the action does not parse.
        """
        if isinstance(action, str):
            action = Action.parse(action)
        reasons = self.why_illegal(action)
        if reasons:
            raise IllegalActionError(action, reasons)
        self.history.append(action)
        getattr(self, f"_apply_{action.kind}")(*action.args)

    def apply_chance(self) -> Action:
        """At a dice roll, roll with the state's seeded generator and apply it."""
        if not self.is_chance_node():
            raise IllegalActionError(Action("roll", ("0",)), [(None, "no dice roll is due")])
        resolve = self.book.resolve
        assert resolve is not None
        dice = self.book.dice[resolve.dice]
        self.rng_state, total = rng.roll_dice(self.rng_state, dice.count, dice.faces)
        action = Action("roll", (str(total),))
        self.apply(action)
        return action

    def _log(self, text: str, rules: Iterable[str]) -> None:
        cited = tuple(dict.fromkeys(r for r in rules if r))
        self.log.append(LogEntry(self.turn, self.phase_label, text,
                                 tuple(sorted(cited, key=_rule_order))))


def column_index(book: Book, ratio: tuple[int, int], shift: int) -> int:
    """Index of the final odds column: raw odds, plus column shifts, clamped.

    Odds beyond the table's ends are placed on the same line of columns
    (4:1 is one right of 3:1, 12:1 four right of 8:1), so shifting before or
    after clamping, as the clamp clause says, gives different answers.
    """
    clamp = book.clamp
    assert clamp is not None
    ranks = book.column_ranks()
    last = len(ranks) - 1
    index = ratio_rank(ratio) - ranks[0]
    if clamp.after_shifts:
        return min(max(index + shift, 0), last)
    return min(max(min(max(index, 0), last) + shift, 0), last)


def raw_odds(book: Book, attack: int, defense: int) -> tuple[tuple[int, int], str]:
    """The odds the rulebook's odds clauses give for two totals, and the rule used.

    ``attack`` and ``defense`` are bound as the names ``attack`` and
    ``defense``, so this asks the rulebook's own odds clauses.
    """
    env = Env(_Detached(book), "combat",  # type: ignore[arg-type]
              {"attack": attack, "defense": defense})
    clause = first_true(env, book.odds)
    if clause is None:
        raise EvaluationError(f"no odds clause applies to {attack} against {defense}")
    return (int(env.eval(clause.attacker)), int(env.eval(clause.defender))), clause.rule


def result_distribution(book: Book, column: tuple[int, int]) -> dict[tuple[int, int], Fraction]:
    """Exact chances of each ``(attacker loss, defender loss)`` in one odds column."""
    resolve, results = book.resolve, book.results
    assert resolve is not None and results is not None
    dice = book.dice[resolve.dice]
    table = book.tables[resolve.table]
    chances: dict[tuple[int, int], Fraction] = {}
    for total, chance in rng.dice_distribution(dice.count, dice.faces):
        left, right = table.cell(total, column)
        key = (left, right) if results.left == "attacker" else (right, left)
        chances[key] = chances.get(key, Fraction(0)) + chance
    return dict(sorted(chances.items()))


class _Detached:
    """Stands in for a state when only bound variables are read."""

    def __init__(self, book: Book) -> None:
        self.book = book


def forbidding(book: Book, kind: str, env: Env) -> tuple[list[Reason], list[ir.Permit]]:
    """The forbid clauses of an action kind that hold, less those a permit lifts.

    Returns the reasons that remain and the permits that were used.
    """
    reasons: list[Reason] = []
    used: list[ir.Permit] = []
    for clause in book.forbids.get(kind, []):
        if not env.eval(clause.when):
            continue
        permit = next((p for p in book.permits.get(kind, [])
                       if p.despite == clause.rule and env.eval(p.when)), None)
        if permit is not None:
            used.append(permit)
        else:
            reasons.append((clause.rule, _explain(clause, env)))
    return reasons, used


def _expr_text(node: ir.Expr) -> str:
    from ..dsl.render import expr

    return expr(node)


def _explain(clause: ir.Forbid, env: Env) -> str:
    """``Title: forbidden when CONDITION`` for a forbid clause that holds."""
    rule = env.book.program.rules.get(clause.rule)
    title = f"{rule.title}: " if rule is not None else ""
    return f"{title}forbidden when {_expr_text(clause.when)}"


def _rule_order(number: str) -> tuple[int, ...]:
    parts = []
    for piece in number.split("."):
        digits = "".join(ch for ch in piece if ch.isdigit())
        parts.append(int(digits) if digits else 0)
    return tuple(parts)
