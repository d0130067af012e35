"""MkDocs hook: a map page and a counters page for each shipped rulebook.

Declared under ``hooks:`` in ``mkdocs.yml``. When the site is built, each
shipped rulebook (``rulebook/NAME/``) is loaded and written out as two pages,
which are not kept in git:

- ``map/NAME.md``: the picture of its starting position
  (:func:`cortes_rules.picture.render_svg`), both as an overview and at full
  size, written beside the page as ``map/NAME.svg``; the position is the one
  ``cortes-rules render`` draws (a rulebook's default set-up, or for a
  rulebook without set-ups its first scenario after the set-up stage,
  played with random legal choices as ``render --deploy`` plays it). Then
  where the pieces stand, the terrain and hexside features with how much of
  the map each covers, the named places, and the notes of the map and
  set-up blocks, under a notice that the map is a reconstruction.
- ``counters/NAME.md``: every piece of the counters block, grouped by side
  and class, as tables of its printed values.

Nothing here knows a game: sides, classes, labels, rule numbers and notes
all come from the rulebook's declarations, and the pages can be built
without MkDocs (:func:`map_markdown`, :func:`counters_markdown`), which only
:func:`on_files` needs.
"""

from __future__ import annotations

import sys
from collections.abc import Iterable
from dataclasses import dataclass
from pathlib import Path
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from mkdocs.structure.files import Files

    from cortes_rules.api import Rulebook
    from cortes_rules.dsl import ir
    from cortes_rules.engine.machine import GameState

ROOT = Path(__file__).resolve().parents[1]
MAP_FOLDER = "map"
COUNTERS_FOLDER = "counters"
SEED = 0
"""Seeds the game and the random choices of a set-up stage (``render``'s default)."""
LISTED_HEXES = 12
"""A named place of at most this many hexes has them listed; a larger one, its count."""
CSS_MAP = "rulebook-map"
"""The class of the box that holds the full-size picture (``docs/stylesheets/``)."""
CSS_OVERVIEW = "rulebook-map-overview"


def _package() -> None:
    """Import the package from this checkout (the hook runs outside any install)."""
    if str(ROOT) not in sys.path:
        sys.path.insert(0, str(ROOT))


def _slug(rulebook: str) -> str:
    return rulebook.replace("_", "-")


def map_page_path(rulebook: str) -> str:
    """The map page of a rulebook, relative to the docs folder."""
    return f"{MAP_FOLDER}/{_slug(rulebook)}.md"


def picture_path(rulebook: str) -> str:
    """The SVG file of a rulebook's map, relative to the docs folder."""
    return f"{MAP_FOLDER}/{_slug(rulebook)}.svg"


def counters_page_path(rulebook: str) -> str:
    """The counters page of a rulebook, relative to the docs folder."""
    return f"{COUNTERS_FOLDER}/{_slug(rulebook)}.md"


def rulebooks() -> list[str]:
    """The shipped rulebooks."""
    _package()
    from cortes_rules.rulebook_files import shipped_games

    return list(shipped_games())


def _text(text: object) -> str:
    """Plain text as Markdown (the rule reference's escaping)."""
    _package()
    from mkdocs_hooks.rule_reference import _text as escape

    return str(escape(str(text)))


def _cell(text: object) -> str:
    return _text(text).replace("|", "\\|")


def _rule_link(program: ir.Program, number: str, rulebook: str) -> str:
    """A rule number linked to its entry of the rule reference (a mechanism's, unlinked)."""
    _package()
    from mkdocs_hooks.rule_reference import anchor, page_path

    rule = program.rules.get(number)
    if rule is None or rule.mechanism:
        return f"`{number}`"
    return f"[{number}](../{page_path(rulebook)}#{anchor(number)})"


# ------------------------------------------------------------------ the position


@dataclass
class Position:
    """The starting position a map page draws, and how it was reached."""

    book: Rulebook
    state: GameState
    setup: str | None
    """The named set-up it starts from, if any."""
    deployed: bool
    """Whether the rulebook's set-up stage was played (with random legal choices)."""
    command: str
    """The ``cortes-rules render`` command that draws the same picture."""


