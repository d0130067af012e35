"""Game records of version 2 (docs/records.md): headers, position blocks,
comments, replay to a ply, verify, and the records of version 1 still read.

The round trips play 200 short random games of each shipped rulebook
(with ``--slow``, as CI runs them; 40 without, tests/budgets.py)
(Cortés with the veterans' options, Grands Stratèges in its first scenario),
write each as a record, read it back and replay it.
"""

from __future__ import annotations

import random
import shutil
from pathlib import Path

import pytest
from budgets import budget
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import GameState
from cortes_rules.record import (Failure, book_of, format_record, parse_record, read_record,
                                 record_of, replay, rulebook_digest, verify)
from cortes_rules.record_text import MAGIC, VERSION
from cli_run import run_cli

ROOT = Path(__file__).resolve().parents[2]
OLD = sorted((ROOT / "tests" / "fixtures" / "records").glob("v1-*.record"))
SHIPPED = sorted((ROOT / "rulebook").glob("*/*.record"))
HEAD = f"{MAGIC} {VERSION}\nrulebook cortes\n"
GAMES = budget(200, 40)   # random games per rulebook (tests/budgets.py)


@pytest.fixture(scope="module")
def veteran() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes", options="veteran")


@pytest.fixture(scope="module")
def strateges() -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges")


def _random_game(book: cortes_rules.Rulebook, seed: int) -> GameState:
    """A short random game: a set-up (or none), a few random actions, sometimes
    restarted from its position in notation (a record that starts from a position)."""
    chooser = random.Random(seed)
    setups: list[str | None] = [*book.setups] or [None]
    state = book.new_game(seed=seed, setup=chooser.choice(setups), turn_limit=1)
    if chooser.random() < 0.25:
        for _ in range(chooser.randrange(6)):
            _step(state, chooser)
        state = book.position(state.to_notation())
    for _ in range(chooser.randrange(12)):
        _step(state, chooser)
    return state


def _step(state: GameState, chooser: random.Random) -> None:
    if state.is_terminal():
        return
    if state.is_chance_node():
        state.apply_chance()
        return
    ids = state.legal_action_ids()
    state.apply(ids[chooser.randrange(len(ids))])


def _round_trip(book: cortes_rules.Rulebook, seed: int) -> None:
    state = _random_game(book, seed)
    text = format_record(state)
    record = parse_record(text, f"game-{seed}.record")
    assert record.warnings == ()
    again = replay(record)
    assert again.to_notation() == state.to_notation(), seed
    assert again.history == state.history, seed
    assert record.to_text() == text
    assert format_record(again) == text


@pytest.mark.rule("4.1")
def test_random_cortes_games_round_trip_through_records(veteran: cortes_rules.Rulebook) -> None:
    for seed in range(GAMES):
        _round_trip(veteran, seed)


@pytest.mark.rule("4.1")
def test_random_grands_strateges_games_round_trip_through_records(
        strateges: cortes_rules.Rulebook) -> None:
    for seed in range(GAMES):
        _round_trip(strateges, seed)


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("path", OLD + SHIPPED, ids=lambda p: p.name)
def test_records_of_version_1_still_read_and_upgrade(path: Path) -> None:
    record = read_record(path)
    assert record.version == 1
    state = replay(record)
    upgraded = record.to_text()
    assert upgraded.startswith(f"{MAGIC} {VERSION}\n")
    again = parse_record(upgraded, "upgraded.record")
    assert again.version == VERSION
    assert [a for _, a in again.actions] == [a for _, a in record.actions]
    assert [(n, a) for _, n, a in again.questions] == [(n, a) for _, n, a in record.questions]
    assert replay(again).to_notation() == state.to_notation()
    assert again.to_text() == upgraded


@pytest.mark.rule("4.1")
def test_comments_are_kept_and_written_back() -> None:
    text = (HEAD + "# among the headers\nseed 4\nsetup demo\n# before the first action\n"
            "end  # the lake phase passes\nmove S9 3011\n? move S2 2910  # no causeway\n"
            "# at the end\n")
    record = parse_record(text, "c.record")
    assert record.head_comments == (" among the headers",)
    kinds = [(e.kind, e.comment) for e in record.entries]
    assert kinds == [("comment", " before the first action"),
                     ("action", " the lake phase passes"), ("action", None),
                     ("question", " no causeway"), ("comment", " at the end")]
    written = record.to_text()
    assert "end  # the lake phase passes\n" in written
    assert "? move S2 2910  # no causeway\n" in written
    assert parse_record(written, "c.record").to_text() == written


