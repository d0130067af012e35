"""Refusals in words a player reads: the rule, its summary and the fact (issue 46.6).

``why_illegal`` and ``IllegalActionError.reasons`` give, for each rule that
refuses an action, the rule's number, title and English summary, the fact of
the position that makes it apply (worked out from the clause's condition
with the position's values, not written per rule) and the formal clause.
Every refusal names a rule of the rulebook, including those no ``forbid``
clause makes: an action the decision does not offer, a text that names no
action, a chance event due, a game over.
"""

from __future__ import annotations

import pickle
import random
from functools import cache
from pathlib import Path

import pytest

import cortes_rules
from cortes_rules import GameState
from cortes_rules.errors import BackendError, IllegalActionError

MINIMAL = Path(__file__).resolve().parents[1] / "fixtures" / "good" / "minimal.rules"
DEMO = Path(__file__).resolve().parents[2] / "rulebook" / "cortes" / "demo.record"


@cache
def _book(name: str, backend: str = "python", **options: str) -> cortes_rules.Rulebook:
    try:
        return cortes_rules.load(name, backend=backend, **options)
    except BackendError:
        pytest.skip("the compiled core is not built")


def _demo_after_three_moves() -> GameState:
    """The getting-started position: S9 and S1 into 3011, then S29 (another stack)."""
    state = _book("cortes").new_game(seed=8, setup="demo")
    for action in ("end", "move S9 3011", "move S1 3011", "move S29 3010"):
        state.apply(action)
    return state


@pytest.mark.rule("7.2")
def test_a_refusal_gives_the_rule_its_summary_the_fact_and_the_clause() -> None:
    state = _demo_after_three_moves()
    book = _book("cortes")
    [reason] = state.why_illegal("move S9 3010")
    assert reason.rule == "7.2"
    assert reason.title == book.rule("7.2").title == "Movement limits"
    assert reason.summary == book.rule("7.2").summary
    # The condition as it holds here: the stack S9 began the phase in has moved on.
    assert reason.fact == ("S9.start.closed is true (the stack that began the phase here "
                           "has finished moving)")
    assert reason.clause == "forbid move when unit.start.closed or unit.finished"
    assert reason.text == f"Movement limits: {reason.summary} Here: {reason.fact}."
    with pytest.raises(IllegalActionError) as caught:
        state.apply("move S9 3010")
    assert caught.value.reasons == (reason,)
    assert reason.fact in str(caught.value) and reason.summary in str(caught.value)


@pytest.mark.rule("7.1", "7.5", "7.10", "7.16")
def test_the_fact_is_the_clauses_condition_with_the_positions_values() -> None:
    state = _demo_after_three_moves()
    facts = {(r.rule, r.fact) for r in state.why_illegal("move S30 3023")}
    assert facts == {
        ("7.1", "adjacent(3009, 3023) is false"),
        ("7.1", "cost (prohibited) is more than S30.move - S30.spent (5)"),
        ("7.10", "3023 has quagmire"),
        ("7.16", "3009 has causeway and crossing (nothing) has no causeway")}
    # The same clause, another move: the fact follows the position, not the rule.
    assert {r.fact for r in state.why_illegal("move S2 3011") if r.rule == "7.1"} == {
        "adjacent(2909, 3011) is false"}
    # An any(...) that holds is shown by the item that makes it hold.
    [enemy] = state.why_illegal("move S2 2810")
    assert (enemy.rule, enemy.fact) == (
        "7.5", "A1 in 2810.units: A1.side (aztec) is not S2.side (spanish) and "
               "count(enemy_hex_open) (0) is 0")


@pytest.mark.rule("4.2")
def test_an_action_the_phase_does_not_offer_cites_the_sequence_of_play() -> None:
    state = _book("cortes").new_game(seed=8, setup="demo")
    [reason] = state.why_illegal("move S9 3011")      # lake movement comes first (7.19)
    assert reason.rule == "4.2" and reason.title == "Sequence of play"
    assert reason.fact == ("no move action is possible now, in Spanish lake movement "
                           "(possible: end, sail)")
    assert reason.clause == ('phase spanish_lake_movement "Spanish lake movement" by spanish '
                             'does lake_movement')
    # Texts that name no action of the rulebook are refused by the same rule.
    for text in ("fly S9 3011", "move Z9 3011", "move S9", ""):
        [(rule, _)] = state.why_illegal(text)
        assert rule == "4.2", text
    # In the set-up stage, the opening sequence's rule (3.1).
    fresh = _book("cortes").new_game(seed=1)
    assert [r.rule for r in fresh.why_illegal("end")] == ["3.1"]


@pytest.mark.rule("I.1", rulebook="grands_strateges")
def test_grands_strateges_refusals_cite_its_own_sequence_of_play() -> None:
    state = _book("grands_strateges").new_game(seed=1, positions={"A1": "0505", "B1": "0909"})
    assert state.phase == "a_movement"
    assert [r.rule for r in state.why_illegal("lose A1")] == ["I.1"]


