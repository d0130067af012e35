"""The reference interpreter of the core: procedures, decisions, chance, effects.

A rulebook's procedures are compiled into flat instruction lists (one per
procedure, with jumps), and a game state is a stack of frames
``[procedure, pc, variables]`` plus flat arrays of values: where each piece
is, the pieces in each place (kept up to date incrementally), the declared
attributes of pieces, places and players, and the global values. The state
runs its procedures until it reaches a decision (``choose``), a chance node
(``roll``, ``draw``) or the end of the game; an action resumes it.

This is the executable specification that a compiled core mirrors: nothing
here knows a game or a genre. Every behaviour comes from the rulebook, and
every refusal names the rule of the clause that forbids it.
"""

from __future__ import annotations

import functools
import itertools
from array import array
from itertools import compress, repeat
from operator import attrgetter, is_not, itemgetter
from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Self

from .. import arguments
from ..core.world import Dice, Piece, Place, Player, World
from ..dsl import ir
from ..dsl.render import statement as render_statement
from ..errors import (
    ArgumentTypeError,
    CortesRulesError,
    IllegalActionError,
    NotationError,
    NothingToUndoError,
    StartError,
    UnknownIdError,
    UnknownNameError,
)
from ..rule_numbers import rule_key
from .backend import Backend, select
from .bound_names import procedure_variables
from . import ai as _ai
from . import collector
from .board import NONE
from .bytecode import _CLASSES, INEXACT, LIMIT, column_cell
from .actions import Action
from .codegen import FastCompiler
from .compile import (
    Compiler,
    Fn,
    NamedText,
    RulesRuntimeError,
    _as_iterable,
    _order_key,
    dice_outcomes,
    format_value,
)
from . import typed as _typed
from .observation import Observation, PieceView, Value
from .observation import observed as _observed
from .observation import printed_of as _printed_of
from .observation import shown_attributes as _shown_attributes
from .reasons import Reader, Reason, Refusals, phase_text
from .visibility import HideClauses
from .action_space import ActionSpace, Kind, _nearest
from .log import _NO_PIECE, EVERYONE, LogEntry, _log_between, _pieces_named, _unchain
from .procedures import (
    _AT_PLACE,
    _PROC_LOCK,
    CALL,
    CALL_PHASE,
    CHOOSE,
    DISPATCH,
    DRAW,
    FAIL,
    FINISH,
    FOR_INIT,
    FOR_NEXT,
    JUMP,
    JUMP_IF_NOT,
    LET,
    LOG,
    PHASE,
    PUT,
    REGION,
    RETURN,
    REVEAL,
    ROLL,
    SEALED,
    SET_ATTR,
    SET_VAR,
    TURN_END,
    ChoiceSpec,
    OptionSpec,
    Proc,
    _PAUSES,
    _own_writes,
    _ProcCompiler,
    _template_fields,
    _thread_jumps,
)

CHANCE = "chance"
STEP_BUDGET = 2_000_000
# How many actions ``apply()`` lets pass between two checkpoints of the undo
# stack (see ``GameState.undo()``): an undo replays fewer than this many actions.
CHECKPOINT_EVERY = 64
# Every write to the state is stamped with a number drawn from this one counter,
# so that a stamp names one write wherever the state was copied since.
tick = itertools.count(1).__next__
_chain = itertools.chain.from_iterable
_SCALARS = frozenset({int, bool, str, type(None), Fraction})
# The writes the regions' generated code makes through its namespace (``Machine._use_kernels``).
_NATIVE_WRITES = ("_piece_changed", "_put_op", "_write_place", "_write_value", "_sweep_pieces")


def _same(old: Any, value: Any) -> bool:
    """Whether writing ``value`` over ``old`` changes nothing any rule could tell."""
    return old is value or (type(old) is type(value) and type(value) in _SCALARS
                            and bool(old == value))




class Outcome:
    """How a finished game ended: winner(s), scores, and why.

    Attributes:
        winners: the winning players (several in a shared victory, none in a draw).
        winner: the one winner, or None when there is not exactly one.
        reason: why the game ended, in words (the ending clause's text).
        scores: points by player, when the rulebook keeps a ``score``.
        details: what the ending's ``report`` names (a level of victory,
            points by cause).
        rule: the number of the rule that ended the game (its ``finish``
            clause, or the sequence of play), None when not known.
    """

    def __init__(self, winners: tuple[str, ...], reason: str,
                 scores: Mapping[str, Any] | None = None,
                 details: Mapping[str, Any] | None = None, rule: str | None = None) -> None:
        self.winners = winners
        self.winner = winners[0] if len(winners) == 1 else None
        self.reason = reason
        self.rule = rule
        self.scores = dict(scores or {})
        self.details = dict(details or {})

    def __repr__(self) -> str:
        return f"Outcome(winners={self.winners!r}, reason={self.reason!r})"


# ============================================================ compiled program


class Machine:
    """A rulebook compiled for the reference interpreter (static, shared by states)."""

    def __init__(self, program: ir.Program, backend: Backend | None = None) -> None:
        self.program = program
        self.backend = backend if backend is not None else select("python")
        self.world = world = World(program)
        self.compiler = Compiler(world, program)
        self.fast = FastCompiler(world, program, self.compiler)
        self.fast.machine = self
        self.fast.ns.update(RulesRuntimeError=RulesRuntimeError, _order_key=_order_key, tick=tick,
                            _same=_same, _SCALARS=_SCALARS)
        # Where the stamps of what places hold and of their attributes begin.
        self.holds = 1 + len(world.pieces)
        self.marks = self.holds + len(world.places)
        self.stamp_count = self.marks + len(world.places)
        self.fast.stamp_offsets = (1, self.holds, self.marks)
        self.regions = True
        if self._native_capable():
            self.fast.native_filter = self.piece_filter
            self.fast.native_item_filter = self.item_filter
        self.space = ActionSpace(world, program)
        self._use_kernels()
        # The compiled backend's native tables and clause machine, made with the
        # first game (see native.py); None on the reference interpreter.
        self._native: Any = None
        self.native_ready = False
        # Per dice: their outcomes as (action id, probability) in id order, and
        # the ids as a set (chance nodes list, check and apply them often).
        self.rolls: dict[Dice, tuple[tuple[tuple[int, Fraction], ...], frozenset[int]]] = {}
        c = self.compiler
        # forbids and permits by action kind
        permits: dict[tuple[str, str], list[Fn]] = {}
        for p in program.of(ir.Permit):
            permits.setdefault((p.action, p.despite), []).append(c.expr(p.when, p.rule))
        self.forbids: dict[str, list[tuple[str, Fn, tuple[Fn, ...], ir.Forbid]]] = {}
        for f in program.of(ir.Forbid):
            self.forbids.setdefault(f.action, []).append(
                (f.rule, c.expr(f.when, f.rule), tuple(permits.get((f.action, f.rule), ())), f))
        self.permit_rules: dict[tuple[str, str], list[str]] = {}
        for p in program.of(ir.Permit):
            self.permit_rules.setdefault((p.action, p.despite), []).append(p.rule)
        # Clauses read on every log line and every action run as generated
        # code, falling back to the reference when they raise (as procedures do).
        fast = self.fast_expr
        self.hides = HideClauses(self, [h for h in program.of(ir.HideDecl)
                                        if not h.attribute])
        self.place_hides = HideClauses(self, [h for h in program.of(ir.HideDecl) if h.place])
        self.attribute_hides: dict[str, tuple[Any, ...]] = {}
        for h in program.of(ir.HideDecl):
            if h.attribute:
                self.attribute_hides[h.attribute] = (
                    *self.attribute_hides.get(h.attribute, ()), fast(h.when, h.rule))
        self.attributes = [(a, c.expr(a.initial, a.rule) if a.initial is not None else None)
                           for a in program.of(ir.AttributeDecl)]
        self.values = [(v.name, c.expr(v.initial, v.rule)) for v in program.of(ir.ValueDecl)]
        # The declared types, to store values set by hand as the rules would.
        self.attribute_types: dict[tuple[str, str], ir.TypeRef] = {
            (a.owner, a.name): a.type for a in program.of(ir.AttributeDecl)}
        self.value_types: dict[str, ir.TypeRef] = {
            v.name: v.type for v in program.of(ir.ValueDecl)}
        self.endings = [
            (fast(f.when, f.rule), c.expr(f.winner, f.rule) if f.winner is not None else None,
             tuple(p if isinstance(p, str) else c.expr(p, f.rule)
                   for p in _template_fields(f.reason, f.span)),
             tuple((k, c.expr(v, f.rule)) for k, v in f.report))
            for f in program.of(ir.FinishDecl)]
        # The start's requirements are tested at every new game (a stacking test of
        # every hex, in Cortés): as generated code, their messages by the reference.
        self.start_requirements = [
            (r.rule, r.var, fast(r.domain, r.rule) if r.domain is not None else None,
             fast(r.test, r.rule), tuple(p if isinstance(p, str) else c.expr(p, r.rule)
                                           for p in _template_fields(r.message, r.span)),
             c.expr(r.cite, r.rule) if r.cite is not None else None)
            for r in program.of(ir.StartRequireDecl)]
        # Each requirement over a domain also as one test, ``all(v in D where C)``: when
        # it holds (as at nearly every start) no item needs testing on its own.
        self.start_all = [
            fast(ir.Call("all", (), r.var, r.domain, None, r.test, r.span), r.rule)
            if r.domain is not None and r.var is not None else None
            for r in program.of(ir.StartRequireDecl)]
        # procedures, compiled when first called (``compiled``)
        self.procs: dict[str, Proc] = {}
        for decl in program.of(ir.Procedure):
            proc = self.procs[decl.name] = Proc(decl.name, decl.params, decl.rule, decl.span)
            proc.pending = tuple(decl.body)
        sequence = next((s for s in program.of(ir.Sequence) if not s.opening), None)
        openings = tuple(p for s in program.of(ir.Sequence) if s.opening for p in s.phases)
        # The turn sequence's phases come first, so that their indices do not
        # depend on the opening phases (played once, before the first turn).
        self.turn_phases: tuple[ir.Phase, ...] = sequence.phases if sequence else ()
        self.phases: tuple[ir.Phase, ...] = self.turn_phases + openings
        # The rule of the sequence each phase belongs to: what a refusal that no
        # clause of its own makes cites (an action the phase does not offer).
        self.sequence_rule = sequence.rule if sequence else ""
        self.phase_rules: tuple[str, ...] = (
            (self.sequence_rule,) * len(self.turn_phases)
            + tuple(s.rule for s in program.of(ir.Sequence) if s.opening for _ in s.phases))
        self.ending_rules = tuple(f.rule for f in program.of(ir.FinishDecl))
        self._refusals: Refusals | None = None
        main = Proc("the turn sequence", (), sequence.rule if sequence else "", None)

        def play(i: int, phase: ir.Phase) -> None:
            main.code.append((PHASE, i))
            if phase.activity is not None and phase.activity in self.procs:
                main.code.append((CALL_PHASE, i))

        for i, phase in enumerate(openings, start=len(self.turn_phases)):
            play(i, phase)
        loop = len(main.code)
        for i, phase in enumerate(self.turn_phases):
            play(i, phase)
        main.code.append((TURN_END, loop))
        self.main = main

    def _use_kernels(self) -> None:
        """Take the compiled core's kernels for procedures where the backend has them.

        ``runner`` (``_core.FrameRunner``) runs the loop of procedure frames and
        ``steps`` (``_core.StepRunner``) applies action ids and lists legal ids;
        both are None on the reference. The generated code writes and logs
        through the functions of its namespace (``_piece_changed(s, ...)`` and
        the like): ``_core.StateWriter``'s and ``_core.LogWriter``'s, or the
        ``GameState`` methods they must match.
        """
        native, core, ns = self.backend.native, self.backend.rng, self.fast.ns
        self.runner: Any = None
        if "frames" in native:
            self.runner = core.FrameRunner(
                {"JUMP_IF_NOT": JUMP_IF_NOT, "JUMP": JUMP, "REGION": REGION, "LET": LET,
                 "FOR_NEXT": FOR_NEXT, "CALL": CALL, "RETURN": RETURN, "FOR_INIT": FOR_INIT},
                _PAUSES, _as_iterable)
        self.steps: Any = None
        if "steps" in native:
            self.steps = core.StepRunner({"CHOOSE": CHOOSE, "ROLL": ROLL, "DRAW": DRAW},
                                         _SHARING, (CortesRulesError, RulesRuntimeError),
                                         CHECKPOINT_EVERY)
        ns.update({name: getattr(GameState, name) for name in _NATIVE_WRITES})
        if "writes" in native:
            writer = core.StateWriter(tick, Piece, Place, _unput, GameState._put_op,
                                      (tuple(_CLASSES.items()), NONE, INEXACT, LIMIT),
                                      _SCALARS, _AT_PLACE)
            ns.update({name: getattr(writer, name.lstrip("_")) for name in _NATIVE_WRITES})
        ns["_log_values"] = GameState._log_values
        if "logs" in native:
            ns["_log_values"] = core.LogWriter(EVERYONE, LogEntry.later, Piece, NamedText,
                                               _NO_PIECE, GameState._log_values).log_values

    @functools.cached_property
    def variables(self) -> frozenset[str]:
        """Every name a procedure of the rulebook may bind (``bound_names.procedure_variables``),
        worked out when first needed, not at load."""
        return procedure_variables(self.program)

    def native_support(self) -> Any:
        """The native tables and clause machine of this rulebook, or None (reference backend)."""
        if not self.native_ready:
            self.native_ready = True
            if self._native_capable():
                from .native import NativeSupport

                self._native = NativeSupport(self, self.backend.rng)
        return self._native

    def native_enumerator(self, spec: OptionSpec, generated: Any) -> Any:
        """``generated``, or first the native enumeration of ``spec`` where it compiles."""
        machine = self
        # (whether the rulebook has a clause machine, the option's native listing or
        # None), worked out at the first listing: neither changes afterwards.
        found: list[tuple[bool, Any]] = []

        def enumerate_natively(s: Any, env: dict[str, Any], out: list[int], stop: bool) -> None:
            if not found:
                support = machine.native_support()
                found.append((support is not None,
                              support.option(spec) if support is not None else None))
            supported, native = found[0]
            if supported and s.native is None:
                s._native_rebuild()     # kept in step from now on, by every write
            if native is not None:
                mark = len(out)
                try:
                    if native.run(s, env, out, stop):
                        return
                except Exception:   # noqa: BLE001 - the interpreter decides
                    del out[mark:]
            generated(s, env, out, stop)
        return enumerate_natively

    def _native_capable(self) -> bool:
        """Whether this rulebook runs on the compiled backend, with its clause machine."""
        return self.backend.name == "compiled" and hasattr(self.backend.rng, "ClauseMachine")

    def native_condition(self, node: ir.Expr, generated: Fn) -> Fn:
        """``generated``, or on the compiled backend first the clause machine's answer
        where the expression has a comprehension (``native.native_condition``)."""
        if not self._native_capable():
            return generated
        from .native import native_condition, quantifies

        boolean = isinstance(node, (ir.Not, ir.BoolOp, ir.Compare)) or (
            isinstance(node, ir.Call) and node.func == "any")
        if not boolean or not quantifies(node):
            return generated
        fn: Fn = native_condition(self, node, generated)
        return fn

    def piece_filter(self, condition: ir.Expr, binder: str, names: tuple[str, ...]) -> Any:
        """``native.PieceFilter.run`` for a comprehension's filter over all the pieces
        (the generated code calls it only on the compiled backend)."""
        from .native import PieceFilter

        return PieceFilter(self, condition, binder, names).run

    def item_filter(self, condition: ir.Expr, binder: str, names: tuple[str, ...]) -> Any:
        """``native.ItemFilter.run`` for a comprehension's filter over a list of pieces
        or places (the generated code calls it only on the compiled backend)."""
        from .native import ItemFilter

        return ItemFilter(self, condition, binder, names).run

    def item_scan(self, st: ir.ForEach) -> Any:
        """For a filtered ``for each`` whose body changes nothing but the loop
        variable's attributes and place (``_own_writes``), on the compiled backend:
        ``native.item_scan`` (the items its filter holds for, found at once); else
        None."""
        writes = _own_writes(st.name, st.body)
        if not self._native_capable() or st.where is None or not st.body or writes is None:
            return None
        from .native import item_scan

        return item_scan(self, st.name, st.where, moves="put" in writes)

    def fast_expr(self, node: ir.Expr, rule: str) -> Fn:
        """An expression as generated code, with the reference's function to fall back on."""
        return self.fast.root(node, self.compiler.expr(node, rule))

    def roll_table(self, dice: Dice) -> tuple[tuple[tuple[int, Fraction], ...], frozenset[int]]:
        """The outcomes of rolling ``dice`` by action id (ascending), and the set of those ids."""
        table = self.rolls.get(dice)
        if table is None:
            kind = self.space.kinds["roll"]
            pairs = tuple(sorted(((kind.encode((v,)), p) for v, p in dice_outcomes(dice)),
                                 key=lambda pair: pair[0]))
            table = self.rolls[dice] = (pairs, frozenset(n for n, _ in pairs))
        return table

    def clause_rules(self, which: str, kind: str) -> tuple[str, ...]:
        """The rule numbers of the forbid (or permit) clauses on an action kind."""
        if which == "forbid":
            return tuple(dict.fromkeys(entry[0] for entry in self.forbids.get(kind, ())))
        # Permits are grouped by (action kind, rule they override): gather every group.
        return tuple(dict.fromkeys(rule for (k, _), rules in self.permit_rules.items()
                                   if k == kind for rule in rules))

    def forbids_reading(self, attribute: str) -> tuple[str, ...]:
        """The rules of the forbid clauses whose condition reads an attribute (from the IR)."""
        found = []
        for clauses in self.forbids.values():
            for rule, _, _, clause in clauses:
                if _reads(clause.when, attribute) and rule not in found:
                    found.append(rule)
        return tuple(found)

    @property
    def refusals(self) -> Refusals:
        """What words refusals (``why_illegal``) in this rulebook, made when first asked."""
        if self._refusals is None:
            self._refusals = Refusals(self.program, self.compiler.expr)
        return self._refusals

    def proc(self, name: str, span: Any, rule: str) -> Proc:
        try:
            proc = self.procs[name]
        except KeyError:
            raise RulesRuntimeError(f"unknown procedure {name!r}", span, rule) from None
        return proc if proc.pending is None else self.compiled(proc)

    def compiled_procs(self) -> dict[str, Proc]:
        """Every procedure by name, each compiled (positions and tools that walk all
        the instructions need them all)."""
        return {name: self.compiled(proc) for name, proc in self.procs.items()}

    def compiled(self, proc: Proc) -> Proc:
        """``proc`` with its instructions.

        A procedure's statements are compiled when it is first called (or a
        position is read or written), not when the rulebook loads: most of a
        cached load was compiling procedures a game might never call. The
        instructions are the same whichever procedure is compiled first (each
        numbers its own loop variables), and a compilation that fails leaves the
        procedure as it was, to fail again with the same error."""
        if proc.pending is None:
            return proc
        with _PROC_LOCK:   # games of one rulebook may run in several threads
            if proc.pending is not None:
                try:
                    _ProcCompiler(self, proc).body(proc.pending)
                except BaseException:
                    proc.code = []
                    raise
                _thread_jumps(proc.code)
                proc.pending = None
        return proc


