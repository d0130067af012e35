"""The benchmarks measure the package installed, say so, and refuse to give figures of a
compiled core that is not the one running.

A package "installed" in a temporary folder (a copy of the one the tests
use, without its compiled core: as a clone installed with ``pip install .``
leaves its checkout without one) is put on ``PYTHONPATH``; run from the
checkout, ``benchmarks/run.py`` and ``benchmarks/floor.py`` must measure it,
not the checkout around them.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules._resources import data_dir

ROOT = Path(__file__).resolve().parents[2]
BENCHMARKS = ROOT / "benchmarks"
PACKAGE = Path(cortes_rules.__file__).resolve().parent


@pytest.fixture(scope="module")
def without_core(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A folder holding ``cortes_rules`` with no compiled core, to put on PYTHONPATH."""
    site = tmp_path_factory.mktemp("site")
    copy = site / "cortes_rules"
    shutil.copytree(PACKAGE, copy, ignore=shutil.ignore_patterns("_core*", "__pycache__"))
    for name in ("grammar", "rulebook"):
        if not (copy / name).exists():   # in a checkout they sit beside the package
            (copy / name).symlink_to(data_dir(name), target_is_directory=True)
    return site


def bench(script: str, *words: str, path: Path | None = None) -> subprocess.CompletedProcess[str]:
    env = {k: v for k, v in os.environ.items() if k != "PYTHONPATH"}
    if path is not None:
        env["PYTHONPATH"] = str(path)
    return subprocess.run([sys.executable, str(BENCHMARKS / script), *words], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=600, check=False)


@pytest.mark.rule("4.2")
def test_run_names_the_package_it_measures_not_the_checkout(without_core: Path) -> None:
    done = bench("run.py", "--which", path=without_core)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == (f"cortes_rules {cortes_rules.__version__} from "
                        f"{(without_core / 'cortes_rules').resolve()}")
    assert lines[1].startswith("compiled core NOT running (")


@pytest.mark.rule("4.2")
def test_run_says_whether_the_compiled_core_of_the_package_runs() -> None:
    try:
        cortes_rules.backend("compiled")
    except cortes_rules.BackendError:
        expected = "compiled core NOT running ("
    else:
        expected = "compiled core running"
    done = bench("run.py", "--which", path=PACKAGE.parent)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[0] == f"cortes_rules {cortes_rules.__version__} from {PACKAGE}"
    assert lines[1].startswith(expected) and len(lines) == 2


@pytest.mark.rule("4.2")
def test_run_refuses_compiled_figures_without_the_compiled_core(without_core: Path) -> None:
    done = bench("run.py", "--quick", "--require-compiled", path=without_core)
    assert done.returncode == 1
    assert done.stdout == ""                  # nothing measured, nothing printed
    assert done.stderr.startswith("run.py: compiled core NOT running (")
    assert "no figure of the compiled core is measured" in done.stderr


@pytest.mark.rule("4.2")
def test_a_report_without_the_compiled_core_has_no_compiled_figure(
        capsys: pytest.CaptureFixture[str]) -> None:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import run
    finally:
        sys.path.remove(str(BENCHMARKS))
    figures = {"python": "3.11", "repeats": 1, "version": "0.1.0", "package": "/p",
               "compiled_core": False, "compiled_core_missing": "not built",
               "cortes_reference_steps_per_s": 10.0, "cortes_reference_steps_per_s_min": 9.0,
               "cortes_reference_steps_per_s_max": 11.0}
    run.report(figures)
    printed = capsys.readouterr().out
    assert "compiled core NOT running (not built)" in printed
    assert "cortes_reference_steps_per_s" in printed
    compiled = [line for line in printed.splitlines()
                if line.lstrip().startswith(("compiled steps", "compiled vs"))]
    assert len(compiled) == 3                 # the targets on the compiled core's steps
    assert all(line.endswith("(not measured)") for line in compiled), compiled


@pytest.mark.rule("4.2")
def test_floor_measures_nothing_without_the_compiled_core(without_core: Path) -> None:
    done = bench("floor.py", "--seeds", "1", "--steps", "10", "--warmup-games", "0",
                 path=without_core)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"cortes_rules {cortes_rules.__version__} from {(without_core / 'cortes_rules').resolve()}"]
    assert "compiled core NOT running" in done.stderr
