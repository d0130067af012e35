"""The checker: every problem of a rulebook, each at its place, with its rule number.

Known-bad snippets are appended to a clean rulebook (``PRELUDE``, which uses
the hex_wargame library, or ``CORE_PRELUDE``, which uses none) and must give
exactly one diagnostic, at the given place, with the given message. Then the
scope rules the checker follows (what a forbid clause, a contribution to a
hook, a function or a procedure may name), the diagnostics' rendering, and
the checker's speed on the Cortés rulebook.
"""

from __future__ import annotations

import time
from pathlib import Path

import pytest
from dsl_helpers import CORE_PRELUDE, PRELUDE, SHIPPED, cli, one_rule, place_of, write

from cortes_rules.dsl import ir
from cortes_rules.dsl.check import check
from cortes_rules.dsl.diagnostics import Diagnostic, Span
from cortes_rules.dsl.lower import lower
from cortes_rules.errors import RulesCheckError
from cortes_rules.loader import check_path, compile_rulebook, parse_files, rule_files

# (rule, statement, where the caret goes, message substring): after PRELUDE.
HEX_SNIPPETS = [
    # symbols after is / has
    pytest.param("7.10", "forbid move when to has forest", "forest",
                 "unknown symbol 'forest' after 'has'", id="unknown-terrain"),
    pytest.param("7.13", "forbid move when unit is lancer", "lancer",
                 "unknown symbol 'lancer' after 'is'", id="unknown-class"),
    # conditions that never hold
    pytest.param("7.13", "forbid move when unit is knight and unit is cavalry", "unit is knight",
                 "this condition is always false", id="classes-of-two-sides"),
    pytest.param("7.13", "forbid move when unit is spanish and unit is knight", "unit is spanish",
                 "this condition is always false", id="side-and-class-disagree"),
    pytest.param("8.12", "shift 1 left when 2 == 3", "2 == 3",
                 "this condition is always false", id="false-comparison"),
    # attributes, tables
    pytest.param("7.1", "forbid move when unit.hex.height > 1", "unit.hex.height",
                 "unknown attribute 'height'", id="unknown-attribute"),
    pytest.param("7.1", "forbid move when cost > unit.movement - unit.spent", "unit.movement",
                 "unknown attribute 'movement'; did you mean 'move'", id="attribute-suggestion"),
    pytest.param("7.7", "cost move = terrain_effects[forest].move", "forest",
                 "unknown row of table terrain_effects 'forest'", id="unknown-table-row"),
    pytest.param("7.7", "cost move = terrain_effects[clear].cost", "terrain_effects[clear].cost",
                 "unknown column of table terrain_effects 'cost'", id="unknown-table-column"),
    # names in forbid clauses: what the options of the action kind bind
    pytest.param("7.1", "forbid move when cost > unit.move - spnt", "spnt",
                 "unknown name 'spnt': not declared, and bound by no 'move' option",
                 id="unknown-name-in-forbid"),
    pytest.param("7.16", "forbid attack when crossing has causeway", "crossing",
                 "unknown name 'crossing': not declared, and bound by no 'attack' option",
                 id="name-bound-for-another-action"),
    pytest.param("8.1", "forbid attack when unit.side != side", "unit",
                 "unknown name 'unit': not declared, and bound by no 'attack' option",
                 id="no-unit-when-attacking"),
    pytest.param("7.1", "forbid movement when unit.spent > 0", "forbid",
                 "forbid movement: no 'action movement' declares this kind of action; "
                 "did you mean 'move'", id="forbid-of-undeclared-action"),
    pytest.param("7.3", "permit mov despite 7.1 when unit.moved == 0", "permit",
                 "permit mov: no 'action mov' declares this kind of action; did you mean 'move'",
                 id="permit-of-undeclared-action"),
    pytest.param("7.3", "permit move despite 7.2 when unit.moved == 0", "permit",
                 "permit despite 7.2: that rule forbids no move action", id="permit-lifts-nothing"),
    # names in contributions: what is bound where the hook is read
    pytest.param("6.2", "stacking for tlaxcala requires count(units) <= 5", "stacking",
                 "unknown name 'tlaxcala': not declared, and not bound where hook stacking_limit "
                 "is read", id="unknown-stacking-side"),
    pytest.param("8.9", "odds when attack >= defence: floor(attack / defense) to 1", "defence",
                 "unknown name 'defence': not declared, and not bound where hook odds_ratio is "
                 "read; did you mean 'defense'", id="unknown-name-in-contribution"),
    pytest.param("7.7", "contribute move_costs = 1", "contribute",
                 "contribution to hook 'move_costs', which no 'hook' declares; "
                 "did you mean 'move_cost'", id="contribution-to-undeclared-hook"),
    # functions
    pytest.param("8.9", "define combat strength = total(u.combat for u in attackers)", "total",
                 "unknown function 'total'", id="unknown-function"),
    pytest.param("8.4", "define combat near = adjacent(target)", "adjacent",
                 "adjacent takes 2 argument(s), not 1", id="builtin-arity"),
    pytest.param("8.17", "define combat column = odds_column(1)", "odds_column",
                 "function odds_column takes 2 argument(s), not 1", id="function-arity"),
    pytest.param("8.9", "define combat low = floor(u in attackers where u.steps > 1)", "floor",
                 "floor(...) does not take 'x in S'", id="comprehension-of-a-plain-builtin"),
    pytest.param("8.9", "define combat text = ratio_text(u in attackers where u.steps > 1)",
                 "ratio_text", "ratio_text is a function of the rulebook: it takes plain "
                 "arguments", id="comprehension-of-a-rule-function"),
    pytest.param("8.9", "define combat chances = distribution(attackers)", "distribution",
                 "distribution(...) takes 'E for x in S'", id="distribution-of-a-list"),
    pytest.param("8.9", "define combat text = ratio_text", "ratio_text",
                 "ratio_text is a function of 1 argument(s): write ratio_text(...)",
                 id="function-named-without-arguments"),
    pytest.param("8.9", "define combat cited = rules(attackers)", "rules",
                 "rules(...) takes the name of a hook, not attackers", id="rules-of-no-hook"),
    pytest.param("8.4", 'define combat may = allowed("mov")', '"mov"',
                 "unknown action 'mov'; did you mean 'move'", id="allowed-unknown-kind"),
    pytest.param("8.9", "define combat attack_total = sum(u.combat for u in attacker)",
                 "attacker)", "unknown name 'attacker': not declared, and bound nowhere in the "
                 "rulebook (no clause calls function attack_total); did you mean 'attackers'",
                 id="unknown-name-in-an-uncalled-function"),
    # declarations
    pytest.param("8.18", "dice two_dice = 2d0", "dice",
                 "dice two_dice = 2d0: a rule may roll 1 to 100 dice of 1 to 1000 faces",
                 id="dice-without-faces"),
    pytest.param("8.18", "dice heap = 99999999999d99999999999", "dice",
                 "a rule may roll 1 to 100 dice of 1 to 1000 faces", id="too-many-dice"),
    pytest.param("8.18", "dice big = 1d1001", "dice",
                 "a rule may roll 1 to 100 dice of 1 to 1000 faces", id="too-many-faces"),
    pytest.param("2.9", 'class lancer "Lancer" side tlaxcala', "class",
                 "unknown side 'tlaxcala'", id="class-of-unknown-side"),
    pytest.param("8.1", 'action charge(unit: troop) "Charge"', "unit: troop",
                 "unknown action parameter type 'troop'", id="action-parameter-type"),
    pytest.param("8.9", "value attack: int = 0", "value",
                 "value 'attack': the name is already declared as a function",
                 id="value-named-like-a-function"),
    pytest.param("7.7", 'hook move_cost: int "Again"', "hook",
                 "hook 'move_cost' is declared twice", id="hook-declared-twice"),
    pytest.param("4.3", 'sequence other {\n    phase extra "Extra" by spanish\n  }', "sequence",
                 "only one turn sequence may be declared", id="second-sequence"),
    # procedures
    pytest.param("4.5", "procedure p(side) {\n    break\n  }", "break",
                 "'break' outside a loop", id="break-outside-loop"),
    pytest.param("4.5", "procedure p(side) {\n    if true { continue }\n  }", "continue",
                 "'continue' outside a loop", id="continue-outside-loop"),
    pytest.param("4.5", "procedure p(side) {\n    call begin_phse()\n  }", "call",
                 "unknown procedure 'begin_phse'; did you mean 'begin_phase'",
                 id="unknown-procedure"),
    pytest.param("4.5", "procedure p(side) {\n    call battle(side)\n  }", "call",
                 "procedure battle takes 2 argument(s), not 1", id="procedure-arity"),
    pytest.param("4.5", "procedure p(side) {\n    call ratio_text(side)\n  }", "call",
                 "unknown procedure 'ratio_text'; ratio_text is a function: use it in an "
                 "expression", id="function-called-as-a-procedure"),
    pytest.param("4.5", "procedure p(side) {\n    let x = battle(side, side)\n  }", "battle(",
                 "battle is a procedure: use 'call battle(...)' as a statement",
                 id="procedure-used-as-a-function"),
    pytest.param("4.5", "procedure p(side) {\n    choose by side {\n      option retreat { }\n"
                 "    }\n  }", "option", "option 'retreat': no 'action retreat' declares this "
                 "kind of action", id="option-of-undeclared-action"),
    pytest.param("4.5", "procedure p(side) {\n    choose by side {\n      option move(unit in "
                 "pieces) { }\n    }\n  }", "option", "option 'move' has 1 parameter(s), but the "
                 "action move takes 2", id="option-parameter-count"),
    pytest.param("4.5", "procedure p(side) {\n    set total = 1\n  }", "total",
                 "'set total': 'total' is neither a variable of this procedure nor a declared "
                 "value", id="set-of-an-unknown-variable"),
    pytest.param("4.5", "procedure p(side) {\n    set side.score = 1\n  }", "side.score",
                 "'set side.score': 'score' is not a declared attribute", id="set-of-undeclared"),
    pytest.param("4.5", "procedure p(side) {\n    for each u in pieces { set u.hex = none }\n  }",
                 "u.hex", "'set u.hex': 'hex' is a derived attribute", id="set-of-derived"),
    pytest.param("4.5", "procedure p(side) {\n    let a = b + 1\n    let b = 1\n  }", "b + 1",
                 "unknown name 'b'", id="used-before-bound"),
    pytest.param("4.5", "procedure p(side) {\n    let n = count(u in pieces where u.moved > 0) "
                 "+ u.moved\n  }", ("+ ", "u.moved"), "unknown name 'u'",
                 id="binder-outside-its-comprehension"),
    pytest.param("4.5", 'procedure p(side) {\n    choose by side {\n      option end { log "{unit}'
                 ' waits" }\n      option join(unit in pieces) { }\n    }\n  }', "unit}",
                 "unknown name 'unit'", id="option-parameter-outside-its-option"),
    pytest.param("4.5", 'procedure p(side) {\n    log "{side} ends {phase_name}"\n  }',
                 "phase_name", "unknown name 'phase_name'", id="unknown-name-in-log-text"),
    pytest.param("4.5", 'procedure p(side) {\n    log "{side.scor}"\n  }', "side.scor",
                 "unknown attribute 'scor'", id="unknown-attribute-in-log-text"),
    pytest.param("4.5", 'procedure p(side) {\n    finish winner side "{winner} wins"\n  }',
                 "winner}", "unknown name 'winner'", id="unknown-name-in-finish-text"),
]


