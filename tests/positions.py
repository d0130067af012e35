"""Pieces that test positions add so that a game does not end under the test.

5.3 ends the game at the end of any Spanish player turn with no Aztec unit
in Tenochtitlan. A test position that plays past the Spanish land combat
phase keeps one Aztec warrior in the city, far from the action, with
``{**GARRISON, ...}``.
"""

GARRISON = {"A53": "3518"}