@pytest.mark.rule("11.9")
def test_options_readings_and_scenario_round_trip() -> None:
    book = cortes_rules.load("cortes", options="veteran",
                             readings={"minimum_move": "any_points_left"})
    text = format_record(book.new_game(seed=2, setup="demo"))
    assert "options 8.24 8.25 11.1 " in text and "11.9" in text
    assert "reading minimum_move any_points_left\n" in text
    loaded = book_of(parse_record(text, "o.record"))
    assert loaded.program.options == book.program.options
    assert loaded.readings == book.readings
    fourth = cortes_rules.load("grands_strateges", scenario="IV")
    text = format_record(fourth.new_game(seed=1))
    assert "\nscenario IV\n" in text
    assert book_of(parse_record(text, "s.record")).scenario == "IV"
    presets = parse_record(HEAD + "options veteran\nseed 1\nsetup demo\n", "p.record", book)
    assert presets.warnings == ()   # a preset names the options it switches on


@pytest.mark.rule("4.1")
def test_another_rulebook_version_or_options_give_a_warning(
        book: cortes_rules.Rulebook) -> None:
    text = format_record(book.new_game(seed=1, setup="demo"))
    assert f"rulebook-digest {rulebook_digest(book)}\n" in text
    assert parse_record(text, "d.record").warnings == ()
    changed = text.replace(rulebook_digest(book), "0123456789abcdef")
    [warning] = parse_record(changed, "d.record").warnings
    assert "version 0123456789abcdef" in warning and rulebook_digest(book) in warning
    replay(parse_record(changed, "d.record"))   # a warning, not an error
    [other] = parse_record(text.replace("seed 1", "options 11.9\nseed 1"), "d.record",
                           book).warnings
    assert "options 11.9" in other
    strateges = cortes_rules.load("grands_strateges")
    misnamed = parse_record(f"{MAGIC} 2\nrulebook cortes\nseed 1\n", "n.record", strateges)
    assert any("rulebook cortes" in w and "grands_strateges" in w for w in misnamed.warnings)


@pytest.mark.rule("7.16")
def test_verify_reports_the_first_illegal_action_with_its_ply_line_and_rules() -> None:
    text = HEAD + "seed 1\nsetup demo\nend\nmove S9 3011\n# a comment\nmove S2 2910\nend\n"
    found = verify(parse_record(text, "v.record"))
    assert not found.ok
    failure = found.failure
    assert isinstance(failure, Failure)
    assert (failure.ply, failure.line, failure.action) == (3, 8, "move S2 2910")
    assert failure.rules == ("7.16",)
    assert str(failure).startswith("line 8, ply 3: move S2 2910 is illegal: [7.16] ")
    assert found.played == 2 and found.total == 4
    assert found.state.history[-1].kind == "move"   # the state before the failure
    good = verify(parse_record(text.replace("move S2 2910\n", ""), "v.record"))
    assert good.ok and good.failure is None and good.played == good.total == 3


@pytest.mark.rule("8.18")
def test_replay_stops_at_any_ply() -> None:
    record = read_record(ROOT / "rulebook" / "cortes" / "demo.record")
    whole = replay(record)
    for ply in (0, 1, 9, len(record.actions)):
        state = replay(record, to_ply=ply)
        assert [a for a in state.history if not a.is_chance] == \
            [a for _, a in record.actions[:ply]]
    assert replay(record, to_ply=len(record.actions)).to_notation() == whole.to_notation()
    for bad in (-1, len(record.actions) + 1):
        with pytest.raises(cortes_rules.CortesRulesError, match="ply"):
            replay(record, to_ply=bad)


@pytest.mark.rule("4.1")
def test_a_game_started_from_a_position_is_recorded_with_its_position(
        book: cortes_rules.Rulebook) -> None:
    first = book.new_game(seed=5, setup="demo")
    first.apply("end")
    state = book.position(first.to_notation())
    state.apply("move S9 3011")
    text = format_record(state)
    assert "\nposition\n| rulebook cortes\n" in text and "\nsetup " not in text
    assert "\nseed " not in text.split("position")[0]   # the position holds the seed
    record = parse_record(text, "p.record")
    assert record.position == first.to_notation()
    again = replay(record)
    assert again.to_notation() == state.to_notation()
    assert [str(a) for a in again.history] == ["move S9 3011"]
    placed = book.new_game(seed=3, positions={"S9": "3011", "A11": "3012"})
    written = record_of(placed)
    assert written.setup is None and written.position is not None
    assert replay(parse_record(written.to_text())).to_notation() == placed.to_notation()
    with pytest.raises(cortes_rules.RecordError, match="own seed"):
        replay(record, seed=4)


