"""Self-play at scale: many seeded games on worker processes or Ray, one summary.

``cortes-rules selfplay --games N [--seed S] [--workers W] [--ray [--address ADDR]]
[--json PATH] [--quiet]`` plays games ``0 .. N-1`` with the seeds ``S + i``,
each exactly as ``selfplay()`` plays one, and prints one summary: the outcomes
by winner, how many games finished and how many stopped at the turn cap, the
lengths of the games (decisions, and actions counting the chance events too),
and how many log lines cited each rule. A game that raises is kept aside with
its seed and error; it counts in nothing else.

The summary depends only on the rulebook, the options and the seeds: games
are collected in seed order whatever ran them, so one worker, several worker
processes and a Ray cluster give the same figures.

- ``--workers W``: ``W`` processes of a pool (started with ``spawn``); with
  ``W = 1`` the games run in this process.
- ``--ray``: the games run as Ray tasks, each a batch of seeds, on a local
  Ray instance started for the run with ``W`` CPUs (and shut down after it), or
  on the running cluster at ``--address ADDR`` (``auto`` finds one started
  with ``ray start``). Ray is optional: ``pip install 'cortes-rules[ray]'``.

Each process loads the rulebook once (the disk load cache makes that quick)
and plays all its batches with it. The summary is the umpire's view: the
citations count every log line, those addressed to one player included.
"""

from __future__ import annotations

import importlib
import logging
import math
import multiprocessing
import statistics
from collections import Counter
from collections.abc import Callable, Iterable, Iterator, Sequence
from concurrent.futures import ProcessPoolExecutor, as_completed
from concurrent.futures.process import BrokenProcessPool
from dataclasses import dataclass, field, replace
from pathlib import Path
from typing import Any

from ._resources import data_dir
from .api import GameState, Rulebook, load
from .api import backend as resolve_backend
from .errors import CortesRulesError
from .rule_numbers import rule_key
from .selfplay import game_defaults, selfplay

SCHEMA = "cortes_rules.selfplay/1"
"""The ``schema`` field of the summary written as JSON."""
MAX_BATCH = 25
"""Most games in one task (a batch is one submission to a pool or to Ray)."""
BATCHES_PER_WORKER = 4
"""Aim for at least this many batches per worker, so that the work stays balanced
and the progress bar moves."""
RAY_OBJECT_STORE = 100 * 1024 * 1024
"""Bytes of shared memory for a local Ray instance (results are small)."""
STOPPED = "stopped at the turn cap"
NO_WINNER = "none"


@dataclass(frozen=True)
class GameSpec:
    """What every game of a run shares: the rulebook as loaded, the set-up and turn cap.

    ``backend`` names the core to run on (``compiled`` or ``python``); it is
    passed to every worker, so workers that do not share this process's
    environment still run the same core.
    """

    rulebook: str
    options: tuple[str, ...] = ()
    scenario: str | None = None
    readings: tuple[tuple[str, str], ...] = ()
    setup: str | None = None
    max_turns: int | None = None
    backend: str | None = None

    def load(self) -> Rulebook:
        """The rulebook, loaded once per process for every spec that loads it alike."""
        key = (self.rulebook, self.options, self.scenario, self.readings, self.backend)
        book = _BOOKS.get(key)
        if book is None:
            book = load(self.rulebook, options=self.options, scenario=self.scenario,
                        readings=dict(self.readings), backend=self.backend)
            _BOOKS.clear()   # a worker keeps the rulebook of its current run only
            _BOOKS[key] = book
        return book


_BOOKS: dict[tuple[Any, ...], Rulebook] = {}


@dataclass(frozen=True)
class GameResult:
    """One game of a run, as the summary needs it (small, to travel between processes)."""

    seed: int
    finished: bool = False
    winners: tuple[str, ...] = ()
    decisions: int = 0
    actions: int = 0
    """Decisions and chance events."""
    citations: tuple[tuple[str, int], ...] = ()
    """(rule number, log lines citing it) for every rule the game's log cites."""
    error: str | None = None


def play_game(book: Rulebook, spec: GameSpec, seed: int) -> GameResult:
    """Play one game as ``selfplay()`` does and count what the summary needs.

    An error the game raises is returned (as its first line), not raised.
    """
    final: list[GameState] = []

    def keep(state: GameState) -> None:
        if not final:   # the game plays on this one state throughout
            final.append(state)

    try:
        result = selfplay(book, seed=seed, max_turns=spec.max_turns, setup=spec.setup,
                          after_each=keep)
    except Exception as error:   # one broken game is reported; the run goes on
        return GameResult(seed, error=_one_line(error))
    cited = Counter(rule for entry in final[0].log for rule in entry.rules) if final else {}
    outcome = result.outcome
    return GameResult(seed, finished=outcome is not None,
                      winners=tuple(outcome.winners) if outcome is not None else (),
                      decisions=result.decisions,
                      actions=result.decisions + result.chance_events,
                      citations=tuple(sorted(cited.items())))


