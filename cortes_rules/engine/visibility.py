"""Hide clauses, with what their leading tests settle once for every piece and viewer.

A ``hide piece when C`` clause is asked of every piece a log line names, for
every player, as the line is written, and of every piece for a player's
observation. Its condition often begins with tests that read nothing but the
piece's printed values and the viewer: in Cortés's fog of war (8.8, 11.9),
"the viewer is the Spanish player and the piece is Aztec". Such a test has
the same answer for the same piece and viewer in every position, so the
answers are worked out once, when a rulebook first asks, and a clause whose
leading tests fail for a (piece, viewer) pair is not evaluated for it: the
interpreter's ``and`` stops at the first false test, and a test that reads no
state has no other effect.

A clause's leading tests are the longest run of the conjuncts at the start
of its condition (``A and B and ...``) that are pure (``codegen.Purity``) and
read no name but ``piece``, ``viewer`` and constants. A pair for which one of
them fails to evaluate, or gives something other than true or false, keeps
the clause: it is then evaluated, and fails, in its own time.

Nothing here knows a game: the clauses come from the rulebook.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING, Any

from ..core.world import Piece, Player
from ..dsl import ir
from .codegen import Purity
from .compile import Fn

if TYPE_CHECKING:
    from .machine import Machine

_READER = frozenset(("piece", "viewer"))


class HideClauses:
    """The ``hide piece`` clauses of one kind (of pieces, or of their places).

    ``applying(piece, viewer)`` gives the clauses that may hide ``piece`` from
    ``viewer``, in the rulebook's order: those whose leading tests do not
    already answer no for that pair.
    """

    def __init__(self, machine: Machine, decls: Sequence[ir.HideDecl]) -> None:
        self.machine = machine
        self.decls = tuple(decls)
        self.fns: tuple[Fn, ...] = tuple(machine.fast_expr(h.when, h.rule) for h in decls)
        self._viewers = len(machine.world.players)
        self._applying: list[tuple[Fn, ...]] | None = None
        self._rows: tuple[tuple[tuple[Fn, ...], ...], ...] | None = None

    def __bool__(self) -> bool:
        return bool(self.fns)

    def applying(self, piece: Piece, viewer: Player) -> tuple[Fn, ...]:
        """The clauses to evaluate for ``piece`` and ``viewer``."""
        return self._table()[piece.index * self._viewers + viewer.index]

    def by_viewer(self) -> tuple[tuple[tuple[Fn, ...], ...], ...]:
        """``applying`` as one row per viewer, indexed by piece (for a log line's audience,
        which asks every piece it names of every viewer)."""
        rows = self._rows
        if rows is None:
            table, n = self._table(), self._viewers
            rows = self._rows = tuple(tuple(table[v::n]) for v in range(n))
        return rows

    def _table(self) -> list[tuple[Fn, ...]]:
        """The clauses applying to each (piece, viewer), worked out when first asked."""
        if self._applying is None:
            self._applying = self._work_out()
        return self._applying

    def _work_out(self) -> list[tuple[Fn, ...]]:
        from .machine import GameState   # the state module imports this one

        machine = self.machine
        world = machine.world
        scratch = GameState(machine, seed=0, begin=False)
        tests = [self._leading_tests(decl) for decl in self.decls]
        table: list[tuple[Fn, ...]] = []
        kept: dict[tuple[Fn, ...], tuple[Fn, ...]] = {}
        for piece in world.pieces:
            for viewer in world.players:
                env = {"piece": piece, "viewer": viewer}
                live = tuple(fn for fn, leading in zip(self.fns, tests, strict=True)
                             if not _settled_no(leading, scratch, env))
                table.append(kept.setdefault(live, live))
        return table

    def _leading_tests(self, decl: ir.HideDecl) -> tuple[Fn, ...]:
        """The reference functions of the clause's leading pure tests over piece and viewer."""
        machine = self.machine
        purity = Purity(machine.fast)
        variables = machine.variables
        values = machine.compiler.values
        found: list[Fn] = []
        for test in _conjuncts(decl.when):
            pure, names = purity.scan(test, _READER)
            if not pure or any(n in variables or n in values for n in names - _READER):
                break
            found.append(machine.compiler.expr(test, decl.rule))
        return tuple(found)


def _conjuncts(node: ir.Expr) -> list[ir.Expr]:
    """``A and B and C`` as [A, B, C], in the order the interpreter evaluates them."""
    if isinstance(node, ir.BoolOp) and node.op == "and":
        return _conjuncts(node.left) + _conjuncts(node.right)
    return [node]


def _settled_no(tests: tuple[Fn, ...], scratch: Any, env: dict[str, Any]) -> bool:
    """Whether the leading tests answer no for this piece and viewer, before any other
    test of the clause is evaluated."""
    for test in tests:
        try:
            answer = test(scratch, dict(env))
        except Exception:   # noqa: BLE001 - the clause is evaluated, and fails, in its time
            return False
        if answer is False:
            return True
        if answer is not True:
            return False
    return False
