"""Grands Stratèges scenarios I-III: forces, the screened deployment, the end
of the game and its result, on the test board (which has the deployment rows
of the shipped board)."""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import GameState

BOARD = Path(__file__).resolve().parent / "examples_map.rules"


@pytest.fixture(scope="module")
def scenario_i() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", map=BOARD, scenario="I")


def deploy(state: GameState) -> GameState:
    """Both players place their forces, each on the first free hex of his zone."""
    while state.phase == "deploy":
        player = state.current_player
        state.apply(sorted(str(a) for a in state.legal_actions())[0])
        assert player is not None
    return state


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_i_deploys_behind_screens(scenario_i: cortes_rules.Rulebook) -> None:
    state = scenario_i.new_game(seed=1)
    assert state.phase == "deploy" and state.current_player == "a"
    state.apply("place A1 0101")
    # B chooses without having seen A's placement: nothing of A is shown to B.
    assert state.current_player == "b"
    seen = state.observation("b")
    assert not any(uid.startswith("A") for uid in seen["pieces"])
    assert set(seen["hidden"]) == {"unknown"}
    state.apply("place B1 0112")
    assert state.place_of("A1") == "0101"
    assert "B1" not in state.observation("a")["pieces"]
    deploy(state)
    assert state.phase == "a_movement"
    # The screens are lifted: each sees the other's units where they stand.
    assert state.observation("a")["pieces"]["B1"]["place"] == "0112"
    placed = [u for u in scenario_i.piece_ids if state.place_of(u) not in (None, "")]
    assert len(placed) == 16
    rows_a = {int(state.place_of(u)[2:]) for u in placed if u.startswith("A")}
    rows_b = {int(state.place_of(u)[2:]) for u in placed if u.startswith("B")}
    assert rows_a <= {1, 2, 3} and rows_b <= {10, 11, 12}


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_i_ends_after_eight_turns_with_a_margin_of_six(
        scenario_i: cortes_rules.Rulebook) -> None:
    state = scenario_i.new_game(positions={"A6": "0101", "B1": "0112", "B6": "1612",
                                           "A1": "eliminated.a"})
    for _ in range(8):
        for action in ("end", "end_combat", "end", "end_combat"):
            state.apply(action)
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome is not None
    # A lost 8 factors, B none: B wins by 8 >= 6.
    assert outcome.winners == ("b",)
    assert outcome.details == {"losses_a": 8, "losses_b": 0}


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
def test_scenario_i_is_won_at_once_by_wiping_out_the_enemy(
        scenario_i: cortes_rules.Rulebook) -> None:
    state = scenario_i.new_game(positions={"A1": "0602", "B17": "0603", "A6": "1601"})
    state.apply("end")
    for action in ("attack 0603", "join A1", "resolve", "roll 6"):
        state.apply(action)
    assert state.is_terminal()
    assert state.outcome().winners == ("a",)


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_every_scenario_loads_with_its_forces(gs_book: cortes_rules.Rulebook) -> None:
    assert [name for name, _ in gs_book.scenarios][:3] == ["I", "II", "III"]
    book = cortes_rules.load("grands_strateges", map=BOARD, scenario="III")
    state = book.new_game(seed=2)
    assert len(state.evaluate("forces()")) == 36
    assert book.scenario == "III"
