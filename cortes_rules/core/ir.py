"""The core IR: what a rulebook means, once lowering has resolved everything.

``dsl.to_core`` builds one ``Game`` from a checked surface program
(``dsl.ir.Program``); the executors (a direct reference interpreter and a
register VM) run a ``Game`` and never read the surface IR. ``core.printer``
writes it out as text (``cortes-rules ir RULEBOOK``).

Every node carries ``rule``: the number of the rule clause that states it, or
a marker for what no numbered clause states: ``lib:NAME`` (a library
mechanism), ``scenario:NAME``, ``map:NAME`` (a place or edge of the map
block NAME), ``counters:NAME`` (a piece of that counter mix), ``setup:NAME``
and ``core:NAME`` (something the IR itself supplies, such as the built-in
``players`` collection). Tables cells and ``Keyed`` cells are values, not
nodes.

What lowering has already done, so that no executor does it:

- Names are resolved. Inside a procedure every variable (parameter, ``let``,
  ``for each`` variable, option parameter and binding, rolled or drawn name,
  the chooser of a sealed choice) is one numbered slot of the frame
  (``Procedure.slot_names``); a frame's slots start unbound. Globals are
  ``Global(i)`` (``Game.values[i]``); players, places, pieces, tables, dice,
  regions and pools are ``Ref``; declared symbols (classes, terrains,
  traits, property values) are ``Const`` strings.
- ``function`` definitions are expanded at each use: their parameters
  replaced by the argument expressions, the body wrapped in
  ``Op("function", (body,), key=NAME)`` with the function's rule, which
  evaluates to the body's value and is where a rule trail adds that rule.
  When the body consults clauses (a hook, ``allowed``), those read the
  function's parameters by name as the caller's variables: the node is then
  ``Op("function", (body, *arguments), key=NAME, params=NAMES)``, which
  evaluates the arguments first and lets ``Ctx`` find them while the body runs.
- ``reading X is Y`` is folded to a ``Const`` and ``when reading`` blocks
  kept or dropped; optional rules not switched on are absent.
- Maps are a graph: hexes, areas, water zones and pools are ``Place``s with
  a kind and features; ``Edge``s join neighbours (``adjacent``) and water
  zones to their shore hexes (``shore``), carrying the hexside features
  and, between hexes, the ``direction`` 0-5. No executor needs a hex id's
  column and row, except through ``Place.coords`` (cube coordinates, see
  ``Game.metric``), which ``distance`` and ``sight_lines`` read.

Scopes. A clause that is consulted from a procedure (a hook's
contribution, a forbid or permit clause) reads the variables of the frame
that consults it: such names are ``Ctx(name, default)``, looked up among the
consulting frame's variable slots by name (``Procedure.slot_names``; a
comprehension's binder, or a function's parameter, while it is bound, when
``Each.name`` or ``Op.params`` says so), else ``default`` (the global of that
name, if any). Every other clause (derived attributes, hide clauses,
start values, endings, requirements) has a frame of its own whose first
slots hold its stated context (``Derive.params``, ``Hide.params``...);
comprehension binders take further slots (``frame`` gives the size).

Expressions are one small tree: ``Const``, ``Ref``, ``Global``, ``Slot``,
``Ctx``, ``Op`` and ``Each`` (a comprehension). ``Op`` names every operator
and built-in function; ``key`` holds a static operand (an attribute name for
``attr``, a name for ``is``, a hook name for ``hook``). ``if``, ``and`` and
``or`` evaluate lazily; every other ``Op`` evaluates its arguments left to
right first.

Procedures are flat lists of ``Instr``: one opcode and fixed operands, as in
Lua 5 (``a`` and ``b`` index slots, ``target`` an instruction, ``args`` the
expressions read, ``options`` a decision's options). See ``Instr`` for the
table of opcodes. The turn sequence is a procedure too (``Game.main``).

Room left for what later games need (none is lowered today):

- reaction windows: an instruction ``window`` naming a set of players and
  a procedure each may run before the frame goes on (an ``Option`` list,
  as ``choose`` has, with a pass option), so another player acts mid-procedure;
- hidden attribute values on visible pieces: ``Attribute.visibility`` is a
  string, ``shown`` or ``rules`` today; ``owner`` (seen by the piece's side)
  and per-attribute ``Hide`` clauses (``Hide.attribute``, used for players
  today) extend it without a new node;
- procedures that return values: ``return`` takes no operand today; a
  value operand in ``args`` and a destination slot ``a`` on ``call`` give it;
- ordered piles: ``Pool.ordered`` is kept, and ``shuffle`` is an
  instruction; a pile's order is then state of the executor, read by
  ``draw`` (top) and by an ``Op`` ``top``;
- square grids: places carry ``coords`` in the ``Game.metric`` named
  (``cube`` today; ``chebyshev`` or ``manhattan`` for squares), edges carry
  ``direction`` (0-7 on squares), so nothing else changes.
"""