def play_batch(spec: GameSpec, seeds: Sequence[int]) -> list[GameResult]:
    """Play the games of some seeds (what a worker process or a Ray task runs)."""
    book = spec.load()
    return [play_game(book, spec, seed) for seed in seeds]


def _one_line(error: BaseException) -> str:
    text = str(error).strip().splitlines()
    first = text[0] if text else ""
    if isinstance(error, CortesRulesError):
        return first or type(error).__name__
    return f"{type(error).__name__}: {first}" if first else type(error).__name__


@dataclass(frozen=True)
class Summary:
    """The games of a run and the figures made from them."""

    rulebook: str
    seed: int
    setup: str | None
    options: tuple[str, ...]
    scenario: str | None
    readings: tuple[str, ...]
    max_turns: int
    games: tuple[GameResult, ...] = field(default=())

    def as_dict(self) -> dict[str, Any]:
        """The summary as plain data, ready for JSON (the same whatever ran the games)."""
        played = [g for g in self.games if g.error is None]
        finished = [g for g in played if g.finished]
        outcomes = Counter(", ".join(g.winners) or NO_WINNER for g in finished)
        cited: Counter[str] = Counter()
        for game in played:
            cited.update(dict(game.citations))
        return {
            "schema": SCHEMA,
            "rulebook": self.rulebook,
            "scenario": self.scenario,
            "setup": self.setup,
            "options": list(self.options),
            "readings": list(self.readings),
            "max_turns": self.max_turns,
            "seeds": {"first": self.seed, "count": len(self.games)},
            "games": len(self.games),
            "finished": len(finished),
            "stopped_at_turn_cap": len(played) - len(finished),
            "errored": len(self.games) - len(played),
            "outcomes": dict(sorted(outcomes.items())),
            "lengths": {"decisions": _spread(g.decisions for g in played),
                        "actions": _spread(g.actions for g in played)},
            "citations": {rule: cited[rule] for rule in sorted(cited, key=rule_key)},
            "errors": [{"seed": g.seed, "error": g.error} for g in self.games
                       if g.error is not None],
        }

    def lines(self) -> Iterator[str]:
        """The summary as a text table."""
        data = self.as_dict()
        count = data["games"]
        last = self.seed + count - 1
        seeds = f"seed {self.seed}" if count == 1 else f"seeds {self.seed}-{last}"
        scenario = f"scenario {self.scenario}, " if self.scenario else ""
        readings = f", readings: {', '.join(self.readings)}" if self.readings else ""
        yield (f"Self-play of {self.rulebook}: {scenario}{count} game{'s' if count != 1 else ''}"
               f", {seeds}, set-up {self.setup or 'placed by the players'}, optional rules "
               f"on: {', '.join(self.options) or 'none'}{readings}, turn cap {self.max_turns}")
        yield (f"Finished {data['finished']}, {STOPPED} {data['stopped_at_turn_cap']}, "
               f"errored {data['errored']}")
        if data["outcomes"]:
            yield ""
            yield from _table(("Winner", "Games"), list(data["outcomes"].items()))
        yield ""
        rows = [(name, *(_number(spread[k]) for k in ("min", "median", "max", "mean")))
                for name, spread in data["lengths"].items() if spread]
        if rows:
            yield from _table(("Length", "min", "median", "max", "mean"), rows)
        else:
            yield "No game played to its end or its turn cap."
        if data["citations"]:
            yield ""
            yield from _table(("Rule", "Log lines"), list(data["citations"].items()))
        if data["errors"]:
            yield ""
        for error in data["errors"]:
            mark = f"seed {error['seed']}:"
            text = error["error"]
            yield text if text.startswith(mark) else f"{mark} {text}"


def _spread(values: Iterable[int]) -> dict[str, float | int]:
    """min, median, max and mean of some lengths (empty: none)."""
    numbers = list(values)
    if not numbers:
        return {}
    return {"min": min(numbers), "median": statistics.median(numbers), "max": max(numbers),
            "mean": round(statistics.fmean(numbers), 2)}


def _number(value: float | int) -> str:
    if isinstance(value, float) and not value.is_integer():
        return f"{value:.2f}".rstrip("0")
    return str(int(value))


def _table(header: Sequence[str], rows: Sequence[Sequence[Any]]) -> Iterator[str]:
    """Columns: the first one left-aligned, the others right-aligned."""
    cells = [[str(c) for c in header], *[[str(c) for c in row] for row in rows]]
    widths = [max(len(row[i]) for row in cells) for i in range(len(header))]
    for row in cells:
        yield "  ".join(cell.ljust(widths[0]) if i == 0 else cell.rjust(widths[i])
                        for i, cell in enumerate(row)).rstrip()


