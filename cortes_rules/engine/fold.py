"""Forbid clauses that read only static data, folded into tables when a rulebook loads.

A clause such as "no unit enters a hex of this terrain" or "this class of
unit never moves" depends on the action's pieces and places and on nothing
that changes during a game. Such a clause has the same answer for the same
arguments in every position, so it can be worked out once, for every piece
or place it could name, and read from a table afterwards: the native
option enumeration skips a statically forbidden candidate without
evaluating anything (docs/design.md, "The compiled core").

A clause is folded when:

- no permit clause can lift it (a permit may read the state);
- its condition is pure (``Purity``: no declared attribute, position, value,
  turn or roll is read, through any function, hook or derived attribute);
- every name it reads is a piece or place parameter of its action, one or
  two of them;
- it gives a yes or no answer for every combination of those parameters
  (a clause that fails to evaluate for some combination stays with the
  interpreter, which reports the failure where it happens).

Nothing here knows a game: the clauses, kinds and parameters come from the
rulebook.
"""

from __future__ import annotations

import itertools
from typing import Any

import attrs

from ..core.world import Piece, Place
from ..dsl import ir
from .machine import GameState, Machine

MAX_CASES = 250_000
"""A clause over more parameter combinations than this is not folded."""


@attrs.frozen
class FoldedClause:
    """One forbid clause worked out for every combination of the parameters it reads.

    Attributes:
        action: the action kind the clause forbids.
        rule: the rule number of the clause.
        position: where the clause stands among the kind's forbid clauses.
        params: the names of the parameters it reads, in the kind's order.
        domains: the pieces or places each of those parameters ranges over
            (the kind's own domains, as its action ids number them).
        forbidden: one flag per combination, row-major over ``params``
            (a combination's index is the mixed-radix number of its values'
            positions in ``domains``).
    """

    action: str
    rule: str
    position: int
    params: tuple[str, ...]
    domains: tuple[tuple[Any, ...], ...] = attrs.field(repr=False)
    forbidden: bytes = attrs.field(repr=False)

    def forbids(self, *values: Any) -> bool:
        """Whether the clause forbids this combination of pieces or places (one per param)."""
        at = 0
        for value, domain in zip(values, self.domains, strict=True):
            at = at * len(domain) + domain.index(value)
        return bool(self.forbidden[at])


def fold(machine: Machine) -> dict[str, tuple[FoldedClause, ...]]:
    """The foldable forbid clauses of every action kind of a machine, worked out.

    The clauses run on the starting values of a state that has not begun
    (a pure clause reads nothing of it; the interpreter's functions take one).
    """
    state = GameState(machine, seed=0, begin=False)
    purity = machine.fast.purity
    found: dict[str, tuple[FoldedClause, ...]] = {}
    for action, clauses in machine.forbids.items():
        kind = machine.space.kinds.get(action)
        if kind is None:
            continue
        domains = {name: domain for (name, _), domain in zip(kind.params, kind.domains,
                                                          strict=True)
                   if domain and all(type(v) in (Piece, Place) for v in domain)}
        folded = []
        for position, (rule, cond, permits, decl) in enumerate(clauses):
            if permits:
                continue
            params = _params_read(decl, [name for name, _ in kind.params], domains, purity)
            if params is None:
                continue
            cases = 1
            for p in params:
                cases *= len(domains[p])
            if cases > MAX_CASES:
                continue
            chosen = tuple(domains[p] for p in params)
            flags = _evaluate(cond, state, params, chosen)
            if flags is not None:
                folded.append(FoldedClause(action, rule, position, params, chosen, flags))
        if folded:
            found[action] = tuple(folded)
    return found


def _params_read(decl: ir.Forbid, params: list[str], foldable: dict[str, Any], purity: Any
                 ) -> tuple[str, ...] | None:
    """The piece and place parameters a pure clause reads, in the kind's order; else None."""
    pure, names = purity.scan(decl.when, frozenset(params))
    if not pure or not names or len(names) > 2 or not names <= foldable.keys():
        return None
    return tuple(p for p in params if p in names)


def _evaluate(cond: Any, state: Any, params: tuple[str, ...],
              domains: tuple[tuple[Any, ...], ...]) -> bytes | None:
    flags = bytearray()
    env: dict[str, Any] = {}
    for values in itertools.product(*domains):
        env.update(zip(params, values, strict=True))
        try:
            answer = cond(state, env)
        except Exception:  # noqa: BLE001 - any failure: the interpreter keeps the clause
            return None
        if type(answer) is not bool:
            return None
        flags.append(answer)
    return bytes(flags)
