"""Every action of a rulebook: its text form and a stable integer id.

Each declared action kind takes a block of ids, one per combination of its
parameters' values (pieces, places, hexes, players, small integers); dice
results and draws have kinds of their own. Ids are what front ends and the
cores exchange (``legal_action_ids()``, ``apply(int)``); ``Action`` objects
are made once per id and kept.
"""

from __future__ import annotations

import bisect
import re
from collections.abc import Iterable
from typing import Any

from ..core.world import World
from ..dsl import ir
from ..errors import NotationError
from .actions import Action, unchecked_action
from .compile import format_value

INT_RANGE = 1024


class Kind:
    """An action kind: its parameter types fix the text form and the id range."""

    __slots__ = ("name", "params", "domains", "base", "size", "index")

    def __init__(self, name: str, params: tuple[tuple[str, str], ...],
                 domains: tuple[tuple[Any, ...], ...], base: int) -> None:
        self.name, self.params, self.domains, self.base = name, params, domains, base
        self.index = [{v: i for i, v in enumerate(d)} for d in domains]
        size = 1
        for d in domains:
            size *= len(d)
        self.size = size

    def encode(self, values: Iterable[Any]) -> int:
        number = 0
        for index, value in zip(self.index, values, strict=False):
            number = number * len(index) + index[value]
        return self.base + number


class ActionSpace:
    """Every action of a rulebook: text forms and stable integer ids."""

    def __init__(self, world: World, program: ir.Program) -> None:
        self.world = world
        domains = {"piece": world.pieces, "place": world.places, "hex": world.hexes,
                   "player": world.players, "int": tuple(range(INT_RANGE))}
        self.kinds: dict[str, Kind] = {}
        base = 0
        for decl in program.of(ir.ActionDecl):
            params = tuple((p.name, p.type) for p in decl.params)
            kind = Kind(decl.name, params, tuple(domains.get(t, ()) for _, t in params), base)
            self.kinds[decl.name] = kind
            base += kind.size
        totals = sorted({t for d in world.dice.values() if d.faces is None
                         for t in range(d.count, d.count * d.sides + 1)})
        faces = sorted({f for d in world.dice.values() if d.faces for f in d.faces})
        roll_values: tuple[Any, ...] = (*range(max(totals, default=0) + 1), *faces)
        self.kinds["roll"] = Kind("roll", (("value", "roll"),), (roll_values,), base)
        base += self.kinds["roll"].size
        self.kinds["draw"] = Kind("draw", (("piece", "piece"),), (world.pieces,), base)
        base += self.kinds["draw"].size
        self.size = base
        self._memo: dict[int, Action] = {}
        self._numbers: dict[int, tuple[Action, int]] = {}   # id(action) -> (action, number)
        self._decoded: dict[int, tuple[Kind, tuple[Any, ...]]] = {}
        # The kinds that have actions, by the first id of each (ascending).
        self._by_base = sorted((k for k in self.kinds.values() if k.size),
                               key=lambda k: k.base)
        self._bases = [k.base for k in self._by_base]

    def action(self, number: int) -> Action:
        """The action with an id (memoised: the same object every time)."""
        found = self._memo.get(number)
        if found is None:
            kind, values = self.decode(number)
            found = unchecked_action(kind.name, tuple(format_value(v) for v in values))
            self._memo[number] = found
            self._numbers[id(found)] = (found, number)
        return found

    def known(self, action: Any) -> int | None:
        """The id of an action this space handed out (``action(n)``), else None."""
        hit = self._numbers.get(id(action))
        return hit[1] if hit is not None and hit[0] is action else None

    def decode(self, number: int) -> tuple[Kind, tuple[Any, ...]]:
        found = self._decoded.get(number)
        if found is None:
            found = self._decode(number)
            self._decoded[number] = found
        return found

    def _decode(self, number: int) -> tuple[Kind, tuple[Any, ...]]:
        if not 0 <= number < self.size:
            raise NotationError(f"no action has id {number}")
        kind = self._by_base[bisect.bisect_right(self._bases, number) - 1]
        rest = number - kind.base
        values: list[Any] = []
        for domain in reversed(kind.domains):
            rest, i = divmod(rest, len(domain))
            values.append(domain[i])
        return kind, tuple(reversed(values))

    def parse(self, action: Action | str) -> tuple[Kind, tuple[Any, ...]]:
        """An action's kind and argument values, from its text form."""
        text = str(action)
        words = text.split()
        if not words:
            raise NotationError("empty action text")
        kind = self.kinds.get(words[0].lower())
        if kind is None or (kind.size == 0 and kind.params):
            known = ", ".join(k for k in self.kinds)
            raise NotationError(f"unknown action {words[0]!r}; known: {known}")
        args = words[1:]
        if len(args) != len(kind.params):
            raise NotationError(f"{kind.name!r} takes {len(kind.params)} argument(s), "
                                f"not {len(args)}")
        values = []
        for at, (arg, (_, ptype), index) in enumerate(zip(args, kind.params, kind.index,
                                                          strict=True)):
            value = self._value(arg, ptype)
            if value not in index:
                raise NotationError(self._not_an_argument(kind, at, arg))
            values.append(value)
        return kind, tuple(values)

    def _not_an_argument(self, kind: Kind, at: int, arg: str) -> str:
        """Which argument of an action text names nothing it may, and the nearest names."""
        name, ptype = kind.params[at]
        text = f"{arg!r} is not a {ptype} for {kind.name!r} (argument {at + 1}, {name})"
        world = self.world
        other = next((what for what, table in (("piece", world.piece), ("place", world.place),
                                               ("player", world.player)) if arg in table), None)
        if other is not None and other != ptype:
            return f"{text}: it is a {other}"
        if ptype in ("int", "roll"):
            return text
        return text + _nearest(arg, (str(getattr(v, "id", v)) for v in kind.domains[at]))

    def _value(self, arg: str, ptype: str) -> Any:
        world = self.world
        if ptype in ("int", "roll") and re.fullmatch(r"-?[0-9]+", arg):
            if len(arg) > 6 or (arg.lstrip("-").startswith("0") and arg.lstrip("-") != "0"):
                raise NotationError(f"{arg!r} is not a number in canonical form")
            return int(arg)
        if ptype == "piece":
            return world.piece.get(arg)
        if ptype in ("place", "hex"):
            return world.place.get(arg)
        if ptype == "player":
            return world.player.get(arg)
        return arg

    def number(self, action: Action | str) -> int:
        kind, values = self.parse(action)
        return kind.encode(values)


def _nearest(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` for the known names closest to a wrong one, else nothing."""
    from ..dsl.scope import hint

    return hint(str(name), known)
