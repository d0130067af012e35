"""The SVG text of a position: the map, the counters, the highlights and a legend.

Every element that stands for a place carries ``data-place`` (the place id),
and every counter is a ``<g class="counter">`` with ``data-piece`` and
``data-place``, translated to its centre, so that programs (and the tests) can
find them. Colours come from the order in which the rulebook declares its
terrain, hexside features and sides (see ``.layout``): nothing here knows
a game.
"""

from __future__ import annotations

import html
import math
import textwrap
from collections.abc import Iterable, Mapping
from typing import TYPE_CHECKING, Any

from ..core.world import Piece, Place, World
from ..dsl import ir
from ..engine import hexgrid
from ..arguments import describe
from ..errors import ArgumentTypeError, CortesRulesError, UnknownIdError
from .layout import (ACROSS, ACROSS_COLOURS, ALONG, ALONG_COLOURS, MARK, MARK_COLOURS,
                     NATURAL_FILLS, NEUTRAL_FILL, SIDE_FILLS, STRONG, WATER, WATER_EDGE,
                     Layout, Point, components, cycle, hexside_styles, zone_number)

if TYPE_CHECKING:
    from ..engine.machine import GameState

RADIUS = 32.0
MARGIN = 24.0
TITLE_HEIGHT = 54.0
PANEL_WIDTH = 330.0
COUNTER = 1.2 * RADIUS
REGION_MAX = 12
"""Named places of at most this many hexes, all in one piece, are outlined and labelled."""
PILE_ROOM = 24.0
"""How far a pile of counters in a zone may spread."""
MAX_DOTS = 100
"""The most dots a counter is drawn with (a field drawn as dots may print more)."""

Highlights = Mapping[str, str] | Iterable[str]
Arrow = tuple[str, str] | tuple[str, str, str]


def _e(text: object) -> str:
    return html.escape(str(text), quote=True)


def _f(value: float) -> str:
    return f"{value:.1f}".rstrip("0").rstrip(".")


def _points(points: Iterable[Point]) -> str:
    return " ".join(f"{_f(x)},{_f(y)}" for x, y in points)


class _Svg:
    """The elements of a picture, in drawing order."""

    def __init__(self) -> None:
        self.parts: list[str] = []

    def add(self, text: str) -> None:
        self.parts.append(text)

    def text(self, x: float, y: float, text: str, size: float, *, anchor: str = "middle",
             weight: str = "normal", fill: str = "#111", width: float | None = None,
             halo: bool = False, style: str = "normal", cls: str = "") -> None:
        """A line of text; in a smaller font when it would run wider than ``width``."""
        fit = ""
        if width is not None and len(text) * size * 0.6 > width:
            size = max(width / (len(text) * 0.6), 4.5)
        extra = ' stroke="#fff" stroke-width="3" paint-order="stroke"' if halo else ""
        css = f' class="{cls}"' if cls else ""
        self.add(f'<text x="{_f(x)}" y="{_f(y)}" font-size="{_f(size)}" text-anchor="{anchor}" '
                 f'font-weight="{weight}" font-style="{style}" fill="{fill}"{fit}{extra}{css}>'
                 f'{_e(text)}</text>')

    def line(self, a: Point, b: Point, colour: str, width: float, *, dash: str = "",
             cap: str = "round", extra: str = "") -> None:
        dashing = f' stroke-dasharray="{dash}"' if dash else ""
        self.add(f'<line x1="{_f(a[0])}" y1="{_f(a[1])}" x2="{_f(b[0])}" y2="{_f(b[1])}" '
                 f'stroke="{colour}" stroke-width="{_f(width)}" stroke-linecap="{cap}"'
                 f'{dashing}{extra}/>')


