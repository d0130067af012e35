"""The adapters are optional extras: without their libraries the package still imports.

In a fresh interpreter where numpy, PettingZoo, Gymnasium and pyspiel cannot
be imported, ``cortes_rules`` and ``cortes_rules.adapters`` import and play
(4.1), and importing an adapter fails with ``MissingExtraError``, a
``CortesRulesError`` that is also an ``ImportError`` and names the extra.
The utilities of an outcome need no library either; the wheel ships the
adapters, and the test-all extra brings both libraries so that CI runs their tests.
"""

from __future__ import annotations

import subprocess
import sys
import tomllib
from pathlib import Path

import pytest

from cortes_rules import Outcome
from cortes_rules.adapters.outcomes import max_utility, min_utility, utilities

ROOT = Path(__file__).resolve().parents[2]
WITHOUT_EXTRAS = r'''
import sys

class Refuse:
    def find_spec(self, name, path=None, target=None):
        if name.split(".")[0] in {"numpy", "pettingzoo", "gymnasium", "pyspiel"}:
            raise ImportError(f"No module named {name!r}", name=name)

sys.meta_path.insert(0, Refuse())
import cortes_rules, cortes_rules.adapters, cortes_rules.adapters.outcomes
from cortes_rules.adapters import MissingExtraError
state = cortes_rules.load("cortes").new_game(seed=1, setup="demo")
state.apply(state.legal_action_ids()[0])
for adapter, extra in (("pettingzoo", "pettingzoo"), ("openspiel", "openspiel")):
    try:
        __import__("cortes_rules.adapters." + adapter)
    except MissingExtraError as error:
        assert isinstance(error, cortes_rules.CortesRulesError) and isinstance(error, ImportError)
        assert f"cortes-rules[{extra}]" in str(error), error
        print(adapter, "refused:", error)
    else:
        raise AssertionError(adapter + " imported without its library")
print("numpy" in sys.modules, "pyspiel" in sys.modules)
'''


@pytest.mark.rule("4.1")
def test_the_package_imports_and_plays_without_the_extras() -> None:
    done = subprocess.run([sys.executable, "-c", WITHOUT_EXTRAS], cwd=ROOT, text=True,
                          capture_output=True, timeout=300)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    assert lines[-1] == "False False"
    assert any(line.startswith("pettingzoo refused: the PettingZoo adapter needs")
               for line in lines)


@pytest.mark.rule("4.1")
def test_the_adapters_extras_are_in_test_all_and_not_in_the_default_test_extra() -> None:
    # That the wheel ships cortes_rules.adapters is tests/install/test_wheel.py's.
    config = tomllib.loads((ROOT / "pyproject.toml").read_text(encoding="utf-8"))
    extras = config["project"]["optional-dependencies"]
    assert any(d.startswith("pettingzoo") for d in extras["pettingzoo"])
    assert any(d.startswith("open_spiel") for d in extras["openspiel"])
    everything = " ".join(extras["test-all"])
    assert "pettingzoo" in everything and "openspiel" in everything and "ray" in everything
    heavy = {"pettingzoo", "gymnasium", "numpy", "open_spiel", "ray", "playwright", "scipy"}
    assert not {d.split(">")[0].split("=")[0] for d in extras["test"]} & heavy


@pytest.mark.rule("4.1")
def test_utilities_are_zero_sum_plus_one_for_a_winner() -> None:
    two = ("a", "b")
    assert utilities(two, Outcome(("a",), "won")) == [1.0, -1.0]
    assert utilities(two, Outcome((), "draw")) == [0.0, 0.0]
    assert utilities(two, Outcome(("a", "b"), "shared")) == [0.0, 0.0]
    assert utilities(two, None) == [0.0, 0.0]
    three = ("a", "b", "c")
    assert utilities(three, Outcome(("a", "c"), "two of three")) == [1.0, -2.0, 1.0]
    assert utilities(three, Outcome(("b",), "one")) == [-0.5, 1.0, -0.5]
    assert (min_utility(3), max_utility(3)) == (-2.0, 1.0)
    assert (min_utility(2), max_utility(2)) == (-1.0, 1.0)
