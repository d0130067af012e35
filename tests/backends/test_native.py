"""The compiled backend's native state and native enumeration, against the interpreter.

With the compiled core, every game state carries a native state (board and
attribute columns, engine/native.py) that must equal one built afresh from
the interpreter's state after every action; and the options enumerated
natively (Cortés movement, lake movement, redeployment) must list exactly the ids the generated
enumerator lists, in the same order. The whole-game agreement of the two
backends is tests/backends/test_differential.py; these tests look at the
two mechanisms directly, and fuzz the clause machines with malformed code.
"""

from __future__ import annotations

import functools
from array import array
from fractions import Fraction
from pathlib import Path

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.dsl import ir
from cortes_rules.dsl.render import expr as render
from cortes_rules.engine import bytecode as bc
from cortes_rules.engine import fold
from cortes_rules.engine.board import NONE
from cortes_rules.engine.domains import free_names
from cortes_rules.engine.procedures import CHOOSE, SEALED
from cortes_rules.engine.native import (ItemFilter, NativeItems, NativePairs, native_condition,
                                        quantifies)
from differential import random_positions

core = pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")


def _compiled(name: str, **kwargs):
    return cortes_rules.load(name, backend="compiled", **kwargs)


def _same_native(state) -> None:
    support = state.machine._native
    fresh = support.state_of(state)
    native = state.native
    assert native.board.where() == fresh.board.where()
    for place in range(support.n_places):
        assert native.board.count(place) == fresh.board.count(place)
    assert list(native.pieces) == list(fresh.pieces)
    assert list(native.places) == list(fresh.places)


def _play(book, seed: int, steps: int, new_game: dict, each) -> int:
    seen = 0
    for _, state, _ in random_positions(book, seed, steps, new_game):
        each(state)
        seen += 1
    return seen


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name, kwargs, new_game", [
    ("cortes", {"options": ("veteran",)}, {"setup": "historical", "turn_limit": 10}),
    ("cortes", {}, {"setup": "demo", "turn_limit": 10}),
    ("grands_strateges", {"scenario": "X"}, {})])
def test_2_1_the_native_state_stays_in_step_with_the_interpreters(name, kwargs, new_game):
    book = _compiled(name, **kwargs)
    seen = sum(_play(book, seed, 120, new_game, _same_native) for seed in range(3))
    assert seen > 200


@functools.lru_cache(maxsize=1)
def _cortes_world():
    return cortes_rules.load("cortes", backend="compiled")._machine.world


@st.composite
def _column(draw):
    world = _cortes_world()
    kind = draw(st.sampled_from(["int", "bool", "piece", "place", "player"]))
    cell = st.one_of(
        st.none(), st.booleans(), st.integers(), st.integers(-3, 3),
        st.sampled_from([bc.LIMIT - 1, bc.LIMIT, -bc.LIMIT, 1 << 70, "zone", Fraction(1, 2)]),
        st.sampled_from(world.pieces[:5]), st.sampled_from(world.places[:5]),
        st.sampled_from(world.players))
    values = draw(st.lists(cell, max_size=12))
    if draw(st.booleans()) and values:
        values = [values[0]] * len(values)    # one value throughout, as in a new game
    return kind, values


@pytest.mark.rule("2.1")
@settings(max_examples=300, deadline=None)
@given(columns=st.lists(_column(), min_size=1, max_size=4))
def test_2_1_a_native_state_built_afresh_holds_the_cells_each_write_would(columns):
    # The native columns of a state built afresh (bytecode.Columns.values, at
    # every new game) hold, value by value, the cell that a write of that value
    # puts there (bytecode.column_cell): an integer as itself, a piece, place
    # or player as its index, none as NONE, anything else INEXACT.
    attrs_of = {f"a{i}": values for i, (_, values) in enumerate(columns)}
    layout = [(f"a{i}", kind) for i, (kind, _) in enumerate(columns)]
    expected = [bc.column_cell(v, kind) for (kind, values) in columns for v in values]
    assert list(bc._flat(attrs_of, layout)) == expected


