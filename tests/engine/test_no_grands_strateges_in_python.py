"""Issue 7: the engine knows nothing of Grands Stratèges; its rulebook folder does.

Its combat results table and its terrain table are not copied into the
package, the grammar or the libraries; none of those names a function,
value, class or phase the rulebook declares; and a copy of the project
without ``rulebook/grands_strateges/`` still loads and plays another game,
while refusing ``load("grands_strateges")`` with a clear error.
"""

from __future__ import annotations

import re
from pathlib import Path

import pytest
from without_rulebook import play_without

import cortes_rules
from cortes_rules.dsl import ir

ROOT = Path(__file__).resolve().parents[2]
RULEBOOK = ROOT / "rulebook" / "grands_strateges"
SOURCE_ROOTS = (ROOT / "cortes_rules", ROOT / "src_ext", ROOT / "grammar",
                ROOT / "rulebook" / "lib")
SOURCE_SUFFIXES = (".py", ".pyx", ".pxd", ".pxi", ".lark", ".rules")
# The combat results table, row 6 and row 1 as printed, in any spelling.
CRT_ROWS = ("AR DR DR DR DR DE DE DE DE", "AE AE AE AR AR EX EX EX EX")


def _row_pattern(row: str) -> re.Pattern[str]:
    return re.compile(r"""[\s,;'"()\[\]{}]*""".join(rf"\b{c}\b" for c in row.split()))


def _sources() -> list[Path]:
    return [p for root in SOURCE_ROOTS if root.is_dir() for p in sorted(root.rglob("*"))
            if p.suffix in SOURCE_SUFFIXES and "__pycache__" not in p.parts]


@pytest.mark.rule("IV.19", rulebook="grands_strateges")
@pytest.mark.parametrize("row", CRT_ROWS)
def test_the_combat_results_table_is_only_in_the_rulebook(row: str) -> None:
    pattern = _row_pattern(row)
    assert pattern.search((RULEBOOK / "04-combat.rules").read_text(encoding="utf-8"))
    assert pattern.search('ROW = ["AR", "DR", "DR", "DR", "DR", "DE", "DE", "DE", "DE"]') \
        or row != CRT_ROWS[0]
    hits = [str(p.relative_to(ROOT)) for p in _sources()
            if pattern.search(p.read_text(encoding="utf-8"))]
    assert hits == []


@pytest.mark.rule("II.8", rulebook="grands_strateges")
def test_the_engine_names_nothing_the_rulebook_declares() -> None:
    program = cortes_rules.load("grands_strateges", options="advanced").program
    cortes = cortes_rules.load("cortes", options="veteran").program

    def names(p: ir.Program, own: bool) -> set[str]:
        found: set[str] = set()
        for kind in (ir.FunctionDecl, ir.ValueDecl, ir.ClassDecl, ir.TableDecl, ir.Procedure,
                     ir.TerrainDecl, ir.HexsideDecl, ir.HookDecl, ir.AttributeDecl):
            for decl in p.of(kind):
                if own and decl.rule.startswith("lib:"):
                    continue
                found.add(decl.name)
        return found

    # Names of its own, long enough to mean something, that Cortés does not
    # share, less the plain words of the genre that a library may well use.
    plain = {"attackers", "defenders", "stream", "losses", "opponent", "forces", "bridge",
             "forest", "marsh", "village", "strength"}
    declared = {n for n in names(program, True) - names(cortes, False)
                if len(n) >= 6 and n not in plain}
    assert {"enemy_controls", "bombards", "retreat_unit", "combat_results",
            "line_of_fire"} <= declared
    hits = [f"{p.relative_to(ROOT)}: {name}" for p in _sources()
            for name in sorted(declared)
            if re.search(rf"(?<![\w.]){re.escape(name)}(?!\w)",
                         p.read_text(encoding="utf-8"))]
    assert hits == [], f"the engine names what Grands Stratèges declares: {hits}"


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_without_its_folder_the_engine_still_runs_and_refuses_it(tmp_path: Path) -> None:
    done = play_without(tmp_path, "grands_strateges")
    assert done.returncode == 0, done.stderr
    assert "played" in done.stdout and "refused:" in done.stdout
    assert "grands_strateges" in done.stdout.split("refused:")[1]
