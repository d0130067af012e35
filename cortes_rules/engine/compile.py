"""Expressions of the core compiled once into Python closures.

Every expression becomes a function ``f(s, env)`` of the machine state ``s``
and a dict ``env`` of the variables in scope. Names are looked up in
``env`` first (procedure variables, option parameters and bindings: the
scope is dynamic, so a rule clause sees the variables of the procedure that
consults it), then among the game's declarations: values, hooks, tables,
dice, pools, players and symbols. Functions declared with ``function`` are
expanded at the call site.

The compiler is generic: it knows values (ints, exact rationals, symbols,
pieces, places, players, tuples, sets) and the graph of places, nothing of
any game.
"""

from __future__ import annotations

import itertools
import math
import re
from collections.abc import Callable, Iterable
from fractions import Fraction
from operator import attrgetter
from typing import TYPE_CHECKING, Any

# ``+`` and ``/`` as the core IR's reference interpreter states them.
from ..core.run.values import add as add_values
from ..core.run.values import divide as divide_values
from ..core.world import Dice, Piece, Place, Player, Row, Table, World
from ..dsl import ir
from ..errors import CortesRulesError
from ..rule_numbers import rule_key
from . import rng

if TYPE_CHECKING:
    from .machine import GameState as State

Fn = Callable[["State", dict[str, Any]], Any]
_MISSING = object()


class RulesRuntimeError(CortesRulesError):
    """A rule clause cannot be evaluated in this state (names the clause's place)."""

    def __init__(self, message: str, span: Any = None, rule: str | None = None) -> None:
        where = f"{span.path}:{span.line}:{span.column}: " if span is not None else ""
        cite = f" [rule {rule}]" if rule else ""
        super().__init__(f"{where}{message}{cite}")
        self.span = span
        self.rule = rule


class HookRef:
    """A hook named in an expression: its contributions, read in the current scope."""

    __slots__ = ("name", "entries")

    def __init__(self, name: str, entries: tuple[tuple[Fn, Fn | None, str], ...]) -> None:
        self.name, self.entries = name, entries

    def applying(self, s: State, env: dict[str, Any]) -> list[tuple[Any, str]]:
        """``(value, rule)`` of every contribution whose condition holds, in load order.

        While a rule trail is being kept (``with_rules``), an applied
        contribution adds its rule and what its evaluation drew on; what a
        condition that failed drew on is forgotten.
        """
        out = []
        trail = s.drawn
        for value, when, rule in self.entries:
            if when is not None:
                before = set(trail) if trail is not None else None
                if not when(s, env):
                    if trail is not None and before is not None:
                        trail.intersection_update(before)
                    continue
            out.append((value(s, env), rule))
            if trail is not None:
                trail.add(rule)
        return out


def builtin_functions(world: World) -> dict[str, Callable[..., Any]]:
    """The built-in functions of plain arguments (``count(c)``, ``hexside(a, b)``...)."""
    return {
        "count": lambda c: len(c),
        "len": lambda c: len(c),
        "any": lambda c: any(c),
        "all": lambda c: all(c),
        "sum": lambda c: _absorb(sum, c),
        "max": lambda *c: _absorb(max, c[0] if len(c) == 1 else c),
        "min": lambda *c: _absorb(min, c[0] if len(c) == 1 else c),
        "distinct": lambda c: frozenset(c),
        "floor": lambda x: math.floor(x),
        "ceil": lambda x: math.ceil(x),
        "abs": lambda x: abs(x),
        "first": lambda c, *d: next(iter(_as_iterable(c) if isinstance(c, frozenset) else c),
                                    d[0] if d else None),
        "sorted": lambda c: tuple(in_order(c)),
        "set": lambda c: frozenset(c),
        "list": lambda c: tuple(_as_iterable(c)) if isinstance(c, frozenset) else tuple(c),
        "adjacent": lambda a, b: world.adjacent(a, b),
        "distance": lambda a, b: world.distance(a, b),
        "sight_lines": lambda a, b: world.sight_lines(a, b),
        "neighbours": lambda p: p.neighbours,
        "zone": lambda n: world.zone(n),
        "hexside": lambda a, b: world.hexside(a, b),
        "str": lambda x: format_value(x),
        "join": join_values,
        "rest": lambda c: tuple(c)[1:],
        "subsets": lambda c, k: tuple(itertools.combinations(tuple(c), k)),
        "union": lambda c: frozenset(itertools.chain.from_iterable(c)),
        "is_number": lambda x: isinstance(x, (int, Fraction)) and not isinstance(x, bool),
        "direction": lambda a, b: world.direction(a, b),
        "columns": lambda t: _table(t, "columns").columns,
        "table_rule": lambda t: _table(t, "table_rule").rule,
        "cell": table_cell,
    }


