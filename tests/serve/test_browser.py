"""The browser front end end to end: Playwright drives the system's Chromium.

A hot-seat game from the Cortés ``demo`` position with nothing hidden from
the Spanish player: the map opens fitted to the window and centred on the
pieces his decision names; it zooms with its buttons and the wheel (about
the pointer) and pans by dragging; a unit moves by a click on it and on a
shaded reachable hex (7.1); an attack shows its forecast (8.17), then the
dice and the rule trail (13.2); after each action the page is sent a patch
of its picture, which rebuilds the same map as a fresh load; the screen
is passed to the Aztec player; the record is saved, loaded back, and a
decision undone. A redeployment of one unit to any of about 290 hexes is offered
grouped by piece: the piece, its actions and its shaded places. Two
browsers take the two seats of a seat game by its link; the second cannot
take the first's. Screenshots are checked readable (not blank) with the
PNG helpers of tests/docs/screenshots.py, and written to a temporary
folder and to ``$CORTES_RULES_SCREENSHOTS`` when set.

Without Chromium (``apt-get install chromium``) or Playwright the tests are
skipped, unless ``$CORTES_RULES_REQUIRE_BROWSER`` is set (as in CI): then they
fail. Playwright never downloads a browser here: it launches the system's.
"""

from __future__ import annotations

import json
import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
sys.path.insert(0, str(Path(__file__).resolve().parent))
import screenshots  # noqa: E402
from serving import demo_record, long_decision, long_decision_record  # noqa: E402

MIN_COLOURS = 40
INKED = (0.03, 0.97)
SCREEN = {"width": 1500, "height": 1000}
PATIENCE_MS = 20_000
"""How long an expectation waits: CI runs these beside the rest of the suite
on two loaded cores, where a page's first answer can take several seconds."""


def _missing(reason: str) -> None:
    if os.environ.get("CORTES_RULES_REQUIRE_BROWSER"):
        pytest.fail(reason)
    pytest.skip(reason)


@pytest.fixture(scope="module")
def chromium() -> str:
    for module in ("playwright", "starlette", "uvicorn"):
        try:
            __import__(module)
        except ImportError:
            _missing(f"{module} is not installed (pip install -e '.[test-all]')")
    found = screenshots.find_browser()
    if found is None:
        _missing("no Chromium binary (apt-get install chromium, or set CHROMIUM)")
    assert found is not None
    return found


@pytest.fixture(scope="module")
def server(chromium: str) -> Iterator[tuple[str, Any]]:
    import uvicorn

    from cortes_rules.record import default_rulebook
    from cortes_rules.serve.app import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    from playwright.sync_api import expect

    app = create_app(setup="demo", cost="spent", forecast="battle_forecast()")
    # The rulebook is compiled before the first page asks for a game, so that
    # no page's first expectation waits on a load.
    app.state.games.book(app.state.games.settings.rulebook or default_rulebook(), ())
    expect.set_options(timeout=PATIENCE_MS)
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}", app
    running.should_exit = True
    thread.join(timeout=10)


@pytest.fixture(scope="module")
def browser(chromium: str) -> Iterator[Any]:
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        launched = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        yield launched
        launched.close()


def _shot(page: Any, tmp_path: Path, name: str) -> None:
    png = page.screenshot(full_page=False)
    out = [tmp_path]
    if os.environ.get("CORTES_RULES_SCREENSHOTS"):
        out.append(Path(os.environ["CORTES_RULES_SCREENSHOTS"]))
    for folder in out:
        folder.mkdir(parents=True, exist_ok=True)
        (folder / name).write_bytes(png)
    image = screenshots.read_png(png)
    colours, inked = screenshots.colour_profile(image)
    assert colours >= MIN_COLOURS, f"only {colours} colours: a blank page?"
    assert INKED[0] <= inked <= INKED[1], f"{inked:.1%} of the page inked"


def _load(page: Any, tmp_path: Path, text: str, name: str) -> None:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    page.set_input_files("#load", str(path))


def _scale(page: Any) -> float:
    return float(page.locator("#board").get_attribute("data-scale") or "0")


def _rect(page: Any, selector: str) -> dict[str, float]:
    box = page.locator(selector).first.bounding_box()
    assert box is not None, selector
    return box  # type: ignore[no-any-return]


def _inside(inner: dict[str, float], outer: dict[str, float], slack: float = 1.0) -> bool:
    return (inner["x"] >= outer["x"] - slack and inner["y"] >= outer["y"] - slack
            and inner["x"] + inner["width"] <= outer["x"] + outer["width"] + slack
            and inner["y"] + inner["height"] <= outer["y"] + outer["height"] + slack)


def _map_point(page: Any, x: float, y: float) -> tuple[float, float]:
    """The point of the picture (its own units) under a point of the screen."""
    board = _rect(page, "#board")
    k = _scale(page)
    return (x - board["x"]) / k, (y - board["y"]) / k