def play_many(spec: GameSpec, *, games: int, seed: int = 0, workers: int = 1,
              ray: bool = False, address: str | None = None,
              progress: Callable[[int], None] | None = None) -> Summary:
    """Play ``games`` games with seeds ``seed .. seed + games - 1`` and summarise them.

    Args:
        spec: the rulebook as loaded and how every game is played.
        games: how many games (at least 1).
        seed: the first game's seed.
        workers: processes to play on (1: this one), or with ``ray`` the CPUs of
            the local Ray instance started for the run.
        ray: run the games as Ray tasks.
        address: with ``ray``, the address of a running Ray cluster to use
            instead of starting a local instance. When this process has
            initialised Ray already, that cluster is used (and left running).
        progress: called with the number of games just done, as batches end.

    Raises:
        CortesRulesError: bad arguments, a rulebook that cannot be loaded, Ray
            missing or failing, a worker process that died.
    """
    for name, value in (("seed", seed), ("number of games", games),
                        ("number of workers", workers)):
        if isinstance(value, bool) or not isinstance(value, int):
            raise CortesRulesError(f"the {name} is a whole number, not {value!r}")
    if games < 1:
        raise CortesRulesError(f"the number of games must be at least 1, not {games}")
    if workers < 1:
        raise CortesRulesError(f"the number of workers must be at least 1, not {workers}")
    if address is not None and not ray:
        raise CortesRulesError("a Ray address is only used with Ray (--ray)")
    spec = _settled(spec)
    book = spec.load()   # checks the rulebook and its options before any worker starts
    max_turns, setup = game_defaults(book, spec.max_turns, spec.setup)
    spec = replace(spec, max_turns=max_turns, setup=setup)
    seeds = range(seed, seed + games)
    size = max(1, min(MAX_BATCH, math.ceil(games / (workers * BATCHES_PER_WORKER))))
    batches = [list(seeds[i:i + size]) for i in range(0, games, size)]
    done = progress or (lambda count: None)
    if ray:
        results = _on_ray(spec, batches, workers, address, done)
    elif workers == 1:
        results = []
        for batch in batches:
            results.extend(play_game(book, spec, s) for s in batch)
            done(len(batch))
    else:
        results = _on_processes(spec, batches, workers, done)
    by_seed = sorted(results, key=lambda game: game.seed)
    if [g.seed for g in by_seed] != list(seeds):
        raise CortesRulesError("the workers did not hand back one result for every game")
    return Summary(book.name, seed, setup, tuple(sorted(book.program.options, key=rule_key)),
                   book.scenario,
                   tuple(f"{entry.id}={book.readings[entry.id]}" for entry in book.interpretations
                         if book.readings.get(entry.id) != entry.default),
                   max_turns, tuple(by_seed))


def _settled(spec: GameSpec) -> GameSpec:
    """The spec with the backend named and a rulebook path made absolute, so that every
    worker loads the same rulebook on the same core."""
    rulebook = spec.rulebook
    bare = "/" not in rulebook and "\\" not in rulebook
    if not (bare and (data_dir("rulebook") / rulebook).is_dir()) and Path(rulebook).exists():
        rulebook = str(Path(rulebook).resolve())
    return replace(spec, rulebook=rulebook, backend=resolve_backend(spec.backend))


def _on_processes(spec: GameSpec, batches: list[list[int]], workers: int,
                  done: Callable[[int], None]) -> list[GameResult]:
    results: list[GameResult] = []
    context = multiprocessing.get_context("spawn")
    pool = ProcessPoolExecutor(max_workers=min(workers, len(batches)), mp_context=context)
    try:
        futures = [pool.submit(play_batch, spec, batch) for batch in batches]
        for future in as_completed(futures):
            batch_results = future.result()
            results.extend(batch_results)
            done(len(batch_results))
    except BrokenProcessPool as error:
        raise CortesRulesError(f"a worker process died: {error}") from None
    finally:
        pool.shutdown(wait=True, cancel_futures=True)
    return results


def _on_ray(spec: GameSpec, batches: list[list[int]], workers: int, address: str | None,
            done: Callable[[int], None]) -> list[GameResult]:
    try:
        ray: Any = importlib.import_module("ray")
    except ImportError:
        raise CortesRulesError("--ray needs Ray, which is not installed: "
                               "pip install 'cortes-rules[ray]'") from None
    started = not ray.is_initialized()
    if started:
        quiet = {"include_dashboard": False, "log_to_driver": False,
                 "logging_level": logging.ERROR}
        try:
            if address:
                ray.init(address=address, **quiet)
            else:   # "local": a new instance, never one found running
                ray.init(address="local", num_cpus=workers,
                         object_store_memory=RAY_OBJECT_STORE, **quiet)
        except Exception as error:
            raise CortesRulesError(f"Ray did not start: {_one_line(error)}") from None
    try:
        task = ray.remote(num_cpus=1, max_retries=0)(play_batch)
        pending = [task.remote(spec, batch) for batch in batches]
        results: list[GameResult] = []
        while pending:
            finished, pending = ray.wait(pending, num_returns=1)
            for ref in finished:
                batch_results = ray.get(ref)
                results.extend(batch_results)
                done(len(batch_results))
        return results
    except Exception as error:   # a task's own error comes wrapped in Ray's
        cause = getattr(error, "cause", None)
        if isinstance(cause, CortesRulesError):
            raise CortesRulesError(_one_line(cause)) from None
        raise CortesRulesError(f"a Ray task failed: {_one_line(cause or error)}") from None
    finally:
        if started:
            ray.shutdown()
