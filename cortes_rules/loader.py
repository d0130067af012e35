"""Finding, reading and compiling a rulebook: the front end's driver.

A rulebook is a folder of ``*.rules`` files, read in name order (the number
that starts each file name keeps the sections in rulebook order). The
shipped ones are found by name (``"cortes"``); any folder or single file can
be given by path. A replacement map, counter mix or set-up file may be
given: its blocks then stand in for the folder's own.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Iterable, Mapping
from pathlib import Path

import attrs

from . import load_cache
from .dsl import ir
from .dsl.check import check, errors_only, map_guards, reading_uses
from .dsl.diagnostics import Diagnostic
from .dsl.forms import expand_modules
from .dsl.lower import lower, registry
from .dsl.parse import parse_text
from .engine import collector
from .errors import (CortesRulesError, RulesCheckError, RulesError, RulesSyntaxError,
                     UnknownNameError)
from .rule_numbers import is_rule_number, rule_key, to_roman
from .rulebook_files import (MAX_RULES_FILE_BYTES, StrPath, display_path, library_path,
                             read_rules_file, resolve, rule_files, rulebook_sources,
                             shipped_games, shipped_rulebooks)

__all__ = ["MAX_RULES_FILE_BYTES", "check_path", "compile_rulebook", "display_path",
           "library_path", "parse_files", "read_rules_file", "resolve", "resolve_options",
           "rule_files", "select_scenario", "shipped_games", "shipped_rulebooks"]

_USE = re.compile(r"^[ \t]*use[ \t]+([A-Za-z_][A-Za-z0-9_]*)[ \t]*(?:#.*)?$", re.MULTILINE)


def parse_files(files: Iterable[Path]) -> list[ir.Module]:
    """Parse every file, reporting the syntax errors of all of them together.

    The libraries that the files ``use`` (in their game block) are parsed
    first, each with the forms of those before it; their forms then extend
    the language in which the files themselves are read (see
    ``cortes_rules.dsl.forms``). The result starts with the libraries.
    """
    files = list(files)
    texts = [(file, read_rules_file(file)) for file in files]
    used = list(dict.fromkeys(name for _, text in texts for name in _USE.findall(text)))
    modules: list[ir.Module] = []
    problems: list[Diagnostic] = []
    forms: tuple[ir.FormDecl, ...] = ()
    for name in used:
        path = library_path(name)
        try:
            library = parse_text(read_rules_file(path), display_path(path), forms)
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


def compile_rulebook(name_or_path: StrPath, *, options: str | Iterable[str] = (),
                     replace: dict[str, StrPath] | None = None,
                     readings: Mapping[str, str] | None = None,
                     scenario: str | int | None = None,
                     every_reading: bool = False,
                     verify: Callable[[ir.Program], object] | None = None,
                     ) -> tuple[ir.Program, list[Diagnostic]]:
    """Parse, lower and check a rulebook.

    Args:
        name_or_path: a shipped rulebook's name, a folder, or one file.
        options: optional rules to switch on: rule numbers ("11.4"), presets
            the game block names ("veteran"), or "all"; one string or several.
        replace: files whose map / counters / setups blocks replace the
            rulebook's own, keyed by ``"map"``, ``"counters"``, ``"setups"``.
        readings: interpretation entry id -> the reading to follow instead of
            its default.
        scenario: for a rulebook with scenarios, the one to play, by name
            ("IXa") or number (4 for "IV"); none: the first.
        every_reading: also check the program under every reading not
            chosen, of every interpretation entry some clause or map line
            depends on (what ``cortes-rules check`` and ``check_path()``
            do). A load checks the readings it will run, with every optional
            rule switched on; the other readings cost one more check each.
        verify: a further check of the compiled program, run before it is
            kept in the load cache and not run again when it is read from
            there (``cortes_rules.load`` checks what needs the compiled
            rulebook this way); it raises to refuse the program. Programs kept
            without it, or with another check (told apart by its module and
            qualified name), are kept apart.

    Returns:
        The program and its warnings.

    Raises:
        RulesSyntaxError: a file does not parse.
        RulesCheckError: the checker found errors (all are reported).

    A successful result is kept in the load cache (``cortes_rules.load_cache``),
    keyed by the names and contents of the files read, these arguments and
    the package's code.
    """
    if not isinstance(options, str):
        options = tuple(options)
    # Where the files are is not part of the key (their names and contents are):
    # a rulebook named or given by any path, from any working folder, is one entry.
    arguments = (options, sorted(replace or {}), sorted((readings or {}).items()), scenario,
                 every_reading,
                 None if verify is None else (getattr(verify, "__module__", None),
                                              getattr(verify, "__qualname__", repr(verify))))

    def files() -> list[tuple[str, Path]]:
        return rulebook_sources(name_or_path, replace)

    def make() -> tuple[ir.Program, list[Diagnostic]]:
        # The cyclic collector would walk the whole growing IR again and again:
        # held off, the time a load takes grows in step with the text's size
        # (engine/collector.py).
        with collector.paused():
            made = _compile_rulebook(name_or_path, options=options, replace=replace,
                                     readings=readings, scenario=scenario,
                                     every_reading=every_reading)
            if verify is not None:
                verify(made[0])
        return made

    return load_cache.cached(files, arguments, make)


def _compile_rulebook(name_or_path: StrPath, *, options: str | Iterable[str],
                      replace: dict[str, StrPath] | None,
                      readings: Mapping[str, str] | None,
                      scenario: str | int | None,
                      every_reading: bool,
                      ) -> tuple[ir.Program, list[Diagnostic]]:
    modules = parse_files(rule_files(resolve(name_or_path)))
    for kind, path in (replace or {}).items():
        if kind not in _REPLACEABLE:
            raise CortesRulesError(f"cannot replace {kind!r}: only {sorted(_REPLACEABLE)}")
        dropped = _REPLACEABLE[kind]
        modules = [ir.Module(m.path, m.text, tuple(i for i in m.items
                                                    if not isinstance(i, dropped)))
                   for m in modules]
        try:
            added = parse_files(rule_files(Path(path)))
        except CortesRulesError as error:
            if isinstance(error, RulesError):
                raise
            raise CortesRulesError(f"{error} (given as {kind}=)") from None
        if not any(isinstance(i, dropped) for m in added for i in m.items):
            raise CortesRulesError(f"{path}: holds no {kind} block to replace the "
                                   f"rulebook's own")
        modules.extend(added)
    modules, chosen_scenario, scenarios = select_scenario(modules, scenario)
    if chosen_scenario is not None and chosen_scenario.options:
        options = ([options] if isinstance(options, str) else list(options)) + \
            list(chosen_scenario.options)
    optional = {r.number for m in modules for r in m.items if isinstance(r, ir.Rule) and r.optional}
    wanted = resolve_options(modules, options)
    chosen = _chosen_readings(modules, readings)
    program = lower(modules, wanted, chosen)
    # Check every rule, switched on or not, so a broken optional rule is found
    # before anyone switches it on; when asked, every other reading too.
    everything = lower(modules, optional, chosen) if optional - set(wanted) else program
    # A comment naming an entry the registry lacks changes no play: a load warns,
    # a check of every reading (cortes-rules check) refuses it.
    diagnostics = check(everything, "error" if every_reading else "warning")
    if everything is not program:
        # A clause that is always on may not lean on a rule switched off.
        diagnostics += [d for d in check(program) if d.severity == "error"]
    for entry, reading in _other_readings(everything) if every_reading else ():
        diagnostics += [d for d in check(lower(modules, optional, {**chosen, entry: reading}))
                        if d.severity == "error"]
    errors = errors_only(list({(d.span, d.message): d for d in diagnostics}.values()))
    if errors:
        raise RulesCheckError(errors)
    program = attrs.evolve(program, scenarios=scenarios,
                           scenario=chosen_scenario.name if chosen_scenario else None)
    return program, [d for d in diagnostics if d.severity != "error"]


def select_scenario(modules: list[ir.Module], wanted: str | int | None
                    ) -> tuple[list[ir.Module], ir.ScenarioBlock | None,
                               tuple[tuple[str, str], ...]]:
    """Keep one scenario of a rulebook: its clause in place of its block, its map.

    The other scenarios are dropped, and so is every map block but the one the
    chosen scenario names (when the rulebook holds it: a replacement map, say,
    is kept whatever its name).

    Returns:
        The modules, the chosen scenario (none when the rulebook has none), and
        every scenario as (name, title).

    Raises:
        CortesRulesError: a scenario is asked of a rulebook without any, no
            scenario has that name or number, or two share a name.
    """
    blocks = [i for m in modules for i in m.items if isinstance(i, ir.ScenarioBlock)]
    listing = tuple((b.name, b.title) for b in blocks)
    if not blocks:
        if wanted is not None:
            raise CortesRulesError(f"this rulebook has no scenarios (asked for {wanted!r})")
        return modules, None, ()
    names = [b.name for b in blocks]
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice:
        raise CortesRulesError(f"two scenarios are called {', '.join(twice)}")
    chosen = blocks[0] if wanted is None else _find_scenario(blocks, wanted)
    maps = {i.name for m in modules for i in m.items if isinstance(i, ir.MapBlock)}
    keep_map = chosen.map if chosen.map in maps else None

    def kept(item: ir.Item) -> ir.Item | None:
        if isinstance(item, ir.ScenarioBlock):
            return item.clause if item is chosen else None
        if isinstance(item, ir.MapBlock) and keep_map is not None and item.name != keep_map:
            return None
        return item

    modules = [ir.Module(m.path, m.text, tuple(k for i in m.items if (k := kept(i)) is not None))
               for m in modules]
    if chosen.map is not None and chosen.map not in maps and len(maps) > 1:
        raise CortesRulesError(f"scenario {chosen.name} is played on map {chosen.map!r}, "
                               f"which this rulebook does not hold (maps: "
                               f"{', '.join(sorted(maps))})")
    return modules, chosen, listing


def _find_scenario(blocks: list[ir.ScenarioBlock], wanted: str | int) -> ir.ScenarioBlock:
    """A scenario by name (any case) or by number (4 finds IV)."""
    text = str(wanted).strip()
    if text.isdigit() and 0 < int(text) < 4000:
        text = to_roman(int(text))
    for block in blocks:
        if block.name.lower() == text.lower():
            return block
    known = ", ".join(b.name for b in blocks)
    raise UnknownNameError(f"no scenario {wanted!r} in this rulebook (scenarios: {known})")


def _chosen_readings(modules: Iterable[ir.Module], readings: Mapping[str, str] | None
                     ) -> dict[str, str]:
    """The readings asked for, validated against the rulebook's registry.

    Raises:
        CortesRulesError: an unknown entry, or a reading the entry does not have;
            the message lists the valid ones.
    """
    if readings is None:
        return {}
    if not isinstance(readings, Mapping):
        raise CortesRulesError(f"readings are a mapping of interpretation id to reading, "
                               f"not {readings!r}")
    entries = registry(list(modules))
    for entry_id, reading in readings.items():
        entry = entries.get(entry_id) if isinstance(entry_id, str) else None
        if entry is None:
            known = ", ".join(entries) or "none"
            raise UnknownNameError(f"no interpretation {entry_id!r} in this rulebook "
                                   f"(interpretations: {known})")
        names = [r.name for r in entry.readings]
        if not isinstance(reading, str) or reading not in names:
            raise UnknownNameError(f"interpretation {entry_id} has no reading {reading!r} "
                                   f"(readings: {', '.join(names)})")
    return dict(readings)


def _other_readings(program: ir.Program) -> list[tuple[str, str]]:
    """Each (entry, reading) not chosen, for the entries whose guards some clause or map
    line uses."""
    used = {e for r in program.all_rules if r.has_readings
            for e in _entries_used(r.statements)}
    if program.map is not None:
        used |= {g.entry for g, _ in map_guards(program.map.block.statements, "")}
    entries = program.interpretations
    return [(e, r.name) for e in sorted(used) if e in entries
            for r in entries[e].readings if r.name != program.readings.get(e)]


def _entries_used(statements: tuple[object, ...]) -> set[str]:
    """The entries whose ``when reading`` guards hold statements: a ``reading ID
    is NAME`` condition is checked under any reading, its clause being kept."""
    return {node.entry for node, _ in reading_uses(statements)
            if isinstance(node, ir.WhenReading)}


def resolve_options(modules: Iterable[ir.Module], options: str | Iterable[str]) -> list[str]:
    """The optional rule numbers that options name, in rule order.

    Each option is an optional rule's number, a preset of the game block
    (``preset veteran "..." options all``), or ``all``; several add up. A
    single string is one option (``"veteran"``, not its letters); an empty
    one is none.

    Raises:
        CortesRulesError: an option names neither an optional rule nor a preset.
    """
    items = [i for m in modules for i in m.items]
    optional = {r.number for r in items if isinstance(r, ir.Rule) and r.optional}
    presets = {p.name: p for g in items if isinstance(g, ir.GameBlock) for p in g.presets}
    if isinstance(options, str):
        options = [options] if options.strip() else []
    wanted: set[str] = set()
    unknown: list[str] = []
    for option in options:
        if not isinstance(option, str):
            raise CortesRulesError(f"an option is a rule number or a preset name, "
                                   f"not {option!r}")
        preset = presets.get(option)
        if option == "all" or (preset is not None and preset.all):
            wanted |= optional
        elif preset is not None:
            wanted.update(preset.rules)   # the checker holds them to optional rules
        elif option in optional:
            wanted.add(option)
        else:
            unknown.append(option)
    if unknown:
        numbers = [u for u in unknown if is_rule_number(u)]
        names = [repr(u) for u in unknown if u not in numbers]
        what = "; ".join(part for part in (
            f"no optional rule numbered {', '.join(numbers)}" if numbers else "",
            f"no preset {', '.join(names)}" if names else "") if part)
        known = ", ".join(sorted(optional, key=rule_key)) or "none"
        named = ", ".join(presets) or "none"
        raise UnknownNameError(f"{what} (optional rules: {known}; presets: {named}; "
                               f"or 'all')")
    return sorted(wanted, key=rule_key)


def check_path(name_or_path: StrPath) -> list[Diagnostic]:
    """Every diagnostic (syntax, then semantic) for a rulebook; empty when clean."""
    try:
        _, warnings = compile_rulebook(name_or_path, every_reading=True)
    except RulesError as error:
        return list(error.diagnostics)
    return warnings
