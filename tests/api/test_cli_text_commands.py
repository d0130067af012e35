"""The commands that print a rulebook's text answer from its text index, quickly.

``rules``, ``rule``, ``interpretations`` and ``--help`` read the text index
(cortes_rules/text_index.py) kept in the load cache: once it is kept they
neither compile the rulebook nor import the compiler or the engine, and
``import cortes_rules`` imports neither either. ``rule 8`` lists section 8;
an unknown number gets the nearest ones; every command gives one count of
the rules. Cortés numbers its sections 2-11 and 13 (2.1: the game is its
numbered rules); Grands Stratèges in Roman numerals.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

from cli_run import run_cli
from cortes_rules import load_cache

ROOT = Path(__file__).resolve().parents[2]
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"
TEXT_COMMANDS = [("rules",), ("rule", "8.14"), ("rule", "8"), ("rule", "11.4"),
                 ("interpretations",), ("interpretations", "--json"), ("--help",),
                 ("rules", "grands_strateges"), ("rule", "V", "--rulebook", "grands_strateges")]


@pytest.fixture
def cache(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    folder = tmp_path / "cache"
    monkeypatch.setenv(load_cache.ENV, str(folder))
    return folder


@pytest.mark.rule("2.1")
def test_the_text_commands_answer_without_compiling_the_rulebook(
        cache: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch) -> None:
    import cortes_rules.api
    import cortes_rules.loader
    import cortes_rules.text_index

    first = [run_cli(capsys, *command) for command in TEXT_COMMANDS]   # builds the indexes
    assert all(status == 0 for status, _, _ in first), first

    def compiling(*args: object, **kwargs: object) -> None:
        raise AssertionError("the rulebook was compiled")

    for module, name in ((cortes_rules.loader, "_compile_rulebook"),
                         (cortes_rules.loader, "compile_rulebook"), (cortes_rules.api, "load"),
                         (cortes_rules.text_index, "build")):
        monkeypatch.setattr(module, name, compiling)
    again = [run_cli(capsys, *command) for command in TEXT_COMMANDS]
    assert again == first
    status, _, err = run_cli(capsys, "rule", "99")
    assert status == 1 and "its sections are 2-11, 13" in err


_IMPORTED = """
import sys
from cortes_rules.cli import main
try:
    status = main(sys.argv[1:])
except SystemExit as stop:     # --help and --version exit from argparse
    status = stop.code
heavy = sorted(m for m in sys.modules if m.split(".")[0] in ("lark", "attrs", "attr")
               or m.startswith(("cortes_rules.dsl", "cortes_rules.engine", "cortes_rules.api",
                                "cortes_rules.record")))