# ============================================================ the state


def _plain(value: Any) -> Any:
    """A value of the rules language as plain Python: ids for pieces, places
    and players, lists for collections (what an Outcome reports)."""
    if isinstance(value, (Piece, Place)):
        return value.id
    if isinstance(value, Player):
        return value.name
    if isinstance(value, (list, tuple, frozenset, set)):
        items = [_plain(v) for v in value]
        return sorted(items, key=str) if isinstance(value, (frozenset, set)) else items
    return value


def _render(parts: tuple[Any, ...], s: GameState, env: dict[str, Any]) -> str:
    return "".join(p if isinstance(p, str) else format_value(p(s, env)) for p in parts)


def _own_column(table: dict[str, list[Any]], owned: bool | set[str], name: str
                ) -> tuple[dict[str, list[Any]], set[str], list[Any]]:
    """A table of attribute columns shared with clones (``owned`` True) or partly
    copied (``owned``: the names of the columns copied), made to own column ``name``:
    the table, the columns now owned, and the column."""
    if not isinstance(owned, set):   # shared with a clone: nothing copied yet
        table, owned = table.copy(), set()
    if name not in owned:
        owned.add(name)
        table[name] = table[name][:]
    return table, owned, table[name]



# What clone() marks on both states: their flat arrays are shared until written.
_ALL_SHARED = {"_places_shared": True, "_stamps_shared": True, "_pieces_shared": True,
               "_native_shared": True, "_values_shared": True,
               "_board_shared": True}
_OWN_ALL = dict.fromkeys(_ALL_SHARED, False)
# What clone() writes on both states: the flags, and no last action to take back
# in place (``GameState._last``: the arrays its log names are shared from then on).
_CLONED = {**_ALL_SHARED, "_last": None}
_SHARING = tuple(_ALL_SHARED)
_sharing_flags = itemgetter(*_SHARING)
"""A state's sharing flags (its ``__dict__`` given), as a tuple in ``_SHARING`` order."""
_SHARING_ALL = (True,) * len(_SHARING)


def _unput(arrays: tuple[Any, ...], stamps: tuple[int, ...]) -> None:
    """Undo one ``_put``: the piece back where it was, the three stamps as they were
    (the occupants are sorted tuples, so moving back rebuilds the very same ones)."""
    where, occupants, stamp_list, piece, old, place = arrays
    if place is not None:
        remaining = tuple(p for p in occupants[place.index] if p is not piece)
        if remaining:
            occupants[place.index] = remaining
        else:
            del occupants[place.index]
    where[piece.index] = old
    if old is not None:
        here = occupants.get(old.index, ())
        occupants[old.index] = tuple(sorted((*here, piece), key=_piece_index))
    stamp_list[stamps[4]] = stamps[5]
    stamp_list[stamps[2]] = stamps[3]
    stamp_list[stamps[0]] = stamps[1]


def _undo_writes(undo: list[tuple[Any, Any, Any]]) -> None:
    """Undo logged writes, latest first. A write is logged as a list, array or dict
    with the key written and its old value; as the native board with a piece and its
    old place's index; or as ``_unput`` with its arrays and stamps."""
    for target, key, old in reversed(undo):
        kind = type(target)
        if kind is list or kind is array or kind is dict:
            target[key] = old
        elif target is _unput:
            _unput(key, old)
        else:
            target.put(key, old)


