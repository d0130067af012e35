"""Types the checker can know at load: what a piece, a place or a player is.

The rules language declares no types for its variables, but many values have
one that is plain from the text: a comprehension's variable over ``pieces``
is a piece, an action's parameter declared ``unit: piece`` is one in the
options and the forbid clauses of that action, ``u.place`` is a place,
``count(...)`` a number, a value declared ``value leader: piece`` a piece.
Where both sides of a test are known this way, the checker (``.check``)
reports what could only fail at run time, or be silently false:

- an attribute the type does not have (``u.terrain`` for a piece: a place
  has terrain, a piece does not);
- a comparison of values that are never equal and have no order: a piece,
  a place or a player with a number, a text or a thing of another kind
  (``u == 3``, ``u.place == u``).

Anything unsure is left alone: a name that some clause binds dynamically
(a forbid clause's ``cost``, a function's parameter) has no known type
unless it is an option's parameter of a declared type; a variable that a
``set`` changes has none either; a table's cells, a hook's values and a
function's result have none.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping

from . import ir
from .scope import BUILTIN_ATTRIBUTES, Declarations, Report, hint

Type = str | None
"""``"int"``, ``"bool"``, ``"text"``, ``"none"``, ``"piece"``, ``"place"``,
``"player"``, or ``"list:T"`` for a collection of ``T``; None when unknown."""

ENTITIES = ("piece", "place", "player")

# What each kind of thing has built in (compile.py's getter), with its type.
BUILTIN: dict[str, dict[str, Type]] = {
    "piece": {"place": "place", "side": "player", "class": "text", "id": "text"},
    "place": {"pieces": "list:piece", "terrain": "list:text", "owner": "player", "id": "text",
              "kind": "text", "shore": "list:place"},
    "player": {"name": "text"},
}
assert {n for names in BUILTIN.values() for n in names} == BUILTIN_ATTRIBUTES

_GLOBALS: dict[str, Type] = {"players": "list:player", "pieces": "list:piece",
                             "hexes": "list:place", "areas": "list:place",
                             "zones": "list:place", "turn": "int", "phase": "text"}
_ACTION_TYPES: dict[str, Type] = {"piece": "piece", "place": "place", "hex": "place",
                                  "player": "player", "int": "int"}
_CALLS: dict[str, Type] = {"count": "int", "len": "int", "distance": "int", "any": "bool",
                           "all": "bool", "adjacent": "bool", "is_number": "bool",
                           "defined": "bool", "allowed": "bool", "neighbours": "list:place",
                           "zone": "place", "next_player": "player", "str": "text",
                           "join": "text"}
_WORDS = {"int": "a number", "bool": "a truth value", "text": "a text", "piece": "a piece",
          "place": "a place", "player": "a player"}


def of_ref(ref: ir.TypeRef | None) -> Type:
    """The type a declaration names (``int``, ``piece``, ``list of piece``)."""
    if ref is None:
        return None
    if ref.name in ("list", "set") and ref.of is not None:
        inner = of_ref(ir.TypeRef(ref.of, None, ref.span))
        return f"list:{inner}" if inner is not None else None
    return {"int": "int", "bool": "bool", "text": "text", "str": "text", "piece": "piece",
            "place": "place", "hex": "place", "player": "player"}.get(ref.name)


def element(collection: Type) -> Type:
    """The type of a collection's items."""
    if collection is not None and collection.startswith("list:"):
        return collection[len("list:"):]
    return None