def starting_position(rulebook: str, seed: int = SEED) -> Position:
    """The position ``cortes-rules render`` draws for a shipped rulebook.

    A rulebook with set-ups starts from its default one (``historical`` if it
    has it, else its first). One without set-ups but with a set-up stage is
    loaded with its first scenario (if it has scenarios) and the stage is
    played with random legal choices, seeded, by the code of
    ``cortes-rules render --deploy``.
    """
    _package()
    import cortes_rules
    from cortes_rules.cli import _play_opening
    from cortes_rules.selfplay import DEFAULT_SETUP

    book = cortes_rules.load(rulebook)
    command = f"cortes-rules render -o {_slug(rulebook)}.svg --rulebook {rulebook}"
    if book.setups:
        setup = DEFAULT_SETUP if DEFAULT_SETUP in book.setups else book.setups[0]
        state = book.new_game(seed=seed, setup=setup)
        return Position(book, state, setup, False, command)
    state = book.new_game(seed=seed)
    deployed = bool(book.opening_phases)
    if deployed:
        _play_opening(state, book.opening_phases, seed)
        command += " --deploy"
    if seed != SEED:
        command += f" --seed {seed}"
    return Position(book, state, None, deployed, command)


def render(position: Position) -> str:
    """The SVG picture of a position."""
    _package()
    from cortes_rules.picture import render_svg

    return str(render_svg(position.state))


# ------------------------------------------------------------------ the map page


def _notice(program: ir.Program, rulebook: str) -> list[str]:
    """The admonition that says plainly that the map is not the printed one."""
    assert program.map is not None
    block = program.map.block
    counters = program.counters
    source = f"`{counters.span.path}`" if counters is not None else "the counters file"
    return [
        '!!! warning "A reconstruction, not the printed map"',
        "    The rules text does not reproduce the printed map, and this picture is not "
        f"a copy of it. The map drawn here ({_text(program.map.label)}, from "
        f"`{block.span.path}`) is **our reconstruction**: it agrees with every fact the rules "
        "text states about the map (the hex numbers it cites, the places it names, the "
        "hexes its examples say are adjacent, the terrain it gives them), and everything "
        "else (where the rest lies, its shape, its other terrain) is our own choice. The "
        f"values printed on the counters come from {source}, whose notes "
        f"([on the counters page](../{counters_page_path(rulebook)}#notes)) say which of "
        "them the text gives and which are ours. Anyone who owns the printed game can "
        "transcribe the real map and counters in the same format and load them instead "
        "([Map and counter data](../data-format.md#replacing-the-data)).",
        ""]


def _describe(position: Position) -> list[str]:
    """What the picture shows: which set-up or scenario, and how it was reached."""
    book, state = position.book, position.state
    program = book.program
    out = ["## The position drawn", ""]
    if position.setup is not None:
        block = program.setups[position.setup]
        out += [f"The set-up `{position.setup}`: {_text(block.label)} (from "
                f"`{block.span.path}`).", ""]
    else:
        scenario = dict(book.scenarios).get(book.scenario or "")
        what = f"{_text(scenario)} (scenario `{book.scenario}`)" if scenario else "The game"
        if position.deployed:
            phases = ", ".join(f"`{p}`" for p in book.opening_phases)
            out += [f"{what}, after its set-up stage (phases {phases}), played with random "
                    f"legal choices (seed {SEED}): the players' own placements may differ.",
                    ""]
        else:
            out += [f"{what}, as it starts.", ""]
    placed = state.positions()
    on_board = [p for p, place in placed.items() if _on_board(state, place)]
    counts = [f"{len(on_board)} pieces on the map"]
    if len(placed) > len(on_board):
        counts.append(f"{len(placed) - len(on_board)} in pools beside it")
    unplaced = len(state.machine.world.pieces) - len(placed)
    if unplaced:
        counts.append(f"{unplaced} not in play")
    out += [", ".join(counts) + f"; turn {state.turn}, {_text(state.phase_label)}. "
            f"`{position.command}` draws the same picture.", ""]
    return out


