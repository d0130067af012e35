"""A filtered ``for each`` whose body only writes its item's attributes scans natively.

The start of every phase (hex_wargame.rules, ``begin_phase``) clears the
attack and closed marks of the hexes that have one (8.x, 7.6). On the
compiled backend the clause machine finds those hexes at once
(``native.item_scan``) and the loop goes through them alone. It must play
exactly as the loop that tests every hex: the same attribute values,
positions and log, the same loop variable and position afterwards, and the
same count of instructions for the step budget.
"""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules.engine import machine as machine_module
from cortes_rules.engine.machine import REGION

from test_lazy_procedures import _play

pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")


def _played(monkeypatch, seed: int, steps: int, scan: bool, counted: list[int]):
    with monkeypatch.context() as patch:
        original = machine_module.Machine.item_scan

        def item_scan(self, st):
            made = original(self, st) if scan else None
            if made is None:
                return None

            def counting(s, env, items):
                found = made(s, env, items)
                counted.append(-1 if found is None else len(found))
                return found
            return counting
        patch.setattr(machine_module.Machine, "item_scan", item_scan)
        book = cortes_rules.load("cortes", options="veteran", backend="compiled")
        game = book.new_game(seed=seed, setup="historical")
        return book, game, _play(game, seed, steps)


def _place_attributes(game) -> dict[str, list[str]]:
    return {name: [str(v) for v in column] for name, column in game.place_attrs.items()}


@pytest.mark.rule("8.1")
@pytest.mark.parametrize("seed", range(2))
def test_8_1_a_native_scan_plays_as_the_loop_that_tests_every_item(monkeypatch, seed):
    scans: list[int] = []
    _, scanned, by_scan = _played(monkeypatch, seed, 300, True, scans)
    assert scans and min(scans) >= 0            # every scan answered
    assert max(scans) > 0                       # and found marked hexes
    loops: list[int] = []
    _, looped, by_loop = _played(monkeypatch, seed, 300, False, loops)
    assert not loops
    assert by_scan == by_loop
    assert scanned.to_notation() == looped.to_notation()
    assert _place_attributes(scanned) == _place_attributes(looped)


@pytest.mark.rule("8.1")
def test_8_1_a_scan_leaves_the_count_and_the_loop_as_the_loop_did(monkeypatch):
    # begin_phase's region, run on the same position both ways with hexes
    # marked: the same count, the same hexes cleared, the loop variable at
    # the last hex and the loop's position at its end.
    results = []
    for scan in (True, False):
        scans: list[int] = []
        book, game, _ = _played(monkeypatch, 5, 60, scan, scans)
        hexes = book._machine.world.hexes
        for place in (hexes[3], hexes[40]):
            game._write_place("attacked", place.index, True)
        game._write_place("closed", hexes[40].index, True)
        marked = sum(1 for h in hexes if game.place_attrs["attacked"][h.index]
                     or game.place_attrs["closed"][h.index])
        assert marked >= 2
        ins = book._machine.procs["begin_phase"].code[0]
        assert ins[0] == REGION
        env: dict[str, object] = {}
        count = ins[1](game, env)
        assert (scans[-1:] == [marked]) == scan
        loop = next(v for k, v in env.items() if k.startswith("$for") and v[0] == tuple(hexes))
        assert env["h"] == hexes[-1] and loop[1] == len(hexes)
        assert not any(game.place_attrs["attacked"][h.index] for h in hexes)
        assert not any(game.place_attrs["closed"][h.index] for h in hexes)
        results.append((count, _place_attributes(game)))
    assert results[0] == results[1]
    assert results[0][0] > 0
