"""Bad requests get a 4xx with a one-line reason and change nothing.

Every endpoint checks its body or query against its shape: JSON nested
50,000 deep, a number where a text is wanted (``options: 5``, ``setup: [1]``),
unknown fields, an oversized body, a body that is not JSON. Hypothesis
sends every endpoint arbitrary JSON and bytes; a bounded run of a few
hundred concurrent requests on several games over loopback, mixing legal
play with refused requests, finds no 5xx, and each game ends exactly where
its accepted actions alone lead (a refused request draws no die either:
4.1, the sequence of play, is all that moves a game).
"""

from __future__ import annotations

import json
import random
import socket
import sys
import threading
import time
from collections.abc import Iterator
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

from starlette.testclient import TestClient  # noqa: E402

from cortes_rules.serve.app import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving import AZTEC, SPANISH, cortes, fingerprint  # noqa: E402

DEEP = 50_000


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(setup="demo", cost="spent"), raise_server_exceptions=False)


@pytest.fixture(scope="module")
def games(client: TestClient) -> dict[str, str]:
    """A hot-seat game and a seat game (with its Spanish token)."""
    hot = client.post("/api/games/new", json={"seed": 8}).json()["game"]
    seated = client.post("/api/games/new", json={"seed": 8, "mode": "seats"}).json()
    return {"hot": hot, "seats": seated["game"], "token": seated.get("token", "")}


def _refused(response: Any, status: int | None = None) -> str:
    """A refusal's one-line reason (the answer must be a JSON 4xx)."""
    assert 400 <= response.status_code < 500, (response.status_code, response.text[:300])
    if status is not None:
        assert response.status_code == status, response.text
    error = response.json()["error"]
    assert isinstance(error, str) and error and "\n" not in error and len(error) < 400
    return error


def _posts(game: str) -> list[str]:
    base = f"/api/games/{game}"
    return ["/api/games/new", "/api/games/load", f"{base}/join", f"{base}/act", f"{base}/move",
            f"{base}/undo"]


def _gets(game: str) -> list[str]:
    base = f"/api/games/{game}"
    return [base, f"{base}/view", f"{base}/reachable", f"{base}/save"]


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("body", [
    "[" * DEEP + "]" * DEEP,
    '{"a": ' * DEEP + "1" + "}" * DEEP,
    json.dumps({"seed": 1, "options": 5}),
    json.dumps({"seed": 1, "setup": [1]}),
    json.dumps({"seed": 1, "mode": {"x": 1}}),
    json.dumps({"seed": 10**30}),
    json.dumps({"seed": -1}),
    json.dumps({"seed": 1, "options": ["veteran", 3]}),
    json.dumps({"seed": 1, "colour": "red"}),
    "1" * 5000,
    "\udcff not utf-8".encode("utf-8", "surrogateescape").decode("latin-1"),
], ids=["list 50000 deep", "object 50000 deep", "options a number", "setup [1]",
        "mode an object", "seed too big", "seed below 0", "options with a number",
        "unknown field", "a number of 5000 digits", "not utf-8"])
def test_a_body_of_the_wrong_shape_gets_a_400_and_one_line(client, games, body: str) -> None:
    before = {g: fingerprint(client, games[g]) for g in ("hot", "seats")}
    count = len(client.app.state.games.games)
    data = body.encode("latin-1")
    for path in _posts(games["hot"]) + _posts(games["seats"]):
        _refused(client.post(path, content=data, headers={"Content-Type": "application/json"}))
    assert len(client.app.state.games.games) == count
    assert {g: fingerprint(client, games[g]) for g in ("hot", "seats")} == before


@pytest.mark.rule("4.1")
@pytest.mark.parametrize(("where", "body", "words"), [
    ("act", {"player": SPANISH, "action": ["end"]}, "'action' is a text or a whole number"),
    ("act", {"player": 7, "action": "end"}, "'player' is a text or null"),
    ("act", {"player": SPANISH}, "the field 'action' is needed"),
    ("act", {"player": SPANISH, "action": "end", "extra": 1}, "no field 'extra'"),
    ("act", {"player": SPANISH, "action": "x" * 5000}, "too long"),
    ("move", {"player": SPANISH, "unit": {"id": "S9"}, "to": "3011"}, "'unit' is a text"),
    ("move", {"player": SPANISH, "unit": "S9"}, "the field 'to' is needed"),
    ("undo", {"player": [SPANISH]}, "'player' is a text or null"),
    ("join", {"player": AZTEC, "seat": AZTEC}, "no field 'seat'"),
    ("load", {"text": 5}, "'text' is a text"),
    ("load", {}, "the field 'text' is needed"),
    ("new", {"seed": True}, "'seed' is a whole number"),
    ("new", {"seed": 1.5}, "'seed' is a whole number"),
    ("new", {"mode": "umpire"}, "no mode 'umpire'"),
    ("new", {"mode": "hotseat", "seat": AZTEC}, "no seats"),
])
def test_each_endpoint_names_the_field_it_refuses(client, games, where: str,
                                                   body: dict[str, Any], words: str) -> None:
    path = {"new": "/api/games/new", "load": "/api/games/load"}.get(
        where, f"/api/games/{games['hot']}/{where}")
    before = fingerprint(client, games["hot"])
    assert words in _refused(client.post(path, json=body))
    assert fingerprint(client, games["hot"]) == before


