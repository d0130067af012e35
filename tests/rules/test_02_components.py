"""Section 2: components. The counter mix against the text (2.1, 2.3-2.13),
steps and the dead piles (2.10).

The counter mix is ``rulebook/cortes/counters.rules``: what the text gives
(roster, types, tribes, step counts, lake capability, the one counter of the
2.4 example) is asserted here fact by fact; the rest is our reconstruction,
which the file marks in its notes, and is only held to agree with 2.4.
"""

from __future__ import annotations

import re
from collections import Counter
from fractions import Fraction

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules.dsl import ir
from positions import GARRISON

# Spanish-side units by number (2.6), and the step count 2.10 gives each.
EUROPEAN_LAND = range(1, 12)       # infantry or cavalry commands, 4 steps
GUNBOATS = range(12, 25)           # 2 steps, lake only
CANNONS = range(25, 29)            # no steps
ELITES = (29, 36)                  # 4 steps
TRIBES = {"Te": range(29, 34), "Xo": range(34, 36), "Ti": range(36, 41), "Am": range(41, 43),
          "Ch": range(43, 45), "Hu": range(45, 47), "Ce": range(47, 48), "Co": range(48, 49)}
KNIGHTS = range(1, 11)             # Aztec, 4 steps
WARRIORS = range(11, 54)           # Aztec, 2 steps
NAMES = {  # 2.6: the commander named on each Spanish-side counter
    1: "Jorge de Alvarado", 2: "Badajoz", 3: "Monjaraz", 4: "de Tapia", 5: "Verdugo",
    6: "de Lugo", 7: "Mar", 8: "de Ircio", 9: "Pedro de Alvarado", 10: "Olid",
    11: "Sandoval", 12: "Holgu", 13: "Barba", 14: "Linpias", 15: "Carvajal", 16: "Jaramillo",
    17: "Ruiz", 18: "Caravajal", 19: "Portillo", 20: "Lema", 21: "Nort", 22: "Briones",
    23: "de Auz", 24: "Desconocido"}
KNIGHT_NAMES = ("Tzilacatzin", "Atlixcatzin", "Quetzalatzatin", "Tzayectzin", "Temoctzin",
                "Mayeuatzin", "Tlapanecatli", "Temilotzin", "Coyouuetzin", "Tettlepanquetatzin")


@pytest.fixture(scope="module")
def mix() -> dict[str, ir.CounterDecl]:
    block = _BOOK.program.counters
    assert block is not None
    return {c.id: c for c in block.counters}


def written(c: ir.CounterDecl, word: str) -> tuple[int | str, ...]:
    """The values a counter line writes after ``word`` (hex_wargame's printed fields:
    ``steps``, ``combat``, ``move``), none when it does not write it."""
    return c.given(word) or ()


def steps(c: ir.CounterDecl) -> int | str | None:
    return (written(c, "steps") or (None,))[0]


def factors(c: ir.CounterDecl) -> tuple[int | str, ...]:
    return written(c, "combat")


def move(c: ir.CounterDecl) -> int | str | None:
    return (written(c, "move") or (None,))[0]


def tribe(c: ir.CounterDecl) -> int | str | None:
    return (written(c, "tribe") or (None,))[0]


def printed_counters(c: ir.CounterDecl) -> int:
    """Counters in the box for one line: a four-step unit is two (2.10)."""
    return 2 if steps(c) == 4 else 1


def side_of(c: ir.CounterDecl) -> str | None:
    classes = {d.name: d for d in _BOOK.program.of(ir.ClassDecl)}
    return classes[c.cls].side


# ================================================================ the counter mix
@pytest.mark.rule("2.1")
def test_2_1_the_game_has_128_counters(mix):
    assert sum(printed_counters(c) for c in mix.values()) == 128
    assert len(mix) == 105  # 23 four-step units are one line each for two counters


