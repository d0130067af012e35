"""Forbid clauses as integer bytecode (engine/bytecode.py) against the interpreter's clauses.

The bytecode machine must answer exactly as the interpreter's own clause in
every position: 1 or 0 where the clause holds or not, and ``UNKNOWN`` where
the clause would fail. It may also answer ``UNKNOWN`` (leaving the clause
to the interpreter) where it reads an attribute holding no integer, such as
half a movement point; nowhere else. These tests play seeded random games of both
rulebooks and, in positions along them, run every compiled clause on
candidate arguments (the legal ones of the moment and random ones), on the
reference machine and on the native one.
"""

from __future__ import annotations

import functools
from array import array
import random
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.dsl import ir
from cortes_rules.dsl.render import expr as render
from cortes_rules.engine import bytecode as bc
from cortes_rules.engine import tables as tables_stage
from cortes_rules.engine.board import NONE
from cortes_rules.engine.board import Board as ReferenceBoard
from cortes_rules.engine.fold import EdgeBindings
from cortes_rules.engine.procedures import CHOOSE, SEALED
from differential import random_positions

try:
    from cortes_rules._core import Board as NativeBoard
    from cortes_rules._core import ClauseMachine  # noqa: F401
except ImportError:  # the compiled core is not built: only the reference runs
    NativeBoard = ClauseMachine = None


@functools.lru_cache(maxsize=None)
def _compiled(name: str, options: tuple[str, ...] = (), scenario: str | None = None):
    book = cortes_rules.load(name, options=options, scenario=scenario)
    machine = book._machine
    tables = tables_stage.lower(machine.world)
    columns = bc.Columns.of(machine.program)
    return book, tables, columns, bc.compile_forbids(machine, tables, columns)


def _boards(state, tables):
    sides = list(tables.piece_side)
    players = len(tables.player_names)
    made = []
    for cls in (ReferenceBoard, NativeBoard):
        if cls is None:
            continue
        board = cls(sides, tables.n_places, players)
        for piece, place in enumerate(state.where):
            board.put(piece, NONE if place is None else place.index)
        made.append(board)
    return made


def _interpreter(cond, state, env) -> int:
    try:
        return int(bool(cond(state, env)))
    except cortes_rules.CortesRulesError:
        return bc.UNKNOWN


def _agree(code, cond, state, env, indices, tables, boards, attributes, native,
           edges=None) -> bool:
    """Run ``code`` on every board (and the native machine) against the interpreter's
    clause ``cond``: False when the bytecode left an answer to the interpreter.

    ``attributes`` are the state's attribute columns (``Columns.values()``).
    """
    expected = _interpreter(cond, state, env)
    piece_values, place_values = attributes
    cells = bc.value_cells(code.values, state)
    answered = True
    for board in boards:
        got = bc.run(code, indices, tables, board, piece_values, place_values, cells, edges)
        if got == bc.UNKNOWN and expected != bc.UNKNOWN:
            answered = False
        else:
            assert got == expected, (code.rule, indices, code.listing())
        if native is not None and type(board) is NativeBoard:
            again = native.run(code.ops, indices, board, piece_values, place_values, cells,
                               edges)
            assert again == got, ("native", code.rule, indices)
    return answered


def _check_position(book, tables, columns, compiled, state, chooser, samples: int,
                    left: list[int] | None = None) -> int:
    """Run every compiled clause here; returns how many (clause, arguments) were checked.

    ``left`` counts the answers left to the interpreter although its clause
    did not fail (only allowed where an attribute holds no integer).
    """
    machine = book._machine
    boards = _boards(state, tables)
    piece_values, place_values = columns.values(state)
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    checked = 0
    for action, codes in compiled.items():
        kind = machine.space.kinds[action]
        combos = [tuple(chooser.choice(domain) for domain in kind.domains)
                  for _ in range(samples)]
        legal = [kind_values for kind_of, kind_values in
                 (machine.space.decode(n) for n in state.legal_action_ids())
                 if kind_of is kind]
        for values in combos + legal:
            env = {name: value for (name, _), value in zip(kind.params, values, strict=True)}
            indices = [v.index for v in values]
            for position, code in codes:
                cond = machine.forbids[action][position][1]
                if not _agree(code, cond, state, env, indices, tables, boards,
                              (piece_values, place_values), native):
                    # Left to the interpreter: only where an attribute holds no integer.
                    assert bc.INEXACT in piece_values or bc.INEXACT in place_values
                    if left is not None:
                        left.append(1)
                checked += 1
    return checked


def _walk(name, options, scenario, new_game, seeds, steps, every, samples,
          left: list[int]) -> int:
    book, tables, columns, compiled = _compiled(name, options, scenario)
    checked = 0
    for seed in seeds:
        for step, state, chooser in random_positions(book, seed, steps, new_game):
            if step % every == 0 and not state.is_terminal() and not state.is_chance_node():
                checked += _check_position(book, tables, columns, compiled, state, chooser,
                                           samples, left)
    return checked


