"""Actions: small immutable values with a stable text form.

Every decision of a game, a player's or chance's, is one action. Text forms::

    end                 end the current phase (or step)
    move S9 3011        move unit S9 one hex, into 3011
    attack 3024         open a battle against the units in 3024
    join S9             commit S9 to the open battle
    resolve             resolve the open battle (its dice roll follows)
    cancel              call off an open battle before it is resolved
    roll 7              chance: the dice came up 7
    lose S9             take one step of combat loss from S9
    advance S9          advance S9 into the emptied hex after combat
    stop                stop advancing after combat
    remove A12          remove a unit from an overstacked hex

``Action.parse(str(a)) == a`` for every action; integer ids come from the
rulebook (:meth:`cortes_rules.Rulebook.action_id`), since they number the
rulebook's own units and hexes.
"""

from __future__ import annotations

import re

import attrs

from ..errors import NotationError

_ARITY = {"end": 0, "resolve": 0, "cancel": 0, "stop": 0, "move": 2, "attack": 1, "join": 1,
          "roll": 1, "lose": 1, "advance": 1, "remove": 1}
_TOKEN = re.compile(r"^[A-Za-z0-9_]+$")


@attrs.frozen(order=True)
class Action:
    """One decision: a kind and its arguments (unit ids, hex ids, a roll).

    Attributes:
        kind: one of ``end move attack join resolve cancel roll lose advance stop remove``.
        args: its arguments, as text.
    """

    kind: str
    args: tuple[str, ...] = ()

    def __attrs_post_init__(self) -> None:
        if self.kind not in _ARITY:
            raise NotationError(f"unknown action {self.kind!r}; known: {', '.join(_ARITY)}")
        if len(self.args) != _ARITY[self.kind]:
            raise NotationError(f"{self.kind!r} takes {_ARITY[self.kind]} argument(s), "
                                f"not {len(self.args)}")
        for arg in self.args:
            if not isinstance(arg, str) or not _TOKEN.match(arg):
                raise NotationError(f"bad argument {arg!r} in a {self.kind} action")
        if self.kind == "roll" and not self.args[0].isdigit():
            raise NotationError(f"a roll is a whole number, not {self.args[0]!r}")

    def __str__(self) -> str:
        return " ".join((self.kind, *self.args))

    @classmethod
    def parse(cls, text: str) -> Action:
        """Read an action from its text form.

        Raises:
            NotationError: the text is not an action.
        """
        words = text.split()
        if not words:
            raise NotationError("empty action text")
        return cls(words[0].lower(), tuple(words[1:]))

    @property
    def is_chance(self) -> bool:
        """Whether chance, not a player, takes this action."""
        return self.kind == "roll"


def unchecked_action(kind: str, args: tuple[str, ...]) -> Action:
    """An action of a kind declared by a rulebook (the rulebook checks its text).

    :class:`Action` checks the built-in kinds; the core's action kinds are
    declared by each rulebook, whose action space parses and validates them.
    """
    action = object.__new__(Action)
    object.__setattr__(action, "kind", kind)
    object.__setattr__(action, "args", args)
    return action
