"""The compiled backend's native state and its native enumeration of moves along edges.

With the compiled core (``cortes_rules._core``), each game state carries a
``NativeState`` kept in step with the interpreter's on every write: the
``Board`` (where each piece is, the counts of each place) and the declared
attributes as integer columns (``bytecode.Columns``). An option of the shape
``k(p in ..., q in neighbours(p.place))`` whose ``where`` clause, forbid
clauses and permits all compile to bytecode (``bytecode.compile_option``,
with the bindings folded along edges by ``fold.EdgeBindings``) is then
enumerated by ``_core.ClauseMachine.enumerate_edges``: the candidates, in the
interpreter's order, with no Python object in the loop. Options over two
pieces or places (``NativePairs``) are tested pair by pair by
``enumerate_pairs``; a first domain that filters all the pieces is listed
by ``ClauseMachine.filter_pieces`` (engine/domains.py).

The interpreter stays the specification: whenever a clause answers
``UNKNOWN`` (the interpreter's clause would fail, or reads a value that is no
integer), whenever the rules are being traced (``with_rules``), and for
every option that does not compile, the generated enumerator runs instead.
The differential tests require the same legal-action ids on both backends
at every step (tests/backends/test_differential.py).
"""

from __future__ import annotations

from array import array
from collections.abc import Sequence
from operator import attrgetter
from typing import Any

import attrs

from ..core.world import Piece, Place
from ..dsl import ir
from . import bytecode as bc
from .board import NONE
from .compile import _as_iterable
from .domains import TYPES, PieceDomain, free_names
from . import fold
from .fold import EdgeBindings
from .tables import Tables, lower

_index = attrgetter("index")


_MOVING = frozenset({bc.PIECE_ATTR, bc.PLACE_ATTR, bc.COUNT, bc.OWNED, bc.OTHERS, bc.RIVALS,
                     bc.VALUE, bc.ALL_TAG, bc.ANY_TAG, bc.QUANTIFY, bc.ASK})


def _static(code: bc.Code) -> bool:
    """Whether a clause reads nothing that a move along an edge does not fix: no attribute,
    count or game value, and the place of no piece but the one moving (parameter 0)."""
    ops = code.ops
    for i in range(0, len(ops), 2):
        op = ops[i]
        if op in _MOVING:
            return False
        if op == bc.WHERE and (i < 2 or (ops[i - 2], ops[i - 1]) != (bc.PARAM, 0)):
            return False
    return True


class NativeState:
    """The native part of one game state: its board and its attribute columns."""

    __slots__ = ("board", "pieces", "places")

    def __init__(self, board: Any, pieces: array[int], places: array[int]) -> None:
        self.board, self.pieces, self.places = board, pieces, places

    def copy(self) -> NativeState:
        return NativeState(self.board.clone(), self.pieces[:], self.places[:])


class NativeSupport:
    """One rulebook's native tables, clause machine and compiled options (compiled backend)."""

    def __init__(self, machine: Any, core: Any) -> None:
        self.machine = machine
        self.core = core
        self.tables: Tables = lower(machine.world)
        self.columns = bc.Columns.of(machine.program)
        self.piece_column = {n: (i, t) for i, (n, t) in enumerate(self.columns.piece)}
        self.place_column = {n: (i, t) for i, (n, t) in enumerate(self.columns.place)}
        self.clauses = core.ClauseMachine(self.tables)
        self.compiler = bc.ClauseCompiler(machine, self.tables, self.columns)
        self.n_pieces, self.n_places = self.tables.n_pieces, self.tables.n_places
        self._options: dict[int, NativeOption | NativePairs | NativeItems | None] = {}

    def state_of(self, state: Any) -> NativeState:
        """A native state built from an interpreter's state."""
        tables = self.tables
        board = self.core.Board(tables.piece_side, tables.n_places, len(tables.player_names))
        for index, place in enumerate(state.where):
            if place is not None:
                board.put(index, place.index)
        pieces, places = self.columns.values(state)
        return NativeState(board, pieces, places)

    def option(self, spec: Any) -> NativeOption | NativePairs | NativeItems | None:
        """The native enumeration of an option, or None when it does not compile."""
        key = id(spec)
        if key not in self._options:
            self._options[key] = NativeOption.build(self, spec) \
                or NativePairs.build(self, spec) or NativeItems.build(self, spec)
        return self._options[key]


