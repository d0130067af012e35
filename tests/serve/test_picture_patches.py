"""The page is sent its map once, then only what changed, and long decisions grouped.

A view names the picture the page holds (``since``); the next one carries
the lines of the player's picture that changed instead of its 0.5 MB, and
the patch rebuilds exactly ``render_svg(state, viewer=player)`` (8.8: the
picture hides what the player may not see). A patch is only ever made
from a picture sent to the same player. Answers are compressed. Each
action offered names the pieces and places among its arguments, so that a
long decision (a redeployment of one unit to any of hundreds of hexes) is
grouped by piece; selecting the piece shades the places its actions name.
"""

from __future__ import annotations

import gzip
import json
import re
import sys
from pathlib import Path
from typing import Any

import pytest

pytest.importorskip("starlette")
pytest.importorskip("httpx")
pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")

from starlette.testclient import TestClient  # noqa: E402

from cortes_rules.picture import render_svg  # noqa: E402
from cortes_rules.serve.app import create_app  # noqa: E402
from cortes_rules.serve.patches import apply  # noqa: E402

sys.path.insert(0, str(Path(__file__).resolve().parent))
from serving import AZTEC, SPANISH, long_decision_record, state_of  # noqa: E402

PATCH_SHARE = 0.02
"""A patch after one action is at most this share of the whole picture."""
VIEW_BYTES = 40_000
"""A view after one action, patch included, is at most this many bytes of JSON."""


@pytest.fixture(scope="module")
def client() -> TestClient:
    return TestClient(create_app(setup="demo", cost="spent"))


def _view(client: TestClient, game: str, **params: str) -> Any:
    response = client.get(f"/api/games/{game}/view", params=params)
    assert response.status_code == 200, response.text
    return response


@pytest.mark.rule("8.8")
def test_after_an_action_the_page_is_sent_only_the_lines_of_the_map_that_changed(
        client) -> None:
    game = client.post("/api/games/new", json={"seed": 8}).json()["game"]
    first = _view(client, game, player=SPANISH).json()
    assert first["svg"] and first["svg_patch"] is None
    lines, digest = first["svg"].split("\n"), first["svg_digest"]
    for action in ("end", "move S9 3011", "end"):
        assert client.post(f"/api/games/{game}/act",
                           json={"player": SPANISH, "action": action}).status_code == 200
        response = _view(client, game, player=SPANISH, since=digest)
        view = response.json()
        assert view["svg"] is None and view["svg_patch"]["since"] == digest
        lines = apply(lines, view["svg_patch"]["ops"])
        assert len(lines) == view["svg_patch"]["lines"]
        whole = render_svg(state_of(client, game), viewer=SPANISH)
        assert "\n".join(lines) == whole
        patch = json.dumps(view["svg_patch"])
        assert len(patch) < PATCH_SHARE * len(whole), (action, len(patch), len(whole))
        assert len(response.content) < VIEW_BYTES, (action, len(response.content))
        digest = view["svg_digest"]


@pytest.mark.rule("8.8")
def test_a_patch_is_made_only_from_a_picture_sent_to_the_same_player(client) -> None:
    game = client.post("/api/games/new", json={"seed": 8}).json()["game"]
    spanish = _view(client, game, player=SPANISH).json()["svg_digest"]
    aztec = _view(client, game, player=AZTEC, since=spanish).json()
    assert aztec["svg"] is not None and aztec["svg_patch"] is None
    unknown = _view(client, game, player=SPANISH, since="0" * 20).json()
    assert unknown["svg"] is not None


@pytest.mark.rule("8.8")
def test_answers_are_sent_compressed(client) -> None:
    game = client.post("/api/games/new", json={"seed": 8}).json()["game"]
    response = client.get(f"/api/games/{game}/view", params={"player": SPANISH},
                          headers={"Accept-Encoding": "gzip"})
    assert response.headers["content-encoding"] == "gzip"
    assert len(gzip.compress(response.content)) < len(response.content) / 5


@pytest.mark.rule("7.1")
def test_a_long_decision_names_each_actions_pieces_and_places(client) -> None:
    loaded = client.post("/api/games/load", json={"text": long_decision_record()})
    game = loaded.json()["game"]
    state = state_of(client, game)
    player = state.current_player
    view = _view(client, game, player=player).json()
    assert len(view["actions"]) == len(state.legal_actions()) >= 100
    pieces = {p for a in view["actions"] for p in a["pieces"]}
    assert pieces and pieces <= set(state.observation(player)["pieces"])
    for action in view["actions"]:
        assert action["pieces"] + action["places"] == action["args"]   # "redeploy S1 0800"
    unit = view["actions"][0]["pieces"][0]
    named = sorted({p for a in view["actions"] if unit in a["pieces"] for p in a["places"]})
    chosen = _view(client, game, player=player, unit=unit, since=view["svg_digest"]).json()
    assert chosen["selected"]["unit"] == unit and chosen["selected"]["places"] == named
    svg = "\n".join(apply(view["svg"].split("\n"), chosen["svg_patch"]["ops"]))
    shaded = set(re.findall(r'class="highlight" data-place="([^"]+)"', svg))
    assert shaded == set(named) | set(chosen["selected"]["reach"])
    assert len(json.dumps(chosen["svg_patch"])) < len(view["svg"]) / 4
