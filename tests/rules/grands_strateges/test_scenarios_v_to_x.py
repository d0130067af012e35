"""Grands Stratèges scenarios V, VII, IXa, IXb and X on the shipped boards A
and B: corps formed before the game, roads written down in secret, control of
the board halves, losses as shares, forces drawn blind, face-down movement and
breaking points rolled in secret."""

from __future__ import annotations

import pytest

import cortes_rules
from cortes_rules import GameState

from gs_helpers import legal, next_turn


def _load(scenario: str, **kwargs: object) -> cortes_rules.Rulebook:
    return cortes_rules.load("grands_strateges", scenario=scenario, **kwargs)


def _form_every_corps(state: GameState) -> None:
    """Both players take the first legal choice until the corps are formed."""
    while state.phase == "form":
        state.apply(sorted(str(a) for a in state.legal_actions())[0])


def _play_out(state: GameState, turns: int) -> None:
    while state.is_chance_node():
        state.apply("roll 6")
    for _ in range(turns):
        next_turn(state)


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_v_corps_have_three_units_and_one_battery_at_most() -> None:
    state = _load("V").new_game(seed=1)
    state.apply("assign A21 1")
    # A second battery may not join corps 1.
    assert "assign A22 1" not in legal(state)
    assert "assign A22 2" in legal(state)
    _form_every_corps(state)
    assert state.phase == "a_movement"
    for side in "ab":
        for k in range(1, 7):
            units = state.evaluate("corps_of(q, k)", q=side, k=k)
            assert len(units) >= 3
            assert sum(1 for u in units if state.attribute(str(u), "class") == "artillery") <= 1
        # One corps a road in each wave.
        for wave in ((1, 2, 3), (4, 5, 6)):
            roads = {state.evaluate("first(corps_of(q, k)).road", q=side, k=k) for k in wave}
            assert len(roads) == 3


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_v_corps_enter_on_turns_one_and_three() -> None:
    state = _load("V").new_game(seed=1)
    _form_every_corps(state)
    enters = {str(a).split()[1] for a in state.legal_actions() if str(a).startswith("enter ")}
    early = {u for u in enters if state.evaluate("u.corps", u=u) <= 3}
    assert enters and early == enters


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_v_scores_halves_held_two_to_one_and_adjacent_pairs() -> None:
    # A holds board A's north half with three units against one weaker unit;
    # B's three units in board B's north half are outweighed twice over by
    # nobody, so B holds it; A's units on the fold (row 11, odd columns) do
    # not count for board A's south half.
    positions = {"A1": "0203", "A3": "0405", "A6": "0607", "B17": "1005",
                 "B1": "2003", "B3": "2205", "B6": "2407",
                 "A7": "0111", "A8": "0311", "A9": "0511", "A11": "0314"}
    state = _load("V").new_game(positions=positions)
    assert state.evaluate("controls_zone(a, a_north_half)")
    assert state.evaluate("controls_zone(b, b_north_half)")
    assert not state.evaluate("controls_zone(a, a_south_half)")
    assert state.evaluate("score_v(a)") == 1
    # Three more units in board A's south half: two adjacent halves, 2 + 1.
    more = dict(positions, A12="0415", A13="0617")
    state = _load("V").new_game(positions=more)
    assert state.evaluate("controls_zone(a, a_south_half)")
    assert state.evaluate("score_v(a)") == 3
    _play_out(state, 10)
    assert state.is_terminal()
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == ("a",)
    assert outcome.details["score_a"] == 3 and outcome.details["score_b"] == 1


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_vii_roads_are_written_down_before_player_a_places() -> None:
    state = _load("VII").new_game(seed=2)
    assert state.phase == "muster" and state.current_player == "b"
    state.apply("route 1 0322")
    assert "route 2 0322" not in legal(state)   # corps I-III take three roads
    state.apply("route 2 0722")
    state.apply("route 3 2622")
    assert "route 4 0322" in legal(state)        # corps IV may take any
    state.apply("route 4 0322")
    assert state.phase == "deploy" and state.current_player == "a"
    seen = state.observation("a")
    assert not any(uid.startswith("B") for uid in seen["pieces"])
    assert not any("0322" in line or "corps" in line for line in seen["log"])
    # Behind A's screen B's corps are only "somewhere": 25 units.
    assert seen["hidden"].get("unknown") == 25


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("scenario", ["VII", "IXa"])
def test_scenario_vii_match_of_two_rounds(scenario: str) -> None:
    state = _load(scenario).new_game(seed=1)
    # Two wins, or a win and a draw, win the match; a win and a loss, or two
    # draws, draw it; two losses, or a loss and a draw, lose it.
    for first in ("win", "draw", "loss"):
        for second in ("win", "draw", "loss"):
            pair = (first, second)
            wins, losses = pair.count("win"), pair.count("loss")
            expected = "win" if wins > losses else "loss" if losses > wins else "draw"
            assert state.evaluate("match_result(x, y)", x=first, y=second) == expected, pair


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("lost_b", "winners"), [
    (["B1"], ("b",)),          # 8 of 28 = 28.6% against A's 42.9%
    (["B3", "B5"], ()),        # 12 of 28 = 42.9%: the same share, a draw
    (["B1", "B2"], ("a",)),    # 16 of 28 = 57.1%: 14.3 points more than A
])
def test_scenario_vii_compares_loss_shares_with_a_five_point_margin(
        lost_b: list[str], winners: tuple[str, ...]) -> None:
    # A brings 8 + 6 = 14 factors and has lost the 6 (42.9%); B brings
    # 8 + 8 + 6 + 6 = 28.
    positions = {"A1": "0115", "A3": "eliminated.a",
                 "B1": "3016", "B2": "3018", "B3": "3020", "B5": "3022"}
    for uid in lost_b:
        positions[uid] = "eliminated.b"
    state = _load("VII").new_game(positions=positions)
    _play_out(state, 12)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == winners
    assert outcome.details["engaged_a"] == 14 and outcome.details["engaged_b"] == 28


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_ixa_draws_forces_by_arm_and_lays_them_face_down() -> None:
    state = _load("IXa").new_game(seed=4)
    while state.is_chance_node():
        state.apply_chance()
    ready = [u for u in _load("IXa").piece_ids if state.place_of(u) == "ready.a"]
    kinds = [state.attribute(u, "class") for u in ready]
    assert (kinds.count("infantry"), kinds.count("cavalry"), kinds.count("artillery")) == (9, 4, 3)
    extra = [u for u in _load("IXa").piece_ids if state.place_of(u) == "reinforcements.a"]
    assert sorted(state.attribute(u, "class") for u in extra) == ["cavalry", "infantry"]
    for k, make_up in enumerate([(4, 2, 1), (4, 2, 1), (3, 2, 1), (2, 1, 2)], start=1):
        corps = [str(u) for u in state.evaluate("corps_of(b, k)", k=k)]
        kinds = [state.attribute(u, "class") for u in corps]
        counts = (kinds.count("infantry"), kinds.count("cavalry"), kinds.count("artillery"))
        assert counts == make_up
    # Neither player sees what the other drew.
    assert not any(uid.startswith("A") for uid in state.observation("b")["pieces"])
    assert not any(uid.startswith("B") for uid in state.observation("a")["pieces"])