from __future__ import annotations

import difflib
from fractions import Fraction
from typing import Union

import attrs

from ..errors import UnknownNameError

# ----------------------------------------------------------------- values


@attrs.frozen(slots=True)
class Keyed:
    """A table cell whose value depends on a key (a player's name): ``{a: 1, b: 2}``."""

    entries: tuple[tuple[str, object], ...]


Value = Union[int, Fraction, bool, str, None, tuple, Keyed]  # type: ignore[type-arg]

# ----------------------------------------------------------------- expressions


@attrs.frozen(slots=True)
class Const:
    """A literal: a number, a truth value, a text or symbol, ``none``, or a tuple of them."""

    value: Value
    rule: str


@attrs.frozen(slots=True)
class Ref:
    """A static thing of the game: ``kind`` is ``player``, ``place``, ``piece``,
    ``table``, ``dice``, ``region`` (a named set of places), ``pool`` (a pool
    kept per player), ``procedure`` (a hook's value of type procedure) or ``all``
    (``players``, ``pieces``, ``hexes``, ``areas``, ``zones``: ``index`` into
    ``ALL``); ``name`` is for reading."""

    kind: str
    index: int
    name: str
    rule: str


ALL = ("players", "pieces", "hexes", "areas", "zones")
"""The built-in collections, by ``Ref("all", i)``: the seats (players who choose) in
turn order, every piece, every place of each kind, in place order."""


@attrs.frozen(slots=True)
class Global:
    """The current value of ``Game.values[index]``."""

    index: int
    name: str
    rule: str


@attrs.frozen(slots=True)
class Slot:
    """Slot ``index`` of the current frame."""

    index: int
    rule: str


@attrs.frozen(slots=True)
class Ctx:
    """A variable of the frame that consults this clause, found by name; when that
    frame has none, ``default`` (the global of that name), or an error."""

    name: str
    default: Expr | None
    rule: str


@attrs.frozen(slots=True)
class Op:
    """An operator or built-in: ``+ - * / mod neg == != < <= > >= in notin not and
    or if list set index attr is`` and the functions of the language (``count``,
    ``adjacent``, ``hook`` ...; the functions ``set(c)`` and ``list(c)`` are ``set_of``
    and ``list_of``, apart from the literals); ``key`` is its static operand, if any."""

    op: str
    args: tuple[Expr, ...]
    rule: str
    key: str = ""
    params: tuple[str, ...] = ()
    """Only on ``function``: the parameters, whose values ``args[1:]`` are visible by
    name (``Ctx``) to the clauses its body consults."""


@attrs.frozen(slots=True)
class Each:
    """A comprehension: for each item of ``domain`` (bound to ``Slot(slot)``) where
    ``where`` holds, ``element`` (the item when none); ``reduce`` names what is
    made of them (``count any all sum max min set list first union sorted
    distinct distribution``); ``default`` is what ``max``/``min``/``first`` give
    for no item."""

    reduce: str
    slot: int
    domain: Expr
    where: Expr | None
    element: Expr | None
    default: Expr | None
    rule: str
    name: str = ""
    """The binder's name when ``where`` or ``element`` consults clauses (a hook,
    ``allowed``): they read it by name (``Ctx``) as a variable of the frame."""


Expr = Union[Const, Ref, Global, Slot, Ctx, Op, Each]

# ----------------------------------------------------------------- the table


@attrs.frozen(slots=True)
class Player:
    """A seat (``party`` False) or a party run by the rules, in turn order."""

    name: str
    label: str
    party: bool
    rule: str


@attrs.frozen(slots=True)
class Place:
    """A node of the board graph: kind ``hex``, ``area``, ``zone`` or ``pool``.

    ``owner``: the player index of a pool kept per player; ``coords``: a hex's
    cube coordinates (empty off the grid)."""

    id: str
    label: str
    kind: str
    features: frozenset[str]
    rule: str
    owner: int = -1
    coords: tuple[int, ...] = ()


@attrs.frozen(slots=True)
class Edge:
    """Places ``a`` and ``b`` (indices, a < b) are neighbours (``adjacent``), or a
    water zone ``a`` and a hex ``b`` of its shore (``shore``), or two places that
    are no neighbours but whose border has features (``border``). ``features``: of
    the hexside or border; ``direction``: from ``a`` to ``b`` between hexes (0-5,
    the reverse is +3 mod 6), else -1."""

    a: int
    b: int
    kind: str
    features: frozenset[str]
    rule: str
    direction: int = -1


