"""Seats with credentials, over HTTP: a seat game's requests speak for a seat by its token.

In a game played one browser per player, creating the game or joining a
seat gives an unguessable token; every view, reachable places, record,
action, move and undo for a seat needs that seat's token. A request
without it, with a made-up one or with another seat's is refused (403)
and changes nothing: one player's browser cannot read the other's view or
record (the stacks hidden from him under 8.8 and 11.9) nor act or undo for
him (4.1). Hot-seat games need no token. Tokens appear only in the answer
that gives them: never in records, other answers or the server's logs.
"""

from __future__ import annotations

import logging
import re
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
httpx = pytest.importorskip("httpx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

from starlette.testclient import TestClient  # noqa: E402

from cortes_rules.serve.app import create_app  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving import AZTEC, SPANISH, fingerprint  # noqa: E402


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(options=("veteran",), setup="historical", cost="spent"))


def _bearer(token: str) -> dict[str, str]:
    return {"Authorization": f"Bearer {token}"}


def _seat_game(client: TestClient, seed: int = 3) -> tuple[str, str, str]:
    """A seat game with both seats taken: its id, the Spanish and the Aztec tokens."""
    made = client.post("/api/games/new", json={"seed": seed, "mode": "seats"})
    assert made.status_code == 200, made.text
    game = made.json()["game"]
    assert made.json()["seat"] == SPANISH
    joined = client.post(f"/api/games/{game}/join", json={"player": AZTEC})
    assert joined.status_code == 200, joined.text
    assert joined.json()["seat"] == AZTEC
    return game, made.json()["token"], joined.json()["token"]


def _requests(game: str, acting: str, action: str) -> list[tuple[str, str, dict[str, Any]]]:
    """Every request for a seat, as (method, path, params or body) for ``acting``."""
    base = f"/api/games/{game}"
    return [
        ("GET", f"{base}/view", {"player": acting}),
        ("GET", f"{base}/view", {"player": acting, "unit": "S1"}),
        ("GET", f"{base}/reachable", {"player": acting, "unit": "S1"}),
        ("GET", f"{base}/save", {"player": acting}),
        ("POST", f"{base}/act", {"player": acting, "action": action}),
        ("POST", f"{base}/move", {"player": acting, "unit": "S1", "to": "1105"}),
        ("POST", f"{base}/undo", {"player": acting}),
    ]


def _send(client: TestClient, method: str, path: str, data: dict[str, Any],
          headers: dict[str, str]) -> Any:
    if method == "GET":
        return client.get(path, params=data, headers=headers)
    return client.post(path, json=data, headers=headers)


@pytest.mark.rule("8.8")
def test_creating_or_joining_a_seat_gives_an_unguessable_token_of_its_own(client) -> None:
    game, spanish, aztec = _seat_game(client)
    _, spanish_elsewhere, aztec_elsewhere = _seat_game(client)
    assert len({spanish, aztec, spanish_elsewhere, aztec_elsewhere}) == 4
    for token in (spanish, aztec):
        assert re.fullmatch(r"[A-Za-z0-9_-]{40,}", token), token
    summary = client.get(f"/api/games/{game}")
    assert summary.json()["seats"] == {SPANISH: True, AZTEC: True}
    assert spanish not in summary.text and aztec not in summary.text
    # A seat is given once: a second join of either seat is refused.
    for player in (SPANISH, AZTEC):
        again = client.post(f"/api/games/{game}/join", json={"player": player})
        assert again.status_code == 409 and "taken" in again.json()["error"]
    assert client.post(f"/api/games/{game}/join", json={"player": "umpire"}).status_code == 400
    # The creator may take another seat than the first.
    second = client.post("/api/games/new", json={"seed": 1, "mode": "seats", "seat": AZTEC})
    assert second.json()["seat"] == AZTEC
    assert second.json()["seats"] == {SPANISH: False, AZTEC: True}


@pytest.mark.rule("8.8")
def test_no_seat_request_is_answered_without_that_seats_token(client) -> None:
    game, spanish, aztec = _seat_game(client)
    assert client.post(f"/api/games/{game}/act", json={"action": "board S12"},
                       headers=_bearer(spanish)).status_code == 200
    before = fingerprint(client, game)
    wrong_tokens = {"none": {}, "made up": _bearer("x" * 43),
                    "not bearer": {"Authorization": f"Basic {spanish}"}}
    for method, path, data in _requests(game, SPANISH, "move S1 1105"):
        for why, headers in {**wrong_tokens, "the other seat's": _bearer(aztec)}.items():
            refused = _send(client, method, path, data, headers)
            assert refused.status_code == 403, (why, path, refused.text)
            body = refused.json()
            assert body["error"] and "\n" not in body["error"]
            assert spanish not in refused.text and aztec not in refused.text
            assert fingerprint(client, game) == before, (why, path)


