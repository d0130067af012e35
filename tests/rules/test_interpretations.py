"""The interpretations registry (issue 6, item 6): entries, readings as load
options (each tested both ways), the checks on them, the CLI and the page."""

from __future__ import annotations

import json
import shutil
from collections.abc import Callable, Mapping
from pathlib import Path

import pytest

import strategies as S

import cortes_rules
from cortes_rules import CortesRulesError, IllegalActionError, registry
from cortes_rules.cli import main
from cortes_rules.engine.machine import GameState
from cortes_rules.errors import RulesCheckError, StartError
from cortes_rules.loader import check_path

ROOT = Path(__file__).resolve().parents[2]
CORTES = ROOT / "rulebook" / "cortes"


@pytest.fixture(scope="module")
def books() -> Callable[..., cortes_rules.Rulebook]:
    """``books(entry=reading)``: the Cortés rulebook loaded with those readings (cached)."""
    cache: dict[tuple[tuple[str, str], ...], cortes_rules.Rulebook] = {}

    def get(**readings: str) -> cortes_rules.Rulebook:
        key = tuple(sorted(readings.items()))
        if key not in cache:
            cache[key] = cortes_rules.load("cortes", readings=readings)
        return cache[key]

    return get


def play(book: cortes_rules.Rulebook, positions: Mapping[str, str], *,
         phase: str = "spanish_land_movement", steps: Mapping[str, int] | None = None
         ) -> GameState:
    state = book.new_game(positions=dict(positions))
    for uid, n in (steps or {}).items():
        state.set_attribute(uid, "steps", n)
    for _ in range(17):
        if state.phase == phase:
            return state
        state.apply("end")
    raise AssertionError(f"never reached {phase}")


def refused(state: GameState, text: str) -> tuple[str, ...]:
    with pytest.raises(IllegalActionError) as caught:
        state.apply(text)
    return caught.value.rules


# ------------------------------------------------------------------ the registry
@pytest.mark.rule("14.0")
def test_the_registry_holds_more_than_forty_complete_entries(book) -> None:
    entries = book.interpretations
    assert len(entries) > 40
    for entry in entries:
        assert entry.rules, entry.id
        assert entry.readings, entry.id
        assert entry.says, entry.id
        assert entry.default in {r.name for r in entry.readings}, entry.id
        if len(entry.readings) > 1:
            assert entry.because, entry.id
    assert len({e.id for e in entries}) == len(entries)
    kinds = {e.kind for e in entries}
    assert {"contradiction", "gap", "undefined_term", "wrong_reference", "example",
            "summary", "numbering"} <= kinds


@pytest.mark.rule("7.20")
def test_the_known_defects_are_recorded(book) -> None:
    zone5 = book.interpretation("zone5_reach")
    assert zone5.rules == ("7.20",) and zone5.kind == "contradiction"
    assert zone5.default == "only_nine" and zone5.reading("three_and_nine") is not None
    assert book.interpretation("concentric_number").kind == "numbering"
    assert "11.6" in book.interpretation("cannons_without_11_6").rules
    assert book.interpretation("completely_surrounded").rules == ("10.4",)
    assert {"compulsory", "waivable"} == {
        r.name for r in book.interpretation("overstack_compulsory").readings}
    assert "6.7" in book.interpretation("overstack_destination").rules


@pytest.mark.rule("6.7")
def test_readings_default_and_chosen(books) -> None:
    plain = books()
    assert plain.readings["minimum_move"] == "first_hex"
    assert plain.readings["overstack_compulsory"] == "compulsory"
    assert set(plain.readings) == {e.id for e in plain.interpretations}
    chosen = books(minimum_move="any_points_left")
    assert chosen.readings["minimum_move"] == "any_points_left"
    assert chosen.readings["loss_order"] == "defender_first"
    assert chosen.evaluate("reading minimum_move is any_points_left") is True
    assert plain.evaluate("reading minimum_move is any_points_left") is False