def _on_board(state: GameState, place_id: str) -> bool:
    """Whether a place is part of the board (a hex, a zone, an area), not a pool."""
    place = state.machine.world.place[place_id]
    return bool(place.kind != "pool")


def _pieces_table(state: GameState) -> list[str]:
    """Where the pieces stand: one row per place, in place order, with the small named
    places of the map the place is in."""
    world = state.machine.world
    data = world.program.map
    small = {name: (label, set(ids)) for name, (label, ids) in data.places.items()
             if len(ids) <= LISTED_HEXES} if data is not None else {}
    by_place: dict[str, list[str]] = {}
    for piece, where in state.positions().items():
        by_place.setdefault(where, []).append(piece)
    if not by_place:
        return ["No piece is placed.", ""]
    out = ["| Place | Kind | In | Pieces |", "|---|---|---|---|"]
    for place_id in sorted(by_place, key=lambda p: world.place[p].index):
        place = world.place[place_id]
        name = f"`{place_id}`" + (f" ({_cell(place.label)})"
                                  if place.label and place.label != place_id else "")
        named = "; ".join(_cell(label) for label, ids in small.values() if place_id in ids)
        pieces = ", ".join(f"`{p}`" for p in by_place[place_id])
        out.append(f"| {name} | {place.kind} | {named} | {pieces} |")
    out.append("")
    return out


def _terrain_tables(program: ir.Program, rulebook: str) -> list[str]:
    """The terrain and hexside features the map uses, with how much of it each covers."""
    from cortes_rules.dsl import ir

    data = program.map
    assert data is not None
    out: list[str] = []
    hexes: dict[str, int] = {}
    for names in (*data.hexes.values(), *(f for _, f in data.areas.values())):
        for name in names:
            hexes[name] = hexes.get(name, 0) + 1
    terrain = [t for t in program.of(ir.TerrainDecl) if t.name in hexes]
    if terrain:
        out += ["## Terrain", "",
                "| Terrain | Name | Kind | Declared by | Hexes or areas |", "|---|---|---|---|---|"]
        out += [f"| {_cell(t.label)} | `{t.name}` | {t.kind} | "
                f"{_rule_link(program, t.rule, rulebook)} | {hexes[t.name]} |" for t in terrain]
        out.append("")
    sides: dict[str, int] = {}
    for names in (*data.hexsides.values(), *data.area_borders.values()):
        for name in names:
            sides[name] = sides.get(name, 0) + 1
    features = [f for f in program.of(ir.HexsideDecl) if f.name in sides]
    if features:
        out += ["## Hexside features", "",
                "| Feature | Name | Declared by | Hexsides or borders |", "|---|---|---|---|"]
        out += [f"| {_cell(f.label)} | `{f.name}` | {_rule_link(program, f.rule, rulebook)} | "
                f"{sides[f.name]} |" for f in features]
        out.append("")
    return out


def _places_table(program: ir.Program) -> list[str]:
    """The named places and zone groups of the map."""
    data = program.map
    assert data is not None
    rows = []
    for name, (label, ids) in data.places.items():
        listed = ", ".join(ids) if len(ids) <= LISTED_HEXES else f"{len(ids)} hexes"
        rows.append(f"| `{name}` | {_cell(label)} | {listed} |")
    for name, (label, numbers) in data.zone_groups.items():
        rows.append(f"| `{name}` | {_cell(label)} | zones "
                    f"{', '.join(str(n) for n in numbers)} |")
    if not rows:
        return []
    return ["## Named places", "",
            "The places the rules name, as the map file declares them.", "",
            "| Place | Label | Hexes or zones |", "|---|---|---|", *rows, ""]


def _notes(title: str, notes: Iterable[str], where: str) -> list[str]:
    notes = list(notes)
    if not notes:
        return []
    return [f"## {title}", "", f"The `note` lines of {where}, as written.", "",
            *(f"- {_text(n)}" for n in notes), ""]


