"""The hand-written C listing of the Cortés movement clauses, checked and timed (issue 48).

Run: python benchmarks/c_listing.py [--positions N] [--rounds R] [--seed S] [--json PATH]

``c_listing/movement.c`` lists the legal ``move`` actions of a land-movement
decision of Cortés (veteran) the way a hand-written engine would: the static
clauses (terrain costs 7.7, causeways 7.16, quagmire 7.10, chinampa 7.13,
Tepeyac 7.17) folded into one cost per mover class and directed edge, built
once from the loaded map; the dynamic ones (7.1, 7.2, 7.3, 7.4, 7.5 with its
exceptions 9.4 and 11.6, 7.19, 9.2) read from the state at each call. Its
header says which clause each line states, and why stacking limits are not
among them (6.6: they are held when a move ends).

This module compiles it with the system C compiler (``cc -O2 -shared -fPIC``)
into a temporary folder and loads it through ctypes; builds its input arrays
from real ``GameState`` positions, recorded at the land-movement decisions of
seeded random games from the historical set-up (and two set up by hand,
``CRAFTED``, for clauses random games rarely reach); checks that the C listing
gives exactly the engine's legal ``move`` ids on every recorded position (a
mismatch is an error that prints the position); and times, on the same
positions, the C listing (run ``calls`` times inside C, so the ctypes call is
not counted) and the engine's listing of that decision (``legal_action_ids()``
with the state's kept listing cleared, so that each call lists anew),
interleaved A B B A, round after round.

The same recorded positions are reached on the native VM of the core IR (the same
actions and dice), checked to give the engine's moves, and listed there anew
(``State.list_anew``: nothing kept from an earlier listing).

Figures (µs per listing, a mean over the positions; per round, then the median
and min/max over rounds): ``c_listing_us`` and ``engine_listing_us`` over every
position and their ratio ``engine_listing_vs_c``; ``vm_listing_us`` and
``c_recorded_listing_us`` over the recorded positions (the VM has not the
hand-made ones) and their ratio ``listing_vs_c`` (VM / C), the target of issue
48 being at most 3. Without the VM's extension the last three are left out.
"""

from __future__ import annotations

import argparse
import ctypes
import json
import random
import shutil
import statistics
import subprocess
import sys
import tempfile
import time
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import cortes_rules

SOURCE = Path(__file__).resolve().parent / "c_listing" / "movement.c"
clock = time.perf_counter

# Flags shared with movement.c (its enums).
PIECE_FLAGS = (("cannon", 1), ("cavalry", 2), ("leader", 4), ("cuauhtemoc", 8), ("cortes", 16),
               ("gunboat", 32), ("aztec", 64))
TENOCHTITLAN, TEPEYAC = 1, 2
SAILED, FINISHED = 1, 2
MIN_ANY_POINTS, RATE_ANY_CROSSING, EXIT_ALONG, CANNONS_OPEN = 1, 2, 4, 8


class ListingMismatch(AssertionError):
    """The C listing and the engine disagree on a recorded position."""


def compiler() -> str | None:
    """The system C compiler (``cc``), or None when there is none."""
    return shutil.which("cc")


def build(folder: Path) -> ctypes.CDLL:
    """Compile ``movement.c`` into ``folder`` and load it.

    Raises:
        RuntimeError: there is no C compiler, or it refused the file.
    """
    cc = compiler()
    if cc is None:
        raise RuntimeError("no C compiler (cc) on this machine")
    library = folder / "movement.so"
    done = subprocess.run([cc, "-O2", "-shared", "-fPIC", "-o", str(library), str(SOURCE)],
                          capture_output=True, text=True, check=False)
    if done.returncode != 0:
        raise RuntimeError(f"cc failed on {SOURCE}:\n{done.stderr}")
    lib = ctypes.CDLL(str(library))
    lib.cl_time.restype = ctypes.c_double
    return lib


