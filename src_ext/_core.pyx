# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of cortes_rules (module ``cortes_rules._core``).

Status: the first native kernels only. This module holds the parts of the
state-transition core that are written in C so far; everything else still
runs in the reference interpreter (``cortes_rules/engine/``), which is the
specification every kernel here is tested against (tests/backends/).

Kernels:

- ``rng``: the SplitMix64 generator and exact dice of ``engine/rng.py``, on
  unsigned 64-bit integers: the same numbers, bit for bit.
- ``board``: ``Board``, where the pieces are and the occupancy counts that
  follow, in one fixed-size block of memory (a copy is one ``memcpy``); the
  same board as ``engine/board.py``, built from the integer tables of
  ``engine/tables.py``.
- ``clauses``: ``ClauseMachine``, the machine of the forbid-clause bytecode
  of ``engine/bytecode.py`` (whose ``run()`` it must match answer for
  answer), reading the tables, a ``Board`` and the attribute columns.
- ``frames``: ``FrameRunner``, the loop that runs a game state's procedure
  frames (``GameState._run`` of ``engine/machine.py`` is its specification),
  in ``frames.pxi``.
- ``writes``: ``StateWriter``, a piece attribute that changes and a piece put
  into a place, for the generated code (``GameState._piece_changed`` and
  ``GameState._put`` are its specification), in ``writes.pxi``.
- ``steps``: ``StepRunner``, an action id applied and a decision's legal ids
  listed (``GameState.apply`` and ``legal_action_ids`` are its
  specification), in ``steps.pxi``.
- ``logs``: ``LogWriter``, a log line and its audience for the generated
  code (``GameState._log_values`` is its specification), in ``logs.pxi``.

Nothing here knows a game: no rulebook fact is written in this folder.
"""

from cpython.object cimport PyObject
from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from array import array
from types import MemberDescriptorType

from cortes_rules.errors import BoardError

ABI = 6
KERNELS = ("rng", "board", "clauses", "frames", "writes", "steps", "logs")

include "rng.pxi"


def next_state(state):
    """One SplitMix64 step: ``(new state, 64-bit output)``."""
    cdef uint64_t s = <uint64_t>(state & 0xFFFFFFFFFFFFFFFF)
    s += _GOLDEN
    return s, _mix(s)


def below(state, n):
    """A uniform integer in ``[0, n)`` by rejection: ``(new state, value)``."""
    if n < 1:
        raise ValueError("below() needs n >= 1")
    cdef uint64_t s = <uint64_t>(state & 0xFFFFFFFFFFFFFFFF)
    cdef uint64_t v = _below(&s, <uint64_t>n)
    return s, v


def roll_dice(state, int count, int faces):
    """Roll ``count`` dice of ``faces`` faces: ``(new state, total)``."""
    if faces < 1:
        raise ValueError("roll_dice() needs faces >= 1")
    cdef uint64_t s = <uint64_t>(state & 0xFFFFFFFFFFFFFFFF)
    cdef long total = 0
    cdef int _i
    for _i in range(count):
        total += <long>_below(&s, <uint64_t>faces) + 1
    return s, total


# ---------------------------------------------------------------- board
cdef enum:
    NONE = -1


cdef class Board:
    """Where each piece is, what each place holds, what each player owns there.

    The native twin of ``cortes_rules.engine.board.Board`` (see there): the
    same methods, answers and errors. The state is one block of int32:
    the owner of each piece, where each piece is, the count of each place and
    the count of each (place, player), the ownerless pieces in a last column,
    then each place's lowest piece and each piece's next one in the same
    place (-1: none; so a place's pieces are listed ascending without a
    scan), in that order.
    """

    cdef int32_t *block
    cdef Py_ssize_t size
    cdef int32_t *side
    cdef int32_t *where_
    cdef int32_t *count_
    cdef int32_t *owned
    cdef int32_t *first_
    cdef int32_t *next_
    cdef readonly int n_pieces
    cdef int n_places
    cdef int n_players

    def __cinit__(self, piece_side=None, int n_places=0,
                  int n_players=0):
        self.block = NULL
        if piece_side is None:          # clone() fills the block itself
            return
        if n_places < 0 or n_players < 0:
            raise BoardError("a board needs non-negative numbers of places "
                             "and players")
        sides = list(piece_side)
        for owner in sides:
            if not NONE <= owner < n_players:
                raise BoardError(f"piece owner {owner} is not a player "
                                 f"of {n_players}")
        self._allocate(len(sides), n_places, n_players)
        cdef Py_ssize_t i
        for i in range(self.size):
            self.block[i] = 0
        for i in range(self.n_pieces):
            self.side[i] = sides[i]
            self.where_[i] = NONE
            self.next_[i] = NONE
        for i in range(self.n_places):
            self.first_[i] = NONE

    cdef void _allocate(self, int n_pieces, int n_places, int n_players) except *:
        self.n_pieces, self.n_places, self.n_players = n_pieces, n_places, n_players
        self.size = (3 * <Py_ssize_t>n_pieces + 2 * <Py_ssize_t>n_places
                     + <Py_ssize_t>n_places * (n_players + 1))
        self.block = <int32_t *>malloc(max(self.size, 1) * sizeof(int32_t))
        if self.block == NULL:
            raise MemoryError()
        self.side = self.block
        self.where_ = self.side + n_pieces
        self.count_ = self.where_ + n_pieces
        self.owned = self.count_ + n_places
        self.first_ = self.owned + <Py_ssize_t>n_places * (n_players + 1)
        self.next_ = self.first_ + n_places

    def __dealloc__(self):
        free(self.block)

    cdef inline int _piece(self, long piece) except -2:
        if not 0 <= piece < self.n_pieces:
            raise BoardError(f"piece {piece} is not on a board of "
                             f"{self.n_pieces} pieces")
        return <int>piece

    cdef inline int _place(self, long place, bint none_ok) except -2:
        if not (0 <= place < self.n_places or (none_ok and place == NONE)):
            raise BoardError(f"place {place} is not on a board of "
                             f"{self.n_places} places")
        return <int>place

    cdef inline int _column(self, long player) except -2:
        # The column of ``player`` in the counts (-1: the ownerless pieces).
        if not NONE <= player < self.n_players:
            raise BoardError(f"player {player} is not one of {self.n_players}")
        return <int>player if player != NONE else self.n_players

    cpdef int put(self, long piece, long place) except -2:
        """Move ``piece`` to ``place`` (-1: off every place); returns where it was."""
        cdef int p = self._piece(piece)
        cdef int to = self._place(place, True)
        cdef int old = self.where_[p]
        cdef int column = self.side[p] if self.side[p] != NONE else self.n_players
        cdef int width = self.n_players + 1
        cdef int32_t *link
        if old == to:
            return old
        if old != NONE:
            self.count_[old] -= 1
            self.owned[old * width + column] -= 1
            link = &self.first_[old]
            while link[0] != p:
                link = &self.next_[link[0]]
            link[0] = self.next_[p]
            self.next_[p] = NONE
        if to != NONE:
            self.count_[to] += 1
            self.owned[to * width + column] += 1
            link = &self.first_[to]
            while link[0] != NONE and link[0] < p:
                link = &self.next_[link[0]]
            self.next_[p] = link[0]
            link[0] = p
        self.where_[p] = to
        return old

    cpdef int place_of(self, long piece) except -2:
        return self.where_[self._piece(piece)]

    cpdef int count(self, long place) except -1:
        """How many pieces ``place`` holds."""
        return self.count_[self._place(place, False)]

    cpdef int count_of(self, long place, long player) except -1:
        """How many of the pieces in ``place`` belong to ``player`` (-1: nobody)."""
        cdef int at = self._place(place, False)
        return self.owned[at * (self.n_players + 1) + self._column(player)]

    cpdef int others(self, long place, long player) except -1:
        """How many pieces in ``place`` are not ``player``'s (ownerless included)."""
        cdef int at = self._place(place, False)
        return (self.count_[at]
                - self.owned[at * (self.n_players + 1) + self._column(player)])

    def occupants(self, long place):
        """The pieces in ``place``, ascending."""
        cdef int i = self.first_[self._place(place, False)]
        found = []
        while i != NONE:
            found.append(i)
            i = self.next_[i]
        return found

    def where(self):
        """Each piece's place (-1 for none), by piece."""
        return [self.where_[i] for i in range(self.n_pieces)]

    cpdef Board clone(self):
        cdef Board twin = Board.__new__(Board)
        twin._allocate(self.n_pieces, self.n_places, self.n_players)
        memcpy(twin.block, self.block, self.size * sizeof(int32_t))
        return twin


