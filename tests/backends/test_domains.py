"""Option domains listed natively as filtered pieces (engine/domains.py), against the
interpreter.

``land_units(side)`` (the domain of every movement option, 7.1) is, once its
functions are expanded, a filter over all the pieces. The compiled backend
lists it with ``ClauseMachine.filter_pieces``; these tests hold that listing,
and its Python specification ``domains.filter_pieces``, to the generated
code's list at every movement decision of seeded games, and check that each
case the machine cannot decide goes back to the interpreter.
"""

from __future__ import annotations

from fractions import Fraction

import pytest

import cortes_rules
from cortes_rules.dsl import ir
from cortes_rules.dsl.diagnostics import Span
from cortes_rules.engine import bytecode as bc
from cortes_rules.engine import domains
from cortes_rules.engine.procedures import CHOOSE
from differential import random_positions

pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")

HERE = Span("test", 1, 1, 1)


def _book():
    return cortes_rules.load("cortes", options=("veteran",), backend="compiled")


def _move(book):
    machine = book._machine
    return next(o for p in machine.compiled_procs().values() for ins in p.code
                if ins[0] == CHOOSE for o in ins[1].options if o.kind == "move")


def _name(text: str) -> ir.Name:
    return ir.Name(text, HERE)


@pytest.mark.rule("7.1")
def test_7_1_the_movement_domain_lists_the_generated_codes_pieces_in_its_order():
    # At every movement decision: the native filter, its Python specification
    # and the generated code's land_units(side) give the same pieces, in order.
    book = _book()
    machine = book._machine
    support = machine.native_support()
    option = _move(book)
    domain = domains.PieceDomain.build(support, option.decl.params[0].domain)
    assert domain is not None and domain.variables == ("side",)
    generated = machine.fast_expr(option.decl.params[0].domain, "")
    compared = 0
    for seed in range(3):
        for _, state, _ in random_positions(book, seed, 300,
                                            {"setup": "historical", "turn_limit": 10}):
            pending = state._pending()
            if pending is None or pending[0] != CHOOSE or option not in pending[1][1].options:
                continue
            env = dict(pending[2][2])
            expected = [u.index for u in generated(state, env)]
            assert domain.indices(state, env) == expected
            code = domain.code_for(("player",))
            native = state.native
            assert domains.filter_pieces(
                code, [env["side"].index], support.tables, native.board, native.pieces,
                native.places) == expected
            compared += 1
    assert compared > 50


@pytest.mark.rule("7.1")
def test_7_1_a_chain_of_comprehensions_over_the_pieces_flattens_to_its_conditions():
    book = _book()
    functions = book._machine.native_support().compiler.functions
    # land_units(side) = list(u for u in own_units(side) where u.place.kind == "hex"),
    # own_units(side) = list(u for u in pieces where u.side == side and on_map(u)).
    found = domains.flatten(ir.Call("land_units", (_name("side"),), None, None, None, None,
                                    HERE), functions)
    assert found is not None and len(found) == 2
    assert {"side", domains.SLOT} <= domains.free_names(found[0])
    assert domains.free_names(found[1]) == {domains.SLOT}
    # Domains that are no filter of all the pieces stay with the interpreter.
    for other in (_name("hexes"), ir.ListLit((_name("w"),), HERE),
                  ir.Call("neighbours", (_name("h"),), None, None, None, None, HERE),
                  ir.Call("land_units", (ir.Attr(_name("u"), "side", HERE),), None, None,
                          None, None, HERE)):
        assert domains.flatten(other, functions) is None


@pytest.mark.rule("7.1")
def test_7_1_substitution_respects_the_names_a_comprehension_binds():
    # any(side in pieces where side.steps > 0) binds its own `side`: replacing
    # the outer `side` leaves the inner one alone, and an argument that a
    # binder inside would capture stops the expansion.
    inner = ir.Call("any", (), "side", _name("pieces"), None,
                    ir.Compare(">", ir.Attr(_name("side"), "steps", HERE), ir.IntLit(0, HERE),
                               HERE), HERE)
    body = ir.BoolOp("and", ir.Compare("==", _name("side"), _name("x"), HERE), inner, HERE)
    replaced = domains.substitute(body, {"side": _name("me")})
    assert replaced.left.left == _name("me")
    assert replaced.right == inner
    assert domains.free_names(replaced) == {"me", "x", "pieces"}
    assert domains._replace(body, {"x": _name("side")}) is None


@pytest.mark.rule("7.1")
def test_7_1_what_the_filter_cannot_decide_goes_back_to_the_interpreter():
    book = _book()
    support = book._machine.native_support()
    state = book.new_game(seed=2, setup="historical", turn_limit=10)
    state._native_rebuild()
    spanish = book._machine.world.player["spanish"]
    # Pieces of a side with at least one step (steps is an integer column).
    condition = ir.BoolOp(
        "and", ir.Compare("==", ir.Attr(_name(domains.SLOT), "side", HERE), _name("side"),
                          HERE),
        ir.Compare(">", ir.Attr(_name(domains.SLOT), "steps", HERE), ir.IntLit(0, HERE),
                   HERE), HERE)
    domain = domains.PieceDomain(support, condition, ("side",))
    found = domain.indices(state, {"side": spanish})
    assert found == [p.index for p in book._machine.world.pieces
                     if p.side is spanish and state.attribute(p.id, "steps") > 0]
    assert domain.indices(state, {}) is None                       # no such variable
    assert domain.indices(state, {"side": 3}) is None              # not a player
    assert domain.indices(state, {"side": spanish, "pieces": ()}) is None   # hidden
    # A value that is no integer: the machine answers UNKNOWN, the interpreter decides.
    first = next(p for p in book._machine.world.pieces if p.side is spanish)
    state.set_attribute(first.id, "steps", Fraction(1, 2))
    assert domain.indices(state, {"side": spanish}) is None
    code = domain.code_for(("player",))
    assert domains.filter_pieces(code, [spanish.index], support.tables, state.native.board,
                                 state.native.pieces, state.native.places) is None
    assert support.clauses.filter_pieces(code.ops, [spanish.index], state.native.board,
                                         state.native.pieces, state.native.places) is None
    assert support.clauses.filter_pieces(bc.array("q"), [], state.native.board,
                                         state.native.pieces, state.native.places) is None
