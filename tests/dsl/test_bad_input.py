"""Bad input to the front end, refused clearly: never a crash, a hang or a wrong answer.

- files among the rules that are not rules files (not UTF-8, a folder, a
  symlink loop, a FIFO, a device, too long a name, too large), through the
  API and the CLI;
- numbers too long to convert, and values out of their range;
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
from dsl_helpers import PRELUDE, library_forms, one_rule

import cortes_rules
from cortes_rules import CortesRulesError, RulesCheckError, RulesSyntaxError
from cortes_rules.dsl.diagnostics import Diagnostic, line_of, source_lines
from cortes_rules.dsl.parse import MAX_NUMBER_DIGITS, parse_text
from cortes_rules.loader import MAX_RULES_FILE_BYTES, check_path

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


def only(diagnostics: tuple[Diagnostic, ...] | list[Diagnostic]) -> Diagnostic:
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    return diagnostics[0]


# ================================================================== files among the rules


def not_utf8(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "latin1.rules"
    path.write_bytes('rule 2.5 "Nationality" {\n  summary "Nationalité"\n}\n'.encode("latin-1"))
    return path, "latin1.rules:2:22: not UTF-8 text (byte 0xe9)"


def folder_named_rules(tmp_path: Path) -> tuple[Path, str]:
    folder = book_copy(tmp_path)
    (folder / "x.rules").mkdir()
    return folder, "x.rules: a folder, so it cannot be read as a rules file"


def symlink_loop(tmp_path: Path) -> tuple[Path, str]:
    folder = book_copy(tmp_path)
    os.symlink("y.rules", folder / "y.rules")
    return folder, "y.rules: cannot read this rules file: too many levels of symbolic links"


def fifo_in_folder(tmp_path: Path) -> tuple[Path, str]:
    folder = book_copy(tmp_path)
    os.mkfifo(folder / "z.rules")
    return folder, "z.rules: a FIFO (named pipe), so it cannot be read as a rules file"


def fifo_given(tmp_path: Path) -> tuple[Path, str]:
    os.mkfifo(tmp_path / "z.rules")
    return tmp_path / "z.rules", "z.rules: a FIFO (named pipe)"


def dev_zero(tmp_path: Path) -> tuple[Path, str]:
    folder = book_copy(tmp_path)
    os.symlink("/dev/zero", folder / "zero.rules")
    return folder, "zero.rules: a character device, so it cannot be read as a rules file"


def name_too_long(tmp_path: Path) -> tuple[Path, str]:
    return tmp_path / ("a" * 300 + ".rules"), "a" * 30 + ".rules: file name too long"


def too_large(tmp_path: Path) -> tuple[Path, str]:
    path = tmp_path / "huge.rules"
    path.write_bytes(b"#" * (MAX_RULES_FILE_BYTES + 1))
    return path, f"huge.rules: a rules file may hold at most {MAX_RULES_FILE_BYTES} bytes"


BAD_FILES = [
    pytest.param(not_utf8, id="not-utf8"),
    pytest.param(folder_named_rules, id="folder-named-x.rules"),
    pytest.param(symlink_loop, id="symlink-loop-named-y.rules"),
    pytest.param(fifo_in_folder, id="fifo-named-z.rules-in-a-rulebook",
                 marks=pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")),
    pytest.param(fifo_given, id="fifo-named-z.rules-given",
                 marks=pytest.mark.skipif(not hasattr(os, "mkfifo"), reason="no FIFOs")),
    pytest.param(dev_zero, id="symlink-to-dev-zero",
                 marks=pytest.mark.skipif(not Path("/dev/zero").exists(), reason="no /dev/zero")),
    pytest.param(name_too_long, id="name-too-long"),
    pytest.param(too_large, id="larger-than-the-cap"),
]


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("make", BAD_FILES)
def test_a_bad_file_is_refused_by_load_with_a_one_line_error_naming_it(tmp_path: Path,
                                                                         make) -> None:
    target, wanted = make(tmp_path)
    with pytest.raises(CortesRulesError) as caught:
        cortes_rules.load(target)
    message = str(caught.value)
    assert wanted in message
    assert "\n" not in message


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("make", BAD_FILES)
def test_a_bad_file_is_refused_by_the_cli_with_one_line_and_no_traceback(tmp_path: Path,
                                                                          make) -> None:
    target, wanted = make(tmp_path)
    result = cli("check", str(target))
    assert result.returncode == 1
    assert result.stdout == ""
    assert "Traceback" not in result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert result.stderr.startswith("cortes-rules: ")
    assert wanted in result.stderr


@pytest.mark.rule("1.0")
def test_the_bad_utf8_error_gives_line_and_column(tmp_path: Path) -> None:
    path, _ = not_utf8(tmp_path)
    with pytest.raises(CortesRulesError, match=r"latin1\.rules:2:22: not UTF-8"):
        cortes_rules.load(path)  # column 22 of '  summary "Nationalité"' is the 'é'


@pytest.mark.rule("1.0")
def test_a_map_replacement_that_is_a_fifo_is_refused(tmp_path: Path) -> None:
    if not hasattr(os, "mkfifo"):
        pytest.skip("no FIFOs")
    os.mkfifo(tmp_path / "map.rules")
    with pytest.raises(CortesRulesError, match=r"map\.rules: a FIFO"):
        cortes_rules.load("cortes", map=tmp_path / "map.rules")


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("name", ["nowhere", "bad\x00name", 42])
def test_a_bad_rulebook_name_is_refused(name: object) -> None:
    with pytest.raises(CortesRulesError) as caught:
        cortes_rules.load(name)  # type: ignore[arg-type]
    assert "\n" not in str(caught.value)


@pytest.mark.rule("1.0")
def test_a_file_of_exactly_the_cap_is_read(tmp_path: Path) -> None:
    path = tmp_path / "big.rules"
    text = MINIMAL.read_text(encoding="utf-8")
    path.write_text(text + "#" * (MAX_RULES_FILE_BYTES - len(text.encode())), encoding="utf-8")
    assert path.stat().st_size == MAX_RULES_FILE_BYTES
    assert check_path(path) == []


# ================================================================== numbers

HUGE = "9" * 4301  # one digit past Python's int-string conversion limit


# (rule, statement, text before the number, parsed with hex_wargame's forms?)
NUMBER_SNIPPETS = [
    pytest.param("7.10", f"forbid move when to.units == {HUGE}", "forbid move when to.units == ",
                 False, id="integer-literal"),
    pytest.param("8.18", f"dice two_dice = 2d{HUGE}", "dice two_dice = ", False, id="dice"),
    pytest.param("1.0", f"value v: int = {HUGE}", "value v: int = ", False, id="value"),
    pytest.param("1.0", f"contribute h = {HUGE} when true", "contribute h = ", False,
                 id="contribution"),
    pytest.param("8.14", f"shift 3 left when attack > {HUGE}", "shift 3 left when attack > ",
                 True, id="in-a-form-expression"),
    pytest.param("8.14", f"shift {HUGE} left when target has major_fortress", "shift ", True,
                 id="shift"),
    pytest.param("8.23", f"advance into target at least {HUGE} when true",
                 "advance into target at least ", True, id="advance"),
    pytest.param("13.2", f'table crt "CRT" {{ columns 1:1 row 2 1/{HUGE} }}',
                 'table crt "CRT" { columns 1:1 row 2 ', False, id="table-result"),
    pytest.param("13.2", f'table crt "CRT" {{ columns {HUGE}:1 row 2 1/1 }}',
                 'table crt "CRT" { columns ', False, id="table-odds"),
    pytest.param("13.1", f'table t "T" {{ columns move row clear -{HUGE} }}',
                 'table t "T" { columns move row clear ', False, id="signed-table-cell"),
]


@pytest.mark.parametrize("rule, statement, before, forms", [
    pytest.param(*p.values, marks=[pytest.mark.rule(p.values[0]), *p.marks], id=p.id)
    for p in NUMBER_SNIPPETS])
def test_a_number_of_4301_digits_is_a_diagnostic_with_a_caret(rule: str, statement: str,
                                                                before: str,
                                                                forms: bool) -> None:
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(one_rule(rule, statement), "numbers.rules", library_forms() if forms else ())
    diagnostic = only(caught.value.diagnostics)
    assert f"number too long: 4301 digits (at most {MAX_NUMBER_DIGITS})" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (3, 3 + len(before))
    assert diagnostic.rule == rule
    assert diagnostic.source_line == "  " + statement
    rendered = diagnostic.render().split("\n")
    assert rendered[0].startswith("numbers.rules:3:")
    assert rendered[2].strip().startswith("^")


@pytest.mark.rule("8.14")
def test_a_form_number_of_19_digits_is_refused_like_any_number() -> None:
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(one_rule("8.14", f"shift {'9' * 19} left when true"), "numbers.rules",
                   library_forms())
    assert f"number too long: 19 digits (at most {MAX_NUMBER_DIGITS})" in only(
        caught.value.diagnostics).message


@pytest.mark.rule("8.20")
def test_a_counter_with_4301_digit_steps_is_a_diagnostic() -> None:
    text = f'counters mix "Mix" {{\n  counter S1 "One" infantry steps {HUGE}\n}}\n'
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(text, "counters.rules")
    diagnostic = only(caught.value.diagnostics)
    assert (diagnostic.span.line, diagnostic.rule) == (2, "counters mix")
    assert "number too long" in diagnostic.message


@pytest.mark.rule("8.9")
def test_a_rule_number_of_4301_digits_is_a_diagnostic() -> None:
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(one_rule(f"8.{HUGE}", "cost move = 1"), "numbers.rules", library_forms())
    assert "rule number too long" in only(caught.value.diagnostics).message


def line_number(name: str, text: str) -> int:
    """The line of the shipped rulebook's file ``name`` holding ``text`` (once)."""
    lines = (SHIPPED / name).read_text(encoding="utf-8").split("\n")
    [number] = [i for i, line in enumerate(lines, 1) if text in line]
    return number


