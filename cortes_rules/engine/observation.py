"""The shape of ``GameState.observation(player)``: what one player may see, typed.

An observation is a plain dict, described by the ``TypedDict`` classes
below, whose values are Python's own types: whole numbers are ``int``
(a number the rules made by exact division stays a ``fractions.Fraction``
unless it is whole), yes and no are ``bool``, nothing is ``None``, a piece
or a place is its id (``"S9"``, ``"3011"``), a player his name, a symbol or
a text a ``str``, a list, tuple or set a ``list`` (a set in the rulebook's
order). A piece hidden from the player is ``"?"`` wherever a value would
name it.

Each visible piece is given in three parts, so a program can draw a counter
without sorting the rules' own state from what the table shows:

- ``printed``: what its counter line prints, fixed for the game (the
  label, class, side and flags, then every field the rulebook and its
  libraries declare ``printed``, such as a hex wargame's full steps, combat
  factors and movement factor, and every declared property);
- ``shown``: the attributes the rulebook marks ``shown`` (``attribute piece
  steps: int = piece.max_steps "..." shown``): what the piece shows on the
  table now, such as the side of a counter that is up;
- ``bookkeeping``: every other declared attribute of the piece, the state
  the rules keep (movement points spent, whether it attacked this phase).

Nothing in this module knows a game: every name comes from the rulebook.
"""

from __future__ import annotations

from collections.abc import Callable
from fractions import Fraction
from typing import Any, TypedDict, Union

from ..core.world import Dice, Piece, Place, Player, Table, World
from ..dsl import ir
from .compile import NamedText, _order_key

__all__ = ["HIDDEN", "Observation", "PieceView", "PrintedCounter", "Value", "observed",
           "printed_of", "shown_attributes"]

Value = Union[None, bool, int, Fraction, str, list["Value"], dict[str, "Value"]]
"""A value as an observation gives it (see the module's docstring)."""

HIDDEN = "?"
"""What stands for a piece hidden from the player, wherever a value names one."""


PrintedCounter = dict[str, Value]
"""What a piece's counter line prints (``counter S9 "..." cavalry steps 4 ...``):
its ``label``, ``class``, ``side`` (None for a piece of no side), each field the
rulebook declares ``printed`` (a number, or a list of numbers, the field's
default when the line does not write it: ``max_steps``, ``factors`` and
``move`` for a hex wargame, ``rulebook/lib/hex_wargame.rules``), its
``flags``, and each declared property the line gives (``tribe``), every one
under the name expressions read it by (``u.max_steps``, ``u.tribe``)."""


class PieceView(TypedDict):
    """One visible piece: where it is, what its counter prints, what it shows, and the
    rules' bookkeeping on it."""

    place: str | None
    """Its place's id, or None when it is in no place."""
    printed: PrintedCounter
    """What its counter line prints: ``label``, ``class``, ``side``, the declared
    printed fields, ``flags`` and any property (see ``PrintedCounter``)."""
    shown: dict[str, Value]
    """Its attributes the rulebook marks ``shown``, by name."""
    bookkeeping: dict[str, Value]
    """Its other declared attributes, by name."""


class Observation(TypedDict):
    """What one player may see now (``GameState.observation``)."""

    turn: int
    """The game turn."""
    phase: str
    """The phase's name (``spanish_land_movement``)."""
    to_act: str | None
    """The player to decide now, ``"chance"`` when the dice are to roll, None once over."""
    pieces: dict[str, PieceView]
    """Every piece the player may see, by id, in the rulebook's order."""
    hidden: dict[str, int]
    """How many pieces hidden from him are in each place (``"off"``: in none;
    ``"unknown"``: where their place is hidden too)."""
    players: dict[str, dict[str, Value]]
    """Each player's declared attributes, those a ``hide player`` clause keeps
    from this player left out."""
    values: dict[str, Value]
    """The rulebook's declared values, by name."""
    log: list[str]
    """The log lines he may read that name no piece hidden from him now."""


def observed(value: Any, unseen: set[Piece] | frozenset[Piece]) -> Value:
    """A state's value as an observation gives it, each piece of ``unseen`` as ``"?"``."""
    kind = type(value)
    if value is None or kind is bool or kind is int:
        return value   # type: ignore[no-any-return]
    if kind is Piece:
        return HIDDEN if value in unseen else value.id
    if kind is Place:
        return value.id  # type: ignore[no-any-return]
    if kind is Player:
        return value.name  # type: ignore[no-any-return]
    if kind is Fraction:
        return value.numerator if value.denominator == 1 else value  # type: ignore[no-any-return]
    if isinstance(value, NamedText):
        return HIDDEN if any(p in unseen for p in value.pieces) else str(value)
    if isinstance(value, str):
        return str(value)
    if isinstance(value, (tuple, list)):
        return [observed(v, unseen) for v in value]
    if isinstance(value, (frozenset, set)):
        return [observed(v, unseen) for v in sorted(value, key=_order_key)]
    if isinstance(value, (Dice, Table)):
        return value.name
    if isinstance(value, dict):
        return {str(observed(k, unseen)): observed(v, unseen) for k, v in value.items()}
    return str(value)


def printed_of(world: World) -> Callable[[Piece], PrintedCounter]:
    """A function giving each piece of ``world`` a fresh copy of what its counter prints."""
    flags = {c.id: list(c.flags) for c in
             (world.program.counters.counters if world.program.counters else ())}
    fields = [d.name for d in world.program.of(ir.PrintedDecl)]
    made: dict[int, PrintedCounter] = {}
    for piece in world.pieces:
        record: PrintedCounter = {
            "label": piece.label, "class": piece.cls,
            "side": piece.side.name if piece.side is not None else None}
        # The declared fields in the order of their declarations, then the flags and
        # the properties the line gives.
        for name in fields:
            if name in piece.props and name not in record:
                record[name] = observed(piece.props[name], frozenset())
        record["flags"] = list(flags.get(piece.id, []))
        for name, value in piece.props.items():
            if name not in record:
                record[name] = observed(value, frozenset())
        made[piece.index] = record

    def printed(piece: Piece) -> PrintedCounter:
        return {name: value[:] if isinstance(value, list) else value
                for name, value in made[piece.index].items()}

    return printed


def shown_attributes(program: ir.Program) -> frozenset[str]:
    """The names of the piece attributes the rulebook marks ``shown``."""
    return frozenset(a.name for a in program.of(ir.AttributeDecl)
                     if a.owner == "piece" and a.shown)
