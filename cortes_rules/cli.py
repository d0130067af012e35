"""The ``cortes-rules`` command.

- ``cortes-rules check [PATH ...]``: compile rulebooks (default: every shipped
  one) and print every diagnostic; exit 1 when any is an error.
- ``cortes-rules rules [NAME]``: list the rule clauses of a rulebook.
- ``cortes-rules rule NUMBER [--rulebook NAME]``: print one rule clause: its
  title, summary, the readings it depends on, formal statements as written, and the
  core statements they are lowered to.
- ``cortes-rules interpretations [RULEBOOK] [--json]``: list the
  interpretations registry: each entry's id, rules, what the text says, its
  readings, the default and why, and whether it is a load option today.
- ``cortes-rules demo [--seed N] [--rulebook NAME]``: play a shipped
  demonstration record and print the adjudication log, each line citing
  its rules.
- ``cortes-rules coverage [RULEBOOK] [--tests DIR]``: every numbered rule
  with its state (stated, summary only, definition/commentary), the clauses
  that state it and the tests that cite it.
- ``cortes-rules selfplay --seed N [--options PRESET|RULES] [--max-turns K]
  [--setup NAME]``: play one game choosing uniformly among the legal actions
  and print its outcome, or that it was unfinished after K turns.
- ``cortes-rules render -o FILE [--rulebook NAME] [--setup NAME] [--scenario X]
  [--options ...] [--deploy] [--seed N]``: draw the starting position (a
  set-up, or the position after a set-up stage played at random) as an SVG
  picture.

Bad input (an unknown rulebook or rule, a broken record) gives a one-line
message on standard error and exit status 1; a bad command line gives exit
status 2.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence
from typing import NoReturn

from .api import load
from .engine.machine import GameState
from .dsl import ir, render
from .errors import CortesRulesError, RulesError
from .loader import compile_rulebook
from .record import default_rulebook, rulebook_names

PROG = "cortes-rules"


class _Parser(argparse.ArgumentParser):
    """Command-line errors as one line, without the usage block."""

    def error(self, message: str) -> NoReturn:
        print(f"{PROG}: {message} (see '{PROG} --help')", file=sys.stderr)
        sys.exit(2)


def _compile(name: str | None) -> ir.Program:
    """A rulebook's checked program; a broken one is reported in one line."""
    target = name or default_rulebook()
    try:
        program, _ = compile_rulebook(target)
    except RulesError as error:
        count = len(error.diagnostics)
        first = error.diagnostics[0].render().splitlines()[0] if count else ""
        raise CortesRulesError(f"{target}: {count} error{'s' if count != 1 else ''} "
                               f"(first: {first}); run '{PROG} check {target}' for all") \
            from None
    return program


def _check(args: argparse.Namespace) -> int:
    status = 0
    for target in args.paths or rulebook_names():
        status |= _check_one(target, None)
    return status


def _check_one(target: str, scenario: str | None) -> int:
    """Check a rulebook as ``load`` does; one with scenarios is checked in each."""
    shown = f"{target}, scenario {scenario}" if scenario else target
    try:
        book = load(target, scenario=scenario)   # everything a load checks
    except RulesError as error:
        for diagnostic in error.diagnostics:
            print(diagnostic.render(), file=sys.stderr)
        count = len(error.diagnostics)
        print(f"{shown}: {count} error{'s' if count != 1 else ''}", file=sys.stderr)
        return 1
    except CortesRulesError as error:  # the message names the file
        print(f"cortes-rules: {error}", file=sys.stderr)
        return 1
    if scenario is None and book.scenarios:
        return max(_check_one(target, name) for name, _ in book.scenarios)
    for diagnostic in book.warnings:
        print(diagnostic.render(), file=sys.stderr)
    clauses = sum(1 for r in book.program.rules.values() if not r.mechanism)
    print(f"{shown}: ok ({clauses} rules, {len(book.warnings)} warnings)")
    return 0


def _rules(args: argparse.Namespace) -> int:
    program = _compile(args.name)
    for rule in program.rules.values():
        if not rule.mechanism:
            flag = " (optional)" if rule.optional else ""
            print(f"{rule.number:>6}  {rule.title}{flag}")
    for rule in program.rules.values():
        if rule.mechanism and rule.kind == "scenario":
            print(f"scenario {rule.number.removeprefix('scenario:')}: {rule.title}")
        elif rule.mechanism:
            print(f"library {rule.number.removeprefix('lib:')}: {rule.title}")
    return 0


