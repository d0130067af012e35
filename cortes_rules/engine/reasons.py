"""Why an action is refused, in words a player reads.

Every refusal (``GameState.why_illegal()``, ``IllegalActionError.reasons``,
an explanation's refusal) is a list of ``Reason`` objects, one per rule
that forbids the action. Each names the rule by its number, gives the
rule's title and English summary (every rule clause has one), the concrete
fact of the position that makes the rule apply, worked out from the clause
by ``facts.Facts`` (``S9.finished is true (its move is over for this
phase)``), and, on request, the formal clause itself (``forbid move when
unit.start.closed or unit.finished``).

A refusal that no ``forbid`` clause makes (an action of a kind the decision
does not offer, an unknown piece, a chance event due, a game over) cites the
rule the rulebook declares for it: the sequence of play that holds the
current phase, the clause of the procedure that makes the decision, the
ending that closed the game, the clause that hides a piece. The engine
holds no rule number of its own.

The texts are made only when a refusal is explained: ``apply()`` of a legal
action never builds one.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Any

import attrs

from ..dsl import ir
from ..dsl.render import expr as render_expr
from ..dsl.render import statement as render_statement
from ..errors import CortesRulesError
from .facts import Facts

Fn = Callable[[Any, dict[str, Any]], Any]


class Reason(tuple[str | None, str]):
    """One rule that refuses an action, as ``(rule, text)``, with its parts apart.

    It unpacks, compares and prints as the pair ``(rule, text)`` (so
    ``for rule, text in state.why_illegal(action)`` reads it); ``text`` is
    the whole answer in words, ``"{title}: {summary} Here: {fact}."``.

    Attributes:
        rule: the number of the rule that refuses the action.
        text: the answer a player reads: the rule's title and summary, then
            the fact of the position.
        title: the rule's title.
        summary: the rule's English summary.
        fact: what in this position makes the rule refuse the action
            (``adjacent(2910, 2709) is false``).
        clause: the formal clause that refuses it, in the rules language
            (``forbid move when not adjacent(from, to)``).
    """

    title: str
    summary: str
    fact: str
    clause: str

    def __new__(cls, rule: str | None, text: str, *, title: str = "", summary: str = "",
                fact: str = "", clause: str = "") -> Reason:
        self = super().__new__(cls, (rule, text))
        self.title, self.summary, self.fact, self.clause = title, summary, fact, clause
        return self

    @property
    def rule(self) -> str | None:
        """The number of the rule that refuses the action."""
        return self[0]

    @property
    def text(self) -> str:
        """The answer in words: title, summary and the fact of the position."""
        return self[1]

    def __reduce__(self) -> tuple[Any, ...]:
        return (_rebuilt, (self.rule, self.text, self.title, self.summary, self.fact,
                           self.clause))

    def as_dict(self) -> dict[str, Any]:
        """The reason as plain data."""
        return {"rule": self.rule, "text": self.text, "title": self.title,
                "summary": self.summary, "fact": self.fact, "clause": self.clause}


def _rebuilt(rule: str | None, text: str, title: str, summary: str, fact: str,
             clause: str) -> Reason:
    return Reason(rule, text, title=title, summary=summary, fact=fact, clause=clause)


def compose(title: str, summary: str, fact: str) -> str:
    """The text of a reason: ``"{title}: {summary} Here: {fact}."``."""
    head = f"{title}: {summary}".strip() if summary else title
    if head and head[-1] not in ".!?:":
        head += "."
    if not fact:
        return head
    tail = fact if fact.endswith((".", "?", "!")) else f"{fact}."
    return f"{head} Here: {tail}" if head else tail


@attrs.frozen
class Reader:
    """Who reads a refusal, and what he may be shown.

    Attributes:
        name: the player's name, or None for the umpire, who sees everything.
        display: a value as he may be told it (a piece hidden from him as ``?``).
        secret: whether a value is a piece hidden from him.
        secret_attribute: whether an attribute of an object is kept from him.
    """

    name: str | None
    display: Callable[[Any], str]
    secret: Callable[[Any], bool]
    secret_attribute: Callable[[Any, str], bool]


class Refusals:
    """Builds the reasons of one rulebook (kept by its ``Machine``, made when first asked)."""

    def __init__(self, program: ir.Program, compile_expr: Callable[[ir.Expr, str | None], Fn]
                 ) -> None:
        self.program = program
        self._compile = compile_expr
        self._fns: dict[int, tuple[ir.Expr, Fn]] = {}
        labels: dict[str, str] = {}
        for decl in program.of(ir.AttributeDecl):
            if decl.label:
                labels.setdefault(decl.name, decl.label)
        for value in program.of(ir.ValueDecl):
            if value.label:
                labels.setdefault(value.name, value.label)
        self.labels = labels

    # ------------------------------------------------------------ reasons
    def reason(self, rule: str | None, fact: str, clause: str = "") -> Reason:
        """A reason citing ``rule`` for ``fact``, with the rule's title and summary."""
        found = self.program.rules.get(rule) if rule is not None else None
        title = found.title if found is not None else ""
        summary = (found.summary or "") if found is not None else ""
        return Reason(rule, compose(title, summary, fact), title=title, summary=summary,
                      fact=fact, clause=clause)

    def forbidding(self, state: Any, rule: str, clause: ir.Forbid, env: dict[str, Any],
                   reader: Reader) -> Reason:
        """The reason a ``forbid`` clause that holds gives: the fact of its condition."""
        try:
            fact = self.facts(state, env, reader).holding(clause.when)
        except (CortesRulesError, TypeError, KeyError, ValueError, AttributeError):
            fact = f"{render_expr(clause.when)} holds"
        return self.reason(rule, fact, render_statement(clause))

    def outside(self, state: Any, option: Any, text: str, values: Sequence[Any],
                env: dict[str, Any], failed_at: int | None, rules: Sequence[str],
                fallback: str, reader: Reader) -> list[Reason]:
        """The reasons for an action outside a choice's options: which argument is not
        among the values it ranges over, or which ``where`` test fails. They cite
        ``rules`` (the option's ``cite``), else ``fallback``."""
        decl: ir.Option | None = option.decl
        detail = ""
        clause = _option_text(decl) if decl is not None else ""
        try:
            facts = self.facts(state, env, reader)
            if decl is not None and failed_at is not None and failed_at < len(decl.params):
                param = decl.params[failed_at]
                detail = (f"{reader.display(values[failed_at])} is not in "
                          f"{facts.text(param.domain, env)}")
            elif decl is not None and decl.where is not None:
                detail = facts.why(decl.where, False, env)
        except (CortesRulesError, TypeError, KeyError, ValueError, AttributeError):
            detail = ""
        fact = f"{text} is not among the choices here" + (f": {detail}" if detail else "")
        return [self.reason(rule, fact, clause) for rule in (rules or (fallback,))]

    def facts(self, state: Any, env: dict[str, Any], reader: Reader) -> Facts:
        """The fact finder for one position, one set of variables and one reader."""

        def evaluate(node: ir.Expr, variables: dict[str, Any]) -> Any:
            return self._fn(node)(state, dict(variables))

        return Facts(evaluate, env, state.values, reader.display, reader.secret,
                     reader.secret_attribute, self.labels, reader.name)

    def _fn(self, node: ir.Expr) -> Fn:
        known = self._fns.get(id(node))
        if known is not None and known[0] is node:
            return known[1]
        fn = self._compile(node, None)
        self._fns[id(node)] = (node, fn)
        return fn


def _option_text(decl: ir.Option) -> str:
    """An option as the rulebook states it: ``option move(unit in U, to in T) where C``."""
    params = ", ".join(f"{p.name} in {render_expr(p.domain)}" for p in decl.params)
    where = f" where {render_expr(decl.where)}" if decl.where is not None else ""
    return f"option {decl.kind}({params}){where}" if params else f"option {decl.kind}{where}"


def phase_text(phase: ir.Phase) -> str:
    """A phase of a sequence as the rulebook states it."""
    by = " for each player" if phase.for_each_player else f" by {phase.side}"
    does = f" does {phase.activity}" if phase.activity else ""
    return f'phase {phase.name} "{phase.label}"{by}{does}'
