"""Which core runs the rules: the compiled extension or the reference interpreter.

The reference interpreter (this package's Python) is the specification; the
compiled core (``cortes_rules._core``, built from ``src_ext/``) must agree
with it move for move. The environment variable ``CORTES_RULES_BACKEND``
chooses:

- unset or ``auto``: the compiled core when it was built, else the reference
  with a one-time ``RuntimeWarning`` saying why;
- ``compiled``: the compiled core, and an error if it cannot be imported;
- ``python``: the reference interpreter.

``cortes_rules.load(..., backend=...)`` overrides the variable for one
rulebook, so both backends can run side by side in one process (the
differential tests and the benchmarks do).
"""

from __future__ import annotations

import importlib
import os
import warnings
from types import ModuleType
from typing import Any

from ..errors import BackendError
from . import rng
from .board import Board

ENV = "CORTES_RULES_BACKEND"
CHOICES = ("auto", "compiled", "python")
# The version of the compiled core's interface this package was written for
# (``ABI`` in src_ext/_core.pyx): an extension built from other sources is stale.
ABI = 6


class Backend:
    """A core to run rules on: its name and the kernels it provides.

    Attributes:
        name: ``"compiled"`` or ``"python"``.
        rng: the generator's functions (``next_state``, ``below``, ``roll_dice``).
        board: the class of the board of positions (``engine/board.py`` or its
            native twin ``_core.Board``), built from ``engine/tables.py``.
        native: the kernels that run compiled (empty for the reference).
        reason: why the compiled core is not in use, when it was wanted.
    """

    __slots__ = ("name", "rng", "board", "native", "reason")

    def __init__(self, name: str, rng_kernels: Any, native: tuple[str, ...],
                 reason: str = "") -> None:
        self.name = name
        self.rng = rng_kernels
        self.board = getattr(rng_kernels, "Board", Board)
        self.native = native
        self.reason = reason

    def __repr__(self) -> str:
        native = f", native={list(self.native)}" if self.native else ""
        return f"Backend({self.name!r}{native})"


_REFERENCE = Backend("python", rng, ())
_compiled: Backend | None = None
_import_error: str | None = None
_warned = False


def _import_core() -> ModuleType:
    return importlib.import_module("cortes_rules._core")


def _load_compiled() -> Backend | None:
    """The compiled backend, or None (the reason kept in ``_import_error``)."""
    global _compiled, _import_error
    if _compiled is None and _import_error is None:
        try:
            core = _import_core()
        except ImportError as error:
            _import_error = f"the compiled core cannot be imported ({error})"
        else:
            found = getattr(core, "ABI", None)
            if found != ABI:
                _import_error = (f"the compiled core is stale (interface {found}, this "
                                 f"package needs {ABI}; rebuild it)")
            else:
                _compiled = Backend("compiled", core, tuple(core.KERNELS))
    return _compiled


def requested(choice: str | None = None) -> str:
    """The backend asked for: ``choice`` if given, else the environment's, else ``auto``."""
    raw = choice if choice is not None else os.environ.get(ENV, "")
    name = raw.strip().lower() or "auto"
    if name not in CHOICES:
        source = "backend" if choice is not None else ENV
        raise BackendError(f"{source}={raw!r} names no backend; choose one of "
                           f"{', '.join(CHOICES)}")
    return name


def select(choice: str | None = None) -> Backend:
    """The backend to run on (see the module's docstring for the rules of choice).

    Raises:
        BackendError: an unknown name, or ``compiled`` without the extension.
    """
    global _warned
    name = requested(choice)
    if name == "python":
        return _REFERENCE
    found = _load_compiled()
    if found is not None:
        return found
    if name == "compiled":
        raise BackendError(f"{ENV}=compiled but {_import_error}; build it with "
                           "'pip install .' on a machine with a C compiler")
    if not _warned:
        _warned = True
        warnings.warn(f"cortes_rules: {_import_error}; the reference interpreter runs "
                      f"instead (set {ENV}=python to silence this)", RuntimeWarning,
                      stacklevel=3)
    return Backend("python", rng, (), reason=_import_error or "")