def _ints(values: Sequence[int]) -> Any:
    return (ctypes.c_int * max(len(values), 1))(*values)


def _bytes(values: Sequence[int]) -> Any:
    return (ctypes.c_ubyte * max(len(values), 1))(*values)


def _id(value: Any) -> str | None:
    """The id of a piece, place or player the engine returned (None stays None)."""
    if value is None:
        return None
    return str(getattr(value, "id", None) or getattr(value, "name", None) or value)


class Tables:
    """The map, the pieces and the chart of a loaded Cortés rulebook, as C arrays,
    read through the public API (``GameState.evaluate`` of the rulebook's own names)."""

    def __init__(self, book: cortes_rules.Rulebook) -> None:
        state = book.new_game(seed=0, setup="historical")
        self.book = book
        self.pieces = list(book.piece_ids)
        self.hexes = list(book.hex_ids)
        self.places = list(book.place_ids)
        self.place_index = {p: i for i, p in enumerate(self.places)}
        hex_index = {h: i for i, h in enumerate(self.hexes)}
        self.move_base = book.action_id(f"move {self.pieces[0]} {self.hexes[0]}")
        for p, h in ((1, 0), (len(self.pieces) - 1, len(self.hexes) - 1)):
            got = book.action_id(f"move {self.pieces[p]} {self.hexes[h]}")
            assert got == self.move_base + p * len(self.hexes) + h, "move ids are not linear"
        self.move_ids = range(self.move_base, self.move_base + len(self.pieces) * len(self.hexes))

        terrains: dict[str, Any] = {}
        hex_terrain: dict[str, int] = {}
        for h in self.hexes:
            mask = 0
            for name, cost in state.evaluate(
                    "list((x, terrain_effects[x].move) for x in h.terrain)", h=h):
                terrains.setdefault(name, cost)
                mask |= 1 << list(terrains).index(name)
            hex_terrain[h] = mask
        names = list(terrains)
        chart: list[int] = []
        for name in names:   # aztec then spanish; -1 where the chart has no number
            cost = terrains[name]
            for side in ("aztec", "spanish"):
                c = cost.get(side) if isinstance(cost, dict) else cost
                chart.append(c if isinstance(c, int) and not isinstance(c, bool) else -1)

        place_hex = [hex_index.get(p, -1) for p in self.places]
        starts, targets, causeway = [0], [], []
        for p in self.places:
            if p in hex_index:
                near = [_id(n) for n in state.evaluate("list(n for n in neighbours(h))", h=p)]
                crossing = {_id(n) for n in state.evaluate(
                    "list(n for n in neighbours(h) where hexside(h, n) has causeway)", h=p)}
                for n in sorted((n for n in near if n in hex_index), key=hex_index.__getitem__):
                    targets.append(self.place_index[n])
                    causeway.append(int(n in crossing))
            starts.append(len(targets))
        region = [0] * len(self.places)
        for name, bit in (("tenochtitlan", TENOCHTITLAN), ("tepeyac", TEPEYAC)):
            for h in state.evaluate(f"list(h for h in hexes where h in {name})"):
                region[self.place_index[_id(h)]] |= bit   # type: ignore[index]
        flags = [0] * len(self.pieces)
        piece_index = {p: i for i, p in enumerate(self.pieces)}
        for word, bit in PIECE_FLAGS:
            for u in state.evaluate(f"list(u for u in pieces where u is {word})"):
                flags[piece_index[_id(u)]] |= bit   # type: ignore[index]
        side_code = {"aztec": 0, "spanish": 1}
        self.sides = [side_code.get(_id(s) or "", 2) for s in state.evaluate(
            "list(u.side for u in pieces)")]
        readings = book.readings
        self.readings = ((MIN_ANY_POINTS if readings["minimum_move"] == "any_points_left" else 0)
                         | (RATE_ANY_CROSSING if readings["causeway_rate_ends"] == "any_crossing"
                            else 0)
                         | (EXIT_ALONG if readings["causeway_exit"] == "along_causeway" else 0)
                         | (CANNONS_OPEN if "11.6" in book.program.options else 0))
        self.args = (len(self.places), len(self.pieces), len(self.hexes), self.move_base,
                     self.readings, _ints(place_hex), _ints(starts), _ints(targets),
                     _bytes(causeway), _ints([hex_terrain.get(p, 0) for p in self.places]),
                     _bytes(region), len(names), _ints(chart), names.index("causeway"),
                     names.index("quagmire"), names.index("chinampa_city"), _ints(flags),
                     _ints(self.sides))

    def load_into(self, lib: ctypes.CDLL) -> None:
        if lib.cl_init(*self.args) != 0:
            raise RuntimeError("the map is larger than movement.c's fixed arrays")

    def arrays(self, state: Any) -> tuple[Any, ...]:
        """The dynamic arguments of ``cl_list`` for a state at a movement decision."""
        index = self.place_index
        places = state.evaluate("list(u.place for u in pieces)")
        starts = state.evaluate("list(u.start for u in pieces)")
        closed = [0] * len(self.places)
        for u in state.evaluate("list(u.start for u in pieces where u.start != none "
                                "and u.start.closed)"):
            closed[index[_id(u)]] = 1   # type: ignore[index]
        dynamic = [(SAILED if s else 0) | (FINISHED if f else 0) for s, f in zip(
            state.evaluate("list(u.sailed for u in pieces)"),
            state.evaluate("list(u.finished for u in pieces)"), strict=True)]
        side = {"aztec": 0, "spanish": 1}[state.current_player]
        return (side, int(bool(state.evaluate("cuauhtemoc_free"))),
                _ints([index[_id(p)] if p is not None else -1   # type: ignore[index]
                       for p in places]),
                _ints(state.evaluate("list(u.move for u in pieces)")),
                _ints(state.evaluate("list(u.spent for u in pieces)")),
                _ints(state.evaluate("list(u.moved for u in pieces)")),
                _bytes(dynamic),
                _ints([index[_id(p)] if p is not None else -1   # type: ignore[index]
                       for p in starts]),
                _bytes(closed))

    def engine_moves(self, state: Any) -> list[int]:
        """The engine's legal ``move`` ids at this decision."""
        return [i for i in state.legal_action_ids() if i in self.move_ids]


