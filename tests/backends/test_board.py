"""The native core's first state: integer tables of the world and the board of positions.

docs/design.md ("The compiled core", stage by stage): ``engine/tables.py``
lowers a rulebook's static world to integer arrays, and a ``Board`` keeps
where each piece is with the occupancy counts that follow, in the native
core (``cortes_rules._core.Board``) and in its Python specification
(``cortes_rules.engine.board.Board``). These tests hold the tables to the
``World`` they come from, the two boards to each other, and both to the
interpreter's own view of the pieces over seeded random games.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.engine import tables as tables_stage
from cortes_rules.engine.board import NONE
from cortes_rules.engine.board import Board as ReferenceBoard
from cortes_rules.errors import BoardError, CortesRulesError
from differential import random_positions

try:
    from cortes_rules._core import Board as NativeBoard
except ImportError:  # the compiled core is not built: only the reference runs
    NativeBoard = None

BOARDS = [ReferenceBoard] + ([NativeBoard] if NativeBoard is not None else [])
CORE_FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "core"


def _world(book: cortes_rules.Rulebook):
    return book._machine.world


# ---------------------------------------------------------------- tables
@pytest.mark.rule("2.2")
@pytest.mark.parametrize("name, options", [("cortes", ()), ("cortes", ("veteran",)),
                                           ("grands_strateges", ())])
def test_2_2_the_integer_tables_decode_to_the_world_they_were_lowered_from(name, options):
    world = _world(cortes_rules.load(name, options=options))
    tables = tables_stage.lower(world)
    assert tables_stage.check(tables, world) == []
    assert (tables.n_pieces, tables.n_places) == (len(world.pieces), len(world.places))
    # Every hex's row of neighbours has the map's own neighbours, in order.
    some_hex = world.hexes[len(world.hexes) // 2]
    assert [tables.place_ids[i] for i in tables.neighbours_of(some_hex.index)] == \
        [p.id for p in some_hex.neighbours]


@pytest.mark.rule("1.3", rulebook="zoc")
@pytest.mark.parametrize("fixture", sorted(p.name for p in CORE_FIXTURES.glob("*.rules")))
def test_1_3_a_users_rulebook_lowers_to_tables_too(fixture):
    # The stage knows no game: any rulebook the checker accepts lowers.
    world = _world(cortes_rules.load(CORE_FIXTURES / fixture))
    tables = tables_stage.lower(world)
    assert tables_stage.check(tables, world) == []


@pytest.mark.rule("7.16")
def test_7_16_a_causeway_hexside_is_a_bit_of_the_edge_crossed():
    world = _world(cortes_rules.load("cortes"))
    tables = tables_stage.lower(world)
    causeway = tables.symbol("causeway")
    edges = [(place, other) for place in world.places for other in place.neighbours]
    crossing = [i for i, (a, b) in enumerate(edges) if "causeway" in world.hexside(a, b)]
    assert crossing, "the shipped map has causeway hexsides"
    assert all(tables.has(tables.edge_features, i, causeway) for i in crossing)
    assert not any(tables.has(tables.edge_features, i, causeway)
                   for i in range(len(edges)) if i not in set(crossing))


@pytest.mark.rule("2.11")
def test_2_11_movement_factors_become_an_integer_column():
    world = _world(cortes_rules.load("cortes"))
    tables = tables_stage.lower(world)
    assert list(tables.columns["move"]) == [p.props["move"] for p in world.pieces]
    # A property that is not an integer for every counter (the combat factors,
    # one per step) stays with the interpreter.
    assert "factors" not in tables.columns


@pytest.mark.rule("2.1")
def test_2_1_a_tampered_table_is_reported_by_check():
    world = _world(cortes_rules.load("cortes"))
    tables = tables_stage.lower(world)
    first = world.hexes[0]
    start = tables.neighbour_start[first.index]
    tables.neighbours[start] = tables.neighbours[start + 1]
    assert f"{first.id}: neighbours" in tables_stage.check(tables, world)


# ---------------------------------------------------------------- boards
def _recount(where: list[int], sides: list[int], n_places: int, n_players: int):
    count = [0] * n_places
    owned = [dict.fromkeys(range(NONE, n_players), 0) for _ in range(n_places)]
    for piece, place in enumerate(where):
        if place != NONE:
            count[place] += 1
            owned[place][sides[piece]] += 1
    return count, owned


def _agrees(board, sides: list[int], n_places: int, n_players: int) -> None:
    where = board.where()
    count, owned = _recount(where, sides, n_places, n_players)
    for place in range(n_places):
        assert board.count(place) == count[place]
        assert board.occupants(place) == [i for i, at in enumerate(where) if at == place]
        for player in range(NONE, n_players):   # NONE: the ownerless pieces
            assert board.count_of(place, player) == owned[place][player]
            assert board.others(place, player) == count[place] - owned[place][player]


boards_and_moves = st.integers(1, 4).flatmap(lambda players: st.tuples(
    st.just(players),
    st.integers(1, 9),
    st.lists(st.integers(NONE, players - 1), min_size=1, max_size=12),
    st.lists(st.tuples(st.integers(0, 11), st.integers(NONE, 8)), max_size=40)))


@pytest.mark.rule("6.1")
@settings(max_examples=150, deadline=None)
@given(boards_and_moves)
def test_6_1_both_boards_keep_the_counts_a_recount_gives(case):
    # Stacking limits (6.1) are count tests; the counts must be exact after
    # any sequence of moves, on the native board as on its specification.
    n_players, n_places, sides, moves = case
    boards = [cls(sides, n_places, n_players) for cls in BOARDS]
    for piece, place in moves:
        piece %= len(sides)
        place = place if place < n_places else NONE
        olds = {board.put(piece, place) for board in boards}
        assert len(olds) == 1
    for board in boards:
        _agrees(board, sides, n_places, n_players)
    assert len({tuple(board.where()) for board in boards}) == 1


@pytest.mark.rule("6.1")
@pytest.mark.parametrize("cls", BOARDS, ids=lambda c: c.__module__)
def test_6_1_a_clone_is_independent_of_its_original(cls):
    board = cls([0, 1, NONE], 3, 2)
    board.put(0, 1)
    twin = board.clone()
    twin.put(0, 2)
    twin.put(1, 1)
    assert (board.where(), board.count(1), board.count(2)) == ([1, NONE, NONE], 1, 0)
    assert (twin.where(), twin.count(1), twin.count_of(1, 1), twin.count(2)) == \
        ([2, 1, NONE], 1, 1, 1)


@pytest.mark.rule("6.1")
@pytest.mark.parametrize("cls", BOARDS, ids=lambda c: c.__module__)
@pytest.mark.parametrize("call", [
    lambda b: b.put(3, 0), lambda b: b.put(-1, 0), lambda b: b.put(0, 3),
    lambda b: b.put(0, -2), lambda b: b.count(NONE), lambda b: b.count_of(0, 2),
    lambda b: b.count_of(0, -2),
    lambda b: b.others(5, 0), lambda b: b.occupants(3), lambda b: b.place_of(7)])
def test_6_1_a_number_off_the_board_is_a_board_error_and_changes_nothing(cls, call):
    board = cls([0, 1, NONE], 3, 2)
    board.put(1, 2)
    with pytest.raises(BoardError) as caught:
        call(board)
    assert isinstance(caught.value, CortesRulesError)
    assert "is not" in str(caught.value)
    assert board.where() == [NONE, 2, NONE]
    _agrees(board, [0, 1, NONE], 3, 2)


@pytest.mark.rule("6.1")
@pytest.mark.parametrize("cls", BOARDS, ids=lambda c: c.__module__)
def test_6_1_an_owner_outside_the_players_is_refused(cls):
    with pytest.raises(BoardError, match="not a player"):
        cls([0, 2], 3, 2)


def _follow(book: cortes_rules.Rulebook, seed: int, steps: int, new_game: dict) -> int:
    """Play a random game, moving the boards as the interpreter moves the pieces."""
    world = _world(book)
    tables = tables_stage.lower(world)
    sides = list(tables.piece_side)
    players = len(tables.player_names)
    boards = [cls(sides, tables.n_places, players) for cls in BOARDS]
    checked = 0
    for _, state, _ in random_positions(book, seed, steps, new_game):
        where = [NONE if place is None else place.index for place in state.where]
        for board in boards:
            for piece, place in enumerate(where):
                board.put(piece, place)
        occupied = {place for place in where if place != NONE}
        for board in boards:
            for place in occupied:
                held = [p.index for p in state.pieces_in(world.places[place])]
                assert board.occupants(place) == held
                for player in range(NONE, players):
                    assert board.count_of(place, player) == \
                        sum(1 for i in held if sides[i] == player)
            checked += 1
    return checked


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("setup", ["historical", "demo"])
def test_2_1_the_boards_follow_the_pieces_through_cortes_games(setup):
    book = cortes_rules.load("cortes", options=("veteran",))
    checked = sum(_follow(book, seed, 60, {"setup": setup, "turn_limit": 10})
                  for seed in range(4))
    assert checked >= 4 * 30 * len(BOARDS)


@pytest.mark.rule("I", rulebook="grands_strateges")
@pytest.mark.parametrize("scenario", ["I", "VI", "X"])
def test_i_the_boards_follow_the_pieces_through_grands_strateges_games(scenario):
    book = cortes_rules.load("grands_strateges", scenario=scenario)
    checked = sum(_follow(book, seed, 60, {}) for seed in range(2))
    assert checked >= 2 * 30 * len(BOARDS)