@pytest.mark.rule("4.1")
def test_queries_and_oversized_bodies_are_refused_too(client, games) -> None:
    base = f"/api/games/{games['hot']}"
    assert "given twice" in _refused(client.get(f"{base}/view?player=spanish&player=aztec"))
    assert "no field 'colour'" in _refused(client.get(f"{base}/view",
                                                      params={"player": SPANISH, "colour": 1}))
    assert "needed" in _refused(client.get(f"{base}/reachable", params={"player": SPANISH}))
    assert "not both" in _refused(client.get(f"{base}/view", params={
        "player": SPANISH, "unit": "S9", "kind": "move"}))
    _refused(client.get(f"{base}/view", params={"player": "x" * 5000}))
    _refused(client.get("/api/games/nothing-here"), 404)
    huge = json.dumps({"text": "x" * 4_100_000})
    assert "longer than" in _refused(client.post("/api/games/load", content=huge), 413)
    _refused(client.post(f"{base}/act", content=b"\x00\xff{", headers={
        "Content-Type": "application/json"}), 400)


# ------------------------------------------------------------------ fuzzing

FIELDS = ("seed", "setup", "options", "mode", "seat", "text", "player", "action", "unit",
          "to", "kind", "since")
json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=True) |
    st.text(max_size=30) | st.sampled_from([SPANISH, AZTEC, "S9", "3011", "end", "roll"]),
    lambda inner: st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=8), inner,
                                                                max_size=4),
    max_leaves=12)
bodies = (st.dictionaries(st.sampled_from(FIELDS), json_values, max_size=4).map(json.dumps) |
          json_values.map(json.dumps) | st.binary(max_size=60).map(lambda b: b.hex()) |
          st.binary(max_size=60))


@pytest.mark.rule("4.1")
@settings(max_examples=150, deadline=None,
          suppress_health_check=[HealthCheck.function_scoped_fixture, HealthCheck.too_slow])
@given(which=st.integers(0, 9), seated=st.booleans(), token=st.booleans(), body=bodies,
       params=st.dictionaries(st.sampled_from(FIELDS), st.text(max_size=12), max_size=3))
def test_any_request_to_any_endpoint_gets_an_answer_and_no_5xx(
        client, games, which: int, seated: bool, token: bool, body: Any,
        params: dict[str, str]) -> None:
    game = games["seats" if seated else "hot"]
    headers = {"Authorization": f"Bearer {games['token']}"} if token else {}
    before = fingerprint(client, game)
    paths = _posts(game) + _gets(game)
    path = paths[which % len(paths)]
    if which < len(_posts(game)):
        response = client.post(path, content=body, headers=headers)
    else:
        response = client.get(path, params=params, headers=headers)
    assert response.status_code < 500, (path, body, response.text[:300])
    if response.status_code >= 400:
        _refused(response)
        assert fingerprint(client, game) == before


# ------------------------------------------------------------------ concurrency


@pytest.fixture(scope="module")
def loopback() -> Iterator[tuple[str, Any]]:
    """A real server on 127.0.0.1 with its own games, and its application."""
    import uvicorn

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(setup="demo", cost="spent")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port,
                                           log_level="warning"))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    server.should_exit = True
    thread.join(timeout=10)


GAMES, PLIES, WORKERS = 4, 12, 8
NASTY = 60
"""Refused requests per game, sent while its players play."""