def at_movement(tables: Tables, state: Any) -> bool:
    """Whether a state is at a land-movement decision with a move to make: its
    legal ids are ``end`` and ``move`` actions, some of them moves."""
    if state.is_terminal() or state.is_chance_node():
        return False
    ids = state.legal_action_ids()
    moves = sum(1 for i in ids if i in tables.move_ids)
    return moves > 0 and moves + (0 in ids) == len(ids)


def native_vm(book: cortes_rules.Rulebook) -> Any:
    """The native VM of the rulebook, or None where its extension was not built."""
    try:
        from cortes_rules.core.vm import VM
        return VM.of(book)
    except ImportError:
        return None


def record(tables: Tables, count: int, seed: int, every: int = 7,
           vm: Any = None) -> tuple[list[Any], list[Any]]:
    """``count`` positions (clones) at movement decisions of seeded random games from
    the historical set-up, one in ``every`` such decisions, a game after another; and
    with ``vm``, the same positions on the native VM (the same actions and dice)."""
    book, found, native = tables.book, [], []
    rng = random.Random(seed)
    game = seed
    while len(found) < count:
        state = book.new_game(seed=game, setup="historical", turn_limit=10)
        twin = (vm.new_game(seed=game, setup="historical", turn_limit=10, log=False)
                if vm is not None else None)
        seen = 0
        for _ in range(4000):
            if state.is_terminal() or len(found) >= count:
                break
            if state.is_chance_node():
                state.apply_chance()
                if twin is not None:
                    twin.apply_chance()
                continue
            if at_movement(tables, state):
                if seen % every == every // 2:
                    found.append(state.clone())
                    if twin is not None:
                        native.append(twin.clone())
                seen += 1
            action = rng.choice(state.legal_action_ids())
            state.apply(action)
            if twin is not None:
                twin.apply(action)
        game += 1
    return found, native


