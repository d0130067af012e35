"""The intermediate representation: frozen attrs classes, one per construct.

``.parse`` builds these from the text of one file (a ``Module``);
``.lower`` gathers the modules of a rulebook into one ``Program``;
``.check`` validates it; the engine executes it. Every node keeps the
``Span`` it came from, and every statement the number of
the rule clause that states it, so that any diagnostic or adjudication can
cite its rule.
"""

from __future__ import annotations

from collections.abc import Mapping
from fractions import Fraction
from typing import Any, Union

import attrs

from .diagnostics import Span

# ----------------------------------------------------------------- expressions


@attrs.frozen
class IntLit:
    value: int
    span: Span


@attrs.frozen
class BoolLit:
    value: bool
    span: Span
    reading: str | None = None
    """Set when lowering folded ``reading ID is NAME`` into this value: ``"ID is NAME"``."""


@attrs.frozen
class Name:
    """A bare name: a context variable, a define, or a declared symbol."""

    id: str
    span: Span


@attrs.frozen
class NoneLit:
    span: Span


@attrs.frozen
class StrLit:
    """A quoted string in an expression (a label, a rule number, a symbol)."""

    value: str
    span: Span


@attrs.frozen
class ListLit:
    """``[a, b]``: an ordered list (a tuple at run time)."""

    items: tuple[Expr, ...]
    span: Span


@attrs.frozen
class TupleLit:
    """``(a, b)``: a fixed-size tuple."""

    items: tuple[Expr, ...]
    span: Span


@attrs.frozen
class Cond:
    """``if C then A else B``."""

    test: Expr
    then: Expr
    otherwise: Expr
    span: Span


@attrs.frozen
class SetLit:
    items: tuple[Expr, ...]
    span: Span


@attrs.frozen
class Attr:
    """``obj.name``: a unit's, hex's or table row's attribute."""

    obj: Expr
    name: str
    span: Span


@attrs.frozen
class Index:
    """``obj[key]``: a table row by key, or a side-keyed table cell by side."""

    obj: Expr
    key: Expr
    span: Span


@attrs.frozen
class Not:
    operand: Expr
    span: Span


@attrs.frozen
class BoolOp:
    """``and`` / ``or`` of two conditions."""

    op: str
    left: Expr
    right: Expr
    span: Span

    def terms(self) -> list[Expr]:
        """The operands of a chain of the same operator, left to right, found
        without recursion (so that 500 ``or`` terms compile)."""
        found: list[Expr] = []
        stack: list[Expr] = [self]
        while stack:
            current = stack.pop()
            if isinstance(current, BoolOp) and current.op == self.op:
                stack.append(current.right)
                stack.append(current.left)
            else:
                found.append(current)
        return found


@attrs.frozen
class Compare:
    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen
class Member:
    """``item in collection`` (``negated`` for ``not in``)."""

    item: Expr
    collection: Expr
    negated: bool
    span: Span


@attrs.frozen
class Is:
    """``unit is NAME`` (class, side, trait, flag) or ``hex has NAME`` (terrain, feature)."""

    subject: Expr
    op: str
    name: str
    name_span: Span
    span: Span


@attrs.frozen
class Arith:
    """``+ - * / mod``. Division is exact (a rational); use floor/ceil to round."""

    op: str
    left: Expr
    right: Expr
    span: Span


@attrs.frozen
class Neg:
    operand: Expr
    span: Span


@attrs.frozen
class Call:
    """A built-in function.

    Either plain arguments (``adjacent(a, b)``, ``count(s)``) or a
    comprehension over ``binder in domain``: ``count(u in units where C)``,
    ``sum(u.combat for u in attackers)``.
    """

    func: str
    args: tuple[Expr, ...]
    binder: str | None
    domain: Expr | None
    element: Expr | None
    where: Expr | None
    span: Span


@attrs.frozen
class ReadingIs:
    """``reading ID is NAME``: whether the reading chosen for an interpretation
    entry is NAME. Fixed when the rulebook is loaded: lowering folds it into a
    ``BoolLit``, so the interpreter never sees it."""

    entry: str
    reading: str
    entry_span: Span
    reading_span: Span
    span: Span