@pytest.mark.rule("7.3")
@pytest.mark.parametrize(("readings", "words"), [
    ({"no_such_entry": "x"}, ["no interpretation 'no_such_entry'", "minimum_move",
                              "zone5_reach"]),
    ({"minimum_move": "sometimes"}, ["interpretation minimum_move has no reading "
                                     "'sometimes'", "first_hex, any_points_left"]),
    ({"minimum_move": 3}, ["a mapping of strings to strings", "'minimum_move': int 3"]),
])
def test_a_bad_reading_is_refused_with_the_valid_ones(readings, words) -> None:
    with pytest.raises(CortesRulesError) as caught:
        cortes_rules.load("cortes", readings=readings)
    for word in words:
        assert word in str(caught.value)


@pytest.mark.rule("7.16")
def test_the_clauses_that_depend_on_each_option(book) -> None:
    assert book.depends_on("minimum_move") == ("7.3",)
    assert book.depends_on("uncounted_with_allies") == ("6.2",)
    assert book.depends_on("advance_terrain") == ("7.13", "7.16")
    assert book.depends_on("causeway_exit") == ("7.16",)
    assert book.depends_on("loss_order") == ("8.19",)
    assert book.depends_on("causeway_rate_ends") == ("7.16",)
    options = {e.id for e in book.interpretations if registry.status(book, e) == "option"}
    assert book.depends_on("units_9_to_11_setup") == ("3.2",)
    assert book.depends_on("setup_overstack_minimum") == ("3.2",)
    assert book.depends_on("setup_distance") == ("3.3",)
    assert book.depends_on("setup_causeways") == ("3.3",)
    assert book.depends_on("completely_surrounded") == ("10.4",)
    assert book.depends_on("rr_acceptance") == ("4.5",)
    assert options == {"minimum_move", "uncounted_with_allies", "advance_terrain",
                       "causeway_exit", "loss_order", "causeway_rate_ends", "zone5_reach",
                       # the set-up readings are tested both ways in test_03_setup.py
                       "units_9_to_11_setup", "setup_overstack_minimum", "setup_distance",
                       "setup_causeways",
                       "completely_surrounded", "rr_acceptance", "objection_lake_units",
                       "desertion_once", "aztec_withdrawal_rolls", "overstack_leaders",
                       # tested both ways in test_08_combat_procedure.py
                       "beginner_fog", "cannon_zero",
                       # tested both ways in test_lake_movement.py and test_lake_combat.py
                       "disembark_anywhere", "bombardment_limit", "doubled_zero",
                       "bombardment_capture",
                       # tested both ways in test_leaving_and_confinement.py
                       "cuauhtemoc_release", "cuauhtemoc_counts_himself", "tepeyac_leavers",
                       # tested both ways in test_lake_movement.py
                       "landing_on_causeways",
                       # tested both ways in test_08_09_battle_rules.py
                       "stepless_attackers",
                       # tested both ways in test_10_interphase.py
                       "deserters_on_map", "acachinango_redeployment", "tepeyac_distance",
                       "recovered_join_kept"}
    recorded = registry.record(book, book.interpretation("overstack_compulsory"))
    assert recorded["status"] == "recorded"
    assert recorded["changes"] == []


# ------------------------------------------------------------------ each option both ways
@pytest.mark.rule("6.2")
def test_6_2_cortes_and_cannons_with_allies_both_ways(books) -> None:
    banned, allowed = books(), books(uncounted_with_allies="allowed")
    for other in ("Cortes", "S25"):  # Cortés; a cannon
        positions = {other: "1110", "S30": "1110"}
        with pytest.raises(StartError) as caught:
            banned.new_game(positions=positions)
        assert "6.2" in str(caught.value)
        allowed.new_game(positions=positions)  # no breach
    # Infantry and allies never share a hex under either reading.
    for book in (banned, allowed):
        with pytest.raises(StartError):
            book.new_game(positions={"S1": "1110", "S30": "1110"})


@pytest.mark.rule("7.3")
def test_7_3_minimum_move_both_ways(books) -> None:
    for reading, allowed in (("first_hex", False), ("any_points_left", True)):
        state = play(books(minimum_move=reading), {"S1": "1219"})  # infantry, 4 MP
        for hex_id in ("1220", "1221", "1222"):
            state.apply(f"move S1 {hex_id}")
        assert state.attribute("S1", "spent") == 3  # 1 MP left; 1322 costs 2
        if allowed:
            state.apply("move S1 1322")
            assert state.place_of("S1") == "1322" and state.attribute("S1", "spent") == 4
            assert "7.3" in S.move_entry(state.log, "S1").rules
            assert not any(a.kind == "move" for a in state.legal_actions())
        else:
            assert "7.1" in refused(state, "move S1 1322")