@pytest.mark.rule("8.17")
def test_a_hot_seat_game_in_the_browser(server: tuple[str, Any], browser: Any,
                                       tmp_path: Path) -> None:
    from playwright.sync_api import expect

    base, app = server
    page = browser.new_page(viewport=SCREEN, accept_downloads=True)
    views: list[dict[str, Any]] = []
    page.on("response", lambda r: views.append(json.loads(r.body()))
            if "/view?" in r.url and r.ok else None)
    page.goto(base + "/")
    _load(page, tmp_path, demo_record(hidden=False), "demo.record")
    expect(page.locator("#status")).to_contain_text("Turn 1")
    expect(page.locator("#status")).to_contain_text("You are spanish")

    # The map opens fitted to the panel and centred on the pieces the decision names.
    panel = _rect(page, "#board-panel")
    assert panel["height"] <= SCREEN["height"] and panel["width"] < SCREEN["width"]
    assert 0 < _scale(page) <= 1
    named = {p for a in views[-1]["actions"] for p in a["pieces"][:1]} or set(views[-1]["mine"])
    for piece in named:
        assert _inside(_rect(page, f'#board .counter[data-piece="{piece}"]'), panel), piece
    middle = (panel["x"] + panel["width"] / 2, panel["y"] + panel["height"] / 2)
    counters = [_rect(page, f'#board .counter[data-piece="{p}"]') for p in named]
    cx = sum(c["x"] + c["width"] / 2 for c in counters) / len(counters)
    cy = sum(c["y"] + c["height"] / 2 for c in counters) / len(counters)
    assert abs(cx - middle[0]) < panel["width"] / 4 and abs(cy - middle[1]) < panel["height"] / 4
    _shot(page, tmp_path, "frontend-opening.png")

    # The whole map fits the panel; the buttons and the wheel zoom; a drag pans.
    page.click("#zoom-whole")
    whole = _scale(page)
    assert whole < 1 and _inside(_rect(page, "#board svg"), panel)
    picture = _rect(page, "#board svg")
    assert (abs(picture["width"] - panel["width"]) < 3
            or abs(picture["height"] - panel["height"]) < 3)   # it fills one side
    page.click("#zoom-in")
    assert abs(_scale(page) - whole * 1.25) < 1e-3
    page.click("#zoom-out")
    assert abs(_scale(page) - whole) < 1e-3
    page.click("#zoom-mine")
    at = (middle[0] + 80, middle[1] - 60)
    before, k = _map_point(page, *at), _scale(page)
    page.mouse.move(*at)
    page.mouse.wheel(0, -400)
    page.wait_for_function(f"Number(document.querySelector('#board').dataset.scale) > {k}")
    after = _map_point(page, *at)
    assert abs(after[0] - before[0]) < 1.5 and abs(after[1] - before[1]) < 1.5
    start = _rect(page, "#board")
    page.mouse.move(*middle)
    page.mouse.down()
    page.mouse.move(middle[0] - 120, middle[1] - 90, steps=6)
    page.mouse.up()
    moved = _rect(page, "#board")
    assert abs(moved["x"] - start["x"] + 120) < 1.5 and abs(moved["y"] - start["y"] + 90) < 1.5
    expect(page.locator("#selected")).not_to_contain_text("Selected")   # a drag is no click
    page.click("#zoom-mine")

    page.click('#actions button[data-action="end"]')
    expect(page.locator("#status")).to_contain_text("land movement")

    # Move: click a unit, see its reachable hexes shaded with their cost, click one.
    page.locator('#board .counter[data-piece="S9"]').dispatch_event("click")
    shaded = page.locator('#board .highlight[data-place="3011"]')
    expect(shaded).to_have_count(1)
    expect(page.locator("#selected")).to_contain_text("Selected S9")
    expect(page.locator("#selected")).to_contain_text("cheapest route")
    shaded.dispatch_event("click")
    expect(page.locator('#board .counter[data-piece="S9"][data-place="3011"]')).to_have_count(1)
    page.click('#actions button[data-action="end"]')

    # Attack: its forecast is shown before it is resolved.
    page.click('#actions button[data-action="attack 3012"]')
    page.click('#actions button[data-action="join S9"]')
    expect(page.locator("#forecast table tr")).not_to_have_count(0)
    expect(page.locator("#forecast")).to_contain_text("%")
    _shot(page, tmp_path, "frontend-battle.png")

    # After the opening view, every view after an action patched the picture,
    # and the patched map is the one a fresh load draws.
    assert views[0]["svg"] is not None
    assert all(v["svg"] is None and v["svg_patch"] for v in views[1:]), \
        [bool(v["svg"]) for v in views]
    patched = page.inner_html("#board")
    page.reload()
    expect(page.locator("#status")).to_contain_text("You are spanish")
    assert page.inner_html("#board") == patched

    # Resolve: the dice and the rule trail, then the screen is passed on.
    page.click('#actions button[data-action="resolve"]')
    page.click("#actions button.roll")
    expect(page.locator("#screen")).to_be_visible()
    expect(page.locator("#screen-text")).to_contain_text("aztec")
    page.click("#screen-ok")
    expect(page.locator("#dice")).to_contain_text("roll")
    expect(page.locator("#trail")).to_contain_text("13.2")
    expect(page.locator("#status")).to_contain_text("You are aztec")

    # Save the record, and load it back as a new game.
    with page.expect_download() as saving:
        page.click("#save")
    saved = tmp_path / "game.record"
    saving.value.save_as(saved)
    text = saved.read_text(encoding="utf-8")
    assert text.startswith("cortes-rules-record") and "attack 3012" in text
    first = page.url
    page.set_input_files("#load", str(saved))
    expect(page).not_to_have_url(first)
    expect(page.locator("#trail")).to_contain_text("13.2")
    expect(page.locator("#status")).to_contain_text("You are aztec")

    # Undo: the Aztec player takes a loss, then takes it back.
    losses = page.locator('#actions button[data-kind="lose"]')
    expect(losses).not_to_have_count(0)
    offered = losses.count()
    losses.first.click()
    expect(page.locator("#trail")).to_contain_text("loses a step")
    page.click("#undo")
    expect(page.locator('#actions button[data-kind="lose"]')).to_have_count(offered)
    expect(page.locator("#error")).to_be_hidden()
    page.close()


