"""``cortes-rules selfplay``: one game of uniformly random legal choices, seeded."""

from __future__ import annotations

import subprocess
import sys
from pathlib import Path

import pytest

from cortes_rules import CortesRulesError
from cortes_rules.cli import main
from cortes_rules.selfplay import parse_options, selfplay

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"

SCORED = (
    '\nrule 2.5 "Scoring" {\n'
    '  summary "The race ends once any runner has walked: red wins, and the report gives a '
    'level and the areas walked by each side."\n'
    '  finish when any(u in pieces where u.walked >= 1) winner red "a runner has walked" '
    'report level = "clean win", '
    'walked_by_red = sum(u.walked for u in pieces where u.side == red), '
    'walked_by_blue = sum(u.walked for u in pieces where u.side == blue)\n'
    '}\n')


def run(*args: str, capsys: pytest.CaptureFixture[str]) -> tuple[int, str, str]:
    status = main(["selfplay", *args])
    out = capsys.readouterr()
    return status, out.out, out.err


@pytest.mark.rule("4.1")
def test_cortes_game_from_the_historical_setup_is_unfinished_and_deterministic(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, first, err = run("--seed", "7", "--max-turns", "2", "--setup", "historical",
                             capsys=capsys)
    assert status == 0 and err == ""
    lines = first.splitlines()
    assert lines[0] == ("Self-play of cortes: seed 7, set-up historical, optional rules on: "
                        "none")
    assert lines[-1] == "Unfinished after 2 turns."
    status, second, _ = run("--seed", "7", "--max-turns", "2", "--setup", "historical",
                            capsys=capsys)
    assert status == 0 and second == first
    _, other, _ = run("--seed", "8", "--max-turns", "2", "--setup", "historical", capsys=capsys)
    assert other.splitlines()[1] != lines[1]   # another seed, other choices


@pytest.mark.rule("3.1")
def test_without_a_setup_the_players_set_up_first(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run("--seed", "5", "--max-turns", "1", capsys=capsys)
    assert status == 0 and err == ""
    lines = out.splitlines()
    assert lines[0] == ("Self-play of cortes: seed 5, set-up placed by the players, optional "
                        "rules on: none")
    assert lines[-1] == "Unfinished after 1 turn."
    played = selfplay("cortes", seed=5, max_turns=1)
    # 49 Spanish and 54 Aztec placements come before the first turn's decisions.
    assert played.moves_by_player["spanish"] > 49 and played.moves_by_player["aztec"] > 54


@pytest.mark.rule("4.1")
def test_max_turns_is_respected() -> None:
    one = selfplay("cortes", seed=3, max_turns=1)
    three = selfplay("cortes", seed=3, max_turns=3)
    assert not one.finished and not three.finished
    assert one.turn == 2 and three.turn == 4        # stopped as each limit was passed
    assert 0 < one.decisions < three.decisions
    assert list(one.lines())[-1] == "Unfinished after 1 turn."


@pytest.mark.rule("11.1")
def test_options_presets_and_rule_numbers(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run("--seed", "1", "--max-turns", "1", "--options", "veteran",
                         capsys=capsys)
    assert status == 0
    assert out.splitlines()[0].endswith("optional rules on: 8.24, 8.25, 11.1, 11.2, 11.3, "
                                        "11.4, 11.5, 11.6, 11.7, 11.8, 11.9, 11.10")
    status, out, _ = run("--seed", "1", "--max-turns", "1", "--options", "11.4, 11.6",
                         capsys=capsys)
    assert status == 0 and out.splitlines()[0].endswith("optional rules on: 11.4, 11.6")
    assert parse_options("beginner") == ["beginner"] and parse_options("") == []


@pytest.mark.rule("11.1")
def test_bad_options_are_refused_in_one_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run("--seed", "1", "--options", "expert", capsys=capsys)
    assert status == 1 and out == ""
    assert err.startswith("cortes-rules: no preset 'expert'") and "beginner, veteran" in err
    assert len(err.strip().splitlines()) == 1
    status, _, err = run("--seed", "1", "--options", "11.99", capsys=capsys)
    assert status == 1 and "no optional rule numbered 11.99" in err
    status, _, err = run("--seed", "1", "--setup", "nowhere", capsys=capsys)
    assert status == 1 and "no set-up 'nowhere'" in err


@pytest.mark.rule("8.19")
def test_a_reading_is_chosen_on_the_command_line(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, err = run("--seed", "2", "--max-turns", "1",
                           "--reading", "loss_order=attacker_first", capsys=capsys)
    assert status == 0 and err == ""
    assert out.splitlines()[0].endswith("readings: loss_order=attacker_first")
    status, out, _ = run("--seed", "2", "--max-turns", "1", capsys=capsys)
    assert "readings:" not in out.splitlines()[0]
    status, _, err = run("--seed", "2", "--reading", "loss_order", capsys=capsys)
    assert status == 1 and "ENTRY=READING" in err
    status, _, err = run("--seed", "2", "--reading", "loss_order=sideways", capsys=capsys)
    assert status == 1 and "sideways" in err and len(err.strip().splitlines()) == 1


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("args", [["--seed", "x"], ["--max-turns", "3"],
                                  ["--seed", "1", "--max-turns", "0"],
                                  ["--seed", "1", "--max-turns", "two"]])
def test_bad_command_lines_exit_2(args: list[str], capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as caught:
        main(["selfplay", *args])
    assert caught.value.code == 2
    err = capsys.readouterr().err
    assert err.startswith("cortes-rules: ") and len(err.strip().splitlines()) == 1


@pytest.mark.rule("2.2")
def test_a_finished_game_prints_winner_and_what_the_ending_reports(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + SCORED, encoding="utf-8")
    status, out, _ = run("--seed", "1", "--rulebook", str(path), capsys=capsys)
    assert status == 0
    lines = out.splitlines()
    assert lines[0] == "Self-play of minimal_race: seed 1, set-up standard, optional rules on: none"
    game_over = next(i for i, line in enumerate(lines) if line.startswith("Game over in turn"))
    assert lines[game_over].endswith(": a runner has walked")
    assert lines[game_over + 1] == "Winner: red"
    assert lines[game_over + 2] == "  level: clean win"
    assert lines[game_over + 3].startswith("  walked_by_red: ")
    assert lines[game_over + 4].startswith("  walked_by_blue: ")
    result = selfplay(str(path), seed=1)
    assert result.finished and result.outcome is not None
    assert result.outcome.details["level"] == "clean win"
    assert result.outcome.details["walked_by_red"] + result.outcome.details["walked_by_blue"] >= 1


@pytest.mark.rule("2.2")
def test_selfplay_refuses_bad_arguments_through_the_api() -> None:
    with pytest.raises(CortesRulesError, match="seed"):
        selfplay("cortes", seed="1")  # type: ignore[arg-type]
    with pytest.raises(CortesRulesError, match="turn limit"):
        selfplay("cortes", seed=1, max_turns=0)
    with pytest.raises(CortesRulesError, match="no preset 'expert'"):
        selfplay("cortes", seed=1, options="expert")


@pytest.mark.rule("4.1")
def test_selfplay_runs_as_a_module() -> None:
    done = subprocess.run([sys.executable, "-m", "cortes_rules", "selfplay", "--seed", "4",
                           "--max-turns", "1"], capture_output=True, text=True, cwd=ROOT,
                          timeout=300, check=False)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines()[-1] == "Unfinished after 1 turn."
