"""``cortes-rules coverage``: each numbered rule, its clauses and the tests citing it."""

from __future__ import annotations

from pathlib import Path

import pytest

from cortes_rules.cli import main
from cortes_rules.coverage import DEFINITION, STATED, SUMMARY_ONLY, coverage, rule_citations
from cortes_rules.rule_numbers import rule_key

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"

EXTRA = '''
rule 2.10 "Tenth rule" {
  summary "A rule whose mechanism is not written yet: its clause holds a summary only."
}

rule 2.9 "Ninth rule" {
  summary "A word the other rules use, defined here."
  definition
}

rule 3.1 "Optional rule" optional {
  summary "An optional rule still shows in the coverage report, marked optional."
}
'''

TESTS = '''
import pytest

pytestmark = pytest.mark.rule("2.3")


@pytest.mark.rule("2.10")
def test_tenth() -> None:
    assert True


class TestGroup:
    @pytest.mark.rule("2.2", "2.10")
    def test_both(self) -> None:
        assert True


CASES = [pytest.param(1, marks=pytest.mark.rule("2.4"), id="one")]


@pytest.mark.rule("2.9", rulebook="another_game")
def test_of_another_rulebook() -> None:
    assert True


def dynamic(number: str) -> object:
    return pytest.mark.rule(number)
'''


@pytest.fixture
def checkout(tmp_path: Path) -> Path:
    """A checkout-like folder: rulebook/race/*.rules and tests/test_race.py."""
    folder = tmp_path / "rulebook" / "race"
    folder.mkdir(parents=True)
    (folder / "race.rules").write_text(MINIMAL.read_text(encoding="utf-8") + EXTRA,
                                       encoding="utf-8")
    (tmp_path / "tests").mkdir()
    (tmp_path / "tests" / "test_race.py").write_text(TESTS, encoding="utf-8")
    (tmp_path / "tests" / "broken.py").write_text("def (:\n", encoding="utf-8")
    return tmp_path


@pytest.mark.rule("2.9")
def test_rule_numbers_sort_numerically() -> None:
    numbers = ["2.10", "13.1", "2.9", "8.11a", "8.11", "11.10", "11.2"]
    assert sorted(numbers, key=rule_key) == ["2.9", "2.10", "8.11", "8.11a", "11.2", "11.10",
                                             "13.1"]


@pytest.mark.rule("2.10")
def test_report_lists_rules_in_order_with_state_clauses_and_tests(checkout: Path) -> None:
    report = coverage(checkout / "rulebook" / "race")
    assert [r.number for r in report.rules] == ["1.1", "1.2", "2.1", "2.2", "2.3", "2.4",
                                                "2.9", "2.10", "3.1"]
    by = {r.number: r for r in report.rules}
    assert by["2.2"].state == STATED
    assert by["2.9"].state == DEFINITION
    assert by["2.10"].state == SUMMARY_ONLY
    assert by["3.1"].optional and not by["2.10"].optional
    assert by["2.10"].clauses[0].endswith("race.rules:" + str(
        (checkout / "rulebook" / "race" / "race.rules").read_text().splitlines().index(
            'rule 2.10 "Tenth rule" {') + 1))
    assert [t.split("/tests/")[-1] for t in by["2.10"].tests] == [
        "test_race.py::TestGroup::test_both", "test_race.py::test_tenth"]
    assert [t.rsplit("/", 1)[-1] for t in by["2.3"].tests] == ["test_race.py"]   # pytestmark
    assert [t.rsplit("::", 1)[-1] for t in by["2.4"].tests] == ["CASES"]
    assert by["2.9"].tests == []        # that mark names another rulebook
    assert by["1.1"].tests == []


@pytest.mark.rule("2.10")
def test_report_counts_and_final_line(checkout: Path) -> None:
    report = coverage(checkout / "rulebook" / "race")
    counts = report.counts()
    assert counts == {STATED: 6, SUMMARY_ONLY: 2, DEFINITION: 1, "tested": 4,
                      "untested": 5, "rules": 9}
    last = list(report.lines())[-1]
    assert last.startswith("9 numbered rules, optional ones included: 6 stated, 2 summary only, "
                           "1 definition/commentary; 4 cited by tests, 5 by none")


@pytest.mark.rule("2.9")
def test_marks_of_a_named_rulebook_count_for_it(checkout: Path) -> None:
    found = rule_citations(checkout / "tests", {"another_game"})
    assert any(t.endswith("::test_of_another_rulebook") for t in found["2.9"])
    assert "2.9" not in rule_citations(checkout / "tests", {"race"})


@pytest.mark.rule("2.10")
def test_cli_coverage_with_a_tests_folder(checkout: Path,
                                          capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", str(checkout / "rulebook" / "race"),
                 "--tests", str(checkout / "tests")]) == 0
    out = capsys.readouterr().out.splitlines()
    heads = [line.split()[0] for line in out if not line.startswith(" " * 8)][:-1]
    assert heads == ["1.1", "1.2", "2.1", "2.2", "2.3", "2.4", "2.9", "2.10", "3.1"]
    assert any("2.10  Tenth rule  [summary only]" in line for line in out)
    assert any("3.1  Optional rule (optional)  [summary only]" in line for line in out)
    assert out[-1].startswith("9 numbered rules")


@pytest.mark.rule("2.10")
def test_cli_coverage_refuses_a_missing_tests_folder(
        checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["coverage", str(checkout / "rulebook" / "race"),
                 "--tests", str(checkout / "nowhere")]) == 1
    err = capsys.readouterr().err
    assert "no such tests folder" in err and len(err.strip().splitlines()) == 1


@pytest.mark.rule("13.2")
def test_shipped_rulebook_report_covers_every_numbered_rule() -> None:
    report = coverage("cortes")
    numbers = [r.number for r in report.rules]
    assert numbers[0] == "2.1" and numbers[-1] == "13.2" and len(numbers) == 115
    assert numbers.index("2.9") < numbers.index("2.10")
    by = {r.number: r for r in report.rules}
    # A stated rule that this suite tests: the tests are found in tests/.
    assert by["8.14"].state == STATED
    assert any("test_worked_examples.py::test_8_14_" in t for t in by["8.14"].tests)
    assert by["2.14"].state == DEFINITION
    assert report.counts()["rules"] == 115


@pytest.mark.rule("6.1")
def test_cli_rule_says_a_definition_states_no_rule_of_play(
        capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["rule", "6.1"]) == 0
    out = capsys.readouterr().out
    assert out.splitlines()[0] == "6.1  Stacking (definition: states no rule of play)"
    assert "Formal statements" not in out     # the mark is not shown as a statement


@pytest.mark.rule("2.10")
def test_every_listing_command_takes_the_rulebook_as_an_option(
        checkout: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = str(checkout / "rulebook" / "race")
    for command in ("coverage", "interpretations", "rules"):
        assert main([command, path]) == 0
        positional = capsys.readouterr().out
        assert main([command, "--rulebook", path]) == 0
        assert capsys.readouterr().out == positional and positional
    with pytest.raises(SystemExit) as stopped:
        main(["coverage", path, "--rulebook", "cortes"])
    assert stopped.value.code == 2
    assert "two rulebooks given" in capsys.readouterr().err
