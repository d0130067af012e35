"""Stage 3: the checker. Finds every problem in a lowered program at once.

It runs before anything executes and reports, each with file:line:column,
the line, a caret and the rule number:

- rule clauses: duplicate rule numbers, a clause (or a library's mechanism
  block) without a summary;
- declarations: a name declared twice, a class of an unknown side, a hook
  contributed to but never declared, an action parameter of an unknown
  type, dice beyond the bounds (1 to 100 dice of 1 to 1000 faces);
- names, by scope (see ``.scope``): unknown names, functions,
  procedures, attributes, symbols after ``is``/``has``, table rows and
  columns, with a suggestion when one is close; wrong argument counts;
  ``break``/``continue`` outside a loop; ``set`` of what is neither a
  variable, a declared value nor a declared attribute;
- actions and the turn: options and forbid/permit clauses of action kinds no
  ``action`` declares, options with the wrong number of parameters, a
  ``permit ... despite`` naming a rule with nothing to lift, a phase doing
  no procedure, procedures without a turn sequence;
- clauses that can never apply: a condition that is always false;
- forms: a hole the form's statements never use (a warning);
- interpretations: an entry without rules, a ``says`` or readings, two
  defaults or none among several readings, several readings and no
  ``because``, an unknown kind, an id used twice; ``reading ID is NAME`` and
  ``when reading ID is NAME`` naming an unknown entry or reading; a clause
  depending on an entry that does not name its rule (a warning);
- data: table rows of the wrong width, counters against the declared
  classes, flags, properties and printed fields (a word no declaration
  gives a counter line, a value of the wrong kind, a list that is not one
  entry per the number it is declared ``one per``), map hexsides between hexes that do not
  touch, set-ups naming unknown pieces or places, a second map or counter
  mix, terrain conditions the loaded map cannot meet (a warning).
"""

from __future__ import annotations

import re
from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Any, cast

import attrs

from ..engine.hexgrid import adjacent
from ..errors import RulesSyntaxError
from . import citations, ir, printed, render
from .diagnostics import Diagnostic, SourceLines, Span
from .lower import hex_block
from .forms import parse_pattern
from .scope import (
    BUILTIN_FUNCTIONS,
    BUILTIN_NAMES,
    COMPREHENSIONS,
    Declarations,
    ScopeChecker,
    hint,
    walk,
)
from .types import BUILTIN, TypeChecker

MAX_DICE = 100
"""The most dice one ``dice`` declaration may roll together."""
MAX_FACES = 1000
"""The most faces a die may have."""
ACTION_PARAM_TYPES = ("piece", "place", "hex", "player", "int")
"""The types an action's parameters may have (they fix its text form and ids)."""
DEFECT_KINDS = ("contradiction", "gap", "undefined_term", "wrong_reference", "example",
                "summary", "numbering", "omission", "misprint", "terminology", "choice")
"""What an interpretation entry may say is wrong with the printed text, or
``choice``: a choice the text itself leaves to the players."""


