"""The generated code of an expression agrees with the reference's closure of it.

The interpreter runs most expressions as Python it generates from the IR, and
falls back on the reference's closures; these tests hold the two to the same
answers where the generated code takes a short cut:

- a comprehension over the game's pieces whose condition starts with
  ``u.side == E`` visits only the pieces of side ``E`` (a piece's side never
  changes), unless ``pieces`` is a variable of the rules' own;
- a value is kept through an evaluation (a loop invariant, or a function
  without parameters named twice) only while what it reads stands;
- log lines write their text, and sort the rules they cite, once;
- each generated function names the line of rules text it runs.
"""

from __future__ import annotations

import random
from collections import Counter

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.dsl import ir
from cortes_rules.dsl.parse import parse_expression
from cortes_rules.engine import codegen, procedures
from cortes_rules.engine.log import _cited_rules, _template
from cortes_rules.rule_numbers import rule_key
from minimal_book import MINIMAL, minimal_with

BY_SIDE = [
    "list(u in pieces where u.side == side)",
    "list(u in pieces where side == u.side and u.place != none)",
    "count(u in pieces where u.side == side and u.place != none and u.place.kind == \"hex\")",
    "any(u in pieces where u.side == side and u is leader)",
    "all(u in pieces where u.side == side and u.place == none)",
    "list(u.id for u in pieces where u.side == other.side)",
    "list(u in pieces where u.side == none)",
    "count(u in pieces where u.side == \"spanish\")",
    "list(u in pieces where u.place != none and u.side == side)",
]


@pytest.fixture(scope="module")
def state():
    book = cortes_rules.load("cortes", options="veteran")
    game = book.new_game(seed=3, setup="historical")
    for _ in range(40):      # a position with pieces moved and some off the map
        if game.is_terminal():
            break
        if game.is_chance_node():
            game.apply(game.chance_outcomes()[0][0])
        else:
            game.apply(game.legal_action_ids()[7 % len(game.legal_action_ids())])
    return game


def _both(state, text: str, env: dict) -> tuple[object, object]:
    node = parse_expression(text)
    machine = state.machine
    generated = machine.fast_expr(node, "")
    reference = machine.compiler.expr(node, None)
    return generated(state, dict(env)), reference(state, dict(env))


@pytest.mark.rule("6.2")
@settings(max_examples=60, deadline=None)
@given(text=st.sampled_from(BY_SIDE), side=st.sampled_from(["spanish", "aztec", None]),
       other=st.integers(0, 104), shadow=st.booleans())
def test_a_comprehension_over_a_sides_pieces_agrees_with_the_reference(
        state, text, side, other, shadow):
    world = state.machine.world
    env = {"side": world.player[side] if side is not None else None,
           "other": world.pieces[other]}
    fast = state.machine.fast
    bound = fast.env_names
    if shadow:      # a variable named pieces: every piece is visited, as written
        env["pieces"] = tuple(reversed(world.pieces[::3]))
        # as in a rulebook that binds the name somewhere (engine/bound_names.py)
        fast.env_names = bound | {"pieces"}
    try:
        generated, reference = _both(state, text, env)
    finally:
        fast.env_names = bound
    assert generated == reference


@pytest.mark.rule("6.2")
def test_the_short_cut_is_taken_and_skips_the_other_sides_pieces(state):
    world = state.machine.world
    spanish = world.player["spanish"]
    node = parse_expression("list(u in pieces where u.side == side)")
    fn = state.machine.fast_expr(node, "")
    assert fn(state, {"side": spanish}) == tuple(p for p in world.pieces if p.side is spanish)
    by_side = state.machine.fast.pieces_by_side()[1]
    assert f"{by_side}.get(" in fn.source     # the line that picks the side's pieces


@pytest.mark.rule("6.2")
@pytest.mark.parametrize("side", ["spanish", "aztec", None])
def test_all_over_the_pieces_is_false_for_a_piece_of_another_side(state, side):
    """``all(u in pieces where u.side == side ...)`` asks every piece: those of the
    other sides fail it, so the short cut to one side's pieces is not taken."""
    world = state.machine.world
    env = {"side": world.player[side] if side is not None else None}
    for text in ("all(u in pieces where u.side == side)",
                 "all(u in pieces where u.side == side and u.place == none)"):
        generated, reference = _both(state, text, env)
        assert generated is reference is False


