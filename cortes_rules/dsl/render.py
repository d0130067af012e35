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
    if isinstance(node, ir.BoolLit) and node.reading is not None:
        return f"reading {node.reading}", 4  # folded at load; shown as written
    if isinstance(node, ir.BoolLit):
        return ("true" if node.value else "false"), 9
    if isinstance(node, ir.ReadingIs):
        return f"reading {node.entry} is {node.reading}", 4
    if isinstance(node, ir.NoneLit):
        return "none", 9
    if isinstance(node, ir.StrLit):
        return f'"{node.value}"', 9
    if isinstance(node, ir.Name):
        return node.id, 9
    if isinstance(node, ir.SetLit):
        return "{" + ", ".join(expr(i) for i in node.items) + "}", 9
    if isinstance(node, ir.ListLit):
        return "[" + ", ".join(expr(i) for i in node.items) + "]", 9
    if isinstance(node, ir.TupleLit):
        items = [expr(i) for i in node.items]
        return "(" + ", ".join(items) + ("," if len(items) == 1 else "") + ")", 9
    if isinstance(node, ir.Cond):
        return (f"if {expr(node.test)} then {expr(node.then)} "
                f"else {expr(node.otherwise)}"), 0
    if isinstance(node, ir.Attr):
        return f"{expr(node.obj, 8)}.{node.name}", 8
    if isinstance(node, ir.Index):
        return f"{expr(node.obj, 8)}[{expr(node.key)}]", 8
    if isinstance(node, ir.Not):
        return f"not {expr(node.operand, 3)}", 3
    if isinstance(node, ir.BoolOp):
        # A chain of one operator is written flat, however its terms are grouped
        # (the parser groups a long chain as a balanced tree; the grouping means
        # nothing to 'and' and 'or').
        level = _PRECEDENCE[node.op]
        return f" {node.op} ".join(expr(term, level + 1) for term in node.terms()), level
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
    if isinstance(node, ir.DecimalCell):
        return node.text
    if isinstance(node, ir.RatioCell):
        return f"{node.left}:{node.right}"
    if isinstance(node, ir.ResultCell):
        return f"{node.left}/{node.right}"
    if isinstance(node, ir.NameCell):
        return node.name
    return "{" + ", ".join(f"{k}: {cell(v)}" for k, v in node.entries) + "}"


def _type(node: ir.TypeRef) -> str:
    return node.name + (f" of {node.of}" if node.of else "")


def _label(label: str | None) -> str:
    return f' "{label}"' if label is not None else ""


