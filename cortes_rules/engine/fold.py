"""Forbid clauses that read only static data, folded into tables when a rulebook loads.

A clause such as "no unit enters a hex of this terrain" or "this class of
unit never moves" depends on the action's pieces and places and on nothing
that changes during a game. Such a clause has the same answer for the same
arguments in every position, so it can be worked out once, for every piece
or place it could name, and read from a table afterwards: the native
option enumeration skips a statically forbidden candidate without
evaluating anything (docs/design.md, "The compiled core").

A clause is folded when:

- no permit clause can lift it (a permit may read the state);
- its condition is pure (``Purity``: no declared attribute, position, value,
  turn or roll is read, through any function, hook or derived attribute);
- every name it reads is a piece or place parameter of its action, one or
  two of them;
- it gives a yes or no answer for every combination of those parameters
  (a clause that fails to evaluate for some combination stays with the
  interpreter, which reports the failure where it happens).

Nothing here knows a game: the clauses, kinds and parameters come from the
rulebook.
"""

from __future__ import annotations

import bisect
import itertools
from array import array
from typing import Any

import attrs

from ..core.world import Piece, Place
from ..dsl import ir
from ..errors import CortesRulesError
from .bytecode import INEXACT, UNSET, number_cell
from .codegen import Purity
from .machine import GameState, Machine
from .domains import _replace
from .piece_reads import PieceReads, profile
from .tables import Tables

MAX_CASES = 250_000
"""A clause over more parameter combinations than this is not folded."""


@attrs.frozen
class FoldedClause:
    """One forbid clause worked out for every combination of the parameters it reads.

    Attributes:
        action: the action kind the clause forbids.
        rule: the rule number of the clause.
        position: where the clause stands among the kind's forbid clauses.
        params: the names of the parameters it reads, in the kind's order.
        domains: the pieces or places each of those parameters ranges over
            (the kind's own domains, as its action ids number them).
        forbidden: one flag per combination, row-major over ``params``
            (a combination's index is the mixed-radix number of its values'
            positions in ``domains``).
    """

    action: str
    rule: str
    position: int
    params: tuple[str, ...]
    domains: tuple[tuple[Any, ...], ...] = attrs.field(repr=False)
    forbidden: bytes = attrs.field(repr=False)

    def forbids(self, *values: Any) -> bool:
        """Whether the clause forbids this combination of pieces or places (one per param)."""
        at = 0
        for value, domain in zip(values, self.domains, strict=True):
            at = at * len(domain) + domain.index(value)
        return bool(self.forbidden[at])


def fold(machine: Machine) -> dict[str, tuple[FoldedClause, ...]]:
    """The foldable forbid clauses of every action kind of a machine, worked out.

    The clauses run on the starting values of a state that has not begun
    (a pure clause reads nothing of it; the interpreter's functions take one).
    """
    state = GameState(machine, seed=0, begin=False)
    purity = machine.fast.purity
    found: dict[str, tuple[FoldedClause, ...]] = {}
    for action, clauses in machine.forbids.items():
        kind = machine.space.kinds.get(action)
        if kind is None:
            continue
        domains = {name: domain for (name, _), domain in zip(kind.params, kind.domains,
                                                          strict=True)
                   if domain and all(type(v) in (Piece, Place) for v in domain)}
        folded = []
        for position, (rule, cond, permits, decl) in enumerate(clauses):
            if permits:
                continue
            params = _params_read(decl, [name for name, _ in kind.params], domains, purity)
            if params is None:
                continue
            cases = 1
            for p in params:
                cases *= len(domains[p])
            if cases > MAX_CASES:
                continue
            chosen = tuple(domains[p] for p in params)
            flags = _evaluate(cond, state, params, chosen)
            if flags is not None:
                folded.append(FoldedClause(action, rule, position, params, chosen, flags))
        if folded:
            found[action] = tuple(folded)
    return found


def _params_read(decl: ir.Forbid, params: list[str], foldable: dict[str, Any], purity: Any
                 ) -> tuple[str, ...] | None:
    """The piece and place parameters a pure clause reads, in the kind's order; else None."""
    pure, names = purity.scan(decl.when, frozenset(params))
    if not pure or not names or len(names) > 2 or not names <= foldable.keys():
        return None
    return tuple(p for p in params if p in names)


def _evaluate(cond: Any, state: Any, params: tuple[str, ...],
              domains: tuple[tuple[Any, ...], ...]) -> bytes | None:
    flags = bytearray()
    env: dict[str, Any] = {}
    for values in itertools.product(*domains):
        env.update(zip(params, values, strict=True))
        try:
            answer = cond(state, env)
        except Exception:  # noqa: BLE001 - any failure: the interpreter keeps the clause
            return None
        if type(answer) is not bool:
            return None
        flags.append(answer)
    return bytes(flags)


# ---------------------------------------------------------------- bindings along an edge