@pytest.mark.rule("8.19")
def test_a_log_lines_text_and_rules_are_written_once_and_stay_the_same(state):
    twin = state.clone()
    for _ in range(30):
        if twin.is_terminal():
            break
        if twin.is_chance_node():
            twin.apply(twin.chance_outcomes()[-1][0])
        else:
            twin.apply(twin.legal_action_ids()[0])
    lines = twin.log
    first = [str(line) for line in lines]
    assert first == [str(line) for line in lines]
    for line in lines:
        assert list(line.rules) == sorted(set(line.rules), key=rule_key)
        assert str(line).startswith(f"T{line.turn} {line.phase}: {line.text}")


@pytest.mark.rule("8.19")
def test_cited_rules_of_any_type_are_told_apart():
    assert _cited_rules(("8.2", "8.10", "8.2", "")) == ("8.2", "8.10")
    assert _cited_rules(frozenset({"8.10", "8.2"})) == ("8.2", "8.10")
    assert _cited_rules((1,)) == ("1",)
    assert _cited_rules((True,)) == ("True",)       # equal to 1, but not the same rule
    assert _cited_rules(["9.1", "8.3"]) == ("8.3", "9.1")
    assert _cited_rules("7.4") == ("7.4",)
    assert _cited_rules(None) == ()


@pytest.mark.rule("10.7")
def test_each_generated_function_names_the_rules_line_it_runs(state):
    """``FastCompiler.origins``: what a profile of generated code cites (benchmarks/opcodes.py)."""
    fast = state.machine.fast
    texts = {m.path: m.text.splitlines() for m in state.machine.program.modules}
    assert {name.split("_")[0] for name in fast.origins} >= {"expr", "region", "enum"}
    for name, span in fast.origins.items():
        if span.path == "<expression>":     # parsed by a test above, not from the rulebook
            continue
        assert 1 <= span.line <= len(texts[span.path]), name
        assert texts[span.path][span.line - 1].strip(), name


@pytest.mark.rule("8.18")
@pytest.mark.parametrize("seed", range(3))
def test_values_kept_through_an_evaluation_change_no_game(seed):
    """Kept values (loop invariants, a name used twice in one statement) against code that
    works every value out each time it is read: the same games, line for line."""
    books = [cortes_rules.load("cortes", options="veteran") for _ in range(2)]
    books[1]._machine.fast.hoisting = False      # before any code is generated
    games = [book.new_game(seed=seed, setup="historical") for book in books]
    choices = random.Random(seed)
    for _ in range(400):
        if games[0].is_terminal():
            break
        if games[0].is_chance_node():
            outcomes = [o for o, _ in games[0].chance_outcomes()]
            assert outcomes == [o for o, _ in games[1].chance_outcomes()]
            pick = choices.choice(outcomes)
        else:
            ids = games[0].legal_action_ids()
            assert ids == games[1].legal_action_ids()
            pick = choices.choice(ids)
        for game in games:
            game.apply(pick)
        assert [str(x) for x in games[0].log_tail(8)] == [str(x) for x in games[1].log_tail(8)]
    assert games[0].to_notation() == games[1].to_notation()
    assert any("8.18" in line.rules for line in games[0].log)     # a battle was fought


PLUS_ONE = '''
rule 2.8 "A name read where it is used" {
  summary "One more than the x in scope where it is named."
  function plus_one() = x + 1 + turn - turn
  procedure count_on() {
    let x = 1
    log "{plus_one}"
  }
}
'''


@pytest.mark.rule("2.8", rulebook="minimal")
@pytest.mark.parametrize("text, expected", [
    ("list(list(plus_one for x in [1, 2]) for y in [5, 6])", ((2, 3), (2, 3))),
    ("list(plus_one + plus_one for x in [1, 2])", (4, 6)),
    ("list(list(plus_one + y for x in [1, 2]) for y in [10, 20])", ((12, 13), (22, 23))),
])
def test_a_name_kept_through_an_evaluation_is_kept_where_its_variables_are_bound(
        tmp_path, text, expected):
    # A function without parameters reads the variables in scope where it is
    # named: its value may be kept only as long as those variables stand.
    book = minimal_with(tmp_path, PLUS_ONE)
    state = book.new_game(seed=0, setup="standard")
    node = parse_expression(text)
    generated = state.machine.fast_expr(node, "")(state, {})
    assert generated == state.machine.compiler.expr(node, None)(state, {}) == expected


