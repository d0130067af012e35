"""The Python package knows no genre: its names and texts hold no game's vocabulary.

Wargame mechanisms (odds, column shifts, stacking, retreats...), the
mechanisms of other genres (auctions, bids, tribute) and the names of one
game (Cortés, its sides and arms) belong in the rules language: in
``rulebook/lib/`` for a genre, in a game's own rulebook for that game. This
test reads every Python file of ``cortes_rules/`` with :mod:`ast` and lists
the words of

- every identifier: names, attributes, function and class names,
  parameters, keyword arguments, imported names;
- every string literal that is not a docstring (error messages, log texts,
  default arguments, dictionary keys).

Identifiers are split into words at underscores, digits and camel case
(``would_overstack`` -> would, overstack; ``ShiftsCumulative`` -> shifts,
cumulative). Docstrings and comments may mention the project's example game
and its mechanisms, to explain what a piece of code is for; code may not.
The package's own name (``cortes_rules``, the ``cortes-rules`` command) is
the project's name, not the game's, and is not counted.
"""

from __future__ import annotations

import ast
import re
from pathlib import Path

import pytest

from cortes_rules.dsl import ir
from cortes_rules.dsl.parse import parse_text
from cortes_rules.loader import library_path

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cortes_rules"

# Single words match themselves and their plurals (shift, shifts); phrases
# match consecutive words (zone_of_control, movementPoints).
GENRE_WORDS = (
    "odds", "shift", "clamp", "crt", "stacking", "overstack", "attacker", "defender",
    "battle", "combat", "advance", "retreat", "zoc", "zone of control", "movement point",
    "terrain effect", "hexside cost", "step loss", "auction", "bid", "tribute", "causeway",
    "cavalry", "infantry", "spanish", "aztec", "cortes",
)
PROJECT_NAME = ("cortes", "rules")  # cortes_rules, cortes-rules, CORTES_RULES_...

# TEMPORARY. Words still found in files that other developers are cleaning up
# after the cut-over to the core (the statement kinds of the first engine:
# Stacking, Odds, Shift, Clamp, Advance..., and its contexts). Each entry is
# (file, word); the stale-entry test below fails as soon as a word is gone
# from its file, so this list can only shrink. Delete it when it is empty.
TEMPORARY_ALLOWED: frozenset[tuple[str, str]] = frozenset()


def words(text: str) -> list[str]:
    """The lower-case words of an identifier or a text."""
    text = re.sub(r"([a-z0-9])([A-Z])", r"\1 \2", text)
    text = re.sub(r"([A-Z]+)([A-Z][a-z])", r"\1 \2", text)
    return [w.lower() for w in re.findall(r"[A-Za-z]+", text)]


def genre_words_in(text: str) -> list[str]:
    """The genre words (and phrases) found in one identifier or string."""
    found = []
    ws = words(text)
    for genre in GENRE_WORDS:
        parts = genre.split()
        for i in range(len(ws) - len(parts) + 1):
            head, last = ws[i:i + len(parts) - 1], ws[i + len(parts) - 1]
            if head != parts[:-1] or last not in (parts[-1], parts[-1] + "s", parts[-1] + "es"):
                continue
            if tuple(ws[i:i + len(PROJECT_NAME)]) == PROJECT_NAME:
                continue
            found.append(genre)
            break
    return found


def _docstrings(tree: ast.AST) -> set[int]:
    found = set()
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant) \
                    and isinstance(body[0].value.value, str):
                found.add(id(body[0].value))
    # An attribute docstring: a string statement right after an assignment.
    for node in ast.walk(tree):
        for field in ("body", "orelse"):
            block = getattr(node, field, None)
            if not isinstance(block, list):
                continue
            for before, after in zip(block, block[1:], strict=False):
                if isinstance(before, (ast.Assign, ast.AnnAssign)) and isinstance(after, ast.Expr) \
                        and isinstance(after.value, ast.Constant) \
                        and isinstance(after.value.value, str):
                    found.add(id(after.value))
    return found


def _texts(node: ast.AST, docstrings: set[int]) -> list[str]:
    if isinstance(node, ast.Name):
        return [node.id]
    if isinstance(node, ast.Attribute):
        return [node.attr]
    if isinstance(node, ast.arg):
        return [node.arg]
    if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef)):
        return [node.name]
    if isinstance(node, ast.keyword) and node.arg is not None:
        return [node.arg]
    if isinstance(node, ast.alias):
        return [node.name.rsplit(".", 1)[-1], *([node.asname] if node.asname else [])]
    if isinstance(node, ast.Constant) and isinstance(node.value, str) \
            and id(node) not in docstrings:
        return [node.value]
    return []


def scan(source: str, path: str) -> list[tuple[str, int, str, str]]:
    """``(path, line, genre word, the identifier or string)`` for every hit in a source."""
    tree = ast.parse(source, path)
    docstrings = _docstrings(tree)
    hits = []
    for node in ast.walk(tree):
        for text in _texts(node, docstrings):
            for genre in genre_words_in(text):
                hits.append((path, getattr(node, "lineno", 0), genre, text))
    return sorted(set(hits))


def _python_files() -> list[Path]:
    return sorted(p for p in PACKAGE.rglob("*.py") if "__pycache__" not in p.parts)


def _name(path: Path) -> str:
    return path.relative_to(ROOT).as_posix()


FILES = _python_files()


