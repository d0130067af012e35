"""The browser front end end to end: Playwright drives the system's Chromium.

A hot-seat game of the ``demo`` set-up: the Spanish player moves a unit by
clicking it and a shaded reachable hex (7.1), opens an attack and reads its
forecast (8.17), resolves it and sees the dice and the rule trail (13.2);
the screen is passed to the Aztec player; the record is saved, loaded back,
and a decision undone. A screenshot taken mid-game must be readable (not
blank), checked with the PNG helpers of tests/docs/screenshots.py. It is
written to a temporary folder and to ``$CORTES_RULES_SCREENSHOTS`` when set.

Without Chromium (``apt-get install chromium``) or Playwright the test is
skipped, unless ``$CORTES_RULES_REQUIRE_BROWSER`` is set (as in CI): then it
fails. Playwright never downloads a browser here: it launches the system's.
"""

from __future__ import annotations

import os
import socket
import sys
import threading
import time
from collections.abc import Iterator
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parents[1] / "docs"))
import screenshots  # noqa: E402

MIN_COLOURS = 40
INKED = (0.03, 0.97)


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
def server(chromium: str) -> Iterator[str]:
    import uvicorn

    from cortes_rules.serve.app import create_app

    with socket.socket() as probe:
        probe.bind(("127.0.0.1", 0))
        port = probe.getsockname()[1]
    app = create_app(setup="demo", cost="spent", forecast="battle_forecast()")
    config = uvicorn.Config(app, host="127.0.0.1", port=port, log_level="warning")
    running = uvicorn.Server(config)
    thread = threading.Thread(target=running.run, daemon=True)
    thread.start()
    deadline = time.monotonic() + 30
    while not running.started:
        assert time.monotonic() < deadline, "the server did not start"
        time.sleep(0.05)
    yield f"http://127.0.0.1:{port}"
    running.should_exit = True
    thread.join(timeout=10)


def _readable(png: bytes) -> None:
    image = screenshots.read_png(png)
    colours, inked = screenshots.colour_profile(image)
    assert colours >= MIN_COLOURS, f"only {colours} colours: a blank page?"
    assert INKED[0] <= inked <= INKED[1], f"{inked:.1%} of the page inked"


@pytest.mark.rule("8.17")
def test_a_hot_seat_game_in_the_browser(chromium: str, server: str,
                                       tmp_path: Path) -> None:
    from playwright.sync_api import expect, sync_playwright

    with sync_playwright() as p:
        browser = p.chromium.launch(executable_path=chromium, args=["--no-sandbox"])
        page = browser.new_page(viewport={"width": 1500, "height": 1000}, accept_downloads=True)
        page.goto(server + "/")
        page.fill("#seed", "8")
        page.click("#start")
        expect(page.locator("#status")).to_contain_text("Turn 1")
        expect(page.locator("#status")).to_contain_text("You are spanish")
        page.click('#actions button[data-action="end"]')
        expect(page.locator("#status")).to_contain_text("land movement")

        # Move: click a unit, see its reachable hexes shaded, click one.
        page.locator('#board .counter[data-piece="S9"]').dispatch_event("click")
        shaded = page.locator('#board .highlight[data-place="3011"]')
        expect(shaded).to_have_count(1)
        expect(page.locator("#selected")).to_contain_text("Selected S9")
        shaded.dispatch_event("click")
        expect(page.locator('#board .counter[data-piece="S9"][data-place="3011"]')) \
            .to_have_count(1)
        page.click('#actions button[data-action="end"]')

        # Attack: its forecast is shown before it is resolved.
        page.click('#actions button[data-action="attack 3012"]')
        page.click('#actions button[data-action="join S9"]')
        expect(page.locator("#forecast table tr")).not_to_have_count(0)
        expect(page.locator("#forecast")).to_contain_text("%")
        png = page.screenshot(full_page=False)
        out = [tmp_path]
        if os.environ.get("CORTES_RULES_SCREENSHOTS"):
            out.append(Path(os.environ["CORTES_RULES_SCREENSHOTS"]))
        for folder in out:
            folder.mkdir(parents=True, exist_ok=True)
            (folder / "frontend-battle.png").write_bytes(png)
        _readable(png)

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
        browser.close()
