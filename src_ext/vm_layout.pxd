# The native VM's words and opcodes (cortes_rules/core/vm/layout.py holds the same
# numbers for the compiler; tests/core/test_vm.py holds the two together):
# the value tags, the opcodes, the state's layout and the VM's entry points.

from libc.stdint cimport int64_t, uint64_t

cdef enum:
    # value tags: the low four bits of a word
    T_INT, T_BOOL, T_NONE, T_PIECE, T_PLACE, T_PLAYER, T_TEXT, T_FRAC, T_LIST, T_SET, T_MAP,
    T_TABLE, T_ROW, T_DICE, T_UNBOUND, T_ERROR

cdef enum:
    # expression nodes (layout.EXPRESSION_OPS, in order)
    X_CONST, X_SLOT, X_GLOBAL, X_CTX, X_EACH,
    X_IF, X_AND, X_OR, X_FUNCTION, X_WITH_RULES, X_DEFINED, X_HOOK, X_HOOK_RULES,
    X_HOOK_FAILING, X_HOOK_APPLIED,
    X_EQ, X_NE, X_LT, X_LE, X_GT, X_GE, X_ADD, X_SUB, X_MUL, X_DIV, X_MOD, X_NEG, X_NOT,
    X_IN, X_NOTIN, X_LIST, X_SET, X_INDEX, X_IS, X_ATTR,
    X_TURN, X_PHASE, X_ROLLED, X_NEXT_PLAYER, X_DISTANCE, X_SIGHT_LINES, X_DIRECTION,
    X_HEXSIDE, X_ZONE, X_ALLOWED, X_FORBID_RULES, X_PERMIT_RULES, X_FORBIDS_READING,
    X_COUNT, X_LEN, X_ANY, X_ALL, X_SUM, X_MAX, X_MIN, X_DISTINCT, X_SET_OF, X_LIST_OF,
    X_FLOOR, X_CEIL, X_ABS, X_FIRST, X_SORTED, X_STR, X_JOIN, X_REST, X_SUBSETS, X_UNION,
    X_IS_NUMBER, X_NEIGHBOURS, X_ADJACENT, X_COLUMNS, X_TABLE_RULE, X_CELL,
    X_IN_STATIC, X_NOTIN_STATIC, X_MEMO, X_PARTITION, X_ONCE, X_INV, X_KEYED,
    X_OPCODES

cdef enum:
    # comprehension reductions (layout.REDUCTIONS)
    R_COUNT, R_ANY, R_ALL, R_SUM, R_MAX, R_MIN, R_SET, R_LIST, R_FIRST, R_UNION, R_SORTED,
    R_DISTINCT, R_DISTRIBUTION

cdef enum:
    # instructions (layout.INSTRUCTIONS)
    I_LET, I_SETGLOBAL, I_SETATTR, I_PUT, I_JUMP, I_JUMPIFNOT, I_FORINIT, I_FORNEXT, I_CALL,
    I_RETURN, I_CHOOSE, I_SEALED, I_DISPATCH, I_ROLL, I_DRAW, I_SHUFFLE, I_LOG, I_FINISH,
    I_REVEAL, I_FAIL, I_PHASE, I_ENDTURN, I_OPCODES

cdef enum:
    KEY_WIDTH = 8              # a ``keyed`` node's key: its number and up to 7 values
    KEYED_LIMIT = 1 << 20      # the most entries its table grows to

cdef enum:
    INSTRUCTION_WIDTH = 10
    OPTION_WIDTH = 9
    MAX_FRAMES = 256
    SLOT_CAPACITY = 8192
    TEMP_CAPACITY = 65536
    TRAIL_WORDS = 16
    GROUP_WIDTH = 7


cdef struct Bind:
    # a name bound by a function's parameter or a comprehension's binder
    int64_t name
    int64_t value
    Bind *next


cdef struct Ctx:
    # the frame a Ctx node reads by name: its slots, its name table, the names bound over it
    int64_t *slots
    int64_t *names
    Bind *bound