@pytest.mark.rule("7.16")
def test_7_16_leaving_a_causeway_hex_both_ways(books) -> None:
    strict = play(books(), {"S1": "2910"})
    assert "7.16" in refused(strict, "move S1 2909")
    loose = play(books(causeway_exit="any_hexside"), {"S1": "2910"})
    loose.apply("move S1 2909")  # across a hexside no causeway crosses
    assert loose.place_of("S1") == "2909"
    # Entering a causeway hex stays restricted under both readings.
    for book in (books(), books(causeway_exit="any_hexside")):
        state = play(book, {"S1": "2909"})
        assert "7.16" in refused(state, "move S1 3010")


@pytest.mark.rule("7.16")
def test_7_16_causeway_rate_at_the_ends_both_ways(books) -> None:
    # 1305 is a causeway hex, 1205 the clear hex where the causeway ends.
    for reading, cost in (("causeway_hexes", 1), ("any_crossing", 2)):
        state = play(books(causeway_rate_ends=reading), {"S1": "1305"})
        state.apply("move S1 1205")
        assert state.attribute("S1", "spent") == cost, reading
    # Between two causeway hexes both readings charge the Spanish rate, 2.
    for reading in ("causeway_hexes", "any_crossing"):
        state = play(books(causeway_rate_ends=reading), {"S1": "1305"})
        state.apply("move S1 1406")
        assert state.attribute("S1", "spent") == 2, reading


def _cavalry_emptied_chinampa(book: cortes_rules.Rulebook) -> GameState:
    """S9 (cavalry) has emptied the chinampa hex 3020, attacking from 3021 off any causeway."""
    state = play(book, {"S9": "3021", "A11": "3020"}, phase="spanish_land_combat",
                 steps={"A11": 1})
    state.apply("attack 3020")
    state.apply("join S9")
    state.apply("resolve")
    state.apply("roll 12")
    for side in ("aztec", "spanish"):
        while state.current_player == side and S.kinds(state) == {"lose"}:
            state.apply(state.legal_actions()[0])
    assert state.place_of("A11") == "dead.aztec"
    return state


@pytest.mark.rule("8.23")
def test_8_23_terrain_bans_on_the_advance_both_ways(books) -> None:
    applied = _cavalry_emptied_chinampa(books())
    assert "7.13" in refused(applied, "advance S9")
    lifted = _cavalry_emptied_chinampa(books(advance_terrain="bans_lifted"))
    lifted.apply("advance S9")
    assert lifted.place_of("S9") == "3020"
    # A move is still bound by 7.13 under either reading.
    for book in (books(), books(advance_terrain="bans_lifted")):
        assert refused(play(book, {"S9": "3021"}), "move S9 3020") == ("7.13",)


@pytest.mark.rule("8.19")
def test_8_19_loss_order_both_ways(books) -> None:
    for reading, first, second in (("defender_first", "aztec", "spanish"),
                                   ("attacker_first", "spanish", "aztec")):
        state = play(books(loss_order=reading), {"S1": "1110", "A11": "1111"},
                     phase="spanish_land_combat")
        state.apply("attack 1111")
        state.apply("join S1")
        state.apply("resolve")
        state.apply("roll 3")  # 2:1 (7 vs 3), 3: 3/2
        assert state.current_player == first
        assert S.kinds(state) == {"lose"}
        while state.current_player == first and S.kinds(state) == {"lose"}:
            state.apply(state.legal_actions()[0])
        assert state.current_player == second and S.kinds(state) == {"lose"}


# ------------------------------------------------------------------ the language
def _rulebook_with(tmp_path: Path, extra: str, name: str = "zz-extra.rules") -> Path:
    folder = tmp_path / "cortes"
    shutil.copytree(CORTES, folder)
    (folder / name).write_text(extra, encoding="utf-8")
    return folder


