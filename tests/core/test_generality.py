"""The proof of generality: small games on the core that Cortés does not need.

Each rulebook of ``tests/fixtures/core/`` is a complete little game built on
what the wargame leaves unused: three players and a neutral party on a board
of areas (``three_players``), cards with hidden hands (``cards``), sealed
simultaneous bids (``sealed_bids``), dice with named faces
(``named_dice``), and zones of control, a river, compulsory combat and
retreats on a hex map (``zoc``).

Every fixture is played to the end by seeded random players, and the
properties its rules promise are checked along the way. The rule markers
carry the fixture's name (``rulebook=``), since the numbers are the fixture's
own, not the Cortés rulebook's.
"""

from __future__ import annotations

import functools
import random
import re
from collections.abc import Callable
from fractions import Fraction
from pathlib import Path
from typing import Any

import pytest

import cortes_rules
from cortes_rules.engine import hexgrid

FIXTURES = Path(__file__).resolve().parents[1] / "fixtures" / "core"
SEEDS = range(20)
MAX_PLIES = 3000


@functools.cache
def book(name: str) -> cortes_rules.Rulebook:
    return cortes_rules.load(FIXTURES / f"{name}.rules")


def new_game(name: str, seed: int = 0, setup: str = "standard") -> Any:
    return book(name).new_game(seed=seed, setup=setup)


def true_places(state: Any) -> dict[str, str | None]:
    """Where every piece really is (the referee's view, not a player's)."""
    world = state.machine.world
    return {p.id: (state.where[p.index].id if state.where[p.index] is not None else None)
            for p in world.pieces}


def playout(state: Any, seed: int, *, each: Callable[[Any], None] | None = None,
            max_plies: int = MAX_PLIES) -> int:
    """Play ``state`` to its end with a seeded random player; return the plies played.

    ``each(state)`` is called at every node before its action is chosen.
    """
    rnd = random.Random(seed)
    for ply in range(max_plies):
        if state.is_terminal():
            assert state.current_player is None
            assert state.legal_actions() == []
            return ply
        if each is not None:
            each(state)
        if state.is_chance_node():
            outcomes = state.chance_outcomes()
            assert outcomes and sum(p for _, p in outcomes) == 1
            assert state.current_player == "chance"
            state.apply_chance()
        else:
            actions = state.legal_actions()
            assert actions, f"no legal action for {state.current_player} in {state.phase}"
            assert state.current_player in book_players(state)
            state.apply(rnd.choice(actions))
    pytest.fail(f"seed {seed}: no end after {max_plies} plies")


def book_players(state: Any) -> tuple[str, ...]:
    return tuple(p.name for p in state.machine.world.seats)


def check_outcome(state: Any, players: tuple[str, ...], *, scored: bool) -> Any:
    outcome = state.outcome()
    assert outcome is not None and outcome.reason
    assert set(outcome.winners) <= set(players)
    assert outcome.winner == (outcome.winners[0] if len(outcome.winners) == 1 else None)
    if scored:
        assert set(outcome.scores) == set(players)
        if outcome.winners:
            best = max(outcome.scores.values())
            assert all(outcome.scores[w] == best for w in outcome.winners)
    return outcome


# Every fixture, with the rule that makes its game end.
ENDINGS = [
    pytest.param("three_players", True, marks=pytest.mark.rule("5.2", rulebook="three_players"),
                 id="three_players"),
    pytest.param("cards", True, marks=pytest.mark.rule("4.1", rulebook="cards"), id="cards"),
    pytest.param("sealed_bids", True, marks=pytest.mark.rule("3.1", rulebook="sealed_bids"),
                 id="sealed_bids"),
    pytest.param("named_dice", False, marks=pytest.mark.rule("4.1", rulebook="named_dice"),
                 id="named_dice"),
    pytest.param("zoc", False, marks=pytest.mark.rule("6.2", rulebook="zoc"), id="zoc"),
]


@pytest.mark.parametrize(("name", "scored"), ENDINGS)
def test_random_games_end(name: str, scored: bool) -> None:
    rulebook = book(name)
    players = rulebook.players
    for seed in SEEDS:
        state = rulebook.new_game(seed=seed, setup="standard")
        playout(state, seed)
        assert state.is_terminal()
        check_outcome(state, players, scored=scored)


