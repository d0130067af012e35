"""Regenerate every golden trace in tests/golden/traces/ (the only way they are written).

Run from anywhere::

    python tests/golden/generate.py

It plays a fixed list of seeded random games with today's engine and writes
one trace per game (the format is described in golden.py), deletes traces
that are no longer in the list, prints how many plies of each action kind
were recorded and writes that summary into tests/golden/README.md. The
output is the same on every run and machine: the players' choices come from
``random.Random(seed)``, the dice from the game's own seeded generator
(``GameState.apply_chance``). Only the public API of cortes_rules is used.

Three kinds of games:

* ``demo-NN``: the demonstration set-up, two game turns;
* ``historical-NN``: the historical set-up, one game turn, cut at a ply cap
  so that the files stay small (a historical state has some 130 legal actions);
* ``random-NN``: 3-8 units a side on random hexes of one 8x8 block of the map,
  one unit per hex, so that they meet and fight; two game turns, cut at a
  ply cap;
* ``full-beginner-NN``, ``full-veteran-NN``: whole games with each preset of
  optional rules, from the set-up stage (3.1-3.3) to the end of the game or
  the end of game turn 20; their legal lines are digests (golden.py);
* ``gs-i-basic-NN``, ``gs-ii-basic-NN``, ``gs-iii-advanced-NN``: whole games of
  Grands Stratèges scenarios, from the screened deployment to the result
  (legal lines as digests).
"""

from __future__ import annotations

import random
import sys
from collections import Counter
from collections.abc import Mapping
from dataclasses import dataclass
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parents[1]
for path in (str(ROOT), str(HERE)):  # the package is used from the checkout
    if path not in sys.path:
        sys.path.insert(0, path)

import cortes_rules  # noqa: E402
import golden  # noqa: E402

#: The chance that a player ends the phase when "end" is legal.
P_END = 0.12
#: Full games: the chance that a player who may attack does so at once.
P_ATTACK = 0.6
#: Full games: the chance that the Spanish player splits for an interphase (4.3).
P_SPLIT = 0.15
#: Grands Stratèges: the chance that a player moves a unit nearer the enemy when he can.
P_CLOSE = 0.8
#: The chance that the attacker calls off an open battle when he may.
P_CANCEL = 0.1

#: Full games: the 20-turn cap of issue 6, and a ply cap far beyond any game.
FULL_TURNS = 20
FULL_PLY_CAP = 100_000

#: Units that never stand on a land hex: the gunboats (2.8, 7.19).
LAKE_ONLY = frozenset(f"S{n}" for n in range(12, 25))
#: Hexes no unit may enter or be placed in: the quagmire (7.10).
NO_ENTRY = frozenset({"3023"})
#: Random positions: units a side, and the size of the block of hexes they stand in.
UNITS_A_SIDE = (3, 8)
BLOCK = 8
#: Roughly the island of Tenochtitlan and its causeways (columns, rows), where
#: half the random games are centred so that city terrain and causeways matter.
ISLAND = ((24, 36), (8, 27))


@dataclass(frozen=True)
class GameSpec:
    name: str
    setup: str | None
    seed: int
    turn_limit: int
    ply_cap: int
    random_positions: bool = False
    options: str | None = None
    rulebook: str = "cortes"
    scenario: str | None = None


def game_specs() -> list[GameSpec]:
    """The games recorded, in file-name order of kind."""
    specs = [GameSpec(f"demo-{i:02d}", "demo", 100 + i, 2, 400) for i in range(1, 17)]
    specs += [GameSpec(f"historical-{i:02d}", "historical", 200 + i, 1, 70)
              for i in range(1, 11)]
    specs += [GameSpec(f"random-{i:02d}", None, 300 + i, 2, 150, random_positions=True)
              for i in range(1, 17)]
    specs += [GameSpec(f"full-{preset}-{i:02d}", None, base + i, FULL_TURNS, FULL_PLY_CAP,
                       options=preset)
              for preset, base in (("beginner", 400), ("veteran", 500)) for i in range(1, 3)]
    # Grands Stratèges: whole games of scenarios I-III, basic and advanced.
    specs += [GameSpec(f"gs-{name.lower()}-{options}-{i:02d}", None, base + i, 30, FULL_PLY_CAP,
                       options=options, rulebook="grands_strateges", scenario=name)
              for name, options, base, count in (("I", "basic", 600, 3), ("II", "basic", 610, 1),
                                                 ("III", "advanced", 620, 2))
              for i in range(1, count + 1)]
    return specs


