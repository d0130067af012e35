"""Stage 3: the checker. Finds every problem in a lowered program at once.

It runs before anything executes and reports, each with file:line:column,
the line, a caret and the rule number:

- duplicate rule numbers and duplicate declarations;
- unknown names (with a suggestion when one is close);
- type errors in expressions (see :mod:`.contexts` for the types);
- clauses that can never apply (a condition that is always false, a shift of
  zero columns, a ``despite`` naming a rule with nothing to lift);
- inconsistent data: table rows of the wrong width, combat tables that do not
  cover every roll of their dice, counters whose combat factors do not match
  their steps, hexsides between hexes that do not touch, set-ups naming
  unknown units or hexes;
- mechanisms a phase needs but no rule states (combat without odds...).
"""

from __future__ import annotations

import difflib
from collections.abc import Iterable

import attrs

from ..engine.hexgrid import adjacent
from . import ir, render
from .contexts import (
    ACTION_CONTEXTS,
    CONTEXTS,
    DEFINE_SCOPES,
    FUNCTIONS,
    HEX_ATTRIBUTES,
    UNIT_ATTRIBUTES,
    context_of,
)
from .diagnostics import Diagnostic, Span, line_of

NUMERIC = {"int", "num", "any"}
# The most steps a counter may have (Cortés counters have at most 4).
MAX_STEPS = 100