@pytest.mark.rule("7.1")
def test_a_long_decision_is_grouped_by_piece(server: tuple[str, Any], browser: Any,
                                            tmp_path: Path) -> None:
    from playwright.sync_api import expect

    base, app = server
    page = browser.new_page(viewport=SCREEN)
    page.goto(base + "/")
    _load(page, tmp_path, long_decision_record(), "long.record")
    offered = [str(a) for a in long_decision().legal_actions()]
    of_s1 = sum(1 for a in offered if a.startswith("redeploy S1 "))
    assert of_s1 > 200
    expect(page.locator("#decision-head")).to_contain_text(f"{len(offered)} actions")
    # Not hundreds of buttons: one per piece (and the few actions naming none).
    assert page.locator("#actions button").count() < 20
    choice = page.locator('#actions button.piece-choice[data-piece="S1"]')
    expect(choice).to_contain_text(f"({of_s1})")
    expect(page.locator("#group")).to_have_count(0)
    choice.click()
    expect(page.locator("#group button")).to_have_count(of_s1)
    expect(page.locator("#board .highlight")).to_have_count(of_s1)
    expect(page.locator("#selected")).to_contain_text(f"Selected S1: {of_s1} places shaded")
    page.click("#zoom-whole")
    _shot(page, tmp_path, "frontend-grouped.png")
    # A shaded place is the one action of the piece that names it.
    game = page.url.split("game=")[1].split("&")[0]
    state = app.state.games.get(game).state
    plies = len(state.history)
    target = page.locator("#board .highlight").nth(100)
    place = target.get_attribute("data-place")
    target.dispatch_event("click")
    expect(page.locator("#trail li").first).to_contain_text(f"redeploy S1 {place}")
    assert len(state.history) == plies + 1 and str(state.history[-1]) == f"redeploy S1 {place}"
    page.close()


@pytest.mark.rule("8.8")
def test_two_browsers_take_the_two_seats_by_their_links(server: tuple[str, Any],
                                                       browser: Any) -> None:
    from playwright.sync_api import expect

    base, _ = server
    first = browser.new_context(viewport=SCREEN).new_page()
    first.goto(base + "/")
    first.select_option("#mode", "seats")
    first.click("#start")
    expect(first.locator("#status")).to_contain_text("You are spanish")
    expect(first.locator("#seats")).to_contain_text("aztec: free")
    link = first.locator('#seats .seat[data-player="aztec"] code').inner_text()
    assert "token" not in link and "Bearer" not in link and first.url.endswith("player=spanish")
    second = browser.new_context(viewport=SCREEN).new_page()
    second.goto(link)
    expect(second.locator("#status")).to_contain_text("You are aztec")
    expect(second.locator("#seats")).to_contain_text("You hold the aztec seat")
    # Another browser cannot take the Spanish seat from the link of the first.
    third = browser.new_context(viewport=SCREEN).new_page()
    third.goto(first.url)
    expect(third.locator("#error")).to_contain_text("the spanish seat is taken")
    expect(third.locator("#game")).to_be_hidden()
    expect(first.locator("#seats")).to_contain_text("aztec: taken")
    for page in (first, second, third):
        page.context.close()
