"""Forbid clauses compiled to a small integer bytecode, and its reference machine.

The native option enumeration must test a clause such as "a unit that has
moved on the lake may not move on land" (7.19) or "no unit enters a hex
holding enemy units" (7.5) for each candidate without a Python object in
the loop. This stage compiles the clauses it can express into a stack
bytecode over integers: pieces, places and players are their indices
(``NONE``, -1, for none), booleans 0 and 1. The machine reads:

- the action's parameters (``PARAM``), and an option's bindings
  (``with from = unit.place``) by compiling their expressions where they are
  read;
- the static tables of ``engine/tables.py`` (a piece's side, tags and
  integer properties; a place's kind and features, and how many neighbours
  and shore links it has, ``DEGREE``; whether two places are adjacent and
  the features of the hexside between them; the map's named groups of
  places);
- the ``Board`` of ``engine/board.py`` (where a piece is, how many pieces a
  place holds, how many are or are not a player's: ``any(u in h.pieces where
  u.side != s)`` becomes one count test);
- the declared attributes of pieces and places, as integer columns
  (``Columns``).

A function the clause calls is expanded in place, and so is the list of a
yes-or-no hook's failing contributions (``count(failing(hook))``); a
comprehension goes through a list made of a place's lists, filtered, joined
and given to functions (``ClauseCompiler._parts``). A clause outside this
subset compiles to ``None`` and stays with the interpreter; compiled
*partially*, its terms outside the subset become ``ASK``, which sends the
candidates that reach them to the interpreter. Whenever the interpreter's
clause would fail (an attribute of ``none``, say), the machine answers
``UNKNOWN`` instead of guessing, and the caller asks the interpreter.
``run()`` is the specification; ``cortes_rules._core.ClauseMachine`` is the
native twin, tested against it and
against the interpreter's own clause (tests/backends/test_bytecode.py).
Nothing here knows a game.
"""

from __future__ import annotations

import functools
import typing
from itertools import repeat
from operator import is_
from array import array
from fractions import Fraction
from collections.abc import Callable, Mapping, Sequence
from typing import Any

import attrs

from ..core.world import Piece, Place, Player
from ..dsl import ir
from ..dsl.diagnostics import Span
from .board import NONE
from .tables import ABSENT, KINDS, Tables

UNKNOWN = -2
"""The machine's answer when the interpreter's clause would fail: ask the interpreter."""
INEXACT = ABSENT
"""An attribute column's cell whose value is no integer of the column's type (a
fraction in an ``int`` attribute, say): a clause that reads it answers ``UNKNOWN``."""
NOT_A_NUMBER = INEXACT + 1
"""An edge binding's cell whose value is no number at all (``is_number`` is false)."""
UNSET = INEXACT + 2
"""An edge binding's cell not worked out yet (the machine asks for it)."""
LIMIT = 1 << 61
"""The machine keeps integers strictly between ``-LIMIT`` and ``LIMIT``; an operand
outside them (a sentinel, or a sum grown too large) makes the answer ``UNKNOWN``."""
MAX_INSTRUCTIONS = 1024
"""A longer clause (or comprehension's body) stays with the interpreter."""
STACK_DEPTH = 256
"""The native machine's stack: an instruction that would start with this many
entries less one answers ``UNKNOWN`` (one is kept spare)."""
SKIPPED = INEXACT + 3
"""What a body answers for an item its filters leave out (``SKIP_UNLESS``)."""
DISTINCT_LIMIT = 64
"""The most distinct values a ``DISTINCT`` quantifier keeps; more answer ``UNKNOWN``."""
MAX_INLINE = 8
"""Nesting of functions expanded into a clause; deeper calls stay with the interpreter."""

# Opcodes; every instruction is two integers (opcode, argument).
(PARAM, CONST, SIDE, TAG, FEATURE, KIND, WHERE, PROPERTY, PIECE_ATTR, PLACE_ATTR, COUNT,
 OWNED, OTHERS, EQ, NE, LT, LE, GT, GE, ADD, SUB, NOT, AND, OR, RETURN, ADJACENT, CROSSING,
 IN_REGION, VALUE, EDGE_VALUE, IS_NUMBER, ALL_TAG, ANY_TAG, ASK, RIVALS, DEGREE,
 QUANTIFY, SKIP_UNLESS) = range(38)
NAMES = ("PARAM", "CONST", "SIDE", "TAG", "FEATURE", "KIND", "WHERE", "PROPERTY",
         "PIECE_ATTR", "PLACE_ATTR", "COUNT", "OWNED", "OTHERS", "EQ", "NE", "LT", "LE", "GT",
         "GE", "ADD", "SUB", "NOT", "AND", "OR", "RETURN", "ADJACENT", "CROSSING", "IN_REGION",
         "VALUE", "EDGE_VALUE", "IS_NUMBER", "ALL_TAG", "ANY_TAG", "ASK", "RIVALS", "DEGREE",
         "QUANTIFY", "SKIP_UNLESS")
# How many stack entries each opcode reads (a shorter stack: malformed code, UNKNOWN).
NEEDS = (0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1, 2, 2, 1,
         0, 0, 1, 1, 1, 0, 2, 1, 1, 1)
# DEGREE's argument: which static list of a place it counts.
DEGREE_LISTS = ("neighbours", "shore")
SLOTS = 8
"""Parameters and comprehension variables a clause may read (``PARAM``'s slots)."""
# QUANTIFY: the lists of a place it goes through, and what it gives.
QUANTIFIED = ("pieces", *DEGREE_LISTS, "all pieces", "one item", "filtered pieces")
"""A place's pieces, neighbours, shore; every piece of the game (the place is
ignored); a list of one item, the value on the stack (``[u]``); or the pieces a
filter keeps (``FILTERED``)."""
FILTERED = QUANTIFIED.index("filtered pieces")
"""``any`` or ``count`` of ``C`` over the pieces a filter ``F`` keeps, ``F`` reading
no variable that changes between the candidates of one listing (``compile``'s
``fixed_from``): the value on the stack is the length of ``F``'s code, which
comes first in the body, ``C``'s after it (each ending in ``RETURN``). The
machine keeps every piece ``F`` holds for (``UNKNOWN`` if it answers that for
any), as the interpreter builds the whole list, then runs ``C`` over them in
order; ``any`` stops at the first that holds. The native machine works the list
out once per listing (``filter_items``)."""
COUNT_OF, ANY_OF, DISTINCT_NEW, DISTINCT_MORE = 0, 1, 2, 3
"""What QUANTIFY gives: how many items its body holds for; whether any does; how
many distinct values its body gives (``SKIPPED`` aside) that the clause's set of
values kept so far lacks, the set emptied first (``DISTINCT_NEW``) or not."""


def quantify_arg(mode: int, domain: int, held_in: int, length: int) -> int:
    """QUANTIFY's argument: ``mode`` (``COUNT_OF``, ``ANY_OF``, ``DISTINCT_NEW``,
    ``DISTINCT_MORE``), ``domain`` (an index of
    ``QUANTIFIED``), the slot its variable is ``held_in``, and the ``length`` of its
    body."""
    return ((mode * 8 + domain) * 16 + held_in) * 65536 + length


def quantify_parts(arg: int) -> tuple[int, int, int, int]:
    """``quantify_arg()``'s parts: mode, domain, slot, length."""
    length, rest = arg % 65536, arg // 65536
    held_in, rest = rest % 16, rest // 16
    return rest // 8, rest % 8, held_in, length


ONE = QUANTIFIED.index("one item")


