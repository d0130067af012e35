"""What-if commands: ``cortes-rules odds ATTACK DEFENSE [--shift N]`` and the like.

The command's name, its inputs and what it prints come from the rulebook's
library (every function ``NAME_what_if`` is a command ``NAME``); the
probabilities it prints are checked here against an independent reading of
the results table in the text of ``rulebook/cortes/13-tables.rules`` and the
36 rolls of two dice.
"""

from __future__ import annotations

import math
import re
from fractions import Fraction
from pathlib import Path

import pytest

import cortes_rules
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
TABLES = ROOT / "rulebook" / "cortes" / "13-tables.rules"
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"




def _table() -> tuple[list[str], dict[int, list[str]]]:
    """The columns and rows of table crt (rule 13.2), read from the rules file's text."""
    text = TABLES.read_text(encoding="utf-8")
    block = re.search(r'table crt "[^"]*" \{(.*?)\}', text, re.S)
    assert block is not None
    columns: list[str] = []
    rows: dict[int, list[str]] = {}
    for line in block.group(1).splitlines():
        words = line.split()
        if words and words[0] == "columns":
            columns = words[1:]
        elif words and words[0] == "row":
            rows[int(words[1])] = words[2:]
    assert len(columns) == 11 and sorted(rows) == list(range(2, 13))
    return columns, rows


