"""Modules and functions imported when first used, not when their user is imported.

``cortes-rules rule 8.14`` answers from the text index without the compiler
or the engine; the command module names them all, so it names them through
these stand-ins, which import the real thing on first use.
"""

from __future__ import annotations

import importlib
from collections.abc import Callable
from types import ModuleType
from typing import Any


class LazyModule:
    """A module, imported the first time one of its attributes is read."""

    def __init__(self, name: str) -> None:
        self._name = name

    def _module(self) -> ModuleType:
        return importlib.import_module(self._name)

    def __getattr__(self, attribute: str) -> Any:
        return getattr(self._module(), attribute)

    def __repr__(self) -> str:
        return f"<module {self._name!r}, imported on first use>"


def lazy_function(module: str, name: str) -> Callable[..., Any]:
    """A function of a module, imported the first time it is called."""

    def call(*args: Any, **kwargs: Any) -> Any:
        return getattr(importlib.import_module(module), name)(*args, **kwargs)

    call.__name__ = call.__qualname__ = name
    call.__doc__ = f"``{module}.{name}``, imported on first call."
    return call
