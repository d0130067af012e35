"""Positions written in notation on the command line: ``why``, ``evaluate --position``
and ``render --position`` read a file of position notation (docs/notation.md) as
they read a record, a set-up name or ``start``."""

from __future__ import annotations

import functools
import random
import xml.etree.ElementTree as ET
from collections import Counter
from collections.abc import Callable
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import GameState
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
DEMO = ROOT / "rulebook" / "cortes" / "demo.record"
SVG = "{http://www.w3.org/2000/svg}"
SEEDS = (1, 7)




@functools.cache
def _book(name: str = "cortes", scenario: str | None = None) -> cortes_rules.Rulebook:
    return cortes_rules.load(name, scenario=scenario)


def _played(seed: int, name: str = "cortes", scenario: str | None = None,
            actions: int = 200) -> GameState:
    """A game after ``actions`` random legal actions (dice from its own seed)."""
    state = _book(name, scenario).new_game(seed=seed)
    choose = random.Random(seed)
    for _ in range(actions):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
            continue
        ids = state.legal_action_ids()
        state.apply(ids[choose.randrange(len(ids))])
    return state


def _written(tmp_path: Path, state: GameState, name: str = "game.position") -> Path:
    path = tmp_path / name
    path.write_text(state.to_notation(), encoding="utf-8")
    return path


def _some_actions(state: GameState) -> list[str]:
    """A few legal actions and a few illegal ones, as text."""
    book = _book()
    legal = [str(book.action_from_id(i)) for i in state.legal_action_ids()[:5]]
    others = [str(book.action_from_id(i)) for i in range(0, 3000, 250)]
    return legal + ["end"] + others


