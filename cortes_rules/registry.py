"""The interpretations registry of a loaded rulebook, as records and as text.

Each ``interpretation`` entry of a rulebook records a defect of the printed
text: the rules concerned, what the text says, its readings and the default.
Here each entry becomes a plain record (for ``cortes-rules interpretations
--json`` and for tools), a block of text (for the terminal) or a section of
Markdown (the generated documentation page). Nothing here knows any game.
"""

from __future__ import annotations

from typing import Any

from .api import Rulebook
from .dsl import ir


def status(book: Rulebook, entry: ir.Interpretation) -> str:
    """Whether choosing a reading changes anything in this rulebook today.

    ``option``: some clause or map line depends on the reading (a load
    option); ``recorded``: the entry has several readings but the rules it
    names are not stated formally yet, so the reading takes effect when they
    are; ``single``: only one reading is recorded.
    """
    if len(entry.readings) < 2:
        return "single"
    used = book.depends_on(entry.id) or _map_depends(book, entry.id)
    return "option" if used else "recorded"


def _map_depends(book: Rulebook, entry_id: str) -> tuple[str, ...]:
    from .dsl.check import map_guards

    data = book.program.map
    if data is None:
        return ()
    if any(node.entry == entry_id for node, _ in map_guards(data.block.statements, "")):
        return (f"map {data.name}",)
    return ()


_STATUS_TEXT = {
    "option": "load option: changes {where}",
    "recorded": "recorded: the reading takes effect when rules {rules} are stated formally",
    "single": "one reading",
}


def record(book: Rulebook, entry: ir.Interpretation) -> dict[str, Any]:
    """One entry as a plain, JSON-ready record."""
    state = status(book, entry)
    return {
        "id": entry.id,
        "title": entry.title,
        "rules": list(entry.rules),
        "kind": entry.kind,
        "says": entry.says,
        "readings": [{"name": r.name, "text": r.text, "default": r.name == entry.default}
                     for r in entry.readings],
        "default": entry.default,
        "chosen": book.readings.get(entry.id),
        "because": entry.because,
        "status": state,
        "changes": list(book.depends_on(entry.id) + _map_depends(book, entry.id)),
        "file": entry.span.path,
        "line": entry.span.line,
    }


def records(book: Rulebook) -> list[dict[str, Any]]:
    """Every entry of the registry, in the rulebook's order."""
    return [record(book, e) for e in book.interpretations]


def _status_line(item: dict[str, Any]) -> str:
    return _STATUS_TEXT[item["status"]].format(
        where=", ".join(item["changes"]), rules=", ".join(item["rules"]))


def text(book: Rulebook) -> str:
    """The registry for a terminal: one block per entry."""
    blocks = []
    for item in records(book):
        kind = f" [{item['kind']}]" if item["kind"] else ""
        lines = [f"{item['id']}: {item['title']}{kind}",
                 f"  rules: {', '.join(item['rules'])}",
                 f"  says: {item['says']}",
                 "  readings:"]
        for reading in item["readings"]:
            marks = []
            if reading["default"]:
                marks.append("default")
            if reading["name"] == item["chosen"] and not reading["default"]:
                marks.append("chosen")
            mark = f" ({', '.join(marks)})" if marks else ""
            lines.append(f"    {reading['name']}{mark}: {reading['text']}")
        if item["because"]:
            lines.append(f"  why the default: {item['because']}")
        lines.append(f"  {_status_line(item)}")
        blocks.append("\n".join(lines))
    count = len(blocks)
    blocks.append(f"{count} interpretation{'s' if count != 1 else ''}")
    return "\n\n".join(blocks)