def _expected(attack: int, defense: int, shift: int) -> tuple[str, str, dict[str, Fraction]]:
    """Raw odds (8.9, 8.10), the column after the shift, brought within the table only
    then (8.17), and each result's chance on two dice."""
    raw = (attack // defense, 1) if attack >= defense else (1, math.ceil(defense / attack))
    columns, rows = _table()
    ranks = [(int(a) - 1 if int(a) >= int(d) else 1 - int(d))
             for a, d in (c.split(":") for c in columns)]
    rank = raw[0] - 1 if raw[0] >= raw[1] else 1 - raw[1]
    column = min(max(rank - ranks[0] + shift, 0), len(columns) - 1)   # 8.17: after shifts
    chances: dict[str, Fraction] = {}
    for roll, cells in rows.items():
        ways = 6 - abs(roll - 7)          # of the 36 rolls of two dice
        cell = cells[column]
        chances[cell] = chances.get(cell, Fraction(0)) + Fraction(ways, 36)
    return f"{raw[0]}:{raw[1]}", columns[column], chances


def _printed(out: str) -> tuple[str, str, dict[str, Fraction], str]:
    """What ``odds`` printed: raw odds, final column, chances, and the total line."""
    lines = out.splitlines()
    raw = next(line.removeprefix("raw odds: ") for line in lines
               if line.startswith("raw odds: "))
    final = next(line.removeprefix("final column: ") for line in lines
                 if line.startswith("final column: "))
    start = lines.index("results:")
    chances: dict[str, Fraction] = {}
    for line in lines[start + 1:-1]:
        match = re.fullmatch(r"  ([0-9]+/[0-9]+): ([0-9]+(?:/[0-9]+)?) \(([0-9.]+)%\)", line)
        assert match, line
        chances[match.group(1)] = Fraction(match.group(2))
        assert float(match.group(3)) == pytest.approx(float(Fraction(match.group(2))) * 100,
                                                      abs=0.005)
    return raw, final, chances, lines[-1]


@pytest.mark.rule("8.14")
def test_odds_prints_the_worked_example_of_a_major_fortress(
        capsys: pytest.CaptureFixture[str]) -> None:
    # 8.14: 26 against 7 is 3:1; three columns left for a major fortress, read at 1:2.
    status, out, err = run_cli(capsys, "odds", "26", "7", "--shift", "-3")
    assert (status, err) == (0, "")
    lines = out.splitlines()
    assert lines[0].startswith("attack 26, defense 7, shift -3 (cortes, odds_what_if")
    assert lines[1:3] == ["raw odds: 3:1", "final column: 1:2"]
    assert "  3/1: 1/36 (2.78%)" in lines          # roll 2 at 1:2, one roll in 36
    assert lines[-1] == "  total: 1 (100.00%)"


@pytest.mark.rule("13.2", "8.17")
@pytest.mark.parametrize(("attack", "defense", "shift"), [
    (26, 7, -3), (26, 7, 0), (5, 11, 0), (13, 3, -2), (7, 7, 1), (100, 1, 0), (1, 9, 0),
    (30, 3, -4), (8, 3, 2), (1, 9, 2), (100, 1, -1),
])
def test_odds_chances_are_the_table_column_on_two_dice(
        attack: int, defense: int, shift: int, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "odds", str(attack), str(defense), "--shift", str(shift))
    assert status == 0
    raw, final, chances, total = _printed(out)
    want_raw, want_final, want = _expected(attack, defense, shift)
    assert (raw, final) == (want_raw, want_final)
    assert chances == want
    assert sum(chances.values()) == 1 and total == "  total: 1 (100.00%)"


@pytest.mark.rule("13.2")
def test_odds_shift_defaults_to_none_and_results_prints_the_chances_alone(
        capsys: pytest.CaptureFixture[str]) -> None:
    _, plain, _ = run_cli(capsys, "odds", "26", "7")
    _, zero, _ = run_cli(capsys, "odds", "26", "7", "--shift", "0")
    assert plain == zero and "final column: 3:1" in plain.splitlines()
    status, out, _ = run_cli(capsys, "results", "26", "7", "--shift", "-3")
    assert status == 0
    chances = cortes_rules.load("cortes").evaluate("results_what_if(-3)", attack=26,
                                                   defense=7)
    lines = out.splitlines()
    assert lines[1:-1] == [f"({a}, {b}): {p} ({float(p):.2%})"
                           for (a, b), p in chances.items()]
    assert {f"{a}/{b}": p for (a, b), p in chances.items()} == _expected(26, 7, -3)[2]


@pytest.mark.rule("4.2")
def test_what_if_commands_are_listed_in_the_help(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "--help")
    assert status == 0
    assert re.search(r"^    odds +what-if question of cortes: odds_what_if\(shift\)", out, re.M)
    assert "each function NAME_what_if it (or its library) declares is the command NAME" \
        in " ".join(out.split())
    status, out, _ = run_cli(capsys, "odds", "--help")
    assert status == 0
    assert "ATTACK" in out and "DEFENSE" in out and "--shift VALUE" in out


@pytest.mark.rule("4.2")
@pytest.mark.parametrize(("args", "status", "message"), [
    (("frob",), 2, "invalid choice: 'frob'"),
    (("odds", "26", "7", "--rulebook", "grands_strateges"), 2, "invalid choice: 'odds'"),
    (("odds", "26"), 2, "required: DEFENSE"),
    (("odds", "26", "7", "--slant", "1"), 2, "unrecognized arguments: --slant 1"),
    (("odds", "26", "7", "--rulebook", "nowhere"), 1, "no rulebook 'nowhere'"),
    (("odds", "26", "0"), 1, "cortes-rules: "),
])
def test_what_if_commands_refuse_bad_input_in_one_line(
        args: tuple[str, ...], status: int, message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    returned, out, err = run_cli(capsys, *args)
    assert returned == status
    assert err.count("\n") == 1, err
    assert err.startswith("cortes-rules: ") and message in err
    assert "Traceback" not in err


@pytest.mark.rule("4.2")
def test_any_rulebook_declares_its_own_what_if_commands(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A rulebook that knows nothing of odds: a function ending in _what_if is a command.
    book = tmp_path / "race.rules"
    book.write_text(MINIMAL.read_text(encoding="utf-8") + '''
rule 9.1 "Questions" {
  summary "What-if questions for the command line."
  function what_if_given() = ("to", "runner")
  function pace_what_if(bonus, times) = (runner.walked + bonus) * times + count(to.pieces)
  function check_what_if(bonus) = bonus
}
''', encoding="utf-8")
    status, out, err = run_cli(capsys, "pace", "goal", "R", "--bonus", "2", "--times", "3",
                            "--rulebook", str(book))
    assert (status, err) == (0, "")
    assert out.splitlines() == ["to goal, runner R, bonus 2, times 3 "
                                "(minimal_race, pace_what_if [9.1])", "6"]
    _, out, _ = run_cli(capsys, "pace", "goal", "R", "--times", "5", "--rulebook", str(book))
    assert out.splitlines()[-1] == "0"              # an option left out is 0
    status, _, err = run_cli(capsys, "pace", "goal", "R9", "--rulebook", str(book))
    assert status == 1 and err.count("\n") == 1 and "R9" in err
    # A built-in command keeps its name; what the rulebook does not declare is refused.
    status, out, _ = run_cli(capsys, "check", str(book))
    assert status == 0 and "ok" in out
    status, _, err = run_cli(capsys, "odds", "26", "7", "--rulebook", str(book))
    assert status == 2 and "invalid choice: 'odds'" in err
