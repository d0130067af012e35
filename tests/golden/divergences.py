"""Recompute where each 07590b8 trace first diverges, after a deliberate change.

    python tests/golden/divergences.py --change C9

replays every trace of traces-07590b8/ on today's engine and rewrites
divergences-07590b8.txt: a row whose first differing ply is unchanged keeps
its change; a row that now diverges earlier (or a trace that newly diverges)
is attributed to the change named by ``--change``, which CHANGES.md must
describe. A trace that now diverges *later* than listed, or no longer
diverges, is printed and left for a person to judge (an undone change is not
something to record silently). Without ``--change`` it only prints the
differences and writes nothing.
"""

from __future__ import annotations

import argparse
import sys
from pathlib import Path

HERE = Path(__file__).resolve().parent
sys.path.insert(0, str(HERE))

import golden  # noqa: E402
import test_07590b8 as old  # noqa: E402

import cortes_rules  # noqa: E402


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--change", help="the CHANGES.md entry to attribute new divergences to")
    args = parser.parse_args()
    book = cortes_rules.load("cortes")
    listed = old.DIVERGENCES
    rows: dict[str, tuple[int, str]] = {}
    problems = 0
    for path in golden.trace_files(old.OLD):
        found = old._first_divergence(book, path)
        before = listed.get(path.stem)
        if found is None:
            if before is not None:
                print(f"{path.stem}: no longer diverges (listed at ply {before[0]}, {before[1]})")
                problems += 1
            continue
        if before is not None and found == before[0]:
            rows[path.stem] = before
        elif before is not None and found > before[0]:
            print(f"{path.stem}: now diverges later, at ply {found} (listed {before[0]}, "
                  f"{before[1]})")
            problems += 1
            rows[path.stem] = before
        else:
            print(f"{path.stem}: now diverges at ply {found}"
                  + (f" (was {before[0]}, {before[1]})" if before else " (new)"))
            rows[path.stem] = (found, args.change or "?")
    if args.change is None:
        return 1 if problems else 0
    header = [line for line in (HERE / "divergences-07590b8.txt").read_text(
        encoding="utf-8").splitlines() if line.startswith("#")]
    body = [f"{name:<15}{ply:>3}  {change}" for name, (ply, change) in sorted(rows.items())]
    (HERE / "divergences-07590b8.txt").write_text("\n".join(header + body) + "\n",
                                                   encoding="utf-8")
    return 1 if problems else 0


if __name__ == "__main__":
    raise SystemExit(main())