def markdown(book: Rulebook, *, source: str = "") -> str:
    """The registry as a documentation page (Markdown)."""
    items = records(book)
    options = [i for i in items if i["status"] == "option"]
    out = [
        "# Interpretations",
        "",
        "<!-- Generated from the interpretations registry when the site is built; "
        "edit the rulebook, not this page. -->",
        "",
        f"The printed rules of *{book.title}* have defects: contradictions, gaps, "
        "undefined terms, wrong cross-references, examples that disagree with the "
        "rules, a summary that disagrees with the body, numbering errors. Each one is "
        f"an entry of the rulebook's interpretations registry{source}: the rules it "
        "concerns, what the text says (in our words), the readings it allows, the "
        "default reading and why.",
        "",
        f"This page is generated from the registry when the site is built. It lists "
        f"{len(items)} entries; {len(options)} of them are load options today. The "
        "same list is printed by `cortes-rules interpretations` (`--json` for a "
        "machine-readable one).",
        "",
        "## Choosing a reading",
        "",
        "A rulebook is loaded with every entry's default reading. Another reading is "
        "chosen when it is loaded:",
        "",
        "```python",
        "import cortes_rules",
        "",
        f"book = cortes_rules.load({book.name!r}, readings={{{_example(options)}}})",
        "book.readings        # every entry's reading, chosen or default",
        "```",
        "",
        "An unknown entry or reading is refused with the list of valid ones. A "
        "**load option** entry changes the clauses named with it (each reading is "
        "tested). A **recorded** entry concerns rules not yet stated formally: its "
        "reading can be chosen already and takes effect when they are. In the rules "
        "language a clause depends on a reading with `reading ID is NAME` or "
        "`when reading ID is NAME { ... }` (see [the rules language](language.md)).",
        "",
        "## Summary",
        "",
        "| Entry | Rules | Kind | Default | Status |",
        "|---|---|---|---|---|",
    ]
    for item in items:
        out.append(f"| [{item['id']}](#{_anchor(item['id'])}) | {', '.join(item['rules'])} | "
                   f"{_kind(item)} | `{item['default']}` | {item['status']} |")
    out += ["", "## Entries", ""]
    for item in items:
        out += [f"### {item['id']}", "",
                f"**{_escape(item['title'])}**: rules {', '.join(item['rules'])}; "
                f"{_kind(item)}.", "",
                f"*What the text says.* {_escape(item['says'] or '')}", "",
                "*Readings:*", ""]
        for reading in item["readings"]:
            mark = " (default)" if reading["default"] else ""
            out.append(f"- `{reading['name']}`{mark}: {_escape(reading['text'])}")
        out.append("")
        if item["because"]:
            out += [f"*Why the default.* {_escape(item['because'])}", ""]
        out += [f"*Status.* {_escape(_status_line(item))}.", ""]
    out += _data_notes(book)
    return "\n".join(out)


def _data_notes(book: Rulebook) -> list[str]:
    """The notes of the map, counter mix and set-ups: what they reconstruct or guess."""
    program = book.program
    sections = []
    if program.map is not None and program.map.notes:
        sections.append((f"The map ({program.map.label})", program.map.notes))
    if program.counters is not None and program.counters.notes:
        sections.append((f"The counter mix ({program.counters.label})",
                         program.counters.notes))
    for name, setup in program.setups.items():
        if setup.notes:
            sections.append((f"The set-up `{name}` ({setup.label})", setup.notes))
    if not sections:
        return []
    out = ["## Notes in the data files", "",
           "The map, the counter mix and the set-ups are data, not rules: what they "
           "reconstruct, guess or leave out is said in their own notes, listed here as "
           "written.", ""]
    for title, notes in sections:
        out += [f"### {title}", ""]
        out += [f"- {_escape(note)}" for note in notes]
        out.append("")
    return out


def _example(options: list[dict[str, Any]]) -> str:
    if not options:
        return ""
    item = options[0]
    other = next(r["name"] for r in item["readings"] if not r["default"])
    return f"{item['id']!r}: {other!r}"


def _kind(item: dict[str, Any]) -> str:
    return (item["kind"] or "defect").replace("_", " ")


def _anchor(entry_id: str) -> str:
    return entry_id.lower()


def _escape(text: str) -> str:
    return text.replace("|", "\\|").replace("<", "&lt;")