@pytest.mark.rule("8.18")
@pytest.mark.parametrize("old, new", [
    pytest.param("2d6", f"2d{HUGE}", id="dice"),
    pytest.param("shift 3 left when target has major_fortress",
                 f"shift {HUGE} left when target has major_fortress", id="shift"),
])
def test_the_cli_reports_a_4301_digit_number_without_traceback(tmp_path: Path, old: str,
                                                                 new: str) -> None:
    folder = book_copy(tmp_path, {"08-combat.rules": (old, new)})
    result = cli("check", str(folder))
    assert "Traceback" not in result.stderr
    assert result.returncode == 1
    line = line_number("08-combat.rules", old)
    assert f"08-combat.rules:{line}:" in result.stderr and "number too long" in result.stderr


@pytest.mark.rule("8.14")
def test_load_refuses_a_4301_digit_number_in_a_form_with_a_syntax_error(
        tmp_path: Path) -> None:
    path = tmp_path / "shift.rules"
    path.write_text(PRELUDE + one_rule("8.14", f"shift {HUGE} left when true"),
                    encoding="utf-8")
    with pytest.raises(RulesSyntaxError, match="number too long: 4301 digits"):
        cortes_rules.load(path)


@pytest.mark.rule("8.20")
def test_a_counter_with_absurd_steps_is_refused(tmp_path: Path) -> None:
    folder = book_copy(tmp_path, {"counters.rules": (
        'counter S1 "Jorge de Alvarado\'s command" infantry steps 4 combat 7, 5, 4, 2',
        'counter S1 "Jorge de Alvarado\'s command" infantry steps 999999999999')})
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(folder)
    diagnostic = only(caught.value.diagnostics)
    # The bound is the hex-wargame library's (printed max_steps ... at most 100).
    assert "counter S1 has steps 999999999999: steps is at most 100" in diagnostic.message
    assert (diagnostic.span.line, diagnostic.span.column) == (
        16, diagnostic.source_line.index("999999999999") + 1)


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


