"""A disk cache of checked rulebooks: parse, check and lower once per set of files.

Loading a rulebook parses every rules file (lark), lowers and checks the
result: two seconds for Cortés with its libraries. The checked program
depends only on the files read, the load's arguments and this package's own
code, so it is stored under a key made of all of these, and a later load
with the same key reads it back instead.

- The key hashes the name and bytes of every rules file that can take part
  (the rulebook's files, the shipped libraries, replacement files), each
  with its role, the load's arguments, the Python version, and the source
  of this package and its grammar. Editing any of them makes a new key;
  nothing is ever served stale. Where the files are is not in the key,
  nor is the working folder: the paths a program keeps (its diagnostics show
  them relative to the working folder) are put back as the files' paths
  of the load that reads the entry, so a copy of a rulebook in another
  folder, or a command run from another folder, reads the same entry.
- Only successful loads are stored: a broken rulebook is reported afresh.
- The folder is ``$CORTES_RULES_CACHE``, else the user cache folder that
  ``platformdirs`` names (``~/.cache/cortes_rules``, or
  ``$XDG_CACHE_HOME/cortes_rules``, on Linux). ``CORTES_RULES_CACHE=off``
  turns caching off. The cache is an optimisation only: an unwritable
  folder or an unreadable, truncated or foreign entry means a normal load,
  never an error.
- The folder is bounded: after each entry is written, the least recently
  used entries are deleted until the folder holds at most 200 MB
  (``CORTES_RULES_CACHE_MAX``: a size such as ``50MB``, ``1GB`` or a number
  of bytes). Reading an entry marks it used.
- Entries are pickles, written atomically. Like any pickle they must come
  from a folder only you can write to.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import re
import stat
import sys
import warnings
from collections.abc import Callable, Iterable, Sequence
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, TypeVar

from ._resources import data_dir
from .rulebook_files import display_path

ENV = "CORTES_RULES_CACHE"
MAX_ENV = "CORTES_RULES_CACHE_MAX"
DEFAULT_MAX_BYTES = 200_000_000
"""The size the folder is pruned to when ``CORTES_RULES_CACHE_MAX`` is not set (200 MB)."""
_OFF = ("off", "0", "no", "false", "none")
_PACKAGE = Path(__file__).resolve().parent
_FORMAT = b"cortes_rules load cache 2\n"
_ENTRY = ".pickle"
_TABLES = ".tables"
SHIPPED_TABLES = _PACKAGE / "_tables"
"""The grammar's parse tables built with the package (``cortes_rules.parse_tables``)."""
T = TypeVar("T")
Sources = Iterable[tuple[str, Path]]
"""The files a value depends on, each with its role (``"rulebook"``, ``"lib"``, ``"map"``...)."""


def folder() -> Path | None:
    """Where entries are kept, or None when caching is off."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() in _OFF:
        return None
    if chosen:
        return Path(chosen)
    return _user_cache_folder()


def _user_cache_folder() -> Path:
    """The folder ``platformdirs`` names for this package's cache."""
    try:
        import platformdirs
    except ImportError:  # an environment installed before the dependency: its Linux rule
        base = os.environ.get("XDG_CACHE_HOME", "").strip()
        return (Path(base) if base else Path.home() / ".cache") / "cortes_rules"
    return Path(platformdirs.user_cache_dir("cortes_rules", appauthor=False))


_SIZE = re.compile(r"\s*([0-9]+(?:\.[0-9]*)?)\s*([kmgt]?)(i?)b?\s*", re.IGNORECASE)
_UNITS = {"": 0, "k": 1, "m": 2, "g": 3, "t": 4}
_warned: set[str] = set()


def max_bytes() -> int:
    """The size the folder is kept under: ``CORTES_RULES_CACHE_MAX``, else 200 MB.

    The variable is a number of bytes, or a size with a unit: ``500kB``,
    ``50MB``, ``1.5GB`` (powers of 1000) or ``64MiB`` (powers of 1024). A
    value that is none of these is ignored, with a warning, for the default.
    """
    text = os.environ.get(MAX_ENV, "").strip()
    if not text:
        return DEFAULT_MAX_BYTES
    found = _SIZE.fullmatch(text)
    if found is None:
        if text not in _warned:
            _warned.add(text)
            warnings.warn(f"{MAX_ENV}={text!r} is not a size (such as 200MB or 1GB); the "
                          f"load cache keeps to {DEFAULT_MAX_BYTES // 1_000_000} MB",
                          stacklevel=2)
        return DEFAULT_MAX_BYTES
    number, unit, binary = found.groups()
    base = 1024 if binary else 1000
    return int(float(number) * base ** _UNITS[unit.lower()])


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """The hash of this package's source and grammar (a new version is a new key)."""
    digest = hashlib.sha256()
    sources = sorted(_PACKAGE.rglob("*.py")) + sorted(data_dir("grammar").glob("*.lark"))
    for path in sources:
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def key(sources: Sources, arguments: Any) -> str:
    """The key of a value made from these files (each with its role) and ``arguments``
    (their repr): the files' names and contents, not where they are."""
    digest = hashlib.sha256(_FORMAT)
    digest.update(_code_digest().encode())
    digest.update(sys.version.encode())
    digest.update(repr(arguments).encode("utf-8", "surrogateescape"))
    for role, path in sources:
        contents = _contents(path)
        for part in (role.encode("utf-8", "surrogateescape"), os.fsencode(path.name),
                     contents):
            digest.update(len(part).to_bytes(8, "little"))
            digest.update(part)
    return digest.hexdigest()