# Positions random games rarely reach, set up by hand: an Aztec knight (A1)
# next to a lone cannon (S25 at 1009: 11.6) and to Cortés alone but for a
# cannon (1109: 9.4), and Spanish cavalry (S9) next to chinampa city across a
# plain hexside (2513: 7.13); the rest gives both sides units to move.
CRAFTED = {"A1": "1010", "S25": "1009", "Cortes": "1109", "S26": "1109", "S1": "1110",
           "S9": "2613", "A2": "2514", "Cuauhtemoc": "3016"}


def crafted(tables: Tables) -> list[Any]:
    """The first Spanish and the first Aztec land-movement decision of a game from
    ``CRAFTED``, every phase before them ended at once."""
    state = tables.book.new_game(seed=0, positions=CRAFTED, turn_limit=3)
    found: dict[str, Any] = {}
    while len(found) < 2 and not state.is_terminal():
        if state.is_chance_node():
            state.apply_chance()
            continue
        if at_movement(tables, state) and state.current_player not in found:
            found[state.current_player] = state.clone()
        ids = state.legal_action_ids()
        state.apply(0 if 0 in ids else ids[0])
    return list(found.values())


class Listing:
    """The C listing loaded with one rulebook's tables, and recorded positions."""

    def __init__(self, book: cortes_rules.Rulebook, folder: Path, positions: int,
                 seed: int) -> None:
        self.tables = Tables(book)
        self.lib = build(folder)
        self.tables.load_into(self.lib)
        recorded, self.native = record(self.tables, positions, seed, vm=native_vm(book))
        self.hand_made = crafted(self.tables)
        self.positions = self.hand_made + recorded
        self.inputs = [self.tables.arrays(s) for s in self.positions]
        self.out = (ctypes.c_int * (len(self.tables.pieces) * 8))()

    def c_moves(self, inputs: tuple[Any, ...]) -> list[int]:
        n = self.lib.cl_list(*inputs, self.out)
        return list(self.out[:n])

    def check(self) -> int:
        """Compare the C listing with the engine on every position; returns how many
        moves were compared.

        Raises:
            ListingMismatch: a position where they differ, printed with the ids.
        """
        compared = 0
        action = self.tables.book.action_from_id
        for state, inputs in zip(self.positions, self.inputs, strict=True):
            ours, theirs = self.c_moves(inputs), self.tables.engine_moves(state)
            if ours != theirs:
                extra = [str(action(i)) for i in sorted(set(ours) - set(theirs))]
                missing = [str(action(i)) for i in sorted(set(theirs) - set(ours))]
                raise ListingMismatch(
                    f"the C listing differs from the engine at a {state.phase} decision of "
                    f"{state.current_player}: C lists {extra} that the engine does not, and "
                    f"misses {missing}\n{state.to_notation()}")
            compared += len(ours)
        for state, twin in zip(self.positions[len(self.hand_made):], self.native,
                               strict=True):
            if [i for i in twin.legal_action_ids() if i in self.tables.move_ids] != (
                    self.tables.engine_moves(state)):
                raise ListingMismatch(f"the native VM's moves differ from the engine's at "
                                      f"this position\n{state.to_notation()}")
        return compared

    def c_us(self, calls: int) -> float:
        """µs per C listing, a mean over the positions (``calls`` runs inside C each)."""
        per = [self.lib.cl_time(calls, *inputs, self.out) for inputs in self.inputs]
        return statistics.mean(per) * 1e6

    def c_recorded_us(self, calls: int) -> float:
        """µs per C listing over the recorded positions only (those the VM has too)."""
        per = [self.lib.cl_time(calls, *inputs, self.out)
               for inputs in self.inputs[len(self.hand_made):]]
        return statistics.mean(per) * 1e6

    def vm_us(self, calls: int) -> float:
        """µs per native VM listing of the recorded decisions, each listed anew (nothing
        kept from an earlier listing: ``State.list_anew``), a mean over the positions."""
        per = []
        for twin in self.native:
            start = clock()
            twin.list_anew(calls)
            per.append((clock() - start) / calls)
        return statistics.mean(per) * 1e6

    def engine_us(self, calls: int) -> float:
        """µs per engine listing of the same decisions, a mean over the positions."""
        per = []
        for state in self.positions:
            start = clock()
            for _ in range(calls):
                # The state keeps the listing of its position (GameState._legal);
                # cleared, the next call lists anew.
                state._legal = None
                state.legal_action_ids()
            per.append((clock() - start) / calls)
        return statistics.mean(per) * 1e6


