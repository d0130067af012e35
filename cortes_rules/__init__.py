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
    Action: parse(text), str(action); Rulebook.action_id / action_from_id
    errors: CortesRulesError and its subclasses (IllegalActionError and NotationError
            are ValueErrors, UnknownNameError a LookupError, ArgumentTypeError a TypeError)
"""

from .api import Outcome, Rulebook, backend, load
from .engine.actions import Action
from .engine.compile import RulesRuntimeError
from .engine.log import LogEntry
from .engine.machine import CHANCE, GameState
from .engine.observation import Observation, PieceView
from .explain import Explanation
from .errors import (
                     ArgumentTypeError,
                     BackendError,
                     CortesRulesError,
                     IllegalActionError,
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

__all__ = [
    "CHANCE", "Action", "ArgumentTypeError", "BackendError", "CortesRulesError",
    "Explanation", "GameState",
    "IllegalActionError",
    "LogEntry",
    "NotationError", "NothingToUndoError", "Observation", "Outcome", "PieceView",
    "RecordError", "Rulebook",
    "RulesCheckError", "RulesError",
    "RulesRuntimeError", "RulesSyntaxError", "StartError", "UnknownIdError",
    "UnknownNameError", "backend", "load",
]
__version__ = "0.1.0"
