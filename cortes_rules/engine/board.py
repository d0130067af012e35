"""Where the pieces are, as integers: the board state of the native core, in Python.

The native core (``cortes_rules._core.Board``) keeps the changing part of a
position in fixed-size arrays so that a copy is one memory copy and a
clause such as "no enemy unit in the hex" is a count test: where each piece
is, how many pieces each place holds, and how many of them each player
owns (the ownerless pieces counted as a player of their own), all kept up
to date on every move; it also links each place's pieces in ascending
order, so that it lists them without a scan (``occupants()`` here is what
that list must be). This class is the same board in
plain Python, the specification the native one is tested against
(tests/backends/test_board.py); both are built from the integer tables of
``tables.lower()``.

Pieces, places and players are their ``index`` in the ``World``; ``NONE``
(-1) is "no place" (a piece not yet set up) and "no owner".
"""

from __future__ import annotations

from collections.abc import Sequence

from ..errors import BoardError

NONE = -1


class Board:
    """The positions of the pieces and the occupancy counts they imply.

    Args:
        piece_side: each piece's owner (a player index, or ``NONE``).
        n_places: how many places the board has.
        n_players: how many players the tables name.
    """

    __slots__ = ("_side", "_n_places", "_n_players", "_where", "_count", "_owned")

    def __init__(self, piece_side: Sequence[int], n_places: int, n_players: int) -> None:
        if n_places < 0 or n_players < 0:
            raise BoardError("a board needs non-negative numbers of places and players")
        for side in piece_side:
            if not NONE <= side < n_players:
                raise BoardError(f"piece owner {side} is not a player of {n_players}")
        self._side = list(piece_side)
        self._n_places, self._n_players = n_places, n_players
        self._where = [NONE] * len(self._side)
        self._count = [0] * n_places
        self._owned = [0] * (n_places * (n_players + 1))   # column n_players: ownerless

    @property
    def n_pieces(self) -> int:
        return len(self._side)

    def _piece(self, piece: int) -> int:
        if not 0 <= piece < len(self._side):
            raise BoardError(f"piece {piece} is not on a board of {len(self._side)} pieces")
        return piece

    def _place(self, place: int, none_ok: bool = False) -> int:
        if not (0 <= place < self._n_places or (none_ok and place == NONE)):
            raise BoardError(f"place {place} is not on a board of {self._n_places} places")
        return place

    def _column(self, player: int) -> int:
        """The column of ``player`` in the counts (``NONE``: the ownerless pieces)."""
        if not NONE <= player < self._n_players:
            raise BoardError(f"player {player} is not one of {self._n_players}")
        return player if player != NONE else self._n_players

    def put(self, piece: int, place: int) -> int:
        """Move ``piece`` to ``place`` (``NONE``: off every place); returns where it was."""
        self._piece(piece)
        self._place(place, none_ok=True)
        old = self._where[piece]
        if old == place:
            return old
        side = self._side[piece]
        column = side if side != NONE else self._n_players
        width = self._n_players + 1
        if old != NONE:
            self._count[old] -= 1
            self._owned[old * width + column] -= 1
        if place != NONE:
            self._count[place] += 1
            self._owned[place * width + column] += 1
        self._where[piece] = place
        return old

    def place_of(self, piece: int) -> int:
        return self._where[self._piece(piece)]

    def count(self, place: int) -> int:
        """How many pieces ``place`` holds."""
        return self._count[self._place(place)]

    def count_of(self, place: int, player: int) -> int:
        """How many of the pieces in ``place`` belong to ``player`` (``NONE``: to nobody)."""
        return self._owned[self._place(place) * (self._n_players + 1) + self._column(player)]

    def others(self, place: int, player: int) -> int:
        """How many of the pieces in ``place`` do not belong to ``player`` (``NONE``: nobody)."""
        return self.count(place) - self.count_of(place, player)

    def occupants(self, place: int) -> list[int]:
        """The pieces in ``place``, ascending."""
        self._place(place)
        return [i for i, at in enumerate(self._where) if at == place]

    def where(self) -> list[int]:
        """Each piece's place (``NONE`` for none), by piece."""
        return list(self._where)

    def clone(self) -> Board:
        twin = Board.__new__(Board)
        twin._side, twin._n_places, twin._n_players = self._side, self._n_places, self._n_players
        twin._where, twin._count, twin._owned = self._where[:], self._count[:], self._owned[:]
        return twin
