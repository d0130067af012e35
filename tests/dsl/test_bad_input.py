"""Bad input to the front end, refused clearly: never a crash, a hang or a wrong answer.

- characters that ``str.splitlines`` takes for line ends but the parser
  does not (the diagnostics must quote the right line).

Each test pins a defect found in review or by tests/fuzz/test_fuzz.py.
Problems with files concern no game rule and are marked "1.0".
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import RulesSyntaxError
from cortes_rules.dsl.diagnostics import Diagnostic, line_of, source_lines
from cortes_rules.dsl.parse import parse_text
from cortes_rules.loader import check_path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "rulebook" / "cortes"
MINIMAL = ROOT / "tests" / "fixtures" / "good" / "minimal.rules"


def cli(*args: str, cwd: Path = ROOT) -> subprocess.CompletedProcess[str]:
    """``python -m cortes_rules ARGS``, the checkout importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "cortes_rules", *args], cwd=cwd, env=env,
                          capture_output=True, text=True, timeout=60)


def book_copy(tmp_path: Path, changes: dict[str, tuple[str, str]] | None = None) -> Path:
    """A copy of the shipped rulebook's rules files; ``changes``: file -> (old, new) text."""
    folder = tmp_path / "book"
    folder.mkdir()
    for path in SHIPPED.glob("*.rules"):
        text = path.read_text(encoding="utf-8")
        old, new = (changes or {}).get(path.name, ("", ""))
        if old:
            assert text.count(old) == 1, old
            text = text.replace(old, new)
        (folder / path.name).write_text(text, encoding="utf-8")
    return folder


def one_rule(number: str, statement: str) -> str:
    """A rule clause whose third line is ``statement``."""
    return f'rule {number} "Snippet" {{\n  summary "A snippet."\n  {statement}\n}}\n'


def only(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> Diagnostic:
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    return diagnostics[0]


# ================================================================== line ends

LINE_BREAKS = ["\u2028", "\u2029", "\x85", "\x0b", "\x0c", "\x1c", "\x1d", "\x1e"]


@pytest.mark.rule("7.10")
@pytest.mark.parametrize("char", LINE_BREAKS, ids=[f"U+{ord(c):04X}" for c in LINE_BREAKS])
def test_a_line_break_character_in_a_comment_or_string_keeps_the_right_line(char: str) -> None:
    text = (f'rule 7.10 "Quagmire" {{\n  # a comment{char}with it\n'
            f'  summary "The single quagmire{char}hex."\n  forbid move when to has quagmire\n'
            '  forbid move whenn to has quagmire\n}\n')
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(text, "breaks.rules")
    diagnostic = only(caught.value.diagnostics)
    assert (diagnostic.span.line, diagnostic.span.column) == (5, 15)
    assert diagnostic.source_line == "  forbid move whenn to has quagmire"
    assert diagnostic.rule == "7.10"
    rendered = diagnostic.render().split("\n")
    assert rendered[1:3] == ["      forbid move whenn to has quagmire", "    " + " " * 14 + "^" * 5]


@pytest.mark.rule("7.10")
@pytest.mark.parametrize("char", LINE_BREAKS, ids=[f"U+{ord(c):04X}" for c in LINE_BREAKS])
def test_a_checker_diagnostic_after_a_line_break_character_quotes_its_line(
        tmp_path: Path, char: str) -> None:
    minimal = MINIMAL.read_text(encoding="utf-8")
    path = tmp_path / "breaks.rules"
    path.write_text(minimal + f'\n# note{char}here\nrule 7.13 "Chinampa city" {{\n'
                    f'  summary "Costly{char}terrain."\n  forbid move when to has swamp\n}}\n',
                    encoding="utf-8", newline="")
    diagnostic = only(check_path(path))
    assert diagnostic.span.line == minimal.count("\n") + 5
    assert diagnostic.source_line == "  forbid move when to has swamp"
    assert diagnostic.render().split("\n")[1] == "      forbid move when to has swamp"


@pytest.mark.rule("7.10")
def test_a_diagnostic_in_a_crlf_file_quotes_its_line_without_the_cr(tmp_path: Path) -> None:
    path = tmp_path / "crlf.rules"
    text = (MINIMAL.read_text(encoding="utf-8")
            + '\nrule 7.13 "Chinampa city" {\n  summary "S."\n  forbid move when to has swamp\n}\n')
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    diagnostic = only(check_path(path))
    assert diagnostic.source_line == "  forbid move when to has swamp"
    assert diagnostic.span.column == 27


@pytest.mark.rule("1.0")
def test_source_lines_split_at_newlines_only() -> None:
    text = "a\u2028b\x0cc\r\nd\n\ne"
    assert source_lines(text) == ["a\u2028b\x0cc", "d", "", "e"]
    assert [line_of(text, n) for n in (0, 1, 2, 3, 4, 5)] == [
        "", "a\u2028b\x0cc", "d", "", "e", ""]
