"""Grands Stratèges, section V: artillery, bombardment and the line of fire.

Examples XXVI-XXXIV on the test board: bombardment at two hexes, at three from
a hill, in support of a battle in contact, blocked by woods and ridge lines,
and what bombarding artillery escapes.
"""

from __future__ import annotations

from collections.abc import Callable

import pytest
from gs_helpers import fight, last_lines, legal, refusal_rules

from cortes_rules import GameState

GameMaker = Callable[..., GameState]


@pytest.mark.rule("V.1", rulebook="grands_strateges")
@pytest.mark.rule("V.2", rulebook="grands_strateges")
def test_example_xxvi_two_hexes_with_the_full_factor(gs_game: GameMaker) -> None:
    state = gs_game({"A24": "1001", "B6": "1003"}, combat=True)
    assert "attack 1003" in legal(state)
    fight(state, ["1003"], ["A24"], 6)
    assert "attack 4, defence 4, odds 1:1" in last_lines(state)


@pytest.mark.rule("V.2", rulebook="grands_strateges")
def test_example_xxvii_three_hexes_down_from_a_hill(gs_game: GameMaker) -> None:
    state = gs_game({"A24": "1210", "B6": "1207", "B7": "1004"}, combat=True)
    assert "attack 1207" in legal(state)
    # From the plain, three hexes is out of range.
    state = gs_game({"A24": "1001", "B6": "1004"}, combat=True)
    assert "attack 1004" not in legal(state)


@pytest.mark.rule("V.4", rulebook="grands_strateges")
@pytest.mark.rule("V.6", rulebook="grands_strateges")
def test_example_xxviii_support_in_contact_and_no_fire_from_a_zone(gs_game: GameMaker) -> None:
    # A (A1, 8) next to Z (B6 at 1003), B (A24, 4) two hexes off: 12 in all.
    state = gs_game({"A1": "1002", "A24": "1005", "B6": "1003"}, combat=True)
    fight(state, ["1003"], ["A1", "A24"], 6)
    assert "attack 12, defence 4, odds 3:1" in last_lines(state)
    # C (A25) stands next to X (B7): it may not bombard Z.
    state = gs_game({"A1": "1002", "A25": "1005", "B7": "1006", "B6": "1003"}, combat=True)
    state.apply("attack 1003")
    assert "V.6" in refusal_rules(state, "join A25")


@pytest.mark.rule("V.7", rulebook="grands_strateges")
@pytest.mark.rule("V.10", rulebook="grands_strateges")
def test_example_xxxiii_into_the_wood_but_not_behind_it(gs_game: GameMaker) -> None:
    # Y (B6) in the forest 0605 can be bombarded from 0603, and doubles.
    state = gs_game({"A24": "0603", "B6": "0605"}, combat=True)
    fight(state, ["0605"], ["A24"], 6)
    assert "attack 4, defence 8, odds 1:2" in last_lines(state)
    # Z (B6) behind the forest, at 0606 from 0604, cannot.
    state = gs_game({"A24": "0604", "B6": "0606"}, combat=True)
    assert "attack 0606" not in legal(state)
    # Not even in support of a battle in contact.
    state = gs_game({"A24": "0604", "A1": "0607", "B6": "0606"}, combat=True)
    state.apply("attack 0606")
    assert "V.7" in refusal_rules(state, "join A24")


@pytest.mark.rule("V.9", rulebook="grands_strateges")
def test_example_xxx_from_the_hill_over_the_wood_below(gs_game: GameMaker) -> None:
    # The hill 1210 overlooks the wood at 1211; the hex beyond it is in sight.
    state = gs_game({"A24": "1210", "B6": "1212"}, combat=True)
    assert "attack 1212" in legal(state)


@pytest.mark.rule("V.7", rulebook="grands_strateges")
@pytest.mark.rule("V.8", rulebook="grands_strateges")
def test_example_xxix_four_hexes_behind_the_crest_are_out_of_sight(gs_game: GameMaker) -> None:
    # The text's diagram is not reproduced: on the test board's plateau
    # (1408, 1409), artillery at 1408 is two hexes from the ridge line on
    # the south of 1409. The four hexes below that crest within range, our
    # I-IV, cannot be bombarded, and the refusal names the rule that forbids
    # it: nothing blocks the view (V.7), but the battery is too far behind
    # the crest (V.8).
    for target in ("1310", "1410", "1411", "1510"):
        state = gs_game({"A24": "1408", "B6": target}, combat=True)
        assert f"attack {target}" not in legal(state)
        assert refusal_rules(state, f"attack {target}") == {"IV.3", "V.8"}
    # Nor may it support a battle in contact there (A1 next to 1310).
    state = gs_game({"A24": "1408", "A1": "1311", "B6": "1310"}, combat=True)
    state.apply("attack 1310")
    assert refusal_rules(state, "join A24") == {"V.8"}
    # On the crest at 1409 the same artillery sees beyond it, and fires over
    # a unit (its own, at 1410) as V.7 allows.
    state = gs_game({"A24": "1409", "A1": "1410", "B6": "1411"}, combat=True)
    state.apply("attack 1411")
    assert refusal_rules(state, "join A24") == set()
    for unit in ("A24", "A1"):
        state.apply(f"join {unit}")
    state.apply("resolve")
    state.apply("roll 6")
    assert "attack 12, defence 4, odds 3:1" in last_lines(state)