@attrs.frozen(eq=False)
class _Part:
    """One stretch of a list a comprehension goes through (``ClauseCompiler._parts``):
    the pieces, neighbours or shore of the place ``source`` (``domain`` an index of
    ``QUANTIFIED``), or the one item ``source`` (``ONE``), read in the scope ``frames``;
    kept where each of ``filters`` holds (scope, the name it reads the item as,
    condition)."""

    frames: tuple[dict[str, ir.Expr], ...]
    domain: int
    source: ir.Expr
    filters: tuple[tuple[tuple[dict[str, ir.Expr], ...], str, ir.Expr], ...] = ()


_COMPARE = {"==": EQ, "!=": NE, "<": LT, "<=": LE, ">": GT, ">=": GE}
_ARITH = {"+": ADD, "-": SUB}
_REFS = ("piece", "place", "player")
EXPRESSIONS: tuple[type[Any], ...] = typing.get_args(ir.Expr)
"""Every class of IR expression."""
_COLUMN_TYPES = ("int", "bool", "piece", "place", "player")


class Unsupported(Exception):
    """The clause is outside the bytecode's subset (it stays with the interpreter)."""


@attrs.frozen
class Columns:
    """Which declared attributes the machine reads, and their types, by column number."""

    piece: tuple[tuple[str, str], ...]
    place: tuple[tuple[str, str], ...]

    @classmethod
    def of(cls, program: ir.Program) -> Columns:
        found: dict[str, list[tuple[str, str]]] = {"piece": [], "place": []}
        for decl in program.of(ir.AttributeDecl):
            if decl.owner in found and decl.type.name in _COLUMN_TYPES and decl.type.of is None:
                found[decl.owner].append((decl.name, decl.type.name))
        return cls(tuple(found["piece"]), tuple(found["place"]))

    def values(self, state: Any) -> tuple[array[int], array[int]]:
        """The state's attribute columns as integers, ``INEXACT`` where a value is not one."""
        return (_flat(state.piece_attrs, self.piece), _flat(state.place_attrs, self.place))


def _flat(attrs_of: Mapping[str, Sequence[Any]], columns: Sequence[tuple[str, str]]
          ) -> array[int]:
    out = array("q")
    for name, kind in columns:
        values = attrs_of[name]
        if values and all(map(is_, values, repeat(values[0]))):
            # One value throughout (every column of a new game but a few): one cell.
            out.extend(repeat(column_cell(values[0], kind), len(values)))
            continue
        cls = _CLASSES.get(kind)
        if cls is not None:   # the cells of ``column_cell``, without a call per value
            out.extend([NONE if v is None else v.index if type(v) is cls else INEXACT
                        for v in values])
        else:
            out.extend([v if type(v) is int and -LIMIT < v < LIMIT else
                        int(v) if type(v) is bool else INEXACT for v in values])
    return out


_CLASSES: dict[str, type[Any]] = {"piece": Piece, "place": Place, "player": Player}


def column_cell(value: Any, kind: str) -> int:
    """A column cell: the value as an integer of the column's type, else ``INEXACT``."""
    cls = _CLASSES.get(kind)
    if cls is not None:
        if value is None:
            return NONE
        return int(value.index) if type(value) is cls else INEXACT
    if type(value) in (int, bool) and -LIMIT < value < LIMIT:
        return int(value)
    return INEXACT


def number_cell(value: Any) -> int:
    """An edge binding's cell: an integer as itself, another number ``INEXACT``, anything
    else (none, a name such as ``prohibited``, a boolean) ``NOT_A_NUMBER``."""
    if type(value) is int:
        return value if -LIMIT < value < LIMIT else INEXACT
    if isinstance(value, (int, Fraction, float)) and not isinstance(value, bool):
        return INEXACT
    return NOT_A_NUMBER


@attrs.frozen
class Code:
    """A compiled clause: its instructions and the parameters they read, in slot order."""

    rule: str
    params: tuple[str, ...]
    ops: array[int] = attrs.field(repr=False)
    values: tuple[tuple[str, str], ...] = ()
    """The game values it reads (name, type), by ``VALUE`` slot."""
    edge_names: tuple[str, ...] = ()
    """The folded edge bindings it reads, by ``EDGE_VALUE`` slot."""

    def listing(self) -> list[str]:
        """The instructions as text, one per line (for reading and debugging)."""
        return [f"{i // 2:3} {NAMES[self.ops[i]]} {self.ops[i + 1]}"
                for i in range(0, len(self.ops), 2)]