@pytest.mark.rule("2.10", "4.1")
@pytest.mark.parametrize("seed", SEEDS)
def test_why_in_a_position_in_notation_agrees_with_the_state(
        seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _played(seed)
    path = _written(tmp_path, state)
    book = _book()
    for text in _some_actions(state):
        status, out, err = run_cli(capsys, "why", str(path), text)
        assert (status, err) == (0, "")
        lines = out.splitlines()
        assert lines[0] == f"Position: {path}, a position in notation (seed {seed}): " \
            f"turn {state.turn}, {state.phase_label}; to act: {state.current_player}"
        reasons = state.why_illegal(book.parse_action(text))
        if not reasons:
            assert lines[1:] == [f"{text}: legal here"]
        else:
            assert lines[1] == f"{text}: illegal here"
            # Each rule by number, title and summary, then the fact of the position.
            assert lines[2:] == [line for r in reasons for line in (
                f"  [{r.rule}] {r.title}: {r.summary}" if r.summary else f"  [{r.rule}] {r.title}",
                f"    here: {r.fact}")]


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("seed", SEEDS)
def test_evaluate_in_a_position_in_notation(
        seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _played(seed)
    path = _written(tmp_path, state)
    status, out, _ = run_cli(capsys, "evaluate", "--position", str(path), "turn")
    assert status == 0
    assert out.splitlines()[1:] == [str(state.turn)]
    assert state.turn > 1          # 200 actions go past the first turn: the turn was read
    _, out, _ = run_cli(capsys, "evaluate", "--position", str(path),
                     "count(list(u for u in pieces where u.place != none))")
    assert out.splitlines()[1:] == [str(len(state.positions()))]


def _counters(svg: Path) -> Counter[tuple[str, str]]:
    """The counters of a picture: (piece, place) for each."""
    root = ET.fromstring(svg.read_text(encoding="utf-8"))
    return Counter((g.attrib["data-piece"], g.attrib["data-place"]) for g in root.iter(f"{SVG}g")
                   if g.get("class") == "counter")


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("seed", SEEDS)
def test_render_draws_a_position_in_notation(
        seed: int, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _played(seed)
    path = _written(tmp_path, state)
    picture = tmp_path / "x.svg"
    status, out, err = run_cli(capsys, "render", "--position", str(path), "-o", str(picture))
    assert (status, err) == (0, "")
    positions = state.positions()
    assert out.startswith(f"{picture}: {len(positions)} pieces placed ({path}, a position "
                          "in notation")
    assert _counters(picture) == Counter(positions.items())
    # The set-up drawn by default is not that position.
    status, _, _ = run_cli(capsys, "render", "-o", str(tmp_path / "start.svg"))
    assert status == 0 and _counters(tmp_path / "start.svg") != Counter(positions.items())


@pytest.mark.rule("4.1")
def test_render_draws_a_record_a_set_up_and_the_start(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "x.svg"
    status, out, _ = run_cli(capsys, "render", "--position", str(DEMO), "--to", "5",
                          "-o", str(picture))
    assert status == 0 and f"({DEMO} after 5 of its " in out
    book = _book()
    record = cortes_rules.record.parse_record(DEMO.read_text(encoding="utf-8"), str(DEMO), book)
    state = cortes_rules.record.start(record, book)
    for line, action in record.actions[:5]:
        cortes_rules.record.play(state, line, action, path=record.path)
    assert _counters(picture) == Counter(state.positions().items())
    status, _, _ = run_cli(capsys, "render", "--position", "demo", "-o", str(picture))
    assert status == 0 and _counters(picture) == Counter(book.setup_positions("demo").items())
    status, out, _ = run_cli(capsys, "render", "--position", "start", "-o", str(picture))
    assert status == 0 and out.startswith(f"{picture}: 0 pieces placed")


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_a_position_of_a_scenario_loads_the_scenario(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _played(3, "grands_strateges", "IV", actions=60)
    path = _written(tmp_path, state)
    status, out, err = run_cli(capsys, "evaluate", "--position", str(path), "turn")
    assert (status, err) == (0, "")
    assert out.splitlines()[1:] == [str(state.turn)]
    status, out, _ = run_cli(capsys, "render", "--position", str(path), "-o",
                          str(tmp_path / "gs.svg"))
    assert status == 0 and _counters(tmp_path / "gs.svg") == Counter(state.positions().items())


@pytest.mark.rule("4.1")
def test_a_record_is_still_read_as_a_record(
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    # A record starts with 'rulebook' and 'seed' too; its next line is not a position's.
    status, out, _ = run_cli(capsys, "why", str(DEMO), "--to", "3", "end")
    assert status == 0 and f"Position: {DEMO} after 3 of its " in out
    record = tmp_path / "short.record"
    record.write_text("# a record\nrulebook cortes\nseed 4\nsetup demo\nend\n",
                      encoding="utf-8")
    status, out, err = run_cli(capsys, "why", str(record), "end")
    assert (status, err) == (0, "")
    assert out.startswith(f"Position: {record} after 1 of its 1 actions (seed 4)")


@pytest.mark.rule("4.1")
@pytest.mark.parametrize(("change", "args", "message"), [
    (lambda t: t.replace("\nat ", "\nat 9999: S1\nat ", 1), ("why", "{path}", "end"),
     ": line {line}: no place '9999'"),
    (lambda t: t.replace("\nturn ", "\nturn x\nturn ", 1), ("evaluate", "--position",
                                                             "{path}", "turn"),
     ": line {line}: "),
    (lambda t: t.replace("\nphase ", "\nphase nowhen\n# phase ", 1),
     ("render", "--position", "{path}", "-o", "{path}.svg"), ": line {line}: no phase"),
    (lambda t: t, ("why", "{path}", "--to", "3", "end"),
     "--to PLY counts the actions of a record, and {path} is a position in notation"),
    (lambda t: t, ("why", "{path}", "--seed", "3", "end"),
     "--seed: {path} is a position in notation"),
])
def test_a_broken_position_is_refused_in_one_line_naming_the_line(
        change: Callable[[str], str], args: tuple[str, ...], message: str,
        tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    state = _played(1, actions=40)
    path = tmp_path / "broken.position"
    good = state.to_notation()
    text = change(good)
    path.write_text(text, encoding="utf-8")
    # The first line that differs from the good text is the one the message names.
    line = next((i for i, (a, b) in enumerate(zip(text.split("\n"), good.split("\n"),
                                                  strict=False), start=1) if a != b), 0)
    status, out, err = run_cli(capsys, *(a.format(path=path) for a in args))
    assert status == 1
    assert err.count("\n") == 1, err
    assert err.startswith(f"cortes-rules: {path}" if "line" in message else "cortes-rules: ")
    assert message.format(path=path, line=line) in err
    assert not (tmp_path / "broken.position.svg").exists()
