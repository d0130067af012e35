"""Every answer the server gives a player is a function of what he may know.

Twin positions: two pieces hidden from a player P, at different places,
change places; P's observation is the same in both twins. Loaded into the
server as records, the twins must give P the same answer to every question
he can ask over HTTP: the summary, his view (the picture included), a
selected piece's shaded places and reachable places, the refusal of
actions and moves naming the hidden pieces, his view of the record, and,
after the same legal action in both, his new view. Cortés with the veteran
preset hides what lies under the top of a stack (8.8, 11.9); Grands
Stratèges hides the units deployed behind the screen (I.1) and, in
scenario X, face-down units.
"""

from __future__ import annotations

import json
import random
import re
import sys
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

from starlette.testclient import TestClient  # noqa: E402

import cortes_rules  # noqa: E402
from cortes_rules.record import format_record, parse_record  # noqa: E402
from cortes_rules.serve.app import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))

AT = re.compile(r"^at (\S+): (.*)$")
TOKEN = re.compile(r"[^\s(]+(?:\([^)]*\))?")
UNITS = 3
"""Pieces of his own whose selection each twin is asked about."""


@cache
def _book(name: str, options: str, scenario: str | None) -> cortes_rules.Rulebook:
    return cortes_rules.load(name, options=options or (), scenario=scenario)


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(cost="spent", forecast="battle_forecast()"))


def _played(book: cortes_rules.Rulebook, setup: str | None, seed: int, steps: int
            ) -> cortes_rules.GameState:
    state = book.new_game(seed=seed, setup=setup)
    rng = random.Random(seed)
    for _ in range(steps):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(ids[rng.randrange(len(ids))])
    return state


def _swapped(text: str, a: str, b: str) -> str:
    """A position's text with pieces ``a`` and ``b`` (and what is written of them)
    in each other's places."""
    def ident(token: str) -> str:
        return token.split("(", 1)[0]

    found: dict[str, str] = {}
    for line in text.split("\n"):
        match = AT.match(line)
        if match:
            found.update({ident(t): t for t in TOKEN.findall(match.group(2))})
    out = []
    for line in text.split("\n"):
        match = AT.match(line)
        if match:
            tokens = [found[b] if ident(t) == a else found[a] if ident(t) == b else t
                      for t in TOKEN.findall(match.group(2))]
            line = f"at {match.group(1)}: {' '.join(tokens)}"
        out.append(line)
    return "\n".join(out)


def _twins(book: cortes_rules.Rulebook, state: cortes_rules.GameState, player: str,
           pick: int) -> tuple[cortes_rules.GameState, cortes_rules.GameState] | None:
    """Two positions ``player`` cannot tell apart: two pieces hidden from him swapped."""
    seen = state.observation(player)
    hidden = sorted((pid for pid in book.piece_ids if pid not in seen["pieces"]
                     and state.place_of(pid) is not None), key=str)
    pairs = [(a, b) for i, a in enumerate(hidden) for b in hidden[i + 1:]
             if state.place_of(a) != state.place_of(b)]
    if not pairs:
        return None
    a, b = pairs[pick % len(pairs)]
    text = state.to_notation()
    first = book.position(text)
    try:
        second = book.position(_swapped(text, a, b))
    except cortes_rules.CortesRulesError:
        return None
    assert second.place_of(a) == first.place_of(b) and second.place_of(b) == first.place_of(a)
    if second.observation(player) != first.observation(player):
        return None   # the swap showed: these two were not interchangeable to him
    return first, second


def _load(client: TestClient, state: cortes_rules.GameState) -> str:
    answer = client.post("/api/games/load", json={"text": format_record(state)})
    assert answer.status_code == 200, answer.text
    return str(answer.json()["game"])


def _plain(response: Any) -> Any:
    """An answer without the game's id (the twins are two games of the server)."""
    try:
        body = response.json()
    except ValueError:
        return response.status_code, response.text
    if isinstance(body, dict):
        body.pop("game", None)
    return response.status_code, body


def _questions(state: cortes_rules.GameState, player: str, hidden: list[str]
               ) -> list[tuple[str, str, dict[str, Any]]]:
    """What ``player`` may ask, as (method, path under the game, params or body)."""
    seen = state.observation(player)
    acting = state.current_player == player
    actions = state.legal_actions() if acting else []
    own = sorted({str(a.args[0]) for a in actions if a.args and str(a.args[0]) in seen["pieces"]}
                 | {p for p in seen["pieces"] if state.attribute(p, "side") == player})
    places = sorted({str(x) for a in actions for x in a.args if str(x) not in seen["pieces"]})
    kinds = sorted({a.kind for a in actions}) or ["move"]
    asked: list[tuple[str, str, dict[str, Any]]] = [
        ("GET", "", {}), ("GET", "/view", {"player": player}),
        ("GET", "/save", {"player": player})]
    for unit in own[:UNITS]:
        asked += [("GET", "/view", {"player": player, "unit": unit}),
                  ("GET", "/reachable", {"player": player, "unit": unit})]
        for place in places[:2]:
            asked.append(("POST", "/move", {"player": player, "unit": unit, "to": place}))
    for kind in kinds[:2]:
        asked.append(("GET", "/view", {"player": player, "kind": kind}))
    for piece in hidden:
        asked += [("GET", "/view", {"player": player, "unit": piece}),
                  ("GET", "/reachable", {"player": player, "unit": piece}),
                  ("POST", "/move", {"player": player, "unit": piece, "to": places[0]
                                     if places else "0101"})]
        for kind in kinds[:3]:
            for place in places[:2]:
                asked.append(("POST", "/act", {"player": player,
                                               "action": f"{kind} {piece} {place}"}))
            asked.append(("POST", "/act", {"player": player, "action": f"{kind} {piece}"}))
    return asked


