"""The ``cortes-rules`` command.

- ``cortes-rules check [PATH ...]``: compile rulebooks (default: every shipped
  one) and print every diagnostic; exit 1 when any is an error.
- ``cortes-rules rules [NAME]``: list the numbered rules of a rulebook, optional
  ones included, then the clauses without a number (libraries' mechanisms,
  the scenario), then the count every command gives (``text_index.count_text``).
- ``cortes-rules rule NUMBER [--rulebook NAME]``: print one rule clause: its
  title, summary, the readings it depends on, formal statements as written, and the
  core statements they are lowered to; a section number (``8``) lists the
  section; an unknown number names the nearest ones.
- ``cortes-rules interpretations [RULEBOOK] [--json]``: list the
  interpretations registry: each entry's id, rules, what the text says, its
  readings, the default and why, and whether it is a load option today.
- ``cortes-rules demo [--seed N] [--rulebook NAME]``: play a shipped
  demonstration record and print the adjudication log, each line citing
  its rules.
- ``cortes-rules coverage [RULEBOOK] [--tests DIR]``: every numbered rule
  with its state (stated, summary only, definition/commentary), the clauses
  that state it and the tests that cite it; outside a checkout (an installed
  rulebook) ``--tests`` is required.
- ``cortes-rules selfplay --seed N [--options PRESET|RULES] [--max-turns K]
  [--setup NAME]``: play one game choosing uniformly among the legal actions
  and print its outcome, or that it was unfinished after K turns.
  ``selfplay --games N [--seed S] [--workers W] [--ray [--address ADDR]]
  [--json PATH] [--quiet]`` plays N such games, with the seeds S .. S+N-1, on
  W worker processes or as Ray tasks, with a progress bar on a terminal, and
  prints one summary (``cortes_rules.selfplay_many``): outcomes by winner,
  games finished and stopped at the turn cap, game lengths, the log lines
  citing each rule, and the seeds of games that failed with their errors
  (then the exit status is 1). The summary is the same whatever ran the games.
- ``cortes-rules render -o FILE [--rulebook NAME] [--setup NAME] [--scenario X]
  [--options ...] [--deploy] [--seed N]``: draw the starting position (a
  set-up, or the position after a set-up stage played at random, the default
  for a rulebook that names no set-ups) as an SVG picture; ``render -o FILE
  --position POSITION [--to PLY]`` draws any position (see ``why``).
- ``cortes-rules ir [RULEBOOK] [--procedure NAME] [--options ...] [--scenario X]``:
  print the rulebook lowered onto the core IR (``core.printer``): players,
  places and edges, pieces, values, tables, hooks, clauses, and every
  procedure as numbered instructions, each citing its rule; with
  ``--procedure`` only that procedure (``turn sequence`` is the turn's).
- ``cortes-rules why POSITION ACTION [--to PLY] [--seed N] [--clause]``: whether
  an action is legal in a position and, if not, each rule that forbids it:
  its number, title and summary, the fact of the position that makes it
  apply, and with ``--clause`` the formal clause. The
  position is a file, either a record (played to its end, or to ``--to PLY``
  actions) or a position in notation (docs/notation.md, as
  ``GameState.to_notation`` writes it), a set-up name, or ``start`` (a game
  with no set-up). A file is read as notation when its first line is
  ``rulebook NAME`` and its next line, other than ``seed``, starts with a
  keyword only a position has (``scenario``, ``options``, ``reading``,
  ``rng``, ``turn``, ``phase``, ``roll``, ``over``, ``winners``); a record
  goes on with a header of its own or an action. The rulebook is loaded as
  the position's ``scenario``, ``options`` and ``reading`` lines say
  (``--rulebook`` names its folder when the position's rulebook is not a
  shipped one).
- ``cortes-rules evaluate EXPRESSION [NAME=VALUE ...] [--position POSITION]``:
  the value of an expression of the rules language (``Rulebook.evaluate``),
  e.g. the what-if functions of a rulebook:
  ``evaluate "odds_what_if(-3)" attack=26 defense=7``; ``--list`` lists the
  functions a rulebook declares.
- ``cortes-rules explain POSITION QUESTION [--json] [--as PLAYER] [--rolls N]``:
  what a sequence of actions (``'attack 1322; join S1; resolve'``) would
  do: the first refused one and its rules, or every outcome with its exact
  probability and rule trail (``cortes_rules.explain``, docs/explain.md).
- ``cortes-rules reach POSITION PIECE PLACE [--kind K] [--cost ATTRIBUTE]``:
  the cheapest way for a piece to get to a place, each step with its rules,
  or why the step in is refused.
- ``cortes-rules replay RECORD [--to PLY] [--seed N]``: play a record and
  print its log, each line citing its rules, and the position reached.
- ``cortes-rules verify RECORD [--seed N]``: replay a record checking every
  action; print ``ok`` (exit 0), or the first illegal action with its ply,
  its line and the rules that forbid it (exit 1). A record written with
  another version of the rulebook gives a warning (docs/records.md).
- ``cortes-rules NAME VALUE ... [--PARAM VALUE ...] [--rulebook NAME]``: a
  what-if command of the rulebook. The commands come from the rulebook, not
  from this module: every function named ``NAME_what_if`` that a rulebook
  (or its library) declares is the command ``NAME``, unless a built-in
  command has that name. Its parameters are ``--PARAM VALUE`` options (0
  when left out); its positional values bind, in order, the variables the
  rulebook's function ``what_if_given()`` names (a tuple of texts; none
  without it), which the rulebook's clauses read. The command prints the
  value of ``NAME_what_if_report`` when the rulebook declares one with the
  same parameters, a list of ``(label, value)`` pairs printed one a line,
  else the value of ``NAME_what_if`` itself, as ``evaluate`` prints it (a
  distribution one outcome a line, with its total). Values are whole
  numbers or ids. With the library hex_wargame,
  ``cortes-rules odds 26 7 --shift -3`` prints the raw odds (3:1), the final
  column (1:2) and the chance of every result of the results table, and
  ``cortes-rules results 26 7 --shift -3`` the chances alone. The commands
  are looked up when the command line names no built-in command (and for
  ``--help``, in the default rulebook); a name that is neither gives the
  usual one-line error, exit status 2.
- ``cortes-rules serve [--host 127.0.0.1] [--port 8000] [--rulebook NAME]
  [--options ...] [--setup NAME] [--cost ATTRIBUTE] [--forecast EXPRESSION]``:
  the reference browser front end (``cortes_rules.serve``, docs/frontend.md):
  two people play hot seat or each in his own browser, each seeing only his
  own observation. Needs the ``serve`` extra (Starlette and uvicorn).
- ``cortes-rules --version``.

``rules``, ``rule``, ``interpretations`` and ``--help`` answer from the
rulebook's text index (``cortes_rules.text_index``), kept in the load cache,
without compiling the rulebook; this module imports the compiler and the
engine only when a command needs them.

Every command takes ``--rulebook NAME|PATH``. Bad input (an unknown
rulebook or rule, a broken record) gives a one-line message on standard
error and exit status 1; a bad command line gives exit status 2.
"""