@pytest.mark.rule("7.5")
def test_7_5_compiled_cortes_clauses_answer_as_the_interpreter_along_games():
    # 7.5 (no entering an enemy-held hex) is a count test on the board;
    # 7.2 reads a place-valued attribute, then a place's attribute; 7.19 a
    # flag: every compiled clause is checked in every sampled position.
    left: list[int] = []
    checked = _walk("cortes", ("veteran",), None, {"setup": "historical", "turn_limit": 10},
                    seeds=range(3), steps=150, every=6, samples=25, left=left)
    assert checked > 2000
    assert left == []     # every attribute Cortés's compiled clauses read is an integer


@pytest.mark.rule("II.6", rulebook="grands_strateges")
def test_ii_6_compiled_grands_strateges_clauses_answer_as_the_interpreter_along_games():
    # Half movement points (fractions in `spent`) leave some answers to the
    # interpreter; all the others must agree.
    left: list[int] = []
    checked = _walk("grands_strateges", (), "VI", {}, seeds=range(2), steps=150, every=6,
                    samples=25, left=left)
    assert checked > 300
    assert len(left) < checked // 4


@pytest.mark.rule("7.5")
def test_7_5_the_clauses_that_compile_and_those_that_stay_with_the_interpreter():
    book, tables, columns, compiled = _compiled("cortes", ("veteran",))
    move = {code.rule for _, code in compiled["move"]}
    assert {"7.2", "7.4", "7.10", "7.19"} <= move
    # 7.1 reads the movement cost (a binding of the option, through a hook),
    # 7.16 the hexside crossed, and 7.5 the hook of its exceptions (9.4, 11.6),
    # whose conditions are outside the bytecode: they stay with the interpreter.
    assert not move & {"7.1", "7.5", "7.16"}
    # Compiled partially, 7.5 tests the enemy pieces natively and leaves its
    # exceptions to the interpreter (ASK) for a hex that holds some.
    machine = book._machine
    forbid = next(f for rule, _, _, f in machine.forbids["move"] if rule == "7.5")
    enemy = bc.ClauseCompiler(machine, tables, columns).compile(
        "7.5", forbid.when, MOVE_PARAMS, partial=True)
    ops = [line.split()[1] for line in enemy.listing()]
    assert ops[:4] == ["PARAM", "PARAM", "SIDE", "OTHERS"] and "ASK" in ops


@pytest.mark.rule("7.2")
@settings(max_examples=40, deadline=None)
@given(st.integers(0, 10_000), st.integers(0, 60))
def test_7_2_compiled_clauses_agree_in_positions_hypothesis_picks(seed, steps):
    book, tables, columns, compiled = _compiled("cortes", ("veteran",))
    state = book.new_game(seed=seed, setup="historical", turn_limit=10)
    chooser = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
        else:
            state.apply(chooser.choice(state.legal_action_ids()))
    _check_position(book, tables, columns, compiled, state, chooser, samples=10)


ZOC = Path(__file__).resolve().parents[1] / "fixtures" / "core" / "zoc.rules"
MOVE_PARAMS = [("unit", "piece"), ("to", "place")]
"""The parameters of the fixture's `move` action, typed as the compiler reads them."""


@pytest.mark.rule("3.2", rulebook="zoc")
def test_3_2_a_fraction_in_an_integer_attribute_leaves_the_clause_to_the_interpreter():
    # "A unit moves at most its movement allowance" (the fixture's 3.2) reads
    # `spent`; half a point spent is no integer, so both machines answer
    # UNKNOWN and the interpreter decides.
    book, tables, columns, compiled = _compiled(str(ZOC))
    machine = book._machine
    state = book.new_game(seed=1, setup="standard")
    unit = machine.world.pieces[0]
    position, code = next((p, c) for p, c in compiled["move"] if c.rule == "3.2")
    assert [line.split()[1] for line in code.listing()] == \
        ["PARAM", "PIECE_ATTR", "PARAM", "PROPERTY", "GE", "RETURN"]
    place = machine.world.hexes[0]
    env = {"unit": unit, "to": place}
    cond = machine.forbids["move"][position][1]
    for spent, expected in ((0, 0), (unit.props["move"], 1), (Fraction(1, 2), bc.UNKNOWN)):
        state.set_attribute(unit.id, "spent", spent)
        piece_values, place_values = columns.values(state)
        answers = [bc.run(code, [unit.index, place.index], tables, board, piece_values,
                          place_values) for board in _boards(state, tables)]
        if ClauseMachine is not None:
            native_board = _boards(state, tables)[-1]
            answers.append(ClauseMachine(tables).run(code.ops, [unit.index, place.index],
                                                     native_board, piece_values, place_values))
        assert set(answers) == {expected}
        assert bool(cond(state, env)) == (spent >= unit.props["move"])


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_clauses_outside_the_subset_compile_to_nothing():
    book, tables, columns, _ = _compiled(str(ZOC))
    compiler = bc.ClauseCompiler(book._machine, tables, columns)
    params = MOVE_PARAMS
    program = book._machine.program
    outside = [decl.when for decl in program.of(ir.Forbid)
               if decl.action == "move" and "zoc" in render(decl.when)]
    assert outside, "the fixture has a zone-of-control clause (a function call)"
    for when in outside:
        assert compiler.compile("3.3", when, params) is None
    # A clause longer than bc.MAX_INSTRUCTIONS stays with the interpreter.
    long = ir.BoolLit(True, outside[0].span)
    for _ in range(bc.MAX_INSTRUCTIONS):
        long = ir.BoolOp("and", long, ir.BoolLit(True, long.span), long.span)
    assert compiler.compile("3.3", long, params) is None