_MALFORMED = [
    # (text, line of the error, a word of the message)
    (f"{MAGIC} 3\n", 1, "newer"),
    (f"{MAGIC} two\n", 1, "version line"),
    (f"{MAGIC}\n", 1, "version line"),
    ("Cortes-Rules-Record 2\n", 1, "first line"),
    (f"{MAGIC} 0\n", 1, "version line"),
    (f"\n\n# a comment\n{MAGIC} 9\n", 4, "newer"),
    (HEAD + "seed x\n", 3, "whole numbers"),
    (HEAD + "seed 01\n", 3, "whole numbers"),
    (HEAD + "seed 1\nseed 2\n", 4, "twice"),
    (HEAD + "turn-limit 0\n", 3, "at least 1"),
    (HEAD + "turn-limit\n", 3, "one word"),
    (HEAD + "setup nowhere\n", 3, "no set-up"),
    (f"{MAGIC} 2\nrulebook nowhere\n", 2, "no rulebook"),
    (HEAD + "options 11.99\n", 3, "11.99"),
    (HEAD + "options\n", 3, "at least one option"),
    (HEAD + "reading minimum_move\n", 3, "reading ENTRY READING"),
    (HEAD + "reading minimum_move a\nreading minimum_move b\n", 4, "twice"),
    (HEAD + "rulebook-digest xyz\n", 3, "hexadecimal"),
    (HEAD + "setup demo\nposition\n| rulebook cortes\n", 3, "cannot both"),
    (HEAD + "position\n", 3, "empty position block"),
    (HEAD + "position\nend\n", 3, "empty"),
    (HEAD + "position now\n", 3, "stands alone"),
    (HEAD + "position\n| rulebook cortes\n| seed 1\n| phase nowhere\n", 6, "nowhere"),
    (HEAD + "position\n| rulebook cortes\n| phase spanish_land_movement\n"
     "| at 3011: S9(steps=\n", 6, "position"),
    (HEAD + "position\n| rulebook grands_strateges\n", 4, "grands_strateges"),
    (HEAD + "setup demo\n| at 3011: S9\n", 4, "position block"),
    (HEAD + "setup demo\nmove S9 30\n", 4, "'30'"),
    (HEAD + "setup demo\nend\nseed 3\n", 5, "after the first action"),
    (HEAD + "setup demo\nmove S9 3011 3012\n", 4, "argument"),
    (HEAD + "setup demo\nend\nmove S2 2910\n", 5, "[7.16]"),
    (HEAD + "setup demo\nend\nroll 7\n", 5, "roll 7"),
    (HEAD + "setup demo\nend\nmove S9 3011 # c\nwait\n", 6, "wait"),
    (HEAD + "seed 1\n? fly\n", 4, "fly"),
    ("setup demo\nseed 1\noptions 11.1\n", 3, "not an action"),      # version 1
    ("rulebook cortes\nsetup demo\nturn-limit -1\n", 3, "at least 1"),  # version 1
]


@pytest.mark.rule("4.1")
@pytest.mark.parametrize(("text", "line", "word"), _MALFORMED,
                         ids=[f"case{i}" for i in range(len(_MALFORMED))])
def test_a_malformed_or_truncated_record_is_one_line_naming_file_and_line(
        text: str, line: int, word: str) -> None:
    with pytest.raises(cortes_rules.RecordError) as caught:
        replay(parse_record(text, "bad.record"))
    message = str(caught.value)
    assert "\n" not in message
    assert message.startswith(f"bad.record:{line}: "), message
    assert caught.value.line == line
    assert word in message, message


@pytest.mark.rule("4.1")
def test_the_malformed_records_are_distinct_and_thirty_or_more() -> None:
    texts = [t for t, _, _ in _MALFORMED]
    assert len(set(texts)) == len(texts) >= 30

_WORDS = ["cortes-rules-record", "2", "1", "3", "rulebook", "cortes", "grands_strateges",
          "rulebook-digest", "abcdef0123", "options", "11.9", "veteran", "reading",
          "minimum_move", "any_points_left", "scenario", "IV", "seed", "turn-limit", "setup",
          "demo", "position", "|", "phase", "at", "3011:", "S9", "end", "move", "3011",
          "roll", "7", "?", "#", "-1", "0", "x", "(", "=", '"', "{"]


@pytest.mark.rule("4.1")
@settings(max_examples=150)
@given(st.lists(st.lists(st.sampled_from(_WORDS), max_size=5).map(" ".join), max_size=8),
       st.booleans())
def test_fuzzed_record_text_raises_only_cortes_rules_errors(lines: list[str],
                                                             versioned: bool) -> None:
    text = "\n".join(([f"{MAGIC} 2"] if versioned else []) + lines)
    try:
        found = verify(parse_record(text, "fuzz.record"))
    except cortes_rules.CortesRulesError as error:
        assert "\n" not in str(error)
        return
    assert found.played <= found.total