@attrs.frozen(slots=True)
class Region:
    """A named set of places (a map's ``place`` or a group of zones)."""

    name: str
    places: tuple[int, ...]
    rule: str


@attrs.frozen(slots=True)
class Pool:
    """A pool kept per player: ``places[i]`` is player ``i``'s (``pool`` refs)."""

    name: str
    places: tuple[int, ...]
    ordered: bool
    rule: str


@attrs.frozen(slots=True)
class PieceClass:
    """A class of pieces: its side (a player index, or -1) and traits."""

    name: str
    label: str
    side: int
    traits: tuple[str, ...]
    rule: str


@attrs.frozen(slots=True)
class Piece:
    """One piece: its class, side, tags (``is`` tests) and printed values
    (``props``, static columns by name: the fields the rulebook and its libraries
    declare ``printed``, a hex wargame's steps, factors and movement among them,
    each at its default where the counter line does not write it, and the
    properties the line gives)."""

    id: str
    label: str
    cls: str
    side: int
    tags: frozenset[str]
    props: tuple[tuple[str, Value], ...]
    rule: str


@attrs.frozen(slots=True)
class Attribute:
    """A column of state: one value per piece, place or player (``owner``).

    ``initial`` is evaluated per owner in a frame whose slot 0 holds it (the
    type's zero when none); ``visibility`` is ``shown`` (on the table) or
    ``rules`` (the rules' bookkeeping)."""

    owner: str
    name: str
    type: str
    initial: Expr | None
    visibility: str
    frame: int
    rule: str


@attrs.frozen(slots=True)
class GlobalValue:
    name: str
    type: str
    initial: Expr
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Table:
    """A table: columns and rows (row key, cells)."""

    name: str
    columns: tuple[Value, ...]
    rows: tuple[tuple[Value, tuple[Value, ...]], ...]
    rule: str


@attrs.frozen(slots=True)
class Dice:
    """``count`` dice of ``sides`` faces summed, or one die of named ``faces``."""

    name: str
    count: int
    sides: int
    faces: tuple[str, ...]
    rule: str


@attrs.frozen(slots=True)
class Contribution:
    """One rule's share of a hook: ``value`` when ``when`` holds (a ``Ctx`` scope)."""

    value: Expr
    when: Expr | None
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Hook:
    """A hook: its contributions in rule order."""

    name: str
    type: str
    entries: tuple[Contribution, ...]
    rule: str


@attrs.frozen(slots=True)
class Clause:
    """``forbid`` (``despite`` empty) or ``permit ... despite RULE`` of one action,
    consulted in the frame that lists or applies it (a ``Ctx`` scope)."""

    kind: str
    action: int
    when: Expr
    despite: str
    spend_all: bool
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Derive:
    """A computed attribute of a piece, place or player: slot 0 holds the owner."""

    owner: str
    name: str
    expr: Expr
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Hide:
    """While ``when`` holds, slot 0 (the piece, or for ``attribute`` the player
    whose attribute it is) is hidden from slot 1 (the viewer); ``place``: where
    the piece is, too."""

    when: Expr
    place: bool
    attribute: str
    params: tuple[str, ...]
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Param:
    name: str
    type: str
    rule: str


@attrs.frozen(slots=True)
class Action:
    """A kind of action: its parameters' types fix its text form and id range."""

    name: str
    label: str
    params: tuple[Param, ...]
    rule: str


@attrs.frozen(slots=True)
class Ending:
    """``finish when C [winner W] "reason" [report k = e]``: checked after every action."""

    when: Expr
    winner: Expr | None
    reason: tuple[Expr, ...]
    report: tuple[tuple[str, Expr], ...]
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Requirement:
    """``require`` (``at_start`` False: checked at load) or ``require at start``: the
    test for each item of ``domain`` (bound to slot 0) or once."""

    at_start: bool
    domain: Expr | None
    test: Expr
    message: tuple[Expr, ...]
    cite: Expr | None
    frame: int
    rule: str


@attrs.frozen(slots=True)
class Setup:
    """A named starting position: (piece index, place index) pairs."""

    name: str
    label: str
    placements: tuple[tuple[int, int], ...]
    rule: str


@attrs.frozen(slots=True)
class Phase:
    """A phase of the turn sequence (``opening``: played once, before the first turn)."""

    name: str
    label: str
    side: int
    procedure: int
    each_player: bool
    opening: bool
    rule: str


# ----------------------------------------------------------------- procedures


@attrs.frozen(slots=True)
class Option:
    """One kind of action a decision offers: ``action`` (index), each parameter's
    slot and domain (a later domain may read an earlier slot), the bindings
    computed per candidate, the filter, the rules a refusal by domain or filter
    cites, and where its body starts."""

    action: int
    params: tuple[tuple[int, Expr], ...]
    bindings: tuple[tuple[int, Expr], ...]
    where: Expr | None
    cite: Expr | None
    body: int
    rule: str


