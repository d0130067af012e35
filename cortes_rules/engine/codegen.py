"""The interpreter's fast path: expressions, options and statements compiled to Python source.

``.compile`` turns every expression into a tree of closures that pass a
dict of variables down; that is the reference, and it stays the one that
reports errors. This module compiles the same expressions a second time, to
the source of plain Python functions that keep variables in locals, expand
functions, hooks, derived attributes and ``allowed(...)`` in place, and
type-test values only where the rules leave the type open. The meaning is
the reference's, clause for clause (dynamic scope included: a name not bound
locally is looked up among the variables the expression is evaluated with,
then among the declarations). Whenever generated code raises, the same
evaluation runs again on the reference closures, so errors (and
``defined(...)``) behave exactly as there; where Python cannot compile what
would be generated (nesting beyond its limits), the reference runs instead.

What makes it fast is decided from the IR alone, knowing no game:

- *Static folding.* A sub-expression that reads no mutable state (no
  declared attribute, no place of a piece, no pieces of a place, no value,
  no turn, no roll) is a function of the variables it reads, so its value is
  memoised, keyed by those variables' values (pieces, places and players are
  interned objects), with the rules it drew on while a rule trail was kept
  (``with_rules``): a move's cost, a stacking check of a given set of units.
- *Loop invariants.* While one evaluation runs the state stands still, so a
  value that depends only on variables bound outside a loop is computed at
  most once per iteration of that outer loop, and only when first needed.
- *Options compiled whole.* The candidates of a choice option are
  enumerated by one generated function: nested loops over the parameters'
  domains, bindings as locals, the ``where`` clause and the action kind's
  ``forbid``/``permit`` clauses expanded in line, in the reference's order,
  the action id computed from the parameters' indexes.
- *Cached iterations.* Every write to the state is stamped (see
  ``GameState.stamps``); the outer iteration of an enumeration notes the
  stamps of all it read, and is reused, ids and all, while they are unchanged.

Statements that never pause are compiled by the machine into regions
(``machine._RegionCompiler``) with the same generator.
"""

from __future__ import annotations

import ast
import functools
import itertools
import operator
import re
import types
from collections.abc import Callable, Iterable
from fractions import Fraction
from typing import TYPE_CHECKING, Any

from ..core.run.values import add as add_values
from ..core.run.values import divide as divide_values
from ..core.world import Dice, Piece, Place, Player, Row, Table, World
from ..dsl import ir
from ..rule_numbers import rule_key
from .domains import free_names
from .compile import (
    _MISSING,
    Compiler,
    Fn,
    _absorb,
    _as_iterable,
    _order_key,
    _rank,
    _truth,
    format_value,
    in_order,
    index_value,
    is_test,
    remembered,
)
from .bound_names import names_bound
from .rewrites import ListSplitter

if TYPE_CHECKING:
    from .machine import GameState as State

MISS = _MISSING
MEMO_LIMIT = 200_000   # entries per memo before it is emptied (bounds memory)
ECACHE_LIMIT = 256     # cached enumerations (site and variables) kept per game
MAX_INLINE = 24        # nesting of expanded functions, hooks and derived attributes
MAX_INDENT = 60        # deeper code is left to the reference closures
_ITERABLE = (tuple, list)   # visited as they are; sets go through _as_iterable (sorted)
_CONSTANT = re.compile(r"K[0-9]+")   # the name of a constant of the generated code (const())
NATIVE_ITEMS = 8
"""The fewest items a comprehension over a list of pieces or places hands to the clause
machine (``_Gen.native_items``): for fewer, calling it costs more than testing them."""
_PLAIN_KEYS = frozenset({Piece, Place, Player, str, int, type(None), Dice, Table, object})
_LEAVES = (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit, ir.Name)


_FROZEN: dict[int, tuple[Any, Any]] = {}


def memo_key(value: Any) -> Any:
    """A hashable key that tells apart values Python calls equal (1, True, 1.0, Fraction(1))."""
    kind = type(value)
    if kind in _PLAIN_KEYS:
        return value
    if kind is frozenset:
        known = _FROZEN.get(id(value))
        if known is not None and known[0] is value:
            return known[1]
        return remembered(_FROZEN, value, _memo_key(value, kind))
    return _memo_key(value, kind)


def _without_idle_passes(lines: list[str]) -> list[str]:
    """The lines less each ``pass`` followed by a statement of its own block (a scope's
    placeholder, filled when nothing else was needed): one bytecode each time the
    block runs, in a loop's body once per item."""
    kept = []
    for i, line in enumerate(lines):
        if line.strip() == "pass" and i + 1 < len(lines):
            after = lines[i + 1]
            if after.strip() and _indent(after) == _indent(line):
                continue
        kept.append(line)
    return kept


def _indent(line: str) -> int:
    return len(line) - len(line.lstrip(" "))


def _key_of(var: str) -> str:
    """Code for ``memo_key(var)`` that calls it only for values that are not their own key."""
    return f"({var} if type({var}) in _PLAIN_KEYS else memo_key({var}))"


def _memo_key(value: Any, kind: type) -> Any:
    if kind is tuple or kind is frozenset:
        for item in value:
            if type(item) not in _PLAIN_KEYS:
                return (kind, tuple(memo_key(x) for x in value)) if kind is tuple else \
                    (kind, frozenset(memo_key(x) for x in value))
        return value
    if kind is list or kind is set:
        return (kind, tuple(memo_key(x) for x in value)) if kind is list else \
            (kind, frozenset(memo_key(x) for x in value))
    if kind is dict:
        return (kind, tuple((memo_key(k), memo_key(v)) for k, v in value.items()))
    return (kind, value)


def _materialise(env: dict[str, Any] | None, pairs: tuple[tuple[str, Any], ...]
                 ) -> dict[str, Any]:
    out = dict(env) if env is not None else {}
    for name, value in pairs:
        if value is not MISS:
            out[name] = value
    return out


def _is_number(x: Any) -> bool:
    return isinstance(x, (int, Fraction)) and not isinstance(x, bool)


def _sequence(value: Any) -> Any:
    """A value that must be a tuple or a list (a place's pieces), else a failure: the
    generated code's caller then runs the reference, which says what is wrong."""
    if type(value) is tuple or type(value) is list:
        return value
    raise TypeError(f"not a list of pieces: {value!r}")


def _first_item(c: Any, *d: Any) -> Any:
    if type(c) is tuple:    # most often a hook's contributions
        return c[0] if c else d[0] if d else None
    return next(iter(_as_iterable(c) if isinstance(c, frozenset) else c), d[0] if d else None)


class Unsupported(Exception):
    """Raised while generating: this node (or function) is left to the reference."""


_Unsupported = Unsupported


# ============================================================ purity


class Purity:
    """Which expressions read mutable state, and which variables they read.

    ``scan(node, bound)`` gives ``(pure, names)``: ``pure`` when evaluating the
    node reads no mutable state of the game (declared attributes, where pieces
    are, what a place holds, values, the turn, the last roll); ``names`` the
    variables it reads by name (those in ``bound`` and those looked up in the
    dynamic scope). Functions, hooks, derived attributes and ``allowed(...)``
    are followed into, as the interpreter expands them.
    """

    def __init__(self, fast: FastCompiler) -> None:
        self.fast = fast
        self._memo: dict[tuple[int, frozenset[str], bool], tuple[bool, frozenset[str]]] = {}
        self._active: set[Any] = set()

    def scan(self, node: ir.Expr, bound: frozenset[str], env: bool = True
             ) -> tuple[bool, frozenset[str]]:
        key = (id(node), bound, env)
        found = self._memo.get(key)
        if found is None:
            names: set[str] = set()
            pure = self._scan(node, bound, env, names)
            found = (pure, frozenset(names))
            self._memo[key] = found
        return found

    def _all(self, nodes: Iterable[ir.Expr | None], bound: frozenset[str], env: bool,
             names: set[str]) -> bool:
        pure = True
        for n in nodes:
            if n is not None and not self._scan(n, bound, env, names):
                pure = False
        return pure

    def _follow(self, token: Any, fn: Callable[[], bool]) -> bool:
        if token in self._active:
            return False   # a cycle: say impure, never folded
        self._active.add(token)
        try:
            return fn()
        finally:
            self._active.discard(token)

    def _scan(self, node: ir.Expr, bound: frozenset[str], env: bool, names: set[str]) -> bool:
        if isinstance(node, (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit)):
            return True
        if isinstance(node, ir.Name):
            name = node.id
            if name in bound:
                names.add(name)
                return True
            if env and name in self.fast.env_names:
                names.add(name)
            return self._global_pure(name, bound, env, names)
        if isinstance(node, (ir.SetLit, ir.ListLit, ir.TupleLit)):
            return self._all(node.items, bound, env, names)
        if isinstance(node, ir.Cond):
            return self._all((node.test, node.then, node.otherwise), bound, env, names)
        if isinstance(node, ir.Attr):
            pure = self._scan(node.obj, bound, env, names)
            return self._attr_pure(node.name, names) and pure
        if isinstance(node, ir.Index):
            return self._all((node.obj, node.key), bound, env, names)
        if isinstance(node, (ir.Not, ir.Neg)):
            return self._scan(node.operand, bound, env, names)
        if isinstance(node, (ir.BoolOp, ir.Compare, ir.Arith)):
            return self._all((node.left, node.right), bound, env, names)
        if isinstance(node, ir.Member):
            return self._all((node.item, node.collection), bound, env, names)
        if isinstance(node, ir.Is):
            return self._scan(node.subject, bound, env, names)
        if isinstance(node, ir.Call):
            return self._call_pure(node, bound, env, names)
        return False

    def _global_pure(self, name: str, bound: frozenset[str], env: bool, names: set[str]) -> bool:
        what = self.fast.resolve(name)
        kind = what[0]
        if kind in ("value", "turn", "phase"):
            return False
        if kind == "define":
            decl = what[1]
            return self._follow(("define", name, bound, env),
                                lambda: self._scan(decl.body, bound, env, names))
        if kind == "hook":
            return self._hook_pure(name, bound, env, names)
        return True

    def _hook_pure(self, hook: str, bound: frozenset[str], env: bool, names: set[str]) -> bool:
        clauses = self.fast.ref._hook_clauses.get(hook, ())

        def scan() -> bool:
            return self._all([n for c in clauses for n in (c.value, c.when)], bound, env, names)
        return self._follow(("hook", hook, bound, env), scan)

    def _attr_pure(self, name: str, names: set[str]) -> bool:
        ref = self.fast.ref
        if name in ref.piece_attributes or name in ref.place_attributes \
                or name in ref.player_attributes or name in ("place", "pieces"):
            return False
        for owner in ("piece", "place", "player"):
            decl = ref._derived_decls.get((owner, name))
            if decl is not None:
                if not self._derived_pure(owner, decl):
                    return False
        return True

    def _derived_pure(self, owner: str, decl: ir.DeriveDecl) -> bool:
        inner: set[str] = set()
        return self._follow(("derive", owner, decl.name), lambda: self._scan(
            decl.expr, frozenset((owner,)), False, inner))

    def _call_pure(self, node: ir.Call, bound: frozenset[str], env: bool,
                   names: set[str]) -> bool:
        fast = self.fast
        name = node.func
        if node.binder is not None:
            assert node.domain is not None
            pure = self._scan(node.domain, bound, env, names)
            inner = bound | {node.binder}
            inner_names: set[str] = set()
            pure = self._all((node.where, node.element), inner, env, inner_names) and pure
            names |= inner_names - {node.binder}
            return self._all(node.args, bound, env, names) and pure
        if name in fast.ref.functions:
            decl = fast.ref.functions[name]
            pure = self._all(node.args, bound, env, names)
            inner = bound | set(decl.params)
            inner_names = set()
            pure = self._follow(("function", name, inner, env), lambda: self._scan(
                decl.body, inner, env, inner_names)) and pure
            names |= inner_names - set(decl.params)
            return pure
        if name in ("rules", "failing", "applied") and len(node.args) == 1 \
                and isinstance(node.args[0], ir.Name) \
                and node.args[0].id in fast.ref._hook_clauses:
            return self._hook_pure(node.args[0].id, bound, env, names)
        pure = self._all(node.args, bound, env, names)
        if name in ("rolled",):
            return False
        if name == "allowed":
            arg = node.args[0] if node.args else None
            if not isinstance(arg, ir.StrLit):
                return False
            conds = [n for _, c, ps in fast.clauses(arg.value) for n in (c, *ps)]
            return self._follow(("allowed", arg.value, bound, env),
                                lambda: self._all(conds, bound, env, names)) and pure
        return pure