_WHOLE_RECORD = (f"# a record to damage\n{MAGIC} 2\nrulebook cortes\nposition\n"
                 "| rulebook cortes\n| seed 3\n| phase spanish_land_combat\n"
                 "| at 3011: S1 S9\n| at 3012: A11(steps=1)\nattack 3012  # go\njoin S1\n"
                 "join S9\nresolve\nroll 7\n? move S9 3012\n")


@pytest.mark.rule("8.18")
@settings(max_examples=120)
@given(st.integers(0, len(_WHOLE_RECORD)), st.lists(st.integers(0, 14), max_size=3))
def test_a_truncated_or_cut_record_raises_only_one_line_record_errors(
        cut: int, dropped: list[int]) -> None:
    assert verify(parse_record(_WHOLE_RECORD, "whole.record")).ok
    lines = _WHOLE_RECORD[:cut].split("\n")
    text = "\n".join(ln for i, ln in enumerate(lines) if i not in dropped)
    try:
        found = verify(parse_record(text, "cut.record"))
    except cortes_rules.RecordError as error:
        assert "\n" not in str(error) and str(error).startswith("cut.record:")
        return
    assert found.played <= found.total


@pytest.mark.rule("7.16")
def test_cli_verify_and_replay_of_a_version_2_record(capsys: pytest.CaptureFixture[str],
                                                     tmp_path: Path) -> None:
    good = tmp_path / "good.record"
    good.write_text(HEAD + "seed 1\nsetup demo\nend\nmove S9 3011\n")
    status, out, _ = run_cli(capsys, "verify", str(good))
    assert status == 0 and out.startswith(f"{good}: ok: all 2 actions legal")
    status, out, _ = run_cli(capsys, "replay", str(good), "--to", "1")
    assert status == 0 and "after 1 of its 2 actions" in out
    bad = tmp_path / "bad.record"
    bad.write_text(HEAD + "seed 1\nsetup demo\nend\nmove S2 2910\n")
    status, out, _ = run_cli(capsys, "verify", str(bad))
    assert status == 1
    assert out.startswith(f"{bad}:6: ply 2: 'move S2 2910' is illegal (7.16)")
    broken = tmp_path / "broken.record"
    broken.write_text(HEAD + "seed one\n")
    status, _, err = run_cli(capsys, "verify", str(broken))
    assert status == 1 and err == f"cortes-rules: {broken}:3: seed and turn-limit must be " \
        "whole numbers, not 'one'\n"
    shutil.copy(ROOT / "rulebook" / "cortes" / "demo.record", tmp_path / "demo.record")
    status, out, _ = run_cli(capsys, "verify", str(tmp_path / "demo.record"))
    assert status == 0 and "record version 1" in out


@pytest.mark.rule("11.9")
def test_a_players_view_leaves_out_what_that_player_may_not_see(
        veteran: cortes_rules.Rulebook) -> None:
    chooser = random.Random(7)
    state = veteran.new_game(seed=7, turn_limit=2)
    for _ in range(100):
        _step(state, chooser)
    hidden_somewhere = False
    for player in veteran.players:
        view = format_record(state, player=player)
        assert view.startswith(f"{MAGIC} {VERSION}\nview {player}\n")
        assert "\nseed " not in view
        headers = ("cortes-rules-record", "view", "rulebook", "options", "reading", "setup")
        shown = [ln for ln in view.splitlines()
                 if not ln.startswith("#") and ln.split()[0] not in headers]
        # An independent replay: a piece missing from the player's observation is hidden.
        game = veteran.new_game(seed=7, turn_limit=2)
        expected = []
        for action in state.history:
            actor = game.current_player
            pieces = [a for a in action.args if a in veteran.piece_ids]
            asked = actor != player and pieces
            before = set(game.observation(player)["pieces"]) if asked else set()
            game.apply(action)
            after = set(game.observation(player)["pieces"]) if asked else set()
            secret = bool(asked) and any(p not in before or p not in after for p in pieces)
            hidden_somewhere |= secret
            expected.append(None if secret else str(action))
        assert shown == [e for e in expected if e is not None]
        assert view.count("does not see") == expected.count(None)
        with pytest.raises(cortes_rules.RecordError, match="view of a game, not a record"):
            parse_record(view, "view.record")
    assert hidden_somewhere   # fog of war (11.9) hid something from somebody
    with pytest.raises(cortes_rules.CortesRulesError, match="no player 'nobody'"):
        format_record(state, player="nobody")