class GameState:
    """One position of a game, with everything needed to go on from it.

    Create one with ``cortes_rules.Rulebook.new_game()``. The integer-id
    methods (``legal_action_ids()``, ``apply(int)``) are the fast path;
    ``Action`` objects for ids come from a memo.

    This is the state alone: it knows nothing of explanations, notation,
    records or pictures. The class users get, ``cortes_rules.GameState``
    (``cortes_rules.api``), is a subclass that adds them, built on this one;
    every state made from a state (``clone()``, ``undo()``) keeps its class.
    """

    def __init__(self, machine: Machine, *, seed: int = 0,
                 positions: Mapping[str, str] | None = None,
                 turn_limit: int | None = None, begin: bool = True,
                 attributes: Mapping[str, Mapping[str, Any]] | None = None) -> None:
        self.machine = machine
        world = machine.world
        self.seed = seed
        self.rng_state = seed & ((1 << 64) - 1)
        self.turn = 1
        self.turn_limit = turn_limit
        self.phase_index = 0
        self.where: list[Place | None] = [None] * len(world.pieces)
        # Stamps of the last write to the rest (values, players, turn, last roll:
        # index 0), to each piece (its place, its attributes: 1 + piece index),
        # to what each place holds (machine.holds + place index) and to each
        # place's attributes (machine.marks + place index). Cached enumerations
        # check them. Shared with clones until either state writes.
        self.stamps: list[int] = [0] * machine.stamp_count
        # What a clone shares with this state until either writes to it (see clone()).
        self._stamps_shared = False
        # The attributes: True while shared with a clone, then the set of the
        # columns copied since (see _piece_column()), False when all are its own.
        self._places_shared: bool | set[str] = False
        self._pieces_shared: bool | set[str] = False
        self._board_shared = False
        self._native_shared = False
        self._values_shared = False
        self.native: Any = None   # the compiled backend's NativeState (native.py)
        # While ``apply()`` runs: the writes made in place, to undo if the action
        # fails (see ``_undo_writes()``).
        self._undo: list[tuple[Any, Any, Any]] | None = None
        self._ecache: dict[Any, Any] = {}
        self.occupants: dict[int, tuple[Piece, ...]] = {}
        self.piece_attrs: dict[str, list[Any]] = {}
        self.place_attrs: dict[str, list[Any]] = {}
        self.player_attrs: dict[str, list[Any]] = {}
        self.values: dict[str, Any] = {}
        self.revealed: frozenset[tuple[int, int]] = frozenset()
        self.terminal = False
        self.result: Outcome | None = None
        self.last_roll: Any = None
        self.drawn: set[str] | None = None   # rules drawn on, while with_rules() keeps count
        self._log: tuple[Any, ...] | None = None   # (entry, previous) chain
        self._history: tuple[Any, ...] | None = None   # (action id, previous, log) chain
        self._legal: list[list[int]] | None = None   # legal ids by option, this position
        self._choosers: tuple[Any, Any, Any] | None = None   # see _sealed_next
        # Whether the legal actions of the position an action started from were
        # listed: the decision it reaches is then listed in full (see _check_live).
        self._lists = False
        # The undo stack (see ``undo()``): checkpoints, frozen copies of earlier
        # positions, as a chain ``(state, undo depth there, previous)``; how many
        # actions were applied since the last checkpoint (``CHECKPOINT_EVERY``
        # less the depth while there is none: the first action takes one); and
        # the history nodes of the chance outcomes that were sampled
        # (``apply_chance()``), as a chain ``(node, previous)``, to sample them
        # again when the actions are replayed.
        self._marks: tuple[Any, ...] | None = None
        self._since = CHECKPOINT_EVERY
        self._sampled: tuple[Any, ...] | None = None
        # The last action, to take back at once: ``(snapshot, log)`` as ``apply()``
        # left them (the log of the writes it made in place, or None), until
        # anything clones the state (then None: the writes may be shared).
        self._last: tuple[Any, Any] | None = None
        for piece_id, place_id in (positions or {}).items():
            piece = world.piece.get(piece_id) if isinstance(piece_id, str) else None
            if piece is None:
                raise UnknownIdError(f"positions: no piece {piece_id!r} in this rulebook"
                                     f"{_nearest(str(piece_id), world.piece)}")
            place = world.place.get(place_id) if isinstance(place_id, str) else None
            if place is None:
                raise UnknownIdError(f"positions: no place {place_id!r} (for {piece_id}) in "
                                     f"this rulebook{_nearest(str(place_id), world.place)}")
            self._put(piece, place)
        for name, init in machine.values:
            self.values[name] = init(self, {})
        for decl, start in machine.attributes:
            owners: tuple[Any, ...] = {"piece": world.pieces, "place": world.places,
                                       "player": world.players}[decl.owner]
            table = {"piece": self.piece_attrs, "place": self.place_attrs,
                     "player": self.player_attrs}[decl.owner]
            if start is None or isinstance(decl.initial, _LITERALS):
                # The same value for every owner: worked out once.
                first = _zero(decl.type) if start is None else start(self, {})
                table[decl.name] = [first] * len(owners)
            else:
                table[decl.name] = [start(self, {decl.owner: o}) for o in owners]
        if attributes:
            self._start_attributes(attributes)
        self.stack: list[list[Any]] = [[machine.main, 0, {}]]
        self._native_rebuild()
        if not machine.turn_phases:
            raise CortesRulesError("this rulebook states no turn sequence")
        if not begin:   # only the starting position, for checking set-ups
            return
        breaches = self.start_breaches()
        if breaches:
            raise StartError(breaches)
        self._run()
        self._check_endings()

    def _start_attributes(self, attributes: Mapping[str, Mapping[str, Any]]) -> None:
        """Give pieces, places and players the starting attribute values of
        ``new_game(attributes=...)``: owner (a piece or place id, a player's name)
        -> {attribute: value}, each stored as its declared type.

        Raises:
            UnknownNameError: an owner or attribute the rulebook does not hold,
                or an owner id that names things of two kinds declaring it.
            ArgumentTypeError: not a mapping of mappings, or a value not of
                its attribute's declared type.
        """
        world = self.machine.world
        if not isinstance(attributes, Mapping):
            raise ArgumentTypeError(
                f"attributes is a mapping of owner -> {{attribute: value}}, not "
                f"{arguments.describe(attributes)}")
        things: dict[str, tuple[Mapping[str, Any], dict[str, list[Any]]]] = {
            "piece": (world.piece, self.piece_attrs), "place": (world.place, self.place_attrs),
            "player": (world.player, self.player_attrs)}
        for owner, given in attributes.items():
            arguments.name(owner, "an owner of attributes (a piece, place or player)")
            if not isinstance(given, Mapping):
                raise ArgumentTypeError(
                    f"attributes[{owner!r}] is a mapping of attribute -> value, not "
                    f"{arguments.describe(given)}")
            kinds = [k for k, (table, _) in things.items() if owner in table]
            if not kinds:
                raise UnknownNameError(f"attributes: no piece, place or player {owner!r} in "
                                       f"this rulebook")
            for name, value in given.items():
                arguments.name(name, f"an attribute of {owner}")
                fitting = [k for k in kinds if name in things[k][1]]
                if len(fitting) != 1:
                    what = " and ".join(f"a {k}" for k in (fitting or kinds))
                    problem = "has no declared attribute" if not fitting else (
                        "is ambiguous: each declares the attribute")
                    raise UnknownNameError(f"attributes: {owner} ({what}) {problem} "
                                           f"{name!r}")
                kind = fitting[0]
                table, columns = things[kind]
                thing = table[owner]
                columns[name][thing.index] = _typed.declared(
                    value, self.machine.attribute_types.get((kind, name)), world,
                    f"{owner}.{name}")

    def start_breaches(self) -> list[tuple[str | None, str]]:
        """What this position breaks of the rulebook's ``require at start`` clauses.

        ``(rule, explanation)`` pairs; the rules are those the clause cites,
        else its own.
        """
        found: list[tuple[str | None, str]] = []
        machine = self.machine
        for (rule, var, domain, test, parts, cite), whole in zip(
                machine.start_requirements, machine.start_all, strict=True):
            if whole is not None:
                try:
                    if whole(self, {}) is True:
                        continue    # it holds for every item: no breach to report
                except CortesRulesError:
                    pass            # the items one by one say where it fails
            try:
                envs = [{}] if domain is None else [{var: v} for v in domain(self, {})]
                for env in envs:
                    if test(self, env):
                        continue
                    text = _render(parts, self, env)
                    cited = cite(self, env) if cite is not None else ()
                    if not isinstance(cited, (tuple, list, frozenset, set)):
                        cited = (cited,)
                    named = sorted({str(r) for r in cited if r}, key=rule_key)
                    numbers: list[str | None] = list(named)
                    if not numbers:
                        numbers = [None if rule.startswith("lib:") else rule]
                    found.extend((n, text) for n in numbers)
            except CortesRulesError as error:
                found.append((None if rule.startswith("lib:") else rule,
                              f"the start cannot be checked: {error}"))
        return found

    # ------------------------------------------------------------ places
    def pieces_in(self, place: Place) -> tuple[Piece, ...]:
        """The pieces in a place (an engine object), in piece order; see ``pieces_at()``."""
        return self.occupants.get(place.index, ())

    def _put(self, piece: Piece, place: Place | None) -> None:
        old = self.where[piece.index]
        if old is place:
            return
        stamp = tick()
        if self._stamps_shared:
            self._own_stamps()
        if self._board_shared:
            self.where = self.where[:]
            self.occupants = self.occupants.copy()
            self._board_shared = False
        stamps = self.stamps
        holds = self.machine.holds
        occupants = self.occupants
        undo = self._undo
        if undo is not None:
            left = holds + old.index if old is not None else 0
            entered = holds + place.index if place is not None else 0
            undo.append((_unput, (self.where, occupants, stamps, piece, old, place),
                         (1 + piece.index, stamps[1 + piece.index], left, stamps[left],
                          entered, stamps[entered])))
        stamps[1 + piece.index] = stamp
        if old is not None:
            stamps[holds + old.index] = stamp
            there = occupants[old.index]
            if len(there) == 1:
                del occupants[old.index]
            else:
                at = there.index(piece)   # pieces compare by identity: found in C
                occupants[old.index] = there[:at] + there[at + 1:]
        self.where[piece.index] = place
        if place is not None:
            stamps[holds + place.index] = stamp
            here = occupants.get(place.index, ())
            occupants[place.index] = tuple(sorted((*here, piece), key=_piece_index))
        if self.native is not None:
            if self._native_shared:
                self._own_native()
            board = self.native.board
            if undo is not None:
                undo.append((board, piece.index, -1 if old is None else old.index))
            board.put(piece.index, -1 if place is None else place.index)

    def allowed(self, kind: str, env: dict[str, Any]) -> bool:
        """Whether no forbid clause on ``kind`` holds (unlifted) with these variables."""
        return not any(self._forbids(cond, permits, env)
                       for _, cond, permits, _ in self.machine.forbids.get(kind, ()))

    def _forbids(self, cond: Fn, permits: tuple[Fn, ...], env: dict[str, Any]) -> bool:
        """Whether a forbid clause holds with these variables and no permit lifts it.
        (The enumeration of legal actions tests the same inline, on its hot path.)"""
        return bool(cond(self, env)) and not any(p(self, env) for p in permits)

    def place_of(self, piece_id: str) -> str | None:
        """Where a piece is (a place id), or None when it is off the board."""
        place = self.where[self._piece(piece_id).index]
        return place.id if place is not None else None

    def attribute(self, piece_id: str, name: str) -> Any:
        """A declared or printed attribute of a piece (``steps``, ``spent``, ``move``...).

        Raises:
            UnknownIdError: no piece has that id.
            UnknownNameError: a piece has no attribute of that name.
        """
        piece = self._piece(piece_id)
        arguments.name(name, "an attribute")
        if name in self.piece_attrs:
            return self.piece_attrs[name][piece.index]
        if name in piece.props:
            return piece.props[name]
        if name == "label":
            return piece.label
        if name == "class":
            return piece.cls
        if name == "side":
            return piece.side.name if piece.side is not None else None
        raise UnknownNameError(f"a piece has no attribute {name!r}")

    def set_attribute(self, piece_id: str, name: str, value: Any) -> None:
        """Set a declared attribute of a piece, to set up a position (e.g. a reduced unit).

        The value is stored as the attribute's declared type, as the rules'
        own ``set`` stores it: for a ``piece``, ``place`` or ``player``
        attribute, the id (or name) of one, or None (``set_attribute("C2",
        "held_by", "C1")``); ``int``, a whole number; ``bool``, True or False;
        ``list`` or ``set``, a list, tuple or set.

        Raises:
            UnknownIdError: no such piece, or an id in ``value`` names nothing.
            UnknownNameError: a piece has no declared attribute of that name.
            ArgumentTypeError: the value is not of the attribute's declared type.
        """
        piece = self._piece(piece_id)
        value = self._declared("piece", name, value, f"{piece.id}.{name}")
        self._write_piece(name, piece.index, value)
        self._set_by_hand()

    def set_place_attribute(self, place_id: str, name: str, value: Any) -> None:
        """Set a declared attribute of a place (a marker), to set up a position.

        The value is stored as the attribute's declared type (see ``set_attribute``).

        Raises:
            UnknownIdError: no such place, or an id in ``value`` names nothing.
            UnknownNameError: a place has no declared attribute of that name.
            ArgumentTypeError: the value is not of the attribute's declared type.
        """
        place = self._place(place_id)
        value = self._declared("place", name, value, f"{place.id}.{name}")
        self._write_place(name, place.index, value)
        self._set_by_hand()

    def set_player_attribute(self, player: str, name: str, value: Any) -> None:
        """Set a declared attribute of a player (a tally, a value a scenario gives him),
        to set up a position.

        The value is stored as the attribute's declared type (see ``set_attribute``).

        Raises:
            UnknownNameError: no such player, or a player has no declared
                attribute of that name.
            ArgumentTypeError: the value is not of the attribute's declared type.
        """
        owner = self._viewer(player)
        value = self._declared("player", name, value, f"{owner.name}.{name}")
        self.player_attrs[name][owner.index] = value
        self._stamp(0)
        self._set_by_hand()

    def set_value(self, name: str, value: Any) -> None:
        """Set a declared value (``value NAME: ...``), to set up a position.

        The value is stored as the value's declared type (see ``set_attribute``).

        Raises:
            UnknownNameError: the rulebook declares no such value.
            ArgumentTypeError: the value is not of the declared type.
        """
        arguments.name(name, "a value")
        if name not in self.values:
            known = ", ".join(sorted(self.values)) or "none"
            raise UnknownNameError(f"no value {name!r} in this rulebook (values: {known})")
        value = _typed.declared(value, self.machine.value_types.get(name),
                                self.machine.world, f"the value {name}")
        self._own_values()[name] = value
        self._stamp(0)
        self._set_by_hand()

    def _declared(self, owner: str, name: str, value: Any, what: str) -> Any:
        """``value`` for the ``owner`` attribute ``name``, as its declared type.

        Raises:
            UnknownNameError: no ``owner`` attribute of that name is declared.
            ArgumentTypeError, UnknownIdError: as ``typed.declared``.
        """
        arguments.name(name, "an attribute")
        table = {"piece": self.piece_attrs, "place": self.place_attrs,
                 "player": self.player_attrs}[owner]
        if name not in table:
            known = ", ".join(sorted(table)) or "none"
            raise UnknownNameError(f"a {owner} has no declared attribute {name!r}"
                                   f"{_nearest(name, table)} (attributes: {known})")
        return _typed.declared(value, self.machine.attribute_types.get((owner, name)),
                               self.machine.world, what)

    def _set_by_hand(self) -> None:
        """After a set-up write: the legal actions are listed afresh, and the writes
        cannot be undone by ``undo()`` (they are not actions). The API's state
        (``cortes_rules.api.GameState``) also starts the game's record here."""
        self._legal = None
        self._forget_undo()

    def positions(self) -> dict[str, str]:
        """Where every placed piece is: piece id -> place id, in piece order."""
        return {p.id: place.id for p, place in zip(self.machine.world.pieces, self.where,
                                                    strict=True) if place is not None}

    def same_position(self, other: GameState) -> bool:
        """Whether two states are the same position of the same game.

        Compared: the turn, the phase, the decision or roll pending (the
        procedures running and their variables), where every piece is, every
        attribute and value, what has been revealed, the last roll, the turn
        limit and the end of the game. Not compared: the seed and the state of
        the dice the engine rolls, the log and the history. Two fresh games of
        one set-up are the same position whatever their seeds.

        ``==`` stays identity: a state is mutable (applying an action changes
        it), so equal-by-value states could not be dictionary keys or set
        members, and programs keep states in both.
        """
        if not isinstance(other, GameState):
            raise CortesRulesError(f"a position is compared with a GameState, not "
                                   f"{type(other).__name__}")
        return self._position_key() == other._position_key()

    def _position_key(self, *, outcome_only: bool = False) -> tuple[Any, ...]:
        """What ``same_position()`` compares; ``outcome_only`` leaves out the last roll
        and the procedures' frames (what a position *is*, not how it was reached)."""
        def plain(value: Any) -> Any:
            if isinstance(value, dict):
                return sorted(((str(plain(k)), plain(v)) for k, v in value.items()),
                              key=lambda kv: kv[0])
            if isinstance(value, (list, tuple, frozenset, set)):
                items = [plain(v) for v in value]
                return sorted(items, key=str) if isinstance(value, (frozenset, set)) else items
            return _plain(value)

        game = self.machine.program.game
        result = self.result
        frames = [(getattr(f[0], "name", None), f[1], plain(f[2])) for f in self.stack]
        if outcome_only:
            frames, last_roll = [], None
        else:
            last_roll = plain(self.last_roll)
        return (game.name if game else None, self.turn, self.turn_limit, self.phase_index,
                plain(self.positions()), plain(self.piece_attrs), plain(self.place_attrs),
                plain(self.player_attrs), plain(self.values), plain(self.revealed),
                last_roll, self.terminal,
                (result.winners, result.reason) if result is not None else None,
                frames if not self.terminal else None)

    def pieces_at(self, place_id: str) -> list[str]:
        """The ids of the pieces in a place, in piece order.

        Raises:
            UnknownIdError: no place has that id.
        """
        return [p.id for p in self.pieces_in(self._place(place_id))]

    def evaluate(self, text: str, **variables: Any) -> Any:
        """The value of an expression of the rules language in this position.

        The expression sees the variables of the procedure running now (an
        open battle's ``attackers`` and ``target``, say), then ``variables``
        (numbers, ids of pieces, places and players, or lists of them), then the rulebook's
        declarations: ``state.evaluate("odds_report(cumulative)")``.

        Raises:
            CortesRulesError: the text does not parse or cannot be evaluated here.
            ArgumentTypeError: the text is not a string.
        """
        from ..dsl.check import reading_uses
        from ..dsl.lower import fold_readings
        from ..dsl.parse import parse_expression

        node = parse_expression(arguments.text(text, "an expression"))
        program = self.machine.program
        for use, _ in reading_uses(node):
            entry = program.interpretations.get(use.entry)
            if entry is None or entry.reading(use.reading) is None:
                raise CortesRulesError(f"no reading {use.entry} is {use.reading} in this "
                                       f"rulebook")
        node = fold_readings(node, program.readings)
        fn = self.machine.compiler.expr(node, None)
        env = dict(self.stack[-1][2]) if self.stack and not self.terminal else {}
        env.update({k: self._resolve(v) for k, v in variables.items()})
        return fn(self, env)

    def _resolve(self, value: Any) -> Any:
        if isinstance(value, list):
            return [self._resolve(v) for v in value]
        if isinstance(value, tuple):
            return tuple(self._resolve(v) for v in value)
        if isinstance(value, str):
            world = self.machine.world
            for table in (world.piece, world.place, world.player):
                if value in table:
                    return table[value]
        return value

    def _piece(self, piece_id: str) -> Piece:
        """The piece of that id.

        Raises:
            ArgumentTypeError: ``piece_id`` is not a string.
            UnknownIdError: no piece has that id.
        """
        found = self.machine.world.piece.get(arguments.name(piece_id, "a piece"))
        if found is None:
            raise UnknownIdError(f"no piece {piece_id!r} in this rulebook"
                                 f"{_nearest(piece_id, self.machine.world.piece)}")
        return found

    def _place(self, place_id: str) -> Place:
        """The place of that id.

        Raises:
            ArgumentTypeError: ``place_id`` is not a string.
            UnknownIdError: no place has that id.
        """
        found = self.machine.world.place.get(arguments.name(place_id, "a place"))
        if found is None:
            raise UnknownIdError(f"no place {place_id!r} in this rulebook"
                                 f"{_nearest(place_id, self.machine.world.place)}")
        return found

    def next_player(self, player: Player) -> Player:
        """The player seated after ``player`` in turn order (engine objects)."""
        seats = self.machine.world.seats
        return seats[(seats.index(player) + 1) % len(seats)]

    def __repr__(self) -> str:
        """What anyone at the table may see: the game, turn, phase and who is to act."""
        game = self.machine.program.game
        name = game.name if game else "rulebook"
        if self.terminal:
            return f"<GameState {name!r}, turn {self.turn}, over>"
        return (f"<GameState {name!r}, turn {self.turn}, phase {self.phase!r}, "
                f"to act: {self.current_player}>")

    # ------------------------------------------------------------ queries
    @property
    def phase(self) -> str:
        """The name of the phase being played (``spanish_land_movement``)."""
        return self.machine.phases[self.phase_index].name

    @property
    def phase_label(self) -> str:
        """The phase's label as the rulebook writes it (``Spanish land movement``)."""
        return self.machine.phases[self.phase_index].label

    @property
    def log(self) -> list[LogEntry]:
        """Every line of the log so far, oldest first, each citing its rules."""
        return _unchain(self._log)

    def log_tail(self, n: int) -> list[LogEntry]:
        """The last ``n`` lines of the log, oldest first (the log is not walked further).

        Raises:
            ArgumentTypeError: ``n`` is not a whole number.
        """
        arguments.whole(n, "a number of log lines")
        out: list[LogEntry] = []
        chain = self._log
        while chain is not None and len(out) < n:
            out.append(chain[0])
            chain = chain[1]
        out.reverse()
        return out

    def trail(self, ply: int = -1, player: str | None = None) -> list[LogEntry]:
        """The rule trail of one applied action: the log lines it produced, in order.

        Each line carries the numbers of the rules that decided it
        (``LogEntry.rules``), so the trail of an attack reads as the
        clauses that fired: the ratio and its rule, each column shift and its
        rule, the clamp, the roll on the table and the losses that follow.
        The lines run from the action up to the next action of
        ``history`` (a dice roll is an action of its own, with its own
        trail).

        Args:
            ply: which action of ``history``, counted from 0 (negative
                counts from the end: -1, the default, is the last one).
            player: only the lines this player may read (a line about a
                piece hidden from that player is left out); None gives every
                line, the umpire's view, as ``log`` does.

        Raises:
            CortesRulesError: no action has that ply.
        """
        if isinstance(ply, bool) or not isinstance(ply, int):
            raise CortesRulesError(f"a ply is a whole number, not {ply!r}")
        nodes = []
        chain = self._history
        while chain is not None:
            nodes.append(chain)
            chain = chain[1]
        nodes.reverse()
        index = ply + len(nodes) if ply < 0 else ply
        if not 0 <= index < len(nodes):
            raise CortesRulesError(f"no action at ply {ply}: {len(nodes)} action"
                                   f"{'s have' if len(nodes) != 1 else ' has'} been applied")
        if player is not None:
            self._viewer(player)
        start = nodes[index][2] if len(nodes[index]) > 2 else None
        end = nodes[index + 1][2] if index + 1 < len(nodes) else self._log
        return [e for e in _log_between(start, end) if player is None or e.visible_to(player)]

    @property
    def history(self) -> list[Action]:
        """Every action applied so far, dice rolls and draws included, in order."""
        # The chain holds action ids; each becomes its Action (memoised) only here.
        return list(map(self.machine.space.action, _unchain(self._history)))

    def is_terminal(self) -> bool:
        """Whether the game is over (then ``outcome()`` says how it ended)."""
        return self.terminal

    def outcome(self) -> Outcome | None:
        """How the game ended (winners, reason, what the ending reports), or None before."""
        return self.result if self.terminal else None

    def _pending(self) -> tuple[int, Any, list[Any]] | None:
        if self.terminal:
            return None
        frame = self.stack[-1]
        ins = frame[0].code[frame[1]]
        return ins[0], ins, frame

    @property
    def current_player(self) -> str | None:
        """Who decides next: a player, ``"chance"`` at a chance node, None once the game is over."""
        pending = self._pending()
        if pending is None:
            return None
        op, ins, frame = pending
        if op in (ROLL, DRAW):
            return CHANCE
        if op == SEALED:
            return str(self._sealed_next(ins[1], frame[2]))
        player = ins[1].player(self, frame[2])
        return str(player)

    def is_chance_node(self) -> bool:
        """Whether the next action is a dice roll or a draw (see ``chance_outcomes()``)."""
        pending = self._pending()
        return pending is not None and pending[0] in (ROLL, DRAW)

    # ------------------------------------------------------------ copying
    def clone(self) -> Self:
        """An independent copy of this position.

        The flat arrays (where pieces are, what places hold, the attributes,
        the stamps) and the game values are shared until either state writes
        to one: the first write copies it (copy on write). The procedure frames are shared too:
        only ``apply()`` writes to them, and it copies them first. The log
        and history are immutable chains, shared.
        """
        twin = object.__new__(type(self))
        mine = self.__dict__
        mine.update(_CLONED)
        twin.__dict__ = copied = mine.copy()   # one C-level copy, not a key-by-key update
        if self.player_attrs:   # no player attribute: nothing to write, the dict is shared
            copied["player_attrs"] = {k: v[:] for k, v in self.player_attrs.items()}
        if self._undo is not None:
            # Cloned while an action runs: what the action writes in place (and may
            # undo) stays this state's alone; the twin gets copies of its own. (This
            # state now copies what it writes next, as after any clone.)
            copied.update(_OWN_ALL, _undo=None, where=self.where[:],
                          occupants=self.occupants.copy(), stamps=self.stamps[:],
                          values=self.values.copy(),
                          piece_attrs={k: v[:] for k, v in self.piece_attrs.items()},
                          place_attrs={k: v[:] for k, v in self.place_attrs.items()},
                          native=self.native.copy() if self.native is not None else None)
        return twin

    # ------------------------------------------------------------ undo
    @property
    def undo_depth(self) -> int:
        """How many actions ``undo()`` can take back, one after the other.

        Every action applied to this state (or to the state it was cloned
        from) counts, since the game began, the position was read from its
        text or last edited with ``set_attribute()`` or ``set_value()``.
        """
        marks = self._marks
        return (marks[1] if marks is not None else -CHECKPOINT_EVERY) + self._since

    @property
    def can_undo(self) -> bool:
        """Whether ``undo()`` has an action to take back (``undo_depth > 0``)."""
        return self.undo_depth > 0

    def undo(self) -> Action:
        """Take back the last action applied (a decision or a chance outcome) and return it.

        The state becomes again what it was before that action, in every
        respect: where the pieces are, attributes and values, the pending
        decision and its legal actions, turn and phase, the end of the game,
        the history, the log and the rule trails, what every player observes,
        and the generator of the dice, so that ``apply_chance()`` draws the
        same outcome again. Several undos in a row take back several actions.

        What can be taken back (``undo_depth``): every action since the game
        began (``Rulebook.new_game``), the position was read from its text
        (``Rulebook.position``: the history is not part of a position) or was
        edited (``set_attribute()``, ``set_value()``: an edit starts a new undo
        stack). A clone carries its original's undo stack: both can take back
        the actions applied before the copy, each on its own; undoing on one
        never changes the other.

        How: the last action, when nothing cloned the state since, is taken
        back at once, as a failed action is (the writes it made in place undone,
        the snapshot ``apply()`` took restored). Otherwise undo goes back to the
        nearest checkpoint, a frozen copy (shared with the state until either
        writes) that ``apply()`` keeps every ``CHECKPOINT_EVERY`` (64) actions,
        and replays the actions applied after it, sampling again the chance
        outcomes that were sampled: at most 63 actions replayed, about a
        millisecond on average in a Cortés game. ``apply()`` pays one copy of
        what it writes after each checkpoint. ``random_playout()`` keeps a
        checkpoint where it starts (the first undo after it replays from there).

        Raises:
            NothingToUndoError: no action to take back; the state is unchanged.
        """
        depth = self.undo_depth
        if depth <= 0:
            raise NothingToUndoError(
                "nothing to undo: no action has been applied to this state since the game "
                "began, its position was read or it was last edited")
        node = self._history
        last = self._last
        if last is not None and node is not None:
            # Nothing cloned the state since its last action: back as a failed action
            # goes, the writes made in place undone and the snapshot's fields taken.
            if last[1] is not None:
                _undo_writes(last[1])
            self._restore(last[0])
            return self.machine.space.action(node[0])
        target = depth - 1
        marks = self._marks
        while marks is not None and marks[1] > target:
            marks = marks[2]
        if marks is None or node is None:
            raise CortesRulesError("the undo stack lost its checkpoints (an engine bug)")
        # The actions from the checkpoint to the position wanted, latest first.
        replay = []
        chain = node[1]
        for _ in range(target - marks[1]):
            replay.append(chain)
            chain = chain[1]
        twin = marks[0].clone()
        twin._marks, twin._since = marks, 0
        if replay:
            sampled = self._sampled_nodes(node, replay)
            for step in reversed(replay):
                # Not as listed: apply() then finds the decision it reaches live
                # without listing all its legal actions, as nobody asks for them.
                twin._legal = None
                if id(step) in sampled:
                    twin.apply_chance()
                    if twin._history is None or twin._history[0] != step[0]:
                        raise CortesRulesError(
                            "undo cannot replay a chance outcome (an engine bug)")
                else:
                    twin.apply(step[0])
        self._restore(twin)
        return self.machine.space.action(node[0])

    def _sampled_nodes(self, node: Any, replay: list[Any]) -> set[int]:
        """Which of the history nodes ``replay`` (the actions before ``node``, the last
        one applied, back to a checkpoint) were chance outcomes sampled by the state's
        generator: their ids."""
        wanted = {id(step) for step in replay}
        found: set[int] = set()
        chain = self._sampled
        if chain is not None and chain[0] is node:
            chain = chain[1]
        while chain is not None and id(chain[0]) in wanted:
            found.add(id(chain[0]))
            chain = chain[1]
        return found

    def _forget_undo(self) -> None:
        """Start a new undo stack here (the position was edited outside an action)."""
        self._marks = None
        self._since = CHECKPOINT_EVERY
        self._sampled = None
        self._last = None

    def _restore(self, snapshot: GameState) -> None:
        self.__dict__.update(snapshot.__dict__)

    def _piece_column(self, name: str) -> list[Any]:
        """The values of a piece attribute, this state's own, to write to.

        Copy on write goes column by column: the first write after a clone
        copies the table of columns and the one column written, not every
        attribute (``apply()`` clones before each action, to restore on error;
        the native state alone is written in place there, its writes logged).
        Writers call it only when the value changes, so a write of the value
        already there copies nothing.
        """
        shared = self._pieces_shared
        if shared is False or (shared is not True and name in shared):
            return self.piece_attrs[name]
        self.piece_attrs, self._pieces_shared, column = _own_column(
            self.piece_attrs, self._pieces_shared, name)
        return column

    def _place_column(self, name: str) -> list[Any]:
        """The values of a place attribute, this state's own (see ``_piece_column()``)."""
        shared = self._places_shared
        if shared is False or (shared is not True and name in shared):
            return self.place_attrs[name]
        self.place_attrs, self._places_shared, column = _own_column(
            self.place_attrs, self._places_shared, name)
        return column

    def _own_values(self) -> dict[str, Any]:
        """The game values, this state's own, to write to (copied on the first write
        after a clone, like the flat arrays)."""
        if self._values_shared:
            self.values = self.values.copy()
            self._values_shared = False
        return self.values

    def _write_value(self, name: str, value: Any) -> None:
        """``set name = value`` for a game value (declared: ``name`` is in ``values``)."""
        values = self._own_values()
        if self._undo is not None:
            self._undo.append((values, name, values[name]))
        values[name] = value
        self._stamp(0)

    def _own_stamps(self) -> None:
        self.stamps = self.stamps[:]
        self._stamps_shared = False

    def _own_native(self) -> None:
        self.native = self.native.copy()
        self._native_shared = False

    def _native_rebuild(self) -> None:
        """Build the native state afresh from this state, once the rulebook has native
        support (made by the first native enumeration, so that loading never pays for it)."""
        support = self.machine._native
        self.native = support.state_of(self) if support is not None else None
        self._native_shared = False

    def _native_place(self, name: str, index: int, value: Any) -> None:
        """Keep the native column of a place attribute in step with a write (a piece
        attribute's is kept by ``_piece_changed``)."""
        support = self.machine._native
        column = support.place_column.get(name)
        if column is not None:
            if self._native_shared:
                self._own_native()
            cells, at = self.native.places, column[0] * support.n_places + index
            if self._undo is not None:
                self._undo.append((cells, at, cells[at]))
            cells[at] = column_cell(value, column[1])

    def _stamp(self, index: int) -> None:
        if self._stamps_shared:
            self._own_stamps()
        stamps = self.stamps
        if self._undo is not None:
            self._undo.append((stamps, index, stamps[index]))
        stamps[index] = tick()

    def _sweep_pieces(self, writes: tuple[tuple[str, Any], ...]) -> None:
        """Give every piece these attribute values (``_AT_PLACE``: the piece's place), in
        order, writing only the cells that change (a ``for each`` over all the pieces).

        The writes go column by column: an array written is logged once, whole (not
        cell by cell), and the pieces written get one stamp, once all are written
        (nothing reads the state in between)."""
        undo = self._undo
        support = self.machine._native if self.native is not None else None
        stamped: set[int] = set()
        for name, value in writes:
            column = self.piece_attrs[name]
            if value is _AT_PLACE:
                new = self.where
                # Cells already holding the piece's own place are left at C speed.
                changed = [i for i in compress(range(len(column)), map(is_not, column, new))
                           if not _same(column[i], new[i])]
            else:
                # The cells holding this very object are left at C speed; the others
                # are compared as ``_write_piece`` would.
                changed = [i for i in compress(range(len(column)),
                                               map(is_not, column, repeat(value)))
                           if not _same(column[i], value)]
            if not changed:
                continue
            column = self._piece_column(name)
            if undo is not None:
                undo.append((column, slice(None), column[:]))
            native_column = support.piece_column.get(name) if support is not None else None
            if native_column is not None:
                if self._native_shared:
                    self._own_native()
                cells = self.native.pieces
                base = native_column[0] * len(self.where)
                if undo is not None:
                    cut = slice(base, base + len(column))
                    undo.append((cells, cut, cells[cut]))
            if value is _AT_PLACE:
                for i in changed:
                    column[i] = new[i]
                    if native_column is not None:
                        cells[base + i] = column_cell(new[i], native_column[1])
            else:
                for i in changed:
                    column[i] = value
                if native_column is not None:
                    cell = column_cell(value, native_column[1])
                    for i in changed:
                        cells[base + i] = cell
            stamped.update(changed)
        if stamped:
            if self._stamps_shared:
                self._own_stamps()
            stamps = self.stamps
            if undo is not None:
                undo.extend([(stamps, 1 + i, stamps[1 + i]) for i in stamped])
            stamp = tick()
            for i in stamped:
                stamps[1 + i] = stamp

    def _write_piece(self, name: str, index: int, value: Any) -> None:
        old = self.piece_attrs[name][index]
        if not _same(old, value):
            self._piece_changed(name, index, old, value)

    def _piece_changed(self, name: str, index: int, old: Any, value: Any) -> None:
        """Write a piece attribute whose value changes from ``old``: the cell, the piece's
        stamp and the native column, each write logged while an action may fail (one
        call for what the generated code of a ``set`` would otherwise do in three)."""
        # ``_piece_column``, ``_stamp`` and the native column in line: about two
        # attribute writes a Cortés step, each three calls fewer.
        shared = self._pieces_shared
        column = (self.piece_attrs[name] if shared is False
                  or (shared is not True and name in shared) else self._piece_column(name))
        if self._stamps_shared:
            self._own_stamps()
        stamps = self.stamps
        undo = self._undo
        if undo is not None:
            undo.append((column, index, old))
            undo.append((stamps, 1 + index, stamps[1 + index]))
        column[index] = value
        stamps[1 + index] = tick()
        if self.native is not None:
            native_column = self.machine._native.piece_column.get(name)
            if native_column is not None:
                if self._native_shared:
                    self._own_native()
                cells, at = self.native.pieces, native_column[0] * len(self.where) + index
                if undo is not None:
                    undo.append((cells, at, cells[at]))
                cells[at] = column_cell(value, native_column[1])

    def _write_place(self, name: str, index: int, value: Any) -> None:
        old = self.place_attrs[name][index]
        if not _same(old, value):
            column = self._place_column(name)
            if self._undo is not None:
                self._undo.append((column, index, old))
            column[index] = value
            self._stamp(self.machine.marks + index)
            if self.native is not None:
                self._native_place(name, index, value)

    # ------------------------------------------------------------ legal actions
    def legal_action_ids(self) -> list[int]:
        """The ids of the legal actions, ascending."""
        steps = self.machine.steps
        if steps is not None:
            ids: list[int] = steps.legal_ids(self)   # _core.StepRunner: the common case
            return ids
        return self._legal_ids()

    def _legal_ids(self) -> list[int]:
        """``legal_action_ids()`` as the reference works it out."""
        pending = self._pending()
        if pending is None:
            return []
        op, ins, frame = pending
        space = self.machine.space
        if op == ROLL:
            return [n for n, _ in self._roll_table(ins, frame)[0]]
        if op == DRAW:
            kind = space.kinds["draw"]
            return sorted(kind.encode((p,)) for p in self._draw_pool(ins, frame))
        segments = self._legal
        if segments is None:
            spec: ChoiceSpec = ins[1]
            env = frame[2]
            if op == SEALED:
                env = dict(env)
                env[spec.name] = self._sealed_next(spec, frame[2])
            segments = self._listing(spec, env)
        ids = list(_chain(segments))
        ids.sort()
        return ids

    def _listing(self, spec: ChoiceSpec, env: dict[str, Any]) -> list[list[int]]:
        """The candidates of each option of a decision, kept for this position (``_legal``:
        ``apply()`` finds an action among them, and a second listing reads them)."""
        segments: list[list[int]] = []
        for option in spec.options:
            found: list[int] = []
            self._candidates(option, env, found)
            segments.append(found)
        self._legal = segments
        return segments

    def legal_actions(self) -> list[Action]:
        """The legal actions of the player to act, sorted by id (see ``legal_action_ids()``)."""
        action = self.machine.space.action
        return [action(n) for n in self.legal_action_ids()]

    def _candidates(self, option: OptionSpec, env: dict[str, Any], out: list[int],
                    stop: bool = False) -> None:
        if option.enum is not None:
            mark = len(out)
            try:
                option.enum(self, env, out, stop)
                return
            except Exception:
                del out[mark:]
        self._reference_candidates(option, env, out)

    def _reference_candidates(self, option: OptionSpec, env: dict[str, Any],
                              out: list[int]) -> None:
        kind = self.machine.space.kinds[option.kind]
        forbids = self.machine.forbids.get(option.kind, ())
        scratch = dict(env)
        params = option.params
        n = len(params)
        values: list[Any] = [None] * n

        def leaf() -> None:
            for name, fn in option.bindings:
                scratch[name] = fn(self, scratch)
            if option.where is not None and not option.where(self, scratch):
                return
            for _, cond, permits, _ in forbids:
                if cond(self, scratch) and not any(p(self, scratch) for p in permits):
                    return
            out.append(kind.encode(values))

        def walk(i: int) -> None:
            if i == n:
                leaf()
                return
            name, domain = params[i]
            for value in domain(self, scratch):
                scratch[name] = value
                values[i] = value
                walk(i + 1)

        walk(0)

    def why_illegal(self, action: Action | str | int, *, player: str | None = None
                    ) -> list[Reason]:
        """Why an action (an Action, its text or its id) is illegal here.

        Each reason names a rule that refuses the action: its number, its
        title and English summary, and the fact of this position that makes
        it apply (``Reason.fact``: ``S9.finished is true``), with the formal
        clause on request (``Reason.clause``). A refusal that no clause of
        its own makes (an action the decision does not offer, a piece that
        does not exist, a chance event due, a game over) cites the rule the
        rulebook declares for it: the sequence of play of the phase, the
        clause of the procedure that decides, the ending that closed the game.

        Args:
            action: the action asked about.
            player: answer as this player may be told, from what he may know
                alone. Of an illegal action that names a piece hidden from
                him, he is told only that it is hidden, and by which rules;
                of another player's decision while anything is hidden from
                him, only that he is not told (whether it is legal would tell
                him where hidden pieces are or what they may do); a value
                naming a piece hidden from him shows as ``?``. None answers
                as the umpire, who sees everything.

        Returns ``Reason`` objects, each also the pair ``(rule, text)``;
        [] when the action is legal.

        Raises:
            CortesRulesError: no player of that name.
        """
        viewer = self._viewer(player) if player is not None else None
        try:
            kind, values, _ = self._identify(action)
        except NotationError as error:
            return [self.machine.refusals.reason(self._phase_rule(), str(error),
                                                 self._phase_clause())]
        if viewer is not None:
            withheld = self._withheld(viewer)
            if withheld:
                return withheld
        reasons = self._reasons(kind, values, viewer)[0]
        if reasons and viewer is not None:
            return self._told(viewer, values, reasons)
        return reasons

    def _viewer(self, player: str) -> Player:
        """The player of that name.

        Raises:
            ArgumentTypeError: ``player`` is not a string.
            UnknownNameError: no player of that name.
        """
        found = self.machine.world.player.get(arguments.name(player, "a player"))
        if found is None:
            raise UnknownNameError(f"no player {player!r}"
                                   f"{_nearest(str(player), self.machine.world.player)}")
        return found

    def _withheld(self, viewer: Player) -> list[Reason]:
        """What ``viewer`` is told of another player's decision while anything is hidden
        from him: that he is not told, by the rules that hide (else [])."""
        decider = self.current_player
        if decider is None or decider == viewer.name or decider not in self.machine.world.player:
            return []
        rules = self.rules_hiding_from(viewer)
        if rules is None:
            return []
        fact = (f"it is {decider}'s decision, and {viewer.name} is not told which actions "
                f"are legal in it while things are hidden from {viewer.name}")
        return [self._hiding_reason(rule, fact) for rule in rules] or [
            self.machine.refusals.reason(self._phase_rule(), fact, self._phase_clause())]

    def rules_hiding_from(self, viewer: Player) -> list[str] | None:
        """The rules of the ``hide`` clauses that keep something from ``viewer`` now
        (a piece, or a player's attribute), in rule order; None when nothing is hidden
        from him."""
        world = self.machine.world
        rules: set[str] = set()
        hidden = False
        if self.machine.hides:
            for piece in world.pieces:
                if self.hidden_from(piece, viewer):
                    hidden = True
                    rules.update(self._hiding_rules(piece, viewer))
        if self.machine.attribute_hides:
            for decl in self.machine.program.of(ir.HideDecl):
                if decl.attribute and any(self.attribute_hidden_from(p, decl.attribute, viewer)
                                          for p in world.players):
                    hidden = True
                    if decl.rule:
                        rules.add(decl.rule)
        return sorted(rules, key=rule_key) if hidden else None

    def _told(self, viewer: Player, values: tuple[Any, ...], reasons: list[Reason]
              ) -> list[Reason]:
        """The reasons an illegal action is refused, as ``viewer`` may read them.

        When the action names pieces hidden from the viewer, the clauses'
        explanations would tell him something of those pieces (that one is
        not next to a hex, say): he is told only that they are hidden, and by
        which rules (8.8's hidden stacks in Cortés, say).
        """
        if not self.machine.hides:
            return reasons
        hidden = [p for p in _pieces_named(values, []) if self.hidden_from(p, viewer)]
        if not hidden:
            return reasons
        names = ", ".join(dict.fromkeys(p.id for p in hidden))
        fact = f"{names} {'is' if len(hidden) == 1 else 'are'} hidden from {viewer.name}"
        rules = sorted({r for p in hidden for r in self._hiding_rules(p, viewer)}, key=rule_key)
        return [self._hiding_reason(r, fact) for r in rules] or [
            self.machine.refusals.reason(self._phase_rule(), fact, self._phase_clause())]

    def _hiding_reason(self, rule: str, fact: str) -> Reason:
        """A reason citing a rule that hides something, with its hide clauses."""
        clauses = "; ".join(render_statement(h) for h in self.machine.program.of(ir.HideDecl)
                            if h.rule == rule)
        return self.machine.refusals.reason(rule, fact, clauses)

    def _hiding_rules(self, piece: Piece, viewer: Player) -> list[str]:
        """The rule numbers of the hide clauses that keep ``piece`` from ``viewer`` now."""
        hides = self.machine.hides
        env = {"piece": piece, "viewer": viewer}
        return [decl.rule for fn, decl in zip(hides.fns, hides.decls, strict=True)
                if fn in hides.applying(piece, viewer) and decl.rule and fn(self, dict(env))]

    def _phase_rule(self) -> str:
        """The rule a refusal that no clause of its own makes cites: the ending that
        closed the game, else the sequence of play that holds the current phase."""
        machine = self.machine
        if self.terminal:
            return (self.result.rule if self.result is not None else None) or (
                machine.sequence_rule)
        rules = machine.phase_rules
        return rules[self.phase_index] if self.phase_index < len(rules) else (
            machine.sequence_rule)

    def _phase_clause(self) -> str:
        """The statement behind ``_phase_rule()``: the ending, or the phase."""
        machine = self.machine
        if self.terminal:
            rule = self._phase_rule()
            return "; ".join(render_statement(f) for f in machine.program.of(ir.FinishDecl)
                             if f.rule == rule and self.result is not None
                             and f.reason.split("{")[0] in self.result.reason)
        if self.phase_index < len(machine.phases):
            return phase_text(machine.phases[self.phase_index])
        return ""

    def _step_rule(self, frame: list[Any]) -> str:
        """The rule of the procedure that is deciding (when the rulebook states it in a
        numbered clause), else the phase's (``_phase_rule()``)."""
        rule = frame[0].rule
        found = self.machine.program.rules.get(rule)
        return rule if found is not None and not found.mechanism else self._phase_rule()

    def _reader(self, viewer: Player | None) -> Reader:
        """Who reads a refusal: what he may be shown of the values it names."""
        machine = self.machine
        if viewer is None or not (machine.hides or machine.attribute_hides):
            return Reader(viewer.name if viewer is not None else None, format_value,
                          _nothing_secret, _no_secret_attribute)
        unseen = ({p for p in machine.world.pieces if self.hidden_from(p, viewer)}
                  if machine.hides else set())

        def secret_attribute(owner: Any, name: str) -> bool:
            if type(owner) is Piece:
                return owner in unseen
            return type(owner) is Player and self.attribute_hidden_from(owner, name, viewer)

        return Reader(viewer.name, lambda value: _shown(value, unseen),
                      lambda value: type(value) is Piece and value in unseen, secret_attribute)

    def is_legal(self, action: Action | str | int) -> bool:
        """Whether an action (an Action, its text or its id) is legal here."""
        return not self.why_illegal(action)

    def _identify(self, action: Action | str | int) -> tuple[Kind, tuple[Any, ...], int]:
        """An action's kind, argument values and id, from any of its three forms.

        Raises:
            NotationError: not an action of this rulebook.
        """
        space = self.machine.space
        if isinstance(action, bool):
            raise NotationError("an action is a text, an Action or an id, not a bool")
        if isinstance(action, int):
            kind, values = space.decode(action)
            return kind, values, action
        known = space.known(action)
        if known is not None:
            kind, values = space.decode(known)
            return kind, values, known
        kind, values = space.parse(action)
        return kind, values, kind.encode(values)

    def _reasons(self, kind: Kind, values: tuple[Any, ...], viewer: Any = None
                 ) -> tuple[list[Reason], OptionSpec | None, dict[str, Any]]:
        """The reasons an action is refused here ([] when it is legal), with the option
        and bindings that admit it when it is legal. The reasons are worded for
        ``viewer`` (a Player, None for the umpire, ``DECIDER`` for whoever decides),
        and only when the action is refused."""
        pending = self._pending()
        if pending is None:
            return [self._engine_reason("the game is over")], None, {}
        op, ins, frame = pending
        if op in (ROLL, DRAW):
            if kind.name == "roll" and op == ROLL:
                if kind.encode(values) in self._roll_table(ins, frame)[1]:
                    return [], None, {}
                fact = f"the dice cannot come up {format_value(values[0])}"
            elif kind.name == "draw" and op == DRAW:
                if values[0] in self._draw_pool(ins, frame):
                    return [], None, {}
                fact = f"{values[0]} cannot be drawn here"
            else:
                fact = "a chance event is due, not a player's decision"
            return [self._engine_reason(fact, self._step_rule(frame))], None, {}
        spec: ChoiceSpec = ins[1]
        env = dict(frame[2])
        if op == SEALED:
            env[spec.name] = self._sealed_next(spec, frame[2])
        options = [o for o in spec.options if o.kind == kind.name]
        if not options:
            offered = ", ".join(sorted({o.kind for o in spec.options}))
            fact = (f"no {kind.name} action is possible now, in {self.phase_label} "
                    f"(possible: {offered})")
            standing = self._standing_forbids(kind, values, env)
            return [*self._worded(standing, kind, values, viewer, frame),
                    self._engine_reason(fact)], None, {}
        best: list[tuple[Any, ...]] = []
        best_cited = False
        for option in options:
            scratch = dict(env)
            found: list[tuple[Any, ...]] = []
            in_domain = True
            failed_at: int | None = None
            at = 0
            try:
                for at, ((name, domain), value) in enumerate(
                        zip(option.params, values, strict=False)):
                    if in_domain and value not in domain(self, scratch):
                        in_domain, failed_at = False, at
                    scratch[name] = value
            except CortesRulesError:
                # A domain that cannot be worked out for this candidate (a
                # piece off the board has no neighbours) does not hold it.
                in_domain = False
                failed_at = at if failed_at is None else failed_at
                for (name, _), value in zip(option.params, values, strict=False):
                    scratch[name] = value
            try:
                for name, fn in option.bindings:
                    scratch[name] = fn(self, scratch)
                for rule, cond, permits, clause in self.machine.forbids.get(option.kind, ()):
                    if self._forbids(cond, permits, scratch):
                        found.append((_FORBID, rule, clause, scratch))
            except CortesRulesError:
                if in_domain:
                    raise
            cited = bool(found)
            if not found and (not in_domain or (option.where is not None
                                                and not option.where(self, scratch))):
                rules = self._cited(option, scratch)
                cited = bool(rules)
                found.append((_OUTSIDE, option, None if in_domain else failed_at, rules,
                              scratch))
            if not found:
                return [], option, scratch
            if not best or (cited and not best_cited):
                best, best_cited = found, cited
        return self._worded(best, kind, values, viewer, frame), None, {}

    def _engine_reason(self, fact: str, rule: str | None = None) -> Reason:
        """A refusal no forbid clause makes, citing ``rule`` or the phase's rule."""
        if rule is None or rule == self._phase_rule():
            return self.machine.refusals.reason(self._phase_rule(), fact, self._phase_clause())
        return self.machine.refusals.reason(rule, fact)

    def _worded(self, findings: list[tuple[Any, ...]], kind: Kind, values: tuple[Any, ...],
                viewer: Any, frame: list[Any]) -> list[Reason]:
        """The reasons of the refusals found (forbid clauses that hold, an action outside
        the choices), in words for ``viewer``."""
        if not findings:
            return []
        if viewer is DECIDER:
            decider = self.current_player
            viewer = self.machine.world.player.get(decider) if decider is not None else None
        refusals = self.machine.refusals
        reader = self._reader(viewer)
        out: list[Reason] = []
        for finding in findings:
            if finding[0] is _FORBID:
                _, rule, clause, env = finding
                out.append(refusals.forbidding(self, rule, clause, env, reader))
            else:
                _, option, failed_at, rules, env = finding
                out.extend(refusals.outside(self, option, _text(kind, values), values, env,
                                            failed_at, rules, self._step_rule(frame), reader))
        return out

    def _standing_forbids(self, kind: Kind, values: tuple[Any, ...], env: dict[str, Any]
                          ) -> list[tuple[Any, ...]]:
        """The forbid clauses on a kind no choice offers now that hold anyway.

        A clause that needs a variable only an option would bind (``from``,
        ``cost``) cannot be worked out here and is passed over; one that can
        (``forbid attack when phase == ...``) names the rule that keeps the
        action out of the choices.
        """
        scratch = dict(env)
        scratch.update(zip((name for name, _ in kind.params), values, strict=False))
        found: list[tuple[Any, ...]] = []
        for rule, cond, permits, clause in self.machine.forbids.get(kind.name, ()):
            try:
                if self._forbids(cond, permits, scratch):
                    found.append((_FORBID, rule, clause, scratch))
            except CortesRulesError:
                continue
        return found

    def _cited(self, option: OptionSpec, scratch: dict[str, Any]) -> list[str]:
        """The rules an option's ``cite`` clause names for a candidate outside its
        domains or ``where``, when it has one and it can be worked out here."""
        if option.cite is None:
            return []
        try:
            cited = option.cite(self, dict(scratch))
        except CortesRulesError:
            return []
        if not isinstance(cited, (tuple, frozenset, list, set)):
            cited = (cited,)
        return sorted({str(r) for r in cited if r}, key=rule_key)

    # ------------------------------------------------------------ chance
    def _roll_table(self, ins: tuple[Any, ...], frame: list[Any]
                    ) -> tuple[tuple[tuple[int, Fraction], ...], frozenset[int]]:
        """The pending roll's outcomes by action id, and the set of those ids."""
        dice = ins[2](self, frame[2])
        if not isinstance(dice, Dice):
            raise RulesRuntimeError(f"cannot roll {format_value(dice)}", ins[3])
        return self.machine.roll_table(dice)

    def _draw_pool(self, ins: tuple[Any, ...], frame: list[Any]) -> tuple[Piece, ...]:
        source = ins[2](self, frame[2])
        if isinstance(source, Place):
            return self.pieces_in(source)
        return tuple(source)

    def chance_outcomes(self) -> list[tuple[Action, Fraction]]:
        """At a chance node: every outcome with its exact probability."""
        pending = self._pending()
        if pending is None or pending[0] not in (ROLL, DRAW):
            return []
        op, ins, frame = pending
        space = self.machine.space
        action = space.action
        if op == ROLL:
            return [(action(number), p) for number, p in self._roll_table(ins, frame)[0]]
        pool = self._draw_pool(ins, frame)
        kind = space.kinds["draw"]
        ids = [(kind.encode((p,)), Fraction(1, len(pool))) for p in pool]
        ids.sort(key=lambda pair: pair[0])   # in the order of their action ids
        return [(action(number), p) for number, p in ids]

    def apply_chance(self) -> Action:
        """At a chance node, draw an outcome with the state's seeded generator and apply it."""
        before = self.rng_state
        number = self._chance_id()
        self.apply(number)
        # The undo stack notes that the outcome was sampled, to sample it again when
        # undo() replays the action. The snapshot apply() took (kept as the last
        # action's, and as a checkpoint every CHECKPOINT_EVERY actions) holds the
        # generator as it was before the draw.
        self._sampled = (self._history, self._sampled)
        if self._last is not None:
            self._last[0].rng_state = before
        return self.machine.space.action(number)

    def _nothing_due(self) -> IllegalActionError:
        """The refusal of a roll asked for where no chance event is due."""
        return IllegalActionError("roll", [self._engine_reason("no chance event is due")])

    def _chance_id(self) -> int:
        """At a chance node, the id of an outcome drawn with the state's seeded generator
        (the generator moves on)."""
        # The outcomes are not listed: that would build and sort every one of them.
        pending = self._pending()
        if pending is None or pending[0] not in (ROLL, DRAW):
            raise self._nothing_due()
        op, ins, frame = pending
        kernels = self.machine.backend.rng
        kinds = self.machine.space.kinds
        if op == ROLL:
            dice = ins[2](self, frame[2])
            if not isinstance(dice, Dice):
                raise RulesRuntimeError(f"cannot roll {format_value(dice)}", ins[3])
            if (dice.count > 0 and dice.sides < 1) if dice.faces is None else not dice.faces:
                raise self._nothing_due()   # dice without faces have no outcome
            if dice.faces is None:
                self.rng_state, total = kernels.roll_dice(self.rng_state, dice.count,
                                                          dice.sides)
                return kinds["roll"].encode((total,))
            self.rng_state, i = kernels.below(self.rng_state, len(dice.faces))
            return kinds["roll"].encode((dice.faces[i],))
        # The outcomes of ``chance_outcomes()``, in the same order: by action id.
        ids = sorted(kinds["draw"].encode((p,)) for p in self._draw_pool(ins, frame))
        if not ids:
            raise self._nothing_due()
        self.rng_state, i = kernels.below(self.rng_state, len(ids))
        drawn: int = ids[i]
        return drawn

    def random_playout(self, seed: int, max_actions: int | None = None) -> int:
        """Play uniformly random legal actions until the game ends (a rollout).

        Each decision takes one of ``legal_action_ids()`` with equal chance,
        drawn from a generator seeded by ``seed`` (SplitMix64, the same on
        every machine); chance events are resolved by the game's own dice, as
        ``apply_chance()`` does. Stops after ``max_actions`` actions if given.
        The same state, seed and limit always give the same game, the game
        ``apply()`` would play with the same actions.

        A playout is one change: if it fails, the state is left as it was
        before it (not after the last action that succeeded). So the actions
        inside it run without what ``apply()`` does to leave the state as it
        was when one action fails: no snapshot, no log of the writes made in
        place, no copy of the procedures' frames, once per action. (One
        snapshot is taken when the playout starts.)

        Python's cyclic garbage collector is held off while the playout runs
        and given back as it was, as ``load`` does (``engine/collector.py``):
        its full collections walk everything the rulebook holds (Cortés
        playouts ran about 6% faster without them).

        Returns:
            How many actions were applied (decisions and chance events).

        Raises:
            RulesRuntimeError: a decision offers no legal action, or a rule
                cannot be evaluated; the state is left as it was.
        """
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise CortesRulesError(f"a seed is a whole number, not {seed!r}")
        if max_actions is not None and (isinstance(max_actions, bool)
                                        or not isinstance(max_actions, int) or max_actions < 0):
            raise CortesRulesError(f"max_actions is a whole number of at least 0, "
                                   f"not {max_actions!r}")
        below = self.machine.backend.rng.below
        decode = self.machine.space.decode
        steps = self.machine.steps
        chooser = seed & 0xFFFF_FFFF_FFFF_FFFF
        taken = 0
        # Everything this state holds is shared with the snapshot from here on,
        # so the first write to each array copies it, once for the whole playout;
        # the frames are copied now, and then written in place.
        start = self.clone()
        self.stack = [[f[0], f[1], f[2].copy()] for f in self.stack]
        with collector.paused():   # engine/collector.py: a playout leaves no cycle
            try:
                while not self.terminal and (max_actions is None or taken < max_actions):
                    chance = self.is_chance_node()
                    if chance:
                        number = self._chance_id()
                    else:
                        ids = self.legal_action_ids()
                        if not ids:
                            raise RulesRuntimeError(f"no legal action for {self.current_player} "
                                                    f"in phase {self.phase}")
                        chooser, i = below(chooser, len(ids))
                        number = ids[i]
                    kind, values = decode(number)
                    if steps is None:
                        option, scratch = self._admitted(kind, values, number)
                        self._carry_out(kind, values, number, option, scratch)
                    else:
                        option, scratch = steps.admitted(self, kind, values, number)
                        steps.carry_out(self, kind, values, number, option, scratch)
                    if chance:   # sampled as apply_chance() does: undo() samples it again
                        self._sampled = (self._history, self._sampled)
                    taken += 1
            except CortesRulesError:
                self._restore(start)
                raise
            except RecursionError:
                self._restore(start)
                raise RulesRuntimeError("the rules call procedures too deeply") from None
        if taken:
            # The snapshot was never written (the playout copied all it wrote): the
            # undo stack keeps it as a checkpoint, where undo() replays from.
            self._marks = (start, start.undo_depth, self._marks)
            self._since = taken
        return taken

    # ------------------------------------------------------------ for AI programs
    # Thin fronts of engine/ai.py and engine/tensors.py (docs/api, "For AI programs").
    def random_rollouts(self, n: int, seed: int, *,
                        max_actions: int | None = None) -> _ai.Rollouts:
        """Play ``n`` uniformly random games on from this position; it is left as it is.

        Each game is a clone of this state, its dice reseeded, played by
        ``random_playout``; the seeds of game ``i`` are the ``i``-th pair
        drawn from ``seed`` with SplitMix64 (``engine/ai.py``,
        ``rollout_seeds``). The same position, ``n``, seed and limit give the
        same games on both backends and every machine.

        Args:
            n: how many games to play (0 or more).
            seed: seeds both the players' choices and the games' dice.
            max_actions: cut each game after this many actions (then it is
                scored as unfinished: every return 0).

        Returns:
            A ``Rollouts``: per game, the players' returns (+1 for a winner,
            the losers share the loss, 0 for a draw), the number of actions,
            the winners and whether the game finished.

        Raises:
            ArgumentTypeError: ``n``, ``seed`` or ``max_actions`` is not a whole number.
            CortesRulesError: ``n`` or ``max_actions`` is below 0.
            RulesRuntimeError: a game reached a decision with no legal action,
                or a rule could not be evaluated.
        """
        return _ai.random_rollouts(self, n, seed, max_actions=max_actions)

    def legal_action_ids_buffer(self) -> array[int]:
        """``legal_action_ids()`` as one ``array('i')`` of C ints, ascending.

        It supports the buffer protocol: ``numpy.asarray(ids)`` or
        ``numpy.frombuffer(ids, dtype=numpy.int32)`` read it without a copy,
        ``memoryview(ids)`` without NumPy.
        """
        return _ai.legal_ids_buffer(self)

    def step(self, action_id: int) -> list[int]:
        """Apply an action id and every chance event that follows; the next decision's
        legal ids (empty once the game is over), in one call.

        The same as ``apply(action_id)``, then ``apply_chance()`` while
        ``is_chance_node()``, then ``legal_action_ids()``: the dice come from
        this state's generator, and ``undo()`` takes back each action and
        chance event on its own.

        Raises:
            ArgumentTypeError: ``action_id`` is not a whole number.
            NotationError: no action has that id.
            IllegalActionError: the action is illegal here; the state is left unchanged.
            RulesRuntimeError: a rule cannot be evaluated; the action or chance
                event that met it is not applied.
        """
        return _ai.step(self, action_id)

    def observation_tensor(self, player: str, out: Any = None) -> Any:
        """What ``player`` may see here, as a flat float32 NumPy array.

        The tensor the adapters give (``engine/tensors.py``, where the module's
        docstring gives its layout; ``observation_layout()`` its parts): only
        what ``observation(player)`` shows, a hidden piece being a count in its
        place. Written into ``out`` when given (a writeable, C-contiguous
        float32 array of ``observation_layout().size`` values, of any shape),
        which is returned; else into a new array. Needs NumPy.

        Raises:
            UnknownNameError: ``player`` is not a player of the rulebook.
            ArgumentTypeError: ``out`` is not such an array.
            MissingExtraError: NumPy is not installed.
        """
        return self.observation_layout().encode(self, player, out)

    def observation_layout(self) -> Any:
        """The layout of ``observation_tensor``: its parts' names, shapes and offsets,
        its size and bounds (``engine/tensors.py``, ``Layout``). Needs NumPy.

        Raises:
            MissingExtraError: NumPy is not installed.
        """
        # Imported when first asked for: NumPy is an optional dependency.
        from .tensors import layout_of

        return layout_of(self.machine)

    # ------------------------------------------------------------ applying
    def apply(self, action: Action | str | int) -> None:
        """Apply a legal action (its text, an Action, or its id).

        Raises:
            NotationError: the text is not an action of this rulebook.
            IllegalActionError: the action is illegal here; it names the rules
                that forbid it, and the state is left unchanged.
            RulesRuntimeError: a rule cannot be evaluated; the state is left unchanged.
        """
        steps = self.machine.steps
        if steps is not None and type(action) is int:
            steps.apply(self, action)   # _core.StepRunner: what follows, natively
            return
        kind, values, number = self._identify(action)
        option, scratch = self._admitted(kind, values, number)
        # What this state owns (its arrays, columns, values, native state) is written
        # in place, each write logged to be undone if the action fails, rather than
        # copied at its first write; what it shares with a clone is still copied.
        # A state that owns nothing (a fresh clone) logs nothing: all it writes is
        # copied first, and the snapshot keeps what was there.
        #
        # Every CHECKPOINT_EVERY actions the snapshot is kept instead, as a checkpoint
        # of the undo stack (see ``undo()``): the state then owns nothing it had, so
        # that what it writes is copied first and the snapshot stays as it is.
        mine = self.__dict__
        owned = _sharing_flags(mine)
        snapshot = self.clone()
        undo: list[tuple[Any, Any, Any]] | None = None
        since = self._since
        if owned != _SHARING_ALL and since < CHECKPOINT_EVERY:
            mine.update(zip(_SHARING, owned, strict=True))
            self._undo = undo = []
        # The frames are shared with every clone (the snapshot too): run on copies.
        self.stack = [[f[0], f[1], f[2].copy()] for f in self.stack]
        try:
            self._carry_out(kind, values, number, option, scratch)
        except CortesRulesError:
            self._roll_back(snapshot, undo)
            raise
        except RecursionError:
            self._roll_back(snapshot, undo)
            raise RulesRuntimeError("the rules call procedures too deeply") from None
        finally:
            self._undo = None
        if since < CHECKPOINT_EVERY:
            self._since = since + 1
        else:
            self._marks = (snapshot, snapshot.undo_depth, self._marks)
            self._since = 1
        self._last = (snapshot, undo)

    def _admitted(self, kind: Kind, values: tuple[Any, ...], number: int
                  ) -> tuple[OptionSpec | None, dict[str, Any]]:
        """The option and bindings of a legal action: as listed just before
        (``_listed()``), else as ``_reasons()`` finds them.

        Raises:
            IllegalActionError: the action is illegal here (the rules that forbid it).
        """
        found = self._listed(kind, number, values)
        if found is not None:
            return found
        reasons, option, scratch = self._reasons(kind, values, DECIDER)
        if reasons:
            # The player who decides reads the error: what it says of pieces
            # hidden from him is only that they are hidden.
            decider = self.current_player
            viewer = self.machine.world.player.get(decider) if decider is not None else None
            if viewer is not None:
                reasons = self._told(viewer, values, reasons)
            raise IllegalActionError(self.machine.space.action(number), reasons)
        return option, scratch

    def _carry_out(self, kind: Kind, values: tuple[Any, ...], number: int,
                   option: OptionSpec | None, scratch: dict[str, Any]) -> None:
        """Run a legal action (found by ``_listed()`` or ``_reasons()``) to the next
        decision, on frames this state owns: the history, the rule trail, the ends."""
        # The legal actions of the position left were listed: the next decision's
        # will most likely be asked for too, so _check_live lists them all at once.
        self._lists = self._legal is not None
        self._legal = None
        log_before = self._log
        self._resume(kind, values, option, scratch)
        # (action id, earlier history, the log as the action found it): the log
        # lines after that point are the action's rule trail. The id becomes an
        # Action only when the history is read.
        self._history = (number, self._history, log_before)
        self._run()
        self._check_endings()

    def _roll_back(self, snapshot: GameState, undo: list[tuple[Any, Any, Any]] | None
                   ) -> None:
        """Return to ``snapshot`` after a failed action: the writes made in place are
        undone (``_undo_writes()``), on what the snapshot holds too."""
        if undo is not None and self._undo is undo:
            _undo_writes(undo)
        self._restore(snapshot)

    def _listed(self, kind: Kind, number: int, values: tuple[Any, ...]
                ) -> tuple[OptionSpec, dict[str, Any]] | None:
        """The option and bindings of an action found legal by ``legal_action_ids`` just before.

        Only for options whose candidates read no parameter or binding before
        it is set (then the enumeration and ``_reasons()`` agree); None
        when the action was not listed, so that ``_reasons()`` decides.
        """
        segments = self._legal
        if segments is None:
            return None
        pending = self._pending()
        if pending is None or pending[0] not in (CHOOSE, SEALED):
            return None
        op, ins, frame = pending
        spec: ChoiceSpec = ins[1]
        for option, found in zip(spec.options, segments, strict=True):
            if option.kind != kind.name:
                continue
            if not option.clean or number not in found:
                return None
            if op == CHOOSE and option.binder is not None:
                try:
                    bound = option.binder(self, frame[2], values)
                except Exception:
                    pass   # the reference's functions below say what goes wrong
                else:
                    scratch = {name: value for (name, _), value
                               in zip(option.params, values, strict=False)}
                    for (name, _), value in zip(option.bindings, bound, strict=True):
                        scratch[name] = value
                    return option, scratch
            scratch = dict(frame[2])
            if op == SEALED:
                scratch[spec.name] = self._sealed_next(spec, frame[2])
            for (name, _), value in zip(option.params, values, strict=False):
                scratch[name] = value
            for name, fn in option.bindings:
                scratch[name] = fn(self, scratch)
            return option, scratch
        return None

    def _resume(self, kind: Kind, values: tuple[Any, ...], option: OptionSpec | None,
                scratch: dict[str, Any]) -> None:
        pending = self._pending()
        assert pending is not None
        op, ins, frame = pending
        env = frame[2]
        if op == ROLL:
            env[ins[1]] = values[0]
            self.last_roll = values[0]
            self._stamp(0)
            frame[1] += 1
            return
        if op == DRAW:
            env[ins[1]] = values[0]
            frame[1] += 1
            return
        assert option is not None
        if op == CHOOSE:
            for (name, _), value in zip(option.params, values, strict=False):
                env[name] = value
            for name, _ in option.bindings:
                env[name] = scratch[name]
            frame[1] = option.body
            return
        spec: ChoiceSpec = ins[1]
        chooser = self._sealed_next(spec, env)
        chosen = env.get(spec.key, ())
        env[spec.key] = (*chosen, (chooser, option, tuple(
            (n, scratch[n]) for n, _ in (*option.params, *option.bindings))))
        if self._sealed_next(spec, env) is None:
            frame[1] += 1   # to DISPATCH

    def _sealed_next(self, spec: ChoiceSpec, env: dict[str, Any]) -> Any:
        """The next player to decide in a sealed choice, or None once all have.

        Who takes part is asked again and again during a round (by the
        listing, by ``apply`` and by the run), while nothing changes the state:
        the decisions' bodies run once all are in. So the players found are kept
        (``_choosers``) with a token of the position they were found in:

        - once a decision is collected, the tuple of decisions collected, a new
          object at each decision, taken out of the frame before a body runs;
        - before that, the history of actions, a new object at each action. The
          run may go on past a sealed choice and change the state with the
          history unchanged only when nobody is left to decide, so players are
          kept by the history only when someone is.
        """
        chosen = env.get(spec.key)
        token = chosen if chosen else self._history
        memo = self._choosers
        if token is not None and memo is not None and memo[0] is token and memo[1] is spec:
            players = memo[2]
        else:
            players = tuple(spec.player(self, env))
            if chosen or (token is not None and players):
                self._choosers = (token, spec, players)
        if not chosen:
            return players[0] if players else None
        done = {c[0] for c in chosen}
        return next((p for p in players if p not in done), None)

    # ------------------------------------------------------------ running
    def _run(self) -> None:
        """Run the procedures on the stack until a decision, a chance event or the end.

        The compiled backend runs this loop natively (``_core.FrameRunner``,
        ``machine.runner``); the loop here is its specification. Both hand the
        instructions they do not run themselves to ``_pause()`` and ``_rare()``.
        """
        runner = self.machine.runner
        if runner is not None:
            runner.run(self, STEP_BUDGET)
            return
        budget = STEP_BUDGET
        stack = self.stack
        while not self.terminal:
            frame = stack[-1]
            proc, pc, env = frame
            code = proc.code
            end = len(code)
            # The instructions that neither pause nor change frames run in this
            # inner loop, the frame's position kept in ``pc`` (none of them can
            # end the game, and none of the functions they call reads it).
            # The step budget is spent by the jumps back (every loop takes one per
            # round: a run that never pauses goes round a loop, or calls deeper than
            # the stack allows) and by what the regions run.
            while pc < end:
                ins = code[pc]
                op = ins[0]
                if op == JUMP_IF_NOT:
                    pc = pc + 1 if ins[1](self, env) else ins[2]
                elif op == JUMP:
                    if ins[1] <= pc:
                        budget -= 1
                        if budget <= 0:
                            self._runs_on(proc)
                    pc = ins[1]
                elif op == REGION:
                    taken = ins[1](self, env)
                    if taken < 0:   # the region is not compiled: its instructions follow
                        pc += 1
                        continue
                    pc = ins[2]
                    budget -= taken
                    if budget <= 0:
                        self._runs_on(proc)
                elif op == LET:
                    env[ins[1]] = ins[2](self, env)
                    pc += 1
                elif op == FOR_NEXT:
                    items, i = env[ins[1]]
                    where = ins[3]
                    after = ins[4]  # past the loop, unless an item is left
                    while i < len(items):
                        env[ins[2]] = items[i]
                        i += 1
                        if where is None or where(self, env):
                            after = pc + 1
                            break
                    env[ins[1]] = (items, i)
                    pc = after
                else:
                    break
            else:
                stack.pop()
                if not stack:
                    self._finish(None, "the turn sequence ended")
                    return
                continue
            if op in _PAUSES:
                frame[1] = pc
                if self._pause(op, ins, env, proc):
                    return
                frame[1] = pc + 1
                continue
            frame[1] = pc + 1
            if op == CALL:
                target = self.machine.procs.get(ins[1])
                if target is None or target.pending is not None:
                    target = self.machine.proc(ins[1], ins[3], proc.rule)
                args = ins[2]
                params = target.params
                if len(args) != len(params) or len(stack) > 200:
                    self._bad_call(target, ins, proc)
                if len(args) == 1:
                    stack.append([target, 0, {params[0]: args[0](self, env)}])
                else:
                    stack.append([target, 0, {p: a(self, env)
                                              for p, a in zip(params, args, strict=True)}])
            elif op == FOR_INIT:
                domain = ins[2](self, env)
                if isinstance(domain, frozenset):
                    domain = _as_iterable(domain)
                env[ins[1]] = (tuple(domain), 0)
            elif op == RETURN:
                stack.pop()
                if not stack:
                    self._finish(None, "the turn sequence ended")
                    return
            elif self._rare(op, ins, frame, env, proc):
                return

    def _runs_on(self, proc: Proc) -> None:
        """The step budget is spent: the procedure never reaches a decision."""
        raise RulesRuntimeError(f"procedure {proc.name} runs on without reaching a decision",
                                proc.span, proc.rule)

    def _bad_call(self, target: Proc, ins: tuple[Any, ...], proc: Proc) -> None:
        """A call that cannot be made (``_run``): the wrong number of arguments, or
        procedures calling each other too deeply."""
        if len(ins[2]) != len(target.params):
            raise RulesRuntimeError(f"{target.name} takes {len(target.params)} "
                                    f"argument(s), not {len(ins[2])}", ins[3], proc.rule)
        raise RulesRuntimeError("procedures call each other too deeply", ins[3], proc.rule)

    def _pause(self, op: int, ins: tuple[Any, ...], env: dict[str, Any], proc: Proc) -> bool:
        """Reach a decision or a chance event (``_run``), the frame at its instruction.

        Returns False when the run goes on past it (a sealed choice that no
        player has left to make), True when it stops there.
        """
        if op == CHOOSE:
            self._check_live(ins[1], env, proc)
        elif op == SEALED:
            chooser = self._sealed_next(ins[1], env)
            if chooser is None:
                return False
            self._check_live(ins[1], env, proc, chooser)
        elif op == DRAW and not self._draw_pool(ins, self.stack[-1]):
            raise RulesRuntimeError("nothing to draw from", ins[3], proc.rule)
        return True

    def _rare(self, op: int, ins: tuple[Any, ...], frame: list[Any], env: dict[str, Any],
              proc: Proc) -> bool:
        """Run one of the instructions ``_run`` leaves to this method, the frame
        already past it; True when the run stops (the game ended)."""
        if op == SET_VAR:
            name = ins[1]
            value = ins[2](self, env)
            if name in env:
                env[name] = value
            elif name in self.values:
                self._write_value(name, value)
            else:
                raise RulesRuntimeError(f"'set {name}': no such variable or value",
                                        ins[3], proc.rule)
        elif op == SET_ATTR:
            self._set_attr(ins[1](self, env), ins[2], ins[3](self, env), ins[4], proc)
        elif op == PUT:
            self._put_op(ins[1](self, env), ins[2](self, env), ins[3], proc)
        elif op == DISPATCH:
            spec = ins[1]
            queue = env.get(spec.key, ())
            if not queue:
                env.pop(spec.key, None)
                frame[1] = spec.end
                return False
            (chooser, option, bound) = queue[0]
            env[spec.key] = queue[1:]
            env[spec.name] = chooser
            for name, value in bound:
                env[name] = value
            frame[1] = option.body
        elif op == LOG:
            self._log_line(ins, env)
        elif op == FINISH:
            winner = ins[1](self, env) if ins[1] is not None else None
            self._finish(winner, _render(ins[2], self, env),
                         {k: fn(self, env) for k, fn in ins[3]}, proc.rule)
            return True
        elif op == FAIL:
            raise RulesRuntimeError(ins[1], ins[2], proc.rule)
        elif op == REVEAL:
            self._reveal(ins[1](self, env), ins[2](self, env))
        elif op == PHASE:
            self.phase_index = ins[1]
            self._stamp(0)
        elif op == CALL_PHASE:
            phase = self.machine.phases[ins[1]]
            target = self.machine.compiled(self.machine.procs[phase.activity or ""])
            world = self.machine.world
            players = world.seats if phase.for_each_player else (world.player[phase.side],)
            for player in reversed(players):
                self.stack.append([target, 0, dict(zip(target.params, (player,), strict=False))])
        elif op == TURN_END:
            self.turn += 1
            self._stamp(0)
            frame[1] = ins[1]
            if self.turn_limit is not None and self.turn > self.turn_limit:
                self.turn = self.turn_limit
                self._finish(None, f"the turn limit ({self.turn_limit}) was reached")
                return True
        return False

    def _put_op(self, what: Any, where_to: Any, span: Any, proc: Proc) -> None:
        if where_to is not None and not isinstance(where_to, Place):
            raise RulesRuntimeError(f"cannot put pieces into {where_to!r}", span, proc.rule)
        for piece in (what if isinstance(what, (tuple, frozenset, list)) else (what,)):
            if not isinstance(piece, Piece):
                raise RulesRuntimeError(f"cannot put {piece!r}: not a piece", span, proc.rule)
            self._put(piece, where_to)

    def _reveal(self, pieces: Any, to: Any) -> None:
        pieces = pieces if isinstance(pieces, (tuple, frozenset)) else (pieces,)
        viewers = to if isinstance(to, (tuple, frozenset)) else (to,)
        self.revealed = self.revealed | {(p.index, v.index) for p in pieces for v in viewers}

    def _check_live(self, spec: ChoiceSpec, env: dict[str, Any], proc: Proc,
                    chooser: Any = None) -> None:
        """A decision with no legal action is a broken rulebook, named as such
        (``chooser``: who decides next in a sealed choice)."""
        use = env
        if spec.key:
            use = dict(env)
            use[spec.name] = chooser
        if self._lists:
            # The position the action started from had its legal actions listed,
            # so this one's will most likely be asked for too: list them all now,
            # once, rather than stop at the first and list them all again when asked.
            # (A listing that fails is left for when it is asked for: the test below
            # stops where it always did.)
            try:
                if any(self._listing(spec, use)):
                    return
            except CortesRulesError:
                pass
        ids: list[int] = []
        for option in spec.options:
            self._candidates(option, use, ids, True)
            if ids:
                return
        raise RulesRuntimeError(f"a choice in procedure {proc.name} has no legal action",
                                spec.span, proc.rule)

    def _set_attr(self, target: Any, name: str, value: Any, span: Any, proc: Proc) -> None:
        if isinstance(target, Piece) and name in self.piece_attrs:
            self._write_piece(name, target.index, value)
        elif isinstance(target, Place) and name in self.place_attrs:
            self._write_place(name, target.index, value)
        elif isinstance(target, Player) and name in self.player_attrs:
            self.player_attrs[name][target.index] = value
            self._stamp(0)
        else:
            raise RulesRuntimeError(f"cannot set {format_value(target)}.{name}: not a declared "
                                    "attribute", span, proc.rule)

    def _log_line(self, ins: tuple[Any, ...], env: dict[str, Any]) -> None:
        values = tuple([p(self, env) for p in ins[1] if not isinstance(p, str)])
        cited = ins[2](self, env) if ins[2] is not None else None
        self._log_values(ins[1], values, cited,
                         ins[3](self, env) if ins[3] is not None else EVERYONE)

    def _log_values(self, parts: tuple[Any, ...], values: tuple[Any, ...], cited: Any,
                    to: Any) -> None:
        """Add a log line: its template, the values of its fields, the rules it cites and
        (``to``, or EVERYONE) who may read it."""
        audience = None
        if to is not EVERYONE:
            to = to if isinstance(to, (tuple, frozenset, list)) else (to,)
            audience = frozenset(str(p) for p in to)
        if self.machine.hides:
            audience = self._without_blind_readers(values, audience)
        entry = LogEntry.later(self.turn, self.phase_label if self.machine.phases else "",
                               parts, values, cited, audience)
        self._log = (entry, self._log)

    def _without_blind_readers(self, values: tuple[Any, ...],
                               audience: frozenset[str] | None) -> frozenset[str] | None:
        """The audience of a log line, less every player from whom a piece it names is hidden.

        A line that names a hidden piece would tell the player what the
        visibility rules keep from him; he does not see the line at all.
        """
        named = _pieces_named(values, [])
        if not named:
            return audience
        rows = self.machine.hides.by_viewer()
        held = self._held
        players = self.machine.world.players
        readers = []
        for viewer in players:
            if audience is not None and viewer.name not in audience:
                continue
            row = rows[viewer.index]
            for piece in named:
                applying = row[piece.index]
                if applying and held(piece, viewer, applying):
                    break
            else:
                readers.append(viewer.name)
        if audience is None and len(readers) == len(players):
            return None
        return frozenset(readers)

    def _finish(self, winner: Any, reason: str, details: Mapping[str, Any] | None = None,
                rule: str | None = None) -> None:
        if winner is None:
            winners: tuple[str, ...] = ()
        elif isinstance(winner, (tuple, frozenset, list)):
            winners = tuple(str(w) for w in sorted(winner, key=_order_key))
        else:
            winners = (str(winner),)
        scores = {}
        if "score" in self.player_attrs:
            scores = {p.name: self.player_attrs["score"][p.index]
                      for p in self.machine.world.seats}
        self.result = Outcome(winners, reason, scores,
                              {k: _plain(v) for k, v in (details or {}).items()},
                              rule or self.machine.sequence_rule or None)
        self.terminal = True

    def _check_endings(self) -> None:
        """End the game if a ``finish when`` condition holds (before a decision is offered)."""
        if self.terminal:
            return
        for (when, winner, parts, report), rule in zip(self.machine.endings,
                                                       self.machine.ending_rules, strict=True):
            if when(self, {}):
                self._finish(winner(self, {}) if winner is not None else None,
                             _render(parts, self, {}),
                             {k: fn(self, {}) for k, fn in report}, rule)
                return

    # ------------------------------------------------------------ visibility
    def hidden_from(self, piece: Piece, viewer: Player) -> bool:
        """Whether a piece (an engine object) is hidden from a player."""
        return self._held_by(piece, viewer, self.machine.hides)

    def attribute_hidden_from(self, player: Player, name: str, viewer: Player) -> bool:
        """Whether a ``hide player NAME when C`` clause keeps ``player``'s attribute
        ``name`` from ``viewer``."""
        hides = self.machine.attribute_hides.get(name)
        if not hides:
            return False
        env = {"player": player, "viewer": viewer}
        return any(h(self, env) for h in hides)

    def place_hidden_from(self, piece: Piece, viewer: Player) -> bool:
        """Whether where ``piece`` is, not only what it is, is kept from ``viewer``."""
        return self._held_by(piece, viewer, self.machine.place_hides)

    def _held_by(self, piece: Piece, viewer: Player, hides: HideClauses) -> bool:
        """Whether one of ``hides`` keeps ``piece`` from ``viewer`` (unless revealed)."""
        applying = hides.applying(piece, viewer)
        return bool(applying) and self._held(piece, viewer, applying)

    def _held(self, piece: Piece, viewer: Player, applying: tuple[Fn, ...]) -> bool:
        """Whether one of the clauses ``applying`` to the pair keeps ``piece`` from
        ``viewer`` (unless revealed)."""
        if (piece.index, viewer.index) in self.revealed:
            return False
        env = {"piece": piece, "viewer": viewer}
        for hide in applying:
            if hide(self, env):
                return True
        return False

    def observation(self, player: str) -> Observation:
        """What one player may see now, typed (``cortes_rules.engine.observation``).

        Visible pieces by id with their place and, apart, what their counter
        prints (``printed``), what they show on the table (``shown``: the
        attributes the rulebook marks ``shown``, a unit's steps) and the rules'
        bookkeeping on them (``bookkeeping``: the other declared attributes);
        hidden ones only as counts per place (or ``"unknown"`` where their
        place is hidden too); the players' attributes the ``hide player``
        clauses leave him; the game values; and the log lines he may read that
        name no piece hidden from him now. Values are ints, bools, ids and
        names, texts and lists (``Observation``'s docstring). Wherever a value
        names a piece hidden from him (a list of units held in a game value,
        say), that piece shows as ``"?"``. A line he read when it was written
        but that names a piece hidden since (a unit that has moved under a
        stack) is left out here: it is part of what he knows,
        ``information_state()``, not of what he sees.

        Raises:
            UnknownNameError: no player of that name.
        """
        world = self.machine.world
        viewer = self._viewer(player)
        printed, shown = _seen_parts(self.machine)
        pieces: dict[str, PieceView] = {}
        hidden: dict[str, int] = {}
        unseen: set[Piece] = set()
        if self.machine.hides:
            unseen.update(p for p in world.pieces if self.hidden_from(p, viewer))
        attrs = self.piece_attrs.items()
        for piece in world.pieces:
            place = self.where[piece.index]
            if piece in unseen:
                key = place.id if place is not None else "off"
                if self.machine.place_hides and self.place_hidden_from(piece, viewer):
                    key = "unknown"
                hidden[key] = hidden.get(key, 0) + 1
                continue
            index = piece.index
            on_table: dict[str, Value] = {}
            kept: dict[str, Value] = {}
            for name, values in attrs:
                (on_table if name in shown else kept)[name] = _observed(values[index], unseen)
            pieces[piece.id] = {"place": place.id if place is not None else None,
                                "printed": printed(piece), "shown": on_table,
                                "bookkeeping": kept}
        return {
            "turn": self.turn, "phase": self.phase, "to_act": self.current_player,
            "pieces": pieces, "hidden": hidden,
            "players": {p.name: {n: _observed(v[p.index], unseen)
                                 for n, v in self.player_attrs.items()
                                 if not self.attribute_hidden_from(p, n, viewer)}
                        for p in world.players},
            "values": {n: _observed(v, unseen) for n, v in self.values.items()},
            "log": [str(e) for e in self.log
                    if e.visible_to(player) and not _names_any(e, unseen)],
        }

    def __str__(self) -> str:
        player = self.current_player or "nobody (game over)"
        lines = [f"turn {self.turn}, {self.phase_label}; to act: {player}"]
        for index in sorted(self.occupants):
            place = self.machine.world.places[index]
            lines.append(f"  {place.id}: {' '.join(p.id for p in self.occupants[index])}")
        return "\n".join(lines)


