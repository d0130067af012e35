"""What a counter line prints is declared, not built in (issue 48, item 1).

The language gives a counter line no field but its flags and its side; a
``printed`` declaration (or a ``property``) gives it the rest, and
``rulebook/lib/hex_wargame.rules`` declares the hex wargame's steps, combat
factors and movement allowance itself. Checked here:

- a counter line that writes a word no declaration gives it, or a value of
  the wrong kind, is a diagnostic with file:line:column, a caret at the word
  or the value, and the counter block it is in;
- the bounds a declaration states (``at most``, ``one per``);
- declarations that cannot work (a type that is not a number or a list of
  them, a default that is not one, a word a counter line already means
  something by, ``one per`` or ``filled by`` naming nothing);
- a piece whose line does not write a field prints the type's zero, or the
  declared default; the field is read by its name (``u.max_steps``), not by
  the word it is written with.
"""

from __future__ import annotations

from pathlib import Path

import pytest
from dsl_helpers import CORE_PRELUDE, write

import cortes_rules
from cortes_rules.dsl import ir
from cortes_rules.dsl.diagnostics import Diagnostic
from cortes_rules.loader import check_path, library_path
from cortes_rules.dsl.parse import parse_text

pytestmark = pytest.mark.rule("1.0")

PLAY = '''
rule 2.2 "Playing" {
  summary "A player passes."
  action pass "Pass"
  procedure play(p) {
    choose by p {
      option pass { }
    }
  }
}
'''

FIELDS = '''
rule 3.1 "What a counter prints" {
  summary "A soldier prints his strength, the wounds he can take and his blows, one per wound."
  attribute piece health: int = piece.wounds "wounds the soldier can still take" shown
  printed strength: int "strength"
  printed wounds: int "wounds at full health" written hp at most 9 drawn as dots filled by health
  printed blows: list of int = [1] "blows, one per wound" one per wounds drawn as value
}
'''


def book(tmp_path: Path, lines: str, fields: str = FIELDS) -> Path:
    """The core prelude, the printed fields and a counter block holding ``lines``."""
    counters = 'counters band "The band" {\n' + lines + "}\n"
    return write(tmp_path, "band.rules", CORE_PRELUDE + PLAY + fields + counters)


def only(path: Path) -> Diagnostic:
    diagnostics = check_path(path)
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    return diagnostics[0]


def assert_points_at(diagnostic: Diagnostic, path: Path, line_text: str, at: str,
                     message: str, rule: str = "counters band") -> None:
    """The diagnostic is on the line holding ``line_text``, at ``at`` there, cites
    ``rule`` and says ``message``; it renders with file:line:column and a caret."""
    lines = path.read_text(encoding="utf-8").split("\n")
    number = next(i for i, text in enumerate(lines, 1) if line_text in text)
    column = lines[number - 1].index(at) + 1
    assert message in diagnostic.message, diagnostic.render()
    assert (diagnostic.span.line, diagnostic.span.column) == (number, column), \
        diagnostic.render()
    assert diagnostic.rule == rule
    rendered = diagnostic.render().splitlines()
    assert rendered[0].startswith(f"{diagnostic.span.path}:{number}:{column}: error: ")
    assert rendered[0].endswith(f"[rule {rule}]")
    assert rendered[1] == "    " + lines[number - 1]
    assert rendered[2].index("^") == 4 + column - 1


# ------------------------------------------------------------------ counter lines


def test_a_line_writing_declared_fields_is_clean(tmp_path: Path) -> None:
    path = book(tmp_path, '  counter S1 "Soldier" soldier strength 3 hp 2 blows 2, 1\n')
    assert check_path(path) == []


def test_an_undeclared_field_is_a_diagnostic_with_a_suggestion(tmp_path: Path) -> None:
    line = '  counter S1 "Soldier" soldier strenght 3\n'
    path = book(tmp_path, line)
    assert_points_at(only(path), path, "strenght", "strenght",
                     "unknown counter field 'strenght'; did you mean 'strength'?")


def test_a_word_no_declaration_gives_says_what_would(tmp_path: Path) -> None:
    path = book(tmp_path, '  counter S1 "Soldier" soldier morale 3\n')
    diagnostic = only(path)
    assert_points_at(diagnostic, path, "morale", "morale",
                     "unknown counter field 'morale': no 'printed' or 'property' declaration")
    assert {"strength", "hp", "blows", "side", "flags"} <= set(diagnostic.expected)


def test_a_field_is_written_by_its_word_not_its_name(tmp_path: Path) -> None:
    # `printed wounds ... written hp`: the line writes `hp 2`, never `wounds 2`.
    path = book(tmp_path, '  counter S1 "Soldier" soldier wounds 2\n')
    assert_points_at(only(path), path, "wounds 2", "wounds", "unknown counter field 'wounds'")


def test_the_language_builds_in_no_hex_wargame_field(tmp_path: Path) -> None:
    # Without hex_wargame (or a declaration of its own) a counter line has no steps.
    path = book(tmp_path, '  counter S1 "Soldier" soldier steps 4\n', fields="")
    assert_points_at(only(path), path, "steps 4", "steps", "unknown counter field 'steps'")


@pytest.mark.parametrize("written, at, message", [
    ("strength two", "two", "strength takes a whole number (printed field strength: int), "
                            "not 'two'"),
    ("strength 3, 4", "4", "strength takes a whole number (printed field strength: int), "
                           "not 2 numbers"),
    ("hp 2 blows 2, hard", "hard", "blows takes a list of whole numbers (printed field blows: "
                                   "list of int), not 'hard'"),
])
def test_a_value_of_the_wrong_kind_is_a_diagnostic_at_the_value(
        tmp_path: Path, written: str, at: str, message: str) -> None:
    path = book(tmp_path, f'  counter S1 "Soldier" soldier {written}\n')
    assert_points_at(only(path), path, written, at, message)


