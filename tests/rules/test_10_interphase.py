"""Section 10: the mutual R&R interphase, step by step (10.1-10.14)."""

from __future__ import annotations

from collections.abc import Iterable, Mapping

import pytest

import cortes_rules
from cortes_rules import GameState


def at_declaration(book: cortes_rules.Rulebook, positions: Mapping[str, str],
                   steps: Mapping[str, int] | None = None) -> GameState:
    state = book.new_game(positions=dict(positions))
    for uid, n in (steps or {}).items():
        state.set_attribute(uid, "steps", n)
    while state.phase != "end_of_turn":
        state.apply("end")
    return state


def texts(state: GameState) -> list[str]:
    return [str(a) for a in state.legal_actions()]


def run(state: GameState, rolls: Iterable[int] = (), *, keep: Iterable[str] = (),
        picks: Mapping[str, str] | None = None, exact: bool = True) -> list[str]:
    """Play the interphase under way up to the Spanish choice of 10.14.

    Dice come from ``rolls`` in order (then 3, which changes nothing); units
    in ``keep`` are kept in their fortress; ``picks`` gives a unit's hex or
    zone (else the first legal one). Returns every redeploy action played.
    """
    dice, kept, where = list(rolls), set(keep), dict(picks or {})
    played = []
    while True:
        if state.is_chance_node():
            state.apply(f"roll {dice.pop(0) if dice else 3}")
            continue
        legal = texts(state)
        if legal == ["play_on", "split"]:
            assert not (exact and dice), f"rolls left over: {dice}"
            return played
        keeps = [a for a in legal if a.startswith("keep ") and a.split()[1] in kept]
        if keeps:
            state.apply(keeps[0])
            continue
        if "end" in legal:
            state.apply("end")
            continue
        uid = legal[0].split()[1]
        choice = f"redeploy {uid} {where[uid]}" if uid in where else legal[0]
        state.apply(choice)
        played.append(choice)


def split(book: cortes_rules.Rulebook, positions: Mapping[str, str],
          steps: Mapping[str, int] | None = None) -> GameState:
    state = at_declaration(book, positions, steps)
    state.apply("split")
    if state.current_player == "aztec" and not state.is_chance_node():
        state.apply("accept")
    return state


BASE = {"S1": "1110", "A1": "3016"}


# ------------------------------------------------------------------ 10.1 and 10.14
@pytest.mark.rule("10.1")
def test_10_1_the_steps_come_in_order(book) -> None:
    positions = dict(BASE, S30="1210", A11="2711", S2="dead.spanish", A12="dead.aztec")
    state = split(book, positions, steps={"S1": 3})
    start = len(state.log)
    run(state, [3, 2, 4, 4])  # desertion; refit S1; recovery S2, A12
    order = []
    for entry in state.log[start:]:
        for rule in ("10.2", "10.4", "10.6", "10.7", "10.8", "10.10", "10.11", "10.12"):
            if rule in entry.rules and (not order or order[-1] != rule):
                order.append(rule)
    assert order == ["10.2", "10.4", "10.6", "10.7", "10.8", "10.10", "10.11"]
    assert state.evaluate("interphases_held") == 1


@pytest.mark.rule("5.4")
def test_5_4_each_interphase_carried_out_costs_five_points(book) -> None:
    state = split(book, BASE)
    run(state)
    assert state.evaluate("loss_points_from_interphases()") == 5


@pytest.mark.rule("10.14")
def test_10_14_successive_interphases_without_objection(book) -> None:
    # A Spanish unit on a causeway: the first interphase could be objected to.
    state = at_declaration(book, {"S1": "3010", "A1": "3016"})
    state.apply("split")
    assert texts(state) == ["object", "accept"]
    state.apply("accept")
    run(state, keep=())
    assert state.current_player == "spanish" and texts(state) == ["play_on", "split"]
    state.apply("split")  # another interphase: the Aztec player is not asked
    assert state.is_chance_node()
    assert state.evaluate("interphases_held") == 2
    run(state)
    state.apply("play_on")
    assert state.phase == "spanish_land_movement" and state.turn == 2
    assert state.evaluate("loss_points_from_interphases()") == 10


