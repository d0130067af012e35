"""Rule coverage: each numbered rule of a rulebook, how it is stated and which tests cite it.

``cortes-rules coverage [RULEBOOK] [--tests DIR]`` prints the report. A
rule is *stated* when its clause holds formal statements, *summary only*
when it holds only a summary (its mechanism is not built yet), and
*definition/commentary* when the clause says it states no rule of play
(``definition`` or ``commentary``). Tests are found by reading the test
files, never importing them: every ``pytest.mark.rule("N.N", ...)`` call
with literal rule numbers cites those rules (marks naming another rulebook
with ``rulebook=...`` are left out).
"""

from __future__ import annotations

import ast
import os
from collections.abc import Iterable, Iterator
from dataclasses import dataclass, field
from pathlib import Path

from .dsl import ir
from .errors import CortesRulesError
from .loader import compile_rulebook, display_path, resolve
from .rule_numbers import rule_key

StrPath = str | os.PathLike[str]

STATED = "stated"
SUMMARY_ONLY = "summary only"
DEFINITION = "definition/commentary"
STATES = (STATED, SUMMARY_ONLY, DEFINITION)


@dataclass
class RuleCoverage:
    """One numbered rule: its clause(s) and the tests that cite it."""

    number: str
    title: str
    state: str
    optional: bool
    clauses: list[str] = field(default_factory=list)
    """Where the clauses that state it are, as ``file:line``."""
    tests: list[str] = field(default_factory=list)
    """The tests that cite it, as ``file::test``."""


@dataclass
class Coverage:
    """The coverage report of one rulebook."""

    rulebook: str
    rules: list[RuleCoverage]
    tests_dir: Path | None
    """The folder scanned for tests (None when none was found)."""

    def counts(self) -> dict[str, int]:
        """How many rules are in each state, plus ``tested``, ``untested`` and ``rules``."""
        counts = {state: sum(1 for r in self.rules if r.state == state) for state in STATES}
        counts["tested"] = sum(1 for r in self.rules if r.tests)
        counts["untested"] = len(self.rules) - counts["tested"]
        counts["rules"] = len(self.rules)
        return counts

    def lines(self) -> Iterator[str]:
        """The report as text lines."""
        for rule in self.rules:
            flag = " (optional)" if rule.optional else ""
            yield f"{rule.number:>6}  {rule.title}{flag}  [{rule.state}]"
            yield f"        clauses: {', '.join(rule.clauses) or 'none'}"
            shown = rule.tests[:5]
            more = f" and {len(rule.tests) - len(shown)} more" if len(rule.tests) > 5 else ""
            yield f"        tests: {', '.join(shown) + more if shown else 'none'}"
        c = self.counts()
        where = f"{display_path(self.tests_dir)}/" if self.tests_dir is not None \
            else "no tests folder"
        yield (f"{c['rules']} numbered rules, optional ones included: {c[STATED]} stated, "
               f"{c[SUMMARY_ONLY]} summary only, {c[DEFINITION]} definition/commentary; "
               f"{c['tested']} cited by tests, {c['untested']} by none (tests: {where})")


def state_of(rule: ir.Rule) -> str:
    """Stated (formal statements), definition/commentary, or summary only."""
    if rule.statements:
        return STATED
    if rule.kind in ("definition", "commentary"):
        return DEFINITION
    return SUMMARY_ONLY


def default_tests_dir(rulebook: Path) -> Path | None:
    """``tests/`` of the checkout a rulebook folder sits in (``<root>/rulebook/<name>``)."""
    folder = rulebook if rulebook.is_dir() else rulebook.parent
    for candidate in (folder.parent.parent / "tests", folder.parent / "tests"):
        if candidate.is_dir():
            return candidate
    return None