@pytest.mark.rule("7.3")
@pytest.mark.parametrize(("extra", "message", "caret"), [
    ('rule 99.1 "Test" {\n  summary "s"\n'
     '  forbid move when reading minimum_moves is first_hex\n}\n',
     "unknown interpretation 'minimum_moves'; did you mean 'minimum_move'?", "^"),
    ('rule 99.1 "Test" {\n  summary "s"\n  when reading minimum_move is sometimes {\n'
     '    forbid move when unit is cannon\n  }\n}\n',
     "interpretation minimum_move has no reading 'sometimes' (readings: first_hex, "
     "any_points_left)", "^"),
])
def test_an_unknown_entry_or_reading_is_a_check_error(tmp_path, extra, message, caret) -> None:
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(_rulebook_with(tmp_path, extra))
    found = [d for d in caught.value.diagnostics if message in d.message]
    assert found, [d.message for d in caught.value.diagnostics]
    diagnostic = found[0]
    assert diagnostic.rule == "99.1" and diagnostic.span.path.endswith("zz-extra.rules")
    rendered = diagnostic.render()
    assert "zz-extra.rules:3:" in rendered and caret in rendered and "[rule 99.1]" in rendered


@pytest.mark.rule("7.3")
def test_statements_of_a_reading_not_chosen_are_checked_too(tmp_path, capsys) -> None:
    """``check`` (and ``load(every_reading=True)``) check every reading; a plain
    load checks the readings it runs, and refuses the broken one once chosen."""
    extra = ('rule 99.1 "Test" {\n  summary "s"\n'
             '  when reading minimum_move is any_points_left {\n'
             '    forbid move when unit is no_such_class\n  }\n}\n')
    folder = _rulebook_with(tmp_path, extra)
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(folder, every_reading=True)
    assert any("no_such_class" in d.message for d in caught.value.diagnostics)
    assert any("no_such_class" in d.message for d in check_path(folder))
    assert main(["check", str(folder)]) == 1
    assert "no_such_class" in capsys.readouterr().err
    cortes_rules.load(folder)  # the default reading runs, and it is sound
    with pytest.raises(RulesCheckError) as chosen:
        cortes_rules.load(folder, readings={"minimum_move": "any_points_left"})
    assert any("no_such_class" in d.message for d in chosen.value.diagnostics)


@pytest.mark.rule("14.0")
@pytest.mark.parametrize(("entry", "message"), [
    ('interpretation x "X" {\n  says "s"\n  reading a "A" default\n}\n', "names no rule"),
    ('interpretation x "X" {\n  rules 7.3\n  reading a "A" default\n}\n',
     "does not say what the text says"),
    ('interpretation x "X" {\n  rules 7.3\n  says "s"\n}\n', "has no reading"),
    ('interpretation x "X" {\n  rules 7.3\n  says "s"\n  reading a "A"\n  reading b "B"\n'
     '  because "c"\n}\n', "none is marked 'default'"),
    ('interpretation x "X" {\n  rules 7.3\n  says "s"\n  reading a "A" default\n'
     '  reading b "B" default\n  because "c"\n}\n', "only one reading may be the default"),
    ('interpretation x "X" {\n  rules 7.3\n  says "s"\n  reading a "A" default\n'
     '  reading b "B"\n}\n', "does not say why its default"),
    ('interpretation x "X" {\n  rules 7.3\n  kind typo\n  says "s"\n  reading a "A"\n}\n',
     "unknown kind of defect 'typo'"),
    ('interpretation minimum_move "X" {\n  rules 7.3\n  says "s"\n  reading a "A"\n}\n',
     "interpretation minimum_move is declared twice"),
])
def test_incomplete_entries_are_check_errors(tmp_path, entry, message) -> None:
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load(_rulebook_with(tmp_path, entry))
    assert any(message in d.message and d.span.path.endswith("zz-extra.rules")
               for d in caught.value.diagnostics), [d.message for d in caught.value.diagnostics]


@pytest.mark.rule("14.0")
def test_a_choice_the_text_offers_is_an_entry_of_kind_choice(tmp_path) -> None:
    entry = ('interpretation pace "How fast to play" {\n  rules 7.3\n  kind choice\n'
             '  says "The players may agree to a slow or a fast game."\n'
             '  reading slow "A slow game." default\n  reading fast "A fast game."\n'
             '  because "The text names the slow game first."\n}\n')
    book = cortes_rules.load(_rulebook_with(tmp_path, entry), readings={"pace": "fast"})
    assert book.interpretation("pace").kind == "choice"
    assert book.readings["pace"] == "fast"


