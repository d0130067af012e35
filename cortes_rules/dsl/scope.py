"""Names in scope: what every expression of a core rulebook may see.

The checker (``.check``) uses this module to find unknown names, unknown
functions and procedures, wrong argument counts and statements out of place,
before anything runs. What a name means follows the interpreter
(``cortes_rules.engine.compile``, ``cortes_rules.engine.machine``):

- a procedure body is lexically scoped: it sees its parameters and the
  variables it binds (``let``, ``for each``, option parameters, ``with``
  bindings, ``roll``, ``draw``, a sealed choice's player), in the order they
  are bound;
- everything else is dynamically scoped: a ``forbid``/``permit`` clause on
  an action kind sees what is bound where such actions are offered (the
  ``choose`` options of that kind, and ``allowed("kind")``); a contribution
  to a hook sees what is bound where the hook is read; a function's body
  sees its parameters and what is bound where it is called. A name is
  unknown there when it is bound at none of those places and is no
  declaration of the rulebook. A function no clause calls (one the API
  evaluates, or a helper a library offers), a hook nobody reads and an
  action kind never offered have no such places: their names are accepted
  when something somewhere in the rulebook binds them;
- derived attributes see their owner (``piece``, ``place`` or ``player``),
  ``hide`` clauses ``piece`` and ``viewer``.

Every place is analysed once; the dynamic scopes are then the least fixed
point of "what the sites of an entity bind, plus the scope of the entity
each site sits in".
"""

from __future__ import annotations

import difflib
import re
from collections.abc import Callable, Iterable, Iterator
from typing import Any

import attrs

from . import ir, render
from .diagnostics import SourceLines, Span

# Names every rulebook has (see compile.py's Compiler._Name).
# ``phase`` is the name of the phase being played (text), ``turn`` its turn.
BUILTIN_NAMES = frozenset({"players", "pieces", "hexes", "areas", "zones", "turn", "phase"})

# Built-in functions called with plain arguments: name -> (least, most) arguments.
BUILTIN_FUNCTIONS: dict[str, tuple[int, int | None]] = {
    "count": (1, 1), "len": (1, 1), "any": (1, 1), "all": (1, 1), "sum": (1, 1),
    "max": (1, None), "min": (1, None), "distinct": (1, 1), "floor": (1, 1), "ceil": (1, 1),
    "abs": (1, 1), "first": (1, 2), "sorted": (1, 1), "set": (1, 1), "list": (1, 1),
    "adjacent": (2, 2), "distance": (2, 2), "neighbours": (1, 1), "zone": (1, 1),
    "hexside": (2, 2), "sight_lines": (2, 2),
    "str": (1, 1), "join": (2, 2), "rest": (1, 1), "subsets": (2, 2), "union": (1, 1),
    "is_number": (1, 1), "direction": (2, 2), "columns": (1, 1), "table_rule": (1, 1),
    "cell": (3, 3), "with_rules": (1, 1), "defined": (1, 1), "allowed": (1, 1),
    "forbid_rules": (1, 1), "permit_rules": (1, 1), "forbids_reading": (1, 1),
    "applied": (1, 1), "next_player": (1, 1), "rolled": (0, 0), "rules": (1, 1),
    "failing": (1, 1),
}
# Built-ins that take a comprehension (``f(x in S where C)``, ``f(E for x in S)``),
# with how many further plain arguments they accept.
COMPREHENSIONS: dict[str, int] = {
    "count": 0, "any": 0, "all": 0, "sum": 0, "max": 1, "min": 1, "distinct": 0, "set": 0,
    "list": 0, "first": 1, "union": 0, "sorted": 0, "distribution": 0,
}
# Built-ins whose one argument is the name of a hook.
HOOK_READERS = frozenset({"rules", "failing", "applied"})
# Built-ins whose one argument is an action kind, as a string.
KIND_READERS = frozenset({"allowed", "forbid_rules", "permit_rules"})

# Attributes the interpreter gives every piece, place and player. What a
# counter line prints beyond them is declared (``printed``, ``property``).
BUILTIN_ATTRIBUTES = frozenset({
    "place", "side", "class", "id",                      # pieces
    "pieces", "terrain", "owner", "kind", "shore",       # places
    "name",                                              # players
})

