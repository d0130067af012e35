"""Every ``cortes-rules`` command line of the README and the docs runs as written.

The commands are read from the pages themselves: each ``$ cortes-rules ...``
line of a console block, each ``cortes-rules`` after ``&&`` in a shell
block, and each inline ``cortes-rules ...`` code span. Each runs in this
process (``cortes_rules.cli.main``), from a scratch folder in which
``rulebook/`` is the checkout's (the pages name ``rulebook/cortes/demo.record``),
and must exit with status 0, or with the status of the failure the page
documents (``DOCUMENTED_FAILURES``, whose files the test writes as the page
describes them; the first line the page shows must be the first line
printed). A console block's first output line under a command, when the
page shows one, must be among the lines the command prints.

What is not run, and why:

- a synopsis (a word in capitals such as ``POSITION`` or ``N``, or ``[...]``,
  ``|``, ``...``): it stands for many command lines; its command must exist;
- a bare ``cortes-rules COMMAND`` in prose: it is the command's name (the
  console blocks run the commands that take no argument); it must exist;
- ``NOT_RUN``: the commands that take minutes or start a cluster, each with
  its reason and the test that runs the same command;
- ``serve`` is run with the server's ``run`` replaced by a recorder: the
  command line is parsed and its options reach the server, which is not
  started (tests/serve/ start it).
"""

from __future__ import annotations

import argparse
import re
import shlex
from collections.abc import Callable, Iterator
from pathlib import Path

import pytest

from cli_run import run_cli
from cortes_rules.cli import build_parser
from cortes_rules.rulebook_files import default_rulebook
from cortes_rules.text_index import text_index

ROOT = Path(__file__).resolve().parents[2]
PAGES = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_INLINE = re.compile(r"`(cortes-rules(?:\s[^`]*)?)`")
_FENCE = re.compile(r"^\s*```(\w*)")
_PLACEHOLDER = re.compile(r"^(?:--?[a-z-]+=)?[A-Z][A-Z_]*(?:=[A-Z_]+)?(?:\.\.\.)?$")
_ROMAN = re.compile(r"^[IVXLCDM]+$")

NOT_RUN = {
    "selfplay --games 100 --workers 2 --max-turns 1":
        "plays 100 games, each with its set-up stage: minutes of CPU; "
        "tests/api/test_selfplay_many.py runs --games N --workers W",
    "selfplay --games 100 --workers 2 --ray --max-turns 1":
        "starts a local Ray instance; tests/api/test_selfplay_many.py runs --ray",
}

BROKEN_RULES = '''game sketch "A sketch with a typo: if where the language says when" {
  use hex_wargame
}
rule 8.14 "Major fortress" {
  summary "Defenders in a major fortress shift the odds three columns left."
  shift 3 left if target has major_fortress
}
'''


def _bad_record() -> str:
    """The record docs/records.md plays, with its third action made illegal (7.16)."""
    import cortes_rules
    from cortes_rules.record import format_record

    state = cortes_rules.load("cortes").new_game(seed=8, setup="demo", turn_limit=1)
    for action in ["end", "move S9 3011", "move S1 3011", "end", "attack 3012",
                   "join S1", "join S9", "resolve"]:
        state.apply(action)
    state.apply_chance()
    return format_record(state).replace("move S1 3011", "move S2 2910")


DOCUMENTED_FAILURES: dict[str, tuple[int, str, Callable[[], str]]] = {
    # command: (status, the file it reads, how the page describes that file)
    "check broken.rules": (1, "broken.rules", lambda: BROKEN_RULES),
    "verify bad.record": (1, "bad.record", _bad_record),
}


def command_lines(page: Path) -> Iterator[tuple[str, int, str | None, bool]]:
    """``(command, line, first output line shown or None, in prose)`` of every
    ``cortes-rules`` command line of a page (the command without ``cortes-rules``).
    A code span in prose may run over a line break, as Markdown allows."""
    lines = page.read_text(encoding="utf-8").splitlines()
    fence: str | None = None
    prose: list[str] = []
    for number, text in enumerate(lines, 1):
        opening = _FENCE.match(text)
        if opening is not None:
            fence = None if fence is not None else opening[1]
            prose.append("")
            continue
        prose.append(text if fence is None else "")
        if fence not in ("console", "sh", "shell", "bash"):
            continue
        command = text.strip()
        if fence == "console":
            if not command.startswith("$ "):
                continue
            command = command[2:]
        for part in command.split("&&"):
            part = part.split(" #", 1)[0].strip()
            if part == "cortes-rules" or part.startswith("cortes-rules "):
                shown = lines[number].strip() if number < len(lines) else ""
                output = shown if fence == "console" and shown and \
                    not shown.startswith(("$", "```", "...")) else None
                yield part.removeprefix("cortes-rules").strip(), number, output, False
    text = "\n".join(prose)
    for found in _INLINE.finditer(text):
        command = " ".join(found[1].split())
        line = text.count("\n", 0, found.start()) + 1
        yield command.removeprefix("cortes-rules").strip(), line, None, True