def _zoc_with(tmp_path, extra: str, props: dict[str, str] | None = None):
    """The zone-of-control fixture with more rules in its 3.3 ("occupied hexes"), and
    ``props`` (by counter id) added to its counters' lines."""
    source = ZOC.read_text()
    for counter, added in (props or {}).items():
        line = next(x for x in source.splitlines() if x.strip().startswith(f"counter {counter} "))
        source = source.replace(line, f"{line} {added}")
    marker = "  forbid move when count(to.pieces) >= 2\n"
    assert marker in source
    path = tmp_path / "zoc.rules"
    path.write_text(source.replace(marker, marker + extra))
    book = cortes_rules.load(path)
    machine = book._machine
    tables = tables_stage.lower(machine.world)
    columns = bc.Columns.of(machine.program)
    return book, tables, columns, bc.ClauseCompiler(machine, tables, columns)


def _move_forbid(book, text: str):
    """The first forbid clause on ``move`` whose condition reads ``text``: its position
    among the kind's clauses and its declaration."""
    return next((i, decl) for i, (_, _, _, decl) in enumerate(book._machine.forbids["move"])
                if text in render(decl.when))


def _every_move(book, tables, columns, code, position) -> set[int]:
    """``code`` for every (unit, hex) of the fixture at its set-up, against the interpreter's
    clause; the answers the bytecode gave."""
    machine = book._machine
    state = book.new_game(seed=1, setup="standard")
    cond = machine.forbids["move"][position][1]
    board = _boards(state, tables)[0]
    piece_values, place_values = columns.values(state)
    answers = set()
    for unit in machine.world.pieces:
        for place in machine.world.hexes:
            got = bc.run(code, [unit.index, place.index], tables, board, piece_values,
                         place_values)
            answers.add(got)
            if got != bc.UNKNOWN:
                assert got == int(bool(cond(state, {"unit": unit, "to": place})))
    return answers


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_a_function_called_with_names_is_expanded_into_the_clause(tmp_path):
    book, tables, columns, compiler = _zoc_with(
        tmp_path, "  function heavy(u, h) = u is red_infantry and h has woods\n"
                  "  forbid move when heavy(unit, to)\n"
                  "  forbid move when heavy(unit, first(neighbours(to)))\n")
    machine = book._machine
    params = MOVE_PARAMS
    clauses = [(i, decl) for i, (_, _, _, decl) in enumerate(machine.forbids["move"])
               if "heavy" in render(decl.when)]
    (position, by_names), (_, computed) = clauses
    code = compiler.compile("3.3", by_names.when, params)
    assert code is not None
    assert [line.split()[1] for line in code.listing()] == \
        ["PARAM", "TAG", "AND", "PARAM", "FEATURE", "RETURN"]
    assert _every_move(book, tables, columns, code, position) == {0, 1}
    # The interpreter evaluates every argument, even one the body would not
    # read: an argument it might fail on keeps the clause with it.
    assert compiler.compile("3.3", computed.when, params) is None


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_another_players_pieces_are_one_count_test(tmp_path):
    # "Pieces of a side, not ownerless and not the unit's": the board's count
    # less the unit's side's and the ownerless ones (RIVALS).
    book, tables, columns, compiler = _zoc_with(
        tmp_path, "  forbid move when any(e in to.pieces where e.side != none and "
                  "e.side != unit.side)\n")
    position, decl = _move_forbid(book, "none")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
    assert code is not None
    assert [line.split()[1] for line in code.listing()] == \
        ["PARAM", "PARAM", "SIDE", "RIVALS", "CONST", "GT", "RETURN"]
    assert _every_move(book, tables, columns, code, position) == {0, 1}


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_a_partial_clause_asks_the_interpreter_only_where_it_must(tmp_path):
    book, tables, columns, compiler = _zoc_with(
        tmp_path, "  forbid move when to has town or zoc(to, unit.side)\n"
                  "  forbid move when zoc(to, unit.side)\n")
    machine = book._machine
    params = MOVE_PARAMS
    (position, mixed), (_, outside) = [
        (i, decl) for i, (rule, _, _, decl) in enumerate(machine.forbids["move"])
        if rule == "3.3" and "zoc(to" in render(decl.when)]
    assert compiler.compile("3.3", mixed.when, params) is None
    code = compiler.compile("3.3", mixed.when, params, partial=True)
    assert code is not None
    assert [line.split()[1] for line in code.listing()] == \
        ["PARAM", "FEATURE", "OR", "ASK", "RETURN"]
    # A town answers at once; any other hex reaches the zone of control.
    towns = {h.index for h in machine.world.hexes if "town" in h.features}
    answers = _every_move(book, tables, columns, code, position)
    assert answers == {1, bc.UNKNOWN} and towns
    # A clause with nothing but the part outside the subset does not compile.
    assert compiler.compile("3.3", outside.when, params, partial=True) is None
    if ClauseMachine is not None:
        state = book.new_game(seed=1, setup="standard")
        board = _boards(state, tables)[-1]
        values = columns.values(state)
        for place in machine.world.hexes:
            got = ClauseMachine(tables).run(code.ops, [0, place.index], board, *values)
            assert got == (1 if place.index in towns else bc.UNKNOWN)