class ClauseCompiler:
    """Compiles the conditions of forbid clauses on one rulebook's actions."""

    def __init__(self, machine: Any, tables: Tables, columns: Columns) -> None:
        self.machine, self.tables, self.columns = machine, tables, columns
        self.piece_columns = {name: (i, t) for i, (name, t) in enumerate(columns.piece)}
        self.place_columns = {name: (i, t) for i, (name, t) in enumerate(columns.place)}
        self.derived = {(d.owner, d.name): d for d in machine.program.of(ir.DeriveDecl)}
        # A global name is read as such only if no procedure can bind a variable
        # of that name (a variable would hide it in the clause's scope).
        self.variables = machine.variables
        self.regions = {name: i for i, name in enumerate(tables.region_names)}
        self.players = {p.name: p.index for p in machine.world.players}
        self.bindings: dict[str, ir.Expr] = {}
        self.active: set[str] = set()
        self.value_types = {v.name: v.type for v in machine.program.of(ir.ValueDecl)}
        self.functions = {f.name: f for f in machine.program.of(ir.FunctionDecl)}
        self.hook_types = {h.name: h.type for h in machine.program.of(ir.HookDecl)}
        self.frames: list[dict[str, ir.Expr]] = []
        self.binders: list[tuple[str, int, str, int]] = []
        """The comprehension variables in scope: name, slot, type, and the depth of
        ``frames`` at which they are read."""
        self.partial = False
        self.fixed_from: int | None = None
        self.expanding: set[str] = set()
        """The action kinds whose ``allowed(...)`` is being expanded."""

    def compile(self, rule: str, when: ir.Expr, params: Sequence[tuple[str, str]],
                bindings: Sequence[tuple[str, ir.Expr]] = (),
                edge_names: Sequence[str] = (), partial: bool = False,
                fixed_from: int | None = None) -> Code | None:
        """The bytecode of a clause over an action's parameters and an option's bindings.

        ``edge_names`` are bindings folded per (piece, edge) (``fold.EdgeBindings``,
        the piece and the place being the first two parameters), read from their
        columns. None when the clause reads anything else, or anything outside
        the subset this machine runs.

        A function the clause calls is expanded in place, its parameters read
        as the arguments (which must be names, literals or a piece's side:
        expressions the interpreter evaluates without fail). With ``partial``,
        a term of ``and``, ``or`` or ``not`` outside the subset becomes ``ASK``:
        the machine answers ``UNKNOWN`` when it reaches it, and the interpreter
        decides that candidate (None still when nothing else is left).

        ``fixed_from``: the parameters from that slot on hold the same values for
        every candidate of a listing (``filter_items``: the item is in slot 0,
        the procedure variables after it), so that a filtered list of every
        piece reading none of the others compiles as ``FILTERED``, worked out
        once per listing.
        """
        types = {name: param_type(t) for name, t in params}
        self.fixed_from = fixed_from
        self.slots = {name: i for i, (name, _) in enumerate(params)}
        self.types = types
        self.bindings = {name: expr for name, expr in bindings if name not in types}
        self.edge_slots = {name: i for i, name in enumerate(edge_names)}
        self.value_slots: dict[str, tuple[int, str]] = {}
        self.active = set()
        self.frames = []
        self.binders = []
        self.expanding = set()
        self.partial = partial
        self.ops: list[int] = []
        try:
            kind = self._term(when)
        except (Unsupported, RecursionError):
            return None
        if kind != "bool" or len(self.ops) // 2 >= MAX_INSTRUCTIONS or self.ops == [ASK, 0]:
            return None
        self.emit(RETURN, 0)
        values = tuple(sorted(((n, t) for n, (_, t) in self.value_slots.items()),
                              key=lambda item: self.value_slots[item[0]][0]))
        return Code(rule, tuple(name for name, _ in params), array("q", self.ops), values,
                    tuple(edge_names))

    def emit(self, op: int, arg: int = 0) -> int:
        self.ops += (op, arg)
        return len(self.ops) - 2

    def expr(self, node: ir.Expr) -> str:
        """Emit ``node``; returns its type (``bool``, ``int``, ``piece``, ``place``, ...)."""
        method = getattr(self, "_" + type(node).__name__, None)
        if method is None:
            raise Unsupported(type(node).__name__)
        kind: str = method(node)
        return kind

    def _term(self, node: ir.Expr) -> str:
        """Emit a boolean term: in a partial compilation, ``ASK`` if it is outside the subset."""
        mark, slots = len(self.ops), dict(self.value_slots)
        try:
            if self.expr(node) != "bool":
                raise Unsupported("a term that is not a boolean")
        except Unsupported:
            if not self.partial:
                raise
            del self.ops[mark:]
            self.value_slots = slots
            self.emit(ASK)
        return "bool"

    def _Name(self, node: ir.Name) -> str:
        name = node.id
        for binder, held_in, binder_kind, depth in reversed(self.binders):
            if binder == name and depth == len(self.frames):
                self.emit(PARAM, held_in)   # a comprehension's variable
                return binder_kind
        for depth in range(len(self.frames) - 1, -1, -1):
            argument = self.frames[depth].get(name)
            if argument is not None:
                # A function's parameter: its argument, read where the call stands.
                inner, self.frames = self.frames, self.frames[:depth]
                try:
                    return self.expr(argument)
                finally:
                    self.frames = inner
        kind = self.types.get(name)
        if kind is not None:
            self.emit(PARAM, self.slots[name])
            return kind
        if name in self.edge_slots:
            if len(self.slots) < 2:
                raise Unsupported("an edge binding without a piece and a place")
            self.emit(EDGE_VALUE, self.edge_slots[name])
            return "number"
        bound = self.bindings.get(name)
        if bound is not None:
            if name in self.active:
                raise Unsupported(f"binding {name} reads itself")
            self.active.add(name)
            try:
                return self.expr(bound)
            finally:
                self.active.discard(name)
        if name in self.variables:
            raise Unsupported(name)
        if name in self.machine.compiler.values:
            return self._value(name)
        if name in self.players and self.machine.fast.resolve(name)[0] == "const":
            self.emit(CONST, self.players[name])
            return "player"
        raise Unsupported(name)

    def _value(self, name: str) -> str:
        decl = self.value_types.get(name)
        if decl is None or decl.name not in _COLUMN_TYPES or decl.of is not None:
            raise Unsupported(f"value {name}")
        position = self.value_slots.setdefault(name, (len(self.value_slots), decl.name))[0]
        self.emit(VALUE, position)
        return str(decl.name)

    def _Member(self, node: ir.Member) -> str:
        collection = node.collection
        if not isinstance(collection, ir.Name) or collection.id not in self.regions \
                or collection.id in self.variables or collection.id in self.types \
                or collection.id in self.bindings \
                or self.machine.fast.resolve(collection.id)[0] != "const":
            raise Unsupported("membership of anything but a named group of places")
        if self.expr(node.item) != "place":
            raise Unsupported("membership of a non-place")
        self.emit(IN_REGION, self.regions[collection.id])
        if node.negated:
            self.emit(NOT)
        return "bool"

    def _IntLit(self, node: ir.IntLit) -> str:
        if not -LIMIT < node.value < LIMIT:
            raise Unsupported("a large integer")
        self.emit(CONST, node.value)
        return "int"

    def _BoolLit(self, node: ir.BoolLit) -> str:
        self.emit(CONST, int(node.value))
        return "bool"

    def _NoneLit(self, node: ir.NoneLit) -> str:
        self.emit(CONST, NONE)
        return "none"

    def _Not(self, node: ir.Not) -> str:
        self._term(node.operand)
        self.emit(NOT)
        return "bool"

    def _BoolOp(self, node: ir.BoolOp) -> str:
        jumps = []
        terms = node.terms()
        for i, term in enumerate(terms):
            self._term(term)
            if i < len(terms) - 1:
                jumps.append(self.emit(AND if node.op == "and" else OR))
        for at in jumps:
            self.ops[at + 1] = len(self.ops) // 2
        return "bool"

    def _Is(self, node: ir.Is) -> str:
        kind = self.expr(node.subject)
        symbol = self.tables.symbol_index.get(node.name)
        if symbol is None or kind not in ("piece", "place", "hexside"):
            raise Unsupported(f"is {node.name}")
        self.emit({"piece": TAG, "place": FEATURE, "hexside": CROSSING}[kind], symbol)
        return "bool"

    def _Compare(self, node: ir.Compare) -> str:
        if isinstance(node.right, ir.StrLit) and node.op in ("==", "!="):
            if self.expr(node.left) != "kind" or node.right.value not in KINDS:
                raise Unsupported("a string comparison")
            self.emit(CONST, KINDS.index(node.right.value))
            self.emit(_COMPARE[node.op])
            return "bool"
        left, right = (_numeric(self.expr(side)) for side in (node.left, node.right))
        if node.op in ("==", "!="):
            if left != right and "none" not in (left, right):
                raise Unsupported(f"{left} {node.op} {right}")
            if "none" in (left, right) and not {left, right} <= {"none", *_REFS}:
                raise Unsupported(f"{left} {node.op} {right}")
            if left == "bool" or right == "bool":
                if left != right:
                    raise Unsupported("a boolean compared with another type")
        elif (left, right) != ("int", "int"):
            raise Unsupported(f"{left} {node.op} {right}")
        self.emit(_COMPARE[node.op])
        return "bool"

    def _Arith(self, node: ir.Arith) -> str:
        op = _ARITH.get(node.op)
        if op is None or (_numeric(self.expr(node.left)),
                          _numeric(self.expr(node.right))) != ("int", "int"):
            raise Unsupported(f"arithmetic {node.op}")
        self.emit(op)
        return "int"

    def _Attr(self, node: ir.Attr) -> str:
        if isinstance(node.obj, ir.Name) and node.obj.id in ("none",):
            raise Unsupported("an attribute of none")
        return self._member(self.expr(node.obj), node.name)

    def _member(self, kind: str, name: str) -> str:
        """Emit the attribute ``name`` of the value of type ``kind`` on the stack."""
        declared = {"piece": self.machine.compiler.piece_attributes,
                    "place": self.machine.compiler.place_attributes}.get(kind, set())
        if name in declared and name not in (self.piece_columns if kind == "piece"
                                             else self.place_columns):
            raise Unsupported(f"{kind}.{name} is not an integer column")
        if kind == "piece":
            column = self.piece_columns.get(name)
            if column is not None:
                self.emit(PIECE_ATTR, column[0])
                return column[1]
            if ("piece", name) in self.derived:
                return self._derived_read(kind, self.derived[("piece", name)].expr)
            if name == "side":
                self.emit(SIDE)
                return "player"
            if name == "place":
                self.emit(WHERE)
                return "place"
            if name in self.tables.columns:
                self.emit(PROPERTY, sorted(self.tables.columns).index(name))
                return "int"
            if name in self.tables.text_columns:
                # Codes that only tell texts apart: `==`, `!=` and `distinct` read them.
                self.emit(PROPERTY, [n for n, _ in self.tables.properties()].index(name))
                return f"text:{name}"
        if kind == "place":
            column = self.place_columns.get(name)
            if column is not None:
                self.emit(PLACE_ATTR, column[0])
                return column[1]
            if ("place", name) in self.derived:
                return self._derived_read(kind, self.derived[("place", name)].expr)
            if name == "kind":
                self.emit(KIND)
                return "kind"
        raise Unsupported(f"{kind}.{name}")

    def _derived_read(self, kind: str, expr: ir.Expr) -> str:
        """Emit a derived attribute of the value on the stack: one whose formula is a
        chain of attributes of its owner (``derive piece hex = piece.place``), which
        the interpreter evaluates with the owner alone in scope."""
        if isinstance(expr, ir.Name) and expr.id == kind:
            return kind
        if isinstance(expr, ir.Attr):
            return self._member(self._derived_read(kind, expr.obj), expr.name)
        raise Unsupported("a derived attribute of this form")

    def _Call(self, node: ir.Call) -> str:
        function = self.functions.get(node.func)
        if function is not None and node.binder is None:
            return self._inline(function, node.args)
        if node.func == "allowed" and node.binder is None and len(node.args) == 1 \
                and isinstance(node.args[0], ir.StrLit):
            return self._allowed(node.args[0].value, node.span)
        if node.func == "is_number" and node.binder is None and len(node.args) == 1:
            if self.expr(node.args[0]) != "number":
                raise Unsupported("is_number of anything but an edge binding")
            self.emit(IS_NUMBER)
            return "bool"
        if node.func in ("adjacent", "hexside") and node.binder is None:
            if len(node.args) != 2 or any(self.expr(a) != "place" for a in node.args):
                raise Unsupported(node.func)
            if node.func == "adjacent":
                self.emit(ADJACENT)
                return "bool"
            return "hexside"     # two places on the stack, read only by `has`
        if node.func == "all" and node.binder is not None and not node.args \
                and node.element is None and node.domain is not None:
            tag = _tag_test(node.where, node.binder)
            symbol = self.tables.symbol_index.get(tag) if tag is not None else None
            if symbol is None or not self._pieces_of(node.domain):
                raise Unsupported("all")
            self.emit(ALL_TAG, symbol)
            return "bool"
        if node.func not in ("any", "count") or node.args and node.binder is not None:
            raise Unsupported(node.func)
        if node.binder is None:
            if node.func != "count" or len(node.args) != 1:
                raise Unsupported(node.func)
            if self._static_list_of(node.args[0]):
                return "int"
            if self._pieces_of(node.args[0]):
                self.emit(COUNT)
                return "int"
            self._listed(node.args[0])
            return "int"
        if node.domain is None or node.element is not None:
            raise Unsupported(node.func)
        mark, values = len(self.ops), dict(self.value_slots)
        try:
            return self._counted(node)
        except Unsupported:
            del self.ops[mark:]
            self.value_slots = values
        self._quantify(ANY_OF if node.func == "any" else COUNT_OF, node.binder, node.domain,
                       node.where)
        return "bool" if node.func == "any" else "int"

    def _allowed(self, kind: str, span: Span) -> str:
        """``allowed("kind")``: the kind's forbid clauses expanded in place
        (``not forbidden(...)``), with the variables in scope where it is read (a
        function's parameters among them), as ``Machine.allowed`` tests them."""
        if kind in self.expanding:
            raise Unsupported(f"allowed({kind!r}) within its own clauses")
        held = forbidden(self.machine, kind, span)
        if held is None:
            self.emit(CONST, 1)
            return "bool"
        self.expanding.add(kind)
        try:
            self._term(ir.Not(held, span))
        finally:
            self.expanding.discard(kind)
        return "bool"

    def _counted(self, node: ir.Call) -> str:
        """``any``/``count`` over a place's pieces as one board test (a count, the pieces'
        tags, their owners)."""
        assert node.binder is not None and node.domain is not None
        if not self._pieces_of(node.domain):
            raise Unsupported(node.func)
        where = node.where
        tag = _tag_test(where, node.binder) if node.func == "any" else None
        symbol = self.tables.symbol_index.get(tag) if tag is not None else None
        if symbol is not None:
            self.emit(ANY_TAG, symbol)
            return "bool"
        if where is None:
            self.emit(COUNT)
        else:
            op = self._side_test(where, node.binder)
            self.emit({"==": OWNED, "!=": OTHERS, "rivals": RIVALS}[op])
        if node.func == "any":
            self.emit(CONST, 0)
            self.emit(GT)
            return "bool"
        return "int"

    def _listed(self, node: ir.Expr) -> None:
        """Emit the size of ``list(x for x in D where C)`` (``node`` may be a call of a
        function returning one): a ``COUNT_OF`` quantifier."""
        if not isinstance(node, ir.Call):
            raise Unsupported("a count of this list")
        function = self.functions.get(node.func)
        if function is not None and node.binder is None:
            self._inline(function, node.args, self._listed)
            return
        if node.func == "failing" and node.binder is None and len(node.args) == 1 \
                and isinstance(node.args[0], ir.Name):
            self._failing(node.args[0].id)
            return
        if node.func == "distinct" and not node.args and node.binder is not None \
                and node.domain is not None and node.element is not None:
            self._quantify(DISTINCT_NEW, node.binder, node.domain, node.where, node.element)
            return
        if node.func != "list" or node.args or node.binder is None or node.domain is None \
                or not isinstance(node.element, ir.Name) or node.element.id != node.binder:
            raise Unsupported("a count of this list")
        self._quantify(COUNT_OF, node.binder, node.domain, node.where)

    def _quantify(self, mode: int, binder: str, domain: ir.Expr, where: ir.Expr | None,
                  element: ir.Expr | None = None) -> None:
        """Emit a ``QUANTIFY`` over a place's pieces, neighbours or shore, its body the
        condition ``where`` with ``binder`` in the next free slot (then, for
        ``distinct``, the ``element`` of the items it keeps); or, over a list made
        of such lists (``_parts``), one per stretch of it."""
        mark, values = len(self.ops), dict(self.value_slots)
        try:
            listed, kind, filters = self._quantified(domain)
        except Unsupported:
            del self.ops[mark:]
            self.value_slots = values
            self._quantify_parts(mode, binder, self._parts(domain, tuple(self.frames)), where,
                                 element)
            return
        held_in = len(self.slots) + len({binder[1] for binder in self.binders})
        if held_in >= SLOTS:
            raise Unsupported("too many variables")
        filtered = bool(filters) and where is not None and element is None \
            and mode in (ANY_OF, COUNT_OF) and self._fixed(filters)
        outer, partial = self.ops, self.partial
        self.ops, self.partial = [], False      # the body compiles whole, or not at all
        self.binders.append((binder, held_in, kind, len(self.frames)))
        if filters:
            self.binders.append((filters[0], held_in, kind, len(self.frames)))
        head: list[int] = []
        try:
            if filtered:
                # F, then C: each its own code (jumps are relative to its start).
                assert where is not None
                self._term(_joined(filters[1:]))
                self.emit(RETURN)
                head, self.ops = self.ops, []
                outer[-1] = len(head) // 2      # the CONST before: F's length
                listed = FILTERED
                terms = [where]
            else:
                terms = [*filters[1:], *([where] if where is not None else [])]
            if terms:
                self._term(terms[0] if len(terms) == 1 else _joined(terms))
                if element is not None:
                    self.emit(SKIP_UNLESS)
            elif element is None:
                self.emit(CONST, 1)
            if element is not None:
                self._element(element)
            self.emit(RETURN)
            body = head + self.ops
        finally:
            self.ops, self.partial = outer, partial
            del self.binders[-1 - bool(filters):]
        if len(body) // 2 >= MAX_INSTRUCTIONS:
            raise Unsupported("a long condition")
        self.emit(QUANTIFY, quantify_arg(mode, listed, held_in, len(body) // 2))
        self.ops += body

    def _fixed(self, filters: Sequence[Any]) -> bool:
        """Whether the filters of a list of every piece (``_quantified``: the name they
        read the piece as, then the conditions) read no parameter before
        ``fixed_from``, no binding and no edge binding: the same list for every
        candidate of a listing."""
        if self.fixed_from is None or len(filters) < 2:
            return False
        from .domains import free_names     # domains.py builds on this module
        varying = {name for name, at in self.slots.items() if at < self.fixed_from}
        varying |= set(self.bindings) | set(self.edge_slots)
        return all(not free_names(f, frozenset((filters[0],))) & varying for f in filters[1:])

    def _quantify_parts(self, mode: int, binder: str, parts: Sequence[_Part],
                        where: ir.Expr | None, element: ir.Expr | None = None) -> None:
        """Emit ``any`` or ``count`` over a list made of ``parts``: a ``QUANTIFY`` per
        part, their counts added. ``any`` stops at the first item that holds only over
        a single unfiltered part: elsewhere the interpreter builds the whole list (each
        filter tested on every item) before ``any`` looks at it, so every item is
        tested (an item the interpreter would not test can only make the answer
        ``UNKNOWN``). ``distinct`` counts, part by part, the values the parts before
        did not give."""
        early = mode == ANY_OF and len(parts) == 1 and not parts[0].filters
        if not parts:
            self.emit(CONST, 0)     # an empty list: nothing counted, none holds
        for i, part in enumerate(parts):
            if mode >= DISTINCT_NEW:
                each = DISTINCT_MORE if i else DISTINCT_NEW
            else:
                each = ANY_OF if early else COUNT_OF
            self._quantify_part(each, binder, part, where, element)
            if i:
                self.emit(ADD)
        if mode == ANY_OF and not early:
            self.emit(CONST, 0)
            self.emit(GT)

    def _quantify_part(self, mode: int, binder: str | None, part: _Part,
                       where: ir.Expr | None, element: ir.Expr | None = None) -> None:
        """Emit one part's ``QUANTIFY``: its place (or item), then the body, the part's
        filters (each read in its own scope) and ``where`` joined by ``and`` (then,
        for ``distinct``, ``SKIP_UNLESS`` and the ``element``)."""
        kind = self._source(part)
        held_in = len(self.slots) + len({binder[1] for binder in self.binders})
        if held_in >= SLOTS:
            raise Unsupported("too many variables")
        terms = [(list(scope), name, cond) for scope, name, cond in part.filters]
        if where is not None and binder is not None:
            terms.append((self.frames, binder, where))
        outer, partial, frames = self.ops, self.partial, self.frames
        self.ops, self.partial = [], False      # the body compiles whole, or not at all
        try:
            jumps = []
            for i, (scope, name, cond) in enumerate(terms):
                self.frames = scope
                self.binders.append((name, held_in, kind, len(scope)))
                try:
                    self._term(cond)
                finally:
                    self.binders.pop()
                    self.frames = frames
                if i < len(terms) - 1:
                    jumps.append(self.emit(AND))
            for at in jumps:
                self.ops[at + 1] = len(self.ops) // 2
            if terms and element is not None:
                self.emit(SKIP_UNLESS)
            elif not terms and element is None:
                self.emit(CONST, 1)
            if element is not None and binder is not None:
                self.binders.append((binder, held_in, kind, len(frames)))
                try:
                    self._element(element)
                finally:
                    self.binders.pop()
            self.emit(RETURN)
            body = self.ops
        finally:
            self.ops, self.partial, self.frames = outer, partial, frames
        if len(body) // 2 >= MAX_INSTRUCTIONS:
            raise Unsupported("a long condition")
        self.emit(QUANTIFY, quantify_arg(mode, part.domain, held_in, len(body) // 2))
        self.ops += body

    def _element(self, node: ir.Expr) -> None:
        """Emit the value ``distinct`` keeps for an item: one whose integer stands for
        it alone among the values of its type."""
        kind = self.expr(node)
        if kind not in ("int", "bool", "piece", "place", "player", "kind") \
                and not kind.startswith("text:"):
            raise Unsupported(f"distinct values of a {kind}")

    def _source(self, part: _Part) -> str:
        """Emit a part's place (or its one item), read in the part's scope; returns the
        type of its items."""
        outer, self.frames = self.frames, list(part.frames)
        try:
            if part.domain == ONE:
                kind = self.expr(part.source)
                if kind not in _REFS:
                    raise Unsupported("a list of anything but pieces, places and players")
                return kind
            if part.domain == 0:
                if not self._pieces_of(part.source):
                    raise Unsupported("a list of pieces")
                return "piece"
            if self._static_list(part.source) is None:
                raise Unsupported("a static list")
            return "place"
        finally:
            self.frames = outer

    def _parts(self, node: ir.Expr, frames: tuple[dict[str, ir.Expr], ...],
               depth: int = 0) -> list[_Part]:
        """The parts of the list ``node`` is, read in the scope ``frames`` (the
        arguments of the functions being expanded, innermost last): a place's pieces,
        neighbours or shore, filtered by ``list(x for x in L where C)``, joined by
        ``+``, a list of names ``[u]``, a function returning such a list, or a
        function's parameter holding one. Nothing is emitted; Unsupported for any
        other list."""
        if depth > 16:
            raise Unsupported("a list nested too deeply")
        if isinstance(node, ir.Name):
            if any(b[0] == node.id and b[3] == len(frames) for b in self.binders):
                raise Unsupported("a comprehension's variable is no list")
            for at in range(len(frames) - 1, -1, -1):
                argument = frames[at].get(node.id)
                if argument is not None:
                    return self._parts(argument, frames[:at], depth + 1)
            raise Unsupported(f"the list {node.id}")
        if isinstance(node, ir.Arith) and node.op == "+":
            return [*self._parts(node.left, frames, depth + 1),
                    *self._parts(node.right, frames, depth + 1)]
        if isinstance(node, ir.ListLit):
            if not all(isinstance(x, ir.Name) for x in node.items):
                raise Unsupported("a list of anything but names")
            return [_Part(frames, ONE, item) for item in node.items]
        if isinstance(node, ir.Call) and node.binder is None and node.func in self.functions:
            function = self.functions[node.func]
            if len(node.args) != len(function.params) or len(frames) >= MAX_INLINE:
                raise Unsupported(f"a call of {function.name}")
            for arg in node.args:
                self._dry(frames, functools.partial(self._argument, arg, allow_lists=False))
            inner = (*frames, dict(zip(function.params, node.args, strict=True)))
            return self._parts(function.body, inner, depth + 1)
        if isinstance(node, ir.Call) and node.func == "list" and not node.args \
                and node.binder is not None and node.domain is not None \
                and isinstance(node.element, ir.Name) and node.element.id == node.binder:
            inner_parts = self._parts(node.domain, frames, depth + 1)
            if node.where is None:
                return inner_parts
            kept = (frames, node.binder, node.where)
            return [attrs.evolve(p, filters=(*p.filters, kept)) for p in inner_parts]
        if self._dry(frames, lambda: self._pieces_of(node)):
            return [_Part(frames, 0, node)]
        name = self._dry(frames, lambda: self._static_list(node))
        if name is None:
            raise Unsupported("a list of this shape")
        return [_Part(frames, QUANTIFIED.index(name), node)]

    def _dry(self, frames: Sequence[dict[str, ir.Expr]], work: Callable[[], Any]) -> Any:
        """``work()`` in the scope ``frames``, whatever it emits thrown away."""
        ops, values, outer = self.ops, dict(self.value_slots), self.frames
        self.ops, self.frames = [], list(frames)
        try:
            return work()
        finally:
            self.ops, self.value_slots, self.frames = ops, values, outer

    def _argument(self, arg: ir.Expr, allow_lists: bool) -> list[_Part] | None:
        """Check a function's argument (in the current scope): one the interpreter
        evaluates without fail, that compiles (None); or, ``allow_lists``, a list made
        of parts (``_parts``), which are returned: the interpreter builds it before
        the function's body, testing its filters on every item. A name passed on that
        holds a list gives no parts: it was built where it was made."""
        if self._total(arg):
            mark, values = len(self.ops), dict(self.value_slots)
            try:
                self.expr(arg)      # compiles (else Unsupported); emitted where it is read
                return None
            except Unsupported:
                if not isinstance(arg, ir.Name):
                    raise
                self._parts(arg, tuple(self.frames))
                return None
            finally:
                del self.ops[mark:]
                self.value_slots = values
        if not allow_lists:
            raise Unsupported("an argument the interpreter may fail on")
        return self._parts(arg, tuple(self.frames))

    def _built(self, parts: Sequence[_Part]) -> bool:
        """Emit a 0 that answers ``UNKNOWN`` where building the lists ``parts`` make
        would fail (a place that is none, a filter failing on an item): the count of
        each filtered or place part, compared below zero. False (nothing emitted)
        when only unfiltered names remain, which never fail."""
        pushed = False
        for part in parts:
            if part.domain == ONE and not part.filters:
                continue
            self._quantify_part(COUNT_OF, None, part, None)
            if pushed:
                self.emit(ADD)
            pushed = True
        if pushed:
            self.emit(CONST, 0)
            self.emit(LT)
        return pushed

    def _failing(self, hook: str) -> None:
        """Emit how many of a yes-or-no hook's contributions fail (``failing(hook)``'s
        size): in load order, each whose ``when`` holds (or has none) and whose value
        is false counts one, as ``compile.HookRef.applying`` evaluates them."""
        contributions = self.machine.compiler.contributions(hook)
        declared = self.hook_types.get(hook)
        if contributions is None or declared is None or declared.name != "bool" \
                or declared.of is not None:
            raise Unsupported(f"failing({hook})")
        if not contributions:
            self.emit(CONST, 0)
        for i, contribution in enumerate(contributions):
            jump = None
            if contribution.when is not None:
                self._term(contribution.when)
                jump = self.emit(AND)
            self._term(contribution.value)
            self.emit(NOT)
            if jump is not None:
                self.ops[jump + 1] = len(self.ops) // 2
            if i:
                self.emit(ADD)

    def _quantified(self, node: ir.Expr) -> tuple[int, str, list[Any]]:
        """Emit the place whose list ``node`` is; returns the list (an index of
        ``QUANTIFIED``), the type of its items, and for a filtered list of every piece
        (``domains.flatten``) the name its filters read the piece as, then the filters."""
        if self._pieces_of(node):
            return 0, "piece", []
        # Imported here: domains.py builds on this module.
        from .domains import ALL_PIECES, SLOT, flatten
        if not self.frames and not self.binders and ALL_PIECES not in self.variables \
                and ALL_PIECES not in self.types:
            # Read in the clause's own scope: the filters' names are its names.
            filters = flatten(node, self.functions)
            if filters is not None:
                self.emit(CONST, NONE)
                return QUANTIFIED.index("all pieces"), "piece", [SLOT, *filters]
        name = self._static_list(node)
        if name is None:
            raise Unsupported("a comprehension over this domain")
        return QUANTIFIED.index(name), "place", []

    def _static_list(self, node: ir.Expr) -> str | None:
        """Emit the place whose static list ``node`` is, ``neighbours(h)`` (the built-in
        function) or ``h.shore``, and return the list's name; None (nothing emitted) for
        any other expression."""
        if isinstance(node, ir.Call) and node.func == "neighbours" and node.binder is None \
                and len(node.args) == 1 and node.func not in self.functions:
            place, name = node.args[0], node.func
        elif isinstance(node, ir.Attr) and node.name in DEGREE_LISTS \
                and ("place", node.name) not in self.derived \
                and node.name not in self.machine.compiler.place_attributes:
            place, name = node.obj, node.name
        else:
            return None
        if self.expr(place) != "place":
            raise Unsupported("the static list of a non-place")
        return name

    def _inline(self, function: ir.FunctionDecl, args: Sequence[ir.Expr],
                emit: Callable[[ir.Expr], None] | None = None) -> str:
        """Emit a function's body with its parameters read as ``args``.

        The interpreter evaluates every argument before the body, even one the
        body never reads: so an argument must be one it cannot fail on (a
        name, a literal, a piece's side), and it must compile here; or a list
        of the shapes ``_parts`` reads, built first (``_built``) and gone
        through where the body reads it.
        """
        if len(args) != len(function.params) or len(self.frames) >= MAX_INLINE:
            raise Unsupported(f"a call of {function.name}")
        lists: list[_Part] = []
        for arg in args:
            lists.extend(self._argument(arg, allow_lists=True) or ())
        built = self._built(lists)
        self.frames.append(dict(zip(function.params, args, strict=True)))
        try:
            if emit is not None:
                emit(function.body)
                kind = "int"
            else:
                kind = self.expr(function.body)
        finally:
            self.frames.pop()
        if built:
            if kind not in ("int", "bool"):
                raise Unsupported(f"a {kind} from a function given a list")
            self.emit(ADD)      # the lists' 0
        return kind

    def _total(self, node: ir.Expr) -> bool:
        """Whether the interpreter evaluates an argument without fail (given it compiles):
        a literal, a name (parameters and bindings are evaluated before any clause),
        or the side of a piece parameter."""
        if isinstance(node, (ir.Name, ir.IntLit, ir.BoolLit, ir.NoneLit)):
            return True
        obj = node.obj if isinstance(node, ir.Attr) and node.name == "side" else None
        if not isinstance(obj, ir.Name):
            return False
        name, depth = obj.id, len(self.frames)
        while depth > 0:        # a parameter passed on: follow it to its caller's name
            depth -= 1
            argument = self.frames[depth].get(name)
            if argument is not None:
                if not isinstance(argument, ir.Name):
                    return False
                name = argument.id
        return self.types.get(name) == "piece"

    def _static_list_of(self, node: ir.Expr) -> bool:
        """Emit the size of a place's static list (``neighbours(h)``, ``h.shore``): DEGREE."""
        name = self._static_list(node)
        if name is None:
            return False
        self.emit(DEGREE, DEGREE_LISTS.index(name))
        return True

    def _pieces_of(self, node: ir.Expr) -> bool:
        """Emit the place whose pieces ``node`` lists (``h.pieces``, or a derived alias of it)."""
        if not isinstance(node, ir.Attr):
            return False
        name = node.name
        derived = self.derived.get(("place", name))
        if derived is not None:
            expr = derived.expr
            if not (isinstance(expr, ir.Attr) and expr.name == "pieces"
                    and isinstance(expr.obj, ir.Name) and expr.obj.id == "place"):
                return False
        elif name != "pieces":
            return False
        if self.expr(node.obj) != "place":
            raise Unsupported("the pieces of a non-place")
        return True

    def _side_test(self, where: ir.Expr, binder: str) -> str:
        """Emit the player of ``u.side == E`` (or ``!=``); returns the operator, or
        ``rivals`` for ``u.side != none and u.side != E`` (in either order)."""
        if isinstance(where, ir.BoolOp) and where.op == "and":
            terms = where.terms()
            owned = [t for t in terms if isinstance(t, ir.Compare) and t.op == "!="
                     and isinstance(t.right, ir.NoneLit) and _is_side_of(t.left, binder)]
            if len(terms) == 2 and len(owned) == 1:
                other = terms[1] if terms[0] is owned[0] else terms[0]
                if self._side_test(other, binder) == "!=":
                    return "rivals"
            raise Unsupported("a comprehension's condition")
        if not isinstance(where, ir.Compare) or where.op not in ("==", "!="):
            raise Unsupported("a comprehension's condition")
        sides = [isinstance(t, ir.Attr) and t.name == "side" and isinstance(t.obj, ir.Name)
                 and t.obj.id == binder for t in (where.left, where.right)]
        if sides.count(True) != 1:
            raise Unsupported("a comprehension's condition")
        other = where.right if sides[0] else where.left
        if self.expr(other) != "player":
            raise Unsupported("a side compared with a non-player")
        return where.op


def _joined(terms: Sequence[ir.Expr]) -> ir.Expr:
    """The terms joined by ``and``, left to right."""
    result = terms[0]
    for term in terms[1:]:
        result = ir.BoolOp("and", result, term, term.span)
    return result


def forbidden(machine: Any, kind: str, span: Span) -> ir.Expr | None:
    """Whether a forbid clause on ``kind`` holds unlifted, as one expression: ``F1 or F2
    ...`` in the clauses' order, each ``Fi`` being ``C and not (P1 or ...)`` when
    permits ``Pj`` may lift it (``Machine.allowed`` tests them so); None when the
    kind has no forbid clause."""
    held: list[ir.Expr] = []
    for rule, _, _, forbid in machine.forbids.get(kind, ()):
        lifts = [p.when for p in machine.program.of(ir.Permit)
                 if p.action == kind and p.despite == rule]
        term = forbid.when
        if lifts:
            term = ir.BoolOp("and", term, ir.Not(_either(lifts), span), span)
        held.append(term)
    return _either(held) if held else None


def _either(terms: Sequence[ir.Expr]) -> ir.Expr:
    """The terms joined by ``or``, left to right."""
    result = terms[0]
    for term in terms[1:]:
        result = ir.BoolOp("or", result, term, term.span)
    return result


def _is_side_of(node: ir.Expr, binder: str) -> bool:
    return isinstance(node, ir.Attr) and node.name == "side" \
        and isinstance(node.obj, ir.Name) and node.obj.id == binder


def _tag_test(where: ir.Expr | None, binder: str) -> str | None:
    """The tag of a comprehension's ``u is T`` condition, or None."""
    if isinstance(where, ir.Is) and isinstance(where.subject, ir.Name) \
            and where.subject.id == binder:
        return where.name
    return None


def _numeric(kind: str) -> str:
    """An edge binding's cell compares and adds as an integer (a sentinel: ``UNKNOWN``)."""
    return "int" if kind == "number" else kind


def param_type(declared: str) -> str:
    """The machine's type of an action parameter declared ``declared`` (hexes are places)."""
    if declared in ("piece", "player"):
        return declared
    if declared in ("place", "hex", "area", "zone"):
        return "place"
    raise Unsupported(declared)


def compile_forbids(machine: Any, tables: Tables, columns: Columns
                    ) -> dict[str, list[tuple[int, Code]]]:
    """Every forbid clause over its action's parameters alone, by action kind, with its position."""
    compiler = ClauseCompiler(machine, tables, columns)
    found: dict[str, list[tuple[int, Code]]] = {}
    for action in machine.forbids:
        codes = compile_option(compiler, action)
        if codes:
            found[action] = codes
    return found


def compile_option(compiler: ClauseCompiler, action: str,
                   bindings: Sequence[tuple[str, ir.Expr]] = (),
                   edge_names: Sequence[str] = ()) -> list[tuple[int, Code]]:
    """The forbid clauses of ``action`` that compile with an option's ``bindings`` in scope
    (``edge_names``: those of them read from folded columns, see ``compile()``)."""
    machine = compiler.machine
    kind = machine.space.kinds.get(action)
    if kind is None:
        return []
    try:
        params = [(name, param_type(t)) for name, t in kind.params]
    except Unsupported:
        return []
    codes = []
    for position, (rule, _, _, decl) in enumerate(machine.forbids.get(action, ())):
        code = compiler.compile(rule, decl.when, params, bindings, edge_names)
        if code is not None:
            codes.append((position, code))
    return codes


@attrs.frozen
class EdgeColumns:
    """The folded edge bindings a clause reads: a column per ``EDGE_VALUE`` slot (one cell
    per piece and edge of the tables), and ``fill(which, piece, edge)`` to work out a cell
    still ``UNSET`` (it writes the cell and returns it)."""

    columns: tuple[array[int], ...]
    fill: Any


def run(code: Code, params: Sequence[int], tables: Tables, board: Any,
        piece_values: Sequence[int], place_values: Sequence[int],
        values: Sequence[int] = (), edges: EdgeColumns | None = None) -> int:
    """Run a compiled clause: 1 (it holds), 0 (it does not) or ``UNKNOWN``.

    ``params`` are the indices of the action's arguments, in ``code.params``
    order; ``piece_values`` and ``place_values`` are ``Columns.values()``;
    ``values`` the game values ``code.values`` names, as integers
    (``value_cells()``); ``edges`` the columns of ``code.edge_names``.
    """
    return _execute(code.ops, params, tables, board, piece_values, place_values, values,
                    edges)


def _execute(ops: Sequence[int], params: Sequence[int], tables: Tables, board: Any,
             piece_values: Sequence[int], place_values: Sequence[int],
             values: Sequence[int], edges: EdgeColumns | None) -> int:
    """``run()`` on instructions ``ops`` (a whole clause, or a ``QUANTIFY``'s body)."""
    stack: list[int] = []
    seen: set[int] = set()      # the values of DISTINCT quantifiers
    pc = 0
    n_pieces, n_places = tables.n_pieces, tables.n_places
    props = [column for _, column in tables.properties()]
    end = len(ops) // 2
    symbols = len(tables.symbols)
    limits = {TAG: symbols, FEATURE: symbols, CROSSING: symbols, ALL_TAG: symbols,
              ANY_TAG: symbols, PROPERTY: len(props), IN_REGION: len(tables.region_names),
              PIECE_ATTR: len(piece_values) // max(1, n_pieces),
              PLACE_ATTR: len(place_values) // max(1, n_places), VALUE: len(values),
              EDGE_VALUE: len(edges.columns) if edges is not None else 0,
              PARAM: len(params), DEGREE: len(DEGREE_LISTS)}
    while True:
        if pc >= end:
            return UNKNOWN
        op, arg = ops[2 * pc], ops[2 * pc + 1]
        pc += 1
        # Malformed code (the native machine answers the same): an opcode out of
        # range, a stack too short, or as deep as the native machine's holds
        # (STACK_DEPTH entries, one kept spare), an argument indexing nothing.
        if not 0 <= op < len(NEEDS) or len(stack) < NEEDS[op] \
                or len(stack) >= STACK_DEPTH - 1 \
                or (op in limits and not 0 <= arg < limits[op]):
            return UNKNOWN
        if op == PARAM:
            stack.append(params[arg])
        elif op == CONST:
            stack.append(arg)
        elif op in (TAG, FEATURE) and stack[-1] == NONE:
            stack[-1] = 0       # `none is T`, `none has T`: false, as the interpreter says
        elif op in (SIDE, TAG, WHERE, PROPERTY, PIECE_ATTR):
            piece = stack.pop()
            if not 0 <= piece < n_pieces:     # none, or not a piece: the interpreter fails
                return UNKNOWN
            if op == SIDE:
                stack.append(tables.piece_side[piece])
            elif op == TAG:
                stack.append(int(tables.has(tables.piece_tags, piece, arg)))
            elif op == WHERE:
                stack.append(board.place_of(piece))
            elif op == PROPERTY:
                if props[arg][piece] == INEXACT:
                    return UNKNOWN      # a property the piece lacks (tables.ABSENT)
                stack.append(props[arg][piece])
            else:
                value = piece_values[arg * n_pieces + piece]
                if value == INEXACT:
                    return UNKNOWN
                stack.append(value)
        elif op in (FEATURE, KIND, PLACE_ATTR, COUNT):
            place = stack.pop()
            if not 0 <= place < n_places:
                return UNKNOWN
            if op == FEATURE:
                stack.append(int(tables.has(tables.place_features, place, arg)))
            elif op == KIND:
                stack.append(tables.place_kind[place])
            elif op == PLACE_ATTR:
                value = place_values[arg * n_places + place]
                if value == INEXACT:
                    return UNKNOWN
                stack.append(value)
            else:
                stack.append(board.count(place))
        elif op in (OWNED, OTHERS, RIVALS):
            player = stack.pop()
            place = stack.pop()
            if not 0 <= place < n_places or not NONE <= player < len(tables.player_names):
                return UNKNOWN
            if op == OWNED:
                stack.append(board.count_of(place, player))
            elif op == OTHERS:
                stack.append(board.others(place, player))
            else:       # another player's: neither the player's nor ownerless
                stack.append(board.others(place, player) - (
                    board.count_of(place, NONE) if player != NONE else 0))
        elif op in (ADJACENT, CROSSING):
            there = stack.pop()
            here = stack.pop()
            if not (0 <= here < n_places and 0 <= there < n_places):
                return UNKNOWN
            edge = _edge(tables, here, there)
            if op == ADJACENT:
                stack.append(int(edge >= 0))
            else:
                stack.append(int(edge >= 0 and tables.has(tables.edge_features, edge, arg)))
        elif op == DEGREE:
            place = stack.pop()
            if not 0 <= place < n_places:
                return UNKNOWN
            starts = tables.neighbour_start if arg == 0 else tables.shore_start
            stack.append(starts[place + 1] - starts[place])
        elif op == IN_REGION:
            place = stack.pop()
            # `none in group` is false, as in the interpreter.
            stack.append(int(0 <= place < n_places
                             and tables.region_member[arg * n_places + place] == 1))
        elif op == VALUE:
            value = values[arg]
            if value == INEXACT:
                return UNKNOWN
            stack.append(value)
        elif op == EDGE_VALUE:
            if edges is None or len(params) < 2:
                return UNKNOWN
            piece, there = params[0], params[1]
            if not (0 <= piece < n_pieces and 0 <= there < n_places):
                return UNKNOWN
            here = board.place_of(piece)
            edge = _edge(tables, here, there) if 0 <= here < n_places else -1
            if edge < 0:
                return UNKNOWN
            at = piece * len(tables.neighbours) + edge
            cell = edges.columns[arg][at]
            if cell == UNSET:
                cell = edges.fill(arg, piece, edge)
            if cell == INEXACT:
                return UNKNOWN
            stack.append(cell)
        elif op in (ALL_TAG, ANY_TAG):
            place = stack.pop()
            if not 0 <= place < n_places:
                return UNKNOWN
            tagged = [tables.has(tables.piece_tags, piece, arg)
                      for piece in board.occupants(place)]
            stack.append(int(all(tagged) if op == ALL_TAG else any(tagged)))
        elif op == IS_NUMBER:
            stack.append(int(stack.pop() != NOT_A_NUMBER))
        elif op == QUANTIFY:
            place = stack.pop()
            mode, domain, held_in, length = quantify_parts(arg)
            every = domain == QUANTIFIED.index("all pieces")
            one = domain == QUANTIFIED.index("one item")
            filtered = domain == FILTERED
            # Its variable takes the next slot: the body reads the slots before it.
            if arg < 0 or not (every or one or filtered or 0 <= place < n_places) \
                    or mode > DISTINCT_MORE or domain >= len(QUANTIFIED) \
                    or held_in != len(params) or held_in >= SLOTS or pc + length > end \
                    or filtered and (mode > ANY_OF or not 0 < place < length):
                return UNKNOWN
            body = ops[2 * pc:2 * (pc + length)]
            pc += length
            inner = [*params, NONE]
            found = 0
            if filtered:
                # F over every piece (the whole list, as the interpreter builds it),
                # then C over the pieces it keeps, `any` stopping at the first.
                kept = []
                for item in range(n_pieces):
                    inner[held_in] = item
                    answer = _execute(body[:2 * place], inner, tables, board, piece_values,
                                      place_values, values, edges)
                    if answer == UNKNOWN:
                        return UNKNOWN
                    if answer:
                        kept.append(item)
                for item in kept:
                    inner[held_in] = item
                    answer = _execute(body[2 * place:], inner, tables, board, piece_values,
                                      place_values, values, edges)
                    if answer == UNKNOWN:
                        return UNKNOWN
                    found += answer != 0
                    if found and mode == ANY_OF:
                        break
                stack.append(int(found > 0) if mode == ANY_OF else found)
                continue
            if mode == DISTINCT_NEW:
                seen.clear()
            # The items in the interpreter's order: one it would fail on makes
            # the answer UNKNOWN. `any` stops at the first that holds, as the
            # interpreter's does, except over every piece: that domain's filters
            # are the interpreter's list, built whole before `any` looks at it.
            for item in (range(n_pieces) if every else (place,) if one else
                         board.occupants(place) if domain == 0 else
                         tables.neighbours_of(place) if domain == 1 else
                         tables.shore_of(place)):
                inner[held_in] = item
                answer = _execute(body, inner, tables, board, piece_values, place_values,
                                  values, edges)
                if answer == UNKNOWN:
                    return UNKNOWN
                if mode < DISTINCT_NEW:
                    found += answer != 0
                elif answer != SKIPPED and answer not in seen:
                    if len(seen) >= DISTINCT_LIMIT:
                        return UNKNOWN
                    seen.add(answer)
                    found += 1
                if found and mode == ANY_OF and not every:
                    break
            stack.append(int(found > 0) if mode == ANY_OF else found)
        elif op == NOT:
            stack.append(1 - stack.pop())
        elif op == SKIP_UNLESS:
            if stack.pop() == 0:
                return SKIPPED  # a filter left the item out

        elif op in (AND, OR):
            if not pc <= arg <= end:
                return UNKNOWN
            if (stack[-1] == 0) == (op == AND):
                pc = arg           # the answer is decided: keep it, skip the rest
            else:
                stack.pop()
        elif op == RETURN:
            return stack.pop()
        elif op == ASK:
            return UNKNOWN     # a part of the clause only the interpreter evaluates
        else:
            right = stack.pop()
            left = stack.pop()
            if not (-LIMIT < left < LIMIT and -LIMIT < right < LIMIT):
                return UNKNOWN
            stack.append(_binary(op, left, right))


def value_cells(code_values: Sequence[tuple[str, str]], state: Any) -> list[int]:
    """The game values a clause reads, as its ``values`` argument."""
    return [column_cell(state.values[name], kind) for name, kind in code_values]


def _edge(tables: Tables, here: int, there: int) -> int:
    """The index of the edge from ``here`` to ``there`` in the neighbour rows, or -1."""
    for edge in range(tables.neighbour_start[here], tables.neighbour_start[here + 1]):
        if tables.neighbours[edge] == there:
            return edge
    return -1


def _binary(op: int, left: int, right: int) -> int:
    if op == ADD:
        return left + right
    if op == SUB:
        return left - right
    return int({EQ: left == right, NE: left != right, LT: left < right, LE: left <= right,
                GT: left > right, GE: left >= right}[op])