def _face_down_game(**kwargs: object) -> GameState:
    state = _load("X", **kwargs).new_game(
        positions={"A1": "0105", "A17": "0305", "A11": "0705", "B17": "0315", "B1": "0515"})
    state.apply("roll 1")   # player A: 40%
    state.apply("roll 6")   # player B: 60%
    return state


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_face_down_units_move_as_artillery_with_three_points() -> None:
    state = _face_down_game()
    assert state.evaluate("allowance(u)", u="A17") == 3
    assert state.evaluate("move_class(u)", u="A17") == "artillery"
    seen = state.observation("b")
    assert "A17" not in seen["pieces"] and seen["hidden"].get("0305") == 1
    # Its owner turns it up to move at its own factor (light cavalry: 6).
    state.apply("turn_up A17")
    assert state.evaluate("allowance(u)", u="A17") == 6
    assert state.observation("b")["pieces"]["A17"]["place"] == "0305"
    # Only before it moves: a unit that has moved face down stays face down.
    state.apply("move A1 0106")
    assert "turn_up A1" not in legal(state)


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_a_face_down_move_is_not_told_to_the_enemy() -> None:
    state = _face_down_game()
    state.apply("move A11 0706")
    assert state.observation("b")["hidden"].get("0706") == 1
    assert not any("A11" in line for line in state.observation("b")["log"])
    assert any("A11" in line for line in state.observation("a")["log"])


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_units_next_to_each_other_are_turned_face_up() -> None:
    state = _load("X").new_game(positions={"A1": "0105", "B1": "0107", "B17": "0315"})
    state.apply("roll 3")
    state.apply("roll 3")
    state.apply("move A1 0106")
    assert state.observation("b")["pieces"]["A1"]["place"] == "0106"
    assert state.observation("a")["pieces"]["B1"]["place"] == "0107"
    assert "B17" not in state.observation("a")["pieces"]


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
def test_breaking_points_are_rolled_in_secret() -> None:
    state = _face_down_game()
    own = state.observation("a")["players"]["a"]
    # A brings 8 + 2 + 3 = 13 factors; 40% of them is 5.2, so 6 losses break him.
    assert own["loss_rate"] == 40 and own["morale"] == 6
    assert state.observation("b")["players"]["a"] == {}
    assert state.observation("b")["players"]["b"]["loss_rate"] == 60
    assert not any("40%" in line for line in state.observation("b")["log"])