from __future__ import annotations

import argparse
import difflib
import json
import re
import sys
from collections.abc import Iterator, Sequence
from pathlib import Path
from typing import TYPE_CHECKING, Any, NoReturn

from . import __version__, text_index
from ._resources import data_dir
from .errors import CortesRulesError, RulesError, UnknownNameError
from .rulebook_files import default_rulebook, shipped_games

if TYPE_CHECKING:
    from .api import GameState, Rulebook, load
    from .dsl import ir
    from .engine.actions import Action
    from .loader import compile_rulebook
    from .record import book_of, load_cached, parse_record, read_record, replay, verify
else:   # imported on first use: the commands answered from the text index need none
    from ._lazy import LazyModule, lazy_function

    ir = LazyModule("cortes_rules.dsl.ir")
    load = lazy_function("cortes_rules.api", "load")
    compile_rulebook = lazy_function("cortes_rules.loader", "compile_rulebook")
    book_of, load_cached, parse_record, read_record, replay, verify = (
        lazy_function("cortes_rules.record", name) for name in (
            "book_of", "load_cached", "parse_record", "read_record", "replay", "verify"))

PROG = "cortes-rules"
DESCRIPTION = ("Rulebooks of board games as numbered rule clauses: check them, read their "
               "rules, play and replay games, and ask why an action is illegal.")
EPILOG = ("A rulebook may add commands of its own, what-if questions: each function "
          "NAME_what_if it (or its library) declares is the command NAME, unless a built-in "
          "command has that name. Its parameters are --PARAM VALUE options (0 when left "
          "out); its positional values bind, in order, the variables its function "
          "what_if_given() names; it prints NAME_what_if_report, labelled lines, when the "
          "rulebook declares one, else the value of NAME_what_if. Give --rulebook NAME for "
          "those of another rulebook; the list above shows those of the default rulebook.")
START = "start"
"""The position ``why`` and ``evaluate`` read as a game started with no set-up."""
WHAT_IF = "_what_if"
"""The ending of the name of a function of a rulebook that is a command (``NAME_what_if``)."""
WHAT_IF_REPORT = "_report"
"""Added to a what-if function's name: the function that labels what the command prints."""
WHAT_IF_GIVEN = "what_if_given"
"""The function of a rulebook naming the variables a what-if command's positional values bind."""
POSITION_KEYWORDS = ("scenario", "options", "reading", "rng", "turn", "phase", "roll", "over",
                     "winners")
"""Keywords of the header lines of a position in notation that no record has."""


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
    targets = list(args.paths) + ([args.rulebook] if args.rulebook else [])
    for target in targets or shipped_games():
        status |= _check_one(target, None)
    return status


def _part_of_a_rulebook(target: str) -> str | None:
    """For a single rules file whose folder holds other rules files, what to check instead."""
    path = Path(target)
    if not path.is_file():
        return None
    folder = path.resolve().parent
    if not any(f.resolve() != path.resolve() for f in folder.glob("*.rules")):
        return None
    shipped = data_dir("rulebook").resolve()
    if folder.parent == shipped and folder.name in shipped_games():
        return folder.name
    return str(path.parent)


def _check_one(target: str, scenario: str | None) -> int:
    """Check a rulebook as ``load`` does, and under every reading of the registry; one
    with scenarios is checked in each."""
    shown = f"{target}, scenario {scenario}" if scenario else target
    try:
        book = load(target, scenario=scenario, every_reading=True)
    except RulesError as error:
        for diagnostic in error.diagnostics:
            print(diagnostic.render(), file=sys.stderr)
        count = len(error.diagnostics)
        print(f"{shown}: {count} error{'s' if count != 1 else ''}", file=sys.stderr)
        whole = _part_of_a_rulebook(target)
        if whole is not None:
            print(f"note: {target} is one file of a rulebook; its clauses use what the "
                  f"other files of its folder declare, so check them together: "
                  f"{PROG} check {whole}", file=sys.stderr)
        return 1
    except CortesRulesError as error:  # the message names the file
        print(f"cortes-rules: {error}", file=sys.stderr)
        return 1
    if scenario is None and book.scenarios:
        return max(_check_one(target, name) for name, _ in book.scenarios)
    for diagnostic in book.warnings:
        print(diagnostic.render(), file=sys.stderr)
    size = text_index.program_count(book.program)
    print(f"{shown}: ok ({size}; {len(book.warnings)} warnings)")
    return 0