@pytest.mark.rule("2.1")
def test_2_1_a_clone_and_a_refused_action_leave_the_native_state_alone():
    book = _compiled("cortes", options=("veteran",))
    state = book.new_game(seed=4, setup="historical", turn_limit=10)
    for _ in range(30):
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(state.legal_action_ids()[-1])
    twin = state.clone()
    before = (state.native.board.where(), list(state.native.pieces))
    for _ in range(10):
        if twin.is_chance_node():
            twin.apply_chance()
        else:
            twin.apply(twin.legal_action_ids()[0])
    assert (state.native.board.where(), list(state.native.pieces)) == before
    _same_native(state)
    _same_native(twin)
    illegal = next(n for n in range(book.num_distinct_actions)
                   if n not in set(state.legal_action_ids()))
    with pytest.raises(cortes_rules.CortesRulesError):
        state.apply(illegal)
    assert (state.native.board.where(), list(state.native.pieces)) == before


def _move_options(book):
    machine = book._machine
    return [o for p in machine.compiled_procs().values() for ins in p.code if ins[0] == CHOOSE
            for o in ins[1].options if o.kind == "move"]


@pytest.mark.rule("7.1")
def test_7_1_the_native_movement_lists_what_the_generated_enumerator_lists():
    # 7.1-7.19: every movement clause runs natively; the ids must be the
    # generated enumerator's, in its order, at every movement decision.
    book = _compiled("cortes", options=("veteran",))
    machine = book._machine
    moves = _move_options(book)
    natives = 0

    def compare(state) -> None:
        nonlocal natives
        pending = state._pending()
        if pending is None or state.is_chance_node():
            return
        for option in pending[1][1].options:
            if option not in moves:
                continue
            native = machine._native.option(option)
            assert native is not None
            env = dict(pending[2][2])
            listed: list[int] = []
            if native.run(state, env, listed, False):
                natives += 1
                generated: list[int] = []
                machine.fast.enumerator(option.decl, machine.space.kinds["move"])(
                    state, env, generated, False)
                assert listed == generated

    for seed in range(4):
        _play(book, seed, 150, {"setup": "historical", "turn_limit": 10}, compare)
    assert natives > 50


def _compare_pairs(book, kind: str, seeds, steps: int, new_game: dict,
                   listing: type = NativePairs) -> int:
    """At every decision offering ``kind``, its native listing (a ``listing``) against
    the generated enumerator's, whole and stopping at the first; how many were compared."""
    machine = book._machine
    compared = 0

    def compare(state) -> None:
        nonlocal compared
        pending = state._pending()
        if pending is None or state.is_chance_node():
            return
        op, ins, frame = pending
        env = dict(frame[2])
        if op == SEALED:
            env[ins[1].name] = state._sealed_next(ins[1], frame[2])
        for option in ins[1].options:
            if option.kind != kind:
                continue
            native = machine._native.option(option)
            if native is None:
                continue
            assert isinstance(native, listing)
            for stop in (False, True):
                listed: list[int] = []
                assert native.run(state, env, listed, stop)
                generated: list[int] = []
                machine.fast.enumerator(option.decl, machine.space.kinds[kind])(
                    state, env, generated, stop)
                assert listed == generated
                compared += 1

    for seed in seeds:
        _play(book, seed, steps, new_game, compare)
    return compared


@pytest.mark.rule("10.9")
def test_10_9_the_native_redeployment_lists_what_the_generated_enumerator_lists():
    # 10.7-10.9: each unit goes to a hex of its side's ground that keeps the
    # stacking limits. An empty hex is decided natively; one that holds units
    # asks the stacking clauses, through the interpreter's code, for that hex.
    book = _compiled("cortes", options=("veteran",))
    assert _compare_pairs(book, "redeploy", range(3), 400,
                          {"setup": "historical", "turn_limit": 10}) > 100


@pytest.mark.rule("8.4")
def test_8_4_the_native_attack_listing_lists_what_the_generated_enumerator_lists():
    # 8.1, 8.4, 8.5: a hex may be attacked when some unit could join a battle
    # against it (adjacent, not yet attacking: `allowed("join")` read through
    # a function), it holds an enemy unit with steps and was not attacked yet:
    # one test per hex, run by the clause machine over the generated domain.
    book = _compiled("cortes", options=("veteran",))
    assert _compare_pairs(book, "attack", range(6), 400,
                          {"setup": "historical", "turn_limit": 10}, NativeItems) > 40