class Checker:
    """Collects diagnostics over one program; use ``check()``."""

    def __init__(self, program: ir.Program, comment_citations: str = "warning") -> None:
        self.program = program
        self.comment_citations = comment_citations
        """The severity of a comment citing an entry the registry lacks."""
        self.texts = {m.path: m.text for m in program.modules}
        self.lines = SourceLines(self.texts)
        self.diagnostics: list[Diagnostic] = []
        self.declared = Declarations(program)

    # -------------------------------------------------------------- reporting
    def error(self, span: Span, message: str, rule: str | None,
              expected: Iterable[str] = (), severity: str = "error") -> None:
        self.diagnostics.append(Diagnostic(
            span, message, rule=rule, expected=tuple(expected),
            source_line=self.lines.line(span.path, span.line), severity=severity))

    def unknown(self, span: Span, kind: str, name: str, known: Iterable[str],
                rule: str | None) -> None:
        """``unknown KIND 'name'``, with a suggestion or else the known names."""
        known = sorted(set(known))
        suggestion = self.declared.missing(name, known)
        self.error(span, f"unknown {kind} {name!r}{suggestion}", rule,
                   expected=known[:12] if not suggestion else ())

    # -------------------------------------------------------------- entry point
    def run(self) -> list[Diagnostic]:
        self.check_rules()
        self.check_interpretations()
        self.check_citations()
        self.check_presets()
        self.check_declarations()
        self.check_actions()
        self.check_sequence()
        self.check_tables()
        self.check_forms()
        scopes = ScopeChecker(self.declared, self.lines, self.error)
        scopes.run(self.program.statements)
        TypeChecker(self.declared, scopes.binders, self.error).run(self.program.statements)
        self.check_conditions()
        self.check_data_blocks()
        self.check_printed()
        self.check_counters()
        self.check_map()
        self.check_terrain_on_map(scopes.tag_uses)
        self.check_setups()
        unique = {(d.span, d.message, d.severity): d for d in self.diagnostics}
        return sorted(unique.values(), key=lambda d: (d.span.path, d.span.line, d.span.column))

    # -------------------------------------------------------------- rules
    def check_rules(self) -> None:
        seen: dict[str, ir.Rule] = {}
        for rule in self.program.all_rules:
            if rule.number in seen:
                first = seen[rule.number].span
                self.error(rule.span, f"duplicate rule number {rule.number} (first stated at "
                           f"{first.path}:{first.line})", rule.number)
            else:
                seen[rule.number] = rule
            if not rule.summary:
                what = ("scenario" if rule.kind == "scenario" else "mechanism block"
                        if rule.mechanism else "rule")
                name = rule.number.removeprefix("lib:").removeprefix("scenario:")
                self.error(rule.span, f"{what} {name} has no summary", rule.number)

    # -------------------------------------------------------------- interpretations
    def check_interpretations(self) -> None:
        """The registry's entries are complete, and every use of a reading names one."""
        seen: dict[str, ir.Interpretation] = {}
        for module in self.program.modules:
            for item in module.items:
                if isinstance(item, ir.Interpretation):
                    self.check_entry(item, seen)
        entries = self.program.interpretations
        for module in self.program.modules:
            for item in module.items:
                uses: Iterable[tuple[ir.ReadingIs | ir.WhenReading, str]] = ()
                if isinstance(item, ir.Rule) and item.has_readings:
                    uses = reading_uses(item.statements, item.number)
                elif isinstance(item, ir.MapBlock):
                    uses = map_guards(item.statements, f"map {item.name}")
                for node, rule in uses:
                    self.check_reading_use(node, rule, entries)

    def check_citations(self) -> None:
        """Every entry a clause cites, by an ``interpretation ID`` statement or in a
        comment, is in the registry (``.citations``)."""
        entries = self.program.interpretations
        for module in self.program.modules:
            for item in module.items:
                if isinstance(item, ir.Rule):
                    for cite in citations.formal(item.statements):
                        for entry, span in zip(cite.entries, cite.entry_spans, strict=True):
                            if entry not in entries:
                                self.error(span, f"rule {item.number} cites interpretation "
                                           f"{entry}, which the registry does not hold"
                                           f"{hint(entry, entries)}", item.number)
            known = frozenset(entries)
            for found in citations.in_comments(module.text, known):
                if found.entry not in entries:
                    self.error(citations.span_of(module.path, found),
                               f"this comment cites interpretation {found.entry}, which the "
                               f"registry does not hold{hint(found.entry, entries)} (add the "
                               "entry, or correct the name)", found.block,
                               severity=self.comment_citations)

    def check_entry(self, entry: ir.Interpretation, seen: dict[str, ir.Interpretation]) -> None:
        label = f"interpretation {entry.id}"
        if entry.id in seen:
            first = seen[entry.id].span
            self.error(entry.span, f"{label} is declared twice (first at {first.path}:"
                       f"{first.line})", label)
            return
        seen[entry.id] = entry
        if not entry.rules:
            self.error(entry.span, f"{label} names no rule: add 'rules N.N'", label)
        if not entry.says:
            self.error(entry.span, f"{label} does not say what the text says: add 'says "
                       "\"...\"'", label)
        if entry.kind is not None and entry.kind not in DEFECT_KINDS:
            self.unknown(entry.span, "kind of defect", entry.kind, DEFECT_KINDS, label)
        if not entry.readings:
            self.error(entry.span, f"{label} has no reading: add 'reading NAME \"...\" "
                       "default'", label)
            return
        names = [r.name for r in entry.readings]
        for reading in entry.readings:
            if names.count(reading.name) > 1:
                self.error(reading.span, f"{label}: reading {reading.name!r} is named "
                           "twice", label)
        defaults = [r for r in entry.readings if r.default]
        if len(defaults) > 1:
            self.error(defaults[1].span, f"{label}: only one reading may be the default "
                       f"(already {defaults[0].name!r})", label)
        if len(entry.readings) > 1 and not defaults:
            self.error(entry.span, f"{label} has {len(entry.readings)} readings and none "
                       f"is marked 'default' ({', '.join(names)})", label)
        if len(entry.readings) > 1 and not entry.because:
            self.error(entry.span, f"{label} has several readings but does not say why "
                       "its default: add 'because \"...\"'", label)

    def check_reading_use(self, node: ir.ReadingIs | ir.WhenReading, rule: str,
                          entries: Mapping[str, ir.Interpretation]) -> None:
        entry = entries.get(node.entry)
        if entry is None:
            self.unknown(node.entry_span, "interpretation", node.entry, entries, rule)
            return
        if entry.reading(node.reading) is None:
            known = [r.name for r in entry.readings]
            self.error(node.reading_span, f"interpretation {entry.id} has no reading "
                       f"{node.reading!r} (readings: {', '.join(known)})"
                       f"{hint(node.reading, known)}", rule, expected=known)
            return
        if not rule.startswith(("map ", "lib:", "scenario:")) and rule not in entry.rules:
            self.error(node.entry_span, f"rule {rule} depends on interpretation {entry.id}, "
                       f"which names rules {', '.join(entry.rules)} only: add {rule} to "
                       "its 'rules'", rule, severity="warning")

    def check_presets(self) -> None:
        """Each preset named once, not ``all``, and naming optional rules only."""
        optional = {r.number for r in self.program.all_rules if r.optional}
        seen: set[str] = set()
        game = self.program.game
        for preset in game.presets if game is not None else ():
            where = f"game {game.name}" if game is not None else None
            if preset.name == "all":
                self.error(preset.span, "a preset may not be called 'all': the word already "
                           "means every optional rule", where)
            if preset.name in seen:
                self.error(preset.span, f"preset {preset.name!r} is named twice", where)
            seen.add(preset.name)
            for number in preset.rules:
                if number not in optional:
                    kind = "not an optional rule" if any(
                        r.number == number for r in self.program.all_rules) else "no such rule"
                    self.error(preset.span, f"preset {preset.name!r} names {number}: {kind}",
                               number, expected=sorted(optional))

    # -------------------------------------------------------------- declarations
    def check_declarations(self) -> None:
        """Each name declared once in its kind, and once among the names of expressions."""
        kinds: dict[type, str] = {
            ir.SideDecl: "player", ir.PlayerDecl: "player", ir.FlagDecl: "flag",
            ir.PropertyDecl: "property", ir.ClassDecl: "class", ir.TerrainDecl: "terrain",
            ir.HexsideDecl: "hexside", ir.TableDecl: "table", ir.DiceDecl: "dice",
            ir.FaceDieDecl: "dice", ir.PoolDecl: "pool", ir.ValueDecl: "value",
            ir.HookDecl: "hook", ir.FunctionDecl: "function", ir.Procedure: "procedure",
            ir.ActionDecl: "action", ir.FormDecl: "form"}
        # Kinds that share one namespace: a bare name in an expression means one of them.
        shared = {"player", "table", "dice", "pool", "value", "hook", "function"}
        first: dict[tuple[str, str], ir.Statement] = {}
        names: dict[str, tuple[str, ir.Statement]] = {}
        for statement in self.program.statements:
            kind = kinds.get(type(statement))
            if kind is None and isinstance(statement, (ir.AttributeDecl, ir.DeriveDecl)):
                kind = f"{statement.owner} attribute"
            if kind is None:
                continue
            name: str = statement.name  # type: ignore[union-attr]
            key = (kind, name)
            if key in first:
                where = first[key].span
                self.error(statement.span, f"{kind} {name!r} is declared twice (first at "
                           f"{where.path}:{where.line})", statement.rule)
                continue
            first[key] = statement
            if kind in shared:
                if name in names:
                    other, earlier = names[name]
                    self.error(statement.span, f"{kind} {name!r}: the name is already "
                               f"declared as a {other} (at {earlier.span.path}:"
                               f"{earlier.span.line})", statement.rule)
                else:
                    names[name] = (kind, statement)
        self.check_shadowing()
        players = self.declared.players
        for cls in self.program.of(ir.ClassDecl):
            if side_of(cls) is not None and cls.side not in players:
                self.unknown(cls.span, "side", cls.side, players, cls.rule)
        for dice in self.program.of(ir.DiceDecl):
            if not (1 <= dice.count <= MAX_DICE and 1 <= dice.faces <= MAX_FACES):
                self.error(dice.span, f"dice {dice.name} = {dice.count}d{dice.faces}: a rule "
                           f"may roll 1 to {MAX_DICE} dice of 1 to {MAX_FACES} faces",
                           dice.rule)
        for contribution in self.program.of(ir.Contribute):
            if contribution.hook not in self.declared.hooks:
                why = self.declared.missing(contribution.hook, self.declared.hooks)
                self.error(contribution.span, f"contribution to hook {contribution.hook!r}, "
                           f"which no 'hook' declares{why}", contribution.rule)
        for attribute in self.program.of(ir.AttributeDecl):
            if attribute.shown and attribute.owner != "piece":
                self.error(attribute.span, f"'shown' marks what a piece shows on the table; "
                           f"{attribute.owner} attribute {attribute.name!r} is no piece's",
                           attribute.rule)
        player_attributes = {a.name for a in self.program.of(ir.AttributeDecl)
                             if a.owner == "player"}
        for hide in self.program.of(ir.HideDecl):
            if hide.attribute and hide.attribute not in player_attributes:
                self.unknown(hide.span, "player attribute", hide.attribute, player_attributes,
                             hide.rule)
        for function in self.program.of(ir.FunctionDecl):
            self.distinct_parameters(function.params, function.span, function.rule)
        for procedure in self.program.of(ir.Procedure):
            self.distinct_parameters(procedure.params, procedure.span, procedure.rule)

    def check_shadowing(self) -> None:
        """No declaration takes the name of a built-in: the rulebook's would hide it
        from every clause, the library's included."""
        for statement in self.program.statements:
            if isinstance(statement, (ir.AttributeDecl, ir.DeriveDecl)):
                builtin = BUILTIN.get(statement.owner, {})
                if statement.name in builtin:
                    self.error(self.name_span(statement), f"{statement.owner} attribute "
                               f"{statement.name!r} would hide the built-in attribute of "
                               f"every {statement.owner} of that name: choose another name",
                               statement.rule)
            elif isinstance(statement, (ir.PropertyDecl, ir.PrintedDecl)) \
                    and statement.name in BUILTIN["piece"]:
                what = "property" if isinstance(statement, ir.PropertyDecl) else "printed field"
                self.error(self.name_span(statement), f"{what} {statement.name!r} would hide "
                           "the built-in piece attribute of that name: choose another name",
                           statement.rule)
            elif isinstance(statement, ir.FunctionDecl) and (
                    statement.name in BUILTIN_FUNCTIONS or statement.name in COMPREHENSIONS):
                self.error(self.name_span(statement), f"function {statement.name!r} would hide the "
                           f"built-in function {statement.name}(...): choose another name",
                           statement.rule)
            if isinstance(statement, _GLOBAL_DECLARATIONS) and statement.name in BUILTIN_NAMES:
                self.error(self.name_span(statement), f"{statement.name!r} is a name every "
                           f"rulebook has ({_BUILTIN_MEANING[statement.name]}): a declaration of "
                           "that name would hide it; choose another name", statement.rule)

    def name_span(self, statement: Any) -> Span:
        """Where a declaration writes its name (the statement's start if not found)."""
        span: Span = statement.span
        line = self.lines.line(span.path, span.line)
        found = re.compile(rf"\b{re.escape(statement.name)}\b").search(line, span.column - 1)
        if found is None:
            return span
        return Span(span.path, span.line, found.start() + 1, found.end() + 1)

    def distinct_parameters(self, params: tuple[str, ...], span: Span, rule: str) -> None:
        twice = sorted({p for p in params if params.count(p) > 1})
        if twice:
            self.error(span, f"parameter {twice[0]!r} is named twice", rule)

    def check_actions(self) -> None:
        actions = self.declared.actions
        for action in self.program.of(ir.ActionDecl):
            for param in action.params:
                if param.type not in ACTION_PARAM_TYPES:
                    self.unknown(param.span, "action parameter type", param.type,
                                 ACTION_PARAM_TYPES, action.rule)
        for clause in (*self.program.of(ir.Forbid), *self.program.of(ir.Permit)):
            if clause.action not in actions:
                word = "forbid" if isinstance(clause, ir.Forbid) else "permit"
                why = self.declared.missing(clause.action, actions)
                what = (f"action {clause.action}" if clause.action in
                        self.declared.switched_off else f"no 'action {clause.action}' "
                        "declares this kind of action")
                self.error(clause.span, f"{word} {clause.action}: {what}{why}", clause.rule)
        for permit in self.program.of(ir.Permit):
            target = self.program.rules.get(permit.despite)
            lifts = target is not None and any(
                isinstance(s, ir.Forbid) and s.action == permit.action
                for s in target.statements)
            if permit.action in actions and not lifts:
                self.error(permit.span, f"permit despite {permit.despite}: that rule forbids "
                           f"no {permit.action} action, so this can never apply", permit.rule)

    def check_sequence(self) -> None:
        every = self.program.of(ir.Sequence)
        sequences = [s for s in every if not s.opening]
        procedures = self.declared.procedures
        for extra in sequences[1:]:
            self.error(extra.span, "only one turn sequence may be declared", extra.rule)
        if procedures and not sequences:
            anchor = self.program.game or next(iter(procedures.values()))
            rule = anchor.rule if isinstance(anchor, ir.Procedure) else f"game {anchor.name}"
            self.error(anchor.span, "procedures are declared but no rule states the turn "
                       "sequence ('sequence NAME { phase ... }') that runs them", rule)
        names: set[str] = set()
        for sequence in every:
            for phase in sequence.phases:
                if phase.name in names:
                    self.error(phase.span, f"phase {phase.name!r} appears twice", sequence.rule)
                names.add(phase.name)
                if not phase.for_each_player and phase.side not in self.declared.players:
                    self.unknown(phase.span, "player", phase.side, self.declared.players,
                                 sequence.rule)
                if phase.activity is None:
                    continue
                procedure = procedures.get(phase.activity)
                if procedure is None:
                    self.unknown(phase.span, "procedure", phase.activity, procedures,
                                 sequence.rule)
                elif len(procedure.params) > 1:
                    self.error(phase.span, f"procedure {procedure.name} takes "
                               f"{len(procedure.params)} arguments, but a phase gives it one "
                               "(the player whose phase it is)", sequence.rule)

    def check_tables(self) -> None:
        keys_known = set(self.declared.players) | self.declared.symbols
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
                        for name, _ in cell.entries:
                            if name not in keys_known:
                                self.unknown(cell.span, "player or symbol", name, keys_known,
                                             table.rule)

    def check_forms(self) -> None:
        """Warn about a hole a form's statements never use (wording holes excepted)."""
        for form in self.program.of(ir.FormDecl):
            try:
                holes = parse_pattern(form).holes
            except RulesSyntaxError as error:  # a form no library teaches: reported here
                for d in error.diagnostics:
                    self.error(d.span, d.message, form.rule)
                continue
            used = set(_words(form.body))
            for hole in holes:
                if hole.kind != "words" and hole.name not in used:
                    self.error(form.span, f"form {form.name}: the hole {{{hole.name}:"
                               f"{hole.kind}}} is not used by its statements, so what a "
                               "clause writes there is ignored", form.rule, severity="warning")

    # -------------------------------------------------------------- dead clauses
    def check_conditions(self) -> None:
        for statement in self.program.statements:
            condition = None
            if isinstance(statement, (ir.Forbid, ir.Permit, ir.HideDecl)):
                condition = statement.when
            elif isinstance(statement, ir.Contribute):
                condition = statement.when
            if condition is not None and self.never(condition):
                self.error(condition.span, "this condition is always false: the clause can "
                           f"never apply ({render.expr(condition)})", statement.rule)

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
        """Whether ``x is A and x is B ...`` asks one piece for two classes or two sides."""
        positive: dict[str, set[str]] = {}
        negative: dict[str, set[str]] = {}
        for atom in atoms:
            negated = isinstance(atom, ir.Not)
            inner = atom.operand if isinstance(atom, ir.Not) else atom
            if isinstance(inner, ir.Is) and inner.op == "is":
                key = render.expr(inner.subject)
                (negative if negated else positive).setdefault(key, set()).add(inner.name)
        classes_known = self.declared.classes
        for key, names in positive.items():
            if names & negative.get(key, set()):
                return True
            classes = {n for n in names if n in classes_known}
            if len(classes) > 1:
                return True
            sides = {n for n in names if n in self.declared.players}
            for cls in classes:
                side = side_of(classes_known[cls])
                if side is not None:
                    sides.add(side)
            if len(sides) > 1:
                return True
        return False

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

    def check_printed(self) -> None:
        """The ``printed`` declarations: a number or a list of numbers, each with a word
        of its own that a counter line can write, a default of its type, and ``one per``,
        ``drawn as dots filled by`` naming what they must."""
        declared = self.declared
        fields = printed.declared(self.program)
        words: dict[str, ir.PrintedDecl] = {}
        piece_names = {a.name: "an attribute" for a in self.program.of(ir.AttributeDecl)
                       if a.owner == "piece"}
        piece_names.update({d.name: "a derived attribute"
                            for d in self.program.of(ir.DeriveDecl) if d.owner == "piece"})
        piece_names.update({p: "a property" for p in declared.properties})
        for decl in self.program.of(ir.PrintedDecl):
            what = f"printed field {decl.name!r}"
            kind = printed.type_text(decl)
            if kind not in printed.TYPES:
                self.error(decl.type.span, f"{what} is {kind}: a printed field is a whole "
                           "number (int) or a list of them (list of int)", decl.rule,
                           expected=tuple(printed.TYPES))
                continue
            if decl.default is not None:
                value = printed.literal(decl.default)
                if value is None or isinstance(value, tuple) != printed.is_list(decl):
                    example = "[2, 1]" if printed.is_list(decl) else "0"
                    self.error(decl.default.span, f"the default of {what} is written as "
                               f"{printed.TYPES[kind]} ({example})", decl.rule)
            other = piece_names.get(decl.name) or (
                "a printed value" if decl.name in ("label", "flags") else None)
            if other is not None:
                self.error(self.name_span(decl), f"{what}: a piece already has {other} of "
                           "that name", decl.rule)
            word = decl.word
            if word in printed.BUILT_IN_WORDS or word in ("note", "counter"):
                self.error(decl.span, f"{what} may not be written {word!r}: the word already "
                           "means something on a counter line", decl.rule)
            elif word in declared.properties:
                self.error(decl.span, f"{what} may not be written {word!r}: property {word!r} "
                           "is written so", decl.rule)
            elif word in words:
                first = words[word]
                self.error(decl.span, f"{what} is written {word!r}, as printed field "
                           f"{first.name!r} is (at {first.span.path}:{first.span.line})",
                           decl.rule)
            else:
                words[word] = decl
            if decl.one_per is not None:
                count = next((f for f in fields.values() if f.name == decl.one_per), None)
                if not printed.is_list(decl):
                    self.error(decl.span, f"{what} has 'one per': only a list has one entry "
                               "per something", decl.rule)
                elif count is None or printed.is_list(count):
                    known = [f.name for f in fields.values() if not printed.is_list(f)]
                    self.unknown(decl.span, "printed number", decl.one_per, known, decl.rule)
            if decl.drawn == "dots":
                if printed.is_list(decl):
                    self.error(decl.span, f"{what} is a list: only a number is drawn as dots",
                               decl.rule)
                attributes = [a.name for a in self.program.of(ir.AttributeDecl)
                              if a.owner == "piece"]
                if decl.filled_by is not None and decl.filled_by not in attributes:
                    self.unknown(decl.span, "piece attribute", str(decl.filled_by), attributes,
                                 decl.rule)

    def check_counters(self) -> None:
        """Each counter line writes its class, its flags and the fields declared for it
        (``printed``, ``property``, ``side``), each once, with values of the right kind."""
        block = self.program.counters
        if block is None:
            return
        where = f"counters {block.name}"
        declared = self.declared
        fields = printed.declared(self.program)
        known = sorted({*fields, *declared.properties, *printed.BUILT_IN_WORDS})
        seen: set[str] = set()
        for counter in block.counters:
            if counter.id in seen:
                self.error(counter.span, f"counter {counter.id} is listed twice", where)
            seen.add(counter.id)
            if counter.cls not in declared.classes:
                self.unknown(counter.span, "class", counter.cls, declared.classes, where)
            for flag in counter.flags:
                if flag not in declared.flags:
                    self.unknown(counter.span, "flag", flag, declared.flags, where)
            written: set[str] = set()
            for field in counter.fields:
                if field.word in written:
                    self.error(field.span, f"counter {counter.id} writes {field.word} twice",
                               where)
                    continue
                written.add(field.word)
                if field.word == "side":
                    self.check_counter_side(counter, field, where)
                elif field.word in fields:
                    self.check_printed_field(counter, field, fields[field.word], where)
                elif field.word in declared.properties:
                    prop = declared.properties[field.word]
                    value = field.values[0]
                    if len(field.values) > 1:
                        self.error(field.value_spans[1], f"property {prop.name} takes one "
                                   f"value, not {len(field.values)}", where)
                    elif value not in prop.values:
                        self.unknown(field.value_spans[0], f"{prop.name} value", str(value),
                                     prop.values, where)
                else:
                    why = self.declared.missing(field.word, known) or (
                        ": no 'printed' or 'property' declaration gives counter lines that word")
                    self.error(field.span, f"unknown counter field {field.word!r}{why}", where,
                               expected=known if why.startswith(":") else ())
            self.check_one_per(counter, fields, where)

    def check_printed_field(self, counter: ir.CounterDecl, field: ir.CounterField,
                            decl: ir.PrintedDecl, where: str) -> None:
        """One printed field written on a counter line: numbers, one unless it is a list,
        within the declared bound."""
        kind = printed.type_text(decl)
        what = f"{field.word} takes {printed.TYPES.get(kind, kind)} (printed field " \
               f"{decl.name}: {kind})"
        for value, span in zip(field.values, field.value_spans, strict=True):
            if not isinstance(value, int):
                self.error(span, f"{what}, not {value!r}", where)
                return
        if not printed.is_list(decl) and len(field.values) > 1:
            self.error(field.value_spans[1], f"{what}, not {len(field.values)} numbers", where)
            return
        if decl.at_most is not None:
            for value, span in zip(field.values, field.value_spans, strict=True):
                if isinstance(value, int) and value > decl.at_most:
                    self.error(span, f"counter {counter.id} has {field.word} {value}: "
                               f"{field.word} is at most {decl.at_most}", where)

    def check_one_per(self, counter: ir.CounterDecl, fields: Mapping[str, ir.PrintedDecl],
                      where: str) -> None:
        """A list declared ``one per`` a printed number has that many entries, or none."""
        by_name = {d.name: d for d in fields.values()}
        for field in counter.fields:
            decl = fields.get(field.word)
            count = by_name.get(decl.one_per) if decl is not None and decl.one_per else None
            if decl is None or count is None or printed.is_list(count):
                continue
            given = counter.given(count.word)
            number = given[0] if given else printed.default(count)
            if not isinstance(number, int) or not all(isinstance(v, int) for v in field.values):
                continue   # reported as a value of the wrong kind
            if len(field.values) != number:
                entries = f"{len(field.values)} value{'s' if len(field.values) != 1 else ''}"
                self.error(field.span, f"counter {counter.id} has {count.word} {number} but "
                           f"{field.word} lists {entries}: one per {count.word}, or none",
                           where)

    def check_counter_side(self, counter: ir.CounterDecl, field: ir.CounterField,
                           where: str) -> None:
        """``side NAME`` on a counter line: the side of a counter whose class has none
        (both armies of a game with one counter mix, each class on either side)."""
        players = self.declared.players
        side = field.values[0]
        if len(field.values) > 1:
            self.error(field.value_spans[1], "a counter has one side, not "
                       f"{len(field.values)}", where)
            return
        if not isinstance(side, str) or side not in players:
            self.unknown(field.value_spans[0], "side", str(side), players, where)
            return
        decl = self.declared.classes.get(counter.cls)
        owner = side_of(decl) if isinstance(decl, ir.ClassDecl) else None
        if owner is not None and owner != side:
            self.error(counter.span, f"counter {counter.id} is given side {side}, but its class "
                       f"{counter.cls} belongs to side {owner}", where)

    def check_hex_terrain(self, statement: ir.HexTerrain | ir.HexBlock,
                          listed: dict[str, ir.HexTerrain | ir.HexBlock], where: str) -> None:
        """A hex is listed once, with at most one terrain of each kind.

        The kinds are ``natural`` (the ground), ``artificial`` (what is built)
        and ``relief`` (a height, which a ground may cover: a wooded hill), as
        each ``terrain`` declaration says. The error cites the rule that
        declares the terrains in conflict.

        One exception keeps a map short: a ``hex`` line may add terrain to
        hexes of an earlier ``hexes`` rectangle, repeating the rectangle's
        own terrain (``hexes 0800..1246: clear`` then ``hex 1003: clear,
        dry_land_city``).
        """
        names = statement.terrain
        for name in sorted(n for n, times in Counter(names).items() if times > 1):
            self.error(statement.span, f"terrain {name} is given twice to the same hexes", where)
        by_kind: dict[str, list[ir.TerrainDecl]] = {}
        for name in dict.fromkeys(names):
            decl = self.declared.terrain.get(name)
            if isinstance(decl, ir.TerrainDecl):
                by_kind.setdefault(decl.kind, []).append(decl)
        for kind, found in by_kind.items():
            if len(found) > 1:
                self.error(statement.span, f"a hex has at most one {kind} terrain, not "
                           f"{' and '.join(d.name for d in found)}", found[-1].rule)
        ids = (hex_block(statement.first, statement.last) if isinstance(statement, ir.HexBlock)
               else statement.hexes)
        # id of the first listing -> (that listing, the hexes listed again)
        again: dict[int, tuple[ir.HexTerrain | ir.HexBlock, dict[str, None]]] = {}
        here: set[str] = set()
        for hex_id in ids:
            if hex_id in here:  # twice on this very line
                first: ir.HexTerrain | ir.HexBlock = statement
            else:
                here.add(hex_id)
                first = listed.setdefault(hex_id, statement)
                if first is statement:
                    continue
                if (isinstance(first, ir.HexBlock) and isinstance(statement, ir.HexTerrain)
                        and set(first.terrain) <= set(names)):
                    listed[hex_id] = statement  # refined once; a second hex line is not
                    continue
            again.setdefault(id(first), (first, {}))[1][hex_id] = None
        for first, repeats in again.values():
            repeated = list(repeats)
            noun = f"hex {repeated[0]} is" if len(repeated) == 1 else (
                f"hexes {', '.join(repeated[:8])}{', ...' if len(repeated) > 8 else ''} are")
            at = "on this line" if first is statement else (
                f"first at {first.span.path}:{first.span.line}")
            hint = (" (a hex line may add terrain to hexes of an earlier 'hexes' rectangle "
                    "only by repeating the rectangle's terrain)" if isinstance(
                        first, ir.HexBlock) and isinstance(statement, ir.HexTerrain) else "")
            self.error(statement.span, f"{noun} listed twice ({at}){hint}", where)

    def check_place(self, statement: ir.PlaceDecl, seen: set[str], where: str) -> None:
        """A place names hexes of the map, earlier places, known terrain and zones."""
        data = self.program.map
        assert data is not None
        if statement.name in seen:
            self.error(statement.span, f"place {statement.name} is declared twice", where)
        for item in (*statement.items, *statement.excluded):
            if item.kind == "hex" and item.args[0] not in data.hexes:
                self.error(statement.span, f"hex {item.args[0]} is not on the map", where)
            elif item.kind == "range" and not any(
                    h in data.hexes for h in hex_block(*item.args)):
                self.error(statement.span, f"no hex of the map lies in {item.args[0]}.."
                           f"{item.args[1]}", where)
            elif item.kind == "place" and item.args[0] not in seen:
                later = any(isinstance(s, ir.PlaceDecl) and s.name == item.args[0]
                            for s in data.block.statements)
                if later:
                    self.error(statement.span, f"place {item.args[0]} is used before it is "
                               "declared (declare it above)", where)
                else:
                    self.unknown(statement.span, "place", item.args[0], seen, where)
            elif item.kind == "terrain" and item.args[0] not in self.declared.terrain:
                self.unknown(statement.span, "terrain", item.args[0], self.declared.terrain,
                             where)
            elif item.kind == "shore" and item.args and int(item.args[0]) not in data.zones:
                self.error(statement.span, f"zone {item.args[0]} is not declared", where)
        seen.add(statement.name)
        if not data.places.get(statement.name, ("", ()))[1]:
            self.error(statement.span, f"place {statement.name} holds no hex", where)

    def check_map(self) -> None:
        data = self.program.map
        if data is None:
            return
        where = f"map {data.name}"
        hexes = data.hexes
        terrain = self.declared.terrain
        hexsides = self.declared.hexsides
        listed: dict[str, ir.HexTerrain | ir.HexBlock] = {}  # hex id -> first listed by
        seen_places: set[str] = set()
        seen_groups: set[str] = set()
        for statement in data.block.statements:
            if isinstance(statement, (ir.HexTerrain, ir.HexBlock)):
                for name in statement.terrain:
                    if name not in terrain:
                        self.unknown(statement.span, "terrain", name, terrain, where)
                self.check_hex_terrain(statement, listed, where)
            elif isinstance(statement, ir.HexsideFeature):
                for name in statement.features:
                    if name not in hexsides:
                        self.unknown(statement.span, "hexside feature", name, hexsides, where)
                for end in (statement.a, statement.b):
                    if end not in hexes:
                        self.error(statement.span, f"hexside names hex {end}, which is not on "
                                   "the map", where)
                if not adjacent(statement.a, statement.b, data.odd_columns_low):
                    self.error(statement.span, f"hexes {statement.a} and {statement.b} do not "
                               "touch, so they share no hexside", where)
            elif isinstance(statement, ir.ZoneBorders):
                for hex_id in statement.hexes:
                    if hex_id not in hexes:
                        self.error(statement.span, f"hex {hex_id} is not on the map", where)
            elif isinstance(statement, ir.PlaceDecl):
                self.check_place(statement, seen_places, where)
            elif isinstance(statement, ir.ZoneGroup):
                if statement.name in seen_groups:
                    self.error(statement.span, f"zone group {statement.name} is declared twice",
                               where)
                seen_groups.add(statement.name)
                for number in statement.zones:
                    if number not in data.zones:
                        self.error(statement.span, f"zone {number} is not declared", where)
            if isinstance(statement, (ir.ZoneBorders, ir.ZoneTouches)):
                numbers = [statement.number, *getattr(statement, "others", ())]
                for number in numbers:
                    if number not in data.zones:
                        self.error(statement.span, f"zone {number} is not declared", where)
            if isinstance(statement, (ir.AreaAdjacent, ir.AreaBorder)):
                ends = ((statement.name, *statement.others)
                        if isinstance(statement, ir.AreaAdjacent) else (statement.a, statement.b))
                for end in ends:
                    if end not in data.areas:
                        self.unknown(statement.span, "area", end, data.areas, where)

    def check_terrain_on_map(self, uses: list[tuple[ir.Is, str]]) -> None:
        """Warn about terrain conditions no hex of the loaded map can meet."""
        data = self.program.map
        if data is None or not data.hexes:
            return
        present = set().union(*data.hexes.values())
        d = self.declared
        # A name that is also another kind of symbol may be met by something else.
        only_terrain = (set(d.terrain) - set(d.hexsides) - set(d.classes) - d.traits
                        - set(d.flags) - d.property_values - set(d.players) - d.area_features)
        for node, rule in uses:
            if node.name in only_terrain and node.name not in present:
                self.error(node.name_span, f"no hex of map {data.name} has terrain "
                           f"{node.name!r}: on this map the condition is never true", rule,
                           severity="warning")

    def check_setups(self) -> None:
        block = self.program.counters
        counters = {c.id for c in block.counters} if block else set()
        data = self.program.map
        places = set(data.hexes) | set(data.areas) if data else set()
        if data is not None:
            places |= {f"zone.{n}" for n in data.zones}
        for pool in self.declared.pools.values():
            if pool.per_player:
                places |= {f"{pool.name}.{player}" for player in self.declared.players}
            else:
                places.add(pool.name)
        for setup in self.program.setups.values():
            where = f"setup {setup.name}"
            placed: set[str] = set()
            for placement in setup.placements:
                if placement.hex not in places:
                    if placement.hex.isdigit():
                        self.error(placement.span, f"hex {placement.hex} is not on the map",
                                   where)
                    else:
                        self.unknown(placement.span, "place", placement.hex,
                                     (p for p in places if not p.isdigit()), where)
                for unit in placement.units:
                    if unit not in counters:
                        self.unknown(placement.span, "piece", unit, counters, where)
                    if unit in placed:
                        self.error(placement.span, f"piece {unit} is placed twice", where)
                    placed.add(unit)