Expr = Union[IntLit, BoolLit, NoneLit, StrLit, Name, SetLit, ListLit, TupleLit, Cond, Attr,
             Index, Not, BoolOp, Compare, Member, Is, Arith, Neg, Call, ReadingIs]

# ----------------------------------------------------------------- table cells


@attrs.frozen
class IntCell:
    value: int
    span: Span


@attrs.frozen
class DecimalCell:
    """A number with a decimal point, such as ``0.5``, kept as written and read
    exactly (``Fraction(1, 2)``)."""

    text: str
    span: Span

    @property
    def value(self) -> Fraction:
        return Fraction(self.text)


@attrs.frozen
class RatioCell:
    """A ratio such as ``3:1`` (a column heading of a table, say)."""

    left: int
    right: int
    span: Span


@attrs.frozen
class ResultCell:
    """A combat result such as ``1/2``: attacker's then defender's loss."""

    left: int
    right: int
    span: Span


@attrs.frozen
class NameCell:
    name: str
    span: Span


@attrs.frozen
class KeyedCell:
    """A cell whose value depends on a key, e.g. ``{aztec: 1, spanish: 2}``."""

    entries: tuple[tuple[str, Cell], ...]
    span: Span


Cell = Union[IntCell, DecimalCell, RatioCell, ResultCell, NameCell, KeyedCell]

# ----------------------------------------------------------------- statements


@attrs.frozen
class SideDecl:
    name: str
    label: str
    rule: str
    span: Span


@attrs.frozen
class FlagDecl:
    name: str
    label: str
    rule: str
    span: Span


@attrs.frozen
class PropertyDecl:
    name: str
    label: str
    values: tuple[str, ...]
    rule: str
    span: Span


@attrs.frozen
class ClassDecl:
    name: str
    label: str
    side: str | None
    traits: tuple[str, ...]
    rule: str
    span: Span


@attrs.frozen
class TerrainDecl:
    name: str
    label: str
    kind: str
    rule: str
    span: Span


@attrs.frozen
class HexsideDecl:
    name: str
    label: str
    rule: str
    span: Span


@attrs.frozen
class TableRow:
    key: Cell
    cells: tuple[Cell, ...]
    span: Span


@attrs.frozen
class TableDecl:
    name: str
    label: str
    columns: tuple[Cell, ...]
    rows: tuple[TableRow, ...]
    rule: str
    span: Span


@attrs.frozen
class DiceDecl:
    """``dice NAME = NdS``: N dice of S faces, summed."""

    name: str
    count: int
    faces: int
    rule: str
    span: Span


@attrs.frozen
class Forbid:
    action: str
    when: Expr
    rule: str
    span: Span


@attrs.frozen
class Permit:
    """Lifts one forbid clause (``despite``) when ``when`` holds."""

    action: str
    despite: str
    when: Expr
    spend_all: bool
    rule: str
    span: Span


@attrs.frozen
class Phase:
    """One phase of the turn sequence.

    ``side`` is the player whose phase it is; with ``for_each_player`` the
    phase is played once by every player in turn order (``side`` is then "").
    ``activity`` names what the phase does: a procedure of the core, called
    with the phasing player.
    """

    name: str
    label: str
    side: str
    activity: str | None
    span: Span
    for_each_player: bool = False


@attrs.frozen
class Sequence:
    """The turn sequence, or (``opening``) phases played once before the first turn."""

    name: str
    phases: tuple[Phase, ...]
    rule: str
    span: Span
    opening: bool = False


# ----------------------------------------------------------------- the core
# Declarations and procedures of the general layer (players, places,
# pieces, values, procedures, visibility). Each carries its rule number, or
# the name of the mechanism block it sits in ("lib:NAME").


@attrs.frozen
class PlayerDecl:
    """``player NAME "Label"`` or ``party NAME "Label"`` (run by the rules)."""

    name: str
    label: str
    party: bool
    rule: str
    span: Span


@attrs.frozen
class PoolDecl:
    """An off-board place; ``per_player`` makes one per player (``hand.north``)."""

    name: str
    label: str
    per_player: bool
    ordered: bool
    rule: str
    span: Span


@attrs.frozen
class TypeRef:
    """A value type: ``int``, ``bool``, ``piece``, ``list of piece``..."""

    name: str
    of: str | None
    span: Span