class NativeOption:
    """An option along edges, compiled: ``run()`` lists its candidates natively."""

    def __init__(self, support: NativeSupport, spec: Any, edges: EdgeBindings,
                 where: bc.Code | None, clauses: list[tuple[bc.Code, list[bc.Code]]],
                 domain: Any, tests: tuple[Any, Any] | None = None) -> None:
        self.support, self.spec, self.edges, self.domain = support, spec, edges, domain
        # The generated code of the where and forbid clauses, when some part of them
        # stayed outside the bytecode (ASK): it decides the candidates that reach it.
        self.tests = tests
        # The first domain listed natively, when it is a filtered list of all the pieces.
        self.pieces = PieceDomain.build(support, spec.decl.params[0].domain)
        tables = support.tables
        kind = support.machine.space.kinds[spec.kind]
        self.values, self.program, self.layout = _lay_out(where, clauses, _static)
        # What the static clauses decided, per (piece, edge): -1 not yet.
        self.settled = array("b", [-1]) * (tables.n_pieces * len(tables.neighbours))
        self.piece_pos = _positions(kind, 0, Piece, tables.n_pieces)
        self.place_pos = _positions(kind, 1, Place, tables.n_places)
        self.base = kind.base
        self.width = len(kind.domains[1])
        numbers = edges.numbers

        def fill(which: int, piece: int, edge: int) -> int:
            return edges.fill(numbers[which], tables, piece, edge)
        self.edge_columns = bc.EdgeColumns(tuple(edges.column(n, tables) for n in numbers), fill)

    @classmethod
    def build(cls, support: NativeSupport, spec: Any) -> NativeOption | None:
        machine = support.machine
        decl: ir.Option | None = spec.decl
        kind = machine.space.kinds.get(spec.kind)
        if decl is None or kind is None or len(kind.params) != 2 or len(decl.params) != 2:
            return None
        edges = EdgeBindings(machine, spec)
        if not edges.names or (edges.piece_param, edges.place_param) != \
                tuple(name for name, _ in kind.params):
            return None
        if {name for name, _ in decl.bindings} - set(edges.names):
            return None     # a binding that could fail unseen: the interpreter lists them
        compiled = cls._compiled(support, spec, edges, partial=False) \
            or cls._compiled(support, spec, edges, partial=True)
        if compiled is None:
            return None
        where, clauses = compiled
        tests = None
        if any(bc.ASK in code.ops[0::2] for code in _codes(where, clauses)):
            forbids = tuple((machine.fast_expr(forbid.when, rule),
                             tuple(machine.fast_expr(p.when, p.rule)
                                   for p in machine.program.of(ir.Permit)
                                   if p.action == spec.kind and p.despite == rule))
                            for rule, _, _, forbid in machine.forbids.get(spec.kind, ()))
            tests = (machine.fast_expr(decl.where, "") if decl.where is not None else None,
                     forbids)
        domain = machine.fast_expr(decl.params[0].domain, "")
        return cls(support, spec, edges, where, clauses, domain, tests)

    @staticmethod
    def _compiled(support: NativeSupport, spec: Any, edges: EdgeBindings, *, partial: bool
                  ) -> tuple[bc.Code | None, list[tuple[bc.Code, list[bc.Code]]]] | None:
        """The option's where, forbid clauses and permits as bytecode, or None when one does
        not compile; ``partial`` lets a term outside the bytecode become ``ASK``."""
        machine, decl = support.machine, spec.decl
        kind = machine.space.kinds[spec.kind]
        compiler, numbers = support.compiler, edges.numbers
        params = [(name, bc.param_type(t)) for name, t in kind.params]
        where = None
        if decl.where is not None:
            where = compiler.compile("", decl.where, params, decl.bindings, numbers,
                                     partial=partial)
            if where is None:
                return None
        clauses = []
        for rule, _, permits, forbid in machine.forbids.get(spec.kind, ()):
            clause = compiler.compile(rule, forbid.when, params, decl.bindings, numbers,
                                      partial=partial)
            lifts = [compiler.compile(p.rule, p.when, params, decl.bindings, numbers,
                                      partial=partial)
                     for p in machine.program.of(ir.Permit)
                     if p.action == spec.kind and p.despite == rule]
            if clause is None or len(lifts) != len(permits) or None in lifts:
                return None
            clauses.append((clause, [p for p in lifts if p is not None]))
        return where, clauses

    def run(self, s: Any, env: dict[str, Any], out: list[int], stop: bool) -> bool:
        """Append the option's candidates to ``out``; False (``out`` as it was) when the
        interpreter must list them instead."""
        if s.drawn is not None:
            return False
        indices = self.pieces.indices(s, env) if self.pieces is not None else None
        if indices is None:
            indices = []
            for unit in self.domain(s, env):
                if type(unit) is not Piece:
                    return False
                indices.append(unit.index)
        native = s.native
        values = bc.value_cells(self.values, s) if self.values else ()
        world = self.support.machine.world
        names = tuple(p.name for p in self.spec.decl.params)
        ask = _asker(self.tests, names, self.spec.bindings, (world.pieces, world.places), s, env) \
            if self.tests is not None else None
        return _into(out, lambda: self.support.clauses.enumerate_edges(
            indices, native.board, native.pieces, native.places, values,
            self.edge_columns, self.program, self.layout, self.settled, self.piece_pos,
            self.place_pos, self.base, self.width, out, stop, ask))


