"""The traces recorded with the first engine (07590b8) still hold, up to the listed changes.

tests/golden/traces-07590b8/ keeps the 42 games recorded before the rules
machine replaced the first engine. Each is replayed on today's engine: it
must match move for move (side to act, phase, legal actions, log lines with
their citations, final positions) unless divergences-07590b8.txt lists it,
and then it must match exactly up to the listed ply and differ at that ply,
for a deliberate change described in CHANGES.md.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import golden

HERE = Path(__file__).resolve().parent
OLD = HERE / "traces-07590b8"
FILES = golden.trace_files(OLD)


def _divergences() -> dict[str, tuple[int, str]]:
    table = {}
    for line in (HERE / "divergences-07590b8.txt").read_text(encoding="utf-8").splitlines():
        if line.strip() and not line.startswith("#"):
            name, ply, change = line.split()
            table[name] = (int(ply), change)
    return table


DIVERGENCES = _divergences()


def _first_divergence(book, path: Path) -> int | None:
    """The number of the first ply the engine plays differently, or None."""
    trace = golden.parse_trace(path.read_text(encoding="utf-8"), path.name)
    state = golden.new_game(book, trace.header)
    for ply in trace.plies:
        if state.is_terminal():  # the game is over where the old trace played on
            return ply.number
        turn, to_act, phase, legal = golden.observe(state)
        actual = golden.Ply(ply.number, turn, to_act, phase, legal, ply.action, ply.log)
        if actual.before_lines() != ply.before_lines():
            return ply.number
        try:
            _, log = golden.apply_and_log(state, ply.action)
        except Exception:  # an action the engine refuses is a divergence at this ply
            return ply.number
        if log != ply.log:
            return ply.number
    units = [final.unit for final in trace.finals]
    if (golden.ending(state) != trace.end
            or golden.finals(state, units) != tuple(trace.finals)):
        return len(trace.plies) + 1
    return None


@pytest.mark.rule("4.2")
def test_every_listed_change_is_described():
    changes = (HERE / "CHANGES.md").read_text(encoding="utf-8")
    # C1, C2...; a branch's change is C-<branch> until the lead renumbers it.
    described = set(re.findall(r"^## (C\d+|C-[A-Za-z0-9_-]+)", changes, re.MULTILINE))
    listed = {change for _, change in DIVERGENCES.values()}
    assert listed <= described, f"changes listed but not described: {listed - described}"
    assert set(DIVERGENCES) <= {p.stem for p in FILES}


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("path", FILES, ids=[p.stem for p in FILES])
def test_07590b8_trace_holds_until_its_listed_change(book, path):
    found = _first_divergence(book, path)
    expected = DIVERGENCES.get(path.stem, (None, None))[0]
    assert found == expected, (
        f"{path.name}: first divergence at ply {found}, listed at {expected} "
        "(see tests/golden/divergences-07590b8.txt and CHANGES.md)")
