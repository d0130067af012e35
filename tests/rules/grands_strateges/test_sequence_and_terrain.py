"""Grands Stratèges: the sequence of play (I), what movement leaves alone
(II.2-II.7), zones of control between enemies (III.2-III.5), and the terrain
and odds rules of combat (IV.11-IV.22, V.14, VI.2) on the test board."""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gs_helpers import fight, last_lines, legal, refusal_rules

import cortes_rules
from cortes_rules import GameState

GameMaker = Callable[..., GameState]


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.rule("I.3", rulebook="grands_strateges")
@pytest.mark.rule("IV.1", rulebook="grands_strateges")
def test_five_phases_a_turn(gs_book: cortes_rules.Rulebook, gs_game: GameMaker) -> None:
    assert gs_book.phases == ("a_movement", "a_combat", "b_movement", "b_combat",
                              "time_marker")
    assert gs_book.rule("I.3").kind == "commentary"
    state = gs_game({"A6": "0101", "B6": "0112"})
    for phase in ("a_combat", "b_movement", "b_combat"):
        state.apply("end" if phase != "b_movement" and phase != "b_combat" else
                    ("end_combat" if phase == "b_movement" else "end"))
        assert state.phase == phase
    state.apply("end_combat")
    assert state.turn == 2 and state.phase == "a_movement"
    assert "the time marker moves on to turn 2" in last_lines(state, 2)