# ------------------------------------------------------------------ 10.2
ALLIES = {"S1": "1110", "A1": "3016", "S29": "1210", "S30": "1212", "S31": "1214",
          "S32": "dead.spanish"}


@pytest.mark.rule("10.2")
def test_10_2_a_plain_roll_of_one_keeps_the_allies(book) -> None:
    state = split(book, ALLIES)
    run(state, [1])
    assert state.place_of("S30") != "deserted" and state.evaluate("deserted_at") == 0


@pytest.mark.rule("10.2")
def test_10_2_aztecs_in_chapultepec_make_the_regulars_desert(book) -> None:
    state = split(book, dict(ALLIES, A11="1322"), steps={"S30": 1})
    run(state, [3, 4])  # 3 - 3 = 0: below one; then the refit of ... none (S30 gone)
    assert state.place_of("S30") == "deserted" and state.place_of("S31") == "deserted"
    assert state.place_of("S29") != "deserted"       # the elite band never deserts
    assert state.place_of("S32") == "dead.spanish"   # the dead are not deserters
    assert state.evaluate("deserted_at") == 1
    # They come back, at full strength, in the next interphase's redeployment.
    state.apply("split")
    run(state, [4])  # the S32 recovery roll; no desertion test any more
    assert state.place_of("S30") not in ("deserted", None)
    assert state.attribute("S30", "steps") == 2


@pytest.mark.rule("10.2")
def test_10_2_a_failed_objection_costs_one(book) -> None:
    positions = dict(ALLIES, S1="3010")  # condition 2 of 4.4
    state = at_declaration(book, positions)
    state.apply("split")
    state.apply("object")
    state.apply("roll 1")  # 1 + 1 full-strength knight: the interphase goes ahead
    state.apply("roll 1")  # desertion: 1 - 1 = 0
    assert state.place_of("S30") == "deserted"
    entry = next(e for e in state.log if e.text.startswith("desertion test"))
    assert "modified by -1" in entry.text and "10.2" in entry.rules


@pytest.mark.rule("10.2")
def test_10_2_desertion_once_both_ways() -> None:
    for reading, rolls_second in (("no_more_tests", [4]), ("test_again", [1, 4])):
        book = cortes_rules.load("cortes", readings={"desertion_once": reading})
        state = split(book, dict(ALLIES, A11="1322"))
        run(state, [1, 4])  # desert; S32 stays dead
        assert state.place_of("S30") == "deserted"
        state.apply("split")
        run(state, rolls_second)  # under test_again the roll of 1 is made but has no effect
        assert state.evaluate("deserted_at") == 1
        assert state.place_of("S30") != "deserted"
        tests = [e for e in state.log if e.text.startswith("desertion test")]
        assert len(tests) == (1 if reading == "no_more_tests" else 2)


# ------------------------------------------------------------------ 10.4
@pytest.mark.rule("10.4")
def test_10_4_units_not_surrounded_withdraw_without_a_roll(book) -> None:
    state = split(book, dict(BASE, S12="zone.11", A11="1111"))
    run(state)  # the roll is only the desertion test
    assert state.attribute("S1", "steps") == 4
    assert state.place_of("S12") in {"zone.7", "zone.11", "zone.15", "zone.21", "zone.29"}