@pytest.mark.rule("7.19")
def test_7_19_the_native_lake_movement_lists_what_the_generated_enumerator_lists():
    # sail(unit in lake_movers(side), to in sail_targets(unit)): the units are a
    # native filter of all the pieces (engine/domains.py, a shore counted by
    # DEGREE), the places one list per unit, each pair tested natively.
    book = _compiled("cortes", options=("veteran",))
    support = book._machine.native_support()
    sail = next(o for p in book._machine.compiled_procs().values() for ins in p.code
                if ins[0] == CHOOSE for o in ins[1].options if o.kind == "sail")
    native = support.option(sail)
    assert isinstance(native, NativePairs) and native.dependent and native.pieces is not None
    # A unit's lake targets read of the position only its place: kept by unit
    # and place, and read back in the positions compared below.
    assert native.by_place is not None
    assert _compare_pairs(book, "sail", range(4), 400,
                          {"setup": "historical", "turn_limit": 10}) > 100
    assert native.by_place


@pytest.mark.rule("11.6")
def test_11_6_second_domains_that_read_more_than_a_place_are_not_kept():
    # The porters of a cannon are the infantry in its hex, the bombardment's
    # targets the units on a shore (8.28): both read what the pieces do, so
    # each is listed afresh; sail_targets reads only the unit's place.
    book = _compiled("cortes", options=("veteran",))
    machine = book._machine
    support = machine.native_support()
    specs = {o.kind: o for p in machine.compiled_procs().values() for ins in p.code
             if ins[0] == CHOOSE for o in ins[1].options}
    for kind, kept in (("carry", False), ("bombard", False), ("sail", True)):
        spec = specs[kind]
        first, second = spec.decl.params
        assert fold.reads_only_place(machine, second.domain, first.name) is kept, kind
        native = support.option(spec)
        assert isinstance(native, NativePairs)
        assert (native.by_place is not None) is kept, kind


@pytest.mark.rule("11.6")
def test_11_6_the_native_cannon_porters_list_what_the_generated_enumerator_lists():
    # carry(unit in cannons, porter in <the infantry in the cannon's hex>): one
    # list of porters per cannon.
    book = _compiled("cortes", options=("veteran",))
    assert _compare_pairs(book, "carry", range(4), 400,
                          {"setup": "historical", "turn_limit": 10}) > 50


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_i_1_the_native_deployment_lists_what_the_generated_enumerator_lists():
    # Scenario X's sealed deployment: each unit into an empty hex of its zone.
    book = _compiled("grands_strateges", scenario="X")
    assert _compare_pairs(book, "place", range(2), 120, {}) > 50


@pytest.mark.rule("10.9")
def test_10_9_a_pair_listing_hands_back_what_it_cannot_number_and_keeps_errors():
    # Values of another type, or outside the action's numbering, hand the
    # listing back (0); an error of the interpreter's test propagates.
    from cortes_rules.core.world import Piece, Place

    book = _compiled("cortes", options=("veteran",))
    machine = book._machine
    state = book.new_game(seed=2, setup="historical", turn_limit=10)
    support = machine.native_support()
    state._native_rebuild()
    spec = next(o for p in machine.compiled_procs().values() for ins in p.code if ins[0] == CHOOSE
                for o in ins[1].options if o.kind == "redeploy" and o.decl.where is not None)
    native = support.option(spec)
    assert isinstance(native, NativePairs)
    unit = machine.world.pieces[0]
    hexes = list(machine.world.hexes[:5])
    board = state.native.board

    def pairs(firsts, seconds, ask=lambda a, b: True):
        out: list[int] = []
        done = support.clauses.enumerate_pairs(
            firsts, seconds, Piece, Place, board, state.native.pieces, state.native.places,
            bc.value_cells(native.values, state), native.program, native.layout,
            native.first_pos, native.second_pos, native.base, native.width, out, False, ask)
        return done, out

    assert pairs([unit], [hexes])[0] == 1
    assert pairs([hexes[0]], [hexes])[0] == 0
    assert pairs([unit], [[unit]])[0] == 0
    assert pairs([unit], [hexes, hexes])[0] == 0       # one list of seconds per first
    outside = array("q", native.second_pos)
    outside[hexes[0].index] = -1
    out: list[int] = []
    assert support.clauses.enumerate_pairs(
        [unit], [hexes], Piece, Place, board, state.native.pieces, state.native.places,
        bc.value_cells(native.values, state), native.program, native.layout,
        native.first_pos, outside, native.base, native.width, out, False,
        lambda a, b: True) == 0

    def failing(a, b):
        raise cortes_rules.CortesRulesError("the interpreter fails here")

    # A clause that asks the interpreter about every candidate (ASK; the
    # redeployment's own clause now runs whole, the stacking limits included).
    asking = array("q", [bc.ASK, 0, bc.RETURN, 0])
    with pytest.raises(cortes_rules.CortesRulesError):
        support.clauses.enumerate_pairs(
            [unit], [hexes], Piece, Place, board, state.native.pieces, state.native.places,
            (), asking, array("q", [0, 2, 0, 0]), native.first_pos, native.second_pos,
            native.base, native.width, [], False, failing)