@pytest.mark.rule("8.18")
def test_a_chance_event_due_and_a_roll_the_dice_cannot_give_name_a_rule() -> None:
    from cortes_rules.record import read_record, replay

    record = read_record(DEMO)
    state = next(s for s in (replay(record, to_ply=n) for n in range(len(record.actions)))
                 if s.is_chance_node())
    for asked in ("end", "roll 1", "move S9 3010"):
        reasons = state.why_illegal(asked)
        assert reasons and all(r.rule in state.machine.program.rules and r.summary
                               for r in reasons), asked
    [dice] = state.why_illegal("roll 1")
    assert dice.fact == "the dice cannot come up 1"
    with pytest.raises(IllegalActionError) as caught:
        _demo_after_three_moves().apply_chance()     # no chance event is due
    assert caught.value.rules == ("4.2",)


@pytest.mark.rule("2.2", rulebook="minimal_race")
def test_an_action_after_the_end_cites_the_rule_that_ended_the_game() -> None:
    state = cortes_rules.load(MINIMAL).new_game(setup="standard")
    for action in ("walk R meadow", "rest", "walk R goal"):
        state.apply(action)
    assert state.is_terminal()
    assert state.outcome().rule == "2.2"
    [reason] = state.why_illegal("rest")
    assert (reason.rule, reason.fact) == ("2.2", "the game is over")
    assert reason.title == "Walking"


@pytest.mark.rule("4.1")
@pytest.mark.parametrize("backend", ["python", "compiled"])
@pytest.mark.parametrize(("name", "options"), [
    ("cortes", {"options": "veteran", "setup": "historical"}),
    ("grands_strateges", {"scenario": "I"}),
    ("grands_strateges", {"scenario": "X"}),
])
def test_every_refusal_names_a_rule_of_the_rulebook_with_its_summary(
        name: str, options: dict[str, str], backend: str) -> None:
    setup = options.get("setup")
    book = _book(name, backend, **{k: v for k, v in options.items() if k != "setup"})
    rules = book.program.rules
    refused = 0
    for seed in range(4):
        state = book.new_game(seed=seed, setup=setup)
        rng = random.Random(seed)
        for _ in range(60):
            if state.is_terminal():
                break
            asked = [book.action_from_id(rng.randrange(book.num_distinct_actions))
                     for _ in range(6)]
            for action in [*asked, "fly away", "end"]:
                for player in (None, *book.players):
                    for reason in state.why_illegal(action, player=player):
                        refused += 1
                        rule, _ = reason
                        assert rule in rules, (str(action), reason)
                        assert getattr(reason, "summary", None), (str(action), reason)
                        assert getattr(reason, "fact", None), (str(action), reason)
            if state.is_chance_node():
                state.apply_chance()
            else:
                ids = state.legal_action_ids()
                state.apply(ids[rng.randrange(len(ids))])
    assert refused > 500


@pytest.mark.rule("7.16")
def test_a_reason_is_still_the_pair_rule_and_text() -> None:
    state = _demo_after_three_moves()
    [reason] = state.why_illegal("move S2 2910")
    rule, text = reason
    assert (rule, text) == (reason.rule, reason.text) == tuple(reason)
    assert reason == ("7.16", text) and len(reason) == 2
    assert repr(reason) == repr(("7.16", text))
    again = pickle.loads(pickle.dumps(reason))
    assert again == reason and again.fact == reason.fact and again.clause == reason.clause
    assert reason.as_dict()["clause"] == ("forbid move when to has causeway and not "
                                          "crossing has causeway")


@pytest.mark.rule("7.2")
@pytest.mark.parametrize("backend", ["python", "compiled"])
def test_reasons_are_worded_only_when_an_action_is_refused(
        backend: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """The hot path: applying a legal action, by id or by text, words no refusal."""
    from cortes_rules.engine.reasons import Reason, Refusals

    book = _book("cortes", backend, options="veteran")
    worded: list[str] = []
    original = Refusals.reason

    def counted(self: Refusals, rule: str | None, fact: str, clause: str = "") -> Reason:
        worded.append(fact)
        return original(self, rule, fact, clause)

    monkeypatch.setattr(Refusals, "reason", counted)
    state = book.new_game(seed=5, setup="historical")
    rng = random.Random(5)
    for ply in range(400):
        if state.is_terminal():
            break
        if state.is_chance_node():
            state.apply_chance()
            continue
        legal = state.legal_actions()
        action = legal[rng.randrange(len(legal))]
        state.apply(action if ply % 2 else book.action_id(action))
    assert worded == []
    legal = set(state.legal_action_ids()) if not state.is_chance_node() else set()
    refused = next(n for n in range(book.num_distinct_actions) if n not in legal)
    with pytest.raises(IllegalActionError):
        state.apply(refused)
    assert worded