@pytest.mark.rule("10.4")
@pytest.mark.parametrize(("roll", "steps_left"), [(1, 3), (4, 3), (5, 2), (6, 1)])
def test_10_4_a_surrounded_unit_loses_steps_breaking_out(book, roll, steps_left) -> None:
    # S1 on the causeway at 2926: its only ways out, 2925 and 2927, are Aztec-held.
    state = split(book, {"S1": "2926", "A11": "2925", "A12": "2927", "A1": "3016"})
    run(state, [3, roll, 5])  # desertion; break-out; a refit roll of 5 changes nothing
    assert state.attribute("S1", "steps") == steps_left
    assert state.place_of("S1") not in ("dead.spanish", "2926")


@pytest.mark.rule("10.4")
def test_10_4_a_failed_break_out_goes_to_the_dead_pile(book) -> None:
    state = split(book, {"S1": "2926", "A11": "2925", "A12": "2927", "A1": "3016"},
                  steps={"S1": 2})
    run(state, [3, 5, 4])  # loses 2 of its 2 steps; then its recovery roll: stays
    assert state.place_of("S1") == "dead.spanish"


def _surrounded(book: cortes_rules.Rulebook, positions: Mapping[str, str]) -> bool:
    state = at_declaration(book, positions)
    return bool(state.evaluate("completely_surrounded(u)", u="S1"))


RING = {"S1": "1110", "A11": "1109", "A12": "1111", "A13": "1010", "A14": "1011",
        "A15": "1210", "A16": "1211"}
XOLOCO = {"S1": "2924", "A11": "2923", "A12": "2925"}


@pytest.mark.rule("10.4")
def test_10_4_completely_surrounded_all_three_readings() -> None:
    # RING: a mainland hex with Aztecs on all six sides. XOLOCO: a causeway hex
    # whose two ways out (2923, 2925) are held; its other neighbours are city
    # hexes it cannot enter across a plain hexside (7.16).
    for reading, ring, xoloco in (("enemy_or_impassable", True, True),
                                  ("six_enemy_hexes", True, False),
                                  ("cut_off", False, True)):
        book = cortes_rules.load("cortes", readings={"completely_surrounded": reading})
        assert _breaks_out(book, RING) is ring, reading
        assert _breaks_out(book, XOLOCO) is xoloco, reading


def _breaks_out(book: cortes_rules.Rulebook, positions: Mapping[str, str]) -> bool:
    """Whether S1 rolls to break out in the withdrawal (10.4)."""
    state = split(book, dict(positions, A1="3016"))
    start = len(state.log)
    run(state, [3, 1], exact=False)
    return any("completely surrounded" in e.text for e in state.log[start:])


@pytest.mark.rule("10.4")
def test_10_4_gunboats_never_roll(book) -> None:
    state = split(book, {"S12": "zone.5", "A11": "zone.9", "A1": "3016"})
    run(state)
    assert state.attribute("S12", "steps") == 2


# ------------------------------------------------------------------ 10.5 and 10.7
@pytest.mark.rule("10.5")
def test_10_5_a_kept_fortress_opens_its_causeway_to_the_mainland(book) -> None:
    positions = {"S1": "3012", "S2": "1110", "A1": "3016"}
    state = split(book, positions)
    run(state, keep=["S1"], picks={"S2": "3010"})
    assert state.place_of("S1") == "3012"      # never left the map
    assert state.place_of("S2") == "3010"      # on the northern causeway
    opened = set(state.evaluate("kept_causeways"))
    assert {"3011", "3010", "3402"} <= {str(h) for h in opened}


@pytest.mark.rule("10.5")
def test_10_5_the_stretch_into_the_city_is_not_opened(book) -> None:
    state = split(book, {"S1": "2925", "S2": "1110", "A1": "3016"})
    run(state, keep=["S1"])
    opened = {str(h) for h in state.evaluate("kept_causeways")}
    assert "2924" not in opened and "2921" not in opened
    # The southern causeway runs on to Acachinango, not to the mainland.
    assert "2926" not in opened


@pytest.mark.rule("10.5")
def test_10_5_acachinango_opens_its_branches(book) -> None:
    state = split(book, {"S1": "2543", "S2": "1110", "A1": "3016"})
    run(state, keep=["S1"])
    opened = {str(h) for h in state.evaluate("kept_causeways")}
    assert {"2443", "1840", "2644", "3943"} <= opened and "2542" not in opened