class _Slotted:
    # A class like Piece and Place: its ``index`` a slot, which the native
    # machine reads where the slot lies.
    __slots__ = ("index",)

    def __init__(self, index=None):
        if index is not None:
            self.index = index


class _Attribute:
    # ``index`` read through a property: the machine asks for it as Python would.
    def __init__(self, index):
        self._index = index

    @property
    def index(self):
        return self._index


@pytest.mark.rule("10.9")
def test_10_9_items_are_numbered_alike_whether_their_index_is_a_slot_or_not():
    # filter_objects numbers the items it is given by their ``index``: read
    # from its slot for classes with ``__slots__`` (Piece, Place), as an
    # attribute otherwise, and a slot left empty hands the listing back.
    from cortes_rules.core.world import Place

    book = _compiled("cortes")
    state = book.new_game(seed=2, setup="historical")
    state._native_rebuild()
    support = book._machine.native_support()
    native, clauses, kinds = state.native, support.clauses, support.tables.place_kind
    places = list(book._machine.world.places)
    zone = next(p for p in places if p.kind == "zone")
    # Keeps the places of a zone's kind: an item read with the wrong index is
    # kept or left wrongly.
    keep = array("q", [bc.PARAM, 0, bc.KIND, 0, bc.CONST, kinds[zone.index], bc.EQ, 0,
                       bc.RETURN, 0])

    def kept(items, wanted):
        return clauses.filter_objects(keep, [], items, wanted, False, native.board,
                                      native.pieces, native.places, ())

    def expected(items):
        return [x for x in items if kinds[x.index] == kinds[zone.index]]

    assert kept(places, Place) == expected(places) != []
    assert expected(places) != places
    mixed = [zone.index, 0, zone.index + 1, len(places) - 1, zone.index, 1]
    slotted = [_Slotted(i) for i in mixed]
    assert kept(slotted, _Slotted) == expected(slotted) != []
    assert kept([_Slotted(2), _Slotted()], _Slotted) is None       # an empty slot
    assert kept([_Slotted(2), _Slotted(len(places))], _Slotted) is None    # outside
    assert kept([_Slotted(2), _Attribute(3)], _Slotted) is None     # another class
    by_attribute = [_Attribute(i) for i in mixed]
    assert kept(by_attribute, _Attribute) == expected(by_attribute) != []
    assert kept([], _Slotted) == []

    class Later:
        __slots__ = ("index",)

        def __init__(self, index):
            self.index = index

    # A first call whose first item is of another class: refused, and the
    # next call numbers the class's items all the same.
    assert kept([_Slotted(2), Later(zone.index)], Later) is None
    later = [Later(zone.index), Later(0), Later(zone.index)]
    assert kept(later, Later) == expected(later) == [later[0], later[2]]


@pytest.mark.rule("7.1")
def test_7_1_options_that_do_not_compile_keep_the_interpreter():
    # Grands Stratèges' movement cost reads the position: no native listing.
    book = _compiled("grands_strateges", scenario="X")
    book.new_game(seed=1)
    support = book._machine._native
    assert all(support.option(o) is None for o in _move_options(book))


op_codes = st.lists(st.tuples(st.integers(-2, len(bc.NEEDS) + 1), st.integers(-3, 40)),
                    max_size=12)


