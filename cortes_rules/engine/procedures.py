"""Procedures compiled into flat instruction lists, and their straight stretches
into generated Python (``REGION``).

A procedure's statements become instructions with jumps (``_ProcCompiler``):
a decision (``CHOOSE``, ``SEALED``) or chance node (``ROLL``, ``DRAW``)
pauses the state that runs them (``machine.GameState._run``). A stretch of
statements that never pauses is compiled, when it first runs, into one
Python function (``_RegionCompiler``) that does what its instructions would
and counts them for the step budget. Nothing here knows a game.
"""

from __future__ import annotations

import re
import threading
from collections.abc import Iterable, Sequence
from typing import TYPE_CHECKING, Any

from ..dsl import ir
from .codegen import Unsupported
from .compile import Fn, RulesRuntimeError
from .log import EVERYONE

if TYPE_CHECKING:
    from .machine import Machine

# Opcodes.
(LET, SET_VAR, SET_ATTR, PUT, JUMP, JUMP_IF_NOT, FOR_INIT, FOR_NEXT, CALL, RETURN, CHOOSE,
 SEALED, DISPATCH, ROLL, DRAW, LOG, FINISH, FAIL, REVEAL, NOP, PHASE, TURN_END,
 CALL_PHASE, REGION) = range(24)
# REGION runs a stretch of statements that never pauses, compiled to one Python
# function (see _RegionCompiler); it returns how many instructions the
# statements would have taken, for the step budget.
_PAUSES = (CHOOSE, SEALED, ROLL, DRAW)


# ============================================================ compiled program


class OptionSpec:
    __slots__ = ("kind", "params", "bindings", "where", "body", "span", "enum", "clean",
                 "binder", "cite", "decl")

    def __init__(self, kind: str, params: tuple[tuple[str, Fn], ...],
                 bindings: tuple[tuple[str, Fn], ...], where: Fn | None, span: Any) -> None:
        self.kind, self.params, self.bindings, self.where = kind, params, bindings, where
        self.body = 0
        self.span = span
        self.enum: Any = None
        self.binder: Any = None
        self.clean = False   # candidates read no parameter or binding before it is set
        self.cite: Fn | None = None   # the rules a refusal by domain or 'where' cites
        self.decl: ir.Option | None = None   # the option as the rulebook states it


class ChoiceSpec:
    __slots__ = ("player", "options", "end", "name", "key", "span")

    def __init__(self, player: Fn, options: tuple[OptionSpec, ...], span: Any,
                 name: str = "", key: str = "") -> None:
        self.player, self.options, self.span, self.name, self.key = (
            player, options, span, name, key)
        self.end = 0


class Proc:
    """A compiled procedure: parameters and instructions.

    ``pending`` holds the statements not yet compiled (``Machine.compiled``),
    None once ``code`` holds their instructions."""

    __slots__ = ("name", "params", "code", "rule", "span", "pending")

    def __init__(self, name: str, params: tuple[str, ...], rule: str, span: Any) -> None:
        self.name, self.params, self.rule, self.span = name, params, rule, span
        self.code: list[tuple[Any, ...]] = []
        self.pending: tuple[ir.Stmt, ...] | None = None

    def __repr__(self) -> str:
        return f"<procedure {self.name}>"


def _own_writes(name: str, body: Sequence[ir.Stmt]) -> set[str] | None:
    """What a loop body writes when it writes only the loop variable ``name``'s
    attributes (``"set"``) and place (``"put"``), through ``set``, ``put``, ``if``
    and ``log``; None when it may write anything else (a variable, another piece,
    a call's effects)."""
    writes: set[str] = set()
    for x in body:
        if isinstance(x, ir.SetStmt) and isinstance(x.target, ir.Attr) \
                and isinstance(x.target.obj, ir.Name) and x.target.obj.id == name:
            writes.add("set")
        elif isinstance(x, ir.Put) and isinstance(x.pieces, ir.Name) and x.pieces.id == name:
            writes.add("put")
        elif isinstance(x, ir.If):
            inner = _own_writes(name, (*x.then, *x.otherwise))
            if inner is None:
                return None
            writes |= inner
        elif not isinstance(x, ir.Log):
            return None
    return writes


