"""Forbid clauses that read only static data, folded into tables (engine/fold.py).

A folded clause must give, for every combination of its pieces and places,
the answer the interpreter's own clause gives in any position: these tests
compare the two in positions reached by seeded random games, and check
which clauses fold and which (those reading the state, or liftable by a
permit) stay with the interpreter.
"""

from __future__ import annotations

import functools
import itertools
import random
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.engine.fold import fold
from cortes_rules.engine.machine import GameState

CORE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "core"


@functools.lru_cache(maxsize=None)
def _cortes():
    book = cortes_rules.load("cortes", options=("veteran",))
    machine = book._machine
    folded = fold(machine)
    states = []
    for seed in range(3):
        state = book.new_game(seed=seed, setup="historical", turn_limit=10)
        chooser = random.Random(seed)
        for step in range(120):
            if state.is_terminal():
                break
            if step % 40 == 39:
                states.append(state.clone())
            if state.is_chance_node():
                state.apply_chance()
            else:
                state.apply(chooser.choice(state.legal_action_ids()))
    return book, folded, states


def _clause(machine, action: str, position: int):
    return machine.forbids[action][position][1]


@pytest.mark.rule("7.10")
def test_7_10_static_movement_bans_fold_and_state_dependent_ones_do_not():
    book, folded, _ = _cortes()
    move = {(c.rule, c.params) for c in folded["move"]}
    # 7.4: cannon never move; 7.10: no unit enters the quagmire; 7.19:
    # gunboats move only on the lake. Each reads one parameter of move.
    assert {("7.4", ("unit",)), ("7.10", ("to",)), ("7.19", ("unit",))} <= move
    rules = {c.rule for c in folded["move"]}
    # 7.1 can be lifted by a permit; 7.2 and 7.5 read the position.
    assert not rules & {"7.1", "7.2", "7.5"}
    machine = book._machine
    for clause in folded["move"]:
        permits = machine.forbids["move"][clause.position][2]
        assert permits == ()


@pytest.mark.rule("7.10")
def test_7_10_the_quagmire_is_the_one_hex_the_fold_forbids_to_every_unit():
    book, folded, _ = _cortes()
    quagmire = next(c for c in folded["move"] if c.rule == "7.10")
    banned = [place.id for place in quagmire.domains[0] if quagmire.forbids(place)]
    assert banned == [p.id for p in book._machine.world.hexes if "quagmire" in p.features]
    assert len(banned) >= 1


@pytest.mark.rule("7.19")
@settings(max_examples=60, deadline=None)
@given(st.data())
def test_7_19_a_folded_clause_answers_as_the_interpreter_in_any_position(data):
    book, folded, states = _cortes()
    machine = book._machine
    action = data.draw(st.sampled_from(sorted(folded)))
    clause = data.draw(st.sampled_from(folded[action]))
    values = tuple(data.draw(st.sampled_from(domain)) for domain in clause.domains)
    state = data.draw(st.sampled_from(states))
    env = dict(zip(clause.params, values, strict=True))
    assert clause.forbids(*values) == _clause(machine, action, clause.position)(state, env)


@pytest.mark.rule("I", rulebook="grands_strateges")
def test_i_a_rulebook_whose_bans_all_read_the_state_folds_nothing():
    book = cortes_rules.load("grands_strateges")
    machine = book._machine
    assert fold(machine) == {}
    assert machine.forbids, "the rulebook has forbid clauses; none is static"


@pytest.mark.rule("1.3", rulebook="zoc")
def test_1_3_a_users_static_bans_fold_and_agree_with_their_clauses(tmp_path):
    # The zone-of-control fixture's bans all read the state; two static ones
    # are added (by terrain, and by a pair of unit class and terrain).
    source = (CORE_FIXTURES / "zoc.rules").read_text()
    marker = "  forbid move when count(to.pieces) >= 2\n"
    assert marker in source
    source = source.replace(marker, marker + "  forbid move when to has town\n"
                            "  forbid move when unit is red_infantry and to has woods\n")
    path = tmp_path / "zoc.rules"
    path.write_text(source)
    machine = cortes_rules.load(path)._machine
    folded = fold(machine)["move"]
    assert [c.params for c in folded] == [("to",), ("unit", "to")]
    state = GameState(machine, seed=0, begin=False)
    for clause in folded:
        cond = _clause(machine, "move", clause.position)
        answers = []
        for values in itertools.product(*clause.domains):
            env = dict(zip(clause.params, values, strict=True))
            answers.append(clause.forbids(*values))
            assert answers[-1] == cond(state, env)
        assert any(answers) and not all(answers)