def _nasty(game: str, seated: bool, other: str | None, rng: random.Random
           ) -> list[tuple[str, str, dict[str, Any]]]:
    """Requests the server must refuse, whatever the game's state: (method, path,
    httpx arguments)."""
    base = f"/api/games/{game}"
    kinds = [
        ("POST", f"{base}/act", {"content": b"[" * DEEP}),
        ("POST", f"{base}/act", {"content": b'{"player": "spanish", "action": "end"'}),
        ("POST", f"{base}/act", {"json": {"player": SPANISH, "action": ["end"]}}),
        ("POST", f"{base}/act", {"json": {"player": SPANISH, "action": "fly S9 zone.9"}}),
        ("POST", f"{base}/act", {"json": {"player": "umpire", "action": "end"}}),
        ("POST", f"{base}/move", {"json": {"player": SPANISH, "unit": "S9", "to": "nowhere"}}),
        ("POST", f"{base}/undo", {"json": {"player": "umpire"}}),
        ("GET", f"{base}/view", {"params": {"player": SPANISH, "unit": "NOPE"}}),
        ("GET", f"{base}/view", {"params": {"player": SPANISH, "since": ["x"] * 2}}),
        ("GET", f"{base}/save", {"params": {"player": "nobody"}}),
        ("POST", "/api/games/new", {"json": {"seed": 1, "setup": [1]}}),
        ("POST", "/api/games/load", {"json": {"text": "no record here"}}),
    ]
    if seated:   # requests that only the token makes wrong
        stranger = {"Authorization": "Bearer " + "z" * 43}
        kinds += [
            ("POST", f"{base}/act", {"json": {"player": SPANISH, "action": "end"},
                                     "headers": stranger}),
            ("POST", f"{base}/act", {"json": {"player": SPANISH, "action": "end"},
                                     "headers": {"Authorization": f"Bearer {other}"}}),
            ("POST", f"{base}/undo", {"json": {"player": SPANISH}}),
            ("GET", f"{base}/view", {"params": {"player": SPANISH}}),
            ("POST", f"{base}/join", {"json": {"player": AZTEC}}),
        ]
    return [rng.choice(kinds) for _ in range(NASTY)]


@pytest.mark.rule("4.1")
def test_hundreds_of_concurrent_requests_get_no_5xx_and_refusals_change_nothing(
        loopback: tuple[str, Any]) -> None:
    base, app = loopback
    rng = random.Random(47)
    statuses: list[int] = []
    lock = threading.Lock()
    with httpx.Client(base_url=base, timeout=120) as http:
        made = []
        for i in range(GAMES):
            mode = "seats" if i % 2 else "hotseat"
            answer = http.post("/api/games/new", json={"seed": 100 + i, "mode": mode}).json()
            tokens = {}
            if mode == "seats":
                joined = http.post(f"/api/games/{answer['game']}/join", json={"player": AZTEC})
                tokens = {SPANISH: answer.get("token"), AZTEC: joined.json().get("token")}
            made.append((answer["game"], tokens, 100 + i))

        def play(game: str, tokens: dict[str, str]) -> list[str]:
            """Legal play: the actions taken, in order ("roll" at the dice)."""
            taken: list[str] = []
            pick = random.Random(game)
            for _ in range(PLIES):
                who = http.get(f"/api/games/{game}").json()["deciding"]
                headers = {"Authorization": f"Bearer {tokens[who]}"} if tokens else {}
                view = http.get(f"/api/games/{game}/view", headers=headers,
                                params={"player": who}).json()
                action = "roll" if view["chance"] else pick.choice(view["actions"])["text"]
                done = http.post(f"/api/games/{game}/act", headers=headers,
                                 json={"player": who, "action": action})
                assert done.status_code == 200, done.text
                taken.append(action)
            return taken

        def attack(method: str, path: str, kw: dict[str, Any]) -> None:
            response = http.request(method, path, **kw)
            with lock:
                statuses.append(response.status_code)
            assert 400 <= response.status_code < 500, (path, response.text[:200])
            assert "\n" not in response.json()["error"]

        with ThreadPoolExecutor(WORKERS) as pool:
            players = [pool.submit(play, game, tokens) for game, tokens, _ in made]
            attacks = [pool.submit(attack, *request) for game, tokens, _ in made
                       for request in _nasty(game, bool(tokens), tokens.get(AZTEC), rng)]
            for job in attacks:
                job.result()
            played = [job.result() for job in players]
    assert len(statuses) == GAMES * NASTY and GAMES * PLIES * 3 + len(statuses) > 300
    # Each game is where its accepted actions alone lead, dice included.
    book = cortes()
    for (game, _, seed), actions in zip(made, played, strict=True):
        state = book.new_game(seed=seed, setup="demo")
        for action in actions:
            state.apply_chance() if action == "roll" else state.apply(action)
        kept = app.state.games.get(game)
        assert kept.state.to_notation() == state.to_notation()
        assert list(map(str, kept.state.history)) == list(map(str, state.history))