def _check_options(book, tables, columns, state, chooser, samples: int, left: list[int]) -> int:
    """Run the clauses compiled with each option's bindings, for the pending decision."""
    machine = book._machine
    pending = state._pending()
    if pending is None or not hasattr(pending[1][1], "options") or \
            state.is_chance_node():
        return 0
    _, ins, frame = pending
    compiler = bc.ClauseCompiler(machine, tables, columns)
    boards = _boards(state, tables)
    piece_values, place_values = columns.values(state)
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    legal = [machine.space.decode(n) for n in state.legal_action_ids()]
    checked = 0
    for option in ins[1].options:
        if option.decl is None or option.kind not in machine.space.kinds:
            continue
        edges = EdgeBindings(machine, option)
        codes = bc.compile_option(compiler, option.kind, option.decl.bindings, edges.numbers)
        edge_columns = _edge_columns(edges, tables)
        kind = machine.space.kinds[option.kind]
        combos = [tuple(chooser.choice(d) for d in kind.domains) for _ in range(samples)]
        offered = [values for k, values in legal if k is kind]
        for values in combos + offered:
            env = dict(frame[2])
            env.update(zip((name for name, _ in kind.params), values, strict=True))
            try:
                for name, fn in option.bindings:
                    env[name] = fn(state, env)
            except cortes_rules.CortesRulesError:
                continue      # the interpreter could not bind this candidate at all
            indices = [v.index for v in values]
            for position, code in codes:
                cond = machine.forbids[option.kind][position][1]
                if not _agree(code, cond, state, env, indices, tables, boards,
                              (piece_values, place_values), native, edge_columns):
                    # Allowed where an attribute holds no integer, and where a
                    # folded cost is read off the board's edges (a random
                    # place that is not next to the unit) or is no integer.
                    assert bc.INEXACT in piece_values or bc.INEXACT in place_values \
                        or code.edge_names, (code.rule, option.kind, values)
                    left.append(values in offered)
                checked += 1
    return checked


def _edge_columns(edges: EdgeBindings, tables) -> bc.EdgeColumns:
    def fill(slot: int, piece: int, edge: int) -> int:
        return edges.fill(edges.numbers[slot], tables, piece, edge)
    return bc.EdgeColumns(tuple(edges.column(n, tables) for n in edges.numbers), fill)


def _walk_options(name, options, scenario, new_game, seeds, steps, samples, left) -> tuple:
    book, tables, columns, _ = _compiled(name, options, scenario)
    checked, rules = 0, set()
    compiler = bc.ClauseCompiler(book._machine, tables, columns)
    for seed in seeds:
        for _, state, chooser in random_positions(book, seed, steps, new_game):
            if state.is_terminal() or state.is_chance_node():
                continue
            checked += _check_options(book, tables, columns, state, chooser, samples, left)
            for option in state._pending()[1][1].options:
                if option.decl is not None:
                    numbers = EdgeBindings(book._machine, option).numbers
                    rules |= {c.rule for _, c in bc.compile_option(
                        compiler, option.kind, option.decl.bindings, numbers)}
    return checked, rules


@pytest.mark.rule("7.16")
def test_7_16_clauses_with_an_options_bindings_answer_as_the_interpreter_along_games():
    # With `from` and `crossing` bound by the option, the causeway bans
    # (7.16), the cavalry ban (7.13), Tepeyac (7.17, a named group of hexes)
    # and adjacency (7.1) compile too.
    left: list[int] = []
    checked, rules = _walk_options("cortes", ("veteran",), None,
                                   {"setup": "historical", "turn_limit": 10},
                                   seeds=range(3), steps=120, samples=15, left=left)
    assert {"7.1", "7.13", "7.16", "7.17", "9.2"} <= rules
    assert checked > 3000
    # Only random places off the unit's edges leave the folded cost unread;
    # on every legal move every clause answers.
    assert True not in left


@pytest.mark.rule("II.6", rulebook="grands_strateges")
def test_ii_6_option_clauses_of_grands_strateges_answer_as_the_interpreter():
    left: list[int] = []
    checked, _ = _walk_options("grands_strateges", (), "X", {}, seeds=range(2), steps=120,
                               samples=15, left=left)
    assert checked > 300
    assert len(left) < checked // 4


@pytest.mark.rule("7.1")
def test_7_1_the_movement_options_clauses_that_compile():
    book, tables, columns, _ = _compiled("cortes", ("veteran",))
    machine = book._machine
    compiler = bc.ClauseCompiler(machine, tables, columns)
    move = next(o for p in machine.compiled_procs().values() for ins in p.code
                if ins[0] in (CHOOSE, SEALED) for o in ins[1].options if o.kind == "move")
    without = bc.compile_option(compiler, "move", move.decl.bindings)
    # Without the folded cost, the cost clause (7.1) stays with the interpreter, and
    # so does 7.5 (the hook of its exceptions, compiled only partially: ASK).
    assert len(without) == len(machine.forbids["move"]) - 2
    numbers = EdgeBindings(machine, move).numbers
    codes = bc.compile_option(compiler, "move", move.decl.bindings, numbers)
    rules = [code.rule for _, code in codes]
    # With it, every clause but 7.5 compiles whole: 9.2 reads a game value
    # (VALUE), and the cost clause the folded cost (EDGE_VALUE).
    assert len(codes) == len(machine.forbids["move"]) - 1 and "7.5" not in rules
    assert "7.17" in rules and "9.2" in rules
    cost = next(code for _, code in codes if code.rule == "7.1" and
                "EDGE_VALUE" in " ".join(code.listing()))
    assert cost.edge_names == numbers
    tepeyac = next(code for _, code in codes if code.rule == "7.17")
    assert "IN_REGION" in " ".join(tepeyac.listing())