def _index(name: str | None) -> text_index.TextIndex:
    """A rulebook's text index (``cortes_rules.text_index``); a broken rulebook is
    reported in one line."""
    target = name or default_rulebook()
    try:
        return text_index.text_index(target)
    except RulesError:
        _compile(target)   # a broken rulebook, in one line
        raise


def _rules(args: argparse.Namespace) -> int:
    index = _index(args.name)
    numbered = index.numbered
    for line in text_index.listing_lines(numbered):
        print(line)
    for rule in index.rules:
        if rule.mechanism and rule.kind == "scenario":
            print(f"scenario {rule.number.removeprefix('scenario:')}: {rule.title}")
        elif rule.mechanism:
            print(f"library {rule.number.removeprefix('lib:')}: {rule.title}")
    print(f"{index.size()} (the libraries' mechanisms and scenarios above are clauses "
          f"without a rule number)" if len(numbered) < len(index.rules) else index.size())
    return 0


def _rule(args: argparse.Namespace) -> int:
    index = _index(args.rulebook)
    rule = index.rule(args.number)
    if rule is None:
        section = index.section(args.number)
        if not section:
            raise index.unknown(args.number)
        on = sum(1 for r in section if r.in_play)
        print(f"Section {section[0].section}: {text_index.count_text(len(section), on)} "
              f"({section[0].number}-{section[-1].number})")
        for line in text_index.listing_lines(section):
            print(line)
        return 0
    for line in text_index.rule_lines(index, rule):
        print(line)
    return 0


def _interpretations(args: argparse.Namespace) -> int:
    index = _index(args.rulebook)
    if args.json:
        print(json.dumps(list(index.interpretations), indent=2, ensure_ascii=False))
    else:
        print(index.interpretations_text)
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(seed=args.seed, out=sys.stdout, rulebook=args.rulebook)


def _coverage(args: argparse.Namespace) -> int:
    from .coverage import coverage, default_tests_dir
    from .rulebook_files import resolve

    target = args.rulebook or default_rulebook()
    if args.tests is None and default_tests_dir(resolve(target)) is None:
        raise CortesRulesError(
            f"coverage lists the tests that cite each rule, read from tests/ of the checkout "
            f"the rulebook is in, and {target} is not in a checkout (it is at "
            f"{resolve(target)}): give the tests folder with --tests PATH")
    try:
        report = coverage(target, tests=args.tests)
    except RulesError:
        _compile(args.rulebook)   # reports the broken rulebook in one line
        raise
    for line in report.lines():
        print(line)
    return 0


def _selfplay(args: argparse.Namespace) -> int:
    from .selfplay import parse_options, parse_readings, selfplay

    if args.games is not None:
        return _selfplay_many(args)
    extra = [flag for flag, given in (("--workers", args.workers is not None),
                                      ("--ray", args.ray), ("--address", args.address),
                                      ("--json", args.json), ("--quiet", args.quiet)) if given]
    if args.seed is None or extra:
        wanted = f"{', '.join(extra)} go{'es' if len(extra) == 1 else ''} with --games N"
        args.parser.error(wanted if extra else "the following arguments are required: "
                          "--seed (or --games)")
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


def _selfplay_many(args: argparse.Namespace) -> int:
    from .progress import ProgressBar
    from .selfplay import parse_options, parse_readings
    from .selfplay_many import GameSpec, play_many

    if args.address is not None and not args.ray:
        args.parser.error("--address goes with --ray")
    spec = GameSpec(args.rulebook or default_rulebook(),
                    options=tuple(parse_options(args.options)), scenario=args.scenario,
                    readings=tuple(parse_readings(args.reading).items()),
                    setup=args.setup, max_turns=args.max_turns)
    bar = ProgressBar(args.games, "selfplay", enabled=False if args.quiet else None)
    try:
        summary = play_many(spec, games=args.games, seed=args.seed or 0,
                            workers=args.workers or 1, ray=args.ray, address=args.address,
                            progress=bar.tick)
    except RulesError:
        _compile(args.rulebook)
        raise
    finally:
        bar.close()
    if args.json is not None:
        Path(args.json).write_text(json.dumps(summary.as_dict(), indent=2) + "\n",
                                   encoding="utf-8")
    for line in summary.lines():
        print(line)
    return 1 if summary.as_dict()["errored"] else 0


def _render(args: argparse.Namespace) -> int:
    from .picture import render_svg
    from .selfplay import parse_options, parse_readings

    if args.position is not None:
        if args.setup or args.deploy or args.scenario or args.options or args.reading:
            raise CortesRulesError("--position names the position to draw: give no --setup, "
                                   "--deploy, --scenario, --options or --reading with it")
        _, state, shown = _position(args.position, args.rulebook, args.to, args.seed)
        with open(args.output, "w", encoding="utf-8") as out:
            out.write(render_svg(state))
        print(f"{args.output}: {len(state.positions())} pieces placed ({shown}: "
              f"{_where(state)})")
        return 0
    if args.to is not None:
        raise CortesRulesError("--to PLY needs --position RECORD")
    seed = 0 if args.seed is None else args.seed
    try:
        book = load(args.rulebook or default_rulebook(), options=parse_options(args.options),
                    scenario=args.scenario, readings=parse_readings(args.reading))
    except RulesError:
        _compile(args.rulebook)
        raise
    setup = args.setup
    if setup is None and book.setups and not args.deploy:
        setup = "historical" if "historical" in book.setups else book.setups[0]
    # A rulebook without named set-ups (its scenarios deploy in a set-up stage) is drawn
    # after that stage, so that the picture shows its pieces.
    deploy = args.deploy or (setup is None and not book.setups and bool(book.opening_phases))
    state = book.new_game(seed=seed, setup=setup)
    if deploy:
        _play_opening(state, book.opening_phases, seed)
    text = render_svg(state)
    with open(args.output, "w", encoding="utf-8") as out:
        out.write(text)
    shown = f"set-up {setup}" if setup else f"turn {state.turn}, {state.phase_label}"
    if deploy and not args.deploy:
        shown += (f", after the set-up stage played with random legal choices, seed {seed}; "
                  f"--position {START} draws the board before it")
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