@attrs.frozen(slots=True)
class Instr:
    """One instruction. ``op`` and the operands it reads:

    ============  ==========================================================
    ``let``       slot ``a`` = args[0]
    ``setglobal`` global ``a`` = args[0]
    ``setattr``   args[0].``text`` = args[1]
    ``put``       move piece or pieces args[0] into place args[1] (none: off)
    ``jump``      go to ``target``
    ``jumpifnot`` go to ``target`` unless args[0] holds
    ``forinit``   slot ``a`` = the items of args[0] and position 0
    ``fornext``   next item of slot ``a`` for which args[0] (if any) holds
                  into slot ``b``; past the last, go to ``target``
    ``call``      push procedure ``a`` with args as its parameters
    ``return``    pop the frame
    ``choose``    player args[0] decides among ``options``; the chosen
                  candidate's values go to its slots, then its body runs;
                  each body ends with a jump to ``target`` (the end)
    ``sealed``    each player of args[0] in turn decides in secret (slot ``a``
                  holds who decides); slot ``b`` collects the decisions
    ``dispatch``  the decisions in slot ``b`` run one by one (slot ``a`` the
                  chooser), each body jumping back here; then go to ``target``
    ``roll``      chance: slot ``a`` = a roll of dice args[0]
    ``draw``      chance: slot ``a`` = a piece drawn at random from place args[0]
    ``shuffle``   shuffle place args[0] (an ordered pool)
    ``log``       a log line: the texts of args joined; ``cite`` and ``to``
                  in ``keys`` name which of args they are (none: all of it)
    ``finish``    the game ends: args[0] the winner (``keys[0]`` ``winner``),
                  the reason and report values after it (``keys`` say which)
    ``reveal``    pieces args[0] are shown to players args[1]
    ``fail``      the rules reached what they say cannot happen: ``text``
    ``phase``     the current phase becomes ``a`` (``Game.phases``)
    ``endturn``   the turn ends; go to ``target``
    ============  ==========================================================
    """

    op: str
    rule: str
    a: int = -1
    b: int = -1
    target: int = -1
    args: tuple[Expr, ...] = ()
    options: tuple[Option, ...] = ()
    text: str = ""
    keys: tuple[str, ...] = ()


@attrs.frozen(slots=True)
class Procedure:
    """Parameters are slots 0..len(params)-1; ``slot_names`` names every slot."""

    name: str
    params: tuple[str, ...]
    slot_names: tuple[str, ...]
    code: tuple[Instr, ...]
    rule: str

    @property
    def frame(self) -> int:
        """How many slots a frame of this procedure holds."""
        return len(self.slot_names)


# ----------------------------------------------------------------- the game


@attrs.frozen(slots=True)
class Game:
    """One rulebook, lowered: every table is indexed by the ``index`` its refs use."""

    name: str
    rule: str
    players: tuple[Player, ...]
    places: tuple[Place, ...]
    edges: tuple[Edge, ...]
    regions: tuple[Region, ...]
    pools: tuple[Pool, ...]
    metric: str
    classes: tuple[PieceClass, ...]
    pieces: tuple[Piece, ...]
    attributes: tuple[Attribute, ...]
    values: tuple[GlobalValue, ...]
    tables: tuple[Table, ...]
    dice: tuple[Dice, ...]
    hooks: tuple[Hook, ...]
    clauses: tuple[Clause, ...]
    derived: tuple[Derive, ...]
    hides: tuple[Hide, ...]
    actions: tuple[Action, ...]
    procedures: tuple[Procedure, ...]
    phases: tuple[Phase, ...]
    main: Procedure
    endings: tuple[Ending, ...]
    requirements: tuple[Requirement, ...]
    setups: tuple[Setup, ...]

    def procedure(self, name: str) -> Procedure:
        """The procedure called ``name`` (``main``'s name gives the turn sequence)."""
        if name == self.main.name:
            return self.main
        for proc in self.procedures:
            if proc.name == name:
                return proc
        close = difflib.get_close_matches(name, [p.name for p in self.procedures], n=1)
        hint = f" (did you mean {close[0]!r}?)" if close else ""
        raise UnknownNameError(f"no procedure {name!r} in this rulebook{hint}")


Node = Union[Expr, Player, Place, Edge, Region, Pool, PieceClass, Piece, Attribute,
             GlobalValue, Table, Dice, Contribution, Hook, Clause, Derive, Hide, Param, Action,
             Ending, Requirement, Setup, Phase, Option, Instr, Procedure, Game]