def _report(hits: list[tuple[str, int, str, str]]) -> str:
    return "\n".join(f"{path}:{line}: {word!r} in {text[:80]!r}"
                     for path, line, word, text in hits)


@pytest.mark.rule("lib:hex_wargame")
@pytest.mark.parametrize("path", FILES, ids=[_name(p) for p in FILES])
def test_python_file_names_no_genre(path: Path) -> None:
    name = _name(path)
    hits = [h for h in scan(path.read_text(encoding="utf-8"), name)
            if (name, h[2]) not in TEMPORARY_ALLOWED]
    assert not hits, "genre words in the Python package (state them in the rules " \
                     "language instead):\n" + _report(hits)


@pytest.mark.rule("lib:hex_wargame")
def test_temporary_allow_list_holds_only_words_still_there() -> None:
    found = {(name, word) for path in FILES
             for name in [_name(path)]
             for _, _, word, _ in scan(path.read_text(encoding="utf-8"), name)}
    stale = sorted(TEMPORARY_ALLOWED - found)
    assert not stale, "remove from TEMPORARY_ALLOWED, these words are gone:\n" + \
        "\n".join(f"{p}: {w}" for p, w in stale)


@pytest.mark.rule("lib:hex_wargame")
def test_every_python_file_of_the_package_is_scanned() -> None:
    names = {_name(p) for p in FILES}
    for expected in ("cortes_rules/engine/machine.py", "cortes_rules/engine/compile.py",
                     "cortes_rules/core/world.py", "cortes_rules/api.py",
                     "cortes_rules/dsl/forms.py"):
        assert expected in names


SAMPLE = '''
"""A docstring may name odds, battles and Cortés."""
import cortes_rules
from cortes_rules.engine import machine as odds_machine
from x import ShiftTable

# comments are free: the attacker, the defender
class CombatPhase:
    """Docstrings of classes too: stacking."""
    limit = 3
    """An attribute docstring: overstack."""

def resolve_battle(attacker, *, movement_points=0):
    cortes_rules.load(name="rules")
    zone_of_control = attacker.bidAmount
    run(shift=1, text="the defenders retreat")
    label = "Spanish cavalry on a causeway"
    return f"{zoc} paid tribute at auction: {stepLosses}, {terrainEffects}, {hexsideCosts}"
'''


@pytest.mark.rule("lib:hex_wargame")
def test_scanner_finds_genre_words_everywhere_but_docstrings_and_comments() -> None:
    hits = scan(SAMPLE, "sample.py")
    found = {(line, word) for _, line, word, _ in hits}
    expected = {
        (4, "odds"),                          # an import alias
        (5, "shift"),                         # an imported name, camel case
        (8, "combat"),                        # a class name
        (13, "battle"), (13, "attacker"),     # a function name, a parameter
        (13, "movement point"),               # a keyword-only parameter, plural
        (15, "zone of control"), (15, "bid"), (15, "attacker"),   # names, an attribute
        (16, "shift"), (16, "defender"), (16, "retreat"),        # a keyword, a string
        (17, "spanish"), (17, "cavalry"), (17, "causeway"),
        (18, "zoc"), (18, "tribute"), (18, "auction"), (18, "step loss"),
        (18, "terrain effect"), (18, "hexside cost"),
    }
    assert found == expected, _report(hits)


@pytest.mark.rule("lib:hex_wargame")
def test_project_name_is_not_the_game_name() -> None:
    assert genre_words_in("cortes_rules") == []
    assert genre_words_in("cortes-rules") == []
    assert genre_words_in("CORTES_RULES_BACKEND") == []
    assert genre_words_in("cortes") == ["cortes"]
    assert genre_words_in("rulebook/cortes/demo.record") == ["cortes"]
    assert genre_words_in("cortes rulebook") == ["cortes"]


def _library_printed() -> tuple[list[ir.PrintedDecl], set[str]]:
    """The printed fields rulebook/lib/hex_wargame.rules declares, and its action kinds."""
    module = parse_text(library_path("hex_wargame").read_text(encoding="utf-8"), "lib")
    statements = [s for item in module.items if isinstance(item, ir.Rule)
                  for s in item.statements]
    return ([s for s in statements if isinstance(s, ir.PrintedDecl)],
            {s.name for s in statements if isinstance(s, ir.ActionDecl)})


@pytest.mark.rule("lib:hex_wargame")
def test_the_hex_wargame_counter_fields_are_the_librarys_not_the_packages() -> None:
    # Issue 48, item 1: steps, factors and movement allowance are declared in the
    # library ('printed'); the grammar writes none of their words and no Python code
    # names them (a name that is also an action kind, 'move', is the API's word).
    printed, actions = _library_printed()
    assert {d.name for d in printed} >= {"max_steps", "factors", "move"}
    grammar = (ROOT / "grammar" / "rules.lark").read_text(encoding="utf-8")
    literals = set(re.findall(r'"([A-Za-z_]+)"', grammar))
    assert not literals & {d.word for d in printed}
    names = {d.name for d in printed} - actions
    hits = []
    for path in FILES:
        source = path.read_text(encoding="utf-8")
        tree = ast.parse(source, _name(path))
        docstrings = _docstrings(tree)
        hits += [(_name(path), getattr(node, "lineno", 0), text) for node in ast.walk(tree)
                 for text in _texts(node, docstrings) if text in names]
    assert not hits, "\n".join(f"{p}:{line}: {text!r}" for p, line, text in hits)