@attrs.frozen
class AttributeDecl:
    """A mutable attribute of every piece, place or player, with its start value.

    ``shown``: the piece shows it on the table (``attribute piece steps: int =
    piece.max_steps "..." shown``); the other attributes are the rules'
    bookkeeping. ``GameState.observation`` reports the two apart.
    """

    owner: str
    name: str
    type: TypeRef
    initial: Expr | None
    label: str | None
    rule: str
    span: Span
    shown: bool = False


@attrs.frozen
class StartRequireDecl:
    """``require at start [for each v in D] that C "message" [cite E]``.

    A condition on a game's starting position: a game whose pieces start
    where it fails is refused, and so is a rulebook with a named set-up that
    breaks it. With ``for each``, the condition, the message's ``{fields}``
    and the cited rules are worked out for each ``v`` in ``D``.
    """

    var: str | None
    domain: Expr | None
    test: Expr
    message: str
    cite: Expr | None
    rule: str
    span: Span


@attrs.frozen
class RequireDecl:
    """``require C "message"``: the rulebook is refused at load unless C holds."""

    test: Expr
    message: str
    rule: str
    span: Span


@attrs.frozen
class DeriveDecl:
    """A computed attribute of pieces, places or players (``derive piece hex = piece.place``)."""

    owner: str
    name: str
    expr: Expr
    rule: str
    span: Span


@attrs.frozen
class PrintedDecl:
    """``printed NAME: TYPE [= DEFAULT] "label" [written WORD] [at most N] [one per F]
    [drawn as ...]``: a value every piece prints on its counter, fixed for the game.

    A counter line writes it as ``WORD VALUE`` (``steps 4``; ``combat 7, 5, 4, 2``
    for a list); a piece whose line does not is given ``default``, or the type's
    zero. ``at_most`` bounds each number written, ``one_per`` names the printed
    number a list has one entry per (a list may also be empty), and ``drawn``
    says how the picture of a position draws it: ``dots`` (one per point, those
    the piece attribute ``filled_by`` counts filled) or ``value`` (among the
    values along the counter's foot). Nothing but such declarations gives a
    counter line its fields: a library states what its genre prints
    (``rulebook/lib/hex_wargame.rules``).
    """

    name: str
    type: TypeRef
    default: Expr | None
    label: str
    written: str | None
    at_most: int | None
    one_per: str | None
    drawn: str | None
    filled_by: str | None
    rule: str
    span: Span

    @property
    def word(self) -> str:
        """The word a counter line writes it with."""
        return self.written or self.name


@attrs.frozen
class ValueDecl:
    """A global game variable with its start value."""

    name: str
    type: TypeRef
    initial: Expr
    label: str | None
    rule: str
    span: Span


@attrs.frozen
class HookDecl:
    """An extension point that rule clauses contribute values to."""

    name: str
    type: TypeRef
    label: str
    rule: str
    span: Span


@attrs.frozen
class Contribute:
    """``contribute HOOK = VALUE [when C]``: one rule's share of a hook."""

    hook: str
    value: Expr
    when: Expr | None
    rule: str
    span: Span


@attrs.frozen
class FunctionDecl:
    """``function f(a, b) = expr``: a definition expanded where it is used."""

    name: str
    params: tuple[str, ...]
    body: Expr
    rule: str
    span: Span


@attrs.frozen
class ActionParam:
    name: str
    type: str
    span: Span


@attrs.frozen
class ActionDecl:
    """A kind of action: its text form is ``NAME ARG...`` and fixes its id range."""

    name: str
    params: tuple[ActionParam, ...]
    label: str
    rule: str
    span: Span


@attrs.frozen
class HideDecl:
    """``hide piece when C``: ``piece`` is hidden from ``viewer`` while C holds;
    ``hide piece and place when C`` hides where it is too;
    ``hide player NAME when C`` hides the player attribute ``NAME`` of
    ``player`` from ``viewer`` (``attribute`` holds the name)."""

    when: Expr
    rule: str
    span: Span
    place: bool = False
    attribute: str = ""


@attrs.frozen
class FaceDieDecl:
    """A die with named faces (a name repeated counts once per face)."""

    name: str
    faces: tuple[str, ...]
    rule: str
    span: Span


# Procedure statements ----------------------------------------------------


@attrs.frozen
class Let:
    name: str
    value: Expr
    span: Span