def _codes(where: bc.Code | None, clauses: list[tuple[bc.Code, list[bc.Code]]]
           ) -> list[bc.Code]:
    return ([where] if where is not None else []) + \
        [c for clause, permits in clauses for c in (clause, *permits)]


def _asker(tests: tuple[Any, Any], names: tuple[str, str], bindings: Any,
           objects: tuple[Any, Any], s: Any, env: dict[str, Any]) -> Any:
    """The generated code's test of one candidate pair by the indices of its two
    parameters' values (``objects``), as ``_reference_candidates`` runs it: for the
    candidates the bytecode leaves to it."""
    where, forbids = tests
    first_name, second_name = names
    first_objects, second_objects = objects

    def ask(a: int, b: int) -> bool:
        pair = dict(env)
        pair[first_name] = first_objects[a]
        pair[second_name] = second_objects[b]
        for name, fn in bindings:
            pair[name] = fn(s, pair)
        if where is not None and not where(s, pair):
            return False
        return not any(cond(s, pair) and not any(p(s, pair) for p in permits)
                       for cond, permits in forbids)
    return ask


class NativePairs:
    """An option over a piece or place and another, compiled: ``run()`` lists them natively.

    For ``option k(a in A, b in B) where W``, with bindings that cannot fail
    (``from = unit.place``): the domains are evaluated by the generated code
    (``B`` once per value of ``a`` when it reads ``a``, as Cortés ``sail``
    does; ``A`` natively when it filters all the pieces, engine/domains.py),
    then ``ClauseMachine.enumerate_pairs``
    tests ``W`` and the kind's forbid clauses, compiled partially
    (``ClauseCompiler.compile(partial=True)``), for every pair. A pair that
    reaches a part outside the bytecode (``ASK``) is decided, for that pair
    alone, by the generated code of the option's ``where`` and forbid clauses
    and their permits (which fall back on the interpreter's where they cannot
    run).
    """

    def __init__(self, support: NativeSupport, spec: Any, types: tuple[Any, Any],
                 where: bc.Code | None, clauses: list[tuple[bc.Code, list[bc.Code]]],
                 domains: tuple[Any, Any], tests: tuple[Any, Any], dependent: bool) -> None:
        self.support, self.spec, self.types = support, spec, types
        self.domains, self.tests, self.dependent = domains, tests, dependent
        # The first domain listed natively, when it is a filtered list of all the pieces.
        self.pieces = PieceDomain.build(support, spec.decl.params[0].domain) \
            if types[0] is Piece else None
        machine = support.machine
        kind = machine.space.kinds[spec.kind]
        self.values, self.program, self.layout = _lay_out(where, clauses, lambda code: False)
        sizes = (support.n_pieces, support.n_places)
        self.first_pos = _positions(kind, 0, types[0], sizes[types[0] is Place])
        self.second_pos = _positions(kind, 1, types[1], sizes[types[1] is Place])
        self.base, self.width = kind.base, len(kind.domains[1])
        world = machine.world
        self.objects = tuple(world.places if t is Place else world.pieces for t in types)
        self.names = tuple(name for name, _ in kind.params)
        # A second domain that reads of the position only the first piece's place
        # (fold.reads_only_place): its lists by (piece, place), kept for the game's
        # rulebook, the same in every position.
        self.by_place: dict[tuple[int, int], Any] | None = None
        if dependent and types[0] is Piece and fold.reads_only_place(
                machine, spec.decl.params[1].domain, self.names[0]):
            self.by_place = {}

    @classmethod
    def build(cls, support: NativeSupport, spec: Any) -> NativePairs | None:
        shaped = _declared(support, spec, 2)
        if shaped is None:
            return None
        machine, decl, kind = shaped
        try:
            params = [(name, bc.param_type(t)) for name, t in kind.params]
        except bc.Unsupported:
            return None
        if any(t not in ("piece", "place") for _, t in params):
            return None
        if not all(_cannot_fail(expr, dict(params)) for _, expr in decl.bindings):
            return None     # the interpreter evaluates every binding of every pair
        compiler = support.compiler
        where = None
        if decl.where is not None:
            where = compiler.compile("", decl.where, params, decl.bindings, partial=True)
            if where is None:
                return None
        clauses = []
        # The generated code of each clause, to decide a pair the bytecode cannot.
        tests: list[tuple[Any, tuple[Any, ...]]] = []
        for rule, _, permits, forbid in machine.forbids.get(spec.kind, ()):
            clause = compiler.compile(rule, forbid.when, params, decl.bindings, partial=True)
            lifting = [p for p in machine.program.of(ir.Permit)
                       if p.action == spec.kind and p.despite == rule]
            lifts = [compiler.compile(p.rule, p.when, params, decl.bindings, partial=True)
                     for p in lifting]
            if clause is None or len(lifts) != len(permits) or None in lifts:
                return None
            clauses.append((clause, [p for p in lifts if p is not None]))
            tests.append((machine.fast_expr(forbid.when, rule),
                          tuple(machine.fast_expr(p.when, p.rule) for p in lifting)))
        if where is None and not clauses:
            return None     # nothing to test: the generated code lists them as fast
        first, second = decl.params
        _, read = machine.fast.purity.scan(second.domain, frozenset((first.name,)))
        types = tuple(Place if t == "place" else Piece for _, t in params)
        test_where = machine.fast_expr(decl.where, "") if decl.where is not None else None
        return cls(support, spec, (types[0], types[1]), where, clauses,
                   (machine.fast_expr(first.domain, ""), machine.fast_expr(second.domain, "")),
                   (test_where, tuple(tests)), first.name in read)

    def run(self, s: Any, env: dict[str, Any], out: list[int], stop: bool) -> bool:
        """Append the option's candidates to ``out``; False (``out`` as it was) when the
        interpreter must list them instead."""
        if s.drawn is not None:
            return False
        indices = self.pieces.indices(s, env) if self.pieces is not None else None
        if indices is None:
            firsts = _sequence(self.domains[0](s, env))
        else:
            every = self.objects[0]
            firsts = list(map(every.__getitem__, indices))
        if not firsts:
            return True
        first_name, second_name = self.names
        if self.dependent:
            # The second domain reads the first value: one list per first value
            # (kept by piece and place when it reads nothing else that changes).
            scope = dict(env)
            domain = self.domains[1]
            seconds = []
            kept, where_now = self.by_place, s.where
            for first in firsts:
                if kept is not None and type(first) is Piece:
                    at = where_now[first.index]
                    key = (first.index, -1 if at is None else at.index)
                    listed = kept.get(key)
                    if listed is None:
                        scope[first_name] = first
                        listed = kept[key] = _sequence(domain(s, scope))
                    seconds.append(listed)
                    continue
                scope[first_name] = first
                seconds.append(_sequence(domain(s, scope)))
        else:
            seconds = [_sequence(self.domains[1](s, env))] * len(firsts)
        native = s.native
        values = bc.value_cells(self.values, s) if self.values else ()
        ask = _asker(self.tests, self.names, self.spec.bindings, self.objects, s, env)
        return _into(out, lambda: self.support.clauses.enumerate_pairs(
            firsts, seconds, self.types[0], self.types[1], native.board, native.pieces,
            native.places, values, self.program, self.layout, self.first_pos,
            self.second_pos, self.base, self.width, out, stop, ask))