# A clause for tests/fixtures/good/minimal.rules naming an unknown name (limt)
# in a forbid clause: a checker error, not a syntax error.
UNKNOWN_NAME = "  forbid walk when runner.walked > limt"


@pytest.mark.rule("1.0")
@pytest.mark.parametrize("char", LINE_BREAKS, ids=[f"U+{ord(c):04X}" for c in LINE_BREAKS])
def test_a_checker_diagnostic_after_a_line_break_character_quotes_its_line(
        tmp_path: Path, char: str) -> None:
    minimal = MINIMAL.read_text(encoding="utf-8")
    path = tmp_path / "breaks.rules"
    path.write_text(minimal + f'\n# note{char}here\nrule 2.5 "Tired runners" {{\n'
                    f'  summary "Worn{char}out."\n{UNKNOWN_NAME}\n}}\n',
                    encoding="utf-8", newline="")
    diagnostic = only(check_path(path))
    assert "unknown name 'limt'" in diagnostic.message
    assert diagnostic.rule == "2.5"
    assert (diagnostic.span.line, diagnostic.span.column) == (minimal.count("\n") + 5, 36)
    assert diagnostic.source_line == UNKNOWN_NAME
    assert diagnostic.render().split("\n")[1:3] == ["    " + UNKNOWN_NAME,
                                                    "    " + " " * 35 + "^" * 4]


