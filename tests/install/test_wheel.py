"""The wheel holds the whole package: every folder of ``cortes_rules/`` holding Python,
the grammar and every rulebook file, the grammar's parse tables and a stripped core.

The wheel is the one ``$CORTES_RULES_WHEEL`` names (CI builds it once, with
``pip wheel .``, and installs the same file in a fresh venv); without it the
test builds one from a copy of the checkout as pip does, in an isolated build
environment, which takes a minute or two: the tests are then ``slow``.
"""

from __future__ import annotations

import os
import shutil
import struct
import subprocess
import sys
import zipfile
from collections.abc import Iterator
from pathlib import Path, PurePosixPath

import pytest

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cortes_rules"
WHEEL = "CORTES_RULES_WHEEL"
pytestmark = [] if os.environ.get(WHEEL) else [pytest.mark.slow]
# What a checkout holds that is not source: never copied into the build.
BUILD_OUTPUT = shutil.ignore_patterns(".git", "build", "dist", "site", "*.egg-info", "*.so",
                                      "*.c", "__pycache__", "_tables", ".hypothesis",
                                      ".*_cache")


@pytest.fixture(scope="module")
def wheel(tmp_path_factory: pytest.TempPathFactory) -> Iterator[zipfile.ZipFile]:
    if not PACKAGE.is_dir():
        pytest.skip("the wheel is compared with the checkout's package folder")
    given = os.environ.get(WHEEL)
    if given:
        path = Path(given)
    else:
        work = tmp_path_factory.mktemp("wheel")
        shutil.copytree(ROOT, work / "source", ignore=BUILD_OUTPUT)
        done = subprocess.run([sys.executable, "-m", "pip", "wheel", "--no-deps", "-w",
                               str(work / "dist"), str(work / "source")],
                              capture_output=True, text=True, timeout=1800, check=False)
        assert done.returncode == 0, done.stdout[-3000:] + done.stderr[-3000:]
        (path,) = (work / "dist").glob("cortes_rules-*.whl")
    with zipfile.ZipFile(path) as opened:
        yield opened


def _files(wheel: zipfile.ZipFile) -> set[PurePosixPath]:
    return {PurePosixPath(name) for name in wheel.namelist() if not name.endswith("/")}


def _source_files(folder: Path) -> Iterator[Path]:
    for path in sorted(folder.rglob("*")):
        if path.is_file() and "__pycache__" not in path.parts and path.suffix != ".pyc":
            yield path


@pytest.mark.rule("2.1")
def test_every_folder_of_the_package_holding_python_is_in_the_wheel(
        wheel: zipfile.ZipFile) -> None:
    folders = sorted({p.parent for p in _source_files(PACKAGE) if p.suffix == ".py"})
    assert PACKAGE / "picture" in folders and PACKAGE / "serve" in folders
    shipped = _files(wheel)
    missing = {}
    for folder in folders:
        modules = [PurePosixPath("cortes_rules", *p.relative_to(PACKAGE).parts)
                   for p in folder.glob("*.py")]
        absent = [str(m) for m in modules if m not in shipped]
        if absent:
            missing[str(folder.relative_to(ROOT))] = absent
    assert not missing, f"folders of the package missing from the wheel: {missing}"


@pytest.mark.rule("2.1")
def test_the_grammar_every_rulebook_file_and_the_package_data_are_in_the_wheel(
        wheel: zipfile.ZipFile) -> None:
    shipped = _files(wheel)
    wanted = [PurePosixPath("cortes_rules", "grammar", *p.relative_to(ROOT / "grammar").parts)
              for p in _source_files(ROOT / "grammar")]
    wanted += [PurePosixPath("cortes_rules", "rulebook",
                             *p.relative_to(ROOT / "rulebook").parts)
               for p in _source_files(ROOT / "rulebook")]
    wanted += [PurePosixPath("cortes_rules", *p.relative_to(PACKAGE).parts)
               for p in _source_files(PACKAGE / "serve" / "static")]
    wanted.append(PurePosixPath("cortes_rules/py.typed"))
    assert PurePosixPath("cortes_rules/rulebook/cortes/demo.record") in wanted
    assert sorted(map(str, set(wanted) - shipped)) == []
    # Nothing of the checkout but the package: no tests, no build sources.
    assert not [f for f in shipped if f.parts[0] not in ("cortes_rules",)
                and not f.parts[0].endswith(".dist-info")]
    assert not [f for f in shipped if f.suffix in (".c", ".pyx", ".pyc")]


@pytest.mark.rule("2.1")
def test_the_wheel_carries_the_grammars_parse_tables(wheel: zipfile.ZipFile) -> None:
    tables = [f for f in _files(wheel) if f.parent == PurePosixPath("cortes_rules/_tables")]
    # The rules grammar, the grammar the shipped libraries' forms extend, expressions.
    assert len(tables) >= 3, tables
    assert all(f.name.startswith("grammar-") and f.suffix == ".tables" for f in tables)
    assert all(wheel.getinfo(str(f)).file_size > 10_000 for f in tables)


def _elf_sections(data: bytes) -> list[str]:
    """The section names of a 64-bit little-endian ELF file."""
    assert data[:4] == b"\x7fELF" and data[4] == 2 and data[5] == 1
    shoff, = struct.unpack_from("<Q", data, 0x28)
    entry, count, names_index = struct.unpack_from("<HHH", data, 0x3A)

    def header(i: int) -> tuple[int, int, int]:
        name, = struct.unpack_from("<I", data, shoff + i * entry)
        offset, size = struct.unpack_from("<QQ", data, shoff + i * entry + 0x18)
        return name, offset, size

    _, names_at, names_size = header(names_index)
    names = data[names_at:names_at + names_size]
    return [names[n:names.index(b"\0", n)].decode() for n, _, _ in map(header, range(count))]


@pytest.mark.rule("2.1")
@pytest.mark.parametrize("module", ["_core.", "_vm."], ids=["engine kernels", "native VM"])
def test_the_compiled_core_in_the_wheel_carries_no_debug_information(
        wheel: zipfile.ZipFile, module: str) -> None:
    """Both extensions (the engine's kernels and the native VM) are in the wheel, built
    without debug information and stripped."""
    cores = [f for f in _files(wheel) if f.name.startswith(module) and f.suffix in (".so",
                                                                                    ".pyd")]
    if not cores:
        pytest.skip("this wheel was built without the compiled core (no C compiler)")
    (core,) = cores
    data = wheel.read(str(core))
    if data[:4] != b"\x7fELF":
        pytest.skip("the section check reads ELF files (Linux) only")
    sections = _elf_sections(data)
    assert ".text" in sections
    assert [s for s in sections if s.startswith(".debug")] == []
    assert ".symtab" not in sections   # stripped: the dynamic symbols alone remain
