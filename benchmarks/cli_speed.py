"""How fast ``import cortes_rules`` and the text commands answer, beside python-chess.

Each figure is a fresh interpreter, timed from start to exit, measured
several times in one run, the commands taking turns so that they share the
machine's load: ``python -c pass`` (the interpreter alone), ``python -c
"import chess"`` (python-chess, the yardstick: ``pip install
'.[bench]'``), ``python -c "import cortes_rules"``, and ``python -m
cortes_rules`` with ``--help``, ``rules``, ``rule 8.14``, ``rule 8`` and
``interpretations``, which answer from the text index in the load cache
(each is run once before the timing, so the cache is warm).

For each it prints the median wall time, the median CPU time (user and
system: on a loaded machine the wall time grows, the CPU time much less) and
both as a ratio to ``import chess``, and the targets: ``import cortes_rules``
at most 0.3 s, each text command under 0.5 s. Nothing is asserted: speed is
measured here, never in tests.

    python benchmarks/cli_speed.py [--runs N] [--json PATH]

It measures the ``cortes_rules`` this interpreter imports (the first line
says which: an installed package, or a checkout on ``PYTHONPATH``).
"""

from __future__ import annotations

import argparse
import json
import os
import resource
import statistics
import subprocess
import sys
import time
from pathlib import Path

IMPORT_TARGET_S = 0.3
TEXT_TARGET_S = 0.5
TEXT_COMMANDS = (["--help"], ["rules"], ["rule", "8.14"], ["rule", "8"], ["interpretations"])


def _cases(chess: bool) -> list[tuple[str, list[str], float | None]]:
    python = [sys.executable]
    cases: list[tuple[str, list[str], float | None]] = [
        ("python -c pass", [*python, "-c", "pass"], None)]
    if chess:
        cases.append(("import chess", [*python, "-c", "import chess"], None))
    cases.append(("import cortes_rules", [*python, "-c", "import cortes_rules"],
                  IMPORT_TARGET_S))
    for command in TEXT_COMMANDS:
        cases.append((f"cortes-rules {' '.join(command)}",
                      [*python, "-m", "cortes_rules", *command], TEXT_TARGET_S))
    return cases


def _run(argv: list[str]) -> tuple[float, float]:
    """Wall and CPU seconds of one run of a command (its output discarded)."""
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    start = time.perf_counter()
    done = subprocess.run(argv, stdout=subprocess.DEVNULL, stderr=subprocess.PIPE,
                          check=False)
    wall = time.perf_counter() - start
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    if done.returncode != 0:
        raise SystemExit(f"{' '.join(argv)} failed: {done.stderr.decode(errors='replace')}")
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return wall, cpu


def _has_chess() -> bool:
    return subprocess.run([sys.executable, "-c", "import chess"], capture_output=True,
                          check=False).returncode == 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=9, help="runs of each command (default 9)")
    parser.add_argument("--json", default=None, metavar="PATH",
                        help="also write the figures to PATH as JSON")
    args = parser.parse_args(argv)
    where = subprocess.run([sys.executable, "-c", "import cortes_rules; "
                            "print(cortes_rules.__file__)"], capture_output=True, text=True,
                           check=True).stdout.strip()
    print(f"cortes_rules: {Path(where).parent}")
    print(f"load cache: {os.environ.get('CORTES_RULES_CACHE') or 'the default folder'}; "
          f"{os.cpu_count()} CPUs, load average {os.getloadavg()[0]:.1f}")
    chess = _has_chess()
    if not chess:
        print("python-chess is not installed (pip install '.[bench]'): no yardstick")
    cases = _cases(chess)
    for _, command, _ in cases:          # warm: the text index and the bytecode caches
        _run(command)
    walls: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    cpus: dict[str, list[float]] = {name: [] for name, _, _ in cases}
    for _ in range(args.runs):
        for name, command, _ in cases:
            wall, cpu = _run(command)
            walls[name].append(wall)
            cpus[name].append(cpu)
    median = {name: statistics.median(values) for name, values in walls.items()}
    median_cpu = {name: statistics.median(values) for name, values in cpus.items()}
    yardstick = "import chess" if chess else "python -c pass"
    print(f"\n{args.runs} runs each, medians; ratios to '{yardstick}'")
    print(f"{'command':<32} {'wall s':>7} {'ratio':>6} {'CPU s':>7} {'ratio':>6}  target")
    figures: dict[str, object] = {"runs": args.runs, "yardstick": yardstick, "commands": {}}
    for name, _, target in cases:
        ratio = median[name] / median[yardstick]
        cpu_ratio = median_cpu[name] / median_cpu[yardstick] if median_cpu[yardstick] else 0.0
        verdict = "" if target is None else (
            f"{'<=' if name == 'import cortes_rules' else '<'} {target} s: "
            f"{'met' if median[name] <= target else 'missed (wall)'}"
            f"{'' if median[name] <= target or median_cpu[name] > target else ', met in CPU'}")
        print(f"{name:<32} {median[name]:7.3f} {ratio:6.2f} {median_cpu[name]:7.3f} "
              f"{cpu_ratio:6.2f}  {verdict}")
        commands = figures["commands"]
        assert isinstance(commands, dict)
        commands[name] = {"wall_s": median[name], "cpu_s": median_cpu[name],
                          "wall_ratio": ratio, "cpu_ratio": cpu_ratio, "target_s": target,
                          "walls_s": walls[name]}
    if args.json is not None:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