def _position(text: str, rulebook: str | None, to: int | None,
              seed: int | None) -> tuple[Rulebook, GameState, str]:
    """The rulebook, the state and a description of the position a command names.

    A position is, in this order: a file, either a position in notation
    (``_is_notation()``) or a record (played to its end, or to its first
    ``to`` actions), a set-up of the rulebook, or ``start`` (a game with no
    set-up, at the rulebook's set-up stage if it has one).
    """
    if Path(text).is_file():
        try:
            source = Path(text).read_text(encoding="utf-8")
        except (OSError, UnicodeError) as error:
            raise CortesRulesError(f"{text}: cannot read this file ({error})") from None
        if _is_notation(source):
            return _notation_position(text, source, rulebook, to, seed)
        record = parse_record(source, text, rulebook=rulebook)
        for warning in record.warnings:
            print(f"{PROG}: warning: {text}: {warning}", file=sys.stderr)
        book = book_of(record) if rulebook is None else \
            load_cached(rulebook, record.options, record.readings, record.scenario)
        actions = record.actions
        if to is not None and to > len(actions):
            raise CortesRulesError(f"{text}: --to {to}, but the record holds "
                                   f"{len(actions)} action{'s' if len(actions) != 1 else ''}")
        state = replay(record, book, seed=seed, to_ply=to)
        played = len(actions) if to is None else to
        return book, state, (f"{text} after {played} of its {len(record.actions)} "
                             f"actions (seed {state.seed})")
    book = load(rulebook or default_rulebook())
    if to is not None:
        raise CortesRulesError(f"--to PLY counts the actions of a record, and {text!r} is "
                               f"not a record file")
    if text in book.setups or text == START:
        setup = text if text in book.setups else None
        state = book.new_game(seed=seed or 0, setup=setup, positions=None if setup else {})
        shown = f"set-up {setup}" if setup else "a game with no set-up"
        return book, state, f"{shown} (seed {state.seed})"
    known = ", ".join((*book.setups, START))
    raise CortesRulesError(f"position {text!r}: no such record file, and not a set-up of "
                           f"{book.name} (set-ups: {known})")


def _notation_lines(source: str) -> Iterator[list[str]]:
    """The words of the lines of a position in notation that are neither blank nor comments
    (a word in double quotes read as JSON, as the notation writes a name that is not plain)."""
    for raw in source.split("\n"):
        line = raw.strip()
        if line and not line.startswith("#"):
            words = [_unquoted(w) for w in re.findall(r'"(?:[^"\\]|\\.)*"|[^\s"]+', line)]
            if words:
                yield words


def _unquoted(word: str) -> str:
    """A word of a position, its double quotes read as JSON (left as it is if they cannot
    be: the reader of positions names the line)."""
    if not word.startswith('"'):
        return word
    try:
        value = json.loads(word)
    except ValueError:
        return word
    return value if isinstance(value, str) else word


def _is_notation(source: str) -> bool:
    """Whether a file's text is a position in notation rather than a record.

    Both may start with ``rulebook NAME`` and go on with ``seed N``; the
    next line of a position is one of its header lines (``phase`` is
    required), the next line of a record is another header or an action.
    """
    for number, words in enumerate(_notation_lines(source)):
        if number == 0 and words[0] != "rulebook":
            return False
        if words[0] not in ("rulebook", "seed"):
            return words[0] in POSITION_KEYWORDS
    return False


def _notation_position(path: str, source: str, rulebook: str | None, to: int | None,
                       seed: int | None) -> tuple[Rulebook, GameState, str]:
    """A position written in notation, read with its rulebook loaded as its lines say."""
    if to is not None:
        raise CortesRulesError(f"--to PLY counts the actions of a record, and {path} is a "
                               f"position in notation")
    if seed is not None:
        raise CortesRulesError(f"--seed: {path} is a position in notation, which holds its "
                               f"own seed and the state of its dice")
    headers: dict[str, list[str]] = {}
    readings: dict[str, str] = {}
    for words in _notation_lines(source):
        if words[0] == "reading" and len(words) == 3:
            readings[words[1]] = words[2]
        elif words[0] in ("rulebook", "scenario", "options"):
            headers.setdefault(words[0], words[1:])
    name = rulebook or (headers.get("rulebook") or [default_rulebook()])[0]
    scenario = headers["scenario"][0] if headers.get("scenario") else None
    try:
        book = load(name, options=headers.get("options", ()), scenario=scenario,
                    readings=readings or None)
    except RulesError:
        _compile(name)   # a broken rulebook, in one line
        raise
    try:
        state = book.position(source)
    except CortesRulesError as error:   # the message names the line
        raise CortesRulesError(f"{path}: {error}") from None
    return book, state, f"{path}, a position in notation (seed {state.seed})"


def _action(book: Rulebook, words: Sequence[str]) -> Action:
    """An action given on the command line: its text (its words) or its integer id."""
    text = " ".join(words)
    if re.fullmatch(r"[0-9]+", text):
        return book.action_from_id(int(text))
    return book.parse_action(text)


