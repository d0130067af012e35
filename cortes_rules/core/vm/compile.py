"""The core IR compiled for the native VM: integer tables and constant words.

``compile_game(game)`` turns a ``core.ir.Game`` into a ``Compiled``: flat lists
of integers that ``src_ext/_vm.pyx`` copies into C arrays once, plus the cold
facts (texts, names, endings' reports) that only Python-facing paths read.

- Expressions are nodes of one array ``expr``: ``[opcode, key, key2, n,
  child...]`` (``layout.EXPRESSION_OPS``); a child is the offset of another
  node, -1 when absent. Constants are value words (``layout``); collections
  among them live in ``constants``, the static heap of every state.
- Instructions of every procedure are records of ``layout.INSTRUCTION_WIDTH``
  integers in one array, jump targets made absolute; options (a decision's
  kinds of action) are records of ``layout.OPTION_WIDTH``.
- A ``Ctx`` read is resolved at run time by a name number through the
  consulting frame's name table (``scopes``: one row of slots per frame kind,
  -1 where the frame has no such variable) and the names bound by functions
  and comprehensions; lowering has already made the rest static.
- Hooks, forbid and permit clauses, derived attributes, attribute columns and
  how each attribute name is read from a piece, place or player are tables.

Nothing here runs a rule: a construct the VM cannot run yet is refused here,
at load, naming it (``VMUnsupported``), never met half-way during a game.
"""

from __future__ import annotations

from collections.abc import Iterable
from fractions import Fraction
from typing import Any

import attrs

from ...errors import CortesRulesError
from ...rule_numbers import rule_key
from .. import ir
from ..run.board import Board
from ..run.evaluate import UNBOUND, Evaluator, Scope
from ..run.state import State
from ..run.values import in_order as _canonical
from . import layout as L

_ZERO = {"int": 0, "bool": False, "list": (), "set": frozenset()}


class VMUnsupported(CortesRulesError):
    """The rulebook uses a construct the native VM does not run yet (named)."""


class Compiled:
    """What the VM loads: integer tables (lists of int) and cold facts."""

    def __init__(self) -> None:
        self.expr: list[int] = []
        self.constants: list[int] = []   # the static heap: constant collections
        self.strings: list[str] = []
        self.code: list[int] = []
        self.args: list[int] = []       # expression offsets read by instructions
        self.options: list[int] = []
        self.pairs: list[int] = []      # (slot, expression) pairs of options
        self.keys: list[tuple[str, ...]] = []   # per instruction: its args' keys
        self.proc_start: list[int] = []
        self.proc_end: list[int] = []
        self.proc_frame: list[int] = []
        self.proc_scope: list[int] = []
        self.proc_names: list[str] = []
        self.proc_rules: list[str] = []
        self.scopes: list[list[int]] = []
        self.names: dict[str, int] = {}
        self.tables: dict[str, list[int]] = {}
        self.endings: list[tuple[int, list[int], list[tuple[str, int]], str]] = []
        self.phase_labels: list[str] = []
        self.setups: dict[str, list[tuple[int, int]]] = {}
        self.sequence_rule = ""


