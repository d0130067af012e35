"""A one-line progress bar on standard error, for commands that play many games.

It draws only on a terminal (never into a file or a pipe, where the carriage
returns would be noise) and can be switched off; it needs nothing beyond the
standard library.
"""

from __future__ import annotations

import sys
import time
from typing import TextIO

WIDTH = 30
"""Characters of the bar itself."""
MIN_INTERVAL = 0.1
"""Seconds between redraws (the last one is always drawn)."""


class ProgressBar:
    """``label [#####.....] done/total`` redrawn in place on a stream."""

    def __init__(self, total: int, label: str = "", *, stream: TextIO | None = None,
                 enabled: bool | None = None) -> None:
        """Args:
            total: how many items make the whole.
            label: the text in front of the bar.
            stream: where to draw (default: standard error).
            enabled: draw or not; by default only when the stream is a terminal.
        """
        self.total = max(total, 0)
        self.label = label
        self.stream = stream if stream is not None else sys.stderr
        if enabled is None:
            isatty = getattr(self.stream, "isatty", None)
            enabled = bool(isatty and isatty())
        self.enabled = enabled
        self.done = 0
        self._started = time.monotonic()
        self._drawn = 0.0
        self._shown = -1   # the count last drawn

    def tick(self, items: int = 1) -> None:
        """Count ``items`` more items done and redraw (at most every MIN_INTERVAL)."""
        self.done = min(self.done + items, self.total)
        now = time.monotonic()
        if self.enabled and (self.done >= self.total or now - self._drawn >= MIN_INTERVAL):
            self._drawn = now
            self._draw(now)

    def _draw(self, now: float) -> None:
        filled = WIDTH * self.done // self.total if self.total else WIDTH
        bar = "#" * filled + "." * (WIDTH - filled)
        label = f"{self.label} " if self.label else ""
        elapsed = now - self._started
        self.stream.write(f"\r{label}[{bar}] {self.done}/{self.total} {elapsed:.0f}s")
        self.stream.flush()
        self._shown = self.done

    def close(self) -> None:
        """End the bar's line (when anything was drawn)."""
        if self.enabled:
            if self._shown != self.done:
                self._draw(time.monotonic())
            self.stream.write("\n")
            self.stream.flush()