def _where(state: GameState) -> str:
    if state.is_terminal():
        return f"turn {state.turn}, the game is over"
    return f"turn {state.turn}, {state.phase_label}; to act: {state.current_player}"


def _why(args: argparse.Namespace) -> int:
    book, state, shown = _position(args.position, args.rulebook, args.to, args.seed)
    action = _action(book, args.action)
    print(f"Position: {shown}: {_where(state)}")
    reasons = state.why_illegal(action)
    if not reasons:
        print(f"{action}: legal here")
        return 0
    print(f"{action}: illegal here")
    for reason in reasons:
        title = getattr(reason, "title", "")
        if not title:
            rule, message = reason
            print(f"  [{rule}] {message}" if rule else f"  {message}")
            continue
        print(f"  [{reason.rule}] {title}: {reason.summary}" if reason.summary
              else f"  [{reason.rule}] {title}")
        if reason.fact:
            print(f"    here: {reason.fact}")
        if args.clause and reason.clause:
            print(f"    clause: {reason.clause}")
    return 0


def _explain(args: argparse.Namespace) -> int:
    from .explain import explain

    _, state, shown = _position(args.position, args.rulebook, args.to, args.seed)
    answer = explain(state, " ".join(args.question), player=args.player, rolls=args.rolls)
    _print_answer(answer, args.json, f"({shown})")
    return 0


def _reach(args: argparse.Namespace) -> int:
    from .explain import reach

    _, state, shown = _position(args.position, args.rulebook, args.to, args.seed)
    answer = reach(state, args.piece, args.place, kind=args.kind, cost=args.cost,
                   player=args.player)
    _print_answer(answer, args.json, f"Position: {shown}: {_where(state)}")
    return 0


def _print_answer(answer: Any, as_json: bool, heading: str) -> None:
    """An answer of ``cortes_rules.explain``: as JSON, or its text under a heading."""
    import json

    if as_json:
        print(json.dumps(answer.as_dict(), indent=2, ensure_ascii=False))
    else:
        print(heading)
        print(answer)


def _variable(text: str) -> tuple[str, Any]:
    name, equals, value = text.partition("=")
    if not equals or not re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", name):
        raise argparse.ArgumentTypeError(f"not NAME=VALUE: {text!r}")
    return name, int(value) if re.fullmatch(r"-?[0-9]+", value) else value


def _shown(value: Any) -> str:
    """A value of the rules language as the command prints it."""
    from .engine.compile import format_value

    from fractions import Fraction

    if isinstance(value, Fraction):
        return f"{value} ({float(value):.2%})"
    if isinstance(value, (tuple, list)):
        inner = ", ".join(_shown(v) for v in value)
        return f"({inner})" if isinstance(value, tuple) else f"[{inner}]"
    return format_value(value)


def _evaluate(args: argparse.Namespace) -> int:
    if args.list:
        if args.expression is not None:
            raise CortesRulesError("--list lists the functions; give no expression with it")
        book = load(args.rulebook or default_rulebook())
        for decl in book.program.of(ir.FunctionDecl):
            print(f"{decl.name}({', '.join(decl.params)})  [{decl.rule}]")
        return 0
    if args.expression is None:
        raise CortesRulesError("give an expression to evaluate (or --list)")
    variables = dict(args.variables)
    if args.position is None:
        if args.to is not None:
            raise CortesRulesError("--to PLY needs --position RECORD")
        book = load(args.rulebook or default_rulebook())
        value = book.evaluate(args.expression, **variables)
    else:
        _, state, shown = _position(args.position, args.rulebook, args.to, args.seed)
        print(f"Position: {shown}: {_where(state)}")
        value = state.evaluate(args.expression, **variables)
    _print_value(value)
    return 0


def _print_value(value: Any, indent: str = "") -> None:
    """A value as ``evaluate`` prints it: a mapping (a distribution) one key a line, with
    the total of its chances; anything else on one line."""
    if isinstance(value, dict):
        for key, item in value.items():
            print(f"{indent}{_shown(key)}: {_shown(item)}")
        from fractions import Fraction

        total = sum(value.values()) if all(isinstance(v, Fraction) for v in value.values()) \
            else None
        if total is not None and value:
            print(f"{indent}total: {_shown(total)}")
    else:
        print(f"{indent}{_shown(value)}")


def _what_if_commands(book: Rulebook) -> dict[str, ir.FunctionDecl]:
    """The what-if commands a rulebook declares: command name -> its ``NAME_what_if``."""
    return {decl.name.removesuffix(WHAT_IF): decl for decl in book.program.of(ir.FunctionDecl)
            if decl.name.endswith(WHAT_IF) and decl.name != WHAT_IF}


def _what_if_given(book: Rulebook) -> tuple[str, ...]:
    """The variables a what-if command's positional values bind (``what_if_given()``)."""
    if not any(d.name == WHAT_IF_GIVEN for d in book.program.of(ir.FunctionDecl)):
        return ()
    names = book.evaluate(f"{WHAT_IF_GIVEN}()")
    if not isinstance(names, (tuple, list)) or not all(
            isinstance(n, str) and re.fullmatch(r"[A-Za-z_][A-Za-z0-9_]*", n) for n in names):
        raise CortesRulesError(f"{book.name}: {WHAT_IF_GIVEN}() should be a tuple of names "
                               f"of variables, not {_shown(names)}")
    return tuple(names)