@pytest.mark.rule("7.19")
@pytest.mark.parametrize("listed", ["shore", "neighbours"])
def test_7_19_the_size_of_a_places_static_list_is_one_instruction(listed):
    # `count(to.shore)` (lake_movers, 7.19) reads the board graph's compressed
    # rows: DEGREE, answered by both machines for every place, and UNKNOWN
    # where the interpreter fails (the shore of none).
    book, tables, columns, _ = _compiled("cortes", ("veteran",))
    machine = book._machine
    compiler = bc.ClauseCompiler(machine, tables, columns)
    here = ir.Span("test", 1, 1, 1)
    state = book.new_game(seed=1, setup="historical", turn_limit=10)
    boards = _boards(state, tables)
    piece_values, place_values = columns.values(state)
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    for place in machine.world.places:
        size = len(getattr(place, listed))
        for claimed, expected in ((size, 1), (size + 1, 0)):
            when = ir.Compare("==", ir.Call("count", (ir.Attr(ir.Name("to", here), listed, here),),
                                            None, None, None, None, here),
                              ir.IntLit(claimed, here), here)
            code = compiler.compile("7.19", when, [("to", "place")])
            assert code is not None and "DEGREE" in " ".join(code.listing())
            for params in ([place.index], [NONE]):
                wanted = expected if params != [NONE] else bc.UNKNOWN
                for board in boards:
                    assert bc.run(code, params, tables, board, piece_values,
                                  place_values) == wanted
                if native is not None:
                    assert native.run(code.ops, params, boards[-1], piece_values,
                                      place_values) == wanted


def _every_move_on_both(book, tables, columns, code, position, setup) -> set[int]:
    """``_every_move`` at the fixture's ``setup``, on the reference machine and the native
    one (the same answers), against the interpreter's clause."""
    state = book.new_game(seed=1, setup=setup)
    return _every_move_in(book, tables, columns, code, position, state)


def _every_move_in(book, tables, columns, code, position, state) -> set[int]:
    """``code`` for every (unit, hex) in ``state`` (its game values too), on the reference
    machine and the native one (the same answers), against the interpreter's clause."""
    machine = book._machine
    cond = machine.forbids["move"][position][1]
    boards = _boards(state, tables)
    piece_values, place_values = columns.values(state)
    cells = bc.value_cells(code.values, state)
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    answers = set()
    for unit in machine.world.pieces:
        for place in machine.world.hexes:
            params = [unit.index, place.index]
            got = bc.run(code, params, tables, boards[0], piece_values, place_values,
                         cells)
            answers.add(got)
            assert got == _interpreter(cond, state, {"unit": unit, "to": place})
            if native is not None:
                assert native.run(code.ops, params, boards[-1], piece_values,
                                  place_values, cells) == got
    return answers


QUANTIFIED_CLAUSES = (
    "  function engaged(h, s) = any(n in neighbours(h) where any(e in n.pieces where "
    "e.side != s and not e.attacked))\n"
    "  forbid move when engaged(to, unit.side) and unit.spent > 0\n"
    "  function crowded(h) = list(n for n in neighbours(h) where count(n.pieces) > 0)\n"
    "  forbid move when count(crowded(to)) >= 2\n"
    "  forbid move when count(u in to.pieces where u.side == unit.side and u.spent > 1) > 0\n"
)


