"""Stage 1: rules-language text to IR (``.ir``), with lark.

The grammar lives in ``grammar/rules.lark``. Parsing is LALR with lark's
contextual lexer; a syntax error becomes a ``RulesSyntaxError``
whose diagnostic gives file:line:column, the line with a caret, what the
parser expected there, and the number of the rule clause around it.
"""

from __future__ import annotations

import contextvars
import functools
import io
import pickle
import re
import types
from collections.abc import Callable
from typing import Any, TypeVar

import attrs
import lark
from lark import Token, v_args
from lark.grammar import Rule as _Rule
from lark.parsers import lalr_analysis as _lalr
from lark.visitors import Transformer_NonRecursive

from .. import load_cache
from .._resources import grammar_path
from ..errors import RulesSyntaxError
from ..rule_numbers import is_rule_number
from . import ir
from .diagnostics import Diagnostic, Span, enclosing_block, line_of
from .forms import grammar_rules, hole_values

# Readable names for the grammar's terminals, used in "expected: ..." lines.
_TERMINAL_NAMES = {
    "NAME": "a name", "STRING": "a quoted string", "INT": "a whole number",
    "SIGNED_INT": "a number", "RULE_NO": "a rule number such as 8.14 or III.4",
    "DECIMAL": "a number such as 0.5", "RATIO": "a ratio such as 3:1",
    "RESULT": "a result such as 1/2", "DICE": "dice such as 2d6",
    "HEX_ID": "a four-digit hex id", "LBRACE": "'{'", "RBRACE": "'}'", "LPAR": "'('",
    "RPAR": "')'", "LSQB": "'['", "RSQB": "']'", "COMMA": "','", "COLON": "':'",
    "EQUAL": "'='", "SLASH": "'/'", "DOT": "'.'", "COMPARE": "a comparison",
    "ADD_OP": "'+' or '-'", "MUL_OP": "'*', '/' or 'mod'", "$END": "end of file",
}


# The longest number literal: 18 digits always fit a signed 64-bit integer
# (the compiled core's), and nothing in a rulebook needs more.
MAX_NUMBER_DIGITS = 18

# The deepest nesting of one expression, or of statements inside statements
# (with the expressions at the bottom): every walker of the IR goes down by
# recursion, which this keeps far from Python's recursion limit. A chain of
# one boolean operator (``a or b or c ...``) is built as a balanced tree of
# its terms, so 1,000 terms nest only about a dozen levels deep.
MAX_NESTING = 200

_E = TypeVar("_E")

_SOURCE: contextvars.ContextVar[str] = contextvars.ContextVar("rules_source", default="")
_WORD_CHAR = re.compile(r"[A-Za-z0-9_]")


class _RunOnKeyword(Exception):
    """A keyword matched only the start of a longer word (``order`` read as ``or``)."""

    def __init__(self, token: Token, following: str) -> None:
        super().__init__(str(token))
        self.token = token
        self.following = following


def _keyword_guard(token: Token) -> Token:
    """Refuse a keyword immediately followed by more letters of the same word."""
    text = _SOURCE.get()
    end = token.end_pos if token.end_pos is not None else 0
    if end < len(text) and _WORD_CHAR.match(text[end]):
        tail = re.match(r"[A-Za-z0-9_]+", text[end:])
        raise _RunOnKeyword(token, tail[0] if tail else text[end])
    return token


@functools.lru_cache(maxsize=1)
def _parser() -> lark.Lark:
    return _parser_for(())


@functools.lru_cache(maxsize=16)
def _parser_for(forms: tuple[ir.FormDecl, ...]) -> lark.Lark:
    """The parser of the base grammar extended with a library's forms (see ``.forms``)."""
    grammar = grammar_path().read_text(encoding="utf-8")
    if forms:
        alternatives, rules = grammar_rules(forms)
        grammar = grammar.replace("// @form-uses", "| " + alternatives, 1) + "\n" + rules + "\n"
    # The keyword guards are lexer callbacks, but which terminals are keywords
    # is known only once lark has built (or loaded) the parser. Its lexers share
    # one callbacks dict and read it when they first scan, so the guards are
    # added to that dict after loading; the grammar is built once, not twice.
    parser = _lark(grammar, {_NO_TERMINAL: _keyword_guard}, start="start")
    keywords = {t.name: _keyword_guard for t in parser.terminals if _is_keyword(t)}
    guards = parser.lexer_conf.callbacks
    guards.update(keywords)
    if not _lexers_read(parser, guards):  # a lark that copies them: build again
        parser = lark.Lark(grammar, lexer_callbacks=dict(guards), **_OPTIONS)
    return parser


def _lexers_read(parser: lark.Lark, callbacks: dict[str, Any]) -> bool:
    """Whether every lexer of ``parser`` reads its callbacks from ``callbacks`` itself."""
    frontend = getattr(parser, "parser", None)
    lexer = getattr(frontend, "lexer", None)
    lexers = [*getattr(lexer, "lexers", {}).values(), getattr(lexer, "root_lexer", None)]
    return all(getattr(each, "user_callbacks", None) is callbacks for each in lexers)


_OPTIONS: dict[str, Any] = {"parser": "lalr", "propagate_positions": True,
                            "maybe_placeholders": True}


def _lark(grammar: str, callbacks: dict[str, Any] | None, start: str) -> lark.Lark:
    """lark's parser of ``grammar``, read from the load cache's folder or from the
    tables built with the package (``.load_cache.grammar_tables()``), else built
    and kept in the cache folder.

    What is kept is the whole parser object, as lark's own ``load`` gives it,
    pickled before its first parse (``_ParserPickler``). Reading it back takes
    under a third of the time lark's ``save``/``load`` format takes, which
    rebuilds the parse table and the lexers from a serialised form. The file
    name hashes the grammar, the options, this format and the versions of lark
    and Python; a file that does not load (damaged, foreign) is passed over."""
    options = {**_OPTIONS, "start": start}
    kept, readable = load_cache.grammar_tables(f"{grammar}\n// {sorted(options.items())} "
                                               f"lark {lark.__version__} {_TABLE_FORMAT}")
    for table in readable:
        try:
            with table.open("rb") as stored:
                parser = _ParserUnpickler(stored).load()
        except Exception:  # noqa: BLE001, S112 - an unreadable table is passed over
            continue
        if isinstance(parser, lark.Lark):
            parser.lexer_conf.callbacks.update(callbacks or {})
            return parser
    extra = {"lexer_callbacks": callbacks} if callbacks else {}
    built = io.BytesIO()
    lark.Lark(grammar, **options, **extra).save(built, {"lexer_callbacks"})
    built.seek(0)
    # lark's own reading of what it built: its parse table is keyed by plain
    # strings (a parser just built keys it by tokens, slower to look up).
    parser = lark.Lark.__new__(lark.Lark)._load(built, **extra)
    if kept is not None:
        load_cache.write_atomically(kept, lambda out: _ParserPickler(out, protocol=5).dump(parser))
    return parser


_TABLE_FORMAT = "whole parser pickled, 1"