def clause_source(program: ir.Program, rule: ir.Rule) -> list[str]:
    """The formal statements of a clause as its file writes them (summaries left out)."""
    module = next((m for m in program.modules if m.path == rule.span.path), None)
    if module is None:
        return []
    body: list[str] = []
    depth = 0
    for line in module.text.splitlines()[rule.span.line - 1:]:
        code = _code(line)
        start = 0 if depth > 0 else None
        end = None
        for i, char in enumerate(code):
            if char == "{":
                depth += 1
                if depth == 1:
                    start = i + 1
            elif char == "}":
                depth -= 1
                if depth == 0:
                    end = i
                    break
        if start is not None:
            body.append(line[start:end] if end is not None else line[start:])
        if end is not None:
            break
    kept = [ln.rstrip() for ln in body
            if _code(ln).strip() and not _code(ln).strip().startswith(("summary ",
                                                                       "interpretation "))
            and _code(ln).strip() not in ("definition", "commentary")]
    indent = min((len(ln) - len(ln.lstrip()) for ln in kept), default=0)
    return [ln[indent:] for ln in kept]


def _code(line: str) -> str:
    """A line without its comment and with its strings blanked (braces in them ignored)."""
    out = []
    in_string = False
    for char in line:
        if char == '"':
            in_string = not in_string
            out.append(char)
        elif in_string:
            out.append(" ")
        elif char == "#":
            break
        else:
            out.append(char)
    return "".join(out)


def lowered(statement: ir.Statement) -> str:
    """One core statement of a clause (after its forms are expanded) as text."""
    try:
        return render.statement(statement)
    except (TypeError, AttributeError):
        return _describe(statement)


def _expr(node: ir.Expr) -> str | None:
    """An expression's text, or None when the renderer cannot show it."""
    try:
        return render.expr(node)
    except (TypeError, AttributeError):
        pass
    if isinstance(node, ir.StrLit):
        return f'"{node.value}"'
    if isinstance(node, ir.NoneLit):
        return "none"
    if isinstance(node, (ir.TupleLit, ir.ListLit)):
        items = [_expr(i) for i in node.items]
        if all(i is not None for i in items):
            inner = ", ".join(i for i in items if i is not None)
            return f"({inner})" if isinstance(node, ir.TupleLit) else f"[{inner}]"
    if isinstance(node, ir.Cond):
        parts = [_expr(node.test), _expr(node.then), _expr(node.otherwise)]
        if all(p is not None for p in parts):
            return "if {} then {} else {}".format(*parts)
    return None


def _describe(statement: ir.Statement) -> str:
    if isinstance(statement, ir.Contribute):
        value = _expr(statement.value)
        text = f"contribute {statement.hook}" + (f" = {value}" if value else "")
        if statement.when is not None:
            when = _expr(statement.when)
            text += f" when {when}" if when else " when (a condition)"
        return text
    if isinstance(statement, ir.FunctionDecl):
        body = _expr(statement.body)
        return f"function {statement.name}({', '.join(statement.params)})" + \
            (f" = {body}" if body else "")
    name = getattr(statement, "name", "")
    kind = type(statement).__name__
    return f"{kind} {name}".strip()


def _rule(args: argparse.Namespace) -> int:
    program = _compile(args.rulebook)
    rule = program.rules.get(args.number) or program.rules.get(f"lib:{args.number}")
    if rule is None:
        optional = {r.number for r in program.all_rules if r.optional}
        hint = " (an optional rule: it is off unless switched on)" \
            if args.number in optional else ""
        raise CortesRulesError(f"no rule {args.number} in this rulebook{hint}")
    flag = (" (optional)" if rule.optional else "") + \
        (f" ({rule.kind}: states no rule of play)" if rule.kind != "rule" else "")
    print(f"{rule.number}  {rule.title}{flag}")
    print(f"  {rule.span.path}:{rule.span.line}")
    if rule.summary:
        print(f"\nSummary: {rule.summary}")
    for entry_id in rule.readings:
        entry = program.interpretations.get(entry_id)
        if entry is not None:
            print(f"Depends on interpretation {entry_id} ({entry.title}): reading "
                  f"{program.readings.get(entry_id)}")
    naming = [e.id for e in program.interpretations.values() if rule.number in e.rules]
    if naming:
        print(f"Interpretations of this rule: {', '.join(naming)} "
              f"(see '{PROG} interpretations')")
    source = clause_source(program, rule)
    if source:
        print("\nFormal statements, as written:")
        for line in source:
            print(f"  {line}")
    core = [st for st in rule.statements if not isinstance(st, ir.FormDecl)]
    if core and not rule.mechanism:
        print("\nLowered onto the core:")
        for statement in core:
            print(f"  {lowered(statement)}")
    return 0


