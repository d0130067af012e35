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

DEMO = Path(__file__).resolve().parents[2] / "rulebook" / "cortes" / "demo.record"


@pytest.fixture(scope="module")
def demo_text() -> str:
    out = io.StringIO()
    assert run_demo(out=out) == 0
    return out.getvalue()


@pytest.mark.rule("8.18")
def test_demo_log_cites_rules_on_every_adjudication(demo_text: str) -> None:
    lines = [ln for ln in demo_text.splitlines()
             if ln.startswith("  ") and not ln.startswith("  ?")]
    adjudications = [ln for ln in lines if "moves" in ln or "rolls" in ln or "loses" in ln
                     or "advances" in ln or "against" in ln or "joins" in ln or "battle" in ln]
    assert len(adjudications) >= 20
    for line in adjudications:
        assert line.rstrip().endswith("]") and "[" in line, line
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
    text = "setup demo\nseed 1\nmove S9 3011\nmove S2 2910\n"
    with pytest.raises(RecordError) as caught:
        replay(parse_record(text, "bad.record"))
    assert caught.value.line == 4
    assert str(caught.value).startswith("bad.record:4:")
    assert "[7.16]" in str(caught.value)


@pytest.mark.rule("7.1")
def test_record_error_for_bad_notation_names_the_line() -> None:
    with pytest.raises(RecordError) as caught:
        parse_record("seed 1\n\n# comment\nfly S9 3011\n", "bad.record")
    assert caught.value.line == 4
    with pytest.raises(RecordError) as caught:
        parse_record("seed one\n", "bad.record")
    assert "whole numbers" in str(caught.value)
    with pytest.raises(RecordError) as caught:
        parse_record("end\nseed 3\n", "bad.record")
    assert caught.value.line == 2


@pytest.mark.rule("4.2")
def test_cli_demo_and_rules_commands() -> None:
    run = [sys.executable, "-m", "cortes_rules"]
    demo = subprocess.run([*run, "demo"], capture_output=True, text=True, check=False)
    assert demo.returncode == 0, demo.stderr
    assert "[8.18, 8.19, 13.2]" in demo.stdout
    rules = subprocess.run([*run, "rules"], capture_output=True, text=True, check=False)
    assert rules.returncode == 0
    assert "8.14  Major fortress" in rules.stdout


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
def test_legal_action_ids_match_legal_actions_and_str_shows_the_position() -> None:
    book = cortes_rules.load("cortes")
    state = book.new_game(seed=1, setup="demo")
    ids = state.legal_action_ids()
    assert ids == sorted(ids)
    assert [book.action_from_id(i) for i in ids] == state.legal_actions()
    text = str(state)
    assert text.startswith("turn 1, Spanish land movement; to act: spanish")
    assert "  3010: S1(4) S9(4)" in text


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
def test_forecast_gives_exact_result_chances() -> None:
    from fractions import Fraction

    book = cortes_rules.load("cortes")
    chances = book.forecast(26, 7)  # 3:1, the 8.18 example column
    assert sum(chances.values()) == 1
    assert chances[(1, 2)] == Fraction(4, 36)   # only a roll of 5 gives 1/2 at 3:1
    assert chances[(0, 2)] == Fraction(10, 36)  # rolls of 6 and 8
    state = book.new_game(seed=8, setup="demo")
    for text in ("move S9 3011", "move S1 3011", "end", "attack 3012", "join S1", "join S9"):
        state.apply(text)
    # 13 against 3 is 4:1, two columns left for the fortress (8.15): the 2:1 column.
    assert state.forecast() == book.forecast(13, 3, shift=-2)
    before = [str(e) for e in state.log]
    state.forecast()
    assert [str(e) for e in state.log] == before  # asking changes nothing