@attrs.frozen
class SetStmt:
    """``set TARGET = VALUE``: TARGET is a variable or ``thing.attribute``."""

    target: Expr
    value: Expr
    span: Span


@attrs.frozen
class Put:
    """``put PIECES into PLACE``: move one piece or a collection of pieces."""

    pieces: Expr
    place: Expr
    span: Span


@attrs.frozen
class If:
    test: Expr
    then: tuple[Stmt, ...]
    otherwise: tuple[Stmt, ...]
    span: Span


@attrs.frozen
class ForEach:
    name: str
    domain: Expr
    where: Expr | None
    body: tuple[Stmt, ...]
    span: Span


@attrs.frozen
class While:
    test: Expr
    body: tuple[Stmt, ...]
    span: Span


@attrs.frozen
class Loop:
    body: tuple[Stmt, ...]
    span: Span


@attrs.frozen
class Break:
    span: Span


@attrs.frozen
class Continue:
    span: Span


@attrs.frozen
class Return:
    span: Span


@attrs.frozen
class CallStmt:
    name: str
    args: tuple[Expr, ...]
    span: Span


@attrs.frozen
class CallEach:
    """``call each HOOK(args)``: every procedure contributed to a hook of type
    ``procedure`` (``contribute HOOK = NAME [when C]``), in rule order, each
    whose condition holds, with the same arguments."""

    hook: str
    args: tuple[Expr, ...]
    span: Span


@attrs.frozen
class OptionParam:
    name: str
    domain: Expr
    span: Span


@attrs.frozen
class Option:
    """One kind of action a choice offers: its parameters range over domains.

    ``bindings`` (``with x = ...``) are computed for each candidate and are
    visible to the forbid clauses of the action kind and to the body;
    ``where`` filters candidates. ``cite`` (a list of rule numbers, such as
    ``rules(hook)``) names the rules a refusal by the domains or by
    ``where`` cites; without it such a refusal cites no rule.
    """

    kind: str
    params: tuple[OptionParam, ...]
    bindings: tuple[tuple[str, Expr], ...]
    where: Expr | None
    body: tuple[Stmt, ...]
    span: Span
    cite: Expr | None = None


@attrs.frozen
class Choose:
    """A decision by one player: the legal actions are the options' candidates."""

    player: Expr
    options: tuple[Option, ...]
    span: Span


@attrs.frozen
class ChooseSealed:
    """Every player of a set chooses in secret; the choices are revealed together."""

    name: str
    players: Expr
    options: tuple[Option, ...]
    span: Span


@attrs.frozen
class Roll:
    """A chance node: roll dice (or a named-face die) and bind the result."""

    name: str
    dice: Expr
    span: Span


@attrs.frozen
class Draw:
    """A chance node: a piece drawn at random from a place."""

    name: str
    source: Expr
    span: Span


@attrs.frozen
class Shuffle:
    """Shuffle an ordered place (a chance event; draws are random anyway)."""

    place: Expr
    span: Span


@attrs.frozen
class Log:
    """A log line: ``{expr}`` in the text is replaced by the value."""

    text: str
    cite: Expr | None
    to: Expr | None
    span: Span


@attrs.frozen
class Finish:
    """The game ends, with its winner (a player, a set of players, or none).

    ``report`` names values the outcome carries (``Outcome.details``): a
    level of victory, points by cause.
    """

    winner: Expr | None
    reason: str
    span: Span
    report: tuple[tuple[str, Expr], ...] = ()


@attrs.frozen
class FinishDecl:
    """``finish when C [winner W] "reason" [report k = e, ...]``: a game end
    checked after every action, before the next decision is offered."""

    when: Expr
    winner: Expr | None
    reason: str
    report: tuple[tuple[str, Expr], ...]
    rule: str
    span: Span


@attrs.frozen
class Reveal:
    pieces: Expr
    to: Expr
    span: Span


@attrs.frozen
class Fail:
    """A state the rules say cannot happen: an error naming the clause."""

    message: str
    span: Span


Stmt = Union[Let, SetStmt, Put, If, ForEach, While, Loop, Break, Continue, Return, CallStmt,
             CallEach,
             Choose, ChooseSealed, Roll, Draw, Shuffle, Log, Finish, Reveal, Fail]


