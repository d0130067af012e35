"""A player's view of a game as a flat tensor, laid out from the rulebook's world.

The tensor holds what ``GameState.observation(player)`` shows, and nothing
more: a piece hidden from the player is only a count in the place it is in
(or in "unknown" when where it is is hidden too), exactly as the
observation's ``hidden`` counts give it. The parts, in order (``Layout.parts``
gives their names and shapes, for named views):

``pieces`` (pieces x places + 2)
    for each piece, a one-hot of the place it is in among the world's
    places, then "off the map" (in no place), then "hidden from the viewer"
    (then nothing else of the piece is shown);
``piece_attributes`` (pieces x numeric attributes)
    each declared ``int`` or ``bool`` attribute of a piece the viewer sees;
``hidden_counts`` (places + 2)
    how many hidden pieces are in each place, off the map, in a place unknown;
``player_attributes``, ``player_attributes_hidden`` (players x numeric attributes)
    each numeric attribute of each player (parties of the rules included), and
    1 where a hide clause keeps it from the viewer (its value then reads 0);
``values`` (numeric game values), ``turn`` (1), ``phase`` (one-hot among the
turn sequence's and the opening's phases), ``to_act`` (one-hot among the
players, then chance; all 0 once the game is over) and ``viewer`` (one-hot).

Attributes and values of other types (places, pieces, lists) are not in the
tensor; ``GameState.observation`` shows them.

This is the one encoder of observations as tensors: ``GameState.observation_tensor``
(one ``Layout`` per loaded rulebook, ``layout_of``), the PettingZoo environment and the
OpenSpiel game (``cortes_rules.adapters``) all fill theirs here. It needs NumPy,
which the adapters' extras bring.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, cast

from ..dsl import ir
from ..errors import ArgumentTypeError, CortesRulesError, MissingExtraError, UnknownNameError

try:
    import numpy as np
except ImportError as error:   # neither extra is installed
    raise MissingExtraError("observation tensor", ("pettingzoo", "openspiel"),
                            error.name or "numpy") from error

if TYPE_CHECKING:
    from ..api import Rulebook
    from .machine import GameState, Machine

__all__ = ["Layout", "layout_of"]

_NUMERIC = ("int", "bool")


def _number(value: Any) -> float:
    """A numeric attribute's value as a float (0 for a value of no number)."""
    return float(value) if isinstance(value, (int, float)) else 0.0


