"""``cortes-rules explain`` and ``cortes-rules reach``: docs/explain.md on the command line."""

from __future__ import annotations

import json
from fractions import Fraction
from pathlib import Path

import pytest

import cortes_rules
from cli_run import run_cli
from positions import to_phase
from positions import GARRISON




def _position_file(tmp_path: Path, book: cortes_rules.Rulebook, positions: dict[str, str],
                   phase: str) -> str:
    state = to_phase(book.new_game(seed=0, positions={**GARRISON, **positions}), phase)
    path = tmp_path / "position.txt"
    path.write_text(state.to_notation(), encoding="utf-8")
    return str(path)


@pytest.mark.rule("8.14")
def test_explain_prints_the_trail_and_the_exact_outcomes(tmp_path, capsys, book):
    where = _position_file(tmp_path, book, {"S1": "1321", "S20": "1321", "Cortes": "1321",
                                            "A11": "1322"}, "spanish_land_combat")
    question = "attack 1322; join S1; join S20; join Cortes; resolve"
    status, out, err = run_cli(capsys, "explain", where, question)
    assert status == 0, err
    assert "final column 1:1" in out and "-3 [8.14]" in out
    assert "Outcomes:" in out and "summing to 1" in out
    status, out, err = run_cli(capsys, "explain", where, question, "--json")
    assert status == 0, err
    data = json.loads(out)
    assert data["schema"] == "cortes_rules.explain/1" and data["total_probability"] == "1"
    assert sum(Fraction(o["probability"]) for o in data["outcomes"]) == 1
    assert "8.14" in data["rules"]


@pytest.mark.rule("7.13")
def test_explain_names_the_rule_that_refuses_a_move(tmp_path, capsys, book):
    where = _position_file(tmp_path, book, {"S9": "3021"}, "spanish_land_movement")
    status, out, err = run_cli(capsys, "explain", where, "move S9 3020")
    assert status == 0, err
    assert "move S9 3020 (spanish): illegal here" in out and "[7.13]" in out
    status, out, _ = run_cli(capsys, "explain", where, "move S9 3020", "--json")
    assert json.loads(out)["refusal"]["reasons"][0]["rule"] == "7.13"


@pytest.mark.rule("4.5")
def test_explain_rolls_limits_how_far_the_answer_goes(tmp_path, capsys):
    veteran = cortes_rules.load("cortes", options="veteran")
    knights = {"A1": "1111", "A2": "1111", "A3": "1111", "A4": "1112", "A5": "1112",
               "A6": "1112", "A7": "1212"}
    where = _position_file(tmp_path, veteran, {**knights, "S1": "2921"}, "end_of_turn")
    status, out, err = run_cli(capsys, "explain", where, "split; object", "--rolls", "1",
                            "--json")
    assert status == 0, err
    data = json.loads(out)
    refused = [o for o in data["outcomes"]
               if any("is refused" in line["text"] for p in o["paths"] for line in p["trail"])]
    assert [Fraction(o["probability"]) for o in refused] == [Fraction(1, 3)]


@pytest.mark.rule("7.7")
def test_reach_prints_the_cheapest_path(tmp_path, capsys, book):
    where = _position_file(tmp_path, book, {"S9": "3021"}, "spanish_land_movement")
    status, out, err = run_cli(capsys, "reach", where, "S9", "3020", "--cost", "spent")
    assert status == 0, err
    assert "S9 reaches 3020 in 2 steps, cost 3" in out
    assert out.index("move S9 2920") < out.index("move S9 3020")
    status, out, _ = run_cli(capsys, "reach", where, "S9", "3020", "--json")
    assert json.loads(out)["reachable"] is True


@pytest.mark.rule("8.8")
def test_explain_errors_are_one_line(tmp_path, capsys, book):
    where = _position_file(tmp_path, book, {"S1": "1110"}, "spanish_land_combat")
    status, _, err = run_cli(capsys, "explain", where, "fly S1 1111")
    assert status == 1 and err.count("\n") == 1
    status, _, err = run_cli(capsys, "explain", where, "end", "--as", "nobody")
    assert status == 1 and "no player 'nobody'" in err
    status, _, err = run_cli(capsys, "reach", where, "S99", "1111")
    assert status == 1 and "no piece 'S99'" in err