@pytest.mark.rule("IV.5", rulebook="grands_strateges")
@pytest.mark.rule("V.2", rulebook="grands_strateges")
def test_a_refused_bombardment_names_its_reason(gs_game: GameMaker) -> None:
    # Out of range: three hexes from the plain.
    state = gs_game({"A24": "1001", "B6": "1004"}, combat=True)
    assert refusal_rules(state, "attack 1004") == {"IV.3", "V.2"}
    # In range, but the battery has fired already this phase.
    state = gs_game({"A24": "1001", "B6": "1003", "B7": "1201"}, combat=True)
    assert "attack 1201" in legal(state)
    fight(state, ["1003"], ["A24"], 4)
    state.apply("retreat B6 1004")
    assert refusal_rules(state, "attack 1201") == {"IV.3", "IV.5"}


@pytest.mark.rule("V.6", rulebook="grands_strateges")
def test_artillery_in_an_enemy_zone_is_refused_a_bombardment_by_v_6(
        gs_game: GameMaker) -> None:
    # A24 at 1005 stands in B7's zone (1006): B6, two hexes off at 1003, is in
    # range, but V.6 keeps the battery to the battle in contact.
    state = gs_game({"A24": "1005", "B7": "1006", "B6": "1003"}, combat=True)
    assert "attack 1003" not in legal(state)
    assert refusal_rules(state, "attack 1003") == {"IV.3", "V.6"}
    # Without B7 next to it, the same battery may fire.
    state = gs_game({"A24": "1005", "B6": "1003"}, combat=True)
    assert "attack 1003" in legal(state)


@pytest.mark.rule("V.7", rulebook="grands_strateges")
def test_a_target_behind_a_wood_is_refused_by_v_7(gs_game: GameMaker) -> None:
    state = gs_game({"A24": "0604", "B6": "0606"}, combat=True)
    assert refusal_rules(state, "attack 0606") == {"IV.3", "V.7"}


@pytest.mark.rule("V.8", rulebook="grands_strateges")
def test_beyond_a_ridge_only_from_its_edge(gs_game: GameMaker) -> None:
    # From 1408, two hexes back from the plateau's southern edge, 1411 is hidden;
    # from 1409, on the edge, 1412 is in sight.
    state = gs_game({"A24": "1408", "B6": "1411"}, combat=True)
    assert "attack 1411" not in legal(state)
    state = gs_game({"A24": "1409", "B6": "1412"}, combat=True)
    assert "attack 1412" in legal(state)


@pytest.mark.rule("V.5", rulebook="grands_strateges")
def test_example_xxxii_bombarding_artillery_escapes_the_exchange(gs_game: GameMaker) -> None:
    # A (A17, 2) and D (A18, 2) in contact, B (A21, 6) bombarding: 10 against 3.
    positions = {"B11": "1003", "A17": "1002", "A18": "1004", "A21": "1005"}
    state = fight(gs_game(positions, combat=True), ["1003"], ["A17", "A18", "A21"], 1)
    assert "attack 10, defence 3, odds 3:1" in last_lines(state)
    assert ": EX" in last_lines(state)
    # Neither contact unit alone is worth 3: both go; the artillery stays.
    assert {a for a in legal(state) if a.startswith("lose ")} == {"lose A17", "lose A18"}
    state.apply("lose A17")
    state.apply("lose A18")
    assert state.place_of("A21") == "1005"


@pytest.mark.rule("V.5", rulebook="grands_strateges")
def test_bombarding_artillery_takes_no_retreat_and_does_not_advance(gs_game: GameMaker) -> None:
    state = fight(gs_game({"A24": "1001", "B1": "1003"}, combat=True), ["1003"], ["A24"], 1)
    assert ": AE" in last_lines(state)      # 4 against 8 at 1:2, a 1
    assert state.place_of("A24") == "1001"
    state = fight(gs_game({"A24": "1001", "B11": "1003"}, combat=True), ["1003"], ["A24"], 6)
    assert ": DR" in last_lines(state)      # 4 against 3 at 1:1, a 6
    state.apply(next(a for a in sorted(legal(state)) if a.startswith("retreat B11 ")))
    assert not any(a.startswith("advance ") for a in legal(state))


@pytest.mark.rule("V.3", rulebook="grands_strateges")
def test_a_bombardment_strikes_one_hex(gs_game: GameMaker) -> None:
    state = gs_game({"A24": "1001", "A1": "1104", "B6": "1003", "B7": "1105"}, combat=True)
    state.apply("attack 1003")
    state.apply("join A24")
    assert "V.3" in refusal_rules(state, "attack 1105")


@pytest.mark.rule("V.12", rulebook="grands_strateges")
def test_artillery_enters_woods_only_by_road_or_track(gs_game: GameMaker) -> None:
    state = gs_game({"A24": "0604"})
    assert "V.12" in refusal_rules(state, "move A24 0605")
    state = gs_game({"A24": "1101"})
    state.apply("move A24 1102")
    assert state.place_of("A24") == "1102"


@pytest.mark.rule("V.13", rulebook="grands_strateges")
def test_artillery_on_a_woodland_track_is_lost_if_attacked(gs_game: GameMaker) -> None:
    # Player A attacks B's battery on the track in the forest at 1102.
    state = gs_game({"A1": "1103", "B24": "1102"}, combat=True)
    state.apply("attack 1102")
    state.apply("join A1")
    state.apply("resolve")
    assert state.place_of("B24") == "eliminated.b"
    assert not state.is_chance_node()