_PATH = re.compile(r"[A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*")
_BRACES = re.compile(r"\{([^{}]*)\}|[{}]")
"""A ``{...}`` of a text (its inside as group 1), or a brace that pairs with none."""


def _brace_problem(found: str) -> str:
    """What is wrong with braces in a log or finish text that are no field."""
    if found in ("{", "}"):
        return (f"{found!r} with no {'closing' if found == '{' else 'opening'} brace in a "
                "text: braces in a log or finish text only enclose a field such as "
                "{unit} or {unit.place}")
    return (f"{found!r} in a text is not a field: a field is a name or an attribute path, "
            "such as {unit} or {unit.place}; work anything else out first ('let v = ...', "
            "then {v})")

Entity = tuple[str, str] | None
"""Whose dynamic scope an expression is in: ("function", f), ("hook", h),
("action", kind), or None for a lexical scope."""

Report = Callable[..., None]


def close_matches(name: str, known: Iterable[str]) -> list[str]:
    return difflib.get_close_matches(name, sorted(set(known)), n=3)


def hint(name: str, known: Iterable[str]) -> str:
    """``; did you mean 'x'?`` when a known name is close, else nothing."""
    close = close_matches(name, known)
    return f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""


class Declarations:
    """Every name a rulebook declares, by kind, with the first declaration of each."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        of = program.of
        self.players = {d.name: d for d in (*of(ir.PlayerDecl), *of(ir.SideDecl))}
        self.values = {d.name: d for d in of(ir.ValueDecl)}
        self.hooks = {d.name: d for d in of(ir.HookDecl)}
        self.functions: dict[str, ir.FunctionDecl] = {}
        for function in of(ir.FunctionDecl):
            self.functions.setdefault(function.name, function)
        self.procedures: dict[str, ir.Procedure] = {}
        for procedure in of(ir.Procedure):
            self.procedures.setdefault(procedure.name, procedure)
        self.actions: dict[str, ir.ActionDecl] = {}
        for action in of(ir.ActionDecl):
            self.actions.setdefault(action.name, action)
        self.pools = {d.name: d for d in of(ir.PoolDecl)}
        self.phases = {p.name for s in of(ir.Sequence) for p in s.phases}
        self.tables = {d.name: d for d in of(ir.TableDecl)}
        self.dice = {d.name: d for d in (*of(ir.DiceDecl), *of(ir.FaceDieDecl))}
        self.classes = {d.name: d for d in of(ir.ClassDecl)}
        self.traits = {t for d in of(ir.ClassDecl) for t in d.traits}
        self.flags = {d.name: d for d in of(ir.FlagDecl)}
        self.properties = {d.name: d for d in of(ir.PropertyDecl)}
        self.printed = {d.name: d for d in of(ir.PrintedDecl)}
        self.property_values = {v for d in of(ir.PropertyDecl) for v in d.values}
        self.terrain = {d.name: d for d in of(ir.TerrainDecl)}
        self.hexsides = {d.name: d for d in of(ir.HexsideDecl)}
        data = program.map
        self.areas = set(data.areas) if data else set()
        self.regions = set(data.places) | set(data.zone_groups) if data else set()
        self.area_features = {f for _, fs in data.areas.values() for f in fs} if data else set()
        self.attributes = {a.name for a in of(ir.AttributeDecl)}
        self.derived = {d.name for d in of(ir.DeriveDecl)}
        self.symbols = (set(self.classes) | self.traits | set(self.flags) | set(self.terrain)
                        | set(self.hexsides) | self.property_values)
        # Names an expression may use bare, whatever its scope.
        self.globals = frozenset(
            set(self.values) | set(self.hooks) | set(self.players) | set(self.pools)
            | set(self.tables) | set(self.dice) | self.areas | self.regions | self.symbols
            | BUILTIN_NAMES
            | {f for f, d in self.functions.items() if not d.params})
        # Names that may follow `is` / `has`.
        self.tags = frozenset(self.symbols | set(self.players) | self.area_features)
        columns = {c.name for t in self.tables.values() for c in t.columns
                   if isinstance(c, ir.NameCell)}
        self.attribute_names = frozenset(
            self.attributes | self.derived | BUILTIN_ATTRIBUTES | set(self.properties)
            | set(self.printed) | columns)

        self.switched_off = switched_off(program)
        """Names declared only by optional rules that are not in play -> the rule."""

    def missing(self, name: str, known: Iterable[str]) -> str:
        """What to add to "unknown ... 'name'": the optional rule that declares it when
        that rule is not in play, else a suggestion (``hint``)."""
        rule = self.switched_off.get(name)
        if rule is not None:
            return (f": it is declared in {rule}, which is not in play (an optional rule "
                    "that this load does not switch on)")
        return hint(name, known)

    def table_of(self, node: ir.Expr, bound: frozenset[str]) -> ir.TableDecl | None:
        """The table a bare name stands for, unless a variable hides it."""
        if isinstance(node, ir.Name) and node.id not in bound:
            return self.tables.get(node.id)
        return None


def switched_off(program: ir.Program) -> dict[str, str]:
    """Each name that an optional rule not in play declares (and no rule in play
    does) -> that rule's number."""
    found: dict[str, str] = {}
    in_play = program.rules
    for rule in program.all_rules:
        if not rule.optional or rule.number in in_play:
            continue
        stack: list[Any] = list(rule.statements)
        while stack:
            statement = stack.pop()
            if isinstance(statement, ir.WhenReading):
                stack.extend(statement.body)
                continue
            for name in declared_names(statement):
                found.setdefault(name, rule.number)
    if found:
        for statement in program.statements:
            for name in declared_names(statement):
                found.pop(name, None)
    return found


