"""Screenshots of the built documentation site, taken by headless Chromium.

The site's pages are opened from a local HTTP server and captured through
Chromium's DevTools protocol over a pipe (``--remote-debugging-pipe``):
``chromium --headless --screenshot`` leaves a page white when its anchor
scrolls it far down (the rule reference's entry for 8.14 is tens of
thousands of pixels down), so the capture scrolls the page itself and waits
for it to be painted. The PNG files are decoded with the standard library
alone (zlib and struct) so that a test can tell a readable page from a
blank one.

As a script, it builds nothing: it takes a built site folder and writes the
screenshots the tests check into a folder, for a person to look at::

    python tests/docs/screenshots.py SITE_DIR OUT_DIR
"""

from __future__ import annotations

import base64
import contextlib
import fcntl
import functools
import http.server
import json
import os
import shutil
import socketserver
import struct
import subprocess
import sys
import tempfile
import threading
import time
import zlib
from collections import Counter
from collections.abc import Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

WIDTH, HEIGHT = 1280, 2000
"""The window: wide enough for the navigation, the page and its table of contents."""
BROWSERS = ("chromium", "chromium-browser", "google-chrome", "google-chrome-stable", "chrome")
TIMEOUT = 60.0

SHOTS = {
    "rule-8-14": ("reference/cortes/", "rule-8-14"),
    "map-cortes": ("map/cortes/", None),
    "map-cortes-full-size": ("map/cortes/", "at-full-size"),
}
"""Screenshot name -> (page of the site, the anchor scrolled to the top of the window)."""


def find_browser() -> str | None:
    """A Chromium binary: ``$CHROMIUM`` if set, else the first of :data:`BROWSERS` on PATH."""
    given = os.environ.get("CHROMIUM")
    if given:
        return shutil.which(given) or (given if os.access(given, os.X_OK) else None)
    for name in BROWSERS:
        found = shutil.which(name)
        if found:
            return found
    return None


# ------------------------------------------------------------------ serving the site


class _Quiet(http.server.SimpleHTTPRequestHandler):
    def log_message(self, format: str, *args: Any) -> None:  # noqa: A002
        pass


@contextlib.contextmanager
def serve(site: Path) -> Iterator[str]:
    """Serve a built site on a free local port; yields its base URL."""
    handler = functools.partial(_Quiet, directory=str(site))
    with socketserver.ThreadingTCPServer(("127.0.0.1", 0), handler) as server:
        server.daemon_threads = True
        thread = threading.Thread(target=server.serve_forever, daemon=True)
        thread.start()
        try:
            yield f"http://127.0.0.1:{server.server_address[1]}/"
        finally:
            server.shutdown()


# ------------------------------------------------------------------ the browser