# ============================================================ code generation


class _Local:
    __slots__ = ("var", "definite", "level")

    def __init__(self, var: str, definite: bool, level: int = 0) -> None:
        self.var, self.definite, self.level = var, definite, level


class _Scope:
    """A loop body (or the function): where values computed once per iteration start unset."""

    __slots__ = ("placeholder", "indent", "inits", "cache")

    def __init__(self, placeholder: int, indent: int) -> None:
        self.placeholder, self.indent = placeholder, indent
        self.inits: list[str] = []
        self.cache: dict[Any, str] = {}


_PLACEHOLDER = "#scope"


def shape(node: Any) -> Any:
    """A structural key of an expression (its spans left out)."""
    if isinstance(node, tuple):
        return tuple(shape(x) for x in node)
    fields = getattr(type(node), "__attrs_attrs__", None)
    if fields is None:
        return node
    return (type(node).__name__, *(shape(getattr(node, f.name)) for f in fields
                                   if f.name != "span" and f.name != "name_span"))


class _Ctx:
    """Where a piece of generated code stands.

    ``env``: names not bound locally are looked up in the function's ``env``
    (else, as in a derived attribute, only among the declarations);
    ``locs``: the variables bound to Python locals; ``trail``: whether a rule
    trail is being kept here (known when generating: only inside
    ``with_rules`` and while a folded value is computed).
    """

    __slots__ = ("env", "locs", "inline", "memo_ok", "skip", "trail")

    def __init__(self, env: bool, locs: dict[str, _Local], inline: tuple[Any, ...] = (),
                 memo_ok: bool = True, trail: bool = False, skip: int = 0) -> None:
        self.env, self.locs, self.inline, self.memo_ok = env, locs, inline, memo_ok
        self.trail, self.skip = trail, skip

    def _with(self, **changes: Any) -> _Ctx:
        twin = _Ctx(self.env, self.locs, self.inline, self.memo_ok, self.trail, self.skip)
        for name, value in changes.items():
            setattr(twin, name, value)
        return twin

    def bind(self, **names: _Local) -> _Ctx:
        locs = dict(self.locs)
        locs.update(names)
        return self._with(locs=locs)

    def _enter(self, token: Any) -> tuple[Any, ...]:
        if token in self.inline or len(self.inline) >= MAX_INLINE:
            raise _Unsupported(f"recursive expansion of {token!r}")
        return (*self.inline, token)

    def entering(self, token: Any) -> _Ctx:
        return self._with(inline=self._enter(token))

    def fresh(self, owner: str, local: _Local, token: Any) -> _Ctx:
        """The scope of a derived attribute: only its owner, no dynamic variables."""
        return self._with(env=False, locs={owner: local}, inline=self._enter(token))

    def without_memo(self) -> _Ctx:
        return self._with(memo_ok=False, trail=True)

    def keeping_trail(self) -> _Ctx:
        return self._with(trail=True)

    def skipping(self, node: Any) -> _Ctx:
        return self._with(skip=id(node))


_IDENT = re.compile(r"[^A-Za-z0-9_]")
_INT = re.compile(r"-?[0-9]+")