class NativeItems:
    """An option over one piece or place, its test compiled: ``run()`` lists it natively.

    For ``option k(x in D) where W`` with no bindings: ``D`` is evaluated by the
    generated code; then ``ClauseMachine.filter_items`` tests, for each item in
    order, ``W`` and the kind's forbid clauses with their permits, joined as the
    interpreter tests them (``W and not (F1 or F2 ...)``, each ``Fi`` lifted by
    its permits), ``x`` in slot 0 and the procedure variables the test reads
    after it, typed by their values (``_compiled_for``). An item the test
    cannot decide (``UNKNOWN``), a value of another type, or an item outside
    the kind's numbering hands the whole listing back to the generated code.
    An option whose test has not compiled in its first ``PieceFilter.GIVE_UP``
    listings (a variable holding a list, say) stops trying.
    """

    def __init__(self, support: NativeSupport, spec: Any, test: ir.Expr,
                 domain: Any, read: tuple[str, ...], item: tuple[str, str]) -> None:
        self.support, self.spec, self.test, self.domain = support, spec, test, domain
        self.read, self.item = read, item
        kind = support.machine.space.kinds[spec.kind]
        self.cls = Piece if item[1] == "piece" else Place
        self.positions = _positions(kind, 0, self.cls, support.n_pieces
                                    if self.cls is Piece else support.n_places)
        self.base = kind.base
        self.codes: dict[Any, Any] = {}
        self.misses = self.hits = 0

    @classmethod
    def build(cls, support: NativeSupport, spec: Any) -> NativeItems | None:
        shaped = _declared(support, spec, 1)
        if shaped is None or shaped[1].bindings:
            return None
        machine, decl, kind = shaped
        try:
            item = (decl.params[0].name, bc.param_type(kind.params[0][1]))
        except bc.Unsupported:
            return None
        if item[1] not in ("piece", "place"):
            return None
        span = decl.span
        held = bc.forbidden(machine, spec.kind, span)
        terms = ([decl.where] if decl.where is not None else []) + \
            ([ir.Not(held, span)] if held is not None else [])
        if not any(map(quantifies, terms)):
            return None     # a test without a comprehension: generated code is as fast
        test = terms[0] if len(terms) == 1 else ir.BoolOp("and", terms[0], terms[1], span)
        read = tuple(sorted(free_names(test, frozenset((item[0],)))
                            & support.compiler.variables))
        return cls(support, spec, test, machine.fast_expr(decl.params[0].domain, ""),
                   read, item)

    def run(self, s: Any, env: dict[str, Any], out: list[int], stop: bool) -> bool:
        """Append the option's candidates to ``out``; False (``out`` as it was) when the
        interpreter must list them instead."""
        if s.drawn is not None or self.misses >= PieceFilter.GIVE_UP and not self.hits:
            return False
        code, params = _compiled_for(self.support, self.test, self.item, self.read, env,
                                     self.codes)
        if code is None:
            self.misses += 1
            return False
        self.hits += 1
        items = _sequence(self.domain(s, env))
        cls, positions = self.cls, self.positions
        native = s.native
        values = bc.value_cells(code.values, s) if code.values else ()
        kept = self.support.clauses.filter_objects(code.ops, params, items, cls, cls is Piece,
                                                   native.board, native.pieces, native.places,
                                                   values)
        if kept is None:
            return False
        # An item the test keeps that has no place in the action's numbering: the
        # generated enumerator says what is wrong.
        ids = list(map(positions.__getitem__, map(_index, kept[:1] if stop else kept)))
        if NONE in ids:
            return False
        base = self.base
        out.extend(map(base.__add__, ids))
        return True