def coverage(name_or_path: StrPath, *, tests: StrPath | None = None) -> Coverage:
    """The coverage report of a rulebook, with every optional rule switched on.

    Args:
        name_or_path: a shipped rulebook's name, a folder or one file.
        tests: the folder of tests to scan (default: ``tests/`` of the checkout
            the rulebook is in; none when there is no such folder).

    Raises:
        CortesRulesError: the rulebook cannot be read or is broken, or the
            tests folder does not exist.
    """
    path = resolve(name_or_path)
    program, _ = compile_rulebook(name_or_path, options=["all"])
    tests_dir = Path(tests) if tests is not None else default_tests_dir(path)
    if tests is not None and not (tests_dir is not None and tests_dir.is_dir()):
        raise CortesRulesError(f"{tests}: no such tests folder")
    names = {path.name, path.stem}
    if program.game is not None:
        names.add(program.game.name)
    cited = rule_citations(tests_dir, names) if tests_dir is not None else {}
    by_number: dict[str, RuleCoverage] = {}
    for rule in program.all_rules:
        if rule.mechanism:
            continue
        entry = by_number.get(rule.number)
        where = f"{rule.span.path}:{rule.span.line}"
        if entry is None:
            by_number[rule.number] = RuleCoverage(rule.number, rule.title, state_of(rule),
                                                  rule.optional, [where],
                                                  sorted(cited.get(rule.number, ())))
        else:  # a duplicate clause (the checker refuses it): still show where it is
            entry.clauses.append(where)
    rules = sorted(by_number.values(), key=lambda r: rule_key(r.number))
    label = program.game.name if program.game is not None else str(name_or_path)
    return Coverage(label, rules, tests_dir)


def rule_citations(tests_dir: Path, rulebooks: Iterable[str] = ()) -> dict[str, set[str]]:
    """Rule number -> the tests (``file::test``) whose ``pytest.mark.rule`` cites it.

    Only literal rule numbers count; a mark with ``rulebook="other"`` counts
    only when ``other`` is one of ``rulebooks``. Files that do not parse are
    skipped.
    """
    wanted = set(rulebooks)
    found: dict[str, set[str]] = {}
    for file in sorted(tests_dir.rglob("*.py")):
        try:
            tree = ast.parse(file.read_text(encoding="utf-8"), str(file))
        except (OSError, SyntaxError, UnicodeDecodeError, ValueError):
            continue
        shown = display_path(file)
        for owner, call in _rule_marks(tree):
            book = next((k.value for k in call.keywords if k.arg == "rulebook"), None)
            if book is not None and not (isinstance(book, ast.Constant)
                                         and book.value in wanted):
                continue
            test = f"{shown}::{owner}" if owner else shown
            for arg in call.args:
                if isinstance(arg, ast.Constant) and isinstance(arg.value, str):
                    found.setdefault(arg.value, set()).add(test)
    return found


def _is_rule_mark(node: ast.AST) -> bool:
    """``pytest.mark.rule(...)`` or ``mark.rule(...)``."""
    if not isinstance(node, ast.Call) or not isinstance(node.func, ast.Attribute):
        return False
    func = node.func
    if func.attr != "rule":
        return False
    base = func.value
    return (isinstance(base, ast.Attribute) and base.attr == "mark") or \
        (isinstance(base, ast.Name) and base.id == "mark")


def _rule_marks(tree: ast.Module) -> Iterator[tuple[str, ast.Call]]:
    """Each rule mark with the test it belongs to: the function (``Class::function``)
    it decorates or sits in, or the module-level name it is assigned to."""

    def walk(node: ast.AST, owner: str) -> Iterator[tuple[str, ast.Call]]:
        for child in ast.iter_child_nodes(node):
            if isinstance(child, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
                name = f"{owner}::{child.name}" if owner else child.name
                for decorator in child.decorator_list:
                    yield from walk_expr(decorator, name)
                yield from walk(child, name)
            elif isinstance(child, (ast.Assign, ast.AnnAssign)) and not owner:
                targets = child.targets if isinstance(child, ast.Assign) else [child.target]
                name = next((t.id for t in targets if isinstance(t, ast.Name)), "")
                if name == "pytestmark":   # marks every test of the module
                    name = ""
                yield from walk_expr(child, name)
            else:
                yield from walk(child, owner) if not isinstance(child, ast.expr) \
                    else walk_expr(child, owner)

    def walk_expr(node: ast.AST, owner: str) -> Iterator[tuple[str, ast.Call]]:
        for sub in ast.walk(node):
            if _is_rule_mark(sub):
                assert isinstance(sub, ast.Call)
                yield owner, sub

    yield from walk(tree, "")
