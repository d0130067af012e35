"""The reference interpreter's state and its run loop (``core.ir.Instr`` opcodes).

A ``State`` holds what changes in a game: where each piece is, the attribute
columns, the global values, the turn and phase, the frame stack (each frame a
procedure, a program counter and its slots), the generator (SplitMix64, drawn
as ``engine/rng.py`` draws), the log and the end. ``run()`` executes
instructions until a decision (``choose``, ``sealed``), a chance event
(``roll``, ``draw``) or the end; ``legal_action_ids()`` lists the decision,
``apply()`` takes one action and runs on.
"""

from __future__ import annotations

from fractions import Fraction
from typing import Any

from ...engine import rng
from .. import ir
from . import values as v
from .board import Board
from .evaluate import UNBOUND, Evaluator, RulesError, Scope, variables

_ZERO = {"int": 0, "bool": False, "list": (), "set": frozenset()}
_PAUSES = frozenset(("choose", "sealed", "roll", "draw"))


class Frame:
    """One procedure running: its code, where it is and its slots."""

    __slots__ = ("proc", "pc", "slots", "scope")

    def __init__(self, proc: ir.Procedure, names: dict[str, int], slots: list[Any]) -> None:
        self.proc, self.pc, self.slots = proc, 0, slots
        self.scope = Scope(names, slots)


class Line:
    """A log line: turn, phase label, text, the rules it cites, who may read it."""

    __slots__ = ("turn", "phase", "text", "rules", "audience")

    def __init__(self, turn: int, phase: str, text: str, rules: tuple[str, ...],
                 audience: frozenset[str] | None) -> None:
        self.turn, self.phase, self.text, self.rules = turn, phase, text, rules
        self.audience = audience


class Outcome:
    """How the game ended: winners (names in seat order), reason, scores, report, rule."""

    def __init__(self, winners: tuple[str, ...], reason: str, scores: dict[str, Any],
                 details: dict[str, Any], rule: str | None) -> None:
        self.winners, self.reason, self.scores = winners, reason, scores
        self.details, self.rule = details, rule


class Candidate:
    """A listed action: its id, the option, and what taking it writes to which slot."""

    __slots__ = ("id", "option", "writes")

    def __init__(self, number: int, option: ir.Option, writes: tuple[tuple[int, Any], ...]):
        self.id, self.option, self.writes = number, option, writes