class _ParserPickler(pickle.Pickler):
    """Pickles a lark parser. Three kinds of object need help:

    - modules (lark keeps the ``re`` module it lexes with) go by name;
    - the parse table's ``Shift`` and ``Reduce`` markers are compared by
      identity, so they go by name and come back as lark's own;
    - a grammar ``Rule`` stores its hash, which depends on the process's string
      hashing: it is rebuilt from its fields, which works its hash out again.
    """

    def reducer_override(self, obj: Any) -> Any:
        if type(obj) is _Rule:
            return (_Rule, (obj.origin, obj.expansion, obj.order, obj.alias, obj.options))
        if isinstance(obj, types.ModuleType) or type(obj) is _lalr.Action:
            name = obj.__name__ if isinstance(obj, types.ModuleType) else str(obj)
            return (_kept_object, (name,))
        return NotImplemented


def _kept_object(name: str) -> Any:
    """The module or parse action ``_ParserPickler`` pickled by name."""
    return _KEPT_OBJECTS[name]


class _ParserUnpickler(pickle.Unpickler):
    """Reads what ``_ParserPickler`` wrote, with lark's and this module's classes only."""

    def find_class(self, module: str, name: str) -> Any:
        if module.split(".")[0] not in ("lark", __name__.split(".")[0]) and (
                (module, name) != ("functools", "partial")):
            raise pickle.UnpicklingError(f"{module}.{name} is not part of a parser")
        return super().find_class(module, name)


# lark's parse actions (its two markers, by their names) and the modules a parser keeps.
_KEPT_OBJECTS = {"re": re, **{str(action): action for action in vars(_lalr).values()
                              if isinstance(action, _lalr.Action)}}


# A name no terminal has: it keeps the callbacks dict non-empty, which lark
# needs to keep the dict itself rather than a fresh empty one.
_NO_TERMINAL = "__NO_SUCH_TERMINAL__"


def _is_keyword(terminal: lark.lexer.TerminalDef) -> bool:
    pattern = terminal.pattern
    return ((isinstance(pattern, lark.lexer.PatternStr) and pattern.value.isalpha())
            or pattern.value.endswith("\\b/") or pattern.value.endswith("\\b"))


def _expected(names: set[str] | frozenset[str], parser: lark.Lark | None = None
              ) -> tuple[str, ...]:
    """Readable words for the terminals lark would have accepted (a form's
    word alternatives included, when ``parser`` is the one extended by forms)."""
    terminals = {t.name: t for t in (parser or _parser()).terminals}
    readable = set()
    for name in names:
        terminal = terminals.get(name)
        pattern = terminal.pattern if terminal is not None else None
        if name in _TERMINAL_NAMES:
            readable.add(_TERMINAL_NAMES[name])
        elif isinstance(pattern, lark.lexer.PatternStr):
            readable.add(repr(pattern.value))
        elif pattern is not None and (choices := _CHOICES.fullmatch(pattern.value)):
            readable.update(repr(w) for w in choices[1].split("|"))
        else:
            readable.add(name.lower())
    return tuple(sorted(readable))


_CHOICES = re.compile(r"\(([a-z|]+)\)\\b")


@functools.lru_cache(maxsize=1)
def _expression_parser() -> lark.Lark:
    return _lark(grammar_path().read_text(encoding="utf-8"), None, start="expr")


def parse_expression(text: str, path: str = "<expression>") -> ir.Expr:
    """Parse one expression of the rules language (for queries from the API).

    Raises:
        RulesSyntaxError: the text is not an expression.
    """
    try:
        tree = _expression_parser().parse(text)
    except lark.UnexpectedInput as error:
        line = getattr(error, "line", 1) or 1
        column = getattr(error, "column", 1) or 1
        raise RulesSyntaxError([Diagnostic(Span(path, line, column),
                                           "this is not an expression of the rules language",
                                           source_line=line_of(text, line))]) from None
    try:
        node: ir.Expr = _ToIR(path).transform(tree)
    except lark.exceptions.VisitError as error:
        if isinstance(error.orig_exc, RulesSyntaxError):
            raise error.orig_exc from None
        raise
    return node


def parse_text(text: str, path: str = "<string>",
               forms: tuple[ir.FormDecl, ...] = ()) -> ir.Module:
    """Parse one rules file's text into an IR module.

    Args:
        forms: the forms of the libraries the rulebook uses; their phrases
            become statements of the language while this file is read.

    Raises:
        RulesSyntaxError: the text does not follow the grammar.
    """
    reset = _SOURCE.set(text)
    try:
        parser = None
        try:
            parser = _parser_for(forms)
        except lark.exceptions.GrammarError as error:
            raise RulesSyntaxError([Diagnostic(
                forms[0].span if forms else Span(path, 1, 1),
                f"the library's forms cannot be read together: {error}",
                source_line="")]) from None
        tree = parser.parse(text)
    except _RunOnKeyword as error:
        token = error.token
        line, column = token.line or 1, token.column or 1
        diagnostic = Diagnostic(
            Span(path, line, column, column + len(str(token)) + len(error.following)),
            f"unexpected {str(token) + error.following!r}: {str(token)!r} is a keyword here "
            "and must stand as a word of its own", rule=enclosing_block(text, line),
            source_line=line_of(text, line))
        raise RulesSyntaxError([diagnostic]) from None
    except lark.UnexpectedInput as error:
        line = getattr(error, "line", 1) or 1
        column = getattr(error, "column", 1) or 1
        if isinstance(error, lark.UnexpectedToken):
            found = "end of file" if error.token.type == "$END" else repr(str(error.token))
            message = f"unexpected {found}"
            expected = _expected(error.accepts or error.expected, parser)
        elif isinstance(error, lark.UnexpectedCharacters):
            position = error.pos_in_stream or 0
            message = f"unexpected character {text[position:position + 1]!r}"
            expected = _expected(error.allowed or set(), parser)
        else:
            message = "unexpected end of file"
            expected = _expected(getattr(error, "expected", set()), parser)
        diagnostic = Diagnostic(Span(path, line, column), message,
                                rule=enclosing_block(text, line), expected=expected,
                                source_line=line_of(text, line))
        raise RulesSyntaxError([diagnostic]) from None
    finally:
        _SOURCE.reset(reset)
    try:
        items = _ToIR(path, forms).transform(tree)
    except (lark.exceptions.VisitError, RulesSyntaxError) as error:
        inner = error.orig_exc if isinstance(error, lark.exceptions.VisitError) else error
        if isinstance(inner, RulesSyntaxError):
            raise RulesSyntaxError([attrs.evolve(
                d, source_line=line_of(text, d.span.line),
                rule=d.rule or enclosing_block(text, d.span.line))
                for d in inner.diagnostics]) from None
        raise
    return ir.Module(path=path, text=text, items=tuple(items.children))


def _string(token: Token) -> str:
    return str(token)[1:-1]


def _strings(tokens: list[Any]) -> str:
    """Adjacent string literals as one text, joined by a space."""
    return " ".join(_string(t) for t in tokens)


