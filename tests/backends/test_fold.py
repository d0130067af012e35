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
from cortes_rules.engine import tables as tables_stage
from cortes_rules.engine.bytecode import INEXACT, number_cell
from cortes_rules.engine.fold import EdgeBindings, fold
from cortes_rules.engine.machine import GameState
from cortes_rules.engine.procedures import CHOOSE, SEALED
from differential import random_positions

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


def _edge_options(book):
    machine = book._machine
    return {id(o): o for p in machine.compiled_procs().values() for ins in p.code
            if ins[0] in (CHOOSE, SEALED) for o in ins[1].options}.values()


def _compare_edges(book, option, edges, new_game, seeds, steps) -> int:
    """Along seeded games, the folded bindings of ``option`` against the interpreter's."""
    machine = book._machine
    tables = tables_stage.lower(machine.world)
    compared = 0
    for seed in seeds:
        for _, state, chooser in random_positions(book, seed, steps, new_game):
            if state.is_terminal() or state.is_chance_node():
                continue
            pending = state._pending()
            if option in pending[1][1].options:
                kind = machine.space.kinds[option.kind]
                units = [v[0] for k, v in map(machine.space.decode, state.legal_action_ids())
                         if k is kind] + [chooser.choice(kind.domains[0]) for _ in range(5)]
                for unit in units:
                    here = state.where[unit.index]
                    if here is None:
                        continue
                    for there in here.neighbours:
                        env = dict(pending[2][2])
                        env.update({edges.piece_param: unit, edges.place_param: there})
                        failed = False
                        for name, fn in option.bindings:
                            try:
                                env[name] = fn(state, env)
                            except cortes_rules.CortesRulesError:
                                # A candidate the interpreter cannot price (a unit
                                # on the lake, say): the fold fails as well.
                                if name in edges.names:
                                    with pytest.raises(cortes_rules.CortesRulesError):
                                        edges.value(name, unit.index, here.index,
                                                    there.index)
                                failed = True
                                break
                            if name in edges.names:
                                folded = edges.value(name, unit.index, here.index, there.index)
                                assert folded == env[name], (name, unit, here, there)
                                compared += 1
                        if "cost" in edges.names:
                            edge = next(i for i in range(tables.neighbour_start[here.index],
                                                         tables.neighbour_start[here.index + 1])
                                        if tables.neighbours[i] == there.index)
                            cell = edges.fill("cost", tables, unit.index, edge)
                            expected = INEXACT if failed else number_cell(env["cost"])
                            assert cell == expected
    return compared


@pytest.mark.rule("7.7")
def test_7_7_the_movement_cost_is_folded_per_unit_and_edge_as_the_interpreter_prices_it():
    # The cost of entering a hex (7.7, with the causeway rate of 7.16) reads
    # the unit's side, the terrain and the hexside crossed: one value per
    # unit and edge, worked out once and read from a column afterwards.
    book = cortes_rules.load("cortes", options=("veteran",))
    move = next(o for o in _edge_options(book) if o.kind == "move")
    edges = EdgeBindings(book._machine, move)
    assert edges.names == ("from", "crossing", "priced", "cost")
    compared = _compare_edges(book, move, edges, {"setup": "historical", "turn_limit": 10},
                              seeds=range(3), steps=150)
    assert compared > 2000


@pytest.mark.rule("II.3", rulebook="grands_strateges")
def test_ii_3_a_cost_that_reads_the_position_is_not_folded():
    book = cortes_rules.load("grands_strateges", scenario="X")
    move = next(o for o in _edge_options(book) if o.kind == "move")
    edges = EdgeBindings(book._machine, move)
    # Only the place left and the hexside crossed depend on the edge alone.
    assert edges.names == ("from", "crossing")
    assert _compare_edges(book, move, edges, {}, seeds=range(2), steps=120) > 100


@pytest.mark.rule("7.19")
def test_7_19_an_option_not_along_an_edge_has_no_edge_bindings():
    book = cortes_rules.load("cortes", options=("veteran",))
    sail = next(o for o in _edge_options(book) if o.kind == "sail")
    assert EdgeBindings(book._machine, sail).names == ()
