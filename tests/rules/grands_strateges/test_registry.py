"""The interpretations registry of Grands Stratèges (issue 47): at least 35
entries, each complete; every entry the rules cite is in it; every entry
with several readings is a load option, played both ways by a test."""

from __future__ import annotations

import functools
import re
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import registry
from cortes_rules.cli import main

ROOT = Path(__file__).resolve().parents[3]
RULES = ROOT / "rulebook" / "grands_strateges"
TESTS = Path(__file__).resolve().parent
GS = "grands_strateges"

# Where each entry with several readings takes effect: the load in which its
# reading is a load option.
ADVANCED = {"options": "advanced"}
OPTION_LOADS: dict[str, dict[str, str]] = {
    **{entry: {} for entry in (
        "forest_cost", "road_movement", "several_controllers", "attack_together",
        "terrain_die_per_defender", "bridge_over_stream", "exchange_value",
        "exchange_advance", "adjacent_bombardment", "ridge_distance", "line_along_hexside",
        "diversion_arms", "woodland_artillery_hex", "face_down_terrain", "retreat_off_map",
        "screened_deployment", "wipe_out")},
    **{entry: ADVANCED for entry in (
        "charge_allowance", "standing_charge", "charge_choice", "open_ground", "slip_cost",
        "morale_base", "morale_threshold")},
    "scenario_iv_options": {"scenario": "IV"},
    **{entry: {"scenario": "VI"} for entry in (
        "vi_early_end", "vi_entry", "escaped_morale", "night_battles")},
    "scenario_viii_morale": {"scenario": "VIII"},
    **{entry: {"scenario": "X"} for entry in (
        "scenario_x_reserve", "scenario_x_reserve_turn", "scenario_x_rates",
        "scenario_x_face_down", "scenario_x_margin")},
}


@functools.cache
def _book(scenario: str | None = None, options: str | None = None) -> cortes_rules.Rulebook:
    kwargs = {k: v for k, v in (("scenario", scenario), ("options", options)) if v}
    return cortes_rules.load(GS, **kwargs)  # type: ignore[arg-type]


@pytest.fixture(scope="module")
def book() -> cortes_rules.Rulebook:
    return _book()


@pytest.mark.rule("I.1", rulebook=GS)
def test_the_registry_holds_at_least_35_complete_entries(book: cortes_rules.Rulebook) -> None:
    entries = book.interpretations
    assert len(entries) >= 35
    assert len({e.id for e in entries}) == len(entries)
    for entry in entries:
        assert entry.rules and entry.says and entry.readings, entry.id
        assert entry.default in {r.name for r in entry.readings}, entry.id
        assert entry.because, entry.id          # why the reading we follow
        for number in entry.rules:
            _book(options="all").rule(number)   # each names rules the rulebook states
    kinds = {e.kind for e in entries}
    assert {"contradiction", "gap", "example", "wrong_reference", "numbering", "omission",
            "choice"} <= kinds


@pytest.mark.rule("I.1", rulebook=GS)
def test_every_interpretation_the_rules_cite_is_in_the_registry(
        book: cortes_rules.Rulebook) -> None:
    ids = {e.id for e in book.interpretations}
    cited: set[str] = set()
    for path in RULES.glob("*.rules"):
        if path.name == "interpretations.rules":
            continue
        text = path.read_text(encoding="utf-8")
        # A comment may wrap a citation onto its next line.
        text = re.sub(r"\n\s*#\s*", " ", text)
        for match in re.finditer(r"\binterpretations? ((?:[a-z][a-z0-9_]*(?:,? and |, )?)+)",
                                 text):
            cited.update(name for name in re.split(r",? and |, ", match.group(1)) if "_" in name)
        cited.update(re.findall(r"reading ([a-z][a-z0-9_]*) is", text))
    assert {"roll_above_six", "ridge_distance", "charge_choice", "line_along_hexside",
            "forest_cost", "hill_terrain"} <= cited
    assert cited <= ids, sorted(cited - ids)


@pytest.mark.rule("I.1", rulebook=GS)
def test_every_reading_that_changes_play_is_a_load_option_with_a_test(
        book: cortes_rules.Rulebook) -> None:
    several = {e.id for e in book.interpretations if len(e.readings) > 1}
    assert several == set(OPTION_LOADS)
    tests = "\n".join(p.read_text(encoding="utf-8") for p in TESTS.glob("test_*.py")
                      if p.name != Path(__file__).name)
    tests += (ROOT / "tests" / "games" / "test_gs_random_games.py").read_text(encoding="utf-8")
    for entry_id, load in OPTION_LOADS.items():
        loaded = _book(load.get("scenario"), load.get("options"))
        entry = loaded.interpretation(entry_id)
        assert registry.status(loaded, entry) == "option", entry_id
        # A test loads the entry with each of its readings other than the default.
        assert entry_id in tests, entry_id
        for reading in entry.readings:
            if reading.name != entry.default:
                assert f'"{reading.name}"' in tests, (entry_id, reading.name)


@pytest.mark.rule("I.1", rulebook=GS)
def test_the_cli_lists_the_registry(book: cortes_rules.Rulebook,
                                    capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["interpretations", GS]) == 0
    out = capsys.readouterr().out
    count = len(book.interpretations)
    assert count >= 35 and out.rstrip().endswith(f"{count} interpretations")
    for entry_id in ("roll_above_six", "ridge_distance", "charge_choice", "line_along_hexside",
                     "charge_allowance", "vi_early_end"):
        assert f"\n{entry_id}: " in out
    assert "    printed (default): A charge may follow a move of at most 2" in out


@pytest.mark.rule("I.1", rulebook=GS)
def test_the_registry_is_in_english(book: cortes_rules.Rulebook) -> None:
    french = re.compile(r"\b(les|des|une|est|dans|pour|avec|sont|qui|doit)\b")
    for entry in book.interpretations:
        texts = [entry.title, entry.says, entry.because or ""] + [r.text for r in entry.readings]
        for text in texts:
            assert not french.search(text), (entry.id, text)
