"""A rulebook's text, kept apart for the commands that only read it.

``cortes-rules rules``, ``rule``, ``interpretations`` and ``--help`` print
what a rulebook says: its clauses' numbers, titles and summaries, their
statements as written and as lowered, its interpretations registry, the
what-if commands it declares. None of that needs the engine, yet a load
compiles the rulebook for its games. So these commands read a text index
instead: plain data, built once from a full load and kept in the load
cache's folder (``cortes_rules.load_cache``) under a key of the same kind,
the names and contents of the rules files and the package's code, so an
edited file gives a new index and nothing is ever served stale. With the
index kept, a command imports neither the compiler nor the engine.

The index lists every numbered rule of the rulebook, optional ones
included, and says which are in play in a load without options: the one
count of rules every command gives (``count_text``). A library's
mechanisms and a scenario's own clause are clauses without a rule number,
listed apart.
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator, Sequence
from typing import TYPE_CHECKING, Any, NamedTuple

from . import load_cache
from .errors import CortesRulesError
from .rule_numbers import roman_value, rule_key, to_roman
from .rulebook_files import StrPath, rulebook_sources

if TYPE_CHECKING:
    from .dsl import ir

INDEX_FORMAT = 1
"""Changes when the index holds something new (old entries are then not read)."""
WHAT_IF = "_what_if"
"""The ending of the name of a function of a rulebook that is a command (``NAME_what_if``)."""


class RuleText(NamedTuple):
    """One clause as the text commands print it.

    ``path`` is the file's path as diagnostics show it (relative to the
    working folder when inside it: the load cache writes it so), ``source``
    the clause's statements as the file writes them, ``lowered`` the core
    statements they lower to, ``readings`` each interpretation entry the
    clause depends on as ``(id, title, reading)``.
    """

    number: str
    title: str
    optional: bool
    in_play: bool
    """Whether a load without options has it (an optional rule is off until switched on)."""
    kind: str
    mechanism: bool
    summary: str | None
    path: str
    line: int
    readings: tuple[tuple[str, str, str | None], ...] = ()
    interpretations: tuple[str, ...] = ()
    """The entries of the registry that name this rule."""
    source: tuple[str, ...] = ()
    lowered: tuple[str, ...] = ()

    @property
    def numbered(self) -> bool:
        """A rule of the rulebook's numbering (not a library's mechanism, not a scenario)."""
        return not self.mechanism

    @property
    def section(self) -> str:
        """The part of the number before its first dot (``8`` for 8.14, ``V`` for V.3)."""
        return self.number.split(".", 1)[0]


class WhatIf(NamedTuple):
    """A what-if command a rulebook declares: ``NAME_what_if(params)`` is ``NAME``."""

    command: str
    function: str
    params: tuple[str, ...]
    rule: str


class TextIndex(NamedTuple):
    """What the text commands print of one rulebook (see the module's docstring)."""

    name: str
    title: str
    rules: tuple[RuleText, ...]
    interpretations: tuple[dict[str, Any], ...]
    """The registry as ``cortes_rules.registry.records`` gives it (JSON-ready)."""
    interpretations_text: str
    what_ifs: tuple[WhatIf, ...] = ()

    @property
    def numbered(self) -> list[RuleText]:
        """The numbered rules, in the rulebook's order."""
        return [r for r in self.rules if r.numbered]

    def rule(self, number: str) -> RuleText | None:
        """A clause by number (a library's mechanism also by its name, ``lib:NAME``)."""
        for wanted in (number, f"lib:{number}"):
            found = next((r for r in self.rules if r.number == wanted), None)
            if found is not None:
                return found
        return None

    def section(self, number: str) -> list[RuleText]:
        """The numbered rules of a section (``8``: 8.1, 8.2, ...; empty when none)."""
        wanted = number.rstrip(".")
        return sorted((r for r in self.numbered if r.section == wanted),
                      key=lambda r: rule_key(r.number))

    def sections(self) -> list[str]:
        """The sections of the rulebook, in order."""
        return sorted({r.section for r in self.numbered}, key=rule_key)

    def size(self) -> str:
        """The rulebook's size, worded as every command words it (``count_text``)."""
        numbered = self.numbered
        return count_text(len(numbered), sum(1 for r in numbered if r.in_play))

    def unknown(self, number: str) -> CortesRulesError:
        """The error for a number that is neither a rule nor a section, with the nearest."""
        numbers = [r.number for r in self.numbered]
        close = nearest_numbers(number, numbers)
        if close:
            return CortesRulesError(f"no rule {number} in this rulebook; did you mean "
                                    f"{' or '.join(repr(c) for c in close)}?")
        return CortesRulesError(f"no rule {number} in this rulebook; its sections are "
                                f"{_ranges(self.sections())} (cortes-rules rule SECTION "
                                f"lists one)")


def count_text(numbered: int, in_play: int) -> str:
    """How many numbered rules a rulebook has and how many are in play, in the words
    every command uses (``rules``, ``rule``, ``demo``, ``check``, ``coverage``).

    A numbered rule is a clause with a rule number, optional ones included;
    a library's mechanisms and a scenario's own clause are not numbered
    rules. The optional rules are off unless a load switches them on.
    """
    rules = f"{numbered} numbered rule{'s' if numbered != 1 else ''}"
    off = numbered - in_play
    if off == 0:
        return f"{rules}, all in play"
    return f"{rules}, {in_play} in play, {off} optional one{'s' if off != 1 else ''} off"


def program_count(program: ir.Program) -> str:
    """``count_text`` of a checked program: its numbered rules and those switched on."""
    numbered = {r.number for r in program.all_rules if not r.mechanism}
    in_play = sum(1 for r in program.rules.values() if not r.mechanism)
    return count_text(len(numbered), in_play)


def nearest_numbers(number: str, numbers: Sequence[str]) -> list[str]:
    """The rule numbers closest to one that is not a rule: those written alike, the
    same number with its section in the other numerals (4.21 and IV.21), else the
    nearest of its section; at most three."""
    import difflib

    close = difflib.get_close_matches(number, sorted(set(numbers), key=rule_key), n=3)
    section, dot, rest = number.partition(".")
    other = to_roman(int(section)) if section.isdigit() and 0 < int(section) < 4000 else \
        str(roman_value(section) or "")
    if dot and other and f"{other}.{rest}" in numbers:
        close.insert(0, f"{other}.{rest}")
    if not close and dot:
        same = [n for n in numbers if n.partition(".")[0] == section]
        close = sorted(same, key=lambda n: _distance(n, number))[:2]
    return list(dict.fromkeys(close))[:3]


def _distance(candidate: str, number: str) -> tuple[int, str]:
    first, second = rule_key(candidate), rule_key(number)
    value = [abs(int(a[1]) - int(b[1])) for a, b in zip(first, second, strict=False)
             if a[0] == b[0] == 0]
    return (sum(value) if value else 1_000_000, candidate)


def _ranges(sections: Sequence[str]) -> str:
    """Sections as runs: ``2-11, 13``; Roman ones as listed."""
    if not all(s.isdigit() for s in sections):
        return ", ".join(sections)
    values = sorted(int(s) for s in sections)
    runs: list[list[int]] = []
    for value in values:
        if runs and value == runs[-1][-1] + 1:
            runs[-1].append(value)
        else:
            runs.append([value])
    return ", ".join(f"{r[0]}-{r[-1]}" if len(r) > 1 else f"{r[0]}" for r in runs)


def text_index(name_or_path: StrPath) -> TextIndex:
    """The text index of a rulebook: read from the load cache's folder, else built
    from a full load (and then kept there).

    Raises:
        CortesRulesError: no such rulebook; RulesError when it is broken.
    """
    return load_cache.cached(lambda: rulebook_sources(name_or_path),
                             ("text index", INDEX_FORMAT), lambda: build(name_or_path))


def build(name_or_path: StrPath) -> TextIndex:
    """The text index made from a full load of a rulebook (its default options and
    readings), with every optional rule's clause as it reads when switched on."""
    from . import registry
    from .api import load
    from .dsl import ir
    from .loader import compile_rulebook

    book = load(name_or_path)
    everything, _ = compile_rulebook(name_or_path, options=["all"])
    program = book.program
    naming: dict[str, list[str]] = {}
    for entry in program.interpretations.values():
        for number in entry.rules:
            naming.setdefault(number, []).append(entry.id)
    texts = {m.path: m.text for m in everything.modules}
    rules = []
    for parsed in everything.all_rules:
        rule = everything.rules.get(parsed.number, parsed)
        if rule.span != parsed.span:     # a duplicate number (the checker refuses it)
            rule = parsed
        readings = tuple((e, program.interpretations[e].title, program.readings.get(e))
                         for e in rule.readings if e in program.interpretations)
        core = tuple(lowered(s) for s in rule.statements if not isinstance(s, ir.FormDecl))
        rules.append(RuleText(
            number=rule.number, title=rule.title, optional=rule.optional,
            in_play=rule.number in program.rules, kind=rule.kind, mechanism=rule.mechanism,
            summary=rule.summary, path=rule.span.path, line=rule.span.line,
            readings=readings, interpretations=tuple(naming.get(rule.number, ())),
            source=tuple(clause_source(texts.get(rule.span.path, ""), rule.span.line)),
            lowered=() if rule.mechanism else core))
    what_ifs = tuple(WhatIf(d.name.removesuffix(WHAT_IF), d.name, tuple(d.params), d.rule)
                     for d in program.of(ir.FunctionDecl)
                     if d.name.endswith(WHAT_IF) and d.name != WHAT_IF)
    return TextIndex(name=book.name, title=book.title, rules=tuple(rules),
                     interpretations=tuple(registry.records(book)),
                     interpretations_text=registry.text(book), what_ifs=what_ifs)


def clause_source(text: str, line: int) -> list[str]:
    """The formal statements of the clause that starts at ``line`` of a file's text, as
    the file writes them (summaries, interpretation citations and kind marks left out)."""
    body: list[str] = []
    depth = 0
    for source_line in text.splitlines()[line - 1:]:
        code = _code(source_line)
        start = 0 if depth > 0 else None
        end = None
        for i, char in enumerate(code):
            if char == "{":
                depth += 1
                if depth == 1:
                    start = i + 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if start is not None:
            body.append(source_line[start:end] if end is not None else source_line[start:])
        if end is not None:
            break
    kept = [ln.rstrip() for ln in body
            if _code(ln).strip() and not _code(ln).strip().startswith(("summary ",
                                                                       "interpretation "))
            and _code(ln).strip() not in ("definition", "commentary")]
    indent = min((len(ln) - len(ln.lstrip()) for ln in kept), default=0)
    return [ln[indent:] for ln in kept]


def _code(line: str) -> str:
    """A line without its comment and with its strings blanked (braces in them ignored)."""
    out = []
    in_string = False
    for char in line:
        if char == '"':
            in_string = not in_string
            out.append(char)
        elif in_string:
            out.append(" ")
        elif char == "#":
            break
        else:
            out.append(char)
    return "".join(out)


def lowered(statement: ir.Statement) -> str:
    """One core statement of a clause (after its forms are expanded) as text."""
    from .dsl import render

    try:
        return render.statement(statement)
    except (TypeError, AttributeError):
        return _describe(statement)


def _expr(node: ir.Expr) -> str | None:
    """An expression's text, or None when the renderer cannot show it."""
    from .dsl import ir, render

    try:
        return render.expr(node)
    except (TypeError, AttributeError):
        pass
    if isinstance(node, ir.StrLit):
        return f'"{node.value}"'
    if isinstance(node, ir.NoneLit):
        return "none"
    if isinstance(node, (ir.TupleLit, ir.ListLit)):
        items = [_expr(i) for i in node.items]
        if all(i is not None for i in items):
            inner = ", ".join(i for i in items if i is not None)
            return f"({inner})" if isinstance(node, ir.TupleLit) else f"[{inner}]"
    if isinstance(node, ir.Cond):
        parts = [_expr(node.test), _expr(node.then), _expr(node.otherwise)]
        if all(p is not None for p in parts):
            return "if {} then {} else {}".format(*parts)
    return None


def _describe(statement: ir.Statement) -> str:
    from .dsl import ir

    if isinstance(statement, ir.Contribute):
        value = _expr(statement.value)
        text = f"contribute {statement.hook}" + (f" = {value}" if value else "")
        if statement.when is not None:
            when = _expr(statement.when)
            text += f" when {when}" if when else " when (a condition)"
        return text
    if isinstance(statement, ir.FunctionDecl):
        body = _expr(statement.body)
        return f"function {statement.name}({', '.join(statement.params)})" + \
            (f" = {body}" if body else "")
    name = getattr(statement, "name", "")
    kind = type(statement).__name__
    return f"{kind} {name}".strip()


def rule_lines(index: TextIndex, rule: RuleText) -> Iterator[str]:
    """What ``cortes-rules rule NUMBER`` prints for one clause."""
    flag = (" (optional" + ("" if rule.in_play else ", off unless switched on") + ")"
            if rule.optional else "") + \
        (f" ({rule.kind}: states no rule of play)" if rule.kind != "rule" else "")
    yield f"{rule.number}  {rule.title}{flag}"
    yield f"  {rule.path}:{rule.line}"
    if rule.summary:
        yield ""
        yield f"Summary: {rule.summary}"
    for entry_id, title, reading in rule.readings:
        yield f"Depends on interpretation {entry_id} ({title}): reading {reading}"
    if rule.interpretations:
        yield (f"Interpretations of this rule: {', '.join(rule.interpretations)} "
               f"(see 'cortes-rules interpretations')")
    if rule.source:
        yield ""
        yield "Formal statements, as written:"
        yield from (f"  {line}" for line in rule.source)
    if rule.lowered:
        yield ""
        yield "Lowered onto the core:"
        yield from (f"  {line}" for line in rule.lowered)


def listing_lines(rules: Iterable[RuleText]) -> Iterator[str]:
    """One line a numbered rule: its number, title and whether it is optional."""
    for rule in rules:
        flag = (" (optional)" if rule.in_play else " (optional, off)") if rule.optional else ""
        yield f"{rule.number:>6}  {rule.title}{flag}"
