"""Where a rulebook's files are, and reading them safely: no parsing here.

A rulebook is a folder of ``*.rules`` files, found by name among the shipped
ones (``"cortes"``) or by path. This module only finds and reads files, so
the commands that answer from the text index (``cortes_rules.text_index``)
use it without importing the compiler; ``cortes_rules.loader`` parses them.
"""

from __future__ import annotations

import os
import stat
from pathlib import Path

from ._resources import data_dir
from .errors import CortesRulesError, UnknownNameError

StrPath = str | os.PathLike[str]

# The largest rules file read, in bytes: far above any real rulebook file (the
# shipped ones are under 16 KiB), low enough that a wrong path given by
# mistake (a log, a device) is refused before it is read.
MAX_RULES_FILE_BYTES = 4 * 1024 * 1024


def shipped_rulebooks() -> list[str]:
    """Names of the rulebooks installed with the package."""
    root = data_dir("rulebook")
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.rules")))


def resolve(name_or_path: StrPath) -> Path:
    """A shipped rulebook's folder by name, or the given path.

    A bare name (no path separator) that names a shipped rulebook wins over
    a folder of that name in the working directory: write ``./cortes`` for
    the folder.

    Raises:
        UnknownNameError: neither a shipped rulebook nor a path that exists.
        CortesRulesError: the path cannot be looked at.
    """
    try:
        text = os.fspath(name_or_path)
    except TypeError:
        raise CortesRulesError(f"a rulebook is named by a string or a path, not "
                               f"{name_or_path!r}") from None
    if not isinstance(text, str):
        raise CortesRulesError(f"a rulebook is named by a string or a path, not {text!r}")
    if isinstance(name_or_path, str) and "/" not in text and "\\" not in text:
        candidate = data_dir("rulebook") / text
        if _is_folder(candidate) and any(candidate.glob("*.rules")):
            return candidate
    path = Path(text)
    try:
        os.stat(path)
    except FileNotFoundError:
        pass
    except (OSError, ValueError) as error:
        raise CortesRulesError(f"{_shown(path)}: {_reason(error)}") from None
    else:
        return path
    known = ", ".join(shipped_games())
    raise UnknownNameError(f"no rulebook '{_shown(text)}': not a path, and not one of "
                           f"the shipped games ({known})")


def rule_files(path: Path) -> list[Path]:
    """The rules files of a rulebook folder (or the single file given).

    Raises:
        CortesRulesError: the path cannot be read, or a folder holds no rules files.
    """
    try:
        info = os.stat(path)
    except (OSError, ValueError) as error:
        raise CortesRulesError(f"{_shown(path)}: {_reason(error)}") from None
    if not stat.S_ISDIR(info.st_mode):
        return [path]  # read_rules_file refuses anything but a regular file
    files = sorted(path.glob("*.rules"))
    if not files:
        raise CortesRulesError(f"{_shown(path)}: no *.rules files in this folder")
    return files


def read_rules_file(path: Path) -> str:
    """The text of one rules file, read safely.

    Only a regular file is read (not a folder, a FIFO or a device), at most
    ``MAX_RULES_FILE_BYTES`` of it, and it must be UTF-8.

    Raises:
        CortesRulesError: the file cannot be read, is not a regular file, is
            too large, or is not UTF-8 text; the message names the file.
    """
    shown = display_path(path)
    try:
        info = os.stat(path)
        _require_regular(shown, info)
        # O_NONBLOCK: should the file be swapped for a FIFO after the check,
        # opening it still cannot block.
        flags = os.O_RDONLY | getattr(os, "O_NONBLOCK", 0) | getattr(os, "O_NOCTTY", 0)
        descriptor = os.open(path, flags)
        with open(descriptor, "rb") as stream:
            _require_regular(shown, os.fstat(stream.fileno()))
            data = stream.read(MAX_RULES_FILE_BYTES + 1)
    except (OSError, ValueError) as error:
        raise CortesRulesError(f"{shown}: cannot read this rules file: {_reason(error)}") from None
    if len(data) > MAX_RULES_FILE_BYTES:
        raise CortesRulesError(f"{shown}: a rules file may hold at most "
                               f"{MAX_RULES_FILE_BYTES} bytes; this one is larger")
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as error:
        before = data[:error.start]
        line = before.count(b"\n") + 1
        column = len(before[before.rfind(b"\n") + 1:].decode("utf-8", "replace")) + 1
        raise CortesRulesError(f"{shown}:{line}:{column}: not UTF-8 text (byte "
                               f"0x{data[error.start]:02x}); save the file as UTF-8") from None


