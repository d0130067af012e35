"""Position notation (issue 9): ``GameState.to_notation()`` and ``Rulebook.position(text)``.

The round trip is checked on every position of 200 random games of each
shipped rulebook (with ``--slow``, as CI runs them; 40 without, tests/budgets.py):
Cortés in both set-ups, with and without the veteran options, and Grands
Stratèges in every scenario. A position read back must
behave exactly as the state it was written from: the same text, player,
phase, legal actions and chance outcomes, and, played on with the same
actions (dice from the state's own generator), the same log lines and the
same positions. Then positions set up by hand, and texts that are refused,
each error naming its line.
"""

from __future__ import annotations

import functools
import random
import re

import pytest
from budgets import budget
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import GameState, NotationError, Rulebook

GAMES = budget(200, 40)   # random games per rulebook (tests/budgets.py)
STEPS = 36          # actions per game at most: short games, so that 400 run in a few minutes
REBUILD = 9         # the lockstep copy is read afresh from the position this often
END = 0             # the id of 'end' in both rulebooks (the first action kind declared)


@functools.cache
def rulebook(name: str, options: str = "", scenario: str | None = None) -> Rulebook:
    return cortes_rules.load(name, options=options or (), scenario=scenario)


GS_SCENARIOS = tuple(name for name, _ in rulebook("grands_strateges").scenarios)
CORTES_GAMES = [("demo", ""), ("historical", ""), ("demo", "veteran"),
                ("historical", "veteran")]


def same_now(state: GameState, copy: GameState, text: str) -> None:
    """Everything a caller can ask of two states agrees, and the copy writes ``text``."""
    assert copy.to_notation() == text
    assert copy.current_player == state.current_player
    assert (copy.turn, copy.phase) == (state.turn, state.phase)
    assert copy.is_terminal() == state.is_terminal()
    assert copy.is_chance_node() == state.is_chance_node()
    if state.is_chance_node():
        assert ([(str(a), p) for a, p in copy.chance_outcomes()]
                == [(str(a), p) for a, p in state.chance_outcomes()])
    else:
        assert copy.legal_action_ids() == state.legal_action_ids()
    mine, theirs = state.outcome(), copy.outcome()
    assert (mine is None) == (theirs is None)
    if mine is not None and theirs is not None:
        assert (theirs.winners, theirs.reason, theirs.scores, theirs.details) == (
            mine.winners, mine.reason, mine.scores, mine.details)


def log_lines(state: GameState, n: int) -> list[tuple[str, object]]:
    return [(str(e), e.audience) for e in state.log_tail(n)] if n else []


def play_checked(book: Rulebook, seed: int, setup: str | None) -> int:
    """Play a short random game, checking the round trip at every position.

    Beside the game runs a copy read from its position and played with the
    same actions; it is read afresh every few steps. Returns how many
    positions were checked.
    """
    chooser = random.Random(seed)
    hurry = chooser.choice((0.1, 0.3, 0.6, 0.9))   # how often 'end' is taken when legal
    state = book.new_game(seed=seed, setup=setup, turn_limit=1 + seed % 2)
    shadow: GameState | None = None
    log_start = 0
    checked = 0
    for step in range(STEPS + 1):
        text = state.to_notation()
        copy = book.position(text)
        same_now(state, copy, text)
        assert copy.log == [] and copy.history == []
        if shadow is None or step % REBUILD == 0:
            shadow, log_start = copy, len(state.log)
        else:
            same_now(state, shadow, text)
            new = len(state.log) - log_start
            assert len(shadow.log) == new
            assert log_lines(shadow, new) == log_lines(state, new)
        checked += 1
        if state.is_terminal():
            break
        if state.is_chance_node():
            assert str(shadow.apply_chance()) == str(state.apply_chance())
        else:
            ids = state.legal_action_ids()
            pick = END if END in ids and chooser.random() < hurry else chooser.choice(ids)
            state.apply(pick)
            shadow.apply(pick)
    return checked


@pytest.mark.rule("2.10", "4.1")
@pytest.mark.parametrize(("setup", "options"), CORTES_GAMES)
def test_every_position_of_random_cortes_games_round_trips(setup: str, options: str) -> None:
    book = rulebook("cortes", options)
    games = GAMES // len(CORTES_GAMES)
    checked = sum(play_checked(book, 1000 * k + 7, setup) for k in range(games))
    assert checked > games * 5


