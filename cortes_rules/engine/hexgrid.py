"""Hex geometry for maps whose hexes stand in vertical columns (flat-topped).

Hex ids are four digits CCRR: column then row. In a grid whose odd columns
sit half a hex lower ("odd columns low", the Cortés map), hex (c, r) with c
odd touches (c+1, r) and (c+1, r+1); with c even it touches (c+1, r-1) and
(c+1, r). The other arrangement ("even columns low") mirrors that.

Directions are numbered clockwise from north: 0 N, 1 NE, 2 SE, 3 S, 4 SW,
5 NW, so direction d is opposite direction (d + 3) mod 6.
"""

from __future__ import annotations

from fractions import Fraction

from ..errors import NotationError

Coord = tuple[int, int]


def parse_hex(hex_id: str) -> Coord:
    """``"2910"`` -> ``(29, 10)``."""
    if len(hex_id) != 4 or not hex_id.isdigit():
        raise NotationError(f"not a four-digit hex id: {hex_id!r}")
    return int(hex_id[:2]), int(hex_id[2:])


def format_hex(coord: Coord) -> str:
    """``(29, 10)`` -> ``"2910"``."""
    column, row = coord
    return f"{column:02d}{row:02d}"


def _is_low(column: int, odd_columns_low: bool) -> bool:
    return (column % 2 == 1) == odd_columns_low


def neighbour_coords(coord: Coord, odd_columns_low: bool = True) -> tuple[Coord, ...]:
    """The six neighbours of a hex, in direction order N, NE, SE, S, SW, NW."""
    column, row = coord
    if _is_low(column, odd_columns_low):
        upper, lower = row, row + 1
    else:
        upper, lower = row - 1, row
    return ((column, row - 1), (column + 1, upper), (column + 1, lower),
            (column, row + 1), (column - 1, lower), (column - 1, upper))


def neighbours(hex_id: str, odd_columns_low: bool = True) -> tuple[str, ...]:
    """Ids of the six neighbours (some may lie off the map), direction order."""
    return tuple(format_hex(c) for c in neighbour_coords(parse_hex(hex_id), odd_columns_low)
                 if 0 <= c[0] <= 99 and 0 <= c[1] <= 99)


def direction(source: str, target: str, odd_columns_low: bool = True) -> int | None:
    """The direction (0-5) from ``source`` to an adjacent ``target``, else None."""
    coords = neighbour_coords(parse_hex(source), odd_columns_low)
    goal = parse_hex(target)
    for index, coord in enumerate(coords):
        if coord == goal:
            return index
    return None


def adjacent(a: str, b: str, odd_columns_low: bool = True) -> bool:
    """Whether two hexes share a hexside."""
    return direction(a, b, odd_columns_low) is not None


def _cube(coord: Coord, odd_columns_low: bool) -> tuple[int, int, int]:
    """Offset coordinates to cube coordinates (x + y + z == 0)."""
    column, row = coord
    if odd_columns_low:
        z = row - (column - (column % 2)) // 2
    else:
        z = row - (column + (column % 2)) // 2
    return column, -column - z, z


def cube(hex_id: str, odd_columns_low: bool = True) -> tuple[int, int, int]:
    """A hex's cube coordinates (x + y + z == 0), in which distances are measured."""
    return _cube(parse_hex(hex_id), odd_columns_low)


def cube_distance(a: tuple[int, ...], b: tuple[int, ...]) -> int:
    """The number of hex steps between two hexes given by their cube coordinates."""
    return max(abs(a[0] - b[0]), abs(a[1] - b[1]), abs(a[2] - b[2]))


def distance(a: str, b: str, odd_columns_low: bool = True) -> int:
    """The number of hex steps between two hexes."""
    return cube_distance(cube(a, odd_columns_low), cube(b, odd_columns_low))


def _offset(cube: tuple[int, int, int], odd_columns_low: bool) -> Coord:
    """Cube coordinates back to (column, row): the inverse of ``_cube()``."""
    column, _, z = cube
    if odd_columns_low:
        return column, z + (column - (column % 2)) // 2
    return column, z + (column + (column % 2)) // 2


def _cube_round(x: Fraction, y: Fraction, z: Fraction) -> tuple[int, int, int]:
    """The hex whose centre is nearest a point given in cube coordinates."""
    rx, ry, rz = round(x), round(y), round(z)
    dx, dy, dz = abs(rx - x), abs(ry - y), abs(rz - z)
    if dx > dy and dx > dz:
        rx = -ry - rz
    elif dy > dz:
        ry = -rx - rz
    else:
        rz = -rx - ry
    return rx, ry, rz


# How far each line is pushed off the straight one, in cube coordinates: far
# less than any distance between a hex centre and a hexside, and summing to 0.
_NUDGE = (Fraction(1, 10**6), Fraction(2, 10**6), Fraction(-3, 10**6))


def cube_sight_lines(start: tuple[int, ...], end: tuple[int, ...]
                     ) -> tuple[tuple[tuple[int, int, int], ...], ...]:
    """The cube coordinates of the hexes strictly between two hexes along the line
    joining their centres, in order from ``start``: the line pushed a hair to one
    side, then to the other (see ``sight_lines``). Exact, with fractions."""
    steps = cube_distance(start, end)
    lines = []
    for sign in (1, -1):
        line = []
        for i in range(1, steps):
            t = Fraction(i, steps)
            point = [s + (e - s) * t + sign * n for s, e, n in zip(start, end, _NUDGE, strict=True)]
            line.append(_cube_round(*point))
        lines.append(tuple(line))
    return tuple(lines)


def sight_lines(a: str, b: str, odd_columns_low: bool = True) -> tuple[tuple[str, ...], ...]:
    """The hexes a straight line from the centre of ``a`` to the centre of ``b``
    passes through, strictly between the two, in order from ``a``.

    Two lines are given, the first pushed a hair to one side of the straight
    one and the second to the other: where the line runs along a hexside they
    differ (one passes each of the two hexes), elsewhere they are the same. A
    rulebook then says whether a sight line along a hexside is blocked when
    either hex blocks it or only when both do. Worked out exactly, with
    fractions, so it gives the same answer on every machine.
    """
    start, end = _cube(parse_hex(a), odd_columns_low), _cube(parse_hex(b), odd_columns_low)
    lines = []
    for cubes in cube_sight_lines(start, end):
        offsets = (_offset(c, odd_columns_low) for c in cubes)
        lines.append(tuple(format_hex((column, row)) for column, row in offsets
                           if 0 <= column <= 99 and 0 <= row <= 99))
    return tuple(lines)
