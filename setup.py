"""Build the compiled core (src_ext/) with the package; everything else is in pyproject.toml.

The extension is optional at install time: on a machine without a C
compiler (or without Cython) the build says why and installs the package
without it, and the engine falls back to the reference interpreter with a
one-time warning (cortes_rules/engine/backend.py). Set
CORTES_RULES_REQUIRE_EXTENSION=1 to make a failed build an error instead.
"""

from __future__ import annotations

import os
import sys

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext

REQUIRE = os.environ.get("CORTES_RULES_REQUIRE_EXTENSION", "") not in ("", "0")


class OptionalBuildExt(build_ext):
    """build_ext that reports a failure and goes on, unless the extension is required."""

    def run(self) -> None:
        try:
            super().run()
        except Exception as error:  # noqa: BLE001 - any build failure means "no extension"
            self._skip(error)

    def build_extension(self, ext: Extension) -> None:
        try:
            super().build_extension(ext)
        except Exception as error:  # noqa: BLE001
            self._skip(error)

    def _skip(self, error: BaseException) -> None:
        if REQUIRE:
            raise error
        print(f"cortes_rules: the compiled core was not built ({error}); "
              "the reference interpreter will run instead", file=sys.stderr)


def extensions() -> list[Extension]:
    core = Extension("cortes_rules._core", ["src_ext/_core.pyx"])
    try:
        from Cython.Build import cythonize
    except ImportError as error:
        if REQUIRE:
            raise
        print(f"cortes_rules: Cython is missing ({error}); no compiled core", file=sys.stderr)
        return []
    return list(cythonize([core], language_level=3, quiet=True))


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt})