def _require_regular(shown: str, info: os.stat_result) -> None:
    if stat.S_ISREG(info.st_mode):
        return
    kinds = ((stat.S_ISDIR, "a folder"), (stat.S_ISFIFO, "a FIFO (named pipe)"),
             (stat.S_ISCHR, "a character device"), (stat.S_ISBLK, "a block device"),
             (stat.S_ISSOCK, "a socket"))
    what = next((name for test, name in kinds if test(info.st_mode)), "not a regular file")
    raise CortesRulesError(f"{shown}: {what}, so it cannot be read as a rules file")


def _is_folder(path: Path) -> bool:
    """Whether a path is a folder (False when it cannot be looked at)."""
    try:
        return stat.S_ISDIR(os.stat(path).st_mode)
    except (OSError, ValueError):
        return False


def _reason(error: Exception) -> str:
    """An OS error's reason without repeating the (possibly very long) file name."""
    if isinstance(error, OSError) and error.strerror:
        return error.strerror[0].lower() + error.strerror[1:]
    return str(error)


def _printable(path: StrPath) -> str:
    """A path with unprintable characters (a newline, an undecodable byte) escaped."""
    return "".join(c if c.isprintable() else ascii(c)[1:-1] for c in os.fspath(path))


def _shown(path: StrPath) -> str:
    """A path for a one-line message: printable, and shortened in the middle when very long."""
    text = _printable(path)
    return text if len(text) <= 120 else f"{text[:60]}...{text[-40:]}"


def display_path(path: Path) -> str:
    """A path as diagnostics show it: relative to the working folder when inside it."""
    try:
        return _printable(path.resolve().relative_to(Path.cwd().resolve()))
    except (OSError, RuntimeError, ValueError):  # outside, a symlink loop, a bad name
        return _printable(path)



def library_path(name: str) -> Path:
    """A library of mechanisms shipped in ``rulebook/lib/``."""
    path = data_dir("rulebook") / "lib" / f"{name}.rules"
    if not path.is_file():
        known = sorted(p.stem for p in (data_dir("rulebook") / "lib").glob("*.rules"))
        raise CortesRulesError(f"no library {name!r} (libraries: {', '.join(known) or 'none'})")
    return path


LIBRARY_FOLDER = "lib"
"""The folder of ``rulebook/`` that holds libraries of mechanisms, not a rulebook."""


def shipped_games() -> list[str]:
    """The rulebooks shipped with the package, by name (libraries left out)."""
    return [name for name in shipped_rulebooks() if name != LIBRARY_FOLDER]


def default_rulebook() -> str:
    """The rulebook a record or a command means when it names none.

    It is the one the file ``DEFAULT`` of the shipped rulebooks' folder names
    (data, so that no game is named in the code), or else the only shipped one.

    Raises:
        CortesRulesError: several rulebooks are shipped and none is the default
            (or none is shipped), so one must be named.
    """
    names = shipped_games()
    marker = data_dir("rulebook") / "DEFAULT"
    if marker.is_file():
        named = marker.read_text(encoding="utf-8").strip()
        if named in names:
            return named
    if len(names) != 1:
        raise CortesRulesError(f"name a rulebook (shipped: {', '.join(names) or 'none'})")
    return names[0]


def rulebook_sources(name_or_path: StrPath,
                     replace: dict[str, StrPath] | None = None) -> list[tuple[str, Path]]:
    """Every rules file a load of this rulebook can read, with its role: the rulebook's
    own files, every shipped library, and the replacement files by kind (what the load
    cache keys an entry by).

    Raises:
        CortesRulesError: the rulebook or a replacement file cannot be found.
    """
    read = [("rulebook", path) for path in rule_files(resolve(name_or_path))]
    read += [("lib", path) for path in sorted((data_dir("rulebook") / LIBRARY_FOLDER)
                                              .glob("*.rules"))]
    for kind, path in sorted((replace or {}).items()):
        read += [(kind, file) for file in rule_files(Path(path))]
    return read
