"""The compiled core's loop of procedure frames (``_core.FrameRunner``) against the
reference loop (``GameState._run``, docs/design.md section 6, "Procedure frames").

Each action runs the procedures on the state's stack until the next decision,
chance event or the end of the game. The compiled backend runs that loop in
the extension; the reference loop in ``engine/machine.py`` is its
specification. Here the same compiled rulebook plays seeded games with and
without the native loop, so that nothing but the loop differs, and both
loops stop a runaway procedure with the same error.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import RulesRuntimeError
from differential import play_both

core = pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"


def _without_native_loop(book: cortes_rules.Rulebook) -> cortes_rules.Rulebook:
    book._machine.runner = None
    return book


@pytest.mark.rule("2.1")
def test_2_1_only_the_compiled_backend_runs_frames_natively():
    assert isinstance(cortes_rules.load("cortes", backend="compiled")._machine.runner,
                      core.FrameRunner)
    assert cortes_rules.load("cortes", backend="python")._machine.runner is None


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("name, kwargs, new_game, seeds", [
    ("cortes", {"options": ("veteran",)}, {"setup": "historical", "turn_limit": 10}, (0, 1)),
    ("cortes", {}, {"setup": "demo", "turn_limit": 10}, (2, 4)),
    ("grands_strateges", {"scenario": "X"}, {}, (3, 5))])
def test_2_1_the_native_frame_loop_plays_as_the_reference_loop(name, kwargs, new_game, seeds):
    """Legal actions, chance, states, frames and log lines agree at every step."""
    native = cortes_rules.load(name, backend="compiled", **kwargs)
    looped = _without_native_loop(cortes_rules.load(name, backend="compiled", **kwargs))
    assert native._machine.runner is not None
    played = sum(play_both(looped, native, seed=seed, max_steps=300, new_game=new_game)
                 for seed in seeds)
    assert played >= 300


def _diving_book(tmp_path: Path, backend: str) -> cortes_rules.Rulebook:
    text = MINIMAL.read_text(encoding="utf-8")
    old = 'log "{p} rests" cite "2.2"'
    assert old in text
    text = text.replace(old, "call dive(0)", 1) + (
        '\nrule 2.5 "Diving" {\n  summary "A test procedure that calls itself for ever."\n'
        "  procedure dive(n) { call dive(n + 1) }\n}\n")
    path = tmp_path / "race.rules"
    path.write_text(text, encoding="utf-8")
    return cortes_rules.load(path, backend=backend)


@pytest.mark.rule("2.2", rulebook="minimal_race")
@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_2_2_a_procedure_that_calls_itself_for_ever_is_stopped_alike(tmp_path, backend):
    state = _diving_book(tmp_path, backend).new_game(setup="standard")
    before = state.to_notation()
    with pytest.raises(RulesRuntimeError, match="procedures call each other too deeply") \
            as caught:
        state.apply("rest")
    assert caught.value.rule == "2.5"
    assert state.to_notation() == before
    assert state.legal_action_ids() == state.clone().legal_action_ids()