@pytest.mark.rule("10.5")
def test_10_5_without_keeping_every_unit_withdraws(book) -> None:
    state = split(book, {"S1": "3012", "A1": "3016"})
    legal = texts(state) if not state.is_chance_node() else []
    if state.is_chance_node():
        state.apply("roll 3")
        legal = texts(state)
    assert legal == ["end", "keep S1"]
    state.apply("end")
    run(state)
    assert state.place_of("S1") not in ("3012",) and not state.evaluate(
        "any(h in tenochtitlan where h == p)", p=state.place_of("S1"))


@pytest.mark.rule("10.7")
def test_10_7_spanish_redeploy_outside_the_city_gunboats_on_the_east_edge(book) -> None:
    state = split(book, {"S1": "3012", "S12": "zone.5", "A1": "3016", "A2": "1322"})
    state.apply("roll 3")  # desertion
    state.apply("end")     # keeps nothing
    state.apply("end")     # the Aztec player keeps nothing either (A2 in Chapultepec)
    legal = texts(state)
    hexes = {a.split()[2] for a in legal}
    assert all(a.startswith("redeploy S1 ") for a in legal)
    assert "3012" not in hexes and "2909" not in hexes and "3010" not in hexes
    assert "1110" in hexes and "1322" in hexes   # Chapultepec was given up
    state.apply("redeploy S1 1110")
    assert {a.split()[2] for a in texts(state)} == {
        "zone.7", "zone.11", "zone.15", "zone.21", "zone.29"}


# ------------------------------------------------------------------ 10.6 and 10.8
@pytest.mark.rule("10.6")
def test_10_6_aztecs_may_keep_chapultepec(book) -> None:
    state = split(book, {"S1": "1110", "A1": "3016", "A11": "1322"})
    run(state, keep=["A11"])
    assert state.place_of("A11") == "1322"
    # A1 was withdrawn and placed again; A11 never left, so it was not placed.
    assert any(e.text.startswith("A1 is redeployed") for e in state.log)
    assert not any(e.text.startswith("A11 is redeployed") for e in state.log)


@pytest.mark.rule("10.6")
def test_10_6_aztec_withdrawal_rolls_both_ways() -> None:
    # A11 on the causeway at 2926, both its ways out held by Spanish units.
    default = split(cortes_rules.load("cortes"), {"A11": "2926", "S1": "2927",
                                                  "S2": "2925", "A1": "3016"})
    run(default)
    assert default.attribute("A11", "steps") == 2
    book = cortes_rules.load("cortes", readings={"aztec_withdrawal_rolls": "roll_as_spanish"})
    rolling = split(book, {"A11": "2926", "S1": "2927", "S2": "2925", "A1": "3016"})
    run(rolling, [3, 6, 4])  # desertion; A11 loses 3 of 2 steps; its recovery roll: stays
    assert rolling.place_of("A11") == "dead.aztec"


@pytest.mark.rule("10.8")
def test_10_8_aztec_redeployment_places(book) -> None:
    state = split(book, {"S1": "3012", "A11": "2909", "A12": "zone.9", "Cuauhtemoc": "3016"})
    state.apply("roll 3")
    state.apply("keep S1")  # nothing else to keep on either side: the redeployment follows
    run_to_aztec = texts(state)
    while run_to_aztec[0].split()[1].startswith("S"):
        state.apply(run_to_aztec[0])
        run_to_aztec = texts(state)
    places = {a.split()[2] for a in run_to_aztec}
    unit = run_to_aztec[0].split()[1]
    if unit == "Cuauhtemoc":
        assert all(state.evaluate("p in tenochtitlan", p=p) for p in places)
        state.apply(run_to_aztec[0])
        run_to_aztec = texts(state)
        places = {a.split()[2] for a in run_to_aztec}
    assert "3012" not in places                    # a coastal fortress the Spanish hold
    assert "zone.9" in places and "zone.11" not in places   # never the east edge
    assert "zone.4" not in places and "zone.6" not in places  # within 4 hexes of Tepeyac
    assert "1322" not in places and "1110" not in places