class Layout:
    """Where each part of a rulebook's observation tensor lies.

    Attributes:
        parts: ``(name, shape)`` of each part, in order.
        size: the length of the flat tensor.
        low, high: bounds of every entry (float32 arrays), for a Box space.
    """

    def __init__(self, book: Rulebook | Machine) -> None:
        # A Rulebook holds its Machine (the compiled program its games run on).
        machine = cast("Machine", getattr(book, "_machine", book))
        world = machine.world
        self.book = None if book is machine else book
        self._machine = machine
        self.players = tuple(p.name for p in world.seats)
        self._fitting: list[Any] = []
        self._places = {place.index: i for i, place in enumerate(world.places)}
        self.piece_attributes = tuple(d.name for d, _ in machine.attributes
                                      if d.owner == "piece" and d.type.name in _NUMERIC)
        self.player_attributes = tuple(d.name for d, _ in machine.attributes
                                       if d.owner == "player" and d.type.name in _NUMERIC)
        self.values = tuple(d.name for d in machine.program.of(ir.ValueDecl)
                            if d.type.name in _NUMERIC)
        # The turn sequence's phases, then the opening's (Rulebook.phases, opening_phases).
        turn = machine.turn_phases
        self.phases = (tuple(p.name for p in turn)
                       + tuple(p.name for p in machine.phases[len(turn):]))
        n_pieces, n_places = len(world.pieces), len(world.places)
        n_players = len(world.players)
        self.parts: tuple[tuple[str, tuple[int, ...]], ...] = (
            ("pieces", (n_pieces, n_places + 2)),
            ("piece_attributes", (n_pieces, len(self.piece_attributes))),
            ("hidden_counts", (n_places + 2,)),
            ("player_attributes", (n_players, len(self.player_attributes))),
            ("player_attributes_hidden", (n_players, len(self.player_attributes))),
            ("values", (len(self.values),)),
            ("turn", (1,)),
            ("phase", (len(self.phases),)),
            ("to_act", (len(self.players) + 1,)),
            ("viewer", (len(self.players),)),
        )
        self.offsets: dict[str, int] = {}
        at = 0
        for name, shape in self.parts:
            self.offsets[name] = at
            at += int(np.prod(shape))
        self.size = at
        unbounded = ("piece_attributes", "player_attributes", "values")
        self.low = np.zeros(self.size, np.float32)
        self.high = np.ones(self.size, np.float32)
        for name, shape in self.parts:
            start, stop = self.offsets[name], self.offsets[name] + int(np.prod(shape))
            if name in unbounded:
                self.low[start:stop] = -np.inf
                self.high[start:stop] = np.inf
            elif name == "hidden_counts":
                self.high[start:stop] = n_pieces
            elif name == "turn":
                self.high[start:stop] = np.inf

    @staticmethod
    def _shape(machine: Any) -> tuple[Any, ...]:
        """What the layout depends on: pieces, places, players, phases and attributes."""
        world = machine.world
        return (tuple(p.id for p in world.pieces), tuple(p.id for p in world.places),
                tuple(p.name for p in world.players), tuple(p.name for p in machine.phases),
                tuple((d.owner, d.name, d.type.name) for d, _ in machine.attributes),
                tuple(name for name, _ in machine.values))

    def _fits(self, machine: Any) -> bool:
        """Whether a game of another load of a rulebook has this layout (such as a load
        of the same rulebook with the same options): checked once per load."""
        if machine not in self._fitting:
            if self._shape(machine) != self._shape(self._machine):
                return False
            self._fitting.append(machine)
        return True

    def views(self, tensor: Any) -> dict[str, Any]:
        """Named, reshaped views of the parts of a flat tensor (they share its memory)."""
        return {name: tensor[self.offsets[name]:self.offsets[name] + int(np.prod(shape))]
                .reshape(shape) for name, shape in self.parts}

    def encode(self, state: GameState, player: str, out: Any = None) -> Any:
        """What ``player`` may see of ``state``, as a flat float32 tensor.

        Writes into ``out`` (a C-contiguous float32 array of ``size`` values, of any
        shape) when given, else into a new array, and returns it.

        Raises:
            CortesRulesError: ``player`` is not a player of the rulebook, or the
                state is of another rulebook.
            ArgumentTypeError: ``out`` is not a float32 array of ``size`` values
                whose memory can be written in place.
        """
        given = out
        if out is not None:
            out = self._flat(out)
        if player not in self.players:
            raise UnknownNameError(f"no player {player!r} among the players of this rulebook "
                                   f"({', '.join(self.players)})")
        machine = state.machine
        if machine is not self._machine and not self._fits(machine):
            raise CortesRulesError("this state is a game of another rulebook")
        # The state's own engine objects: its hide clauses compare players and
        # pieces of its own load.
        viewer = machine.world.player[player]
        tensor = np.zeros(self.size, np.float32) if out is None else out
        if out is not None:
            tensor.fill(0.0)
        view = self.views(tensor)
        self._pieces(state, viewer, view)
        self._players(state, viewer, view)
        values = view["values"]
        for i, name in enumerate(self.values):
            values[i] = _number(state.values.get(name))
        view["turn"][0] = state.turn
        if state.phase in self.phases:
            view["phase"][self.phases.index(state.phase)] = 1.0
        to_act = state.current_player
        if state.is_chance_node():
            view["to_act"][len(self.players)] = 1.0
        elif to_act in self.players:
            view["to_act"][self.players.index(to_act)] = 1.0
        view["viewer"][self.players.index(player)] = 1.0
        return tensor if given is None else given

    def _flat(self, out: Any) -> Any:
        """``out`` as a flat view of its own memory, checked for ``encode``."""
        if not isinstance(out, np.ndarray):
            raise ArgumentTypeError(f"out is a numpy array of {self.size} float32 values, "
                                    f"not {type(out).__name__}")
        if out.dtype != np.float32 or out.size != self.size:
            raise ArgumentTypeError(f"out is a numpy array of {self.size} float32 values, not "
                                    f"one of {out.size} {out.dtype} values (shape {out.shape})")
        if not out.flags.c_contiguous or not out.flags.writeable:
            raise ArgumentTypeError("out must be a writeable, C-contiguous array: the tensor "
                                    "is written into its memory")
        return out.reshape(-1)   # a view: contiguous memory reshapes without a copy

    def _pieces(self, state: GameState, viewer: Any, view: dict[str, Any]) -> None:
        """The pieces part, the hidden counts and the piece attributes, as
        ``GameState.observation`` shows them to ``viewer``."""
        pieces, counts, attributes = view["pieces"], view["hidden_counts"], view["piece_attributes"]
        off, hidden = pieces.shape[1] - 2, pieces.shape[1] - 1
        machine = state.machine
        place_hides = bool(machine.place_hides)
        seen = np.ones(len(machine.world.pieces), bool)
        for piece in machine.world.pieces:
            place = state.where[piece.index]
            column = off if place is None else self._places[place.index]
            if state.hidden_from(piece, viewer):
                if place_hides and state.place_hidden_from(piece, viewer):
                    column = hidden   # the last count: in a place unknown
                counts[column] += 1.0
                pieces[piece.index, hidden] = 1.0
                seen[piece.index] = False
                continue
            pieces[piece.index, column] = 1.0
        for j, name in enumerate(self.piece_attributes):
            values = np.fromiter(map(_number, state.piece_attrs[name]), np.float32, len(seen))
            attributes[:, j] = np.where(seen, values, 0.0)

    def _players(self, state: GameState, viewer: Any, view: dict[str, Any]) -> None:
        """The players' numeric attributes, those a hide clause keeps from ``viewer`` marked."""
        values, hidden = view["player_attributes"], view["player_attributes_hidden"]
        for j, name in enumerate(self.player_attributes):
            column = state.player_attrs[name]
            for p in state.machine.world.players:
                if state.attribute_hidden_from(p, name, viewer):
                    hidden[p.index, j] = 1.0
                else:
                    values[p.index, j] = _number(column[p.index])


def layout_of(machine: Machine) -> Layout:
    """The layout of a loaded rulebook's tensors, made once and kept on its Machine."""
    layout: Layout | None = machine.__dict__.get("_tensor_layout")
    if layout is None:
        layout = machine.__dict__["_tensor_layout"] = Layout(machine)
    return layout