print("imported:", " ".join(heavy))
sys.exit(status)
"""


def _python(code: str, *args: str, cache: Path) -> subprocess.CompletedProcess[str]:
    env = {**os.environ, load_cache.ENV: str(cache), "PYTHONPATH": str(ROOT)}
    return subprocess.run([sys.executable, "-c", code, *args], capture_output=True, text=True,
                          env=env, cwd=ROOT, check=False)


@pytest.mark.rule("2.1")
def test_a_text_command_imports_neither_the_compiler_nor_the_engine(cache: Path) -> None:
    built = _python(_IMPORTED, "rule", "8.14", cache=cache)      # builds the index
    assert built.returncode == 0, built.stderr
    for command in (["rule", "8.14"], ["rules"], ["interpretations"], ["--help"],
                    ["--version"]):
        answered = _python(_IMPORTED, *command, cache=cache)
        assert answered.returncode == 0, answered.stderr
        assert answered.stdout.splitlines()[-1].rstrip() == "imported:", command


@pytest.mark.rule("2.1")
def test_importing_the_package_imports_no_engine(cache: Path) -> None:
    code = ("import sys, cortes_rules; "
            "print(sorted(m for m in sys.modules if m.startswith(('lark', 'attr', "
            "'cortes_rules.dsl', 'cortes_rules.engine', 'cortes_rules.api')))); "
            "print(cortes_rules.load.__module__, cortes_rules.GameState.__name__, "
            "issubclass(cortes_rules.IllegalActionError, cortes_rules.CortesRulesError))")
    done = _python(code, cache=cache)
    assert done.returncode == 0, done.stderr
    assert done.stdout.splitlines() == ["[]", "cortes_rules.api GameState True"]


@pytest.mark.rule("8.1")
def test_a_section_number_lists_the_section(cache: Path,
                                            capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "rule", "8")
    assert status == 0
    lines = out.splitlines()
    numbers = [line.split()[0] for line in lines[1:]]
    assert numbers[:3] == ["8.1", "8.2", "8.3"] and "8.25" in numbers and "8.14" in numbers
    assert all(n.startswith("8.") for n in numbers)
    assert lines[0].startswith(f"Section 8: {len(numbers)} numbered rules, ")
    assert "  8.14  Major fortress" in lines
    status, out, _ = run_cli(capsys, "rule", "V", "--rulebook", "grands_strateges")
    assert status == 0 and out.splitlines()[1].split()[0] == "V.1"


@pytest.mark.rule("8.14")
@pytest.mark.parametrize(("args", "message"), [
    (("rule", "8.99"), "no rule 8.99 in this rulebook; did you mean '8.9' or '8.19'?"),
    (("rule", "99"), "no rule 99 in this rulebook; its sections are 2-11, 13 "),
    (("rule", "8.140"), "did you mean '8.14'"),
    (("rule", "4.21", "--rulebook", "grands_strateges"), "did you mean 'IV.21'"),
    (("rule", "XX", "--rulebook", "grands_strateges"), "its sections are I, II, "),
])
def test_an_unknown_number_gets_the_nearest_ones(
        cache: Path, capsys: pytest.CaptureFixture[str], args: tuple[str, ...],
        message: str) -> None:
    status, _, err = run_cli(capsys, *args)
    assert status == 1 and err.count("\n") == 1 and message in err, err


@pytest.mark.rule("11.4")
def test_an_optional_rule_is_shown_and_marked_off(cache: Path,
                                                 capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = run_cli(capsys, "rule", "11.4")
    assert status == 0
    assert out.splitlines()[0].endswith("(optional, off unless switched on)")
    assert "Lowered onto the core:" in out
    _, listed, _ = run_cli(capsys, "rules")
    assert any(line.split()[0] == "11.4" and line.endswith("(optional, off)")
               for line in listed.splitlines())


@pytest.mark.rule("2.1")
def test_every_command_gives_one_count_of_the_rules(
        cache: Path, capsys: pytest.CaptureFixture[str]) -> None:
    import cortes_rules

    program = cortes_rules.load("cortes").program
    numbered = len({r.number for r in program.all_rules if not r.mechanism})
    in_play = sum(1 for r in program.rules.values() if not r.mechanism)
    assert numbered > in_play        # the optional rules are off in a plain load
    count = f"{numbered} numbered rules, {in_play} in play, {numbered - in_play} optional ones off"
    _, rules, _ = run_cli(capsys, "rules")
    assert rules.splitlines()[-1].startswith(count)
    listed = rules.splitlines()[:-1]
    assert sum(1 for line in listed if line[:6].strip()[:1].isdigit()) == numbered
    _, demo, _ = run_cli(capsys, "demo")
    assert f", {count}, on the library hex_wargame." in demo.splitlines()[1]
    _, checked, _ = run_cli(capsys, "check", "cortes")
    assert checked.splitlines()[0] == f"cortes: ok ({count}; 0 warnings)"
    _, covered, _ = run_cli(capsys, "coverage")
    assert covered.splitlines()[-1].startswith(f"{numbered} numbered rules, optional ones "
                                               f"included: ")
    assert f"{count}," in repr(cortes_rules.load("cortes"))


@pytest.mark.rule("2.1")
def test_the_index_follows_the_files(cache: Path, tmp_path: Path,
                                     capsys: pytest.CaptureFixture[str]) -> None:
    book = tmp_path / "race.rules"
    shutil.copy(MINIMAL, book)
    _, before, _ = run_cli(capsys, "rules", str(book))
    text = MINIMAL.read_text(encoding="utf-8")
    first = before.split()[1]
    book.write_text(text.replace(f'"{first}', f'"Renamed {first}', 1), encoding="utf-8")
    _, after, _ = run_cli(capsys, "rules", str(book))
    assert f"Renamed {first}" in after and f"Renamed {first}" not in before


@pytest.mark.rule("2.1")
def test_coverage_outside_a_checkout_asks_for_the_tests_folder(
        cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    """An installed rulebook has no tests/ beside it: the command says what it needs
    rather than printing every rule as cited by no test."""
    installed = tmp_path / "site-packages" / "cortes_rules" / "rulebook" / "race"
    installed.mkdir(parents=True)
    shutil.copy(MINIMAL, installed / "race.rules")
    status, out, err = run_cli(capsys, "coverage", str(installed))
    assert status == 1 and out == ""
    assert err.count("\n") == 1 and "is not in a checkout" in err and "--tests PATH" in err
    status, out, _ = run_cli(capsys, "coverage", str(installed), "--tests",
                             str(ROOT / "tests" / "fixtures"))
    assert status == 0 and "numbered rules" in out.splitlines()[-1]


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_render_draws_a_rulebook_without_set_ups_after_its_set_up_stage(
        cache: Path, tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    picture = tmp_path / "gs.svg"
    status, out, err = run_cli(capsys, "render", "--rulebook", "grands_strateges",
                               "-o", str(picture))
    assert status == 0, err
    placed = int(out.split(": ", 1)[1].split()[0])
    assert placed >= 10 and "after the set-up stage" in out
    status, out, _ = run_cli(capsys, "render", "--rulebook", "grands_strateges",
                             "--position", "start", "-o", str(picture))
    assert status == 0 and ": 0 pieces placed" in out