@pytest.mark.parametrize(("name", "scored"), ENDINGS)
def test_seeded_games_replay_identically(name: str, scored: bool) -> None:
    first, second = new_game(name, seed=7), new_game(name, seed=7)
    playout(first, 7)
    playout(second, 7)
    assert [str(a) for a in first.history] == [str(a) for a in second.history]
    assert [str(e) for e in first.log] == [str(e) for e in second.log]
    assert first.outcome().winners == second.outcome().winners


# ------------------------------------------------------------------ three players

AREA_LINKS = {
    "keep": {"highlands", "vale", "ford", "marsh", "wood", "shore"},
    "highlands": {"keep", "vale", "shore"}, "vale": {"keep", "highlands", "ford"},
    "ford": {"keep", "vale", "marsh"}, "marsh": {"keep", "ford", "wood"},
    "wood": {"keep", "marsh", "shore"}, "shore": {"keep", "wood", "highlands"},
}
ROUTE = ["vale", "ford", "marsh", "wood", "keep", "shore", "highlands"]
BAND_OWNER = {"R": "red", "G": "green", "U": "blue"}


@pytest.mark.rule("3.1", rulebook="three_players")
def test_three_players_march_along_declared_adjacency() -> None:
    def each(state: Any) -> None:
        if state.is_chance_node():
            return
        places = true_places(state)
        assert state.phase == "marching"  # the only phase with a decision
        for action in state.legal_actions():
            kind, *args = str(action).split()
            if kind != "move":
                continue
            unit, to = args
            origin = places[unit]
            assert BAND_OWNER[unit[0]] == state.current_player
            assert to in AREA_LINKS[origin]                           # 3.1
            assert {origin, to} != {"keep", "shore"}                  # 3.3: the old wall
            assert all(p[0] == unit[0] for p, at in places.items()    # 3.2
                       if at == to and p != "H") and places["H"] != to

    for seed in SEEDS:
        playout(new_game("three_players", seed), seed, each=each)


@pytest.mark.rule("1.1", rulebook="three_players")
def test_three_players_play_in_turn_order_and_the_party_never_chooses() -> None:
    state = new_game("three_players", 3)
    assert book("three_players").players == ("red", "green", "blue")
    seen: list[tuple[int, str]] = []

    def each(s: Any) -> None:
        assert s.current_player != "barbarians"
        if not s.is_chance_node() and (s.turn, s.current_player) not in seen:
            seen.append((s.turn, s.current_player))

    playout(state, 3, each=each)
    for turn in {t for t, _ in seen}:
        assert [p for t, p in seen if t == turn] == ["red", "green", "blue"]


@pytest.mark.rule("4.1", rulebook="three_players")
def test_the_horde_follows_its_route_and_scatters_warbands() -> None:
    def each(state: Any) -> None:
        places = true_places(state)
        if state.phase == "marching":
            assert places["H"] == ROUTE[(5 + state.turn) % len(ROUTE)]
        for piece, place in places.items():  # no warband ever shares the horde's area
            assert piece == "H" or place != places["H"]

    scattered = 0
    for seed in SEEDS:
        state = new_game("three_players", seed)
        playout(state, seed, each=each)
        scattered += sum(1 for at in true_places(state).values() if at == "scattered")
    assert scattered > 0


@pytest.mark.rule("5.1", rulebook="three_players")
def test_three_players_scores_reach_the_outcome() -> None:
    state = new_game("three_players", 1)
    playout(state, 1)
    outcome = check_outcome(state, ("red", "green", "blue"), scored=True)
    observed = state.observation("red")["players"]
    assert {p: int(observed[p]["score"]) for p in outcome.scores} == outcome.scores


# ------------------------------------------------------------------ cards

@pytest.mark.rule("2.1", rulebook="cards")
def test_a_player_never_sees_another_hand_nor_the_deck() -> None:
    drawn: dict[str, set[str]] = {p: set() for p in ("north", "east", "south")}

    def each(state: Any) -> None:
        places = true_places(state)
        for player in drawn:
            for card, place in places.items():
                if place == f"hand.{player}":
                    drawn[player].add(card)
        for player in drawn:
            seen = state.observation(player)
            for card in seen["pieces"]:
                place = places[card]
                assert place != "deck", f"{player} sees {card} in the deck"
                assert not (place.startswith("hand.") and place != f"hand.{player}"), \
                    f"{player} sees {card} in {place}"
            for card, place in places.items():  # his own hand and the open cards he sees
                if place in (f"hand.{player}", "trick", "discard"):
                    assert seen["pieces"][card]["place"] == place
            hidden = sum(1 for place in places.values()
                         if place == "deck" or (place.startswith("hand.")
                                                and place != f"hand.{player}"))
            assert len(seen["pieces"]) + hidden == len(places)
            for line in seen["log"]:  # the private log lines are his own draws only
                match = re.search(r"you draw (\w+)", line)
                assert match is None or match[1] in drawn[player], line

    for seed in SEEDS:
        state = new_game("cards", seed)
        playout(state, seed, each=each)
        assert all(place == "discard" for place in true_places(state).values())