@pytest.mark.rule("10.8")
def test_10_8_cuauhtemoc_goes_back_to_the_city(book) -> None:
    state = split(book, {"S1": "1110", "A1": "3016", "Cuauhtemoc": "2711"})
    played = run(state)
    target = next(a.split()[2] for a in played if a.startswith("redeploy Cuauhtemoc"))
    assert state.evaluate("p in tenochtitlan", p=target)


# ------------------------------------------------------------------ 10.9
@pytest.mark.rule("10.9")
def test_10_9_redeployment_keeps_the_stacking_limits(book) -> None:
    state = split(book, {"S1": "1110", "S30": "1210", "A1": "3016", "A11": "2711", "A12": "2916"})
    state.apply("roll 3")
    state.apply("redeploy S1 1110")
    assert "redeploy S30 1110" not in texts(state)   # allies never with Europeans (6.2)
    state.apply("redeploy S30 1210")
    state.apply("redeploy A1 3016")
    state.apply("redeploy A11 3016")                 # a knight with one regular (6.4)
    assert "redeploy A12 3016" not in texts(state)   # but never two regulars
    assert "redeploy A12 zone.9" in texts(state)     # the lake has no limit (6.5)


# ------------------------------------------------------------------ 10.10
@pytest.mark.rule("10.10")
@pytest.mark.parametrize(("uid", "before", "roll", "after"), [
    ("A11", 1, 2, 2), ("A11", 1, 3, 1),                      # Aztec regular
    ("S30", 1, 1, 2), ("S30", 1, 3, 1),                      # Indian ally regular
    ("S1", 2, 1, 4), ("S1", 3, 1, 4), ("S1", 2, 4, 3), ("S1", 2, 5, 2),  # Spanish
    ("S29", 1, 1, 3), ("S29", 1, 2, 2), ("S29", 1, 6, 1),   # elite ally
    ("A1", 2, 3, 3), ("A1", 2, 4, 2),                        # knight
])
def test_10_10_refit_table(book, uid, before, roll, after) -> None:
    positions = {"S2": "1110", "A2": "3016"}
    positions[uid] = {"A11": "2711", "S30": "1210", "S1": "1212", "S29": "1214", "A1": "2916"}[uid]
    state = split(book, positions, steps={uid: before})
    run(state, [3, roll])
    assert state.attribute(uid, "steps") == after


@pytest.mark.rule("10.10")
def test_10_10_gunboats_refit_in_full_without_a_roll(book) -> None:
    state = split(book, {"S12": "zone.11", "S1": "1110", "A1": "3016"}, steps={"S12": 1})
    run(state, [3])
    assert state.attribute("S12", "steps") == 2


@pytest.mark.rule("10.10")
def test_10_10_the_refit_table_is_in_the_rules(book) -> None:
    assert book.evaluate("cell(refit_table, knight, 3)") == 1
    assert book.evaluate("cell(refit_table, infantry, 1)") == 2
    assert book.evaluate("table_rule(refit_table)") == "10.10"


