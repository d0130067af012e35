"""Bytes the browser front end receives per action (docs/frontend.md).

Run: PYTHONPATH=CHECKOUT python benchmarks/frontend_bytes.py

Plays the hot-seat page's requests, through Starlette's test client, for a
short Spanish turn of the Cortés ``demo`` position with nothing hidden (the
moves and the battle of tests/serve/test_browser.py), and counts what each
action costs the page: the action, then what the page fetches to redraw.
The page of ff18e9c asked for the game's summary and a whole view (its
picture in full) after every action; the page of now takes the summary
from the action's answer and asks for a view that patches the picture it
holds. ``raw`` is the answers' JSON, ``wire`` what crosses the network
(compressed when the server compresses). Also measured: the opening view;
the roll that ends the turn and passes the screen to the other player, whose
first view is a whole picture; and, for a redeployment decision of 292
actions, its view and the selection of its unit.
"""

from __future__ import annotations

import sys
import warnings
from pathlib import Path
from typing import Any

warnings.filterwarnings("ignore")
sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "tests" / "serve"))

from starlette.testclient import TestClient  # noqa: E402

import cortes_rules  # noqa: E402
from cortes_rules.serve.app import create_app  # noqa: E402
from serving import demo_record, long_decision_record  # noqa: E402

TURN = ("end", "move S9 3011", "move S1 3011", "end", "attack 3012", "join S1", "join S9",
        "resolve")
"""The Spanish player's actions; then the dice are rolled and the screen passes."""


class Counter:
    def __init__(self) -> None:
        self.raw = self.wire = 0

    def add(self, response: Any) -> Any:
        assert response.status_code == 200, response.text
        self.raw += len(response.content)
        self.wire += response.num_bytes_downloaded
        return response


def measure() -> dict[str, float]:
    client = TestClient(create_app(setup="demo", cost="spent", forecast="battle_forecast()"))
    client.headers["Accept-Encoding"] = "gzip"
    game = client.post("/api/games/load", json={"text": demo_record(hidden=False)}).json()["game"]
    opening = Counter()
    view = opening.add(client.get(f"/api/games/{game}/view", params={"player": "spanish"})).json()
    patches = "svg_patch" in view
    turn, passing = Counter(), Counter()
    for action in (*TURN, "roll"):
        counter = turn if action != "roll" else passing
        summary = counter.add(client.post(f"/api/games/{game}/act",
                                          json={"player": "spanish", "action": action}))
        params = {"player": summary.json()["deciding"]}
        if patches and params["player"] == "spanish":
            params["since"] = view["svg_digest"]
        if not patches:
            counter.add(client.get(f"/api/games/{game}"))
        view = counter.add(client.get(f"/api/games/{game}/view", params=params)).json()
    long = client.post("/api/games/load", json={"text": long_decision_record()}).json()["game"]
    decision, selection = Counter(), Counter()
    seen = decision.add(client.get(f"/api/games/{long}/view", params={"player": "spanish"}))
    unit = {"player": "spanish", "unit": "S1"}
    if patches:
        unit["since"] = seen.json()["svg_digest"]
    else:   # the old page asked for the unit's reachable places, then the view
        selection.add(client.get(f"/api/games/{long}/reachable", params=unit))
    selection.add(client.get(f"/api/games/{long}/view", params=unit))
    n = len(TURN)
    return {"opening_raw": opening.raw, "opening_wire": opening.wire,
            "per_action_raw": turn.raw / n, "per_action_wire": turn.wire / n,
            "screen_pass_raw": passing.raw, "screen_pass_wire": passing.wire,
            "long_decision_raw": decision.raw, "long_decision_wire": decision.wire,
            "select_unit_raw": selection.raw, "select_unit_wire": selection.wire,
            "patches": float(patches)}


def main() -> int:
    figures = measure()
    print(f"cortes_rules from {Path(cortes_rules.__file__).parent}")
    print("picture patches:", "yes" if figures["patches"] else "no (the whole picture each time)")
    for key in ("opening", "per_action", "screen_pass", "long_decision", "select_unit"):
        print(f"{key:>14}: {figures[key + '_raw'] / 1000:8.1f} kB raw, "
              f"{figures[key + '_wire'] / 1000:8.1f} kB on the wire")
    return 0


if __name__ == "__main__":
    sys.exit(main())