class Checker:
    """Collects diagnostics over one program; use :func:`check`."""

    def __init__(self, program: ir.Program) -> None:
        self.program = program
        self.texts = {m.path: m.text for m in program.modules}
        self.diagnostics: list[Diagnostic] = []
        self.symbols: dict[str, dict[str, ir.Statement]] = {
            "side": {}, "flag": {}, "property": {}, "class": {}, "terrain": {},
            "hexside": {}, "table": {}, "dice": {}, "trait": {}}
        self.property_values: dict[str, str] = {}
        self.defines: dict[str, dict[str, ir.Define]] = {c: {} for c in CONTEXTS}
        self.define_types: dict[int, str] = {}
        self._typing: set[int] = set()

    # -------------------------------------------------------------- reporting
    def error(self, span: Span, message: str, rule: str | None,
              expected: Iterable[str] = (), severity: str = "error") -> None:
        self.diagnostics.append(Diagnostic(
            span, message, rule=rule, expected=tuple(expected),
            source_line=line_of(self.texts.get(span.path, ""), span.line), severity=severity))

    def unknown(self, span: Span, kind: str, name: str, known: Iterable[str],
                rule: str | None) -> None:
        close = difflib.get_close_matches(name, list(known), n=3)
        hint = f"; did you mean {' or '.join(repr(c) for c in close)}?" if close else ""
        self.error(span, f"unknown {kind} {name!r}{hint}", rule,
                   expected=sorted(known)[:12] if not close else ())

    # -------------------------------------------------------------- entry point
    def run(self) -> list[Diagnostic]:
        self.check_rule_numbers()
        self.declare()
        self.check_declarations()
        self.check_tables()
        for statement in self.program.statements:
            self.check_statement(statement)
        if not self.program.of(ir.Procedure):  # the first engine's built-in activities
            self.check_mechanisms()
        self.check_data_blocks()
        self.check_counters()
        self.check_map()
        self.check_terrain_on_map()
        self.check_setups()
        return sorted(self.diagnostics,
                      key=lambda d: (d.span.path, d.span.line, d.span.column))

    # -------------------------------------------------------------- rules
    def check_rule_numbers(self) -> None:
        seen: dict[str, ir.Rule] = {}
        for rule in self.program.all_rules:
            if rule.number in seen:
                first = seen[rule.number].span
                self.error(rule.span, f"duplicate rule number {rule.number} (first stated at "
                           f"{first.path}:{first.line})", rule.number)
            else:
                seen[rule.number] = rule
            if not rule.summary:
                self.error(rule.span, f"rule {rule.number} has no summary", rule.number)

    def declare(self) -> None:
        kinds = {ir.SideDecl: "side", ir.FlagDecl: "flag", ir.PropertyDecl: "property",
                 ir.ClassDecl: "class", ir.TerrainDecl: "terrain", ir.HexsideDecl: "hexside",
                 ir.TableDecl: "table", ir.DiceDecl: "dice", ir.PlayerDecl: "side"}
        defined: set[tuple[str, str]] = set()
        for statement in self.program.statements:
            kind = kinds.get(type(statement))
            if kind is not None:
                name = statement.name  # type: ignore[union-attr]
                table = self.symbols[kind]
                if name in table:
                    first = table[name].span
                    self.error(statement.span, f"{kind} {name!r} is declared twice (first at "
                               f"{first.path}:{first.line})", statement.rule)
                else:
                    table[name] = statement
            if isinstance(statement, ir.ClassDecl):
                for trait in statement.traits:
                    self.symbols["trait"].setdefault(trait, statement)
            if isinstance(statement, ir.PropertyDecl):
                for value in statement.values:
                    self.property_values[value] = statement.name
            if isinstance(statement, ir.Define):
                key = (statement.context, statement.name)
                if key in defined:
                    self.error(statement.span, f"{statement.context} value {statement.name!r} "
                               "is defined twice", statement.rule)
                defined.add(key)
                for context in DEFINE_SCOPES[statement.context]:
                    self.defines[context].setdefault(statement.name, statement)

    def check_declarations(self) -> None:
        for statement in self.program.of(ir.ClassDecl):
            if statement.side not in self.symbols["side"]:
                self.unknown(statement.span, "side", statement.side, self.symbols["side"],
                             statement.rule)
        for statement in self.program.of(ir.Stacking):
            if statement.side not in self.symbols["side"]:
                self.unknown(statement.span, "side", statement.side, self.symbols["side"],
                             statement.rule)
        base_costs = [c for c in self.program.of(ir.Cost) if c.override is None]
        for statement in self.program.of(ir.Cost):
            if statement.action != "move":
                self.error(statement.span, f"only moves have a cost, not {statement.action}",
                           statement.rule)
        for extra in base_costs[1:]:
            self.error(extra.span, f"a second base cost (the first is in rule "
                       f"{base_costs[0].rule}); add 'instead when ...' to make it an override",
                       extra.rule)
        for statement in self.program.of(ir.Shift):
            if statement.columns == 0:
                self.error(statement.span, "a shift of zero columns can never change the odds",
                           statement.rule)
        for statement in self.program.of(ir.Permit):
            target = self.program.rules.get(statement.despite)
            lifts = target is not None and any(
                isinstance(s, ir.Forbid) and s.action == statement.action
                for s in target.statements)
            if not lifts:
                self.error(statement.span, f"permit despite {statement.despite}: that rule "
                           f"forbids no {statement.action} action, so this can never apply",
                           statement.rule)
        sequences = self.program.of(ir.Sequence)
        for extra in sequences[1:]:
            self.error(extra.span, "only one turn sequence may be declared", extra.rule)
        for sequence in sequences:
            names: set[str] = set()
            for phase in sequence.phases:
                if phase.name in names:
                    self.error(phase.span, f"phase {phase.name!r} appears twice", sequence.rule)
                names.add(phase.name)
                if not phase.for_each_player and phase.side not in self.symbols["side"]:
                    self.unknown(phase.span, "side", phase.side, self.symbols["side"],
                                 sequence.rule)
                procedures = {p.name for p in self.program.of(ir.Procedure)}
                if procedures and phase.activity and phase.activity not in procedures:
                    self.unknown(phase.span, "procedure", phase.activity, procedures,
                                 sequence.rule)

    def check_tables(self) -> None:
        for table in self.program.of(ir.TableDecl):
            width = len(table.columns)
            keys: set[str] = set()
            for row in table.rows:
                key = render.cell(row.key)
                if key in keys:
                    self.error(row.span, f"table {table.name} has two rows {key}", table.rule)
                keys.add(key)
                if len(row.cells) != width:
                    self.error(row.span, f"row {key} of table {table.name} has "
                               f"{len(row.cells)} cells for {width} columns", table.rule)
                for cell in row.cells:
                    if isinstance(cell, ir.KeyedCell):
                        for side, _ in cell.entries:
                            if side not in self.symbols["side"]:
                                self.unknown(cell.span, "side", side, self.symbols["side"],
                                             table.rule)

    # -------------------------------------------------------------- statements
    def check_statement(self, statement: ir.Statement) -> None:
        if self.program.of(ir.Procedure):
            return  # names in a core rulebook are resolved by scope, not by context
        context = context_of(statement)
        if (context is None and isinstance(statement, (ir.Forbid, ir.Permit))
                and not self.program.of(ir.ActionDecl)):
            self.unknown(statement.span, "action", statement.action, ACTION_CONTEXTS,
                         statement.rule)
        if context is None:
            return
        rule = statement.rule
        if isinstance(statement, ir.Define):
            self.define_type(statement)
            return
        if isinstance(statement, ir.Cost):
            self.expect(statement.expr, context, rule, NUMERIC, "a cost")
            if statement.override is not None:
                self.condition(statement.override, context, rule)
        elif isinstance(statement, (ir.Forbid, ir.Permit)):
            self.condition(statement.when, context, rule)
        elif isinstance(statement, ir.Stacking):
            self.condition(statement.requires, context, rule, what="a stacking limit")
        elif isinstance(statement, ir.Odds):
            self.condition(statement.when, context, rule)
            self.expect(statement.attacker, context, rule, NUMERIC, "odds")
            self.expect(statement.defender, context, rule, NUMERIC, "odds")
        elif isinstance(statement, ir.Shift) or isinstance(statement, ir.Advance):
            self.condition(statement.when, context, rule)

    def condition(self, node: ir.Expr, context: str, rule: str, what: str = "a condition") -> None:
        kind = self.expect(node, context, rule, {"bool", "any"}, what)
        if kind is not None and self.never(node):
            self.error(node.span, f"this condition is always false: the clause can never apply "
                       f"({render.expr(node)})", rule)

    def expect(self, node: ir.Expr, context: str, rule: str, allowed: set[str],
               what: str) -> str | None:
        kind = self.type_of(node, context, rule, {})
        if kind is not None and kind not in allowed:
            self.error(node.span, f"{what} must be {' or '.join(sorted(allowed - {'any'}))}, "
                       f"not {kind}", rule)
        return kind

    def define_type(self, define: ir.Define) -> str | None:
        key = id(define)
        if key in self.define_types:
            return self.define_types[key]
        if key in self._typing:
            self.error(define.span, f"{define.name!r} is defined in terms of itself", define.rule)
            return None
        self._typing.add(key)
        kind = self.type_of(define.expr, context_of(define) or "move", define.rule, {})
        self._typing.discard(key)
        self.define_types[key] = kind or "any"
        return kind

    # -------------------------------------------------------------- typing
    def type_of(self, node: ir.Expr, context: str, rule: str,
                local: dict[str, str]) -> str | None:
        """The type of an expression, or None after reporting an error in it."""
        t = self.type_of
        if isinstance(node, ir.IntLit):
            return "int"
        if isinstance(node, ir.BoolLit):
            return "bool"
        if isinstance(node, ir.Name):
            return self.name_type(node, context, rule, local)
        if isinstance(node, ir.SetLit):
            found = [t(i, context, rule, local) for i in node.items]
            kinds = {k for k in found if k is not None}
            if len(kinds) < len(set(found)):
                return None
            if len(kinds) > 1:
                self.error(node.span, f"a set mixes {' and '.join(sorted(kinds))}", rule)
                return None
            return "set:" + (kinds.pop() if kinds else "any")
        if isinstance(node, ir.Attr):
            return self.attr_type(node, context, rule, local)
        if isinstance(node, ir.Index):
            return self.index_type(node, context, rule, local)
        if isinstance(node, ir.Not):
            return self.bool_operands([node.operand], node, context, rule, local)
        if isinstance(node, ir.BoolOp):
            return self.bool_operands([node.left, node.right], node, context, rule, local)
        if isinstance(node, ir.Compare):
            left, right = t(node.left, context, rule, local), t(node.right, context, rule, local)
            if left is None or right is None:
                return None
            if node.op in ("<", "<=", ">", ">=") and not (left in NUMERIC and right in NUMERIC):
                self.error(node.span, f"cannot order {left} and {right} with {node.op}", rule)
                return None
            if not compatible(left, right):
                self.error(node.span, f"cannot compare {left} with {right}", rule)
                return None
            return "bool"
        if isinstance(node, ir.Member):
            item, coll = t(node.item, context, rule, local), t(node.collection, context, rule,
                                                              local)
            if item is None or coll is None:
                return None
            if not coll.startswith("set:") and coll != "any":
                self.error(node.collection.span, f"'in' needs a set, not {coll}", rule)
                return None
            if coll.startswith("set:") and not compatible(item, coll[4:]):
                self.error(node.span, f"cannot look for {item} in a set of {coll[4:]}", rule)
                return None
            return "bool"
        if isinstance(node, ir.Is):
            return self.is_type(node, context, rule, local)
        if isinstance(node, ir.Arith):
            left, right = t(node.left, context, rule, local), t(node.right, context, rule, local)
            if left is None or right is None:
                return None
            for side, kind in ((node.left, left), (node.right, right)):
                if kind not in NUMERIC:
                    self.error(side.span, f"arithmetic needs numbers, not {kind}", rule)
                    return None
            if node.op == "/":
                return "num"
            return "int" if left == right == "int" else ("num" if "num" in (left, right)
                                                         else "any")
        if isinstance(node, ir.Neg):
            negated = t(node.operand, context, rule, local)
            if negated is not None and negated not in NUMERIC:
                self.error(node.span, f"cannot negate {negated}", rule)
                return None
            return negated
        if isinstance(node, ir.Call):
            return self.call_type(node, context, rule, local)
        raise TypeError(node)

    def bool_operands(self, operands: list[ir.Expr], node: ir.Expr, context: str, rule: str,
                      local: dict[str, str]) -> str | None:
        ok = True
        for operand in operands:
            kind = self.type_of(operand, context, rule, local)
            if kind is None:
                ok = False
            elif kind not in ("bool", "any"):
                self.error(operand.span, f"expected a condition (bool), not {kind}", rule)
                ok = False
        return "bool" if ok else None

    def name_type(self, node: ir.Name, context: str, rule: str,
                  local: dict[str, str]) -> str | None:
        if node.id in local:
            return local[node.id]
        variables = CONTEXTS[context]
        if node.id in variables:
            return variables[node.id]
        define = self.defines[context].get(node.id)
        if define is not None:
            return self.define_type(define)
        for kind in ("side", "class", "terrain", "hexside", "flag", "trait"):
            if node.id in self.symbols[kind]:
                return f"name:{kind}"
        if node.id in self.property_values:
            return f"name:{self.property_values[node.id]}"
        if node.id in self.symbols["table"]:
            return f"table:{node.id}"
        known = [*variables, *self.defines[context], *local]
        self.unknown(node.span, f"name in a {context} clause", node.id, known, rule)
        return None

    def attr_type(self, node: ir.Attr, context: str, rule: str,
                  local: dict[str, str]) -> str | None:
        base = self.type_of(node.obj, context, rule, local)
        if base is None:
            return None
        if base == "unit":
            if node.name in UNIT_ATTRIBUTES:
                return UNIT_ATTRIBUTES[node.name]
            if node.name in self.symbols["property"]:
                return f"name:{node.name}"
            self.unknown(node.span, "unit attribute", node.name,
                         [*UNIT_ATTRIBUTES, *self.symbols["property"]], rule)
            return None
        if base == "hex":
            if node.name in HEX_ATTRIBUTES:
                return HEX_ATTRIBUTES[node.name]
            self.unknown(node.span, "hex attribute", node.name, HEX_ATTRIBUTES, rule)
            return None
        if base.startswith("row:"):
            table = self.symbols["table"][base[4:]]
            assert isinstance(table, ir.TableDecl)
            columns = [render.cell(c) for c in table.columns]
            if node.name not in columns:
                self.unknown(node.span, f"column of table {table.name}", node.name, columns,
                             rule)
                return None
            return "any"
        if base == "any":
            return "any"
        self.error(node.span, f"{base} has no attribute {node.name!r}", rule)
        return None

    def index_type(self, node: ir.Index, context: str, rule: str,
                   local: dict[str, str]) -> str | None:
        base = self.type_of(node.obj, context, rule, local)
        if base is None:
            return None
        if base.startswith("table:"):
            table = self.symbols["table"][base[6:]]
            assert isinstance(table, ir.TableDecl)
            rows = [render.cell(r.key) for r in table.rows]
            key = node.key
            if (isinstance(key, ir.Name) and key.id not in local
                    and key.id not in CONTEXTS[context] and key.id not in self.defines[context]):
                if key.id not in rows:
                    self.unknown(key.span, f"row of table {table.name}", key.id, rows, rule)
                    return None
            elif self.type_of(key, context, rule, local) is None:
                return None
            return f"row:{table.name}"
        if base == "any":
            key_type = self.type_of(node.key, context, rule, local)
            return None if key_type is None else "any"
        self.error(node.span, f"cannot index {base} with [...]", rule)
        return None

    def is_type(self, node: ir.Is, context: str, rule: str,
                local: dict[str, str]) -> str | None:
        subject = self.type_of(node.subject, context, rule, local)
        if subject is None:
            return None
        kinds: tuple[str, ...]
        wanted_op = "is" if subject == "unit" else "has"
        if subject in ("unit", "hex", "set:name:hexside", "set:name:terrain") and (
                node.op != wanted_op):
            noun = "a unit" if subject == "unit" else "a hex or a crossing"
            self.error(node.span, f"write '{wanted_op}' after {noun}, not '{node.op}' "
                       f"('unit is cavalry', 'to has fortress', 'crossing has causeway')", rule)
            return None
        if subject == "unit":
            kinds = ("class", "side", "trait", "flag")
        elif subject == "hex":
            kinds = ("terrain",)
        elif subject == "set:name:hexside":
            kinds = ("hexside",)
        elif subject == "set:name:terrain":
            kinds = ("terrain",)
        else:
            self.error(node.span, f"'{node.op}' needs a unit, a hex or a hexside crossing, "
                       f"not {subject}", rule)
            return None
        if not any(node.name in self.symbols[k] for k in kinds):
            known = [n for k in kinds for n in self.symbols[k]]
            self.unknown(node.name_span, " or ".join(kinds), node.name, known, rule)
            return None
        return "bool"

    def call_type(self, node: ir.Call, context: str, rule: str,
                  local: dict[str, str]) -> str | None:
        if node.func not in FUNCTIONS:
            self.unknown(node.span, "function", node.func, FUNCTIONS, rule)
            return None
        if node.binder is not None:
            assert node.domain is not None
            domain = self.type_of(node.domain, context, rule, local)
            if domain is None:
                return None
            if not domain.startswith("set:") and domain != "any":
                self.error(node.domain.span, f"cannot iterate over {domain}", rule)
                return None
            inner = {**local, node.binder: domain[4:] if domain.startswith("set:") else "any"}
            if node.where is not None:
                kind = self.type_of(node.where, context, rule, inner)
                if kind is None:
                    return None
                if kind not in ("bool", "any"):
                    self.error(node.where.span, f"'where' needs a condition, not {kind}", rule)
                    return None
            element = "bool"
            if node.element is not None:
                found = self.type_of(node.element, context, rule, inner)
                if found is None:
                    return None
                element = found
            if node.func in ("count",):
                return "int"
            if node.func in ("any", "all"):
                if node.element is not None:
                    self.error(node.span, f"{node.func}(...) takes 'x in S where C'", rule)
                    return None
                return "bool"
            if node.func == "distinct":
                return "set:" + element
            if node.func in ("sum", "max", "min"):
                if node.element is None:
                    self.error(node.span, f"{node.func}(...) takes 'E for x in S'", rule)
                    return None
                if element not in NUMERIC:
                    self.error(node.element.span, f"{node.func} needs numbers, not {element}",
                               rule)
                    return None
                return element
            self.error(node.span, f"{node.func}(...) does not take a comprehension", rule)
            return None
        args = [self.type_of(a, context, rule, local) for a in node.args]
        if None in args:
            return None
        signatures: dict[str, tuple[list[set[str]], str]] = {
            "floor": ([NUMERIC], "int"), "ceil": ([NUMERIC], "int"),
            "adjacent": ([{"hex"}, {"hex"}], "bool"), "distance": ([{"hex"}, {"hex"}], "int"),
        }
        if node.func in ("count", "any", "distinct", "max", "min", "sum"):
            if len(args) != 1 or not (str(args[0]).startswith("set:") or args[0] == "any"):
                self.error(node.span, f"{node.func}(...) takes one set", rule)
                return None
            element = str(args[0])[4:] or "any"
            return {"count": "int", "any": "bool", "distinct": str(args[0])}.get(
                node.func, element)
        if node.func == "all":
            self.error(node.span, "all(...) takes 'x in S where C'", rule)
            return None
        params, result = signatures[node.func]
        if len(args) != len(params):
            self.error(node.span, f"{node.func} takes {len(params)} argument(s), "
                       f"not {len(args)}", rule)
            return None
        for arg, kind, allowed in zip(node.args, args, params, strict=True):
            if kind not in allowed and kind != "any":
                self.error(arg.span, f"{node.func} needs {' or '.join(sorted(allowed))}, "
                           f"not {kind}", rule)
                return None
        return result

    # -------------------------------------------------------------- dead clauses
    def never(self, node: ir.Expr) -> bool:
        """Whether a condition is false in every state (a conservative test)."""
        if isinstance(node, ir.BoolLit):
            return not node.value
        if isinstance(node, ir.BoolOp) and node.op == "or":
            return self.never(node.left) and self.never(node.right)
        if isinstance(node, ir.Compare) and isinstance(node.left, ir.IntLit) and isinstance(
                node.right, ir.IntLit):
            a, b = node.left.value, node.right.value
            return not {"==": a == b, "!=": a != b, "<": a < b, "<=": a <= b, ">": a > b,
                        ">=": a >= b}[node.op]
        if isinstance(node, ir.BoolOp) and node.op == "and":
            if self.never(node.left) or self.never(node.right):
                return True
            return self.contradicts(list(conjuncts(node)))
        return False

    def contradicts(self, atoms: list[ir.Expr]) -> bool:
        positive: dict[str, set[str]] = {}
        negative: dict[str, set[str]] = {}
        for atom in atoms:
            negated = isinstance(atom, ir.Not)
            inner = atom.operand if isinstance(atom, ir.Not) else atom
            if isinstance(inner, ir.Is):
                key = render.expr(inner.subject)
                (negative if negated else positive).setdefault(key, set()).add(inner.name)
        for key, names in positive.items():
            if names & negative.get(key, set()):
                return True
            classes = {n for n in names if n in self.symbols["class"]}
            if len(classes) > 1:
                return True
            sides = {n for n in names if n in self.symbols["side"]}
            for cls in classes:
                decl = self.symbols["class"][cls]
                assert isinstance(decl, ir.ClassDecl)
                if decl.side is not None:
                    sides.add(decl.side)
            if len(sides) > 1:
                return True
        return False

    # -------------------------------------------------------------- mechanisms
    def check_mechanisms(self) -> None:
        sequences = self.program.of(ir.Sequence)
        activities = {p.activity for s in sequences for p in s.phases}
        anchor = sequences[0] if sequences else None
        if "movement" in activities and not any(c.override is None
                                                for c in self.program.of(ir.Cost)):
            self.error(anchor.span, "a phase does movement but no rule states a base "  # type: ignore[union-attr]
                       "'cost move = ...'", anchor.rule)  # type: ignore[union-attr]
        if "combat" in activities:
            needs = {"odds": ir.Odds, "clamp": ir.Clamp, "resolve": ir.Resolve,
                     "results": ir.Results}
            for word, kind in needs.items():
                if not self.program.of(kind):
                    self.error(anchor.span, f"a phase does combat but no rule states "  # type: ignore[union-attr]
                               f"{word!r}", anchor.rule)  # type: ignore[union-attr]
            if "defenders" not in self.defines["combat"]:
                self.error(anchor.span, "a phase does combat but no rule says who defends "  # type: ignore[union-attr]
                           "('define combat defenders = ...')", anchor.rule)  # type: ignore[union-attr]
        for clamp in self.program.of(ir.Clamp):
            table = self.symbols["table"].get(clamp.table)
            if table is None:
                self.unknown(clamp.span, "table", clamp.table, self.symbols["table"], clamp.rule)
            elif not all(isinstance(c, ir.RatioCell) for c in table.columns):  # type: ignore[union-attr]
                self.error(clamp.span, f"table {clamp.table} has columns that are not odds",
                           clamp.rule)
        for resolve in self.program.of(ir.Resolve):
            table = self.symbols["table"].get(resolve.table)
            dice = self.symbols["dice"].get(resolve.dice)
            if table is None:
                self.unknown(resolve.span, "table", resolve.table, self.symbols["table"],
                             resolve.rule)
            if dice is None:
                self.unknown(resolve.span, "dice", resolve.dice, self.symbols["dice"],
                             resolve.rule)
            if isinstance(table, ir.TableDecl) and isinstance(dice, ir.DiceDecl):
                keys = {r.key.value for r in table.rows if isinstance(r.key, ir.IntCell)}
                rolls = set(range(dice.count, dice.count * dice.faces + 1))
                missing = sorted(rolls - keys)
                if missing:
                    self.error(resolve.span, f"table {table.name} has no row for the rolls "
                               f"{missing} of {dice.count}d{dice.faces}", resolve.rule)
                for row in table.rows:
                    for cell in row.cells:
                        if not isinstance(cell, ir.ResultCell):
                            self.error(cell.span, f"combat results must read like 1/2, not "
                                       f"{render.cell(cell)}", table.rule)

    # -------------------------------------------------------------- data
    def check_data_blocks(self) -> None:
        """One map and one counter mix per rulebook; set-up names unique."""
        first: dict[str, ir.Item] = {}
        for module in self.program.modules:
            for item in module.items:
                if isinstance(item, (ir.MapBlock, ir.CountersBlock)):
                    kind = "map" if isinstance(item, ir.MapBlock) else "counters"
                    key = kind
                elif isinstance(item, ir.SetupBlock):
                    kind, key = "setup", f"setup {item.name}"
                else:
                    continue
                if key in first:
                    where = first[key].span
                    what = f"set-up {item.name!r}" if kind == "setup" else f"{kind} block"
                    self.error(item.span, f"a second {what}: a rulebook has one (the first is "
                               f"at {where.path}:{where.line}); replace it with load(...) "
                               "instead", f"{kind} {item.name}")
                else:
                    first[key] = item

    def check_counters(self) -> None:
        block = self.program.counters
        if block is None:
            return
        where = f"counters {block.name}"
        seen: set[str] = set()
        for counter in block.counters:
            if counter.id in seen:
                self.error(counter.span, f"counter {counter.id} is listed twice", where)
            seen.add(counter.id)
            if counter.cls not in self.symbols["class"]:
                self.unknown(counter.span, "unit class", counter.cls, self.symbols["class"],
                             where)
            if counter.steps is None:
                self.error(counter.span, f"counter {counter.id} gives no steps", where)
            elif counter.steps > MAX_STEPS:
                self.error(counter.span, f"counter {counter.id} has {counter.steps} steps; a "
                           f"counter has at most {MAX_STEPS}", where)
            elif counter.combat and len(counter.combat) != counter.steps:
                self.error(counter.span, f"counter {counter.id} has {counter.steps} steps but "
                           f"{len(counter.combat)} combat factors (one per step)", where)
            for flag in counter.flags:
                if flag not in self.symbols["flag"]:
                    self.unknown(counter.span, "flag", flag, self.symbols["flag"], where)
            for key, value in counter.properties:
                if isinstance(value, int):  # a number needs no declared list of values
                    continue
                prop = self.symbols["property"].get(key)
                if prop is None:
                    self.unknown(counter.span, "property", key, self.symbols["property"], where)
                elif isinstance(prop, ir.PropertyDecl) and value not in prop.values:
                    self.unknown(counter.span, f"{key} value", value, prop.values, where)

    def check_map(self) -> None:
        data = self.program.map
        if data is None:
            return
        where = f"map {data.name}"
        hexes = data.hexes
        for statement in data.block.statements:
            names: tuple[str, ...] = ()
            if isinstance(statement, (ir.HexTerrain, ir.HexBlock)):
                names = statement.terrain
                for name in names:
                    if name not in self.symbols["terrain"]:
                        self.unknown(statement.span, "terrain", name, self.symbols["terrain"],
                                     where)
            elif isinstance(statement, ir.HexsideFeature):
                for name in statement.features:
                    if name not in self.symbols["hexside"]:
                        self.unknown(statement.span, "hexside feature", name,
                                     self.symbols["hexside"], where)
                for end in (statement.a, statement.b):
                    if end not in hexes:
                        self.error(statement.span, f"hexside names hex {end}, which is not on "
                                   "the map", where)
                if not adjacent(statement.a, statement.b, data.odd_columns_low):
                    self.error(statement.span, f"hexes {statement.a} and {statement.b} do not "
                               "touch, so they share no hexside", where)
            elif isinstance(statement, (ir.PlaceDecl, ir.ZoneBorders)):
                for hex_id in statement.hexes:
                    if hex_id not in hexes:
                        self.error(statement.span, f"hex {hex_id} is not on the map", where)
            if isinstance(statement, (ir.ZoneBorders, ir.ZoneTouches)):
                numbers = [statement.number, *getattr(statement, "others", ())]
                for number in numbers:
                    if number not in data.zones:
                        self.error(statement.span, f"lake zone {number} is not declared", where)

    def check_terrain_on_map(self) -> None:
        """Warn about terrain conditions no hex of the loaded map can meet."""
        data = self.program.map
        if data is None:
            return
        present = set().union(*data.hexes.values()) if data.hexes else set()
        for statement in self.program.statements:
            for node in statement_exprs(statement):
                for inner in walk(node):
                    if (isinstance(inner, ir.Is) and inner.name in self.symbols["terrain"]
                            and inner.name not in present):
                        self.error(inner.name_span, f"no hex of map {data.name} has terrain "
                                   f"{inner.name!r}: on this map the condition is never true",
                                   statement.rule, severity="warning")

    def check_setups(self) -> None:
        block = self.program.counters
        counters = {c.id for c in block.counters} if block else set()
        hexes = self.program.map.hexes if self.program.map else {}
        for setup in self.program.setups.values():
            where = f"setup {setup.name}"
            placed: set[str] = set()
            for placement in setup.placements:
                if placement.hex not in hexes:
                    self.error(placement.span, f"hex {placement.hex} is not on the map", where)
                for unit in placement.units:
                    if unit not in counters:
                        self.unknown(placement.span, "unit", unit, counters, where)
                    if unit in placed:
                        self.error(placement.span, f"unit {unit} is placed twice", where)
                    placed.add(unit)