@v_args(meta=True)
class _ToIR(Transformer_NonRecursive):  # type: ignore[type-arg]
    """Turns lark's parse tree into IR nodes, one method per grammar rule."""

    def __init__(self, path: str, forms: tuple[ir.FormDecl, ...] = ()) -> None:
        super().__init__()
        self.path = path
        self.forms = forms
        self._depths: dict[int, tuple[Any, int]] = {}
        """id -> (node, its nesting) for every node deeper than a leaf; the node
        is kept so that its id cannot be reused by another."""
        self._chains: dict[int, tuple[ir.BoolOp, list[_Link]]] = {}
        """id of the latest node of an ``and``/``or`` chain -> (that node, its spine)."""

    def _call_userfunc(self, tree: Any, new_children: list[Any] | None = None) -> Any:
        """lark's dispatch of a node to its method, without the bound wrapper that
        ``@v_args`` makes lark build again for every node (a ``functools.update_wrapper``
        each time): the methods are looked up once, in ``_METHODS``. The calls and
        the errors raised are lark's own."""
        method = _METHODS.get(tree.data)
        if method is None:
            return super()._call_userfunc(tree, new_children)  # type: ignore[no-untyped-call]
        try:
            result = method(self, tree.meta,
                            new_children if new_children is not None else tree.children)
            fields = _NESTING_FIELDS.get(type(result))
            if fields is not None:
                self._statement_nested(result, fields)
            return result
        except lark.exceptions.GrammarError:
            raise
        except Exception as error:
            raise lark.exceptions.VisitError(  # type: ignore[no-untyped-call]
                tree.data, tree, error) from error

    def __default__(self, data: Any, children: list[Any], meta: Any) -> Any:
        name = str(data)
        if name.startswith("form_use_"):
            decl = self.forms[int(name[len("form_use_"):])]
            span = self._span(meta)
            children = [self._int(c) if isinstance(c, Token) and c.type == "SIGNED_INT" else c
                        for c in children]
            return ir.FormUse(decl.name, hole_values(decl, children, span), "", span)
        return super().__default__(data, children, meta)  # type: ignore[no-untyped-call]

    def form_decl(self, meta: Any, c: list[Any]) -> ir.FormDecl:
        name, pattern, *body = c
        return ir.FormDecl(str(name), _string(pattern), tuple(body), "", self._span(meta))

    def _problem(self, span: Span, message: str) -> RulesSyntaxError:
        return RulesSyntaxError([Diagnostic(span, message, source_line="")])

    def _int(self, token: Token) -> int:
        """A number token's value, refused when it has too many digits."""
        text = str(token)
        digits = len(text.lstrip("+-"))
        if digits > MAX_NUMBER_DIGITS:
            raise self._problem(self._tok(token), f"number too long: {digits} digits (at "
                                f"most {MAX_NUMBER_DIGITS})")
        return int(text)

    def _ints(self, token: Token, separator: str) -> tuple[int, int]:
        """The two numbers of a token such as ``3:1``, ``1/2`` or ``2d6``."""
        first, second = str(token).split(separator)
        longest = max(len(first), len(second))
        if longest > MAX_NUMBER_DIGITS:
            raise self._problem(self._tok(token), f"number too long: {longest} digits (at "
                                f"most {MAX_NUMBER_DIGITS})")
        return int(first), int(second)

    def _rule_number(self, token: Token) -> str:
        """A rule number token, refused when a part is too long or its Roman section malformed."""
        text = str(token)
        if max(len(part) for part in re.findall(r"\d+|[A-Z]+", text)) > MAX_NUMBER_DIGITS:
            raise self._problem(self._tok(token), f"rule number too long: {text[:24]}... "
                                f"(at most {MAX_NUMBER_DIGITS} figures a part)")
        if not is_rule_number(text):
            section = text.split(".", 1)[0]
            raise self._problem(self._tok(token), f"{section} is not a Roman numeral as usually "
                                f"written (in {text}: I, II, III, IV, ... IX, X, XI, ...)")
        return text

    def _depth(self, node: Any) -> int:
        """How deep a node already built nests (a leaf, or anything not recorded: 1)."""
        entry = self._depths.get(id(node))
        return entry[1] if entry is not None and entry[0] is node else 1

    def _nested(self, node: _E, *children: Any) -> _E:
        """Record an expression's nesting; refuse it past ``MAX_NESTING``."""
        depth = 1 + max(map(self._depth, children), default=0)
        if depth > MAX_NESTING:
            span = node.span  # type: ignore[attr-defined]
            raise RulesSyntaxError([Diagnostic(
                Span(span.path, span.line, span.column),
                f"expression nested too deeply: more than {MAX_NESTING} levels of operators, "
                "calls and brackets of sets, lists and tuples", source_line="")])
        if depth > 1:
            self._depths[id(node)] = (node, depth)
        return node

    def _statement_nested(self, node: Any, fields: tuple[str, ...]) -> None:
        """Record a statement's nesting (its blocks' and expressions' plus one); refuse
        it past ``MAX_NESTING``."""
        depth = 0
        for name in fields:
            value = getattr(node, name)
            if isinstance(value, tuple):
                for item in value:
                    if isinstance(item, tuple):  # a binding: (name, expression)
                        depth = max(depth, *map(self._depth, item))
                    else:
                        depth = max(depth, self._depth(item))
            elif value is not None:
                depth = max(depth, self._depth(value))
        depth += 1
        if depth > MAX_NESTING:
            span = node.span
            raise RulesSyntaxError([Diagnostic(
                Span(span.path, span.line, span.column),
                f"statements nested too deeply: more than {MAX_NESTING} levels of blocks "
                "(each 'else if' is one), operators and calls", source_line="")])
        if depth > 1:
            self._depths[id(node)] = (node, depth)

    def _chain(self, op: str, meta: Any, c: list[Any]) -> ir.BoolOp:
        """One more term of a chain of ``and`` (or of ``or``), kept a balanced tree.

        The terms so far are held as a spine of perfect trees of decreasing
        sizes, as the digits of a binary counter: a new term joins the spine
        and two trees of one size merge into one of twice the size. The chain
        is the spine folded left to right; each link keeps its fold, so a term
        costs a constant amount of work on average. The tree's terms, left to
        right, are the chain's in order (``BoolOp.terms()``), evaluated in that
        order as ever; only their grouping changes, which ``and`` and ``or``
        do not see."""
        left, right = c
        held = self._chains.pop(id(left), None)
        continued = held is not None and held[0] is left and left.op == op
        spine = held[1] if held is not None and continued else [_Link(left, 1, left)]
        spine.append(_Link(right, 1, right))
        while len(spine) > 1 and spine[-1].size == spine[-2].size:
            last = spine.pop()
            first = spine[-1]
            merged = self._nested(ir.BoolOp(op, first.tree, last.tree,
                                             _cover(first.tree.span, last.tree.span)),
                                  first.tree, last.tree)
            spine[-1] = _Link(merged, first.size * 2, merged)
        span = self._span(meta)
        if len(spine) == 1:
            tree = spine[0].tree
            node = self._nested(ir.BoolOp(op, tree.left, tree.right, span), tree.left,
                                tree.right)
        else:
            node = self._nested(ir.BoolOp(op, spine[-2].fold, spine[-1].tree, span),
                                spine[-2].fold, spine[-1].tree)
        spine[-1] = _Link(spine[-1].tree, spine[-1].size, node)
        self._chains[id(node)] = (node, spine)
        return node

    def _span(self, meta: Any) -> Span:
        if getattr(meta, "empty", True):
            return Span(self.path, 1, 1)
        end = meta.end_column if meta.end_line == meta.line else None
        return Span(self.path, meta.line, meta.column, end)

    def _tok(self, token: Token) -> Span:
        return Span(self.path, token.line or 1, token.column or 1,
                    (token.column or 1) + len(str(token)))

    # -------------------------------------------------------------- game
    def game_block(self, meta: Any, c: list[Any]) -> ir.GameBlock:
        sources = tuple(v for k, v in c[2:] if k == "source")
        notes = tuple(v for k, v in c[2:] if k == "note")
        uses = tuple(v for k, v in c[2:] if k == "use")
        presets = tuple(v for k, v in c[2:] if k == "preset")
        return ir.GameBlock(str(c[0]), _string(c[1]), sources, notes, self._span(meta), uses,
                            presets)

    def preset(self, meta: Any, c: list[Any]) -> tuple[str, ir.Preset]:
        name, label, (every, numbers) = c
        return ("preset", ir.Preset(str(name), _string(label), numbers, every, self._span(meta)))

    def preset_all(self, meta: Any, c: list[Any]) -> tuple[bool, tuple[str, ...]]:
        return (True, ())

    def preset_none(self, meta: Any, c: list[Any]) -> tuple[bool, tuple[str, ...]]:
        return (False, ())

    def preset_rules(self, meta: Any, c: list[Any]) -> tuple[bool, tuple[str, ...]]:
        return (False, tuple(str(self._rule_number(t)) for t in c))

    def use(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("use", str(c[0]))

    def source(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("source", _string(c[0]))

    def note(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("note", _string(c[0]))

    # -------------------------------------------------------------- rules
    def rule(self, meta: Any, c: list[Any]) -> ir.Rule:
        number, title, optional, *body = c
        number = self._rule_number(number)
        summary = None
        statements: list[Any] = []
        kind = "rule"
        for item in body:
            if isinstance(item, tuple) and item[0] == "summary":
                summary = item[1]
            elif isinstance(item, tuple) and item[0] == "kind":
                kind = item[1]
            else:
                statements.append(attrs_evolve_rule(item, str(number)))
        return ir.Rule(str(number), _string(title), optional is not None, summary,
                       tuple(statements), self._span(meta), has_readings=self._took_readings(),
                       kind=kind)

    def mechanism(self, meta: Any, c: list[Any]) -> ir.Rule:
        name, title, *body = c
        clause, _ = self._unnumbered_clause(meta, f"lib:{name}", title, body)
        return clause

    def scenario_block(self, meta: Any, c: list[Any]) -> ir.ScenarioBlock:
        name, title, *body = c
        clause, extras = self._unnumbered_clause(meta, f"scenario:{name}", title, body,
                                                 kind="scenario")
        every, numbers = extras.get("scenario_options", (False, ()))
        return ir.ScenarioBlock(str(name), _string(title), extras.get("scenario_map"),
                                ("all",) if every else numbers, clause, self._span(meta))

    def _unnumbered_clause(self, meta: Any, label: str, title: Any, body: list[Any],
                           kind: str = "rule") -> tuple[ir.Rule, dict[str, Any]]:
        """A mechanism or scenario block as a clause numbered ``label``; the tagged
        lines of the block that are not statements (``map``, ``options``) come back
        by tag."""
        summary = None
        statements = []
        extras: dict[str, Any] = {}
        for item in body:
            tag = item[0] if isinstance(item, tuple) else None
            if tag == "summary":
                summary = item[1]
            elif tag in ("scenario_map", "scenario_options"):
                extras[tag] = item[1]
            elif tag != "kind":
                statements.append(attrs_evolve_rule(item, label))
        clause = ir.Rule(label, _string(title), False, summary, tuple(statements),
                         self._span(meta), mechanism=True, has_readings=self._took_readings(),
                         kind=kind)
        return clause, extras

    def scenario_map(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("scenario_map", str(c[0]))

    def scenario_options(self, meta: Any, c: list[Any]) -> tuple[str, tuple[bool, tuple[str, ...]]]:
        return ("scenario_options", c[0])

    def _took_readings(self) -> bool:
        """Whether readings were used since the last clause (the tree is transformed
        bottom-up, so those are the ones inside the clause being built)."""
        seen: int = self.__dict__.pop("_readings", 0)
        return seen > 0

    def _reading_used(self) -> None:
        self.__dict__["_readings"] = self.__dict__.get("_readings", 0) + 1

    # -------------------------------------------------------------- interpretations
    def interpretation_block(self, meta: Any, c: list[Any]) -> ir.Interpretation:
        name, title, *fields = c
        rules: list[str] = []
        kind = says = because = None
        readings: list[ir.Reading] = []
        for key, value in fields:
            if key == "rules":
                rules.extend(value)
            elif key == "kind":
                kind = value
            elif key == "says":
                says = value
            elif key == "because":
                because = value
            else:
                readings.append(value)
        return ir.Interpretation(str(name), _string(title), tuple(rules), kind, says,
                                 tuple(readings), because, self._span(meta))

    def interpretation_rules(self, meta: Any, c: list[Any]) -> tuple[str, tuple[str, ...]]:
        return ("rules", tuple(self._rule_number(t) for t in c))

    def interpretation_kind(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("kind", str(c[0]))

    def interpretation_says(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("says", _strings(c))

    def interpretation_because(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("because", _strings(c))

    def interpretation_reading(self, meta: Any, c: list[Any]) -> tuple[str, ir.Reading]:
        name, *texts, default = c
        return ("reading", ir.Reading(str(name), _strings(texts), default is not None,
                                      self._span(meta)))

    def old_interpretation(self, meta: Any, c: list[Any]) -> Any:
        raise RulesSyntaxError([Diagnostic(
            self._span(meta), "a free-text 'interpretation \"...\"' inside a clause is no "
            "longer read: record the reading as an entry of the interpretations registry "
            "('interpretation ID \"title\" { rules ... says \"...\" reading NAME \"...\" "
            "default }', beside the clauses) and, if the clause depends on it, write "
            "'when reading ID is NAME { ... }'", source_line="")])

    def cite_interpretation(self, meta: Any, c: list[Any]) -> ir.CiteInterpretation:
        return ir.CiteInterpretation(tuple(str(t) for t in c), tuple(self._tok(t) for t in c),
                                     "", self._span(meta))

    def reading_default(self, meta: Any, c: list[Any]) -> bool:
        return True

    def when_reading(self, meta: Any, c: list[Any]) -> ir.WhenReading:
        self._reading_used()
        entry, reading, *body = c
        return ir.WhenReading(str(entry), str(reading), tuple(body), self._tok(entry),
                              self._tok(reading), "", self._span(meta))

    def map_when_reading(self, meta: Any, c: list[Any]) -> ir.WhenReading:
        entry, reading, *body = c
        return ir.WhenReading(str(entry), str(reading),
                              tuple(x for x in body if not isinstance(x, tuple)),
                              self._tok(entry), self._tok(reading), "", self._span(meta))

    def reading_is(self, meta: Any, c: list[Any]) -> ir.ReadingIs:
        self._reading_used()
        return ir.ReadingIs(str(c[0]), str(c[1]), self._tok(c[0]), self._tok(c[1]),
                            self._span(meta))

    def optional(self, meta: Any, c: list[Any]) -> bool:
        return True

    def summary(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("summary", _string(c[0]))

    def definition_kind(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("kind", "definition")

    def commentary_kind(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("kind", "commentary")

    def side_decl(self, meta: Any, c: list[Any]) -> ir.SideDecl:
        return ir.SideDecl(str(c[0]), _string(c[1]), "", self._span(meta))

    def flag_decl(self, meta: Any, c: list[Any]) -> ir.FlagDecl:
        return ir.FlagDecl(str(c[0]), _string(c[1]), "", self._span(meta))

    def property_decl(self, meta: Any, c: list[Any]) -> ir.PropertyDecl:
        return ir.PropertyDecl(str(c[0]), _string(c[1]), c[2], "", self._span(meta))

    def class_decl(self, meta: Any, c: list[Any]) -> ir.ClassDecl:
        side = str(c[2]) if c[2] is not None else None
        return ir.ClassDecl(str(c[0]), _string(c[1]), side, c[3] or (), "", self._span(meta))

    def terrain_decl(self, meta: Any, c: list[Any]) -> ir.TerrainDecl:
        return ir.TerrainDecl(str(c[0]), _string(c[1]), str(c[2]), "", self._span(meta))

    def hexside_decl(self, meta: Any, c: list[Any]) -> ir.HexsideDecl:
        return ir.HexsideDecl(str(c[0]), _string(c[1]), "", self._span(meta))

    def table_decl(self, meta: Any, c: list[Any]) -> ir.TableDecl:
        name, label, *rest = c
        columns = tuple(x for x in rest if not isinstance(x, ir.TableRow))
        rows = tuple(x for x in rest if isinstance(x, ir.TableRow))
        return ir.TableDecl(str(name), _string(label), columns, rows, "", self._span(meta))

    def table_row(self, meta: Any, c: list[Any]) -> ir.TableRow:
        return ir.TableRow(c[0], tuple(c[1:]), self._span(meta))

    def int_cell(self, meta: Any, c: list[Any]) -> ir.IntCell:
        return ir.IntCell(self._int(c[0]), self._tok(c[0]))

    def decimal_cell(self, meta: Any, c: list[Any]) -> ir.DecimalCell:
        text = str(c[0])
        if len(text.lstrip("+-").replace(".", "")) > MAX_NUMBER_DIGITS:
            raise self._problem(self._tok(c[0]), f"number too long: {text[:24]}... (at most "
                                f"{MAX_NUMBER_DIGITS} figures)")
        return ir.DecimalCell(text, self._tok(c[0]))

    def ratio_cell(self, meta: Any, c: list[Any]) -> ir.RatioCell:
        a, b = self._ints(c[0], ":")
        return ir.RatioCell(a, b, self._tok(c[0]))

    def result_cell(self, meta: Any, c: list[Any]) -> ir.ResultCell:
        a, b = self._ints(c[0], "/")
        return ir.ResultCell(a, b, self._tok(c[0]))

    def name_cell(self, meta: Any, c: list[Any]) -> ir.NameCell:
        return ir.NameCell(str(c[0]), self._tok(c[0]))

    def keyed_cell(self, meta: Any, c: list[Any]) -> ir.KeyedCell:
        return ir.KeyedCell(tuple(c), self._span(meta))

    def keyed_entry(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return (str(c[0]), c[1])

    def dice_decl(self, meta: Any, c: list[Any]) -> ir.DiceDecl:
        count, faces = self._ints(c[1], "d")
        return ir.DiceDecl(str(c[0]), count, faces, "", self._span(meta))

    def forbid(self, meta: Any, c: list[Any]) -> ir.Forbid:
        return ir.Forbid(str(c[0]), c[1], "", self._span(meta))

    def permit(self, meta: Any, c: list[Any]) -> ir.Permit:
        return ir.Permit(str(c[0]), self._rule_number(c[1]), c[2], c[3] is not None, "",
                         self._span(meta))

    def spend_all(self, meta: Any, c: list[Any]) -> bool:
        return True

    def sequence(self, meta: Any, c: list[Any]) -> ir.Sequence:
        return ir.Sequence(str(c[0]), tuple(c[1:]), "", self._span(meta))

    def opening_sequence(self, meta: Any, c: list[Any]) -> ir.Sequence:
        return ir.Sequence(str(c[0]), tuple(c[1:]), "", self._span(meta), opening=True)

    def phase(self, meta: Any, c: list[Any]) -> ir.Phase:
        each = c[2] is None
        return ir.Phase(str(c[0]), _string(c[1]), "" if each else str(c[2]),
                        str(c[3]) if c[3] is not None else None, self._span(meta),
                        for_each_player=each)

    def by_player(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def each_player(self, meta: Any, c: list[Any]) -> None:
        return None

    def name_list(self, meta: Any, c: list[Any]) -> tuple[str, ...]:
        return tuple(str(x) for x in c)

    # -------------------------------------------------------------- expressions
    def or_(self, meta: Any, c: list[Any]) -> ir.BoolOp:
        return self._chain("or", meta, c)

    def and_(self, meta: Any, c: list[Any]) -> ir.BoolOp:
        return self._chain("and", meta, c)

    def not_(self, meta: Any, c: list[Any]) -> ir.Not:
        return self._nested(ir.Not(c[0], self._span(meta)), c[0])

    def compare(self, meta: Any, c: list[Any]) -> ir.Compare:
        return self._nested(ir.Compare(str(c[1]), c[0], c[2], self._span(meta)), c[0], c[2])

    def member(self, meta: Any, c: list[Any]) -> ir.Member:
        return self._nested(ir.Member(c[0], c[1], False, self._span(meta)), c[0], c[1])

    def not_member(self, meta: Any, c: list[Any]) -> ir.Member:
        return self._nested(ir.Member(c[0], c[1], True, self._span(meta)), c[0], c[1])

    def is_(self, meta: Any, c: list[Any]) -> ir.Is:
        return self._nested(ir.Is(c[0], "is", str(c[1]), self._tok(c[1]), self._span(meta)),
                            c[0])

    def has(self, meta: Any, c: list[Any]) -> ir.Is:
        return self._nested(ir.Is(c[0], "has", str(c[1]), self._tok(c[1]), self._span(meta)),
                            c[0])

    def arith(self, meta: Any, c: list[Any]) -> ir.Arith:
        return self._nested(ir.Arith(str(c[1]), c[0], c[2], self._span(meta)), c[0], c[2])

    def neg(self, meta: Any, c: list[Any]) -> ir.Neg:
        return self._nested(ir.Neg(c[0], self._span(meta)), c[0])

    def attribute(self, meta: Any, c: list[Any]) -> ir.Attr:
        return self._nested(ir.Attr(c[0], str(c[1]), self._span(meta)), c[0])

    def index(self, meta: Any, c: list[Any]) -> ir.Index:
        return self._nested(ir.Index(c[0], c[1], self._span(meta)), c[0], c[1])

    def int_lit(self, meta: Any, c: list[Any]) -> ir.IntLit:
        return ir.IntLit(self._int(c[0]), self._tok(c[0]))

    def name(self, meta: Any, c: list[Any]) -> ir.Name:
        return ir.Name(str(c[0]), self._tok(c[0]))

    def true_lit(self, meta: Any, c: list[Any]) -> ir.BoolLit:
        return ir.BoolLit(True, self._span(meta))

    def false_lit(self, meta: Any, c: list[Any]) -> ir.BoolLit:
        return ir.BoolLit(False, self._span(meta))

    def cond(self, meta: Any, c: list[Any]) -> ir.Cond:
        return self._nested(ir.Cond(c[0], c[1], c[2], self._span(meta)), c[0], c[1], c[2])

    def none_lit(self, meta: Any, c: list[Any]) -> ir.NoneLit:
        return ir.NoneLit(self._span(meta))

    def str_lit(self, meta: Any, c: list[Any]) -> ir.StrLit:
        return ir.StrLit(_string(c[0]), self._tok(c[0]))

    def list_lit(self, meta: Any, c: list[Any]) -> ir.ListLit:
        items = tuple(x for x in c if x is not None)
        return self._nested(ir.ListLit(items, self._span(meta)), *items)

    def tuple_lit(self, meta: Any, c: list[Any]) -> ir.TupleLit:
        items = tuple(x for x in c if x is not None)
        return self._nested(ir.TupleLit(items, self._span(meta)), *items)

    def call0(self, meta: Any, c: list[Any]) -> ir.Call:
        return ir.Call(str(c[0]), (), None, None, None, None, self._span(meta))

    def set_lit(self, meta: Any, c: list[Any]) -> ir.SetLit:
        items = tuple(x for x in c if x is not None)
        return self._nested(ir.SetLit(items, self._span(meta)), *items)

    def call(self, meta: Any, c: list[Any]) -> ir.Call:
        func, (kind, parts), *extra = c
        span = self._span(meta)
        if kind == "plain":
            return self._nested(ir.Call(str(func), (parts[0], *extra), None, None, None, None,
                                        span), parts[0], *extra)
        if kind == "filter":  # f(x in S where C)
            binder, domain = self._binding(parts[0])
            return self._nested(ir.Call(str(func), tuple(extra), binder, domain, None, parts[1],
                                        span), parts[0], parts[1], *extra)
        element, binding, *where = parts  # f(E for x in S [where C])
        binder, domain = self._binding(binding)
        return self._nested(ir.Call(str(func), tuple(extra), binder, domain, element,
                                    where[0] if where else None, span), *parts, *extra)

    def _binding(self, expr: Any) -> tuple[str, Any]:
        if isinstance(expr, ir.Member) and not expr.negated and isinstance(expr.item, ir.Name):
            return expr.item.id, expr.collection
        raise RulesSyntaxError([Diagnostic(
            expr.span, "expected 'NAME in COLLECTION' before 'where' or after 'for'",
            source_line="")])

    def plain_arg(self, meta: Any, c: list[Any]) -> tuple[str, list[Any]]:
        return ("plain", c)

    def filter_arg(self, meta: Any, c: list[Any]) -> tuple[str, list[Any]]:
        return ("filter", c)

    def gen_arg(self, meta: Any, c: list[Any]) -> tuple[str, list[Any]]:
        return ("gen", c)

    def gen_filter_arg(self, meta: Any, c: list[Any]) -> tuple[str, list[Any]]:
        return ("gen", c)

    # -------------------------------------------------------------- map
    def map_block(self, meta: Any, c: list[Any]) -> ir.MapBlock:
        name, label, *body = c
        notes, statements = _split_notes(body)
        return ir.MapBlock(str(name), _string(label), notes, statements, self._span(meta))

    def map_note(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("note", _string(c[0]))

    def grid(self, meta: Any, c: list[Any]) -> ir.Grid:
        return ir.Grid(str(c[0]), self._span(meta))

    def hex_terrain(self, meta: Any, c: list[Any]) -> ir.HexTerrain:
        return ir.HexTerrain(tuple(str(x) for x in c[:-1]), c[-1], self._span(meta))

    def hex_block(self, meta: Any, c: list[Any]) -> ir.HexBlock:
        return ir.HexBlock(str(c[0]), str(c[1]), c[2], self._span(meta))

    def hexside_feature(self, meta: Any, c: list[Any]) -> ir.HexsideFeature:
        return ir.HexsideFeature(str(c[0]), str(c[1]), c[2], self._span(meta))

    def zone(self, meta: Any, c: list[Any]) -> ir.ZoneDecl:
        return ir.ZoneDecl(self._int(c[0]), _string(c[1]), self._span(meta))

    def zone_borders(self, meta: Any, c: list[Any]) -> ir.ZoneBorders:
        return ir.ZoneBorders(self._int(c[0]), tuple(str(x) for x in c[1:]), self._span(meta))

    def zone_touches(self, meta: Any, c: list[Any]) -> ir.ZoneTouches:
        return ir.ZoneTouches(self._int(c[0]), tuple(self._int(x) for x in c[1:]), self._span(meta))

    def place(self, meta: Any, c: list[Any]) -> ir.PlaceDecl:
        name, label, *items = c
        excluded: tuple[ir.PlaceItem, ...] = ()
        if items and (items[-1] is None or isinstance(items[-1], tuple)):
            excluded = items.pop() or ()
        return ir.PlaceDecl(str(name), _string(label), tuple(items), self._span(meta),
                            excluded)

    def place_except(self, meta: Any, c: list[Any]) -> tuple[ir.PlaceItem, ...]:
        return tuple(c)

    def place_hex(self, meta: Any, c: list[Any]) -> ir.PlaceItem:
        return ir.PlaceItem("hex", (str(c[0]),))

    def place_range(self, meta: Any, c: list[Any]) -> ir.PlaceItem:
        return ir.PlaceItem("range", (str(c[0]), str(c[1])))

    def place_named(self, meta: Any, c: list[Any]) -> ir.PlaceItem:
        return ir.PlaceItem("place", (str(c[0]),))

    def place_all(self, meta: Any, c: list[Any]) -> ir.PlaceItem:
        return ir.PlaceItem("all", ())

    def place_terrain(self, meta: Any, c: list[Any]) -> ir.PlaceItem:
        return ir.PlaceItem("terrain", (str(c[0]),))

    def place_shore(self, meta: Any, c: list[Any]) -> ir.PlaceItem:
        return ir.PlaceItem("shore", () if c[0] is None else (str(self._int(c[0])),))

    def zone_group(self, meta: Any, c: list[Any]) -> ir.ZoneGroup:
        return ir.ZoneGroup(str(c[0]), _string(c[1]), tuple(self._int(x) for x in c[2:]),
                            self._span(meta))

    # -------------------------------------------------------------- counters
    def counters_block(self, meta: Any, c: list[Any]) -> ir.CountersBlock:
        name, label, *body = c
        notes, counters = _split_notes(body)
        return ir.CountersBlock(str(name), _string(label), notes, counters, self._span(meta))

    def counters_note(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("note", _string(c[0]))

    def counter(self, meta: Any, c: list[Any]) -> ir.CounterDecl:
        ident, label, cls, *written = c
        flags = tuple(f for item in written if isinstance(item, tuple) for f in item)
        fields = tuple(item for item in written if isinstance(item, ir.CounterField))
        return ir.CounterDecl(str(ident), _string(label), str(cls), flags, fields,
                              self._span(meta))

    def flags_field(self, meta: Any, c: list[Any]) -> tuple[str, ...]:
        return tuple(c[0])

    def written_field(self, meta: Any, c: list[Any]) -> ir.CounterField:
        word, *values = c
        return ir.CounterField(str(word), tuple(v for v, _ in values), self._tok(word),
                               tuple(span for _, span in values))

    def int_value(self, meta: Any, c: list[Any]) -> tuple[int, Span]:
        return self._int(c[0]), self._tok(c[0])

    def name_value(self, meta: Any, c: list[Any]) -> tuple[str, Span]:
        return str(c[0]), self._tok(c[0])

    # -------------------------------------------------------------- set-ups
    def setup_block(self, meta: Any, c: list[Any]) -> ir.SetupBlock:
        name, label, *body = c
        notes, placements = _split_notes(body)
        return ir.SetupBlock(str(name), _string(label), notes, placements, self._span(meta))

    def setup_note(self, meta: Any, c: list[Any]) -> tuple[str, str]:
        return ("note", _string(c[0]))

    def setup_place(self, meta: Any, c: list[Any]) -> ir.Placement:
        return ir.Placement(c[0], str(c[1]), self._span(meta))

    def zone_place(self, meta: Any, c: list[Any]) -> str:
        return f"zone.{int(c[0])}"

    def named_place(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def player_place(self, meta: Any, c: list[Any]) -> str:
        return f"{c[0]}.{c[1]}"

    # -------------------------------------------------------------- the core
    def player_decl(self, meta: Any, c: list[Any]) -> ir.PlayerDecl:
        return ir.PlayerDecl(str(c[1]), _string(c[2]), str(c[0]) == "party", "",
                             self._span(meta))

    def pool_decl(self, meta: Any, c: list[Any]) -> ir.PoolDecl:
        return ir.PoolDecl(str(c[0]), _string(c[1]), c[2] is not None, c[3] is not None, "",
                           self._span(meta))

    def per_player(self, meta: Any, c: list[Any]) -> bool:
        return True

    def ordered(self, meta: Any, c: list[Any]) -> bool:
        return True

    def type(self, meta: Any, c: list[Any]) -> ir.TypeRef:
        return ir.TypeRef(str(c[0]), str(c[1]) if c[1] is not None else None, self._span(meta))

    def attribute_decl(self, meta: Any, c: list[Any]) -> ir.AttributeDecl:
        return ir.AttributeDecl(str(c[0]), str(c[1]), c[2], c[3],
                                _string(c[4]) if c[4] is not None else None, "",
                                self._span(meta), shown=c[5] is not None)

    def shown(self, meta: Any, c: list[Any]) -> bool:
        return True

    def printed_decl(self, meta: Any, c: list[Any]) -> ir.PrintedDecl:
        name, type_, default, label, written, at_most, one_per, drawn = c
        how, filled_by = drawn if drawn is not None else (None, None)
        return ir.PrintedDecl(str(name), type_, default, _string(label), written, at_most,
                              one_per, how, filled_by, "", self._span(meta))

    def written(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def at_most(self, meta: Any, c: list[Any]) -> int:
        return self._int(c[0])

    def one_per(self, meta: Any, c: list[Any]) -> str:
        return str(c[0])

    def drawn_dots(self, meta: Any, c: list[Any]) -> tuple[str, str | None]:
        return ("dots", str(c[0]) if c[0] is not None else None)

    def drawn_value(self, meta: Any, c: list[Any]) -> tuple[str, None]:
        return ("value", None)

    def require_decl(self, meta: Any, c: list[Any]) -> ir.RequireDecl:
        return ir.RequireDecl(c[0], _string(c[1]), "", self._span(meta))

    def start_require_decl(self, meta: Any, c: list[Any]) -> ir.StartRequireDecl:
        var, domain, test, message, cite = c
        return ir.StartRequireDecl(str(var) if var is not None else None, domain, test,
                                   _string(message), cite, "", self._span(meta))

    def derive_decl(self, meta: Any, c: list[Any]) -> ir.DeriveDecl:
        return ir.DeriveDecl(str(c[0]), str(c[1]), c[2], "", self._span(meta))

    def value_decl(self, meta: Any, c: list[Any]) -> ir.ValueDecl:
        return ir.ValueDecl(str(c[0]), c[1], c[2], _string(c[3]) if c[3] is not None else None,
                            "", self._span(meta))

    def hook_decl(self, meta: Any, c: list[Any]) -> ir.HookDecl:
        return ir.HookDecl(str(c[0]), c[1], _string(c[2]), "", self._span(meta))

    def contribute(self, meta: Any, c: list[Any]) -> ir.Contribute:
        return ir.Contribute(str(c[0]), c[1], c[2], "", self._span(meta))

    def function_decl(self, meta: Any, c: list[Any]) -> ir.FunctionDecl:
        name, *rest = c
        body = rest[-1]
        params = tuple(str(x) for x in rest[:-1] if x is not None)
        return ir.FunctionDecl(str(name), params, body, "", self._span(meta))

    def action_decl(self, meta: Any, c: list[Any]) -> ir.ActionDecl:
        name, *rest = c
        label = _string(rest[-1])
        params = tuple(x for x in rest[:-1] if x is not None)
        return ir.ActionDecl(str(name), params, label, "", self._span(meta))

    def action_param(self, meta: Any, c: list[Any]) -> ir.ActionParam:
        return ir.ActionParam(str(c[0]), str(c[1]), self._span(meta))

    def hide_decl(self, meta: Any, c: list[Any]) -> ir.HideDecl:
        return ir.HideDecl(c[-1], "", self._span(meta), place=c[0] is not None)

    def hide_attribute_decl(self, meta: Any, c: list[Any]) -> ir.HideDecl:
        return ir.HideDecl(c[1], "", self._span(meta), attribute=str(c[0]))

    def hide_place(self, meta: Any, c: list[Any]) -> bool:
        return True

    def face_die_decl(self, meta: Any, c: list[Any]) -> ir.FaceDieDecl:
        return ir.FaceDieDecl(str(c[0]), c[1], "", self._span(meta))

    def procedure(self, meta: Any, c: list[Any]) -> ir.Procedure:
        name, *rest = c
        body = rest[-1]
        params = tuple(str(x) for x in rest[:-1] if x is not None)
        return ir.Procedure(str(name), params, body, "", self._span(meta))

    def block(self, meta: Any, c: list[Any]) -> tuple[Any, ...]:
        return tuple(c)

    def let_stmt(self, meta: Any, c: list[Any]) -> ir.Let:
        return ir.Let(str(c[0]), c[1], self._span(meta))

    def set_stmt(self, meta: Any, c: list[Any]) -> ir.SetStmt:
        if not isinstance(c[0], (ir.Name, ir.Attr)):
            raise RulesSyntaxError([Diagnostic(
                c[0].span, "'set' needs a variable or 'thing.attribute' on its left",
                source_line="")])
        return ir.SetStmt(c[0], c[1], self._span(meta))

    def put_stmt(self, meta: Any, c: list[Any]) -> ir.Put:
        return ir.Put(c[0], c[1], self._span(meta))

    def if_stmt(self, meta: Any, c: list[Any]) -> ir.If:
        otherwise = c[2]
        if otherwise is None:
            otherwise = ()
        elif isinstance(otherwise, ir.If):
            otherwise = (otherwise,)
        return ir.If(c[0], c[1], otherwise, self._span(meta))

    def for_stmt(self, meta: Any, c: list[Any]) -> ir.ForEach:
        return ir.ForEach(str(c[0]), c[1], c[2], c[3], self._span(meta))

    def while_stmt(self, meta: Any, c: list[Any]) -> ir.While:
        return ir.While(c[0], c[1], self._span(meta))

    def loop_stmt(self, meta: Any, c: list[Any]) -> ir.Loop:
        return ir.Loop(c[0], self._span(meta))

    def break_stmt(self, meta: Any, c: list[Any]) -> ir.Break:
        return ir.Break(self._span(meta))

    def continue_stmt(self, meta: Any, c: list[Any]) -> ir.Continue:
        return ir.Continue(self._span(meta))

    def return_stmt(self, meta: Any, c: list[Any]) -> ir.Return:
        return ir.Return(self._span(meta))

    def call_stmt(self, meta: Any, c: list[Any]) -> ir.CallStmt:
        return ir.CallStmt(str(c[0]), tuple(x for x in c[1:] if x is not None),
                           self._span(meta))

    def call_each_stmt(self, meta: Any, c: list[Any]) -> ir.CallEach:
        name, *args = c
        return ir.CallEach(str(name), tuple(a for a in args if a is not None), self._span(meta))

    def choose_stmt(self, meta: Any, c: list[Any]) -> ir.Choose:
        return ir.Choose(c[0], tuple(c[1:]), self._span(meta))

    def sealed_stmt(self, meta: Any, c: list[Any]) -> ir.ChooseSealed:
        return ir.ChooseSealed(str(c[0]), c[1], tuple(c[2:]), self._span(meta))

    def option(self, meta: Any, c: list[Any]) -> ir.Option:
        kind, *rest = c
        body, cite, where, bindings = rest[-1], rest[-2], rest[-3], rest[-4]
        params = tuple(x for x in rest[:-4] if x is not None)
        return ir.Option(str(kind), params, bindings or (), where, body, self._span(meta),
                         cite)

    def option_cite(self, meta: Any, c: list[Any]) -> Any:
        return c[0]

    def option_param(self, meta: Any, c: list[Any]) -> ir.OptionParam:
        return ir.OptionParam(str(c[0]), c[1], self._span(meta))

    def with_clause(self, meta: Any, c: list[Any]) -> tuple[tuple[str, Any], ...]:
        return tuple(c)

    def binding(self, meta: Any, c: list[Any]) -> tuple[str, Any]:
        return (str(c[0]), c[1])

    def roll_stmt(self, meta: Any, c: list[Any]) -> ir.Roll:
        return ir.Roll(str(c[0]), c[1], self._span(meta))

    def draw_stmt(self, meta: Any, c: list[Any]) -> ir.Draw:
        return ir.Draw(str(c[0]), c[1], self._span(meta))

    def shuffle_stmt(self, meta: Any, c: list[Any]) -> ir.Shuffle:
        return ir.Shuffle(c[0], self._span(meta))

    def log_stmt(self, meta: Any, c: list[Any]) -> ir.Log:
        return ir.Log(_string(c[0]), c[1], c[2], self._span(meta))

    def finish_stmt(self, meta: Any, c: list[Any]) -> ir.Finish:
        return ir.Finish(c[0], _string(c[1]), self._span(meta), c[2] or ())

    def report_clause(self, meta: Any, c: list[Any]) -> tuple[tuple[str, Any], ...]:
        return tuple(c)

    def finish_decl(self, meta: Any, c: list[Any]) -> ir.FinishDecl:
        when, winner, reason, report = c
        return ir.FinishDecl(when, winner, _string(reason), report or (), "",
                             self._span(meta))

    def reveal_stmt(self, meta: Any, c: list[Any]) -> ir.Reveal:
        return ir.Reveal(c[0], c[1], self._span(meta))

    def fail_stmt(self, meta: Any, c: list[Any]) -> ir.Fail:
        return ir.Fail(_string(c[0]), self._span(meta))

    # map areas
    def area(self, meta: Any, c: list[Any]) -> ir.AreaDecl:
        return ir.AreaDecl(str(c[0]), _string(c[1]), c[2] or (), self._span(meta))

    def area_adjacent(self, meta: Any, c: list[Any]) -> ir.AreaAdjacent:
        return ir.AreaAdjacent(str(c[0]), c[1], self._span(meta))

    def area_border(self, meta: Any, c: list[Any]) -> ir.AreaBorder:
        return ir.AreaBorder(str(c[0]), str(c[1]), c[2], self._span(meta))


@attrs.frozen
class _Link:
    """One tree of a chain's spine (``_ToIR._chain``): its number of terms, and the
    chain's node up to it."""

    tree: Any
    size: int
    fold: Any


def _cover(first: Span, last: Span) -> Span:
    """The span from the start of ``first`` to the end of ``last`` (its end column
    only when both are on one line)."""
    end = last.end_column if last.line == first.line else None
    return Span(first.path, first.line, first.column, end)


def _nesting_fields(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in attrs.fields(cls)
                 if f.name not in ("span", "rule") and not f.name.endswith("_span"))


# The statements (and the parts of statements) whose nesting is counted: those
# that hold expressions or blocks of statements.
_NESTING_FIELDS: dict[type, tuple[str, ...]] = {cls: _nesting_fields(cls) for cls in (
    ir.Let, ir.SetStmt, ir.Put, ir.If, ir.ForEach, ir.While, ir.Loop, ir.CallStmt,
    ir.CallEach, ir.Choose, ir.ChooseSealed, ir.Option, ir.OptionParam, ir.Roll, ir.Draw,
    ir.Shuffle, ir.Log, ir.Finish, ir.Reveal, ir.Procedure, ir.WhenReading)}


# Each grammar rule's method of ``_ToIR``, unwrapped: every one takes (meta, children).
_METHODS: dict[str, Callable[..., Any]] = {
    name: wrapper.base_func for name, wrapper in vars(_ToIR).items()
    if isinstance(wrapper, lark.visitors._VArgsWrapper)
    and wrapper.visit_wrapper is lark.visitors._vargs_meta}


def _split_notes(body: list[Any]) -> tuple[tuple[str, ...], tuple[Any, ...]]:
    """A data block's ``note`` lines apart from its other statements."""
    notes = tuple(x[1] for x in body if isinstance(x, tuple))
    return notes, tuple(x for x in body if not isinstance(x, tuple))


def attrs_evolve_rule(statement: Any, number: str) -> Any:
    """Stamp a statement with the number of the rule clause it appears in
    (and the statements of a ``when reading`` guard with it too)."""
    if isinstance(statement, ir.WhenReading):
        return attrs.evolve(statement, rule=number,
                            body=tuple(attrs_evolve_rule(s, number) for s in statement.body))
    return attrs.evolve(statement, rule=number)