def side_of(unit_id: str) -> str | None:
    """The side of a unit, by the rulebook's naming: S<n> and Cortes are Spanish.

    The two markers of 2.13 (``Marker1``, ``Marker2``) belong to no side.
    """
    if unit_id == "Cortes" or unit_id.startswith("S"):
        return "spanish"
    if unit_id == "Cuauhtemoc" or unit_id.startswith("A"):
        return "aztec"
    if unit_id.startswith("Marker"):
        return None
    raise ValueError(f"cannot tell the side of unit {unit_id!r}")


def _coords(hex_id: str) -> tuple[int, int]:
    return int(hex_id[:2]), int(hex_id[2:])


def random_positions(book: cortes_rules.Rulebook, seed: int,
                     on_island: bool) -> dict[str, str]:
    """3-8 units a side on distinct hexes of one 8x8 block of the map.

    One unit per hex keeps every hex within the stacking limits and no hex
    holds both sides; the block keeps the units close enough to fight.
    """
    rng = random.Random(10_000 + seed)
    pools = {side: [u for u in book.unit_ids if side_of(u) == side and u not in LAKE_ONLY]
             for side in ("spanish", "aztec")}
    hexes = [h for h in book.hex_ids if h not in NO_ENTRY]
    (c_low, c_high), (r_low, r_high) = ISLAND
    centres = ([h for h in hexes if c_low <= _coords(h)[0] <= c_high
                and r_low <= _coords(h)[1] <= r_high] if on_island else hexes)
    for _ in range(1000):
        column, row = _coords(rng.choice(centres))
        half = BLOCK // 2
        block = [h for h in hexes if column - half < _coords(h)[0] <= column + half
                 and row - half < _coords(h)[1] <= row + half]
        counts = {side: rng.randint(*UNITS_A_SIDE) for side in pools}
        if len(block) < sum(counts.values()):
            continue
        units = [u for side, pool in pools.items() for u in rng.sample(pool, counts[side])]
        positions = dict(zip(units, rng.sample(block, len(units)), strict=True))
        try:
            book.new_game(seed=seed, positions=positions)
        except cortes_rules.CortesRulesError:
            continue
        return positions
    raise RuntimeError(f"no random positions found for seed {seed}")


def choose_full(rng: random.Random, legal: tuple[str, ...]) -> str:
    """The random player of the full games: as :func:`choose`, but spoiling for a fight.

    Placed apart at the set-up (3.3), ending phases at random and splitting
    for an interphase (which redeploys everyone far apart) every other turn,
    uniform players hardly ever meet; here a player who may open a battle
    does so with chance P_ATTACK before anything else, and the Spanish
    player asks for an interphase with chance P_SPLIT only.
    """
    attacks = [a for a in legal if a.startswith("attack ")]
    if attacks and rng.random() < P_ATTACK:
        return rng.choice(attacks)
    if "split" in legal and "play_on" in legal:  # an interphase sends everyone home
        return "split" if rng.random() < P_SPLIT else "play_on"
    return choose(rng, legal)


def choose_gs(rng: random.Random, legal: tuple[str, ...], state: cortes_rules.GameState
              ) -> str:
    """The random player of the Grands Stratèges games, spoiling for a fight.

    As :func:`choose_full`, a player who may open a battle does so with chance
    P_ATTACK; a move that brings a unit nearer the closest enemy unit is
    picked with chance P_CLOSE; a unit steps off the map (VI.1, which
    eliminates it) only when nothing else is legal.
    """
    from cortes_rules.engine import hexgrid

    attacks = [a for a in legal if a.startswith("attack ")]
    if attacks and rng.random() < P_ATTACK:
        return rng.choice(attacks)
    staying = tuple(a for a in legal if not a.startswith("exit ")) or legal
    moves = [a for a in staying if a.startswith("move ")]
    if moves and rng.random() < P_CLOSE:
        player = state.current_player
        found = state.evaluate("list(u for u in pieces where u.side != q and on_map(u))",
                               q=player)
        enemies = [h for h in (state.place_of(str(u)) for u in found) if h]

        def nearer(action: str) -> bool:
            _, unit, to = action.split()
            here = state.place_of(unit)
            if not enemies or here is None:
                return False
            return min(hexgrid.distance(to, e) for e in enemies) < \
                min(hexgrid.distance(here, e) for e in enemies)

        closing = [a for a in moves if nearer(a)]
        if closing:
            return rng.choice(closing)
    return choose(rng, staying)