@attrs.frozen
class Procedure:
    """A named procedure: parameters and a body of statements."""

    name: str
    params: tuple[str, ...]
    body: tuple[Stmt, ...]
    rule: str
    span: Span


@attrs.frozen
class FormDecl:
    """``form NAME "pattern" { statements }``: new syntax lowered onto other statements."""

    name: str
    pattern: str
    body: tuple[Any, ...]
    rule: str
    span: Span


@attrs.frozen
class FormUse:
    """A statement written in a form's syntax, before expansion (see ``.forms``)."""

    form: str
    values: tuple[Any, ...]
    rule: str
    span: Span


@attrs.frozen
class WhenReading:
    """``when reading ID is NAME { ... }``: statements (or map lines) that hold
    only when that reading of the entry is chosen. Lowering keeps or drops them."""

    entry: str
    reading: str
    body: tuple[Any, ...]
    entry_span: Span
    reading_span: Span
    rule: str
    span: Span


@attrs.frozen
class CiteInterpretation:
    """``interpretation ID, ...`` in a clause: the registry's entries that the
    clause follows (the checker refuses an id the registry does not hold)."""

    entries: tuple[str, ...]
    entry_spans: tuple[Span, ...]
    rule: str
    span: Span


Statement = Union[SideDecl, FlagDecl, PropertyDecl, ClassDecl, TerrainDecl, HexsideDecl,
                  TableDecl, DiceDecl, Forbid, Permit, Sequence, PlayerDecl, PoolDecl,
                  AttributeDecl, PrintedDecl, ValueDecl, HookDecl, Contribute, FunctionDecl,
                  ActionDecl, HideDecl, FaceDieDecl, Procedure, FormDecl, FormUse, DeriveDecl,
                  RequireDecl, StartRequireDecl, FinishDecl, WhenReading, CiteInterpretation]


@attrs.frozen
class Rule:
    """One numbered rule clause: ``rule 8.14 "Major fortress" { ... }``."""

    number: str
    title: str
    optional: bool
    summary: str | None
    statements: tuple[Statement, ...]
    span: Span
    mechanism: bool = False
    """A ``mechanism`` block of a library: ``number`` is then its name."""
    readings: tuple[str, ...] = ()
    """The interpretation entries whose chosen reading this clause depends on
    (filled in by lowering)."""
    has_readings: bool = False
    """Whether the clause holds ``reading ID is NAME`` or ``when reading``
    anywhere (set by the parser, so that lowering walks only such clauses)."""
    kind: str = "rule"
    """``"definition"`` or ``"commentary"`` when the clause says it states no rule of play."""

    def __repr__(self) -> str:
        """The number, title and where the clause is written (not its statements)."""
        flag = " optional" if self.optional else ""
        count = len(self.statements)
        return (f"<Rule {self.number} {self.title!r}{flag}, {count} "
                f"statement{'' if count == 1 else 's'}, {self.span.path}:{self.span.line}>")


@attrs.frozen
class ScenarioBlock:
    """``scenario I "..." { map board_a  options all  ... }``: a starting situation,
    chosen at load; ``clause`` holds its statements (numbered ``scenario:NAME``)."""

    name: str
    title: str
    map: str | None
    """The map block it is played on (none: the rulebook's only map)."""
    options: tuple[str, ...]
    """Optional rules it switches on: rule numbers, or ``("all",)``."""
    clause: Rule
    span: Span


# ----------------------------------------------------------------- data blocks


@attrs.frozen
class HexTerrain:
    hexes: tuple[str, ...]
    terrain: tuple[str, ...]
    span: Span


@attrs.frozen
class HexBlock:
    first: str
    last: str
    terrain: tuple[str, ...]
    span: Span


@attrs.frozen
class HexsideFeature:
    a: str
    b: str
    features: tuple[str, ...]
    span: Span


@attrs.frozen
class ZoneDecl:
    number: int
    label: str
    span: Span


@attrs.frozen
class ZoneBorders:
    number: int
    hexes: tuple[str, ...]
    span: Span


@attrs.frozen
class ZoneTouches:
    number: int
    others: tuple[int, ...]
    span: Span