def test_a_field_written_twice_is_a_diagnostic(tmp_path: Path) -> None:
    path = book(tmp_path, '  counter S1 "Soldier" soldier strength 3 strength 4\n')
    diagnostic = only(path)
    assert "counter S1 writes strength twice" in diagnostic.message
    assert diagnostic.span.column == path.read_text().split("\n")[-3].rindex("strength") + 1


def test_a_bound_the_declaration_states_is_checked(tmp_path: Path) -> None:
    path = book(tmp_path, '  counter S1 "Soldier" soldier hp 12\n')
    assert_points_at(only(path), path, "hp 12", "12", "counter S1 has hp 12: hp is at most 9")


def test_a_list_one_per_a_number_has_that_many_entries(tmp_path: Path) -> None:
    path = book(tmp_path, '  counter S1 "Soldier" soldier hp 3 blows 2, 1\n')
    assert_points_at(only(path), path, "blows 2, 1", "blows",
                     "counter S1 has hp 3 but blows lists 2 values: one per hp, or none")


def test_a_property_value_is_checked_as_before(tmp_path: Path) -> None:
    fields = FIELDS.replace('  printed strength', '  property rank "Rank" values raw, old\n'
                            '  printed strength')
    path = book(tmp_path, '  counter S1 "Soldier" soldier rank young\n', fields)
    assert_points_at(only(path), path, "rank young", "young", "unknown rank value 'young'")


# ------------------------------------------------------------------ declarations


@pytest.mark.parametrize("declaration, at, message", [
    ('printed brave: bool "Brave"', "bool",
     "printed field 'brave' is bool: a printed field is a whole number (int) or a list of them"),
    ('printed speed: int = none "Speed"', "none",
     "the default of printed field 'speed' is written as a whole number (0)"),
    ('printed speed: int "Speed" written side', "printed",
     "printed field 'speed' may not be written 'side'"),
    ('printed speed: int "Speed" written hp', "printed",
     "printed field 'speed' is written 'hp', as printed field 'wounds' is"),
    ('printed speed: int "Speed" one per wounds', "printed",
     "printed field 'speed' has 'one per': only a list has one entry per something"),
    ('printed shots: list of int "Shots" one per wonds', "printed",
     "unknown printed number 'wonds'; did you mean 'wounds'?"),
    ('printed shots: list of int "Shots" drawn as dots', "printed",
     "printed field 'shots' is a list: only a number is drawn as dots"),
    ('printed speed: int "Speed" drawn as dots filled by helth', "printed",
     "unknown piece attribute 'helth'; did you mean 'health'?"),
    ('printed health: int "Health"', "health",
     "printed field 'health': a piece already has an attribute of that name"),
])
def test_a_declaration_that_cannot_work_is_a_diagnostic(tmp_path: Path, declaration: str,
                                                        at: str, message: str) -> None:
    fields = FIELDS.replace("}\n", f"  {declaration}\n}}\n")
    path = book(tmp_path, '  counter S1 "Soldier" soldier strength 3\n', fields)
    assert_points_at(only(path), path, declaration, at, message, rule="3.1")


# ------------------------------------------------------------------ what a piece prints


def test_a_piece_prints_the_zero_or_the_default_of_what_its_line_omits(
        tmp_path: Path) -> None:
    path = book(tmp_path, '  counter S1 "Soldier" soldier strength 3 hp 2 blows 2, 1\n'
                          '  counter S2 "Recruit" soldier\n')
    state = cortes_rules.load(path).new_game()
    names = ("strength", "wounds", "blows")
    assert [state.evaluate(f"u.{n}", u="S1") for n in names] == [3, 2, (2, 1)]
    # Nothing written: the type's zero, or the declared default ([1] for blows).
    assert [state.evaluate(f"u.{n}", u="S2") for n in names] == [0, 0, (1,)]
    printed = state.observation("red")["pieces"]["S2"]["printed"]
    assert (printed["strength"], printed["wounds"], printed["blows"]) == (0, 0, [1])
    # The observation's printed values follow the declarations' order, then the flags.
    assert list(printed) == ["label", "class", "side", "strength", "wounds", "blows", "flags"]


def test_a_field_is_read_by_its_name_not_by_the_word_it_is_written_with(
        tmp_path: Path) -> None:
    fields = FIELDS.replace("}\n", '  derive piece hurt = piece.hp\n}\n')
    path = book(tmp_path, '  counter S1 "Soldier" soldier hp 2\n', fields)
    [diagnostic] = check_path(path)
    assert "unknown attribute 'hp'" in diagnostic.message


def test_the_hex_wargame_library_declares_its_steps_factors_and_movement() -> None:
    module = parse_text(library_path("hex_wargame").read_text(encoding="utf-8"), "lib")
    declared = {s.name: s for item in module.items if isinstance(item, ir.Rule)
                for s in item.statements if isinstance(s, ir.PrintedDecl)}
    assert {name: (d.word, d.type.name, d.drawn) for name, d in declared.items()} == {
        "max_steps": ("steps", "int", "dots"), "factors": ("combat", "list", "value"),
        "move": ("move", "int", "value")}
    assert declared["max_steps"].filled_by == "steps"
    assert declared["factors"].one_per == "max_steps"
