"""The ``cortes-rules`` command.

- ``cortes-rules check [PATH ...]``: compile rulebooks and print every
  diagnostic; exit 1 when any is an error.
- ``cortes-rules demo [--seed N]``: play the shipped demonstration record and
  print the adjudication log, each line citing its rules.
- ``cortes-rules rules [NAME]``: list the rule clauses of a rulebook.
"""

from __future__ import annotations

import argparse
import sys
from collections.abc import Sequence

from .errors import CortesRulesError, RulesError
from .loader import compile_rulebook


def _check(args: argparse.Namespace) -> int:
    status = 0
    for target in args.paths or ["cortes"]:
        try:
            program, warnings = compile_rulebook(target)
        except RulesError as error:
            for diagnostic in error.diagnostics:
                print(diagnostic.render(), file=sys.stderr)
            count = len(error.diagnostics)
            print(f"{target}: {count} error{'s' if count != 1 else ''}", file=sys.stderr)
            status = 1
            continue
        except CortesRulesError as error:  # the message names the file
            print(f"cortes-rules: {error}", file=sys.stderr)
            status = 1
            continue
        for diagnostic in warnings:
            print(diagnostic.render(), file=sys.stderr)
        print(f"{target}: ok ({len(program.rules)} rules, {len(warnings)} warnings)")
    return status


def _rules(args: argparse.Namespace) -> int:
    program, _ = compile_rulebook(args.name)
    for rule in program.rules.values():
        flag = " (optional)" if rule.optional else ""
        print(f"{rule.number:>6}  {rule.title}{flag}")
    return 0


def _demo(args: argparse.Namespace) -> int:
    from .demo import run_demo

    return run_demo(seed=args.seed, out=sys.stdout)


def main(argv: Sequence[str] | None = None) -> int:
    """Entry point of the ``cortes-rules`` command."""
    parser = argparse.ArgumentParser(prog="cortes-rules", description=__doc__.splitlines()[0])
    commands = parser.add_subparsers(dest="command", required=True)
    check = commands.add_parser("check", help="compile rulebooks and report every problem")
    check.add_argument("paths", nargs="*", help="rulebook names, folders or .rules files")
    check.set_defaults(run=_check)
    rules = commands.add_parser("rules", help="list a rulebook's rule clauses")
    rules.add_argument("name", nargs="?", default="cortes")
    rules.set_defaults(run=_rules)
    demo = commands.add_parser("demo", help="play the demonstration game and print its log")
    demo.add_argument("--seed", type=int, default=None, help="dice seed (default: the record's)")
    demo.set_defaults(run=_demo)
    args = parser.parse_args(argv)
    try:
        return int(args.run(args))
    except CortesRulesError as error:
        print(f"cortes-rules: {error}", file=sys.stderr)
        return 1


if __name__ == "__main__":
    sys.exit(main())
