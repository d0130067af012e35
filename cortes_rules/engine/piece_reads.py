"""What an expression reads of one piece: when pieces may share a folded value.

A value folded per piece (``fold.EdgeBindings``: the cost of moving a unit
along an edge) is the same for two pieces whenever the expression reads the
same things of both. ``PieceReads.of(node, names)`` scans an expression, and
every function, define, hook and ``allowed(...)`` it expands into, for the
uses of the piece named by ``names``:

- ``piece.side``, ``piece.class``, ``piece.id`` or a printed value
  (``piece.move``) is a read of that attribute;
- ``piece is NAME`` is a read of one tag;
- ``piece.place`` is no read of the piece itself (an edge fixes it);
- anything else gives up: the piece compared, stored, passed to a built-in,
  used as a collection, or a declared or computed attribute read of it
  (either could tell the piece apart from another with the same printed
  values). A piece passed as a function's argument is followed into the
  function under the parameter's name.

``profile(piece, reads)`` gives the key of a piece under those reads: two
pieces with the same key get the same value. Nothing here knows a game.
"""

from __future__ import annotations

from typing import Any

from ..core.world import Piece
from ..dsl import ir
from .codegen import memo_key

PLACE = "place"
"""The attribute a move along an edge fixes: read, but no part of a profile."""

_TAG = "is "
"""Prefix of a tag test among the reads (``is leader``)."""

_LITERALS = (ir.IntLit, ir.BoolLit, ir.NoneLit, ir.StrLit)


class _Identity(Exception):
    """The scanned expression uses the piece as more than its printed values."""


class PieceReads:
    """Scans expressions for what they read of one piece (see the module's docstring)."""

    def __init__(self, fast: Any) -> None:
        self.fast = fast
        self._active: set[Any] = set()

    def of(self, node: Any, names: frozenset[str]) -> frozenset[str] | None:
        """The reads of the piece called by any of ``names`` in ``node``, or None when
        the expression uses the piece otherwise."""
        reads: set[str] = set()
        try:
            self._scan(node, names, reads)
        except _Identity:
            return None
        return frozenset(reads)

    def _scan(self, node: Any, names: frozenset[str], reads: set[str]) -> None:
        if node is None or isinstance(node, _LITERALS):
            return
        if isinstance(node, ir.Name):
            if node.id in names:
                raise _Identity     # the piece itself, not one of its values
            self._global(node.id, names, reads)
        elif isinstance(node, ir.Attr):
            obj = node.obj
            if isinstance(obj, ir.Name) and obj.id in names:
                reads.add(self._attribute(node.name))
            else:
                self._scan(obj, names, reads)
        elif isinstance(node, ir.Is):
            subject = node.subject
            if isinstance(subject, ir.Name) and subject.id in names:
                reads.add(_TAG + node.name)
            else:
                self._scan(subject, names, reads)
        elif isinstance(node, (ir.SetLit, ir.ListLit, ir.TupleLit)):
            for item in node.items:
                self._scan(item, names, reads)
        elif isinstance(node, ir.Cond):
            for part in (node.test, node.then, node.otherwise):
                self._scan(part, names, reads)
        elif isinstance(node, ir.Index):
            self._scan(node.obj, names, reads)
            self._scan(node.key, names, reads)
        elif isinstance(node, (ir.Not, ir.Neg)):
            self._scan(node.operand, names, reads)
        elif isinstance(node, (ir.BoolOp, ir.Compare, ir.Arith)):
            self._scan(node.left, names, reads)
            self._scan(node.right, names, reads)
        elif isinstance(node, ir.Member):
            self._scan(node.item, names, reads)
            self._scan(node.collection, names, reads)
        elif isinstance(node, ir.Call):
            self._call(node, names, reads)
        else:
            raise _Identity     # a node this scan does not know: assume the worst

    def _attribute(self, name: str) -> str:
        ref = self.fast.ref
        if name in ref.piece_attributes or ("piece", name) in ref._derived_decls:
            raise _Identity     # changes during a game, or computed by rules of its own
        return name

    def _follow(self, token: Any, scan: Any) -> None:
        if token in self._active:
            raise _Identity     # a cycle: give up rather than loop
        self._active.add(token)
        try:
            scan()
        finally:
            self._active.discard(token)

    def _global(self, name: str, names: frozenset[str], reads: set[str]) -> None:
        what = self.fast.resolve(name)
        if what[0] == "define":
            decl = what[1]
            self._follow(("define", name, names), lambda: self._scan(decl.body, names, reads))
        elif what[0] == "hook":
            self._hook(name, names, reads)

    def _hook(self, hook: str, names: frozenset[str], reads: set[str]) -> None:
        clauses = self.fast.ref._hook_clauses.get(hook, ())

        def scan() -> None:
            for clause in clauses:
                self._scan(clause.value, names, reads)
                self._scan(clause.when, names, reads)
        self._follow(("hook", hook, names), scan)

    def _call(self, node: ir.Call, names: frozenset[str], reads: set[str]) -> None:
        ref = self.fast.ref
        if node.binder is not None:
            self._scan(node.domain, names, reads)
            inner = names - {node.binder}
            self._scan(node.where, inner, reads)
            self._scan(node.element, inner, reads)
            for arg in node.args:
                self._scan(arg, names, reads)
            return
        if node.func in ref.functions:
            decl = ref.functions[node.func]
            passed = set()
            for param, arg in zip(decl.params, node.args, strict=False):
                if isinstance(arg, ir.Name) and arg.id in names:
                    passed.add(param)     # the piece under another name
                else:
                    self._scan(arg, names, reads)
            for arg in node.args[len(decl.params):]:
                self._scan(arg, names, reads)
            inner = (names - set(decl.params)) | passed
            self._follow(("function", node.func, inner),
                         lambda: self._scan(decl.body, frozenset(inner), reads))
            return
        if node.func in ("rules", "failing", "applied") and len(node.args) == 1 \
                and isinstance(node.args[0], ir.Name) \
                and node.args[0].id in ref._hook_clauses:
            self._hook(node.args[0].id, names, reads)
            return
        for arg in node.args:
            self._scan(arg, names, reads)
        if node.func == "allowed":
            kind = node.args[0] if node.args else None
            if not isinstance(kind, ir.StrLit):
                raise _Identity
            conds = [c for _, cond, permits in self.fast.clauses(kind.value)
                     for c in (cond, *permits)]

            def scan() -> None:
                for cond in conds:
                    self._scan(cond, names, reads)
            self._follow(("allowed", kind.value, names), scan)


def profile(piece: Piece, reads: frozenset[str]) -> tuple[Any, ...]:
    """The key of a piece under ``reads``: the values read, in a fixed order."""
    key: list[Any] = []
    for read in sorted(reads):
        if read == PLACE:
            continue
        if read.startswith(_TAG):
            key.append(read[len(_TAG):] in piece.tags)
        elif read == "side":
            key.append(piece.side)
        elif read == "class":
            key.append(piece.cls)
        elif read == "id":
            key.append(piece.id)
        else:
            key.append((read in piece.props, memo_key(piece.props.get(read))))
    return tuple(key)
