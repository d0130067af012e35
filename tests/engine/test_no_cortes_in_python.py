"""The engine and the libraries know mechanisms, not Cortés: its charts live in its rulebook.

If the combat results table (13.2) or the terrain effects chart (13.1) were
copied into the Python (or Cython) sources, the grammar or a library of
mechanisms (``rulebook/lib/``), a rulebook edit would silently stop
mattering. These tests look for the charts' number patterns in every one of
those files, and check that the same patterns do match the rulebook's own
13-tables.rules, so that a pattern that can never match cannot pass for a
clean engine. A last test holds the libraries to naming nothing the Cortés
rulebook declares (its sides, classes, terrain, tables, phases).
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from without_rulebook import play_without

ROOT = Path(__file__).resolve().parents[2]
PACKAGE = ROOT / "cortes_rules"
TABLES = ROOT / "rulebook" / "cortes" / "13-tables.rules"
LIBRARIES = ROOT / "rulebook" / "lib"
# Everything that must stay game-free: the package (and the compiled core to
# come), the grammar, the libraries of mechanisms.
SOURCE_ROOTS = (PACKAGE, ROOT / "src_ext", ROOT / "grammar", LIBRARIES)
SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".pxi", ".lark", ".rules")

# Rows of the combat results table, as the rulebook prints them (first cells).
CRT_ROWS = {
    2: "8/0 4/0 3/1 3/1 2/1 2/1",
    3: "4/0 4/0 2/0 2/1 3/2 0/0",
    5: "4/0 3/1 1/0 1/0 2/2 1/2",
    9: "3/0 2/0 2/2 0/0 0/1 1/3",
    12: "3/1 1/1 1/2 1/3 1/3 0/4 0/5 0/6",
}
# A cell a/b written as "a/b", (a, b), [a, b], "a", "b", ... The separators
# between cells may hold spaces, commas, quotes, brackets.
_GAP = r"""[\s,;'"()\[\]{}]*"""


def _cell(text: str) -> str:
    left, right = text.split("/")
    between = rf"""(?:{_GAP}[/,:]{_GAP}|[\s;'"()\[\]{{}}]+)"""  # never nothing: 80 is not 8/0
    return rf"""(?<!\d){left}{between}{right}(?!\d)"""


def crt_row_pattern(row: str) -> re.Pattern[str]:
    cells = row.split()
    return re.compile(_GAP.join(_cell(c) for c in cells))


# Terrain effects: each row's name followed by its movement cost and combat
# value, whether as a chart row, a dict entry or a tuple; and the whole
# combat column of the non-clear rows in chart order.
TERRAIN_ROWS = {
    "dry_land_city": (1, -1),
    "chinampa_city": (2, -1),
    "fortress": (2, -2),
    "major_fortress": (2, -3),
    "temple_complex": (2, -2),
}
_SEP = r"""[\s,;:'"()\[\]{}=]*"""


def terrain_row_pattern(name: str, move: int, combat: int) -> re.Pattern[str]:
    return re.compile(rf"""\b{name}\b{_SEP}{move}{_SEP}-\s*{abs(combat)}(?!\d)""")


# -1 -1 -2 -3 -2, allowing row names, single-digit move costs and punctuation between.
_COLUMN_GAP = r"""(?:[\s,;:'"()\[\]{}=]|\brow\b|\b[a-z_]+\b|(?<![-\d])\d(?!\d))*?"""
TERRAIN_COMBAT_COLUMN = re.compile(
    _COLUMN_GAP.join(rf"-\s*{n}(?!\d)" for n in (1, 1, 2, 3, 2)))


def _sources() -> list[Path]:
    files = [p for root in SOURCE_ROOTS if root.is_dir() for p in sorted(root.rglob("*"))
             if p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts]
    names = {p.name for p in files}
    for expected in ("machine.py", "compile.py", "world.py", "rules.lark", "hex_wargame.rules"):
        assert expected in names, f"{expected} was not found among the sources"
    return files


def _strip_line_breaks(text: str) -> str:
    return re.sub(r"\\\n", " ", text)


@pytest.mark.rule("13.2")
@pytest.mark.parametrize("roll", sorted(CRT_ROWS))
def test_13_2_rulebook_holds_the_crt_row(roll):
    text = TABLES.read_text(encoding="utf-8")
    assert crt_row_pattern(CRT_ROWS[roll]).search(text), f"CRT row {roll} not in the rulebook"


@pytest.mark.rule("13.2")
@pytest.mark.parametrize("roll", sorted(CRT_ROWS))
def test_13_2_crt_row_is_not_in_python(roll):
    pattern = crt_row_pattern(CRT_ROWS[roll])
    hits = [str(p.relative_to(ROOT)) for p in _sources()
            if pattern.search(_strip_line_breaks(p.read_text(encoding="utf-8")))]
    assert hits == [], f"CRT row {roll} ({CRT_ROWS[roll]}) is hard-coded in {hits}"


@pytest.mark.rule("13.2")
def test_13_2_crt_pattern_matches_python_spellings():
    # The patterns would catch the row if it were written as Python data.
    pattern = crt_row_pattern(CRT_ROWS[2])
    for spelling in ('ROW2 = ["8/0", "4/0", "3/1", "3/1", "2/1", "2/1"]',
                     "row_2 = ((8, 0), (4, 0), (3, 1), (3, 1), (2, 1), (2, 1))",
                     "[8, 0, 4, 0, 3, 1, 3, 1, 2, 1, 2, 1]"):
        assert pattern.search(spelling), spelling
    assert not pattern.search("(18, 0), (4, 0), (3, 1), (3, 1), (2, 1), (2, 1)")
    assert not pattern.search("80 40 31 31 21 21")


@pytest.mark.rule("13.1")
@pytest.mark.parametrize("name", sorted(TERRAIN_ROWS))
def test_13_1_rulebook_holds_the_terrain_row(name):
    text = TABLES.read_text(encoding="utf-8")
    assert terrain_row_pattern(name, *TERRAIN_ROWS[name]).search(text), name


@pytest.mark.rule("13.1")
def test_13_1_rulebook_holds_the_terrain_combat_column():
    assert TERRAIN_COMBAT_COLUMN.search(TABLES.read_text(encoding="utf-8"))


@pytest.mark.rule("13.1")
def test_13_1_terrain_patterns_match_python_spellings():
    spelling = ('TERRAIN = {"dry_land_city": (1, -1), "chinampa_city": (2, -1), '
                '"fortress": (2, -2), "major_fortress": (2, -3), "temple_complex": (2, -2)}')
    assert TERRAIN_COMBAT_COLUMN.search(spelling)
    for name, (move, combat) in TERRAIN_ROWS.items():
        assert terrain_row_pattern(name, move, combat).search(spelling), name
    assert TERRAIN_COMBAT_COLUMN.search("SHIFTS = [-1, -1, -2, -3, -2]")


@pytest.mark.rule("13.1")
def test_13_1_terrain_effects_are_not_in_python():
    hits = []
    for path in _sources():
        text = _strip_line_breaks(path.read_text(encoding="utf-8"))
        for name, (move, combat) in TERRAIN_ROWS.items():
            if terrain_row_pattern(name, move, combat).search(text):
                hits.append(f"{path.relative_to(ROOT)}: {name}")
        if TERRAIN_COMBAT_COLUMN.search(text):
            hits.append(f"{path.relative_to(ROOT)}: the combat column -1 -1 -2 -3 -2")
    assert hits == [], f"terrain effects hard-coded in Python: {hits}"


def _code(path: Path) -> str:
    """A rules file without its comments (a comment may cite an example)."""
    lines = path.read_text(encoding="utf-8").splitlines()
    return "\n".join(line.split("#", 1)[0] for line in lines)


@pytest.mark.rule("2.8")
def test_libraries_name_nothing_the_cortes_rulebook_declares(book) -> None:  # type: ignore[no-untyped-def]
    from cortes_rules.dsl import ir

    program = book.program
    declared: set[str] = set()
    for kind in (ir.SideDecl, ir.PlayerDecl, ir.ClassDecl, ir.TerrainDecl, ir.HexsideDecl,
                 ir.FlagDecl, ir.PropertyDecl, ir.TableDecl, ir.DiceDecl, ir.FaceDieDecl):
        for decl in program.of(kind):
            if decl.rule.startswith("lib:"):
                continue
            declared.add(decl.name)
            declared.update(getattr(decl, "traits", ()) or ())
            declared.update(getattr(decl, "values", ()) or ())
    for sequence in program.of(ir.Sequence):
        declared.update(phase.name for phase in sequence.phases)
    assert {"spanish", "aztec", "cavalry", "causeway", "crt", "terrain_effects",
            "spanish_land_combat"} <= declared
    libraries = sorted(LIBRARIES.glob("*.rules"))
    assert libraries
    hits = [f"{path.relative_to(ROOT)}: {name}" for path in libraries
            for name in sorted(declared)
            if re.search(rf"(?<!\w){re.escape(name)}(?!\w)", _code(path))]
    assert hits == [], f"a library names what a game declares: {hits}"


@pytest.mark.rule("2.1")
def test_without_the_cortes_rulebook_the_engine_and_library_know_no_cortes_fact(tmp_path):
    """Issue 6: deleting rulebook/cortes/ leaves a working engine that knows nothing of Cortés.

    A copy of the package, the grammar and the rulebook folder minus
    rulebook/cortes loads and plays a rulebook of another game (a fixture
    built on the hex-wargame library), refuses ``load("cortes")`` with a
    clear error, and no Python file of the copy names a piece, class, place
    or table the Cortés rulebook declares.
    """
    done = play_without(tmp_path, "cortes")
    assert done.returncode == 0, done.stderr
    assert "played" in done.stdout and "refused:" in done.stdout
    assert "cortes" in done.stdout.split("refused:")[1].lower()
