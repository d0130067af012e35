"""The demo, game records and the CLI: what a user runs first."""

from __future__ import annotations

import io
import subprocess
import sys
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.demo import run_demo
from cortes_rules.errors import RecordError
from cortes_rules.record import format_record, parse_record, replay
from cli_run import run_cli

DEMO = Path(__file__).resolve().parents[2] / "rulebook" / "cortes" / "demo.record"


@pytest.fixture(scope="module")
def demo_text() -> str:
    out = io.StringIO()
    assert run_demo(out=out) == 0
    return out.getvalue()


def _adjudications(demo_text: str) -> list[str]:
    """The log lines of the demo's turns (questions left out)."""
    turns = demo_text[demo_text.index("\n== Turn"):demo_text.index("\nFinal positions:")]
    return [ln for ln in turns.splitlines()
            if ln.startswith("  ") and not ln.startswith("  ?")]


@pytest.mark.rule("8.18")
def test_demo_log_cites_rules_on_every_adjudication(demo_text: str) -> None:
    adjudications = _adjudications(demo_text)
    assert len(adjudications) >= 30
    for line in adjudications:
        assert line.rstrip().endswith("]") and "  [" in line, line
    assert "[8.18, 8.19, 13.2]" in demo_text
    assert "final column 1:4" in demo_text  # 1:2 shifted two left by the temple (8.15, 8.17)


@pytest.mark.rule("7.16")
def test_demo_answers_questions_with_the_forbidding_rule(demo_text: str) -> None:
    assert "? move S2 2910: illegal. [7.16]" in demo_text
    assert "? move S9 3010: illegal. [7.2]" in demo_text
    assert "? join S29: illegal. [8.4]" in demo_text


@pytest.mark.rule("8.23")
def test_demo_is_deterministic_and_seeded() -> None:
    first, second = io.StringIO(), io.StringIO()
    run_demo(out=first)
    run_demo(out=second)
    assert first.getvalue() == second.getvalue()
    assert "S1   at 3012" in first.getvalue()  # advanced after combat


@pytest.mark.rule("8.19")
def test_record_replays_and_round_trips() -> None:
    record = parse_record(DEMO.read_text(), str(DEMO))
    state = replay(record)
    assert state.is_terminal()
    text = format_record(state, setup="demo")
    again = replay(parse_record(text, "again"))
    assert again.positions() == state.positions()
    assert [str(e) for e in again.log] == [str(e) for e in state.log]


@pytest.mark.rule("7.16")
def test_record_error_names_the_line_and_rule() -> None:
    text = "setup demo\nseed 1\nend\nmove S9 3011\nmove S2 2910\n"
    with pytest.raises(RecordError) as caught:
        replay(parse_record(text, "bad.record"))
    assert caught.value.line == 5
    assert str(caught.value).startswith("bad.record:5:")
    assert "[7.16]" in str(caught.value)


@pytest.mark.rule("7.1")
def test_record_error_for_bad_notation_names_the_line() -> None:
    with pytest.raises(RecordError) as caught:
        parse_record("seed 1\n\n# comment\nfly S9 3011\n", "bad.record")
    assert caught.value.line == 4
    assert "unknown action 'fly'" in str(caught.value)
    with pytest.raises(RecordError) as caught:
        parse_record("seed one\n", "bad.record")
    assert "whole numbers" in str(caught.value)
    assert caught.value.line == 1
    with pytest.raises(RecordError) as caught:
        parse_record("end\nseed 3\n", "bad.record")
    assert caught.value.line == 2


@pytest.mark.rule("7.1")
@pytest.mark.parametrize(("line", "problem"), [
    ("move S99 3011", "'S99' is not a piece"),      # no such piece
    ("move S9 9999", "'9999' is not a hex"),        # no such hex
    ("move S9", "takes 2 argument(s), not 1"),      # the declared arguments
    ("attack S9", "'S9' is not a hex"),             # an argument of the wrong type
    ("roll 07", "canonical form"),                  # one text per action
])
def test_record_actions_are_checked_against_the_declared_actions(line: str,
                                                                 problem: str,
                                                                 book: cortes_rules.Rulebook,
                                                                 ) -> None:
    text = f"rulebook cortes\nsetup demo\n? {line}\n" if line.startswith("roll") \
        else f"rulebook cortes\nsetup demo\nmove S9 3011\n{line}\n"
    with pytest.raises(RecordError) as caught:
        parse_record(text, "bad.record", book)
    assert caught.value.line == (3 if line.startswith("roll") else 4)
    assert problem in str(caught.value)
    assert str(caught.value).startswith("bad.record:")


