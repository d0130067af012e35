"""The exceptions of cortes_rules, all rooted in ``CortesRulesError``.

They are split by cause, so a caller can tell a broken rulebook from an
illegal move from a bad record:

- ``RulesSyntaxError``: a rules file does not parse.
- ``RulesCheckError``: a rules file parses but the checker found
  problems (every diagnostic is reported at once).
- ``IllegalActionError``: an action is not legal in a state; it names
  the rules that forbid it. Also a ``ValueError``, as python-chess's
  ``IllegalMoveError`` is.
- ``UnknownNameError``: a name the rulebook does not hold (a set-up, a
  player, a piece, a place, a rule, a value, an attribute, an
  interpretation, a scenario). Also a ``LookupError``.
- ``ArgumentTypeError``: an argument of the public API is of the wrong
  type (a list where a player's name goes). Also a ``TypeError``.
- ``StartError``: a game's starting position breaks a rule.
- ``NotationError``: an action's text form does not parse.
- ``RecordError``: a saved game record is bad; it names the line.
- ``BackendError``: the core asked for cannot run (see
  ``CORTES_RULES_BACKEND``).
- ``NothingToUndoError``: ``GameState.undo()`` has no action to take back.
- ``MissingExtraError``: an optional library (an adapter's, NumPy for
  observation tensors) is not installed; it names the extra. Also an
  ``ImportError``.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .dsl.diagnostics import Diagnostic


class CortesRulesError(Exception):
    """Root of every error this library raises on purpose."""


class RulesError(CortesRulesError):
    """A rules file cannot be used; carries one or more diagnostics."""

    def __init__(self, diagnostics: Sequence[Diagnostic]) -> None:
        self.diagnostics = tuple(diagnostics)
        super().__init__("\n".join(d.render() for d in self.diagnostics))


class RulesSyntaxError(RulesError):
    """A rules file does not follow the grammar (grammar/rules.lark)."""


class RulesCheckError(RulesError):
    """The checker rejected the rules: unknown names, type errors, duplicates..."""


class IllegalActionError(CortesRulesError, ValueError):
    """An action was applied in a state where it is not legal.

    A ``ValueError`` too: the action is a value the state does not accept
    (python-chess raises its ``IllegalMoveError``, a ``ValueError``, the same way).

    Attributes:
        action: the rejected action.
        reasons: one ``Reason`` per rule that forbids the action
            (``cortes_rules.engine.reasons``): a ``(rule number, text)`` pair
            with the rule's title and summary, the fact of the position and
            the clause apart. Refusals no clause of their own makes (wrong
            phase, no chance event due) cite the rule the rulebook declares
            for them, such as its sequence of play.
    """

    def __init__(self, action: object, reasons: Sequence[tuple[str | None, str]]) -> None:
        self.action = action
        self.reasons = tuple(reasons)
        text = "; ".join(f"[{r}] {m}" if r else m for r, m in self.reasons)
        super().__init__(f"illegal action {action}: {text}")

    @property
    def rules(self) -> tuple[str, ...]:
        """The numbers of the rules that forbid the action."""
        return tuple(r for r, _ in self.reasons if r)


class StartError(CortesRulesError):
    """A game's starting position breaks a rule (``require at start``).

    Attributes:
        reasons: ``(rule number, explanation)`` pairs, one per breach.
    """

    def __init__(self, reasons: Sequence[tuple[str | None, str]]) -> None:
        self.reasons = tuple(reasons)
        text = "; ".join(f"[{r}] {m}" if r else m for r, m in self.reasons)
        super().__init__(f"the starting position breaks the rules: {text}")

    @property
    def rules(self) -> tuple[str, ...]:
        """The numbers of the rules the position breaks."""
        return tuple(dict.fromkeys(r for r, _ in self.reasons if r))


class NotationError(CortesRulesError, ValueError):
    """The text form of an action (or a hex id, a unit id) does not parse."""


class UnknownNameError(CortesRulesError, LookupError):
    """A name the rulebook does not hold: a set-up, a player, a piece, a place, a
    rule, a value, an attribute, an interpretation or a scenario.

    A ``LookupError`` too, as a missing key of a mapping is. The message names
    what was asked for and, where it helps, the names the rulebook does hold.
    """


class UnknownIdError(UnknownNameError, NotationError):
    """A piece or place id the rulebook does not hold.

    Both an ``UnknownNameError`` (a name looked up and not found) and a
    ``NotationError`` (an action or a position naming it does not read).
    """


class ArgumentTypeError(CortesRulesError, TypeError):
    """An argument of the public API is of the wrong type (a list where a player's
    name goes, a number where an expression's text goes); nothing was changed.

    A ``TypeError`` too, as Python's own functions raise for such a call.
    """


class RecordError(CortesRulesError):
    """A game record cannot be replayed; names the file and line."""

    def __init__(self, message: str, *, path: str = "<record>", line: int = 0) -> None:
        self.path = path
        self.line = line
        super().__init__(f"{path}:{line}: {message}")


class BackendError(CortesRulesError):
    """The backend asked for cannot be used: an unknown name, or no compiled core."""


class NothingToUndoError(CortesRulesError):
    """``GameState.undo()`` was called with no action to take back (the state is unchanged)."""


class MissingExtraError(CortesRulesError, ImportError):
    """An optional library is not installed (an adapter's, or NumPy for
    ``GameState.observation_tensor``); the message names the extra to install."""

    def __init__(self, adapter: str, extras: tuple[str, ...], missing: str) -> None:
        install = " or ".join(f"pip install 'cortes-rules[{extra}]'" for extra in extras)
        super().__init__(f"the {adapter} needs {missing!r}, which is not installed: {install}")
        self.extras = extras


class BoardError(CortesRulesError, IndexError):
    """A piece, place or player number outside the board's tables (an engine bug, not a user's)."""