class State(Evaluator):
    """A game in progress, run from the core IR (``Game``) alone."""

    def __init__(self, board: Board, *, seed: int = 0, setup: str | None = None,
                 turn_limit: int | None = None) -> None:
        game = self.game = board.game
        self.board = board
        self.names = {id(p): variables(p.slot_names) for p in (*game.procedures, game.main)}
        self.rng_state = seed & ((1 << 64) - 1)
        self.turn, self.phase_index, self.turn_limit = 1, 0, turn_limit
        self.where: list[v.Place | None] = [None] * len(board.pieces)
        self.occupants: dict[int, tuple[v.Piece, ...]] = {}
        self.last_roll: Any = None
        self.drawn: set[str] | None = None
        self.revealed: set[tuple[int, int]] = set()
        self.log: list[Line] = []
        self.outcome: Outcome | None = None
        self._listed: list[Candidate] | None = None
        if setup is not None:
            chosen = next(s for s in game.setups if s.name == setup)
            for piece, place in chosen.placements:
                self.put(board.pieces[piece], board.places[place])
        self.columns: dict[tuple[str, str], list[Any]] = {}
        self.derived = {(d.owner, d.name): d for d in game.derived}
        self.values: list[Any] = []
        for g in game.values:
            self.values.append(self.value(g.initial, [UNBOUND] * g.frame, Scope({}, [])))
        owners = {"piece": board.pieces, "place": board.places, "player": board.players}
        for a in game.attributes:
            if a.initial is None:
                column = [_ZERO.get(a.type.split()[0])] * len(owners[a.owner])
            else:
                column = []
                for owner in owners[a.owner]:
                    slots = [owner] + [UNBOUND] * (a.frame - 1)
                    column.append(self.value(a.initial, slots, Scope({a.owner: 0}, slots)))
            self.columns[(a.owner, a.name)] = column
        self.stack = [self.frame(game.main, [])]
        self.run()

    # ------------------------------------------------------------ reading
    def frame(self, proc: ir.Procedure, args: list[Any]) -> Frame:
        return Frame(proc, self.names[id(proc)], args + [UNBOUND] * (proc.frame - len(args)))

    def ref(self, e: ir.Ref) -> Any:
        b = self.board
        kind = e.kind
        if kind == "all":
            return b.all[e.index]
        if kind == "procedure":
            return e.name
        return {"player": b.players, "place": b.places, "piece": b.pieces, "table": b.tables,
                "dice": b.dice, "region": b.regions, "pool": b.pools}[kind][e.index]

    def attribute(self, target: Any, name: str) -> Any:
        """``target.name``: a column of state, a derived value, or what the thing is."""
        if isinstance(target, v.Piece):
            owner = "piece"
        elif isinstance(target, v.Place):
            owner = "place"
        elif isinstance(target, v.Player):
            owner = "player"
        elif isinstance(target, v.Row):
            if self.drawn is not None:
                self.drawn.add(target.table.rule)
            return target.cells[target.table.columns.index(name)]
        else:
            raise TypeError(f"{v.text(target)} has no attribute {name!r}")
        column = self.columns.get((owner, name))
        if column is not None:
            return column[target.index]
        derive = self.derived.get((owner, name))
        if derive is not None:
            slots = [target] + [UNBOUND] * (derive.frame - 1)
            return self.value(derive.expr, slots, Scope({owner: 0}, slots))
        if isinstance(target, v.Piece):
            fixed = {"place": self.where[target.index], "side": target.side,
                     "class": target.cls, "id": target.id}
            return fixed[name] if name in fixed else target.props[name]
        if isinstance(target, v.Place):
            if name == "pieces":
                return self.occupants.get(target.index, ())
            return {"terrain": target.features, "owner": target.owner, "id": target.id,
                    "kind": target.kind, "shore": target.shore}[name]
        return {"name": target.name}[name]

    def applying(self, hook: str, ctx: Scope) -> list[tuple[Any, str]]:
        """A hook's contributions whose condition holds, ``(value, rule)`` in rule order;
        each applied one joins the rule trail being kept, a failed condition's reads do not."""
        out = []
        found = self.board.hooks.get(hook)
        for c in found.entries if found is not None else ():
            slots = [UNBOUND] * c.frame
            if c.when is not None:
                before = set(self.drawn) if self.drawn is not None else None
                if not self.value(c.when, slots, ctx):
                    if self.drawn is not None and before is not None:
                        self.drawn.intersection_update(before)
                    continue
            out.append((self.value(c.value, slots, ctx), c.rule))
            if self.drawn is not None:
                self.drawn.add(c.rule)
        return out

    def forbidden(self, action: int, ctx: Scope) -> bool:
        """Whether a forbid clause on ``action`` holds and no permit lifts it."""
        for clause, permits in self.board.forbids[action]:
            if self.value(clause.when, [UNBOUND] * clause.frame, ctx) and not any(
                    self.value(p.when, [UNBOUND] * p.frame, ctx) for p in permits):
                return True
        return False

    def allowed(self, kind: str, ctx: Scope) -> bool:
        action = self.board.actions.get(kind)
        return action is None or not self.forbidden(action, ctx)

    def next_player(self, player: v.Player) -> v.Player:
        seats = self.board.seats
        return seats[(seats.index(player) + 1) % len(seats)]

    # ------------------------------------------------------------ writing
    def put(self, piece: v.Piece, place: v.Place | None) -> None:
        old = self.where[piece.index]
        if old is place:
            return
        if old is not None:
            left = tuple(p for p in self.occupants[old.index] if p is not piece)
            if left:
                self.occupants[old.index] = left
            else:
                del self.occupants[old.index]
        self.where[piece.index] = place
        if place is not None:
            here = (*self.occupants.get(place.index, ()), piece)
            self.occupants[place.index] = tuple(sorted(here, key=lambda p: p.index))

    def finish(self, winner: Any, reason: str, details: dict[str, Any], rule: str | None
               ) -> None:
        if winner is None:
            winners: tuple[str, ...] = ()
        elif isinstance(winner, (tuple, frozenset, list)):
            winners = tuple(str(w) for w in v.in_order(winner))
        else:
            winners = (str(winner),)
        score = self.columns.get(("player", "score"))
        scores = {p.name: score[p.index] for p in self.board.seats} if score else {}
        sequence = self.game.main.rule
        self.outcome = Outcome(winners, reason, scores,
                               {k: v.plain(x) for k, x in details.items()},
                               rule or (None if sequence.startswith("core:") else sequence))

    # ------------------------------------------------------------ running
    def run(self) -> None:
        """Execute instructions until a decision, a chance event or the end, then
        check the endings (``finish when``)."""
        while self.outcome is None and not self.step():
            pass
        if self.outcome is None:
            for end in self.game.endings:
                slots = [UNBOUND] * end.frame
                scope = Scope({}, slots)
                if self.value(end.when, slots, scope):
                    winner = (self.value(end.winner, slots, scope)
                              if end.winner is not None else None)
                    self.finish(winner, "".join(v.text(self.value(p, slots, scope))
                                                for p in end.reason),
                                {k: self.value(x, slots, scope) for k, x in end.report},
                                end.rule)
                    return

    def step(self) -> bool:
        """Execute one instruction of the top frame; True at a pause (the frame left at it)."""
        f = self.stack[-1]
        code = f.proc.code
        if f.pc >= len(code):
            return self.leave()
        ins = code[f.pc]
        op, slots, scope = ins.op, f.slots, f.scope
        if op in _PAUSES:
            if op == "sealed" and self.chooser(f, ins) is None:
                f.pc += 1
                return False
            if op in ("choose", "sealed") and not self.candidates():
                raise RulesError(f"a choice in procedure {f.proc.name} has no legal action "
                                 f"[rule {ins.rule}]")
            if op == "draw" and not self.pool(f, ins):
                raise RulesError(f"nothing to draw from [rule {ins.rule}]")
            return True
        at = f.pc
        f.pc += 1
        ev = self.value
        if op == "let":
            slots[ins.a] = ev(ins.args[0], slots, scope)
        elif op == "jumpifnot":
            if not ev(ins.args[0], slots, scope):
                f.pc = ins.target
        elif op == "jump":
            f.pc = ins.target
        elif op == "fornext":
            found, i = slots[ins.a]
            f.pc = ins.target
            while i < len(found):
                slots[ins.b] = found[i]
                i += 1
                if not ins.args or ev(ins.args[0], slots, scope):
                    f.pc = at + 1
                    break
            slots[ins.a] = (found, i)
        elif op == "forinit":
            slots[ins.a] = (tuple(v.items(ev(ins.args[0], slots, scope))), 0)
        elif op == "call":
            if len(self.stack) > 200:
                raise RulesError("procedures call each other too deeply")
            args = [ev(a, slots, scope) for a in ins.args]
            self.stack.append(self.frame(self.game.procedures[ins.a], args))
        elif op == "return":
            return self.leave()
        else:
            self.rare(f, ins)
        return False

    def leave(self) -> bool:
        self.stack.pop()
        if not self.stack:
            self.finish(None, "the turn sequence ended", {}, None)
        return False

    def rare(self, f: Frame, ins: ir.Instr) -> None:
        """The instructions that write the state, log, end or change the turn."""
        op, slots, scope, ev = ins.op, f.slots, f.scope, self.value
        if op == "setglobal":
            self.values[ins.a] = ev(ins.args[0], slots, scope)
        elif op == "setattr":
            target, value = (ev(a, slots, scope) for a in ins.args)
            owner = {v.Piece: "piece", v.Place: "place", v.Player: "player"}.get(type(target))
            column = self.columns.get((owner or "", ins.text))
            if column is None:
                raise RulesError(f"cannot set {v.text(target)}.{ins.text}: not a declared "
                                 f"attribute [rule {ins.rule}]")
            column[target.index] = value
        elif op == "put":
            what, where = (ev(a, slots, scope) for a in ins.args)
            for piece in what if isinstance(what, (tuple, frozenset, list)) else (what,):
                self.put(piece, where)
        elif op == "dispatch":
            queue = slots[ins.b]
            if queue is UNBOUND or not queue:
                slots[ins.b] = UNBOUND
                f.pc = ins.target
                return
            chooser, option, writes = queue[0]
            slots[ins.b] = queue[1:]
            slots[ins.a] = chooser
            for at, value in writes:
                slots[at] = value
            f.pc = option.body
        elif op == "log":
            self.log_line(ins, slots, scope)
        elif op == "finish":
            got = [(k, ev(a, slots, scope)) for k, a in zip(ins.keys, ins.args, strict=True)]
            winner = next((x for k, x in got if k == "winner"), None)
            reason = "".join(v.text(x) for k, x in got if k == "reason")
            self.finish(winner, reason, {k[7:]: x for k, x in got if k.startswith("report:")},
                        f.proc.rule)
        elif op == "fail":
            raise RulesError(f"{ins.text} [rule {ins.rule}]")
        elif op == "reveal":
            pieces, to = (ev(a, slots, scope) for a in ins.args)
            self.revealed |= {(p.index, w.index) for p in _many(pieces) for w in _many(to)}
        elif op == "phase":
            self.phase_index = ins.a
        elif op == "endturn":
            self.turn += 1
            f.pc = ins.target
            if self.turn_limit is not None and self.turn > self.turn_limit:
                self.turn = self.turn_limit
                self.finish(None, f"the turn limit ({self.turn_limit}) was reached", {}, None)
        elif op != "shuffle":
            raise RulesError(f"the interpreter has no instruction {op!r}")

    def log_line(self, ins: ir.Instr, slots: list[Any], scope: Scope) -> None:
        parts, cited, to = [], None, None
        for key, a in zip(ins.keys, ins.args, strict=True):
            value = self.value(a, slots, scope)
            if key == "text":
                parts.append(v.text(value))
            elif key == "cite":
                cited = value
            else:
                to = frozenset(str(p) for p in _many(value))
        phase = self.game.phases[self.phase_index].label if self.game.phases else ""
        self.log.append(Line(self.turn, phase, "".join(parts), v.cited_rules(cited), to))

    # ------------------------------------------------------------ decisions
    def pending(self) -> tuple[Frame, ir.Instr] | None:
        if self.outcome is not None:
            return None
        f = self.stack[-1]
        return f, f.proc.code[f.pc]

    def chooser(self, f: Frame, ins: ir.Instr) -> v.Player | None:
        """Who decides next in a sealed choice: the first of args[0] not yet in slot b."""
        queue = f.slots[ins.b]
        done = {c[0] for c in queue} if queue is not UNBOUND else set()
        players = v.items(self.value(ins.args[0], f.slots, f.scope))
        return next((p for p in players if p not in done), None)

    def candidates(self) -> list[Candidate]:
        """Every legal action of the pending decision, option by option (kept until
        the next action): each option's parameters walked over their domains on a
        copy of the frame, its bindings computed, ``where`` and the forbid clauses
        on its action (unless a permit lifts them) tested."""
        if self._listed is not None:
            return self._listed
        pending = self.pending()
        assert pending is not None
        f, ins = pending
        scratch = list(f.slots)
        scope = Scope(f.scope.names, scratch)
        if ins.op == "sealed":
            scratch[ins.a] = self.chooser(f, ins)
        out: list[Candidate] = []
        for option in ins.options:
            self.walk(option, 0, scratch, scope, out)
        self._listed = out
        return out

    def walk(self, option: ir.Option, i: int, scratch: list[Any], scope: Scope,
             out: list[Candidate]) -> None:
        if i < len(option.params):
            at, domain = option.params[i]
            for x in v.items(self.value(domain, scratch, scope)):
                scratch[at] = x
                self.walk(option, i + 1, scratch, scope, out)
            return
        for at, e in option.bindings:
            scratch[at] = self.value(e, scratch, scope)
        if option.where is not None and not self.value(option.where, scratch, scope):
            return
        if self.forbidden(option.action, scope):
            return
        kind = self.board.kinds[option.action]
        values = [scratch[at] for at, _ in option.params]
        writes = tuple((at, scratch[at]) for at, _ in (*option.params, *option.bindings))
        out.append(Candidate(kind.encode(values), option, writes))

    def pool(self, f: Frame, ins: ir.Instr) -> tuple[Any, ...]:
        source = self.value(ins.args[0], f.slots, f.scope)
        return self.occupants.get(source.index, ()) if isinstance(source, v.Place) \
            else tuple(source)

    def chance_outcomes(self) -> list[tuple[int, Fraction]]:
        """At a chance node, every outcome's id with its exact probability, by id."""
        pending = self.pending()
        if pending is None or pending[1].op not in ("roll", "draw"):
            return []
        f, ins = pending
        if ins.op == "roll":
            dice = self.value(ins.args[0], f.slots, f.scope)
            return sorted((self.board.roll.encode((x,)), p) for x, p in v.dice_outcomes(dice))
        found = self.pool(f, ins)
        return sorted((self.board.draw.encode((p,)), Fraction(1, len(found))) for p in found)

    # ------------------------------------------------------------ the API
    def is_terminal(self) -> bool:
        return self.outcome is not None

    def is_chance_node(self) -> bool:
        pending = self.pending()
        return pending is not None and pending[1].op in ("roll", "draw")

    def current_player(self) -> str | None:
        pending = self.pending()
        if pending is None:
            return None
        f, ins = pending
        if ins.op in ("roll", "draw"):
            return "chance"
        if ins.op == "sealed":
            return str(self.chooser(f, ins))
        return str(self.value(ins.args[0], f.slots, f.scope))

    def legal_action_ids(self) -> list[int]:
        if self.outcome is None and self.is_chance_node():
            return [n for n, _ in self.chance_outcomes()]
        if self.outcome is not None:
            return []
        return sorted(c.id for c in self.candidates())

    def legal_actions(self) -> list[str]:
        return [self.board.action_text(n) for n in self.legal_action_ids()]

    def sample_chance(self) -> int:
        """The id of a chance outcome drawn with the state's generator, as the engine
        draws it: a total of ``count`` dice, a named face, or a piece among those by id."""
        f, ins = self.pending()  # type: ignore[misc]
        if ins.op == "roll":
            dice = self.value(ins.args[0], f.slots, f.scope)
            if dice.faces is None:
                self.rng_state, total = rng.roll_dice(self.rng_state, dice.count, dice.sides)
                return self.board.roll.encode((total,))
            self.rng_state, i = rng.below(self.rng_state, len(dice.faces))
            return self.board.roll.encode((dice.faces[i],))
        ids = sorted(self.board.draw.encode((p,)) for p in self.pool(f, ins))
        self.rng_state, i = rng.below(self.rng_state, len(ids))
        return ids[i]

    def random_playout(self, seed: int, max_actions: int | None = None) -> int:
        """Uniformly random legal actions to the end (or ``max_actions``), chosen as the
        engine's ``GameState.random_playout`` chooses: the ``i``-th ascending legal id, ``i``
        drawn by SplitMix64 from ``seed``; chance by the state's generator. The actions
        taken."""
        chooser, taken = seed & ((1 << 64) - 1), 0
        while self.outcome is None and (max_actions is None or taken < max_actions):
            if self.is_chance_node():
                self.apply_chance()
            else:
                ids = self.legal_action_ids()
                chooser, i = rng.below(chooser, len(ids))
                self.apply(ids[i])
            taken += 1
        return taken

    def apply_chance(self) -> int:
        number = self.sample_chance()
        self.apply(number)
        return number

    def apply(self, action: int | str) -> None:
        """Take a legal action (its id or text) and run to the next decision."""
        if isinstance(action, str):
            found = [n for n in self.legal_action_ids() if self.board.action_text(n) == action]
            if not found:
                raise RulesError(f"{action!r} is not legal here")
            action = found[0]
        pending = self.pending()
        if pending is None:
            raise RulesError("the game is over")
        f, ins = pending
        if ins.op in ("roll", "draw"):
            if action not in {n for n, _ in self.chance_outcomes()}:
                raise RulesError(f"{self.board.action_text(action)} is not an outcome here")
            (value,) = self.board.kind_of(action).decode(action)
            f.slots[ins.a] = value
            if ins.op == "roll":
                self.last_roll = value
            f.pc += 1
        else:
            chosen = next((c for c in self.candidates() if c.id == action), None)
            if chosen is None:
                raise RulesError(f"{self.board.action_text(action)} is not legal here")
            if ins.op == "choose":
                for at, value in chosen.writes:
                    f.slots[at] = value
                f.pc = chosen.option.body
            else:
                queue = f.slots[ins.b]
                chooser = self.chooser(f, ins)
                f.slots[ins.b] = (*(() if queue is UNBOUND else queue),
                                  (chooser, chosen.option, chosen.writes))
                if self.chooser(f, ins) is None:
                    f.pc += 1
        self._listed = None
        self.run()


def _many(value: Any) -> tuple[Any, ...]:
    return tuple(value) if isinstance(value, (tuple, frozenset, list)) else (value,)
