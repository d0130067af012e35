"""What a new user runs first, as a user runs it: ``cortes-rules demo``, ``cortes-rules
render -o x.svg``, ``cortes-rules serve`` up to its first answer, ``render_svg`` and
Jupyter's ``_repr_svg_``, and a first load reading the parse tables built with the package.

In the checkout the commands are ``python -m cortes_rules`` with the checkout
on ``PYTHONPATH``; with ``CORTES_RULES_TEST_INSTALLED=1`` (CI, against the
wheel installed in a fresh venv) they are the ``cortes-rules`` script that
the install put beside the interpreter. Each runs in a temporary folder,
outside any source tree.
"""

from __future__ import annotations

import os
import socket
import subprocess
import sys
import time
import urllib.error
import urllib.request
import xml.etree.ElementTree as ET
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import load_cache

ROOT = Path(__file__).resolve().parents[2]
INSTALLED = os.environ.get("CORTES_RULES_TEST_INSTALLED", "") not in ("", "0")
SVG = "{http://www.w3.org/2000/svg}svg"


def command() -> tuple[list[str], dict[str, str]]:
    """The ``cortes-rules`` command line and its environment."""
    if INSTALLED:
        script = Path(sys.executable).parent / "cortes-rules"
        assert script.is_file(), f"the install put no {script}"
        return [str(script)], dict(os.environ)
    return [sys.executable, "-m", "cortes_rules"], {**os.environ, "PYTHONPATH": str(ROOT)}


def run(*words: str, cwd: Path) -> subprocess.CompletedProcess[str]:
    argv, env = command()
    return subprocess.run([*argv, *words], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=600, check=False)


@pytest.mark.rule("4.2")
def test_demo_plays_the_demonstration_and_cites_its_rules(tmp_path: Path) -> None:
    done = run("demo", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    assert "[8.18" in done.stdout               # a battle's adjudication, with its rule
    assert done.stdout.rstrip().endswith("winner: none.")


@pytest.mark.rule("2.1")
def test_render_writes_the_set_up_as_an_svg_file(tmp_path: Path) -> None:
    done = run("render", "-o", "x.svg", cwd=tmp_path)
    assert done.returncode == 0, done.stderr
    root = ET.parse(tmp_path / "x.svg").getroot()
    assert root.tag == SVG
    pieces = {e.get("data-piece") for e in root.iter() if e.get("data-piece")}
    assert len(pieces) > 50 and "S1" in pieces, sorted(pieces)[:10]
    assert f"{len(pieces)} pieces placed" in done.stdout


@pytest.mark.rule("2.1")
def test_render_svg_and_jupyters_repr_draw_the_position() -> None:
    from cortes_rules.picture import render_svg

    state = cortes_rules.load("cortes").new_game(seed=1, setup="demo")
    drawn = render_svg(state)
    assert ET.fromstring(drawn).tag == SVG
    assert state._repr_svg_() == drawn
    assert 'data-piece="S9"' in drawn


def _free_port() -> int:
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        return int(probe.getsockname()[1])


def _get(url: str, deadline: float, server: subprocess.Popen[str]) -> tuple[int, str]:
    while True:
        try:
            with urllib.request.urlopen(url, timeout=10) as answer:
                return answer.status, answer.read().decode("utf-8")
        except (urllib.error.URLError, ConnectionError):
            assert server.poll() is None, f"serve stopped: {server.communicate()[1]}"
            assert time.monotonic() < deadline, "serve gave no answer in time"
            time.sleep(0.2)


@pytest.mark.rule("4.2")
def test_serve_answers_with_the_page_and_its_script(tmp_path: Path) -> None:
    port = _free_port()   # Starlette and uvicorn are dependencies: never skipped
    argv, env = command()
    server = subprocess.Popen([*argv, "serve", "--host", "127.0.0.1", "--port", str(port)],
                              cwd=tmp_path, env=env, stdout=subprocess.PIPE,
                              stderr=subprocess.PIPE, text=True)
    try:
        status, page = _get(f"http://127.0.0.1:{port}/", time.monotonic() + 120, server)
        assert status == 200 and "<html" in page.lower()
        status, script = _get(f"http://127.0.0.1:{port}/static/app.js", time.monotonic() + 30,
                              server)
        assert status == 200 and "function" in script
    finally:
        server.terminate()
        server.communicate(timeout=30)


SHIPPED_TABLES_READ = r"""
import sys
import cortes_rules
from cortes_rules import load_cache
book = cortes_rules.load("cortes")
assert book.evaluate("odds_what_if(-3)", attack=26, defense=7) == ("3:1", "1:2")
cortes_rules.load("grands_strateges")
print(sorted(p.name for p in load_cache.folder().glob("grammar-*.tables")))
"""


@pytest.mark.rule("2.1")
def test_a_first_load_reads_the_parse_tables_built_with_the_package(tmp_path: Path) -> None:
    shipped = sorted(load_cache.SHIPPED_TABLES.glob("grammar-*.tables"))
    if not shipped:
        assert not INSTALLED, f"the installed package has no {load_cache.SHIPPED_TABLES}"
        pytest.skip("this checkout has no built parse tables (the wheel's are tested when "
                    "installed, CORTES_RULES_TEST_INSTALLED=1)")
    env = {**command()[1], load_cache.ENV: str(tmp_path / "cache")}
    done = subprocess.run([sys.executable, "-c", SHIPPED_TABLES_READ], cwd=tmp_path, env=env,
                          capture_output=True, text=True, timeout=600, check=False)
    assert done.returncode == 0, done.stderr
    # Every grammar the loads used was read from the package: none was built and kept.
    assert done.stdout.split("\n")[-2] == "[]"


@pytest.mark.rule("4.2")
def test_serve_without_its_libraries_says_what_to_install_in_one_line(
        monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    from cortes_rules.cli import main

    monkeypatch.setitem(sys.modules, "uvicorn", None)   # import uvicorn fails
    assert main(["serve", "--port", str(_free_port())]) == 1
    assert capsys.readouterr().err.splitlines() == [
        "cortes-rules: serve needs Starlette and uvicorn: pip install 'cortes-rules[serve]'"]