class _Gen:
    """The source of one generated function."""

    def __init__(self, fast: FastCompiler, indent: int = 1) -> None:
        self.fast = fast
        self.lines: list[str] = []
        self.ind = indent
        self.preloads: dict[str, str] = {}
        self.keys: dict[str, str] = {}
        self.scopes: list[_Scope] = []
        self.open_scope()
        # While generating the body of cached loops: note what state is read,
        # into the list of the innermost one (their depths, outermost first).
        self.recording = False
        self.record_levels: list[int] = []
        # Whether cached loops are generated (a value kept outside them then has
        # its reads kept beside it, see _hoist()).
        self.caches = False
        # Values are kept per iteration of loops at or above this depth only (see
        # expression()).
        self.floor = 0
        # In a region of statements (see region_preloads()): the variables the
        # region never sets, each read from env once, where the region starts.
        self.steady: frozenset[str] | None = None
        self.steady_loads: dict[str, str] = {}
        self.steady_keys: dict[str, str] = {}
        # Of those, the ones no declaration stands behind: the region runs only when
        # env holds each (else its instructions run), so they are read with no test.
        self.required: set[str] = set()
        # A root expression function (see FastCompiler._root): one evaluation, with
        # every variable read from env where it starts; the same holds for it.
        self.rooted = False
        # Expressions and locals known to hold a tuple or a list (a place's pieces),
        # which a comprehension goes through without testing their type.
        self.sequences: set[str] = set()

    def expression(self, node: ir.Expr, locs: dict[str, str]) -> str:
        """One evaluation of an expression, in code that also changes the state.

        The variables named in ``locs`` are read from those Python locals, the
        others from ``env`` when the evaluation starts; nothing computed here is
        kept beyond it.
        """
        saved = (self.preloads, self.keys, self.floor)
        self.preloads, self.keys = {}, {}
        self.open_scope()
        scope = self.scopes[-1]
        self.floor = self.depth
        ctx = _Ctx(True, {n: _Local(v, True, self.depth) for n, v in locs.items()})
        value = self.atom(self.x(node, ctx))
        self.scopes.pop()
        pad = "    " * scope.indent
        head = [f"{pad}{var} = env.get({n!r}, MISS)" for n, var in self.preloads.items()]
        head += [f"{pad}{self.keys[n]} = {_key_of(self.preloads[n])}" for n in self.keys]
        if scope.inits:
            head.append(pad + " = ".join(scope.inits) + " = MISS")
        self.lines[scope.placeholder] = "\n".join(head) if head else pad + "pass"
        self.preloads, self.keys, self.floor = saved
        return value

    @property
    def reads(self) -> str:
        """The list the innermost cached loop notes its reads in."""
        return f"RS{len(self.record_levels)}"

    def rec(self, what: str, obj: str = "") -> None:
        """Note a read of the state: of a piece, a place, the rest, or something unknown."""
        if not self.recording:
            return
        piece, holds, marks = self.fast.stamp_offsets
        reads = self.reads
        if what == "piece":
            self.w(f"{reads}.append({piece} + {obj}.index)")
        elif what == "holds":
            self.w(f"{reads}.append({holds} + {obj}.index)")
        elif what == "place":
            self.w(f"{reads}.append({marks} + {obj}.index)")
        elif what == "global":
            self.w(f"{reads}.append(0)")
        else:
            self.w(f"RX{len(self.record_levels)} = True")

    # ------------------------------------------------------------ scopes
    @property
    def depth(self) -> int:
        return len(self.scopes) - 1

    def open_scope(self) -> None:
        """Start a loop body (call right after the ``for`` line and ``push``)."""
        self.scopes.append(_Scope(len(self.lines), self.ind))
        self.lines.append(_PLACEHOLDER)

    def close_scope(self) -> None:
        scope = self.scopes.pop()
        if scope.inits:
            line = "    " * scope.indent + " = ".join(scope.inits) + " = MISS"
        else:
            line = "    " * scope.indent + "pass"
        self.lines[scope.placeholder] = line

    def finish(self) -> list[str]:
        while self.scopes:
            self.close_scope()
        return self.lines

    # ------------------------------------------------------------ emission
    def w(self, line: str) -> None:
        self.lines.append("    " * self.ind + line)

    def tmp(self, prefix: str = "t") -> str:
        return self.fast.fresh(prefix)

    def k(self, obj: Any) -> str:
        return self.fast.const(obj)

    def push(self) -> None:
        self.ind += 1
        if self.ind > MAX_INDENT:
            raise _Unsupported("nested too deeply")

    def pop(self) -> None:
        self.ind -= 1

    def loop(self, var: str, items: str) -> None:
        self.w(f"for {var} in {items}:")
        self.push()
        self.open_scope()

    def end_loop(self) -> None:
        self.close_scope()
        self.pop()

    def atom(self, expr: str) -> str:
        if expr.isidentifier() or _is_literal(expr):
            return expr
        t = self.tmp()
        self.w(f"{t} = {expr}")
        if expr in self.sequences:
            self.sequences.add(t)
        return t

    def envvar(self, name: str) -> str:
        """A local holding ``env.get(name, MISS)``, read once at the top of the function
        (of the region, for a variable the region never sets)."""
        loads = self.steady_loads if self._steady(name) else self.preloads
        var = loads.get(name)
        if var is None:
            var = self.fast.fresh("e_" + _IDENT.sub("_", name))
            loads[name] = var
        return var

    def envkey(self, name: str) -> str:
        """A local holding the memo key of ``env.get(name, MISS)`` (computed once)."""
        keys = self.steady_keys if self._steady(name) else self.keys
        var = keys.get(name)
        if var is None:
            var = self.envvar(name).replace("e_", "k_", 1)
            keys[name] = var
        return var

    def _steady(self, name: str) -> bool:
        return self.steady is not None and name not in self.steady

    def region_preloads(self, assigned: frozenset[str]) -> Callable[[], None]:
        """In a region whose statements may set only ``assigned``: read every other
        variable from env once, at this point; call the result when the region's
        statements are generated, to write those reads here.

        Between its statements a region changes ``env`` only where it sets a
        variable (a ``let``, a ``set``, a loop's variable), so the others keep the
        value they had when it started."""
        self.steady = assigned
        at = len(self.lines)
        self.lines.append("")
        pad = "    " * self.ind

        def write() -> None:
            head = [f"{pad}{var} = env.get({n!r}, MISS)" for n, var in self.steady_loads.items()]
            if self.required:
                # A variable missing here would make a statement fail; its instructions
                # (not this function) then run, and fail exactly as the reference does.
                missing = " or ".join(f"{self.steady_loads[n]} is MISS"
                                      for n in sorted(self.required))
                head.append(f"{pad}if {missing}: return -1")
            head += [f"{pad}{self.steady_keys[n]} = {_key_of(self.steady_loads[n])}"
                     for n in self.steady_keys]
            self.lines[at] = "\n".join(head) if head else pad + "pass"
            self.steady = None
        return write

    def materialise(self, ctx: _Ctx) -> str:
        """The variables in scope as a dict, to hand to a reference closure."""
        pairs = ", ".join(f"({n!r}, {loc.var})" for n, loc in ctx.locs.items())
        base = "env" if ctx.env else "None"
        if not pairs:
            return "env" if ctx.env else "{}"
        return f"_materialise({base}, ({pairs},))"

    # ------------------------------------------------------------ expressions
    def x(self, node: ir.Expr, ctx: _Ctx) -> str:
        """Emit statements computing ``node``; return an expression for its value.

        The returned expression has no effect but possibly raising, and is
        used once, right after.
        """
        fast = self.fast
        if fast.hoisting and ctx.skip != id(node) and not isinstance(node, _LEAVES):
            hoisted = self._hoist(node, ctx)
            if hoisted is not None:
                return hoisted
        if ctx.memo_ok and fast.folding:
            folded = self._fold(node, ctx)
            if folded is not None:
                return folded
        method = getattr(self, "_" + type(node).__name__)
        mark = len(self.lines), self.ind
        try:
            return method(node, ctx)  # type: ignore[no-any-return]
        except _Unsupported:
            del self.lines[mark[0]:]
            self.ind = mark[1]
            return self.ref(node, ctx)

    def ref(self, node: ir.Expr, ctx: _Ctx) -> str:
        """Leave a node to the reference closure, with the variables in scope."""
        fn = self.fast.ref._compile(node)
        t = self.tmp()
        self.rec("unknown")
        self.w(f"{t} = {self.k(fn)}(s, {self.materialise(ctx)})")
        return t

    def _hoist(self, node: ir.Expr, ctx: _Ctx, here: bool = False) -> str | None:
        """Compute a value at most once per iteration of the loop its variables are bound by.

        While the rules' state stands still (it does, during one evaluation),
        an expression's value depends only on the variables it reads; so a
        value is kept in a local that starts unset at the top of the loop
        (or function) binding the innermost of those variables, and computed
        where first needed (never more often than the reference, never
        before). While a rule trail is kept, it is computed every time, so
        that it draws on its rules as the reference does.

        With ``here``, a value may also be kept in the innermost scope itself:
        a second use in the same iteration (or evaluation) reads it again.
        """
        if ctx.trail or self.depth < 0 or (self.depth == 0 and not here):
            return None
        deps = self._deps(node, ctx)
        if deps is None:
            return None
        level = max(max((loc.level for _, loc in deps), default=0), self.floor)
        if level > self.depth or (level == self.depth and not here):
            return None
        # A value kept across iterations of a cached loop: each iteration that uses
        # it depends on what computing it read, kept beside it in ``R<var>``. A
        # value kept outside every cached loop may also be computed where nothing
        # is noted (before the loops, or in a memo's body): its ``R<var>`` then
        # stays unset, and an iteration using it is not cached.
        shared = self.recording and level < self.record_levels[-1]
        outside = shared and level < self.record_levels[0]
        key = (shape(node), ctx.env, tuple(sorted((n, loc.var) for n, loc in deps)))
        scope = self.scopes[level]
        var = scope.cache.get(key)
        if var is None:
            var = self.fast.fresh("h")
            scope.cache[key] = var
            scope.inits.append(var)
            if self.caches and (not self.record_levels or level < self.record_levels[0]):
                scope.inits.append(f"R{var}")
        self.w(f"if {var} is MISS:")
        self.push()
        if shared:
            reads, saved = self.reads, self.fast.fresh("saved")
            unknown = f"RX{len(self.record_levels)}"
            self.w(f"{saved} = ({reads}, {unknown}); {reads} = []; {unknown} = False")
        value = self.x(node, ctx.skipping(node))
        self.w(f"{var} = {value}")
        if shared:
            self.w(f"R{var} = ({reads}, {unknown}); {reads}, {unknown} = {saved}")
        self.pop()
        if outside:
            self.w(f"if R{var} is MISS: {unknown} = True")
            self.w("else:")
            self.push()
        if shared:
            self.w(f"{reads}.extend(R{var}[0])")
            self.w(f"if R{var}[1]: {unknown} = True")
        if outside:
            self.pop()
        return var

    def level_of(self, node: ir.Expr, ctx: _Ctx) -> int:
        """The depth of the innermost loop binding a variable ``node`` reads (0: none).

        A binding of an option that reads only its first parameters (``from =
        unit.place``) has the same value in every iteration of the loops inside
        theirs, so what is computed from it may be kept per iteration of theirs.
        """
        deps = self._deps(node, ctx)
        if deps is None:
            return self.depth
        return max((loc.level for _, loc in deps), default=0)

    def _deps(self, node: ir.Expr, ctx: _Ctx) -> list[tuple[str, _Local]] | None:
        """The local variables ``node`` reads, or None when one may be unset here."""
        maybe = any(not loc.definite for loc in ctx.locs.values())
        bound = frozenset(n for n, loc in ctx.locs.items() if loc.definite)
        _, names = self.fast.purity.scan(node, bound, ctx.env or maybe)
        deps = []
        for name in names:
            loc = ctx.locs.get(name)
            if loc is not None:
                if not loc.definite:
                    return None
                deps.append((name, loc))
        return deps

    def _fold(self, node: ir.Expr, ctx: _Ctx) -> str | None:
        """Memoise a pure, costly sub-expression by the values of the variables it reads."""
        fast = self.fast
        if not fast.costly(node):
            return None
        bound = frozenset(n for n, loc in ctx.locs.items() if loc.definite)
        pure, names = fast.purity.scan(node, bound, ctx.env or len(bound) < len(ctx.locs))
        if not pure:
            return None
        parts: list[str] = []
        inner = ctx.without_memo()
        for name in sorted(names):
            loc = ctx.locs.get(name)
            if loc is not None:
                v = loc.var
                parts.append(f"({v} if type({v}) in _PLAIN_KEYS else memo_key({v}))")
            elif ctx.env and name in fast.env_names:
                parts.append(self.envkey(name))
        memo: dict[Any, Any] = {}
        fast.memos.append(memo)
        m = self.k(memo)
        key = self.tmp("key")
        self.w(f"{key} = ({', '.join(parts)}{',' if parts else ''})")
        hit = self.tmp("hit")
        self.w(f"{hit} = {m}.get({key}, MISS)")
        self.w(f"if {hit} is MISS:")
        self.push()
        outer = self.tmp("outer")
        self.w(f"{outer} = s.drawn")
        self.w("s.drawn = set()")
        recording, self.recording = self.recording, False   # reads no state
        value = self.x(node, inner)
        self.recording = recording
        self.w(f"{hit} = ({value}, frozenset(s.drawn))")
        self.w(f"s.drawn = {outer}")
        self.w(f"if len({m}) >= {MEMO_LIMIT}: {m}.clear()")
        self.w(f"{m}[{key}] = {hit}")
        self.pop()
        if ctx.trail:
            self.w(f"if {hit}[1]: s.drawn |= {hit}[1]")
        return f"{hit}[0]"

    def _IntLit(self, node: ir.IntLit, ctx: _Ctx) -> str:
        return repr(node.value)

    def _BoolLit(self, node: ir.BoolLit, ctx: _Ctx) -> str:
        return "True" if node.value else "False"

    def _NoneLit(self, node: ir.NoneLit, ctx: _Ctx) -> str:
        return "None"

    def _StrLit(self, node: ir.StrLit, ctx: _Ctx) -> str:
        return repr(node.value)

    def _items(self, items: Iterable[ir.Expr], ctx: _Ctx) -> list[str]:
        return [self.atom(self.x(i, ctx)) for i in items]

    def _SetLit(self, node: ir.SetLit, ctx: _Ctx) -> str:
        parts = self._items(node.items, ctx)
        return f"frozenset(({', '.join(parts)}{',' if parts else ''}))"

    def _ListLit(self, node: ir.ListLit | ir.TupleLit, ctx: _Ctx) -> str:
        parts = self._items(node.items, ctx)
        return f"({', '.join(parts)}{',' if parts else ''})"

    _TupleLit = _ListLit

    def _Cond(self, node: ir.Cond, ctx: _Ctx) -> str:
        t = self.tmp()
        test = self.x(node.test, ctx)
        self.w(f"if {test}:")
        self.push()
        self.w(f"{t} = {self.x(node.then, ctx)}")
        self.pop()
        self.w("else:")
        self.push()
        self.w(f"{t} = {self.x(node.otherwise, ctx)}")
        self.pop()
        return t

    # ------------------------------------------------------------ names
    def _Name(self, node: ir.Name, ctx: _Ctx) -> str:
        name = node.id
        loc = ctx.locs.get(name)
        if loc is not None and loc.definite:
            return loc.var
        if loc is not None:
            source: str | None = loc.var
        elif ctx.env and name in self.fast.env_names:
            source = self.envvar(name)
        else:
            source = None
        if source is None:
            return self.global_value(name, node, ctx)
        if loc is None and (self.rooted or self._steady(name)) \
                and self.fast.resolve(name)[0] == "unknown":
            self.required.add(name)   # the function starts only with it in env
            return source
        simple = self.simple_global(name)
        if simple is not None:
            if self.fast.resolve(name)[0] in ("value", "turn", "phase"):
                self.rec("global")
            return f"({source} if {source} is not MISS else {simple})"
        t = self.tmp()
        self.w(f"{t} = {source}")
        self.w(f"if {t} is MISS:")
        self.push()
        self.w(f"{t} = {self.global_value(name, node, ctx)}")
        self.pop()
        return t

    def simple_global(self, name: str) -> str | None:
        what = self.fast.resolve(name)
        if what[0] == "const":
            return self.k(what[1])
        if what[0] == "value":
            return f"s.values[{name!r}]"
        if what[0] == "turn":
            return "s.turn"
        if what[0] == "phase":
            return "s.phase"
        return None

    def global_value(self, name: str, node: ir.Name, ctx: _Ctx) -> str:
        what = self.fast.resolve(name)
        kind = what[0]
        if kind == "define":
            decl = what[1]
            inner = ctx.entering(("define", name))
            self.trail_rule(decl.rule, ctx)
            if self.fast.hoisting and not isinstance(decl.body, _LEAVES):
                # A name used twice in one evaluation is worked out once.
                kept = self._hoist(decl.body, inner, here=True)
                if kept is not None:
                    return kept
                # Not kept here, so not in an outer loop either: no second look.
                inner = inner.skipping(decl.body)
            return self.x(decl.body, inner)
        if kind == "hook":
            pairs = self.hook(name, ctx, values_only=True)
            return f"tuple({pairs})"
        if kind == "unknown":
            return f"_unknown({name!r})"
        simple = self.simple_global(name)
        assert simple is not None
        if kind in ("value", "turn", "phase"):
            self.rec("global")
        return simple

    def trail_rule(self, rule: str, ctx: _Ctx) -> None:
        if ctx.trail and not rule.startswith("lib:"):
            self.w(f"s.drawn.add({rule!r})")

    def hook(self, name: str, ctx: _Ctx, values_only: bool = False) -> str:
        """Emit the contributions of a hook that apply, in load order: a list variable.

        Its items are ``(value, rule)`` pairs, or values alone.
        """
        entries = self.fast.ref._hook_clauses.get(name, ())
        inner = ctx.entering(("hook", name))
        acc = self.tmp("hook")
        self.w(f"{acc} = []")
        if not entries:
            return acc
        trail = self.tmp("tr")
        if ctx.trail:
            self.w(f"{trail} = s.drawn")
        for c in entries:
            item = (lambda v: v) if values_only else (lambda v, r=c.rule: f"({v}, {r!r})")
            if c.when is not None:
                before = self.tmp("before")
                if ctx.trail:
                    self.w(f"{before} = set({trail})")
                cond = self.x(c.when, inner)
                self.w(f"if {cond}:")
                self.push()
                value = self.x(c.value, inner)
                self.w(f"{acc}.append({item(value)})")
                if ctx.trail:
                    self.w(f"{trail}.add({c.rule!r})")
                self.pop()
                if ctx.trail:
                    self.w(f"else: {trail}.intersection_update({before})")
            else:
                value = self.x(c.value, inner)
                self.w(f"{acc}.append({item(value)})")
                if ctx.trail:
                    self.w(f"{trail}.add({c.rule!r})")
        return acc

    # ------------------------------------------------------------ attributes
    def _Attr(self, node: ir.Attr, ctx: _Ctx) -> str:
        obj = self.atom(self.x(node.obj, ctx))
        name = node.name
        fast = self.fast
        getter = self.k(fast.ref.getter(name))
        owners = fast.owners_of(name)
        # A place's own pieces are a tuple (the state's occupants); anything else the
        # reference's getter gives there fails (not a list: ``_sequence``).
        pieces = name == "pieces" and owners == ["place"] \
            and "pieces" not in fast.ref.place_attributes \
            and ("place", "pieces") not in fast.ref._derived_decls
        fallback = f"_sequence({getter}(s, {obj}))" if pieces else f"{getter}(s, {obj})"
        if not ctx.trail and not self.recording:
            # One conditional expression, when every owner's read is one.
            mark = len(self.lines), self.ind
            inline = fallback
            for owner in reversed(owners):
                cls = {"piece": "Piece", "place": "Place", "player": "Player"}[owner]
                read = self.owned_attr(owner, name, obj, ctx)
                if len(self.lines) != mark[0]:
                    del self.lines[mark[0]:]
                    self.ind = mark[1]
                    break
                inline = f"({read} if type({obj}) is {cls} else {inline})"
            else:
                if pieces:
                    self.sequences.add(inline)
                return inline
        t = self.tmp()
        word = "if"
        for owner in owners:
            cls = {"piece": "Piece", "place": "Place", "player": "Player"}[owner]
            self.w(f"{word} type({obj}) is {cls}:")
            self.push()
            self.w(f"{t} = {self.owned_attr(owner, name, obj, ctx)}")
            self.pop()
            word = "elif"
        if word == "if":
            self.rec("unknown")
            self.w(f"{t} = {getter}(s, {obj})")
            return t
        self.w("else:")
        self.push()
        self.rec("unknown")
        self.w(f"{t} = {fallback}")
        self.pop()
        if pieces:
            self.sequences.add(t)
        return t

    def owned_attr(self, owner: str, name: str, obj: str, ctx: _Ctx) -> str:
        ref = self.fast.ref
        declared = {"piece": ref.piece_attributes, "place": ref.place_attributes,
                    "player": ref.player_attributes}[owner]
        if name in declared:
            self.rec("global" if owner == "player" else owner, obj)
            return f"s.{owner}_attrs[{name!r}][{obj}.index]"
        decl = ref._derived_decls.get((owner, name))
        if decl is not None:
            inner = ctx.fresh(owner, _Local(obj, True, self.depth), ("derive", owner, name))
            return self.x(decl.expr, inner)
        if (owner, name) == ("piece", "place"):
            self.rec("piece", obj)
        elif (owner, name) == ("place", "pieces"):
            self.rec("holds", obj)
        if owner == "piece":
            simple = {"place": f"s.where[{obj}.index]", "side": f"{obj}.side",
                      "class": f"{obj}.cls", "id": f"{obj}.id"}
            return simple.get(name, f"{obj}.props[{name!r}]")
        if owner == "place":
            return {"pieces": f"s.occupants.get({obj}.index, ())", "terrain": f"{obj}.features",
                    "owner": f"{obj}.owner", "id": f"{obj}.id", "kind": f"{obj}.kind",
                    "shore": f"{obj}.shore"}[name]
        return f"{obj}.name"

    def _Index(self, node: ir.Index, ctx: _Ctx) -> str:
        obj = self.atom(self.x(node.obj, ctx))
        key = self.atom(self.x(node.key, ctx))
        if _INT.fullmatch(key):
            return f"({obj}[{key}] if type({obj}) is tuple else _index({obj}, {key}))"
        return f"_index({obj}, {key})"

    # ------------------------------------------------------------ operators
    def _Not(self, node: ir.Not, ctx: _Ctx) -> str:
        return f"(not {self.x(node.operand, ctx)})"

    def _BoolOp(self, node: ir.BoolOp, ctx: _Ctx) -> str:
        terms = node.terms()
        conj = node.op == "and"
        # Terms that need no statements are joined in one Python expression.
        mark = len(self.lines), self.ind
        simple: list[str] = []
        for term in terms:
            value = self.x(term, ctx)
            if len(self.lines) != mark[0]:
                break
            simple.append(value)
        else:
            joined = (" and " if conj else " or ").join(simple)
            return f"(True if {joined} else False)"
        del self.lines[mark[0]:]
        self.ind = mark[1]
        t = self.tmp()
        self.w(f"{t} = {'False' if conj else 'True'}")
        self.w("while True:")
        self.push()
        for term in terms:
            value = self.x(term, ctx)
            self.w(f"if {'not ' if conj else ''}{value}: break")
        self.w(f"{t} = {'True' if conj else 'False'}")
        self.w("break")
        self.pop()
        return t

    def _Compare(self, node: ir.Compare, ctx: _Ctx) -> str:
        left = self.atom(self.x(node.left, ctx))
        right = self.atom(self.x(node.right, ctx))
        op = node.op
        if op in ("==", "!="):
            return f"({left} {op} {right})"
        return f"({_ranked(left)} {op} {_ranked(right)})"

    def _Member(self, node: ir.Member, ctx: _Ctx) -> str:
        item = self.atom(self.x(node.item, ctx))
        coll = self.atom(self.x(node.collection, ctx))
        return f"({item} {'not in' if node.negated else 'in'} {coll})"

    def _Is(self, node: ir.Is, ctx: _Ctx) -> str:
        subject = self.atom(self.x(node.subject, ctx))
        name = repr(node.name)
        owner = self.fast.tag_owner(node.name)
        if owner == "piece":
            return f"({name} in {subject}.tags if type({subject}) is Piece " \
                   f"else _is({subject}, {name}))"
        if owner == "place":
            return f"({name} in {subject}.features if type({subject}) is Place " \
                   f"else _is({subject}, {name}))"
        # A hexside's features (``hexside(a, b) has road``) are a frozenset: tested
        # in line, as ``is_test`` tests one.
        return f"({name} in {subject} if type({subject}) is frozenset else _is({subject}, {name}))"

    def _Arith(self, node: ir.Arith, ctx: _Ctx) -> str:
        a = self.atom(self.x(node.left, ctx))
        b = self.atom(self.x(node.right, ctx))
        op = node.op
        if op == "+":
            if isinstance(node.left, ir.StrLit) or isinstance(node.right, ir.StrLit):
                text = b if isinstance(node.left, ir.StrLit) else a
                return f"({a} + {b} if type({text}) is str else _add({a}, {b}))"
            # Two ints, texts or tuples add as Python adds them (what ``_add`` does
            # to all but sets); anything else goes through ``_add``.
            if isinstance(node.right, ir.IntLit) or isinstance(node.left, ir.IntLit):
                other = a if isinstance(node.right, ir.IntLit) else b
                return f"({a} + {b} if type({other}) is int else _add({a}, {b}))"
            return (f"({a} + {b} if type({a}) in _SUMMABLE and type({b}) is type({a}) "
                    f"else _add({a}, {b}))")
        if op == "/":
            return f"_divide({a}, {b})"
        if op in ("-", "*"):
            return f"({a} {op} {b})"
        return f"({a} % {b})"

    def _Neg(self, node: ir.Neg, ctx: _Ctx) -> str:
        return f"(-{self.x(node.operand, ctx)})"

    # ------------------------------------------------------------ calls
    def _Call(self, node: ir.Call, ctx: _Ctx) -> str:
        fast = self.fast
        name = node.func
        if node.binder is not None:
            split = fast.splitter.split(node)
            if split is not node:
                return self.x(split, ctx)
            return self.comprehension(node, ctx)
        if name in fast.ref.functions:
            return self.function(node, ctx)
        hooks = fast.ref._hook_clauses
        if name in ("rules", "failing", "applied") and len(node.args) == 1 \
                and isinstance(node.args[0], ir.Name) and node.args[0].id in hooks:
            pairs = self.hook(node.args[0].id, ctx)
            if name == "rules":
                return f"tuple([_r for _v, _r in {pairs}])"
            if name == "failing":
                return f"tuple([_r for _v, _r in {pairs} if not _v])"
            return f"tuple({pairs})"
        if name == "with_rules" and len(node.args) == 1:
            outer = self.tmp("outer")
            self.w(f"{outer} = s.drawn")
            self.w("s.drawn = set()")
            value = self.atom(self.x(node.args[0], ctx.keeping_trail()))
            drawn = self.tmp("drawn")
            self.w(f"{drawn} = s.drawn")
            self.w(f"s.drawn = {outer}")
            if ctx.trail:
                self.w(f"{outer} |= {drawn}")
            return f"({value}, tuple(sorted({drawn}, key=_rule_key)))"
        if name == "defined" and len(node.args) == 1:
            return self.defined(node, ctx)
        if name == "allowed" and len(node.args) == 1 and isinstance(node.args[0], ir.StrLit):
            return self.allowed(node.args[0].value, ctx)
        if name in ("forbid_rules", "permit_rules", "forbids_reading") and len(node.args) == 1 \
                and isinstance(node.args[0], ir.StrLit) and fast.machine is not None:
            kind = node.args[0].value
            if name == "forbids_reading":
                return self.k(fast.machine.forbids_reading(kind))
            return self.k(fast.machine.clause_rules(
                "forbid" if name == "forbid_rules" else "permit", kind))
        if name in ("sum", "max", "min") and len(node.args) == 1:
            inline = self.reduce_in_line(name, node.args[0], ctx)
            if inline is not None:
                return inline
        args = self._items(node.args, ctx)
        if name in ("count", "len") and len(args) == 1:
            return f"len({args[0]})"
        if name == "neighbours" and len(args) == 1:
            return f"{args[0]}.neighbours"
        if name == "adjacent" and len(args) == 2:
            return f"({args[1]} in {args[0]}.neighbours)"
        if name == "hexside" and len(args) == 2:
            return f"_hexside({args[0]}, {args[1]})"
        if name == "is_number" and len(args) == 1:
            return f"(type({args[0]}) is int or _is_number({args[0]}))"
        if name == "first":
            return f"_first_item({', '.join(args)})"
        if name in fast.ref.simple:
            return f"{self.k(fast.ref.simple[name])}({', '.join(args)})"
        if name == "allowed" and len(args) == 1:
            self.rec("unknown")
            return f"s.allowed({args[0]}, {self.materialise(ctx)})"
        if name == "next_player" and len(args) == 1:
            return f"s.next_player({args[0]})"
        if name == "rolled":
            self.rec("global")
            return "s.last_roll"
        raise _Unsupported(name)

    def reduce_in_line(self, name: str, arg: ir.Expr, ctx: _Ctx) -> str | None:
        """``sum``, ``max`` or ``min`` of a short list written out (``sum([a, b])``), worked
        out in line when every item is an int; the library's function otherwise (a name
        cell among numbers absorbs them, fractions stay exact). ``sum`` of an empty tuple
        (a hook nobody contributes to) is 0 in line too. None: not such a call."""
        written = arg.items if isinstance(arg, (ir.ListLit, ir.TupleLit)) else None
        if (written is not None and not 1 <= len(written) <= (4 if name == "sum" else 2)) \
                or (written is None and name != "sum"):
            return None
        fallback = self.k(self.fast.ref.simple[name])
        t = self.tmp()
        if written is not None:
            items = self._items(written, ctx)
            ints = " and ".join(f"type({v}) is int" for v in items)
            listed = f"({''.join(v + ', ' for v in items)})"
            if name == "sum":
                value = " + ".join(items)
            elif len(items) == 1:
                value = items[0]
            else:   # the first of two equal items, as max() and min() give
                a, b = items
                value = f"{a} if {a} {'>=' if name == 'max' else '<='} {b} else {b}"
            self.w(f"{t} = ({value}) if {ints} else {fallback}({listed})")
            return t
        v = self.atom(self.x(arg, ctx))
        self.w(f"{t} = 0 if type({v}) is tuple and not {v} else {fallback}({v})")
        return t

    def function(self, node: ir.Call, ctx: _Ctx) -> str:
        decl = self.fast.ref.functions[node.func]
        if len(decl.params) != len(node.args):
            raise _Unsupported("arity")
        args = self._items(node.args, ctx)
        locs = {}
        for param, value in zip(decl.params, args, strict=True):
            var = self.fast.fresh("p_" + _IDENT.sub("_", param))
            self.w(f"{var} = {value}")
            locs[param] = _Local(var, True, self.depth)
        inner = ctx.entering(("function", node.func)).bind(**locs)
        self.trail_rule(decl.rule, ctx)
        return self.x(decl.body, inner)

    def defined(self, node: ir.Call, ctx: _Ctx) -> str:
        t = self.tmp()
        saved = self.tmp("saved")
        snap = self.tmp("snap")
        self.w(f"{saved} = s.drawn")
        if ctx.trail:
            self.w(f"{snap} = set({saved})")
        self.w("try:")
        self.push()
        value = self.x(node.args[0], ctx)
        self.w(f"{value}")
        self.w(f"{t} = True")
        self.pop()
        self.w("except Exception:")
        self.push()
        self.w(f"s.drawn = {saved}")
        self.rec("unknown")
        if ctx.trail:
            self.w(f"{saved}.clear(); {saved} |= {snap}")
        fn = self.fast.ref._compile(node)
        self.w(f"{t} = {self.k(fn)}(s, {self.materialise(ctx)})")
        self.pop()
        return t

    def allowed(self, kind: str, ctx: _Ctx) -> str:
        """``allowed("kind")``: no forbid clause on the kind holds unless a permit lifts it."""
        t = self.tmp("ok")
        self.w(f"{t} = False")
        self.w("while True:")
        self.push()
        self.forbids(kind, ctx.entering(("allowed", kind)), "break")
        self.w(f"{t} = True")
        self.w("break")
        self.pop()
        return t

    def forbids(self, kind: str, ctx: _Ctx, refuse: str,
                which: Callable[[ir.Expr], bool] | None = None) -> None:
        """Emit the forbid clauses of a kind in order (those whose condition ``which``
        takes, if given); ``refuse`` runs when one holds."""
        for _, cond, permits in self.fast.clauses(kind):
            if which is not None and not which(cond):
                continue
            held = self.x(cond, ctx)
            self.w(f"if {held}:")
            self.push()
            if permits:
                lifted = self.tmp("lifted")
                self.w(f"{lifted} = False")
                self.w("while True:")
                self.push()
                for p in permits:
                    self.w(f"if {self.x(p, ctx)}: {lifted} = True; break")
                self.w("break")
                self.pop()
                self.w(f"if not {lifted}: {refuse}")
            else:
                self.w(refuse)
            self.pop()

    def side_of_pieces(self, node: ir.Call, ctx: _Ctx) -> str | None:
        """The side ``E`` as an atom, when a comprehension visits the game's pieces and its
        condition starts with ``u.side == E`` (a piece's side never changes, so the
        pieces of other sides fail it, having read nothing else); else None."""
        where, binder = node.where, node.binder
        if where is None or binder is None or not isinstance(node.domain, ir.Name) \
                or node.domain.id != "pieces" or "pieces" in ctx.locs \
                or self.fast.resolve("pieces")[0] != "const":
            return None
        ref = self.fast.ref
        if "side" in ref.piece_attributes or ("piece", "side") in ref._derived_decls:
            return None
        first = where.terms()[0] if isinstance(where, ir.BoolOp) and where.op == "and" \
            else where
        other = _side_test(first, binder)
        if other is None:
            return None
        return self.atom(self.x(other, ctx))

    def native_pieces(self, node: ir.Call, ctx: _Ctx, domain: str) -> str | None:
        """A local holding the pieces a comprehension over all the pieces keeps, listed
        by the clause machine (``FastCompiler.native_filter``), or None at run time
        when it cannot; None here when it never can: on the reference backend, while
        the state read is noted for a cached enumeration or a rule trail is kept, or
        for another domain.

        The filter's variables are those bound to locals here and the procedure
        variables read from ``env``; any other name it reads is a declaration the
        clause machine resolves itself, so the filter runs only when ``env`` does
        not hold that name."""
        hook = self.fast.native_filter
        if hook is None or not isinstance(node.domain, ir.Name) or node.domain.id != "pieces" \
                or "pieces" in ctx.locs or self.fast.resolve("pieces")[0] != "const":
            return None
        everything = self.k(self.fast.world.pieces)
        same = [] if domain == everything else [f"{domain} is {everything}"]
        return self._native_filter(hook, node, ctx, "", same)

    def native_items(self, node: ir.Call, ctx: _Ctx, items: str) -> str | None:
        """``native_pieces`` for a comprehension over any list of at least
        ``NATIVE_ITEMS`` pieces or places, the local ``items`` (what it goes
        through, in order; ``FastCompiler.native_item_filter``)."""
        hook = self.fast.native_item_filter
        if hook is None:
            return None
        return self._native_filter(hook, node, ctx, f"{items}, ",
                                   [f"len({items}) >= {NATIVE_ITEMS}"])

    def _native_filter(self, hook: Any, node: ir.Call, ctx: _Ctx, first: str,
                       tests: list[str]) -> str | None:
        # The call of a native filter's function (``first``: its arguments before the
        # variables' values), made when ``tests`` hold, into a new local.
        where, binder = node.where, node.binder
        if where is None or binder is None or self.recording or ctx.trail:
            return None
        free = sorted(free_names(where, frozenset((binder,))))
        variables = self.fast.machine.variables
        slots = tuple(n for n in free if n in ctx.locs or (ctx.env and n in variables))
        values = [ctx.locs[n].var if n in ctx.locs else self.envvar(n) for n in slots]
        guards = [f"{self.envvar(n)} is MISS" for n in free
                  if n not in slots and ctx.env and n in self.fast.env_names]
        found = self.tmp("native")
        listed = (f"{self.k(hook(where, binder, slots))}"
                  f"(s, {first}({''.join(v + ', ' for v in values)}))")
        test = " and ".join(["s.drawn is None", *tests, *guards])
        self.w(f"{found} = {listed} if {test} else None")
        return found

    def iterated(self, domain: str) -> str:
        """Python source of what a comprehension goes through: ``domain`` itself when it
        is a list or tuple, else the reference's order of it (a set sorted). A
        constant (every piece, the hexes, a table's rows) is settled here, once."""
        if _CONSTANT.fullmatch(domain) and type(self.fast.ns.get(domain)) in _ITERABLE \
                or domain in self.sequences:
            return domain
        return f"{domain} if type({domain}) in _ITERABLE else _as_iterable({domain})"

    def comprehension(self, node: ir.Call, ctx: _Ctx) -> str:
        name = node.func
        if name == "distribution" or node.binder is None or node.domain is None:
            raise _Unsupported(name)
        binder = node.binder
        domain = self.atom(self.x(node.domain, ctx))
        items = self.tmp("it")
        # ``all`` is false for a piece its condition fails, of another side too.
        side = self.side_of_pieces(node, ctx) if name != "all" else None
        if side is not None:
            # Only the pieces of that side can pass: visit them alone (in piece order).
            everything, by_side = self.fast.pieces_by_side()
            if domain == everything:
                self.w(f"{items} = {by_side}.get({side}, ())")
            else:
                self.w(f"{items} = {by_side}.get({side}, ()) if {domain} is {everything} "
                       "else None")
                self.w(f"if {items} is None: {items} = {self.iterated(domain)}")
        else:
            self.w(f"{items} = {self.iterated(domain)}")
        native = None
        if name != "all":
            native = self.native_pieces(node, ctx, domain)
            if native is None and side is None and name != "any":
                # (``any`` stops at the first item that holds; the machine tests all.)
                native = self.native_items(node, ctx, items)
        # Where the clause machine's answer is the result itself (the items, kept
        # whole: no element to work out), it is taken as it is, and the loop below
        # runs over no item; otherwise the loop goes through the items it listed.
        itself = node.element is None or (isinstance(node.element, ir.Name)
                                          and node.element.id == binder)
        direct = native is not None and itself and name not in ("all", "any")
        if direct:
            self.w(f"if {native} is not None: {items} = ()")
        elif native is not None:
            self.w(f"if {native} is not None: {items} = {native}")
        var = self.fast.fresh("b_" + _IDENT.sub("_", binder))
        inner = ctx.bind(**{binder: _Local(var, True, self.depth + 1)})
        t = self.tmp()
        where, element = node.where, node.element
        if native is not None:
            where = None   # tested below, unless the clause machine has listed the items

        def test(then: str, condition: ir.Expr | None = node.where) -> None:
            # ``then`` when ``node.where`` fails (not run over pieces listed natively).
            if native is None or condition is None:
                return
            self.w(f"if {native} is None:")
            self.push()
            self.w(f"if not {self.x(condition, inner)}: {then}")
            self.pop()

        if name == "all":
            self.w(f"{t} = True")
            self.loop(var, items)
            if where is not None:
                self.w(f"if not {self.x(where, inner)}: {t} = False; break")
            if element is not None:
                self.w(f"if not {self.x(element, inner)}: {t} = False; break")
            self.end_loop()
            return t
        if name == "any" and element is None:
            self.w(f"{t} = False")
            self.loop(var, items)
            test("continue")
            if where is not None:
                self.w(f"if {self.x(where, inner)}: {t} = True; break")
            else:
                self.w(f"{t} = True; break")
            self.end_loop()
            return t
        reducers = {
            "count": "len({})", "any": "any([_truth(_x) for _x in {}])",
            "sum": "_absorb(sum, {})", "max": "_absorb(max, {})", "min": "_absorb(min, {})",
            "distinct": "frozenset({})", "set": "frozenset({})", "list": "tuple({})",
            "first": "({0}[0] if {0} else None)",
            "union": "frozenset(_chain({}))",
            "sorted": "tuple(_in_order({}))",
        }
        if name not in reducers:
            raise _Unsupported(name)
        if name in ("max", "min", "first") and node.args:
            pass
        elif node.args:
            raise _Unsupported(name)
        self.w(f"{t} = {native} if {native} is not None else []" if direct else f"{t} = []")
        self.loop(var, items)
        test("continue")
        if where is not None:
            self.w(f"if not {self.x(where, inner)}: continue")
        value = self.x(element, inner) if element is not None else var
        self.w(f"{t}.append({value})")
        self.end_loop()
        if name in ("max", "min", "first") and node.args:
            r = self.tmp()
            self.w(f"if {t}:")
            self.push()
            self.w(f"{r} = {t}[0]" if name == "first" else f"{r} = {name}({t})")
            self.pop()
            self.w("else:")
            self.push()
            self.w(f"{r} = {self.x(node.args[0], ctx)}")
            self.pop()
            return r
        return reducers[name].format(t)


