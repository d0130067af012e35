"""Helpers of the Grands Stratèges tests: reading refusals, legal actions and
the log, fighting a battle, and playing out turns."""

from __future__ import annotations

from cortes_rules import GameState


def refusal_rules(state: GameState, action: str) -> set[str]:
    """The rules ``why_illegal`` cites for an action (empty when it is legal)."""
    return {rule for rule, _ in state.why_illegal(action) if rule}


def legal(state: GameState) -> set[str]:
    """The legal actions, as texts."""
    return {str(action) for action in state.legal_actions()}


def last_lines(state: GameState, n: int = 6) -> str:
    """The texts of the last ``n`` log lines."""
    return "\n".join(entry.text for entry in state.log[-n:])


def fight(state: GameState, targets: list[str], units: list[str], roll: int) -> GameState:
    """Open a battle on the first target, commit the units, add the other targets,
    resolve and roll ``roll``."""
    state.apply(f"attack {targets[0]}")
    for uid in units:
        state.apply(f"join {uid}")
    for target in targets[1:]:
        state.apply(f"attack {target}")
    state.apply("resolve")
    assert state.is_chance_node()
    state.apply(f"roll {roll}")
    return state


def end_phases(state: GameState) -> None:
    """The player to move ends his movement phase, then his combat phase."""
    state.apply("end")
    state.apply("end_combat")


def next_turn(state: GameState) -> None:
    """Both players end both their phases: on to the next game turn."""
    end_phases(state)
    end_phases(state)