class Browser:
    """Headless Chromium driven through the DevTools protocol on a pipe."""

    def __init__(self, binary: str, width: int = WIDTH, height: int = HEIGHT) -> None:
        self.width, self.height = width, height
        self._profile = tempfile.TemporaryDirectory(prefix="cortes-rules-chromium-")
        to_browser_r, self._to_browser = os.pipe()
        self._from_browser, from_browser_w = os.pipe()

        def wire() -> None:   # the protocol's fds: 3 the browser reads, 4 it writes
            read, write = (fcntl.fcntl(fd, fcntl.F_DUPFD, 10)
                           for fd in (to_browser_r, from_browser_w))
            os.dup2(read, 3)
            os.dup2(write, 4)

        args = [binary, "--headless", "--remote-debugging-pipe", "--no-sandbox",
                "--disable-gpu", "--hide-scrollbars", "--no-first-run",
                "--no-default-browser-check", "--disable-extensions",
                f"--user-data-dir={self._profile.name}", f"--window-size={width},{height}",
                "about:blank"]
        self._process = subprocess.Popen(args, preexec_fn=wire, pass_fds=(3, 4),
                                         stdin=subprocess.DEVNULL, stdout=subprocess.DEVNULL,
                                         stderr=subprocess.DEVNULL)
        os.close(to_browser_r)
        os.close(from_browser_w)
        self._buffer = b""
        self._next = 0
        self._events: list[dict[str, Any]] = []
        target = self.call("Target.createTarget", url="about:blank")["targetId"]
        self._session = self.call("Target.attachToTarget", targetId=target,
                                  flatten=True)["sessionId"]
        self.call("Page.enable", session=True)
        self.call("Emulation.setDeviceMetricsOverride", session=True, width=width,
                  height=height, deviceScaleFactor=1, mobile=False)

    def _read(self, deadline: float) -> dict[str, Any]:
        while b"\0" not in self._buffer:
            if time.monotonic() > deadline:
                raise TimeoutError("no answer from the browser")
            chunk = os.read(self._from_browser, 1 << 16)
            if not chunk:
                raise RuntimeError("the browser closed its pipe")
            self._buffer += chunk
        message, self._buffer = self._buffer.split(b"\0", 1)
        return dict(json.loads(message))

    def call(self, method: str, *, session: bool = False, **params: Any) -> dict[str, Any]:
        """Send one command and wait for its answer (events met on the way are kept)."""
        self._next += 1
        message: dict[str, Any] = {"id": self._next, "method": method, "params": params}
        if session:
            message["sessionId"] = self._session
        os.write(self._to_browser, json.dumps(message).encode() + b"\0")
        deadline = time.monotonic() + TIMEOUT
        while True:
            answer = self._read(deadline)
            if answer.get("id") == self._next:
                if "error" in answer:
                    raise RuntimeError(f"{method}: {answer['error']}")
                return dict(answer.get("result", {}))
            self._events.append(answer)

    def wait_for(self, event: str) -> None:
        deadline = time.monotonic() + TIMEOUT
        while True:
            for i, message in enumerate(self._events):
                if message.get("method") == event:
                    del self._events[:i + 1]
                    return
            self._events.append(self._read(deadline))

    def evaluate(self, expression: str) -> Any:
        result = self.call("Runtime.evaluate", session=True, expression=expression,
                           returnByValue=True, awaitPromise=True)
        return result.get("result", {}).get("value")

    def screenshot(self, url: str, anchor: str | None = None) -> bytes:
        """A PNG of the window after loading ``url`` with ``anchor``'s element at the top."""
        self._events.clear()
        self.call("Page.navigate", session=True, url=url)
        self.wait_for("Page.loadEventFired")
        self.evaluate("document.fonts.ready.then(() => true)")
        if anchor is not None:   # as a reader's link would: the header's offset kept
            found = self.evaluate(
                f"(() => {{ if (!document.getElementById({json.dumps(anchor)})) return false;"
                f" location.hash = {json.dumps('#' + anchor)}; return true; }})()")
            if not found:
                raise LookupError(f"{url} has no element #{anchor}")
        # Let the header's transitions end, then two animation frames: the
        # scrolled page is laid out and painted.
        self.evaluate("new Promise(r => setTimeout(() => requestAnimationFrame(() => "
                      "requestAnimationFrame(() => r(true))), 600))")
        if anchor is not None:   # the anchor's element is in the upper half of the window
            top = self.evaluate(f"document.getElementById({json.dumps(anchor)})"
                                ".getBoundingClientRect().top")
            if not 0 <= float(top) < self.height / 2:
                raise AssertionError(f"#{anchor} is {top} px from the top of the window")
        data = self.call("Page.captureScreenshot", session=True, format="png")["data"]
        return base64.b64decode(data)

    def close(self) -> None:
        with contextlib.suppress(Exception):
            self.call("Browser.close")
        with contextlib.suppress(OSError):
            os.close(self._to_browser)
        try:
            self._process.wait(timeout=10)
        except subprocess.TimeoutExpired:
            self._process.kill()
            self._process.wait()
        with contextlib.suppress(OSError):
            os.close(self._from_browser)
        self._profile.cleanup()

    def __enter__(self) -> Browser:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()


def take(site: Path, out: Path, binary: str,
         shots: dict[str, tuple[str, str | None]] = SHOTS) -> dict[str, Path]:
    """Screenshot pages of a built site into ``out``: name -> the PNG file written."""
    out.mkdir(parents=True, exist_ok=True)
    written: dict[str, Path] = {}
    with serve(site) as base, Browser(binary) as browser:
        for name, (page, anchor) in shots.items():
            path = out / f"{name}.png"
            path.write_bytes(browser.screenshot(base + page, anchor))
            written[name] = path
    return written


# ------------------------------------------------------------------ reading a PNG