_MAX_KEYED_BYTES = 64 * 1024 * 1024


def _contents(path: Path) -> bytes:
    """The bytes of a regular file; anything else (a FIFO, a device, a huge file) raises.

    Opened without blocking and checked after opening, so a FIFO put where a
    rules file was expected can never hang the key's computation.
    """
    handle = os.open(path, os.O_RDONLY | getattr(os, "O_NONBLOCK", 0))
    try:
        info = os.fstat(handle)
        if not stat.S_ISREG(info.st_mode) or info.st_size > _MAX_KEYED_BYTES:
            raise ValueError(f"{path}: not a regular file of a sensible size")
        with os.fdopen(os.dup(handle), "rb") as stream:
            return stream.read(_MAX_KEYED_BYTES + 1)
    finally:
        os.close(handle)


def read_only(mapping: dict[Any, Any]) -> MappingProxyType[Any, Any]:
    """A read-only view of a mapping (how the pickles rebuild the IR's tables)."""
    return MappingProxyType(mapping)


class _Pickler(pickle.Pickler):
    """A pickler that also writes read-only mappings (the IR keeps its tables in them),
    and writes an attrs object (the IR's nodes) as a call of its class with its fields.

    attrs pickles a slotted class's object as its state, which it sets back one
    field at a time in Python; calling the class's own ``__init__`` reads back
    a third faster, and the entry is a quarter smaller. Only classes whose every
    field ``__init__`` takes in order, as given, are written so."""

    dispatch_table = {MappingProxyType: lambda m: (read_only, (dict(m),))}

    def reducer_override(self, obj: Any) -> Any:
        fields = _init_fields(type(obj))
        if fields is None:
            return NotImplemented
        return (type(obj), tuple(getattr(obj, name) for name in fields))


def _init_fields(cls: type) -> tuple[str, ...] | None:
    """The fields an attrs class's ``__init__`` takes, in order, when it takes them all
    positionally and keeps them as given; else None."""
    try:
        return _INIT_FIELDS[cls]
    except KeyError:
        pass
    fields = getattr(cls, "__attrs_attrs__", None)
    names = None if fields is None or hasattr(cls, "__attrs_post_init__") or any(
        not f.init or f.kw_only or f.converter is not None for f in fields) else tuple(
        f.name for f in fields)
    _INIT_FIELDS[cls] = names
    return names


_INIT_FIELDS: dict[type, tuple[str, ...] | None] = {}


class _PathPickler(_Pickler):
    """A ``_Pickler`` that writes the paths of the files an entry was made from as
    their position among those files (a persistent id), so that reading the entry
    puts in the paths of the files of the load that reads it."""

    def __init__(self, file: IO[bytes], paths: Sequence[str], **options: Any) -> None:
        self.paths = {path: index for index, path in reversed(list(enumerate(paths)))}
        super().__init__(file, **options)

    def persistent_id(self, obj: Any) -> int | None:
        return self.paths.get(obj) if type(obj) is str else None