# ---------------------------------------------------------------- clauses
# Opcodes: the numbering of cortes_rules/engine/bytecode.py.
cdef enum:
    PARAM, CONST, SIDE, TAG, FEATURE, KIND, WHERE, PROPERTY, PIECE_ATTR
    PLACE_ATTR, COUNT, OWNED, OTHERS, EQ, NE, LT, LE, GT, GE, ADD, SUB, NOT
    AND, OR, RETURN, ADJACENT, CROSSING, IN_REGION, VALUE, EDGE_VALUE, IS_NUMBER
    ALL_TAG, ANY_TAG, ASK, RIVALS, DEGREE, QUANTIFY, SKIP_UNLESS

cdef enum:
    UNKNOWN = -2
    STACK = 256       # bytecode.STACK_DEPTH
    SLOTS = 8         # bytecode.SLOTS: parameters and comprehension variables
    ANY_OF = 1        # bytecode.ANY_OF: QUANTIFY's mode that answers 0 or 1
    DISTINCT_NEW = 2  # bytecode.DISTINCT_NEW and DISTINCT_MORE: distinct values
    DISTINCT_MORE = 3
    DISTINCT_LIMIT = 64     # bytecode.DISTINCT_LIMIT

cdef int64_t INEXACT = -(1 << 62)    # bytecode.INEXACT: a cell that is no integer
cdef int64_t NOT_A_NUMBER = INEXACT + 1
cdef int64_t UNSET = INEXACT + 2
cdef int64_t SKIPPED = INEXACT + 3  # bytecode.SKIPPED: an item a filter leaves out
cdef int64_t LIMIT = 1 << 61
cdef enum:
    EDGE_COLUMNS = 4     # the edge bindings one clause may read
    OPCODES = 38
    FILTERED = 5         # bytecode.FILTERED: QUANTIFY over the pieces a filter keeps
    KEPT_LISTS = 4       # the lists of FILTERED quantifiers one listing keeps

# How many stack entries each opcode reads (bytecode.NEEDS).
cdef int NEEDS[OPCODES]
NEEDS[:] = [0, 0, 1, 1, 1, 1, 1, 1, 1, 1, 1, 2, 2, 2, 2, 2, 2, 2, 2, 2, 2, 1, 1, 1, 1,
            2, 2, 1, 0, 0, 1, 1, 1, 0, 2, 1, 1, 1]


cdef extern from "Python.h":
    # A slot of a class with ``__slots__`` is a member descriptor that names
    # where in each instance its value is kept.
    ctypedef struct PyMemberDef:
        Py_ssize_t offset
    ctypedef struct PyMemberDescrObject:
        PyMemberDef *d_member
    bint PyLong_CheckExact(PyObject *)
    long long PyLong_AsLongLong(object) except? -1


cdef type _MEMBER = MemberDescriptorType
cdef dict _INDEX_SLOTS = {}     # by class: where its instances keep ``index``, or -1