@pytest.mark.rule("3.1")
def test_positions_of_the_set_up_stage_round_trip() -> None:
    book = rulebook("cortes")
    assert book.opening_phases                        # no set-up named: the players set up
    checked = sum(play_checked(book, 1000 * k + 5, None) for k in range(3))
    assert checked > 3 * 5


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("scenario", GS_SCENARIOS)
def test_every_position_of_random_grands_strateges_games_round_trips(scenario: str) -> None:
    book = rulebook("grands_strateges", scenario=scenario)
    games = -(-GAMES // len(GS_SCENARIOS))
    checked = sum(play_checked(book, 1000 * k + 11, None) for k in range(games))
    assert checked > games * 5


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_grands_strateges_scenarios_are_all_played() -> None:
    assert len(GS_SCENARIOS) >= 10
    assert -(-GAMES // len(GS_SCENARIOS)) * len(GS_SCENARIOS) >= GAMES


# ----------------------------------------------------------------- by hand

def combat_frames(book: Rulebook) -> list[str]:
    """The frame lines of the demo game at the start of the Spanish land combat phase."""
    state = book.new_game(seed=8, setup="demo")
    while state.phase != "spanish_land_combat":
        state.apply("end")
    return [line for line in state.to_notation().splitlines()
            if line.lstrip().startswith(("frame ", "let "))]


@pytest.mark.rule("2.10", "8.5")
def test_a_position_set_up_by_hand_mid_phase_with_a_reduced_unit_and_a_marker() -> None:
    book = rulebook("cortes")
    head = ["rulebook cortes", "seed 8", "turn 1", "phase spanish_land_combat",
            "at 3010: S1 S9", "at 3011: S30(steps=1)", "at 3012: A11", "at 3013: A12"]
    marked = book.position("\n".join([*head, "place 3012: attacked=true",
                                      *combat_frames(book)]))
    unmarked = book.position("\n".join([*head, *combat_frames(book)]))
    assert marked.attribute("S30", "steps") == 1
    assert marked.evaluate("u.combat", u="S30") < unmarked.evaluate("u.combat", u="S1")
    # 8.5: a hex is attacked once a phase; the marker says it has been.
    assert "attack 3012" in {str(a) for a in unmarked.legal_actions()}
    assert "attack 3012" not in {str(a) for a in marked.legal_actions()}
    assert [r for r, _ in marked.why_illegal("attack 3012")] == ["8.5"]
    assert marked.current_player == "spanish" and marked.phase == "spanish_land_combat"
    assert "place 3012: attacked=true" in marked.to_notation().splitlines()


@pytest.mark.rule("2.10")
def test_editing_a_position_is_setting_the_attribute_on_the_state() -> None:
    book = rulebook("cortes")
    state = book.new_game(seed=8, setup="demo")
    state.apply("end")
    state.apply("move S9 3011")                       # mid-phase: S9's group is moving
    text = state.to_notation()
    assert "at 3010: S1(start=place:3010)\n" in text
    edited = book.position(text.replace("at 3010: S1(start=place:3010)",
                                        "at 3010: S1(steps=1, start=place:3010)"))
    state.set_attribute("S1", "steps", 1)
    assert edited.to_notation() == state.to_notation()
    assert edited.attribute("S1", "steps") == 1
    assert edited.legal_action_ids() == state.legal_action_ids()


@pytest.mark.rule("4.1")
def test_a_position_without_frames_starts_at_the_beginning_of_its_phase() -> None:
    book = rulebook("cortes")
    state = book.new_game(seed=8, setup="demo")
    while state.phase != "spanish_land_combat":
        state.apply("end")
    text = state.to_notation()
    bare = "\n".join(line for line in text.splitlines()
                     if not line.lstrip().startswith(("frame ", "let ")))
    assert "frame" not in bare
    started = book.position(bare)
    assert started.to_notation() == text
    assert started.legal_action_ids() == state.legal_action_ids()


@pytest.mark.rule("4.1")
def test_a_finished_game_keeps_its_outcome_and_offers_nothing() -> None:
    book = rulebook("cortes")
    state = book.new_game(seed=3, setup="demo", turn_limit=1)
    state.random_playout(5)
    assert state.is_terminal()
    text = state.to_notation()
    assert re.search(r'^over "the turn limit \(1\) was reached"$', text, re.M)
    copy = book.position(text)
    assert copy.is_terminal() and copy.legal_action_ids() == []
    outcome, theirs = state.outcome(), copy.outcome()
    assert outcome is not None and theirs is not None
    assert (theirs.winners, theirs.reason, theirs.scores) == (
        outcome.winners, outcome.reason, outcome.scores)
    won = book.position(text.replace("\nat ", "\nwinners aztec\nat ", 1))
    assert won.outcome() is not None and won.outcome().winners == ("aztec",)


@pytest.mark.rule("8.18")
def test_the_dice_state_is_part_of_the_position() -> None:
    book = rulebook("cortes")
    state = book.new_game(seed=8, setup="demo")
    while not state.is_chance_node():
        ids = state.legal_action_ids()
        resolve = book.action_id("resolve")
        attack = [i for i in ids if str(book.action_from_id(i)).startswith(("attack", "join"))]
        state.apply(resolve if resolve in ids else attack[0] if attack else END)
    text = state.to_notation()
    rolls = [book.position(text).apply_chance() for _ in range(2)]
    assert str(rolls[0]) == str(rolls[1]) == str(state.clone().apply_chance())
    other = book.position(re.sub(r"^rng \d+$", "rng 12345", text, flags=re.M))
    seen = {str(other.clone().apply_chance())}
    for n in range(1, 40):
        seen.add(str(book.position(re.sub(r"^rng \d+$", f"rng {n}", text,
                                          flags=re.M)).apply_chance()))
    assert len(seen) > 1                      # the generator's state decides the roll


@pytest.mark.rule("4.1")
def test_equal_states_write_equal_texts_and_comments_are_ignored() -> None:
    book = rulebook("cortes")
    one, two = (book.new_game(seed=4, setup="historical") for _ in range(2))
    for state in (one, two):
        state.random_playout(9, max_actions=12)
    assert one.to_notation() == two.to_notation()
    text = one.to_notation()
    lines = text.splitlines()
    shuffled = [lines[0], "# a comment", "", *reversed([ln for ln in lines[1:]
                                                        if not ln.lstrip().startswith(
                                                            ("frame", "let"))]),
                *[ln for ln in lines if ln.lstrip().startswith(("frame", "let"))]]
    assert book.position("\r\n".join(shuffled)).to_notation() == text


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_a_revealed_piece_and_a_player_tally_round_trip() -> None:
    book = rulebook("grands_strateges", scenario="I")
    state = book.new_game(seed=2, turn_limit=2)
    text = state.to_notation()
    assert "A1" not in state.observation("b")["pieces"]     # b does not see a's units
    assert "\nvalue " in text and "player a:" not in text
    text = text.replace("\nvalue ", "\nplayer a: loss_rate=40\nvalue ", 1)
    text = text.replace("\nframe ", "\nrevealed A1: b\nframe ", 1)
    copy = book.position(text)
    assert copy.to_notation() == text
    assert copy.evaluate("p.loss_rate", p="a") == 40
    assert "A1" in copy.observation("b")["pieces"]
    assert "A2" not in copy.observation("b")["pieces"]


# ----------------------------------------------------------------- refused

def demo_text() -> str:
    state = rulebook("cortes").new_game(seed=8, setup="demo")
    state.apply("end")
    state.apply("move S9 3011")
    return state.to_notation()


def line_of(text: str, start: str) -> int:
    return next(i for i, line in enumerate(text.splitlines(), 1) if line.startswith(start))


BAD = [
    ("rulebook cortes", "rulebook grands_strateges", "of the rulebook 'grands_strateges'"),
    ("seed 8", "seed 8x", "the seed: '8x' is not a whole number"),
    ("rng 8", f"rng {2 ** 64}", "at most"),
    ("turn 1", "turn 0", "the turn must be at least 1"),
    ("phase spanish_land_movement", "phase spanish_land_movment", "did you mean"),
    ("at 3010: S1", "at 3099: S1", "no place '3099' in this rulebook (did you mean"),
    ("at 3010: S1", "at 3010: S99", "no piece 'S99' in this rulebook (did you mean 'S9'?)"),
    ("at 3010: S1", "at 3010: S1(steps=true", "declared int, not true"),
    ("at 3010: S1", "at 3010: S1(stepz=1)", "no attribute 'stepz' (did you mean 'steps'?)"),
    ("at 3011: S9", "at 3011: S1 S9", "listed twice"),
    ("at 3010: S1", 'at 3010: S1(steps="one)', "not closed"),
    ("at 3010: S1", "at 3010: S1(steps=" + "(" * 80 + "1", "nest"),
    ("at 3010: S1", "at 3010: S1(steps=" + "9" * 900 + ")", "too long"),
    ("value moving", "value movin", "no value 'movin'"),
    ("value active_group = place:3010", "value active_group = piece:S1", "declared place"),
    ("value active_group = place:3010", "value active_group = 3010",
     "declared place, not 3010"),
    ("value active_group = place:3010", "value active_group = S1", "'S1' is not a value"),
    ("frame movement", "frame movemnt", "no procedure 'movemnt'"),
    ("frame movement", "frame movement 9999", "at most"),
    ("frame movement", "frame movement 0", "not a decision or a chance event"),
    ("frame turn-sequence", "frame movement", "the first frame is the turn sequence"),
    ("seed 8", "seed 8\nwinners spanish", "describe a game that is over"),
    ("seed 8", "seed 8\nspeed 3", "unknown keyword 'speed'"),
    ("seed 8", "seed 8\nseed 9", "a second 'seed' line"),
    ("seed 8", "seed 8\nlet x = 1", "there is none"),
    ("  let minimum = false", "  let no_such_variable = false", "nothing in it binds"),
    ("seed 8", "seed 8\noptions 11.4", "optional rules 11.4; the rulebook was loaded with none"),
    ("seed 8", "seed 8\nscenario I", "has no scenarios"),
    ("seed 8", "seed 8\nreading no_such_entry x", "no interpretation 'no_such_entry'"),
    ("seed 8", "seed 8\nreading minimum_move nowhere", "has no reading 'nowhere'"),
]


@pytest.mark.rule("7.2")
@pytest.mark.parametrize(("old", "new", "message"), BAD, ids=[b[1][:30] for b in BAD])
def test_a_bad_position_is_refused_naming_its_line(old: str, new: str, message: str) -> None:
    book = rulebook("cortes")
    text = demo_text()
    number = line_of(text, old)
    lines = text.splitlines()
    lines[number - 1] = new      # the line starting with 'old', rewritten
    bad = "\n".join(lines)
    number += new.count("\n")     # the error is on the last line written
    with pytest.raises(NotationError) as caught:
        book.position(bad)
    assert str(caught.value).startswith(f"line {number}: "), str(caught.value)
    assert message in str(caught.value)


@pytest.mark.rule("7.2")
def test_a_position_of_other_options_or_scenario_is_refused() -> None:
    veteran = rulebook("cortes", "veteran").new_game(seed=1, setup="demo").to_notation()
    with pytest.raises(NotationError, match=r"^line 2: .*optional rules 8\.24"):
        rulebook("cortes").position(veteran)
    scenario_two = rulebook("grands_strateges", scenario="II").new_game(seed=1).to_notation()
    with pytest.raises(NotationError, match=r"^line 2: this position is of scenario 'II'"):
        rulebook("grands_strateges", scenario="I").position(scenario_two)
    with pytest.raises(NotationError, match="^line 1: "):
        rulebook("cortes").position("")
    with pytest.raises(NotationError, match="a position is a text"):
        rulebook("cortes").position(42)  # type: ignore[arg-type]


@pytest.mark.rule("7.2")
@settings(max_examples=150, deadline=None)
@given(data=st.data())
def test_a_mangled_position_is_read_or_refused_never_a_crash(data: st.DataObject) -> None:
    book = rulebook("cortes")
    text = MANGLE_SOURCES[data.draw(st.integers(0, len(MANGLE_SOURCES) - 1))]
    pieces = ['(', ')', '[', ']', '{', '}', ',', '=', ':', '"', '\\', ' ', '\n', '#', '-',
              '/', '0', '7', 'x', 'S', 'none', 'piece:', 'place:', 'option(', 'text(',
              'row(', 'frame ', 'let ', '\u2028', 'é']
    chars = list(text)
    for _ in range(data.draw(st.integers(1, 4))):
        at = data.draw(st.integers(0, len(chars)))
        if data.draw(st.booleans()) and chars:
            del chars[min(at, len(chars) - 1):at + data.draw(st.integers(1, 12))]
        else:
            chars.insert(at, data.draw(st.sampled_from(pieces)))
    mangled = "".join(chars)
    try:
        state = book.position(mangled)
    except NotationError as error:
        assert re.match(r"line \d+: ", str(error)), str(error)
        return
    state.to_notation()
    if not state.is_terminal():
        assert state.current_player is not None


def _mangle_sources() -> list[str]:
    state = rulebook("cortes").new_game(seed=8, setup="demo", turn_limit=1)
    chooser = random.Random(2)
    texts = []
    for _ in range(60):
        texts.append(state.to_notation())
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(END if END in ids and chooser.random() < 0.3 else chooser.choice(ids))
    return texts[::6]


MANGLE_SOURCES = _mangle_sources()