def _marked(params: list[object]) -> list[object]:
    return [pytest.param(*p.values, marks=pytest.mark.rule(p.values[0]), id=p.id)
            for p in params]


def diagnostics_of(tmp_path: Path, text: str) -> list[Diagnostic]:
    return check_path(write(tmp_path, "snippet.rules", text))


def one_diagnostic(tmp_path: Path, prelude: str, rule: str, statement: str,
                   at: str | tuple[str, str], message: str) -> Diagnostic:
    text = prelude + "\n" + one_rule(rule, statement)
    diagnostics = diagnostics_of(tmp_path, text)
    assert len(diagnostics) == 1, "\n".join(d.render() for d in diagnostics)
    [diagnostic] = diagnostics
    assert (diagnostic.span.line, diagnostic.span.column) == place_of(prelude + "\n", statement,
                                                                      at)
    assert message in diagnostic.message, diagnostic.render()
    assert diagnostic.rule == rule
    assert diagnostic.severity == "error"
    line = text.splitlines()[diagnostic.span.line - 1]
    assert diagnostic.source_line == line
    return diagnostic


@pytest.mark.parametrize("rule, statement, at, message", _marked(HEX_SNIPPETS))
def test_hex_wargame_snippet(tmp_path: Path, rule: str, statement: str,
                             at: str | tuple[str, str], message: str) -> None:
    one_diagnostic(tmp_path, PRELUDE, rule, statement, at, message)