@pytest.mark.rule("I.2", rulebook="grands_strateges")
def test_the_phasing_player_is_the_attacker(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0101", "B6": "0112"})
    assert state.evaluate("opponent(q)", q="a") == state.evaluate("b")
    assert state.evaluate("opponent(q)", q="b") == state.evaluate("a")


@pytest.mark.rule("II.2", rulebook="grands_strateges")
def test_unused_points_do_not_carry_over(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0101", "B6": "0112"})
    state.apply("move A6 0102")
    for action in ("end", "end_combat", "end", "end_combat"):
        state.apply(action)
    assert state.turn == 2 and state.attribute("A6", "spent") == 0
    for to in ("0103", "0104", "0105", "0106"):
        state.apply(f"move A6 {to}")
    assert "II.9" in refusal_rules(state, "move A6 0107")


@pytest.mark.rule("II.4", rulebook="grands_strateges")
@pytest.mark.rule("II.5", rulebook="grands_strateges")
def test_hex_by_hex_and_any_route(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1101"})
    assert "move A6 1103" not in legal(state)
    with pytest.raises(cortes_rules.IllegalActionError):
        state.apply("move A6 1103")
    # Any route: out and back again costs what it costs.
    state.apply("move A6 1102")
    state.apply("move A6 1101")
    assert state.attribute("A6", "spent") == 2


@pytest.mark.rule("II.7", rulebook="grands_strateges")
def test_no_battle_while_moving(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0602", "B6": "0603"})
    assert not any(a.startswith(("attack ", "join ")) for a in legal(state))
    # An attack asked for in the movement phase is refused by II.7's clause, and by
    # the sequence of play (I.1), whose movement phase offers no attack.
    assert refusal_rules(state, "attack 0603") == {"II.7", "I.1"}
    fighting = gs_game({"A6": "0602", "B6": "0603"}, combat=True)
    assert "attack 0603" in legal(fighting)
    assert refusal_rules(fighting, "attack 0603") == set()


@pytest.mark.rule("III.2", rulebook="grands_strateges")
@pytest.mark.rule("III.3", rulebook="grands_strateges")
def test_example_viii_units_control_each_other(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0707", "B6": "0706", "B7": "0708"})
    assert state.evaluate("count(controllers(h, a))", h="0707") == 2
    assert state.evaluate("enemy_controls(h, b)", h="0706")
    # 0806 lies next to both 0707 and 0706: both sides control it.
    assert state.evaluate("enemy_controls(h, a)", h="0807")
    assert state.evaluate("enemy_controls(h, b)", h="0807")


@pytest.mark.rule("III.5", rulebook="grands_strateges")
def test_friendly_zones_do_not_hold_a_unit(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "1101", "A7": "1103"})
    state.apply("move A6 1102")
    state.apply("move A6 1202")
    assert state.attribute("A6", "spent") == 2


@pytest.mark.rule("IV.9", rulebook="grands_strateges")
@pytest.mark.rule("IV.25", rulebook="grands_strateges")
def test_the_attacker_orders_the_battles(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0602", "B6": "0603", "A7": "1002", "B7": "1003"}, combat=True)
    assert {"attack 0603", "attack 1003"} <= legal(state)
    fight(state, ["1003"], ["A7"], 6)
    assert "attack 0603" in legal(state) or any(a.startswith(("retreat", "advance", "stop"))
                                                 for a in legal(state))


@pytest.mark.rule("IV.11", rulebook="grands_strateges")
@pytest.mark.rule("IV.12", rulebook="grands_strateges")
def test_example_xiii_a_stream_helps_only_if_every_attack_crosses_it(
        gs_game: GameMaker) -> None:
    # Z (B6) in the forest 1008 behind the stream on its 1007 side.
    state = fight(gs_game({"A1": "1007", "B6": "1008"}, combat=True), ["1008"], ["A1"], 6)
    assert "die modifier -1" in last_lines(state)
    # B (A7) attacks from 0908, not across the stream: no -1.
    state = gs_game({"A1": "1007", "A7": "0908", "B6": "1008"}, combat=True)
    fight(state, ["1008"], ["A1", "A7"], 6)
    assert "die modifier 0" in last_lines(state)


@pytest.mark.rule("IV.12", rulebook="grands_strateges")
@pytest.mark.rule("IV.11", rulebook="grands_strateges")
def test_example_xiii_bis_attacking_up_a_ridge(gs_game: GameMaker) -> None:
    state = gs_game({"A1": "1209", "A7": "1309", "B6": "1210"}, combat=True)
    fight(state, ["1210"], ["A1", "A7"], 6)
    assert "die modifier -1" in last_lines(state)


@pytest.mark.rule("IV.18", rulebook="grands_strateges")
def test_a_lowered_roll_never_falls_below_one(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "1007", "B6": "1008"}, combat=True), ["1008"], ["A1"], 1)
    assert "rolls 1 (counts 1)" in last_lines(state)


@pytest.mark.rule("IV.13", rulebook="grands_strateges")
@pytest.mark.rule("IV.10", rulebook="grands_strateges")
def test_village_and_bridge_triple_the_defence(gs_game: GameMaker) -> None:
    # Z (B6, 4) in the village 0903, attacked over the bridge from 0902.
    state = fight(gs_game({"A1": "0902", "B6": "0903"}, combat=True), ["0903"], ["A1"], 6)
    assert "attack 8, defence 12" in last_lines(state)


@pytest.mark.rule("IV.12", rulebook="grands_strateges")
def test_example_xxxiv_a_bombardment_cancels_the_bridge(gs_game: GameMaker) -> None:
    positions = {"A1": "0902", "A24": "0905", "B6": "0903"}
    state = fight(gs_game(positions, combat=True), ["0903"], ["A1", "A24"], 6)
    # The village still doubles; the bridge no longer does.
    assert "attack 12, defence 8" in last_lines(state)


@pytest.mark.rule("IV.15", rulebook="grands_strateges")
@pytest.mark.rule("IV.16", rulebook="grands_strateges")
@pytest.mark.rule("IV.17", rulebook="grands_strateges")
def test_odds_are_rounded_for_the_defender_and_bounded(gs_book: cortes_rules.Rulebook) -> None:
    def column(att: int, dfn: int) -> tuple[int, int]:
        return gs_book.evaluate("odds_column(odds(x, y))", x=att, y=dfn)
    assert column(9, 6) == (1, 1)
    assert column(6, 9) == (1, 2)
    assert column(8, 3) == (2, 1)
    assert column(30, 4) == (6, 1)
    assert column(2, 11) == (1, 4)


@pytest.mark.rule("IV.20", rulebook="grands_strateges")
@pytest.mark.rule("IV.22", rulebook="grands_strateges")
def test_a_retreat_off_the_map_eliminates(gs_game: GameMaker) -> None:
    # B6 on the north edge at 0101; its only open hexes lie off the map.
    state = gs_game({"A1": "0102", "A6": "0202", "B6": "0101"}, combat=True)
    fight(state, ["0101"], ["A1", "A6"], 6)
    assert ": D" in last_lines(state)
    assert state.place_of("B6") == "eliminated.b"


@pytest.mark.rule("IV.20", rulebook="grands_strateges")
def test_the_owner_retreats_at_once(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A1": "0602", "B1": "0603"}, combat=True), ["0603"], ["A1"], 4)
    assert state.current_player == "b"
    assert all(a.startswith("retreat B1 ") for a in legal(state))


@pytest.mark.rule("V.14", rulebook="grands_strateges")
@pytest.mark.rule("V.11", rulebook="grands_strateges")
def test_example_xxxi_a_diversionary_bombardment(gs_game: GameMaker) -> None:
    # A6 is in the zones of B6 and B7; the battery bombards B7 first.
    positions = {"A6": "0707", "B6": "0706", "B7": "0708", "A24": "0710"}
    state = fight(gs_game(positions, combat=True), ["0708"], ["A24"], 2)
    # B7 has been attacked, so A6 now owes a battle against B6 alone.
    state.apply("attack 0706")
    state.apply("join A6")
    assert "resolve" in legal(state)


@pytest.mark.rule("VI.2", rulebook="grands_strateges")
def test_units_off_the_map_and_eliminated_are_losses(gs_game: GameMaker) -> None:
    state = gs_game({"A6": "0101", "A1": "0602", "B3": "0603"})
    state.apply("exit A6")
    state.apply("end")
    fight(state, ["0603"], ["A1"], 6)       # 8 against 6 at 1:1, a 6: DR
    assert state.evaluate("losses(a)") == 4
