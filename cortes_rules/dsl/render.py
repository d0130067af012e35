"""IR back to rules-language text: for logs, explanations and the rule reference."""

from __future__ import annotations

from . import ir

_PRECEDENCE = {"or": 1, "and": 2, "not": 3, "cmp": 4, "+": 5, "-": 5, "*": 6, "/": 6, "mod": 6}


def expr(node: ir.Expr, parent: int = 0) -> str:
    """The canonical text of an expression (spacing normalised, brackets minimal)."""
    text, level = _render(node)
    return f"({text})" if level < parent else text


def _render(node: ir.Expr) -> tuple[str, int]:
    if isinstance(node, ir.IntLit):
        return str(node.value), 9
    if isinstance(node, ir.BoolLit):
        return ("true" if node.value else "false"), 9
    if isinstance(node, ir.Name):
        return node.id, 9
    if isinstance(node, ir.SetLit):
        return "{" + ", ".join(expr(i) for i in node.items) + "}", 9
    if isinstance(node, ir.Attr):
        return f"{expr(node.obj, 8)}.{node.name}", 8
    if isinstance(node, ir.Index):
        return f"{expr(node.obj, 8)}[{expr(node.key)}]", 8
    if isinstance(node, ir.Not):
        return f"not {expr(node.operand, 3)}", 3
    if isinstance(node, ir.BoolOp):
        level = _PRECEDENCE[node.op]
        return f"{expr(node.left, level)} {node.op} {expr(node.right, level + 1)}", level
    if isinstance(node, ir.Compare):
        return f"{expr(node.left, 5)} {node.op} {expr(node.right, 5)}", 4
    if isinstance(node, ir.Member):
        op = "not in" if node.negated else "in"
        return f"{expr(node.item, 5)} {op} {expr(node.collection, 5)}", 4
    if isinstance(node, ir.Is):
        return f"{expr(node.subject, 5)} {node.op} {node.name}", 4
    if isinstance(node, ir.Arith):
        level = _PRECEDENCE[node.op]
        return f"{expr(node.left, level)} {node.op} {expr(node.right, level + 1)}", level
    if isinstance(node, ir.Neg):
        return f"-{expr(node.operand, 7)}", 7
    if isinstance(node, ir.Call):
        return f"{node.func}({_call_args(node)})", 9
    raise TypeError(f"not an expression: {node!r}")


def _call_args(node: ir.Call) -> str:
    extra = [expr(a) for a in node.args]
    if node.binder is None:
        return ", ".join(extra)
    assert node.domain is not None
    binding = f"{node.binder} in {expr(node.domain, 5)}"
    if node.element is not None:
        head = f"{expr(node.element)} for {binding}"
    else:
        head = binding
    if node.where is not None:
        head += f" where {expr(node.where)}"
    return ", ".join([head, *extra])


def cell(node: ir.Cell) -> str:
    """The text of a table cell."""
    if isinstance(node, ir.IntCell):
        return str(node.value)
    if isinstance(node, ir.RatioCell):
        return f"{node.attacker}:{node.defender}"
    if isinstance(node, ir.ResultCell):
        return f"{node.left}/{node.right}"
    if isinstance(node, ir.NameCell):
        return node.name
    return "{" + ", ".join(f"{k}: {cell(v)}" for k, v in node.entries) + "}"


def statement(node: ir.Statement) -> str:
    """One statement as rules-language text (tables and sequences abbreviated)."""
    if isinstance(node, ir.SideDecl):
        return f'side {node.name} "{node.label}"'
    if isinstance(node, ir.FlagDecl):
        return f'flag {node.name} "{node.label}"'
    if isinstance(node, ir.PropertyDecl):
        return f'property {node.name} "{node.label}" values {", ".join(node.values)}'
    if isinstance(node, ir.ClassDecl):
        traits = f" traits {', '.join(node.traits)}" if node.traits else ""
        return f'class {node.name} "{node.label}" side {node.side}{traits}'
    if isinstance(node, ir.TerrainDecl):
        return f'terrain {node.name} "{node.label}" {node.kind}'
    if isinstance(node, ir.HexsideDecl):
        return f'hexside {node.name} "{node.label}"'
    if isinstance(node, ir.TableDecl):
        size = f"{len(node.rows)} rows x {len(node.columns)} columns"
        return f'table {node.name} "{node.label}" ({size})'
    if isinstance(node, ir.DiceDecl):
        return f"dice {node.name} = {node.count}d{node.faces}"
    if isinstance(node, ir.Define):
        return f"define {node.context} {node.name} = {expr(node.expr)}"
    if isinstance(node, ir.Cost):
        tail = f" instead when {expr(node.override)}" if node.override is not None else ""
        return f"cost {node.action} = {expr(node.expr)}{tail}"
    if isinstance(node, ir.Forbid):
        return f"forbid {node.action} when {expr(node.when)}"
    if isinstance(node, ir.Permit):
        tail = " then spend all" if node.spend_all else ""
        return f"permit {node.action} despite {node.despite} when {expr(node.when)}{tail}"
    if isinstance(node, ir.Stacking):
        return f"stacking for {node.side} requires {expr(node.requires)}"
    if isinstance(node, ir.Overstack):
        return f"overstack removed by {node.remover}"
    if isinstance(node, ir.OneGroup):
        return "move one group at a time"
    if isinstance(node, ir.Odds):
        return f"odds when {expr(node.when)}: {expr(node.attacker)} to {expr(node.defender)}"
    if isinstance(node, ir.Shift):
        way = "right" if node.columns > 0 else "left"
        return f"shift {abs(node.columns)} {way} when {expr(node.when)}"
    if isinstance(node, ir.ShiftsCumulative):
        return "shifts are cumulative"
    if isinstance(node, ir.Clamp):
        return f"clamp odds to {node.table} {'after' if node.after_shifts else 'before'} shifts"
    if isinstance(node, ir.Resolve):
        return f"resolve on {node.table} with {node.dice} rolled by {node.roller}"
    if isinstance(node, ir.Results):
        return (f"results read {node.left} / {node.right} in steps allocated by owner "
                f"{node.first} first")
    if isinstance(node, ir.Advance):
        return f"advance into target at least {node.minimum} when {expr(node.when)}"
    if isinstance(node, ir.Sequence):
        return f"sequence {node.name} ({len(node.phases)} phases)"
    raise TypeError(f"not a statement: {node!r}")