def _add_what_if_commands(parser: argparse.ArgumentParser, argv: Sequence[str]) -> None:
    """Add the rulebook's what-if commands to the command line when it names no built-in
    command (or asks for the help, which then lists those of the default rulebook)."""
    commands = next(a for a in parser._actions if isinstance(a, argparse._SubParsersAction))
    word = next((a for a in argv if not a.startswith("-")), None)
    helping = word is None and any(a in ("-h", "--help") for a in argv)
    if word in commands.choices or (word is None and not helping):
        return
    find = argparse.ArgumentParser(add_help=False)
    find.add_argument("--rulebook", default=None)
    named = find.parse_known_args(list(argv))[0].rulebook
    try:
        index = text_index.text_index(named or default_rulebook())
    except CortesRulesError:
        if named is None:
            return          # the usual error for an unknown command
        _compile(named)     # why the rulebook named cannot be loaded, in one line
        raise
    listed = [w for w in index.what_ifs if w.command not in commands.choices
              and not {"rulebook", "help"} & set(w.params) and (word is None or w.command == word)]
    if word is None:        # the help lists them, from the text index: no load
        for what_if in listed:
            commands.add_parser(what_if.command, help=_what_if_help(index.name, what_if))
        return
    if listed:
        _add_what_if_command(commands, load(named or default_rulebook()), listed[0])


def _what_if_help(rulebook: str, what_if: text_index.WhatIf) -> str:
    return (f"what-if question of {rulebook}: {what_if.function}({', '.join(what_if.params)}) "
            f"[{what_if.rule}]")


def _add_what_if_command(commands: Any, book: Rulebook, what_if: text_index.WhatIf) -> None:
    """The command of one what-if function of a loaded rulebook, with its arguments."""
    decl = _what_if_commands(book)[what_if.command]
    given = _what_if_given(book)
    command = commands.add_parser(
        what_if.command, help=_what_if_help(book.name, what_if),
        description=f"Ask {decl.name} of {book.name} [{decl.rule}]: the positional values "
        f"bind {', '.join(given) or 'nothing'}, the options the function's parameters (0 "
        f"when left out).")
    for index, variable in enumerate(given):
        command.add_argument(f"given_{index}", metavar=variable.upper(), type=_word_value,
                             help=f"the value of {variable}: a whole number or an id")
    for index, param in enumerate(decl.params):
        command.add_argument(f"--{param}", dest=f"param_{index}", type=_word_value,
                             default=0, metavar="VALUE",
                             help=f"the parameter {param} of {decl.name} (default 0)")
    command.add_argument("--rulebook", default=None, help="a rulebook name, folder or file")
    command.set_defaults(run=_what_if, what_if=(book, decl, given))


def _word_value(text: str) -> Any:
    """A value given on the command line: a whole number, or an id."""
    return int(text) if re.fullmatch(r"-?[0-9]+", text) else text


def _what_if(args: argparse.Namespace) -> int:
    book, decl, given = args.what_if
    variables = {v: getattr(args, f"given_{i}") for i, v in enumerate(given)}
    params = {p: getattr(args, f"param_{i}") for i, p in enumerate(decl.params)}
    report = next((d for d in book.program.of(ir.FunctionDecl)
                   if d.name == decl.name + WHAT_IF_REPORT), None)
    if report is not None and report.params != decl.params:
        raise CortesRulesError(f"{book.name}: {report.name} should take the parameters of "
                               f"{decl.name} ({', '.join(decl.params)})")
    asked = report or decl
    value = book.evaluate(f"{asked.name}({', '.join(asked.params)})", **variables, **params)
    if report is not None and (not isinstance(value, (tuple, list)) or not all(
            isinstance(line, tuple) and len(line) == 2 and isinstance(line[0], str)
            for line in value)):
        raise CortesRulesError(f"{book.name}: {report.name} should be a list of (label, "
                               f"value) pairs, not {_shown(value)}")
    print(", ".join(f"{k} {_shown(v)}" for k, v in {**variables, **params}.items()) +
          f" ({book.name}, {decl.name} [{decl.rule}])")
    if report is None:
        _print_value(value)
        return 0
    for label, item in value:
        if isinstance(item, dict):
            print(f"{label}:")
            _print_value(item, "  ")
        else:
            print(f"{label}: {_shown(item)}")
    return 0


def _replay(args: argparse.Namespace) -> int:
    if not Path(args.record).is_file():
        raise CortesRulesError(f"{args.record}: no such record file")
    book, state, shown = _position(args.record, args.rulebook, args.to, args.seed)
    print(f"Replay of {shown}; rulebook {book.name}")
    for entry in state.log:
        print(entry)
    print()
    print(state)
    outcome = state.outcome()
    if outcome is not None:
        print(f"Game over: {outcome.reason}; winner: {', '.join(outcome.winners) or 'none'}.")
    return 0


def _verify(args: argparse.Namespace) -> int:
    if not Path(args.record).is_file():
        raise CortesRulesError(f"{args.record}: no such record file")
    record = read_record(args.record, rulebook=args.rulebook)
    book = load_cached(args.rulebook, record.options, record.readings, record.scenario) \
        if args.rulebook else None
    for warning in record.warnings:
        print(f"{PROG}: warning: {args.record}: {warning}", file=sys.stderr)
    found = verify(record, book, seed=args.seed)
    if found.failure is not None:
        failure = found.failure
        rules = ", ".join(failure.rules) or "no numbered rule"
        print(f"{args.record}:{failure.line}: ply {failure.ply}: {failure.action!r} is illegal "
              f"({rules}): " + "; ".join(m for _, m in failure.reasons))
        print(f"{found.played} of {found.total} actions legal before it")
        return 1
    outcome = found.state.outcome()
    end = f"game over: {outcome.reason}" if outcome is not None else \
        f"game goes on ({found.state.phase_label}, turn {found.state.turn})"
    print(f"{args.record}: ok: all {found.total} actions legal (record version "
          f"{record.version}); {end}")
    return 0