@pytest.mark.rule("3.3", rulebook="zoc")
@pytest.mark.parametrize("setup", ["standard", "contact", "cornered"])
def test_3_3_comprehensions_over_a_places_lists_run_natively(tmp_path, setup):
    # `any`, `count` and `count(list(...))` over a hex's neighbours or pieces,
    # with any condition the machine runs: QUANTIFY, its body the condition
    # with the item in the next slot (nested: two slots), answered as the
    # interpreter answers for every unit and hex.
    book, tables, columns, compiler = _zoc_with(tmp_path, QUANTIFIED_CLAUSES)
    machine = book._machine
    found = {rule_text: (i, decl) for i, (_, _, _, decl) in
             enumerate(machine.forbids["move"])
             for rule_text in [render(decl.when)]
             if any(word in rule_text for word in ("engaged", "crowded", "spent > 1"))}
    assert len(found) == 3
    for text, (position, decl) in found.items():
        code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
        assert code is not None, text
        names = [line.split()[1] for line in code.listing()]
        assert "QUANTIFY" in names and "ASK" not in names
        if "engaged" in text:
            assert names.count("QUANTIFY") == 2     # nested
            # The inner body reads the outer item (slot 2) and its own (slot 3).
            assert {2, 3} <= {code.ops[i + 1] for i in range(0, len(code.ops), 2)
                              if code.ops[i] == bc.PARAM}
        answers = _every_move_on_both(book, tables, columns, code, position, setup)
        assert bc.UNKNOWN not in answers
        if setup == "contact" and "spent" not in text:
            assert answers == {0, 1}, text


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_a_comprehension_the_machine_cannot_run_whole_is_asked(tmp_path):
    # A condition outside the subset inside the comprehension: the whole term
    # is ASK (the body is never partial), the rest of the clause still runs.
    book, tables, columns, compiler = _zoc_with(
        tmp_path, "  forbid move when to has town or any(n in neighbours(to) where "
                  "zoc(n, unit.side))\n")
    _, decl = _move_forbid(book, "town or any")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS, partial=True)
    assert code is not None
    assert [line.split()[1] for line in code.listing()] == \
        ["PARAM", "FEATURE", "OR", "ASK", "RETURN"]


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_a_malformed_quantifier_answers_unknown_on_both_machines(tmp_path):
    book, tables, columns, compiler = _zoc_with(tmp_path, QUANTIFIED_CLAUSES)
    _, decl = _move_forbid(book, "crowded")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
    at = next(i for i in range(0, len(code.ops), 2) if code.ops[i] == bc.QUANTIFY)
    mode, domain, slot, length = bc.quantify_parts(code.ops[at + 1])
    assert (mode, bc.QUANTIFIED[domain], slot) == (bc.COUNT_OF, "neighbours", 2)
    state = book.new_game(seed=1, setup="contact")
    boards = _boards(state, tables)
    values = columns.values(state)
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    broken = [bc.quantify_arg(mode, domain, slot, length + 50),    # past the end
              bc.quantify_arg(4, domain, slot, length),            # no such mode
              bc.quantify_arg(mode, domain, bc.SLOTS, length),     # no such slot
              bc.quantify_arg(mode, domain, slot - 1, length),     # a parameter's slot
              bc.quantify_arg(mode, domain, slot + 1, length),     # a slot skipped
              -1]
    for arg in broken:
        ops = array("q", code.ops)
        ops[at + 1] = arg
        bad = bc.Code(code.rule, code.params, ops)
        for params in ([0, 0], [0, NONE]):
            assert bc.run(bad, params, tables, boards[0], *values) == bc.UNKNOWN
            if native is not None:
                assert native.run(ops, params, boards[-1], *values) == bc.UNKNOWN
    # The shore or neighbours of none: UNKNOWN, as the interpreter fails.
    for params in ([0, NONE],):
        assert bc.run(code, params, tables, boards[0], *values) == bc.UNKNOWN


HOOKED_CLAUSES = (
    "  hook crowding: bool \"What one side's units in a hex must meet\"\n"
    "  contribute crowding = count(u in units where u.spent > 0) <= 1 when side == blue\n"
    "  contribute crowding = not any(u in units where u.stopped) when side == red\n"
    "  contribute crowding = count(u in units where u is red_infantry) <= 1\n"
    "  function crowded_by(hex, side, units) = failing(crowding)\n"
    "  function mine(h, s) = list(u for u in h.pieces where u.side == s)\n"
    "  forbid move when count(crowded_by(to, unit.side, mine(to, unit.side) + [unit])) > 0\n"
    "  function ignoring(h, units) = count(h.pieces) > 3\n"
    "  forbid move when ignoring(to, mine(origin, unit.side))\n"
)


@pytest.mark.rule("3.3", rulebook="zoc")
@pytest.mark.parametrize("setup", ["standard", "contact", "cornered"])
def test_3_3_a_hooks_failing_contributions_over_a_list_argument_run_natively(tmp_path, setup):
    # `count(failing(hook))` expands into the hook's contributions, each
    # counted where its `when` holds and its value is false; `units`, a list
    # built from a hex's pieces of one side plus the moving unit, is gone
    # through part by part (QUANTIFY over the pieces, filtered, and over the
    # one item): the same answers as the interpreter for every unit and hex.
    book, tables, columns, compiler = _zoc_with(tmp_path, HOOKED_CLAUSES)
    position, decl = _move_forbid(book, "crowded_by")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
    assert code is not None
    names = [line.split()[1] for line in code.listing()]
    assert "ASK" not in names
    domains = {bc.QUANTIFIED[bc.quantify_parts(code.ops[i + 1])[1]]
               for i in range(0, len(code.ops), 2) if code.ops[i] == bc.QUANTIFY}
    assert domains == {"pieces", "one item"}
    answers = _every_move_on_both(book, tables, columns, code, position, setup)
    assert bc.UNKNOWN not in answers
    if setup == "contact":
        assert answers == {0, 1}


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_a_list_argument_is_built_before_the_body_even_unread(tmp_path):
    # The interpreter builds a function's arguments first: a list of the
    # pieces of no place fails even where the body never reads it, so the
    # machines answer UNKNOWN there, and where it builds they answer as the
    # interpreter does.
    book, tables, columns, compiler = _zoc_with(tmp_path, HOOKED_CLAUSES)
    machine = book._machine
    _, decl = _move_forbid(book, "ignoring")
    cond = next(c for _, c, _, d in machine.forbids["move"] if d is decl)
    move = next(o for p in machine.compiled_procs().values() for ins in p.code
                if ins[0] in (CHOOSE, SEALED) for o in ins[1].options if o.kind == "move")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS, move.decl.bindings)
    assert code is not None
    state = book.new_game(seed=1, setup="contact")
    unit, hex_ = machine.world.pieces[0], machine.world.hexes[0]
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    for where in (None, hex_):
        state._put(unit, where)
        boards = _boards(state, tables)
        values = columns.values(state)
        expected = _interpreter(cond, state, {"unit": unit, "to": hex_, "origin": where})
        assert expected == (bc.UNKNOWN if where is None else 0)
        params = [unit.index, hex_.index]
        assert bc.run(code, params, tables, boards[0], *values) == expected
        if native is not None:
            assert native.run(code.ops, params, boards[-1], *values) == expected


