"""Pieces that test positions add so that a game does not end under the test.

5.3 ends the game at the end of any Spanish player turn with no Aztec unit
in Tenochtitlan. A test position that plays past the Spanish land combat
phase keeps one Aztec warrior in the city, far from the action, with
``{**GARRISON, ...}``.
"""

GARRISON = {"A53": "3518"}


def to_phase(state, phase: str):
    """Apply ``end`` until ``state`` is in ``phase`` (at most two game turns).

    (A helper module, not conftest: another folder's conftest may be the one
    imported under that name when several folders run together.)
    """
    for _ in range(2 * 8 + 1):
        if state.phase == phase:
            return state
        state.apply("end")
    raise AssertionError(f"never reached phase {phase!r}")