def _dumps(value: Any, paths: Sequence[str] = ()) -> bytes:
    buffer = io.BytesIO()
    if paths:
        _PathPickler(buffer, paths, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    else:
        _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def _loads(data: bytes, paths: Sequence[str]) -> Any:
    unpickler = pickle.Unpickler(io.BytesIO(data))
    unpickler.persistent_load = list(paths).__getitem__  # type: ignore[method-assign]
    return unpickler.load()


def fetch(entry_key: str, paths: Sequence[str] = ()) -> Any | None:
    """The value stored under a key, or None (missing, unreadable or not ours).

    ``paths`` are the shown paths of the files the value was made from, in the
    order the key lists them: the value holds these instead of those of the
    load that stored it. Reading an entry marks it as recently used."""
    place = folder()
    if place is None:
        return None
    entry = place / f"{entry_key}{_ENTRY}"
    try:
        data = entry.read_bytes()
        if not data.startswith(_FORMAT):
            return None
        value = _loads(data[len(_FORMAT):], paths)
    except Exception:  # noqa: BLE001 - a bad entry is a miss, whatever is wrong with it
        return None
    _touch(entry)
    return value


def store(entry_key: str, value: Any, paths: Sequence[str] = ()) -> None:
    """Keep a value under a key, atomically, then prune the folder to its size
    (``max_bytes()``); a folder that cannot be written is ignored. ``paths``: as
    for ``fetch``, the shown paths of the files, as the value holds them."""
    place = folder()
    if place is None:
        return
    try:
        data = _FORMAT + _dumps(value, paths)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    write_atomically(place / f"{entry_key}{_ENTRY}", lambda out: out.write(data))
    prune(place)


def _touch(path: Path) -> None:
    """Mark an entry as used now (its modification time orders the pruning)."""
    try:
        os.utime(path)
    except OSError:
        pass


def prune(place: Path, limit: int | None = None) -> list[Path]:
    """Delete the least recently used entries of a cache folder until the entries
    (checked rulebooks, text indexes and grammar tables) add up to at most ``limit``
    bytes (default ``max_bytes()``); the entries deleted, oldest first."""
    limit = max_bytes() if limit is None else limit
    entries: list[tuple[int, int, Path]] = []
    try:
        with os.scandir(place) as listing:
            for item in listing:
                if item.name.endswith((_ENTRY, _TABLES)) and item.is_file(follow_symlinks=False):
                    info = item.stat(follow_symlinks=False)
                    entries.append((info.st_mtime_ns, info.st_size, Path(item.path)))
    except OSError:
        return []
    total = sum(size for _, size, _ in entries)
    deleted: list[Path] = []
    for _, size, path in sorted(entries, key=lambda e: (e[0], str(e[2]))):
        if total <= limit:
            break
        try:
            path.unlink()
        except FileNotFoundError:
            pass
        except OSError:
            continue
        total -= size
        deleted.append(path)
    return deleted


def write_atomically(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """Let ``write`` fill a temporary file beside ``path``, then rename it to ``path``,
    so a process beside this one never reads half a file. A folder that cannot
    be written, or a ``write`` that fails, leaves nothing behind."""
    import tempfile

    target = Path(path)
    try:
        target.parent.mkdir(parents=True, exist_ok=True)
        handle, temporary = tempfile.mkstemp(dir=target.parent, suffix=".part")
    except OSError:
        return
    try:
        with os.fdopen(handle, "wb") as out:
            write(out)
        os.replace(temporary, target)
    except Exception:  # noqa: BLE001, S110 - the cache is an optimisation: never an error
        pass
    finally:
        if os.path.exists(temporary):
            os.unlink(temporary)


def grammar_tables(grammar: str) -> tuple[Path | None, tuple[Path, ...]]:
    """Where the parse tables of ``grammar`` are kept, and where they may be read.

    Building the LALR tables of the rules grammar takes about half a second;
    ``cortes_rules.dsl.parse`` keeps them (the parser, pickled) in a file named
    by a hash of ``grammar``, which the caller makes hold everything the
    tables depend on.

    Returns:
        ``(kept, readable)``: the file in the cache folder (None when caching
        is off), and the files that exist among it and the one built with the
        package (``cortes_rules.parse_tables``), in the order to try them.
    """
    digest = hashlib.sha256(grammar.encode("utf-8", "surrogateescape"))
    digest.update(sys.version.encode())
    name = f"grammar-{digest.hexdigest()[:40]}.tables"
    place = folder()
    kept = place / name if place is not None else None
    readable = tuple(p for p in (kept, SHIPPED_TABLES / name) if p is not None and p.is_file())
    if kept is not None and kept in readable:
        _touch(kept)   # in use: the last to be pruned
    return kept, readable


def cached(sources: Callable[[], Sources], arguments: Any, make: Callable[[], T]) -> T:
    """``make()``, or the value a previous call with the same files and arguments stored.

    ``sources()`` lists the files the value depends on, each with its role;
    when it fails (a path that does not exist, say), ``make()`` runs uncached
    and reports the problem. The shown paths of those files
    (``rulebook_files.display_path``) are written into the entry as
    references to the files, and read back as the shown paths of the files
    of the call that reads it.
    """
    entry_key: str | None = None
    paths: list[str] = []
    if folder() is not None:
        try:
            listed = list(sources())
            entry_key = key(listed, arguments)
            paths = [display_path(path) for _, path in listed]
        except Exception:  # noqa: BLE001 - let make() report what is wrong with the files
            entry_key = None
    if entry_key is not None:
        hit = fetch(entry_key, paths)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
    value = make()
    if entry_key is not None:
        store(entry_key, value, paths)
    return value