class _ProcCompiler:
    """Statements of one procedure into instructions, with jumps."""

    def __init__(self, machine: Machine, proc: Proc) -> None:
        self.m, self.proc = machine, proc
        self.loops: list[tuple[int, list[int]]] = []   # (continue target, break jumps)
        self.counter = 0

    def emit(self, *ins: Any) -> int:
        self.proc.code.append(ins)
        return len(self.proc.code) - 1

    def patch(self, at: int, *ins: Any) -> None:
        self.proc.code[at] = ins

    def here(self) -> int:
        return len(self.proc.code)

    def x(self, node: ir.Expr) -> Fn:
        ref = self.m.compiler.expr(node, self.proc.rule)
        return self.m.native_condition(node, self.m.fast.root(node, ref))

    def body(self, statements: Iterable[ir.Stmt]) -> None:
        self.block(statements)

    def block(self, statements: Iterable[ir.Stmt]) -> None:
        run: list[ir.Stmt] = []
        for st in statements:
            if self.m.regions and _straight(st, False):
                run.append(st)
                continue
            self.flush(run)
            run = []
            self.stmt(st)
        self.flush(run)

    def flush(self, run: list[ir.Stmt]) -> None:
        """Statements that never pause: one REGION when worth it, else instructions."""
        if not run:
            return
        if len(run) == 1 and not isinstance(run[0], (ir.If, ir.ForEach)):
            self.stmt(run[0])
            return
        at = self.emit(REGION, None, None)
        first = self.counter
        for st in run:   # the instructions, run when the region cannot be compiled
            self.stmt(st)
        lazy = _LazyRegion(self, at, run, first, self.counter)
        self.patch(at, REGION, lazy.first_run, self.here())

    def stmt(self, st: ir.Stmt) -> None:
        if isinstance(st, ir.Let):
            self.emit(LET, st.name, self.x(st.value))
        elif isinstance(st, ir.SetStmt):
            if isinstance(st.target, ir.Name):
                self.emit(SET_VAR, st.target.id, self.x(st.value), st.span)
            else:
                assert isinstance(st.target, ir.Attr)
                self.emit(SET_ATTR, self.x(st.target.obj), st.target.name, self.x(st.value),
                          st.span)
        elif isinstance(st, ir.Put):
            self.emit(PUT, self.x(st.pieces), self.x(st.place), st.span)
        elif isinstance(st, ir.CallEach):
            args = tuple(self.x(a) for a in st.args)
            for c in self.m.program.of(ir.Contribute):
                if c.hook != st.hook or not isinstance(c.value, ir.Name):
                    continue
                skip = self.emit(NOP) if c.when is not None else None
                self.emit(CALL, c.value.id, args, st.span)
                if skip is not None and c.when is not None:
                    self.patch(skip, JUMP_IF_NOT, self.x(c.when), self.here())
        elif isinstance(st, ir.If):
            jump = self.emit(NOP)
            self.block(st.then)
            if st.otherwise:
                skip = self.emit(NOP)
                self.patch(jump, JUMP_IF_NOT, self.x(st.test), self.here())
                self.block(st.otherwise)
                self.patch(skip, JUMP, self.here())
            else:
                self.patch(jump, JUMP_IF_NOT, self.x(st.test), self.here())
        elif isinstance(st, ir.ForEach):
            self.counter += 1
            key = f"$for{self.counter}"
            self.emit(FOR_INIT, key, self.x(st.domain))
            top = self.emit(NOP)
            breaks: list[int] = []
            self.loops.append((top, breaks))
            self.block(st.body)
            self.emit(JUMP, top)
            self.loops.pop()
            where = self.x(st.where) if st.where is not None else None
            self.patch(top, FOR_NEXT, key, st.name, where, self.here())
            for b in breaks:
                self.patch(b, JUMP, self.here())
        elif isinstance(st, (ir.While, ir.Loop)):
            top = self.here()
            test = self.emit(NOP) if isinstance(st, ir.While) else None
            breaks = []
            self.loops.append((top, breaks))
            self.block(st.body)
            self.emit(JUMP, top)
            self.loops.pop()
            if test is not None:
                assert isinstance(st, ir.While)
                self.patch(test, JUMP_IF_NOT, self.x(st.test), self.here())
            for b in breaks:
                self.patch(b, JUMP, self.here())
        elif isinstance(st, ir.Break):
            if not self.loops:
                raise RulesRuntimeError("'break' outside a loop", st.span, self.proc.rule)
            self.loops[-1][1].append(self.emit(NOP))
        elif isinstance(st, ir.Continue):
            if not self.loops:
                raise RulesRuntimeError("'continue' outside a loop", st.span, self.proc.rule)
            self.emit(JUMP, self.loops[-1][0])
        elif isinstance(st, ir.Return):
            self.emit(RETURN)
        elif isinstance(st, ir.CallStmt):
            self.emit(CALL, st.name, tuple(self.x(a) for a in st.args), st.span)
        elif isinstance(st, ir.Choose):
            self.choice(st.options, ChoiceSpec(self.x(st.player), (), st.span), CHOOSE)
        elif isinstance(st, ir.ChooseSealed):
            self.counter += 1
            spec = ChoiceSpec(self.x(st.players), (), st.span, st.name, f"$sealed{self.counter}")
            self.choice(st.options, spec, SEALED)
        elif isinstance(st, ir.Roll):
            self.emit(ROLL, st.name, self.x(st.dice), st.span)
        elif isinstance(st, ir.Draw):
            self.emit(DRAW, st.name, self.x(st.source), st.span)
        elif isinstance(st, ir.Shuffle):
            self.emit(NOP)
        elif isinstance(st, ir.Log):
            self.emit(LOG, self.template(st.text, st.span),
                      self.x(st.cite) if st.cite is not None else None,
                      self.x(st.to) if st.to is not None else None)
        elif isinstance(st, ir.Finish):
            self.emit(FINISH, self.x(st.winner) if st.winner is not None else None,
                      self.template(st.reason, st.span),
                      tuple((k, self.x(v)) for k, v in st.report))
        elif isinstance(st, ir.Reveal):
            self.emit(REVEAL, self.x(st.pieces), self.x(st.to))
        elif isinstance(st, ir.Fail):
            self.emit(FAIL, st.message, st.span)
        else:  # pragma: no cover - the parser builds no other statement
            raise RulesRuntimeError(f"unknown statement {type(st).__name__}", None,
                                    self.proc.rule)

    def choice(self, options: Iterable[ir.Option], spec: ChoiceSpec, op: int) -> None:
        at = self.emit(op, spec)
        if op == SEALED:
            self.emit(DISPATCH, spec)
        compiled = []
        ends: list[int] = []
        for option in options:
            o = OptionSpec(option.kind, tuple((p.name, self.x(p.domain)) for p in option.params),
                           tuple((n, self.x(e)) for n, e in option.bindings),
                           self.x(option.where) if option.where is not None else None,
                           option.span)
            if option.cite is not None:
                o.cite = self.x(option.cite)
            o.decl = option
            kind = self.m.space.kinds.get(option.kind)
            if kind is not None:
                o.enum = self.m.fast.enumerator(option, kind)
                if self.m.backend.name == "compiled":
                    o.enum = self.m.native_enumerator(o, o.enum)
                o.clean = self.m.fast.reads_in_order(option)
                o.binder = self.m.fast.binder(option)
            o.body = self.here()
            self.block(option.body)
            ends.append(self.emit(NOP))
            compiled.append(o)
        spec.options = tuple(compiled)
        spec.end = self.here()
        for e in ends:
            self.patch(e, JUMP, at + 1 if op == SEALED else spec.end)

    def template(self, text: str, span: Any) -> Any:
        return tuple(p if isinstance(p, str) else self.x(p)
                     for p in self.template_fields(text, span))

    def template_fields(self, text: str, span: Any) -> tuple[str | ir.Expr, ...]:
        """A log text's literal parts and the expressions of its ``{fields}``."""
        return _template_fields(text, span)


