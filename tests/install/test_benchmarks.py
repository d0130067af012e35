"""The benchmarks measure the package installed, say so, and refuse to give figures of a
compiled core that is not the one running.

A package "installed" in a temporary folder (a copy of the one the tests
use, without its compiled core: as a clone installed with ``pip install .``
leaves its checkout without one) is put on ``PYTHONPATH``; run from the
checkout, ``benchmarks/run.py`` and ``benchmarks/floor.py`` must measure it,
not the checkout around them.

The hand-written C listing of the Cortés movement clauses, the baseline of
issue 48's listing target, is checked here against the engine on recorded
positions, so that the baseline and the rules never drift apart.
"""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path
from typing import Any

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
    targets = printed.split("targets (issue 48):\n")[1].splitlines()
    compiled = [line for line in targets if "compiled core not running" in line]
    # Every target but the two loads needs the compiled core (issue 48, Targets).
    assert len(compiled) == len(run.TARGETS) - 2, targets
    assert all(line.endswith("(not measured: compiled core not running)") for line in compiled)
    assert not any(" met" in line or "NOT met" in line for line in targets)


@pytest.mark.rule("4.2")
def test_floor_measures_nothing_without_the_compiled_core(without_core: Path) -> None:
    done = bench("floor.py", "--seeds", "1", "--steps", "10", "--warmup-games", "0",
                 path=without_core)
    assert done.returncode == 1
    assert done.stdout.splitlines() == [
        f"cortes_rules {cortes_rules.__version__} from {(without_core / 'cortes_rules').resolve()}"]
    assert "compiled core NOT running" in done.stderr


def _c_listing() -> Any:
    sys.path.insert(0, str(BENCHMARKS))
    try:
        import c_listing
    finally:
        sys.path.remove(str(BENCHMARKS))
    if c_listing.compiler() is None:
        pytest.skip("no C compiler (cc) on this machine: the C listing cannot be built")
    return c_listing


@pytest.fixture(scope="module")
def listing(tmp_path_factory: pytest.TempPathFactory) -> Any:
    """The C listing built and loaded, with positions of seeded random games."""
    c_listing = _c_listing()
    book = cortes_rules.load("cortes", options="veteran")
    return c_listing.Listing(book, tmp_path_factory.mktemp("c_listing"), positions=8, seed=3)


@pytest.mark.rule("7.1", "7.3", "7.5", "7.16", "9.2")
def test_the_c_listing_lists_the_engines_moves_on_recorded_positions(listing: Any) -> None:
    assert {s.current_player for s in listing.positions} == {"aztec", "spanish"}
    assert listing.check() > 8 * 10          # every move of every position, compared


@pytest.mark.rule("7.1", "7.5")
def test_the_native_vm_reaches_the_recorded_positions(listing: Any) -> None:
    # Target (d) times the VM's listing: it must stand where the engine stands.
    pytest.importorskip("cortes_rules._vm", reason="the native VM was not built")
    assert len(listing.native) == len(listing.positions) - len(listing.hand_made) == 8
    for state, twin in zip(listing.positions[len(listing.hand_made):], listing.native,
                           strict=True):
        assert twin.legal_action_ids() == state.legal_action_ids()
        assert twin.list_anew(2) == len(state.legal_action_ids())


@pytest.mark.rule("7.2")
def test_the_c_listing_check_fails_when_the_listings_differ(listing: Any) -> None:
    # Marking every unit's move finished (7.2) leaves the C listing nothing to
    # list, while the engine, reading the real state, still lists moves.
    kept = listing.inputs[0]
    side, free, places, move, spent, moved, dynamic, *rest = kept
    finished = (type(dynamic))(*(flags | 2 for flags in dynamic))   # FINISHED in movement.c
    listing.inputs[0] = (side, free, places, move, spent, moved, finished, *rest)
    c_listing = _c_listing()
    try:
        with pytest.raises(c_listing.ListingMismatch, match="misses \\['move "):
            listing.check()
    finally:
        listing.inputs[0] = kept