class TypeChecker:
    """Walks every expression once with the types of the names it can know."""

    def __init__(self, declared: Declarations, binders: Iterable[str], report: Report) -> None:
        self.d = declared
        self.report = report
        self.dynamic = frozenset(binders)
        """Names some clause binds: unknown wherever no type is known for them."""
        of = declared.program.of
        attributes: dict[str, dict[str, Type]] = {k: dict(v) for k, v in BUILTIN.items()}
        for prop in declared.properties:
            attributes["piece"].setdefault(prop, None)
        for printed in of(ir.PrintedDecl):
            attributes["piece"].setdefault(printed.name, of_ref(printed.type))
        for decl in of(ir.AttributeDecl):
            attributes[decl.owner][decl.name] = of_ref(decl.type)
        for derived in of(ir.DeriveDecl):
            attributes[derived.owner].setdefault(derived.name, None)
        self.attributes = attributes
        self.values = {v.name: of_ref(v.type) for v in of(ir.ValueDecl)}
        # The parameters of each action kind by name, typed by its declaration;
        # a name that two options of one kind use at different places has no type.
        self.action_params: dict[str, dict[str, Type]] = {}
        phases = {p.activity for s in of(ir.Sequence) for p in s.phases if p.activity}
        self.phase_procedures = phases

    # -------------------------------------------------------------- entry point
    def run(self, statements: Iterable[ir.Statement]) -> None:
        statements = list(statements)
        self.collect_action_params(statements)
        for st in statements:
            self.statement(st)

    def collect_action_params(self, statements: list[ir.Statement]) -> None:
        seen: dict[str, dict[str, Type]] = {}
        conflicting: dict[str, set[str]] = {}

        def options(stmts: Iterable[ir.Stmt]) -> Iterable[ir.Option]:
            for st in stmts:
                if isinstance(st, (ir.Choose, ir.ChooseSealed)):
                    for option in st.options:
                        yield option
                        yield from options(option.body)
                for block in _blocks(st):
                    yield from options(block)

        for st in statements:
            if not isinstance(st, ir.Procedure):
                continue
            for option in options(st.body):
                action = self.d.actions.get(option.kind)
                if action is None or len(action.params) != len(option.params):
                    conflicting.setdefault(option.kind, set()).update(
                        p.name for p in option.params)
                    continue
                names = seen.setdefault(option.kind, {})
                for param, declared in zip(option.params, action.params, strict=True):
                    wanted = _ACTION_TYPES.get(declared.type)
                    if names.setdefault(param.name, wanted) != wanted:
                        conflicting.setdefault(option.kind, set()).add(param.name)
        for kind, names in seen.items():
            for name in conflicting.get(kind, ()):
                names[name] = None
        self.action_params = seen

    def statement(self, st: ir.Statement) -> None:
        rule = st.rule
        if isinstance(st, ir.Procedure):
            env: dict[str, Type] = {p: None for p in st.params}
            if st.name in self.phase_procedures and len(st.params) == 1:
                env[st.params[0]] = "player"   # a phase gives its procedure the player
            self.block(st.body, env, _set_targets(st.body), rule)
        elif isinstance(st, (ir.Forbid, ir.Permit)):
            self.expr(st.when, dict(self.action_params.get(st.action, {})), rule)
        elif isinstance(st, ir.FunctionDecl):
            self.expr(st.body, {p: None for p in st.params}, rule)
        elif isinstance(st, ir.Contribute):
            for node in (st.value, st.when):
                if node is not None:
                    self.expr(node, {}, rule)
        elif isinstance(st, ir.DeriveDecl):
            self.expr(st.expr, {st.owner: st.owner}, rule)
        elif isinstance(st, ir.AttributeDecl) and st.initial is not None:
            self.expr(st.initial, {st.owner: st.owner}, rule)
        elif isinstance(st, ir.ValueDecl):
            self.expr(st.initial, {}, rule)
        elif isinstance(st, ir.HideDecl):
            env = {"player": "player", "viewer": "player"} if st.attribute else {
                "piece": "piece", "viewer": "player"}
            self.expr(st.when, env, rule)
        elif isinstance(st, ir.FinishDecl):
            for node in (st.when, st.winner, *(v for _, v in st.report)):
                if node is not None:
                    self.expr(node, {}, rule)
        elif isinstance(st, ir.StartRequireDecl):
            env = {}
            if st.domain is not None and st.var is not None:
                env[st.var] = element(self.type_of(st.domain, {}, rule))
            self.expr(st.test, env, rule)

    # -------------------------------------------------------------- procedures
    def block(self, body: Iterable[ir.Stmt], env: dict[str, Type], changed: frozenset[str],
              rule: str) -> None:
        """Statements in order; ``env`` gains the variables they bind."""
        for st in body:
            self.stmt(st, env, changed, rule)

    def bind(self, env: dict[str, Type], name: str, kind: Type,
             changed: frozenset[str]) -> None:
        env[name] = None if name in changed else kind

    def stmt(self, st: ir.Stmt, env: dict[str, Type], changed: frozenset[str],
             rule: str) -> None:
        def x(node: ir.Expr | None, names: dict[str, Type] = env) -> None:
            if node is not None:
                self.expr(node, names, rule)

        if isinstance(st, ir.Let):
            self.bind(env, st.name, self.type_of(st.value, env, rule), changed)
        elif isinstance(st, ir.SetStmt):
            x(st.value)
            x(st.target)
        elif isinstance(st, ir.Put):
            x(st.pieces)
            x(st.place)
        elif isinstance(st, ir.If):
            x(st.test)
            for branch in (st.then, st.otherwise):
                inner = dict(env)
                self.block(branch, inner, changed, rule)
                for name in inner.keys() - env.keys():
                    env[name] = None   # bound in a branch: its type after the if is unsure
        elif isinstance(st, ir.ForEach):
            inner = dict(env)
            self.bind(inner, st.name, element(self.type_of(st.domain, env, rule)), changed)
            x(st.where, inner)
            self.block(st.body, inner, changed, rule)
            self.forget(env, inner)
        elif isinstance(st, (ir.While, ir.Loop)):
            if isinstance(st, ir.While):
                x(st.test)
            inner = dict(env)
            self.block(st.body, inner, changed, rule)
            self.forget(env, inner)
        elif isinstance(st, (ir.CallStmt, ir.CallEach)):
            for arg in st.args:
                x(arg)
        elif isinstance(st, (ir.Choose, ir.ChooseSealed)):
            if isinstance(st, ir.Choose):
                x(st.player)
                outer = env
            else:
                outer = dict(env)
                self.bind(outer, st.name, element(self.type_of(st.players, env, rule)),
                          changed)
            for option in st.options:
                inner = dict(outer)
                action = self.d.actions.get(option.kind)
                declared = (action.params if action is not None
                            and len(action.params) == len(option.params) else ())
                for index, param in enumerate(option.params):
                    kind = element(self.type_of(param.domain, inner, rule))
                    if declared:
                        kind = _ACTION_TYPES.get(declared[index].type)
                    self.bind(inner, param.name, kind, changed)
                for name, value in option.bindings:
                    self.bind(inner, name, self.type_of(value, inner, rule), changed)
                x(option.where, inner)
                x(option.cite, inner)
                self.block(option.body, inner, changed, rule)
                self.forget(env, inner)
        elif isinstance(st, ir.Roll):
            x(st.dice)
            self.bind(env, st.name, None, changed)
        elif isinstance(st, ir.Draw):
            x(st.source)
            self.bind(env, st.name, "piece", changed)
        elif isinstance(st, ir.Shuffle):
            x(st.place)
        elif isinstance(st, ir.Log):
            x(st.cite)
            x(st.to)
        elif isinstance(st, ir.Finish):
            x(st.winner)
            for _, value in st.report:
                x(value)
        elif isinstance(st, ir.Reveal):
            x(st.pieces)
            x(st.to)

    @staticmethod
    def forget(env: dict[str, Type], inner: dict[str, Type]) -> None:
        """Names first bound inside a block stay bound after it, their type unsure
        (the scope checker's rule: a later statement may see them)."""
        for name in inner.keys() - env.keys():
            env[name] = None

    # -------------------------------------------------------------- expressions
    def expr(self, node: ir.Expr, env: Mapping[str, Type], rule: str) -> None:
        """Report what the types show wrong in ``node`` and everything inside it."""
        self.type_of(node, env, rule)

    def type_of(self, node: ir.Expr, env: Mapping[str, Type], rule: str | None = None) -> Type:
        """The type of ``node``; with ``rule``, also report the problems inside it.
        Each node inside is visited once."""
        if isinstance(node, ir.IntLit):
            return "int"
        if isinstance(node, ir.BoolLit):
            return "bool"
        if isinstance(node, ir.StrLit):
            return "text"
        if isinstance(node, ir.NoneLit):
            return "none"
        if isinstance(node, ir.Name):
            return self.name_type(node.id, env)
        if isinstance(node, ir.Attr):
            return self.attribute_type(node, self.type_of(node.obj, env, rule), rule)
        if isinstance(node, ir.Compare):
            left = self.type_of(node.left, env, rule)
            right = self.type_of(node.right, env, rule)
            if rule is not None:
                self.compare(node, left, right, rule)
            return "bool"
        if isinstance(node, ir.BoolOp):
            for term in node.terms():
                self.type_of(term, env, rule)
            return "bool"
        if isinstance(node, ir.Call):
            return self.call_type(node, env, rule)
        if isinstance(node, ir.Cond):
            self.type_of(node.test, env, rule)
            then = self.type_of(node.then, env, rule)
            otherwise = self.type_of(node.otherwise, env, rule)
            return then if then == otherwise else None
        if isinstance(node, (ir.ListLit, ir.SetLit, ir.TupleLit)):
            kinds = {self.type_of(item, env, rule) for item in node.items}
            if isinstance(node, ir.TupleLit) or len(kinds) != 1 or None in kinds:
                return None
            return f"list:{kinds.pop()}"
        if isinstance(node, ir.Arith):
            kinds = {self.type_of(node.left, env, rule), self.type_of(node.right, env, rule)}
            if kinds == {"int"} and node.op != "/":
                return "int"
            return "text" if kinds == {"text"} and node.op == "+" else None
        if isinstance(node, ir.Neg):
            return "int" if self.type_of(node.operand, env, rule) == "int" else None
        if isinstance(node, ir.Not):
            self.type_of(node.operand, env, rule)
            return "bool"
        if isinstance(node, ir.Member):
            self.type_of(node.item, env, rule)
            self.type_of(node.collection, env, rule)
            return "bool"
        if isinstance(node, ir.Is):
            self.type_of(node.subject, env, rule)
            return "bool"
        if isinstance(node, ir.Index):
            self.type_of(node.obj, env, rule)
            self.type_of(node.key, env, rule)
        return None

    def name_type(self, name: str, env: Mapping[str, Type]) -> Type:
        if name in env:
            return env[name]
        if name in self.dynamic:
            return None   # bound somewhere: a dynamic scope may see that binding
        if name in self.values:
            return self.values[name]
        if name in self.d.players:
            return "player"
        if name in _GLOBALS:
            return _GLOBALS[name]
        pool = self.d.pools.get(name)
        if pool is not None and not pool.per_player:
            return "place"
        if name in self.d.regions:
            return "list:place"
        return None

    def attribute_type(self, node: ir.Attr, owner: Type, rule: str | None) -> Type:
        if owner not in ENTITIES:
            return None
        assert owner is not None
        known = self.attributes[owner]
        if node.name in known:
            return known[node.name]
        if rule is not None and node.name in self.d.attribute_names:
            # (a name no thing has is the scope checker's "unknown attribute")
            others = [k for k in ENTITIES if node.name in self.attributes[k]]
            elsewhere = (f" ({' and '.join(f'{_WORDS[k]}' for k in others)} has one)"
                         if others else "")
            self.report(node.span, f"{_WORDS[owner]} has no attribute {node.name!r}"
                        f"{elsewhere}{hint(node.name, known)}", rule)
        return None

    def call_type(self, node: ir.Call, env: Mapping[str, Type], rule: str | None) -> Type:
        arguments = [self.type_of(arg, env, rule) for arg in node.args]
        if node.binder is None:
            if node.func in self.d.functions:
                return None
            if node.func == "first" and arguments:
                return element(arguments[0])
            return _CALLS.get(node.func)
        assert node.domain is not None
        inner = dict(env)
        inner[node.binder] = element(self.type_of(node.domain, env, rule))
        if node.where is not None:
            self.type_of(node.where, inner, rule)
        item = (inner[node.binder] if node.element is None
                else self.type_of(node.element, inner, rule))
        if node.func in self.d.functions:
            return None
        if node.func in ("count", "len"):
            return "int"
        if node.func in ("any", "all"):
            return "bool"
        if node.func == "first":
            return item if not node.args or arguments[0] == item else None
        if node.func in ("list", "set", "sorted", "distinct"):
            return f"list:{item}" if item is not None else None
        return None

    def compare(self, node: ir.Compare, left: Type, right: Type, rule: str) -> None:
        """Report a comparison of two things that are never equal and have no order."""
        if left is None or right is None or "none" in (left, right) or left == right:
            return
        if left not in ENTITIES and right not in ENTITIES and {left, right} != {"int", "text"}:
            return   # a number and a truth value, two collections: left to run time
        if left not in _WORDS or right not in _WORDS:
            return
        what = f"{_WORDS[left]} with {_WORDS[right]}"
        if node.op in ("==", "!="):
            outcome = "always false" if node.op == "==" else "always true"
            self.report(node.span, f"this compares {what}: they are never equal, so the "
                        f"test is {outcome}", rule)
        else:
            self.report(node.span, f"'{node.op}' compares {what}, which have no order: "
                        "only numbers do", rule)


def _blocks(st: ir.Stmt) -> Iterable[tuple[ir.Stmt, ...]]:
    """The blocks of statements directly inside a statement (not a choice's options)."""
    if isinstance(st, ir.If):
        yield st.then
        yield st.otherwise
    elif isinstance(st, (ir.ForEach, ir.While, ir.Loop)):
        yield st.body


def _set_targets(body: Iterable[ir.Stmt]) -> frozenset[str]:
    """The variables a ``set`` changes anywhere in a procedure's body."""
    found: set[str] = set()
    stack = list(body)
    while stack:
        st = stack.pop()
        if isinstance(st, ir.SetStmt) and isinstance(st.target, ir.Name):
            found.add(st.target.id)
        if isinstance(st, (ir.Choose, ir.ChooseSealed)):
            for option in st.options:
                stack.extend(option.body)
        for block in _blocks(st):
            stack.extend(block)
    return frozenset(found)


__all__ = ["BUILTIN", "TypeChecker", "of_ref"]