def statement_exprs(statement: ir.Statement) -> list[ir.Expr]:
    """The expressions a statement holds."""
    fields = ("expr", "override", "when", "requires", "attacker", "defender")
    return [getattr(statement, f) for f in fields if getattr(statement, f, None) is not None]


def walk(node: ir.Expr) -> Iterable[ir.Expr]:
    """An expression and every expression inside it."""
    yield node
    for field in attrs.fields(type(node)):
        value = getattr(node, field.name)
        children = value if isinstance(value, tuple) else (value,)
        for child in children:
            if isinstance(child, (ir.IntLit, ir.BoolLit, ir.Name, ir.SetLit, ir.Attr,
                                  ir.Index, ir.Not, ir.BoolOp, ir.Compare, ir.Member, ir.Is,
                                  ir.Arith, ir.Neg, ir.Call)):
                yield from walk(child)


def conjuncts(node: ir.Expr) -> Iterable[ir.Expr]:
    """The atoms of a chain of ``and``."""
    if isinstance(node, ir.BoolOp) and node.op == "and":
        yield from conjuncts(node.left)
        yield from conjuncts(node.right)
    else:
        yield node


def compatible(a: str, b: str) -> bool:
    """Whether values of two types may be compared."""
    if a == b or "any" in (a, b):
        return True
    if a in NUMERIC and b in NUMERIC:
        return True
    if a.startswith("set:") and b.startswith("set:"):
        return compatible(a[4:], b[4:])
    return False


def check(program: ir.Program) -> list[Diagnostic]:
    """Every diagnostic for a program, errors and warnings, sorted by place."""
    return Checker(program).run()


def errors_only(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics that stop a load."""
    return [d for d in diagnostics if d.severity == "error"]


__all__ = ["Checker", "check", "errors_only"]
