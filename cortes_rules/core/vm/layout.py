"""The numbers the native VM and its compiler share: value tags and opcodes.

A value is one 64-bit word: its kind in the low four bits (``TAGS``), its
payload above them (``word >> 4``, signed). Numbers and truth values carry
themselves; pieces, places, players, tables, dice and texts carry an index
(a text, an index into the program's interned strings); a fraction packs its
numerator (32 bits, signed) over its denominator (24 bits); a list, set or
map carries a handle: an offset into a heap of words, doubled, plus one for the
program's static heap (constants shared by every state) and zero for the
state's own heap. A heap object is its length followed by its items (a map:
its length, then key and value pairs). ``src_ext/_vm.pxd`` declares the same
numbers as C enums; tests/core/test_vm.py holds the two to each other.
"""

from __future__ import annotations

TAGS = ("int", "bool", "none", "piece", "place", "player", "text", "fraction", "list",
        "set", "map", "table", "row", "dice", "unbound", "error")
TAG = {name: i for i, name in enumerate(TAGS)}

# Expression nodes: [opcode, key, key2, n, child offsets...] (compile.Emitter).
EXPRESSION_OPS = (
    "const", "slot", "global", "ctx", "each",
    # lazy
    "if", "and", "or", "function", "with_rules", "defined", "hook", "hook_rules",
    "hook_failing", "hook_applied",
    # operators
    "==", "!=", "<", "<=", ">", ">=", "+", "-", "*", "/", "mod", "neg", "not", "in",
    "notin", "list", "set", "index", "is", "attr",
    # the state's functions
    "turn", "phase", "rolled", "next_player", "distance", "sight_lines", "direction",
    "hexside", "zone", "allowed", "forbid_rules", "permit_rules", "forbids_reading",
    # functions of plain arguments
    "count", "len", "any", "all", "sum", "max", "min", "distinct", "set_of", "list_of",
    "floor", "ceil", "abs", "first", "sorted", "str", "join", "rest", "subsets", "union",
    "is_number", "neighbours", "adjacent", "columns", "table_rule", "cell",
    # ``x in C`` for a static C: a table of its pieces, places and players (compile.membership)
    "in_static", "notin_static",
    # an expression of one slot that reads nothing that changes: its value kept per piece
    # and place (compile.Compiler._memo_slot)
    "memo",
    # the items of a static domain whose fixed attribute is a value (compile.narrowed)
    "partition",
    # what an option's candidates share: found once a listing (compile.Compiler._option)
    "once",
    # what a comprehension's items share: found once each time it runs (compile._each)
    "inv",
    # an expression of slots and names that reads nothing that changes: its value and
    # the rules it cites kept per values read (compile.Compiler._keyed_inputs)
    "keyed",
)
EXPRESSION_OP = {name: i for i, name in enumerate(EXPRESSION_OPS)}

REDUCTIONS = ("count", "any", "all", "sum", "max", "min", "set", "list", "first", "union",
              "sorted", "distinct", "distribution")
REDUCTION = {name: i for i, name in enumerate(REDUCTIONS)}

INSTRUCTIONS = ("let", "setglobal", "setattr", "put", "jump", "jumpifnot", "forinit",
                "fornext", "call", "return", "choose", "sealed", "dispatch", "roll", "draw",
                "shuffle", "log", "finish", "reveal", "fail", "phase", "endturn")
INSTRUCTION = {name: i for i, name in enumerate(INSTRUCTIONS)}

INSTRUCTION_WIDTH = 10
"""An instruction record: op, a, b, target, args start, args count, options start,
options count, text, extra (a loop's position slot; setattr: the place column)."""

OPTION_WIDTH = 9
"""An option record: action, params start, params count, bindings start, bindings
count, where, cite, body, rule."""

TRAIL_WORDS = 16
"""The words of a rule trail (a bitset of rules in rule order): at most 1,024 rules."""

# How an attribute name is read from a piece, place or player (``attr`` nodes).
READ_NONE, READ_COLUMN, READ_DERIVED, READ_FIXED, READ_PROP = range(5)
FIXED = {"piece": ("place", "side", "class", "id"),
         "place": ("pieces", "terrain", "owner", "id", "kind", "shore"),
         "player": ("name",)}
OWNERS = ("piece", "place", "player")

DOMAINS = ("piece", "place", "hex", "player", "int")
"""What an action parameter ranges over (``core.run.board`` numbers the ids)."""