def _ask(client: TestClient, game: str, question: tuple[str, str, dict[str, Any]]) -> Any:
    method, path, data = question
    url = f"/api/games/{game}{path}"
    if method == "GET":
        return _plain(client.get(url, params=data))
    return _plain(client.post(url, json=data))


def _same_answers(client: TestClient, twins: tuple[Any, Any], player: str,
                  hidden: list[str]) -> None:
    games = [_load(client, twin) for twin in twins]
    for question in _questions(twins[0], player, hidden):
        first, second = (_ask(client, g, question) for g in games)
        assert first == second, (question, json.dumps(first)[:400], json.dumps(second)[:400])
    # The same legal action in both twins; his next view is the same again,
    # as long as the action showed him nothing that tells the twins apart.
    states = [client.app.state.games.get(g).state for g in games]
    if states[0].current_player != player or states[0].is_terminal():
        return
    action = str(states[0].legal_actions()[0])
    for g in games:
        assert client.post(f"/api/games/{g}/act",
                           json={"player": player, "action": action}).status_code == 200
    if states[0].observation(player) == states[1].observation(player):
        views = [_ask(client, g, ("GET", "/view", {"player": player})) for g in games]
        assert views[0] == views[1], action


GAMES = [
    pytest.param("cortes", "veteran", None, "historical", 40, id="cortes-veteran-8.8"),
    pytest.param("grands_strateges", "", "I", None, 12, id="gs-I-screened-deployment"),
    pytest.param("grands_strateges", "", "X", None, 70, id="gs-X-face-down"),
]


@pytest.mark.rule("8.8")
@pytest.mark.parametrize(("name", "options", "scenario", "setup", "depth"), GAMES)
@settings(max_examples=3, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow,
                                 HealthCheck.filter_too_much])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 30), pick=st.integers(0, 1_000),
       which=st.integers(0, 1))
def test_twins_a_player_cannot_tell_apart_get_him_the_same_answers(
        client, name: str, options: str, scenario: str | None, setup: str | None, depth: int,
        seed: int, steps: int, pick: int, which: int) -> None:
    book = _book(name, options, scenario)
    state = _played(book, setup, seed, depth + steps)
    assume(not state.is_terminal())
    acting = state.current_player if state.current_player in book.players else book.players[0]
    others = [p for p in book.players if p != acting]
    player = acting if which == 0 or not others else others[0]
    twins = _twins(book, state, player, pick)
    assume(twins is not None)
    assert twins is not None
    seen = twins[0].observation(player)
    hidden = sorted(pid for pid in book.piece_ids if pid not in seen["pieces"]
                    and twins[0].place_of(pid) != twins[1].place_of(pid))
    assert len(hidden) == 2
    _same_answers(client, twins, player, hidden)


def _secret_roll_twins(seed: int) -> tuple[str, str, str]:
    """Two records of a scenario X game that differ only in player A's secret
    roll for his army's breaking point, and player B, who cannot tell them apart."""
    book = _book("grands_strateges", "", "X")
    state = book.new_game(seed=seed)
    rng = random.Random(seed)
    secret = None
    while secret is None or state.is_chance_node() or len(state.history) < secret + 3:
        assert not state.is_terminal() and len(state.history) < 400
        if state.is_chance_node():
            state.apply_chance()
            if any(e.text.startswith("a rolls") for e in state.trail()):
                secret = len(state.history) - 1
        else:
            ids = state.legal_action_ids()
            state.apply(ids[rng.randrange(len(ids))])
    text = format_record(state)
    record = parse_record(text)
    line, action = record.actions[secret]
    rolled = int(action.args[0])
    other = 1 if rolled > 2 else 6      # another breaking point (40% against 50 or 60%)
    lines = text.split("\n")
    assert lines[line - 1] == f"roll {rolled}", lines[line - 1]
    lines[line - 1] = f"roll {other}"
    return text, "\n".join(lines), "b"


def _seat_answers(client: TestClient, game: str, player: str) -> list[Any]:
    return [_ask(client, game, q) for q in (("GET", "", {}), ("GET", "/view", {"player": player}))]


@pytest.mark.rule("scenario_play", rulebook="grands_strateges")
@pytest.mark.parametrize("seed", [1, 2])
def test_another_players_secret_roll_is_not_in_a_players_view(client, seed: int) -> None:
    first, second, player = _secret_roll_twins(seed)
    games = [client.post("/api/games/load", json={"text": t}).json()["game"]
             for t in (first, second)]
    states = [client.app.state.games.get(g).state for g in games]
    assert states[0].observation("a")["players"]["a"] != \
        states[1].observation("a")["players"]["a"]
    assert states[0].observation(player) == states[1].observation(player)
    views = [_seat_answers(client, g, player) for g in games]
    assert views[0] == views[1]
    dice = views[0][1][1]["dice"]
    assert len(dice) == 1 and dice[0].startswith("roll "), dice   # B's own roll only


@pytest.mark.rule("scenario_play", rulebook="grands_strateges")
@pytest.mark.xfail(reason="format_record(state, player=...) writes every die roll, another "
                   "player's secret roll included: the record view is the API's (reported)",
                   strict=False)
def test_another_players_secret_roll_is_not_in_a_players_record(client) -> None:
    first, second, player = _secret_roll_twins(1)
    games = [client.post("/api/games/load", json={"text": t}).json()["game"]
             for t in (first, second)]
    saved = [client.get(f"/api/games/{g}/save", params={"player": player}).text for g in games]
    assert saved[0] == saved[1]
