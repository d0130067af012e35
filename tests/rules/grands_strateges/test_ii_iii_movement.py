"""Grands Stratèges, sections II (movement) and III (zones of control).

Each test plays a worked example of the text (examples I-IX) on the test
board, or a rule the examples do not draw.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction

import pytest
from gs_helpers import refusal_rules

from cortes_rules import GameState

GameMaker = Callable[..., GameState]


def spent(state: GameState, unit: str) -> Fraction:
    return Fraction(state.attribute(unit, "spent"))


@pytest.mark.rule("II.1", rulebook="grands_strateges")
@pytest.mark.rule("II.9", rulebook="grands_strateges")
def test_example_i_four_clear_hexes_and_no_fifth(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1101"})
    for to in ("1102", "1103", "1104", "1105"):
        state.apply(f"move A6 {to}")
    assert spent(state, "A6") == 4
    assert "II.9" in refusal_rules(state, "move A6 1106")


@pytest.mark.rule("II.6", rulebook="grands_strateges")
def test_example_i_passing_a_friend_costs_nothing_extra(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1101", "A7": "1102"})
    state.apply("move A6 1102")
    assert spent(state, "A6") == 1
    # It may not stop there: another unit may not move and the phase may not end.
    assert "II.6" in refusal_rules(state, "move A7 1103")
    assert "II.6" in refusal_rules(state, "end")
    state.apply("move A6 1103")
    state.apply("end")
    assert state.phase == "a_combat"


@pytest.mark.rule("II.9", rulebook="grands_strateges")
@pytest.mark.rule("II.8", rulebook="grands_strateges")
def test_examples_ii_and_iii_a_forest_costs_two(gs_game: GameMaker) -> None:
    # Z reaches the forest at 0605 with its last two points.
    state = gs_game({"A6": "0602", "A7": "0801"})
    state.apply("move A6 0603")
    state.apply("move A6 0604")
    state.apply("move A6 0605")
    assert spent(state, "A6") == 4
    # W has one point left before the forest at 0805: it must stop at 0804.
    for to in ("0802", "0803", "0804"):
        state.apply(f"move A7 {to}")
    assert refusal_rules(state, "move A7 0805") == {"II.9"}


@pytest.mark.rule("II.10", rulebook="grands_strateges")
def test_example_iv_forest_across_a_stream_costs_three(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1007"})
    state.apply("move A6 1008")
    assert spent(state, "A6") == 3


@pytest.mark.rule("II.11", rulebook="grands_strateges")
def test_example_vi_half_a_point_a_hex_along_the_road(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0201", "A7": "0601"})
    for to in ("0202", "0203", "0204"):
        state.apply(f"move A6 {to}")
    assert spent(state, "A6") == Fraction(3, 2)
    # Off the road the same three hexes cost three points.
    for to in ("0602", "0603"):
        state.apply(f"move A7 {to}")
    assert spent(state, "A7") == 2


@pytest.mark.rule("II.11", rulebook="grands_strateges")
def test_example_v_entering_or_leaving_the_road_pays_the_terrain(gs_game: GameMaker) -> None:
    # D (0101) -> B (0202, on the road) -> E (0301, off it): two clear hexes.
    state = gs_game({"A6": "0101"})
    state.apply("move A6 0202")
    state.apply("move A6 0301")
    assert spent(state, "A6") == 2
    # D -> B -> C (0203, along the road): one point, then half a point.
    state = gs_game({"A6": "0101"})
    state.apply("move A6 0202")
    state.apply("move A6 0203")
    assert spent(state, "A6") == Fraction(3, 2)


@pytest.mark.rule("II.3", rulebook="grands_strateges")
def test_a_unit_moves_once_per_phase(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1101", "A7": "1301"})
    state.apply("move A6 1102")
    state.apply("move A7 1302")
    assert "II.3" in refusal_rules(state, "move A6 1103")


@pytest.mark.rule("II.6", rulebook="grands_strateges")
def test_no_unit_enters_an_enemy_hex(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0101", "B6": "0103"})
    # 0102 is next to B6, so A6 stops there; it never enters 0103.
    state.apply("move A6 0102")
    assert "II.6" in refusal_rules(state, "move A6 0103")


@pytest.mark.rule("III.1", rulebook="grands_strateges")
def test_example_vii_a_unit_controls_its_six_neighbours(gs_game: GameMaker) -> None:
    state = gs_game({"B6": "0404"})
    controlled = state.evaluate(
        "list(h for h in hexes where distance(h, c) <= 2 and enemy_controls(h, a))", c="0404")
    assert sorted(str(h) for h in controlled) == sorted(
        ["0403", "0503", "0504", "0405", "0304", "0303"])


@pytest.mark.rule("III.4", rulebook="grands_strateges")
@pytest.mark.rule("III.6", rulebook="grands_strateges")
def test_example_viii_stop_on_entering_and_no_leaving(gs_game: GameMaker) -> None:
    # C (B6) at 0909; B (A7) next to it cannot move; A (A6) stops on entering.
    state = gs_game({"B6": "0909", "A7": "0910", "A6": "0906"})
    assert refusal_rules(state, "move A7 0911") == {"III.6"}
    state.apply("move A6 0907")
    state.apply("move A6 0908")
    assert spent(state, "A6") == 2
    assert refusal_rules(state, "move A6 0907") == {"III.4"}


@pytest.mark.rule("III.7", rulebook="grands_strateges")
def test_example_ix_villages_and_rivers_are_not_controlled(gs_game: GameMaker) -> None:
    # Z (B6) at 1403 behind a river on its west side; A (A6) in the village 1503.
    state = gs_game({"B6": "1403", "A6": "1503", "A7": "1301"})
    assert not state.evaluate("enemy_controls(h, a)", h="1503")
    assert state.evaluate("enemy_controls(h, b)", h="1403")
    # C (A7) walks along the far bank, next to Z, without stopping.
    state.apply("move A7 1302")
    state.apply("move A7 1303")
    state.apply("move A7 1304")
    assert spent(state, "A7") == 3


@pytest.mark.rule("III.8", rulebook="grands_strateges")
def test_example_ix_no_passing_a_friend_in_an_enemy_zone(gs_game: GameMaker) -> None:
    # D (A7) at 0705 is in Y's (B6 at 0706) zone; B (A6) may not pass through it.
    state = gs_game({"B6": "0706", "A7": "0705", "A6": "0704"})
    assert refusal_rules(state, "move A6 0705") >= {"III.8"}


@pytest.mark.rule("VI.1", rulebook="grands_strateges")
def test_leaving_the_map_eliminates_the_unit(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0101", "A7": "0606"})
    assert "exit A7" not in {str(a) for a in state.legal_actions()}
    state.apply("exit A6")
    assert state.place_of("A6") == "off_map.a"
    assert state.evaluate("losses(a)") == 4