_FIELD = re.compile(r"\{([A-Za-z_][A-Za-z0-9_]*(?:\.[A-Za-z_][A-Za-z0-9_]*)*)\}")


def _template_fields(text: str, span: Any) -> tuple[str | ir.Expr, ...]:
    """A text's literal parts and the expressions of its ``{fields}``."""
    parts: list[str | ir.Expr] = []
    last = 0
    for match in _FIELD.finditer(text):
        parts.append(text[last:match.start()])
        names = match[1].split(".")
        node: ir.Expr = ir.Name(names[0], span)
        for attr in names[1:]:
            node = ir.Attr(node, attr, span)
        parts.append(node)
        last = match.end()
    parts.append(text[last:])
    return tuple(parts)


def _straight(st: ir.Stmt, in_loop: bool) -> bool:
    """Whether a statement runs to its end without pausing, calling or leaving its block."""
    if isinstance(st, (ir.Let, ir.SetStmt, ir.Put, ir.Log, ir.Reveal, ir.Shuffle, ir.Fail)):
        return True
    if isinstance(st, (ir.Break, ir.Continue)):
        return in_loop
    if isinstance(st, ir.If):
        return all(_straight(x, in_loop) for x in (*st.then, *st.otherwise))
    if isinstance(st, ir.ForEach):
        return all(_straight(x, True) for x in st.body)
    return False


