"""cortes_rules: the wargame Cortés (1993) as a formal, executable rulebook.

The public surface::

    load(name_or_path, *, options=(), map=None, counters=None, setups=None,
         backend=None) -> Rulebook
    backend() -> "compiled" or "python" (CORTES_RULES_BACKEND chooses)
    Rulebook.new_game(seed=..., setup=..., positions=..., turn_limit=...) -> GameState
    Rulebook.position(text) -> GameState; GameState.to_notation() -> text (a position)
    GameState: legal_action_ids(), legal_actions(), apply(action or id), clone(),
               current_player, phase, is_chance_node(), chance_outcomes(),
               apply_chance(), undo() (takes back the last action), undo_depth,
               is_terminal(), outcome(), why_illegal(action), log,
               log_tail(n),
               observation(player) -> Observation (typed: ints, bools, ids; each
               piece's printed counter, shown state and bookkeeping apart),
               information_state(player), evaluate(expression),
               set_attribute / set_place_attribute / set_player_attribute / set_value,
               why_illegal(action, player=...), reachable(piece), move_to(piece, place),
               trail(ply) (the rule trail of an action), explain(question) -> Explanation
    For AI programs (docs/api): Rulebook.random_rollouts(n, seed, setup=...) and
               GameState.random_rollouts(n, seed) -> Rollouts (returns, lengths, winners),
               legal_action_ids_buffer() -> array('i'), step(action_id) -> next legal ids,
               observation_tensor(player, out=None) -> float32 NumPy array
    Action: parse(text), str(action); Rulebook.action_id / action_from_id
    errors: CortesRulesError and its subclasses (IllegalActionError and NotationError
            are ValueErrors, UnknownNameError a LookupError, ArgumentTypeError a TypeError)
"""

from typing import TYPE_CHECKING, Any

from .errors import (
                     ArgumentTypeError,
                     BackendError,
                     CortesRulesError,
                     IllegalActionError,
                     MissingExtraError,
                     NotationError,
                     NothingToUndoError,
                     RecordError,
                     RulesCheckError,
                     RulesError,
                     RulesSyntaxError,
                     StartError,
                     UnknownIdError,
                     UnknownNameError,
)

if TYPE_CHECKING:
    from .api import GameState, Outcome, Rulebook, backend, load
    from .engine.ai import Rollouts
    from .engine.actions import Action
    from .engine.compile import RulesRuntimeError
    from .engine.log import LogEntry
    from .engine.machine import CHANCE
    from .engine.observation import Observation, PieceView
    from .explain import Explanation

# The engine and the compiler are imported on first use, so that ``import
# cortes_rules`` (and the commands that answer from the text index) stay quick.
_LAZY = {
    "Outcome": "api", "Rulebook": "api", "backend": "api", "load": "api",
    "Rollouts": "engine.ai",
    "Action": "engine.actions", "RulesRuntimeError": "engine.compile",
    "LogEntry": "engine.log", "CHANCE": "engine.machine", "GameState": "api",
    "Observation": "engine.observation", "PieceView": "engine.observation",
    "Explanation": "explain",
}


def __getattr__(name: str) -> Any:
    """The public names that live in the engine, imported when first asked for (and
    the subpackages, ``cortes_rules.api`` say, as an eager import made them attributes)."""
    import importlib
    import importlib.util

    module = _LAZY.get(name)
    if module is None:
        if not name.startswith("_") and importlib.util.find_spec(f"{__name__}.{name}"):
            return importlib.import_module(f".{name}", __name__)
        raise AttributeError(f"module 'cortes_rules' has no attribute {name!r}")
    value = getattr(importlib.import_module(f".{module}", __name__), name)
    globals()[name] = value
    return value


def __dir__() -> list[str]:
    return sorted({*globals(), *_LAZY})


__all__ = [
    "CHANCE", "Action", "ArgumentTypeError", "BackendError", "CortesRulesError",
    "Explanation", "GameState",
    "IllegalActionError",
    "LogEntry", "MissingExtraError",
    "NotationError", "NothingToUndoError", "Observation", "Outcome", "PieceView",
    "RecordError", "Rollouts", "Rulebook",
    "RulesCheckError", "RulesError",
    "RulesRuntimeError", "RulesSyntaxError", "StartError", "UnknownIdError",
    "UnknownNameError", "backend", "load",
]
__version__ = "0.1.0"
