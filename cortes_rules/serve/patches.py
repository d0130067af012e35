"""The map sent once, then only what changed: line patches of a player's picture.

A view's picture is the SVG text of ``render_svg(state, viewer=player)``,
one element a line. The server keeps the last few pictures it sent each
player of a game, by digest; a page that names the digest of the picture it
holds (``since``) is sent the lines that differ instead of the whole text.
A patch is a list of ``[start, end, lines]``: the lines ``start:end`` of
the old picture are replaced by ``lines``; applied from the last to the
first they give the new picture, whose digest and length in lines come
with it. Both pictures are the same player's, so a patch tells him nothing
that the new picture would not.
"""

from __future__ import annotations

import difflib
import hashlib
from collections import OrderedDict
from typing import Any

KEPT = 3
"""Pictures kept per player and game (the page holds the last one it drew)."""


def digest(text: str) -> str:
    """A picture's name: the start of the SHA-256 of its text."""
    return hashlib.sha256(text.encode("utf-8")).hexdigest()[:20]


def patch(old: list[str], new: list[str]) -> list[list[Any]]:
    """The ``[start, end, lines]`` replacements that turn ``old`` into ``new``."""
    matcher = difflib.SequenceMatcher(None, old, new, autojunk=False)
    return [[i1, i2, new[j1:j2]] for tag, i1, i2, j1, j2 in matcher.get_opcodes()
            if tag != "equal"]


def apply(old: list[str], ops: list[list[Any]]) -> list[str]:
    """A patch applied to the lines it was made from (as the page applies it)."""
    lines = list(old)
    for start, end, replacement in reversed(ops):
        lines[start:end] = replacement
    return lines


class Pictures:
    """The last pictures sent to each player of one game."""

    def __init__(self) -> None:
        self._sent: dict[str, OrderedDict[str, list[str]]] = {}

    def answer(self, player: str, svg: str, since: str | None) -> dict[str, Any]:
        """The fields of a view that carry its picture: the whole text, or a patch of
        the picture named ``since`` when this player was sent it lately."""
        lines = svg.split("\n")
        name = digest(svg)
        kept = self._sent.setdefault(player, OrderedDict())
        old = kept.get(since) if since else None
        kept[name] = lines
        kept.move_to_end(name)
        while len(kept) > KEPT:
            kept.popitem(last=False)
        if old is None:
            return {"svg": svg, "svg_digest": name, "svg_patch": None}
        return {"svg": None, "svg_digest": name,
                "svg_patch": {"since": since, "lines": len(lines), "ops": patch(old, lines)}}
