"""The player-facing commands: ``why``, ``evaluate``, ``replay``, ``rule``, ``--version``,
``--rulebook`` on every command, and help texts a terminal shows as they are."""

from __future__ import annotations

import argparse
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules.cli import build_parser, main
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "rulebook" / "cortes" / "demo.record"




def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    sub = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(sub.choices)


@pytest.mark.rule("4.2")
def test_version_prints_the_package_version(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as stop:
        main(["--version"])
    assert stop.value.code == 0
    assert capsys.readouterr().out == f"cortes-rules {cortes_rules.__version__}\n"


@pytest.mark.rule("4.2")
def test_every_command_takes_a_rulebook_option() -> None:
    commands = _commands()
    assert {"why", "evaluate", "replay", "render", "rule", "check"} <= set(commands)
    lacking = [name for name, command in commands.items()
               if not any("--rulebook" in a.option_strings for a in command._actions)]
    assert lacking == []


@pytest.mark.rule("4.2")
def test_help_texts_carry_no_markup() -> None:
    texts = [build_parser().format_help()] + [c.format_help() for c in _commands().values()]
    for text in texts:
        for markup in ("``", "**", ":meth:", ":class:", ":func:"):
            assert markup not in text, (markup, text[:200])
    assert "Rulebooks of board games" in texts[0]


@pytest.mark.rule("7.16")
def test_why_in_a_record_position_names_the_forbidding_rule(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "why", str(DEMO), "--to", "4", "move", "S2", "2910")
    assert status == 0
    lines = out.splitlines()
    assert lines[0].startswith(f"Position: {DEMO} after 4 of its ")
    assert "Spanish land movement; to act: spanish" in lines[0]
    summary = cortes_rules.load("cortes").rule("7.16").summary
    assert lines[1:] == ["move S2 2910: illegal here",
                         f"  [7.16] Causeways: {summary}",
                         "    here: 2910 has causeway and crossing (nothing) has no causeway"]
    # The formal clause, on request.
    _, out, _ = run_cli(capsys, "why", str(DEMO), "--to", "4", "move", "S2", "2910", "--clause")
    assert out.splitlines()[2:] == [
        f"  [7.16] Causeways: {summary}",
        "    here: 2910 has causeway and crossing (nothing) has no causeway",
        "    clause: forbid move when to has causeway and not crossing has causeway"]
    status, out, _ = run_cli(capsys, "why", str(DEMO), "--to", "3", "move S9 3010")
    assert out.splitlines()[-1] == "move S9 3010: legal here"


@pytest.mark.rule("3.2")
def test_why_in_a_set_up_or_at_the_start(capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "why", "start", "place", "A1", "3016")
    assert status == 0
    summary = cortes_rules.load("cortes").rule("3.2").summary
    assert out.splitlines()[1:] == [
        "place A1 3016: illegal here",
        f"  [3.2] Spanish deployment: {summary}",
        "    here: A1 is aztec and side (spanish) is spanish"]
    _, out, _ = run_cli(capsys, "why", "--rulebook", "cortes", "demo", "end")
    assert out.splitlines() == [
        "Position: set-up demo (seed 0): turn 1, Spanish lake movement; to act: spanish",
        "end: legal here"]
    book = cortes_rules.load("cortes")
    _, by_id, _ = run_cli(capsys, "why", "demo", str(book.action_id("end")))
    assert by_id.splitlines()[-1] == "end: legal here"


@pytest.mark.rule("7.16")
@pytest.mark.parametrize(("args", "status", "message"), [
    (("why", "nowhere", "end"), 1, "position 'nowhere': no such record file, and not a set-up "
     "of cortes (set-ups: demo, historical, start)"),
    (("why", "demo", "move", "S99", "3011"), 1, "(argument 1, unit); did you mean 'S9'"),
    (("why", "demo", "--to", "3", "end"), 1, "--to PLY counts the actions of a record"),
    (("why", str(DEMO), "--to", "999", "end"), 1, "--to 999, but the record holds"),
    (("why", str(DEMO), "--to", "-1", "end"), 2, "must be at least 0"),
    (("why", "demo"), 2, "required: action"),
    (("evaluate", "1 +"), 1, "not an expression of the rules language"),
    (("evaluate", "odds_what_if(0)", "attack"), 2, "not NAME=VALUE: 'attack'"),
    (("evaluate",), 1, "give an expression to evaluate (or --list)"),
    (("evaluate", "1", "--to", "2"), 1, "--to PLY needs --position RECORD"),
    (("replay", "nowhere.record"), 1, "nowhere.record: no such record file"),
    (("rule", "8.99"), 1, "no rule 8.99 in this rulebook; did you mean '8.9' or '8.19'?"),
])
def test_player_commands_refuse_bad_input_in_one_line(
        args: tuple[str, ...], status: int, message: str,
        capsys: pytest.CaptureFixture[str]) -> None:
    returned, _, err = run_cli(capsys, *args)
    assert returned == status
    assert err.count("\n") == 1, err
    assert err.startswith("cortes-rules: ") and message in err


@pytest.mark.rule("8.14")
def test_evaluate_asks_the_rulebooks_own_odds_and_results(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "evaluate", "odds_what_if(-3)", "attack=26", "defense=7")
    assert (status, out) == (0, "(3:1, 1:2)\n")     # 3:1 against a major fortress: 1:2
    _, out, _ = run_cli(capsys, "evaluate", "results_what_if(0)", "attack=26", "defense=7")
    lines = out.splitlines()
    assert "(1, 2): 1/9 (11.11%)" in lines
    assert lines[-1] == "total: 1 (100.00%)"
    _, listed, _ = run_cli(capsys, "evaluate", "--list")
    assert "odds_what_if(shift)  [lib:hex_wargame]" in listed.splitlines()


@pytest.mark.rule("8.18")
def test_evaluate_in_a_position_of_a_record(capsys: pytest.CaptureFixture[str]) -> None:
    # After its ninth action the demonstration has S1 and S9 committed against 3012.
    status, out, _ = run_cli(capsys, "evaluate", "battle_forecast()", "--position", str(DEMO),
                          "--to", "9")
    assert status == 0
    lines = out.splitlines()
    assert "Spanish land combat" in lines[0]
    assert "(1, 2): 1/3 (33.33%)" in lines and lines[-1] == "total: 1 (100.00%)"


@pytest.mark.rule("8.18")
def test_replay_prints_the_log_and_the_position_reached(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "replay", str(DEMO))
    assert status == 0
    assert out.startswith(f"Replay of {DEMO} after ")
    assert "attacker rolls 11 at 2:1: result 0/2 (attacker/defender steps) " \
        "[8.18, 8.19, 8.22, 13.2]" in out
    assert out.endswith("Game over: the turn limit (1) was reached; winner: none.\n")
    _, part, _ = run_cli(capsys, "replay", str(DEMO), "--to", "4")
    assert "after 4 of its " in part.splitlines()[0]
    assert "attacker rolls" not in part
    assert "turn 1, Spanish land movement; to act: spanish" in part


@pytest.mark.rule("7.16")
def test_rule_shows_summary_clause_and_interpretations_of_a_named_rulebook(
        capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "rule", "7.16", "--rulebook", "cortes")
    assert status == 0
    assert out.startswith("7.16  Causeways\n")
    assert "\nSummary: " in out
    assert "Interpretations of this rule: " in out and "causeway_exit" in out
    assert "Formal statements, as written:\n" in out
    status, other, _ = run_cli(capsys, "rule", "IV.21", "--rulebook", "grands_strateges")
    assert status == 0 and other.startswith("IV.21  ")
    status, _, err = run_cli(capsys, "rule", "4.21", "--rulebook", "grands_strateges")
    assert status == 1 and "did you mean 'IV.21'?" in err