class EvaluationError(ValueError):
    """A value that an expression cannot use, said in the rules language's words
    (the ``RulesRuntimeError`` that reports it adds where, and which rule)."""


def _table(value: Any, function: str) -> Table:
    if not isinstance(value, Table):
        raise EvaluationError(f"{function}(...) takes a table, not {describe(value)}")
    return value


def table_cell(table: Any, row: Any, column: Any) -> Any:
    """``cell(t, r, c)``: the cell of a table's row ``r`` in column ``c``."""
    cells = index_value(_table(table, "cell"), row).cells
    try:
        return cells[table.columns.index(column)]
    except ValueError:
        raise EvaluationError(f"table {table.name} has no column {format_value(column)} "
                              f"(columns: {_listed(table.columns)})") from None


def describe(value: Any) -> str:
    """A value for a message: what it is, and which one when that is short."""
    if value is None:
        return "none"
    for kind, word in _KINDS:
        if isinstance(value, kind):
            text = format_value(value)
            return f"{word} {text}" if len(text) <= 40 else word
    return format_value(value)


def _listed(items: Iterable[Any], most: int = 12) -> str:
    shown = [format_value(i) for i in items]
    return ", ".join(shown[:most]) + (", ..." if len(shown) > most else "")


def plain_error(error: BaseException) -> str:
    """A Python error met while evaluating, said without Python's words: its
    types as the language names them (``'NoneType' object`` is none)."""
    if isinstance(error, KeyError) and error.args and not isinstance(error.args[0], str):
        return f"no entry for {describe(error.args[0])}"
    text = str(error.args[0]) if isinstance(error, KeyError) and error.args else str(error)
    if isinstance(error, IndexError):
        return "an item past the end of a list"
    text = re.sub(r"'(\w+)' object", lambda m: _PYTHON_TYPES.get(m[1], m[0]), text)
    text = re.sub(r"'(NoneType|int|str|tuple|frozenset|bool|Fraction|Piece|Place|Player"
                  r"|Table|Row|dict)'", lambda m: _PYTHON_TYPES[m[1]], text)
    text = text.replace("unsupported operand type(s) for", "cannot apply")
    return text.replace("is not subscriptable", "cannot be indexed").replace(
        "is not iterable", "is not a collection")


_KINDS: tuple[tuple[type, str], ...] = (
    (bool, "the truth value"), (int, "the number"), (Fraction, "the number"),
    (str, "the text"), (Piece, "the piece"), (Place, "the place"), (Player, "the player"),
    (Table, "the table"), (Row, "a row of a table"), (tuple, "the list"),
    (frozenset, "the set"))
_PYTHON_TYPES = {"NoneType": "none", "int": "a number", "str": "a text",
                 "NamedText": "a text", "tuple": "a list", "frozenset": "a set",
                 "bool": "a truth value", "Fraction": "a number", "Piece": "a piece",
                 "Place": "a place", "Player": "a player", "Table": "a table",
                 "Row": "a row of a table", "dict": "a cell keyed by player"}


def index_value(target: Any, k: Any) -> Any:
    """``target[k]``: a table's row, a keyed cell's entry (by player name), an item.

    Raises:
        EvaluationError: no such row, entry or item, or nothing to index, said so.
    """
    try:
        if isinstance(target, Table):
            return Row(target, target.rows[k])
        if isinstance(target, dict):
            if isinstance(k, Player) and k not in target:
                k = k.name
            return target[k.name if isinstance(k, Player) and k.name in target else k]
        return target[k]
    except (KeyError, IndexError, TypeError):
        pass
    if isinstance(target, Table):
        raise EvaluationError(f"table {target.name} has no row {describe(k)} (rows: "
                              f"{_listed(target.rows)})") from None
    if isinstance(target, dict):
        raise EvaluationError(f"this cell has no entry for {describe(k)} (entries: "
                              f"{_listed(target)})") from None
    if isinstance(target, (tuple, list, str)) and isinstance(k, int):
        raise EvaluationError(f"item {k} of {describe(target)}: it has {len(target)} "
                              f"item(s), numbered from 0") from None
    raise EvaluationError(f"{describe(target)} cannot be indexed by {describe(k)}") from None


