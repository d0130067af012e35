"""``observation(player)``: typed values in a documented shape, the counter apart.

Every value is a Python type of its own (ints, bools, ids, lists), never the
text the log would print; each visible piece keeps what its counter prints
(``printed``), what it shows on the table (``shown``: the attributes the
rulebook marks ``shown``) and the rules' bookkeeping apart. Which attributes
are shown is the rulebook's word (``attribute ... shown``), so a rulebook
that marks another attribute moves it. What is hidden stays hidden: a hidden
piece is in no part of the observation but its count.
"""

from __future__ import annotations

import json
import random
from pathlib import Path
from typing import Any, get_type_hints

import pytest

import cortes_rules
from cortes_rules import Observation, PieceView, RulesCheckError

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"

SHOWN_CLAUSE = '''
rule 2.8 "Tired runners" {
  summary "A runner that has walked shows a tired face; how far it walked is kept on a tally."
  attribute piece tired: bool = false "turned to its tired face" shown
}
'''


def minimal_with(tmp_path: Path, clause: str) -> cortes_rules.Rulebook:
    """The minimal test rulebook with one more clause."""
    path = tmp_path / "race.rules"
    path.write_text(MINIMAL.read_text(encoding="utf-8") + clause, encoding="utf-8")
    return cortes_rules.load(path)


def _declared_piece_attributes(book: cortes_rules.Rulebook) -> dict[str, bool]:
    """Each piece attribute the rulebook declares -> whether it is marked shown."""
    from cortes_rules.dsl import ir

    return {a.name: a.shown for a in book.program.of(ir.AttributeDecl) if a.owner == "piece"}


def _plain(value: Any) -> bool:
    """Whether a value is made of JSON's types only (Fractions aside)."""
    if value is None or type(value) in (bool, int, str):
        return True
    if isinstance(value, list):
        return all(_plain(v) for v in value)
    if isinstance(value, dict):
        return all(isinstance(k, str) and _plain(v) for k, v in value.items())
    return False


@pytest.mark.rule("8.8")
def test_values_are_typed_not_text(book: cortes_rules.Rulebook) -> None:
    state = book.new_game(seed=8, setup="demo")
    state.apply("end")
    state.apply("move S9 3011")
    seen = state.observation("spanish")
    s9 = seen["pieces"]["S9"]
    assert s9["place"] == "3011"
    assert s9["shown"] == {"steps": 4}
    assert s9["bookkeeping"]["spent"] == 2 and type(s9["bookkeeping"]["spent"]) is int
    assert s9["bookkeeping"]["attacked"] is False
    assert s9["bookkeeping"]["start"] == "3010"      # a place attribute: the place's id
    assert seen["values"]["moving"] == ["S9"]         # a list of pieces: their ids
    assert seen["values"]["battle_target"] is None
    assert type(seen["turn"]) is int
    assert _plain({k: v for k, v in seen.items()})
    json.dumps(seen)


@pytest.mark.rule("2.4")
def test_what_the_counter_prints_is_apart_from_the_bookkeeping(
        book: cortes_rules.Rulebook) -> None:
    state = book.new_game(seed=8, setup="demo")
    s29 = state.observation("aztec")["pieces"]["S29"]
    # 2.4's example counter: four steps, combat factor 6 at full strength, movement 5, lake.
    assert s29["printed"]["max_steps"] == 4 and s29["printed"]["factors"][0] == 6
    assert s29["printed"]["move"] == 5 and s29["printed"]["flags"] == ["lake"]
    assert s29["printed"]["class"] == "elite_ally" and s29["printed"]["side"] == "spanish"
    assert s29["printed"]["tribe"] == "Te"
    declared = _declared_piece_attributes(book)
    assert set(s29["shown"]) == {n for n, shown in declared.items() if shown} == {"steps"}
    assert set(s29["bookkeeping"]) == {n for n, shown in declared.items() if not shown}
    assert not set(s29["printed"]) & set(declared)


@pytest.mark.rule("2.8", rulebook="minimal_race")
def test_the_rulebook_says_which_attributes_are_shown(tmp_path: Path) -> None:
    book = minimal_with(tmp_path, SHOWN_CLAUSE)
    state = book.new_game(setup="standard")
    runner = state.observation("red")["pieces"]["R"]
    assert runner["shown"] == {"tired": False}
    assert runner["bookkeeping"] == {"walked": 0}
    state.apply("walk R meadow")
    assert state.observation("blue")["pieces"]["R"]["bookkeeping"] == {"walked": 1}


@pytest.mark.rule("2.8", rulebook="minimal_race")
def test_only_a_piece_attribute_can_be_shown(tmp_path: Path) -> None:
    clause = SHOWN_CLAUSE.replace("attribute piece tired", "attribute player tired")
    with pytest.raises(RulesCheckError, match="'shown' marks what a piece shows"):
        minimal_with(tmp_path, clause)


@pytest.mark.rule("XI.1", rulebook="grands_strateges")
def test_a_face_down_unit_shows_its_face_and_hidden_ones_stay_counts() -> None:
    book = cortes_rules.load("grands_strateges", scenario="X")
    state = book.new_game(seed=3)
    rng = random.Random(3)
    checked = 0
    for _ in range(120):
        if state.is_terminal():
            break
        for player in book.players:
            seen = state.observation(player)
            viewer = state.machine.world.player[player]
            hidden = {p.id for p in state.machine.world.pieces if state.hidden_from(p, viewer)}
            assert set(seen["pieces"]) == set(book.piece_ids) - hidden
            assert sum(seen["hidden"].values()) == len(hidden)
            for record in seen["pieces"].values():
                assert set(record["shown"]) == {"face_up"}
                assert type(record["shown"]["face_up"]) is bool
            checked += bool(hidden)
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(ids[rng.randrange(len(ids))])
    assert checked >= 20


@pytest.mark.rule("1.0")
def test_the_shape_is_documented_as_typed_dicts() -> None:
    assert set(get_type_hints(Observation)) == {
        "turn", "phase", "to_act", "pieces", "hidden", "players", "values", "log"}
    assert set(get_type_hints(PieceView)) == {"place", "printed", "shown", "bookkeeping"}