def declared_names(statement: Any) -> Iterator[str]:
    """The names a statement declares (a class also declares its traits)."""
    if isinstance(statement, _DECLARATIONS):
        yield statement.name
    if isinstance(statement, ir.ClassDecl):
        yield from statement.traits
    elif isinstance(statement, ir.PropertyDecl):
        yield from statement.values


_DECLARATIONS = (ir.SideDecl, ir.PlayerDecl, ir.FlagDecl, ir.PropertyDecl, ir.ClassDecl,
                 ir.TerrainDecl, ir.HexsideDecl, ir.TableDecl, ir.DiceDecl, ir.FaceDieDecl,
                 ir.PoolDecl, ir.ValueDecl, ir.HookDecl, ir.FunctionDecl, ir.Procedure,
                 ir.ActionDecl, ir.AttributeDecl, ir.PrintedDecl, ir.DeriveDecl)


@attrs.frozen
class _Ref:
    """A bare name used somewhere, with what is bound there."""

    name: str
    span: Span
    rule: str
    bound: frozenset[str]
    entity: Entity


@attrs.frozen
class _Context:
    """Where statements are being walked: for messages and for break/continue."""

    rule: str
    loops: int = 0


class ScopeChecker:
    """Walks every expression and procedure of a program once; see the module docstring."""

    def __init__(self, declared: Declarations, lines: SourceLines, report: Report) -> None:
        self.d = declared
        self.lines = lines
        self.report = report
        self.refs: list[_Ref] = []
        self.sites: dict[tuple[str, str], list[tuple[frozenset[str], Entity]]] = {}
        self.scopes: dict[tuple[str, str], frozenset[str]] = {}
        self.lenient: set[tuple[str, str]] = set()
        self.binders: set[str] = set()
        """Every name bound anywhere (parameters, variables, bindings, binders)."""
        self.tag_uses: list[tuple[ir.Is, str]] = []
        """Every ``x is NAME`` / ``x has NAME`` with its rule (for the map's terrain check)."""

    # -------------------------------------------------------------- entry point
    def run(self, statements: Iterable[ir.Statement]) -> None:
        statements = list(statements)
        self.contributions: dict[str, list[ir.Contribute]] = {}
        for statement in statements:
            if isinstance(statement, ir.Contribute):
                self.contributions.setdefault(statement.hook, []).append(statement)
        for statement in statements:
            self.statement(statement)
        self.solve()
        self.resolve()

    def bind(self, bound: frozenset[str], *names: str) -> frozenset[str]:
        """``bound`` with ``names`` added (and recorded as bound somewhere)."""
        self.binders.update(names)
        return bound | frozenset(names)

    def statement(self, st: ir.Statement) -> None:
        rule = st.rule
        nothing: frozenset[str] = frozenset()
        if isinstance(st, ir.Procedure):
            context = _Context(rule)
            self.block(st.body, self.bind(nothing, *st.params), context)
        elif isinstance(st, ir.FunctionDecl):
            self.expr(st.body, self.bind(nothing, *st.params), ("function", st.name), rule)
        elif isinstance(st, ir.Contribute):
            hook = ("hook", st.hook)
            if st.hook not in self.d.hooks:
                self.lenient.add(hook)
            declared = self.d.hooks.get(st.hook)
            if declared is not None and declared.type.name == "procedure":
                # A procedure hook takes the name of a procedure, called by 'call each'.
                if not (isinstance(st.value, ir.Name) and st.value.id in self.d.procedures):
                    self.report(st.value.span, f"hook {st.hook} takes the name of a procedure"
                                f"{self.d.missing(render.expr(st.value), self.d.procedures)}", rule)
            else:
                self.expr(st.value, nothing, hook, rule)
            if st.when is not None:
                self.expr(st.when, nothing, hook, rule)
        elif isinstance(st, (ir.Forbid, ir.Permit)):
            kind = ("action", st.action)
            if st.action not in self.d.actions:
                self.lenient.add(kind)
            self.expr(st.when, nothing, kind, rule)
        elif isinstance(st, ir.DeriveDecl):
            self.expr(st.expr, self.bind(nothing, st.owner), None, rule)
        elif isinstance(st, ir.AttributeDecl) and st.initial is not None:
            self.expr(st.initial, self.bind(nothing, st.owner), None, rule)
        elif isinstance(st, ir.ValueDecl):
            self.expr(st.initial, nothing, None, rule)
        elif isinstance(st, ir.HideDecl):
            bound = ("player", "viewer") if st.attribute else ("piece", "viewer")
            self.expr(st.when, self.bind(nothing, *bound), None, rule)
        elif isinstance(st, ir.FinishDecl):
            for node in (st.when, st.winner, *(v for _, v in st.report)):
                if node is not None:
                    self.expr(node, nothing, None, rule)
            self.template(st.reason, st.span, nothing, rule)
        elif isinstance(st, ir.StartRequireDecl):
            inner = nothing
            if st.domain is not None and st.var is not None:
                self.expr(st.domain, nothing, None, rule)
                inner = self.bind(nothing, st.var)
            self.expr(st.test, inner, None, rule)
            self.template(st.message, st.span, inner, rule)
            if st.cite is not None:
                self.expr(st.cite, inner, None, rule)

    # -------------------------------------------------------------- procedures
    def block(self, statements: Iterable[ir.Stmt], bound: frozenset[str],
              context: _Context) -> frozenset[str]:
        """Check statements in order; the names bound after them."""
        for st in statements:
            bound = self.stmt(st, bound, context)
        return bound

    def stmt(self, st: ir.Stmt, bound: frozenset[str], context: _Context) -> frozenset[str]:
        rule = context.rule

        def x(node: ir.Expr | None, names: frozenset[str] = bound) -> None:
            if node is not None:
                self.expr(node, names, None, rule)

        if isinstance(st, ir.Let):
            x(st.value)
            return self.bind(bound, st.name)
        if isinstance(st, ir.SetStmt):
            x(st.value)
            self.set_target(st.target, bound, rule)
        elif isinstance(st, ir.Put):
            x(st.pieces)
            x(st.place)
        elif isinstance(st, ir.If):
            x(st.test)
            return (self.block(st.then, bound, context)
                    | self.block(st.otherwise, bound, context))
        elif isinstance(st, ir.ForEach):
            x(st.domain)
            inner = self.bind(bound, st.name)
            x(st.where, inner)
            return self.block(st.body, inner, attrs.evolve(context, loops=context.loops + 1))
        elif isinstance(st, ir.While):
            x(st.test)
            return self.block(st.body, bound, attrs.evolve(context, loops=context.loops + 1))
        elif isinstance(st, ir.Loop):
            return self.block(st.body, bound, attrs.evolve(context, loops=context.loops + 1))
        elif isinstance(st, (ir.Break, ir.Continue)):
            if context.loops == 0:
                word = "break" if isinstance(st, ir.Break) else "continue"
                self.report(st.span, f"'{word}' outside a loop: it must stand inside 'loop', "
                            "'while' or 'for each'", rule)
        elif isinstance(st, ir.CallStmt):
            for arg in st.args:
                x(arg)
            self.call_procedure(st, rule)
        elif isinstance(st, ir.CallEach):
            for arg in st.args:
                x(arg)
            self.call_each(st, rule)
        elif isinstance(st, ir.Choose):
            x(st.player)
            return self.options(st.options, bound, context)
        elif isinstance(st, ir.ChooseSealed):
            x(st.players)
            return self.options(st.options, self.bind(bound, st.name), context)
        elif isinstance(st, ir.Roll):
            x(st.dice)
            return self.bind(bound, st.name)
        elif isinstance(st, ir.Draw):
            x(st.source)
            return self.bind(bound, st.name)
        elif isinstance(st, ir.Shuffle):
            x(st.place)
        elif isinstance(st, ir.Log):
            self.template(st.text, st.span, bound, rule)
            x(st.cite)
            x(st.to)
        elif isinstance(st, ir.Finish):
            x(st.winner)
            self.template(st.reason, st.span, bound, rule)
            for _, value in st.report:
                x(value)
        elif isinstance(st, ir.Reveal):
            x(st.pieces)
            x(st.to)
        elif isinstance(st, ir.Fail):
            self.fail_text(st, rule)
        return bound

    def options(self, options: Iterable[ir.Option], bound: frozenset[str],
                context: _Context) -> frozenset[str]:
        after = bound
        rule = context.rule
        for option in options:
            inner = bound
            action = self.d.actions.get(option.kind)
            if action is None:
                self.report(option.span, f"option {option.kind!r}: no 'action "
                            f"{option.kind}' declares this kind of action"
                            f"{self.d.missing(option.kind, self.d.actions)}", rule)
            elif len(action.params) != len(option.params):
                self.report(option.span, f"option {option.kind!r} has {len(option.params)} "
                            f"parameter(s), but the action {option.kind} takes "
                            f"{len(action.params)}", rule)
            for param in option.params:
                self.expr(param.domain, inner, None, rule)
                inner = self.bind(inner, param.name)
            for name, value in option.bindings:
                self.expr(value, inner, None, rule)
                inner = self.bind(inner, name)
            if option.where is not None:
                self.expr(option.where, inner, None, rule)
            if option.cite is not None:
                self.expr(option.cite, inner, None, rule)
            self.site(("action", option.kind), inner, None)
            after = after | self.block(option.body, inner, context)
        return after

    def set_target(self, target: ir.Expr, bound: frozenset[str], rule: str) -> None:
        if isinstance(target, ir.Name):
            if target.id not in bound and target.id not in self.d.values:
                self.report(target.span, f"'set {target.id}': {target.id!r} is neither a "
                            "variable of this procedure nor a declared value"
                            f"{self.d.missing(target.id, bound | set(self.d.values))}", rule)
            return
        if isinstance(target, ir.Attr):
            self.expr(target.obj, bound, None, rule)
            if target.name in self.d.attributes:
                return
            if target.name in self.d.derived:
                why = "a derived attribute, computed from others: it cannot be set"
            else:
                why = ("not a declared attribute (declare it with 'attribute piece|place|"
                       f"player {target.name}: TYPE')"
                       f"{self.d.missing(target.name, self.d.attributes)}")
            self.report(target.span, f"'set {render.expr(target)}': {target.name!r} is {why}",
                        rule)

    def call_procedure(self, st: ir.CallStmt, rule: str) -> None:
        procedure = self.d.procedures.get(st.name)
        if procedure is None:
            known = self.d.procedures
            what = (f"; {st.name} is a function: use it in an expression"
                    if st.name in self.d.functions else self.d.missing(st.name, known))
            self.report(st.span, f"unknown procedure {st.name!r}{what}", rule)
        elif len(procedure.params) != len(st.args):
            self.report(st.span, f"procedure {st.name} takes {len(procedure.params)} "
                        f"argument(s), not {len(st.args)}", rule)

    def call_each(self, st: ir.CallEach, rule: str) -> None:
        hook = self.d.hooks.get(st.hook)
        if hook is None or hook.type.name != "procedure":
            what = "not a procedure hook" if hook is not None else "not a hook"
            self.report(st.span, f"'call each {st.hook}': {st.hook!r} is {what} (declare "
                        f"'hook {st.hook}: procedure \"...\"')", rule)
            return
        for contribution in self.contributions.get(st.hook, ()):
            if isinstance(contribution.value, ir.Name):
                procedure = self.d.procedures.get(contribution.value.id)
                if procedure is not None and len(procedure.params) != len(st.args):
                    self.report(contribution.span,
                                f"procedure {procedure.name} takes {len(procedure.params)} "
                                f"argument(s), but 'call each {st.hook}' passes "
                                f"{len(st.args)}", contribution.rule)

    def template(self, text: str, span: Span, bound: frozenset[str], rule: str) -> None:
        """The ``{name.attr}`` fields of a log or finish text, as expressions. Braces
        around anything else (a call, an operator), or left open, are an error: the
        text would show them as they are written."""
        source = self.lines.line(span.path, span.line)
        quoted = source.find(f'"{text}"', span.column - 1)
        for match in _BRACES.finditer(text):
            if quoted >= 0:
                column = quoted + 2 + match.start()
            else:
                at = source.find(match[0], span.column - 1)
                column = at + 1 if at >= 0 else span.column
            where = Span(span.path, span.line, column, column + len(match[0]))
            if match[1] is None or not _PATH.fullmatch(match[1]):
                self.report(where, _brace_problem(match[0]), rule)
                continue
            names = match[1].split(".")
            node: ir.Expr = ir.Name(names[0], Span(span.path, span.line, column + 1,
                                                   column + 1 + len(names[0])))
            for attribute in names[1:]:
                node = ir.Attr(node, attribute, Span(span.path, span.line, column + 1,
                                                     column + 1 + len(match[1])))
            self.expr(node, bound, None, rule)

    def fail_text(self, st: ir.Fail, rule: str) -> None:
        """A ``fail`` text is shown as written: a ``{field}`` in it is never filled in."""
        match = _BRACES.search(st.message)
        if match is not None:
            source = self.lines.line(st.span.path, st.span.line)
            quoted = source.find(f'"{st.message}"', st.span.column - 1)
            column = quoted + 2 + match.start() if quoted >= 0 else st.span.column
            self.report(Span(st.span.path, st.span.line, column, column + len(match[0])),
                        f"{match[0]!r} in a 'fail' text: a fail text is shown as it is "
                        "written, with no fields filled in (a 'log' text fills them)", rule)

    # -------------------------------------------------------------- expressions
    def expr(self, node: ir.Expr, bound: frozenset[str], entity: Entity, rule: str) -> None:
        if isinstance(node, ir.Name):
            self.name(node, bound, entity, rule)
        elif isinstance(node, ir.Call):
            self.call(node, bound, entity, rule)
        elif isinstance(node, ir.Attr):
            self.attribute(node, bound, entity, rule)
        elif isinstance(node, ir.Index):
            self.index(node, bound, entity, rule)
        elif isinstance(node, ir.Is):
            self.expr(node.subject, bound, entity, rule)
            self.tag_uses.append((node, rule))
            if node.name not in self.d.tags:
                self.report(node.name_span, f"unknown symbol {node.name!r} after "
                            f"'{node.op}'{self.d.missing(node.name, self.d.tags)}", rule)
        else:
            if isinstance(node, ir.Compare) and isinstance(node.left, ir.Name) \
                    and node.left.id == "phase" and "phase" not in bound:
                self.phase_names(node.right, rule)
            for child in children(node):
                self.expr(child, bound, entity, rule)

    def phase_names(self, node: ir.Expr, rule: str) -> None:
        """A phase name compared with ``phase`` must be a phase of the sequence."""
        texts = node.items if isinstance(node, (ir.ListLit, ir.SetLit, ir.TupleLit)) else (node,)
        for text in texts:
            if isinstance(text, ir.StrLit) and text.value not in self.d.phases:
                self.report(text.span, f"no phase {text.value!r} in the turn sequence"
                            f"{self.d.missing(text.value, self.d.phases)}", rule)

    def name(self, node: ir.Name, bound: frozenset[str], entity: Entity, rule: str) -> None:
        name = node.id
        if name in bound:
            return
        function = self.d.functions.get(name)
        if function is not None and function.params:
            self.report(node.span, f"{name} is a function of {len(function.params)} "
                        f"argument(s): write {name}(...)", rule)
            return
        if function is not None:
            self.site(("function", name), bound, entity)
        elif name in self.d.hooks:
            self.site(("hook", name), bound, entity)
        if name not in self.d.globals:
            self.refs.append(_Ref(name, node.span, rule, bound, entity))

    def call(self, node: ir.Call, bound: frozenset[str], entity: Entity, rule: str) -> None:
        func = node.func
        for arg in node.args:
            self.expr(arg, bound, entity, rule)
        if node.binder is not None:
            assert node.domain is not None
            self.expr(node.domain, bound, entity, rule)
            inner = self.bind(bound, node.binder)
            for part in (node.element, node.where):
                if part is not None:
                    self.expr(part, inner, entity, rule)
            if func in self.d.functions:
                self.report(node.span, f"{func} is a function of the rulebook: it takes "
                            "plain arguments, not 'x in S'", rule)
            elif func in COMPREHENSIONS:
                if len(node.args) > COMPREHENSIONS[func]:
                    self.report(node.span, f"{func}(x in S ...) takes "
                                f"{COMPREHENSIONS[func] or 'no'} further argument(s)", rule)
            elif func in BUILTIN_FUNCTIONS:
                self.report(node.span, f"{func}(...) does not take 'x in S' (those that do: "
                            f"{', '.join(sorted(COMPREHENSIONS))})", rule)
            else:
                self.unknown_function(node, rule)
            return
        function = self.d.functions.get(func)
        if function is not None:
            if len(function.params) != len(node.args):
                self.report(node.span, f"function {func} takes {len(function.params)} "
                            f"argument(s), not {len(node.args)}", rule)
            self.site(("function", func), bound, entity)
            return
        limits = BUILTIN_FUNCTIONS.get(func)
        if limits is None:
            if func in COMPREHENSIONS:
                self.report(node.span, f"{func}(...) takes 'E for x in S'", rule)
            else:
                self.unknown_function(node, rule)
            return
        least, most = limits
        count = len(node.args)
        if count < least or (most is not None and count > most):
            wanted = str(least) if least == most else (
                f"{least} or more" if most is None else f"{least} to {most}")
            self.report(node.span, f"{func} takes {wanted} argument(s), not {count}", rule)
            return
        given = node.args[0] if node.args else None
        if func in HOOK_READERS:
            if not (isinstance(given, ir.Name) and given.id in self.d.hooks
                    and given.id not in bound):
                what = render.expr(given) if given is not None else ""
                self.report(node.span, f"{func}(...) takes the name of a hook, not {what}"
                            f"{self.d.missing(what, self.d.hooks)}", rule)
        elif func in KIND_READERS and isinstance(given, ir.StrLit):
            if given.value not in self.d.actions:
                self.report(given.span, f"unknown action {given.value!r}"
                            f"{self.d.missing(given.value, self.d.actions)}", rule)
            elif func == "allowed":
                self.site(("action", given.value), bound, entity)

    def unknown_function(self, node: ir.Call, rule: str) -> None:
        if node.func in self.d.procedures:
            self.report(node.span, f"{node.func} is a procedure: use 'call {node.func}(...)' "
                        "as a statement", rule)
            return
        known = set(BUILTIN_FUNCTIONS) | set(COMPREHENSIONS) | set(self.d.functions)
        self.report(node.span, f"unknown function {node.func!r}"
                    f"{self.d.missing(node.func, known)}", rule)

    def attribute(self, node: ir.Attr, bound: frozenset[str], entity: Entity,
                  rule: str) -> None:
        self.expr(node.obj, bound, entity, rule)
        if isinstance(node.obj, ir.Index):
            table = self.d.table_of(node.obj.obj, bound)
            if table is not None:
                columns = [render.cell(c) for c in table.columns]
                if node.name not in columns:
                    self.report(node.span, f"unknown column of table {table.name} "
                                f"{node.name!r}{self.d.missing(node.name, columns)}", rule)
                return
        if node.name not in self.d.attribute_names:
            self.report(node.span, f"unknown attribute {node.name!r}"
                        f"{self.d.missing(node.name, self.d.attribute_names)}", rule)

    def index(self, node: ir.Index, bound: frozenset[str], entity: Entity, rule: str) -> None:
        self.expr(node.obj, bound, entity, rule)
        table = self.d.table_of(node.obj, bound)
        key = node.key
        if table is not None and (isinstance(key, ir.IntLit)
                                  or (isinstance(key, ir.Name) and key.id not in bound)):
            rows = [render.cell(r.key) for r in table.rows]
            text = render.expr(key)
            if text not in rows:
                self.report(key.span, f"unknown row of table {table.name} {text!r}"
                            f"{self.d.missing(text, rows)}", rule)
                return
        self.expr(key, bound, entity, rule)

    # -------------------------------------------------------------- dynamic scopes
    def site(self, target: tuple[str, str], bound: frozenset[str], entity: Entity) -> None:
        """A place where ``target`` is evaluated, with what is bound there."""
        self.sites.setdefault(target, []).append((bound, entity))

    def solve(self) -> None:
        """The names bound where each function, hook and action kind is evaluated."""
        scopes: dict[tuple[str, str], frozenset[str]] = {k: frozenset() for k in self.sites}
        changed = True
        while changed:
            changed = False
            for target, sites in self.sites.items():
                names = set(scopes[target])
                for bound, entity in sites:
                    names |= bound
                    if entity is not None:
                        names |= scopes.get(entity, frozenset())
                if len(names) != len(scopes[target]):
                    scopes[target] = frozenset(names)
                    changed = True
        self.scopes = scopes

    def scope(self, entity: Entity) -> frozenset[str]:
        if entity is None:
            return frozenset()
        found = self.scopes.get(entity, frozenset())
        if entity[0] == "function" and entity[1] in self.d.functions:
            found = found | set(self.d.functions[entity[1]].params)
        return found

    def resolve(self) -> None:
        for ref in self.refs:
            entity = ref.entity
            if entity in self.lenient or ref.name in self.scope(entity):
                continue
            if ref.name in self.d.switched_off:
                self.report(ref.span, f"unknown name {ref.name!r}"
                            f"{self.d.missing(ref.name, ())}", ref.rule)
                continue
            if entity is not None and entity not in self.sites:
                if ref.name in self.binders:
                    continue
                self.report(ref.span, f"unknown name {ref.name!r}: not declared, and bound "
                            f"nowhere in the rulebook ({nowhere(entity)})"
                            f"{self.d.missing(ref.name, self.binders | self.d.globals)}", ref.rule)
                continue
            known = ref.bound | self.scope(entity) | self.d.globals
            self.report(ref.span, f"unknown name {ref.name!r}{where(entity)}"
                        f"{self.d.missing(ref.name, known)}", ref.rule)


