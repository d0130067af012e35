"""Set-ups and starting positions are checked against stacking and enemy occupation.

The hex-wargame library states both checks as ``require at start`` clauses:
every named set-up is checked when the rulebook loads, and the positions
given to ``new_game`` when the game starts.
"""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules import RulesCheckError, StartError


def _setups(tmp_path, body: str):
    path = tmp_path / "setups.rules"
    path.write_text('setup bad "A broken set-up" {\n' + body + "}\n")
    return path


@pytest.mark.rule("6.2")
def test_6_2_an_overstacked_set_up_is_refused_at_load(tmp_path):
    path = _setups(tmp_path, "  place S1, S2, S3, S4, S5, S6 at 1110\n")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load("cortes", setups=path)
    text = str(caught.value)
    assert "set-up 'bad'" in text and "1110 is over the stacking limits" in text
    assert "[rule 6.2]" in text
    assert f"{path}:1:1" in text


@pytest.mark.rule("6.4")
def test_6_4_two_warriors_in_one_hex_are_refused_at_load(tmp_path):
    path = _setups(tmp_path, "  place A11, A12 at 2811\n")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load("cortes", setups=path)
    assert "[rule 6.4]" in str(caught.value)


@pytest.mark.rule("6.1")
def test_6_1_a_hex_shared_by_enemies_is_refused_at_load(tmp_path):
    path = _setups(tmp_path, "  place S1 at 1110\n  place A11 at 1110\n")
    with pytest.raises(RulesCheckError) as caught:
        cortes_rules.load("cortes", setups=path)
    assert "1110 holds units of more than one side" in str(caught.value)


@pytest.mark.rule("6.2")
def test_6_2_new_game_refuses_overstacked_positions(book):
    with pytest.raises(StartError) as caught:
        book.new_game(positions={f"S{i}": "1110" for i in range(1, 7)})
    assert caught.value.rules == ("6.2",)
    assert "1110" in str(caught.value)


@pytest.mark.rule("6.2")
def test_6_2_uncounted_units_do_not_overstack_a_start(book):
    # Cortés and cannons do not count against the limit of five (6.2).
    positions = {f"S{i}": "1110" for i in range(1, 6)} | {"Cortes": "1110", "S25": "1110"}
    state = book.new_game(positions=positions)
    assert state.legal_actions()


@pytest.mark.rule("6.1")
def test_6_1_new_game_refuses_enemies_in_one_hex(book):
    with pytest.raises(StartError, match="1110 holds units of more than one side"):
        book.new_game(positions={"S1": "1110", "A11": "1110"})


@pytest.mark.rule("3.2", "3.3")
def test_3_2_the_shipped_set_ups_pass_the_start_checks(book):
    for name in book.setups:
        assert book.new_game(setup=name).legal_actions()


@pytest.mark.rule("6.2", "6.1")
def test_6_2_every_breach_of_a_start_is_named_not_only_the_first(book):
    # A requirement over every hex is first tested as a whole; when it fails,
    # each hex is tested on its own, so every hex that breaks it is named.
    positions = {f"S{i}": "1110" for i in range(1, 7)}
    positions |= {"S7": "1111", "A12": "1111", "S8": "2811", "A11": "2811"}
    with pytest.raises(StartError) as caught:
        book.new_game(positions=positions)
    text = str(caught.value)
    assert "1110 is over the stacking limits" in text
    assert "1111 holds units of more than one side" in text
    assert "2811 holds units of more than one side" in text
    assert "6.2" in caught.value.rules