@pytest.mark.rule("3.3", rulebook="cards")
def test_cards_are_played_from_the_players_own_hand() -> None:
    state = new_game("cards", 0, setup="dealt")
    assert not state.is_chance_node()  # hands are full: nothing to draw
    assert state.current_player == "north"
    assert sorted(str(a) for a in state.legal_actions()) == ["play M1", "play S2", "play S6"]
    state.apply("play S6")
    assert true_places(state)["S6"] == "trick"
    assert state.observation("south")["pieces"]["S6"]["bookkeeping"]["played_by"] == "north"
    with pytest.raises(cortes_rules.CortesRulesError):
        state.apply("play S5")  # a card of South's hand, on East's turn
    assert state.current_player == "east"


@pytest.mark.rule("3.4", rulebook="cards")
def test_the_highest_card_takes_the_trick() -> None:
    state = new_game("cards", 0, setup="dealt")
    for action in ("play S6", "play M6", "play S5"):  # a tie on 6: nobody scores
        state.apply(action)
    assert state.is_chance_node()   # the next deal
    seen = state.observation("north")["players"]
    assert {p: seen[p]["score"] for p in ("north", "east", "south")} == {
        "north": 0, "east": 0, "south": 0}
    while state.is_chance_node():
        state.apply_chance()
    for action in ("play M1", "play S1", "play M5"):
        state.apply(action)
    seen = state.observation("east")["players"]
    assert {p: seen[p]["score"] for p in ("north", "east", "south")} == {
        "north": 0, "east": 0, "south": 7}


# ------------------------------------------------------------------ sealed bids

BIDDERS = ("ann", "bob", "cy")


def bid_lines(state: Any) -> list[str]:
    return [str(e) for e in state.log if re.search(r": \w+ bid \d+ \[", str(e))]


@pytest.mark.rule("2.3", rulebook="sealed_bids")
def test_sealed_bids_stay_secret_until_all_have_bid() -> None:
    def each(state: Any) -> None:
        if state.is_chance_node():
            return
        bidder = state.current_player
        actions = state.legal_actions()
        assert all(str(a).startswith("bid ") for a in actions)
        money = int(state.observation(bidder)["players"][bidder]["money"])
        assert {int(str(a).split()[1]) for a in actions} == {a for a in range(5) if a <= money}
        before = bid_lines(state)
        players_before = state.observation(bidder)["players"]
        views: dict[str, list[Any]] = {p: [] for p in BIDDERS if p != bidder}
        for action in actions:
            after = state.clone()
            after.apply(action)
            if bidder != BIDDERS[-1]:
                # Nothing of the bid shows: no log line, no value, and every
                # other player's view is the same whatever was bid.
                assert bid_lines(after) == before
                assert after.observation(bidder)["players"] == players_before
                assert after.current_player == BIDDERS[BIDDERS.index(bidder) + 1]
                for other in views:
                    views[other].append(after.observation(other))
            else:
                # The last bid reveals all three together, in turn order.
                revealed = bid_lines(after)[len(before):]
                assert [line.split(": ")[1].split()[0] for line in revealed] == list(BIDDERS)
        for other, seen in views.items():
            assert all(view == seen[0] for view in seen), f"{other} can tell {bidder}'s bid"

    for seed in range(8):
        playout(new_game("sealed_bids", seed), seed, each=each)


@pytest.mark.rule("2.4", rulebook="sealed_bids")
def test_the_single_highest_bid_wins_and_ties_withdraw_the_lot() -> None:
    state = new_game("sealed_bids", 0)
    state.apply_chance()                          # the first lot goes on the block
    lot = next(p for p, at in true_places(state).items() if at == "block")
    for amount in (3, 3, 1):                      # Ann and Bob tie on 3
        state.apply(f"bid {amount}")
    assert true_places(state)[lot] == "unsold"
    seen = state.observation("cy")["players"]
    assert {p: int(seen[p]["money"]) for p in BIDDERS} == {"ann": 8, "bob": 8, "cy": 8}
    state.apply_chance()
    lot = next(p for p, at in true_places(state).items() if at == "block")
    for amount in (1, 4, 2):
        state.apply(f"bid {amount}")
    assert true_places(state)[lot] == "won.bob"
    players = state.observation("ann")["players"]
    assert int(players["bob"]["money"]) == 4
    assert int(players["bob"]["score"]) == int(lot[1:])  # lot Ln is worth n points


