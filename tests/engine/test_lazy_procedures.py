"""Procedures are compiled when first called, and play exactly as if compiled at load.

A load leaves every procedure's statements uncompiled (``Proc.pending``);
``Machine.compiled`` turns them into instructions when the turn sequence
(4.2) or a ``call`` first reaches the procedure, or when a position is read
or written. Which procedure is compiled first must never change a game.
"""

from __future__ import annotations

import random

import pytest

import cortes_rules
from cortes_rules.engine import machine as machine_module
from cortes_rules.engine import procedures


def _play(game, seed: int, steps: int) -> list[tuple[object, ...]]:
    """A seeded random game: at each step the ids offered, the pick and the last log lines."""
    choices = random.Random(seed)
    seen = []
    for _ in range(steps):
        if game.is_terminal():
            break
        if game.is_chance_node():
            offered = [o for o, _ in game.chance_outcomes()]
        else:
            offered = game.legal_action_ids()
        pick = choices.choice(offered)
        game.apply(pick)
        seen.append((tuple(offered), pick, tuple(str(x) for x in game.log_tail(4))))
    return seen


@pytest.mark.rule("4.2")
def test_a_load_compiles_no_procedure_and_a_game_only_those_it_reaches():
    book = cortes_rules.load("cortes", options="veteran")
    procs = book._machine.procs
    assert procs and all(p.pending is not None and p.code == [] for p in procs.values())
    game = book.new_game(seed=1, setup="historical")
    _play(game, 1, 40)
    reached = [p for p in procs.values() if p.pending is None]
    assert reached and all(p.code for p in reached)
    assert len(reached) < len(procs)      # some were never called in 40 steps


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("seed", range(2))
def test_procedures_compiled_up_front_play_the_same_games(seed):
    """Every procedure compiled at once, last declared first, against compiled on
    demand: the same actions offered, log lines and final position."""
    books = [cortes_rules.load("cortes", options="veteran") for _ in range(2)]
    machine = books[1]._machine
    for proc in reversed(list(machine.procs.values())):
        machine.compiled(proc)
    games = [book.new_game(seed=seed, setup="historical") for book in books]
    assert _play(games[0], seed, 300) == _play(games[1], seed, 300)
    assert games[0].to_notation() == games[1].to_notation()


@pytest.mark.rule("4.2")
def test_a_compilation_that_fails_leaves_the_procedure_as_it_was(monkeypatch):
    """A procedure whose compilation raises keeps no half-made instructions: it is
    compiled again, whole, when next reached."""
    book = cortes_rules.load("cortes", options="veteran")
    machine = book._machine
    proc = next(p for p in machine.procs.values() if len(p.pending or ()) > 1)
    real_stmt = procedures._ProcCompiler.stmt
    made: list[object] = []

    def failing_stmt(self, st):
        real_stmt(self, st)
        made.append(st)
        if len(made) == 2:
            raise cortes_rules.CortesRulesError("compilation failed")

    monkeypatch.setattr(procedures._ProcCompiler, "stmt", failing_stmt)
    with pytest.raises(cortes_rules.CortesRulesError, match="compilation failed"):
        machine.compiled(proc)
    assert proc.code == [] and proc.pending is not None
    monkeypatch.setattr(procedures._ProcCompiler, "stmt", real_stmt)
    machine.compiled(proc)
    other = cortes_rules.load("cortes", options="veteran")._machine
    again = other.compiled(other.procs[proc.name])
    assert [ins[0] for ins in proc.code] == [ins[0] for ins in again.code]
    assert proc.pending is None


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("name", ["cortes", "grands_strateges"])
def test_no_jump_lands_on_a_jump(name):
    """Compiled procedures jump straight to where a chain of jumps would lead
    (``_thread_jumps``): no jump lands on another jump, except a test's that would
    otherwise go back (only the jumps back spend the step budget, so a test
    always jumps forward)."""
    machine = cortes_rules.load(name)._machine
    threaded = 0
    for proc in machine.compiled_procs().values():
        code = proc.code
        for at, ins in enumerate(code):
            if ins[0] == procedures.JUMP:
                target = ins[1]
            elif ins[0] == procedures.JUMP_IF_NOT:
                target = ins[2]
                assert target > at, proc.name
            else:
                continue
            lands = target < len(code) and code[target][0] == procedures.JUMP
            assert not lands or (ins[0] == procedures.JUMP_IF_NOT
                                 and code[target][1] <= at), proc.name
            threaded += 1
    assert threaded > 50


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("seed", range(2))
def test_threaded_jumps_play_the_same_games(seed, monkeypatch):
    """The procedures with their chains of jumps left as compiled play the same games."""
    plain = cortes_rules.load("cortes", options="veteran")
    games = [plain.new_game(seed=seed, setup="historical")]
    monkeypatch.setattr(machine_module, "_thread_jumps", lambda code: None)
    unthreaded = cortes_rules.load("cortes", options="veteran")
    games.append(unthreaded.new_game(seed=seed, setup="historical"))
    assert _play(games[0], seed, 300) == _play(games[1], seed, 300)
    assert games[0].to_notation() == games[1].to_notation()
    chained = sum(1 for proc in unthreaded._machine.procs.values() if proc.pending is None
                  for ins in proc.code if ins[0] == procedures.JUMP
                  and ins[1] < len(proc.code) and proc.code[ins[1]][0] == procedures.JUMP)
    assert chained > 0     # the chains were there to thread