DISTINCT_CLAUSES = (
    "  property tribe \"tribe\" values east, north, south, west\n"
    "  function band(h, s) = list(u for u in h.pieces where u.side == s)\n"
    "  forbid move when count(distinct(u.tribe for u in band(to, unit.side) + [unit] "
    "where u.spent == 0)) > 1\n"
)
# Tribes (texts, one unit without): the codes tell them apart as the texts do.
TRIBES = {"B1": "north", "B2": "south", "B3": "north", "R1": "east", "R2": "east",
          "R3": "west"}


@pytest.mark.rule("3.3", rulebook="zoc")
@pytest.mark.parametrize("setup", ["standard", "contact", "cornered"])
def test_3_3_distinct_texts_over_a_list_run_natively(tmp_path, setup):
    # `count(distinct(u.tribe for u in L where C))`: each part of L a QUANTIFY
    # that counts the values the parts before it did not give (a filtered item
    # SKIP_UNLESS leaves out), a text property read as codes: the same answers
    # as the interpreter for every unit and hex. B4 and R4 have no tribe: where
    # the interpreter fails reading theirs, the machines answer UNKNOWN.
    book, tables, columns, compiler = _zoc_with(
        tmp_path, DISTINCT_CLAUSES, {c: f"tribe {t}" for c, t in TRIBES.items()})
    assert tables.texts == {"tribe": ("east", "north", "south", "west")}
    position, decl = _move_forbid(book, "distinct")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
    assert code is not None
    names = [line.split()[1] for line in code.listing()]
    assert "ASK" not in names and "SKIP_UNLESS" in names
    modes = [bc.quantify_parts(code.ops[i + 1])[0] for i in range(0, len(code.ops), 2)
             if code.ops[i] == bc.QUANTIFY]
    assert modes == [bc.DISTINCT_NEW, bc.DISTINCT_MORE]
    answers = _every_move_on_both(book, tables, columns, code, position, setup)
    assert {0, bc.UNKNOWN} <= answers
    if setup == "contact":
        assert 1 in answers


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_any_over_a_places_pieces_stops_where_the_interpreter_stops(tmp_path):
    # The interpreter's `any` looks at a hex's pieces in ascending order and
    # stops at the first that holds: a later piece it never reads cannot
    # leave the answer to it, an earlier one can.
    book, tables, columns, compiler = _zoc_with(
        tmp_path, "  forbid move when any(e in to.pieces where e.spent > 0)\n")
    _, decl = _move_forbid(book, "e.spent > 0")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
    assert code is not None and bc.QUANTIFY in code.ops[0::2]
    state = book.new_game(seed=1, setup="standard")
    hex_ = book._machine.world.hexes[0]
    spent = [name for name, _ in columns.piece].index("spent")
    n_pieces = tables.n_pieces
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    # Pieces 0 and 1 in one hex; `unknown`: the one whose `spent` holds no integer.
    for unknown, expected in ((1, 1),             # piece 0 holds: piece 1 is never read
                              (0, bc.UNKNOWN),    # piece 0 cannot be read
                              (None, 0)):
        boards = _boards(state, tables)
        piece_values, place_values = columns.values(state)
        for board in boards:
            for piece in range(n_pieces):
                board.put(piece, NONE)
            board.put(0, hex_.index)
            board.put(1, hex_.index)
        piece_values[spent * n_pieces + 0] = 1 if unknown == 1 else 0
        piece_values[spent * n_pieces + 1] = 0
        if unknown is not None:
            piece_values[spent * n_pieces + unknown] = bc.INEXACT
        params = [0, hex_.index]
        assert bc.run(code, params, tables, boards[0], piece_values,
                      place_values) == expected, unknown
        if native is not None:
            assert native.run(code.ops, params, boards[-1], piece_values,
                              place_values) == expected


ALLOWED_CLAUSES = (
    "  derive piece spot = piece.place\n"
    "  value marked: place = none\n"
    "  function may_hit(unit, target, others) = allowed(\"attack\")\n"
    "  forbid attack when target.spot == marked or any(o in others where o.side == unit.side)\n"
    "  permit attack despite 3.3 when unit.spent > 0\n"
    "  forbid move when any(e in to.pieces where not may_hit(unit, e, []))\n"
)