# ------------------------------------------------------------------ named dice

MACUAHUITL = {"lance": Fraction(1, 3), "blank": Fraction(1, 2), "shield": Fraction(1, 6)}
SHIELD_DIE = {"lance": Fraction(1, 6), "blank": Fraction(1, 2), "shield": Fraction(1, 3)}


def face_odds(state: Any) -> dict[str, Fraction]:
    odds = {}
    for action, probability in state.chance_outcomes():
        kind, face = str(action).split()
        assert kind == "roll"
        odds[face] = probability
    return odds


@pytest.mark.rule("1.3", rulebook="named_dice")
def test_named_faces_weigh_by_their_count() -> None:
    state = new_game("named_dice", 0)
    for _ in range(4):                            # one die per Aztec warrior
        assert state.is_chance_node()
        assert face_odds(state) == MACUAHUITL
        state.apply_chance()
    for _ in range(4):                            # then one per Tlaxcalan
        assert state.is_chance_node()
        assert face_odds(state) == SHIELD_DIE
        state.apply_chance()

    def each(s: Any) -> None:
        if s.is_chance_node():
            assert face_odds(s) in (MACUAHUITL, SHIELD_DIE)

    for seed in SEEDS:
        playout(new_game("named_dice", seed), seed, each=each)


@pytest.mark.rule("3.2", rulebook="named_dice")
def test_hits_are_taken_by_their_owner_and_the_fallen_are_captives() -> None:
    state = new_game("named_dice", 0)
    for face in ["lance"] * 4 + ["blank"] * 4:    # four Aztec lances, no Tlaxcalan shield
        state.apply(f"roll {face}")
    assert state.current_player == "tlaxcalan"
    assert sorted(str(a) for a in state.legal_actions()) == [
        "lose T1", "lose T2", "lose T3", "lose T4"]
    for warrior in ("T1", "T3", "T1", "T4"):      # T1 has two steps
        state.apply(f"lose {warrior}")
    places = true_places(state)
    assert [p for p in ("T1", "T2", "T3", "T4") if places[p] == "captives.aztec"] == [
        "T1", "T3", "T4"]
    assert places["T2"] == "field"
    assert state.current_player == "aztec" and state.phase == "council"

    def each(s: Any) -> None:
        if not s.is_chance_node():
            for action in s.legal_actions():
                kind, *args = str(action).split()
                if kind == "lose":
                    owner = "aztec" if args[0].startswith("A") else "tlaxcalan"
                    assert owner == s.current_player

    for seed in SEEDS:
        state = new_game("named_dice", seed)
        playout(state, seed, each=each)
        for piece, place in true_places(state).items():
            if place is not None and place.startswith("captives."):
                captor = place.split(".")[1]
                assert captor == ("tlaxcalan" if piece.startswith("A") else "aztec")


@pytest.mark.rule("3.3", rulebook="named_dice")
def test_a_withdrawal_ends_the_war_and_loses_ties() -> None:
    state = new_game("named_dice", 0)
    for _ in range(8):
        state.apply("roll blank")
    assert state.current_player == "aztec"
    state.apply("fight_on")
    state.apply("withdraw")
    assert state.is_terminal()
    assert state.outcome().winner == "aztec"   # no captives on either side: 3.3 decides


# ------------------------------------------------------------------ zones of control

RIVER = {frozenset(pair) for pair in [
    ("0301", "0401"), ("0301", "0402"), ("0302", "0402"), ("0302", "0403"), ("0303", "0403"),
    ("0304", "0405"), ("0305", "0405"), ("0305", "0406"), ("0306", "0406")]}


def side_of(unit: str) -> str:
    return "blue" if unit.startswith("B") else "red"


def in_enemy_zoc(places: dict[str, str | None], hex_id: str, side: str) -> bool:
    return any(at is not None and len(at) == 4 and at.isdigit() and side_of(unit) != side
               and hexgrid.adjacent(at, hex_id) and frozenset((at, hex_id)) not in RIVER
               for unit, at in places.items())