@attrs.frozen
class PlaceItem:
    """One item of a place's hex list.

    ``kind`` is ``hex`` (``args`` holds the id), ``range`` (two corner ids:
    the map's hexes in that rectangle), ``place`` (an earlier place's name),
    ``all`` (every hex of the map), ``terrain`` (the hexes with that terrain)
    or ``shore`` (the hexes a lake zone borders: of zone ``args[0]``, or of
    any zone when ``args`` is empty).
    """

    kind: str
    args: tuple[str, ...]


@attrs.frozen
class PlaceDecl:
    """``place NAME "Label" at ITEMS [except ITEMS]``: a named group of hexes."""

    name: str
    label: str
    items: tuple[PlaceItem, ...]
    span: Span
    excluded: tuple[PlaceItem, ...] = ()

    @property
    def hexes(self) -> tuple[str, ...]:
        """The hex ids the statement names one by one (included or excluded)."""
        return tuple(i.args[0] for i in (*self.items, *self.excluded) if i.kind == "hex")


@attrs.frozen
class ZoneGroup:
    """``zones NAME "Label" at N ...``: a named group of lake zones."""

    name: str
    label: str
    zones: tuple[int, ...]
    span: Span


@attrs.frozen
class Grid:
    low_columns: str
    span: Span


@attrs.frozen
class AreaDecl:
    """A named area of a board (a territory, a square, a box) with its features."""

    name: str
    label: str
    features: tuple[str, ...]
    span: Span


@attrs.frozen
class AreaAdjacent:
    """``adjacent A: B, C``: A touches each of B and C (both ways)."""

    name: str
    others: tuple[str, ...]
    span: Span


@attrs.frozen
class AreaBorder:
    """``border A B: features``: features of the border between two areas."""

    a: str
    b: str
    features: tuple[str, ...]
    span: Span


MapStatement = Union[HexTerrain, HexBlock, HexsideFeature, ZoneDecl, ZoneBorders, ZoneTouches,
                     PlaceDecl, ZoneGroup, Grid, AreaDecl, AreaAdjacent, AreaBorder, WhenReading]


@attrs.frozen
class MapBlock:
    name: str
    label: str
    notes: tuple[str, ...]
    statements: tuple[MapStatement, ...]
    span: Span


@attrs.frozen
class CounterField:
    """One field of a counter line as written: ``steps 4``, ``combat 7, 5, 4, 2``,
    ``tribe Te``, ``side b``. Which field the word names, and whether its values
    fit, is the checker's to say (``dsl.printed``)."""

    word: str
    values: tuple[int | str, ...]
    span: Span
    """The word's place on the line."""
    value_spans: tuple[Span, ...]


@attrs.frozen
class CounterDecl:
    """``counter ID "Label" CLASS FIELDS...``: one piece of the counter mix."""

    id: str
    label: str
    cls: str
    flags: tuple[str, ...]
    fields: tuple[CounterField, ...]
    span: Span

    def given(self, word: str) -> tuple[int | str, ...] | None:
        """The values the line writes after ``word``, or None when it does not write it."""
        return next((f.values for f in self.fields if f.word == word), None)


@attrs.frozen
class CountersBlock:
    name: str
    label: str
    notes: tuple[str, ...]
    counters: tuple[CounterDecl, ...]
    span: Span


@attrs.frozen
class Placement:
    units: tuple[str, ...]
    hex: str
    span: Span


@attrs.frozen
class SetupBlock:
    name: str
    label: str
    notes: tuple[str, ...]
    placements: tuple[Placement, ...]
    span: Span


@attrs.frozen
class Preset:
    """``preset veteran "..." options all``: optional rules switched on together."""

    name: str
    label: str
    rules: tuple[str, ...]
    """The optional rules it switches on (empty with ``all``)."""
    all: bool
    """``options all``: every optional rule of the rulebook."""
    span: Span


@attrs.frozen
class GameBlock:
    name: str
    label: str
    sources: tuple[str, ...]
    notes: tuple[str, ...]
    span: Span
    uses: tuple[str, ...] = ()
    """Libraries of mechanisms (``rulebook/lib/NAME.rules``) loaded before the rules."""
    presets: tuple[Preset, ...] = ()
    """Named sets of optional rules (``load(..., options=["veteran"])``)."""


@attrs.frozen
class Reading:
    """One reading of an interpretation entry."""

    name: str
    text: str
    default: bool
    span: Span