# ------------------------------------------------------------------ 10.11 and 10.12
@pytest.mark.rule("10.11")
@pytest.mark.parametrize(("uid", "roll", "place", "steps"), [
    ("A11", 1, "map", 2), ("A11", 2, "map", 1), ("A11", 3, "map", 1),
    ("A11", 4, "dead.aztec", None), ("A11", 6, "gone.aztec", None),
    ("S30", 1, "map", 2), ("S30", 5, "dead.spanish", None),
    ("S1", 1, "map", 1), ("S1", 2, "dead.spanish", None), ("S1", 6, "gone.spanish", None),
    ("S29", 1, "map", 1), ("S29", 6, "gone.spanish", None),
])
def test_10_11_dead_pile_recovery(book, uid, roll, place, steps) -> None:
    side = "aztec" if uid.startswith("A") else "spanish"
    state = split(book, {"S2": "1110", "A2": "3016", uid: f"dead.{side}"})
    state.set_attribute(uid, "steps", 0)
    run(state, [3, roll])
    where = state.place_of(uid)
    if place == "map":
        assert where not in (f"dead.{side}", f"gone.{side}", f"withdrawn.{side}")
        assert state.attribute(uid, "steps") == steps
    else:
        assert where == place


@pytest.mark.rule("10.11")
def test_10_11_knights_gunboats_and_cannons_never_return(book) -> None:
    state = split(book, {"S2": "1110", "A2": "3016", "A1": "dead.aztec",
                         "S12": "dead.spanish", "S25": "dead.spanish"})
    run(state, [3])  # no recovery roll for any of them
    assert state.place_of("A1") == "gone.aztec"
    assert state.place_of("S12") == "gone.spanish" and state.place_of("S25") == "gone.spanish"
    # Both piles count for the loss points (5.4).
    assert state.evaluate("loss_points_from_dead_units()") == 2


@pytest.mark.rule("10.12")
def test_10_12_recovered_units_join_redeployed_ones_where_they_can(book) -> None:
    state = split(book, {"S1": "1110", "A1": "3016", "S2": "dead.spanish",
                         "A11": "dead.aztec"})
    state.set_attribute("S2", "steps", 0)
    run(state, [3, 1, 1], picks={"S1": "1110", "A1": "3016"})
    assert state.place_of("S2") == "1110"      # with the redeployed S1
    assert state.place_of("A11") == "3016"     # a knight and one regular may stack


@pytest.mark.rule("10.12")
def test_10_12_elsewhere_when_the_stacking_limits_forbid(book) -> None:
    state = split(book, {"S30": "1110", "A1": "3016", "S31": "dead.spanish"})
    state.set_attribute("S31", "steps", 0)
    run(state, [3, 1], picks={"S30": "1110"})
    assert state.place_of("S31") not in ("1110", "dead.spanish")   # two regulars never stack
    assert state.evaluate("p in spanish_ground()", p=state.place_of("S31"))


# ------------------------------------------------------------------ 10.13
@pytest.mark.rule("10.13")
def test_10_13_the_disease_check_is_a_hook_for_11_10(book) -> None:
    assert book.evaluate("count(rules(disease_check))") == 0
    state = split(book, BASE)
    run(state)
    assert texts(state) == ["play_on", "split"]


@pytest.mark.rule("10.5")
@pytest.mark.parametrize(("fortress", "opened"), [("2514", 15), ("3516", 0)])
def test_10_5_the_western_causeway_and_a_fortress_without_one(book, fortress, opened) -> None:
    state = split(book, {"S1": fortress, "A1": "3016"})
    state.apply("roll 3")
    state.apply("keep S1")
    causeways = {str(h) for h in state.evaluate("kept_causeways")}
    assert len(causeways) == opened
    if opened:
        assert {"2414", "1305"} <= causeways   # from the fortress to Tlacopan


# ------------------------------------------------------------------ interpretations of 10.x
def until_redeploy(state: GameState, uid: str, rolls: Iterable[int] = (), *,
                   keep: Iterable[str] = ()) -> list[str]:
    """Play the interphase under way until ``uid`` is to be placed; return its choices."""
    dice, kept = list(rolls), set(keep)
    while True:
        if state.is_chance_node():
            state.apply(f"roll {dice.pop(0) if dice else 3}")
            continue
        legal = texts(state)
        if legal[0].startswith(f"redeploy {uid} "):
            return legal
        keeps = [a for a in legal if a.startswith("keep ") and a.split()[1] in kept]
        state.apply(keeps[0] if keeps else ("end" if "end" in legal else legal[0]))