@pytest.mark.rule("2.1")
@settings(max_examples=300, deadline=None)
@given(op_codes, st.lists(st.integers(-2, 120), max_size=3))
def test_2_1_malformed_bytecode_gets_the_same_answer_from_both_machines(ops, params):
    # Whatever the code, neither machine crashes, and both answer alike.
    book = _compiled("cortes")
    support = book._machine.native_support()
    tables = support.tables
    state = book.new_game(seed=1, setup="historical")
    pieces, places = support.columns.values(state)
    flat = array("q", [x for pair in ops for x in pair])
    code = bc.Code("x", ("a", "b"), flat)
    board = support.state_of(state).board
    expected = bc.run(code, params, tables, board, pieces, places)
    assert support.clauses.run(flat, params, board, pieces, places) == expected


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("depth", [253, 254, 255, 256])
def test_2_1_a_stack_as_deep_as_the_native_one_gets_the_same_answer(depth):
    # The native machine's stack holds bc.STACK_DEPTH entries and keeps
    # one spare: a clause that pushes 255 values answers UNKNOWN on both.
    book = _compiled("cortes")
    support = book._machine.native_support()
    state = book.new_game(seed=1, setup="historical")
    pieces, places = support.columns.values(state)
    board = support.state_of(state).board
    flat = array("q", [bc.CONST, 1] * depth + [bc.RETURN, 0])
    expected = bc.run(bc.Code("x", (), flat), (), support.tables, board, pieces, places)
    assert expected == (1 if depth < bc.STACK_DEPTH - 1 else bc.UNKNOWN)
    assert support.clauses.run(flat, (), board, pieces, places) == expected


# Conditions over a piece (slot 0) that begin with its side compared with slot 1 or a
# constant: the native machine skips the pieces of other sides only when the
# condition then returns at once (the last two shapes do not).
_SIDE_TESTS = (
    [bc.PARAM, 0, bc.SIDE, 0, bc.PARAM, 1, bc.EQ, 0, bc.AND, 7, bc.PARAM, 0, bc.WHERE, 0,
     bc.RETURN, 0],
    [bc.PARAM, 0, bc.SIDE, 0, bc.CONST, 1, bc.EQ, 0, bc.AND, 9, bc.PARAM, 0, bc.WHERE, 0,
     bc.CONST, NONE, bc.NE, 0, bc.RETURN, 0],
    [bc.PARAM, 0, bc.SIDE, 0, bc.PARAM, 1, bc.EQ, 0, bc.AND, 6, bc.CONST, 0, bc.OR, 8,
     bc.CONST, 1, bc.RETURN, 0],
    [bc.PARAM, 0, bc.SIDE, 0, bc.PARAM, 1, bc.EQ, 0, bc.AND, 6, bc.CONST, 1, bc.NOT, 0,
     bc.RETURN, 0],
)


@pytest.mark.rule("2.1")
@settings(max_examples=60, deadline=None)
@given(st.sampled_from(range(len(_SIDE_TESTS))),
       st.sampled_from([NONE, 0, 1, 2, bc.LIMIT + 5]), st.sampled_from([0, 1]))