# A turn procedure for CORE_PRELUDE (its sequence does `play`).
PLAY = '''action take(piece: piece) "Take a piece from the reserve"
  action pass "Pass"
  procedure play(p) {
    loop {
      choose by p {
        option take(piece in reserve[p].pieces) with home = piece.place where not piece.moved {
          set piece.moved = true
          log "{p} takes {piece} from {home}" cite "2.2"
        }
        option pass { break }
      }
    }
  }'''

CORE_SNIPPETS = [
    pytest.param("2.3", "forbid take when piece.moved and home == reserv",
                 "reserv", "unknown name 'reserv': not declared, and bound by no 'take' option nor "
                 "'allowed(\"take\")'; did you mean 'reserve'", id="forbid-name-suggestion"),
    pytest.param("2.3", "forbid pass when piece.moved", "piece",
                 "unknown name 'piece': not declared, and bound by no 'pass' option",
                 id="forbid-of-a-kind-without-parameters"),
    pytest.param("2.3", "function bonus(q) = q.score + 1\n  hook bonuses: int \"Bonuses\"\n"
                 "  contribute bonuses = bonus(p, 1)", "bonus(p", "function bonus takes 1 "
                 "argument(s), not 2", id="rule-function-arity"),
]


@pytest.mark.parametrize("rule, statement, at, message", _marked(CORE_SNIPPETS))
def test_core_snippet(tmp_path: Path, rule: str, statement: str, at: str | tuple[str, str],
                      message: str) -> None:
    prelude = CORE_PRELUDE + "\n" + one_rule("2.2", PLAY, "Playing")
    one_diagnostic(tmp_path, prelude, rule, statement, at, message)