def nowhere(entity: tuple[str, str]) -> str:
    kind, name = entity
    if kind == "function":
        return f"no clause calls function {name}"
    if kind == "hook":
        return f"no clause reads hook {name}"
    return f"no choice offers {name!r} actions"


def where(entity: Entity) -> str:
    """Why a name is unknown in a dynamic scope, for the message."""
    if entity is None:
        return ""
    kind, name = entity
    if kind == "function":
        return f": not declared, and bound neither by function {name} nor where it is called"
    if kind == "hook":
        return f": not declared, and not bound where hook {name} is read"
    return f": not declared, and bound by no {name!r} option nor 'allowed(\"{name}\")'"


_EXPRESSIONS = (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit, ir.Name, ir.SetLit, ir.ListLit,
                ir.TupleLit, ir.Cond, ir.Attr, ir.Index, ir.Not, ir.BoolOp, ir.Compare,
                ir.Member, ir.Is, ir.Arith, ir.Neg, ir.Call)


def children(node: Any) -> Iterator[ir.Expr]:
    """The expressions directly inside an expression."""
    for field in attrs.fields(type(node)):
        value: Any = getattr(node, field.name)
        items: tuple[Any, ...] = value if isinstance(value, tuple) else (value,)
        for child in items:
            if isinstance(child, _EXPRESSIONS):
                yield child


def walk(node: ir.Expr) -> Iterator[ir.Expr]:
    """An expression and every expression inside it."""
    yield node
    for child in children(node):
        yield from walk(child)


__all__ = ["BUILTIN_FUNCTIONS", "COMPREHENSIONS", "Declarations", "ScopeChecker", "hint",
           "walk"]
