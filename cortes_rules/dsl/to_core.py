"""Stage 4: a checked surface program into the core IR (``core.ir.Game``).

Named after what it makes, as ``lower`` is after what it does: ``lower``
gathers modules into one surface ``Program``; this module lowers that program
onto the core, resolving every name, expanding every ``function`` and
turning the map's hex geometry into a graph of places and edges (the one
module below ``dsl`` that reads hex ids is ``engine.hexgrid``, through
``core.world``). The executors read only what this returns.

A construct it cannot lower raises ``CoreLoweringError`` with the file, line
and rule; nothing is dropped silently.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping, Sequence
from typing import Any

from ..core import ir as core
from ..core.world import World
from ..engine import hexgrid
from ..errors import CortesRulesError
from . import ir
from .diagnostics import Span

_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")

# The built-in functions of plain arguments, and those lowering treats apart.
BUILTINS = frozenset((
    "count", "len", "any", "all", "sum", "max", "min", "distinct", "floor", "ceil", "abs",
    "first", "sorted", "set", "list", "adjacent", "distance", "sight_lines", "neighbours",
    "zone", "hexside", "str", "join", "rest", "subsets", "union", "is_number", "direction",
    "columns", "table_rule", "cell", "with_rules", "defined", "allowed", "forbid_rules",
    "permit_rules", "forbids_reading", "next_player", "rolled", "rules", "failing",
    "applied"))
REDUCERS = frozenset(("count", "any", "all", "sum", "max", "min", "distinct", "set", "list",
                      "first", "union", "sorted", "distribution"))
_OPS = {"==": "==", "!=": "!=", "<": "<", "<=": "<=", ">": ">", ">=": ">=",
        "+": "+", "-": "-", "*": "*", "/": "/", "mod": "mod", "%": "mod"}


class CoreLoweringError(CortesRulesError):
    """A construct of the surface program the core IR cannot state (names where)."""

    def __init__(self, message: str, span: Span | None, rule: str) -> None:
        where = f"{span.path}:{span.line}:{span.column}: " if span is not None else ""
        super().__init__(f"{where}{message} [rule {rule}]")
        self.span, self.rule = span, rule


class Scope:
    """The slots of one frame being lowered.

    ``slots`` maps the frame's variables to their slots; ``names`` names every
    slot (comprehension binders too); ``dynamic`` makes the names that some
    frame of the program may bind ``Ctx`` reads (clauses consulted from a
    procedure)."""

    def __init__(self, variables: Sequence[str] = (), dynamic: bool = False) -> None:
        self.names: list[str] = []
        self.slots: dict[str, int] = {}
        self.dynamic = dynamic
        for name in variables:
            self.var(name)

    def var(self, name: str) -> int:
        """The slot of a variable of the frame (made on first use)."""
        if name not in self.slots:
            self.slots[name] = self.fresh(name)
        return self.slots[name]

    def fresh(self, name: str) -> int:
        """A new slot no variable name finds (a binder, a loop's position)."""
        self.names.append(name)
        return len(self.names) - 1


def to_core(program: ir.Program) -> core.Game:
    """Lower a checked program onto the core IR.

    Raises:
        CoreLoweringError: a construct the core IR does not state, with where.
    """
    return _Lowering(program).game()


def _type(ref: ir.TypeRef) -> str:
    return f"{ref.name} of {ref.of}" if ref.of else ref.name


def _cell(cell: ir.Cell) -> core.Value:
    if isinstance(cell, (ir.IntCell, ir.DecimalCell)):
        return cell.value
    if isinstance(cell, (ir.RatioCell, ir.ResultCell)):
        return (cell.left, cell.right)
    if isinstance(cell, ir.NameCell):
        return cell.name
    return core.Keyed(tuple((k, _cell(v)) for k, v in cell.entries))


def _static(value: Any) -> core.Value:
    if isinstance(value, list):
        return tuple(value)
    return value  # type: ignore[no-any-return]


_CONSULTS = frozenset(("hook", "hook_rules", "hook_failing", "hook_applied", "allowed"))


def _consults(e: core.Expr) -> bool:
    """Whether evaluating ``e`` consults clauses that read the caller's variables."""
    if isinstance(e, core.Op):
        return e.op in _CONSULTS or any(_consults(a) for a in e.args)
    if isinstance(e, core.Each):
        return any(x is not None and _consults(x)
                   for x in (e.domain, e.where, e.element, e.default))
    return False


def _bound(statements: Iterable[ir.Stmt], found: list[str]) -> list[str]:
    """Every variable a procedure's statements bind, in order of appearance."""
    for st in statements:
        names: list[str] = []
        blocks: list[tuple[ir.Stmt, ...]] = []
        if isinstance(st, ir.Let):
            names = [st.name]
        elif isinstance(st, ir.ForEach):
            names, blocks = [st.name], [st.body]
        elif isinstance(st, (ir.Roll, ir.Draw)):
            names = [st.name]
        elif isinstance(st, ir.If):
            blocks = [st.then, st.otherwise]
        elif isinstance(st, (ir.While, ir.Loop)):
            blocks = [st.body]
        elif isinstance(st, (ir.Choose, ir.ChooseSealed)):
            if isinstance(st, ir.ChooseSealed):
                names.append(st.name)
            for option in st.options:
                names += [p.name for p in option.params] + [n for n, _ in option.bindings]
                blocks.append(option.body)
        for name in names:
            if name not in found:
                found.append(name)
        for block in blocks:
            _bound(block, found)
    return found


class _Lowering:
    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.world = world = World(program)
        of = program.of
        self.map_rule = f"map:{program.map.name}" if program.map else "core:map"
        self.functions = {f.name: f for f in of(ir.FunctionDecl)}
        self.values = {v.name: i for i, v in enumerate(of(ir.ValueDecl))}
        hooks: dict[str, list[ir.Contribute]] = {h.name: [] for h in of(ir.HookDecl)}
        for c in of(ir.Contribute):
            hooks.setdefault(c.hook, []).append(c)
        self.hook_clauses = hooks
        self.tables = {name: i for i, name in enumerate(world.tables)}
        self.dice = {d: i for i, d in enumerate(world.dice)}
        self.regions = {r: i for i, r in enumerate(world.regions)}
        self.pools = {n: i for i, n in enumerate(n for n, p in world.pools.items()
                                                 if isinstance(p, dict))}
        self.procs = {p.name: i for i, p in enumerate(of(ir.Procedure))}
        self.proc_decls = {p.name: p for p in of(ir.Procedure)}
        self.actions = {a.name: i for i, a in enumerate(of(ir.ActionDecl))}
        self._expanding: list[str] = []
        # Every name some frame may bind: what a clause consulted from a frame reads there.
        variables: set[str] = set()
        for proc in of(ir.Procedure):
            variables.update(proc.params, _bound(proc.body, []))
        for action in of(ir.ActionDecl):
            variables.update(p.name for p in action.params)
        for function in of(ir.FunctionDecl):
            variables.update(function.params)
        self.variables = frozenset(variables)

    # -------------------------------------------------------------- errors
    def fail(self, message: str, span: Span | None, rule: str) -> CoreLoweringError:
        return CoreLoweringError(message, span, rule)

    # -------------------------------------------------------------- expressions
    def expr(self, node: ir.Expr, scope: Scope, rule: str,
             subst: Mapping[str, core.Expr] | None = None) -> core.Expr:
        """One surface expression in ``scope``; ``subst`` holds the names bound
        by an enclosing comprehension or function call (they shadow the rest)."""
        sub = subst or {}
        x = self.expr

        def op(name: str, *args: ir.Expr, key: str = "") -> core.Op:
            return core.Op(name, tuple(x(a, scope, rule, sub) for a in args), rule, key)

        if isinstance(node, (ir.IntLit, ir.BoolLit, ir.StrLit)):
            return core.Const(node.value, rule)
        if isinstance(node, ir.NoneLit):
            return core.Const(None, rule)
        if isinstance(node, ir.Name):
            return self.name(node.id, node.span, scope, rule, sub)
        if isinstance(node, ir.SetLit):
            return op("set", *node.items)
        if isinstance(node, (ir.ListLit, ir.TupleLit)):
            return op("list", *node.items)
        if isinstance(node, ir.Cond):
            return op("if", node.test, node.then, node.otherwise)
        if isinstance(node, ir.Attr):
            return op("attr", node.obj, key=node.name)
        if isinstance(node, ir.Index):
            return op("index", node.obj, node.key)
        if isinstance(node, ir.Not):
            return op("not", node.operand)
        if isinstance(node, ir.BoolOp):
            return op(node.op, *node.terms())
        if isinstance(node, (ir.Compare, ir.Arith)):
            if node.op not in _OPS:
                raise self.fail(f"the core has no operator {node.op!r}", node.span, rule)
            return op(_OPS[node.op], node.left, node.right)
        if isinstance(node, ir.Member):
            return op("notin" if node.negated else "in", node.item, node.collection)
        if isinstance(node, ir.Is):
            return op("is", node.subject, key=node.name)
        if isinstance(node, ir.Neg):
            return op("neg", node.operand)
        if isinstance(node, ir.Call):
            return self.call(node, scope, rule, sub)
        if isinstance(node, ir.ReadingIs):   # lowering folds these: a stray one is read here
            chosen = self.program.readings.get(node.entry) == node.reading
            return core.Const(chosen, rule)
        raise self.fail(f"the core cannot state the expression {type(node).__name__}",
                        getattr(node, "span", None), rule)

    def name(self, name: str, span: Span, scope: Scope, rule: str,
             sub: Mapping[str, core.Expr]) -> core.Expr:
        if name in sub:
            return sub[name]
        if name in scope.slots:
            return core.Slot(scope.slots[name], rule)
        if scope.dynamic and name in self.variables:
            return core.Ctx(name, self.global_name(name, span, scope, rule, sub), rule)
        found = self.global_name(name, span, scope, rule, sub)
        if found is None:
            raise self.fail(f"unknown name {name!r}", span, rule)
        return found

    def global_name(self, name: str, span: Span, scope: Scope, rule: str,
                    sub: Mapping[str, core.Expr]) -> core.Expr | None:
        """A name as the game's declarations resolve it (``compile.Compiler._Name``'s
        order), or None."""
        world = self.world
        if name in self.values:
            return core.Global(self.values[name], name, rule)
        decl = self.functions.get(name)
        if decl is not None and not decl.params:
            return self.expand(decl, (), span, scope, sub)
        if name in self.hook_clauses:
            return core.Op("hook", (), rule, name)
        if name in core.ALL:
            return core.Ref("all", core.ALL.index(name), name, rule)
        if name in ("turn", "phase"):
            return core.Op(name, (), rule)
        if name in world.player:
            return core.Ref("player", world.player[name].index, name, rule)
        if name in world.pools:
            pool = world.pools[name]
            if isinstance(pool, dict):
                return core.Ref("pool", self.pools[name], name, rule)
            return core.Ref("place", pool.index, name, rule)
        if name in self.tables:
            return core.Ref("table", self.tables[name], name, rule)
        if name in self.dice:
            return core.Ref("dice", self.dice[name], name, rule)
        if name in world.place:
            return core.Ref("place", world.place[name].index, name, rule)
        if name in self.regions:
            return core.Ref("region", self.regions[name], name, rule)
        if name in world.symbols:
            return core.Const(name, rule)
        return None

    def expand(self, decl: ir.FunctionDecl, args: tuple[core.Expr, ...], span: Span,
               scope: Scope, sub: Mapping[str, core.Expr]) -> core.Expr:
        """A function's body at its call site: parameters replaced by the arguments,
        its nodes citing the function's rule."""
        if len(args) != len(decl.params):
            raise self.fail(f"{decl.name} takes {len(decl.params)} argument(s), not "
                            f"{len(args)}", span, decl.rule)
        if decl.name in self._expanding:
            raise self.fail(f"function {decl.name} is defined in terms of itself", span,
                            decl.rule)
        self._expanding.append(decl.name)
        try:
            inner = {**sub, **dict(zip(decl.params, args, strict=True))}
            body = self.expr(decl.body, scope, decl.rule, inner)
            # Marked, so that a rule trail names the function as the engine's does;
            # clauses its body consults read its parameters by name (``Op.params``).
            if args and _consults(body):
                return core.Op("function", (body, *args), decl.rule, decl.name,
                               tuple(decl.params))
            return core.Op("function", (body,), decl.rule, decl.name)
        finally:
            self._expanding.pop()

    def call(self, node: ir.Call, scope: Scope, rule: str,
             sub: Mapping[str, core.Expr]) -> core.Expr:
        name = node.func
        if node.binder is not None:
            if name not in REDUCERS:
                raise self.fail(f"{name}(...) does not take a comprehension", node.span, rule)
            assert node.domain is not None
            domain = self.expr(node.domain, scope, rule, sub)
            slot = scope.fresh(f"each:{node.binder}")
            inner = {**sub, node.binder: core.Slot(slot, rule)}
            where = self.expr(node.where, scope, rule, inner) if node.where else None
            element = self.expr(node.element, scope, rule, inner) if node.element else None
            default = self.expr(node.args[0], scope, rule, sub) if node.args else None
            seen = node.binder if any(x is not None and _consults(x)
                                      for x in (where, element)) else ""
            return core.Each(name, slot, domain, where, element, default, rule, seen)
        args = tuple(self.expr(a, scope, rule, sub) for a in node.args)
        if name in self.functions:
            return self.expand(self.functions[name], args, node.span, scope, sub)
        if name in ("rules", "failing", "applied") and len(node.args) == 1 \
                and isinstance(node.args[0], ir.Name) \
                and (name == "applied" or node.args[0].id in self.hook_clauses):
            return core.Op(f"hook_{name}", (), rule, node.args[0].id)
        if name not in BUILTINS:
            raise self.fail(f"unknown function {name!r}", node.span, rule)
        if name in ("set", "list"):   # the functions, apart from the literals {a, b} and [a, b]
            name = f"{name}_of"
        return core.Op(name, args, rule)

    def template(self, text: str, span: Span, scope: Scope, rule: str) -> tuple[core.Expr, ...]:
        """A text's literal parts and its ``{fields}``, in order (empty texts left out)."""
        parts: list[core.Expr] = []
        last = 0
        for match in _FIELD.finditer(text):
            if match.start() > last:
                parts.append(core.Const(text[last:match.start()], rule))
            names = match[1].split(".")
            node: ir.Expr = ir.Name(names[0], span)
            for attr in names[1:]:
                node = ir.Attr(node, attr, span)
            parts.append(self.expr(node, scope, rule))
            last = match.end()
        if last < len(text) or not parts:
            parts.append(core.Const(text[last:], rule))
        return tuple(parts)

    # -------------------------------------------------------------- the table
    def game(self) -> core.Game:
        program, world = self.program, self.world
        of = program.of
        players = [core.Player(p.name, p.label, p.party, d.rule)
                   for p, d in zip(world.players, [*of(ir.PlayerDecl), *of(ir.SideDecl)],
                                   strict=True)]
        pool_rules = {p.name: p.rule for p in of(ir.PoolDecl)}
        pool_ordered = {p.name: p.ordered for p in of(ir.PoolDecl)}
        places = []
        for place in world.places:
            rule = self.map_rule
            if place.kind == "pool":
                rule = pool_rules[place.id.split(".")[0] if place.owner else place.id]
            coords = (hexgrid.cube(place.id, world.odd_columns_low)
                      if place.kind == "hex" else ())
            places.append(core.Place(place.id, place.label, place.kind, place.features, rule,
                                     place.owner.index if place.owner else -1, coords))
        edges = self.edges()
        regions = [core.Region(name, tuple(p.index for p in members), self.map_rule)
                   for name, members in world.regions.items()]
        pools = [core.Pool(name, tuple(per[p].index for p in world.players), pool_ordered[name],
                           pool_rules[name])
                 for name, per in world.pools.items() if isinstance(per, dict)]
        classes = [core.PieceClass(c.name, c.label, world.player[c.side].index if c.side else -1,
                                   c.traits, c.rule) for c in of(ir.ClassDecl)]
        counters = f"counters:{program.counters.name}" if program.counters else "core:pieces"
        pieces = [core.Piece(p.id, p.label, p.cls, p.side.index if p.side else -1, p.tags,
                             tuple(sorted((k, _static(v)) for k, v in p.props.items())),
                             counters) for p in world.pieces]
        attributes = []
        for a in of(ir.AttributeDecl):
            scope = Scope((a.owner,))
            initial = self.expr(a.initial, scope, a.rule) if a.initial is not None else None
            attributes.append(core.Attribute(a.owner, a.name, _type(a.type), initial,
                                             "shown" if a.shown else "rules", len(scope.names),
                                             a.rule))
        values = []
        for v in of(ir.ValueDecl):
            scope = Scope()
            values.append(core.GlobalValue(v.name, _type(v.type),
                                           self.expr(v.initial, scope, v.rule),
                                           len(scope.names), v.rule))
        tables = [core.Table(t.name, tuple(t.columns),
                             tuple((k, cells) for k, cells in t.rows.items()), t.rule)
                  for t in world.tables.values()]
        face_rules = {f.name: f.rule for f in of(ir.FaceDieDecl)}
        dice_rules = {d.name: d.rule for d in of(ir.DiceDecl)} | face_rules
        dice = [core.Dice(d.name, d.count, d.sides, d.faces or (), dice_rules[d.name])
                for d in world.dice.values()]
        procedures = [self.procedure(p) for p in of(ir.Procedure)]
        phases, main = self.turn_sequence()
        return core.Game(
            name=program.game.name if program.game else "rulebook", rule="core:game",
            players=tuple(players), places=tuple(places), edges=edges,
            regions=tuple(regions), pools=tuple(pools), metric="cube",
            classes=tuple(classes), pieces=tuple(pieces), attributes=tuple(attributes),
            values=tuple(values), tables=tuple(tables), dice=tuple(dice),
            hooks=self.hooks(), clauses=self.clauses(), derived=self.derived(),
            hides=self.hides(), actions=self.action_kinds(), procedures=tuple(procedures),
            phases=phases, main=main, endings=self.endings(),
            requirements=self.requirements(), setups=self.setups())

    def edges(self) -> tuple[core.Edge, ...]:
        """Neighbours, shores and bordered pairs as edges, each pair once, a < b."""
        world = self.world
        found: dict[tuple[int, int], core.Edge] = {}
        for place in world.places:
            for other in place.neighbours:
                low, high = sorted((place, other), key=lambda p: p.index)
                if (low.index, high.index) not in found:
                    direction = world.direction(low, high)
                    found[(low.index, high.index)] = core.Edge(
                        low.index, high.index, "adjacent", world.hexside(low, high),
                        self.map_rule,
                        -1 if direction is None else direction)
            if place.kind == "zone":
                for hex_place in place.shore:
                    key = (min(place.index, hex_place.index), max(place.index, hex_place.index))
                    found.setdefault(key, core.Edge(place.index, hex_place.index, "shore",
                                                    frozenset(), self.map_rule))
        for pair, features in world._hexsides.items():
            a, b = sorted(pair)
            if (a, b) not in found:
                found[(a, b)] = core.Edge(a, b, "border", features, self.map_rule)
        return tuple(found[k] for k in sorted(found))

    def hooks(self) -> tuple[core.Hook, ...]:
        decls = {h.name: h for h in self.program.of(ir.HookDecl)}
        out = []
        for name, contributions in self.hook_clauses.items():
            decl = decls.get(name)
            typ = _type(decl.type) if decl else "undeclared"
            entries = []
            for c in contributions:
                scope = Scope(dynamic=True)
                if typ == "procedure" and isinstance(c.value, ir.Name) \
                        and c.value.id in self.procs:
                    value: core.Expr = core.Ref("procedure", self.procs[c.value.id],
                                                c.value.id, c.rule)
                else:
                    value = self.expr(c.value, scope, c.rule)
                when = self.expr(c.when, scope, c.rule) if c.when is not None else None
                entries.append(core.Contribution(value, when, len(scope.names), c.rule))
            out.append(core.Hook(name, typ, tuple(entries),
                                 decl.rule if decl is not None else contributions[0].rule))
        return tuple(out)

    def action_index(self, name: str, span: Span, rule: str) -> int:
        if name not in self.actions:
            raise self.fail(f"no action {name!r} is declared", span, rule)
        return self.actions[name]

    def clauses(self) -> tuple[core.Clause, ...]:
        out = []
        for st in self.program.statements:
            if isinstance(st, (ir.Forbid, ir.Permit)):
                scope = Scope(dynamic=True)
                when = self.expr(st.when, scope, st.rule)
                action = self.action_index(st.action, st.span, st.rule)
                if isinstance(st, ir.Forbid):
                    out.append(core.Clause("forbid", action, when, "", False, len(scope.names),
                                           st.rule))
                else:
                    out.append(core.Clause("permit", action, when, st.despite, st.spend_all,
                                           len(scope.names), st.rule))
        return tuple(out)

    def derived(self) -> tuple[core.Derive, ...]:
        out = []
        for d in self.program.of(ir.DeriveDecl):
            scope = Scope((d.owner,))
            expr = self.expr(d.expr, scope, d.rule)
            out.append(core.Derive(d.owner, d.name, expr, len(scope.names), d.rule))
        return tuple(out)

    def hides(self) -> tuple[core.Hide, ...]:
        out = []
        for h in self.program.of(ir.HideDecl):
            params = ("player", "viewer") if h.attribute else ("piece", "viewer")
            scope = Scope(params)
            when = self.expr(h.when, scope, h.rule)
            out.append(core.Hide(when, h.place, h.attribute, params, len(scope.names), h.rule))
        return tuple(out)

    def action_kinds(self) -> tuple[core.Action, ...]:
        return tuple(core.Action(a.name, a.label,
                                 tuple(core.Param(p.name, p.type, a.rule) for p in a.params),
                                 a.rule) for a in self.program.of(ir.ActionDecl))

    def endings(self) -> tuple[core.Ending, ...]:
        out = []
        for f in self.program.of(ir.FinishDecl):
            scope = Scope()
            when = self.expr(f.when, scope, f.rule)
            winner = self.expr(f.winner, scope, f.rule) if f.winner is not None else None
            reason = self.template(f.reason, f.span, scope, f.rule)
            report = tuple((k, self.expr(e, scope, f.rule)) for k, e in f.report)
            out.append(core.Ending(when, winner, reason, report, len(scope.names), f.rule))
        return tuple(out)

    def requirements(self) -> tuple[core.Requirement, ...]:
        out = []
        for r in self.program.of(ir.RequireDecl):
            scope = Scope()
            out.append(core.Requirement(False, None, self.expr(r.test, scope, r.rule),
                                        (core.Const(r.message, r.rule),), None,
                                        len(scope.names), r.rule))
        for s in self.program.of(ir.StartRequireDecl):
            scope = Scope()
            domain = self.expr(s.domain, scope, s.rule) if s.domain is not None else None
            if s.var is not None:
                scope.var(s.var)
            test = self.expr(s.test, scope, s.rule)
            message = self.template(s.message, s.span, scope, s.rule)
            cite = self.expr(s.cite, scope, s.rule) if s.cite is not None else None
            out.append(core.Requirement(True, domain, test, message, cite, len(scope.names),
                                        s.rule))
        return tuple(out)

    def setups(self) -> tuple[core.Setup, ...]:
        world = self.world
        out = []
        for name, block in self.program.setups.items():
            rule = f"setup:{name}"
            placements = []
            for placement in block.placements:
                if placement.hex not in world.place:
                    raise self.fail(f"set-up {name}: no place {placement.hex!r}",
                                    placement.span, rule)
                for unit in placement.units:
                    if unit not in world.piece:
                        raise self.fail(f"set-up {name}: no piece {unit!r}", placement.span,
                                        rule)
                    placements.append((world.piece[unit].index,
                                       world.place[placement.hex].index))
            out.append(core.Setup(name, block.label, tuple(placements), rule))
        return tuple(out)

    # -------------------------------------------------------------- procedures
    def procedure(self, decl: ir.Procedure) -> core.Procedure:
        scope = Scope((*decl.params, *_bound(decl.body, list(decl.params))))
        code = _Code(self, scope, decl.rule)
        code.block(decl.body)
        return core.Procedure(decl.name, decl.params, tuple(scope.names), tuple(code.code),
                              decl.rule)

    def turn_sequence(self) -> tuple[tuple[core.Phase, ...], core.Procedure]:
        """The phases (the turn's first, then the opening ones) and the procedure
        that plays them: the opening phases once, then the turn's for ever."""
        world, of = self.world, self.program.of
        sequence = next((s for s in of(ir.Sequence) if not s.opening), None)
        rule = sequence.rule if sequence else "core:sequence"
        listed = [(p, rule, False) for p in (sequence.phases if sequence else ())]
        listed += [(p, s.rule, True) for s in of(ir.Sequence) if s.opening for p in s.phases]
        phases = tuple(core.Phase(p.name, p.label,
                                  world.player[p.side].index if p.side in world.player else -1,
                                  self.procs.get(p.activity or "", -1), p.for_each_player,
                                  opening, r) for p, r, opening in listed)
        scope = Scope()
        code: list[core.Instr] = []

        def play(i: int) -> None:
            phase = phases[i]
            code.append(core.Instr("phase", phase.rule, a=i))
            if phase.procedure < 0:
                return
            takes = len(self.proc_decls[listed[i][0].activity or ""].params)
            if phase.each_player:
                position, player = scope.fresh("$players"), scope.fresh("$player")
                code.append(core.Instr("forinit", phase.rule, a=position,
                                       args=(core.Ref("all", 0, "players", phase.rule),)))
                top = len(code)
                code.append(core.Instr("fornext", phase.rule))   # patched below
                code.append(core.Instr("call", phase.rule, a=phase.procedure,
                                       args=(core.Slot(player, phase.rule),)[:takes]))
                code.append(core.Instr("jump", phase.rule, target=top))
                code[top] = core.Instr("fornext", phase.rule, a=position, b=player,
                                       target=len(code))
            else:
                who = core.Ref("player", phase.side, world.players[phase.side].name,
                               phase.rule)
                code.append(core.Instr("call", phase.rule, a=phase.procedure,
                                       args=(who,)[:takes]))

        turn = sum(1 for p in phases if not p.opening)
        for i in range(turn, len(phases)):
            play(i)
        loop = len(code)
        for i in range(turn):
            play(i)
        code.append(core.Instr("endturn", rule, target=loop))
        return phases, core.Procedure("turn sequence", (), tuple(scope.names), tuple(code),
                                      rule)


class _Code:
    """The statements of one procedure into instructions, with jumps patched."""

    def __init__(self, owner: _Lowering, scope: Scope, rule: str) -> None:
        self.o, self.scope, self.rule = owner, scope, rule
        self.code: list[core.Instr] = []
        self.loops: list[tuple[int, list[int]]] = []   # (continue target, break jumps)

    def x(self, node: ir.Expr, rule: str | None = None) -> core.Expr:
        return self.o.expr(node, self.scope, rule or self.rule)

    def emit(self, op: str, **operands: Any) -> int:
        self.code.append(core.Instr(op, self.rule, **operands))
        return len(self.code) - 1

    def patch(self, at: int, **operands: Any) -> None:
        ins = self.code[at]
        self.code[at] = core.Instr(operands.pop("op", ins.op), ins.rule, **{
            "a": ins.a, "b": ins.b, "target": ins.target, "args": ins.args,
            "options": ins.options, "text": ins.text, "keys": ins.keys, **operands})

    def here(self) -> int:
        return len(self.code)

    def block(self, statements: Iterable[ir.Stmt]) -> None:
        for st in statements:
            self.stmt(st)

    def call(self, name: str, args: tuple[core.Expr, ...], span: Span) -> None:
        decl = self.o.proc_decls.get(name)
        if decl is None:
            raise self.o.fail(f"no procedure {name!r}", span, self.rule)
        if len(args) != len(decl.params):
            raise self.o.fail(f"{name} takes {len(decl.params)} argument(s), not {len(args)}",
                              span, self.rule)
        self.emit("call", a=self.o.procs[name], args=args)

    def stmt(self, st: ir.Stmt) -> None:
        slots, o = self.scope.slots, self.o
        if isinstance(st, ir.Let):
            self.emit("let", a=slots[st.name], args=(self.x(st.value),))
        elif isinstance(st, ir.SetStmt):
            if isinstance(st.target, ir.Name):
                name = st.target.id
                if name in slots:
                    self.emit("let", a=slots[name], args=(self.x(st.value),))
                elif name in o.values:
                    self.emit("setglobal", a=o.values[name], args=(self.x(st.value),))
                else:
                    raise o.fail(f"'set {name}': no such variable or value", st.span,
                                 self.rule)
            elif isinstance(st.target, ir.Attr):
                self.emit("setattr", text=st.target.name,
                          args=(self.x(st.target.obj), self.x(st.value)))
            else:
                raise o.fail("'set' writes a variable or an attribute", st.span, self.rule)
        elif isinstance(st, ir.Put):
            self.emit("put", args=(self.x(st.pieces), self.x(st.place)))
        elif isinstance(st, ir.CallEach):
            given = tuple(self.x(a) for a in st.args)
            for c in o.hook_clauses.get(st.hook, ()):
                if not isinstance(c.value, ir.Name):
                    continue
                skip = self.emit("jumpifnot") if c.when is not None else None
                self.call(c.value.id, given, st.span)
                if skip is not None and c.when is not None:
                    self.patch(skip, args=(self.x(c.when, c.rule),), target=self.here())
        elif isinstance(st, ir.If):
            jump = self.emit("jumpifnot", args=(self.x(st.test),))
            self.block(st.then)
            if st.otherwise:
                skip = self.emit("jump")
                self.patch(jump, target=self.here())
                self.block(st.otherwise)
                self.patch(skip, target=self.here())
            else:
                self.patch(jump, target=self.here())
        elif isinstance(st, ir.ForEach):
            position = self.scope.fresh(f"$for:{st.name}")
            self.emit("forinit", a=position, args=(self.x(st.domain),))
            top = self.emit("fornext", a=position, b=slots[st.name])
            breaks: list[int] = []
            self.loops.append((top, breaks))
            self.block(st.body)
            self.emit("jump", target=top)
            self.loops.pop()
            where = (self.x(st.where),) if st.where is not None else ()
            self.patch(top, args=where, target=self.here())
            for b in breaks:
                self.patch(b, target=self.here())
        elif isinstance(st, (ir.While, ir.Loop)):
            top = self.here()
            test = (self.emit("jumpifnot", args=(self.x(st.test),))
                    if isinstance(st, ir.While) else None)
            breaks = []
            self.loops.append((top, breaks))
            self.block(st.body)
            self.emit("jump", target=top)
            self.loops.pop()
            if test is not None:
                self.patch(test, target=self.here())
            for b in breaks:
                self.patch(b, target=self.here())
        elif isinstance(st, (ir.Break, ir.Continue)):
            if not self.loops:
                word = "break" if isinstance(st, ir.Break) else "continue"
                raise o.fail(f"'{word}' outside a loop", st.span, self.rule)
            if isinstance(st, ir.Break):
                self.loops[-1][1].append(self.emit("jump"))
            else:
                self.emit("jump", target=self.loops[-1][0])
        elif isinstance(st, ir.Return):
            self.emit("return")
        elif isinstance(st, ir.CallStmt):
            self.call(st.name, tuple(self.x(a) for a in st.args), st.span)
        elif isinstance(st, ir.Choose):
            at = self.emit("choose", args=(self.x(st.player),))
            options, ends = self.options(st.options)
            for end in ends:
                self.patch(end, target=self.here())
            self.patch(at, options=options, target=self.here())
        elif isinstance(st, ir.ChooseSealed):
            chooser = slots[st.name]
            queue = self.scope.fresh(f"$sealed:{st.name}")
            at = self.emit("sealed", a=chooser, b=queue, args=(self.x(st.players),))
            dispatch = self.emit("dispatch", a=chooser, b=queue)
            options, ends = self.options(st.options)
            for end in ends:
                self.patch(end, target=dispatch)
            self.patch(at, options=options, target=dispatch)
            self.patch(dispatch, target=self.here())
        elif isinstance(st, (ir.Roll, ir.Draw)):
            what = st.dice if isinstance(st, ir.Roll) else st.source
            self.emit("roll" if isinstance(st, ir.Roll) else "draw", a=slots[st.name],
                      args=(self.x(what),))
        elif isinstance(st, ir.Shuffle):
            self.emit("shuffle", args=(self.x(st.place),))
        elif isinstance(st, ir.Log):
            parts = o.template(st.text, st.span, self.scope, self.rule)
            args: list[core.Expr] = list(parts)
            keys = ["text"] * len(parts)
            if st.cite is not None:
                args.append(self.x(st.cite))
                keys.append("cite")
            if st.to is not None:
                args.append(self.x(st.to))
                keys.append("to")
            self.emit("log", args=tuple(args), keys=tuple(keys))
        elif isinstance(st, ir.Finish):
            args, keys = [], []
            if st.winner is not None:
                args.append(self.x(st.winner))
                keys.append("winner")
            reason = o.template(st.reason, st.span, self.scope, self.rule)
            args += reason
            keys += ["reason"] * len(reason)
            for k, value in st.report:
                args.append(self.x(value))
                keys.append(f"report:{k}")
            self.emit("finish", args=tuple(args), keys=tuple(keys))
        elif isinstance(st, ir.Reveal):
            self.emit("reveal", args=(self.x(st.pieces), self.x(st.to)))
        elif isinstance(st, ir.Fail):
            self.emit("fail", text=st.message)
        else:
            raise o.fail(f"the core cannot state the statement {type(st).__name__}",
                         getattr(st, "span", None), self.rule)

    def options(self, options: Iterable[ir.Option]) -> tuple[tuple[core.Option, ...], list[int]]:
        """Each option's body, each ending in a jump (patched by the caller)."""
        slots = self.scope.slots
        out, ends = [], []
        for option in options:
            action = self.o.action_index(option.kind, option.span, self.rule)
            params = tuple((slots[p.name], self.x(p.domain)) for p in option.params)
            bindings = tuple((slots[n], self.x(e)) for n, e in option.bindings)
            where = self.x(option.where) if option.where is not None else None
            cite = self.x(option.cite) if option.cite is not None else None
            body = self.here()
            self.block(option.body)
            ends.append(self.emit("jump"))
            out.append(core.Option(action, params, bindings, where, cite, body, self.rule))
        return tuple(out), ends