@dataclass
class Image:
    """Decoded pixels: ``rows[y][x * 3 : x * 3 + 3]`` is the RGB of a pixel."""

    width: int
    height: int
    rows: list[bytes]

    def pixels(self, step: int = 1) -> Iterator[tuple[int, int, int]]:
        """The RGB of every ``step``-th pixel of every ``step``-th row."""
        for row in self.rows[::step]:
            for x in range(0, self.width * 3, 3 * step):
                yield row[x], row[x + 1], row[x + 2]


def _paeth(a: int, b: int, c: int) -> int:
    p = a + b - c
    pa, pb, pc = abs(p - a), abs(p - b), abs(p - c)
    if pa <= pb and pa <= pc:
        return a
    return b if pb <= pc else c


def _unfilter(kind: int, line: bytes, prior: bytes, bpp: int) -> bytes:
    """One scanline without its PNG filter (filter types 0-4)."""
    if kind == 0:
        return line
    out = bytearray(line)
    n = len(out)
    if kind == 1:
        for i in range(bpp, n):
            out[i] = (out[i] + out[i - bpp]) & 0xFF
    elif kind == 2:
        for i in range(n):
            out[i] = (out[i] + prior[i]) & 0xFF
    elif kind == 3:
        for i in range(n):
            left = out[i - bpp] if i >= bpp else 0
            out[i] = (out[i] + ((left + prior[i]) >> 1)) & 0xFF
    elif kind == 4:
        for i in range(n):
            if i >= bpp:
                out[i] = (out[i] + _paeth(out[i - bpp], prior[i], prior[i - bpp])) & 0xFF
            else:
                out[i] = (out[i] + prior[i]) & 0xFF
    else:
        raise ValueError(f"unknown PNG filter type {kind}")
    return bytes(out)


def read_png(data: bytes) -> Image:
    """Decode an 8-bit, non-interlaced RGB or RGBA PNG (what Chromium writes)."""
    if data[:8] != b"\x89PNG\r\n\x1a\n":
        raise ValueError("not a PNG file")
    pos, chunks, header = 8, [], b""
    while pos < len(data):
        (length,) = struct.unpack(">I", data[pos:pos + 4])
        kind, body = data[pos + 4:pos + 8], data[pos + 8:pos + 8 + length]
        pos += 12 + length
        if kind == b"IHDR":
            header = body
        elif kind == b"IDAT":
            chunks.append(body)
        elif kind == b"IEND":
            break
    width, height, depth, colour, _, _, interlace = struct.unpack(">IIBBBBB", header)
    if depth != 8 or colour not in (2, 6) or interlace:
        raise ValueError(f"unsupported PNG: depth {depth}, colour type {colour}, "
                         f"interlace {interlace}")
    bpp = 3 if colour == 2 else 4
    raw = zlib.decompress(b"".join(chunks))
    stride = width * bpp
    rows: list[bytes] = []
    prior = bytes(stride)
    for y in range(height):
        start = y * (stride + 1)
        line = _unfilter(raw[start], raw[start + 1:start + 1 + stride], prior, bpp)
        rows.append(line if bpp == 3 else
                    bytes(b for i in range(0, stride, 4) for b in line[i:i + 3]))
        prior = line
    return Image(width, height, rows)


def colour_profile(image: Image, step: int = 2) -> tuple[int, float]:
    """How many distinct colours a picture holds (quantised to 32 levels a channel), and
    the share of its pixels that are not white or near white."""
    seen: Counter[tuple[int, int, int]] = Counter()
    inked = total = 0
    for r, g, b in image.pixels(step):
        seen[(r >> 3, g >> 3, b >> 3)] += 1
        total += 1
        if min(r, g, b) < 235:
            inked += 1
    return len(seen), inked / total if total else 0.0


def main(argv: list[str]) -> int:
    if len(argv) != 2:
        print(__doc__, file=sys.stderr)
        return 2
    binary = find_browser()
    if binary is None:
        print("no Chromium found (set CHROMIUM, or apt-get install chromium)", file=sys.stderr)
        return 1
    for name, path in take(Path(argv[0]), Path(argv[1]), binary).items():
        colours, inked = colour_profile(read_png(path.read_bytes()))
        print(f"{path}: {name}, {colours} colours, {inked:.0%} not white")
    return 0


if __name__ == "__main__":
    sys.exit(main(sys.argv[1:]))
