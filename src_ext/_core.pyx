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

Nothing here knows a game: no rulebook fact is written in this folder.
"""

from libc.stdint cimport int8_t, int32_t, int64_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from array import array

from cortes_rules.errors import BoardError

ABI = 3
KERNELS = ("rng", "board", "clauses")

cdef uint64_t _GOLDEN = 0x9E3779B97F4A7C15ULL


cdef inline uint64_t _mix(uint64_t z) noexcept nogil:
    z = (z ^ (z >> 30)) * 0xBF58476D1CE4E5B9ULL
    z = (z ^ (z >> 27)) * 0x94D049BB133111EBULL
    return z ^ (z >> 31)


cdef inline uint64_t _below(uint64_t *state, uint64_t n) noexcept nogil:
    # Rejection sampling, as engine/rng.py: limit = 2**64 - (2**64 % n).
    cdef uint64_t rem = (<uint64_t>0 - n) % n     # 2**64 % n, in 64 bits
    cdef uint64_t value
    while True:
        state[0] += _GOLDEN
        value = _mix(state[0])
        if rem == 0 or value < <uint64_t>0 - rem:
            return value % n


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
    in that order.
    """

    cdef int32_t *block
    cdef Py_ssize_t size
    cdef int32_t *side
    cdef int32_t *where_
    cdef int32_t *count_
    cdef int32_t *owned
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

    cdef void _allocate(self, int n_pieces, int n_places, int n_players) except *:
        self.n_pieces, self.n_places, self.n_players = n_pieces, n_places, n_players
        self.size = (2 * <Py_ssize_t>n_pieces + n_places
                     + <Py_ssize_t>n_places * (n_players + 1))
        self.block = <int32_t *>malloc(max(self.size, 1) * sizeof(int32_t))
        if self.block == NULL:
            raise MemoryError()
        self.side = self.block
        self.where_ = self.side + n_pieces
        self.count_ = self.where_ + n_pieces
        self.owned = self.count_ + n_places

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

    cdef inline int _slot(self, long player) except -2:
        # The column of ``player`` in the counts (-1: the ownerless pieces).
        if not NONE <= player < self.n_players:
            raise BoardError(f"player {player} is not one of {self.n_players}")
        return <int>player if player != NONE else self.n_players

    cpdef int put(self, long piece, long place) except -2:
        """Move ``piece`` to ``place`` (-1: off every place); returns where it was."""
        cdef int p = self._piece(piece)
        cdef int to = self._place(place, True)
        cdef int old = self.where_[p]
        cdef int slot = self.side[p] if self.side[p] != NONE else self.n_players
        cdef int width = self.n_players + 1
        if old == to:
            return old
        if old != NONE:
            self.count_[old] -= 1
            self.owned[old * width + slot] -= 1
        if to != NONE:
            self.count_[to] += 1
            self.owned[to * width + slot] += 1
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
        return self.owned[at * (self.n_players + 1) + self._slot(player)]

    cpdef int others(self, long place, long player) except -1:
        """How many pieces in ``place`` are not ``player``'s (ownerless included)."""
        cdef int at = self._place(place, False)
        return (self.count_[at]
                - self.owned[at * (self.n_players + 1) + self._slot(player)])

    def occupants(self, long place):
        """The pieces in ``place``, ascending."""
        cdef int at = self._place(place, False)
        cdef int i
        cdef int left = self.count_[at]
        found = []
        for i in range(self.n_pieces):
            if left == 0:
                break
            if self.where_[i] == at:
                found.append(i)
                left -= 1
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

cdef enum:
    UNKNOWN = -2
    STACK = 256       # bytecode.MAX_INSTRUCTIONS: no clause pushes more