# What ``GameState._reasons()`` finds, worded only once an action is refused: a
# forbid clause that holds, and an action outside an option's domains or ``where``.
_FORBID = "forbid"
_OUTSIDE = "outside"

DECIDER = object()
"""Words a refusal for whoever decides now (``GameState._reasons(viewer=DECIDER)``)."""


def _nothing_secret(value: Any) -> bool:
    return False


def _no_secret_attribute(owner: Any, name: str) -> bool:
    return False


def _reads(node: Any, attribute: str) -> bool:
    """Whether an expression reads ``x.attribute`` anywhere."""
    if isinstance(node, ir.Attr) and node.name == attribute:
        return True
    if isinstance(node, tuple):
        return any(_reads(x, attribute) for x in node)
    if hasattr(type(node), "__attrs_attrs__"):
        return any(_reads(getattr(node, f.name), attribute)
                   for f in type(node).__attrs_attrs__ if f.name != "span")
    return False


def _seen_parts(machine: Machine) -> tuple[Any, frozenset[str]]:
    """What ``observation()`` needs of a rulebook, worked out once and kept on it: each
    piece's printed counter, and the names of the piece attributes marked ``shown``."""
    found = getattr(machine, "_observation_parts", None)
    if found is None:
        found = (_printed_of(machine.world), _shown_attributes(machine.program))
        setattr(machine, "_observation_parts", found)   # noqa: B010 - kept on first use
    return found