@pytest.mark.rule("4.3", rulebook="zoc")
def test_no_move_from_one_enemy_zone_of_control_into_another() -> None:
    moves_checked = 0

    def each(state: Any) -> None:
        nonlocal moves_checked
        if state.is_chance_node():
            return
        places = true_places(state)
        for action in state.legal_actions():
            kind, *args = str(action).split()
            if kind == "move":
                unit, to = args
                side = side_of(unit)
                assert not (in_enemy_zoc(places, places[unit], side)
                            and in_enemy_zoc(places, to, side)), str(action)
                moves_checked += 1
            elif kind == "retreat":
                unit, to = args
                assert not in_enemy_zoc(places, to, side_of(unit))
                assert frozenset((places[unit], to)) not in RIVER
                assert not any(at == to for at in places.values())

    for seed in SEEDS:
        playout(new_game("zoc", seed), seed, each=each)
    assert moves_checked > 0

    state = new_game("zoc", 0, setup="contact")  # B1 at 0303 is in R1's zone (0304)
    assert "move B1 0203" in [str(a) for a in state.legal_actions()]
    for target in ("0204", "0404"):               # both in R1's zone: 0404 is by the ford
        assert [rule for rule, _ in state.why_illegal(f"move B1 {target}")] == ["4.3"]
    assert "move B1 0403" in [str(a) for a in state.legal_actions()]  # R1's zone stops at the river


@pytest.mark.rule("4.2", rulebook="zoc")
def test_a_unit_entering_an_enemy_zone_of_control_stops() -> None:
    state = new_game("zoc", 0, setup="contact")
    state.apply("move B2 0102")
    assert "move B2 0103" in [str(a) for a in state.legal_actions()]
    state = book("zoc").new_game(seed=0, positions={"B1": "0203", "R1": "0304"})
    state.apply("move B1 0204")                   # into R1's zone, one hex of two spent
    assert not any(str(a).startswith("move B1 ") for a in state.legal_actions())
    assert [rule for rule, _ in state.why_illegal("move B1 0104")] == ["4.2"]


@pytest.mark.rule("5.3", rulebook="zoc")
def test_an_end_is_forbidden_while_a_unit_in_enemy_zone_has_not_attacked() -> None:
    state = new_game("zoc", 0, setup="contact")
    state.apply("stop")
    assert state.phase == "blue_combat"
    assert [str(a) for a in state.legal_actions()] == ["attack B1 R1"]
    assert [rule for rule, _ in state.why_illegal("end")] == ["5.3"]
    with pytest.raises(cortes_rules.IllegalActionError, match="5.3"):
        state.apply("end")
    state.apply("attack B1 R1")
    state.apply("roll 3")                         # no effect
    assert [str(a) for a in state.legal_actions()] == ["end"]
    assert state.why_illegal("end") == []


@pytest.mark.rule("5.4", rulebook="zoc")
def test_a_retreat_is_chosen_by_the_owner_among_the_allowed_hexes() -> None:
    state = new_game("zoc", 0, setup="contact")
    state.apply("stop")
    state.apply("attack B1 R1")
    state.apply("roll 6")
    # R1 at 0304: 0303 holds B1, 0404 and 0204 are in B1's zone, 0405 is across the river.
    assert state.current_player == "red"
    assert sorted(str(a) for a in state.legal_actions()) == ["retreat R1 0205",
                                                            "retreat R1 0305"]
    state.apply("retreat R1 0205")
    assert true_places(state)["R1"] == "0205"
    assert state.current_player == "blue" and state.phase == "blue_combat"


@pytest.mark.rule("5.4", rulebook="zoc")
def test_a_unit_with_nowhere_to_retreat_is_eliminated() -> None:
    state = new_game("zoc", 0, setup="cornered")
    state.apply("stop")
    state.apply("attack B1 R1")
    state.apply("roll 5")
    assert true_places(state)["R1"] == "dead"
    assert state.current_player == "blue"         # no retreat was offered to Red
    assert any("eliminated" in str(e) and "5.4" in str(e) for e in state.log)
    assert "R1" not in " ".join(str(a) for a in state.legal_actions())


@pytest.mark.rule("6.1", rulebook="zoc")
def test_losing_the_last_unit_loses_the_game() -> None:
    state = book("zoc").new_game(seed=0, positions={"R1": "0101", "B1": "0102",
                                                    "B2": "0202"})
    state.apply("stop")
    state.apply("attack B1 R1")
    state.apply("roll 6")
    assert state.is_terminal()
    assert state.outcome().winner == "blue"