def _interpretations(args: argparse.Namespace) -> int:
    import json

    from . import registry

    book = load(args.rulebook or default_rulebook())
    if args.json:
        print(json.dumps(registry.records(book), indent=2, ensure_ascii=False))
    else:
        print(registry.text(book))
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(seed=args.seed, out=sys.stdout, rulebook=args.rulebook)


def _coverage(args: argparse.Namespace) -> int:
    from .coverage import coverage

    try:
        report = coverage(args.rulebook or default_rulebook(), tests=args.tests)
    except RulesError:
        _compile(args.rulebook)   # reports the broken rulebook in one line
        raise
    for line in report.lines():
        print(line)
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    from .selfplay import parse_options, parse_readings, selfplay

    try:
        result = selfplay(args.rulebook or default_rulebook(), seed=args.seed,
                          options=parse_options(args.options), max_turns=args.max_turns,
                          setup=args.setup, scenario=args.scenario,
                          readings=parse_readings(args.reading))
    except RulesError:
        _compile(args.rulebook)
        raise
    for line in result.lines():
        print(line)
    return 0


def _render(args: argparse.Namespace) -> int:
    from .picture import render_svg
    from .selfplay import parse_options, parse_readings

    try:
        book = load(args.rulebook or default_rulebook(), options=parse_options(args.options),
                    scenario=args.scenario, readings=parse_readings(args.reading))
    except RulesError:
        _compile(args.rulebook)
        raise
    setup = args.setup
    if setup is None and book.setups and not args.deploy:
        setup = "historical" if "historical" in book.setups else book.setups[0]
    state = book.new_game(seed=args.seed, setup=setup)
    if args.deploy:
        _play_opening(state, book.opening_phases, args.seed)
    text = render_svg(state)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(text)
    shown = f"set-up {setup}" if setup else f"turn {state.turn}, {state.phase_label}"
    print(f"{args.output}: {len(state.positions())} pieces placed ({shown})")
    return 0


def _play_opening(state: GameState, opening: Sequence[str], seed: int) -> None:
    """Play a rulebook's set-up stage with random legal choices, seeded."""
    import random

    choose = random.Random(seed)
    for _ in range(100_000):
        if state.phase not in opening or state.is_terminal():
            return
        if state.is_chance_node():
            state.apply_chance()
            continue
        ids = state.legal_action_ids()
        if not ids:
            raise CortesRulesError(f"{state.current_player} has no legal action in "
                                   f"{state.phase_label}: the set-up stage is stuck")
        state.apply(ids[choose.randrange(len(ids))])
    raise CortesRulesError("the set-up stage did not end after 100000 decisions")


def _rulebook_option(command: argparse.ArgumentParser, dest: str) -> None:
    """``--rulebook NAME`` beside a command's positional rulebook, so that every
    command names its rulebook the same way (``coverage --rulebook X``)."""
    command.add_argument("--rulebook", dest="rulebook_option", default=None,
                         help="the same as the positional rulebook")
    command.set_defaults(rulebook_dest=dest)


