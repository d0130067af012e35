"""The core IR as text: deterministic, one thing a line, for reading and diffing.

``game_text(game)`` prints every section of a ``Game``; ``procedure_text``
one procedure, its instructions numbered and each ending in ``; rule N``.
Slots print as ``%N`` (their names are listed above the code), globals as
``$name``, refs as ``kind:name``, frame variables of the consulting frame as
``ctx.name``.
"""

from __future__ import annotations

from collections import Counter
from fractions import Fraction

from . import ir

_INFIX = frozenset(("+", "-", "*", "/", "mod", "==", "!=", "<", "<=", ">", ">=", "in", "notin",
                    "and", "or"))


def value_text(value: object) -> str:
    """A constant as the rules language writes it."""
    if value is None:
        return "none"
    if isinstance(value, bool):
        return "true" if value else "false"
    if isinstance(value, str):
        return repr(value)
    if isinstance(value, Fraction):
        return f"{value.numerator}/{value.denominator}" if value.denominator != 1 \
            else str(value.numerator)
    if isinstance(value, tuple):
        return "(" + ", ".join(value_text(v) for v in value) + ")"
    if isinstance(value, ir.Keyed):
        return "{" + ", ".join(f"{k}: {value_text(v)}" for k, v in value.entries) + "}"
    return str(value)


def expr_text(e: ir.Expr) -> str:
    """One expression on one line."""
    if isinstance(e, ir.Const):
        return value_text(e.value)
    if isinstance(e, ir.Ref):
        return f"{e.kind}:{e.name}"
    if isinstance(e, ir.Global):
        return f"${e.name}"
    if isinstance(e, ir.Slot):
        return f"%{e.index}"
    if isinstance(e, ir.Ctx):
        return f"ctx.{e.name}" if e.default is None else \
            f"ctx.{e.name}?{expr_text(e.default)}"
    if isinstance(e, ir.Each):
        # A binder that the consulted clauses read by name shows that name.
        binder = f"%{e.slot}" + (f" as {e.name}" if e.name else "")
        text = f"{e.reduce}({binder} in {expr_text(e.domain)}"
        if e.where is not None:
            text += f" where {expr_text(e.where)}"
        if e.element is not None:
            text += f" yield {expr_text(e.element)}"
        if e.default is not None:
            text += f" else {expr_text(e.default)}"
        return text + ")"
    if e.op == "attr":
        return f"{expr_text(e.args[0])}.{e.key}"
    if e.op == "is":
        return f"({expr_text(e.args[0])} is {e.key})"
    if e.op == "index":
        return f"{expr_text(e.args[0])}[{expr_text(e.args[1])}]"
    if e.op in _INFIX and len(e.args) >= 2:
        return "(" + f" {e.op} ".join(expr_text(a) for a in e.args) + ")"
    if e.op == "function" and e.params:
        # An expanded function whose body consults a clause: its arguments,
        # evaluated first, are named for that clause.
        body, *args = e.args
        named = ", ".join(f"{n} = {expr_text(a)}" for n, a in zip(e.params, args, strict=True))
        return f"function[{e.key}]({expr_text(body)} with {named})"
    head = f"{e.op}[{e.key}]" if e.key else e.op
    return f"{head}(" + ", ".join(expr_text(a) for a in e.args) + ")"


def _option_text(option: ir.Option, game: ir.Game) -> str:
    params = ", ".join(f"%{s} in {expr_text(d)}" for s, d in option.params)
    text = f"option {game.actions[option.action].name}({params})"
    for slot, e in option.bindings:
        text += f" with %{slot} = {expr_text(e)}"
    if option.where is not None:
        text += f" where {expr_text(option.where)}"
    if option.cite is not None:
        text += f" cite {expr_text(option.cite)}"
    return text + f" -> {option.body}"


