"""A ``for each`` over all the pieces that only gives each the same values is a sweep.

The start of every phase (hex_wargame.rules, ``begin_phase``: each unit's
movement points spent, hexes moved, attack and starting hex reset, 7.1)
writes six attributes of every piece. Its generated code scans each column
and writes only the cells that change (``GameState._sweep_pieces``). It must
play exactly as the loop it replaces: the same attribute values, the same
positions and log, and the same count of instructions for the step budget.
"""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules.engine import procedures
from cortes_rules.engine.procedures import REGION

from test_lazy_procedures import _play


def _played(monkeypatch, seed: int, steps: int, sweep: bool,
            sweeps: list[int] | None = None):
    """A fresh load of Cortés (veteran) and a seeded game of it; regions are generated
    when first run, so the loop is kept (``sweep`` false) for the whole game. The
    size of each sweep made is added to ``sweeps`` (the generated code calls the
    ``_sweep_pieces`` of its namespace: the native writer's on the compiled
    backend, the state's method on the reference)."""
    with monkeypatch.context() as patch:
        if not sweep:
            patch.setattr(procedures._RegionCompiler, "sweep_of", lambda self, st: None)
        book = cortes_rules.load("cortes", options="veteran")
        if sweeps is not None:
            ns = book._machine.fast.ns
            original = ns["_sweep_pieces"]

            def counted(s, writes):
                sweeps.append(len(writes))
                return original(s, writes)

            ns["_sweep_pieces"] = counted
        game = book.new_game(seed=seed, setup="historical")
        return book, game, _play(game, seed, steps)


def _attributes(game) -> dict[str, list[str]]:
    return {name: [str(v) for v in column] for name, column in game.piece_attrs.items()}


@pytest.mark.rule("7.1")
@pytest.mark.parametrize("seed", range(2))
def test_7_1_a_sweep_plays_as_the_loop_it_replaces(monkeypatch, seed):
    sweeps: list[int] = []
    _, swept, by_sweep = _played(monkeypatch, seed, 300, True, sweeps)
    assert sweeps and set(sweeps) == {6}          # begin_phase's six attributes
    del sweeps[:]
    _, looped, by_loop = _played(monkeypatch, seed, 300, False, sweeps)
    assert not sweeps
    assert by_sweep == by_loop
    assert swept.to_notation() == looped.to_notation()
    assert _attributes(swept) == _attributes(looped)


@pytest.mark.rule("7.1")
def test_7_1_a_sweep_counts_the_instructions_the_loop_counted(monkeypatch):
    # The region of begin_phase, called again on the same position both ways,
    # returns the same count (for the step budget) and leaves the same attributes.
    counts = []
    games = []
    for sweep in (True, False):
        book, game, _ = _played(monkeypatch, 5, 60, sweep)   # pieces have moved since
        ins = book._machine.procs["begin_phase"].code[0]
        assert ins[0] == REGION and ("_sweep_pieces" in ins[1].source) == sweep
        env: dict[str, object] = {}
        counts.append(ins[1](game, env))
        assert env["u"] == book._machine.world.pieces[-1]
        assert all(v == 0 for v in game.piece_attrs["spent"])
        games.append(game)
    assert counts[0] == counts[1] > 0
    assert _attributes(games[0]) == _attributes(games[1])