@pytest.mark.rule("8.19")
def test_a_log_template_keeps_its_braces_and_fills_its_fields_in_order():
    field = object()
    parts = ("odds {", field, "} against ", field, " [sic]")
    assert _template(parts).format("3:1", "1011") == "odds {3:1} against 1011 [sic]"
    assert _template(parts) is _template(parts)         # worked out once
    assert _template(("a", [field], "b")).format("x") == "axb"     # not a key: still right


FORWARDED = '''
rule 2.9 "Variables a region reads back" {
  summary "Lets and sets read back in one region, with blocks that set them again."
  opening sequence warm_up {
    phase warming "Warm up" by red does warm_up
  }
  value tally: int = 0
  procedure warm_up(p) {
    let a = 1
    let b = a + 1
    log "a {a} b {b}"
    set a = b + 5
    log "a {a}"
    set tally = a + b
    log "tally {tally}"
    if a > 3 {
      let b = 40
      set a = a + 1
    }
    log "after if: a {a} b {b}"
    let c = 0
    for each u in [7, 9] {
      set c = c + u
      let a = u
    }
    log "after loop: a {a} c {c}"
    let u = 99
    for each u in [1, 2] {
      log "in loop u {u}"
    }
    log "after rebinding loop: u {u}"
    let k = "x"
    if k == "x" {
      let k = k + "y"
    } else {
      let k = "z"
    }
    log "k {k} {a}"
    log "p {p}"
    if a > 0 {
      set p = "changed"
    }
    log "p {p}"
  }
}
'''


@pytest.mark.rule("2.9", rulebook="minimal")
def test_a_region_reads_back_its_variables_as_the_instructions_do(tmp_path, monkeypatch):
    """A region reads a variable it gave a value outside any block from a Python local;
    blocks that may set it again (an if, a loop, a loop over the same name) end that.
    The variables it never sets (the procedure's parameter until the last block) are
    read from env once. The lines logged match those of the same statements run one
    instruction at a time, with no region compiled."""
    logs = []
    for regions in (True, False):
        if not regions:     # every region is left to its instructions
            monkeypatch.setattr(procedures._LazyRegion, "compile", lambda self: None)
        book = minimal_with(tmp_path, FORWARDED)
        game = book.new_game(seed=0, setup="standard")
        logs.append([line.text for line in game.log])
        compiled = [f for proc in book._machine.compiled_procs().values() for f in proc.code
                    if f[0] == procedures.REGION and callable(f[1])
                    and getattr(f[1], "__name__", "").startswith("region")]
        assert bool(compiled) is regions
    assert logs[0] == logs[1]
    assert logs[0][:11] == [
        "a 1 b 2", "a 7", "tally 9", "after if: a 8 b 40", "after loop: a 9 c 16",
        "in loop u 1", "in loop u 2", "after rebinding loop: u 2", "k xy 9", "p red",
        "p changed"]


SUMMANDS = st.one_of(
    st.integers(-5, 5), st.booleans(), st.text("ab", max_size=2),
    st.tuples(st.integers(0, 3)), st.lists(st.integers(0, 3), max_size=2),
    st.frozensets(st.integers(0, 3), max_size=2))


@pytest.mark.rule("8.19")
@settings(max_examples=150, deadline=None)
@given(a=SUMMANDS, b=SUMMANDS)
def test_addition_takes_pythons_own_sum_only_where_the_reference_gives_it(state, a, b):
    """``a + b`` adds two ints, texts or tuples in line; every other pair (sets, lists,
    booleans, mixed types) goes to the reference's addition, so both agree, errors
    included."""
    node = parse_expression("a + b")
    generated = state.machine.fast_expr(node, "")
    reference = state.machine.compiler.expr(node, None)
    results = []
    for fn in (generated, reference):
        try:
            results.append(("value", fn(state, {"a": a, "b": b})))
        except cortes_rules.CortesRulesError as error:
            results.append(("error", type(error).__name__))
    assert results[0] == results[1]
    assert type(results[0][1]) is type(results[1][1])


