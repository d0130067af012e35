"""Shared helpers of the front-end tests: snippets of rules, parsing, checking.

Snippets of hex-wargame clauses are checked after :data:`PRELUDE`, a small
rulebook that uses the ``hex_wargame`` library: its forms (``shift 3 left
when ...``, ``define combat ...``) then read as they do in Cortés, and its
procedures give the names a clause may see (a move's ``unit``, ``to``,
``cost``...). Snippets of the core language need no library.
"""

from __future__ import annotations

import functools
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import attrs
import pytest

from cortes_rules.dsl import ir
from cortes_rules.dsl.diagnostics import Diagnostic
from cortes_rules.dsl.parse import parse_text
from cortes_rules.errors import RulesSyntaxError
from cortes_rules.loader import library_path

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "rulebook" / "cortes"

# Two sides, three classes, four terrain types, a hexside feature, the terrain
# effects chart, the turn sequence and the three values hex_wargame's battles
# read (defenders, attack, defense).
PRELUDE = '''\
game snippet "Snippets of a hex wargame" {
  use hex_wargame
}

rule 2.5 "Nationality" {
  summary "Two sides: the Spanish player and the Aztec player."
  side spanish "Spanish"
  side aztec "Aztec"
}

rule 2.8 "Unit types" {
  summary "The counter's picture gives its type."
  class infantry "Spanish infantry" side spanish traits european
  class cavalry "Spanish cavalry" side spanish traits european
  class knight "Aztec knight" side aztec
}

rule 4.2 "Sequence of play" {
  summary "Each side moves, then fights."
  sequence game_turn {
    phase spanish_movement "Spanish movement" by spanish does movement
    phase spanish_combat "Spanish combat" by spanish does combat
    phase aztec_movement "Aztec movement" by aztec does movement
    phase aztec_combat "Aztec combat" by aztec does combat
  }
}

rule 8.3 "Combat strength" {
  summary "The units in the attacked hex defend together; each side totals its combat factors."
  define combat defenders = target.units
  define combat attack = sum(u.combat for u in attackers)
  define combat defense = sum(u.combat for u in defenders)
}

rule 13.1 "Terrain effects chart" {
  summary "Movement cost and combat effect of each terrain type."
  terrain clear "Clear" natural
  terrain quagmire "Quagmire" natural
  terrain fortress "Fortress" artificial
  terrain chinampa_city "Chinampa city" artificial
  hexside causeway "Causeway crossing the hexside"
  table terrain_effects "Terrain effects chart" {
    columns             move         combat
    row clear           1            0
    row quagmire        prohibited   prohibited
    row fortress        2            -2
    row chinampa_city   2            -1
  }
}
'''

# A core rulebook of two players and areas, without any library.
CORE_PRELUDE = '''\
game skirmish "A skirmish on areas" {
  source "Written for the cortes_rules test suite; not a published game."
}

rule 1.1 "Players" {
  summary "Two players, Red and Blue, play in that order."
  player red "Red"
  player blue "Blue"
  attribute player score: int = 0 "Points scored"
}

rule 1.2 "Units" {
  summary "Each player has soldiers that move from area to area."
  class soldier "Soldier"
  attribute piece moved: bool = false "Has moved this turn"
  pool reserve "Reserve" per player
  dice d6 = 1d6
}

rule 2.1 "Sequence of play" {
  summary "Each turn every player in turn order takes his turn."
  sequence turn {
    phase playing "A player's turn" for each player does play
  }
}
'''


def one_rule(number: str, statement: str, title: str = "Snippet") -> str:
    """A rule clause whose third line starts ``statement`` (which may run on)."""
    return f'rule {number} "{title}" {{\n  summary "A snippet."\n  {statement}\n}}\n'


def place_of(text: str, statement: str, at: str | tuple[str, str]) -> tuple[int, int]:
    """Line and column of ``at`` inside ``statement``, written as the third line of a
    clause appended to ``text``. ``at`` may be ``(before, at)`` to pick one occurrence."""
    before, word = at if isinstance(at, tuple) else ("", at)
    offset = statement.index(before + word) + len(before)
    head = statement[:offset]
    first = text.count("\n") + 3
    if "\n" not in head:
        return first, 3 + offset
    return first + head.count("\n"), offset - head.rfind("\n")


def write(tmp_path: Path, name: str, text: str) -> Path:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return path


def strip_spans(node: Any) -> Any:
    """An IR node as nested tuples, without its spans: IR equality modulo positions."""
    if attrs.has(type(node)):
        return (type(node).__name__, *(
            (field.name, strip_spans(getattr(node, field.name)))
            for field in attrs.fields(type(node))
            if field.name != "span" and not field.name.endswith("_span")))
    if isinstance(node, tuple):
        return tuple(strip_spans(item) for item in node)
    return node


@functools.cache
def library_forms() -> tuple[ir.FormDecl, ...]:
    """The forms of rulebook/lib/hex_wargame.rules, as the loader reads them."""
    module = parse_text(library_path("hex_wargame").read_text(encoding="utf-8"), "lib")
    return tuple(s for item in module.items if isinstance(item, ir.Rule)
                 for s in item.statements if isinstance(s, ir.FormDecl))


def syntax_error(text: str, path: str = "snippet.rules",
                 forms: tuple[ir.FormDecl, ...] = ()) -> Diagnostic:
    """The one syntax error of a text (parsed with the given forms)."""
    with pytest.raises(RulesSyntaxError) as caught:
        parse_text(text, path, forms)
    assert len(caught.value.diagnostics) == 1
    return caught.value.diagnostics[0]


def cli(*args: str) -> subprocess.CompletedProcess[str]:
    """``python -m cortes_rules ARGS`` from the repository root, the checkout importable."""
    env = dict(os.environ)
    env["PYTHONPATH"] = os.pathsep.join(filter(None, [str(ROOT), env.get("PYTHONPATH")]))
    return subprocess.run([sys.executable, "-m", "cortes_rules", *args], cwd=ROOT, env=env,
                          capture_output=True, text=True, timeout=120)
