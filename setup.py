"""The package's folders, found by setuptools' discovery, and the builds of the compiled
core (src_ext/) and of the grammar's parse tables; everything else is in pyproject.toml.

The packages are never listed by hand: ``cortes_rules`` and every subpackage
below it, and the folders of the grammar and of the rulebooks (``grammar/``
and ``rulebook/`` at the top level, installed as ``cortes_rules.grammar`` and
``cortes_rules.rulebook``), each folder of them a package, so that a new
rulebook folder ships with no edit here or in pyproject.toml.

The extension is optional at install time: on a machine without a C
compiler (or without Cython) the build says why and installs the package
without it, and the engine falls back to the reference interpreter with a
one-time warning (cortes_rules/engine/backend.py). Set
CORTES_RULES_REQUIRE_EXTENSION=1 to make a failed build an error instead.

The extension is built without debug information (and, on Linux, stripped of
its symbol table): a wheel carries no debugger's data.

The parse tables of the rules grammar (cortes_rules/parse_tables.py) are
built by build_py into the package's _tables folder, so that a first load
on a new machine does not build them. They are built by the package just
built, run by the build's own Python with the build's own path (pip's
isolated build environment, which holds lark and attrs); a failure is an
error, as a wheel without them would be slower with no word said.
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

from setuptools import Extension, find_namespace_packages, setup
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
        # The package as built (an editable install builds nothing: the checkout).
        source = HERE if editable else Path(self.build_lib).resolve()
        into = source / "cortes_rules" / "_tables"
        # The build's own path comes after the package's: pip's isolated build
        # environment finds its lark and attrs through PYTHONPATH.
        path = os.pathsep.join(p for p in (str(source), os.environ.get("PYTHONPATH", "")) if p)
        env = {**os.environ, "PYTHONPATH": path, "CORTES_RULES_BACKEND": "python"}
        # Run in the package's folder: ``-m`` puts the working folder first on the path.
        done = subprocess.run([sys.executable, "-m", "cortes_rules.parse_tables", str(into)],
                              cwd=source, env=env, capture_output=True, text=True, check=False)
        if done.returncode != 0:
            raise RuntimeError("cortes_rules: the grammar's parse tables were not built:\n"
                               + done.stderr.strip())


def packages() -> tuple[list[str], dict[str, str]]:
    """Every package, found by setuptools' discovery, and the folders they come from.

    Every folder is a package (a namespace package when it has no
    ``__init__.py``), so that data folders such as ``serve/static`` and each
    rulebook are installed as the packages setuptools expects them to be.
    """
    unwanted = ["*__pycache__*", "cortes_rules._tables"]   # the tables are built output
    found = find_namespace_packages(where=str(HERE), include=["cortes_rules", "cortes_rules.*"],
                                    exclude=unwanted)
    folders = {}
    for data in ("grammar", "rulebook"):
        package = f"cortes_rules.{data}"
        folders[package] = data
        found += [package, *(f"{package}.{sub}" for sub in
                             find_namespace_packages(where=str(HERE / data), exclude=unwanted))]
    return sorted(found), folders


def extensions() -> list[Extension]:
    """The compiled core, without debug information (``-g0`` after Python's ``-g``)."""
    compile_args, link_args = [], []
    if os.name == "posix":
        compile_args.append("-g0")
        if sys.platform.startswith("linux"):
            link_args.append("-Wl,--strip-all")
    core = Extension("cortes_rules._core", ["src_ext/_core.pyx"],
                     extra_compile_args=compile_args, extra_link_args=link_args)
    vm = Extension("cortes_rules._vm", ["src_ext/_vm.pyx"],
                   extra_compile_args=compile_args, extra_link_args=link_args)
    try:
        from Cython.Build import cythonize
    except ImportError as error:
        if REQUIRE:
            raise
        print(f"cortes_rules: Cython is missing ({error}); no compiled core", file=sys.stderr)
        return []
    return list(cythonize([core, vm], language_level=3, quiet=True))


PACKAGES, PACKAGE_DIR = packages()
setup(packages=PACKAGES, package_dir=PACKAGE_DIR, ext_modules=extensions(),
      cmdclass={"build_ext": OptionalBuildExt, "build_py": BuildPyWithTables})