def _movement_game(book: cortes_rules.Rulebook, seed: int, steps: int):
    """A Grands Stratèges III game played at random, yielding before each decision."""
    game = book.new_game(seed=seed)
    choices = random.Random(seed)
    for _ in range(steps):
        if game.is_terminal():
            return
        if game.is_chance_node():
            game.apply(choices.choice([o for o, _ in game.chance_outcomes()]))
            continue
        yield game
        game.apply(choices.choice(game.legal_action_ids()))


@pytest.mark.rule("II.1", rulebook="grands_strateges")
@pytest.mark.parametrize("seed", range(2))
def test_an_option_listing_reuses_a_units_moves_only_while_what_they_read_stands(seed):
    """The listing of ``move`` (II.1) keeps each unit's ids with the stamps of what
    they read. Its clauses read values that stand outside the loop over units (the
    unit moving now, II.3; the total of a hook, II.1), and a binding that reads only
    the unit (``from``) is kept per unit, not per hex. With the kept ids and values,
    the same games as with every listing and value worked out afresh, and ids are
    kept at all."""
    books = [cortes_rules.load("grands_strateges", scenario="III") for _ in range(2)]
    books[1]._machine.fast.caching = False       # before any code is generated
    books[1]._machine.fast.hoisting = False
    fresh = _movement_game(books[1], seed, 300)
    kept = 0
    for game in _movement_game(books[0], seed, 300):
        other = next(fresh)
        assert game.legal_action_ids() == other.legal_action_ids()
        kept = max(kept, sum(len(entries) for entries in game._ecache.values()))
    next(fresh, None)       # the last action, applied to the other game too
    assert game.to_notation() == other.to_notation()
    assert kept >= 10


def _collection(items: list[int], kind: str) -> str:
    inner = ", ".join(map(str, items))
    return f"[{inner}]" if kind == "list" else f"set([{inner}])"


@pytest.mark.rule("10.8")
@settings(max_examples=80, deadline=None)
@given(a=st.lists(st.integers(0, 6), max_size=4), b=st.lists(st.integers(0, 6), max_size=4),
       kinds=st.sampled_from([("list", "list"), ("set", "set"), ("list", "set"),
                              ("set", "list")]),
       above=st.integers(-1, 6), branch=st.booleans())
def test_a_filter_over_joined_collections_agrees_with_the_reference(
        state, a, b, kinds, above, branch):
    """A filter over lists added together runs as the lists' filters added together
    (each part that reads no state kept whole); a set with anything added is a union,
    and a list with a set added fails, on both sides."""
    left, right = _collection(a, kinds[0]), _collection(b, kinds[1])
    joined = f"list(x for x in {left} + {right} where x > bound)"
    chosen = f"list(x for x in (if pick then {left} else {right}) where x > bound)"
    env = {"bound": above, "pick": branch}
    for text in (joined, chosen):
        if text is joined and kinds == ("list", "set"):
            with pytest.raises(cortes_rules.CortesRulesError):
                _both(state, text, env)
            continue
        generated, reference = _both(state, text, env)
        assert generated == reference


@pytest.mark.rule("10.8")
def test_the_aztec_redeployment_hexes_are_filtered_part_by_part(state):
    """10.8: the hexes an Aztec unit may be redeployed to, most of them fixed and a few
    the hexes Aztec units hold, are filtered as the sum of three filters: the fixed
    parts are kept whole once worked out, and the result is the reference's."""
    machine = state.machine
    world = machine.world
    node = parse_expression("aztec_ground(u)")
    fn = machine.fast_expr(node, "")
    for piece in world.pieces:
        if piece.side is world.player["aztec"]:
            assert fn(state, {"u": piece}) == machine.compiler.expr(node, None)(state, {"u": piece})
    splitter = machine.fast.splitter
    ground = machine.compiler.functions["aztec_ground"].body
    split = splitter.split(ground)
    assert isinstance(split, ir.Cond) and isinstance(split.otherwise, ir.Arith)
    assert not splitter.is_list(parse_expression("set([1]) + [2]"))