class _Picture:
    """One rendering: the world, its layout and colours, the state's pieces."""

    def __init__(self, state: GameState, viewer: str | None = None) -> None:
        self.state = state
        self.shown: frozenset[str] | None = None
        """With a viewer: the ids of the pieces his observation shows (None: every piece)."""
        self.hidden_counts: dict[str, int] = {}
        if viewer is not None:
            seen = state.observation(viewer)
            self.shown = frozenset(seen["pieces"])
            self.hidden_counts = dict(seen["hidden"])
        world: World = state.machine.world
        self.world = world
        program = world.program
        self.layout = Layout(world, RADIUS, MARGIN, MARGIN + TITLE_HEIGHT)
        terrains = list(program.of(ir.TerrainDecl))
        used = {f for p in (*world.hexes, *world.areas) for f in p.features}
        self.terrain = [t for t in terrains if t.name in used]
        # Ground terrains fill a hex, the natural ones first; a relief (a hill under
        # woods) fills it when alone, and is drawn as a ring inside the fill when a
        # natural one is there too.
        natural = [t.name for t in terrains if t.kind == "natural"] + \
            [t.name for t in terrains if t.kind not in ("natural", "artificial")]
        artificial = [t.name for t in terrains if t.kind == "artificial"]
        self.fill = {name: cycle(NATURAL_FILLS, i) for i, name in enumerate(natural)}
        self.ring = {name: cycle(STRONG, i) for i, name in enumerate(artificial)}
        self.styles = hexside_styles(world)
        self.features = [d for d in program.of(ir.HexsideDecl)
                         if d.name in self.styles or _on_borders(world, d.name)]
        self.feature_style: dict[str, tuple[str, float, str]] = {}
        rank = {ALONG: 0, ACROSS: 0, MARK: 0}
        for decl in self.features:
            style = self.styles.get(decl.name, ACROSS)
            self.styles[decl.name] = style
            i = rank[style]
            rank[style] += 1
            if style == ALONG:
                self.feature_style[decl.name] = (cycle(ALONG_COLOURS, i), max(5.0 - 1.2 * i, 2.2),
                                                 "" if i < 2 else "7 3")
            elif style == ACROSS:
                self.feature_style[decl.name] = (cycle(ACROSS_COLOURS, i), max(4.0 - i, 2.0),
                                                 "" if i % 2 == 0 else "6 3")
            else:
                self.feature_style[decl.name] = (cycle(MARK_COLOURS, i), 2.2, "")
        sides = [p for p in world.players if any(q.side is p for q in world.pieces)]
        self.side_fill = {p.name: cycle(SIDE_FILLS, i) for i, p in enumerate(sides)}
        self.sides = sides
        # What the rulebook's `printed` declarations say to draw: a number as dots,
        # filled for what a piece attribute counts (a hex wargame's steps left), and
        # the values along the counter's foot (its combat factor and movement).
        printed = program.of(ir.PrintedDecl)
        self.dots: ir.PrintedDecl | None = next((d for d in printed if d.drawn == "dots"), None)
        self.filled = state.piece_attrs.get(self.dots.filled_by) \
            if self.dots is not None and self.dots.filled_by else None
        self.foot = [d for d in printed if d.drawn == "value"]
        self.drawn = frozenset(d.name for d in printed if d.drawn)
        self.svg = _Svg()
        self.pool_at: dict[str, Point] = {}
        self.labels: list[tuple[float, float, str]] = []
        self.named: list[tuple[str, str]] = []
        """The named places drawn: (the text on the map, the declared label)."""
        self.label_boxes: list[tuple[float, float, float, float]] = []
        """The centre of each pool's box, once the panel is drawn."""

    def pieces_in(self, place: Place) -> tuple[Piece, ...]:
        """The pieces of a place that the picture may draw (the viewer's, or all)."""
        pieces = self.state.pieces_in(place)
        if self.shown is None:
            return pieces
        return tuple(p for p in pieces if p.id in self.shown)

    # ------------------------------------------------------------ map
    def hexes(self) -> None:
        svg, layout = self.svg, self.layout
        for place in self.world.hexes:
            centre = layout.anchor[place.id]
            natural = [n for n in self.fill if n in place.features]
            fill = self.fill[natural[0]] if natural else "#ffffff"
            svg.add(f'<polygon class="hex" data-place="{_e(place.id)}" '
                    f'points="{_points(layout.corners(centre))}" fill="{fill}" '
                    f'stroke="#a8a29a" stroke-width="0.8"/>')
            scale = 0.8
            for name in natural[1:]:
                svg.add(f'<polygon points="{_points(layout.corners(centre, 0.9))}" '
                        f'fill="none" stroke="{self.fill[name]}" stroke-width="5"/>')
            for name in self.ring:
                if name in place.features:
                    colour = self.ring[name]
                    svg.add(f'<polygon points="{_points(layout.corners(centre, scale))}" '
                            f'fill="{colour}" fill-opacity="0.16" stroke="{colour}" '
                            f'stroke-width="2.4"/>')
                    scale -= 0.16
            svg.text(centre[0], centre[1] - 0.66 * RADIUS, place.id, 7, fill="#6b6b6b")

    def water(self) -> None:
        svg, layout = self.svg, self.layout
        if not layout.water:
            return
        svg.add('<g class="water">')
        for cell in sorted(layout.water):
            svg.add(f'<polygon points="{_points(layout.corners(layout.centre(cell)))}" '
                    f'fill="{WATER}" stroke="{WATER}" stroke-width="0.6"/>')
        for cell, number in sorted(layout.water.items()):
            for direction, other in enumerate(hexgrid.neighbour_coords(cell, layout.odd_low)):
                if other in layout.water and layout.water[other] != number and cell < other:
                    svg.line(*layout.side(layout.centre(cell), direction), WATER_EDGE, 1.6)
        svg.add("</g>")

    def zones(self) -> None:
        svg = self.svg
        for zone in self.world.zones:
            anchor = self.layout.anchor.get(zone.id)
            if anchor is None:
                continue
            x, y = anchor
            if self.pieces_in(zone):
                x -= COUNTER / 2 + 12 + PILE_ROOM / 2
            svg.add(f'<g class="zone" data-place="{_e(zone.id)}" data-x="{_f(anchor[0])}" '
                    f'data-y="{_f(anchor[1])}">')
            svg.add(f'<circle cx="{_f(x)}" cy="{_f(y)}" r="11" fill="#fff" '
                    f'stroke="{WATER_EDGE}" stroke-width="1.5"/>')
            svg.text(x, y + 4.5, zone_number(zone), 12.5, weight="bold", fill="#1d4f80")
            svg.add("</g>")

    def hexsides(self) -> None:
        world, layout, svg = self.world, self.layout, self.svg
        drawn: dict[str, list[tuple[Place, Place, int]]] = {ALONG: [], ACROSS: [], MARK: []}
        for place in world.hexes:
            for other in place.neighbours:
                direction = world.direction(place, other)
                if other.index > place.index and direction is not None:
                    for feature in world.hexside(place, other):
                        if feature in self.styles:
                            drawn[self.styles[feature]].append((place, other, direction))
        order = {d.name: i for i, d in enumerate(self.features)}
        for style in (ALONG, ACROSS, MARK):
            for place, other, direction in drawn[style]:
                a, b = layout.anchor[place.id], layout.anchor[other.id]
                for feature in sorted(world.hexside(place, other), key=lambda f: order.get(f, 0)):
                    if self.styles.get(feature) != style:
                        continue
                    colour, width, dash = self.feature_style[feature]
                    if style == ALONG:
                        svg.line(*layout.side(a, direction), colour, width, dash=dash)
                    elif style == ACROSS:
                        svg.line(a, b, colour, width, dash=dash)
                    else:
                        self.mark(a, b, colour)

    def mark(self, a: Point, b: Point, colour: str) -> None:
        """A bridge-like sign across the middle of a hexside: two short bars."""
        mx, my = (a[0] + b[0]) / 2, (a[1] + b[1]) / 2
        dx, dy = b[0] - a[0], b[1] - a[1]
        length = math.hypot(dx, dy) or 1.0
        ux, uy = dx / length, dy / length
        half = 0.3 * RADIUS
        for side in (-4.5, 4.5):
            ox, oy = -uy * side, ux * side
            self.svg.line((mx - ux * half + ox, my - uy * half + oy),
                          (mx + ux * half + ox, my + uy * half + oy), colour, 2.2, cap="butt")

    def regions(self) -> None:
        world, layout, svg = self.world, self.layout, self.svg
        data = world.program.map
        if data is None:
            return
        for name, (label, _) in data.places.items():
            places = world.regions.get(name, ())
            parts = components(world, places)
            if len(parts) != 1 or len(parts[0]) > REGION_MAX:
                continue
            cells = {layout.coords[p.id] for p in parts[0]}
            svg.add(f'<g class="region" data-region="{_e(name)}">')
            for cell in sorted(cells):
                for direction, other in enumerate(hexgrid.neighbour_coords(cell, layout.odd_low)):
                    if other not in cells:
                        svg.line(*layout.side(layout.centre(cell), direction), "#3b3b3b", 1.4,
                                 dash="4 3", cap="butt")
            self.label_region(_short(label, name), parts[0])
            self.named.append((_short(label, name), label))
            svg.add("</g>")

    def label_region(self, text: str, hexes: list[Place]) -> None:
        """A named place's label on the lower (else upper) edge of one of its hexes,
        the one nearest its middle where the label overlaps no other."""
        layout = self.layout
        points = [layout.anchor[p.id] for p in hexes]
        mx = sum(p[0] for p in points) / len(points)
        my = sum(p[1] for p in points) / len(points)
        near = sorted(points, key=lambda p: (math.hypot(p[0] - mx, p[1] - my), p))
        width, size = len(text) * 9 * 0.6, 9.0
        spots = [(x, y + 0.87 * RADIUS + 3) for x, y in near]
        spots += [(x, y - 0.87 * RADIUS + 3) for x, y in near]
        spots += [(x, y + 0.87 * RADIUS + 3 + 11 * k) for k in range(1, 6) for x, y in near[:1]]
        for x, y in spots:
            box = (x - width / 2, y - size, x + width / 2, y + 2)
            if not any(_overlap(box, other) for other in self.label_boxes):
                break
        else:
            x, y = spots[0]
            box = (x - width / 2, y - size, x + width / 2, y + 2)
        self.label_boxes.append(box)
        self.labels.append((x, y, text))

    def region_labels(self) -> None:
        """The named places' labels, drawn over the counters."""
        for x, y, text in self.labels:
            self.svg.text(x, y, text, 9, halo=True, style="italic", weight="bold",
                          fill="#3a2a10", cls="region-label")

    def areas(self) -> None:
        world, layout, svg = self.world, self.layout, self.svg
        box = layout.area_box
        seen: set[frozenset[int]] = set()
        for area in world.areas:
            for other in area.neighbours:
                key = frozenset((area.index, other.index))
                if key in seen:
                    continue
                seen.add(key)
                a, b = layout.anchor[area.id], layout.anchor[other.id]
                features = sorted(world.hexside(area, other))
                colour, width, dash = (self.feature_style[features[0]] if features
                                       and features[0] in self.feature_style
                                       else ("#8a8a8a", 2.0, ""))
                svg.line(a, b, colour, width + 1, dash=dash)
                if features:
                    svg.text((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 + 4, ", ".join(features), 9,
                             halo=True, fill=colour)
        for area in world.areas:
            x, y = layout.anchor[area.id]
            natural = [n for n in self.fill if n in area.features]
            fill = self.fill[natural[0]] if natural else "#ffffff"
            svg.add(f'<rect class="area" data-place="{_e(area.id)}" x="{_f(x - box)}" '
                    f'y="{_f(y - 0.7 * box)}" width="{_f(2 * box)}" height="{_f(1.4 * box)}" '
                    f'rx="8" fill="{fill}" stroke="#6b6b6b" stroke-width="1.2"/>')
            svg.text(x, y - 0.7 * box + 13, area.label, 10, weight="bold", width=2 * box - 8)

    # ------------------------------------------------------------ pieces
    def counter(self, piece: Piece, place: Place, x: float, y: float, size: float = COUNTER,
                count: int = 0) -> None:
        """One counter centred on (x, y): id, class and properties, values, steps."""
        svg = self.svg
        half = size / 2
        fill = self.side_fill.get(piece.side.name, NEUTRAL_FILL) if piece.side else NEUTRAL_FILL
        svg.add(f'<g class="counter" data-piece="{_e(piece.id)}" data-place="{_e(place.id)}" '
                f'transform="translate({_f(x)} {_f(y)})">')
        svg.add(f'<title>{_e(piece.id)}: {_e(piece.label)}</title>')
        svg.add(f'<rect x="{_f(-half)}" y="{_f(-half)}" width="{_f(size)}" height="{_f(size)}" '
                f'rx="3" fill="{fill}" stroke="#2b2b2b" stroke-width="1"/>')
        svg.text(0, -half + 10.5, piece.id, 9.5, weight="bold", width=size - 5)
        kind = " ".join([piece.cls.replace("_", " "),
                         *(str(v) for k, v in piece.props.items()
                           if k not in self.drawn
                           and isinstance(v, (str, int)) and not isinstance(v, bool))])
        svg.text(-3, 2.5, kind, 6.5, width=size - 12, fill="#333")
        values = self.values(piece)
        if values:
            svg.text(0, half - 4.5, values, 10.5, weight="bold", width=size - 6)
        most = self.most(piece)
        if most >= 2:
            left = self.dots_filled(piece, most)
            for i in range(min(most, MAX_DOTS)):
                cy = -half + 15 + i * 5.0
                dot = "#222" if i < left else "#fff"
                svg.add(f'<circle cx="{_f(half - 3.8)}" cy="{_f(cy)}" r="1.8" fill="{dot}" '
                        f'stroke="#222" stroke-width="0.7"/>')
        if count >= 2:
            svg.add(f'<circle cx="{_f(half)}" cy="{_f(-half)}" r="7" fill="#222"/>')
            svg.text(half, -half + 3.3, str(count), 9, weight="bold", fill="#fff")
        svg.add("</g>")

    def most(self, piece: Piece) -> int:
        """The dots of a counter: the number its field drawn as dots prints (0: none)."""
        if self.dots is None:
            return 0
        value = piece.props.get(self.dots.name, 0)
        return value if isinstance(value, int) and not isinstance(value, bool) else 0

    def dots_filled(self, piece: Piece, most: int) -> int:
        """How many of its dots are filled: the attribute that fills them, or all."""
        if self.filled is None:
            return most
        value = self.filled[piece.index]
        return value if isinstance(value, int) and not isinstance(value, bool) else most

    def values(self, piece: Piece) -> str:
        """The values along the counter's foot, in the order of their declarations
        ("6-5"): a number unless 0; of a list, the entry for the dots emptied when it
        is one per the number drawn as dots (the combat factor for the steps left),
        else its first."""
        shown: list[str] = []
        most = self.most(piece)
        emptied = most - self.dots_filled(piece, most) if most else 0
        for decl in self.foot:
            value = piece.props.get(decl.name)
            if isinstance(value, tuple):
                if value:
                    at = emptied if self.dots is not None and decl.one_per == self.dots.name \
                        else 0
                    shown.append(str(value[min(max(at, 0), len(value) - 1)]))
            elif value:
                shown.append(str(value))
        return "-".join(shown)

    def pile(self, place: Place, at: Point, room: float) -> None:
        """The pieces of a place as a pile, bottom first, offset at most ``room`` in all."""
        pieces = self.pieces_in(place)
        n = len(pieces)
        if not n:
            return
        step = min(3.0, room / (n - 1)) if n > 1 else 0.0
        x0, y0 = at[0] - step * (n - 1) / 2, at[1] + step * (n - 1) / 2
        for i, piece in enumerate(pieces):
            self.counter(piece, place, x0 + i * step, y0 - i * step,
                         count=n if i == n - 1 else 0)

    def board_pieces(self) -> None:
        layout = self.layout
        for place in (*self.world.hexes, *self.world.zones):
            if place.id in layout.anchor:
                x, y = layout.anchor[place.id]
                if place.kind == "hex":
                    self.pile(place, (x, y + 3), 9.0)
                else:
                    self.pile(place, (x, y), PILE_ROOM)
        box = layout.area_box
        for area in self.world.areas:
            x, y = layout.anchor[area.id]
            self.grid(area, x - box + 6, y - 0.7 * box + 22, 2 * box - 12)

    def grid(self, place: Place, left: float, top: float, width: float) -> float:
        """The pieces of a place in rows from (left, top); the height used."""
        pieces = self.pieces_in(place)
        per_row = max(1, int((width + 6) // (COUNTER + 6)))
        for i, piece in enumerate(pieces):
            row, column = divmod(i, per_row)
            self.counter(piece, place, left + COUNTER / 2 + column * (COUNTER + 6),
                         top + COUNTER / 2 + row * (COUNTER + 6))
        rows = -(-len(pieces) // per_row)
        return rows * (COUNTER + 6)

    # ------------------------------------------------------------ highlights
    def outline(self, place: Place, cls: str, fill: str, stroke: str, opacity: float,
                width: float) -> None:
        """A shape over a place: its hex, its area's box, or a circle round its anchor."""
        layout, svg = self.layout, self.svg
        x, y = self.where(place)
        common = (f'class="{cls}" data-place="{_e(place.id)}" fill="{fill}" '
                  f'fill-opacity="{opacity}" stroke="{stroke}" stroke-width="{_f(width)}"')
        if place.kind == "hex":
            svg.add(f'<polygon {common} points="{_points(layout.corners((x, y), 0.93))}"/>')
        elif place.kind == "area":
            box = layout.area_box
            svg.add(f'<rect {common} x="{_f(x - box)}" y="{_f(y - 0.7 * box)}" '
                    f'width="{_f(2 * box)}" height="{_f(1.4 * box)}" rx="8"/>')
        else:
            svg.add(f'<circle {common} cx="{_f(x)}" cy="{_f(y)}" r="{_f(RADIUS)}"/>')

    def note(self, place: Place, text: str, colour: str, cls: str) -> None:
        """A highlight's text: in the middle of an empty place, else below its counters."""
        x, y = self.where(place)
        low = 0.83 * RADIUS if self.pieces_in(place) else 4.0
        self.svg.text(x, y + low, text, 11, weight="bold", halo=True, fill=colour, cls=cls)

    def where(self, place: Place) -> Point:
        anchor = self.layout.anchor.get(place.id) or self.pool_at.get(place.id)
        if anchor is None:
            raise CortesRulesError(f"the picture has no room for {place.id!r}")
        return anchor

    def arrow(self, source: Place, target: Place, text: str) -> None:
        (ax, ay), (bx, by) = self.where(source), self.where(target)
        length = math.hypot(bx - ax, by - ay) or 1.0
        ux, uy = (bx - ax) / length, (by - ay) / length
        cut = min(0.35 * RADIUS, length / 3)
        a, b = (ax + ux * cut, ay + uy * cut), (bx - ux * cut, by - uy * cut)
        self.svg.add(f'<g class="arrow" data-from="{_e(source.id)}" data-to="{_e(target.id)}">')
        self.svg.line(a, b, "#fff", 7)
        self.svg.line(a, b, "#c8102e", 3.6, extra=' marker-end="url(#arrowhead)"')
        if text:
            self.svg.text((a[0] + b[0]) / 2, (a[1] + b[1]) / 2 - 5, text, 11, weight="bold",
                          halo=True, fill="#c8102e")
        self.svg.add("</g>")


def _short(label: str, name: str) -> str:
    """A named place's label, or its name when the label is too long for the map."""
    return label if len(label) <= 26 else name.replace("_", " ").capitalize()


def _overlap(a: tuple[float, float, float, float], b: tuple[float, float, float, float]) -> bool:
    return a[0] < b[2] and b[0] < a[2] and a[1] < b[3] and b[1] < a[3]


def _on_borders(world: World, feature: str) -> bool:
    return any(feature in world.hexside(a, b) for a in world.areas for b in a.neighbours)


def resolve(world: World, ids: Iterable[str], what: str) -> list[Place]:
    """Places by id, or an UnknownIdError (a NotationError) naming the first unknown one."""
    found = []
    for ident in ids:
        place = world.place.get(str(ident))
        if place is None:
            raise UnknownIdError(f"no place {ident!r} in this rulebook (in {what})")
        found.append(place)
    return found


def texts(given: Highlights, what: str) -> dict[str, str]:
    """A highlight argument as place id -> text (empty text when none is given)."""
    if isinstance(given, str) or not isinstance(given, Iterable):
        raise ArgumentTypeError(f"{what} takes place ids (a list or a mapping), not "
                                f"{describe(given)}")
    if isinstance(given, Mapping):
        return {str(k): "" if v is None else str(v) for k, v in given.items()}
    return {str(k): "" for k in given}


def wrap(text: str, width: int) -> list[str]:
    return textwrap.wrap(text, width) or [""]


def arrows_of(given: Iterable[Any]) -> list[tuple[str, str, str]]:
    """Arrows as (from, to, text) triples."""
    if isinstance(given, str) or not isinstance(given, Iterable):
        raise ArgumentTypeError(f"arrows are (from, to) or (from, to, text) pairs, not "
                                f"{describe(given)}")
    found = []
    for arrow in given:
        if not isinstance(arrow, (tuple, list)) or len(arrow) not in (2, 3):
            raise CortesRulesError(f"an arrow is (from, to) or (from, to, text), not {arrow!r}")
        found.append((str(arrow[0]), str(arrow[1]), str(arrow[2]) if len(arrow) == 3 else ""))
    return found