def _ir(args: argparse.Namespace) -> int:
    from .core.printer import game_text, procedure_text
    from .dsl.to_core import to_core
    from .selfplay import parse_options

    name = args.rulebook or default_rulebook()
    _known_rulebook(name)
    book = load(name, options=parse_options(args.options), scenario=args.scenario)
    game = to_core(book.program)
    if args.procedure is not None:
        print("\n".join(procedure_text(game.procedure(args.procedure), game)))
    else:
        print(game_text(game))
    return 0


def _known_rulebook(name: str) -> None:
    """Refuse a name that is neither a path nor a shipped rulebook, with the nearest one."""
    games = shipped_games()
    if name in games or Path(name).exists():
        return
    close = difflib.get_close_matches(name, games, n=1)
    hint = f" (did you mean {close[0]!r}?)" if close else ""
    raise UnknownNameError(f"no rulebook {name!r}{hint}: not a path, and not one of the "
                           f"shipped games ({', '.join(games)})")


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


def _count(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"not a whole number: {text!r}") from None
    if value < 0:
        raise argparse.ArgumentTypeError(f"must be at least 0, not {value}")
    return value


def _position_options(command: argparse.ArgumentParser) -> None:
    command.add_argument("--to", type=_count, default=None, metavar="PLY",
                         help="for a record: the position after its first PLY actions "
                         "(default: after all of them)")
    command.add_argument("--seed", type=int, default=None,
                         help="dice seed (default: the record's, or 0)")
    command.add_argument("--rulebook", default=None, help="a rulebook name, folder or file "
                         "(default: the record's, or the default rulebook)")


