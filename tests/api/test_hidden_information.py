"""Hidden information never leaks to a player: observations, errors and trails.

Cortés's veteran preset hides every Aztec unit under the top one of its stack
from the Spanish player (8.8, with the optional fog of war of 11.9); Grands
Stratèges hides the units each player deploys behind his screen (the
scenarios' sealed deployment) and, in scenario IXa, every face-down unit.
Random games check, at every step and for every player, that no piece hidden
from a player is named in what he is shown now: his observation and the
errors of actions he tries. (A rule trail read as a player, ``trail(ply,
player)``, gives the lines he could read as they were written; one may name a
unit shown during a battle and hidden again after it. That is what he knows,
not what he sees: the observation leaves such lines out.)
"""

from __future__ import annotations

import json
import random
import re
from functools import cache
from typing import Any

import pytest

import cortes_rules
from cortes_rules.core.world import Piece
from cortes_rules.errors import CortesRulesError, IllegalActionError

GAMES = 200
"""Random games over which the leak checks run (issue 10: 200 with fog of war on)."""


@cache
def _book(name: str, options: str, scenario: str | None) -> cortes_rules.Rulebook:
    return cortes_rules.load(name, options=options or (), scenario=scenario)


def _named(piece_id: str, text: str) -> bool:
    """Whether ``text`` names the piece ``piece_id`` (not as part of a longer id)."""
    return re.search(r"(?<![A-Za-z0-9_.])" + re.escape(piece_id) + r"(?![A-Za-z0-9_])",
                     text) is not None


def _hidden_ids(state: Any, player: str) -> set[str]:
    viewer = state.machine.world.player[player]
    return {p.id for p in state.machine.world.pieces if state.hidden_from(p, viewer)}


def _leaks(state: Any, player: str, text: str, allowed: set[str] = frozenset()) -> set[str]:
    """The pieces hidden from ``player`` that ``text`` names, beyond ``allowed``."""
    return {h for h in _hidden_ids(state, player) - allowed if _named(h, text)}


def _scanned(state: Any, observation: dict[str, Any]) -> str:
    """An observation as text, to be searched for hidden pieces' ids.

    Game values that hold no piece are left out: a scenario's list of the
    counter ids in play (Grands Stratèges ``force_ids``) is printed data that
    both players read, and names units by text, not the units themselves.
    """
    values = {n: v for n, v in observation["values"].items()
              if _holds_piece(state.values[n])}
    return json.dumps({**observation, "values": values}, default=str)


def _holds_piece(value: Any) -> bool:
    if isinstance(value, Piece):
        return True
    if isinstance(value, (tuple, list, frozenset, set)):
        return any(_holds_piece(v) for v in value)
    return False


