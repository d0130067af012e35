"""Holding Python's cyclic garbage collector off while the library does a long
stretch of work of its own: a load, and a random playout.

Both build many objects that outlive the collector's youngest generation: a
load, the rulebook (its IR and the closures compiled from it); a playout, the
game's log and history and the entries of the rulebook's caches. Each batch of
survivors brings the next full collection nearer, and a full collection walks
every object the rulebook holds (about 200,000 once a Cortés game has reached
most of its code: some 100 ms each). Reference counting still frees what the
work drops; a cycle it drops waits for the first collection after it (a
Cortés playout leaves none). The collector is switched back on only if it
was on, also when the work fails.
"""

from __future__ import annotations

import gc
from collections.abc import Iterator
from contextlib import contextmanager


@contextmanager
def paused() -> Iterator[None]:
    """Hold the cyclic collector off for the ``with`` block, then give it back as it was."""
    was_on = gc.isenabled()
    gc.disable()
    try:
        yield
    finally:
        if was_on:
            gc.enable()