def _side_test(term: ir.Expr, binder: str) -> ir.Expr | None:
    """``E`` of a test ``binder.side == E`` (either way round), ``E`` being a name other
    than the binder or another name's ``side``; else None."""
    if not isinstance(term, ir.Compare) or term.op != "==":
        return None
    for mine, other in ((term.left, term.right), (term.right, term.left)):
        if isinstance(mine, ir.Attr) and mine.name == "side" \
                and isinstance(mine.obj, ir.Name) and mine.obj.id == binder:
            named = other.obj if isinstance(other, ir.Attr) and other.name == "side" \
                else other
            if isinstance(named, ir.Name) and named.id != binder:
                return other
    return None


def _ranked(atom: str) -> str:
    """An atom as the reference's ``_rank`` orders it (numbers as they are)."""
    if _INT.fullmatch(atom):
        return atom
    return f"({atom} if type({atom}) is int else _rank({atom}))"


def _is_literal(expr: str) -> bool:
    if expr in ("True", "False", "None") or _INT.fullmatch(expr):
        return True
    if expr[:1] in ("'", '"'):
        try:
            return isinstance(ast.literal_eval(expr), str)
        except (ValueError, SyntaxError):
            return False
    return False


# ============================================================ the compiler


class FastCompiler:
    """Compiles a program's expressions and options to generated Python functions."""

    def __init__(self, world: World, program: ir.Program, ref: Compiler,
                 folding: bool = True) -> None:
        self.world = world
        self.ref = ref
        self.machine: Any = None
        self.folding = folding
        self._by_side: dict[Any, tuple[Piece, ...]] | None = None
        self.origins: dict[str, Any] = {}
        """The span of rules text each generated function runs, by the function's name."""
        self.hoisting = True
        self.caching = True
        # How many of an option's loops, from the outside, keep what their
        # iterations found (more levels save recomputing but cost more entries).
        self.cache_levels = 1
        self.stamp_offsets = (1, 1, 1)   # set by the machine (see GameState.stamps)
        # On the compiled backend (set by the machine): ``native_filter(C, u, names)``
        # gives a function listing the pieces ``u`` that ``C`` holds for, or None
        # (``native.PieceFilter``).
        self.native_filter: Callable[[ir.Expr, str, tuple[str, ...]], Any] | None = None
        # The same, ``native_item_filter(C, t, names)``, for a list of pieces or places
        # (``native.ItemFilter``): its function takes the items too.
        self.native_item_filter: Callable[[ir.Expr, str, tuple[str, ...]], Any] | None = None
        self._program = program
        self.purity = Purity(self)
        self.splitter = ListSplitter(ref.functions)
        self.memos: list[dict[Any, Any]] = []
        self._counter = 0
        self._consts: dict[int, str] = {}
        permits: dict[tuple[str, str], list[ir.Expr]] = {}
        for p in program.of(ir.Permit):
            permits.setdefault((p.action, p.despite), []).append(p.when)
        self._clauses: dict[str, list[tuple[str, ir.Expr, tuple[ir.Expr, ...]]]] = {}
        for f in program.of(ir.Forbid):
            self._clauses.setdefault(f.action, []).append(
                (f.rule, f.when, tuple(permits.get((f.action, f.rule), ()))))
        hexsides: dict[tuple[Place, Place], frozenset[str]] = {}
        for a in world.places:
            for b in a.neighbours:
                hexsides[(a, b)] = world.hexside(a, b)

        def hexside(a: Any, b: Any) -> frozenset[str]:
            found = hexsides.get((a, b))
            return found if found is not None else world.hexside(a, b)

        tags: set[str] = set()
        for piece in world.pieces:
            tags |= piece.tags
        features: set[str] = set()
        for place in world.places:
            features |= place.features
        self._tags, self._features = tags, features
        self._props: set[str] = set()
        for piece in world.pieces:
            self._props |= set(piece.props)
        self.ns: dict[str, Any] = {
            "MISS": MISS, "Piece": Piece, "Place": Place, "Player": Player, "Row": Row,
            "_PLAIN_KEYS": _PLAIN_KEYS, "memo_key": memo_key, "_materialise": _materialise,
            "_rank": _rank, "_index": index_value, "_is": is_test, "_add": add_values,
            "_SUMMABLE": frozenset((int, str, tuple)),
            "_divide": divide_values, "_absorb": _absorb, "_order_key": _order_key,
            "_in_order": in_order, "_chain": itertools.chain.from_iterable,
            "_rule_key": rule_key, "_truth": _truth, "_as_iterable": _as_iterable,
            "_ITERABLE": _ITERABLE, "_hexside": hexside, "_is_number": _is_number,
            "_first_item": _first_item, "_sequence": _sequence, "_unknown": _unknown,
            "format_value": format_value,
            "_fallback": _fallback, "TrailKept": TrailKept, "_entry": _entry,
            "_become": _become,
        }

    @functools.cached_property
    def env_names(self) -> frozenset[str]:
        """The names some evaluation's variables may hold; any other is read from its
        declaration at once, never looked up in ``env`` (engine/bound_names.py). Worked
        out when first needed, not at load."""
        return names_bound(self._program)

    # ------------------------------------------------------------ helpers
    def generator(self, indent: int) -> _Gen:
        return _Gen(self, indent)

    def fresh(self, prefix: str) -> str:
        self._counter += 1
        return f"{prefix}_{self._counter}"

    def const(self, obj: Any) -> str:
        name = self._consts.get(id(obj))
        if name is None:
            name = f"K{len(self._consts)}"
            self._consts[id(obj)] = name
            self.ns[name] = obj
        return name

    def pieces_by_side(self) -> tuple[str, str]:
        """Constants: the game's pieces, and a dict of each side's pieces (in piece order)."""
        pieces = self.world.pieces
        if self._by_side is None:
            by_side: dict[Any, tuple[Piece, ...]] = {}
            for piece in pieces:
                by_side[piece.side] = (*by_side.get(piece.side, ()), piece)
            self._by_side = by_side
        return self.const(pieces), self.const(self._by_side)

    def clauses(self, kind: str) -> list[tuple[str, ir.Expr, tuple[ir.Expr, ...]]]:
        return self._clauses.get(kind, [])

    def resolve(self, name: str) -> tuple[Any, ...]:
        """What a name not bound to a variable means (as the reference's ``_Name``)."""
        ref, world = self.ref, self.world
        if name in ref.values:
            return ("value",)
        if name in ref.functions and not ref.functions[name].params:
            return ("define", ref.functions[name])
        if name in ref._hook_clauses:
            return ("hook",)
        fixed = {"players": world.seats, "pieces": world.pieces, "hexes": world.hexes,
                 "areas": world.areas, "zones": world.zones}
        if name in fixed:
            return ("const", fixed[name])
        if name in ("turn", "phase"):
            return (name,)
        for table in (world.player, world.pools, world.tables, world.dice, world.place,
                      world.regions):
            if name in table:
                return ("const", table[name])
        if name in world.symbols:
            return ("const", name)
        return ("unknown",)

    def owners_of(self, name: str) -> list[str]:
        """The types that have a ``.name`` (tested in this order, before any other)."""
        ref = self.ref
        found = []
        if name in ref.piece_attributes or ("piece", name) in ref._derived_decls \
                or name in ("place", "side", "class", "id") or name in self._props:
            found.append("piece")
        if name in ref.place_attributes or ("place", name) in ref._derived_decls \
                or name in ("pieces", "terrain", "owner", "id", "kind", "shore"):
            found.append("place")
        if name in ref.player_attributes or ("player", name) in ref._derived_decls \
                or name == "name":
            found.append("player")
        return found

    def tag_owner(self, name: str) -> str | None:
        if name in self._tags:
            return "piece"
        if name in self._features:
            return "place"
        return None

    def costly(self, node: ir.Expr) -> bool:
        """Worth memoising: expands a function or hook, or loops."""
        if isinstance(node, ir.Call):
            if node.binder is not None:
                return node.func != "distribution"
            return node.func in self.ref.functions or node.func in (
                "rules", "failing", "applied", "with_rules")
        if isinstance(node, ir.Name):
            kind = self.resolve(node.id)[0]
            return kind in ("define", "hook")
        return False

    # ------------------------------------------------------------ building
    def build(self, name: str, params: str, body: list[str], gen: _Gen | None,
              origin: Any = None) -> Any:
        """Compile a generated function; ``origin`` is the span of the rules text it runs
        (kept in ``origins``, by the function's name, for profiles to cite)."""
        if origin is not None:
            self.origins[name] = origin
        head = [f"def {name}({params}):"]
        pre: list[str] = []
        if gen is not None:
            pre = ["    " + f"{var} = env.get({n!r}, MISS)" for n, var in gen.preloads.items()]
            pre += ["    " + f"{gen.keys[n]} = {_key_of(gen.preloads[n])}" for n in gen.keys]
        source = "\n".join(_without_idle_passes("\n".join(head + pre + body).split("\n")))
        source += "\n"
        try:
            code = compile(source, f"<rules:{name}>", "exec")
        except (SyntaxError, RecursionError, MemoryError, ValueError) as error:
            # Python's own limits (nested blocks, parentheses): the reference runs.
            raise _Unsupported(f"{name}: {error}") from None
        scope: dict[str, Any] = {}
        exec(code, self.ns, scope)  # noqa: S102 - our own generated source
        fn = scope[name]
        fn.source = source
        return fn

    def lazy(self, make: Callable[[], Callable[..., Any]]) -> Any:
        """A function generated by ``make()`` when first called (its code replaces this one's).

        Most expressions of a rulebook run rarely or never in a given game; so
        loading one costs no more than the reference's compilation.
        """
        stub = types.FunctionType(_LAZY, self.ns, "lazy")
        stub.__kwdefaults__ = {"_me": stub, "_make": make}
        return stub

    def root(self, node: ir.Expr, ref: Fn) -> Fn:
        """A fast function for an expression, falling back to ``ref`` when it raises."""
        fn: Fn = self.lazy(lambda: self._root(node, ref))
        return fn

    def _root(self, node: ir.Expr, ref: Fn) -> Fn:
        gen = _Gen(self, indent=2)
        gen.rooted = True
        try:
            value = gen.x(node, _Ctx(True, {}))
        except _Unsupported:
            return ref
        gen.w(f"return {value}")
        reference = self.const(ref)
        body = [f"    if s.drawn is not None: return {reference}(s, env)"]
        if gen.required:
            # A variable missing here would make the evaluation fail: the reference
            # then fails as it does.
            missing = " or ".join(f"{gen.preloads[n]} is MISS" for n in sorted(gen.required))
            body.append(f"    if {missing}: return _fallback(s, env, {reference})")
        body += ["    try:"] + gen.finish() + [
            "    except Exception:",
            "        pass",
            f"    return _fallback(s, env, {reference})"]
        try:
            fn: Fn = self.build(self.fresh("expr"), "s, env", body, gen,
                                getattr(node, "span", None))
        except _Unsupported:
            return ref
        return fn

    def reads_in_order(self, option: ir.Option) -> bool:
        """Whether no domain or binding of an option reads a parameter or binding before it
        is set (so that every candidate's domains and bindings are worked out alike however
        the candidates before it went)."""
        later = [p.name for p in option.params] + [n for n, _ in option.bindings]
        exprs = [p.domain for p in option.params] + [e for _, e in option.bindings]
        for i, node in enumerate(exprs):
            _, names = self.purity.scan(node, frozenset(), True)
            if names & set(later[i:]):
                return False
        return True

    def binder(self, option: ir.Option) -> Callable[..., tuple[Any, ...]] | None:
        """``bind(s, env, values)``: an option's bindings for given parameter values.

        As the reference works them out before applying an action: from the
        variables ``env``, the parameters set, each binding in turn. It raises
        whatever the reference might not (the caller then runs the reference).
        """
        if not option.bindings:
            return None
        fn: Callable[..., tuple[Any, ...]] = self.lazy(lambda: self._binder(option) or _refuse)
        return fn

    def _binder(self, option: ir.Option) -> Callable[..., tuple[Any, ...]] | None:
        gen = _Gen(self, indent=1)
        gen.w("if s.drawn is not None: raise TrailKept()")
        locs: dict[str, _Local] = {}
        for i, param in enumerate(option.params):
            var = self.fresh("o_" + _IDENT.sub("_", param.name))
            gen.w(f"{var} = values[{i}]")
            locs[param.name] = _Local(var, True)
        for name, _ in option.bindings:
            if name not in locs:
                var = self.fresh("o_" + _IDENT.sub("_", name))
                gen.w(f"{var} = {gen.envvar(name)}")
                locs[name] = _Local(var, False)
        ctx = _Ctx(True, dict(locs))
        out = []
        try:
            for name, expr in option.bindings:
                value = gen.x(expr, ctx)
                var = locs[name].var
                gen.w(f"{var} = {value}")
                ctx = ctx.bind(**{name: _Local(var, True)})
                out.append(var)
            gen.w(f"return ({', '.join(out)},)")
            fn = self.build(self.fresh("bind"), "s, env, values", gen.finish(), gen,
                            option.span)
        except _Unsupported:
            return None
        return fn  # type: ignore[no-any-return]

    def enumerator(self, option: ir.Option, kind: Any) -> Callable[..., None] | None:
        """The candidates of one option, as the ids of its legal actions (generated when
        first used; see ``_enumerate()``)."""
        fn: Callable[..., None] = self.lazy(
            lambda: self._enumerate(option, kind) or _refuse)
        return fn

    def _enumerate(self, option: ir.Option, kind: Any) -> Callable[..., None] | None:
        """The candidates of one option, as the ids of its legal actions.

        ``enum(s, env, out, stop)`` appends the id of every candidate that is
        in the domains, passes the ``where`` clause and no forbid clause of
        the kind refuses (unless a permit lifts it), in the reference's order;
        with ``stop`` it returns after the first one. It raises whatever the
        reference might not: the caller then runs the reference instead.
        """
        gen = _Gen(self, indent=1)
        gen.w("if s.drawn is not None: raise TrailKept()")
        try:
            return self._enumerator(gen, option, kind)
        except _Unsupported:
            return None

    def _enumerator(self, gen: _Gen, option: ir.Option, kind: Any) -> Callable[..., None]:
        names = [p.name for p in option.params] + [n for n, _ in option.bindings]
        clean = self.reads_in_order(option)
        cached = self.caching and clean and len(option.params) >= 2
        gen.caches = cached
        gates = self._gates(option) if cached and self.cache_levels == 1 else set()
        gate = self._gate(option, gates) if gates else None
        if gate is None:
            gates = set()   # no gate: every clause is tested with each candidate
        locs: dict[str, _Local] = {}
        for n in dict.fromkeys(names):
            var = self.fresh("o_" + _IDENT.sub("_", n))
            # In a clean option no name is read before it is set: its old value is moot.
            gen.w(f"{var} = {'MISS' if clean else gen.envvar(n)}")
            locs[n] = _Local(var, False)
        ctx = _Ctx(True, dict(locs))
        sizes = [len(i) for i in kind.index]
        count = min(len(kind.index), len(option.params))
        index_names = [self.const(kind.index[i]) for i in range(count)]
        setup = len(gen.lines)   # where the cache is fetched, once the env names are known
        gen.lines.append("")
        for i, param in enumerate(option.params):
            domain = gen.x(param.domain, ctx)
            var = locs[param.name].var
            if cached and i < self.cache_levels:
                self._cached_loop_head(gen, var, domain, i + 1, gate)
            else:
                gen.loop(var, domain)
            ctx = ctx.bind(**{param.name: _Local(var, True, gen.depth)})
        ok = self.fresh("ok")
        gen.w(f"{ok} = False")
        gen.w("while True:")
        gen.push()
        for bname, expr in option.bindings:
            value = gen.x(expr, ctx)
            var = locs[bname].var
            gen.w(f"{var} = {value}")
            ctx = ctx.bind(**{bname: _Local(var, True, gen.level_of(expr, ctx))})
        if option.where is not None:
            gen.w(f"if not {gen.x(option.where, ctx)}: break")
        gen.forbids(option.kind, ctx, "break",
                    (lambda cond: id(cond) not in gates) if gates else None)
        gen.w(f"{ok} = True")
        gen.w("break")
        gen.pop()
        number = str(kind.base)
        for i in range(count):
            var = locs[option.params[i].name].var
            factor = 1
            for size in sizes[i + 1:count]:
                factor *= size
            number += f" + {index_names[i]}[{var}]" + (f" * {factor}" if factor != 1 else "")
        gen.w(f"if {ok}:")
        gen.push()
        gen.w(f"out.append({number})")
        if gate is None:    # (else the unit's ids are kept only once the gate lets them)
            gen.w("if stop: return")
        gen.pop()
        if cached:
            # Close the loops, innermost first; keep what each iteration found.
            site = self.const(object())
            sig = ", ".join(_key_of(v) for v in gen.preloads.values())
            head = [f"    SIG = ({sig}{',' if gen.preloads else ''})", "    STAMPS = s.stamps"]
            levels = min(self.cache_levels, len(option.params))
            while gen.depth > levels:
                gen.end_loop()
            for k in range(levels, 0, -1):
                gen.w(f"if not RX{k}: ENTRIES{k}[EK{k}] = _entry(s, RS{k}, out, MARK{k})")
                if gate is not None:
                    unit = locs[option.params[0].name].var
                    gen.w(f"if len(out) > MARK{k} and {gate}(s, env, ({unit},)): "
                          f"del out[MARK{k}:]")
                    # As without a gate, a listing that stops gives the first id only.
                    gen.w(f"if stop and len(out) > MARK{k}: del out[MARK{k} + 1:]; return")
                if k > 1:
                    gen.w(f"RS{k - 1}.extend(RS{k})")
                    gen.w(f"if RX{k}: RX{k - 1} = True")
                gen.record_levels.pop()
                gen.end_loop()
                head += [f"    ENTRIES{k} = s._ecache.get(({site}, {k}, SIG))",
                         f"    if ENTRIES{k} is None:",
                         f"        if len(s._ecache) >= {ECACHE_LIMIT}: s._ecache.clear()",
                         f"        ENTRIES{k} = s._ecache[({site}, {k}, SIG)] = {{}}"]
            gen.recording = False
            gen.lines[setup] = "\n".join(head)
        fn = self.build(self.fresh("enum"), "s, env, out, stop", gen.finish(), gen,
                        option.span)
        return fn  # type: ignore[no-any-return]

    def _gates(self, option: ir.Option) -> set[int]:
        """The forbid clauses on an option's kind that read, of the option's parameters
        and bindings, the first parameter alone (by the id of their condition): the
        *gates*, which refuse all of a unit's candidates or none.

        In Grands Stratèges, "no other unit moves while the unit moving now shares
        its hex" (II.6, ``mover``) reads a game value that every move writes. Tested
        with each candidate, it made every unit's cached candidates stale at every
        move; tested once per unit, on the candidates the other clauses keep (the
        cached ones), it leaves them standing. The same ids come out: a gate refuses
        every candidate of a unit or none. A gate that fails is tested only for a
        unit with candidates that pass every other clause, for which the reference
        reaches it too (and a failure makes the caller run the reference).
        """
        first = option.params[0].name
        others = {p.name for p in option.params[1:]} | {n for n, _ in option.bindings}
        if first in others:
            return set()
        found = set()
        for _, cond, permits in self.clauses(option.kind):
            names: set[str] = set()
            for node in (cond, *permits):
                names |= self.purity.scan(node, frozenset(), True)[1]
            if not names & others:
                found.add(id(cond))
        return found

    def _gate(self, option: ir.Option, gates: set[int]) -> str | None:
        """``gate(s, env, (unit,))``, a constant: whether a gate (``_gates``) refuses the
        unit, its clauses tested as the enumeration would, in order; None when its
        code cannot be generated (the clauses then stay with each candidate)."""
        gen = _Gen(self, indent=1)
        first = option.params[0].name
        var = self.fresh("o_" + _IDENT.sub("_", first))
        gen.w(f"{var} = values[0]")
        ctx = _Ctx(True, {first: _Local(var, True)})
        try:
            gen.forbids(option.kind, ctx, "return True", lambda cond: id(cond) in gates)
            gen.w("return False")
            fn = self.build(self.fresh("gate"), "s, env, values", gen.finish(), gen,
                            option.span)
        except _Unsupported:
            return None
        return self.const(fn)

    def _cached_loop_head(self, gen: _Gen, var: str, domain: str, k: int,
                          gate: str | None = None) -> None:
        """A loop of a cached enumeration (the ``k``-th, from the outside): reuse an
        iteration's ids while the stamps of everything it read are unchanged; else run
        it, noting what it reads (and telling the loops around it). With a ``gate``
        (``_gate``, outermost loop only), the ids kept are those the gate lets by."""
        gen.w(f"for {var} in {domain}:")
        gen.push()
        own = f"{var} if type({var}) in _PLAIN_KEYS else memo_key({var})"
        gen.w(f"EK{k} = {own}" if k == 1 else f"EK{k} = (EK{k - 1}, {own})")
        gen.w(f"E = ENTRIES{k}.get(EK{k})")
        gen.w("if E is not None and E[0](STAMPS) == E[1]:")
        gen.push()
        if k > 1:
            gen.w(f"RS{k - 1}.extend(E[3])")
        gen.w("if E[2]:")
        gen.push()
        if gate is not None:
            gen.w(f"if {gate}(s, env, ({var},)): continue")
        gen.w("out.extend(E[2])")
        gen.w("if stop: return")
        gen.pop()
        gen.w("continue")
        gen.pop()
        gen.w(f"RS{k} = []; RX{k} = False; MARK{k} = len(out)")
        gen.open_scope()
        gen.recording = True
        gen.record_levels.append(gen.depth)