class EdgeBindings:
    """An option's bindings that depend only on the move along one edge of the board.

    An option of the shape ``option k(p in ..., q in neighbours(p.place))``
    names a piece and one of the places next to it: a move along an edge
    (from the piece's place to ``q``). A binding that reads only ``p``, ``q``,
    the place ``p`` leaves, the hexside crossed and static data (the
    movement cost of ``with_rules(move_cost_of())``, through its hook, is
    one) has one value per (piece, edge), whatever else the position holds.
    This class works such values out when first asked, with the
    interpreter's own functions, and keeps them: the native enumeration of
    the option reads them (``column()``) instead of evaluating the hook.

    Pieces that the bindings read alike (``piece_reads``: the same side,
    printed values and tags among those read) share one profile and one
    value per edge; a binding that uses the piece as more than that (compares
    it, stores it, reads a declared attribute of it) gives every piece a
    profile of its own.

    ``names`` are the bindings found to depend only on the edge; ``value()``
    gives one of them for a piece and an edge.
    """

    def __init__(self, machine: Machine, option: Any) -> None:
        self.machine = machine
        self.option = option
        self.names: tuple[str, ...] = ()
        self.numbers: tuple[str, ...] = ()
        """The names that are values rather than the place left or the hexside crossed:
        the ones the clause bytecode reads from columns (``EDGE_VALUE``)."""
        self._values: dict[tuple[str, int, int, int], Any] = {}
        """Values by (name, profile, place left, place entered); failures by piece."""
        self._failures: dict[tuple[str, int, int, int], _Failed] = {}
        self.profile_of = array("q")
        """Each piece's profile: pieces of one profile have the same values."""
        self.profiles = 0
        self._members: list[list[int]] = []
        self._columns: dict[str, array[int]] = {}
        self._scratch: GameState | None = None
        decl: ir.Option | None = option.decl
        if decl is None or len(decl.params) != 2:
            return
        piece, place = decl.params[0].name, decl.params[1].name
        domain = decl.params[1].domain
        if not (isinstance(domain, ir.Call) and domain.func == "neighbours"
                and domain.binder is None and len(domain.args) == 1
                and _is_place_of(domain.args[0], piece)):
            return
        variables = machine.variables
        values = machine.compiler.values
        # A purity scanner of its own: its memo is keyed by node identity, and
        # the rewritten expressions below are temporary.
        purity = Purity(machine.fast)
        bound = {piece, place, _FROM}
        found: list[str] = []
        numbers: list[str] = []
        for name, expr in decl.bindings:
            if name in (piece, place):
                break      # a binding hiding a parameter: leave the option alone
            pure, names = purity.scan(_leaving(expr, piece), frozenset(bound))
            outside = names - bound
            if pure and not any(n in variables or n in values for n in outside):
                bound.add(name)
                found.append(name)
                if not (_is_place_of(expr, piece) or isinstance(expr, ir.Call)
                        and expr.func == "hexside"):
                    numbers.append(name)
        self.names = tuple(found)
        self.numbers = tuple(numbers)
        self.piece_param, self.place_param = piece, place
        # Pieces that read alike share their values (``piece_reads``): in
        # Cortés the cost reads only the unit's side, so a few profiles stand
        # for every unit.
        scan = PieceReads(machine.fast)
        reads: set[str] | None = set()
        for name, expr in decl.bindings:
            if name not in found:
                continue
            got = scan.of(_leaving(expr, piece), frozenset((piece,)))
            if got is None or reads is None:
                reads = None
                break
            reads |= got
        if reads is not None:
            keys: dict[tuple[Any, ...], int] = {}
            self.profile_of = array("q", (
                keys.setdefault(profile(p, frozenset(reads)), len(keys))
                for p in machine.world.pieces))
            self.profiles = len(keys)
        else:
            self.profile_of = array("q", range(len(machine.world.pieces)))
            self.profiles = len(machine.world.pieces)
        self._members = [[] for _ in range(self.profiles)]
        for index, row in enumerate(self.profile_of):
            self._members[row].append(index)

    def value(self, name: str, piece: int, here: int, there: int) -> Any:
        """Binding ``name`` for the piece moving from place ``here`` to place ``there``.

        Raises the interpreter's error where it cannot evaluate the binding
        (or one it reads) for this move.
        """
        key = (name, self.profile_of[piece], here, there)
        if key not in self._values:
            failed = self._failures.get((name, piece, here, there))
            if failed is not None:
                raise failed.error
            self._work_out(piece, here, there)
            if key not in self._values:
                raise self._failures[(name, piece, here, there)].error
        return self._values[key]

    def _work_out(self, piece: int, here: int, there: int) -> None:
        """Evaluate the bindings for one move: values kept for the piece's profile, a
        failure for the piece alone (its message names this piece)."""
        world = self.machine.world
        if self._scratch is None:
            self._scratch = GameState(self.machine, seed=0, begin=False)
        scratch = self._scratch
        unit, start, end = world.pieces[piece], world.places[here], world.places[there]
        row = self.profile_of[piece]
        scratch._put(unit, start)
        env: dict[str, Any] = {self.piece_param: unit, self.place_param: end}
        wanted = [name for name, _ in self.option.bindings if name in self.names]
        binder = self.option.binder
        if binder is not None and [p for p, _ in self.option.params] == \
                [self.piece_param, self.place_param]:
            # The generated binder first (about twice as fast); the
            # interpreter's own functions below when it cannot.
            try:
                found = binder(scratch, {}, (unit, end))
            except Exception:   # noqa: BLE001 - the reference below decides
                found = None
            if found is not None:
                for (name, _), value in zip(self.option.bindings, found, strict=True):
                    if name in self.names:
                        self._values[(name, row, here, there)] = value
                scratch._put(unit, None)
                return
        try:
            for name, fn in self.option.bindings:
                if name in wanted:
                    env[name] = fn(scratch, env)
                    self._values[(name, row, here, there)] = env[name]
        except CortesRulesError as error:
            # This binding and the ones after it fail, as in the interpreter.
            for later in wanted[wanted.index(name):]:
                self._failures[(later, piece, here, there)] = _Failed(error)
        finally:
            scratch._put(unit, None)

    def column(self, name: str, tables: Tables) -> array[int]:
        """One int64 cell per (piece, edge of ``tables``): the binding as
        ``bytecode.number_cell()`` encodes it, ``UNSET`` until asked (``fill()``)."""
        column = self._columns.get(name)
        if column is None:
            column = self._columns[name] = array("q", [UNSET]) * (
                tables.n_pieces * len(tables.neighbours))
        return column

    def fill(self, name: str, tables: Tables, piece: int, edge: int) -> int:
        """Work out one cell of ``column(name)`` and return it; the cells of every piece
        of the same profile along that edge are written with it."""
        column = self.column(name, tables)
        n_edges = len(tables.neighbours)
        at = piece * n_edges + edge
        if column[at] == UNSET:
            here = _edge_source(tables, edge)
            try:
                cell = number_cell(self.value(name, piece, here, tables.neighbours[edge]))
            except CortesRulesError:
                cell = INEXACT   # the interpreter fails here too, in its own time
            for member in self._members[self.profile_of[piece]]:
                column[member * n_edges + edge] = cell
        return int(column[at])


