"""Pictures of a position as SVG, for any rulebook.

``render_svg()`` draws the map of a game (hexes with their terrain,
hexside features, water zones with their numbers, named places, areas), the
counters where they stand, the pools beside the map, a legend, and optional
highlights: shaded places with a text (a movement cost, say), outlined
places (those a refusal is about) and arrows between places (an attack).
``GameState._repr_svg_`` shows the same picture in Jupyter, and
``cortes-rules render`` writes it to a file.

Everything is derived from the rulebook's declarations: colours follow the
order in which terrain, hexside features and sides are declared, and the
legend names them with their declared labels. See ``.layout`` for where
zones and areas, which have no coordinates in the data, are drawn.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

from .. import arguments
from ..arguments import describe
from ..engine.machine import GameState
from ..errors import ArgumentTypeError
from .draw import (COUNTER, MARGIN, PANEL_WIDTH, RADIUS, TITLE_HEIGHT, Highlights, _e, _f,
                   _Picture, _points, arrows_of, resolve, texts, wrap)
from .layout import ACROSS, ALONG, WATER, WATER_EDGE

__all__ = ["render_svg"]

SHADE, SHADE_EDGE = "#ffd23f", "#9a6d00"
REFUSED = "#c8102e"
CHARS = 52   # characters of legend text per line


def render_svg(state: GameState, *, highlight: Highlights = (), marked: Highlights = (),
               arrows: Iterable[Any] = (), title: str | None = None,
               viewer: str | None = None) -> str:
    """The SVG text of a position.

    Args:
        state: the position to draw.
        highlight: places to shade, as ids, or as a mapping of id to a short
            text drawn on the place (e.g. the cost of reaching a hex).
        marked: places to outline in red (e.g. the hexes a refusal is
            about), as ids or as a mapping of id to a text.
        arrows: ``(from, to)`` or ``(from, to, text)`` place ids; drawn as
            red arrows (e.g. an attack).
        title: the line under the rulebook's title (default: the turn, the
            phase and who is to act).
        viewer: draw the position as this player sees it: only the pieces
            his ``observation()`` shows, and a "N hidden" note on each place
            where pieces are hidden from him (default: every piece, the
            umpire's view).

    Raises:
        NotationError: a highlight, mark or arrow names no place of the rulebook.
        CortesRulesError: a highlight or arrow argument of the wrong shape, or
            ``viewer`` is not a player of the game.
    """
    if not isinstance(state, GameState):
        raise ArgumentTypeError(f"render_svg draws a GameState, not {describe(state)}")
    arguments.optional_name(viewer, "a viewer (a player)")
    if title is not None:
        arguments.text(title, "a title")
    picture = _Picture(state, viewer)
    world, layout, svg = picture.world, picture.layout, picture.svg
    shaded, refused = texts(highlight, "highlight"), texts(marked, "marked")
    pointed = arrows_of(arrows)
    shaded_places = resolve(world, shaded, "highlight")
    refused_places = resolve(world, refused, "marked")
    ends = [(a, b, text) for (a, b), (_, _, text) in
            zip((resolve(world, arrow[:2], "arrows") for arrow in pointed), pointed, strict=True)]

    picture.water()
    picture.hexes()
    picture.hexsides()
    picture.regions()
    picture.areas()
    picture.zones()
    left = MARGIN + layout.width + 30 if layout.width else MARGIN
    bottom = _panel(picture, left, MARGIN + TITLE_HEIGHT, bool(shaded or refused or ends))
    for place in shaded_places:
        picture.outline(place, "highlight", SHADE, SHADE_EDGE, 0.55, 2.2)
    picture.board_pieces()
    picture.region_labels()
    for place_id, count in sorted(picture.hidden_counts.items()):
        spot = world.place.get(place_id)
        if spot is not None and (spot.id in layout.anchor or spot.id in picture.pool_at):
            picture.note(spot, f"{count} hidden", "#444", "hidden-count")
    for place in shaded_places:
        if shaded[place.id]:
            picture.note(place, shaded[place.id], SHADE_EDGE, "highlight-text")
    for place in refused_places:
        picture.outline(place, "marked", REFUSED, REFUSED, 0.08, 3.6)
        if refused[place.id]:
            picture.note(place, refused[place.id], REFUSED, "marked-text")
    for source, target, text in ends:
        picture.arrow(source, target, text)

    book = world.program.game.label if world.program.game else "Rulebook"
    who = state.current_player or "nobody (the game is over)"
    line = title if title is not None else \
        f"Turn {state.turn}, {state.phase_label}; to act: {who}"
    width = left + PANEL_WIDTH + MARGIN
    height = max(MARGIN + TITLE_HEIGHT + layout.height, bottom) + MARGIN
    svg.text(MARGIN, MARGIN + 18, book, 20, anchor="start", weight="bold")
    svg.text(MARGIN, MARGIN + 40, line, 13, anchor="start", fill="#333")
    head = (f'<svg xmlns="http://www.w3.org/2000/svg" width="{_f(width)}" '
            f'height="{_f(height)}" viewBox="0 0 {_f(width)} {_f(height)}" '
            f'font-family="DejaVu Sans, Verdana, Arial, sans-serif">\n'
            f'<defs><marker id="arrowhead" viewBox="0 0 10 10" refX="6" refY="5" '
            f'markerWidth="4" markerHeight="4" orient="auto-start-reverse">'
            f'<path d="M0,0 L10,5 L0,10 z" fill="{REFUSED}"/></marker></defs>\n'
            f'<rect width="100%" height="100%" fill="#ffffff"/>')
    return "\n".join([head, *svg.parts, "</svg>"]) + "\n"


def _panel(picture: _Picture, left: float, top: float, highlights: bool) -> float:
    """The legend, the pools and the stacks beside the map; the bottom it reaches."""
    world, svg, state = picture.world, picture.svg, picture.state
    y = top
    right = left + PANEL_WIDTH

    def heading(text: str) -> None:
        nonlocal y
        y += 22
        svg.text(left, y, text, 13, anchor="start", weight="bold")
        svg.line((left, y + 4), (right, y + 4), "#999", 0.8)
        y += 8

    def entry(text: str, size: float = 10.5, indent: float = 30) -> None:
        nonlocal y
        for part in wrap(text, int(CHARS * 10.5 / size * (PANEL_WIDTH - indent) / PANEL_WIDTH)):
            y += size + 4
            svg.text(left + indent, y, part, size, anchor="start")

    if picture.terrain:
        heading("Terrain")
        for decl in picture.terrain:
            centre = (left + 11, y + 13)
            corners = picture.layout.corners(centre, 9 / RADIUS)
            if decl.name in picture.ring:
                colour = picture.ring[decl.name]
                svg.add(f'<polygon points="{_points(corners)}" fill="{colour}" '
                        f'fill-opacity="0.16" stroke="{colour}" stroke-width="2.2"/>')
                text = f"{decl.label} (inner ring)"
            else:
                svg.add(f'<polygon points="{_points(corners)}" '
                        f'fill="{picture.fill[decl.name]}" stroke="#a8a29a"/>')
                text = decl.label
            entry(text)
            y += 6
    if picture.features:
        heading("Hexside features")
        for decl in picture.features:
            colour, width, dash = picture.feature_style[decl.name]
            style = picture.styles[decl.name]
            a, b = (left + 2, y + 12), (left + 24, y + 12)
            if style in (ALONG, ACROSS):
                svg.line(a, b, colour, width, dash=dash)
            else:
                picture.mark(a, b, colour)
            how = {ALONG: "drawn along the hexside", ACROSS: "drawn from hex to hex"}
            entry(f"{decl.label} ({how.get(style, 'a sign on the hexside')})")
            y += 4
    if world.zones:
        heading("Water zones")
        svg.add(f'<rect x="{_f(left)}" y="{_f(y + 4)}" width="22" height="14" fill="{WATER}" '
                f'stroke="{WATER_EDGE}"/>')
        entry("Water, split into numbered zones; a blue line divides two zones. The number "
              "stands where the zone's counters are.")
    if picture.named:
        heading("Named places")
        svg.line((left + 2, y + 12), (left + 24, y + 12), "#3b3b3b", 1.4, dash="4 3")
        entry("Named places of a few hexes: outlined and labelled in italics.")
        for shown, label in picture.named:
            entry(shown if shown == label else f"{shown}: {label}", size=9.5, indent=0)
    heading("Counters")
    for player in picture.sides:
        svg.add(f'<rect x="{_f(left + 4)}" y="{_f(y + 3)}" width="14" height="14" rx="2" '
                f'fill="{picture.side_fill[player.name]}" stroke="#2b2b2b"/>')
        entry(player.label)
        y += 4
    entry("Each counter: its id at the top; its class and properties in the middle; its "
          "printed values at the bottom (the factor for the steps it has left, then its "
          "move); dots on the right: steps left (black) and lost (white). A black disc "
          "gives the number of counters in a stack.", indent=0)
    if highlights:
        heading("Highlights")
        svg.add(f'<rect x="{_f(left)}" y="{_f(y + 3)}" width="22" height="14" fill="{SHADE}" '
                f'fill-opacity="0.55" stroke="{SHADE_EDGE}"/>')
        entry("Shaded: highlighted places, with their text (a cost)")
        svg.add(f'<rect x="{_f(left)}" y="{_f(y + 3)}" width="22" height="14" fill="none" '
                f'stroke="{REFUSED}" stroke-width="2.5"/>')
        entry("Red outline: places a refusal or a rule is about")
        svg.line((left, y + 11), (left + 22, y + 11), REFUSED, 3)
        entry("Arrow: from one place to another (an attack)")
    pools = [p for p in world.places if p.kind == "pool" and picture.pieces_in(p)]
    if pools:
        heading("Pools")
    for pool in pools:
        y += 16
        svg.text(left, y, pool.label, 11, anchor="start", weight="bold")
        y += 5
        used = picture.grid(pool, left + 4, y + 4, PANEL_WIDTH - 8)
        svg.add(f'<rect class="pool" data-place="{_e(pool.id)}" x="{_f(left)}" y="{_f(y)}" '
                f'width="{_f(PANEL_WIDTH)}" height="{_f(used + 4)}" fill="none" '
                f'stroke="#888" stroke-dasharray="3 2"/>')
        picture.pool_at[pool.id] = (left + PANEL_WIDTH / 2, y + (used + 4) / 2)
        y += used + 4
    stacks = [p for p in world.places if p.kind != "pool" and len(picture.pieces_in(p)) > 1]
    if stacks:
        heading("Stacks, bottom counter first")
        for place in stacks:
            shown = place.label if place.kind != "hex" else place.id
            entry(f"{shown}: " + ", ".join(_described(picture, p) for p in
                                           picture.pieces_in(place)), size=9.5, indent=0)
            y += 3
    unplaced = [p.id for p in world.pieces if state.where[p.index] is None
                and (picture.shown is None or p.id in picture.shown)]
    if unplaced:
        heading("Not in play")
        entry(", ".join(unplaced), size=9.5, indent=0)
    return y + COUNTER / 2


def _described(picture: _Picture, piece: Any) -> str:
    values = picture.values(piece)
    return f"{piece.id} ({values})" if values else str(piece.id)