@pytest.mark.rule("7.20")
def test_map_lines_may_depend_on_a_reading(tmp_path) -> None:
    text = (CORTES / "map.rules").read_text(encoding="utf-8")
    end = text.rindex("}")
    guarded = "  when reading zone5_reach is three_and_nine {\n    zone 5 touches 3\n  }\n"
    path = tmp_path / "map.rules"
    path.write_text(text[:end] + guarded + text[end:], encoding="utf-8")
    plain = cortes_rules.load("cortes", map=str(path))
    wide = cortes_rules.load("cortes", map=str(path), readings={"zone5_reach": "three_and_nine"})
    assert 3 not in plain.program.map.zone_touches.get(5, frozenset())
    assert 3 in wide.program.map.zone_touches[5] and 9 in wide.program.map.zone_touches[5]
    assert registry.status(wide, wide.interpretation("zone5_reach")) == "option"


@pytest.mark.rule("8.19")
def test_cortes_rules_rule_shows_the_reading_as_written(capsys) -> None:
    assert main(["rule", "7.3"]) == 0
    out = capsys.readouterr().out
    assert "Depends on interpretation minimum_move" in out
    assert "when reading minimum_move is first_hex {" in out
    assert "permit move despite 7.1 when unit.moved == 0" in out


# ------------------------------------------------------------------ CLI and docs
@pytest.mark.rule("14.0")
def test_the_cli_lists_the_registry(book, capsys) -> None:
    assert main(["interpretations"]) == 0
    out = capsys.readouterr().out
    for entry in book.interpretations:
        assert f"{entry.id}: {entry.title}" in out
        assert f"  rules: {', '.join(entry.rules)}" in out
    assert "    only_nine (default): Zone 5 touches zone 9 only." in out
    assert "load option: changes 7.3" in out
    assert out.rstrip().endswith(f"{len(book.interpretations)} interpretations")


@pytest.mark.rule("14.0")
def test_the_cli_lists_the_registry_as_json(book, capsys) -> None:
    assert main(["interpretations", "cortes", "--json"]) == 0
    items = json.loads(capsys.readouterr().out)
    assert [i["id"] for i in items] == [e.id for e in book.interpretations]
    zone5 = next(i for i in items if i["id"] == "zone5_reach")
    assert zone5["rules"] == ["7.20"] and zone5["default"] == "only_nine"
    assert [r["name"] for r in zone5["readings"]] == ["only_nine", "three_and_nine"]
    assert all(i["rules"] and i["readings"] and i["default"] for i in items)


@pytest.mark.rule("14.0")
def test_the_cli_refuses_an_unknown_rulebook(capsys) -> None:
    assert main(["interpretations", "nowhere"]) == 1
    assert "no rulebook 'nowhere'" in capsys.readouterr().err


@pytest.mark.rule("14.0")
def test_the_docs_page_is_generated_from_the_registry(book) -> None:
    config = (ROOT / "mkdocs.yml").read_text(encoding="utf-8")
    assert "hooks:\n  - mkdocs_hooks/interpretations.py" in config
    assert "interpretations.md" in config
    assert not (ROOT / "docs" / "interpretations.md").exists()  # built, never kept
    page = registry.markdown(book)
    assert page.startswith("# Interpretations\n")
    for entry in book.interpretations:
        assert f"### {entry.id}\n" in page and entry.title in page
        for reading in entry.readings:
            assert f"- `{reading.name}`" in page
    assert "## Notes in the data files" in page


@pytest.mark.rule("8.19")
def test_the_old_free_text_interpretation_points_to_the_registry(tmp_path) -> None:
    from cortes_rules.errors import RulesSyntaxError

    extra = 'rule 99.1 "Test" {\n  summary "s"\n  interpretation "some reading"\n}\n'
    with pytest.raises(RulesSyntaxError) as caught:
        cortes_rules.load(_rulebook_with(tmp_path, extra))
    diagnostic = caught.value.diagnostics[0]
    assert "interpretations registry" in diagnostic.message
    assert diagnostic.span.line == 3 and diagnostic.rule == "99.1"