cdef int64_t INEXACT = -(1 << 62)    # bytecode.INEXACT: a cell that is no integer
cdef int64_t NOT_A_NUMBER = INEXACT + 1
cdef int64_t UNSET = INEXACT + 2
cdef int64_t LIMIT = 1 << 61
cdef enum:
    EDGE_COLUMNS = 4     # the edge bindings one clause may read


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
    cdef const int32_t[:] neighbours
    cdef const uint64_t[:] edge_features
    cdef const int8_t[:] regions

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
        for name in sorted(tables.columns):
            flat.extend(tables.columns[name])
        self.props = flat if len(flat) else array("q", [0])
        self.neighbour_start = tables.neighbour_start
        self.neighbours = (tables.neighbours if len(tables.neighbours)
                           else array("i", [0]))
        self.edge_features = (tables.edge_features if len(tables.edge_features)
                              else array("Q", [0]))
        self.regions = (tables.region_member if len(tables.region_member)
                        else array("b", [0]))

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
        cdef int64_t slots[8]
        cdef int64_t cells[8]
        cdef int64_t *columns[EDGE_COLUMNS]
        cdef int64_t[:] view
        cdef Py_ssize_t i
        if len(params) > 8 or len(values) > 8:
            return UNKNOWN
        for i in range(len(params)):
            slots[i] = params[i]
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
        return self._run(ops, slots, board, piece_values, place_values, cells,
                         len(values), columns, fill)

    cdef int64_t _run(self, const int64_t[:] ops, int64_t *slots, Board board,
                      const int64_t[:] piece_values,
                      const int64_t[:] place_values, int64_t *values,
                      Py_ssize_t n_values, int64_t **columns, object fill) except? -3:
        cdef int64_t stack[STACK]
        cdef int top = 0
        cdef Py_ssize_t pc = 0
        cdef Py_ssize_t end = ops.shape[0] // 2
        cdef int64_t op, arg, x, y
        cdef Py_ssize_t edge
        cdef int width = self.n_players + 1
        while pc < end:
            op = ops[2 * pc]
            arg = ops[2 * pc + 1]
            pc += 1
            if top >= STACK - 1:
                return UNKNOWN
            if op == PARAM:
                stack[top] = slots[arg]
                top += 1
            elif op == CONST:
                stack[top] = arg
                top += 1
            elif op == SIDE or op == TAG or op == WHERE or op == PROPERTY \
                    or op == PIECE_ATTR:
                x = stack[top - 1]
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
                else:
                    y = piece_values[arg * self.n_pieces + x]
                    if y == INEXACT:
                        return UNKNOWN
                stack[top - 1] = y
            elif op == FEATURE or op == KIND or op == PLACE_ATTR or op == COUNT:
                x = stack[top - 1]
                if not 0 <= x < self.n_places:
                    return UNKNOWN
                if op == FEATURE:
                    y = (self.features[x * self.words + arg // 64] >> (arg % 64)) & 1
                elif op == KIND:
                    y = self.kinds[x]
                elif op == PLACE_ATTR:
                    y = place_values[arg * self.n_places + x]
                    if y == INEXACT:
                        return UNKNOWN
                else:
                    y = board.count_[x]
                stack[top - 1] = y
            elif op == OWNED or op == OTHERS:
                y = stack[top - 1]      # the player
                x = stack[top - 2]      # the place
                top -= 1
                if not 0 <= x < self.n_places or not NONE <= y < self.n_players:
                    return UNKNOWN
                if y == NONE:
                    y = self.n_players
                y = board.owned[x * width + y]
                stack[top - 1] = y if op == OWNED else board.count_[x] - y
            elif op == ADJACENT or op == CROSSING:
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
            elif op == EDGE_VALUE:
                if not 0 <= arg < EDGE_COLUMNS or columns[arg] == NULL:
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
            elif op == IS_NUMBER:
                stack[top - 1] = stack[top - 1] != NOT_A_NUMBER
            elif op == IN_REGION:
                x = stack[top - 1]
                stack[top - 1] = (0 <= x < self.n_places
                                  and self.regions[arg * self.n_places + x] == 1)
            elif op == NOT:
                stack[top - 1] = 1 - stack[top - 1]
            elif op == AND or op == OR:
                if (stack[top - 1] == 0) == (op == AND):
                    pc = arg
                else:
                    top -= 1
            elif op == RETURN:
                return stack[top - 1]
            else:
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
        return UNKNOWN
