"""A small deterministic random generator (SplitMix64) and exact dice.

Python's own ``random`` module is not promised to give the same numbers on
every version, so the engine carries its own generator: 64-bit integer
arithmetic only, the same sequence on every machine, cheap to copy (its
whole state is one integer), and easy to mirror in the compiled core.
"""

from __future__ import annotations

import functools
from fractions import Fraction

_MASK = (1 << 64) - 1


def next_state(state: int) -> tuple[int, int]:
    """One SplitMix64 step: ``(new state, 64-bit output)``."""
    state = (state + 0x9E3779B97F4A7C15) & _MASK
    z = state
    z = ((z ^ (z >> 30)) * 0xBF58476D1CE4E5B9) & _MASK
    z = ((z ^ (z >> 27)) * 0x94D049BB133111EB) & _MASK
    return state, z ^ (z >> 31)


def below(state: int, n: int) -> tuple[int, int]:
    """A uniform integer in ``[0, n)`` by rejection (no modulo bias)."""
    limit = (1 << 64) - ((1 << 64) % n)
    while True:
        state, value = next_state(state)
        if value < limit:
            return state, value % n


@functools.lru_cache(maxsize=64)
def dice_distribution(count: int, faces: int) -> tuple[tuple[int, Fraction], ...]:
    """Every total of ``count`` dice of ``faces`` faces with its exact probability.

    Computed once per kind of dice (the result is immutable and shared).
    """
    ways = {0: 1}
    for _ in range(count):
        nxt: dict[int, int] = {}
        for total, n in ways.items():
            for face in range(1, faces + 1):
                nxt[total + face] = nxt.get(total + face, 0) + n
        ways = nxt
    whole = faces ** count
    return tuple((total, Fraction(n, whole)) for total, n in sorted(ways.items()))


def roll_dice(state: int, count: int, faces: int) -> tuple[int, int]:
    """Roll ``count`` dice of ``faces`` faces: ``(new state, total)``."""
    total = 0
    for _ in range(count):
        state, face = below(state, faces)
        total += face + 1
    return state, total