def is_test(value: Any, name: str) -> bool:
    """``value is name`` / ``value has name``: a tag, a feature, a member, a player."""
    if isinstance(value, Piece):
        return name in value.tags
    if isinstance(value, Place):
        return name in value.features
    if isinstance(value, (frozenset, set, tuple)):
        return bool(name in value)
    if isinstance(value, Player):
        return value.name == name
    return bool(value == name)


class NamedText(str):
    """Text made from pieces (by ``join``) that remembers them.

    A log line that shows such a text names those pieces as surely as if it
    showed them one by one, so the core's visibility filter must see them:
    ``pieces`` keeps them, and joining texts with ``+`` keeps them all.
    """

    __slots__ = ("pieces",)
    pieces: tuple[Any, ...]

    def __new__(cls, text: str, pieces: tuple[Any, ...]) -> NamedText:
        self = super().__new__(cls, text)
        self.pieces = pieces
        return self

    def __add__(self, other: Any) -> NamedText:
        return NamedText(str.__add__(self, other), self.pieces + _pieces_in(other))

    def __radd__(self, other: Any) -> NamedText:
        return NamedText(str.__add__(other, self), _pieces_in(other) + self.pieces)

    def __reduce__(self) -> tuple[Any, ...]:
        return (NamedText, (str(self), self.pieces))


def _pieces_in(value: Any) -> tuple[Any, ...]:
    return value.pieces if isinstance(value, NamedText) else ()


def join_values(c: Any, sep: str) -> str:
    """``join(c, sep)``: the items' texts between ``sep``; pieces among them stay known."""
    items = tuple(_as_iterable(c)) if isinstance(c, frozenset) else tuple(c)
    text = sep.join(format_value(x) for x in items)
    pieces = tuple(x for x in items if isinstance(x, Piece))
    pieces += tuple(p for x in items for p in _pieces_in(x))
    return NamedText(text, pieces) if pieces else text


def _truth(value: Any) -> bool:
    return bool(value)


def _weighted(value: Any) -> list[tuple[Any, Fraction]]:
    """Outcomes with their exact probabilities: of dice, or equally likely items."""
    if isinstance(value, Dice):
        return dice_outcomes(value)
    items = list(_as_iterable(value))
    return [(x, Fraction(1, len(items))) for x in items]


def dice_outcomes(dice: Dice) -> list[tuple[Any, Fraction]]:
    """Every result of rolling dice (a total, or a named face) with its exact chance."""
    if dice.faces is not None:
        counts: dict[str, int] = {}
        for face in dice.faces:
            counts[face] = counts.get(face, 0) + 1
        return [(f, Fraction(n, len(dice.faces))) for f, n in counts.items()]
    return list(rng.dice_distribution(dice.count, dice.sides))


_SEQUENCES = (tuple, list)
_SETS = (frozenset, set)
_ENTITIES = (Piece, Place, Player)
_RATIONALS = (int, Fraction)


_ORDERED: dict[int, tuple[frozenset[Any], tuple[Any, ...]]] = {}
"""Frozensets put in the canonical order, by identity (``remembered``)."""
IDENTITY_LIMIT = 4096
"""The most entries a cache by identity keeps (``remembered``)."""


def remembered(cache: dict[int, tuple[Any, Any]], value: Any, result: Any) -> Any:
    """Keep ``result`` for ``value`` in a cache by identity and return it.

    The cache is keyed by ``id(value)`` and keeps the value itself beside the
    result, so the id is not reused while the entry stands; a reader checks
    ``entry[0] is value``. (By equality, ``frozenset({1})`` would be taken for
    ``frozenset({True})``.) A full cache is emptied first.
    """
    if len(cache) >= IDENTITY_LIMIT:
        cache.clear()
    cache[id(value)] = (value, result)
    return result


