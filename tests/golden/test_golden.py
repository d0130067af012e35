"""Golden traces: replay recorded games and check the engine still plays them move for move.

Each file in tests/golden/traces/ is one seeded random game recorded by
tests/golden/generate.py (format: golden.py). The test rebuilds the game from
the header and, at every ply, checks the game turn, the side to act, the
phase and the legal actions (same texts, same order), applies the recorded
action (a recorded dice roll is applied as it stands, never rolled again) and
checks the log entries it added; at the end it checks whether the game is
over and where every unit stands with how many steps. The first mismatch
fails the test with the file, the ply and a short diff.

Only the public API is used, so a rewritten engine can be held to the same
traces. A deliberate change of behaviour regenerates the traces and is
recorded in tests/golden/CHANGES.md.
"""

from __future__ import annotations

import pytest

import golden

FILES = golden.trace_files()


def _fail(path_name: str, where: str, expected: list[str], actual: list[str]) -> None:
    pytest.fail(f"{path_name}, {where}: the engine no longer plays this trace\n"
                f"{golden.short_diff(expected, actual)}\n"
                "(a deliberate change: run tests/golden/generate.py, review the diff, "
                "and add an entry to tests/golden/CHANGES.md)", pytrace=False)


@pytest.mark.rule("4.2")
def test_the_traces_are_there():
    kinds = {path.stem.rsplit("-", 1)[0] for path in FILES}
    assert len(FILES) >= 40 and kinds == {"demo", "historical", "random", "full-beginner",
                                          "full-veteran", "gs-i-basic", "gs-ii-basic",
                                          "gs-iii-advanced"}, (
        f"expected at least 40 traces of eight kinds in {golden.TRACES}; "
        "run tests/golden/generate.py")


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_grands_strateges_games_run_from_the_deployment_to_their_result():
    games = [golden.read_trace(path) for path in FILES if path.stem.startswith("gs-")]
    assert {t.header.scenario for t in games} == {"I", "II", "III"}
    for trace in games:
        assert trace.header.rulebook == "grands_strateges"
        assert trace.plies[0].phase == "deploy" and trace.header.legal_form == "digest"
        assert trace.end == "terminal" and trace.outcome


@pytest.mark.rule("3.1", "4.1", "5.3")
def test_full_games_run_from_the_set_up_stage_to_their_end_with_each_preset():
    full = [golden.read_trace(path) for path in FILES if path.stem.startswith("full-")]
    for preset in ("beginner", "veteran"):
        games = [t for t in full if t.header.options == preset]
        assert len(games) >= 2, f"expected two full {preset} games"
        for trace in games:
            assert trace.header.setup is None and trace.plies[0].phase.endswith("set_up")
            assert trace.header.turn_limit == 20 and trace.header.legal_form == "digest"
            # To the end: a finished game, or the 20-turn cap reached.
            assert (trace.end == "terminal" and trace.outcome) or trace.plies[-1].turn == 20


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("path", FILES, ids=[path.stem for path in FILES])
def test_golden_trace(book, path):
    text = path.read_text(encoding="utf-8")
    trace = golden.parse_trace(text, path.name)
    if golden.format_trace(trace) != text:
        pytest.fail(f"{path.name} is not as generate.py writes it (edited by hand?)\n"
                    + golden.short_diff(text.splitlines(),
                                        golden.format_trace(trace).splitlines()),
                    pytrace=False)

    state = golden.new_game(book, trace.header)
    form = trace.header.legal_form
    for ply in trace.plies:
        where = f"ply {ply.number}"
        if state.is_terminal():
            _fail(path.name, where, ply.lines(), [f"ply {ply.number}", "(the game is over)"])
        turn, to_act, phase, legal = golden.observe(state, form)
        actual = golden.Ply(ply.number, turn, to_act, phase, legal, ply.action, ply.log)
        if actual.before_lines() != ply.before_lines():
            _fail(path.name, where, ply.before_lines(), actual.before_lines())
        try:
            _, log = golden.apply_and_log(state, ply.action)
        except Exception as error:  # reported as a mismatch of this ply
            _fail(path.name, where, ply.lines(),
                  [*actual.before_lines(), f"action {ply.action}",
                   f"(raised {type(error).__name__}: {error})"])
        if log != ply.log:
            _fail(path.name, where, ply.lines(),
                  [*actual.before_lines(), f"action {ply.action}",
                   *(f"log {entry}" for entry in log)])

    units = [final.unit for final in trace.finals]
    expected_end = trace.end_lines()
    actual_end = golden.Trace(trace.header, (), golden.ending(state),
                              golden.finals(state, units), golden.outcome_lines(state)).end_lines()
    played_with = golden.book_for(trace.header, book)
    if sorted(units) != sorted(played_with.unit_ids):
        actual_end += [f"(the rulebook's units: {' '.join(sorted(played_with.unit_ids))})"]
    if expected_end != actual_end:
        _fail(path.name, f"the end after ply {len(trace.plies)}", expected_end, actual_end)