def choose(rng: random.Random, legal: tuple[str, ...]) -> str:
    """The random player.

    It ends the phase with chance P_END when "end" is legal, calls off an open
    battle with chance P_CANCEL when "cancel" is legal, and otherwise picks
    uniformly among the other legal actions. (Picking "cancel" as often as
    "join" or "resolve" would call off most battles before their dice roll.)
    """
    if "end" in legal and rng.random() < P_END:
        return "end"
    if "cancel" in legal:
        others = [a for a in legal if a != "cancel"]
        if not others or rng.random() < P_CANCEL:
            return "cancel"
        return rng.choice(others)
    return rng.choice(legal)


def play(book: cortes_rules.Rulebook, spec: GameSpec, positions: Mapping[str, str]
         ) -> golden.Trace:
    header = golden.Header(spec.name, spec.setup, spec.seed, spec.turn_limit, spec.ply_cap,
                           dict(positions), spec.options,
                           "digest" if spec.options else "full", spec.rulebook, spec.scenario)
    state = golden.new_game(book, header)
    rng = random.Random(spec.seed)
    plies = []
    while not state.is_terminal() and len(plies) < spec.ply_cap:
        turn, to_act, phase, legal = golden.observe(state)
        recorded = legal if header.legal_form == "full" else (golden.digest(legal),)
        if not legal:
            raise RuntimeError(f"{spec.name}: no legal action at ply {len(plies) + 1}")
        if state.is_chance_node():
            chosen = None
        elif spec.rulebook != "cortes":
            chosen = choose_gs(rng, legal, state)
        else:
            chosen = (choose_full if spec.options else choose)(rng, legal)
        action, log = golden.apply_and_log(state, chosen)
        plies.append(golden.Ply(len(plies) + 1, turn, to_act, phase, recorded, action, log))
    return golden.Trace(header, tuple(plies), golden.ending(state),
                        golden.finals(state, golden.book_for(header, book).unit_ids),
                        golden.outcome_lines(state))


def kind_of(name: str) -> str:
    return name.rsplit("-", 1)[0]


KINDS = ("place", "end", "move", "attack", "join", "resolve", "cancel", "roll", "lose", "advance",
         "stop", "remove", "end_combat", "retreat", "exit")


def summary(traces: list[golden.Trace]) -> str:
    """A Markdown table: plies of each action kind, by kind of game."""
    counts: dict[str, Counter[str]] = {}
    games: Counter[str] = Counter()
    endings: dict[str, Counter[str]] = {}
    for trace in traces:
        kind = kind_of(trace.header.game)
        games[kind] += 1
        endings.setdefault(kind, Counter())[trace.end] += 1
        counts.setdefault(kind, Counter()).update(p.action.split()[0] for p in trace.plies)
    columns = [*counts, "all"]
    counts["all"] = sum(counts.values(), Counter())
    games["all"] = sum(games.values())
    endings["all"] = sum(endings.values(), Counter())
    kinds = [k for k in KINDS if counts["all"][k]] + sorted(set(counts["all"]) - set(KINDS))
    rows = [["games", *(str(games[c]) for c in columns)],
            ["ended (terminal / cap)",
             *(f"{endings[c]['terminal']} / {endings[c]['cap']}" for c in columns)],
            *([k, *(str(counts[c][k]) for c in columns)] for k in kinds),
            ["all plies", *(str(sum(counts[c].values())) for c in columns)]]
    head = ["action kind", *columns]
    lines = ["| " + " | ".join(head) + " |", "|" + "|".join("---" for _ in head) + "|"]
    lines += ["| " + " | ".join(row) + " |" for row in rows]
    return "\n".join(lines)


README = HERE / "README.md"
START, STOP = "<!-- summary: written by generate.py -->", "<!-- end of summary -->"


def update_readme(table: str) -> None:
    text = README.read_text(encoding="utf-8")
    head, found, rest = text.partition(START)
    _, found_end, tail = rest.partition(STOP)
    if not found or not found_end:
        raise RuntimeError(f"{README} lacks the summary markers {START!r} ... {STOP!r}")
    README.write_text(f"{head}{START}\n{table}\n{STOP}{tail}", encoding="utf-8", newline="\n")


def main() -> None:
    book = cortes_rules.load("cortes")
    traces = []
    for spec in game_specs():
        # Every other random game is centred on the island.
        positions = (random_positions(book, spec.seed, on_island=spec.seed % 2 == 1)
                     if spec.random_positions else {})
        traces.append(play(book, spec, positions))
    written = {golden.write_trace(trace) for trace in traces}
    for stale in set(golden.trace_files()) - written:
        stale.unlink()
    size = sum(path.stat().st_size for path in written)
    table = summary(traces)
    update_readme(table)
    print(f"wrote {len(written)} traces to {golden.TRACES} ({size / 1e6:.2f} MB)")
    print(table)


if __name__ == "__main__":
    main()
