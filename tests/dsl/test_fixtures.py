"""The malformed rulebooks of tests/fixtures/bad/, each checked against its own expectation.

Every file in ``tests/fixtures/bad/`` is a small self-contained rulebook with
exactly one defect. Its first line states what the front end must report::

    # expect: LINE:COL rule=N.N message=SUBSTRING

``rule=`` is what the diagnostic cites: a rule number, or for a problem in a
data block the block (``map valley``, ``counters cortes_mix``,
``setup historical``), which is how the checker cites those.
"""

from __future__ import annotations

import os
import re
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import TypeVar

import pytest

from cortes_rules.dsl.diagnostics import Diagnostic
from cortes_rules.errors import RulesCheckError, RulesError, RulesSyntaxError
from cortes_rules.loader import check_path, compile_rulebook

F = TypeVar("F", bound=Callable[..., object])

ROOT = Path(__file__).resolve().parents[2]
FIXTURES = ROOT / "tests" / "fixtures"
BAD = FIXTURES / "bad"
GOOD = FIXTURES / "good"
SHIPPED = ROOT / "rulebook" / "cortes"

EXPECT = re.compile(r"^# expect: (\d+):(\d+) rule=(.+?) message=(.+)$")
RULE_HEADER = re.compile(r"^rule\s+(\d+\.\d+[a-z]?)\b", re.MULTILINE)

# The fixtures whose defect is a syntax error: the parser, not the checker, rejects them.
SYNTAX_FIXTURES = {
    "01-missing-brace.rules",
    "02-misspelt-keyword.rules",
    "03-bad-rule-number.rules",
    "04-unterminated-string.rules",
    "05-stray-token-in-row.rules",
    "06-missing-when.rules",
    "32-define-without-context.rules",
}


class Expectation:
    """The first line of a bad fixture, parsed."""

    def __init__(self, path: Path) -> None:
        first = path.read_text(encoding="utf-8").splitlines()[0]
        match = EXPECT.match(first)
        if match is None:
            raise ValueError(f"{path.name}: first line is not '# expect: LINE:COL rule=N.N "
                             f"message=SUBSTRING': {first!r}")
        self.path = path
        self.line = int(match.group(1))
        self.column = int(match.group(2))
        self.rule = match.group(3)
        self.message = match.group(4)

    def source_line(self) -> str:
        return self.path.read_text(encoding="utf-8").splitlines()[self.line - 1]

    def find(self, diagnostics: list[Diagnostic] | tuple[Diagnostic, ...]) -> Diagnostic:
        """The diagnostic this expectation describes; fails the test when there is none."""
        for diagnostic in diagnostics:
            if (diagnostic.span.line, diagnostic.span.column) == (self.line, self.column):
                assert diagnostic.rule == self.rule, diagnostic.render()
                assert self.message in diagnostic.message, diagnostic.render()
                return diagnostic
        rendered = "\n".join(d.render() for d in diagnostics) or "(no diagnostics)"
        pytest.fail(f"no diagnostic at {self.line}:{self.column} in {self.path.name}; "
                    f"got:\n{rendered}")


def bad_fixtures() -> list[Path]:
    return sorted(BAD.glob("*.rules"))


def rules_in(path: Path) -> list[str]:
    """The rule numbers a rules file (or folder) states, in order."""
    files = [path] if path.is_file() else sorted(path.glob("*.rules"))
    numbers: list[str] = []
    for file in files:
        numbers.extend(RULE_HEADER.findall(file.read_text(encoding="utf-8")))
    return numbers


def rule_marks(numbers: list[str]) -> Callable[[F], F]:
    """Mark a test with every rule number given (the rule marker may repeat)."""
    def decorate(function: F) -> F:
        for number in dict.fromkeys(numbers):
            function = pytest.mark.rule(number)(function)
        return function
    return decorate


def fixture_params() -> list[object]:
    return [pytest.param(path, marks=pytest.mark.rule(Expectation(path).rule), id=path.name)
            for path in bad_fixtures()]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m cortes_rules ARGS`` from the repository root, the checkout importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "cortes_rules", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)