_REGION_LOCK = threading.Lock()
_PROC_LOCK = threading.Lock()


def _thread_jumps(code: list[tuple[Any, ...]]) -> None:
    """Make each jump go straight to where the jumps it lands on would lead (the end of
    an option's body jumps to the end of the choice, which jumps back to the top of
    the loop around it): the same instructions run, less one dispatch per jump saved."""
    def final(target: int) -> int:
        seen = set()
        while target < len(code) and code[target][0] == JUMP and target not in seen:
            seen.add(target)
            target = code[target][1]
        return target

    for at, ins in enumerate(code):
        if ins[0] == JUMP:
            code[at] = (JUMP, final(ins[1]))
        elif ins[0] == JUMP_IF_NOT:
            target = final(ins[2])
            if target > at:   # a test jumps only forward: the budget is spent on jumps back
                code[at] = (JUMP_IF_NOT, ins[1], target, *ins[3:])


class _LazyRegion:
    """A region compiled when it first runs (most of a rulebook's never run in a game).

    ``(REGION, f, end)`` is followed in the procedure by the same statements as
    instructions, up to ``end``. When first run, ``first_run`` compiles the
    region and puts it in its own place; a region Python cannot compile (its
    limits on nesting) becomes a NOP, so its instructions run, now and after.
    The region numbers its loops as the instructions do (``$for<n>``), so the
    variables a procedure keeps do not depend on which regions ran first.
    """

    __slots__ = ("owner", "at", "run", "first", "last")

    def __init__(self, owner: _ProcCompiler, at: int, run: list[ir.Stmt], first: int,
                 last: int) -> None:
        self.owner, self.at, self.run, self.first, self.last = owner, at, run, first, last

    def first_run(self, s: Any, env: dict[str, Any]) -> int:
        code = self.owner.proc.code
        with _REGION_LOCK:
            if code[self.at][1] == self.first_run:   # not compiled meanwhile by another thread
                region = self.compile()
                code[self.at] = (NOP,) if region is None else (REGION, region, code[self.at][2])
        ins = code[self.at]
        return -1 if ins[0] == NOP else int(ins[1](s, env))

    def compile(self) -> Fn | None:
        owner = self.owner
        after = owner.counter
        owner.counter = self.first
        try:
            region: Fn = _RegionCompiler(owner).compile(self.run)
            return region if owner.counter == self.last else None
        except Unsupported:   # beyond what Python compiles: the instructions run
            return None
        finally:
            owner.counter = after


