"""A copy of the project without one shipped rulebook, for the tests that the
engine knows nothing of a game (``test_no_*_in_python.py``)."""

from __future__ import annotations

import shutil
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]

# Plays a rulebook (argv[1]) for 200 plies, then tries to load the missing one (argv[2]).
_SCRIPT = (
    "import cortes_rules, sys\n"
    "book = cortes_rules.load(sys.argv[1])\n"
    "state = book.new_game(seed=1, setup=book.setups[0])\n"
    "for _ in range(200):\n"
    "    if state.is_terminal(): break\n"
    "    if state.is_chance_node(): state.apply_chance(); continue\n"
    "    state.apply(state.legal_actions()[-1])\n"
    "print('played', len(state.history))\n"
    "try:\n"
    "    cortes_rules.load(sys.argv[2])\n"
    "except cortes_rules.CortesRulesError as error:\n"
    "    print('refused:', error)\n")


def play_without(tmp_path: Path, missing: str) -> subprocess.CompletedProcess[str]:
    """Copy the package, the grammar and every rulebook but ``missing`` into
    ``tmp_path``; there, play the zone-of-control fixture and load ``missing``."""
    shutil.copytree(ROOT / "cortes_rules", tmp_path / "cortes_rules",
                    ignore=shutil.ignore_patterns("__pycache__", "*.so", "*.c"))
    shutil.copytree(ROOT / "grammar", tmp_path / "grammar")
    shutil.copytree(ROOT / "rulebook", tmp_path / "rulebook",
                    ignore=shutil.ignore_patterns(missing))
    assert not (tmp_path / "rulebook" / missing).exists()
    fixture = ROOT / "tests" / "fixtures" / "core" / "zoc.rules"
    return subprocess.run([sys.executable, "-c", _SCRIPT, str(fixture), missing], cwd=tmp_path,
                          capture_output=True, text=True, timeout=300,
                          env={"PATH": "/usr/bin:/bin", "PYTHONPATH": str(tmp_path)})