# Declarations whose names an expression reads bare, as it reads the built-in names.
_GLOBAL_DECLARATIONS = (ir.ValueDecl, ir.HookDecl, ir.FunctionDecl, ir.TableDecl,
                        ir.DiceDecl, ir.FaceDieDecl, ir.PoolDecl, ir.PlayerDecl, ir.SideDecl)
_BUILTIN_MEANING = {"players": "the players in turn order", "pieces": "every piece",
                    "hexes": "the hexes of the map", "areas": "the areas of the map",
                    "zones": "the water zones of the map", "turn": "the game turn",
                    "phase": "the phase being played"}


def _words(node: object) -> Iterable[str]:
    """Every name and string inside a form's statements (where its holes may be used)."""
    if isinstance(node, str):
        yield node
    elif isinstance(node, tuple):
        for item in node:
            yield from _words(item)
    elif hasattr(type(node), "__attrs_attrs__"):
        for field in type(node).__attrs_attrs__:  # type: ignore[attr-defined]
            if field.name not in ("span", "name_span", "rule"):
                yield from _words(getattr(node, field.name))


def map_guards(statements: Iterable[object], rule: str
               ) -> Iterable[tuple[ir.WhenReading, str]]:
    """The ``when reading`` guards of a map block (map lines hold no expressions)."""
    for statement in statements:
        if isinstance(statement, ir.WhenReading):
            yield statement, rule
            yield from map_guards(statement.body, rule)


