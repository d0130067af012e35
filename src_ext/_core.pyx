# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
"""The compiled core of cortes_rules (module ``cortes_rules._core``).

Status: the first native kernels only. This module holds the parts of the
state-transition core that are written in C so far; everything else still
runs in the reference interpreter (``cortes_rules/engine/``), which is the
specification every kernel here is tested against (tests/backends/).

Kernels:

- ``rng``: the SplitMix64 generator and exact dice of ``engine/rng.py``, on
  unsigned 64-bit integers: the same numbers, bit for bit.

Nothing here knows a game: no rulebook fact is written in this folder.
"""

from libc.stdint cimport uint64_t

ABI = 1
KERNELS = ("rng",)

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