@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize(("reading", "winners"), [("eleven", ()), ("ten", ("a",))])
def test_scenario_x_margin_of_ten_follows_the_reading(reading: str,
                                                     winners: tuple[str, ...]) -> None:
    # A: 2 units of 8 + 3 = 13; B: 1 unit of 2 = 3; the difference is 10.
    book = _load("X", readings={"scenario_x_margin": reading})
    state = book.new_game(positions={"A1": "0105", "A11": "0705", "B17": "0315"})
    _play_out(state, 12)
    outcome = state.outcome()
    assert outcome is not None and outcome.winners == winners
    assert (outcome.details["total_a"], outcome.details["total_b"]) == (13, 3)


def _reserve_game(reading: str, seed: int = 3) -> GameState:
    return _load("X", readings={"scenario_x_reserve": reading}).new_game(seed=seed)


def _kept(state: GameState, side: str) -> dict[str, int]:
    arms: dict[str, int] = {}
    for arm in state.evaluate("list(str(u.class) for u in pieces "
                              "where u.place == reinforcements[q])", q=side):
        arms[arm] = arms.get(arm, 0) + 1
    return arms


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_x_reserve_chosen_three_infantry_one_cavalry_one_artillery() -> None:
    state = _reserve_game("chosen")
    assert state.phase == "reserves" and state.current_player == "a"
    for uid in ("A1", "A2", "A3"):
        state.apply(f"hold_back {uid}")
    # Three infantry kept back: no more infantry is offered.
    assert not any(a.split()[1] in {f"A{n}" for n in range(1, 14)} for a in legal(state))
    state.apply("hold_back A14")
    state.apply("hold_back A21")
    assert state.current_player == "b"
    while state.phase == "reserves":
        state.apply(sorted(legal(state))[0])
    assert state.phase == "deploy"
    assert _kept(state, "a") == _kept(state, "b") == {
        "infantry": 3, "cavalry": 1, "artillery": 1}


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_x_reserve_drawn_leaves_the_rest_to_deploy() -> None:
    state = _reserve_game("drawn")
    while state.phase == "reserves":
        assert state.is_chance_node()
        state.apply(state.chance_outcomes()[0][0])
    assert _kept(state, "a") == _kept(state, "b") == {
        "infantry": 3, "cavalry": 1, "artillery": 1}
    # The units not drawn are deployed as usual: 20 a side are waiting.
    assert state.evaluate("count(waiting(a))") == state.evaluate("count(waiting(b))") == 20


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_x_reserve_enters_by_its_own_edge_from_turn_two_to_nine() -> None:
    book = _load("X", readings={"scenario_x_reserve": "chosen"})
    state = book.new_game(positions={"A1": "1605", "B1": "1616", "A11": "reinforcements.a"})
    enters = lambda: {a for a in legal(state) if a.startswith("enter ")}  # noqa: E731
    _play_out(state, 0)          # the breaking points are rolled first
    assert enters() == set()
    next_turn(state)
    assert enters() and all(a.split()[2].endswith("01") for a in enters())
    for _ in range(8):
        next_turn(state)
    assert state.turn == 10 and enters() == set()


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_scenario_x_reserve_turn_is_rolled_in_secret() -> None:
    state = _reserve_game("rolled")
    while state.phase == "reserves" and not state.is_chance_node():
        state.apply(sorted(legal(state))[0])
    state.apply("roll 4")       # A's reserve on turn 6
    state.apply("roll 1")       # B's on turn 3
    assert state.observation("a")["players"]["a"]["reserve_turn"] == 6
    assert "reserve_turn" not in state.observation("b")["players"]["a"]
    assert not any("turn 6" in line for line in state.observation("b")["log"])
    while state.phase == "deploy":
        state.apply(sorted(legal(state))[0])
    while state.is_chance_node():
        state.apply(state.chance_outcomes()[0][0])
    # The reserve may enter on its turn only: B's on turn 3, A's on turn 6.
    entries = {}
    while state.turn <= 7:
        side = state.current_player
        if state.is_chance_node():
            state.apply(state.chance_outcomes()[0][0])
        elif state.phase in ("a_movement", "b_movement"):
            if any(a.startswith("enter ") for a in legal(state)):
                entries.setdefault(side, set()).add(state.turn)
            state.apply("end")
        else:
            state.apply(sorted(legal(state))[0] if "end_combat" not in legal(state)
                        else "end_combat")
    assert entries == {"a": {6}, "b": {3}}