OCCURRENCES = sorted({(command, page.name, line, output, prose) for page in PAGES
                      for command, line, output, prose in command_lines(page)},
                     key=lambda c: (c[1], c[2], c[0]))
COMMANDS: dict[str, list[tuple[str, int, str | None, bool]]] = {}
for _command, *_where in OCCURRENCES:
    COMMANDS.setdefault(_command, []).append((_where[0], _where[1], _where[2], _where[3]))
"""Each command line once, with every place the pages give it: (page, line, output, prose)."""


def is_synopsis(words: list[str]) -> bool:
    """Whether a command line stands for many (``why POSITION ACTION``, ``[--json]``)."""
    return any(set(word) & set("[]|") or "..." in word
               or (_PLACEHOLDER.match(word) is not None and not _ROMAN.match(word))
               for word in words)


def _commands() -> dict[str, argparse.ArgumentParser]:
    parser = build_parser()
    actions = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    return dict(actions.choices)


@pytest.fixture
def scratch(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A working folder in which ``rulebook/`` is the checkout's."""
    (tmp_path / "rulebook").symlink_to(ROOT / "rulebook", target_is_directory=True)
    monkeypatch.chdir(tmp_path)
    return tmp_path


@pytest.mark.rule("4.2")
def test_the_pages_give_command_lines_of_each_kind() -> None:
    """The reader finds the commands: run ones, synopses, documented failures."""
    words = [shlex.split(c) for c in COMMANDS]
    runnable = [w for w in words if w and not is_synopsis(w)]
    assert len(runnable) >= 40
    assert any(is_synopsis(w) for w in words)
    assert set(COMMANDS) >= set(DOCUMENTED_FAILURES) | set(NOT_RUN)
    assert ["odds", "26", "7", "--shift", "-3"] in runnable
    readme = [c for c, page, _, _, _ in OCCURRENCES if page == "README.md"]
    assert any(c.startswith("explain rulebook/") for c in readme)   # the README's example


@pytest.mark.rule("4.2")
@pytest.mark.parametrize("command", list(COMMANDS),
                         ids=[f"{c or '(name)'} ({COMMANDS[c][0][0]}:{COMMANDS[c][0][1]})"
                              for c in COMMANDS])
def test_a_command_line_of_the_docs_runs_as_written(
        command: str, scratch: Path, capsys: pytest.CaptureFixture[str],
        monkeypatch: pytest.MonkeyPatch) -> None:
    places = COMMANDS[command]
    page, line = places[0][0], places[0][1]
    prose = all(p[3] for p in places)
    words = shlex.split(command)
    if not words:
        return    # the program's name, in prose
    commands = _commands()
    name = next((w for w in words if not w.startswith("-")), None)
    if name is not None and name not in commands:      # a what-if command of the rulebook
        what_ifs = {w.command for w in text_index(default_rulebook()).what_ifs}
        assert name in what_ifs, f"{page}:{line}: no command {name!r}"
    if is_synopsis(words) or command in NOT_RUN:
        return    # stands for many command lines, or too slow to run here (NOT_RUN says)
    if prose and len(words) == 1 and name is not None:
        return    # the name of a command, in prose
    status = 0
    if command in DOCUMENTED_FAILURES:
        status, file, text = DOCUMENTED_FAILURES[command]
        (scratch / file).write_text(text(), encoding="utf-8")
    if name == "serve":
        pytest.importorskip("starlette")
        import cortes_rules.serve

        served: list[tuple[object, ...]] = []
        monkeypatch.setattr(cortes_rules.serve, "run", lambda *a, **k: served.append(a))
    returned, out, err = run_cli(capsys, *words)
    assert returned == status, f"{page}:{line}: cortes-rules {command}\n{out}\n{err}"
    if name == "serve":
        assert served and err.startswith("cortes-rules: serving on http://")
    printed = [ln.strip() for ln in (out + err).splitlines()]
    for page, line, shown, _ in places:
        assert shown is None or shown in printed, \
            f"{page}:{line}: {shown!r} is not among the lines printed:\n{out}{err}"


@pytest.mark.rule("4.2")
def test_a_synopsis_is_told_apart_from_a_command_line() -> None:
    assert is_synopsis(shlex.split("why POSITION ACTION"))
    assert is_synopsis(shlex.split("interpretations [--json]"))
    assert is_synopsis(shlex.split("demo --seed N"))
    assert is_synopsis(shlex.split("check [PATH...]"))
    assert not is_synopsis(shlex.split("render --rulebook grands_strateges --scenario III"))
    assert not is_synopsis(shlex.split("why start place A1 3016"))
    assert not is_synopsis(shlex.split('evaluate "odds_what_if(-3)" attack=26 defense=7'))