@pytest.mark.rule("4.2")
def test_record_names_its_rulebook_and_actions_come_back_canonical() -> None:
    record = parse_record("setup demo\nseed 2\nEND\nMOVE S9 3011\n", "r.record")
    assert record.rulebook == "cortes"   # the only shipped rulebook
    assert [str(a) for _, a in record.actions] == ["end", "move S9 3011"]
    with pytest.raises(RecordError) as caught:
        parse_record("rulebook nowhere\nend\n", "r.record")
    assert caught.value.line == 1 and "no rulebook 'nowhere'" in str(caught.value)
    state = replay(record)
    text = format_record(state)   # written in the current format, version 2
    assert text.startswith("cortes-rules-record 2\nrulebook cortes\nrulebook-digest ")
    assert "\nseed 2\nsetup demo\nend\nmove S9 3011\n" in text




@pytest.mark.rule("4.2")
def test_cli_demo_runs_as_a_module() -> None:
    demo = subprocess.run([sys.executable, "-m", "cortes_rules", "demo"], capture_output=True,
                          text=True, check=False, cwd=DEMO.parents[2])
    assert demo.returncode == 0, demo.stderr
    assert "[8.18, 8.19, 13.2]" in demo.stdout


@pytest.mark.rule("4.2")
def test_cli_rules_and_check_commands(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "rules")
    assert status == 0
    assert "  8.14  Major fortress\n" in out
    assert "library hex_wargame" in out
    status, out, _ = run_cli(capsys, "check")
    assert status == 0
    program = cortes_rules.load("cortes").program
    numbered = {r.number for r in program.all_rules if not r.mechanism}
    in_play = sum(1 for r in program.rules.values() if not r.mechanism)
    # Every shipped rulebook, one with scenarios in each of them; the count is the one
    # every command gives: numbered rules, optional ones included, and those in play.
    lines = out.splitlines()
    assert lines[0] == (f"cortes: ok ({len(numbered)} numbered rules, {in_play} in play, "
                        f"{len(numbered) - in_play} optional ones off; 0 warnings)")
    assert lines[1].startswith("grands_strateges, scenario I: ok (")


@pytest.mark.rule("8.14")
def test_cli_rule_prints_the_clause_and_what_it_lowers_to(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "rule", "8.14")
    assert status == 0
    assert out.startswith("8.14  Major fortress\n  rulebook/cortes/08-combat.rules:")
    assert "Summary: Defenders in a major fortress shift the odds three columns left" in out
    assert "Formal statements, as written:\n  shift 3 left when target has major_fortress\n" \
        in out
    assert "Lowered onto the core:\n  contribute column_shift" in out
    _, causeways, _ = run_cli(capsys, "rule", "7.16")
    assert "Depends on interpretation causeway_exit (Leaving a causeway hex across a " \
        "plain hexside): reading along_causeway" in causeways
    assert "Interpretations of this rule: " in causeways and "causeway_exit" in causeways
    assert "forbid move when from has causeway and not crossing has causeway" in causeways