def _declared(support: NativeSupport, spec: Any, arity: int
              ) -> tuple[Any, ir.Option, Any] | None:
    """The machine, declaration and action kind of an option whose ``arity`` parameters
    are the kind's, in its order; None for another option."""
    machine = support.machine
    decl: ir.Option | None = spec.decl
    kind = machine.space.kinds.get(spec.kind)
    if decl is None or kind is None or len(kind.params) != arity \
            or tuple(p.name for p in decl.params) != tuple(n for n, _ in kind.params):
        return None
    return machine, decl, kind


def _into(out: list[int], listing: Any) -> bool:
    """Run a native listing that appends to ``out``: True when it listed everything; False,
    with ``out`` as it was, when it handed the listing back (or raised)."""
    mark = len(out)
    try:
        done = listing()
    except BaseException:
        del out[mark:]
        raise
    if not done:
        del out[mark:]
    return bool(done)


def _sequence(values: Any) -> Any:
    """A domain's values as a list or tuple, in the order the rules visit them."""
    return values if type(values) in (tuple, list) else list(_as_iterable(values))


def _cannot_fail(expr: ir.Expr, params: dict[str, str]) -> bool:
    """A binding the interpreter evaluates without fail: a parameter, or a piece's place."""
    if isinstance(expr, ir.Name):
        return expr.id in params
    return isinstance(expr, ir.Attr) and expr.name == "place" \
        and isinstance(expr.obj, ir.Name) and params.get(expr.obj.id) == "piece"


