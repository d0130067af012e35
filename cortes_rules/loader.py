"""Finding, reading and compiling a rulebook: the front end's driver.

A rulebook is a folder of ``*.rules`` files, read in name order (the number
that starts each file name keeps the sections in rulebook order). The
shipped ones are found by name (``"cortes"``); any folder or single file can
be given by path. A replacement map, counter mix or set-up file may be
given: its blocks then stand in for the folder's own.
"""

from __future__ import annotations

import os
import re
from collections.abc import Iterable
from pathlib import Path

from ._resources import data_dir
from .dsl import ir
from .dsl.check import check, errors_only
from .dsl.diagnostics import Diagnostic
from .dsl.forms import expand_modules
from .dsl.lower import lower
from .dsl.parse import parse_text
from .errors import CortesRulesError, RulesCheckError, RulesError, RulesSyntaxError

StrPath = str | os.PathLike[str]


def shipped_rulebooks() -> list[str]:
    """Names of the rulebooks installed with the package."""
    root = data_dir("rulebook")
    return sorted(p.name for p in root.iterdir() if p.is_dir() and any(p.glob("*.rules")))


def resolve(name_or_path: StrPath) -> Path:
    """A shipped rulebook's folder by name, or the given path.

    A bare name (no path separator) that names a shipped rulebook wins over
    a folder of that name in the working directory: write ``./cortes`` for
    the folder.
    """
    text = os.fspath(name_or_path)
    if isinstance(name_or_path, str) and "/" not in text and "\\" not in text:
        candidate = data_dir("rulebook") / text
        if candidate.is_dir() and any(candidate.glob("*.rules")):
            return candidate
    path = Path(name_or_path)
    if path.exists():
        return path
    known = ", ".join(shipped_rulebooks())
    raise CortesRulesError(f"no rulebook {text!r}: not a path, and not one of "
                           f"the shipped rulebooks ({known})")


def rule_files(path: Path) -> list[Path]:
    """The rules files of a rulebook folder (or the single file given)."""
    if path.is_file():
        return [path]
    files = sorted(path.glob("*.rules"))
    if not files:
        raise CortesRulesError(f"{path}: no *.rules files in this folder")
    return files


def display_path(path: Path) -> str:
    """A path as diagnostics show it: relative to the working folder when inside it."""
    try:
        return str(path.resolve().relative_to(Path.cwd().resolve()))
    except ValueError:
        return str(path)


_USE = re.compile(r"^[ \t]*use[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:#.*)?$", re.MULTILINE)


def library_path(name: str) -> Path:
    """A library of mechanisms shipped in ``rulebook/lib/``."""
    path = data_dir("rulebook") / "lib" / f"{name}.rules"
    if not path.is_file():
        known = sorted(p.stem for p in (data_dir("rulebook") / "lib").glob("*.rules"))
        raise CortesRulesError(f"no library {name!r} (libraries: {', '.join(known) or 'none'})")
    return path


def parse_files(files: Iterable[Path]) -> list[ir.Module]:
    """Parse every file, reporting the syntax errors of all of them together.

    The libraries that the files ``use`` (in their game block) are parsed
    first, each with the forms of those before it; their forms then extend
    the language in which the files themselves are read (see
    :mod:`cortes_rules.dsl.forms`). The result starts with the libraries.
    """
    files = list(files)
    texts = [(file, file.read_text(encoding="utf-8")) for file in files]
    used = list(dict.fromkeys(name for _, text in texts for name in _USE.findall(text)))
    modules: list[ir.Module] = []
    problems: list[Diagnostic] = []
    forms: tuple[ir.FormDecl, ...] = ()
    for name in used:
        path = library_path(name)
        try:
            library = parse_text(path.read_text(encoding="utf-8"), display_path(path), forms)
        except RulesSyntaxError as error:
            problems.extend(error.diagnostics)
            continue
        modules.append(library)
        forms += tuple(s for item in library.items if isinstance(item, ir.Rule)
                       for s in item.statements if isinstance(s, ir.FormDecl))
    for file, text in texts:
        try:
            modules.append(parse_text(text, display_path(file), forms))
        except RulesSyntaxError as error:
            problems.extend(error.diagnostics)
    if not problems and forms:
        modules = expand_modules(modules)
    if problems:
        raise RulesSyntaxError(problems)
    return modules


_REPLACEABLE = {"map": ir.MapBlock, "counters": ir.CountersBlock, "setups": ir.SetupBlock}


def compile_rulebook(name_or_path: StrPath, *, options: Iterable[str] = (),
                     replace: dict[str, StrPath] | None = None,
                     ) -> tuple[ir.Program, list[Diagnostic]]:
    """Parse, lower and check a rulebook.

    Args:
        name_or_path: a shipped rulebook's name, a folder, or one file.
        options: optional rules to switch on, by number ("11.4"), or "all".
        replace: files whose map / counters / setups blocks replace the
            rulebook's own, keyed by ``"map"``, ``"counters"``, ``"setups"``.

    Returns:
        The program and its warnings.

    Raises:
        RulesSyntaxError: a file does not parse.
        RulesCheckError: the checker found errors (all are reported).
    """
    modules = parse_files(rule_files(resolve(name_or_path)))
    for kind, path in (replace or {}).items():
        if kind not in _REPLACEABLE:
            raise CortesRulesError(f"cannot replace {kind!r}: only {sorted(_REPLACEABLE)}")
        dropped = _REPLACEABLE[kind]
        modules = [ir.Module(m.path, m.text, tuple(i for i in m.items
                                                    if not isinstance(i, dropped)))
                   for m in modules]
        added = parse_files(rule_files(Path(path)))
        if not any(isinstance(i, dropped) for m in added for i in m.items):
            raise CortesRulesError(f"{path}: holds no {kind} block to replace the "
                                   f"rulebook's own")
        modules.extend(added)
    wanted = list(options)
    optional = {r.number for m in modules for r in m.items if isinstance(r, ir.Rule) and r.optional}
    if wanted == ["all"]:
        wanted = sorted(optional)
    unknown = sorted(set(wanted) - optional)
    if unknown:
        raise CortesRulesError(f"no optional rule numbered {', '.join(unknown)} "
                               f"(optional rules: {', '.join(sorted(optional)) or 'none'})")
    program = lower(modules, wanted)
    # Check every rule, switched on or not, so a broken optional rule is found
    # before anyone switches it on.
    diagnostics = check(lower(modules, optional) if optional - set(wanted) else program)
    errors = errors_only(diagnostics)
    if errors:
        raise RulesCheckError(errors)
    return program, [d for d in diagnostics if d.severity != "error"]


def check_path(name_or_path: StrPath) -> list[Diagnostic]:
    """Every diagnostic (syntax, then semantic) for a rulebook; empty when clean."""
    try:
        _, warnings = compile_rulebook(name_or_path)
    except RulesError as error:
        return list(error.diagnostics)
    return warnings