def measure(book: cortes_rules.Rulebook, positions: int, rounds: int, seed: int,
            c_calls: int = 2000, engine_calls: int = 20) -> dict[str, Any]:
    """The checked figures of target (d): C and engine µs per listing, A B B A by round."""
    with tempfile.TemporaryDirectory() as folder:
        listing = Listing(book, Path(folder), positions, seed)
        compared = listing.check()
        listing.c_us(c_calls // 10)          # warm all three
        listing.engine_us(2)
        has_vm = bool(listing.native)
        if has_vm:
            listing.vm_us(2)
        runs: dict[str, list[float]] = {k: [] for k in (
            "c_listing_us", "engine_listing_us", "engine_listing_vs_c", "vm_listing_us",
            "c_recorded_listing_us", "listing_vs_c")}
        for r in range(rounds):
            work = [("c", lambda: listing.c_us(c_calls)),
                    ("engine", lambda: listing.engine_us(engine_calls))]
            if has_vm:
                work += [("c_recorded", lambda: listing.c_recorded_us(c_calls)),
                         ("vm", lambda: listing.vm_us(engine_calls))]
            took = {name: f() for name, f in (work if r % 2 == 0 else work[::-1])}
            runs["c_listing_us"].append(took["c"])
            runs["engine_listing_us"].append(took["engine"])
            runs["engine_listing_vs_c"].append(took["engine"] / took["c"])
            if has_vm:
                runs["vm_listing_us"].append(took["vm"])
                runs["c_recorded_listing_us"].append(took["c_recorded"])
                runs["listing_vs_c"].append(took["vm"] / took["c_recorded"])
    figures: dict[str, Any] = {"c_listing_positions": len(listing.positions),
                               "c_listing_vm_positions": len(listing.native),
                               "c_listing_moves_checked": compared}
    for key, found in runs.items():
        if found:
            figures[key] = statistics.median(found)
            figures[key + "_min"] = min(found)
            figures[key + "_max"] = max(found)
    return figures


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--json", metavar="PATH")
    args = parser.parse_args(argv)
    if compiler() is None:
        print("c_listing.py: no C compiler (cc) on this machine: nothing measured",
              file=sys.stderr)
        return 1
    book = cortes_rules.load("cortes", options="veteran")
    figures = measure(book, args.positions, args.rounds, args.seed)
    print(f"cortes_rules {cortes_rules.__version__}, backend {book.backend}: "
          f"{figures['c_listing_positions']} movement decisions, "
          f"{figures['c_listing_moves_checked']} moves, C listing = engine on each")
    for key in ("c_listing_us", "engine_listing_us", "engine_listing_vs_c", "vm_listing_us",
                "listing_vs_c"):
        if key not in figures:
            continue
        print(f"  {key:<20}{figures[key]:>10.4g}   [{figures[key + '_min']:.4g}, "
              f"{figures[key + '_max']:.4g}]")
    if args.json:
        Path(args.json).write_text(json.dumps(figures, indent=2) + "\n", encoding="utf-8")
    return 0


if __name__ == "__main__":
    sys.exit(main())