def _as_iterable(value: Any) -> Iterable[Any]:
    """The items of a collection in the order the rules visit them.

    A set is visited in the canonical order (pieces, places and players by
    index, then numbers, then text), never in Python's hash order, which
    depends on where objects sit in memory: a game must not change with the
    process it runs in.
    """
    if isinstance(value, _SEQUENCES):
        return value
    if type(value) is frozenset:
        # Most sets visited are static (a place's terrain, a hexside's features):
        # each is put in order once, found again by identity.
        known = _ORDERED.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        ordered: tuple[Any, ...] = remembered(_ORDERED, value, tuple(in_order(value)))
        return ordered
    if isinstance(value, _SETS):
        return in_order(value)
    if isinstance(value, Dice):
        return [x for x, _ in dice_outcomes(value)]
    if isinstance(value, Place):
        return ()
    raise TypeError(f"cannot iterate over {value!r}")


def _order_key(value: Any) -> Any:
    if isinstance(value, _ENTITIES):
        return (0, value.index)
    if isinstance(value, _RATIONALS):
        return (1, value)
    return (2, str(value))


_BY_INDEX = attrgetter("index")
_PLAIN = frozenset((int, bool, Fraction, str))


def in_order(values: Iterable[Any]) -> list[Any]:
    """``sorted(values, key=_order_key)``: the canonical order of a collection.

    Values all of one type go faster: pieces, places or players by index (each
    index is one value's), numbers or texts by themselves, which is the order
    the key gives them."""
    if not isinstance(values, (tuple, list, frozenset, set)):
        values = tuple(values)
    kinds = set(map(type, values))
    if len(kinds) == 1:
        kind = kinds.pop()
        if kind in _ENTITIES:
            return sorted(values, key=_BY_INDEX)
        if kind in _PLAIN:
            return sorted(values)
    return sorted(values, key=_order_key)