REDUCED = st.one_of(
    st.integers(-5, 5), st.booleans(), st.fractions(-3, 3, max_denominator=4),
    st.just("prohibited"))
REDUCTIONS = ["sum([x])", "sum([x, z])", "sum([x, z, c])", "max([x, z])", "min([x, z])",
              "max([x])", "sum(t)", "max(t)", "sum([x, z]) + 1"]


@pytest.mark.rule("8.19")
@settings(max_examples=200, deadline=None)
@given(text=st.sampled_from(REDUCTIONS), x=REDUCED, z=REDUCED, c=REDUCED,
       t=st.lists(REDUCED, max_size=3).map(tuple))
def test_short_sums_and_extremes_worked_out_in_line_agree_with_the_reference(
        state, text, x, z, c, t):
    """``sum``, ``max`` and ``min`` of a short list written out add or compare ints in
    line; a name cell (which absorbs the numbers), a fraction, a boolean or an empty
    tuple gives what the reference's function gives, errors included."""
    env = {"x": x, "z": z, "c": c, "t": t}
    assert set(env) <= state.machine.fast.env_names
    results = []
    for fn in _pair(state, text):
        try:
            results.append(("value", fn(state, dict(env))))
        except cortes_rules.CortesRulesError as error:
            results.append(("error", type(error).__name__))
    assert results[0] == results[1]
    assert type(results[0][1]) is type(results[1][1])


def _pair(state, text: str) -> tuple[object, object]:
    node = parse_expression(text)
    return state.machine.fast_expr(node, ""), state.machine.compiler.expr(node, None)


WRITTEN = st.one_of(
    st.integers(-3, 3), st.integers(10 ** 30, 10 ** 30 + 1), st.booleans(), st.none(),
    st.text("ab", max_size=2), st.fractions(-2, 2, max_denominator=3),
    st.tuples(st.integers(0, 2)), st.frozensets(st.integers(0, 2), max_size=2),
    st.sampled_from(["piece", "place"]).map(lambda kind: object()))


@pytest.mark.rule("8.19")
@settings(max_examples=300, deadline=None)
@given(old=WRITTEN, new=WRITTEN, alias=st.booleans())
def test_a_generated_set_writes_exactly_when_the_interpreters_would(old, new, alias):
    """The generated ``set`` tests in line whether a write changes the cell; it must
    agree with the interpreter's ``_same`` on every pair of values (equal ints of
    other objects, 1 against true, 2 against 2/1, containers, pieces)."""
    from cortes_rules.engine.machine import _SCALARS, _same
    if alias:
        new = old
    changes = eval(procedures._changes("old", "new"),  # noqa: S307 - our own test source
                   {"_SCALARS": _SCALARS, "old": old, "new": new})
    assert bool(changes) is (not _same(old, new))


@pytest.mark.rule("10.7")
@settings(max_examples=60, deadline=None)
@given(st.lists(st.tuples(st.booleans(), st.booleans()), min_size=1, max_size=12))
def test_idle_passes_are_left_out_and_the_code_runs_as_before(blocks):
    # A scope's placeholder `pass` is left out of generated code where its block
    # has another statement (one bytecode fewer each time the block runs); a
    # block with nothing else keeps it. Built here: `if`/`else` blocks, each
    # branch opening with a placeholder, the `if` with a statement of its own
    # or not, the next block inside the `else` or after it.
    lines = ["def f(x):", "    n = []"]
    depth = 1
    for inside, filled in blocks:
        pad = "    " * depth
        lines += [f"{pad}if x > {len(lines)}:", f"{pad}    pass"]
        if filled:
            lines.append(f"{pad}    n.append({len(lines)})")
        lines += [f"{pad}else:", f"{pad}    pass"]
        depth += inside
    lines.append("    return n")
    kept = codegen._without_idle_passes(lines)
    dropped = Counter(lines) - Counter(kept)
    assert all(line.strip() == "pass" for line in dropped)
    assert len(lines) - len(kept) >= sum(filled for _, filled in blocks)
    for i, line in enumerate(kept[:-1]):   # no pass left beside a statement of its block
        if line.strip() == "pass":
            assert len(kept[i + 1]) - len(kept[i + 1].lstrip()) < len(line) - len(line.lstrip())
    results = []
    for source in (lines, kept):
        scope: dict = {}
        exec(compile("\n".join(source) + "\n", "<test>", "exec"), scope)  # noqa: S102
        results.append([scope["f"](x) for x in (-1, 5, 1000)])
    assert results[0] == results[1]