class _RegionCompiler:
    """Statements that never pause, compiled to one Python function ``f(s, env) -> n``.

    Each statement does what its instructions do, in the same order. Its
    expressions are compiled in line, each as one evaluation (it reads the
    variables as they are when it runs, and if it raises, the procedure's own
    compiled function for it runs instead, which reports errors as the
    reference does); ``n`` counts the instructions the statements stand for, so
    the step budget runs down as before. The variable of a ``for each`` that
    its body never sets is read from a Python local, and so is a variable that
    a ``let`` or ``set`` outside any block of the region gave its value (it is
    still written to ``env`` too), until a block that may set it again. A
    variable the region never sets is read from ``env`` once, where it starts.
    """

    def __init__(self, owner: _ProcCompiler) -> None:
        self.owner = owner
        self.fast = owner.m.fast
        self.gen = self.fast.generator(indent=1)
        self.locs: dict[str, str] = {}
        self.locs_env: tuple[str, str] | None = None
        self.pending = 0
        self.nested = 0     # blocks (if, for each) the statement being compiled is in

    def w(self, line: str) -> None:
        self.gen.w(line)

    def k(self, obj: Any) -> str:
        return str(self.fast.const(obj))

    def value(self, node: ir.Expr) -> str:
        """Emit the evaluation of an expression; return a local or literal holding it."""
        gen = self.gen
        root = self.k(self.owner.x(node))
        if isinstance(node, (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit)):
            return repr(node.value) if not isinstance(node, ir.NoneLit) else "None"
        if isinstance(node, ir.Name) and node.id in self.locs:
            return self.locs[node.id]
        t = self.fast.fresh("v")
        start = len(gen.lines)
        self.w("try:")
        gen.push()
        expr = gen.expression(node, self.locs)
        if expr.isidentifier() and all(line.strip() == "pass" for line in gen.lines[start + 1:]):
            # A variable read at the region's start (present: it checked) or a
            # constant: nothing to evaluate, nothing that can fail.
            gen.pop()
            del gen.lines[start:]
            return expr
        if expr.startswith("t_") and any(line.lstrip().startswith(expr + " = ")
                                         for line in gen.lines[start + 1:]):
            t = expr    # a temporary of this evaluation holds the value already
        else:
            self.w(f"{t} = {expr}")
        gen.pop()
        self.w("except Exception:")
        if self.locs_env is not None:   # a loop variable not yet written to env
            self.w(f"    env[{self.locs_env[0]!r}] = {self.locs_env[1]}")
        self.w(f"    {t} = {root}(s, env)")
        return t

    def count(self, n: int = 1) -> None:
        """Count instructions; written out before anything that may branch (see flush)."""
        self.pending += n

    def flush(self) -> None:
        if self.pending:
            self.w(f"n += {self.pending}")
            self.pending = 0

    def compile(self, run: list[ir.Stmt]) -> Any:
        self.w("n = 0")
        preloads = self.gen.region_preloads(frozenset(_assigned(run)))
        for st in run:
            self.stmt(st)
        preloads()
        self.flush()
        self.w("return n")
        name = self.fast.fresh("region")
        return self.fast.build(name, "s, env", self.gen.finish(), None,
                               getattr(run[0], "span", None))

    def stmt(self, st: ir.Stmt) -> None:
        proc = self.k(self.owner.proc)
        gen = self.gen
        if isinstance(st, (ir.If, ir.ForEach)):
            # What the block may set is no longer known here once it has run.
            for name in _assigned([st]):
                self.locs.pop(name, None)
        if isinstance(st, ir.Let):
            self.count()
            v = self.value(st.value)
            self.w(f"env[{st.name!r}] = {v}")
            self.remember(st.name, v)
        elif isinstance(st, ir.SetStmt) and isinstance(st.target, ir.Name):
            name = st.target.id
            self.count()
            v = self.value(st.value)
            self.w(f"if {name!r} in env: env[{name!r}] = {v}")
            self.w(f"elif {name!r} in s.values: _write_value(s, {name!r}, {v})")
            message = f"'set {name}': no such variable or value"
            self.w(f"else: raise RulesRuntimeError({message!r}, {self.k(st.span)}, {proc}.rule)")
            if name in self.locs:   # a variable of the region's: env has it
                self.remember(name, v)
        elif isinstance(st, ir.SetStmt):
            assert isinstance(st.target, ir.Attr)
            self.count()
            self.set_attr(st.target.name, self.value(st.target.obj), self.value(st.value),
                          f"{self.k(st.span)}, {proc}")
        elif isinstance(st, ir.Put):
            self.count()
            what = self.value(st.pieces)
            where = self.value(st.place)
            self.w(f"_put_op(s, {what}, {where}, {self.k(st.span)}, {proc})")
        elif isinstance(st, ir.Log):
            o = self.owner
            fields = o.template_fields(st.text, st.span)
            parts = tuple(p if isinstance(p, str) else o.x(p) for p in fields)
            self.count()
            values = [self.value(p) for p in fields if not isinstance(p, str)]
            cited = self.value(st.cite) if st.cite is not None else "None"
            to = self.value(st.to) if st.to is not None else self.k(EVERYONE)
            self.w(f"_log_values(s, {self.k(parts)}, ({''.join(v + ', ' for v in values)}), "
                   f"{cited}, {to})")
        elif isinstance(st, ir.Reveal):
            self.count()
            pieces = self.value(st.pieces)
            to = self.value(st.to)
            self.w(f"s._reveal({pieces}, {to})")
        elif isinstance(st, ir.Shuffle):
            self.count()
        elif isinstance(st, ir.Fail):
            self.count()
            self.flush()
            self.w(f"raise RulesRuntimeError({st.message!r}, {self.k(st.span)}, {proc}.rule)")
        elif isinstance(st, (ir.Break, ir.Continue)):
            self.count()
            self.flush()
            self.w("break" if isinstance(st, ir.Break) else "continue")
        elif isinstance(st, ir.If):
            self.count()
            self.flush()
            self.w(f"if {self.value(st.test)}:")
            gen.push()
            self.nested += 1
            self.w("pass")
            for x in st.then:
                self.stmt(x)
            if st.otherwise:
                self.count()
            self.flush()
            gen.pop()
            if st.otherwise:
                self.w("else:")
                gen.push()
                self.w("pass")
                for x in st.otherwise:
                    self.stmt(x)
                self.flush()
                gen.pop()
            self.nested -= 1
        elif isinstance(st, ir.ForEach):
            self.nested += 1
            self.for_each(st)
            self.nested -= 1
        else:  # pragma: no cover - _straight admits no other statement
            raise AssertionError(type(st).__name__)

    def remember(self, name: str, v: str) -> None:
        """Read ``name`` from ``v`` in the statements after this one, when this one is in
        no block: ``v`` is then a literal or a local assigned once in the region."""
        if self.nested:
            self.locs.pop(name, None)
        else:
            self.locs[name] = v

    def set_attr(self, name: str, o: str, v: str, where: str) -> None:
        """``set o.name = v``: a declared attribute, stamped when its value changes."""
        ref = self.fast.ref
        if not v.isidentifier() or v in ("True", "False", "None"):
            literal, v = v, self.fast.fresh("v")
            self.w(f"{v} = {literal}")
        fallback = f"s._set_attr({o}, {name!r}, {v}, {where})"
        if name in ref.piece_attributes:
            old = self.fast.fresh("old")
            self.w(f"if type({o}) is Piece:")
            self.w(f"    {old} = s.piece_attrs[{name!r}][{o}.index]")
            self.w(f"    if {_changes(old, v)}:")
            self.w(f"        _piece_changed(s, {name!r}, {o}.index, {old}, {v})")
            self.w(f"else: {fallback}")
        elif name in ref.place_attributes:
            self.w(f"if type({o}) is Place: _write_place(s, {name!r}, {o}.index, {v})")
            self.w(f"else: {fallback}")
        else:
            self.w(fallback)

    def for_each(self, st: ir.ForEach) -> None:
        gen = self.gen
        self.owner.counter += 1
        key = f"$for{self.owner.counter}"
        items, i, found, item, size, start = (self.fast.fresh(p) for p in (
            "items", "i", "found", "item", "size", "start"))
        self.count()
        d = self.value(st.domain)
        self.w(f"{items} = tuple(_as_iterable({d})) if isinstance({d}, frozenset) "
               f"else tuple({d})")
        self.w(f"{i} = 0")
        self.w(f"{size} = len({items})")
        sweep = self.sweep_of(st)
        if sweep is not None:
            # Every piece, each given the same values: columns scanned, only the
            # cells that change written (the loop below, for any other domain).
            self.flush()
            self.w(f"if {d} is {self.k(self.fast.ref.world.pieces)}:")
            self.w(f"    _sweep_pieces(s, {self.k(sweep)})")
            self.w(f"    if {size}: env[{st.name!r}] = {items}[-1]")
            self.w(f"    {i} = {size}")
            self.w(f"    n += {len(st.body) + 2} * {size} + 1")
            self.w("else:")
            gen.push()
        scan = self.owner.m.item_scan(st) if sweep is None else None
        if scan is not None:
            # The items the filter holds for, found at once (the loop still tests
            # each); afterwards the loop's variable and position are as if it had
            # gone through every item.
            every, matched = self.fast.fresh("every"), self.fast.fresh("matched")
            self.w(f"{every} = {items}")
            self.w(f"{matched} = {self.k(scan)}(s, env, {items})")
            self.w(f"if {matched} is not None:")
            self.w(f"    {items} = {matched}")
            self.w(f"    {size} = len({items})")
        saved = self.locs
        local = st.name not in _assigned(st.body)
        if local:
            self.locs = {**saved, st.name: item}
        else:
            self.locs = {k: v for k, v in saved.items() if k != st.name}
        self.flush()
        # The loop variable is written to env before the body and whenever the
        # reference might read it; the loop's position only once the loop is
        # over (nothing that runs meanwhile can see either otherwise).
        self.w("while True:")
        gen.push()
        self.count()
        self.flush()
        self.w(f"{found} = False")
        self.w(f"{start} = {i}")
        self.w(f"while {i} < {size}:")
        gen.push()
        self.w(f"{item} = {items}[{i}]")
        if not local:
            self.w(f"env[{st.name!r}] = {item}")
        self.w(f"{i} += 1")
        if st.where is not None:
            self.locs_env = (st.name, item) if local else None
            self.w(f"if {self.value(st.where)}: {found} = True; break")
            self.locs_env = None
        else:
            self.w(f"{found} = True; break")
        gen.pop()
        self.w(f"if not {found}:")
        self.w(f"    if {i} > {start}: env[{st.name!r}] = {items}[{i} - 1]")
        self.w("    break")
        self.w(f"env[{st.name!r}] = {item}")
        for x in st.body:
            self.stmt(x)
        self.count()
        self.flush()
        gen.pop()
        if sweep is not None:
            self.count()
            self.flush()
            gen.pop()
        if scan is not None:
            self.w(f"if {matched} is not None:")
            self.w(f"    if {every}: env[{st.name!r}] = {every}[-1]")
            self.w(f"    {items} = {every}")
            self.w(f"    {i} = len({every})")
        self.w(f"env[{key!r}] = ({items}, {i})")
        self.locs = saved

    def sweep_of(self, st: ir.ForEach) -> tuple[tuple[str, Any], ...] | None:
        """``for each u in D { set u.a = c ... }`` with no filter, each value a literal or
        ``u.place``: the (attribute, value) pairs ``GameState._sweep_pieces`` writes to
        every piece (``_AT_PLACE`` for ``u.place``), else None."""
        if st.where is not None or not st.body:
            return None
        found: list[tuple[str, Any]] = []
        attributes = self.fast.ref.piece_attributes
        for x in st.body:
            if not isinstance(x, ir.SetStmt) or not isinstance(x.target, ir.Attr) \
                    or not isinstance(x.target.obj, ir.Name) or x.target.obj.id != st.name \
                    or x.target.name not in attributes:
                return None
            value = x.value
            if isinstance(value, (ir.IntLit, ir.BoolLit, ir.StrLit)):
                found.append((x.target.name, value.value))
            elif isinstance(value, ir.NoneLit):
                found.append((x.target.name, None))
            elif isinstance(value, ir.Attr) and value.name == "place" \
                    and isinstance(value.obj, ir.Name) and value.obj.id == st.name:
                found.append((x.target.name, _AT_PLACE))
            else:
                return None
        return tuple(found)


def _changes(old: str, new: str) -> str:
    """Python source of the test that writing ``new`` over ``old`` changes a cell:
    ``not machine._same(old, new)`` in line (not the very object, and not an equal
    scalar of the same type), for the generated ``set``."""
    return (f"{old} is not {new} and (type({old}) is not type({new}) "
            f"or type({new}) not in _SCALARS or {old} != {new})")


def _assigned(statements: Iterable[ir.Stmt]) -> set[str]:
    """The variables some statement of a block (or of a block in it) may set."""
    found: set[str] = set()
    for st in statements:
        if isinstance(st, ir.Let):
            found.add(st.name)
        elif isinstance(st, ir.SetStmt) and isinstance(st.target, ir.Name):
            found.add(st.target.id)
        elif isinstance(st, ir.If):
            found |= _assigned(st.then) | _assigned(st.otherwise)
        elif isinstance(st, ir.ForEach):
            found.add(st.name)
            found |= _assigned(st.body)
    return found


class _AtPlace:
    """A value of ``_sweep_pieces``: each piece's own place."""

    def __repr__(self) -> str:
        return "<each piece's place>"


_AT_PLACE = _AtPlace()