# ------------------------------------------------------------------ clean rulebooks and scopes


@pytest.mark.rule("2.5")
def test_prelude_is_clean(tmp_path: Path) -> None:
    assert diagnostics_of(tmp_path, PRELUDE) == []


@pytest.mark.rule("2.2")
def test_core_prelude_with_a_turn_is_clean(tmp_path: Path) -> None:
    assert diagnostics_of(tmp_path, CORE_PRELUDE + one_rule("2.2", PLAY)) == []


@pytest.mark.rule("2.2")
def test_shipped_core_fixtures_are_clean() -> None:
    for path in sorted((SHIPPED.parents[1] / "tests" / "fixtures" / "core").glob("*.rules")):
        assert check_path(path) == [], path.name


@pytest.mark.rule("7.16")
def test_forbid_sees_what_the_options_of_its_kind_bind(tmp_path: Path) -> None:
    # `crossing` and `cost` are `with` bindings of the move option, `side` the
    # movement procedure's parameter.
    clause = one_rule("7.16", "forbid move when crossing has causeway and cost > 2 and "
                      "side == aztec")
    assert diagnostics_of(tmp_path, PRELUDE + clause) == []


@pytest.mark.rule("2.3")
def test_forbid_sees_what_allowed_binds(tmp_path: Path) -> None:
    # `limit` is bound only where may_take() asks allowed("take"): that is enough.
    clause = one_rule("2.3", 'forbid take when piece.moved and limit < 1\n'
                      '  function may_take(piece, limit) = allowed("take")\n'
                      '  procedure check(p) {\n'
                      '    for each x in pieces { if may_take(x, 2) { log "{x} may be taken" } }\n'
                      '  }')
    text = CORE_PRELUDE + one_rule("2.2", PLAY) + clause
    assert diagnostics_of(tmp_path, text) == []
    unbound = text.replace("limit < 1", "limt < 1")
    [diagnostic] = diagnostics_of(tmp_path, unbound)
    assert "unknown name 'limt'" in diagnostic.message
    assert "did you mean 'limit'" in diagnostic.message


@pytest.mark.rule("6.2")
def test_contribution_sees_where_its_hook_is_read(tmp_path: Path) -> None:
    # stacking_limit is read by broken_limits(hex, side, units): `units` is bound there.
    clause = one_rule("6.2", "stacking for spanish requires count(units) <= 5 and hex != none")
    assert diagnostics_of(tmp_path, PRELUDE + clause) == []