def relative(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


# ------------------------------------------------------------------ the fixture set


@rule_marks([Expectation(p).rule for p in bad_fixtures()])
def test_there_are_enough_fixtures() -> None:
    names = [p.name for p in bad_fixtures()]
    assert len(names) >= 20
    for name in names:
        assert re.fullmatch(r"\d\d-[a-z0-9-]+\.rules", name), name
    numbers = [name[:2] for name in names]
    assert len(set(numbers)) == len(numbers), "two fixtures share a number"
    assert SYNTAX_FIXTURES <= set(names)


@pytest.mark.parametrize("path", fixture_params())
def test_expectation_line_is_well_formed(path: Path) -> None:
    expectation = Expectation(path)
    lines = path.read_text(encoding="utf-8").splitlines()
    assert 1 < expectation.line <= len(lines)
    assert 1 <= expectation.column <= len(lines[expectation.line - 1]) + 1
    assert expectation.message.strip() == expectation.message and expectation.message


# ------------------------------------------------------------------ the Python API


@pytest.mark.parametrize("path", fixture_params())
def test_fixture_reports_its_defect(path: Path) -> None:
    expectation = Expectation(path)
    diagnostics = check_path(path)
    expectation.find(diagnostics)
    # One defect, one diagnostic: no cascade of follow-on errors.
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    assert all(d.severity == "error" for d in diagnostics)


@pytest.mark.parametrize("path", fixture_params())
def test_fixture_does_not_compile(path: Path) -> None:
    expectation = Expectation(path)
    expected_error = RulesSyntaxError if path.name in SYNTAX_FIXTURES else RulesCheckError
    with pytest.raises(RulesError) as caught:
        compile_rulebook(path)
    assert type(caught.value) is expected_error
    diagnostic = expectation.find(caught.value.diagnostics)
    # The exception's text is the rendered diagnostics.
    assert diagnostic.render() in str(caught.value)


@pytest.mark.parametrize("path", fixture_params())
def test_fixture_diagnostic_renders_with_caret(path: Path) -> None:
    expectation = Expectation(path)
    diagnostic = expectation.find(check_path(path))
    text = diagnostic.render()
    lines = text.splitlines()
    where = f"{diagnostic.span.path}:{expectation.line}:{expectation.column}"
    assert diagnostic.span.path.endswith(path.name)
    assert lines[0].startswith(f"{where}: error: ")
    assert lines[0].endswith(f"[rule {expectation.rule}]")
    assert expectation.message in lines[0]
    source = expectation.source_line()
    assert lines[1] == "    " + source.rstrip()
    caret = lines[2]
    assert set(caret.strip()) == {"^"}
    # Four spaces of indent, then the caret under the reported column.
    assert caret.index("^") == 4 + expectation.column - 1
    assert len(caret) <= len(lines[1])
    # The caret points at the text the message is about, never past the line's end.
    assert source[expectation.column - 1:].strip()


# ------------------------------------------------------------------ the command line


@pytest.mark.parametrize("path", fixture_params())
def test_cli_rejects_fixture(path: Path) -> None:
    expectation = Expectation(path)
    result = cli("check", relative(path))
    assert result.returncode == 1, result.stderr
    assert f"{relative(path)}:{expectation.line}:{expectation.column}: error:" in result.stderr
    assert f"[rule {expectation.rule}]" in result.stderr
    assert expectation.message in result.stderr
    assert expectation.source_line().rstrip() in result.stderr
    assert "Traceback" not in result.stderr
    assert f"{relative(path)}: 1 error" in result.stderr
    assert ": ok (" not in result.stdout


@pytest.mark.parametrize("target", [
    pytest.param("cortes", marks=[pytest.mark.rule(n) for n in rules_in(SHIPPED)], id="cortes"),
    pytest.param(relative(GOOD / "minimal.rules"),
                 marks=[pytest.mark.rule(n) for n in rules_in(GOOD / "minimal.rules")],
                 id="good-minimal"),
])
def test_cli_accepts_clean_rulebook(target: str) -> None:
    result = cli("check", target)
    assert result.returncode == 0, result.stderr
    assert result.stderr == ""
    assert f"{target}: ok (" in result.stdout


@rule_marks(rules_in(GOOD / "minimal.rules"))
def test_good_minimal_checks_clean_through_the_api() -> None:
    path = GOOD / "minimal.rules"
    assert check_path(path) == []
    program, warnings = compile_rulebook(path)
    assert warnings == []
    assert list(program.rules) == rules_in(path)
    assert len(program.rules) >= 6


@rule_marks([Expectation(p).rule for p in bad_fixtures()[:2]])
def test_cli_reports_every_file_given() -> None:
    first, second = bad_fixtures()[:2]
    result = cli("check", relative(first), relative(second))
    assert result.returncode == 1
    for path in (first, second):
        expectation = Expectation(path)
        assert f"{relative(path)}:{expectation.line}:{expectation.column}:" in result.stderr
