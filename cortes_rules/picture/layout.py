"""Where things go in the picture of a position, worked out from the map data alone.

- Hexes stand in vertical columns (flat-topped): hex ``CCRR`` is drawn at
  column ``CC`` and row ``RR``, the low columns half a hex lower
  (``grid columns odd|even low``).
- Zones (water) have no coordinates in the data. The grid cells inside the
  map's frame that hold no hex are its water; each such cell next to a zone's
  shore hexes goes to the zone it touches most shore hexes of (ties: the zone
  whose shore is nearest), and the water left over goes, a few rings at a
  time, to the zone of a neighbouring cell. A zone's anchor (its number and
  its counters) is the centre of its own cell nearest the middle of its
  cells; a zone with no cell is anchored at the middle of its shore hexes.
- Areas (a board that is not a hex grid) stand on a circle, in declaration
  order, below the hexes if there are any.
- Hexside features are drawn by how they run: a feature whose hexsides meet
  at a hex's corners (two of a hex's sides next to each other) runs *along*
  hexsides and is drawn on them; one whose hexsides go through a hex (sides
  not next to each other) runs *across* them and is drawn from centre to
  centre; a feature that never chains is a *mark* across the hexside's middle.
"""

from __future__ import annotations

import math
from collections.abc import Iterable

from ..core.world import Place, World
from ..engine import hexgrid

SQRT3 = math.sqrt(3.0)
Point = tuple[float, float]
Coord = tuple[int, int]

ALONG, ACROSS, MARK = "along", "across", "mark"

# Light fills for natural terrain, in declaration order (the first is paper).
NATURAL_FILLS = ("#f6f2e4", "#cfe3b0", "#e6cf9f", "#b9d3c4", "#dccbe6", "#eadf9d",
                 "#cfcfcf", "#f1c6b6", "#bfd6e8", "#e2e8c0")
# Strong colours for artificial terrain rings and hexside features.
STRONG = ("#c0392b", "#6c3fa0", "#1f6fb2", "#d9822b", "#2e8540", "#c2418f", "#8a4b1f",
          "#555555", "#9a9a1e", "#138d90")
ALONG_COLOURS = ("#1f5fb0", "#4b9bd8", "#2e7d32", "#7b4fb0", "#00838f", "#5d4037")
ACROSS_COLOURS = ("#7a4a21", "#5f5f5f", "#b5651d", "#8b1a1a", "#4e6b2e", "#2c3e70")
MARK_COLOURS = ("#111111", "#b02a2a", "#6a1b9a", "#1b5e20")
SIDE_FILLS = ("#f3d36b", "#9dc0e6", "#eba48f", "#a6d6a0", "#d3b7e8", "#f0b8d0",
              "#b8e0e0", "#e0c8a0")
NEUTRAL_FILL = "#e2e2e2"
WATER = "#d4e9f7"
WATER_EDGE = "#6f9cc4"


def cycle(colours: tuple[str, ...], index: int) -> str:
    """The ``index``-th colour of a palette, going round when it runs out."""
    return colours[index % len(colours)]


def low(column: int, odd_columns_low: bool) -> bool:
    """Whether a column sits half a hex lower than its neighbours."""
    return (column % 2 == 1) == odd_columns_low