@pytest.mark.rule("8.11")
def test_function_sees_the_union_of_its_call_sites(tmp_path: Path) -> None:
    clause = one_rule("2.3", 'function described() = str(first_name) + str(second_name)\n'
                      '  procedure one(p) {\n    let first_name = 1\n    log "{described}"\n  }\n'
                      '  procedure two(p) {\n    let second_name = 2\n'
                      '    log "{described}"\n  }')
    text = CORE_PRELUDE + one_rule("2.2", PLAY) + clause
    assert diagnostics_of(tmp_path, text) == []
    [diagnostic] = diagnostics_of(tmp_path, text.replace("str(second_name)", "str(third_name)"))
    assert diagnostic.message.startswith("unknown name 'third_name': not declared, and bound "
                                         "neither by function described nor where it is called")


@pytest.mark.rule("2.2")
def test_procedure_scopes(tmp_path: Path) -> None:
    clause = one_rule("2.3", '\n'.join([
        "procedure tour(p) {",
        "    choose sealed by each q in players {",
        '      option pass { log "{q} passes" }',
        "    }",
        "    if p == red { let chosen = 1 } else { let chosen = 2 }",
        "    roll r = d6",
        "    draw card from reserve[p]",
        '    log "{p}: {chosen}, {r}, {card}, {card.moved}, {p.score}"',
        "    for each x in pieces where x.moved { set x.moved = false }",
        "    while r > 0 { set r = r - 1 }",
        "    set p.score = p.score + 1",
        "  }"]))
    assert diagnostics_of(tmp_path, CORE_PRELUDE + one_rule("2.2", PLAY) + clause) == []


@pytest.mark.rule("4.2")
def test_a_phase_procedure_takes_at_most_the_phasing_player(tmp_path: Path) -> None:
    text = CORE_PRELUDE + one_rule("2.2", PLAY.replace("procedure play(p)",
                                                         "procedure play(p, q)"))
    [diagnostic] = diagnostics_of(tmp_path, text)
    assert diagnostic.message == ("procedure play takes 2 arguments, but a phase gives it one "
                                  "(the player whose phase it is)")
    assert diagnostic.rule == "2.1"


@pytest.mark.rule("lib:helpers")
def test_a_mechanism_block_needs_a_summary(tmp_path: Path) -> None:
    text = 'mechanism helpers "Helpers" {\n  function twice(x) = 2 * x\n}\n'
    [diagnostic] = diagnostics_of(tmp_path, text)
    assert diagnostic.message == "mechanism block helpers has no summary"
    assert diagnostic.rule == "lib:helpers"
    assert (diagnostic.span.line, diagnostic.span.column) == (1, 1)


@pytest.mark.rule("9.1")
def test_a_form_hole_its_statements_never_use_is_a_warning(tmp_path: Path) -> None:
    text = PRELUDE + one_rule("9.1", 'hook bonus: int "A bonus"\n'
                              '  form bonus "bonus {n:int} {way:up|down} when {c:expr}" '
                              '{ contribute bonus = n }')
    [diagnostic] = diagnostics_of(tmp_path, text)
    assert diagnostic.severity == "warning"
    assert diagnostic.message == ("form bonus: the hole {c:expr} is not used by its statements, "
                                  "so what a clause writes there is ignored")
    assert diagnostic.rule == "9.1"
    # A warning does not stop the load.
    program, warnings = compile_rulebook(write(tmp_path, "snippet.rules", text))
    assert warnings == [diagnostic] and "9.1" in program.rules


@pytest.mark.rule("game skirmish")
def test_procedures_need_a_turn_sequence(tmp_path: Path) -> None:
    text = CORE_PRELUDE.replace("does play", "does play") + one_rule("2.2", PLAY)
    no_sequence = text[:text.index('rule 2.1')] + text[text.index('rule 2.2'):]
    [diagnostic] = diagnostics_of(tmp_path, no_sequence)
    assert diagnostic.message.startswith("procedures are declared but no rule states the turn "
                                         "sequence")
    assert diagnostic.rule == "game skirmish"
    assert (diagnostic.span.line, diagnostic.span.column) == (1, 1)


@pytest.mark.rule("counters more")
def test_second_counters_block_is_reported(tmp_path: Path) -> None:
    text = PRELUDE + '''
counters mix "The counter mix" {
  counter S1 "Spanish infantry" infantry steps 2 combat 3, 2 move 5
}

counters more "More counters" {
  counter S2 "Lancers" lancer steps 2 combat 3 move 6
}
'''
    [diagnostic] = diagnostics_of(tmp_path, text)
    line = text.splitlines().index('counters more "More counters" {') + 1
    assert (diagnostic.span.line, diagnostic.span.column) == (line, 1)
    assert diagnostic.message.startswith("a second counters block")
    assert diagnostic.rule == "counters more"