@pytest.mark.rule("11.9")
def test_one_browser_cannot_read_or_play_the_other_seat(client) -> None:
    game, spanish, aztec = _seat_game(client, seed=5)
    # The Aztec browser knows the game id and asks for the Spanish seat's view,
    # its record, to act and to undo as the Spanish player: all refused.
    before = fingerprint(client, game)
    for method, path, data in _requests(game, SPANISH, "end"):
        assert _send(client, method, path, data, _bearer(aztec)).status_code == 403, path
    assert fingerprint(client, game) == before
    # With its own token it reads its own view, which hides what 8.8 hides.
    own = client.get(f"/api/games/{game}/view", headers=_bearer(aztec))
    assert own.status_code == 200 and own.json()["player"] == AZTEC
    spanish_view = client.get(f"/api/games/{game}/view", headers=_bearer(spanish)).json()
    assert spanish_view["player"] == SPANISH and spanish_view["hidden"]
    assert own.json()["hidden"] != spanish_view["hidden"]
    # Its token speaks for the Aztec seat only: an action is the Aztec player's.
    early = client.post(f"/api/games/{game}/act", json={"action": "board S12"},
                        headers=_bearer(aztec))
    assert early.status_code == 409 and "spanish's decision" in early.json()["error"]
    # The Spanish seat plays, the Aztec seat cannot take it back.
    assert client.post(f"/api/games/{game}/act", json={"action": "board S12"},
                       headers=_bearer(spanish)).status_code == 200
    after = fingerprint(client, game)
    assert client.post(f"/api/games/{game}/undo", json={}, headers=_bearer(aztec)) \
        .status_code == 409   # the Aztec player has no decision of his own to take back
    assert client.post(f"/api/games/{game}/undo", json={"player": SPANISH},
                       headers=_bearer(aztec)).status_code == 403
    assert fingerprint(client, game) == after
    assert client.post(f"/api/games/{game}/undo", json={},
                       headers=_bearer(spanish)).status_code == 200
    assert fingerprint(client, game) == before
    # Before the game is over a seat's record is its own view, even unasked.
    saved = client.get(f"/api/games/{game}/save", headers=_bearer(spanish))
    assert saved.status_code == 200 and "view spanish" in saved.text


@pytest.mark.rule("4.1")
def test_a_hot_seat_game_needs_no_token(client) -> None:
    made = client.post("/api/games/new", json={"seed": 2})
    assert made.status_code == 200 and "token" not in made.json()
    game = made.json()["game"]
    assert made.json()["seats"] is None
    assert client.get(f"/api/games/{game}/view", params={"player": AZTEC}).status_code == 200
    assert client.post(f"/api/games/{game}/act",
                       json={"player": SPANISH, "action": "board S12"}).status_code == 200
    assert client.post(f"/api/games/{game}/undo", json={"player": SPANISH}).status_code == 200
    assert client.get(f"/api/games/{game}/save").text.startswith("cortes-rules-record")
    joined = client.post(f"/api/games/{game}/join", json={"player": AZTEC})
    assert joined.status_code == 400


# ------------------------------------------------------------------ logs


class _Kept(logging.Handler):
    def __init__(self) -> None:
        super().__init__(logging.DEBUG)
        self.lines: list[str] = []

    def emit(self, record: logging.LogRecord) -> None:
        self.lines.append(self.format(record))


@pytest.fixture
def served() -> Iterator[tuple[str, _Kept]]:
    """A real server on loopback with its access log on, and everything it logs."""
    import uvicorn

    kept = _Kept()
    # uvicorn's own logging set-up (by an earlier server of this process) may
    # stop its loggers propagating: keep what each of them writes.
    loggers = [logging.getLogger(n) for n in ("", "uvicorn", "uvicorn.error", "uvicorn.access")]
    for logger in loggers:
        logger.addHandler(kept)
    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(options=("veteran",), setup="historical")
    server = uvicorn.Server(uvicorn.Config(app, host="127.0.0.1", port=port, log_level="debug",
                                           access_log=True, log_config=None))
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not server.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    try:
        yield f"http://127.0.0.1:{port}", kept
    finally:
        server.should_exit = True
        thread.join(timeout=10)
        for logger in loggers:
            logger.removeHandler(kept)


@pytest.mark.rule("8.8")
def test_tokens_never_appear_in_records_answers_or_the_servers_logs(served, capfd) -> None:
    base, kept = served
    seen: list[str] = []
    with httpx.Client(base_url=base, timeout=60) as http:
        def send(method: str, path: str, token: str | None = None, *, echo: bool = False,
                 **kw: Any) -> Any:
            headers = _bearer(token) if token else {}
            response = http.request(method, path, headers=headers, **kw)
            assert response.status_code < 500, response.text
            if not echo:   # an answer may repeat what the request itself wrote
                seen.append(response.text)
            return response

        made = http.post("/api/games/new", json={"seed": 4, "mode": "seats"}).json()
        game, spanish = made["game"], made["token"]
        aztec = http.post(f"/api/games/{game}/join", json={"player": AZTEC}).json()["token"]
        send("GET", f"/api/games/{game}/view", spanish)
        send("GET", f"/api/games/{game}/view", aztec, params={"player": SPANISH})
        send("POST", f"/api/games/{game}/act", spanish, json={"action": "board S12"})
        send("POST", f"/api/games/{game}/act", aztec, json={"action": "board S12"})
        send("POST", f"/api/games/{game}/act", spanish, echo=True,
             json={"action": f"end {aztec}"})
        send("POST", f"/api/games/{game}/act", f"{spanish}x", json={"action": "board S12"})
        send("GET", f"/api/games/{game}/save", spanish)
        send("GET", f"/api/games/{game}/save", aztec)
        send("POST", f"/api/games/{game}/undo", spanish, json={})
        send("POST", f"/api/games/{game}/move", aztec, echo=True,
             json={"unit": spanish, "to": "1105"})
    out, err = capfd.readouterr()
    assert any("/api/games/" in line for line in kept.lines), "no access log was kept"
    # Two requests above carried a token in a field on purpose: the logs keep
    # none of it either.
    for token in (spanish, aztec):
        for where, text in (("log", "\n".join(kept.lines)), ("stdout", out), ("stderr", err),
                            *(("answer", t) for t in seen)):
            assert token not in text, f"a token in the server's {where}"