_TIRED = '''
rule 9.1 "A tired runner" {
  summary "The runner named tired does not walk."
  value tired: piece = none "the runner that may not walk"
  forbid walk when runner == tired
}
'''


@pytest.mark.rule("9.1", rulebook="minimal")
@pytest.mark.parametrize("seed", range(4))
def test_a_clause_reading_only_the_unit_and_a_value_gates_the_units_kept_ids(tmp_path, seed):
    """A forbid clause that reads, of an option's names, only its first parameter
    (here the runner, and a game value) is tested once per runner, on the ids the
    other clauses keep, so that a write to the value leaves those ids standing.
    The listings equal those worked out afresh every time, as the value changes
    under ids kept from before, and a runner's ids go when it is the one tired."""
    path = tmp_path / "tired.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + _TIRED, encoding="utf-8")
    # The reference backend: on the compiled one the clause machine lists `walk`.
    books = [cortes_rules.load(path, backend="python") for _ in range(2)]
    books[1]._machine.fast.caching = False       # before any code is generated
    # The gate on ids worked out afresh (red's first listing), then on ids kept.
    first = books[0].new_game(seed=seed, setup="standard")
    first.set_value("tired", "R")
    assert [str(a) for a in first.legal_actions()] == ["rest"]
    first.set_value("tired", None)
    assert len(first.legal_actions()) > 1
    first.set_value("tired", "R")
    assert [str(a) for a in first.legal_actions()] == ["rest"]
    choices = random.Random(seed)
    gated = kept = 0
    games = [book.new_game(seed=seed, setup="standard") for book in books]
    tired = None
    for _ in range(80):
        if games[0].is_terminal():
            assert games[0].to_notation() == games[1].to_notation()
            games = [book.new_game(seed=seed, setup="standard") for book in books]
            tired = None
        # First the ids listed as the last action ended (worked out then, with
        # the value as it is), then those once the value changes under them.
        for change in (False, True):
            if change:
                tired = choices.choice([None, "R", "B"])
                for game in games:
                    game.set_value("tired", tired)
            ids = games[0].legal_action_ids()
            assert ids == games[1].legal_action_ids()
            walks = [a for a in games[0].legal_actions() if a.kind == "walk"]
            assert all(a.args[0] != tired for a in walks)
            gated += tired == games[0].current_player[0].upper()
        kept = max(kept, sum(len(entries) for entries in games[0]._ecache.values()))
        choice = choices.choice(ids)
        for game in games:
            game.apply(choice)
    assert gated > 0 and kept > 0       # runners were tired, and ids were kept
    assert games[0].to_notation() == games[1].to_notation()


@pytest.mark.rule("6.2")
@settings(max_examples=40, deadline=None)
@given(kind=st.sampled_from(["place", "piece", "none", "number", "player"]),
       index=st.integers(0, 104), text=st.sampled_from([
           "list(u for u in x.pieces where u.side != none)",
           "count(u in x.pieces where u.steps > 0)",
           "any(u in x.pieces where u.side == side)"]))
def test_a_places_pieces_are_gone_through_as_a_tuple_and_anything_else_fails(
        state, kind, index, text):
    # A place's pieces are a tuple, gone through without a test of their type;
    # `.pieces` of anything else is what the reference makes of it (a failure).
    world = state.machine.world
    x = {"place": world.places[index % len(world.places)], "piece": world.pieces[index],
         "none": None, "number": index, "player": world.seats[index % 2]}[kind]
    env = {"x": x, "side": world.seats[0]}
    node = parse_expression(text)
    machine = state.machine
    reference = machine.compiler.expr(node, None)
    if kind == "place":
        assert machine.fast_expr(node, "")(state, dict(env)) == reference(state, dict(env))
        return
    for fn in (machine.fast_expr(node, ""), reference):
        with pytest.raises(cortes_rules.CortesRulesError):
            fn(state, dict(env))