cdef Py_ssize_t _index_slot(object wanted, object sample) except -2:
    # Where instances of ``wanted`` (Piece, Place: classes with ``__slots__``)
    # keep their ``index``, checked against ``sample.index`` the first time; -1
    # when it is no such slot (``.index`` is then read as an attribute).
    cdef Py_ssize_t offset
    found = _INDEX_SLOTS.get(wanted)
    if found is not None:
        return found
    if type(sample) is not wanted:
        return -1       # nothing to check the slot against: the next call will
    offset = -1
    descriptor = wanted.__dict__.get("index")
    if type(descriptor) is _MEMBER:
        offset = (<PyMemberDescrObject *> <PyObject *> descriptor).d_member.offset
        if _slot_index(sample, offset) != sample.index:
            offset = -1
    _INDEX_SLOTS[wanted] = offset
    return offset


cdef inline int64_t _slot_index(object value, Py_ssize_t offset) except? -2:
    # ``value.index`` read from its slot (``_index_slot``); -1 when it holds no int.
    cdef PyObject *held = (<PyObject **> ((<char *> <PyObject *> value) + offset))[0]
    if held == NULL or not PyLong_CheckExact(held):
        return -1
    return PyLong_AsLongLong(<object> held)


cdef inline int64_t _numbered(object value, object wanted, Py_ssize_t slot,
                              const int64_t *positions,
                              Py_ssize_t n_positions) except? -2:
    # A value's index when it is a ``wanted`` (Piece or Place) with a position
    # in an action's numbering (``n_positions`` of them); else -1. ``slot``:
    # where a ``wanted`` keeps its index (``_index_slot``), or -1.
    cdef int64_t index
    if type(value) is not wanted:
        return -1
    index = _slot_index(value, slot) if slot >= 0 else value.index
    if not 0 <= index < n_positions or positions[index] < 0:
        return -1
    return index


cdef struct Cells:
    # A clause's attribute columns (bytecode.Columns), flat, as pointers: a
    # memoryview passed to each run of a clause would be copied at every call.
    const int64_t *pieces
    Py_ssize_t n_pieces
    const int64_t *places
    Py_ssize_t n_places


cdef inline Cells _cells(const int64_t[:] piece_values, const int64_t[:] place_values):
    cdef Cells cells
    cells.n_pieces = piece_values.shape[0]
    cells.pieces = &piece_values[0] if cells.n_pieces else NULL
    cells.n_places = place_values.shape[0]
    cells.places = &place_values[0] if cells.n_places else NULL
    return cells