def reading_uses(node: object, rule: str = ""
                  ) -> Iterable[tuple[ir.ReadingIs | ir.WhenReading, str]]:
    """Every ``reading ID is NAME`` and ``when reading`` inside a node, with its rule."""
    if isinstance(node, (ir.ReadingIs, ir.WhenReading)):
        yield node, rule
    if isinstance(node, tuple):
        for item in node:
            yield from reading_uses(item, rule)
    elif attrs.has(type(node)) and not isinstance(node, _NO_READINGS):
        for field in attrs.fields(cast(Any, type(node))):
            value = getattr(node, field.name)
            if isinstance(value, tuple) or attrs.has(type(value)):
                yield from reading_uses(value, rule)


_NO_READINGS = (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit, ir.Name, Span, ir.TableDecl,
                ir.ZoneBorders, ir.HexTerrain, ir.HexBlock, ir.CounterDecl)


def side_of(decl: ir.ClassDecl) -> str | None:
    """A class's side. The parser gives a class declared without one the side "None"."""
    return None if decl.side in (None, "None") else decl.side


def conjuncts(node: ir.Expr) -> Iterable[ir.Expr]:
    """The atoms of a chain of ``and``."""
    if isinstance(node, ir.BoolOp) and node.op == "and":
        yield from conjuncts(node.left)
        yield from conjuncts(node.right)
    else:
        yield node


def check(program: ir.Program, comment_citations: str = "warning") -> list[Diagnostic]:
    """Every diagnostic for a program, errors and warnings, sorted by place.

    Args:
        comment_citations: the severity of a comment that cites an entry the
            interpretations registry does not hold: a load warns, ``cortes-rules
            check`` refuses (``"error"``).
    """
    return Checker(program, comment_citations).run()


def errors_only(diagnostics: Iterable[Diagnostic]) -> list[Diagnostic]:
    """The diagnostics that stop a load."""
    return [d for d in diagnostics if d.severity == "error"]


__all__ = ["MAX_DICE", "MAX_FACES", "Checker", "check", "errors_only", "walk"]
