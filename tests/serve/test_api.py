"""The JSON API of ``cortes-rules serve`` (cortes_rules.serve), through Starlette's TestClient.

The server offers a player exactly the legal actions of the position when he
is to act (4.1), refuses an illegal one with the rule that forbids it and
leaves the game unchanged, never names a piece hidden from a player (8.8,
11.9) in his view, his picture or his record, and saves, loads and undoes
games by their records.
"""

from __future__ import annotations

import json
import re
import sys
from fractions import Fraction
from pathlib import Path

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

from starlette.testclient import TestClient  # noqa: E402

import cortes_rules  # noqa: E402
from cortes_rules.picture import render_svg  # noqa: E402
from cortes_rules.serve.app import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving import AZTEC, SPANISH, demo_record  # noqa: E402


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(setup="demo", cost="spent", forecast="battle_forecast()"))


@pytest.fixture(scope="module")
def veteran() -> TestClient:
    return TestClient(create_app(options=("veteran",), setup="historical"))


def _new(client: TestClient, **body: object) -> str:
    response = client.post("/api/games/new", json={"seed": 8, **body})
    assert response.status_code == 200, response.text
    return str(response.json()["game"])


def _open(client: TestClient) -> str:
    """A demo game in which nothing is hidden from the Spanish player."""
    response = client.post("/api/games/load", json={"text": demo_record(hidden=False)})
    assert response.status_code == 200, response.text
    return str(response.json()["game"])


def _state(client: TestClient, game: str) -> cortes_rules.GameState:
    return client.app.state.games.get(game).state  # type: ignore[attr-defined, no-any-return]


def _view(client: TestClient, game: str, player: str) -> dict:
    response = client.get(f"/api/games/{game}/view", params={"player": player})
    assert response.status_code == 200, response.text
    return response.json()  # type: ignore[no-any-return]


def _act(client: TestClient, game: str, player: str, action: str) -> None:
    response = client.post(f"/api/games/{game}/act", json={"player": player, "action": action})
    assert response.status_code == 200, response.text


@pytest.mark.rule("4.1")
def test_the_actions_offered_are_the_legal_actions_of_the_player_to_act(client) -> None:
    game = _new(client)
    for _ in range(3):
        state = _state(client, game)
        acting = state.current_player
        other = AZTEC if acting == SPANISH else SPANISH
        offered = {a["text"] for a in _view(client, game, acting)["actions"]}
        assert offered == {str(a) for a in state.legal_actions()}
        assert _view(client, game, other)["actions"] == []
        _act(client, game, acting, sorted(offered)[0])


@pytest.mark.rule("7.19")
def test_an_illegal_action_is_refused_with_its_rule_and_changes_nothing(client) -> None:
    game = _new(client)
    before = _state(client, game).to_notation()
    response = client.post(f"/api/games/{game}/act",
                           json={"player": SPANISH, "action": "sail S9 zone.9"})
    assert response.status_code == 422
    assert "7.19" in response.json()["rules"]
    assert _state(client, game).to_notation() == before
    wrong = client.post(f"/api/games/{game}/act", json={"player": AZTEC, "action": "end"})
    assert wrong.status_code == 409
    junk = client.post(f"/api/games/{game}/act", content=b"not json")
    assert junk.status_code == 400 and junk.json()["error"]
    assert _state(client, game).to_notation() == before


@pytest.mark.rule("7.1")
def test_a_unit_moves_to_a_reachable_hex_by_its_cheapest_route(client) -> None:
    game = _open(client)
    _act(client, game, SPANISH, "end")
    reach = client.get(f"/api/games/{game}/reachable",
                       params={"player": SPANISH, "unit": "S9"}).json()
    assert reach.get("3011") == 2
    shaded = client.get(f"/api/games/{game}/view",
                        params={"player": SPANISH, "unit": "S9"}).json()["svg"]
    assert re.search(r'class="highlight" data-place="3011"', shaded)
    moved = client.post(f"/api/games/{game}/move",
                        json={"player": SPANISH, "unit": "S9", "to": "3011"})
    assert moved.status_code == 200, moved.text
    assert _state(client, game).observation(SPANISH)["pieces"]["S9"]["place"] == "3011"
    far = client.post(f"/api/games/{game}/move", json={"player": SPANISH, "unit": "S9",
                                                       "to": "0101"})
    assert far.status_code == 422


@pytest.mark.rule("8.17")
def test_a_battle_shows_its_forecast_then_its_dice_and_rule_trail(client) -> None:
    game = _open(client)
    for action in ("end", "move S9 3011", "move S1 3011", "end", "attack 3012", "join S1",
                   "join S9"):
        _act(client, game, SPANISH, action)
    forecast = _view(client, game, SPANISH)["forecast"]
    assert forecast is not None and forecast["results"]
    total = sum(Fraction(r["exact"]) for r in forecast["results"])
    assert total == 1
    _act(client, game, SPANISH, "resolve")
    assert _view(client, game, SPANISH)["chance"]
    _act(client, game, SPANISH, "roll")
    view = _view(client, game, SPANISH)
    assert view["dice"] and view["dice"][-1].startswith("roll ")
    cited = {rule for ply in view["trail"] for line in ply["lines"] for rule in line["rules"]}
    assert {"8.17", "13.2"} <= cited