@pytest.mark.rule("setup start")
def test_set_up_places_pieces_in_pools_and_areas(tmp_path: Path) -> None:
    text = CORE_PRELUDE + one_rule("2.2", PLAY) + '''
map field "A field" {
  area hill "Hill"
  area ford "Ford"
  adjacent hill: ford
}

counters soldiers "Soldiers" {
  counter R1 "Red soldier" soldier
  counter B1 "Blue soldier" soldier
}

setup start "The start" {
  place R1 at reserve.red
  place B1 at hil
}
'''
    [diagnostic] = diagnostics_of(tmp_path, text)
    assert diagnostic.message.startswith("unknown place 'hil'; did you mean 'hill'")
    assert diagnostic.rule == "setup start"


@pytest.mark.rule("7.10")
def test_unknown_symbol_suggests_a_close_one(tmp_path: Path) -> None:
    [diagnostic] = diagnostics_of(tmp_path, PRELUDE + one_rule(
        "7.10", "forbid move when to has quagmir"))
    assert diagnostic.message == "unknown symbol 'quagmir' after 'has'; did you mean 'quagmire'?"
    assert diagnostic.expected == ()


# ------------------------------------------------------------------ the caret format


@pytest.mark.rule("8.14")
def test_render_exact_format() -> None:
    diagnostic = Diagnostic(Span("cortes/08-combat.rules", 3, 11, 14), "unexpected 'lef'",
                            rule="8.14", expected=("left or right",),
                            source_line="  shift 3 lef when target has major_fortress")
    assert diagnostic.render() == (
        "cortes/08-combat.rules:3:11: error: unexpected 'lef' [rule 8.14]\n"
        "      shift 3 lef when target has major_fortress\n"
        "              ^^^\n"
        "  expected: left or right")


@pytest.mark.rule("8.14")
def test_render_without_rule_source_or_end() -> None:
    bare = Diagnostic(Span("x.rules", 2, 5), "something is wrong")
    assert bare.render() == "x.rules:2:5: error: something is wrong"
    one = Diagnostic(Span("x.rules", 2, 5), "m", rule="8.14", source_line="abcdefgh",
                     severity="warning")
    assert one.render() == "x.rules:2:5: warning: m [rule 8.14]\n    abcdefgh\n        ^"
    # An end before the start (a span over several lines) still gets one caret.
    back = Diagnostic(Span("x.rules", 2, 5, 3), "m", source_line="abcdefgh")
    assert back.render().splitlines()[-1] == "        ^"


@pytest.mark.rule("7.10")
def test_render_of_a_real_diagnostic(tmp_path: Path) -> None:
    [diagnostic] = diagnostics_of(tmp_path, PRELUDE + one_rule(
        "7.10", "forbid move when to has swamp"))
    line = PRELUDE.count("\n") + 3
    assert diagnostic.render() == (
        f"{diagnostic.span.path}:{line}:27: error: unknown symbol 'swamp' after 'has' "
        "[rule 7.10]\n"
        "      forbid move when to has swamp\n"
        "                              ^^^^^")


@pytest.mark.rule("7.10")
def test_caret_under_the_name_after_a_tab(tmp_path: Path) -> None:
    text = PRELUDE + ('\nrule 7.10 "Quagmire" {\n  summary "S."\n'
                      '\tforbid move when to has swamp\n}\n')
    [diagnostic] = diagnostics_of(tmp_path, text)
    lines = diagnostic.render().splitlines()
    source, caret = lines[1], lines[2]
    start = caret.index("^")
    assert source[start:start + caret.count("^")] == "swamp"


@pytest.mark.rule("4.2")
def test_caret_under_a_name_in_a_log_text(tmp_path: Path) -> None:
    text = PRELUDE + one_rule("4.5", 'procedure p(side) {\n    log "{side} waits for {nobody}"'
                              '\n  }')
    [diagnostic] = diagnostics_of(tmp_path, text)
    lines = diagnostic.render().splitlines()
    start = lines[2].index("^")
    assert lines[1][start:start + lines[2].count("^")] == "nobody"


