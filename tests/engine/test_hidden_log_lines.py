"""A log line never tells a player about a piece hidden from him (8.8 in Cortés).

The core restricts each log line to the players who may see every piece it
names when it is written; the rest never receive it, in their observation
or anywhere else.
"""

from __future__ import annotations

import pytest

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