@pytest.mark.rule("4.2")
@pytest.mark.parametrize(("args", "status", "message"), [
    (("rule", "9.99"), 1, "no rule 9.99 in this rulebook"),
    (("rule", "8.14", "--rulebook", "nowhere"), 1, "no rulebook 'nowhere'"),
    (("rules", "nowhere"), 1, "no rulebook 'nowhere'"),
    (("demo", "--rulebook", "nowhere"), 1, "no demonstration record for 'nowhere'"),
    (("demo", "--seed", "three"), 2, "invalid int value"),
    (("frob",), 2, "invalid choice: 'frob'"),
    (("rule",), 2, "required: number"),
])
def test_cli_bad_input_is_one_line_and_a_nonzero_status(
        args: tuple[str, ...], status: int, message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    returned, _, err = run_cli(capsys, *args)
    assert returned == status
    assert err.count("\n") == 1, err
    assert err.startswith("cortes-rules: ") and message in err


@pytest.mark.rule("2.2")
def test_a_replacement_map_file_is_loaded(tmp_path: Path) -> None:
    shipped = (DEMO.parent / "map.rules").read_text()
    assert 'map cortes_1521 "' in shipped
    replacement = shipped.replace('map cortes_1521 "', 'map my_copy "My copy: ', 1)
    path = tmp_path / "mine.rules"
    path.write_text(replacement)
    book = cortes_rules.load("cortes", map=path)
    assert book.program.map is not None and book.program.map.name == "my_copy"


@pytest.mark.rule("2.2")
def test_a_broken_replacement_map_is_reported_with_its_line(tmp_path: Path) -> None:
    path = tmp_path / "broken.rules"
    path.write_text('map broken "x" {\n  grid columns odd low\n  hex 2910: causeway\n'
                    '  hex 3012: clear\n  hexside 2910 3012: causeway\n}\n')
    with pytest.raises(cortes_rules.RulesCheckError) as caught:
        cortes_rules.load("cortes", map=path)
    rendered = str(caught.value)
    assert "broken.rules:5:3" in rendered and "do not touch" in rendered


@pytest.mark.rule("11.1")
def test_unknown_optional_rule_is_refused() -> None:
    with pytest.raises(cortes_rules.CortesRulesError, match="no optional rule numbered 11.99"):
        cortes_rules.load("cortes", options=["11.99"])


@pytest.mark.rule("4.2")
def test_legal_action_ids_match_legal_actions_and_str_shows_the_position(
        book: cortes_rules.Rulebook) -> None:
    state = book.new_game(seed=1, setup="demo")
    ids = state.legal_action_ids()
    assert ids == sorted(ids)
    assert [book.action_from_id(i) for i in ids] == state.legal_actions()
    text = str(state)
    assert text.startswith("turn 1, Spanish lake movement; to act: spanish")
    assert "  3010: S1 S9" in text


@pytest.mark.rule("7.10")
def test_a_map_without_quagmire_loads_with_a_warning(tmp_path: Path) -> None:
    shipped = (DEMO.parent / "map.rules").read_text()
    assert "hex 3023: quagmire" in shipped
    path = tmp_path / "dry.rules"
    path.write_text(shipped.replace("hex 3023: quagmire", "hex 3023: clear"))
    book = cortes_rules.load("cortes", map=path)
    [warning] = book.warnings
    assert warning.severity == "warning" and warning.rule == "7.10"
    assert "no hex of map cortes_1521 has terrain 'quagmire'" in warning.message
    assert warning.render().startswith("rulebook/cortes/07-movement.rules:")


@pytest.mark.rule("8.18")
def test_forecast_gives_exact_result_chances(book: cortes_rules.Rulebook) -> None:
    from fractions import Fraction

    chances = book.evaluate("results_what_if(0)", attack=26, defense=7)  # 3:1, as in 8.18
    assert sum(chances.values()) == 1
    assert chances[(1, 2)] == Fraction(4, 36)   # only a roll of 5 gives 1/2 at 3:1
    assert chances[(0, 2)] == Fraction(10, 36)  # rolls of 6 and 8
    assert book.evaluate("odds_what_if(-3)", attack=26, defense=7) == ("3:1", "1:2")
    state = book.new_game(seed=8, setup="demo")
    for text in ("end", "move S9 3011", "move S1 3011", "end", "attack 3012", "join S1",
                 "join S9"):
        state.apply(text)
    # 13 against 3 is 4:1, two columns left for the fortress (8.15): the 2:1 column.
    forecast = state.evaluate("battle_forecast()")
    assert forecast == book.evaluate("results_what_if(-2)", attack=13, defense=3)
    before = [str(e) for e in state.log]
    state.evaluate("battle_forecast()")
    assert [str(e) for e in state.log] == before  # asking changes nothing