def map_markdown(rulebook: str, svg: str | None = None,
                 position: Position | None = None) -> str:
    """The map page of a shipped rulebook, in Markdown.

    Args:
        rulebook: a shipped rulebook's name.
        svg: the picture (default: drawn from ``position``).
        position: the position drawn (default: :func:`starting_position`).
    """
    position = position or starting_position(rulebook)
    svg = svg if svg is not None else render(position)
    book = position.book
    program = book.program
    if program.map is None:
        return f"# Map: {_text(book.title)}\n\nThis rulebook has no map.\n"
    picture = picture_path(rulebook).rsplit("/", 1)[1]
    out = ["---", "hide:", "  - toc", "---", "",
           f"# Map: {_text(book.title)}", "",
           "<!-- Generated from the rulebook when the site is built; edit the rulebook, "
           "not this page. -->", ""]
    out += _notice(program, rulebook)
    out += _describe(position)
    out += [f"[![The map of {_text(book.title)} with the pieces of the position drawn]"
            f"({picture}){{ .{CSS_OVERVIEW} }}]({picture})", "",
            f"The whole map above; below, at full size (scroll inside the frame), or "
            f"[open the picture on its own]({picture}).", ""]
    out += ["## At full size", "",
            f'<div class="{CSS_MAP}">', svg.strip(), "</div>", ""]
    out += ["## Where the pieces stand", "",
            f"Each place that holds a piece, with the named places of the map (of at most "
            f"{LISTED_HEXES} hexes) it lies in.", ""]
    out += _pieces_table(position.state)
    out += _terrain_tables(program, rulebook)
    out += _places_table(program)
    out += _notes("What the map file says about itself", program.map.notes,
                  f"`{program.map.block.span.path}`")
    if position.setup is not None:
        block = program.setups[position.setup]
        out += _notes("What the set-up says about itself", block.notes,
                      f"the set-up `{block.name}`")
    return "\n".join(out)


# ------------------------------------------------------------------ the counters page


@dataclass
class Group:
    """The pieces of one class on one side."""

    side: str | None
    cls: str
    pieces: list[ir.CounterDecl]


def groups(book: Rulebook) -> list[Group]:
    """Every piece of the counters block, grouped by side (in declaration order, the
    pieces of no side last), then class (in declaration order), in block order."""
    from cortes_rules.dsl import ir

    program = book.program
    if program.counters is None:
        return []
    world = book.new_game(seed=SEED).machine.world
    sides = [s.name for s in program.of(ir.SideDecl)]
    classes = [c.name for c in program.of(ir.ClassDecl)]
    found: dict[tuple[str | None, str], list[ir.CounterDecl]] = {}
    for counter in program.counters.counters:
        side = world.piece[counter.id].side
        found.setdefault((side.name if side is not None else None, counter.cls),
                         []).append(counter)

    def order(key: tuple[str | None, str]) -> tuple[int, int]:
        side, cls = key
        return (sides.index(side) if side in sides else len(sides),
                classes.index(cls) if cls in classes else len(classes))

    return [Group(key[0], key[1], found[key]) for key in sorted(found, key=order)]


def _counter_table(program: ir.Program, pieces: list[ir.CounterDecl]) -> list[str]:
    """One table of pieces: id, name, the printed fields the rulebook declares (by the
    word a counter line writes them with), flags and properties."""
    from cortes_rules.dsl import ir

    printed = list(program.of(ir.PrintedDecl))
    declared = [p.name for p in program.of(ir.PropertyDecl)]
    flags = {f.name: f.label for f in program.of(ir.FlagDecl)}
    used: list[str] = []
    for counter in pieces:
        for field in counter.fields:
            if field.word in declared and field.word not in used:
                used.append(field.word)
    used.sort(key=declared.index)
    labels = {p.name: p.label for p in program.of(ir.PropertyDecl)}
    header = ["Id", "Name", *(d.word.capitalize() for d in printed)]
    if any(c.flags for c in pieces):
        header.append("Flags")
    header += [labels.get(n, n).capitalize() for n in used]
    out = ["| " + " | ".join(_cell(h) for h in header) + " |", "|" + "---|" * len(header)]
    for counter in pieces:
        row = [f"`{counter.id}`", _cell(counter.label)]
        for decl in printed:
            given = counter.given(decl.word)
            empty = "none" if decl.type.name == "list" else ""
            row.append(", ".join(str(v) for v in given) if given else empty)
        if "Flags" in header:
            row.append(", ".join(_cell(flags.get(f, f)) for f in counter.flags))
        row += [_cell(", ".join(str(v) for v in counter.given(n) or ())) for n in used]
        out.append("| " + " | ".join(row) + " |")
    out.append("")
    return out