class Compiler:
    """Compiles expressions of one program against its world."""

    def __init__(self, world: World, program: ir.Program) -> None:
        self.world = world
        self.functions = {f.name: f for f in program.of(ir.FunctionDecl)}
        self.values = {v.name for v in program.of(ir.ValueDecl)}
        hooks: dict[str, list[ir.Contribute]] = {h.name: [] for h in program.of(ir.HookDecl)}
        for c in program.of(ir.Contribute):
            hooks.setdefault(c.hook, []).append(c)
        self._hook_clauses = hooks
        self._hooks: dict[str, HookRef] = {}
        self.piece_attributes: set[str] = set()
        self.place_attributes: set[str] = set()
        self.player_attributes: set[str] = set()
        for a in program.of(ir.AttributeDecl):
            {"piece": self.piece_attributes, "place": self.place_attributes,
             "player": self.player_attributes}[a.owner].add(a.name)
        self._derived_decls = {(d.owner, d.name): d for d in program.of(ir.DeriveDecl)}
        self._derived: dict[tuple[str, str], Fn] = {}
        self._getters: dict[str, Callable[[State, Any], Any]] = {}
        self.simple = builtin_functions(world)
        self._depth = 0
        self._expanding: set[str] = set()

    # -------------------------------------------------------------- entry
    def expr(self, node: ir.Expr, rule: str | None = None) -> Fn:
        """Compile one expression; run-time failures cite ``rule`` and the span."""
        inner = self._compile(node)
        span = getattr(node, "span", None)

        def guarded(s: State, env: dict[str, Any]) -> Any:
            try:
                return inner(s, env)
            except CortesRulesError:
                raise
            except (ArithmeticError, TypeError, KeyError, ValueError, AttributeError,
                    IndexError, RecursionError) as error:
                raise RulesRuntimeError("cannot evaluate this expression here: "
                                        f"{plain_error(error)}", span, rule) from None

        return guarded

    def contributions(self, hook: str) -> tuple[ir.Contribute, ...] | None:
        """A hook's contributions in load order (those of the chosen options and
        readings), or None if no hook has that name."""
        found = self._hook_clauses.get(hook)
        return None if found is None else tuple(found)

    def hook(self, name: str) -> HookRef:
        ref = self._hooks.get(name)
        if ref is None:
            ref = HookRef(name, ())
            self._hooks[name] = ref
            ref.entries = tuple(
                (self.expr(c.value, c.rule), self.expr(c.when, c.rule) if c.when else None,
                 c.rule) for c in self._hook_clauses.get(name, ()))
        return ref

    # -------------------------------------------------------------- nodes
    def _compile(self, node: ir.Expr) -> Fn:
        method = getattr(self, "_" + type(node).__name__)
        self._depth += 1
        try:
            if self._depth > 400:
                raise RulesRuntimeError("expression nested too deeply", getattr(node, "span", None))
            return method(node)  # type: ignore[no-any-return]
        finally:
            self._depth -= 1

    def _IntLit(self, node: ir.IntLit) -> Fn:
        value = node.value
        return lambda s, env: value

    def _BoolLit(self, node: ir.BoolLit) -> Fn:
        value = node.value
        return lambda s, env: value

    def _NoneLit(self, node: ir.NoneLit) -> Fn:
        return lambda s, env: None

    def _StrLit(self, node: ir.StrLit) -> Fn:
        value = node.value
        return lambda s, env: value

    def _SetLit(self, node: ir.SetLit) -> Fn:
        items = [self._compile(i) for i in node.items]
        return lambda s, env: frozenset(f(s, env) for f in items)

    def _ListLit(self, node: ir.ListLit) -> Fn:
        items = [self._compile(i) for i in node.items]
        return lambda s, env: tuple(f(s, env) for f in items)

    _TupleLit = _ListLit

    def _Cond(self, node: ir.Cond) -> Fn:
        test, then, other = (self._compile(node.test), self._compile(node.then),
                             self._compile(node.otherwise))
        return lambda s, env: then(s, env) if test(s, env) else other(s, env)

    def _Name(self, node: ir.Name) -> Fn:
        name = node.id
        world = self.world
        fallback: Callable[[State], Any]
        if name in self.values:
            def fallback(s: State) -> Any:
                return s.values[name]
        elif name in self.functions and not self.functions[name].params:
            decl = self.functions[name]
            body = self._function_body(decl, node.span)
            rule = decl.rule

            def call_define(s: State, env: dict[str, Any]) -> Any:
                value = env.get(name, _MISSING)
                if value is not _MISSING:
                    return value
                if s.drawn is not None and not rule.startswith("lib:"):
                    s.drawn.add(rule)
                return body(s, env)
            return call_define
        elif name in self._hook_clauses:
            ref = self.hook(name)

            def lookup(s: State, env: dict[str, Any]) -> Any:
                value = env.get(name, _MISSING)
                if value is not _MISSING:
                    return value
                return tuple(v for v, _ in ref.applying(s, env))
            return lookup
        elif name == "players":
            seats = world.seats
            def fallback(s: State) -> Any:
                return seats
        elif name == "pieces":
            pieces = world.pieces
            def fallback(s: State) -> Any:
                return pieces
        elif name == "hexes":
            hexes = world.hexes
            def fallback(s: State) -> Any:
                return hexes
        elif name == "areas":
            areas = world.areas
            def fallback(s: State) -> Any:
                return areas
        elif name == "zones":
            zones = world.zones
            def fallback(s: State) -> Any:
                return zones
        elif name == "turn":
            def fallback(s: State) -> Any:
                return s.turn
        elif name == "phase":
            def fallback(s: State) -> Any:
                return s.phase
        else:
            constant: Any = _MISSING
            if name in world.player:
                constant = world.player[name]
            elif name in world.pools:
                constant = world.pools[name]
            elif name in world.tables:
                constant = world.tables[name]
            elif name in world.dice:
                constant = world.dice[name]
            elif name in world.place:
                constant = world.place[name]
            elif name in world.regions:
                constant = world.regions[name]
            elif name in world.symbols:
                constant = name
            if constant is _MISSING:
                def fallback(s: State) -> Any:
                    raise KeyError(f"unknown name {name!r}")
            else:
                def fallback(s: State) -> Any:
                    return constant

        def look(s: State, env: dict[str, Any]) -> Any:
            value = env.get(name, _MISSING)
            return fallback(s) if value is _MISSING else value
        return look

    def _Attr(self, node: ir.Attr) -> Fn:
        obj = self._compile(node.obj)
        get = self.getter(node.name)
        return lambda s, env: get(s, obj(s, env))

    def getter(self, name: str) -> Callable[[State, Any], Any]:
        """``target.name`` for a target of any type (memoised by name)."""
        found = self._getters.get(name)
        if found is None:
            found = self._make_getter(name)
            self._getters[name] = found
        return found

    def _make_getter(self, name: str) -> Callable[[State, Any], Any]:
        piece_dynamic = name in self.piece_attributes
        place_dynamic = name in self.place_attributes
        player_dynamic = name in self.player_attributes
        piece_derived = self._derive("piece", name)
        place_derived = self._derive("place", name)
        player_derived = self._derive("player", name)

        def attribute(s: State, target: Any) -> Any:
            if isinstance(target, Piece):
                if piece_dynamic:
                    values = s.piece_attrs.get(name)
                    if values is not None:   # None only while start values are computed
                        return values[target.index]
                if piece_derived is not None:
                    return piece_derived(s, {"piece": target})
                if name == "place":
                    return s.where[target.index]
                if name == "side":
                    return target.side
                if name == "class":
                    return target.cls
                if name == "id":
                    return target.id
                try:
                    return target.props[name]
                except KeyError:
                    raise KeyError(f"a piece has no attribute {name!r}") from None
            if isinstance(target, Place):
                if place_dynamic:
                    return s.place_attrs[name][target.index]
                if place_derived is not None:
                    return place_derived(s, {"place": target})
                if name == "pieces":
                    return s.pieces_in(target)
                if name == "terrain":
                    return target.features
                if name == "owner":
                    return target.owner
                if name == "id":
                    return target.id
                if name == "kind":
                    return target.kind
                if name == "shore":
                    return target.shore
                raise KeyError(f"a place has no attribute {name!r}")
            if isinstance(target, Player):
                if player_dynamic:
                    return s.player_attrs[name][target.index]
                if player_derived is not None:
                    return player_derived(s, {"player": target})
                if name == "name":
                    return target.name
                raise KeyError(f"a player has no attribute {name!r}")
            if isinstance(target, Row):
                if s.drawn is not None:
                    s.drawn.add(target.table.rule)
                return target.cells[target.table.columns.index(name)]
            if target is None:
                raise TypeError(f"none has no attribute {name!r}")
            raise TypeError(f"{target!r} has no attribute {name!r}")
        return attribute

    def _derive(self, owner: str, name: str) -> Fn | None:
        """A computed attribute's expression (compiled once, on first use)."""
        key = (owner, name)
        decl = self._derived_decls.get(key)
        if decl is None:
            return None
        if key not in self._derived:
            cell: list[Fn] = []
            self._derived[key] = lambda s, env: cell[0](s, env)
            cell.append(self._compile(decl.expr))
        return self._derived[key]

    def _Index(self, node: ir.Index) -> Fn:
        obj, key = self._compile(node.obj), self._compile(node.key)
        return lambda s, env: index_value(obj(s, env), key(s, env))

    def _Not(self, node: ir.Not) -> Fn:
        operand = self._compile(node.operand)
        return lambda s, env: not operand(s, env)

    def _BoolOp(self, node: ir.BoolOp) -> Fn:
        # Flatten chains so that long `or` lists compile without deep recursion.
        terms = node.terms()
        fns = tuple(self._compile(t) for t in terms)
        if node.op == "and":
            return lambda s, env: all(f(s, env) for f in fns)
        return lambda s, env: any(f(s, env) for f in fns)

    def _Compare(self, node: ir.Compare) -> Fn:
        left, right = self._compile(node.left), self._compile(node.right)
        op = node.op
        if op == "==":
            return lambda s, env: left(s, env) == right(s, env)
        if op == "!=":
            return lambda s, env: left(s, env) != right(s, env)
        if op == "<":
            return lambda s, env: _rank(left(s, env)) < _rank(right(s, env))
        if op == "<=":
            return lambda s, env: _rank(left(s, env)) <= _rank(right(s, env))
        if op == ">":
            return lambda s, env: _rank(left(s, env)) > _rank(right(s, env))
        return lambda s, env: _rank(left(s, env)) >= _rank(right(s, env))

    def _Member(self, node: ir.Member) -> Fn:
        item, coll = self._compile(node.item), self._compile(node.collection)
        if node.negated:
            return lambda s, env: item(s, env) not in coll(s, env)
        return lambda s, env: item(s, env) in coll(s, env)

    def _Is(self, node: ir.Is) -> Fn:
        subject = self._compile(node.subject)
        name = node.name
        return lambda s, env: is_test(subject(s, env), name)

    def _Arith(self, node: ir.Arith) -> Fn:
        left, right = self._compile(node.left), self._compile(node.right)
        op = node.op
        if op == "+":
            return lambda s, env: add_values(left(s, env), right(s, env))
        if op == "-":
            return lambda s, env: left(s, env) - right(s, env)
        if op == "*":
            return lambda s, env: left(s, env) * right(s, env)
        if op == "/":
            return lambda s, env: divide_values(left(s, env), right(s, env))
        return lambda s, env: left(s, env) % right(s, env)

    def _Neg(self, node: ir.Neg) -> Fn:
        operand = self._compile(node.operand)
        return lambda s, env: -operand(s, env)

    # -------------------------------------------------------------- calls
    def _Call(self, node: ir.Call) -> Fn:
        name = node.func
        if node.binder is not None:
            return self._comprehension(node)
        if name in self.functions:
            return self._function(node)
        args = tuple(self._compile(a) for a in node.args)
        if name in ("rules", "failing") and len(node.args) == 1 \
                and isinstance(node.args[0], ir.Name) and node.args[0].id in self._hook_clauses:
            ref = self.hook(node.args[0].id)
            if name == "rules":
                return lambda s, env: tuple(r for _, r in ref.applying(s, env))
            return lambda s, env: tuple(r for v, r in ref.applying(s, env) if not v)
        simple = self.simple
        if name in simple:
            fn = simple[name]
            if len(args) == 1:
                (a0,) = args
                return lambda s, env: fn(a0(s, env))
            return lambda s, env: fn(*(a(s, env) for a in args))
        if name in ("with_rules", "defined"):
            (a0,) = args
            if name == "defined":
                def defined(s: State, env: dict[str, Any]) -> bool:
                    try:
                        a0(s, env)
                    except (CortesRulesError, ArithmeticError, TypeError, KeyError,
                            ValueError, IndexError):
                        return False
                    return True
                return defined

            def with_rules(s: State, env: dict[str, Any]) -> Any:
                outer = s.drawn
                s.drawn = set()
                try:
                    value = a0(s, env)
                    drawn = s.drawn
                finally:
                    s.drawn = outer
                if outer is not None:
                    outer |= drawn
                return (value, tuple(sorted(drawn, key=rule_key)))
            return with_rules
        if name in ("allowed", "forbid_rules", "permit_rules", "forbids_reading"):
            (a0,) = args
            if name == "allowed":
                return lambda s, env: s.allowed(a0(s, env), env)
            if name == "forbids_reading":
                return lambda s, env: s.machine.forbids_reading(a0(s, env))
            which = "forbid" if name == "forbid_rules" else "permit"
            return lambda s, env: s.machine.clause_rules(which, a0(s, env))
        if name == "applied" and len(node.args) == 1 and isinstance(node.args[0], ir.Name):
            ref = self.hook(node.args[0].id)
            return lambda s, env: tuple(ref.applying(s, env))
        if name == "next_player":
            (a0,) = args
            return lambda s, env: s.next_player(a0(s, env))
        if name == "rolled":
            return lambda s, env: s.last_roll
        raise CortesRulesError(f"unknown function {name!r}")

    def _function(self, node: ir.Call) -> Fn:
        decl = self.functions[node.func]
        if len(decl.params) != len(node.args):
            raise RulesRuntimeError(f"{decl.name} takes {len(decl.params)} argument(s), "
                                    f"not {len(node.args)}", node.span, decl.rule)
        args = tuple(self._compile(a) for a in node.args)
        params = decl.params
        body = self._function_body(decl, node.span)
        rule = decl.rule

        def call(s: State, env: dict[str, Any]) -> Any:
            inner = dict(env)
            for p, a in zip(params, args, strict=True):
                inner[p] = a(s, env)
            if s.drawn is not None and not rule.startswith("lib:"):
                s.drawn.add(rule)
            return body(s, inner)
        return call

    def _function_body(self, decl: ir.FunctionDecl, span: Any) -> Fn:
        if decl.name in self._expanding:
            raise RulesRuntimeError(f"function {decl.name} is defined in terms of itself",
                                    span, decl.rule)
        self._expanding.add(decl.name)
        try:
            return self._compile(decl.body)
        finally:
            self._expanding.discard(decl.name)

    def _comprehension(self, node: ir.Call) -> Fn:
        binder = node.binder
        assert binder is not None and node.domain is not None
        domain = self._compile(node.domain)
        where = self._compile(node.where) if node.where is not None else None
        element = self._compile(node.element) if node.element is not None else None
        extra = tuple(self._compile(a) for a in node.args)
        name = node.func

        if name == "distribution":
            def chances(s: State, env: dict[str, Any]) -> dict[Any, Fraction]:
                inner = dict(env)
                found: dict[Any, Fraction] = {}
                for x, weight in _weighted(domain(s, env)):
                    inner[binder] = x
                    if where is None or where(s, inner):
                        value = element(s, inner) if element is not None else x
                        found[value] = found.get(value, Fraction(0)) + weight
                return dict(sorted(found.items(), key=lambda kv: _order_key(kv[0])))
            return chances

        def items(s: State, env: dict[str, Any]) -> list[Any]:
            inner = dict(env)
            out = []
            for x in _as_iterable(domain(s, env)):
                inner[binder] = x
                if where is None or where(s, inner):
                    out.append(element(s, inner) if element is not None else x)
            return out

        reducers: dict[str, Callable[[list[Any]], Any]] = {
            "count": len, "any": lambda xs: any(_truth(x) for x in xs) if element else bool(xs),
            "all": None,  # type: ignore[dict-item]
            "sum": lambda xs: _absorb(sum, xs), "max": lambda xs: _absorb(max, xs),
            "min": lambda xs: _absorb(min, xs), "distinct": frozenset,
            "set": frozenset, "list": tuple, "first": lambda xs: xs[0] if xs else None,
            "union": lambda xs: frozenset(itertools.chain.from_iterable(xs)),
            "sorted": lambda xs: tuple(in_order(xs)),
        }
        if name == "all":
            def every(s: State, env: dict[str, Any]) -> bool:
                inner = dict(env)
                for x in _as_iterable(domain(s, env)):
                    inner[binder] = x
                    if where is not None and not where(s, inner):
                        return False
                    if element is not None and not element(s, inner):
                        return False
                return True
            return every
        if name == "any" and element is None:
            def some(s: State, env: dict[str, Any]) -> bool:
                inner = dict(env)
                for x in _as_iterable(domain(s, env)):
                    inner[binder] = x
                    if where is None or where(s, inner):
                        return True
                return False
            return some
        if name in ("max", "min", "first") and extra:
            # The further argument is what an empty comprehension gives.
            default = extra[0]
            reduce: Callable[[list[Any]], Any] = (
                max if name == "max" else min if name == "min" else _first_of)
            return lambda s, env: (lambda xs: reduce(xs) if xs else default(s, env))(
                items(s, env))
        reducer = reducers.get(name)
        if reducer is None:
            raise CortesRulesError(f"{name}(...) does not take a comprehension")
        return lambda s, env: reducer(items(s, env))


def _first_of(items: list[Any]) -> Any:
    return items[0]


def _rank(value: Any) -> Any:
    """Ordering for comparisons: a table cell that is no number (``prohibited``, or a
    cell keyed by side that was not read by side) is beyond every number."""
    if isinstance(value, (int, Fraction, float)):
        return value
    return math.inf


_NUMBERS = (int, Fraction, float)


def _absorb(reduce: Callable[[Any], Any], values: Iterable[Any]) -> Any:
    """``sum``/``max``/``min`` in which a name cell (``prohibited``) absorbs the numbers."""
    items = list(values)
    for item in items:
        if not isinstance(item, _NUMBERS):
            return item
    return reduce(items)


def format_value(value: Any) -> str:
    """A value as log lines and action texts show it."""
    kind = type(value)
    if kind is str or kind is int:
        return str(value)
    if isinstance(value, (tuple, list)):
        return ", ".join(format_value(v) for v in value)
    if isinstance(value, frozenset):
        return ", ".join(format_value(v) for v in sorted(value, key=_order_key))
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, Dice):
        return value.name
    return str(value)