def _shown(value: Any, unseen: set[Piece]) -> str:
    """A value as ``format_value`` writes it for a refusal's fact, each piece of
    ``unseen`` written ``?``."""
    if not unseen:
        return format_value(value)
    if type(value) is Piece:
        return "?" if value in unseen else format_value(value)
    if isinstance(value, (tuple, list)):
        return ", ".join(_shown(v, unseen) for v in value)
    if isinstance(value, frozenset):
        return ", ".join(_shown(v, unseen) for v in sorted(value, key=_order_key))
    if isinstance(value, NamedText) and any(p in unseen for p in value.pieces):
        return "?"
    return format_value(value)


def _names_any(entry: LogEntry, unseen: set[Piece]) -> bool:
    """Whether a log line names one of the pieces ``unseen``."""
    return bool(unseen) and any(p in unseen for p in entry.named_pieces())


def _text(kind: Kind, values: tuple[Any, ...]) -> str:
    return " ".join((kind.name, *(format_value(v) for v in values)))


# Initial values that are the same whatever they belong to.
_LITERALS = (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit)


def _zero(type_ref: ir.TypeRef) -> Any:
    return {"int": 0, "bool": False, "list": (), "set": frozenset()}.get(type_ref.name)


# A piece's index, as a sort key read in C (the occupants of a place are kept in
# index order).
_piece_index = attrgetter("index")