@pytest.mark.rule("3.3", rulebook="zoc")
@pytest.mark.parametrize("setup", ["standard", "contact", "cornered"])
def test_3_3_allowed_expands_the_forbid_clauses_and_their_permits_in_place(tmp_path, setup):
    # `allowed("attack")` read inside a function: the attack clauses (5.2 and
    # the one added to 3.3, lifted by its permit) with the function's
    # parameters in scope, an empty list argument (`any` over it: false), a
    # derived attribute (`spot`, a chain of the piece's own attributes) and a
    # game value holding a place (`marked`), all in the bytecode; answered
    # as the interpreter answers for every unit and hex, whichever hex is marked.
    book, tables, columns, compiler = _zoc_with(tmp_path, ALLOWED_CLAUSES)
    machine = book._machine
    position, decl = _move_forbid(book, "may_hit")
    code = compiler.compile("3.3", decl.when, MOVE_PARAMS)
    assert code is not None
    names = [line.split()[1] for line in code.listing()]
    assert "ASK" not in names and "VALUE" in names and "QUANTIFY" in names
    assert code.values == (("marked", "place"),)
    state = book.new_game(seed=1, setup=setup)
    state.set_attribute(machine.world.pieces[0].id, "spent", 1)  # its clause is lifted
    answers = set()
    for marked in (None, *machine.world.hexes[:40:3]):
        state.values["marked"] = marked
        answers |= _every_move_in(book, tables, columns, code, position, state)
    assert answers <= {0, 1}
    if setup == "contact":
        assert answers == {0, 1}


@pytest.mark.rule("3.3", rulebook="zoc")
def test_3_3_allowed_within_its_own_kinds_clauses_stays_with_the_interpreter(tmp_path):
    # A forbid clause on attack that asks allowed("attack") would expand
    # itself without end: it does not compile (the interpreter decides it).
    book, tables, columns, compiler = _zoc_with(
        tmp_path, "  forbid attack when unit.spent > 2 and not allowed(\"attack\")\n")
    clause = next(decl for _, _, _, decl in book._machine.forbids["attack"]
                  if "allowed" in render(decl.when))
    assert compiler.compile("3.3", clause.when, [("unit", "piece"), ("target", "piece")]) \
        is None


@pytest.mark.slow   # half a minute: every hex and side in positions of two long games
@pytest.mark.rule("8.4")
def test_8_4_any_over_a_filtered_list_of_every_piece_is_worked_out_once_per_listing():
    # A hex may be attacked if any unit of the side may join a battle against
    # it (8.4: `any(unit in land_units(side) where may_join(unit, target, []))`).
    # The units of the side are a filter of every piece that reads only `side`,
    # the same for every hex one listing tests: compiled for such a listing
    # (`fixed_from=1`, the hex in slot 0) it is FILTERED. Both machines build the
    # list whole, as the interpreter does, and `any` stops at the first unit that
    # may join; the native listing keeps the list from one hex to the next. In
    # every position, each answer is the interpreter's (or UNKNOWN where the
    # interpreter fails), hex by hex and in one listing of them all.
    book, tables, columns, _ = _compiled("cortes", ("veteran",))
    machine = book._machine
    spec = next(o for p in machine.compiled_procs().values() for ins in p.code
                if ins[0] == CHOOSE for o in ins[1].options if o.kind == "attack")
    from cortes_rules.engine.native import NativeItems

    items = NativeItems.build(machine.native_support(), spec) \
        if machine.native_support() is not None else None
    decl = spec.decl
    test = items.test if items is not None else decl.where
    compiler = bc.ClauseCompiler(machine, tables, columns)
    params = [(decl.params[0].name, "place"), ("side", "player")]
    code = compiler.compile("8.4", test, params, fixed_from=1)
    plain = compiler.compile("8.4", test, params)
    assert code is not None and plain is not None

    def domains(c):
        return [bc.QUANTIFIED[bc.quantify_parts(c.ops[i + 1])[1]]
                for i in range(0, len(c.ops), 2) if c.ops[i] == bc.QUANTIFY]

    assert "filtered pieces" in domains(code) and "filtered pieces" not in domains(plain)
    reference = machine.compiler.expr(test, "")
    native = ClauseMachine(tables) if ClauseMachine is not None else None
    hexes = machine.world.hexes
    answered = 0
    for seed in range(2):
        for step, state, _ in random_positions(book, seed, 400,
                                               {"setup": "historical", "turn_limit": 10}):
            if step % 50:
                continue
            boards = _boards(state, tables)
            piece_values, place_values = columns.values(state)
            cells = bc.value_cells(code.values, state)
            for side in machine.world.players:
                expected = [_interpreter(reference, state, {params[0][0]: h, "side": side})
                            for h in hexes]
                got = [bc.run(code, [h.index, side.index], tables, boards[0], piece_values,
                              place_values, cells) for h in hexes]
                for want, have in zip(expected, got, strict=True):
                    assert have == want or have == bc.UNKNOWN != want, (want, have)
                answered += sum(have != bc.UNKNOWN for have in got)
                if native is None:
                    continue
                assert [native.run(code.ops, [h.index, side.index], boards[-1], piece_values,
                                   place_values, cells) for h in hexes] == got
                listed = native.filter_items(code.ops, [side.index],
                                             array("q", [h.index for h in hexes]), boards[-1],
                                             piece_values, place_values, cells)
                if bc.UNKNOWN not in got:
                    assert listed == [i for i, have in enumerate(got) if have == 1]
    assert answered > 3000, answered
