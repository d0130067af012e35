"""A log line never tells a player about a piece hidden from him (8.8 in Cortés).

The core restricts each log line to the players who may see every piece it
names when it is written; the rest never receive it, in their observation
or anywhere else.
"""

from __future__ import annotations

from pathlib import Path

import pytest

import cortes_rules
from positions import GARRISON


@pytest.mark.rule("8.8")
def test_a_move_under_another_unit_is_logged_for_its_owner_only(book):
    state = book.new_game(positions={**GARRISON, "S1": "1106", "A1": "1111", "A11": "1113"})
    while state.phase != "aztec_land_movement":
        state.apply("end")
    state.apply("move A11 1112")   # alone in 1112: the top of its stack, seen by all
    seen = state.log[-1]
    assert seen.visible_to("spanish") and seen.visible_to("aztec")
    state.apply("move A11 1111")   # now under A1, the top unit: hidden from the Spanish
    hidden = state.log[-1]
    assert "A11" in hidden.text and "1111" in hidden.text
    assert hidden.visible_to("aztec") and not hidden.visible_to("spanish")
    spanish = state.observation("spanish")
    assert "A11" not in spanish["pieces"]
    assert not any("A11 moves 1112 -> 1111" in line for line in spanish["log"])
    assert any("A11 moves 1112 -> 1111" in line for line in state.observation("aztec")["log"])


@pytest.mark.rule("8.8")
def test_without_hidden_pieces_every_line_is_public(book):
    state = book.new_game(positions={**GARRISON, "S1": "1110", "A1": "1111"})
    state.apply("move S1 1010")
    assert state.log[-1].audience is None


CARDS = Path(__file__).resolve().parents[1] / "fixtures" / "core" / "cards.rules"


@pytest.mark.rule("2.1", rulebook="cards")
def test_a_text_joined_from_hidden_pieces_names_them(tmp_path):
    # A line that shows a hand through join() tells as much as naming each
    # card: only the holder may read it, whatever the line's audience says.
    source = CARDS.read_text().replace(
        '        log "you draw {c}" cite "3.2" to q\n',
        '        log "you draw {c}" cite "3.2" to q\n'
        '        let held = "hand " + join(hand[q].pieces, " + ")\n'
        '        log "{q} holds {held}" cite "3.2"\n')
    assert source != CARDS.read_text()
    path = tmp_path / "cards.rules"
    path.write_text(source)
    state = cortes_rules.load(path).new_game(seed=3, setup="standard")
    while state.is_chance_node() or state.phase == "dealing":
        state.apply(state.legal_actions()[0])
    held = [e for e in state.log if " holds hand " in e.text]
    assert len(held) == 9
    for entry in held:
        holder = entry.text.split(" ")[0]
        assert entry.audience == frozenset({holder}), entry.text
        for other in {"north", "east", "south"} - {holder}:
            assert not entry.visible_to(other)


@pytest.mark.rule("2.1", rulebook="cards")
def test_join_keeps_the_pieces_through_additions(book):
    from cortes_rules.engine.compile import NamedText, join_values
    pieces = {p.id: p for p in book.new_game().machine.world.pieces}
    s1, a1 = pieces["S1"], pieces["A1"]
    text = join_values((s1, a1), " + ")
    assert isinstance(text, NamedText) and text == "S1 + A1"
    assert ("at " + text + "!").pieces == (s1, a1)
    assert join_values(("x", 2), ", ") == "x, 2"
    assert not isinstance(join_values(("x", 2), ", "), NamedText)