def instr_text(ins: ir.Instr, game: ir.Game) -> str:
    """One instruction, without its number and rule."""
    args = [expr_text(a) for a in ins.args]
    op = ins.op
    if op == "let":
        return f"let %{ins.a} = {args[0]}"
    if op == "setglobal":
        return f"set ${game.values[ins.a].name} = {args[0]}"
    if op == "setattr":
        return f"set {args[0]}.{ins.text} = {args[1]}"
    if op == "put":
        return f"put {args[0]} into {args[1]}"
    if op == "jump":
        return f"jump {ins.target}"
    if op == "jumpifnot":
        return f"jumpifnot {args[0]} {ins.target}"
    if op == "forinit":
        return f"forinit %{ins.a} = {args[0]}"
    if op == "fornext":
        where = f" where {args[0]}" if args else ""
        return f"fornext %{ins.b} from %{ins.a}{where} else {ins.target}"
    if op == "call":
        return f"call {_proc_name(ins.a, game)}(" + ", ".join(args) + ")"
    if op in ("choose", "sealed"):
        who = f" %{ins.a}, collect %{ins.b}" if op == "sealed" else ""
        return f"{op} by {args[0]}{who} end {ins.target}"
    if op == "dispatch":
        return f"dispatch %{ins.b} as %{ins.a} end {ins.target}"
    if op in ("roll", "draw"):
        return f"{op} %{ins.a} = {args[0]}"
    if op == "phase":
        return f"phase {game.phases[ins.a].name}"
    if op == "endturn":
        return f"endturn {ins.target}"
    if op == "fail":
        return f"fail {ins.text!r}"
    if op in ("log", "finish"):
        return _with_texts(ins)
    if ins.keys:
        return op + " " + " ".join(f"{k}={a}" for k, a in zip(ins.keys, args, strict=True))
    return " ".join([op, *args])


def _with_texts(ins: ir.Instr) -> str:
    """``log`` and ``finish``: their texts as written, ``{expr}`` for each field."""
    head: list[str] = [ins.op]
    text = ""
    for key, e in zip(ins.keys, ins.args, strict=True):
        if key in ("text", "reason"):
            if isinstance(e, ir.Const) and isinstance(e.value, str):
                text += e.value
            else:
                text += "{" + expr_text(e) + "}"
            continue
        if text:
            head.append(repr(text))
            text = ""
        head.append(f"{key.replace('report:', 'report ')} {expr_text(e)}")
    if text:
        head.append(repr(text))
    return " ".join(head)


def _proc_name(index: int, game: ir.Game) -> str:
    return game.procedures[index].name


def procedure_text(proc: ir.Procedure, game: ir.Game) -> list[str]:
    """A procedure: its head, its slots by name, its numbered instructions."""
    lines = [f"procedure {proc.name}({', '.join(proc.params)})  ; rule {proc.rule}"]
    if proc.slot_names:
        lines.append("  slots " + ", ".join(f"%{i} {n}" for i, n in enumerate(proc.slot_names)))
    width = len(str(len(proc.code)))
    for at, ins in enumerate(proc.code):
        lines.append(f"  {at:>{width}}  {instr_text(ins, game)}  ; rule {ins.rule}")
        for option in ins.options:
            lines.append(f"  {'':>{width}}    {_option_text(option, game)}  ; rule {option.rule}")
    return lines