@pytest.mark.rule("10.2")
@pytest.mark.rule("7.17")
@pytest.mark.parametrize(("reading", "gone_home"), [("on_the_map", False), ("in_play", True)])
def test_10_2_allies_out_of_play_and_desertion_both_ways(reading: str, gone_home: bool) -> None:
    # Interpretation deserters_on_map: S33 left the map from Tepeyac (7.17).
    book = cortes_rules.load("cortes", readings={"deserters_on_map": reading})
    state = split(book, dict(ALLIES, A11="1322", S33="withdrawn.spanish"))
    run(state, [3], exact=False)          # 3 - 3 for Chapultepec: the regulars desert
    assert state.place_of("S30") == "deserted"
    assert (state.place_of("S33") == "deserted") is gone_home
    assert state.place_of("S32") != "deserted"     # the dead never desert


@pytest.mark.rule("10.7")
@pytest.mark.rule("10.5")
@pytest.mark.parametrize(("reading", "open_to_all"), [("kept_only", False), ("land_hex", True)])
def test_10_7_acachinango_in_the_redeployment_both_ways(reading: str, open_to_all: bool) -> None:
    # Interpretation acachinango_redeployment: 2543 is a fort over the lake.
    book = cortes_rules.load("cortes", readings={"acachinango_redeployment": reading})
    state = split(book, {"S1": "1110", "A1": "3016"})
    choices = until_redeploy(state, "S1")
    assert ("redeploy S1 2543" in choices) is open_to_all
    assert "redeploy S1 1110" in choices
    # Kept under 10.5, it is open to the redeployment under either reading.
    state = split(book, {"S1": "2543", "S2": "1110", "A1": "3016"})
    assert "redeploy S2 2543" in until_redeploy(state, "S2", keep=["S1"])


@pytest.mark.rule("10.8")
def test_10_8_four_hexes_from_tepeyac_both_ways() -> None:
    # Interpretation tepeyac_distance: only hexes exactly four hexes away differ.
    near = "count(h in hexes where near_tepeyac_hex(h))"
    at_four = "count(h in hexes where min(distance(h, t) for t in tepeyac) == 4)"
    within = cortes_rules.load("cortes")
    fewer = cortes_rules.load("cortes", readings={"tepeyac_distance": "less_than_four"})
    assert within.evaluate(at_four) > 0
    assert within.evaluate(near) - fewer.evaluate(near) == within.evaluate(at_four)


@pytest.mark.rule("10.12")
@pytest.mark.parametrize(("reading", "with_kept"), [("redeployed_only", False),
                                                    ("kept_too", True)])
def test_10_12_units_kept_on_the_map_and_recovered_units_both_ways(reading: str,
                                                                   with_kept: bool) -> None:
    # Interpretation recovered_join_kept: S1 stays in Acachinango (10.5), S3
    # is redeployed to 1110, S2 comes back from the dead pile on a 1.
    book = cortes_rules.load("cortes", readings={"recovered_join_kept": reading})
    state = split(book, {"S1": "2543", "S3": "1210", "S2": "dead.spanish", "A1": "3016"})
    state.set_attribute("S2", "steps", 0)
    dice = [3, 1]                            # desertion; S2's recovery
    while True:
        if state.is_chance_node():
            state.apply(f"roll {dice.pop(0)}")
            continue
        legal = texts(state)
        if legal[0].startswith("redeploy S2 "):
            break
        state.apply("keep S1" if "keep S1" in legal else
                    "redeploy S3 1110" if "redeploy S3 1110" in legal else
                    "end" if "end" in legal else legal[0])
    assert set(legal) == {"redeploy S2 1110"} | ({"redeploy S2 2543"} if with_kept else set())