def build_parser() -> argparse.ArgumentParser:
    """The command line: every subcommand with its options and help texts."""
    parser = _Parser(prog=PROG, description=DESCRIPTION, epilog=EPILOG)
    parser.add_argument("--version", action="version", version=f"{PROG} {__version__}")
    commands = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)
    check = commands.add_parser("check", help="compile rulebooks and report every problem")
    check.add_argument("paths", nargs="*", help="rulebook names, folders or .rules files")
    check.add_argument("--rulebook", default=None,
                       help="a rulebook name, folder or file (as a path)")
    check.set_defaults(run=_check)
    rules = commands.add_parser("rules", help="list a rulebook's numbered rules and its "
                                "other clauses")
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
    cover.add_argument("--tests", default=None, metavar="PATH", help="the tests folder to "
                       "scan (default: tests/ of the checkout the rulebook is in; required "
                       "for a rulebook outside a checkout, as an installed one is)")
    cover.set_defaults(run=_coverage)
    play = commands.add_parser("selfplay", help="play games with random legal choices and "
                               "print the outcome, or a summary of many games")
    play.add_argument("--seed", type=int, default=None, help="seeds the dice and the choices "
                      "(required for one game; with --games, the first game's seed, default 0)")
    play.add_argument("--games", type=_positive, default=None, metavar="N",
                      help="play N games, with the seeds SEED .. SEED+N-1, and print a summary: "
                      "outcomes, lengths and the log lines citing each rule")
    play.add_argument("--workers", type=_positive, default=None, metavar="W",
                      help="with --games: play on W worker processes (default 1: this one), "
                      "or with --ray on a local Ray instance of W CPUs")
    play.add_argument("--ray", action="store_true", help="with --games: run the games as "
                      "Ray tasks (needs pip install 'cortes-rules[ray]')")
    play.add_argument("--address", default=None, metavar="ADDR",
                      help="with --ray: the Ray cluster to use (default: a local instance "
                      "started for the run; 'auto': the one 'ray start' started)")
    play.add_argument("--json", default=None, metavar="PATH",
                      help="with --games: also write the summary to PATH as JSON")
    play.add_argument("--quiet", action="store_true",
                      help="with --games: no progress bar (there is none unless standard "
                      "error is a terminal)")
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
    play.set_defaults(run=_selfplay, parser=play)
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
                      "draw the position after it (without --setup; the default for a "
                      "rulebook that names no set-ups)")
    draw.add_argument("--seed", type=int, default=None,
                      help="seeds the game and the choices of --deploy (default: a record's "
                      "own, or 0)")
    draw.add_argument("--position", default=None,
                      help="draw this position instead of a starting one: a record file, a "
                      f"file in position notation, a set-up name, or {START} (a game with "
                      "no set-up)")
    draw.add_argument("--to", type=_count, default=None, metavar="PLY",
                      help="for a record: the position after its first PLY actions "
                      "(default: after all of them)")
    draw.set_defaults(run=_render)
    lowered = commands.add_parser("ir", help="print a rulebook lowered onto the core IR, "
                                  "or one of its procedures")
    lowered.add_argument("rulebook", nargs="?", default=None,
                         help="a rulebook name, folder or file")
    lowered.add_argument("--procedure", default=None, metavar="NAME",
                         help="print only this procedure")
    lowered.add_argument("--options", default=None, help="a preset (beginner, veteran), "
                         "'all', or rule numbers separated by commas")
    lowered.add_argument("--scenario", default=None,
                         help="the scenario to lower, by name or number (default: the first)")
    _rulebook_option(lowered, "rulebook")
    lowered.set_defaults(run=_ir)
    why = commands.add_parser("why", help="say whether an action is legal in a position, "
                              "and which rules forbid it")
    why.add_argument("position", help="a record file, a file in position notation, a set-up "
                     f"name of the rulebook, or {START} (a game with no set-up)")
    why.add_argument("action", nargs="+", help="the action, as its text (its words, "
                     "quoted or not) or its integer id")
    why.add_argument("--clause", action="store_true",
                     help="also print each forbidding clause as the rulebook states it")
    _position_options(why)
    why.set_defaults(run=_why)
    ask = commands.add_parser("evaluate", help="the value of an expression of the rules "
                              "language, such as a function the rulebook declares")
    ask.add_argument("expression", nargs="?", default=None,
                     help="an expression, e.g. a call of a function of the rulebook")
    ask.add_argument("variables", nargs="*", type=_variable, metavar="NAME=VALUE",
                     help="variables the expression reads: whole numbers, or ids of "
                     "pieces, places and players")
    ask.add_argument("--list", action="store_true",
                     help="list the functions the rulebook declares, with their rules")
    ask.add_argument("--position", default=None,
                     help="evaluate in a position: a record file, a file in position "
                     f"notation, a set-up name, or {START} (default: no game, as "
                     "Rulebook.evaluate)")
    _position_options(ask)
    ask.set_defaults(run=_evaluate)
    tell = commands.add_parser("explain", help="what a sequence of actions would do in a "
                               "position: the rule trail and the exact chance of every outcome",
                               description="Play the actions on a copy of the position. The "
                               "first one the rules refuse is named with the rules that forbid "
                               "it; otherwise every roll that follows is followed through all "
                               "its outcomes to where the question began, and each outcome is "
                               "printed with its exact probability and its rule trail "
                               "(docs/explain.md).")
    tell.add_argument("position", help="a record file, a file in position notation, a set-up "
                      "name, or 'start'")
    tell.add_argument("question", nargs="+", help="the actions, separated by ';' (quote "
                      "them): 'attack 1322; join S1; resolve'")
    tell.add_argument("--json", action="store_true", help="print the answer as JSON "
                      "(schema cortes_rules.explain/1)")
    tell.add_argument("--as", dest="player", default=None, metavar="PLAYER",
                      help="answer in this player's view (refused while pieces are hidden "
                      "from that player; default: the umpire's view)")
    tell.add_argument("--rolls", type=_count, default=None, metavar="N",
                      help="follow each outcome through at most N rolls or draws")
    _position_options(tell)
    tell.set_defaults(run=_explain)
    way = commands.add_parser("reach", help="the cheapest way for a piece to reach a place "
                              "in a position, or the rule that bars the way")
    way.add_argument("position", help="a record file, a file in position notation, a set-up "
                     "name, or 'start'")
    way.add_argument("piece", help="the piece's id")
    way.add_argument("place", help="the place to reach")
    way.add_argument("--kind", default=None, help="the kind of action to walk with "
                     "(default: the first legal one that names the piece and a place)")
    way.add_argument("--cost", default=None, metavar="ATTRIBUTE",
                     help="a numeric piece attribute whose growth is a step's price "
                     "(default: every step costs 1)")
    way.add_argument("--json", action="store_true", help="print the answer as JSON")
    way.add_argument("--as", dest="player", default=None, metavar="PLAYER",
                     help="answer in this player's view")
    _position_options(way)
    way.set_defaults(run=_reach)
    again = commands.add_parser("replay", help="play a record and print its log and the "
                                "position reached")
    again.add_argument("record", help="a record file")
    _position_options(again)
    again.set_defaults(run=_replay)
    check_record = commands.add_parser("verify", help="check that every action of a record is "
                                       "legal; report the first that is not, with its rules")
    check_record.add_argument("record", help="a record file")
    check_record.add_argument("--seed", type=int, default=None,
                              help="dice seed (default: the record's)")
    check_record.add_argument("--rulebook", default=None, help="a rulebook name, folder or "
                              "file (default: the record's)")
    check_record.set_defaults(run=_verify)
    host = commands.add_parser("serve", help="play in the browser: the reference front end")
    host.add_argument("--host", default="127.0.0.1", help="the address to listen on")
    host.add_argument("--port", type=_positive, default=8000, help="the port to listen on")
    host.add_argument("--rulebook", default=None, help="the rulebook of new games "
                      "(default: the default rulebook)")
    host.add_argument("--options", default=None, help="a preset (beginner, veteran), 'all', "
                      "or optional rule numbers separated by commas")
    host.add_argument("--setup", default=None, help="the set-up of new games (default: the "
                      "rulebook's last one)")
    host.add_argument("--cost", default=None, metavar="ATTRIBUTE",
                      help="a numeric piece attribute whose growth is a step's price, shown "
                      "on reachable places (default: steps are counted)")
    host.add_argument("--forecast", default=None, metavar="EXPRESSION",
                      help="an expression of the rules language giving a distribution, "
                      "shown with its exact chances whenever it has a value")
    host.set_defaults(run=_serve)
    return parser


def _serve(args: argparse.Namespace) -> int:
    from .selfplay import parse_options

    try:
        import uvicorn  # noqa: F401  (cortes_rules.serve imports its libraries lazily)

        from .serve import app, run  # noqa: F401
    except ImportError:
        raise CortesRulesError("serve needs Starlette and uvicorn: pip install "
                               "'cortes-rules[serve]'") from None
    print(f"{PROG}: serving on http://{args.host}:{args.port}/ (Ctrl-C stops)",
          file=sys.stderr)
    run(args.host, args.port, rulebook=args.rulebook,
        options=tuple(parse_options(args.options)), setup=args.setup, cost=args.cost,
        forecast=args.forecast)
    return 0


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cortes-rules`` command."""
    parser = build_parser()
    words = list(sys.argv[1:] if argv is None else argv)
    try:
        _add_what_if_commands(parser, words)
        args = parser.parse_args(words)
        given = getattr(args, "rulebook_option", None)
        if given is not None:
            positional = getattr(args, args.rulebook_dest)
            if positional is not None and positional != given:
                parser.error(f"two rulebooks given: {positional!r} and --rulebook {given!r}")
            setattr(args, args.rulebook_dest, given)
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