class Compiler:
    """Builds one ``Compiled`` from a ``Game`` (and the reference's static ``Board``,
    whose action space and neighbour order the VM shares)."""

    def __init__(self, game: ir.Game, rewrite: bool = True) -> None:
        self.game = game
        self.rewrite = rewrite   # the load-time rewrites: memo, keyed, partition, once, inv
        self.board = Board(game)
        self.out = Compiled()
        self._strings: dict[str, int] = {}
        self._memo: dict[Any, int] = {}
        self._keep: list[Any] = []     # nodes whose id() is a memo key stay alive
        self.places = {p.id: i for i, p in enumerate(game.places)}
        self._trail: dict[str, int] = {}
        self._trail_at: list[int] = []    # offsets in ``expr`` holding a trail number
        self._ctx_names: frozenset[str] | None = None
        self._is_keys: dict[str, int] = {}   # the names ``is`` tests, numbered
        self._folder: _Folder | None = None
        self._changing: frozenset[str] | None = None   # set once columns are known
        self._memo_depth = 0
        self.memo_count = self.keyed_count = 0
        self._varying: frozenset[int] | None = None   # compiling an option: its slots
        self.once_count = 0
        # compiling a comprehension's filter or element: its scope number, inner slots
        self._each_scope: tuple[int, frozenset[int]] | None = None
        self.scope_count = self.inv_count = 0
        self._scopes_used: set[int] = set()

    # ------------------------------------------------------------ words
    def string(self, text: str) -> int:
        found = self._strings.get(text)
        if found is None:
            found = self._strings[text] = len(self.out.strings)
            self.out.strings.append(text)
        return found

    def name(self, text: str) -> int:
        names = self.out.names
        if text not in names:
            names[text] = len(names)
        return names[text]

    @staticmethod
    def tagged(tag: str, payload: int) -> int:
        return (payload << 4) | L.TAG[tag]

    def static(self, tag: str, items: list[int]) -> int:
        words = self.out.constants
        at = len(words)
        words.append(len(items) // 2 if tag == "map" else len(items))
        words.extend(items)
        return self.tagged(tag, (at << 1) | 1)

    def word(self, value: Any) -> int:
        """The word of a static value (a constant, a table cell, a printed value)."""
        b = self.board
        if value is None:
            return self.tagged("none", 0)
        if isinstance(value, bool):
            return self.tagged("bool", int(value))
        if isinstance(value, int):
            return self.tagged("int", value)
        if isinstance(value, Fraction):
            if value.denominator == 1:
                return self.tagged("int", value.numerator)
            return self.tagged("fraction", (value.numerator << 24) | value.denominator)
        if isinstance(value, str):
            return self.tagged("text", self.string(value))
        if isinstance(value, ir.Keyed):
            return self.static("map", [w for k, x in value.entries
                                       for w in (self.word(k), self.word(x))])
        if isinstance(value, dict):
            return self.static("map", [w for k, x in value.items()
                                       for w in (self.word(k), self.word(x))])
        if isinstance(value, (tuple, list)):
            return self.static("list", [self.word(x) for x in value])
        if isinstance(value, frozenset):
            return self.static("set", [self.word(x) for x in _canonical(value)])
        kind = type(value).__name__
        index: int = getattr(value, "index", -1)
        if kind == "Piece":
            return self.tagged("piece", index)
        if kind == "Place":
            return self.tagged("place", index)
        if kind == "Player":
            return self.tagged("player", index)
        if kind == "Table":
            return self.tagged("table", b.tables.index(value))
        if kind == "Dice":
            return self.tagged("dice", b.dice.index(value))
        raise VMUnsupported(f"the VM holds no value {value!r} yet")

    def trail(self, rule: str) -> int:
        """The provisional number of a rule a trail (``with_rules``) may gather;
        ``_number_trail`` renumbers them in rule order."""
        if rule not in self._trail:
            self._trail[rule] = len(self._trail)
        return self._trail[rule]

    # ------------------------------------------------------------ expressions
    def node(self, op: str, key: int = 0, key2: int = 0, children: Iterable[int] = ()) -> int:
        expr = self.out.expr
        at = len(expr)
        kids = list(children)
        expr.extend((L.EXPRESSION_OP[op], key, key2, len(kids), *kids))
        return at

    def expr(self, e: ir.Expr | None) -> int:
        if e is None:
            return -1
        varying, scope = self._varying, self._each_scope
        key: Any = id(e) if varying is None and scope is None else (id(e), varying, scope)
        found = self._memo.get(key)
        if found is None:
            if varying is not None and self.rewrite and _hoistable(e, varying):
                found = self.node("once", self.once_count, 0, [self._unscoped(e)])
                self.once_count += 1
            elif scope is not None and _hoistable(e, scope[1]):
                found = self.node("inv", self.inv_count, scope[0], [self._unscoped(e)])
                self.inv_count += 1
                self._scopes_used.add(scope[0])
            else:
                found = self._expr(e)
            self._memo[key] = found
            self._keep.append(e)
        return found

    def _unscoped(self, e: ir.Expr) -> int:
        """``e`` compiled outside any option or comprehension scope (a hoisted body)."""
        saved = self._varying, self._each_scope
        self._varying = self._each_scope = None
        try:
            return self.expr(e)
        finally:
            self._varying, self._each_scope = saved

    def _each(self, e: ir.Each) -> int:
        """A comprehension. What its filter and element read that no item changes (none
        of the slots bound inside it, nothing by name) is hoisted into ``inv`` nodes,
        found once each time the comprehension runs (its ``scope`` number, the node's
        fifth child)."""
        narrowed = self.narrowed(e)
        domain, where = narrowed if narrowed else (self.expr(e.domain), e.where)
        inner = frozenset({e.slot} | _bound_slots(e.where) | _bound_slots(e.element))
        saved = self._each_scope
        number = self.scope_count if self.rewrite else -1
        if self.rewrite:
            self.scope_count += 1
            self._each_scope = (number, inner)
        try:
            parts = [self.expr(where), self.expr(e.element)]
        finally:
            self._each_scope = saved
        if number not in self._scopes_used:
            number = -1   # nothing hoisted: the comprehension needs no scope
        return self.node("each", L.REDUCTION[e.reduce] | (e.slot << 8),
                         self.name(e.name) if e.name else -1,
                         [domain, *parts, self.expr(e.default), number])

    def _expr(self, e: ir.Expr) -> int:
        if isinstance(e, (ir.Op, ir.Each)) and _static(e):
            folded = self.fold(e)
            if folded is not None:
                return self.node("const", folded)
        slot = self._memo_slot(e)
        inputs = self._keyed_inputs(e) if slot is None else None
        if slot is None and inputs is None:
            return self._plain(e)
        self._memo_depth += 1
        try:
            body = self._plain(e)
        finally:
            self._memo_depth -= 1
        if slot is None:
            assert inputs is not None
            self.keyed_count += 1
            return self.node("keyed", self.keyed_count - 1, len(inputs), [body, *inputs])
        self.memo_count += 1
        return self.node("memo", self.memo_count - 1, slot, [body])

    def _keyed_inputs(self, e: ir.Expr) -> list[int] | None:
        """What a ``keyed`` node reads to find its value, when ``e`` reads nothing that
        changes in play but slots and names (and the hooks whose clauses read only
        that): each slot as its number, each name as ``1 << 32`` plus its number; None
        when ``e`` is not so, is a plain ``memo`` or is too small to be worth it."""
        if (self._changing is None or not self.rewrite or self._memo_depth
                or not isinstance(e, (ir.Op, ir.Each)) or _weight(e) < KEYED_WEIGHT):
            return None
        names: set[str] = set()
        slots: set[int] = set()
        if not self._keyed(e, frozenset(), names, slots, set()) or not names:
            return None
        if len(names) + len(slots) > KEYED_INPUTS:
            return None
        return sorted(slots) + [(1 << 32) | self.name(n) for n in sorted(names)]

    def _keyed(self, e: Any, bound: frozenset[int], names: set[str], slots: set[int],
               hooks: set[Any], local: frozenset[str] = frozenset()) -> bool:
        """Whether ``e``'s value and the rules it cites are fixed by the slots and names
        it reads (gathered in ``slots`` and ``names``; ``local`` are the names bound
        inside, by a function's parameters or a comprehension's item, which read what
        they are bound to): no state that changes, and hooks whose clauses are of the
        same kind."""
        if e is None or isinstance(e, (ir.Const, ir.Ref)):
            return True
        if isinstance(e, ir.Slot):
            if e.index not in bound:
                slots.add(e.index)
            return True
        if isinstance(e, ir.Ctx):
            if e.name not in local:
                names.add(e.name)
            return e.default is None
        if isinstance(e, ir.Each):
            inner = bound | {e.slot}
            named = local | {e.name} if e.name else local
            return (self._keyed(e.domain, bound, names, slots, hooks, local)
                    and all(self._keyed(x, inner, names, slots, hooks, named)
                            for x in (e.where, e.element))
                    and self._keyed(e.default, bound, names, slots, hooks, local))
        if not isinstance(e, ir.Op):
            return False
        assert self._changing is not None
        if e.op in _STATIC_OPS or e.op == "index":
            pass
        elif e.op == "attr":
            if e.key in self._changing:
                return False
        elif e.op == "function":
            # the body reads the parameters by name; the arguments are read here
            return (all(self._keyed(a, bound, names, slots, hooks, local) for a in e.args[1:])
                    and self._keyed(e.args[0], bound, names, slots, hooks,
                                    local | set(e.params)))
        elif e.op in ("hook", "hook_rules", "hook_failing", "hook_applied"):
            if (e.key, local) not in hooks:
                hooks.add((e.key, local))
                own: set[int] = set()
                for hook in self.game.hooks:
                    if hook.name != e.key:
                        continue
                    for entry in hook.entries:
                        if not (self._keyed(entry.value, frozenset(), names, own, hooks, local)
                                and self._keyed(entry.when, frozenset(), names, own, hooks,
                                                local)):
                            return False
                if own:   # a clause's own slots are not the consulting frame's
                    return False
        else:
            return False
        return all(self._keyed(a, bound, names, slots, hooks, local) for a in e.args)

    def _memo_slot(self, e: ir.Expr) -> int | None:
        """The one slot an expression reads, when nothing else it reads changes in play
        and it is worth a table (``memo`` nodes: its value kept per piece and place)."""
        changing = self._changing
        if (changing is None or not self.rewrite or self._memo_depth
                or not isinstance(e, (ir.Op, ir.Each))):
            return None
        free = _free_slots(e)
        if len(free) != 1 or _weight(e) < MEMO_WEIGHT:
            return None
        (slot,) = free
        return slot if _static(e, frozenset(free), changing) else None

    def _plain(self, e: ir.Expr) -> int:
        b = self.board
        if isinstance(e, ir.Op) and e.op in ("in", "notin"):
            table = self.membership(e.args[1])
            if table is not None:
                return self.node(f"{e.op}_static", table[0], table[1], [self.expr(e.args[0])])
        if isinstance(e, ir.Const):
            return self.node("const", self.word(e.value))
        if isinstance(e, ir.Slot):
            return self.node("slot", e.index)
        if isinstance(e, ir.Global):
            return self.node("global", e.index)
        if isinstance(e, ir.Ref):
            return self.node("const", self.word(_ref_value(b, e)))
        if isinstance(e, ir.Ctx):
            return self.node("ctx", self.name(e.name), 0,
                             [self.expr(e.default)] if e.default is not None else [])
        if isinstance(e, ir.Each):
            return self._each(e)
        op = e.op
        if op not in L.EXPRESSION_OP:
            raise VMUnsupported(f"the VM does not run {op!r} yet [rule {e.rule}]")
        key = 0
        key2 = 0
        if op == "attr":
            key = self.name(e.key)
            key2 = self.string(e.key)
        elif op == "is":
            key = self._is_keys.setdefault(e.key, len(self._is_keys))
            key2 = self.string(e.key)
        elif op.startswith("hook"):
            key = next((i for i, h in enumerate(self.game.hooks) if h.name == e.key), -1)
        elif op == "function":
            kids = [self.expr(e.args[0]), *(self.expr(a) for a in e.args[1:]),
                    *(self.name(p) for p in e.params)]
            at = self.node(op, self.trail(e.rule) if e.rule and not e.rule.startswith("lib:")
                           else -1, len(e.params), kids)
            if self.out.expr[at + 1] >= 0:
                self._trail_at.append(at + 1)
            return at
        elif op in ("forbid_rules", "permit_rules", "forbids_reading"):
            (arg,) = e.args
            if not isinstance(arg, ir.Const):
                raise VMUnsupported(f"{op} of a computed name [rule {e.rule}]")
            value = {"forbid_rules": lambda k: b.clause_rules("forbid", k),
                     "permit_rules": lambda k: b.clause_rules("permit", k),
                     "forbids_reading": b.forbids_reading}[op](arg.value)
            return self.node("const", self.word(tuple(value)))
        return self.node(op, key, key2, [self.expr(a) for a in e.args])

    def fold(self, e: ir.Expr) -> int | None:
        """The word of an expression that reads nothing of the state (``_static``),
        computed once here by the reference interpreter; None when it cannot be (it
        raises, or its value is no word)."""
        if self._folder is None:
            self._folder = _Folder(self.board)
        try:
            value = self._folder.value(e, [UNBOUND] * 256, Scope({}, []))
            return self.word(value)
        except Exception:  # noqa: BLE001 - what fails to fold is evaluated in play
            return None

    def narrowed(self, e: ir.Each) -> tuple[int, ir.Expr | None] | None:
        """For ``x in D where x.a == v and ...`` with D static and ``a`` fixed at load:
        a ``partition`` node giving the items of D whose ``a`` is ``v`` (D split by
        ``a`` here, each part in D's order), and what is left of the filter; None when
        the comprehension is not of that form.

        The parts hold what the test would keep, so the comprehension sees the same
        items in the same order; ``v`` (a slot, a name, a value or a constant) is read
        once instead of once per item, which reads nothing and cannot fail otherwise."""
        where, changing = e.where, self._changing
        if (changing is None or not self.rewrite or e.reduce in ("all", "distribution")
                or not (isinstance(where, ir.Op) and where.op == "and" and where.args)):
            return None
        test = where.args[0]
        if not (isinstance(test, ir.Op) and test.op == "=="):
            return None
        for read, other in (test.args, test.args[::-1]):
            if (isinstance(read, ir.Op) and read.op == "attr" and read.key not in changing
                    and isinstance(read.args[0], ir.Slot) and read.args[0].index == e.slot
                    and _plain_read(other) and e.slot not in _free_slots(other)):
                parts = self._parts(e, read)
                if parts is not None:
                    break
        else:
            return None
        rest = where.args[1:]
        left: ir.Expr | None = (None if not rest else rest[0] if len(rest) == 1
                                else ir.Op("and", rest, where.rule))
        self._keep.append(left)
        return self.node("partition", parts, self.word(()), [self.expr(other)]), left

    def _parts(self, e: ir.Each, read: ir.Op) -> int | None:
        """The static map from each value of ``read`` over ``e``'s static domain to the
        domain's items of that value, or None (the domain is not a static list, or a
        value is not a piece, place, player, text or none)."""
        if not (isinstance(e.domain, ir.Ref) or _static(e.domain)):
            return None
        if self._folder is None:
            self._folder = _Folder(self.board)
        slots = [UNBOUND] * 256
        try:
            items = self._folder.value(e.domain, slots, Scope({}, []))
            if not isinstance(items, (tuple, list)) or not items:
                return None
            parts: dict[int, list[Any]] = {}
            for x in items:
                slots[e.slot] = x
                key = self.word(self._folder.value(read, slots, Scope({}, [])))
                if key & 15 not in _PART_KEYS:
                    return None
                parts.setdefault(key, []).append(x)
        except Exception:  # noqa: BLE001 - a domain that cannot be split is walked in play
            return None
        return self.static("map", [w for key, part in parts.items()
                                   for w in (key, self.word(tuple(part)))])

    def membership(self, e: ir.Expr) -> tuple[int, int] | None:
        """For ``x in C`` with C static: where a table of which pieces, places and players
        are in C starts, and C's word (for any other x); None when C is not static."""
        if not (isinstance(e, ir.Ref) or (isinstance(e, (ir.Op, ir.Each)) and _static(e))):
            return None
        collection = self.expr(e)
        expr = self.out.expr
        if expr[collection] != L.EXPRESSION_OP["const"]:
            return None
        word = expr[collection + 1]
        if word & 15 not in (L.TAG["list"], L.TAG["set"]):
            return None
        words, at = self.out.constants, word >> 5
        items = set(words[at + 1:at + 1 + words[at]])
        table = self.out.tables.setdefault("membership", [])
        start = len(table)
        for tag, count in (("piece", len(self.game.pieces)), ("place", len(self.game.places)),
                           ("player", len(self.game.players))):
            table.extend(int(self.tagged(tag, i) in items) for i in range(count))
        return start, word

    # ------------------------------------------------------------ scopes
    def scope(self, names: dict[str, int]) -> int:
        """A frame's name table (filled out to every name number by ``finish``)."""
        for n in names:
            self.name(n)
        self._scopes.append(dict(names))
        return len(self._scopes) - 1

    # ------------------------------------------------------------ the whole game
    def compile(self) -> Compiled:
        game, b, out, t = self.game, self.board, self.out, self.out.tables
        self._scopes: list[dict[str, int]] = []
        empty = self.scope({})
        owner_scope = {k: self.scope({k: 0}) for k in L.OWNERS}
        # entities
        t["player_name"] = [self.string(p.name) for p in game.players]
        seats = [p.index for p in b.seats]
        t["seats"] = seats
        t["next_seat"] = [seats[(seats.index(i) + 1) % len(seats)] if i in seats else -1
                          for i in range(len(game.players))]
        t["piece_side"] = [p.side for p in game.pieces]
        t["piece_id"] = [self.string(p.id) for p in game.pieces]
        t["piece_class"] = [self.string(p.cls) for p in game.pieces]
        t["piece_tags"] = [self.word(p.tags) for p in b.pieces]
        t["place_id"] = [self.string(p.id) for p in game.places]
        t["place_kind"] = [self.string(p.kind) for p in game.places]
        t["place_features"] = [self.word(p.features) for p in game.places]
        t["place_owner"] = [self.word(p.owner) for p in b.places]
        t["place_shore"] = [self.word(p.shore) for p in b.places]
        t["place_neighbours"] = [self.word(p.neighbours) for p in b.places]
        t["place_coords"] = [c for p in game.places
                             for c in (tuple(p.coords) + (0, 0, 0))[:3]]
        t["place_is_hex"] = [int(p.kind == "hex") for p in game.places]
        hexes = {p.index: i for i, p in enumerate(b.hexes)}
        t["hex_position"] = [hexes.get(i, -1) for i in range(len(game.places))]
        self._edges(game)
        # printed values of pieces: one column per name
        props = sorted({k for p in game.pieces for k, _ in p.props})
        error = self.tagged("error", 0)
        t["props"] = [self.word(dict(p.props)[k]) if k in dict(p.props) else error
                      for p in game.pieces for k in props]
        t["prop_count"] = [len(props)]
        # state columns
        column_of: dict[tuple[str, str], int] = {}
        sizes = {"piece": len(game.pieces), "place": len(game.places),
                 "player": len(game.players)}
        base = 0
        for c, a in enumerate(game.attributes):
            column_of[(a.owner, a.name)] = c
            t.setdefault("column_base", []).append(base)
            t.setdefault("column_owner", []).append(L.OWNERS.index(a.owner))
            zero = self.word(_ZERO.get(a.type.split()[0]))
            t.setdefault("column_zero", []).append(zero)
            t.setdefault("column_initial", []).append(self.expr(a.initial))
            t.setdefault("column_frame", []).append(max(a.frame, 1))
            t.setdefault("column_scope", []).append(owner_scope[a.owner])
            base += sizes[a.owner]
        t["column_words"] = [base]
        derived = {(d.owner, d.name): i for i, d in enumerate(game.derived)}
        t["derived"] = [x for d in game.derived
                        for x in (self.expr(d.expr), max(d.frame, 1), owner_scope[d.owner])]
        self._reads = (column_of, derived, props)
        self._changing = _changing_names(column_of, derived)
        # globals
        t["global_initial"] = [self.expr(g.initial) for g in game.values]
        t["global_frame"] = [g.frame for g in game.values]
        # tables and dice
        for tb in b.tables:
            t.setdefault("table_columns", []).append(self.word(tb.columns))
            t.setdefault("table_rule", []).append(self.string(tb.rule))
            t.setdefault("table_trail", []).append(self.trail(tb.rule))
            t.setdefault("table_rows", []).append(self.static(
                "map", [w for k, cells in tb.rows.items()
                        for w in (self.word(k), self.word(cells))]))
        for d in game.dice:
            t.setdefault("dice", []).extend(
                (d.count, d.sides, self.word(tuple(d.faces)) if d.faces else -1))
        # the action space (core.run.board.Board numbers it)
        t["action_domains"] = []
        for kind, action in zip(b.kinds, game.actions, strict=True):
            t.setdefault("action_base", []).append(kind.base)
            t.setdefault("action_params", []).append(len(action.params))
            for param, domain in zip(action.params, kind.domains, strict=True):
                t["action_domains"].extend(
                    (L.DOMAINS.index(param.type) if param.type in L.DOMAINS else -1,
                     len(domain)))
        t["roll"] = [b.roll.base, len(b.roll.domains[0]),
                     max((x for x in b.roll.domains[0] if isinstance(x, int)), default=-1)]
        t["roll_faces"] = [self.string(x) for x in b.roll.domains[0] if isinstance(x, str)]
        t["draw_base"] = [b.draw.base]
        # hooks and clauses
        for h in game.hooks:
            t.setdefault("hook_start", []).append(len(t.get("contributions", [])) // 4)
            t.setdefault("hook_count", []).append(len(h.entries))
            for entry in h.entries:
                t.setdefault("contributions", []).extend(
                    (self.expr(entry.value), self.expr(entry.when), max(entry.frame, 1),
                     self.string(entry.rule)))
                t.setdefault("contribution_trail", []).append(self.trail(entry.rule))
        t.setdefault("contributions", [])
        for on_action in b.forbids:
            t.setdefault("forbid_start", []).append(len(t.get("forbids", [])) // 4)
            t.setdefault("forbid_count", []).append(len(on_action))
            for clause, permits in on_action:
                t.setdefault("forbids", []).extend(
                    (self.expr(clause.when), max(clause.frame, 1),
                     len(t.get("permits", [])) // 2, len(permits)))
                for p in permits:
                    t.setdefault("permits", []).extend((self.expr(p.when), max(p.frame, 1)))
        t.setdefault("forbids", [])
        t.setdefault("permits", [])
        t["action_names"] = [self.string(a.name) for a in game.actions]
        # procedures
        procedures = (*game.procedures, game.main)
        for proc in procedures:
            self._procedure(proc)
        t["main"] = [len(procedures) - 1]
        for proc_index, proc in enumerate(procedures):
            self._patch(proc_index, proc)
        # endings
        for end in game.endings:
            t.setdefault("endings", []).extend((self.expr(end.when), max(end.frame, 1)))
            out.endings.append((self.expr(end.winner), [self.expr(p) for p in end.reason],
                                [(k, self.expr(x)) for k, x in end.report], end.rule))
        t.setdefault("endings", [])
        t["phase_name"] = [self.string(p.name) for p in game.phases]
        t["empty_scope"] = [empty]
        t["attr_read"] = self._attr_reads()
        t["memo_count"] = [self.memo_count]
        t["once_count"] = [self.once_count]
        t["inv_count"] = [self.inv_count]
        t["scope_count"] = [self.scope_count]
        out.phase_labels = [p.label for p in game.phases]
        out.setups = {s.name: list(s.placements) for s in game.setups}
        out.sequence_rule = game.main.rule
        self._finish_scopes()
        self._number_trail()
        # ``x is name`` of a piece (its tags) or a place (its features), static: a table
        t["is_piece"] = [int(k in p.tags) for k in self._is_keys for p in game.pieces]
        t["is_place"] = [int(k in p.features) for k in self._is_keys for p in game.places]
        return out

    def _number_trail(self) -> None:
        """Number the rules a trail gathers in rule order (``values.cited_rules``), so
        that a trail's bits read in order are its rules in order."""
        t = self.out.tables
        ranked = sorted(self._trail, key=rule_key)
        if len(ranked) > L.TRAIL_WORDS * 64:
            raise VMUnsupported(f"more than {L.TRAIL_WORDS * 64} rules in rule trails")
        new = {self._trail[r]: i for i, r in enumerate(ranked)}
        for at in self._trail_at:
            self.out.expr[at] = new[self.out.expr[at]]
        for name in ("table_trail", "contribution_trail"):
            t[name] = [new[x] for x in t.get(name, [])]
        t["trail_text"] = [self.string(r) for r in ranked]

    def _edges(self, game: ir.Game) -> None:
        """Per place, its edges sorted by the other end: (other, direction from here,
        features); ``hexside`` and ``direction`` search them."""
        near: dict[int, list[tuple[int, int, int]]] = {i: [] for i in range(len(game.places))}
        for e in game.edges:
            back = (e.direction + 3) % 6 if e.direction >= 0 else -1
            hexes = game.places[e.a].kind == "hex" and game.places[e.b].kind == "hex"
            words = self.word(e.features)
            near[e.a].append((e.b, e.direction if hexes else -1, words))
            near[e.b].append((e.a, back if hexes else -1, words))
        t = self.out.tables
        t["edge_start"], t["edge_count"], t["edges"] = [], [], []
        for i in range(len(game.places)):
            found = sorted(near[i])
            t["edge_start"].append(len(t["edges"]) // 3)
            t["edge_count"].append(len(found))
            t["edges"].extend(x for edge in found for x in edge)
        t["empty_set"] = [self.word(frozenset())]

    def _attr_reads(self) -> list[int]:
        """For each owner kind and name number: how ``x.name`` is read, as
        ``mode << 32 | index`` (``layout.READ_*``)."""
        column_of, derived, props = self._reads
        names = list(self.out.names)
        found = []
        for owner in L.OWNERS:
            for n in names:
                if (owner, n) in column_of:
                    found.append((L.READ_COLUMN << 32) | column_of[(owner, n)])
                elif (owner, n) in derived:
                    found.append((L.READ_DERIVED << 32) | derived[(owner, n)])
                elif n in L.FIXED[owner]:
                    found.append((L.READ_FIXED << 32) | L.FIXED[owner].index(n))
                elif owner == "piece" and n in props:
                    found.append((L.READ_PROP << 32) | props.index(n))
                else:
                    found.append(L.READ_NONE << 32)
        return found

    def _procedure(self, proc: ir.Procedure) -> None:
        out = self.out
        loops = sum(1 for ins in proc.code if ins.op == "forinit")
        out.proc_start.append(len(out.code) // L.INSTRUCTION_WIDTH)
        out.proc_end.append(out.proc_start[-1] + len(proc.code))
        out.proc_frame.append(len(proc.slot_names) + loops)
        names: dict[str, int] = {}
        for i, n in enumerate(proc.slot_names):
            names.setdefault(n, i)
        out.proc_scope.append(self.scope(names))
        out.proc_names.append(proc.name)
        out.proc_rules.append(proc.rule)
        out.code.extend([0] * (L.INSTRUCTION_WIDTH * len(proc.code)))

    def _patch(self, index: int, proc: ir.Procedure) -> None:
        """Fill in a procedure's instruction records (targets made absolute)."""
        out = self.out
        start = out.proc_start[index]
        position = {}
        spare = len(proc.slot_names)
        for ins in proc.code:
            if ins.op == "forinit":
                position[ins.a] = spare
                spare += 1
        for pc, ins in enumerate(proc.code):
            if ins.op not in L.INSTRUCTION:
                raise VMUnsupported(f"the VM has no instruction {ins.op!r} [rule {ins.rule}]")
            a, b, target, extra, text = ins.a, ins.b, ins.target, -1, self.string(ins.rule)
            if target >= 0:
                target += start
            if ins.op in ("forinit", "fornext"):
                extra = position[ins.a]
            if ins.op == "setattr":
                column_of = self._reads[0]
                a, b, extra = (column_of.get((o, ins.text), -1) for o in L.OWNERS)
                text = self.string(ins.text)
            if ins.op == "fail":
                text = self.string(f"{ins.text} [rule {ins.rule}]")
            if ins.op in ("choose", "sealed"):
                names: dict[str, int] = {}
                for i, n in enumerate(proc.slot_names):
                    names.setdefault(n, i)
                extra = self._decision_mask(ins, out.proc_frame[index], names)
            args_at = len(out.args)
            out.args.extend(self.expr(x) for x in ins.args)
            opts_at = len(out.options) // L.OPTION_WIDTH
            for option in ins.options:
                self._option(option, start)
            at = (start + pc) * L.INSTRUCTION_WIDTH
            out.code[at:at + L.INSTRUCTION_WIDTH] = [
                L.INSTRUCTION[ins.op], a, b, target, args_at, len(ins.args), opts_at,
                len(ins.options), text, extra]
            while len(out.keys) <= start + pc:
                out.keys.append(())
            out.keys[start + pc] = ins.keys

    def _decision_mask(self, ins: ir.Instr, frame: int, names: dict[str, int]) -> int:
        """Where the flags of a decision start: one per slot of its frame, 0 for a slot
        its listing may read before writing it (a slot its options' expressions read,
        the slot of any name a clause may read from the frame that consults it, a
        sealed choice's queue), 1 for the others (those it writes first: its options'
        parameters and bindings, a sealed choice's chooser). A listing kept from the same decision
        is reused only when the frame's slots flagged 0 are as they were
        (``State.candidates``)."""
        read: set[int] = set()
        written = {ins.a} if ins.op == "sealed" else set()
        for option in ins.options:
            written |= {slot for slot, _ in (*option.params, *option.bindings)}
            for _, e in (*option.params, *option.bindings):
                read |= _free_slots(e)
            if option.where is not None:
                read |= _free_slots(option.where)
        if ins.op == "sealed":
            read |= _free_slots(ins.args[0]) | {ins.b}
        read |= {names[n] for n in self._context_names() if n in names}
        table = self.out.tables.setdefault("decision_mask", [])
        at = len(table)
        table.extend(int(i not in read or i in written) for i in range(frame))
        return at

    def _context_names(self) -> frozenset[str]:
        """Every name a clause reads from the frame that consults it (``Ctx``)."""
        if self._ctx_names is None:
            found: set[str] = set()
            stack: list[Any] = [self.game]
            while stack:
                node = stack.pop()
                if isinstance(node, ir.Ctx):
                    found.add(node.name)
                if isinstance(node, (tuple, list)):
                    stack.extend(node)
                elif attrs.has(type(node)):
                    stack.extend(getattr(node, f.name) for f in attrs.fields(type(node)))
            self._ctx_names = frozenset(found)
        return self._ctx_names

    def _option(self, option: ir.Option, start: int) -> None:
        """An option's record. What its later domains, bindings and filter read that
        its candidates do not change is hoisted (``once`` nodes: found once a listing)."""
        out = self.out
        exprs = [e for _, e in (*option.params, *option.bindings)] + [option.where]
        varying = frozenset(slot for slot, _ in (*option.params, *option.bindings))
        varying |= {slot for e in exprs for slot in _bound_slots(e)}
        params_at = len(out.pairs) // 2
        for i, (slot, domain) in enumerate(option.params):
            out.pairs.extend((slot, self._in_listing(domain, varying if i else None)))
        bindings_at = len(out.pairs) // 2
        for slot, e in option.bindings:
            out.pairs.extend((slot, self._in_listing(e, varying)))
        out.options.extend((option.action, params_at, len(option.params), bindings_at,
                            len(option.bindings), self._in_listing(option.where, varying),
                            self.expr(option.cite), start + option.body,
                            self.string(option.rule)))

    def _in_listing(self, e: ir.Expr | None, varying: frozenset[int] | None) -> int:
        """``e`` compiled with what reads none of the ``varying`` slots hoisted."""
        self._varying = varying
        try:
            return self.expr(e)
        finally:
            self._varying = None

    def _finish_scopes(self) -> None:
        names = self.out.names
        rows = []
        for scope in self._scopes:
            row = [-1] * len(names)
            for n, slot in scope.items():
                row[names[n]] = slot
            rows.append(row)
        self.out.scopes = rows


def compile_game(game: ir.Game, rewrite: bool = True) -> Compiled:
    """The VM's tables for one lowered rulebook; ``VMUnsupported`` names what it
    cannot run yet. ``rewrite=False`` leaves out the load-time rewrites (``memo``,
    ``keyed``, ``partition``, ``once`` and ``inv`` nodes), which change no result
    (tests/core/test_vm_rewrites.py holds the two to each other)."""
    return Compiler(game, rewrite).compile()


class _Folder(Evaluator):
    """The reference interpreter's expressions over the static game alone: what ``fold``
    evaluates reads no state (``attribute``: only what is fixed at load)."""

    ref = State.ref
    attribute = State.attribute

    def __init__(self, board: Board) -> None:
        self.board, self.game = board, board.game
        self.drawn, self.values = None, []
        self.columns: dict[Any, Any] = {}
        self.derived: dict[Any, Any] = {}
        self.where: list[Any] = [None] * len(board.pieces)   # never read: a name it
        # would be read by changes in play (``_changing_names``)


_PART_KEYS = frozenset(L.TAG[t] for t in ("none", "piece", "place", "player", "text"))
"""The kinds of value a ``partition`` splits by: ``==`` on them is the word's identity."""


def _plain_read(e: Any) -> bool:
    """A slot, a value, a name without a default or a constant: read at no cost and
    without failing once set (the other side of a ``partition``'s test)."""
    return (isinstance(e, (ir.Slot, ir.Global, ir.Const, ir.Ref))
            or (isinstance(e, ir.Ctx) and e.default is None))


_STATIC_OPS = frozenset((
    "if", "and", "or", "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "mod", "neg",
    "not", "in", "notin", "list", "set", "is", "distance", "sight_lines", "direction",
    "hexside", "zone", "count", "len", "any", "all", "sum", "max", "min", "distinct",
    "set_of", "list_of", "floor", "ceil", "abs", "first", "sorted", "str", "join", "rest",
    "subsets", "union", "is_number", "neighbours", "adjacent", "columns", "table_rule",
    "cell"))
"""The operators whose value depends on their arguments alone (no state, no rule trail)."""


_MARKING_OPS = frozenset(("function", "index"))
"""Operators that read nothing that changes but may add to a rule trail: a ``memo``
node's body may hold them, since the VM uses its table only when no trail is kept."""

MEMO_WEIGHT = 4
"""The fewest operator nodes an expression of one slot needs to get a ``memo`` table."""

KEYED_WEIGHT = 6
"""The fewest operator nodes an expression of names needs to get a ``keyed`` table."""

KEYED_INPUTS = 7
"""The most slots and names a ``keyed`` node reads to find its value."""

HOIST_WEIGHT = 3
"""The fewest operator nodes an expression needs to be hoisted (``once``, ``inv``)."""


def _static(e: Any, bound: frozenset[int] = frozenset(),
            changing: frozenset[str] | None = None) -> bool:
    """Whether an expression reads nothing that changes in play (constants, the map, the
    tables, the slots its own comprehensions bind) and adds nothing to a rule trail.

    Given ``changing`` (``_changing_names``), it may also read any attribute not named
    there and hold functions and indexing, which may add to a rule trail (what a
    ``memo`` body may hold)."""
    if e is None or isinstance(e, (ir.Const, ir.Ref)):
        return True
    if isinstance(e, ir.Slot):
        return e.index in bound
    if isinstance(e, ir.Each):
        inner = bound | {e.slot}
        return (_static(e.domain, bound, changing) and _static(e.default, bound, changing)
                and _static(e.where, inner, changing)
                and _static(e.element, inner, changing))
    if isinstance(e, ir.Op):
        if e.op in _STATIC_OPS:
            pass
        elif changing is None:
            return False
        elif e.op == "attr":
            if e.key in changing:
                return False
        elif e.op not in _MARKING_OPS:
            return False
        return all(_static(a, bound, changing) for a in e.args)
    return False


_CONTEXT_OPS = frozenset(("hook", "hook_rules", "hook_failing", "hook_applied", "allowed"))
"""Operators that read the clause's context by name (as ``Ctx`` does)."""


def _hoistable(e: Any, varying: frozenset[int]) -> bool:
    """Whether an option's expression is the same for every candidate of a listing:
    worth a ``once`` node, reading none of the ``varying`` slots and nothing by name."""
    return (isinstance(e, (ir.Op, ir.Each)) and _weight(e) >= HOIST_WEIGHT
            and not _free_slots(e) & varying and not _reads_context(e) and not _static(e))


def _reads_context(e: Any) -> bool:
    if isinstance(e, ir.Ctx):
        return True
    if isinstance(e, ir.Each):
        return any(_reads_context(x) for x in (e.domain, e.where, e.element, e.default))
    if isinstance(e, ir.Op):
        return e.op in _CONTEXT_OPS or any(_reads_context(a) for a in e.args)
    return False


def _bound_slots(e: Any) -> set[int]:
    """The slots the comprehensions inside an expression bind."""
    if isinstance(e, ir.Each):
        return {e.slot}.union(*(_bound_slots(x) for x in (e.domain, e.where, e.element,
                                                          e.default)))
    if isinstance(e, ir.Op):
        return set().union(*(_bound_slots(a) for a in e.args))
    if isinstance(e, ir.Ctx):
        return _bound_slots(e.default)
    return set()


def _weight(e: Any) -> int:
    """The operator and comprehension nodes of an expression."""
    if isinstance(e, ir.Each):
        return 1 + sum(_weight(x) for x in (e.domain, e.where, e.element, e.default))
    if isinstance(e, ir.Op):
        return 1 + sum(_weight(a) for a in e.args)
    return 0


def _changing_names(column_of: dict[tuple[str, str], int],
                    derived: dict[tuple[str, str], int]) -> frozenset[str]:
    """The attribute names that may read state: a column or a derived value of any
    owner, where a piece is, what a place holds. Any other name is fixed at load (a
    piece's side, class, id and printed values, a place's terrain, kind, owner and
    shore, a player's name, a table row's cells)."""
    return frozenset({name for _, name in column_of} | {name for _, name in derived}
                     | {"place", "pieces"})


def _free_slots(e: Any, bound: frozenset[int] = frozenset()) -> set[int]:
    """The slots an expression reads that no comprehension inside it binds first."""
    if isinstance(e, ir.Slot):
        return set() if e.index in bound else {e.index}
    if isinstance(e, ir.Each):
        inner = bound | {e.slot}
        return (_free_slots(e.domain, bound) | _free_slots(e.default, bound)
                | _free_slots(e.where, inner) | _free_slots(e.element, inner))
    if isinstance(e, ir.Op):
        return set().union(*(_free_slots(a, bound) for a in e.args))
    if isinstance(e, ir.Ctx):
        return _free_slots(e.default, bound)
    return set()


def _ref_value(b: Board, e: ir.Ref) -> Any:
    kind = e.kind
    if kind == "all":
        return b.all[e.index]
    if kind == "procedure":
        return e.name
    if kind == "pool":
        return b.pools[e.index]
    return {"player": b.players, "place": b.places, "piece": b.pieces, "table": b.tables,
            "dice": b.dice, "region": b.regions}[kind][e.index]
