"""The seats of a game played one browser per player, and their tokens.

Taking a seat (creating the game, or joining it) gives an unguessable token
(``secrets.token_urlsafe``); every request for that seat's view, record,
actions and undo must carry it in its ``Authorization: Bearer TOKEN``
header. The server keeps only a SHA-256 digest of each token, compares
digests in constant time, and never writes a token in an answer other than
the one that gives it, in a record or in a log.
"""

from __future__ import annotations

import hashlib
import hmac
import secrets

from .shapes import ServeError, shown

TOKEN_BYTES = 32


def _digest(token: str) -> bytes:
    return hashlib.sha256(token.encode("utf-8", "surrogateescape")).digest()


class Seats:
    """Who holds which seat of one game, by the digests of their tokens."""

    def __init__(self, players: tuple[str, ...]) -> None:
        self.players = players
        self._digests: dict[str, bytes] = {}

    def __repr__(self) -> str:
        return f"Seats(taken={sorted(self._digests)})"

    def take(self, player: str) -> str:
        """Give ``player``'s seat to the asker: its new token.

        Raises:
            ServeError: no such player (400), or the seat is taken (409).
        """
        if player not in self.players:
            raise ServeError(f"no seat {shown(player)} (seats: {', '.join(self.players)})")
        if player in self._digests:
            raise ServeError(f"the {player} seat is taken", 409)
        token = secrets.token_urlsafe(TOKEN_BYTES)
        self._digests[player] = _digest(token)
        return token

    def taken(self) -> dict[str, bool]:
        """Each seat, and whether someone holds it."""
        return {p: p in self._digests for p in self.players}

    def holder(self, token: str | None) -> str:
        """The seat a token is for.

        Raises:
            ServeError (403): no token, or the token of no seat of this game.
        """
        if not token:
            raise ServeError("this game is played one browser per player: a seat's "
                             "requests carry its token (Authorization: Bearer ...)", 403)
        given = _digest(token)
        found = None
        for player, digest in self._digests.items():
            if hmac.compare_digest(given, digest):
                found = player
        if found is None:
            raise ServeError("that token is not one of this game's seats", 403)
        return found


def bearer(header: str | None) -> str | None:
    """The token of an ``Authorization: Bearer TOKEN`` header (None without one)."""
    if not header:
        return None
    scheme, _, token = header.strip().partition(" ")
    if scheme.lower() != "bearer" or not token.strip():
        raise ServeError("the Authorization header is 'Bearer TOKEN'", 403)
    return token.strip()