def _stamps(indices: tuple[int, ...]) -> Callable[[list[int]], tuple[int, ...]]:
    """A function reading the stamps at some indexes (sorted, distinct), as a tuple."""
    found = indices
    if not found:
        return _no_stamps
    if len(found) == 1:
        only = found[0]
        return lambda stamps: (stamps[only],)
    getter: Callable[[list[int]], tuple[int, ...]] = operator.itemgetter(*found)
    return getter


def _no_stamps(stamps: list[int]) -> tuple[int, ...]:
    return ()


def _entry(s: State, read: list[int], out: list[int], mark: int) -> tuple[Any, ...]:
    """What a cached iteration found (its ids), with the stamps of what it read."""
    indices = tuple(sorted(set(read)))
    by_stamps = _stamps(indices)
    return (by_stamps, by_stamps(s.stamps), tuple(out[mark:]), indices)


def _unknown(name: str) -> Any:
    raise KeyError(f"unknown name {name!r}")


def _refuse(*args: Any) -> Any:
    """What could not be generated: the caller runs the reference instead."""
    raise Unsupported("not generated")


def _become(me: Any, make: Callable[[], Callable[..., Any]]) -> Callable[..., Any]:
    """Generate a lazy function's code and make the function run it from now on."""
    made = make()
    if isinstance(made, types.FunctionType) and not made.__closure__ \
            and made.__globals__ is me.__globals__:
        me.__code__ = made.__code__
        me.__kwdefaults__ = None
        me.__name__ = made.__name__
        me.source = getattr(made, "source", None)
    else:   # a reference closure (nothing generated): call it
        me.__code__ = _DELEGATE
        me.__kwdefaults__ = {"_me": made}
    return made


def _code(source: str) -> types.CodeType:
    """The code object of the one function a source defines."""
    module = compile(source, "<rules>", "exec")
    return next(c for c in module.co_consts if isinstance(c, types.CodeType))


_LAZY = _code("def lazy(s, env, *rest, _me=None, _make=None):\n"
              "    return _become(_me, _make)(s, env, *rest)\n")
_DELEGATE = _code("def delegate(s, env, *rest, _me=None):\n"
                  "    return _me(s, env, *rest)\n")


def _fallback(s: State, env: dict[str, Any], ref: Fn) -> Any:
    """Run the reference closure after generated code raised (no trail was being kept)."""
    s.drawn = None
    return ref(s, env)


class TrailKept(Exception):
    """A generated enumerator was called while a rule trail is kept: the reference runs."""
