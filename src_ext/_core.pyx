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

Nothing here knows a game: no rulebook fact is written in this folder.
"""

from libc.stdint cimport int32_t, uint64_t
from libc.stdlib cimport free, malloc
from libc.string cimport memcpy

from cortes_rules.errors import BoardError

ABI = 2
KERNELS = ("rng", "board")

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
    the count of each (place, player), in that order.
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
                     + <Py_ssize_t>n_places * n_players)
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

    cdef inline int _player(self, long player) except -2:
        if not 0 <= player < self.n_players:
            raise BoardError(f"player {player} is not one of {self.n_players}")
        return <int>player

    cpdef int put(self, long piece, long place) except -2:
        """Move ``piece`` to ``place`` (-1: off every place); returns where it was."""
        cdef int p = self._piece(piece)
        cdef int to = self._place(place, True)
        cdef int old = self.where_[p]
        cdef int owner = self.side[p]
        if old == to:
            return old
        if old != NONE:
            self.count_[old] -= 1
            if owner != NONE:
                self.owned[old * self.n_players + owner] -= 1
        if to != NONE:
            self.count_[to] += 1
            if owner != NONE:
                self.owned[to * self.n_players + owner] += 1
        self.where_[p] = to
        return old

    cpdef int place_of(self, long piece) except -2:
        return self.where_[self._piece(piece)]

    cpdef int count(self, long place) except -1:
        """How many pieces ``place`` holds."""
        return self.count_[self._place(place, False)]

    cpdef int count_of(self, long place, long player) except -1:
        """How many of the pieces in ``place`` belong to ``player``."""
        cdef int at = self._place(place, False)
        return self.owned[at * self.n_players + self._player(player)]

    cpdef int others(self, long place, long player) except -1:
        """How many pieces in ``place`` are not ``player``'s (ownerless included)."""
        cdef int at = self._place(place, False)
        return self.count_[at] - self.owned[at * self.n_players + self._player(player)]

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
