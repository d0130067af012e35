"""Fuzz tests: damaged rulebooks, damaged records and random action texts.

Each test mutates good input at random (hypothesis, derandomized by the
"ci" profile of tests/conftest.py) and asserts the library's promise about
bad input: it is refused with a :class:`~cortes_rules.CortesRulesError`
(or accepted), never with another exception, a hang or a changed state.
Every crash found here was fixed and pinned by a regression test in
tests/dsl/test_bad_input.py or tests/api/test_bad_api_input.py.

The example budgets are full with ``--slow`` (CI) and a fifth of them without
(tests/budgets.py); set ``HYPOTHESIS_PROFILE=explore`` and
``PROPERTY_SCALE=20`` for a longer search.
"""

from __future__ import annotations

import re
import shutil
from pathlib import Path

import pytest
from budgets import budget
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import Action, CortesRulesError, GameState
from cortes_rules.record import parse_record, replay

ROOT = Path(__file__).resolve().parents[2]
SHIPPED = ROOT / "rulebook" / "cortes"
FILES = {p.name: p.read_text(encoding="utf-8") for p in sorted(SHIPPED.glob("*.rules"))}
DEMO_RECORD = (SHIPPED / "demo.record").read_text(encoding="utf-8")


def n(examples: int) -> int:
    """An example budget: in full under ``--slow``, else a fifth (times PROPERTY_SCALE)."""
    return budget(examples, max(1, examples // 5))


# Words, numbers and punctuation of the rules language, and some that break it.
TOKENS = [
    "rule", "{", "}", "(", ")", "[", "]", ",", ":", "=", "..", ".", "not", "or", "and",
    "in", "is", "has", "when", "where", "for", "forbid", "permit", "despite", "define",
    "cost", "move", "combat", "loss", "odds", "shift", "clamp", "resolve", "results",
    "dice", "2d6", "0d6", "2d0", "99999999999d99999999999", "hex", "hexes", "hexside",
    "zone", "place", "1205", "0800..1246", "3023", "0", "-1", "9" * 19, "9" * 4301,
    "1.0", "8.99", "99999999999999999999.1", '"', '"text"', "#", "-", "+", "*", "/",
    "mod", "max(", "count(u in units where", "sum(u.combat for u in attackers)",
    "true", "false", "terrain", "natural", "artificial", "clear", "quagmire",
    "causeway", "fortress", "S9", "A1", "steps", "steps 500", "combat 1, 2",
    "counter", "setup", "side", "class", "summary", "optional", "\t", "\r", "\n",
    "use", "hex_wargame", "form", "hook", "contribute", "function", "value", "attribute",
    "action", "procedure", "choose", "option", "with", "roll", "draw", "let", "set",
    "finish", "loop", "break", "{n:int}", "{c:expr}",
    "\x0c", "\u2028", "\x00", "\ufeff", "not " * 300 + "true",
    " or ".join(["true"] * 300), "(" * 300 + "1" + ")" * 300,
]
# The names the shipped rulebook uses, to put one where another stood.
VOCABULARY = sorted({w for text in FILES.values() for w in re.findall(r"[A-Za-z_]\w*", text)})
# Any character that can be written as UTF-8, and a few that split lines.
CHARACTERS = st.one_of(st.characters(codec="utf-8"),
                       st.sampled_from("\x0b\x0c\x1c\x1d\x1e\x85\u2028\u2029"))


NUMBERS_IN_TEXT = re.compile(r"(?<![\w.])\d+(?![\w.])")
WORDS_IN_TEXT = re.compile(r"\b[A-Za-z_]\w*\b")
GAPS = re.compile(r" +")
ODD_NUMBERS = st.sampled_from(["0", "07", "1000", "9" * 19, "9" * 4301, "99999999999"])


# Damages to a text; those that keep it close to the grammar come more often.
OPERATIONS = ["number", "word", "token", "number", "word", "token", "delete", "duplicate",
              "swap", "unicode", "truncate"]


@st.composite
def mutations(draw: st.DrawFn, text: str) -> str:
    """One text with one to three random damages: lines lost, doubled, swapped,
    a number or a word replaced, a token or characters inserted, the end cut off."""
    for _ in range(draw(st.integers(1, 3))):
        lines = text.split("\n")
        i = draw(st.integers(0, len(lines) - 1))
        op = draw(st.sampled_from(OPERATIONS))
        if op == "delete":
            del lines[i]
        elif op == "duplicate":
            lines.insert(i, lines[i])
        elif op == "swap":
            j = draw(st.integers(0, len(lines) - 1))
            lines[i], lines[j] = lines[j], lines[i]
        elif op in ("number", "word", "token"):
            pattern = {"number": NUMBERS_IN_TEXT, "word": WORDS_IN_TEXT, "token": GAPS}[op]
            found = list(pattern.finditer(text))
            if found:
                match = draw(st.sampled_from(found))
                new = {"number": ODD_NUMBERS, "word": st.sampled_from(TOKENS + VOCABULARY),
                       "token": st.sampled_from(TOKENS).map(lambda t: f" {t} ")}[op]
                text = text[:match.start()] + draw(new) + text[match.end():]
            continue
        elif op == "unicode":
            at = draw(st.integers(0, len(lines[i])))
            lines[i] = lines[i][:at] + draw(st.text(CHARACTERS, min_size=1, max_size=3)) + (
                lines[i][at:])
        else:
            joined = "\n".join(lines)
            lines = joined[:draw(st.integers(0, len(joined)))].split("\n")
        text = "\n".join(lines)
    return text


@st.composite
def damaged_files(draw: st.DrawFn) -> dict[str, str]:
    """One or two of the shipped rulebook's files, damaged (by name)."""
    names = draw(st.lists(st.sampled_from(sorted(FILES)), min_size=1, max_size=2, unique=True))
    return {name: draw(mutations(FILES[name])) for name in names}


def play_a_little(state: GameState, picks: list[int]) -> None:
    """Play some legal actions (rolls from the seed); only CortesRulesError may escape."""
    for pick in picks:
        if state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_chance()
            continue
        legal = state.legal_actions()
        if not legal:
            return
        state.apply(legal[pick % len(legal)])


@pytest.mark.rule("1.0")
@settings(max_examples=n(100), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(damaged=damaged_files(), picks=st.lists(st.integers(0, 50), max_size=25))
def test_a_damaged_rulebook_loads_or_raises_only_cortes_rules_errors(
        tmp_path: Path, damaged: dict[str, str], picks: list[int]) -> None:
    folder = tmp_path / "book"
    shutil.rmtree(folder, ignore_errors=True)
    folder.mkdir()
    for name, text in {**FILES, **damaged}.items():
        (folder / name).write_text(text, encoding="utf-8", newline="")
    try:
        book = cortes_rules.load(folder)
    except CortesRulesError:
        return
    # It loaded: the rules it states must also play without a crash.
    try:
        state = book.new_game(seed=1, setup="demo" if "demo" in book.setups else None)
        play_a_little(state, picks)
    except CortesRulesError:
        pass


@pytest.fixture(scope="module")
def cortes() -> cortes_rules.Rulebook:
    return cortes_rules.load("cortes")


RECORD_TOKENS = ["move S9 3011", "roll 7", "roll 07", "roll 99", "resolve", "end", "stop",
                 "lose S2", "advance S9", "attack 3012", "join A1", "? move A12 2910",
                 "seed 99999999999999999999999", "seed -5", "seed x", "turn-limit 0",
                 "turn-limit -3", "setup nowhere", "rulebook nowhere", "#", "?", "? ?",
                 "roll " + "9" * 5000, "move\tS9 3011", "move S9 3011 3012", "\u2028end"]


@pytest.mark.rule("1.0")
@settings(max_examples=n(300), suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(text=st.one_of(mutations(DEMO_RECORD),
                      st.lists(st.sampled_from(RECORD_TOKENS), max_size=12).map("\n".join)))
def test_a_damaged_record_replays_or_raises_only_cortes_rules_errors(
        cortes: cortes_rules.Rulebook, text: str) -> None:
    try:
        record = parse_record(text, "fuzz.record")
        replay(record, cortes)
    except CortesRulesError:
        pass


WORDS = st.sampled_from(["end", "move", "attack", "join", "resolve", "cancel", "roll",
                         "lose", "advance", "stop", "remove", "MOVE", "Roll", "S9", "S1",
                         "A11", "S29", "3011", "3012", "3010", "2910", "0000", "9999"])
NUMBERS = st.one_of(st.integers(-5, 20).map(str), st.integers(0, 10**40).map(str),
                    st.sampled_from(["07", "0007", "00", "７", "٧", "1e3", "0x7", "+7"]))
SEPARATORS = st.sampled_from([" ", " ", " ", "  ", "\t", "\n", "\u00a0", "\u2028", ""])
ACTION_TEXTS = st.lists(st.one_of(WORDS, NUMBERS, st.text(CHARACTERS, max_size=4)),
                        max_size=4).flatmap(
    lambda words: st.lists(SEPARATORS, min_size=len(words) + 1, max_size=len(words) + 1).map(
        lambda seps: seps[0] + "".join(w + s for w, s in zip(words, seps[1:], strict=True))))


@pytest.fixture(scope="module")
def demo_positions(cortes: cortes_rules.Rulebook) -> list[GameState]:
    """States of the demonstration game where different actions are legal."""
    record = parse_record(DEMO_RECORD, "demo.record")
    found = []
    # lake movement, movement, mid-movement, joining a battle, its roll, its
    # losses, the advance after it, the Aztec player joining a battle
    for cut, kinds in ((0, "end sail"), (1, "end move"), (3, "end move"),
                       (8, "cancel join resolve"), (10, "roll"), (11, "lose"),
                       (13, "advance stop"), (28, "cancel join")):
        header = ["rulebook cortes", "setup demo", "seed 8", "turn-limit 1"]
        moves = [str(a) for _, a in record.actions[:cut]]
        state = replay(parse_record("\n".join(header + moves), "demo.record"), cortes)
        offered = state.legal_actions() or [a for a, _ in state.chance_outcomes()]
        assert " ".join(sorted({a.kind for a in offered})) == kinds, (cut, offered)
        found.append(state)
    return found


@pytest.mark.rule("1.0")
@settings(max_examples=n(500))
@given(texts=st.lists(ACTION_TEXTS, min_size=1, max_size=5), where=st.integers(0, 7))
def test_random_action_texts_raise_only_cortes_rules_errors_and_change_nothing(
        cortes: cortes_rules.Rulebook, demo_positions: list[GameState], texts: list[str],
        where: int) -> None:
    state = demo_positions[where].clone()
    for text in texts:
        before = (str(state), len(state.history), len(state.log))
        try:
            action = Action.parse(text)
        except CortesRulesError:
            action = None
        if action is not None:
            assert Action.parse(str(action)) == action
            try:
                cortes.action_id(action)
            except CortesRulesError:
                pass
            reasons = state.why_illegal(action)
            assert (str(state), len(state.history), len(state.log)) == before
        try:
            state.apply(text)
        except CortesRulesError:
            assert (str(state), len(state.history), len(state.log)) == before
        else:
            assert action is not None and not reasons