@pytest.mark.rule("8.14")
def test_cli_prints_the_same_rendering(tmp_path: Path) -> None:
    path = write(tmp_path, "cli.rules", PRELUDE + one_rule("8.14", "shift 1 left when 1 > 2")
                 + one_rule("8.18", "dice two_dice = 2d0"))
    diagnostics = check_path(path)
    result = cli("check", str(path))
    assert result.returncode == 1
    expected = "\n".join(d.render() for d in diagnostics) + f"\n{path}: 2 errors\n"
    assert result.stderr == expected
    assert result.stdout == ""


# ------------------------------------------------------------------ every problem at once


THREE_ERRORS = PRELUDE + '''
rule 7.10 "Quagmire" {
  summary "The quagmire hex can never be entered."
  forbid move when to has swamp
}

rule 8.12 "Dry-land city" {
  summary "Defenders in a dry-land city shift the odds one column left."
  shift 1 left when 1 > 2
}

rule 8.21 "Allocating step losses" {
  summary "No unit is eliminated while another still has more than one step."
  forbid lose when unit.stepz == 1
}
'''


@pytest.mark.rule("7.10")
@pytest.mark.rule("8.12")
@pytest.mark.rule("8.21")
def test_three_errors_are_reported_together(tmp_path: Path) -> None:
    path = write(tmp_path, "three.rules", THREE_ERRORS)
    diagnostics = check_path(path)
    assert [d.rule for d in diagnostics] == ["7.10", "8.12", "8.21"]
    assert [d.span.line for d in diagnostics] == sorted(d.span.line for d in diagnostics)
    assert "unknown symbol 'swamp'" in diagnostics[0].message
    assert "this condition is always false" in diagnostics[1].message
    assert "unknown attribute 'stepz'; did you mean 'steps'" in diagnostics[2].message
    with pytest.raises(RulesCheckError) as caught:
        compile_rulebook(path)
    assert caught.value.diagnostics == tuple(diagnostics)
    text = str(caught.value)
    assert all(d.render() in text for d in diagnostics)


@pytest.mark.rule("2.5")
@pytest.mark.rule("13.1")
def test_errors_across_files_sorted_by_file(tmp_path: Path) -> None:
    folder = tmp_path / "book"
    folder.mkdir()
    vocabulary = PRELUDE.replace('  terrain clear "Clear" natural\n',
                                 '  terrain clear "Clear" natural\n'
                                 '  terrain clear "Clear again" natural\n')
    assert vocabulary != PRELUDE
    write(folder, "01-vocabulary.rules", vocabulary)
    write(folder, "02-movement.rules", one_rule("7.10", "forbid move when to has swamp"))
    diagnostics = check_path(folder)
    assert [(Path(d.span.path).name, d.rule) for d in diagnostics] == [
        ("01-vocabulary.rules", "13.1"), ("02-movement.rules", "7.10")]
    assert "declared twice" in diagnostics[0].message


@pytest.mark.rule("11.4")
def test_optional_rules_are_checked_even_when_switched_off(tmp_path: Path) -> None:
    clause = ('rule 11.4 "Cavalry charges" optional {\n  summary "x"\n'
              '  forbid move when to has swamp\n}\n')
    diagnostics = diagnostics_of(tmp_path, PRELUDE + clause)
    assert [d.rule for d in diagnostics] == ["11.4"]
    assert "unknown symbol 'swamp'" in diagnostics[0].message


# ------------------------------------------------------------------ speed


@pytest.mark.rule("4.2")
def test_checking_cortes_takes_well_under_a_second() -> None:
    program = lower(parse_files(rule_files(SHIPPED)))
    assert len(program.of(ir.Procedure)) >= 5
    start = time.perf_counter()
    assert check(program) == []
    assert time.perf_counter() - start < 0.25


@pytest.mark.rule("9.1")
def test_a_malformed_form_pattern_is_reported_with_the_rest(tmp_path: Path) -> None:
    text = PRELUDE + one_rule("9.1", 'form bad "{x:expr} first" { function f() = x }\n'
                              "  forbid move when to has forest")
    messages = [d.message for d in diagnostics_of(tmp_path, text)]
    assert messages == ["form bad: a form's pattern must start with a word",
                        "unknown symbol 'forest' after 'has'; did you mean 'fortress'?"]