def _lay_out(where: bc.Code | None, clauses: list[tuple[bc.Code, list[bc.Code]]],
             static: Any) -> tuple[tuple[tuple[str, str], ...], array[int], array[int]]:
    """An option's codes as one flat program and its layout (``ClauseMachine.enumerate_edges``
    says how it reads), the game values they read sharing one table."""
    codes = _codes(where, clauses)
    names: list[tuple[str, str]] = []
    for code in codes:
        for name, kind_of in code.values:
            if (name, kind_of) not in names:
                names.append((name, kind_of))
        for i in range(0, len(code.ops), 2):
            if code.ops[i] == bc.VALUE:
                code.ops[i + 1] = names.index(code.values[code.ops[i + 1]])
    program = array("q")
    layout = array("q")

    def place(code: bc.Code) -> None:
        layout.extend((len(program) // 2, len(code.ops) // 2))
        program.extend(code.ops)

    if where is not None:
        place(where)
        layout.append(int(static(where)))
    else:
        layout.extend((-1, 0, 0))
    layout.append(len(clauses))
    for clause, permits in clauses:
        place(clause)
        layout.extend((len(permits), int(all(map(static, (clause, *permits))))))
        for permit in permits:
            place(permit)
    return tuple(names), program, layout


def _positions(kind: Any, param: int, wanted: Any, size: int) -> array[int]:
    """Each piece's (or place's) position in the numbering of one of a kind's parameters."""
    found = array("q", [NONE]) * size
    for value, pos in kind.index[param].items():
        if type(value) is wanted:
            found[value.index] = pos
    return found


def quantifies(node: ir.Expr) -> bool:
    """Whether an expression holds a comprehension that counts or tests items (``any``,
    ``count``, ``list``): one the clause machine may answer faster than generated code."""
    stack: list[Any] = [node]
    while stack:
        current = stack.pop()
        if isinstance(current, tuple):
            stack.extend(current)
        elif isinstance(current, bc.EXPRESSIONS):
            if isinstance(current, ir.Call) and current.binder is not None \
                    and current.func in ("any", "count", "list"):
                return True
            stack.extend(getattr(current, f.name) for f in attrs.fields(type(current)))
    return False


def native_condition(machine: Any, node: ir.Expr, generated: Any) -> Any:
    """A procedure's boolean expression answered by the clause machine, else by
    ``generated`` (its generated code, which also runs while rules are traced).

    It compiles, on first use, with the procedure variables it reads as parameters
    of the types they then hold (pieces, places, players); a variable of another
    type, an expression that does not compile whole, or ``UNKNOWN`` leaves the
    answer to ``generated``. Nothing here knows a game.
    """
    compiler_of = machine.native_support
    read: list[tuple[str, ...]] = []
    codes: dict[tuple[str, ...], bc.Code | None] = {}

    def condition(s: Any, env: Any) -> Any:
        if s.drawn is not None:
            return generated(s, env)
        support = compiler_of()
        if support is None:
            return generated(s, env)
        if not read:
            read.append(tuple(sorted(free_names(node) & support.compiler.variables)))
        code, params = _compiled_for(support, node, None, read[0], env, codes)
        if code is None:
            return generated(s, env)
        if s.native is None:
            s._native_rebuild()
        native = s.native
        values = bc.value_cells(code.values, s) if code.values else ()
        answer = support.clauses.run(code.ops, params, native.board, native.pieces,
                                     native.places, values)
        if answer == bc.UNKNOWN:
            return generated(s, env)
        return answer == 1
    return condition


_UNCOMPILED: Any = object()


class _Filter:
    """What the clause machine's filters of comprehensions share: the condition
    compiled by the types of the values it is given, and a count of the calls it
    answered and missed (one that has missed every time of its first
    ``GIVE_UP`` calls stops trying)."""

    GIVE_UP = 16
    __slots__ = ("machine", "condition", "binder", "names", "codes", "misses", "hits")

    def __init__(self, machine: Any, condition: ir.Expr, binder: str,
                 names: tuple[str, ...]) -> None:
        self.machine, self.condition, self.binder, self.names = \
            machine, condition, binder, names
        self.codes: dict[tuple[str, ...], bc.Code | None] = {}
        self.misses = self.hits = 0

    def _code(self, support: Any, item: str, values: tuple[Any, ...]
              ) -> tuple[bc.Code | None, list[int]]:
        """The condition compiled with its item (of type ``item``) in slot 0 and the
        variables after it, typed by ``values`` (kept by types); with their indices.
        No code for a value that is no piece, place or player."""
        typed = _typed(values) if len(values) == len(self.names) else None
        if typed is None:
            return None, []
        types, params = typed
        key = (item, *types)
        code = self.codes.get(key, _UNCOMPILED)
        if code is _UNCOMPILED:
            code = support.compiler.compile(
                "", self.condition, [(self.binder, item), *zip(self.names, types, strict=True)],
                fixed_from=1)
            code = self.codes[key] = code if code is not None and self._worth(code) else None
        return code, params

    def _worth(self, code: bc.Code) -> bool:
        """Whether to run this compiled condition rather than the generated code."""
        return True


class PieceFilter(_Filter):
    """A comprehension's filter over all the pieces, run by the clause machine.

    For ``C`` in ``list(u for u in pieces where C)`` (and ``count``, ``any`` and
    the other reducers) the generated code asks ``run(s, values)`` first,
    ``values`` being those of the variables ``C`` reads (``names``, in slots 1
    and up, the piece tested in slot 0). It answers the pieces ``C`` holds
    for, in piece order, or None: a value that is no piece, place or player,
    a condition that does not compile, or ``UNKNOWN`` for any piece (the
    generated loop then tests each piece itself, and fails where the
    interpreter fails).
    """

    __slots__ = ()

    def run(self, s: Any, values: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if self.misses >= self.GIVE_UP and not self.hits:
            return None
        found = self._found(s, values)
        if found is None:
            self.misses += 1
            return None
        self.hits += 1
        pieces = self.machine.world.pieces
        return tuple(map(pieces.__getitem__, found))

    def _found(self, s: Any, values: tuple[Any, ...]) -> list[int] | None:
        support = self.machine.native_support()
        if support is None:
            return None
        code, params = self._code(support, "piece", values)
        if code is None:
            return None
        native, cells = _native_of(s, code)
        found: list[int] | None = support.clauses.filter_pieces(
            code.ops, params, native.board, native.pieces, native.places, cells)
        return found


class ItemFilter(_Filter):
    """A comprehension's filter over a list of pieces or places, run by the clause machine.

    For ``C`` in ``list(t for t in D where C)`` (and the other reducers but
    ``all`` and ``any``), ``D`` any list or tuple of pieces or of places (the
    redeployment's targets of 10.12, say), the generated code asks
    ``run(s, items, values)`` first: the items of ``D``, in the order it visits
    them, that ``C`` holds for,
    or None, as ``PieceFilter.run`` answers. Only a condition whose code
    goes through a list of its own (``QUANTIFY``) is run here: a shorter one
    is as fast as generated code, which also skips the call and the
    conversion of the items; such a condition counts as a miss.
    """

    __slots__ = ()

    def run(self, s: Any, items: Any, values: tuple[Any, ...]) -> list[Any] | None:
        if self.misses >= self.GIVE_UP and not self.hits or not items \
                or type(items) not in (tuple, list):
            return None
        support = self.machine.native_support()
        wanted = type(items[0])
        item = TYPES.get(wanted)
        if support is None or item not in ("piece", "place"):
            return None
        code, params = self._code(support, item, values)
        if code is None:
            self.misses += 1
            return None
        native, cells = _native_of(s, code)
        kept: list[Any] | None = support.clauses.filter_objects(
            code.ops, params, items, wanted, item == "piece", native.board, native.pieces,
            native.places, cells)
        if kept is None:
            self.misses += 1
            return None
        self.hits += 1
        return kept

    def _worth(self, code: bc.Code) -> bool:
        return bc.QUANTIFY in code.ops[::2]


def _compiled_for(support: Any, node: ir.Expr, first: tuple[str, str] | None,
                  read: tuple[str, ...], env: Any, codes: dict[Any, Any]
                  ) -> tuple[bc.Code | None, list[int]]:
    """``node`` compiled with ``first`` (a name and type) in slot 0, if given, and the
    variables ``read`` after it, typed by the values ``env`` holds (cached in
    ``codes``); with those values' indices. No code when a variable holds no piece,
    place or player, or the expression does not compile.

    The variables hold the same values for every item one call of the machine
    tests (``first``; without one, the code runs once), so filtered lists of
    every piece that read only them are ``FILTERED`` (``ClauseCompiler.compile``'s
    ``fixed_from``)."""
    typed = _typed([env.get(name) for name in read])
    if typed is None:
        return None, []
    key, params = typed
    code = codes.get(key, _UNCOMPILED)
    if code is _UNCOMPILED:
        head = [first] if first is not None else []
        code = codes[key] = support.compiler.compile(
            "", node, head + list(zip(read, key, strict=True)), fixed_from=len(head))
    return code, params


def _native_of(s: Any, code: bc.Code) -> tuple[Any, Any]:
    """A state's native state (built if it has none yet) and the game values ``code``
    reads, as cells."""
    if s.native is None:
        s._native_rebuild()
    return s.native, bc.value_cells(code.values, s) if code.values else ()


def _typed(values: Sequence[Any]) -> tuple[tuple[str, ...], list[int]] | None:
    """The types of values (``piece``, ``place``, ``player``) and their indices; None
    when one is of another type."""
    types = []
    params = []
    for value in values:
        kind = TYPES.get(type(value))
        if kind is None:
            return None
        types.append(kind)
        params.append(value.index)
    return tuple(types), params


def item_scan(machine: Any, name: str, where: ir.Expr, moves: bool = False) -> Any:
    """For ``for each name in D where C`` whose body writes only the loop variable's
    attributes (and, if it ``moves``, its place): ``scan(s, env, items)``, the items
    ``C`` holds for, found by the clause machine, or None (the loop then tests each
    item itself).

    Each item's test reads only its own attributes (checked on the bytecode),
    and, when the body moves its item, nothing of the board but its own place;
    the body writes only its item's: so testing every item first finds what
    testing each in turn would.
    """
    read: list[tuple[str, ...]] = []
    codes: dict[Any, Any] = {}
    indices: list[Any] = [None, None, None]    # the last items seen, their indices, type
    fit: dict[int, bool] = {}                  # by id of a code in ``codes``: may scan

    def scan(s: Any, env: Any, items: tuple[Any, ...]) -> tuple[Any, ...] | None:
        if s.drawn is not None or not items:
            return None
        support = machine.native_support()
        if support is None:
            return None
        if indices[0] is not items:
            kinds = {TYPES.get(type(item)) for item in items}
            kind = kinds.pop() if len(kinds) == 1 else None
            indices[:] = [items, array("q", [item.index for item in items])
                          if kind in ("piece", "place") else None, kind]
        if indices[1] is None:
            return None
        if not read:
            read.append(tuple(sorted(free_names(where) & support.compiler.variables
                                     - {name})))
        code, params = _compiled_for(support, where, (name, indices[2]), read[0], env,
                                     codes.setdefault(indices[2], {}))
        if code is None:
            return None
        usable = fit.get(id(code))
        if usable is None:
            usable = fit[id(code)] = _own_attributes(code) and (not moves or _own_place(code))
        if not usable:
            return None
        if s.native is None:
            s._native_rebuild()
        native = s.native
        values = bc.value_cells(code.values, s) if code.values else ()
        found = support.clauses.filter_items(code.ops, params, indices[1], native.board,
                                             native.pieces, native.places, values)
        return None if found is None else tuple(items[i] for i in found)
    return scan


def _own_attributes(code: bc.Code) -> bool:
    """Whether a clause reads attributes of its slot 0 only (``PARAM 0`` just before)."""
    ops = code.ops
    for i in range(0, len(ops), 2):
        if ops[i] in (bc.PIECE_ATTR, bc.PLACE_ATTR) and (
                i < 2 or (ops[i - 2], ops[i - 1]) != (bc.PARAM, 0)):
            return False
    return True


# What reads the board beyond one piece's place, and so may change as a loop
# body moves pieces.
_BOARD = frozenset((bc.COUNT, bc.OWNED, bc.OTHERS, bc.RIVALS, bc.ALL_TAG, bc.ANY_TAG))


def _own_place(code: bc.Code) -> bool:
    """Whether a clause reads of the board its slot 0's place only (``PARAM 0``
    just before ``WHERE``): no count, owner or piece list of a place."""
    ops = code.ops
    for i in range(0, len(ops), 2):
        op = ops[i]
        if op in _BOARD or op == bc.WHERE and (
                i < 2 or (ops[i - 2], ops[i - 1]) != (bc.PARAM, 0)):
            return False
        if op == bc.QUANTIFY and bc.quantify_parts(ops[i + 1])[1] == 0:
            return False        # a place's pieces
    return True
