"""A disk cache of checked rulebooks: parse, check and lower once per set of files.

Loading a rulebook parses every rules file (lark), lowers and checks the
result: two seconds for Cortés with its libraries. The checked program
depends only on the files read, the load's arguments and this package's own
code, so it is stored under a key made of all of these, and a later load
with the same key reads it back instead.

- The key hashes the bytes of every rules file that can take part (the
  rulebook's files, the shipped libraries, replacement files), the load's
  arguments, the working folder (diagnostics show paths relative to it), the
  Python version, and the source of this package and its grammar. Editing
  any of them makes a new key; nothing is ever served stale.
- Only successful loads are stored: a broken rulebook is reported afresh.
- The folder is ``$CORTES_RULES_CACHE``, else ``$XDG_CACHE_HOME/cortes_rules``,
  else ``~/.cache/cortes_rules``. ``CORTES_RULES_CACHE=off`` turns caching
  off. The cache is an optimisation only: an unwritable folder or an
  unreadable, truncated or foreign entry means a normal load, never an error.
- Entries are pickles, written atomically. Like any pickle they must come
  from a folder only you can write to.
"""

from __future__ import annotations

import functools
import hashlib
import io
import os
import pickle
import stat
import sys
import tempfile
from collections.abc import Callable, Iterable
from pathlib import Path
from types import MappingProxyType
from typing import IO, Any, TypeVar

from ._resources import data_dir

ENV = "CORTES_RULES_CACHE"
_OFF = ("off", "0", "no", "false", "none")
_PACKAGE = Path(__file__).resolve().parent
_FORMAT = b"cortes_rules load cache 1\n"
SHIPPED_TABLES = _PACKAGE / "_tables"
"""The grammar's parse tables built with the package (``cortes_rules.parse_tables``)."""
T = TypeVar("T")


def folder() -> Path | None:
    """Where entries are kept, or None when caching is off."""
    chosen = os.environ.get(ENV, "").strip()
    if chosen.lower() in _OFF:
        return None
    if chosen:
        return Path(chosen)
    base = os.environ.get("XDG_CACHE_HOME", "").strip()
    return (Path(base) if base else Path.home() / ".cache") / "cortes_rules"


@functools.lru_cache(maxsize=1)
def _code_digest() -> str:
    """The hash of this package's source and grammar (a new version is a new key)."""
    digest = hashlib.sha256()
    sources = sorted(_PACKAGE.rglob("*.py")) + sorted(data_dir("grammar").glob("*.lark"))
    for path in sources:
        digest.update(str(path.relative_to(path.parents[1])).encode())
        digest.update(path.read_bytes())
    return digest.hexdigest()


def key(files: Iterable[Path], arguments: Any) -> str:
    """The key of a load that reads ``files`` with these ``arguments`` (their repr)."""
    digest = hashlib.sha256(_FORMAT)
    digest.update(_code_digest().encode())
    digest.update(sys.version.encode())
    digest.update(os.getcwd().encode("utf-8", "surrogateescape"))
    digest.update(repr(arguments).encode("utf-8", "surrogateescape"))
    for path in files:
        digest.update(os.fsencode(path))
        digest.update(_contents(path))
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


def _dumps(value: Any) -> bytes:
    buffer = io.BytesIO()
    _Pickler(buffer, protocol=pickle.HIGHEST_PROTOCOL).dump(value)
    return buffer.getvalue()


def fetch(entry_key: str) -> Any | None:
    """The value stored under a key, or None (missing, unreadable or not ours)."""
    place = folder()
    if place is None:
        return None
    try:
        data = (place / f"{entry_key}.pickle").read_bytes()
        if not data.startswith(_FORMAT):
            return None
        return pickle.loads(data[len(_FORMAT):])
    except Exception:  # noqa: BLE001 - a bad entry is a miss, whatever is wrong with it
        return None


def store(entry_key: str, value: Any) -> None:
    """Keep a value under a key, atomically; a folder that cannot be written is ignored."""
    place = folder()
    if place is None:
        return
    try:
        data = _FORMAT + _dumps(value)
    except (pickle.PicklingError, TypeError, AttributeError, RecursionError):
        return
    write_atomically(place / f"{entry_key}.pickle", lambda out: out.write(data))


def write_atomically(path: str | os.PathLike[str], write: Callable[[IO[bytes]], object]) -> None:
    """Let ``write`` fill a temporary file beside ``path``, then rename it to ``path``,
    so a process beside this one never reads half a file. A folder that cannot
    be written, or a ``write`` that fails, leaves nothing behind."""
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
    return kept, readable


def cached(files: Callable[[], Iterable[Path]], arguments: Any, make: Callable[[], T]) -> T:
    """``make()``, or the value a previous call with the same files and arguments stored.

    ``files()`` lists the files the value depends on; when it fails (a path
    that does not exist, say), ``make()`` runs uncached and reports the problem.
    """
    entry_key: str | None = None
    if folder() is not None:
        try:
            entry_key = key(files(), arguments)
        except Exception:  # noqa: BLE001 - let make() report what is wrong with the files
            entry_key = None
    if entry_key is not None:
        hit = fetch(entry_key)
        if hit is not None:
            return hit  # type: ignore[no-any-return]
    value = make()
    if entry_key is not None:
        store(entry_key, value)
    return value