@attrs.frozen
class _Failed:
    """A binding the interpreter cannot evaluate for one move, with its error."""

    error: CortesRulesError


def reads_only_place(machine: Machine, expr: ir.Expr, piece: str) -> bool:
    """Whether ``expr`` reads nothing that changes during a game but the place of the
    piece named ``piece``: its value is then the same for the same piece in the same
    place, whatever else the position holds. (Calls of functions given names are
    expanded first, so that the place read inside them is seen as such; a call left
    as it is is judged by ``Purity``, which follows it into the function.)"""
    bound = frozenset((piece, _FROM))
    expanded = _expanded(expr, machine.compiler.functions, 0)
    pure, names = Purity(machine.fast).scan(_leaving(expanded, piece), bound)
    variables = machine.variables
    return pure and not any(n in variables or n in machine.compiler.values
                            for n in names - bound)


def _expanded(expr: Any, functions: Any, depth: int) -> Any:
    """``expr`` with each call of a rulebook function given names or literals replaced
    by the function's body, its parameters read as the arguments (a call nested too
    deeply, or whose body has a binder that would capture a name, is kept)."""
    if isinstance(expr, ir.Call) and expr.binder is None and expr.func in functions \
            and depth < 16:
        function = functions[expr.func]
        if len(expr.args) == len(function.params) and all(
                isinstance(a, (ir.Name, ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit))
                for a in expr.args):
            body = _replace(function.body, dict(zip(function.params, expr.args, strict=True)))
            if body is not None:
                return _expanded(body, functions, depth + 1)
    if isinstance(expr, (tuple, list)):
        return type(expr)(_expanded(e, functions, depth) for e in expr)
    if not attrs.has(type(expr)):
        return expr
    changes = {}
    for field in attrs.fields(type(expr)):
        old = getattr(expr, field.name)
        new = _expanded(old, functions, depth)
        if new is not old:
            changes[field.name] = new
    return attrs.evolve(expr, **changes) if changes else expr


def _is_place_of(node: ir.Expr, piece: str) -> bool:
    return (isinstance(node, ir.Attr) and node.name == "place"
            and isinstance(node.obj, ir.Name) and node.obj.id == piece)


def _leaving(expr: Any, piece: str) -> Any:
    """``expr`` with ``piece.place`` read as a name (the place left, fixed by the edge)."""
    if _is_place_of(expr, piece):
        return ir.Name(_FROM, expr.span)
    if isinstance(expr, (tuple, list)):
        return type(expr)(_leaving(e, piece) for e in expr)
    if not attrs.has(type(expr)):
        return expr
    changes = {}
    for field in attrs.fields(type(expr)):
        old = getattr(expr, field.name)
        new = _leaving(old, piece)
        if new is not old:
            changes[field.name] = new
    return attrs.evolve(expr, **changes) if changes else expr


def _edge_source(tables: Tables, edge: int) -> int:
    """The place an edge of the neighbour rows leaves from."""
    return bisect.bisect_right(tables.neighbour_start, edge) - 1


_FROM = " the place left"     # not a name a rulebook can write