def _step(state: Any, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_chance()
    else:
        ids = state.legal_action_ids()
        state.apply(ids[rng.randrange(len(ids))])


def _games(book: cortes_rules.Rulebook, setup: str | None, games: int, depth: int,
           window: int) -> Any:
    """Seeded random games: each played at random to a random depth (up to ``depth``
    actions), then yielded at each of its next ``window`` positions."""
    for seed in range(games):
        state = book.new_game(seed=seed, setup=setup)
        rng = random.Random(seed)
        for _ in range(rng.randrange(depth)):
            if state.is_terminal():
                break
            _step(state, rng)
        for _ in range(window):
            if state.is_terminal():
                break
            yield seed, state, rng
            _step(state, rng)


GAMES_WITH_HIDING = [
    pytest.param("cortes", "veteran", None, "historical", 300, id="cortes-veteran-8.8"),
    pytest.param("grands_strateges", "", "IXa", None, 60, id="grands-strateges-IXa"),
    pytest.param("grands_strateges", "", "I", None, 30, id="grands-strateges-I-deployment"),
]


@pytest.mark.rule("8.8")
@pytest.mark.parametrize(("name", "options", "scenario", "setup", "depth"), GAMES_WITH_HIDING)
def test_no_hidden_piece_is_named_in_another_players_observation(
        name: str, options: str, scenario: str | None, setup: str | None, depth: int) -> None:
    book = _book(name, options, scenario)
    games = GAMES if name == "cortes" else GAMES // 4
    hiding_seen = checks = 0
    for seed, state, _ in _games(book, setup, games, depth, window=3):
        for player in book.players:
            hidden = _hidden_ids(state, player)
            if not hidden:
                continue
            hiding_seen += 1
            observation = state.observation(player)
            seen = _scanned(state, observation)
            assert not _leaks(state, player, seen), (seed, player, _leaks(state, player, seen))
            assert len(observation["pieces"]) == len(book.piece_ids) - len(hidden)
            checks += 1
    # The games must actually hide something from somebody, or the test proves nothing.
    assert hiding_seen >= 50 and checks == hiding_seen


@pytest.mark.rule("8.8")
@pytest.mark.parametrize(("name", "options", "scenario", "setup", "depth"), GAMES_WITH_HIDING)
def test_an_illegal_action_tells_the_player_nothing_of_pieces_hidden_from_him(
        name: str, options: str, scenario: str | None, setup: str | None, depth: int) -> None:
    book = _book(name, options, scenario)
    actions = book.num_distinct_actions
    naming_hidden = 0
    for seed, state, rng in _games(book, setup, GAMES // 4, depth, window=2):
        player = state.current_player
        if player not in book.players:
            continue
        hidden = _hidden_ids(state, player)
        for _ in range(8):
            number = rng.randrange(actions)
            action = book.action_from_id(number)
            typed = {h for h in hidden if _named(h, str(action))}
            trial = state.clone()
            before = trial.to_notation()
            try:
                trial.apply(number)
            except IllegalActionError as error:
                told = str(error) + " " + " ".join(m for _, m in state.why_illegal(
                    number, player=player))
                assert not _leaks(state, player, told, allowed=typed), (seed, told)
                if typed:
                    naming_hidden += 1
                    # Only that the pieces are hidden, and by which rules.
                    assert all("hidden from" in m for _, m in error.reasons), told
                    assert error.rules, told
                assert trial.to_notation() == before
            except CortesRulesError:
                continue
    assert naming_hidden >= 5


@pytest.mark.rule("8.8")
def test_the_umpire_is_told_every_reason_and_a_hidden_piece_only_its_hiding_rule() -> None:
    book = _book("cortes", "veteran", None)
    state = book.new_game(seed=3, setup="historical")
    spanish = state.machine.world.player["spanish"]
    under = next(p for p in state.machine.world.pieces if state.hidden_from(p, spanish))
    assert state.current_player == "spanish"
    text = f"move {under.id} 3011"
    umpire = state.why_illegal(text)
    told = state.why_illegal(text, player="spanish")
    assert told == [("8.8", f"{under.id} is hidden from spanish")]
    assert umpire and umpire != told
    assert state.why_illegal(text, player="aztec") == umpire   # his own unit
    with pytest.raises(CortesRulesError, match="no player"):
        state.why_illegal(text, player="nobody")


@pytest.mark.rule("8.8")
def test_a_value_naming_a_hidden_piece_shows_it_as_a_question_mark() -> None:
    book = _book("cortes", "veteran", None)
    state = book.new_game(seed=3, setup="historical")
    spanish = state.machine.world.player["spanish"]
    under = next(p for p in state.machine.world.pieces if state.hidden_from(p, spanish))
    top = next(p for p in state.machine.world.pieces
               if p.side == under.side and not state.hidden_from(p, spanish))
    name = next(n for n, v in state.values.items() if isinstance(v, tuple))
    state.set_value(name, (top, under))
    shown = state.observation("spanish")["values"][name]
    assert shown == [top.id, "?"]
    assert state.observation("aztec")["values"][name] == [top.id, under.id]


@pytest.mark.rule("8.8")
def test_the_information_state_holds_every_action_as_the_player_saw_it() -> None:
    book = _book("cortes", "veteran", None)
    state = book.new_game(seed=2, setup="historical")
    rng = random.Random(2)
    for _ in range(250):
        _step(state, rng)
    history = state.history
    unseen_somewhere = False
    for player in book.players:
        known = state.information_state(player)
        assert known["player"] == player
        assert known["observation"] == state.observation(player)
        assert len(known["actions"]) == len(history)
        for ply, (seen, action) in enumerate(zip(known["actions"], history, strict=True)):
            if seen["by"] == player or action.is_chance:
                assert seen["action"] == str(action), ply   # his own, and the dice
            elif seen["action"] is None:
                unseen_somewhere = True
            else:
                assert seen["action"] == str(action)
        # Every line he could read when it was written, and nothing else.
        assert known["log"] == [str(e) for e in state.log if e.visible_to(player)]
    assert unseen_somewhere   # the fog of war hid some Aztec move from the Spanish player
    with pytest.raises(CortesRulesError, match="no player"):
        state.information_state("nobody")


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_a_sealed_deployment_is_not_in_the_other_players_information_state() -> None:
    book = _book("grands_strateges", "", "I")
    state = book.new_game(seed=5)
    rng = random.Random(5)
    while state.phase == "deploy" and len(state.history) < 8:
        _step(state, rng)
    assert len(state.history) >= 2
    for player in book.players:
        for seen in state.information_state(player)["actions"]:
            # Each sees his own placements, never the other's.
            assert (seen["action"] is not None) == (seen["by"] == player), seen



@pytest.mark.rule("8.8")
def test_a_players_record_view_names_no_piece_he_could_not_see_when_it_was_played() -> None:
    from cortes_rules.record import format_record

    book = _book("cortes", "veteran", None)
    world_pieces = set(book.piece_ids)
    headers = ("cortes-rules-record", "view", "rulebook", "options", "reading", "setup")
    secret_actions = 0
    for seed in range(GAMES):
        state = book.new_game(seed=seed, setup="historical")
        rng = random.Random(seed)
        for _ in range(rng.randrange(1, 80)):
            if state.is_terminal():
                break
            _step(state, rng)
        # An independent replay: for each action, the players who may not see it
        # (another took it, and it names a piece hidden from them before or after).
        replay = book.new_game(seed=seed, setup="historical")
        world = replay.machine.world
        blind: list[set[str]] = []
        for action in state.history:
            actor = replay.current_player
            named = [world.piece[a] for a in action.args if a in world_pieces]
            hidden = {v.name for p in named for v in world.players if replay.hidden_from(p, v)}
            replay.apply(action)
            hidden |= {v.name for p in named for v in world.players
                       if replay.hidden_from(p, v)}
            blind.append(hidden - {actor})
        for player in book.players:
            view = format_record(state, player=player)
            shown = [ln for ln in view.splitlines()
                     if not ln.startswith("#") and ln.split()[0] not in headers]
            expected = [str(a) for a, b in zip(state.history, blind, strict=True)
                        if player not in b]
            assert shown == expected, seed
            secret_actions += len(state.history) - len(expected)
    assert secret_actions > 0   # the fog of war hid something from somebody


@pytest.mark.rule("8.8")
def test_undo_shows_each_player_exactly_what_he_saw_before_and_nothing_hidden() -> None:
    """The leak boardgame.io once had: state restored by undo carrying what was secret."""
    book = _book("cortes", "veteran", None)
    undone = 0
    for seed, state, rng in _games(book, "historical", GAMES, 300, window=1):
        before = {p: state.observation(p) for p in book.players}
        _step(state, rng)
        state.undo()
        undone += 1
        for player in book.players:
            seen = state.observation(player)
            assert seen == before[player], (seed, player)
            assert not _leaks(state, player, _scanned(state, seen)), (seed, player)
    assert undone >= GAMES * 3 // 4