def test_2_1_pieces_of_another_side_are_skipped_only_where_the_answer_is_the_same(
        shape, side, nested):
    # The native machine's shortcut over every piece (`_side_first`) against the
    # reference machine, which runs the condition on each piece: as a filter
    # (`filter_pieces`) and as the body of a count over every piece (QUANTIFY,
    # the piece in slot 2 after two set slots). A side value out of range
    # answers UNKNOWN on both.
    book = _compiled("cortes")
    support = book._machine.native_support()
    tables = support.tables
    state = book.new_game(seed=1, setup="historical")
    pieces, places = support.columns.values(state)
    board = support.state_of(state).board
    body = list(_SIDE_TESTS[shape])
    if not nested:
        code = bc.Code("2.1", ("u", "s"), array("q", body))
        answers = [bc.run(code, [piece, side], tables, board, pieces, places)
                   for piece in range(tables.n_pieces)]
        expected = None if bc.UNKNOWN in answers else \
            [i for i, answer in enumerate(answers) if answer]
        assert support.clauses.filter_pieces(code.ops, [side], board, pieces,
                                             places) == expected
        if shape <= 1 and expected is not None and (side in (0, 1) or shape == 1):
            assert expected and all(tables.piece_side[i] == (side if shape == 0 else 1)
                                    for i in expected)
        return
    # In the quantifier the piece is in slot 2: renumber the body's slots (0 -> 2,
    # 1 -> 1) and its jumps are relative to the body already.
    for i in range(0, len(body), 2):
        if body[i] == bc.PARAM:
            body[i + 1] = {0: 2, 1: 1}[body[i + 1]]
    every = bc.QUANTIFIED.index("all pieces")
    flat = array("q", [bc.CONST, NONE,
                       bc.QUANTIFY, bc.quantify_arg(bc.COUNT_OF, every, 2, len(body) // 2),
                       *body, bc.RETURN, 0])
    params = [0, side]
    expected = bc.run(bc.Code("2.1", ("a", "s"), flat), params, tables, board, pieces,
                      places)
    assert support.clauses.run(flat, params, board, pieces, places) == expected
    if side == bc.LIMIT + 5 and shape != 1:      # shape 1 compares with a constant
        assert expected == bc.UNKNOWN


@pytest.mark.rule("6.3")
def test_6_3_distinct_values_are_counted_alike_and_bounded_on_both_machines():
    # DISTINCT over every piece: their sides (a few values) are counted; their
    # own indices (more than bc.DISTINCT_LIMIT) answer UNKNOWN on both machines.
    book = _compiled("cortes")
    support = book._machine.native_support()
    state = book.new_game(seed=1, setup="historical")
    pieces, places = support.columns.values(state)
    board = support.state_of(state).board
    every = bc.QUANTIFIED.index("all pieces")
    for body, expected in (([bc.PARAM, 0, bc.SIDE, 0, bc.RETURN, 0],
                            len(set(support.tables.piece_side))),
                           ([bc.PARAM, 0, bc.RETURN, 0], bc.UNKNOWN)):
        flat = array("q", [bc.CONST, NONE,
                           bc.QUANTIFY, bc.quantify_arg(bc.DISTINCT_NEW, every, 0, 3),
                           *body, bc.RETURN, 0])
        assert bc.run(bc.Code("6.3", (), flat), (), support.tables, board, pieces,
                      places) == expected
        assert support.clauses.run(flat, (), board, pieces, places) == expected
    assert support.tables.n_pieces > bc.DISTINCT_LIMIT


def _procedure_tests(program):
    """Every ``if`` and ``while`` test of the program's procedures, with its procedure's rule."""
    found = []
    stack = [(p.rule, p.body) for p in program.of(ir.Procedure)]
    while stack:
        rule, node = stack.pop()
        if isinstance(node, tuple):
            stack.extend((rule, item) for item in node)
        elif isinstance(node, (ir.If, ir.While)):
            found.append((rule, node.test))
            stack.extend((rule, part) for part in (
                (node.then, node.otherwise) if isinstance(node, ir.If) else (node.body,)))
        elif hasattr(node, "body") and isinstance(node.body, tuple):
            stack.append((rule, node.body))
        elif hasattr(node, "options"):
            stack.extend((rule, o.body) for o in node.options)
    return found


@pytest.mark.rule("8.28")
def test_8_28_procedure_conditions_with_comprehensions_answer_as_the_interpreter():
    # "No unit may bombard" (8.28, the start of the shore bombardment) and the
    # other tests of procedures that count or look for pieces: the clause
    # machine answers them (its QUANTIFY over a place's lists and over every
    # piece) exactly as the interpreter, for every player, along seeded games.
    book = _compiled("cortes", options=("veteran",))
    machine = book._machine
    machine.native_support()
    compiler = machine.native_support().compiler
    players = list(machine.world.players)
    conditions = []
    for rule, test in _procedure_tests(machine.program):
        if not quantifies(test):
            continue
        free = free_names(test) & compiler.variables
        if free != {"side"}:
            continue
        reference = machine.compiler.expr(test, rule)
        asked: list[int] = []

        def generated(s, env, _ref=reference, _asked=asked):
            _asked.append(1)
            return _ref(s, env)
        conditions.append((rule, test, reference, asked,
                           native_condition(machine, test, generated)))
    rendered = {render(test) for _, test, _, _, _ in conditions}
    assert any("may_bombard" in text for text in rendered)
    calls = 0
    positions = (state for seed in range(3) for _, state, _ in random_positions(
        book, seed, 200, {"setup": "historical", "turn_limit": 10}))
    for state in positions:
        for rule, test, reference, _, condition in conditions:
            for player in players:
                env = {"side": player}
                try:
                    expected = bool(reference(state, env))
                except cortes_rules.CortesRulesError:
                    continue
                assert bool(condition(state, env)) == expected, (rule, render(test))
                calls += 1
    bombard = next(asked for _, test, _, asked, _ in conditions
                   if "may_bombard" in render(test))
    assert calls > 2000, calls
    # The machine answered nearly every time (the generated code only where
    # a value was no integer or the interpreter would fail).
    assert len(bombard) < calls // (10 * len(conditions)), (len(bombard), calls)


@pytest.mark.rule("7.5")
@pytest.mark.parametrize("reader", [bc.RIVALS, bc.OTHERS, bc.QUANTIFY])
def test_7_5_a_clause_that_counts_pieces_is_never_cached_per_edge(reader):
    # What static clauses decide is kept per (piece, edge) for the whole game:
    # a clause reading the board's counts (another player's pieces, RIVALS;
    # or any comprehension, QUANTIFY) must be worked out again every time.
    from cortes_rules.engine.native import _static

    ops = array("q", [bc.PARAM, 1, bc.PARAM, 0, bc.SIDE, 0, reader, 0, bc.RETURN, 0])
    assert not _static(bc.Code("7.5", ("unit", "to"), ops))
    still = array("q", [bc.PARAM, 1, bc.FEATURE, 0, bc.RETURN, 0])
    assert _static(bc.Code("7.5", ("unit", "to"), still))


def _piece_comprehensions(program):
    """Every comprehension over all the pieces with a ``where`` filter, in the program's
    functions and procedures."""
    found = []
    stack: list = [*program.of(ir.FunctionDecl), *program.of(ir.Procedure)]
    while stack:
        node = stack.pop()
        if isinstance(node, (tuple, list)):
            stack.extend(node)
            continue
        if not attrs.has(type(node)):
            continue
        if isinstance(node, ir.Call) and node.binder is not None and node.where is not None \
                and isinstance(node.domain, ir.Name) and node.domain.id == "pieces":
            found.append(node)
        stack.extend(getattr(node, f.name) for f in attrs.fields(type(node)))
    return found


@pytest.mark.rule("10.5")
@pytest.mark.parametrize("name, kwargs, new_game", [
    ("cortes", {"options": ("veteran",)}, {"setup": "historical", "turn_limit": 10}),
    ("grands_strateges", {}, {}),
])
def test_10_5_filters_over_all_the_pieces_list_what_the_interpreter_lists(
        name, kwargs, new_game):
    # Which units stay on the map through the interphase (10.5: the Spanish
    # units left in place, the Aztec ones that hold their ground) and the other
    # lists of pieces the rulebooks filter: the clause machine's answer
    # (native.PieceFilter, which generated code asks first) is, whenever it
    # gives one, the list the interpreter builds, in the same order.
    book = _compiled(name, **kwargs)
    machine = book._machine
    compiler = machine.native_support().compiler
    players = list(machine.world.players)
    filters = []
    for node in _piece_comprehensions(machine.program):
        names = tuple(sorted(free_names(node.where, frozenset((node.binder,)))
                             & compiler.variables))
        if not set(names) <= {"side"}:
            continue
        listing = attrs.evolve(node, func="list", args=(), element=None)
        filters.append((node, names, machine.compiler.expr(listing, ""),
                        machine.piece_filter(node.where, node.binder, names)))
    assert len(filters) >= 5, len(filters)
    answered = compared = 0
    positions = (state for seed in range(2) for _, state, _ in random_positions(
        book, seed, 150, new_game))
    for state in positions:
        for node, names, reference, listed in filters:
            for player in players if names else players[:1]:
                try:
                    expected = tuple(reference(state, {"side": player}))
                except cortes_rules.CortesRulesError:
                    continue
                got = listed(state, (player,) if names else ())
                compared += 1
                if got is not None:
                    answered += 1
                    assert got == expected, render(node)
    assert compared > 1000, compared
    # Many answered natively (a filter that never compiles soon stops trying).
    assert answered >= 1000, (answered, compared)


@pytest.mark.rule("10.12")
def test_10_12_filters_over_lists_of_places_keep_what_the_interpreter_keeps(monkeypatch):
    # The hexes open to a unit recovered from the dead pile (10.12: the
    # redeployment targets where the stacking limits allow it) and every other
    # comprehension over a list of pieces or places whose condition goes
    # through a list of its own: whenever the clause machine answers
    # (native.ItemFilter, which generated code asks first), it keeps the items
    # the interpreter's condition holds for, in their order, duplicates too.
    machine_of: list = []
    answered: list[int] = [0, 0]
    wrong: list[str] = []   # (generated code falls back on the reference if a call raises)
    real = ItemFilter.run

    def checked(self, s, items, values):
        kept = real(self, s, items, values)
        answered[1] += 1
        if kept is not None:
            answered[0] += 1
            reference = machine_of[0].compiler.expr(self.condition, "")
            env = dict(zip(self.names, values, strict=True))
            expected = []
            for item in items:
                env[self.binder] = item
                if reference(s, env):
                    expected.append(item)
            if kept != expected:
                wrong.append(render(self.condition))
        return kept

    monkeypatch.setattr(ItemFilter, "run", checked)
    book = _compiled("cortes", options=("veteran",))
    machine_of.append(book._machine)
    for seed in range(2):
        for _ in random_positions(book, seed, 1500, {"setup": "historical", "turn_limit": 10}):
            pass
    assert not wrong, wrong[:3]
    assert answered[0] >= 150, answered


_ZOC = Path(__file__).resolve().parents[1] / "fixtures" / "core" / "zoc.rules"


@pytest.mark.rule("3.2", rulebook="zoc")
def test_3_2_an_action_that_fails_midway_leaves_the_native_state_as_it_was(tmp_path):
    # apply() writes a native state it owns in place and logs each write; an
    # action that moves a unit and sets its attributes and then fails (here
    # on a unit's second step) undoes them: the native state is again the
    # one built from the interpreter's, and listings answer as before. A
    # clone taken before is untouched.
    source = _ZOC.read_text()
    marker = "          set unit.spent = unit.spent + 1\n"
    assert marker in source
    path = tmp_path / "zoc.rules"
    path.write_text(source.replace(
        marker, marker + "          if unit.spent >= 2 { fail \"a second step\" }\n"))
    book = cortes_rules.load(path, backend="compiled")
    state = book.new_game(seed=1, setup="standard")
    state.legal_action_ids()        # the native state is built by the first listing
    assert state.native is not None
    moves = [n for n in state.legal_action_ids() if str(book.action_from_id(n)).startswith("move")]
    before_clone = state.clone()
    state.apply(moves[0])
    _same_native(state)
    unit = str(book.action_from_id(moves[0])).split()[1]
    again = next(n for n in state.legal_action_ids()
                 if str(book.action_from_id(n)).startswith(f"move {unit} "))
    assert state._native_shared is False    # its own: written in place, the writes logged
    before = (state.native.board.where(), list(state.native.pieces), state.legal_action_ids())
    with pytest.raises(cortes_rules.RulesRuntimeError, match="a second step"):
        state.apply(again)
    assert (state.native.board.where(), list(state.native.pieces),
            state.legal_action_ids()) == before
    _same_native(state)
    _same_native(before_clone)
    state.apply(next(n for n in state.legal_action_ids()
                     if not str(book.action_from_id(n)).startswith(f"move {unit} ")))
    _same_native(state)
    _same_native(before_clone)


@pytest.mark.rule("2.1")
def test_2_1_a_clone_taken_while_an_action_runs_gets_its_own_native_state():
    # While apply() logs its native writes (to undo them on failure), a clone
    # must not share the native state being written in place.
    book = _compiled("cortes", options=("veteran",))
    state = book.new_game(seed=2, setup="historical", turn_limit=10)
    state.legal_action_ids()
    state._undo = []
    try:
        twin = state.clone()
    finally:
        state._undo = None
    # The twin's copy is its own to write; the state copies its own at its next
    # write, as after any clone.
    assert twin.native is not state.native and twin._undo is None
    assert twin._native_shared is False
    _same_native(twin)
    _same_native(state)
