"""Actions: small immutable values with a stable text form.

Every decision of a game, a player's or chance's, is one action: a kind and
its arguments, written ``KIND ARG...`` (``move S9 3011``, ``roll 7``,
``bid 3``). The kinds and the types of their arguments are declared by the
rulebook (``action move(unit: piece, to: hex) "..."``); its action space
parses and validates a text against them and numbers every action with a
stable integer id (``cortes_rules.Rulebook.action_id()``). This class
only checks the shape of a text.

``Action.parse(str(a)) == a`` for every action.
"""

from __future__ import annotations

import re

import attrs

from ..errors import NotationError

_KIND = re.compile(r"^[a-z_][a-z0-9_]*$")
_TOKEN = re.compile(r"^[A-Za-z0-9_.\-]+$")
MAX_TEXT = 200


@attrs.frozen(order=True)
class Action:
    """One decision: a kind and its arguments (ids of pieces, places, players, numbers).

    Attributes:
        kind: the action kind, as the rulebook declares it (``move``).
        args: its arguments, as text.
    """

    kind: str
    args: tuple[str, ...] = ()

    def __attrs_post_init__(self) -> None:
        if not isinstance(self.kind, str) or not _KIND.match(self.kind):
            raise NotationError(f"an action starts with its kind, a lower-case word, "
                                f"not {self.kind!r}")
        if not isinstance(self.args, tuple):
            raise NotationError("an action's arguments are a tuple of texts")
        for arg in self.args:
            if not isinstance(arg, str) or not arg.isascii() or not _TOKEN.match(arg):
                raise NotationError(f"bad argument {arg!r} in a {self.kind} action")

    def __str__(self) -> str:
        return " ".join((self.kind, *self.args))

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read an action from its text form (its shape only; see ``Rulebook.parse_action``).

        Raises:
            NotationError: the text is not an action.
        """
        if not isinstance(text, str):
            raise NotationError(f"an action is a text, not {type(text).__name__}")
        if len(text) > MAX_TEXT:
            raise NotationError(f"an action text is at most {MAX_TEXT} characters")
        words = text.split()
        if not words:
            raise NotationError("empty action text")
        return cls(words[0].lower(), tuple(words[1:]))

    @property
    def is_chance(self) -> bool:
        """Whether chance, not a player, takes this action (a roll or a draw)."""
        return self.kind in ("roll", "draw")


def unchecked_action(kind: str, args: tuple[str, ...]) -> Action:
    """An action the rulebook's action space has already validated."""
    action = object.__new__(Action)
    object.__setattr__(action, "kind", kind)
    object.__setattr__(action, "args", args)
    return action