cdef class ClauseMachine:
    """Runs compiled forbid clauses on a board and attribute columns.

    Built once per rulebook from its ``Tables``; ``run()`` answers 1, 0 or
    -2 (``bytecode.UNKNOWN``: the interpreter's clause would fail), exactly
    as ``cortes_rules.engine.bytecode.run``.
    """

    cdef int n_pieces
    cdef int n_places
    cdef int n_players
    cdef int words
    cdef const int32_t[:] side
    cdef const uint64_t[:] tags
    cdef const uint64_t[:] features
    cdef const int8_t[:] kinds
    cdef const int64_t[:] props
    cdef const int32_t[:] neighbour_start
    cdef const int32_t[:] shore_start
    cdef const int32_t[:] neighbours
    cdef const int32_t[:] shore
    cdef const int64_t[:] every_piece
    cdef const uint64_t[:] edge_features
    cdef const int8_t[:] regions
    cdef Py_ssize_t n_symbols
    cdef Py_ssize_t n_props
    cdef Py_ssize_t n_regions
    # The pieces each FILTERED quantifier's filter keeps, worked out once per
    # ``filter_items`` (the filter reads nothing that changes between its items):
    # KEPT_LISTS lists of up to n_pieces, found by the address of their code.
    cdef int64_t *kept
    cdef const int64_t *kept_code[KEPT_LISTS]
    cdef Py_ssize_t kept_count[KEPT_LISTS]
    cdef int kept_used
    cdef bint keeping

    def __cinit__(self, *args, **kwargs):
        self.kept = NULL
        self.kept_used = 0
        self.keeping = False

    def __dealloc__(self):
        free(self.kept)

    def __init__(self, tables):
        self.n_pieces = len(tables.piece_ids)
        self.n_places = len(tables.place_ids)
        self.n_players = len(tables.player_names)
        self.words = tables.words
        self.side = tables.piece_side
        self.tags = tables.piece_tags
        self.features = tables.place_features
        self.kinds = tables.place_kind
        flat = array("q")
        properties = tables.properties()    # integer columns, then text codes
        for _, column in properties:
            flat.extend(column)
        self.props = flat if len(flat) else array("q", [0])
        self.neighbour_start = tables.neighbour_start
        self.shore_start = tables.shore_start
        self.shore = tables.shore if len(tables.shore) else array("i", [0])
        self.every_piece = array("q", range(self.n_pieces))
        self.neighbours = (tables.neighbours if len(tables.neighbours)
                           else array("i", [0]))
        self.edge_features = (tables.edge_features if len(tables.edge_features)
                              else array("Q", [0]))
        self.regions = (tables.region_member if len(tables.region_member)
                        else array("b", [0]))
        self.n_symbols = len(tables.symbols)
        self.n_props = len(properties)
        self.n_regions = len(tables.region_names)
        self.kept = <int64_t *> malloc(sizeof(int64_t) * KEPT_LISTS
                                       * max(1, self.n_pieces))
        if self.kept == NULL:
            raise MemoryError()

    cdef inline Py_ssize_t _edge(self, int64_t here, int64_t there) noexcept:
        # The edge from ``here`` to ``there`` in the neighbour rows, or -1.
        cdef Py_ssize_t edge
        for edge in range(self.neighbour_start[here], self.neighbour_start[here + 1]):
            if self.neighbours[edge] == there:
                return edge
        return -1

    def run(self, const int64_t[:] ops, params, Board board,
            const int64_t[:] piece_values, const int64_t[:] place_values,
            values=(), edges=None):
        """Run one clause: 1 (it holds), 0 (it does not) or -2 (ask the interpreter).

        ``values`` and ``edges`` are as for ``bytecode.run``.
        """
        cdef int64_t slots[SLOTS]
        cdef int64_t cells[8]
        cdef int64_t *columns[EDGE_COLUMNS]
        cdef int64_t[:] view
        cdef Py_ssize_t i
        cdef Cells attrs
        if len(params) > SLOTS or len(values) > 8:
            return UNKNOWN
        for i in range(SLOTS):
            slots[i] = params[i] if i < len(params) else NONE
        for i in range(len(values)):
            cells[i] = values[i]
        fill = None
        for i in range(EDGE_COLUMNS):
            columns[i] = NULL
        if edges is not None:
            if len(edges.columns) > EDGE_COLUMNS:
                return UNKNOWN
            for i in range(len(edges.columns)):
                view = edges.columns[i]
                columns[i] = &view[0]
            fill = edges.fill
        if ops.shape[0] < 2:
            return UNKNOWN
        attrs = _cells(piece_values, place_values)
        return self._run(&ops[0], ops.shape[0] // 2, slots, len(params), board,
                         &attrs, cells, len(values), columns,
                         len(edges.columns) if edges is not None else 0, fill)

    cdef int64_t _run(self, const int64_t *ops, Py_ssize_t end, int64_t *slots,
                      Py_ssize_t n_slots, Board board, const Cells *attrs,
                      int64_t *values,
                      Py_ssize_t n_values, int64_t **columns, Py_ssize_t n_columns,
                      object fill) except? -3:
        # ``ops``: the clause's ``end`` instructions, two integers each. Malformed
        # code answers UNKNOWN, as bytecode.run does.
        cdef int64_t stack[STACK]
        cdef int64_t seen[DISTINCT_LIMIT]   # the values of DISTINCT quantifiers
        cdef int n_seen = 0
        cdef int top = 0
        cdef Py_ssize_t pc = 0
        cdef int64_t op, arg, x, y
        cdef Py_ssize_t edge
        cdef int width = self.n_players + 1
        # The structural checks of bytecode.run, placed so that the C compiler
        # makes one jump table of the dispatch: an opcode out of range or short
        # of stack fails here; an argument that indexes nothing fails in its
        # opcode's case (before anything else, as every failure answers
        # UNKNOWN); a full stack fails after the push that fills it (the next
        # instruction, or the end of the code, would answer UNKNOWN).
        while pc < end:
            op = ops[2 * pc]
            arg = ops[2 * pc + 1]
            pc += 1
            if not 0 <= op < OPCODES or top < NEEDS[op]:
                return UNKNOWN
            if op == PARAM:
                if not 0 <= arg < n_slots:
                    return UNKNOWN
                stack[top] = slots[arg]
                top += 1
                if top >= STACK - 1:
                    return UNKNOWN
            elif op == CONST:
                stack[top] = arg
                top += 1
                if top >= STACK - 1:
                    return UNKNOWN
            elif op == EQ or op == NE or op == LT or op == LE or op == GT or op == GE \
                    or op == ADD or op == SUB:
                y = stack[top - 1]
                x = stack[top - 2]
                top -= 1
                if not (-LIMIT < x < LIMIT and -LIMIT < y < LIMIT):
                    return UNKNOWN
                if op == ADD:
                    x = x + y
                elif op == SUB:
                    x = x - y
                elif op == EQ:
                    x = x == y
                elif op == NE:
                    x = x != y
                elif op == LT:
                    x = x < y
                elif op == LE:
                    x = x <= y
                elif op == GT:
                    x = x > y
                else:
                    x = x >= y
                stack[top - 1] = x
            elif op == NOT:
                stack[top - 1] = 1 - stack[top - 1]
            elif op == SKIP_UNLESS:
                if stack[top - 1] == 0:
                    return SKIPPED      # a filter left the item out
                top -= 1
            elif op == AND or op == OR:
                if not pc <= arg <= end:
                    return UNKNOWN
                if (stack[top - 1] == 0) == (op == AND):
                    pc = arg
                else:
                    top -= 1
            elif op == SIDE or op == TAG or op == WHERE or op == PROPERTY \
                    or op == PIECE_ATTR:
                if op == TAG and not 0 <= arg < self.n_symbols \
                        or op == PROPERTY and not 0 <= arg < self.n_props \
                        or op == PIECE_ATTR and not (
                            self.n_pieces and 0 <= arg
                            < attrs.n_pieces // self.n_pieces):
                    return UNKNOWN
                x = stack[top - 1]
                if op == TAG and x == NONE:
                    stack[top - 1] = 0      # `none is T`: false
                    continue
                if not 0 <= x < self.n_pieces:
                    return UNKNOWN
                if op == SIDE:
                    y = self.side[x]
                elif op == TAG:
                    y = (self.tags[x * self.words + arg // 64] >> (arg % 64)) & 1
                elif op == WHERE:
                    y = board.where_[x]
                elif op == PROPERTY:
                    y = self.props[arg * self.n_pieces + x]
                    if y == INEXACT:
                        return UNKNOWN      # a property the piece lacks
                else:
                    y = attrs.pieces[arg * self.n_pieces + x]
                    if y == INEXACT:
                        return UNKNOWN
                stack[top - 1] = y
            elif op == FEATURE or op == KIND or op == PLACE_ATTR or op == COUNT:
                if op == FEATURE and not 0 <= arg < self.n_symbols \
                        or op == PLACE_ATTR and not (
                            self.n_places and 0 <= arg
                            < attrs.n_places // self.n_places):
                    return UNKNOWN
                x = stack[top - 1]
                if op == FEATURE and x == NONE:
                    stack[top - 1] = 0      # `none has T`: false
                    continue
                if not 0 <= x < self.n_places:
                    return UNKNOWN
                if op == FEATURE:
                    y = (self.features[x * self.words + arg // 64] >> (arg % 64)) & 1
                elif op == KIND:
                    y = self.kinds[x]
                elif op == PLACE_ATTR:
                    y = attrs.places[arg * self.n_places + x]
                    if y == INEXACT:
                        return UNKNOWN
                else:
                    y = board.count_[x]
                stack[top - 1] = y
            elif op == OWNED or op == OTHERS or op == RIVALS:
                y = stack[top - 1]      # the player
                x = stack[top - 2]      # the place
                top -= 1
                if not 0 <= x < self.n_places or not NONE <= y < self.n_players:
                    return UNKNOWN
                if y == NONE:
                    y = self.n_players
                if op == RIVALS and y != self.n_players:
                    # another player's: neither this player's nor ownerless
                    stack[top - 1] = board.count_[x] - board.owned[x * width + y] \
                        - board.owned[x * width + self.n_players]
                    continue
                y = board.owned[x * width + y]
                stack[top - 1] = y if op == OWNED else board.count_[x] - y
            elif op == ADJACENT or op == CROSSING:
                if op == CROSSING and not 0 <= arg < self.n_symbols:
                    return UNKNOWN
                y = stack[top - 1]
                x = stack[top - 2]
                top -= 1
                if not (0 <= x < self.n_places and 0 <= y < self.n_places):
                    return UNKNOWN
                edge = self._edge(x, y)
                if op == ADJACENT:
                    stack[top - 1] = edge >= 0
                else:
                    stack[top - 1] = edge >= 0 and (
                        self.edge_features[edge * self.words + arg // 64]
                        >> (arg % 64)) & 1
            elif op == VALUE:
                if not 0 <= arg < n_values or values[arg] == INEXACT:
                    return UNKNOWN
                stack[top] = values[arg]
                top += 1
                if top >= STACK - 1:
                    return UNKNOWN
            elif op == EDGE_VALUE:
                if not 0 <= arg < n_columns or columns[arg] == NULL or n_slots < 2:
                    return UNKNOWN
                x = slots[0]
                y = slots[1]
                if not (0 <= x < self.n_pieces and 0 <= y < self.n_places):
                    return UNKNOWN
                if board.where_[x] < 0:
                    return UNKNOWN
                edge = self._edge(board.where_[x], y)
                if edge < 0:
                    return UNKNOWN
                edge += x * self.neighbours.shape[0]
                if columns[arg][edge] == UNSET:
                    if fill is None:
                        return UNKNOWN
                    fill(arg, x, edge - x * self.neighbours.shape[0])
                if columns[arg][edge] == INEXACT or columns[arg][edge] == UNSET:
                    return UNKNOWN
                stack[top] = columns[arg][edge]
                top += 1
                if top >= STACK - 1:
                    return UNKNOWN
            elif op == ALL_TAG or op == ANY_TAG:
                if not 0 <= arg < self.n_symbols:
                    return UNKNOWN
                x = stack[top - 1]
                if not 0 <= x < self.n_places:
                    return UNKNOWN
                y = op == ALL_TAG       # the answer for an empty place
                edge = board.first_[x]  # the place's pieces
                while edge != NONE:
                    if ((self.tags[edge * self.words + arg // 64] >> (arg % 64)) & 1) \
                            != (op == ALL_TAG):
                        y = op != ALL_TAG
                        break
                    edge = board.next_[edge]
                stack[top - 1] = y
            elif op == IS_NUMBER:
                stack[top - 1] = stack[top - 1] != NOT_A_NUMBER
            elif op == DEGREE:
                if not 0 <= arg < 2:    # bytecode.DEGREE_LISTS: neighbours, shore
                    return UNKNOWN
                x = stack[top - 1]
                if not 0 <= x < self.n_places:
                    return UNKNOWN
                if arg == 0:
                    y = self.neighbour_start[x + 1] - self.neighbour_start[x]
                else:
                    y = self.shore_start[x + 1] - self.shore_start[x]
                stack[top - 1] = y
            elif op == QUANTIFY:
                x = stack[top - 1]
                y = self._quantify(x, arg, ops + 2 * pc, end - pc, slots, n_slots,
                                   board, attrs, values, n_values,
                                   columns, n_columns, fill, seen, &n_seen)
                if y == UNKNOWN:
                    return UNKNOWN
                stack[top - 1] = y
                pc += arg % 65536
            elif op == IN_REGION:
                if not 0 <= arg < self.n_regions:
                    return UNKNOWN
                x = stack[top - 1]
                stack[top - 1] = (0 <= x < self.n_places
                                  and self.regions[arg * self.n_places + x] == 1)
            elif op == RETURN:
                return stack[top - 1]
            elif op == ASK:
                return UNKNOWN      # a part only the interpreter evaluates
        return UNKNOWN

    cdef bint _side_first(self, const int64_t *body, Py_ssize_t length, Py_ssize_t slot,
                          const int64_t *slots, Py_ssize_t n_slots, int64_t *side):
        # Whether code over pieces (the piece in ``slot``) starts by requiring the
        # piece's side to equal a constant or another slot's value (one of the
        # ``n_slots`` set), and returns at once when it does not: a piece of
        # another side then answers 0, exactly as running the code would, and
        # ``side`` is set to the value.
        cdef int64_t target, value
        if length < 6 or body[0] != PARAM or body[1] != slot or body[2] != SIDE \
                or body[6] != EQ or body[8] != AND:
            return False
        if body[4] == CONST:
            value = body[5]
        elif body[4] == PARAM and 0 <= body[5] < n_slots and body[5] != slot:
            value = slots[body[5]]
        else:
            return False
        target = body[9]
        if not (5 <= target < length) or not -LIMIT < value < LIMIT \
                or body[2 * target] != RETURN:
            return False
        side[0] = value
        return True

    cdef int64_t _quantify(self, int64_t place, int64_t arg, const int64_t *body,
                           Py_ssize_t room, int64_t *slots, Py_ssize_t n_slots,
                           Board board, const Cells *attrs, int64_t *values,
                           Py_ssize_t n_values, int64_t **columns, Py_ssize_t n_columns,
                           object fill, int64_t *seen, int *n_seen) except? -3:
        # QUANTIFY (bytecode.quantify_arg): run the body that follows for each
        # item of a place's list (or of every piece: domain 3; or the one item
        # that is the value on the stack: domain 4), in the
        # interpreter's order, the item in its slot; how many it holds for
        # (ANY_OF: whether any does, stopping at the first), or UNKNOWN if it
        # answers that for any it reaches. DISTINCT_NEW and DISTINCT_MORE: how many
        # values the body gives (SKIPPED aside) that ``seen`` lacks, which keeps
        # them (emptied first by DISTINCT_NEW).
        cdef int64_t length = arg % 65536
        cdef int64_t slot = (arg // 65536) % 16
        cdef int64_t domain = (arg // (65536 * 16)) % 8
        cdef int64_t mode = arg // (65536 * 128)
        cdef int64_t found = 0, answer, item = NONE, side = NONE
        cdef Py_ssize_t i, start, stop
        cdef int k
        cdef bint by_side = False
        cdef const int32_t[:] items
        # Its variable takes the next slot: the body reads the slots before it.
        if arg < 0 or mode > DISTINCT_MORE or domain > FILTERED or slot != n_slots \
                or slot >= SLOTS or length > room \
                or not (domain >= 3 or 0 <= place < self.n_places):
            return UNKNOWN
        if domain == FILTERED:
            if mode > ANY_OF or not 0 < place < length:
                return UNKNOWN
            return self._filtered(place, mode, body, length, slots, slot, board, attrs,
                                  values, n_values, columns, n_columns, fill)
        if mode == DISTINCT_NEW:
            n_seen[0] = 0
        if domain == 4:
            start, stop = 0, 1                  # one item: the value itself
            item = place
        elif domain == 0:
            start, stop = 0, board.count_[place]
            item = board.first_[place]          # the place's pieces, ascending
        elif domain == 3:
            start, stop = 0, self.n_pieces
            by_side = mode < DISTINCT_NEW and self._side_first(
                body, length, slot, slots, slot, &side)
        elif domain == 1:
            items = self.neighbours
            start, stop = self.neighbour_start[place], self.neighbour_start[place + 1]
        else:
            items = self.shore
            start, stop = self.shore_start[place], self.shore_start[place + 1]
        for i in range(start, stop):
            if domain == 4:
                pass
            elif domain == 0:
                if i > 0:
                    item = board.next_[item]
            elif domain == 3:
                item = i
                if by_side and self.side[i] != side:
                    continue        # the body's first test fails, and nothing else runs
            else:
                item = items[i]
            slots[slot] = item
            answer = self._run(body, length, slots, slot + 1, board,
                               attrs, values, n_values, columns,
                               n_columns, fill)
            if answer == UNKNOWN:
                return UNKNOWN
            if mode < DISTINCT_NEW:
                found += answer != 0
            elif answer != SKIPPED:
                for k in range(n_seen[0]):
                    if seen[k] == answer:
                        break
                else:
                    if n_seen[0] >= DISTINCT_LIMIT:
                        return UNKNOWN
                    seen[n_seen[0]] = answer
                    n_seen[0] += 1
                    found += 1
            if found and mode == ANY_OF and domain != 3:
                break       # as the interpreter's `any`: the same items, in order
        if mode == ANY_OF:
            return found > 0
        return found

    cdef int64_t _filtered(self, int64_t head, int64_t mode, const int64_t *body,
                           Py_ssize_t length, int64_t *slots, Py_ssize_t slot,
                           Board board, const Cells *attrs, int64_t *values,
                           Py_ssize_t n_values, int64_t **columns, Py_ssize_t n_columns,
                           object fill) except? -3:
        # QUANTIFY over FILTERED pieces: the ``head`` instructions of ``body`` are the
        # filter, run over every piece (UNKNOWN if it answers that for any), the
        # rest the condition, run over the pieces the filter keeps (``any`` stops
        # at the first that holds). Within ``filter_items`` the kept pieces are
        # worked out once, by the first item, and found again by the others.
        cdef int64_t *kept = NULL
        cdef Py_ssize_t n_kept = 0, i
        cdef int64_t found = 0, answer, side = NONE
        cdef int entry
        cdef bint mine = False, by_side
        if self.keeping:
            for entry in range(self.kept_used):
                if self.kept_code[entry] == body:
                    kept = self.kept + entry * max(1, self.n_pieces)
                    n_kept = self.kept_count[entry]
                    break
        try:
            if kept == NULL:
                if self.keeping and self.kept_used < KEPT_LISTS:
                    kept = self.kept + self.kept_used * max(1, self.n_pieces)
                else:
                    kept = <int64_t *> malloc(sizeof(int64_t) * max(1, self.n_pieces))
                    if kept == NULL:
                        raise MemoryError()
                    mine = True
                by_side = self._side_first(body, head, slot, slots, slot, &side)
                for i in range(self.n_pieces):
                    if by_side and self.side[i] != side:
                        continue
                    slots[slot] = i
                    answer = self._run(body, head, slots, slot + 1, board, attrs,
                                       values, n_values, columns, n_columns, fill)
                    if answer == UNKNOWN:
                        return UNKNOWN
                    if answer:
                        kept[n_kept] = i
                        n_kept += 1
                if not mine:
                    self.kept_code[self.kept_used] = body
                    self.kept_count[self.kept_used] = n_kept
                    self.kept_used += 1
            for i in range(n_kept):
                slots[slot] = kept[i]
                answer = self._run(body + 2 * head, length - head, slots, slot + 1,
                                   board, attrs, values, n_values, columns, n_columns,
                                   fill)
                if answer == UNKNOWN:
                    return UNKNOWN
                found += answer != 0
                if found and mode == ANY_OF:
                    break
        finally:
            if mine:
                free(kept)
        if mode == ANY_OF:
            return found > 0
        return found

    def enumerate_edges(self, units, Board board, const int64_t[:] piece_values,
                        const int64_t[:] place_values, values, edges,
                        const int64_t[:] program, const int64_t[:] layout,
                        int8_t[:] settled, const int64_t[:] piece_pos,
                        const int64_t[:] place_pos, int64_t base, int64_t width,
                        list out, bint stop, ask=None):
        """List an option's candidates ``(unit, to)`` along the board's edges.

        ``program`` holds the option's compiled clauses one after the other;
        ``layout`` says where: the ``where`` clause's start, length (-1, 0
        for none) and whether it is static, the number of forbid clauses, then
        for each its start, length, number of permits and whether it (with
        its permits) is static, followed by each permit's start and length
        (in instructions). A static clause reads nothing a move along the
        edge does not fix; ``settled`` keeps, per (piece, edge), what the
        static ones decided (-1 not yet, 0 none refuses, 1 refused, 2 ask
        the interpreter).

        For each unit (piece indices, in the option's order) and each place
        next to it (in the map's order): every edge binding's cell is worked
        out, the ``where`` clause must hold, and no forbid clause may hold
        unless one of its permits does. Each candidate's action id
        (``base + position of unit * width + position of to``) is appended
        to ``out``. A candidate that a clause answers ``UNKNOWN`` for (an
        ``ASK`` reached) is decided by ``ask(unit, to)`` (their indices), the
        interpreter's test of it; without ``ask``, or when a static clause or
        an edge binding cannot be worked out, it returns 0 at once (the caller
        then lets the interpreter list them). Otherwise it returns 1.
        """
        cdef int64_t slots[SLOTS]
        cdef int64_t cells[8]
        cdef int64_t *columns[EDGE_COLUMNS]
        cdef int64_t[:] view
        cdef const int64_t *code = &program[0]
        cdef Py_ssize_t i, cell, n_columns, n_values = len(values)
        cdef Py_ssize_t edge, start, end, n_edges = self.neighbours.shape[0]
        cdef int64_t unit, here, there, answer
        cdef int8_t known
        cdef Cells attrs = _cells(piece_values, place_values)
        if n_values > 8 or len(edges.columns) > EDGE_COLUMNS:
            return 0
        for i in range(n_values):
            cells[i] = values[i]
        for i in range(SLOTS):
            slots[i] = NONE
        n_columns = len(edges.columns)
        for i in range(EDGE_COLUMNS):
            columns[i] = NULL
        for i in range(n_columns):
            view = edges.columns[i]
            columns[i] = &view[0]
        fill = edges.fill
        for unit in units:
            if not 0 <= unit < self.n_pieces or piece_pos[unit] < 0:
                return 0
            here = board.where_[unit]
            if here < 0:
                return 0
            start = self.neighbour_start[here]
            end = self.neighbour_start[here + 1]
            for edge in range(start, end):
                there = self.neighbours[edge]
                slots[0] = unit
                slots[1] = there
                cell = unit * n_edges + edge
                known = settled[cell]
                if known == -1:
                    # Every binding along the edge is worked out (one that fails
                    # is INEXACT: the interpreter reports it), then the static
                    # clauses decide once for this piece and edge.
                    known = 0
                    for i in range(n_columns):
                        if columns[i][cell] == UNSET:
                            fill(i, unit, edge)
                        if columns[i][cell] == INEXACT:
                            known = 2
                    if known == 0:
                        known = self._clauses(code, &layout[0], True, slots, board,
                                              &attrs, cells,
                                              n_values, columns, n_columns, fill)
                    settled[cell] = known
                if known == 2:
                    return 0
                if known == 1:
                    continue
                answer = self._clauses(code, &layout[0], False, slots, board, &attrs,
                                       cells, n_values, columns, n_columns, fill)
                if answer == 2:
                    if ask is None:
                        return 0
                    if not ask(unit, there):
                        continue
                elif answer == 1:
                    continue
                if place_pos[there] < 0:
                    return 0
                out.append(base + piece_pos[unit] * width + place_pos[there])
                if stop:
                    return 1
        return 1

    def enumerate_pairs(self, firsts, seconds, first_type, second_type, Board board,
                        const int64_t[:] piece_values, const int64_t[:] place_values,
                        values, const int64_t[:] program, const int64_t[:] layout,
                        const int64_t[:] first_pos, const int64_t[:] second_pos,
                        int64_t base, int64_t width, list out, bint stop, ask):
        """List an option's candidates ``(a, b)`` over two lists of pieces or places.

        ``firsts`` are the first parameter's values (in the option's order, each
        a ``first_type``: Piece or Place) and ``seconds[i]`` the second's for
        ``firsts[i]`` (each a ``second_type``); both as lists or tuples. ``program``
        and ``layout`` are as for ``enumerate_edges``, with no clause static.
        A candidate that a clause answers ``UNKNOWN`` for (an ``ASK`` reached,
        say) is decided by ``ask(a, b)`` (the indices of the two values), the
        interpreter's test of it. Each candidate's id is appended to ``out``.
        Returns 1, or 0 when a value is of another type or has no position in
        the action's numbering (the interpreter lists them instead).
        """
        cdef int64_t slots[SLOTS]
        cdef int64_t cells[8]
        cdef int64_t *columns[EDGE_COLUMNS]
        cdef const int64_t *code = &program[0]
        cdef Py_ssize_t i, j, n_values = len(values)
        cdef int64_t first, second
        cdef int8_t answer
        cdef Cells attrs = _cells(piece_values, place_values)
        cdef Py_ssize_t first_slot = -1, second_slot = -1
        if n_values > 8 or len(firsts) != len(seconds):
            return 0
        if len(firsts):
            first_slot = _index_slot(first_type, firsts[0])
            if len(seconds[0]):
                second_slot = _index_slot(second_type, seconds[0][0])
        for i in range(n_values):
            cells[i] = values[i]
        for i in range(SLOTS):
            slots[i] = NONE
        for i in range(EDGE_COLUMNS):
            columns[i] = NULL
        for i in range(len(firsts)):
            first = _numbered(firsts[i], first_type, first_slot, &first_pos[0],
                              first_pos.shape[0])
            if first < 0:
                return 0
            targets = seconds[i]
            for j in range(len(targets)):
                second = _numbered(targets[j], second_type, second_slot,
                                   &second_pos[0], second_pos.shape[0])
                if second < 0:
                    return 0
                slots[0] = first
                slots[1] = second
                answer = self._clauses(code, &layout[0], False, slots, board, &attrs,
                                       cells, n_values, columns, 0, None)
                if answer == 1:
                    continue
                if answer == 2 and not ask(first, second):
                    continue
                out.append(base + first_pos[first] * width + second_pos[second])
                if stop:
                    return 1
        return 1

    def filter_pieces(self, const int64_t[:] ops, params, Board board,
                      const int64_t[:] piece_values, const int64_t[:] place_values,
                      values=()):
        """The indices of the pieces a condition holds for, ascending, or None.

        The condition is compiled with the piece as slot 0 and ``params`` in
        the slots after it. None when it answers ``UNKNOWN`` for any piece
        (the interpreter would fail there, or reads what is not an integer):
        the interpreter then evaluates the whole domain.
        """
        return self._filter(ops, params, self.every_piece, board, piece_values,
                            place_values, values, True)

    def filter_items(self, const int64_t[:] ops, params, const int64_t[:] items,
                     Board board, const int64_t[:] piece_values,
                     const int64_t[:] place_values, values=()):
        """The positions in ``items`` (piece or place indices) of those a condition
        holds for, ascending, or None: ``filter_pieces`` over given items."""
        return self._filter(ops, params, items, board, piece_values, place_values,
                            values, False)

    def filter_objects(self, const int64_t[:] ops, params, objects, wanted,
                       bint pieces, Board board, const int64_t[:] piece_values,
                       const int64_t[:] place_values, values=()):
        """``filter_items`` over a list or tuple of pieces (``pieces``) or places,
        each of the class ``wanted``: a list of those the condition holds for, in
        their order, or None (an object of another class or outside the
        numbering, or ``UNKNOWN`` for any)."""
        cdef Py_ssize_t i, n = len(objects), slot = -1
        cdef int64_t index, limit = self.n_pieces if pieces else self.n_places
        indices = array("q", bytes(8 * n)) if n else array("q", [0])
        cdef int64_t[:] view = indices
        if n:
            slot = _index_slot(wanted, objects[0])
        for i in range(n):
            value = objects[i]
            if type(value) is not wanted:
                return None
            index = _slot_index(value, slot) if slot >= 0 else value.index
            if not 0 <= index < limit:
                return None
            view[i] = index
        if n == 0:
            return []
        found = self._filter(ops, params, view, board, piece_values, place_values,
                             values, pieces)
        if found is None:
            return None
        return [objects[i] for i in found]

    cdef object _filter(self, const int64_t[:] ops, params, const int64_t[:] items,
                        Board board, const int64_t[:] piece_values,
                        const int64_t[:] place_values, values, bint pieces):
        # ``filter_items``; over every piece (``pieces``), those of another side are
        # skipped when the condition starts by requiring one (``_side_first``).
        cdef int64_t slots[SLOTS]
        cdef int64_t cells[8]
        cdef int64_t *columns[EDGE_COLUMNS]
        cdef Py_ssize_t i, n_slots = len(params) + 1
        cdef int64_t answer, side = NONE
        cdef bint by_side
        cdef list found = []
        cdef Cells attrs = _cells(piece_values, place_values)
        if n_slots > SLOTS or len(values) > 8 or ops.shape[0] < 2:
            return None
        for i in range(1, SLOTS):
            slots[i] = params[i - 1] if i < n_slots else NONE
        for i in range(len(values)):
            cells[i] = values[i]
        for i in range(EDGE_COLUMNS):
            columns[i] = NULL
        by_side = pieces and self._side_first(&ops[0], ops.shape[0] // 2, 0, slots,
                                              n_slots, &side)
        # Slots 1 and up hold the same values for every item: the pieces of a
        # FILTERED quantifier's filter are kept from one item to the next.
        self.keeping = True
        self.kept_used = 0
        try:
            for i in range(items.shape[0]):
                if by_side and self.side[items[i]] != side:
                    continue
                slots[0] = items[i]
                answer = self._run(&ops[0], ops.shape[0] // 2, slots, n_slots, board,
                                   &attrs, cells, len(values), columns,
                                   0, None)
                if answer == UNKNOWN:
                    return None
                if answer:
                    found.append(i)
        finally:
            self.keeping = False
            self.kept_used = 0
        return found

    cdef int8_t _clauses(self, const int64_t *code, const int64_t *layout,
                         bint static, int64_t *slots, Board board, const Cells *attrs,
                         int64_t *cells, Py_ssize_t n_values, int64_t **columns,
                         Py_ssize_t n_columns, object fill) except -3:
        # The static (or the other) clauses of a layout, for one candidate:
        # 0 none refuses it, 1 one does, 2 ask the interpreter.
        cdef int64_t answer, n_permits
        cdef Py_ssize_t at = 4, _clause, _permit
        cdef bint lifted
        if layout[0] >= 0 and layout[2] == static:
            answer = self._run(code + 2 * layout[0], layout[1], slots, 2, board,
                               attrs, cells, n_values, columns,
                               n_columns, fill)
            if answer == UNKNOWN:
                return 2
            if answer == 0:
                return 1
        for _clause in range(layout[3]):
            n_permits = layout[at + 2]
            if layout[at + 3] != static:
                at += 4 + 2 * n_permits
                continue
            answer = self._run(code + 2 * layout[at], layout[at + 1], slots, 2, board,
                               attrs, cells, n_values, columns,
                               n_columns, fill)
            at += 4
            if answer == UNKNOWN:
                return 2
            if answer == 0:
                at += 2 * n_permits
                continue
            lifted = False
            for _permit in range(n_permits):
                if not lifted:
                    answer = self._run(code + 2 * layout[at], layout[at + 1], slots,
                                       2, board, attrs, cells,
                                       n_values, columns, n_columns, fill)
                    if answer == UNKNOWN:
                        return 2
                    lifted = answer != 0
                at += 2
            if not lifted:
                return 1
        return 0


include "frames.pxi"
include "writes.pxi"
include "steps.pxi"
include "logs.pxi"