def game_text(game: ir.Game) -> str:
    """Every section of a game, in a fixed order."""
    out = [f"game {game.name}  ; rule {game.rule}", ""]
    out.append(f"players ({len(game.players)})")
    out += [f"  {i} {p.name} {p.label!r}{' party' if p.party else ''}  ; rule {p.rule}"
            for i, p in enumerate(game.players)]
    kinds = Counter(p.kind for p in game.places)
    edge_kinds = Counter(e.kind for e in game.edges)
    out += ["", f"places ({len(game.places)}: " + ", ".join(
        f"{n} {k}" for k, n in sorted(kinds.items())) + f"; metric {game.metric})"]
    out += [f"  {i} {p.id} {p.kind}" + (f" owner {game.players[p.owner].name}"
                                       if p.owner >= 0 else "") + f"  ; rule {p.rule}"
            for i, p in enumerate(game.places) if p.kind != "hex"]
    out.append(f"edges ({len(game.edges)}: " + ", ".join(
        f"{n} {k}" for k, n in sorted(edge_kinds.items())) + ")")
    out += [f"region {r.name} ({len(r.places)} places)  ; rule {r.rule}" for r in game.regions]
    out += [f"pool {p.name}{' ordered' if p.ordered else ''}  ; rule {p.rule}"
            for p in game.pools]
    out += ["", f"classes ({len(game.classes)})"]
    out += [f"  {c.name} side {game.players[c.side].name if c.side >= 0 else '-'}"
            + (f" traits {', '.join(c.traits)}" if c.traits else "") + f"  ; rule {c.rule}"
            for c in game.classes]
    out += ["", f"pieces ({len(game.pieces)})"]
    out += [f"  {i} {p.id} {p.cls} side {game.players[p.side].name if p.side >= 0 else '-'} "
            + " ".join(f"{k}={value_text(v)}" for k, v in p.props) + f"  ; rule {p.rule}"
            for i, p in enumerate(game.pieces)]
    out += ["", f"attributes ({len(game.attributes)})"]
    out += [f"  {a.owner}.{a.name}: {a.type} = "
            + (expr_text(a.initial) if a.initial is not None else "zero")
            + f" {a.visibility}  ; rule {a.rule}" for a in game.attributes]
    out += ["", f"values ({len(game.values)})"]
    out += [f"  {i} ${v.name}: {v.type} = {expr_text(v.initial)}  ; rule {v.rule}"
            for i, v in enumerate(game.values)]
    out += ["", f"tables ({len(game.tables)})"]
    out += [f"  {t.name}: {len(t.rows)} rows x {len(t.columns)} columns  ; rule {t.rule}"
            for t in game.tables]
    out += ["", f"dice ({len(game.dice)})"]
    out += [f"  {d.name}: " + (f"faces {', '.join(d.faces)}" if d.faces
                               else f"{d.count}d{d.sides}") + f"  ; rule {d.rule}"
            for d in game.dice]
    out += ["", f"hooks ({len(game.hooks)})"]
    for hook in game.hooks:
        out.append(f"  {hook.name}: {hook.type}  ; rule {hook.rule}")
        for c in hook.entries:
            when = f" when {expr_text(c.when)}" if c.when is not None else ""
            out.append(f"    = {expr_text(c.value)}{when}  ; rule {c.rule}")
    out += ["", f"clauses ({len(game.clauses)})"]
    for clause in game.clauses:
        despite = f" despite {clause.despite}" if clause.kind == "permit" else ""
        out.append(f"  {clause.kind} {game.actions[clause.action].name}{despite} when "
                   f"{expr_text(clause.when)}  ; rule {clause.rule}")
    out += ["", f"derived ({len(game.derived)})"]
    out += [f"  {d.owner}.{d.name} = {expr_text(d.expr)}  ; rule {d.rule}"
            for d in game.derived]
    out += ["", f"hides ({len(game.hides)})"]
    out += [f"  hide {h.attribute or 'piece'}{' and place' if h.place else ''}"
            f"({', '.join(h.params)}) when {expr_text(h.when)}  ; rule {h.rule}"
            for h in game.hides]
    out += ["", f"actions ({len(game.actions)})"]
    out += [f"  {i} {a.name}(" + ", ".join(f"{p.name}: {p.type}" for p in a.params)
            + f")  ; rule {a.rule}" for i, a in enumerate(game.actions)]
    out += ["", f"endings ({len(game.endings)})"]
    for e in game.endings:
        winner = f" winner {expr_text(e.winner)}" if e.winner is not None else ""
        out.append(f"  finish when {expr_text(e.when)}{winner}  ; rule {e.rule}")
    out += ["", f"requirements ({len(game.requirements)})"]
    out += [f"  require{' at start' if r.at_start else ''} {expr_text(r.test)}  ; rule {r.rule}"
            for r in game.requirements]
    out += ["", f"setups ({len(game.setups)})"]
    out += [f"  {s.name}: {len(s.placements)} pieces  ; rule {s.rule}" for s in game.setups]
    out += ["", f"phases ({len(game.phases)})"]
    out += [f"  {i} {p.name}{' opening' if p.opening else ''} by "
            + ("each player" if p.each_player else
               game.players[p.side].name if p.side >= 0 else "-")
            + (f" does {game.procedures[p.procedure].name}" if p.procedure >= 0 else "")
            + f"  ; rule {p.rule}" for i, p in enumerate(game.phases)]
    out += ["", f"procedures ({len(game.procedures) + 1})"]
    for proc in (game.main, *game.procedures):
        out += procedure_text(proc, game)
        out.append("")
    return "\n".join(out)