@pytest.mark.rule("8.8")
def test_a_players_picture_draws_no_piece_hidden_from_him() -> None:
    book = cortes_rules.load("cortes", options="veteran")
    state = book.new_game(seed=1, setup="historical")
    seen = state.observation(SPANISH)["pieces"]
    hidden = [p for p in state.observation(AZTEC)["pieces"] if p not in seen]
    assert hidden
    full, mine = render_svg(state), render_svg(state, viewer=SPANISH)
    for piece in hidden:
        assert f'data-piece="{piece}"' in full
        assert f'data-piece="{piece}"' not in mine


def _hidden_named(text: str, hidden: list[str]) -> list[str]:
    return [p for p in hidden if re.search(rf"(?<![A-Za-z0-9]){re.escape(p)}(?![0-9])", text)]


@pytest.mark.rule("11.9")
@settings(max_examples=4, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(seed=st.integers(0, 10_000), steps=st.integers(0, 40))
def test_a_players_view_and_record_never_name_a_piece_hidden_from_him(veteran, seed: int,
                                                                     steps: int) -> None:
    game = _new(veteran, seed=seed)
    for _ in range(steps):
        state = _state(veteran, game)
        if state.is_terminal():
            break
        acting = state.current_player
        if state.is_chance_node():
            _act(veteran, game, SPANISH, "roll")
            continue
        offered = _view(veteran, game, acting)["actions"]
        _act(veteran, game, acting, offered[(seed + steps) % len(offered)]["text"])
    state = _state(veteran, game)
    hidden = [p for p in state.observation(AZTEC)["pieces"]
              if p not in state.observation(SPANISH)["pieces"]]
    view = json.dumps(_view(veteran, game, SPANISH))
    assert _hidden_named(view, hidden) == []
    record = veteran.get(f"/api/games/{game}/save", params={"player": SPANISH}).text
    lines = "\n".join(line for line in record.splitlines() if not line.startswith("#"))
    assert _hidden_named(lines, hidden) == []


@pytest.mark.rule("4.1")
def test_a_saved_record_loads_back_into_the_same_game(client) -> None:
    game = _new(client)
    for action in ("end", "move S9 3011", "end", "attack 3012", "join S9", "resolve", "roll"):
        _act(client, game, SPANISH, action)
    text = client.get(f"/api/games/{game}/save").text
    loaded = client.post("/api/games/load", json={"text": text})
    assert loaded.status_code == 200, loaded.text
    again = loaded.json()["game"]
    assert again != game
    assert _state(client, again).to_notation() == _state(client, game).to_notation()
    assert _view(client, again, SPANISH)["trail"] == _view(client, game, SPANISH)["trail"]
    bad = client.post("/api/games/load", json={"text": "no record here"})
    assert bad.status_code == 422 and "\n" not in bad.json()["error"]


@pytest.mark.rule("4.1")
def test_undo_takes_back_the_players_last_decision(client) -> None:
    game = _new(client)
    nothing = client.post(f"/api/games/{game}/undo", json={"player": SPANISH})
    assert nothing.status_code == 409
    _act(client, game, SPANISH, "end")
    start = _state(client, game).to_notation()
    _act(client, game, SPANISH, "move S9 3011")
    assert _state(client, game).to_notation() != start
    undone = client.post(f"/api/games/{game}/undo", json={"player": SPANISH})
    assert undone.status_code == 200, undone.text
    assert _state(client, game).to_notation() == start
    assert [str(a) for a in _state(client, game).history] == ["end"]


@pytest.mark.rule("11.9")
def test_a_seat_game_gives_only_a_players_view_of_its_record(veteran) -> None:
    made = veteran.post("/api/games/new", json={"seed": 8, "mode": "seats"}).json()
    game, seat = made["game"], {"Authorization": f"Bearer {made['token']}"}
    assert veteran.get(f"/api/games/{game}/save").status_code == 403
    mine = veteran.get(f"/api/games/{game}/save", headers=seat)
    assert mine.status_code == 200 and "view spanish" in mine.text
    named = veteran.get(f"/api/games/{game}/save", params={"player": SPANISH}, headers=seat)
    assert named.text == mine.text
    umpire = veteran.get(f"/api/games/{game}/view", params={"player": "umpire"}, headers=seat)
    assert umpire.status_code == 403


@pytest.mark.rule("8.8")
def test_a_forecast_is_withheld_while_anything_is_hidden_from_the_player(client) -> None:
    game = _new(client)   # the demo set-up: A1 lies under A2 at 2810, hidden from him
    assert _state(client, game).observation(SPANISH)["hidden"]
    for action in ("end", "move S9 3011", "end", "attack 3012", "join S9"):
        _act(client, game, SPANISH, action)
    forecast = _view(client, game, SPANISH)["forecast"]
    assert forecast["results"] == [] and "hidden" in forecast["note"]
