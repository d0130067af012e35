"""CORTES_RULES_BACKEND picks the core games run on (docs/performance.md).

Unset or ``auto``: the compiled core when it is built, else the reference
with one warning; ``compiled``: the compiled core or an error; ``python``:
the reference. An unknown name is an error that lists the choices. These
are engine tests; the rule they serve is 2.1's promise of one game per seed
and actions, whichever core plays it.
"""

from __future__ import annotations

import os
import subprocess
import sys
import warnings

import pytest

import cortes_rules
from cortes_rules.engine.board import Board as ReferenceBoard
from cortes_rules.engine import backend as backend_module

ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


@pytest.fixture
def no_extension(monkeypatch):
    """The backend module as on a machine where the compiled core was not built."""
    def missing():
        raise ImportError("No module named 'cortes_rules._core'")
    monkeypatch.setattr(backend_module, "_import_core", missing)
    monkeypatch.setattr(backend_module, "_compiled", None)
    monkeypatch.setattr(backend_module, "_import_error", None)
    monkeypatch.setattr(backend_module, "_warned", False)


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("raw, expected", [("", "auto"), ("  Python ", "python"),
                                           ("COMPILED", "compiled"), ("auto", "auto")])
def test_the_environment_names_the_backend(monkeypatch, raw, expected):
    monkeypatch.setenv(backend_module.ENV, raw)
    assert backend_module.requested() == expected


@pytest.mark.rule("2.1")
def test_an_unknown_backend_is_refused_with_the_choices(monkeypatch):
    monkeypatch.setenv(backend_module.ENV, "cuda")
    with pytest.raises(cortes_rules.BackendError, match="auto, compiled, python"):
        cortes_rules.backend()
    with pytest.raises(cortes_rules.BackendError, match="backend='fast'"):
        cortes_rules.load("cortes", backend="fast")


@pytest.mark.rule("2.1")
def test_python_is_the_reference_interpreter(monkeypatch):
    monkeypatch.setenv(backend_module.ENV, "python")
    assert cortes_rules.backend() == "python"
    assert backend_module.select().native == ()
    assert backend_module.select().board is ReferenceBoard


@pytest.mark.rule("2.1")
def test_the_compiled_backend_brings_the_native_board(monkeypatch):
    core = pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")
    monkeypatch.setenv(backend_module.ENV, "compiled")
    chosen = backend_module.select()
    assert chosen.board is core.Board
    assert "board" in chosen.native


@pytest.mark.rule("2.1")
def test_without_the_extension_auto_falls_back_once_with_a_warning(monkeypatch, no_extension):
    monkeypatch.setenv(backend_module.ENV, "auto")
    with pytest.warns(RuntimeWarning, match="reference interpreter runs instead"):
        assert cortes_rules.backend() == "python"
    with warnings.catch_warnings():
        warnings.simplefilter("error")          # the second time: no warning
        assert cortes_rules.backend() == "python"


@pytest.mark.rule("2.1")
def test_without_the_extension_compiled_is_an_error(monkeypatch, no_extension):
    monkeypatch.setenv(backend_module.ENV, "compiled")
    with pytest.raises(cortes_rules.BackendError, match="cannot be imported"):
        cortes_rules.backend()


@pytest.mark.rule("2.1")
def test_a_stale_extension_is_not_used(monkeypatch):
    """An extension built from older sources (another interface number) is refused
    by name: ``compiled`` is an error saying to rebuild it, ``auto`` falls back."""
    class Stale:
        ABI = backend_module.ABI - 1
        KERNELS = ("rng",)
    monkeypatch.setattr(backend_module, "_import_core", lambda: Stale)
    monkeypatch.setattr(backend_module, "_compiled", None)
    monkeypatch.setattr(backend_module, "_import_error", None)
    monkeypatch.setattr(backend_module, "_warned", False)
    monkeypatch.setenv(backend_module.ENV, "compiled")
    with pytest.raises(cortes_rules.BackendError, match="stale.*rebuild"):
        cortes_rules.backend()
    monkeypatch.setenv(backend_module.ENV, "auto")
    with pytest.warns(RuntimeWarning, match="stale"):
        assert cortes_rules.backend() == "python"


@pytest.mark.rule("2.1")
def test_the_built_extension_has_the_interface_the_package_needs():
    core = pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")
    assert core.ABI == backend_module.ABI


@pytest.mark.rule("2.1")
def test_the_active_backend_is_reported():
    """The test run says which core it runs on (CI runs the suite once per backend)."""
    wanted = backend_module.requested()
    book = cortes_rules.load("cortes")
    assert book.backend == cortes_rules.backend()
    if wanted != "auto":
        assert book.backend == wanted
    print(f"backend in use: {book.backend}")


@pytest.mark.rule("2.1")
def test_a_fresh_process_reports_the_backend_it_was_asked_for():
    pytest.importorskip("cortes_rules._core", reason="the compiled core is not built")
    for wanted in ("python", "compiled"):
        env = dict(os.environ, **{backend_module.ENV: wanted})
        env["PYTHONPATH"] = ROOT + os.pathsep + env.get("PYTHONPATH", "")
        out = subprocess.run([sys.executable, "-c",
                              "import cortes_rules; print(cortes_rules.backend())"],
                             env=env, capture_output=True, text=True, check=True, cwd=ROOT)
        assert out.stdout.strip() == wanted