def _positive(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 1:
        raise argparse.ArgumentTypeError(f"must be at least 1, not {value}")
    return value


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cortes-rules`` command."""
    parser = _Parser(prog=PROG, description=(__doc__ or "").splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="compile rulebooks and report every problem")
    check.add_argument("paths", nargs="*", help="rulebook names, folders or .rules files")
    check.set_defaults(run=_check)
    rules = commands.add_parser("rules", help="list a rulebook's rule clauses")
    rules.add_argument("name", nargs="?", default=None, help="a rulebook name, folder or file")
    _rulebook_option(rules, "name")
    rules.set_defaults(run=_rules)
    rule = commands.add_parser("rule", help="print one rule clause and what it states")
    rule.add_argument("number", help="the rule number, e.g. 8.14")
    rule.add_argument("--rulebook", default=None, help="a rulebook name, folder or file")
    rule.set_defaults(run=_rule)
    readings = commands.add_parser("interpretations",
                                   help="list the interpretations registry of a rulebook")
    readings.add_argument("rulebook", nargs="?", default=None,
                          help="a rulebook name, folder or file")
    _rulebook_option(readings, "rulebook")
    readings.add_argument("--json", action="store_true", help="print the entries as JSON")
    readings.set_defaults(run=_interpretations)
    demo = commands.add_parser("demo", help="play the demonstration game and print its log")
    demo.add_argument("--seed", type=int, default=None, help="dice seed (default: the record's)")
    demo.add_argument("--rulebook", default=None, help="whose demonstration to play")
    demo.set_defaults(run=_demo)
    cover = commands.add_parser("coverage", help="list every numbered rule, the clauses "
                                "that state it and the tests that cite it")
    cover.add_argument("rulebook", nargs="?", default=None,
                       help="a rulebook name, folder or file")
    _rulebook_option(cover, "rulebook")
    cover.add_argument("--tests", default=None, help="the tests folder to scan (default: "
                       "tests/ of the checkout the rulebook is in)")
    cover.set_defaults(run=_coverage)
    play = commands.add_parser("selfplay", help="play one game with random legal choices "
                               "and print its outcome")
    play.add_argument("--seed", type=int, required=True, help="seeds the dice and the choices")
    play.add_argument("--options", default=None, help="a preset (beginner, veteran), 'all', "
                      "or optional rule numbers separated by commas")
    play.add_argument("--max-turns", type=_positive, default=None,
                      help="stop, unfinished, after this many game turns (default 20, or "
                      "100 for a rulebook with scenarios, which end by their own length)")
    play.add_argument("--setup", default=None,
                      help="a named set-up (default: the players set up in the "
                      "rulebook's set-up stage; without one, historical if the rulebook "
                      "has it, else its first)")
    play.add_argument("--rulebook", default=None, help="a rulebook name, folder or file")
    play.add_argument("--scenario", default=None,
                      help="for a rulebook with scenarios, the one to play, by name or "
                      "number (default: its first)")
    play.add_argument("--reading", action="append", default=None, metavar="ENTRY=READING",
                      help="read an interpretations entry another way (or pick a "
                      "scenario's option); may be repeated")
    play.set_defaults(run=_selfplay)
    draw = commands.add_parser("render", help="draw the starting position of a game as an "
                               "SVG picture")
    draw.add_argument("-o", "--output", required=True, metavar="FILE",
                      help="the SVG file to write")
    draw.add_argument("--rulebook", default=None, help="a rulebook name, folder or file")
    draw.add_argument("--setup", default=None,
                      help="a named set-up (default: historical if the rulebook has it, else "
                      "its first; none for a rulebook without set-ups)")
    draw.add_argument("--scenario", default=None,
                      help="for a rulebook with scenarios, the one to draw, by name or number "
                      "(default: its first)")
    draw.add_argument("--options", default=None, help="a preset (beginner, veteran), 'all', "
                      "or optional rule numbers separated by commas")
    draw.add_argument("--reading", action="append", default=None, metavar="ENTRY=READING",
                      help="read an interpretations entry another way (or pick a "
                      "scenario's option); may be repeated")
    draw.add_argument("--deploy", action="store_true",
                      help="play the rulebook's set-up stage with random legal choices and "
                      "draw the position after it (without --setup)")
    draw.add_argument("--seed", type=int, default=0,
                      help="seeds the game and the choices of --deploy (default 0)")
    draw.set_defaults(run=_render)
    args = parser.parse_args(argv)
    given = getattr(args, "rulebook_option", None)
    if given is not None:
        positional = getattr(args, args.rulebook_dest)
        if positional is not None and positional != given:
            parser.error(f"two rulebooks given: {positional!r} and --rulebook {given!r}")
        setattr(args, args.rulebook_dest, given)
    try:
        return int(args.run(args))
    except CortesRulesError as error:
        print(f"{PROG}: {str(error).splitlines()[0]}", file=sys.stderr)
        return 1
    except (OSError, UnicodeError) as error:
        if isinstance(error, BrokenPipeError):
            return 0
        print(f"{PROG}: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