@pytest.mark.rule("2.1")
def test_2_1_battles_are_settled_with_two_six_sided_dice(game, battle):
    state = game({"S1": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1"])
    state.apply("resolve")
    outcomes = {str(a): p for a, p in state.chance_outcomes()}
    assert set(outcomes) == {f"roll {n}" for n in range(2, 13)}
    assert outcomes["roll 2"] == Fraction(1, 36) and outcomes["roll 7"] == Fraction(6, 36)


@pytest.mark.rule("2.3")
def test_2_3_two_of_the_128_counters_are_markers_the_rest_units(mix):
    markers = [c for c in mix.values() if c.cls == "marker"]
    assert len(markers) == 2
    units = [c for c in mix.values() if c.cls != "marker"]
    assert sum(printed_counters(c) for c in units) == 126


@pytest.mark.rule("2.3")
def test_2_3_counts_per_side_and_class(mix):
    per_side = Counter()
    per_class = Counter()
    for c in mix.values():
        per_side[side_of(c)] += printed_counters(c)
        per_class[c.cls] += 1
    assert per_side == {"spanish": 62, "aztec": 64, None: 2}
    assert per_class["infantry"] + per_class["cavalry"] == 11
    assert (per_class["gunboat"], per_class["cannon"]) == (13, 4)
    assert (per_class["elite_ally"], per_class["regular_ally"]) == (2, 18)
    assert (per_class["knight"], per_class["warrior"]) == (10, 43)
    assert (per_class["cortes"], per_class["cuauhtemoc"], per_class["marker"]) == (1, 1, 2)


@pytest.mark.rule("2.4")
def test_2_4_the_sample_counter_is_unit_29_exactly_as_the_text_gives_it(mix, book):
    s29 = mix["S29"]
    assert (s29.cls, tribe(s29)) == ("elite_ally", "Te")
    assert side_of(s29) == "spanish"
    assert steps(s29) == 4
    assert factors(s29)[0] == 6     # combat factor at full strength
    assert move(s29) == 5           # land movement factor
    assert "lake" in s29.flags     # lake-capable
    state = book.new_game()
    assert state.evaluate("u.combat", u="S29") == 6
    assert state.evaluate("u has lake", u="S29") is True


@pytest.mark.rule("2.4")
def test_2_4_reconstructed_values_agree_with_the_example_and_are_marked(mix):
    # The other elite band is valued like the only counter the text prints.
    assert (steps(mix["S36"]), factors(mix["S36"]), move(mix["S36"])) == \
        (steps(mix["S29"]), factors(mix["S29"]), move(mix["S29"]))
    # Factors fall as steps are lost, one value per step (2.10).
    for c in mix.values():
        assert len(factors(c)) == (steps(c) or 0)
        assert list(factors(c)) == sorted(factors(c), reverse=True), c.id
    notes = " ".join(_BOOK.program.counters.notes)
    assert "Reconstructed" in notes and "2.4" in notes
    assert "which of the European units 1-11 are cavalry" in notes
    assert "which allies are lake-capable" in notes


@pytest.mark.rule("2.5")
def test_2_5_every_unit_belongs_to_one_of_the_two_sides(mix):
    for c in mix.values():
        assert side_of(c) in ({None} if c.cls == "marker" else {"spanish", "aztec"}), c.id
    assert _BOOK.sides == ("spanish", "aztec")


@pytest.mark.rule("2.6")
def test_2_6_spanish_side_roster_by_number(mix):
    spanish = {c.id for c in mix.values() if side_of(c) == "spanish"}
    assert spanish == {"Cortes"} | {f"S{n}" for n in range(1, 49)}
    for n in EUROPEAN_LAND:
        assert mix[f"S{n}"].cls in ("infantry", "cavalry")
    assert all(mix[f"S{n}"].cls == "gunboat" for n in GUNBOATS)
    assert all(mix[f"S{n}"].cls == "cannon" for n in CANNONS)
    for n in range(29, 49):
        assert mix[f"S{n}"].cls == ("elite_ally" if n in ELITES else "regular_ally"), n
    for n, name in NAMES.items():
        assert name in mix[f"S{n}"].label, (n, mix[f"S{n}"].label)


@pytest.mark.rule("2.6")
def test_2_6_aztec_roster_by_number(mix):
    aztec = {c.id for c in mix.values() if side_of(c) == "aztec"}
    assert aztec == {"Cuauhtemoc"} | {f"A{n}" for n in range(1, 54)}
    for n, name in zip(KNIGHTS, KNIGHT_NAMES, strict=True):
        assert mix[f"A{n}"].cls == "knight" and name in mix[f"A{n}"].label
    assert all(mix[f"A{n}"].cls == "warrior" for n in WARRIORS)
    assert mix["Cuauhtemoc"].cls == "cuauhtemoc" and mix["Cortes"].cls == "cortes"


@pytest.mark.rule("2.7")
def test_2_7_every_ally_has_its_tribe_and_nobody_else_has_one(mix):
    for name, numbers in TRIBES.items():
        for n in numbers:
            assert tribe(mix[f"S{n}"]) == name, n
    for c in mix.values():
        if c.cls not in ("elite_ally", "regular_ally"):
            assert tribe(c) is None, c.id


@pytest.mark.rule("2.7")
def test_2_7_the_tribe_is_read_by_the_stacking_rules(book):
    state = book.new_game()
    assert state.evaluate("u.tribe", u="S30") == state.evaluate("u.tribe", u="S29")
    assert state.evaluate("u.tribe", u="S36") != state.evaluate("u.tribe", u="S29")
    # Two tribes in one hex break 6.3 at the start.
    with pytest.raises(cortes_rules.StartError) as caught:
        book.new_game(positions={"S29": "1110", "S36": "1110"})
    assert "6.3" in {rule for rule, _ in caught.value.reasons}
    book.new_game(positions={"S29": "1110", "S30": "1110"})  # one tribe: fine


@pytest.mark.rule("2.8")
def test_2_8_unit_types_give_side_and_traits(book):
    state = book.new_game()
    european = ["Cortes", "S1", "S9", "S12", "S25"]
    allies = ["S29", "S30"]
    assert all(state.evaluate("u is european", u=u) for u in european)
    assert not any(state.evaluate("u is ally", u=u) for u in european)
    assert all(state.evaluate("u is ally", u=u) for u in allies)
    assert all(state.evaluate("u is leader", u=u) for u in ("Cortes", "Cuauhtemoc"))
    assert not state.evaluate("u is leader", u="A1")


@pytest.mark.rule("2.14")
def test_2_14_spanish_means_cortes_and_units_1_28_allies_units_29_48(book):
    state = book.new_game()
    european = {u for u in book.unit_ids if state.evaluate("u is european", u=u)}
    allies = {u for u in book.unit_ids if state.evaluate("u is ally", u=u)}
    assert european == {"Cortes"} | {f"S{n}" for n in range(1, 29)}
    assert allies == {f"S{n}" for n in range(29, 49)}
    aztec = {u for u in book.unit_ids if state.evaluate("u.side == aztec", u=u)}
    assert aztec == {"Cuauhtemoc"} | {f"A{n}" for n in range(1, 54)}


@pytest.mark.rule("2.9")
def test_2_9_the_combat_factor_is_what_a_unit_attacks_and_defends_with(game, battle):
    state = game({"S1": "1110", "S9": "1110", "A1": "1111"}, phase="spanish_land_combat",
                 steps={"S1": 2, "A1": 3})
    battle(state, "1111", ["S1", "S9"])
    state.apply("resolve")
    odds = [e for e in state.log if "attack " in e.text and "defense " in e.text][-1]
    # S1 at 2 steps (4) + S9 at full strength (6); A1 at 3 steps (5).
    assert "attack 10, defense 5" in odds.text
    assert state.evaluate("u.combat", u="S1") == 4
    assert state.evaluate("u.combat", u="A1") == 5


@pytest.mark.rule("2.10")
def test_2_10_step_counts_are_the_texts(mix):
    four = {f"S{n}" for n in (*EUROPEAN_LAND, *ELITES)} | {f"A{n}" for n in KNIGHTS}
    for c in mix.values():
        if c.id in four:
            assert steps(c) == 4, c.id
        elif c.cls in ("cannon", "cortes", "cuauhtemoc", "marker"):
            assert steps(c) == 0 and factors(c) == (), c.id
        else:
            assert steps(c) == 2, c.id


@pytest.mark.rule("2.10")
def test_2_10_every_unit_starts_at_full_strength(book):
    state = book.new_game(setup="historical")
    for unit in book.unit_ids:
        assert state.attribute(unit, "steps") == state.evaluate("u.max_steps", u=unit), unit


@pytest.mark.rule("2.11")
def test_2_11_the_movement_factor_is_the_points_a_unit_may_spend(game, book):
    state = game({**GARRISON, "A11": "1110"}, phase="aztec_land_movement")
    allowance = state.evaluate("u.move", u="A11")
    assert allowance == 4
    path = ["1111", "1112", "1113", "1114", "1115"]
    for hex_id in path[:allowance]:  # clear hexes: 1 MP each
        state.apply(f"move A11 {hex_id}")
    assert state.attribute("A11", "spent") == allowance
    assert state.why_illegal(f"move A11 {path[allowance]}")


@pytest.mark.rule("2.12")
def test_2_12_who_may_move_on_the_lake(mix):
    for c in mix.values():
        lake = "lake" in c.flags
        if side_of(c) == "aztec" or c.cls == "gunboat":
            assert lake, c.id
        elif c.cls in ("infantry", "cavalry", "cannon", "cortes", "marker"):
            assert not lake, c.id
    assert "lake" in mix["S29"].flags  # the 2.4 example


@pytest.mark.rule("2.12")
def test_2_12_gunboats_never_move_on_land(game):
    state = game({"S12": "1110"})
    assert state.why_illegal("move S12 1111")


@pytest.mark.rule("2.12")
def test_2_12_the_zones_closed_to_aztec_units_are_the_maps_east_edge(book):
    # Zones are not places of the game yet: the ban is held in the map data
    # (``zones east_edge``), and the clause names the same five zones.
    east = set(book.program.map.zone_groups["east_edge"][1])
    assert east == {7, 11, 15, 21, 29}
    summary = book.rule("2.12").summary
    named = {int(n) for n in re.findall(r"\b(\d+)\b", summary.split("lake zones", 1)[1])}
    assert named == east


@pytest.mark.rule("2.13")
def test_2_13_two_markers_of_no_side_off_the_map(mix, book):
    markers = [c for c in mix.values() if c.cls == "marker"]
    assert [c.id for c in markers] == ["Marker1", "Marker2"]
    assert all("sacrifice" in c.label.lower() and "desecration" in c.label.lower() for c in markers)
    state = book.new_game(setup="historical")
    for c in markers:
        assert state.place_of(c.id) is None
        assert state.evaluate("u.side", u=c.id) is None
        assert state.evaluate("u is marker", u=c.id)
    assert not any(state.evaluate("u is marker", u=u) for u in book.unit_ids
                   if not u.startswith("Marker"))


def _eliminate_a11(game, battle, resolve):
    state = game({"S1": "1110", "S9": "1110", "A11": "1111"}, phase="spanish_land_combat")
    battle(state, "1111", ["S1", "S9"])
    resolve(state, 12)            # 0/4 at the final column: A11 loses both steps
    while state.current_player == "aztec":
        state.apply("lose A11")
    return state


@pytest.mark.rule("2.10")
def test_2_10_each_side_has_a_dead_pile_and_a_box_for_units_gone_for_good(book):
    assert {"dead.spanish", "dead.aztec", "gone.spanish", "gone.aztec"} <= set(book.place_ids)
    state = book.new_game()
    assert state.evaluate("p.kind", p="dead.spanish") == "pool"
    assert state.evaluate("p.kind", p="1110") == "hex"


@pytest.mark.rule("2.10")
def test_2_10_a_unit_losing_its_last_step_goes_to_its_dead_pile(game, battle, resolve):
    state = _eliminate_a11(game, battle, resolve)
    assert state.place_of("A11") == "dead.aztec"
    assert "A11" not in state.pieces_at("1111")
    assert state.attribute("A11", "steps") == 0
    eliminated = [e for e in state.log if "A11 loses a step and is eliminated" in e.text]
    assert eliminated and "2.10" in eliminated[-1].rules


@pytest.mark.rule("2.10")
def test_2_10_units_in_a_dead_pile_take_no_part_in_play(game, battle, resolve):
    state = _eliminate_a11(game, battle, resolve)
    assert state.evaluate("on_map(u)", u="A11") is False
    assert state.evaluate("on_map(u)", u="S1") is True
    assert "A11" not in [str(u) for u in state.evaluate("own_units(s)", s="aztec")]
    assert state.why_illegal("move A11 1111")


@pytest.mark.rule("6.7")
def test_6_7_units_removed_from_an_overstack_go_to_their_dead_pile(book):
    state = book.new_game(positions={"S3": "1110", "S29": "1111", "S30": "1111"})
    state.apply("move S29 1110")
    state.apply("move S30 1110")
    state.apply("end")
    state.apply("remove S3")
    assert state.place_of("S3") == "dead.spanish"


@pytest.mark.rule("2.10")
@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 2**32 - 1))
def test_2_10_no_unit_ever_has_more_steps_than_it_started_with(seed):
    # Property over random play from the demonstration set-up: every unit
    # is in exactly one place, never above its starting steps, and a unit
    # with no steps left is never on the map.
    book = _BOOK
    state = book.new_game(setup="demo", seed=seed, turn_limit=2)
    start = {u: state.attribute(u, "steps") for u in book.unit_ids}
    plies = 0
    while not state.is_terminal() and plies < 150:
        if state.is_chance_node():
            state.apply_chance()
        else:
            ids = state.legal_action_ids()
            state.apply(ids[(seed + plies * 7919) % len(ids)])
        plies += 1
        for unit in book.unit_ids:
            steps = state.attribute(unit, "steps")
            assert steps <= start[unit]
            place = state.place_of(unit)
            if place is not None and not place.startswith(("dead.", "gone.")):
                assert steps > 0 or start[unit] == 0


_BOOK = cortes_rules.load("cortes")