class Layout:
    """Coordinates of every hex, zone and area of a world, in pixels."""

    def __init__(self, world: World, radius: float, left: float, top: float) -> None:
        self.world = world
        self.radius = radius
        self.left, self.top = left, top
        self.area_box = 3.2 * radius
        self.first_column = self.first_row = self.last_column = self.last_row = 0
        self.odd_low = world.odd_columns_low
        coords = {h.id: hexgrid.parse_hex(h.id) for h in world.hexes}
        self.coords = coords
        self.anchor: dict[str, Point] = {}
        self.width = 0.0
        self.height = 0.0
        self.water: dict[Coord, int] = {}
        if coords:
            columns = [c for c, _ in coords.values()]
            rows = [r for _, r in coords.values()]
            self.first_column, self.first_row = min(columns), min(rows)
            self.last_column, self.last_row = max(columns), max(rows)
            for hex_id, coord in coords.items():
                self.anchor[hex_id] = self.centre(coord)
            self.width = (self.last_column - self.first_column) * 1.5 * radius + 2 * radius
            self.height = (self.last_row - self.first_row + 1.5) * SQRT3 * radius
            self._zones()
        self._areas(left, top + self.height + (radius if coords else 0))

    # ------------------------------------------------------------ hexes
    def centre(self, coord: Coord) -> Point:
        """The centre of the grid cell at (column, row)."""
        column, row = coord
        r = self.radius
        x = self.left + r + (column - self.first_column) * 1.5 * r
        y = self.top + SQRT3 * r * (row - self.first_row + 0.5 +
                                    (0.5 if low(column, self.odd_low) else 0.0))
        return x, y

    def corners(self, point: Point, scale: float = 1.0) -> list[Point]:
        """The six corners of a hex centred on ``point``, clockwise from the east."""
        x, y = point
        r = self.radius * scale
        return [(x + r * math.cos(math.radians(60 * k)), y + r * math.sin(math.radians(60 * k)))
                for k in range(6)]

    def side(self, point: Point, direction: int) -> tuple[Point, Point]:
        """The two ends of the side of a hex centred on ``point`` towards ``direction``
        (0 N, 1 NE, 2 SE, 3 S, 4 SW, 5 NW)."""
        corners = self.corners(point)
        return corners[(4 + direction) % 6], corners[(5 + direction) % 6]

    # ------------------------------------------------------------ zones
    def _zones(self) -> None:
        world = self.world
        if not world.zones:
            return
        taken = set(self.coords.values())
        holes = {(c, r) for c in range(self.first_column, self.last_column + 1)
                 for r in range(self.first_row, self.last_row + 1)} - taken
        shore_middle: dict[int, Point] = {}
        touching: dict[Coord, dict[int, int]] = {}
        for zone in world.zones:
            number = int(zone_number(zone))
            points = [self.anchor[h.id] for h in zone.shore]
            if points:
                shore_middle[number] = _middle(points)
            for hex_place in zone.shore:
                for cell in hexgrid.neighbour_coords(self.coords[hex_place.id], self.odd_low):
                    if cell in holes:
                        counts = touching.setdefault(cell, {})
                        counts[number] = counts.get(number, 0) + 1
        for cell, counts in touching.items():
            here = self.centre(cell)
            self.water[cell] = min(counts, key=lambda n: (
                -counts[n], _distance(here, shore_middle.get(n, here)), n))
        seeds: dict[int, list[Point]] = {}
        for cell, number in self.water.items():
            seeds.setdefault(number, []).append(self.centre(cell))
        placed = {n: _middle(points) for n, points in seeds.items()}
        placed.update({n: p for n, p in shore_middle.items() if n not in placed})
        self._open_water(holes, placed)
        self._grow(holes)
        cells: dict[int, list[Point]] = {}
        for cell, number in self.water.items():
            cells.setdefault(number, []).append(self.centre(cell))
        for zone in world.zones:
            number = int(zone_number(zone))
            own = cells.get(number)
            if own:
                middle = _middle(own)
                self.anchor[zone.id] = min(own, key=lambda p: (_distance(p, middle), p))
            elif number in placed:
                self.anchor[zone.id] = placed[number]

    def _open_water(self, holes: set[Coord], placed: dict[int, Point]) -> None:
        """Seed the zones with no shore: each at the free water cell nearest the
        middle of the zones it touches that are placed already."""
        unplaced = [z for z in self.world.zones if int(zone_number(z)) not in placed]
        while unplaced:
            def known(zone: Place) -> list[Point]:
                return [placed[int(zone_number(n))] for n in zone.neighbours
                        if int(zone_number(n)) in placed]
            zone = max(unplaced, key=lambda z: (len(known(z)), -z.index))
            near = known(zone)
            if not near:
                break
            unplaced.remove(zone)
            middle = _middle(near)
            free = sorted(holes - set(self.water)) or sorted(holes)
            if not free:
                placed[int(zone_number(zone))] = middle
                continue
            cell = min(free, key=lambda c: (_distance(self.centre(c), middle), c))
            self.water[cell] = int(zone_number(zone))
            placed[int(zone_number(zone))] = self.centre(cell)

    def _grow(self, holes: set[Coord]) -> None:
        """Give the rest of the water, ring by ring, to the zone most of a cell's
        neighbouring water belongs to."""
        while True:
            grown: dict[Coord, int] = {}
            for cell in sorted(holes - set(self.water)):
                near = [self.water[n] for n in hexgrid.neighbour_coords(cell, self.odd_low)
                        if n in self.water]
                if near:
                    grown[cell] = min(near, key=lambda n: (-near.count(n), n))
            if not grown:
                return
            self.water.update(grown)

    # ------------------------------------------------------------ areas
    def _areas(self, left: float, top: float) -> None:
        areas = self.world.areas
        if not areas:
            return
        ring = max(2.2 * self.radius * len(areas) / math.pi, 4 * self.radius)
        box = self.area_box
        cx, cy = left + ring + box, top + ring + box
        for index, area in enumerate(areas):
            angle = 2 * math.pi * index / len(areas) - math.pi / 2
            self.anchor[area.id] = (cx + ring * math.cos(angle), cy + ring * math.sin(angle))
        self.width = max(self.width, 2 * (ring + box))
        self.height = top - self.top + 2 * (ring + box)


def hexside_styles(world: World) -> dict[str, str]:
    """How each declared hexside feature is drawn: ``along``, ``across`` or ``mark``.

    Votes over the hexes that have two or more sides with the feature: sides
    next to each other vote ``along``, sides apart vote ``across``; a feature
    with no vote (never two sides of one hex) is a ``mark``.
    """
    sides: dict[str, dict[str, set[int]]] = {}
    for hex_place in world.hexes:
        for other in hex_place.neighbours:
            direction = world.direction(hex_place, other)
            if direction is None:
                continue
            for feature in world.hexside(hex_place, other):
                sides.setdefault(feature, {}).setdefault(hex_place.id, set()).add(direction)
    styles: dict[str, str] = {}
    for feature, by_hex in sides.items():
        along = across = 0
        for directions in by_hex.values():
            if len(directions) < 2:
                continue
            if any((d + 1) % 6 in directions for d in directions):
                along += 1
            else:
                across += 1
        styles[feature] = MARK if along == across == 0 else ALONG if along > across else ACROSS
    return styles


def components(world: World, places: Iterable[Place]) -> list[list[Place]]:
    """The connected parts of a set of hexes (hexes next to each other joined)."""
    left = {p for p in places if p.kind == "hex"}
    parts: list[list[Place]] = []
    while left:
        start = min(left, key=lambda p: p.index)
        part, todo = [start], [start]
        left.discard(start)
        while todo:
            for other in todo.pop().neighbours:
                if other in left:
                    left.discard(other)
                    part.append(other)
                    todo.append(other)
        parts.append(sorted(part, key=lambda p: p.index))
    return parts


def zone_number(place: Place) -> str:
    """The number of a zone place (``zone.11`` -> ``11``)."""
    return place.id.split(".", 1)[1]


def _middle(points: list[Point]) -> Point:
    return (sum(p[0] for p in points) / len(points), sum(p[1] for p in points) / len(points))


def _distance(a: Point, b: Point) -> float:
    return math.hypot(a[0] - b[0], a[1] - b[1])