def statement(node: ir.Statement) -> str:
    """One declaration as rules-language text (tables, sequences and procedures abbreviated)."""
    if isinstance(node, ir.SideDecl):
        return f'side {node.name} "{node.label}"'
    if isinstance(node, ir.PlayerDecl):
        return f'{"party" if node.party else "player"} {node.name} "{node.label}"'
    if isinstance(node, ir.FlagDecl):
        return f'flag {node.name} "{node.label}"'
    if isinstance(node, ir.PropertyDecl):
        return f'property {node.name} "{node.label}" values {", ".join(node.values)}'
    if isinstance(node, ir.ClassDecl):
        side = f" side {node.side}" if node.side not in (None, "None") else ""
        traits = f" traits {', '.join(node.traits)}" if node.traits else ""
        return f'class {node.name} "{node.label}"{side}{traits}'
    if isinstance(node, ir.TerrainDecl):
        return f'terrain {node.name} "{node.label}" {node.kind}'
    if isinstance(node, ir.HexsideDecl):
        return f'hexside {node.name} "{node.label}"'
    if isinstance(node, ir.TableDecl):
        size = f"{len(node.rows)} rows x {len(node.columns)} columns"
        return f'table {node.name} "{node.label}" ({size})'
    if isinstance(node, ir.DiceDecl):
        return f"dice {node.name} = {node.count}d{node.faces}"
    if isinstance(node, ir.FaceDieDecl):
        return f"die {node.name} faces {', '.join(node.faces)}"
    if isinstance(node, ir.Forbid):
        return f"forbid {node.action} when {expr(node.when)}"
    if isinstance(node, ir.Permit):
        tail = " then spend all" if node.spend_all else ""
        return f"permit {node.action} despite {node.despite} when {expr(node.when)}{tail}"
    if isinstance(node, ir.PoolDecl):
        tail = (" per player" if node.per_player else "") + (" ordered" if node.ordered else "")
        return f'pool {node.name} "{node.label}"{tail}'
    if isinstance(node, ir.AttributeDecl):
        start = f" = {expr(node.initial)}" if node.initial is not None else ""
        shown = " shown" if node.shown else ""
        return (f"attribute {node.owner} {node.name}: {_type(node.type)}{start}"
                f"{_label(node.label)}{shown}")
    if isinstance(node, ir.PrintedDecl):
        default = f" = {expr(node.default)}" if node.default is not None else ""
        tail = (f" written {node.written}" if node.written else "") \
            + (f" at most {node.at_most}" if node.at_most is not None else "") \
            + (f" one per {node.one_per}" if node.one_per else "") \
            + (" drawn as dots" if node.drawn == "dots" else
               " drawn as value" if node.drawn == "value" else "") \
            + (f" filled by {node.filled_by}" if node.filled_by else "")
        return f'printed {node.name}: {_type(node.type)}{default} "{node.label}"{tail}'
    if isinstance(node, ir.DeriveDecl):
        return f"derive {node.owner} {node.name} = {expr(node.expr)}"
    if isinstance(node, ir.RequireDecl):
        return f'require {expr(node.test)} "{node.message}"'
    if isinstance(node, ir.FinishDecl):
        winner = f" winner {expr(node.winner)}" if node.winner is not None else ""
        report = (" report " + ", ".join(f"{k} = {expr(v)}" for k, v in node.report)
                  if node.report else "")
        return f'finish when {expr(node.when)}{winner} "{node.reason}"{report}'
    if isinstance(node, ir.StartRequireDecl):
        each = f"for each {node.var} in {expr(node.domain)} " if node.domain is not None else ""
        cite = f" cite {expr(node.cite)}" if node.cite is not None else ""
        return f'require at start {each}that {expr(node.test)} "{node.message}"{cite}'
    if isinstance(node, ir.ValueDecl):
        return (f"value {node.name}: {_type(node.type)} = {expr(node.initial)}"
                f"{_label(node.label)}")
    if isinstance(node, ir.HookDecl):
        return f'hook {node.name}: {_type(node.type)} "{node.label}"'
    if isinstance(node, ir.Contribute):
        when = f" when {expr(node.when)}" if node.when is not None else ""
        return f"contribute {node.hook} = {expr(node.value)}{when}"
    if isinstance(node, ir.FunctionDecl):
        return f"function {node.name}({', '.join(node.params)}) = {expr(node.body)}"
    if isinstance(node, ir.ActionDecl):
        params = ", ".join(f"{p.name}: {p.type}" for p in node.params)
        return f'action {node.name}{f"({params})" if params else ""} "{node.label}"'
    if isinstance(node, ir.HideDecl) and node.attribute:
        return f"hide player {node.attribute} when {expr(node.when)}"
    if isinstance(node, ir.HideDecl):
        return f"hide piece{' and place' if node.place else ''} when {expr(node.when)}"
    if isinstance(node, ir.Sequence):
        opening = "opening " if node.opening else ""
        return f"{opening}sequence {node.name} ({len(node.phases)} phases)"
    if isinstance(node, ir.Procedure):
        return f"procedure {node.name}({', '.join(node.params)}) ({len(node.body)} statements)"
    if isinstance(node, ir.FormDecl):
        return f'form {node.name} "{node.pattern}" ({len(node.body)} statements)'
    if isinstance(node, ir.CiteInterpretation):
        return f"interpretation {', '.join(node.entries)}"
    if isinstance(node, ir.WhenReading):
        body = " ".join(statement(s) for s in node.body)
        return f"when reading {node.entry} is {node.reading} {{ {body} }}"
    raise TypeError(f"not a statement: {node!r}")
