"""Build the compiled core (src_ext/) and the grammar's parse tables with the package;
everything else is in pyproject.toml.

The extension is optional at install time: on a machine without a C
compiler (or without Cython) the build says why and installs the package
without it, and the engine falls back to the reference interpreter with a
one-time warning (cortes_rules/engine/backend.py). Set
CORTES_RULES_REQUIRE_EXTENSION=1 to make a failed build an error instead.

The parse tables of the rules grammar (cortes_rules/parse_tables.py) are
built by build_py into the package's _tables folder, so that a first load
on a new machine does not build them; they are an optimisation, and a
failure to build them is reported and ignored.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, setup
from setuptools.command.build_ext import build_ext
from setuptools.command.build_py import build_py

HERE = Path(__file__).resolve().parent

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


class BuildPyWithTables(build_py):
    """build_py, then the grammar's parse tables, built by the package's own code."""

    def run(self) -> None:
        super().run()
        editable = getattr(self, "editable_mode", False)
        into = HERE / "cortes_rules" / "_tables" if editable else \
            Path(self.build_lib) / "cortes_rules" / "_tables"
        env = {**os.environ, "PYTHONPATH": str(HERE), "CORTES_RULES_BACKEND": "python"}
        done = subprocess.run([sys.executable, "-m", "cortes_rules.parse_tables", str(into)],
                              cwd=HERE, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            print("cortes_rules: the grammar's parse tables were not built; a first load "
                  f"will build them ({done.stderr.strip().splitlines()[-1:]})", file=sys.stderr)


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


setup(ext_modules=extensions(), cmdclass={"build_ext": OptionalBuildExt,
                                              "build_py": BuildPyWithTables})
