"""How much a long test does: its full budget with ``--slow`` (CI), a smaller one without.

A test whose work is a budget (the examples of a property, the seeded games
of a random-play check) runs the same check in both runs: the contributor's
run (``python -m pytest -n auto``) tries ``fast`` of them, the whole suite
(``--slow``, as CI runs it) ``full``. ``PROPERTY_SCALE=20`` multiplies
either, for a longer local search. ``tests/conftest.py`` sets ``FULL`` from
``--slow`` before any test module is imported.
"""

from __future__ import annotations

import os

FULL = False


def budget(full: int, fast: int) -> int:
    """``full`` under ``--slow``, else ``fast``; times ``$PROPERTY_SCALE``."""
    assert 0 < fast <= full
    return (full if FULL else fast) * int(os.environ.get("PROPERTY_SCALE", "1"))