@attrs.frozen
class Interpretation:
    """An entry of the interpretations registry: a defect of the printed text
    (``interpretation ID "title" { rules ... says ... reading ... because ... }``).

    Attributes:
        id: the entry's name, used by ``reading ID is NAME`` and by
            ``load(..., readings={ID: NAME})``.
        rules: the numbers of the rules it concerns.
        kind: what is wrong with the text (contradiction, gap, ...).
        says: what the text says, in our words.
        readings: the ways it can be read, the default marked.
        because: why the default.
    """

    id: str
    title: str
    rules: tuple[str, ...]
    kind: str | None
    says: str | None
    readings: tuple[Reading, ...]
    because: str | None
    span: Span

    @property
    def default(self) -> str | None:
        """The default reading: the one marked ``default``, or the only one."""
        marked = [r.name for r in self.readings if r.default]
        if marked:
            return marked[0]
        return self.readings[0].name if len(self.readings) == 1 else None

    def reading(self, name: str) -> Reading | None:
        return next((r for r in self.readings if r.name == name), None)


Item = Union[Rule, MapBlock, CountersBlock, SetupBlock, GameBlock, Interpretation,
             ScenarioBlock]


@attrs.frozen
class Module:
    """The IR of one rules file."""

    path: str
    text: str
    items: tuple[Item, ...]


# ----------------------------------------------------------------- the program


@attrs.frozen
class MapData:
    """A lowered map: hex ids to terrain names, hexsides to features, zones, places."""

    name: str
    label: str
    notes: tuple[str, ...]
    odd_columns_low: bool
    hexes: Mapping[str, frozenset[str]]
    hexsides: Mapping[frozenset[str], frozenset[str]]
    zones: Mapping[int, str]
    zone_borders: Mapping[int, frozenset[str]]
    zone_touches: Mapping[int, frozenset[int]]
    places: Mapping[str, tuple[str, tuple[str, ...]]]
    """Place name -> (label, its hex ids in map order), in declaration order."""
    block: MapBlock
    areas: Mapping[str, tuple[str, frozenset[str]]] = attrs.Factory(dict)
    """Area name -> (label, features), in declaration order."""
    area_links: Mapping[str, frozenset[str]] = attrs.Factory(dict)
    area_borders: Mapping[frozenset[str], frozenset[str]] = attrs.Factory(dict)
    zone_groups: Mapping[str, tuple[str, tuple[int, ...]]] = attrs.Factory(dict)
    """Zone group name -> (label, its zone numbers), in declaration order."""

    def shore(self, zone: int | None = None) -> frozenset[str]:
        """The hexes on the shore of one lake zone, or of any zone."""
        if zone is not None:
            return self.zone_borders.get(zone, frozenset())
        return frozenset().union(*self.zone_borders.values())

    def place_hexes(self, name: str) -> frozenset[str]:
        """The hexes of a named place (empty if there is no such place)."""
        return frozenset(self.places[name][1]) if name in self.places else frozenset()


@attrs.frozen
class Program:
    """Every module of a rulebook, gathered and indexed (the output of lowering).

    Attributes:
        modules: the parsed files, in load order.
        rules: rule clauses by number (only those switched on).
        options: the numbers of the optional rules switched on.
        statements: every statement of the enabled rules, in load order.
    """

    modules: tuple[Module, ...]
    game: GameBlock | None
    rules: Mapping[str, Rule]
    all_rules: tuple[Rule, ...]
    options: frozenset[str]
    statements: tuple[Statement, ...]
    map: MapData | None
    counters: CountersBlock | None
    setups: Mapping[str, SetupBlock]
    interpretations: Mapping[str, Interpretation] = attrs.Factory(dict)
    """The interpretations registry: entry id -> entry, in load order."""
    readings: Mapping[str, str] = attrs.Factory(dict)
    """The reading chosen for each entry that has a default or was chosen at load."""
    scenarios: tuple[tuple[str, str], ...] = ()
    """The rulebook's scenarios, (name, title), in load order."""
    scenario: str | None = None
    """The scenario chosen at load (none when the rulebook has none)."""

    def of(self, kind: type) -> list:  # type: ignore[type-arg]
        """Every statement of one kind, in load order."""
        return [s for s in self.statements if isinstance(s, kind)]