@pytest.mark.rule("1.0")
def test_a_diagnostic_in_a_crlf_file_quotes_its_line_without_the_cr(tmp_path: Path) -> None:
    path = tmp_path / "crlf.rules"
    minimal = MINIMAL.read_text(encoding="utf-8")
    text = minimal + f'\nrule 2.5 "Tired runners" {{\n  summary "S."\n{UNKNOWN_NAME}\n}}\n'
    path.write_bytes(text.replace("\n", "\r\n").encode("utf-8"))
    diagnostic = only(check_path(path))
    assert "unknown name 'limt'" in diagnostic.message
    assert diagnostic.source_line == UNKNOWN_NAME
    assert (diagnostic.span.line, diagnostic.span.column) == (minimal.count("\n") + 4, 36)
    assert "\r" not in diagnostic.render()


@pytest.mark.rule("1.0")
def test_source_lines_split_at_newlines_only() -> None:
    text = "a\u2028b\x0cc\r\nd\n\ne"
    assert source_lines(text) == ["a\u2028b\x0cc", "d", "", "e"]
    assert [line_of(text, n) for n in (0, 1, 2, 3, 4, 5)] == [
        "", "a\u2028b\x0cc", "d", "", "e", ""]


# ------------------------------------------------------------------ map data, 7.7
DOUBLED_MAPS = [
    pytest.param("  hex 0101: clear\n  hex 0101: clear\n", "listed twice", None, id="hex-twice"),
    pytest.param("  hexes 0101 .. 0202: clear\n  hexes 0202 .. 0303: clear\n", "listed twice",
                 None, id="overlapping-rectangles"),
    pytest.param("  hex 0101 0101: clear\n", "listed twice", None, id="twice-on-one-line"),
    pytest.param("  hexes 0101 .. 0202: clear\n  hex 0101: dry\n", "listed twice", None,
                 id="hex-line-changing-a-rectangle"),
    pytest.param("  hex 0101: clear, rough\n", "at most one natural terrain", "7.7",
                 id="two-natural"),
    pytest.param("  hex 0101: clear, dry, wet\n", "at most one artificial terrain", "7.7",
                 id="two-artificial"),
]


@pytest.mark.rule("7.7")
@pytest.mark.parametrize("lines, message, rule", DOUBLED_MAPS)
def test_doubled_map_data_is_an_error(tmp_path: Path, lines: str, message: str,
                                      rule: str | None) -> None:
    text = ('rule 7.7 "Terrain" {\n  summary "Terrain types."\n'
            '  terrain clear "Clear" natural\n  terrain rough "Rough" natural\n'
            '  terrain dry "Dry city" artificial\n  terrain wet "Wet city" artificial\n}\n'
            'map m "M" {\n  grid columns odd low\n' + lines + "}\n")
    path = tmp_path / "map.rules"
    path.write_text(text, encoding="utf-8")
    problems = [d for d in check_path(path) if message in d.message]
    assert problems, [d.render() for d in check_path(path)]
    if rule is not None:
        assert problems[0].rule == rule


@pytest.mark.rule("7.7")
def test_a_hex_line_may_add_terrain_to_a_rectangle_by_repeating_its_terrain(tmp_path):
    text = ('rule 7.7 "Terrain" {\n  summary "Terrain types."\n'
            '  terrain clear "Clear" natural\n  terrain dry "Dry city" artificial\n}\n'
            'map m "M" {\n  grid columns odd low\n  hexes 0101 .. 0202: clear\n'
            '  hex 0101: clear, dry\n}\n')
    path = tmp_path / "map.rules"
    path.write_text(text, encoding="utf-8")
    assert not [d for d in check_path(path) if "listed twice" in d.message or "7.7" == d.rule]