def counters_markdown(rulebook: str) -> str:
    """The counters page of a shipped rulebook, in Markdown."""
    _package()
    import cortes_rules
    from cortes_rules.dsl import ir

    book = cortes_rules.load(rulebook)
    program = book.program
    out = [f"# Counters: {_text(book.title)}", "",
           "<!-- Generated from the rulebook when the site is built; edit the rulebook, "
           "not this page. -->", ""]
    counters = program.counters
    if counters is None:
        return "\n".join([*out, "This rulebook has no counters.", ""])
    side_labels = {s.name: s.label for s in program.of(ir.SideDecl)}
    class_decls = {c.name: c for c in program.of(ir.ClassDecl)}
    found = groups(book)
    out += ['!!! note "Where these values come from"',
            f"    Every piece of the counter mix {_text(counters.label)} "
            f"(`{counters.span.path}`), with the values printed on it. The rules text does "
            "not give every value: the [notes](#notes) of the file, at the end of this page, "
            "say which values the text gives and which are our reconstruction, and the "
            f"[map page](../{map_page_path(rulebook)}) says the same of the map.", "",
            f"{len(counters.counters)} pieces, one line each in the file (a unit printed as "
            "two counters, full strength and reduced, is one piece)."
            + "".join(f" {_text(d.word.capitalize())}: {_text(d.label)}."
                      for d in program.of(ir.PrintedDecl)), "",
            "| Side | Class | Pieces |", "|---|---|---|"]
    for group in found:
        side = side_labels.get(group.side or "", "no side")
        label = class_decls[group.cls].label if group.cls in class_decls else group.cls
        out.append(f"| {_cell(side)} | {_cell(label)} | {len(group.pieces)} |")
    out.append("")
    current: str | None = ""
    for group in found:
        if group.side != current:
            current = group.side
            out += [f"## {_text(side_labels.get(current, current))} (`{current}`)"
                    if current is not None else "## Pieces of no side", ""]
        decl = class_decls.get(group.cls)
        title = decl.label if decl is not None else group.cls
        out += [f"### {_text(title)}", ""]
        about = [f"Class `{group.cls}`"]
        if decl is not None:
            about.append(f"declared by {_rule_link(program, decl.rule, rulebook)}")
            if decl.traits:
                about.append("traits " + ", ".join(f"`{t}`" for t in decl.traits))
        out += [f"*{'; '.join(about)}; {len(group.pieces)} "
                f"piece{'s' if len(group.pieces) != 1 else ''}.*", ""]
        out += _counter_table(program, group.pieces)
    out += ["## Notes of the counters file { #notes }", "",
            f"The `note` lines of `{counters.span.path}`, as written.", ""]
    out += [f"- {_text(n)}" for n in counters.notes] or ["The file has no notes."]
    out.append("")
    return "\n".join(out)


# ------------------------------------------------------------------ MkDocs


def on_files(files: Files, config: Any) -> Files:
    from mkdocs.structure.files import File

    for rulebook in rulebooks():
        position = starting_position(rulebook)
        pages = {counters_page_path(rulebook): counters_markdown(rulebook)}
        if position.book.program.map is not None:
            svg = render(position)
            pages[picture_path(rulebook)] = svg
            pages[map_page_path(rulebook)] = map_markdown(rulebook, svg, position)
        for path, content in pages.items():
            old = files.get_file_from_path(path)
            if old is not None:
                files.remove(old)
            files.append(File.generated(config, path, content=content))
    return files
