"""Rewrites of the IR that the generated code makes before compiling an expression.

Each rewrite gives an expression with the same value as the one it replaces,
whenever that one has a value; where the original would fail, the generated
code falls back to the reference, which fails in its own way (so a rewrite
may fail differently, never succeed differently).

- **A filter over concatenated lists** is the concatenation of the filters
  over each part: ``list(x for x in A + B where C)`` is
  ``list(x for x in A where C) + list(x for x in B where C)`` when ``A`` and
  ``B`` are lists, and a filter over ``if T then A else B`` is the filter of
  the branch taken. The parts that read no state are then memoised whole by
  the generated code, instead of one memo lookup per item. (Cortés 10.8: the
  Aztec redeployment hexes, most of them fixed, a few the hexes Aztec units
  hold.)
"""

from __future__ import annotations

import attrs

from ..dsl import ir


class ListSplitter:
    """Splits ``list(...)`` comprehensions over concatenations, once per node.

    ``functions``: the rulebook's functions, by name (a call of one whose body
    is a list gives a list).
    """

    def __init__(self, functions: dict[str, ir.FunctionDecl]) -> None:
        self.functions = functions
        # Each node's rewrite, kept with the node so that its id stays its own.
        self._done: dict[int, tuple[ir.Call, ir.Expr]] = {}

    def split(self, node: ir.Call) -> ir.Expr:
        """``node`` rewritten, or ``node`` itself when nothing splits."""
        found = self._done.get(id(node))
        if found is None:
            found = (node, self._split(node, 0))
            self._done[id(node)] = found
        return found[1]

    def _split(self, node: ir.Call, depth: int) -> ir.Expr:
        domain = node.domain
        if node.func != "list" or node.binder is None or domain is None or depth > 8 \
                or "list" in self.functions:
            return node
        if isinstance(domain, ir.Cond):
            return ir.Cond(domain.test, self._over(node, domain.then, depth),
                           self._over(node, domain.otherwise, depth), domain.span)
        if isinstance(domain, ir.Arith) and domain.op == "+" and self.is_list(domain.left) \
                and self.is_list(domain.right):
            return ir.Arith("+", self._over(node, domain.left, depth),
                            self._over(node, domain.right, depth), domain.span)
        return node

    def _over(self, node: ir.Call, domain: ir.Expr, depth: int) -> ir.Expr:
        return self._split(attrs.evolve(node, domain=domain), depth + 1)

    def is_list(self, expr: ir.Expr, depth: int = 0) -> bool:
        """Whether ``expr`` is a list whenever it has a value (a list literal, ``list``
        or ``sorted`` of anything, lists added, a branch between lists, a call of a
        function whose body is one)."""
        if depth > 8:
            return False
        if isinstance(expr, ir.ListLit):
            return True
        if isinstance(expr, ir.Arith):
            return expr.op == "+" and self.is_list(expr.left, depth + 1) \
                and self.is_list(expr.right, depth + 1)
        if isinstance(expr, ir.Cond):
            return self.is_list(expr.then, depth + 1) and self.is_list(expr.otherwise, depth + 1)
        if isinstance(expr, ir.Call):
            decl = self.functions.get(expr.func)
            if decl is not None:
                return expr.binder is None and self.is_list(decl.body, depth + 1)
            return expr.func in ("list", "sorted")
        return False
