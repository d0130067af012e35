# cython: language_level=3, boundscheck=False, wraparound=False, cdivision=True
# cython: initializedcheck=False
"""The native VM of the core IR (module ``cortes_rules._vm``).

It runs a rulebook compiled by ``cortes_rules/core/vm/compile.py`` from the
core IR alone; the reference interpreter (``cortes_rules/core/run/``) is its
specification, and tests/core/test_vm.py holds the two to each other move by
move. ``_vm.pxd`` declares the words, the opcodes and the state's layout.

- A value is one 64-bit word (``core/vm/layout.py``). Collections live in a
  heap of words: the program's static heap, shared by every state, or the
  state's own, which a copying collection compacts between decisions (its
  roots: the columns, the global values, the frames' slots, the listing).
- The state of truth is a handful of arrays: where each piece is, each
  place's pieces as a bitset, the attribute columns, the global values, the
  frames (procedure, instruction, first slot) over one stack of slots, the
  generator, the turn and phase. Python objects are made only when the API
  asks: texts of actions and log lines (kept only when a log is wanted), the
  outcome.
- Expressions are evaluated by walking their nodes (``State.ev``);
  procedures run instruction by instruction (``State.step``) up to a
  decision, a chance event or the end, where the decision's candidates are
  listed once (``State.candidates``).
"""

from libc.stdint cimport int64_t, uint64_t
from libc.stdlib cimport calloc, free, malloc, qsort, realloc
from libc.string cimport memcmp, memcpy, memset

from array import array
from fractions import Fraction
from itertools import combinations

from vm_layout cimport *

include "rng.pxi"

ABI = 1

cdef int64_t UNB = T_UNBOUND
cdef int64_t NONE = T_NONE
cdef int64_t TRUE = (1 << 4) | T_BOOL
cdef int64_t FALSE = T_BOOL
cdef int64_t ERRW = T_ERROR
cdef int64_t FRAC_DEN = 1 << 24
cdef int64_t FRAC_LIMIT = (<int64_t>1) << 31
cdef int64_t LOW32 = 0xFFFF_FFFF


cdef inline int tag(int64_t w) noexcept nogil:
    return <int>(w & 15)


cdef inline int64_t pay(int64_t w) noexcept nogil:
    return w >> 4


cdef inline int64_t mk(int t, int64_t p) noexcept nogil:
    return <int64_t>((<uint64_t>p) << 4) | t


cdef inline int64_t boolw(bint b) noexcept nogil:
    return TRUE if b else FALSE


cdef inline void mark(uint64_t *trail, int64_t rule) noexcept nogil:
    trail[rule >> 6] |= (<uint64_t>1) << (rule & 63)


cdef inline bint is_entity(int t) noexcept nogil:
    return t == T_PIECE or t == T_PLACE or t == T_PLAYER


cdef inline bint is_number(int t) noexcept nogil:
    return t == T_INT or t == T_BOOL or t == T_FRAC


cdef inline bint is_collection(int t) noexcept nogil:
    return t == T_LIST or t == T_SET or t == T_MAP


cdef int64_t _gcd(int64_t a, int64_t b) noexcept nogil:
    if a < 0:
        a = -a
    if b < 0:
        b = -b
    while b:
        a, b = b, a % b
    return a


cdef int _by_value(const void *a, const void *b) noexcept nogil:
    cdef int64_t x = (<const int64_t *>a)[0], y = (<const int64_t *>b)[0]
    return (x > y) - (x < y)


def version():
    """The VM's ABI number and its opcode counts (held to ``layout`` by the tests)."""
    return ABI, X_OPCODES, I_OPCODES, (T_ERROR + 1)


cdef object _words(object values):
    found = array("q", values)
    if not len(found):
        found.append(0)
    return found


cdef int64_t *_at(object buffer):
    cdef int64_t[::1] view = buffer
    return &view[0]


# ---------------------------------------------------------------- the program
cdef class Program:
    """One compiled rulebook (``core.vm.compile.Compiled``), as C arrays."""

    # one compiled rulebook: every array is owned by ``keep`` (array('q') objects)
    cdef list keep
    cdef int64_t *temp         # every state's gathering stack: no two evaluate at once
    cdef int64_t *E           # expression nodes
    cdef int64_t *H           # the static heap
    cdef int64_t *code        # instruction records
    cdef int64_t *args        # expression offsets read by instructions
    cdef int64_t *opts        # option records
    cdef int64_t *pairs       # (slot, expression) of options' parameters and bindings
    cdef int64_t *proc_start
    cdef int64_t *proc_end
    cdef int64_t *proc_frame
    cdef int64_t *proc_scope
    cdef int64_t *scopes      # scope x name number -> slot, or -1
    cdef int64_t *t_seats
    cdef int64_t *t_next_seat
    cdef int64_t *t_player_name
    cdef int64_t *t_piece_side
    cdef int64_t *t_piece_id
    cdef int64_t *t_piece_class
    cdef int64_t *t_piece_tags
    cdef int64_t *t_place_id
    cdef int64_t *t_place_kind
    cdef int64_t *t_place_features
    cdef int64_t *t_place_owner
    cdef int64_t *t_place_shore
    cdef int64_t *t_place_neighbours
    cdef int64_t *t_place_coords
    cdef int64_t *t_place_is_hex
    cdef int64_t *t_hex_position
    cdef int64_t *t_edge_start
    cdef int64_t *t_edge_count
    cdef int64_t *t_edges
    cdef int64_t *t_props
    cdef int64_t *t_column_base
    cdef int64_t *t_column_zero
    cdef int64_t *t_column_initial
    cdef int64_t *t_column_frame
    cdef int64_t *t_column_scope
    cdef int64_t *t_derived
    cdef int64_t *t_global_initial
    cdef int64_t *t_global_frame
    cdef int64_t *t_table_columns
    cdef int64_t *t_table_rule
    cdef int64_t *t_table_rows
    cdef int64_t *t_table_trail
    cdef int64_t *t_contribution_trail
    cdef int64_t *t_trail_text
    cdef int64_t *t_dice
    cdef int64_t *t_action_base
    cdef int64_t *t_action_params
    cdef int64_t *t_action_domains
    cdef int64_t *t_action_domain_at
    cdef int64_t *t_roll_faces
    cdef int64_t *t_hook_start
    cdef int64_t *t_hook_count
    cdef int64_t *t_contributions
    cdef int64_t *t_forbid_start
    cdef int64_t *t_forbid_count
    cdef int64_t *t_forbids
    cdef int64_t *t_permits
    cdef int64_t *t_endings
    cdef int64_t *t_phase_name
    cdef int64_t *t_attr_read
    cdef int64_t *t_decision_mask
    cdef int64_t *t_is_piece
    cdef int64_t *t_is_place
    cdef int64_t *t_membership
    cdef int64_t *memo         # memo nodes' values, per piece then place (UNB: not yet)
    cdef int64_t memo_width, n_once, n_inv, n_scopes
    # ``keyed`` nodes' table: KEY_WIDTH words of key (node number, then what it read),
    # the value, and the rules it cites (a number of an interned trail in ``mark_sets``)
    cdef int64_t *keyed_keys
    cdef int64_t *keyed_values
    cdef int64_t *keyed_marks
    cdef int64_t keyed_capacity, keyed_used
    cdef uint64_t *mark_sets
    cdef int64_t mark_count, mark_capacity
    cdef dict mark_numbers
    cdef int64_t n_pieces, n_places, n_players, n_seats, n_values, n_columns, column_words
    cdef int64_t n_names, n_props, n_endings, n_actions, n_roll_faces, piece_words
    cdef int64_t roll_base, roll_size, roll_max, draw_base, main, empty_scope, empty_set
    cdef int64_t max_frame, cell_occupied, cell_column, cell_value, cell_turn, n_cells
    cdef readonly object compiled, board
    cdef list strings
    cdef dict sight_lines
    cdef dict interned
    cdef object line, outcome, cited_rules, rules_error

    def __cinit__(self):
        self.temp = <int64_t *>malloc(sizeof(int64_t) * TEMP_CAPACITY)
        self.keyed_keys = self.keyed_values = self.keyed_marks = NULL
        self.mark_sets = NULL
        self.keyed_capacity = self.keyed_used = self.mark_count = self.mark_capacity = 0
        self.mark_numbers = {}
        if self.temp == NULL:
            raise MemoryError()

    def __dealloc__(self):
        free(self.temp)
        free(self.keyed_keys)
        free(self.keyed_values)
        free(self.keyed_marks)
        free(self.mark_sets)

    def __init__(self, compiled, board, line, outcome, cited_rules, rules_error):
        self.compiled, self.board, self.keep = compiled, board, []
        self.line, self.outcome, self.cited_rules = line, outcome, cited_rules
        self.rules_error = rules_error
        self.strings = list(compiled.strings)
        self.interned = {s: i for i, s in enumerate(self.strings)}
        self.sight_lines = {}
        c, t = compiled, compiled.tables
        self.E = self._array(c.expr)
        self.H = self._array(c.constants)
        self.code = self._array(c.code)
        self.args = self._array(c.args)
        self.opts = self._array(c.options)
        self.pairs = self._array(c.pairs)
        self.proc_start = self._array(c.proc_start)
        self.proc_end = self._array(c.proc_end)
        self.proc_frame = self._array(c.proc_frame)
        self.proc_scope = self._array(c.proc_scope)
        self.n_names = len(c.names)
        self.scopes = self._array([x for row in c.scopes for x in row])
        self.t_seats = self._array(t["seats"])
        self.t_next_seat = self._array(t["next_seat"])
        self.t_player_name = self._array(t["player_name"])
        self.t_piece_side = self._array(t["piece_side"])
        self.t_piece_id = self._array(t["piece_id"])
        self.t_piece_class = self._array(t["piece_class"])
        self.t_piece_tags = self._array(t["piece_tags"])
        self.t_place_id = self._array(t["place_id"])
        self.t_place_kind = self._array(t["place_kind"])
        self.t_place_features = self._array(t["place_features"])
        self.t_place_owner = self._array(t["place_owner"])
        self.t_place_shore = self._array(t["place_shore"])
        self.t_place_neighbours = self._array(t["place_neighbours"])
        self.t_place_coords = self._array(t["place_coords"])
        self.t_place_is_hex = self._array(t["place_is_hex"])
        self.t_hex_position = self._array(t["hex_position"])
        self.t_edge_start = self._array(t["edge_start"])
        self.t_edge_count = self._array(t["edge_count"])
        self.t_edges = self._array(t["edges"])
        self.t_props = self._array(t["props"])
        self.t_column_base = self._array(t.get("column_base", []))
        self.t_column_zero = self._array(t.get("column_zero", []))
        self.t_column_initial = self._array(t.get("column_initial", []))
        self.t_column_frame = self._array(t.get("column_frame", []))
        self.t_column_scope = self._array(t.get("column_scope", []))
        self.t_derived = self._array(t["derived"])
        self.t_global_initial = self._array(t["global_initial"])
        self.t_global_frame = self._array(t["global_frame"])
        self.t_table_columns = self._array(t.get("table_columns", []))
        self.t_table_rule = self._array(t.get("table_rule", []))
        self.t_table_rows = self._array(t.get("table_rows", []))
        self.t_table_trail = self._array(t.get("table_trail", []))
        self.t_contribution_trail = self._array(t.get("contribution_trail", []))
        self.t_trail_text = self._array(t["trail_text"])
        self.t_dice = self._array(t.get("dice", []))
        self.t_action_base = self._array(t.get("action_base", []))
        self.t_action_params = self._array(t.get("action_params", []))
        self.t_action_domains = self._array(t.get("action_domains", []))
        at, found = 0, []
        for n in t.get("action_params", []):
            found.append(at)
            at += n
        self.t_action_domain_at = self._array(found)
        self.t_roll_faces = self._array(t["roll_faces"])
        self.t_hook_start = self._array(t.get("hook_start", []))
        self.t_hook_count = self._array(t.get("hook_count", []))
        self.t_contributions = self._array(t["contributions"])
        self.t_forbid_start = self._array(t.get("forbid_start", []))
        self.t_forbid_count = self._array(t.get("forbid_count", []))
        self.t_forbids = self._array(t["forbids"])
        self.t_permits = self._array(t["permits"])
        self.t_endings = self._array(t["endings"])
        self.t_phase_name = self._array(t["phase_name"])
        self.t_attr_read = self._array(t["attr_read"])
        self.t_decision_mask = self._array(t.get("decision_mask", []))
        self.t_is_piece = self._array(t["is_piece"])
        self.t_is_place = self._array(t["is_place"])
        self.t_membership = self._array(t.get("membership", []))
        self.memo_width = len(t["piece_side"]) + len(t["place_id"])
        self.n_once = t.get("once_count", [0])[0]
        self.n_inv = t.get("inv_count", [0])[0]
        self.n_scopes = t.get("scope_count", [0])[0]
        self.memo = self._array([UNB] * (t.get("memo_count", [0])[0] * self.memo_width + 1))
        self.n_pieces = len(t["piece_side"])
        self.n_places = len(t["place_id"])
        self.n_players = len(t["player_name"])
        self.n_seats = len(t["seats"])
        self.n_values = len(t["global_initial"])
        self.n_columns = len(t.get("column_base", []))
        self.column_words = t["column_words"][0]
        self.n_props = t["prop_count"][0]
        self.n_endings = len(t["endings"]) // 2
        self.n_actions = len(t.get("action_base", []))
        self.n_roll_faces = len(t["roll_faces"])
        self.piece_words = (self.n_pieces + 63) // 64 or 1
        self.roll_base, self.roll_size, self.roll_max = t["roll"]
        self.draw_base = t["draw_base"][0]
        self.main = t["main"][0]
        self.empty_scope = t["empty_scope"][0]
        self.empty_set = t["empty_set"][0]
        self.max_frame = max(c.proc_frame, default=1)
        # The cells of state a listing may read (State.see): where each piece is, each
        # place's pieces, each column word, each value, the turn, the phase, the roll.
        self.cell_occupied = self.n_pieces
        self.cell_column = self.cell_occupied + self.n_places
        self.cell_value = self.cell_column + self.column_words
        self.cell_turn = self.cell_value + self.n_values
        self.n_cells = self.cell_turn + 3

    cdef int64_t *_array(self, object values):
        found = _words(values)
        self.keep.append(found)
        return _at(found)

    cdef int64_t text(self, str value) except -1:
        """The number of a text, interned for the program's life."""
        found = self.interned.get(value)
        if found is None:
            found = self.interned[value] = len(self.strings)
            self.strings.append(value)
        return found

    cdef int64_t keyed_slot(self, int64_t *key) noexcept:
        """Where ``key`` is in the ``keyed`` table, or the free place it would go."""
        cdef uint64_t h = 0x9E3779B97F4A7C15
        cdef int64_t i, at
        cdef int64_t *k
        for i in range(KEY_WIDTH):
            h = (h ^ <uint64_t>key[i]) * <uint64_t>0xBF58476D1CE4E5B9
            h ^= h >> 29
        at = <int64_t>(h & <uint64_t>(self.keyed_capacity - 1))
        while True:
            k = self.keyed_keys + KEY_WIDTH * at
            if k[0] == -1 or memcmp(k, key, sizeof(int64_t) * KEY_WIDTH) == 0:
                return at
            at = (at + 1) & (self.keyed_capacity - 1)

    cdef int keyed_store(self, int64_t *key, int64_t value, uint64_t *marks) except -1:
        """Keep a ``keyed`` node's value and rules (the table doubles at half full,
        and stops growing at KEYED_LIMIT entries)."""
        cdef int64_t at, i, old_capacity
        cdef int64_t *old_keys
        cdef int64_t *old_values
        cdef int64_t *old_marks
        if self.keyed_used * 2 >= self.keyed_capacity:
            if self.keyed_capacity >= KEYED_LIMIT:
                return 0
            old_keys, old_values, old_marks = self.keyed_keys, self.keyed_values, self.keyed_marks
            old_capacity = self.keyed_capacity
            self.keyed_capacity = max(1024, 2 * old_capacity)
            self.keyed_keys = <int64_t *>malloc(sizeof(int64_t) * KEY_WIDTH * self.keyed_capacity)
            self.keyed_values = <int64_t *>malloc(sizeof(int64_t) * self.keyed_capacity)
            self.keyed_marks = <int64_t *>malloc(sizeof(int64_t) * self.keyed_capacity)
            if self.keyed_keys == NULL or self.keyed_values == NULL or self.keyed_marks == NULL:
                raise MemoryError()
            for i in range(KEY_WIDTH * self.keyed_capacity):
                self.keyed_keys[i] = -1
            for i in range(old_capacity):
                if old_keys[KEY_WIDTH * i] != -1:
                    at = self.keyed_slot(old_keys + KEY_WIDTH * i)
                    memcpy(self.keyed_keys + KEY_WIDTH * at, old_keys + KEY_WIDTH * i,
                           sizeof(int64_t) * KEY_WIDTH)
                    self.keyed_values[at] = old_values[i]
                    self.keyed_marks[at] = old_marks[i]
            free(old_keys)
            free(old_values)
            free(old_marks)
        at = self.keyed_slot(key)
        if self.keyed_keys[KEY_WIDTH * at] == -1:
            self.keyed_used += 1
        memcpy(self.keyed_keys + KEY_WIDTH * at, key, sizeof(int64_t) * KEY_WIDTH)
        self.keyed_values[at] = value
        self.keyed_marks[at] = self.mark_number(marks)
        return 0

    cdef int64_t mark_number(self, uint64_t *marks) except -1:
        """The number of a rule trail, interned: ``keyed`` entries share few of them."""
        cdef bytes found = (<char *>marks)[:sizeof(uint64_t) * TRAIL_WORDS]
        cdef uint64_t *grown
        number = self.mark_numbers.get(found)
        if number is not None:
            return number
        if self.mark_count >= self.mark_capacity:
            self.mark_capacity = max(16, 2 * self.mark_capacity)
            grown = <uint64_t *>realloc(self.mark_sets,
                                        sizeof(uint64_t) * TRAIL_WORDS * self.mark_capacity)
            if grown == NULL:
                raise MemoryError()
            self.mark_sets = grown
        memcpy(self.mark_sets + TRAIL_WORDS * self.mark_count, marks,
               sizeof(uint64_t) * TRAIL_WORDS)
        self.mark_numbers[found] = self.mark_count
        self.mark_count += 1
        return self.mark_count - 1

    def new_game(self, seed=0, setup=None, turn_limit=None, log=True):
        """A game from the start: ``log`` False keeps no log lines (rollouts)."""
        return State(self, seed, setup, turn_limit, log)


# ---------------------------------------------------------------- the state
cdef class State:
    """A game in progress on the native VM (see the module docstring)."""

    # a game in progress: the state of truth is the arrays below
    cdef readonly Program program
    cdef int64_t *E            # the program's expression nodes
    cdef int64_t *where        # piece -> place index, or -1
    cdef uint64_t *occupied    # place -> bitset of its pieces (piece_words words)
    cdef int64_t *columns      # attribute columns, by Program.t_column_base
    cdef int64_t *values       # global values
    cdef int64_t *slots        # frames' slots, then clause frames (a stack)
    cdef int64_t top           # the slot stack's first free word
    cdef int64_t frame_proc[MAX_FRAMES]
    cdef int64_t frame_pc[MAX_FRAMES]
    cdef int64_t frame_base[MAX_FRAMES]
    cdef int64_t depth
    cdef int64_t *heap         # the state's collections
    cdef int64_t heap_top, heap_capacity, heap_limit
    cdef int64_t *temp         # words being gathered (a stack)
    cdef int64_t temp_top
    cdef uint64_t rng
    cdef int64_t turn, phase, last_roll, turn_limit
    cdef list log_lines
    cdef object outcome_found
    cdef uint64_t *trail       # the rule trail being kept (with_rules), or NULL
    cdef set revealed
    # the pending decision's listing
    cdef bint listed
    cdef int64_t n_candidates, candidate_capacity, write_top, write_capacity
    cdef int64_t *candidate_id
    cdef int64_t *candidate_option
    cdef int64_t *candidate_writes
    cdef int64_t *write_slot
    cdef int64_t *write_value
    # the listing before it, kept to be reused group by group (``candidates``)
    cdef int64_t old_n_candidates, old_candidate_capacity, old_write_top, old_write_capacity
    cdef int64_t *old_candidate_id
    cdef int64_t *old_candidate_option
    cdef int64_t *old_candidate_writes
    cdef int64_t *old_write_slot
    cdef int64_t *old_write_value
    cdef int64_t *groups       # GROUP_WIDTH words a group: a first parameter's candidates
    cdef int64_t *old_groups
    cdef int64_t n_groups, group_capacity, old_n_groups, old_group_capacity
    cdef int64_t *reads        # the cells each group read
    cdef int64_t *old_reads
    cdef int64_t n_reads, read_capacity, old_n_reads, old_read_capacity
    cdef bint reusable         # the kept listing may be reused (same decision, same frame)
    cdef int64_t listed_pc, listed_depth, listed_size, cursor
    cdef int64_t *listed_frame
    # what changed when: a write stamps its cell with the next tick
    cdef int64_t *cell_tick
    cdef int64_t *read_mark
    cdef int64_t tick, serial
    cdef bint recording
    cdef public int64_t groups_reused, groups_listed
    cdef bint chooser_known    # the sealed choice's next chooser is chooser_word
    cdef int64_t chooser_word, chooser_pc, chooser_depth
    cdef public int64_t fallbacks
    cdef bint listing          # inside candidates(): what ``once`` nodes keep is current
    cdef int64_t listing_serial
    cdef int64_t *once_value   # per ``once`` node: its value in this listing,
    cdef int64_t *once_stamp   # the listing it was found in,
    cdef int64_t *once_start   # and the cells it read (in once_reads)
    cdef int64_t *once_count
    cdef int64_t *once_reads
    cdef int64_t once_top, once_capacity
    cdef int64_t *inv_value    # per ``inv`` node: its value, and the run it was found in
    cdef int64_t *inv_stamp
    cdef int64_t *scope_run    # per comprehension scope: the run under way
    cdef int64_t runs

    def __cinit__(self):
        self.where = self.heap = self.temp = self.candidate_id = NULL
        self.old_candidate_id = self.groups = self.old_groups = self.reads = NULL
        self.old_reads = self.listed_frame = self.cell_tick = self.read_mark = NULL
        self.occupied = NULL
        self.columns = self.values = self.slots = self.candidate_option = NULL
        self.candidate_writes = self.write_slot = self.write_value = NULL
        self.old_candidate_option = self.old_candidate_writes = NULL
        self.old_write_slot = self.old_write_value = NULL
        self.once_value = self.once_stamp = self.once_start = self.once_count = NULL
        self.once_reads = self.inv_value = self.inv_stamp = self.scope_run = NULL
        self.runs = 0
        self.listing = False
        self.listing_serial = self.once_top = self.once_capacity = 0

    def __init__(self, Program program, seed=0, setup=None, turn_limit=None, log=True):
        cdef int64_t i, c, n, base
        cdef int64_t *s
        cdef Ctx cx
        self.program = program
        self.E = program.E
        self._allocate(1 << 12)
        self.rng = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        self.turn, self.phase = 1, 0
        self.turn_limit = -1 if turn_limit is None else turn_limit
        self.last_roll = NONE
        self.log_lines = [] if log else None
        self.outcome_found = None
        self.trail = NULL
        self.revealed = set()
        for i in range(program.n_pieces):
            self.where[i] = -1
        for c in range(program.n_columns):
            base = program.t_column_base[c]
            n = (program.t_column_base[c + 1] if c + 1 < program.n_columns
                 else program.column_words) - base
            for i in range(n):
                self.columns[base + i] = program.t_column_zero[c]
        if setup is not None:
            for piece, place in program.compiled.setups[setup]:
                self.put(piece, place)
        for i in range(program.n_values):
            s = self.push(program.t_global_frame[i] or 1)
            cx.slots, cx.names, cx.bound = s, self.scope(program.empty_scope), NULL
            self.values[i] = self.kid(program.t_global_initial[i], s, &cx)
            self.pop(s)
        for c in range(program.n_columns):
            base = program.t_column_base[c]
            n = (program.t_column_base[c + 1] if c + 1 < program.n_columns
                 else program.column_words) - base
            for i in range(n):
                if program.t_column_initial[c] < 0:
                    self.columns[base + i] = program.t_column_zero[c]
                    continue
                s = self.push(program.t_column_frame[c])
                s[0] = self._owner_word(c, i)
                cx.slots, cx.names, cx.bound = s, self.scope(program.t_column_scope[c]), NULL
                self.columns[base + i] = self.kid(program.t_column_initial[c], s, &cx)
                self.pop(s)
        self.enter(program.main, NULL, 0)
        self.run()

    cdef int64_t _owner_word(self, int64_t column, int64_t i) except? 15:
        owner = self.program.compiled.tables["column_owner"][column]
        return mk((T_PIECE, T_PLACE, T_PLAYER)[owner], i)

    cdef int _allocate(self, int64_t heap_words) except -1:
        """The state's fixed arrays and a heap of ``heap_words``; the listing's arrays
        are made when a decision is first listed (a clone starts without them)."""
        cdef Program p = self.program
        self.where = <int64_t *>malloc(sizeof(int64_t) * (p.n_pieces + 1))
        self.occupied = <uint64_t *>calloc(p.n_places * p.piece_words + 1, sizeof(uint64_t))
        self.columns = <int64_t *>malloc(sizeof(int64_t) * (p.column_words + 1))
        self.values = <int64_t *>malloc(sizeof(int64_t) * (p.n_values + 1))
        self.slots = <int64_t *>malloc(sizeof(int64_t) * SLOT_CAPACITY)
        self.temp = p.temp
        self.heap_capacity = heap_words
        self.heap = <int64_t *>malloc(sizeof(int64_t) * self.heap_capacity)
        self.heap_limit = 1 << 13
        if (self.where == NULL or self.occupied == NULL or self.columns == NULL
                or self.values == NULL or self.slots == NULL or self.heap == NULL):
            raise MemoryError()
        self.candidate_capacity = self.old_candidate_capacity = 0
        self.write_capacity = self.old_write_capacity = 0
        self.group_capacity = self.old_group_capacity = 0
        self.read_capacity = self.old_read_capacity = 0
        self.n_groups = self.old_n_groups = self.n_reads = self.old_n_reads = 0
        self.old_n_candidates = self.old_write_top = 0
        self.tick = self.serial = 0
        self.recording = self.reusable = self.chooser_known = False
        self.top = self.heap_top = self.temp_top = self.depth = 0
        self.n_candidates = self.write_top = 0
        self.listed = False
        return 0

    cdef int _listing_arrays(self) except -1:
        """What listing and keeping listings needs, made at the first decision listed."""
        cdef Program p = self.program
        self.listed_frame = <int64_t *>malloc(sizeof(int64_t) * (p.max_frame + 1))
        self.cell_tick = <int64_t *>calloc(p.n_cells + 1, sizeof(int64_t))
        self.read_mark = <int64_t *>calloc(p.n_cells + 1, sizeof(int64_t))
        self.once_value = <int64_t *>calloc(p.n_once + 1, sizeof(int64_t))
        self.once_stamp = <int64_t *>calloc(p.n_once + 1, sizeof(int64_t))
        self.once_start = <int64_t *>calloc(p.n_once + 1, sizeof(int64_t))
        self.once_count = <int64_t *>calloc(p.n_once + 1, sizeof(int64_t))
        if (self.listed_frame == NULL or self.cell_tick == NULL or self.read_mark == NULL
                or self.once_value == NULL or self.once_stamp == NULL
                or self.once_start == NULL or self.once_count == NULL):
            raise MemoryError()
        return 0

    def __dealloc__(self):
        free(self.where)
        free(self.occupied)
        free(self.columns)
        free(self.values)
        free(self.slots)
        free(self.heap)
        free(self.candidate_id)
        free(self.candidate_option)
        free(self.candidate_writes)
        free(self.write_slot)
        free(self.write_value)
        free(self.old_candidate_id)
        free(self.old_candidate_option)
        free(self.old_candidate_writes)
        free(self.old_write_slot)
        free(self.old_write_value)
        free(self.groups)
        free(self.old_groups)
        free(self.reads)
        free(self.old_reads)
        free(self.listed_frame)
        free(self.cell_tick)
        free(self.read_mark)
        free(self.once_value)
        free(self.once_stamp)
        free(self.once_start)
        free(self.once_count)
        free(self.once_reads)
        free(self.inv_value)
        free(self.inv_stamp)
        free(self.scope_run)

    # ------------------------------------------------------------ errors
    cdef int fail(self, str message, int64_t rule) except -1:
        if rule >= 0:
            message = f"{message} [rule {self.program.strings[rule]}]"
        raise self.program.rules_error(message)

    # ------------------------------------------------------------ slots and frames
    cdef inline int64_t *push(self, int64_t n) except NULL:
        cdef int64_t i
        cdef int64_t *s = self.slots + self.top
        if self.top + n > SLOT_CAPACITY:
            raise self.program.rules_error("procedures and clauses nest too deeply")
        for i in range(n):
            s[i] = UNB
        self.top += n
        return s

    cdef inline void pop(self, int64_t *s) noexcept:
        self.top = s - self.slots

    cdef inline int64_t *scope(self, int64_t row) noexcept:
        return self.program.scopes + row * self.program.n_names

    cdef int enter(self, int64_t proc, int64_t *given, int64_t n) except -1:
        cdef Program p = self.program
        cdef int64_t i
        cdef int64_t *s
        if self.depth >= 200:
            raise p.rules_error("procedures call each other too deeply")
        s = self.push(p.proc_frame[proc])
        for i in range(n):
            s[i] = given[i]
        self.frame_proc[self.depth] = proc
        self.frame_pc[self.depth] = p.proc_start[proc]
        self.frame_base[self.depth] = s - self.slots
        self.depth += 1
        return 0

    cdef int leave(self) except -1:
        self.depth -= 1
        self.top = self.frame_base[self.depth]
        if self.depth == 0:
            self.finish(None, "the turn sequence ended", {}, None)
        return 0

    # ------------------------------------------------------------ the heap
    cdef inline int64_t *obj(self, int64_t w) noexcept:
        cdef int64_t h = pay(w)
        if h & 1:
            return self.program.H + (h >> 1)
        return self.heap + (h >> 1)

    cdef int64_t new(self, int t, int64_t n) except? 15:
        """A new collection of ``n`` items (a map: ``n`` pairs), its length set."""
        cdef int64_t words = 1 + (2 * n if t == T_MAP else n)
        cdef int64_t at
        cdef int64_t *grown
        if self.heap_top + words > self.heap_capacity:
            while self.heap_top + words > self.heap_capacity:
                self.heap_capacity *= 2
            grown = <int64_t *>realloc(self.heap, sizeof(int64_t) * self.heap_capacity)
            if grown == NULL:
                raise MemoryError()
            self.heap = grown
        at = self.heap_top
        self.heap[at] = n
        self.heap_top += words
        return mk(t, at << 1)

    cdef inline int64_t length(self, int64_t w) noexcept:
        return self.obj(w)[0]

    cdef int64_t collected(self, int t, int64_t start) except? 15:
        """The words gathered on the temp stack from ``start`` as a new list (popped)."""
        cdef int64_t n = self.temp_top - start
        cdef int64_t w = self.new(T_LIST, n)
        memcpy(self.obj(w) + 1, self.temp + start, sizeof(int64_t) * n)
        self.temp_top = start
        if t == T_SET:
            return self.make_set(w)
        return w

    cdef inline int gather(self, int64_t w) except -1:
        if self.temp_top >= TEMP_CAPACITY:
            raise self.program.rules_error("a collection is too large for the VM")
        self.temp[self.temp_top] = w
        self.temp_top += 1
        return 0

    cdef int collect_garbage(self) except -1:
        """Copy the collections still reachable into a fresh heap (the roots: columns,
        global values, the frames' slots, the listing, the last roll)."""
        cdef Program p = self.program
        cdef int64_t *old = self.heap
        cdef int64_t i
        self.heap = <int64_t *>malloc(sizeof(int64_t) * self.heap_capacity)
        if self.heap == NULL:
            self.heap = old
            raise MemoryError()
        self.heap_top = 0
        for i in range(p.column_words):
            self.columns[i] = self.forward(old, self.columns[i])
        for i in range(p.n_values):
            self.values[i] = self.forward(old, self.values[i])
        for i in range(self.top):
            self.slots[i] = self.forward(old, self.slots[i])
        for i in range(self.write_top):
            self.write_value[i] = self.forward(old, self.write_value[i])
        self.last_roll = self.forward(old, self.last_roll)
        for i in range(self.listed_size):
            self.listed_frame[i] = self.forward(old, self.listed_frame[i])
        for i in range(self.n_groups):
            self.groups[GROUP_WIDTH * i + 1] = self.forward(old, self.groups[GROUP_WIDTH * i + 1])
        free(old)
        self.heap_limit = max(1 << 13, 2 * self.heap_top)
        return 0

    cdef int64_t forward(self, int64_t *old, int64_t w) except? 15:
        cdef int t = tag(w)
        cdef int64_t h, at, n, words, i, moved
        if not is_collection(t):
            return w
        h = pay(w)
        if h & 1:
            return w
        at = h >> 1
        if old[at] < 0:
            return mk(t, (-old[at] - 1) << 1)
        n = old[at]
        words = 2 * n if t == T_MAP else n
        moved = self.new(t, n)
        memcpy(self.obj(moved) + 1, old + at + 1, sizeof(int64_t) * words)
        old[at] = -(pay(moved) >> 1) - 1
        for i in range(words):
            self.obj(moved)[1 + i] = self.forward(old, self.obj(moved)[1 + i])
        return moved

    # ------------------------------------------------------------ values
    cdef int64_t seq(self, int64_t w) except? 15:
        """A collection as its items in the order the rules visit them (``items``)."""
        cdef int t = tag(w)
        if t == T_LIST or t == T_SET:
            return w
        if t == T_PLACE:
            return mk(T_LIST, pay(self.program.empty_set))
        if t == T_DICE:
            return self.dice_values(pay(w))
        raise TypeError(f"cannot iterate over {self.text_of(w)}")

    cdef int64_t dice_values(self, int64_t d) except? 15:
        cdef int64_t *dice = self.program.t_dice + 3 * d
        cdef int64_t start = self.temp_top
        cdef int64_t i
        if dice[2] >= 0:
            seen = []
            for i in range(self.obj(dice[2])[0]):
                if self.obj(dice[2])[1 + i] not in seen:
                    seen.append(self.obj(dice[2])[1 + i])
            for x in seen:
                self.gather(x)
        else:
            for i in range(dice[0], dice[0] * dice[1] + 1):
                self.gather(mk(T_INT, i))
        return self.collected(T_LIST, start)

    cdef bint truth(self, int64_t w) except -1:
        cdef int t = tag(w)
        if t == T_BOOL or t == T_INT:
            return pay(w) != 0
        if t == T_NONE:
            return False
        if is_collection(t):
            return self.obj(w)[0] > 0
        if t == T_TEXT:
            return self.program.strings[pay(w)] != ""
        if t == T_UNBOUND:
            raise self.program.rules_error("a variable is read before it is set")
        return True

    cdef bint eq(self, int64_t a, int64_t b) except -1:
        cdef int ta = tag(a), tb = tag(b)
        cdef int64_t i, n
        if a == b:
            return True
        if (ta == T_INT or ta == T_BOOL) and (tb == T_INT or tb == T_BOOL):
            return pay(a) == pay(b)
        if ta != tb or not is_collection(ta):
            return False
        n = self.obj(a)[0]
        if n != self.obj(b)[0]:
            return False
        if ta == T_MAP:
            n *= 2
        for i in range(n):
            if not self.eq(self.obj(a)[1 + i], self.obj(b)[1 + i]):
                return False
        return True

    cdef int order(self, int64_t a, int64_t b) except -2:
        """The canonical order (``values.order_key``): pieces, places and players by
        index, then numbers, then texts."""
        cdef int ca = self.order_class(a), cb = self.order_class(b)
        cdef int64_t na, da, nb, db
        if ca != cb:
            return -1 if ca < cb else 1
        if ca == 0:
            return (pay(a) > pay(b)) - (pay(a) < pay(b))
        if ca == 1:
            self.fraction(a, &na, &da)
            self.fraction(b, &nb, &db)
            return (na * db > nb * da) - (na * db < nb * da)
        sa, sb = self.order_text(a), self.order_text(b)
        return (sa > sb) - (sa < sb)

    cdef inline int order_class(self, int64_t w) noexcept:
        cdef int t = tag(w)
        if is_entity(t):
            return 0
        if is_number(t):
            return 1
        return 2

    cdef str order_text(self, int64_t w):
        cdef int t = tag(w)
        if t == T_TEXT:
            return self.program.strings[pay(w)]
        if t == T_NONE:
            return "None"
        if t == T_TABLE or t == T_DICE:
            return self.text_of(w)
        raise TypeError(f"the VM cannot order {self.text_of(w)} yet")

    cdef int sort(self, int64_t *items, int64_t n) except -1:
        """Sort words in place in the canonical order (stable: an insertion sort on short
        runs, merged)."""
        cdef int64_t i, j, x
        cdef int64_t *spare
        cdef int64_t width, lo, mid, hi, a, b, k
        if n < 2:
            return 0
        if n <= 16:
            for i in range(1, n):
                x = items[i]
                j = i - 1
                while j >= 0 and self.order(items[j], x) > 0:
                    items[j + 1] = items[j]
                    j -= 1
                items[j + 1] = x
            return 0
        spare = <int64_t *>malloc(sizeof(int64_t) * n)
        if spare == NULL:
            raise MemoryError()
        try:
            width = 1
            while width < n:
                lo = 0
                while lo < n:
                    mid = min(lo + width, n)
                    hi = min(lo + 2 * width, n)
                    a, b, k = lo, mid, lo
                    while a < mid and b < hi:
                        if self.order(items[b], items[a]) < 0:
                            spare[k] = items[b]
                            b += 1
                        else:
                            spare[k] = items[a]
                            a += 1
                        k += 1
                    while a < mid:
                        spare[k] = items[a]
                        a += 1
                        k += 1
                    while b < hi:
                        spare[k] = items[b]
                        b += 1
                        k += 1
                    lo = hi
                memcpy(items, spare, sizeof(int64_t) * n)
                width *= 2
        finally:
            free(spare)
        return 0

    cdef int64_t make_set(self, int64_t w) except? 15:
        """A set of the items of list ``w``: in canonical order, without repeats."""
        cdef int64_t n = self.obj(w)[0]
        cdef int64_t out = self.new(T_SET, n)
        cdef int64_t *o
        cdef int64_t i, j, kept = 0
        cdef bint seen
        memcpy(self.obj(out) + 1, self.obj(w) + 1, sizeof(int64_t) * n)
        o = self.obj(out)
        self.sort(o + 1, n)
        for i in range(n):
            seen = False
            j = kept - 1
            while j >= 0 and self.order(o[1 + j], o[1 + i]) == 0:
                if self.eq(o[1 + j], o[1 + i]):
                    seen = True
                    break
                j -= 1
            if not seen:
                o[1 + kept] = o[1 + i]
                kept += 1
        o[0] = kept
        return out

    cdef bint contains(self, int64_t c, int64_t x) except -1:
        cdef int t = tag(c)
        cdef int64_t i, n
        if t == T_LIST or t == T_SET:
            n = self.obj(c)[0]
            for i in range(n):
                if self.same(self.obj(c)[1 + i], x):
                    return True
            return False
        if t == T_MAP:
            return self.map_find(c, x) >= 0
        if t == T_TEXT and tag(x) == T_TEXT:
            return self.program.strings[pay(x)] in self.program.strings[pay(c)]
        raise TypeError(f"'in' needs a collection, not {self.text_of(c)}")

    cdef int64_t map_find(self, int64_t m, int64_t key) except -2:
        cdef int64_t i, n = self.obj(m)[0]
        for i in range(n):
            if self.same(self.obj(m)[1 + 2 * i], key):
                return i
        return -1

    # ------------------------------------------------------------ numbers
    cdef int fraction(self, int64_t w, int64_t *n, int64_t *d) except -1:
        cdef int t = tag(w)
        if t == T_INT or t == T_BOOL:
            n[0], d[0] = pay(w), 1
        elif t == T_FRAC:
            n[0], d[0] = pay(w) >> 24, pay(w) & (FRAC_DEN - 1)
        else:
            raise TypeError(f"{self.text_of(w)} is not a number")
        return 0

    cdef int64_t number(self, int64_t n, int64_t d) except? 15:
        cdef int64_t g
        if d == 0:
            raise ZeroDivisionError("division by zero")
        if d < 0:
            n, d = -n, -d
        g = _gcd(n, d)
        if g > 1:
            n, d = n // g, d // g
        if d == 1:
            return mk(T_INT, n)
        if d >= FRAC_DEN or n >= FRAC_LIMIT or n < -FRAC_LIMIT:
            raise OverflowError("a fraction too fine for the VM")
        return mk(T_FRAC, (n << 24) | d)

    cdef int64_t arith(self, int64_t op, int64_t a, int64_t b) except? 15:
        cdef int ta = tag(a), tb = tag(b)
        cdef int64_t na, da, nb, db, q
        if (ta == T_INT or ta == T_BOOL) and (tb == T_INT or tb == T_BOOL):
            if op == X_ADD:
                return mk(T_INT, pay(a) + pay(b))
            if op == X_SUB:
                return mk(T_INT, pay(a) - pay(b))
            if op == X_MUL:
                return mk(T_INT, pay(a) * pay(b))
            if op == X_MOD:
                if pay(b) == 0:
                    raise ZeroDivisionError("integer modulo by zero")
                q = pay(a) % pay(b)
                if q != 0 and ((q < 0) != (pay(b) < 0)):
                    q += pay(b)
                return mk(T_INT, q)
            return self.number(pay(a), pay(b))
        if is_number(ta) and is_number(tb):
            self.fraction(a, &na, &da)
            self.fraction(b, &nb, &db)
            if op == X_ADD:
                return self.number(na * db + nb * da, da * db)
            if op == X_SUB:
                return self.number(na * db - nb * da, da * db)
            if op == X_MUL:
                return self.number(na * nb, da * db)
            if op == X_DIV:
                return self.number(na * db, da * nb)
            raise TypeError("the VM takes no remainder of a fraction")
        if op == X_ADD:
            if ta == T_SET:
                return self.union2(a, b)
            if ta == T_LIST and tb == T_LIST:
                return self.concat(a, b)
            if ta == T_TEXT and tb == T_TEXT:
                return mk(T_TEXT, self.program.text(
                    self.program.strings[pay(a)] + self.program.strings[pay(b)]))
        if op == X_SUB and ta == T_SET and tb == T_SET:
            return self.difference(a, b)
        raise TypeError(f"cannot combine {self.text_of(a)} and {self.text_of(b)}")

    cdef int64_t union2(self, int64_t a, int64_t b) except? 15:
        cdef int64_t start = self.temp_top
        cdef int64_t i
        for i in range(self.obj(a)[0]):
            self.gather(self.obj(a)[1 + i])
        b = self.seq_or_keys(b)
        for i in range(self.obj(b)[0]):
            self.gather(self.obj(b)[1 + i])
        return self.collected(T_SET, start)

    cdef int64_t difference(self, int64_t a, int64_t b) except? 15:
        cdef int64_t start = self.temp_top
        cdef int64_t i, x
        for i in range(self.obj(a)[0]):
            x = self.obj(a)[1 + i]
            if not self.contains(b, x):
                self.gather(x)
        return self.collected(T_SET, start)

    cdef int64_t concat(self, int64_t a, int64_t b) except? 15:
        cdef int64_t na = self.obj(a)[0], nb = self.obj(b)[0]
        cdef int64_t out = self.new(T_LIST, na + nb)
        memcpy(self.obj(out) + 1, self.obj(a) + 1, sizeof(int64_t) * na)
        memcpy(self.obj(out) + 1 + na, self.obj(b) + 1, sizeof(int64_t) * nb)
        return out

    cdef int64_t seq_or_keys(self, int64_t w) except? 15:
        """What ``frozenset(x)`` reads: a list's or set's items, a map's keys."""
        cdef int64_t start, i
        if tag(w) == T_MAP:
            start = self.temp_top
            for i in range(self.obj(w)[0]):
                self.gather(self.obj(w)[1 + 2 * i])
            return self.collected(T_LIST, start)
        if tag(w) == T_LIST or tag(w) == T_SET:
            return w
        raise TypeError(f"{self.text_of(w)} is not a collection")

    cdef int compare(self, int64_t op, int64_t a, int64_t b) except -1:
        """``< <= > >=`` on ranks: a value that is no number is beyond every number."""
        cdef int64_t na, da, nb, db
        cdef bint fa = is_number(tag(a)), fb = is_number(tag(b))
        cdef int c
        if fa and fb:
            if tag(a) != T_FRAC and tag(b) != T_FRAC:
                c = (pay(a) > pay(b)) - (pay(a) < pay(b))
            else:
                self.fraction(a, &na, &da)
                self.fraction(b, &nb, &db)
                c = (na * db > nb * da) - (na * db < nb * da)
        elif fa:
            c = -1
        elif fb:
            c = 1
        else:
            c = 0        # both beyond every number: equal ranks
        if op == X_LT:
            return c < 0
        if op == X_LE:
            return c <= 0
        if op == X_GT:
            return c > 0
        return c >= 0

    cdef int64_t absorb(self, int64_t op, int64_t start) except? 15:
        """``sum``/``max``/``min`` of the words gathered from ``start`` (popped): the
        first that is no number absorbs the rest (``values.absorb``)."""
        cdef int64_t i, best, n = self.temp_top - start
        for i in range(n):
            if not is_number(tag(self.temp[start + i])):
                best = self.temp[start + i]
                self.temp_top = start
                return best
        if op == X_SUM:
            best = mk(T_INT, 0)
            for i in range(n):
                best = self.arith(X_ADD, best, self.temp[start + i])
            self.temp_top = start
            return best
        if n == 0:
            self.temp_top = start
            raise ValueError("max() or min() of nothing")
        best = self.temp[start]
        for i in range(1, n):
            if self.compare(X_GT if op == X_MAX else X_LT, self.temp[start + i], best):
                best = self.temp[start + i]
        self.temp_top = start
        return best

    # ------------------------------------------------------------ texts
    cpdef str text_of(self, int64_t w):
        """A value as log lines and action texts show it (``values.text``)."""
        cdef int t = tag(w)
        cdef Program p = self.program
        cdef int64_t i, n
        if t == T_BOOL:
            return "true" if pay(w) else "false"
        if t == T_INT:
            return str(pay(w))
        if t == T_NONE:
            return "none"
        if t == T_FRAC:
            return str(Fraction(pay(w) >> 24, pay(w) & (FRAC_DEN - 1)))
        if t == T_TEXT:
            return p.strings[pay(w)]
        if t == T_PIECE:
            return p.strings[p.t_piece_id[pay(w)]]
        if t == T_PLACE:
            return p.strings[p.t_place_id[pay(w)]]
        if t == T_PLAYER:
            return p.strings[p.t_player_name[pay(w)]]
        if t == T_LIST or t == T_SET:
            n = self.obj(w)[0]
            return ", ".join([self.text_of(self.obj(w)[1 + i]) for i in range(n)])
        if t == T_TABLE:
            return p.board.tables[pay(w)].name
        if t == T_DICE:
            return p.board.dice[pay(w)].name
        return str(self.py(w))

    cpdef object py(self, int64_t w):
        """A value as plain Python, as an outcome reports it (``values.plain``)."""
        cdef int t = tag(w)
        cdef int64_t i, n
        if t == T_INT:
            return pay(w)
        if t == T_BOOL:
            return bool(pay(w))
        if t == T_NONE:
            return None
        if t == T_FRAC:
            return Fraction(pay(w) >> 24, pay(w) & (FRAC_DEN - 1))
        if t == T_TEXT or t == T_PIECE or t == T_PLACE or t == T_PLAYER:
            return self.text_of(w)
        if t == T_LIST:
            return [self.py(self.obj(w)[1 + i]) for i in range(self.obj(w)[0])]
        if t == T_SET:
            return sorted([self.py(self.obj(w)[1 + i]) for i in range(self.obj(w)[0])],
                          key=str)
        if t == T_MAP:
            n = self.obj(w)[0]
            return {self.py(self.obj(w)[1 + 2 * i]): self.py(self.obj(w)[2 + 2 * i])
                    for i in range(n)}
        return self.text_of(w)

    cdef int64_t from_py(self, object value) except? 15:
        """A value the board's Python functions return (places, lists of them)."""
        cdef int64_t start
        kind = type(value).__name__
        if kind == "Place":
            return mk(T_PLACE, value.index)
        if kind == "Piece":
            return mk(T_PIECE, value.index)
        if isinstance(value, (tuple, list)):
            start = self.temp_top
            for x in value:
                self.gather(self.from_py(x))
            return self.collected(T_LIST, start)
        if isinstance(value, str):
            return mk(T_TEXT, self.program.text(value))
        if value is None:
            return NONE
        raise TypeError(f"the VM holds no value {value!r}")

    # ------------------------------------------------------------ what changed, what was read
    cdef inline void touch(self, int64_t cell) noexcept:
        """A write to ``cell``: stamp it with the next tick (once a listing is kept)."""
        if self.cell_tick != NULL:
            self.tick += 1
            self.cell_tick[cell] = self.tick

    cdef int see(self, int64_t cell) except -1:
        """A read of ``cell`` while a listing group is recorded: note it once."""
        cdef int64_t *grown
        if self.read_mark[cell] == self.serial:
            return 0
        self.read_mark[cell] = self.serial
        if self.n_reads >= self.read_capacity:
            self.read_capacity = max(1024, 2 * self.read_capacity)
            grown = <int64_t *>realloc(self.reads, sizeof(int64_t) * self.read_capacity)
            if grown == NULL:
                raise MemoryError()
            self.reads = grown
        self.reads[self.n_reads] = cell
        self.n_reads += 1
        return 0

    # ------------------------------------------------------------ the board
    cdef int put(self, int64_t piece, int64_t place) except -1:
        cdef int64_t old = self.where[piece]
        if old == place:
            return 0
        self.touch(piece)
        if old >= 0:
            self.occupied[old * self.program.piece_words + piece // 64] &= ~(
                (<uint64_t>1) << (piece % 64))
            self.touch(self.program.cell_occupied + old)
        if place >= 0:
            self.touch(self.program.cell_occupied + place)
        self.where[piece] = place
        if place >= 0:
            self.occupied[place * self.program.piece_words + piece // 64] |= (
                (<uint64_t>1) << (piece % 64))
        return 0

    cdef int64_t pieces_in(self, int64_t place) except? 15:
        """The pieces in a place, by index, as a new list."""
        cdef int64_t start = self.temp_top
        cdef int64_t k, b
        cdef uint64_t bits
        if self.recording:
            self.see(self.program.cell_occupied + place)
        for k in range(self.program.piece_words):
            bits = self.occupied[place * self.program.piece_words + k]
            b = 0
            while bits:
                if bits & 1:
                    self.gather(mk(T_PIECE, k * 64 + b))
                bits >>= 1
                b += 1
        return self.collected(T_LIST, start)

    cdef int64_t edge(self, int64_t a, int64_t b) noexcept:
        """The record of the edge from place a to place b, or -1."""
        cdef Program p = self.program
        cdef int64_t i, start = p.t_edge_start[a], n = p.t_edge_count[a]
        for i in range(n):
            if p.t_edges[3 * (start + i)] == b:
                return 3 * (start + i)
        return -1

    cdef int64_t place_of(self, int64_t w) except -1:
        if tag(w) != T_PLACE:
            raise AttributeError(f"{self.text_of(w)} is not a place")
        return pay(w)

    # ------------------------------------------------------------ attributes
    cdef int64_t attr(self, int64_t w, int64_t name, int64_t text) except? 15:
        """``w.name``: a column of state, a derived value, or what the thing is."""
        cdef int t = tag(w)
        cdef int64_t owner, read, mode, index, i
        cdef int64_t *s
        cdef int64_t *d
        cdef Ctx cx
        if t == T_PIECE:
            owner = 0
        elif t == T_PLACE:
            owner = 1
        elif t == T_PLAYER:
            owner = 2
        elif t == T_ROW:
            return self.row_cell(w, mk(T_TEXT, text))
        else:
            raise TypeError(f"{self.text_of(w)} has no attribute {self.program.strings[text]!r}")
        read = self.program.t_attr_read[owner * self.program.n_names + name]
        mode, index = read >> 32, read & LOW32
        i = pay(w)
        if mode == 1:
            if self.recording:
                self.see(self.program.cell_column + self.program.t_column_base[index] + i)
            return self.columns[self.program.t_column_base[index] + i]
        if mode == 2:
            d = self.program.t_derived + 3 * index
            s = self.push(d[1])
            s[0] = w
            cx.slots, cx.names, cx.bound = s, self.scope(d[2]), NULL
            try:
                return self.kid(d[0], s, &cx)
            finally:
                self.pop(s)
        if mode == 3:
            if owner == 0:
                if index == 0:
                    if self.recording:
                        self.see(i)
                    return mk(T_PLACE, self.where[i]) if self.where[i] >= 0 else NONE
                if index == 1:
                    return (mk(T_PLAYER, self.program.t_piece_side[i])
                            if self.program.t_piece_side[i] >= 0
                            else NONE)
                if index == 2:
                    return mk(T_TEXT, self.program.t_piece_class[i])
                return mk(T_TEXT, self.program.t_piece_id[i])
            if owner == 1:
                if index == 0:
                    return self.pieces_in(i)
                if index == 1:
                    return self.program.t_place_features[i]
                if index == 2:
                    return self.program.t_place_owner[i]
                if index == 3:
                    return mk(T_TEXT, self.program.t_place_id[i])
                if index == 4:
                    return mk(T_TEXT, self.program.t_place_kind[i])
                return self.program.t_place_shore[i]
            return mk(T_TEXT, self.program.t_player_name[i])
        if mode == 4 and self.program.t_props[i * self.program.n_props + index] != ERRW:
            return self.program.t_props[i * self.program.n_props + index]
        raise KeyError(self.program.strings[text])

    cdef int64_t row_cell(self, int64_t row, int64_t column) except? 15:
        cdef int64_t table = pay(row) >> 24, at = pay(row) & 0xFFFFFF
        cdef int64_t columns = self.program.t_table_columns[table]
        cdef int64_t cells, i
        if self.trail != NULL:
            mark(self.trail, self.program.t_table_trail[table])
        cells = self.obj(self.program.t_table_rows[table])[2 + 2 * at]
        for i in range(self.obj(columns)[0]):
            if self.eq(self.obj(columns)[1 + i], column):
                return self.obj(cells)[1 + i]
        raise ValueError(f"no column {self.text_of(column)} in this table")

    cdef int64_t index(self, int64_t target, int64_t key) except? 15:
        """``target[key]`` (``values.index``)."""
        cdef int t = tag(target)
        cdef int64_t i, n
        if t == T_TABLE:
            i = self.map_find(self.program.t_table_rows[pay(target)], key)
            if i < 0:
                raise KeyError(self.text_of(key))
            return mk(T_ROW, (pay(target) << 24) | i)
        if t == T_MAP:
            i = self.map_find(target, key)
            if i < 0 and tag(key) == T_PLAYER:
                i = self.map_find(target, mk(T_TEXT, self.program.t_player_name[pay(key)]))
            if i < 0:
                raise KeyError(self.text_of(key))
            return self.obj(target)[2 + 2 * i]
        if (t == T_LIST or t == T_SET) and tag(key) == T_INT:
            n = self.obj(target)[0]
            i = pay(key)
            if i < 0:
                i += n
            if i < 0 or i >= n:
                raise IndexError("index out of range")
            return self.obj(target)[1 + i]
        raise TypeError(f"cannot index {self.text_of(target)} by {self.text_of(key)}")

    cdef bint is_test(self, int64_t w, int64_t text) except -1:
        """``w is name`` (``values.is_test``)."""
        cdef int t = tag(w)
        cdef int64_t name = mk(T_TEXT, text)
        if t == T_PIECE:
            return self.contains(self.program.t_piece_tags[pay(w)], name)
        if t == T_PLACE:
            return self.contains(self.program.t_place_features[pay(w)], name)
        if t == T_SET or t == T_LIST:
            return self.contains(w, name)
        if t == T_PLAYER:
            return self.program.t_player_name[pay(w)] == text
        return self.eq(w, name)

    # ------------------------------------------------------------ clauses
    cdef int64_t applying(self, int64_t hook, Ctx *cx, int which) except? 15:
        """A hook's contributions whose condition holds, in rule order: their values
        (``which`` 0), rules (1), failing rules (2) or (value, rule) pairs (3)."""
        cdef int64_t start = self.temp_top
        cdef int64_t i, value, pair, rule
        cdef int64_t *c
        cdef int64_t *s
        if hook < 0:
            return self.collected(T_LIST, start)
        for i in range(self.program.t_hook_count[hook]):
            c = self.program.t_contributions + 4 * (self.program.t_hook_start[hook] + i)
            s = self.push(c[2])
            try:
                value = self.contribution(c, s, cx)
            finally:
                self.pop(s)
            if value == UNB:
                continue
            rule = mk(T_TEXT, c[3])
            if self.trail != NULL:
                mark(self.trail,
                     self.program.t_contribution_trail[self.program.t_hook_start[hook] + i])
            if which == 0:
                self.gather(value)
            elif which == 1:
                self.gather(rule)
            elif which == 2:
                if not self.holds(value):
                    self.gather(rule)
            else:
                pair = self.new(T_LIST, 2)
                self.obj(pair)[1] = value
                self.obj(pair)[2] = rule
                self.gather(pair)
        return self.collected(T_LIST, start)

    cdef int64_t contribution(self, int64_t *c, int64_t *s, Ctx *cx) except? 15:
        """One contribution's value, or UNB when its condition fails (whose reads then
        leave the rule trail as it was)."""
        cdef uint64_t before[TRAIL_WORDS]
        if c[1] >= 0:
            if self.trail != NULL:
                memcpy(before, self.trail, sizeof(uint64_t) * TRAIL_WORDS)
            if not self.holds(self.kid(c[1], s, cx)):
                if self.trail != NULL:
                    memcpy(self.trail, before, sizeof(uint64_t) * TRAIL_WORDS)
                return UNB
        return self.kid(c[0], s, cx)

    cdef bint forbidden(self, int64_t action, Ctx *cx) except -1:
        """Whether a forbid clause on ``action`` holds and no permit lifts it."""
        cdef int64_t i, j
        cdef int64_t *f
        cdef int64_t *q
        cdef int64_t *s
        cdef bint holds, lifted
        for i in range(self.program.t_forbid_count[action]):
            f = self.program.t_forbids + 4 * (self.program.t_forbid_start[action] + i)
            s = self.push(f[1])
            try:
                holds = self.holds(self.kid(f[0], s, cx))
            finally:
                self.pop(s)
            if not holds:
                continue
            lifted = False
            for j in range(f[3]):
                q = self.program.t_permits + 2 * (f[2] + j)
                s = self.push(q[1])
                try:
                    lifted = self.holds(self.kid(q[0], s, cx))
                finally:
                    self.pop(s)
                if lifted:
                    break
            if not lifted:
                return True
        return False

    # ------------------------------------------------------------ expressions
    cdef inline int64_t kid(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """Node ``o``'s value: a slot or a constant read here, anything else by ``ev``."""
        cdef int64_t op = self.E[o], w
        if op == X_SLOT:
            w = s[self.E[o + 1]]
            if w != UNB:
                return w
        elif op == X_CONST:
            return self.E[o + 1]
        return self.ev(o, s, cx)

    cdef inline bint holds(self, int64_t w) except -1:
        if w == TRUE:
            return True
        if w == FALSE:
            return False
        return self.truth(w)

    cdef inline bint same(self, int64_t a, int64_t b) except -1:
        """``a == b``: one compare, unless collections or a number and a truth value."""
        cdef int ta, tb
        if a == b:
            return True
        ta, tb = tag(a), tag(b)
        if ta != tb and not (ta <= T_BOOL and tb <= T_BOOL):
            return False
        if ta == tb and not is_collection(ta) and ta != T_BOOL:
            return False
        return self.eq(a, b)

    cdef int64_t ev(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        cdef int64_t *E = self.E
        cdef int64_t op = E[o]
        cdef int64_t a, b, w, i, at
        cdef Bind *bound
        if op == X_SLOT:
            w = s[E[o + 1]]
            if w == UNB:
                raise self.program.rules_error("a variable is read before it is set")
            return w
        elif op == X_CONST:
            return E[o + 1]
        elif op == X_ATTR:
            return self.attr(self.kid(E[o + 4], s, cx), E[o + 1], E[o + 2])
        elif op == X_AND:
            for i in range(E[o + 3]):
                if not self.holds(self.kid(E[o + 4 + i], s, cx)):
                    return FALSE
            return TRUE
        elif op == X_OR:
            for i in range(E[o + 3]):
                if self.holds(self.kid(E[o + 4 + i], s, cx)):
                    return TRUE
            return FALSE
        elif op == X_CTX:
            bound = cx.bound
            while bound != NULL:
                if bound.name == E[o + 1] and bound.value != UNB:
                    return bound.value
                bound = bound.next
            at = cx.names[E[o + 1]]
            if at >= 0 and cx.slots[at] != UNB:
                return cx.slots[at]
            if E[o + 3] == 0:
                name = list(self.program.compiled.names)[E[o + 1]]
                raise self.program.rules_error(f"unknown name {name!r}")
            return self.kid(E[o + 4], s, cx)
        elif op == X_EQ or op == X_NE:
            a = self.kid(E[o + 4], s, cx)
            b = self.kid(E[o + 5], s, cx)
            return boolw(self.same(a, b) == (op == X_EQ))
        elif op == X_IF:
            if self.holds(self.kid(E[o + 4], s, cx)):
                return self.kid(E[o + 5], s, cx)
            return self.kid(E[o + 6], s, cx)
        elif op == X_NOT:
            return boolw(not self.holds(self.kid(E[o + 4], s, cx)))
        elif op == X_GLOBAL:
            if self.recording:
                self.see(self.program.cell_value + E[o + 1])
            return self.values[E[o + 1]]
        elif op == X_EACH:
            return self.each(o, s, cx)
        elif op == X_FUNCTION:
            return self.function(o, s, cx)
        elif op == X_IS:
            w = self.kid(E[o + 4], s, cx)
            if tag(w) == T_PIECE:
                return boolw(self.program.t_is_piece[E[o + 1] * self.program.n_pieces + pay(w)])
            if tag(w) == T_PLACE:
                return boolw(self.program.t_is_place[E[o + 1] * self.program.n_places + pay(w)])
            return boolw(self.is_test(w, E[o + 2]))
        elif op == X_INDEX:
            a = self.kid(E[o + 4], s, cx)
            return self.index(a, self.kid(E[o + 5], s, cx))
        elif op in (X_HOOK, X_HOOK_RULES, X_HOOK_FAILING, X_HOOK_APPLIED):
            return self.applying(E[o + 1], cx, op - X_HOOK)
        elif op in (X_ADD, X_SUB, X_MUL, X_DIV, X_MOD):
            a = self.kid(E[o + 4], s, cx)
            b = self.kid(E[o + 5], s, cx)
            if tag(a) == T_INT and tag(b) == T_INT:
                if op == X_ADD:
                    return mk(T_INT, pay(a) + pay(b))
                if op == X_SUB:
                    return mk(T_INT, pay(a) - pay(b))
            return self.arith(op, a, b)
        elif op in (X_LT, X_LE, X_GT, X_GE):
            a = self.kid(E[o + 4], s, cx)
            b = self.kid(E[o + 5], s, cx)
            return boolw(self.compare(op, a, b))
        elif op == X_IN_STATIC or op == X_NOTIN_STATIC:
            w = self.kid(E[o + 4], s, cx)
            if tag(w) == T_PIECE:
                i = self.program.t_membership[E[o + 1] + pay(w)]
            elif tag(w) == T_PLACE:
                i = self.program.t_membership[E[o + 1] + self.program.n_pieces + pay(w)]
            elif tag(w) == T_PLAYER:
                i = self.program.t_membership[E[o + 1] + self.program.n_pieces
                                              + self.program.n_places + pay(w)]
            else:
                i = self.contains(E[o + 2], w)
            return boolw((i != 0) == (op == X_IN_STATIC))
        elif op == X_IN or op == X_NOTIN:
            a = self.kid(E[o + 4], s, cx)
            b = self.kid(E[o + 5], s, cx)
            return boolw(self.contains(b, a) == (op == X_IN))
        elif op == X_MEMO:
            return self.memo(o, s, cx)
        elif op == X_ONCE:
            return self.once(o, s, cx)
        elif op == X_INV:
            return self.inv(o, s, cx)
        elif op == X_KEYED:
            return self.keyed(o, s, cx)
        return self.ev_rare(o, s, cx)

    cdef int64_t once(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """A ``once`` node: what an option's candidates share, found at its first use in
        a listing and kept for the rest of it, with the cells it read, which every
        group that uses it reads too. Outside a listing, or while a rule trail is kept,
        it is found anew."""
        cdef int64_t *E = self.E
        cdef int64_t k = E[o + 1], i, start, got, n
        cdef int64_t *grown
        cdef bint outer
        if not self.listing or self.trail != NULL:
            return self.kid(E[o + 4], s, cx)
        if self.once_stamp[k] == self.listing_serial:
            if self.recording:
                for i in range(self.once_start[k], self.once_start[k] + self.once_count[k]):
                    self.see(self.once_reads[i])
            return self.once_value[k]
        outer, start = self.recording, self.n_reads
        self.serial += 1
        self.recording = True
        try:
            got = self.kid(E[o + 4], s, cx)
        finally:
            self.recording = outer
        n = self.n_reads - start
        while self.once_top + n > self.once_capacity:
            self.once_capacity = max(256, 2 * self.once_capacity)
            grown = <int64_t *>realloc(self.once_reads, sizeof(int64_t) * self.once_capacity)
            if grown == NULL:
                raise MemoryError()
            self.once_reads = grown
        memcpy(self.once_reads + self.once_top, self.reads + start, sizeof(int64_t) * n)
        self.once_start[k], self.once_count[k] = self.once_top, n
        self.once_top += n
        if not outer:
            self.n_reads = start
        self.once_value[k], self.once_stamp[k] = got, self.listing_serial
        return got

    cdef int64_t memo(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """A ``memo`` node: its body reads slot ``key2`` and nothing that changes in play,
        so its value for a piece or a place, once found, is the program's for good. The
        table is skipped while a rule trail is kept (the body's functions and tables
        would join it) and for a collection of the state's heap (which moves)."""
        cdef Program p = self.program
        cdef int64_t *E = self.E
        cdef int64_t w = s[E[o + 2]], at, got
        cdef int t = tag(w)
        if self.trail != NULL or (t != T_PIECE and t != T_PLACE):
            return self.kid(E[o + 4], s, cx)
        at = E[o + 1] * p.memo_width + (pay(w) if t == T_PIECE else p.n_pieces + pay(w))
        got = p.memo[at]
        if got != UNB:
            return got
        got = self.kid(E[o + 4], s, cx)
        if not is_collection(tag(got)) or pay(got) & 1:
            p.memo[at] = got
        return got

    cdef int64_t ev_rare(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """The operators met less often (each evaluates its arguments first)."""
        cdef int64_t *E = self.program.E
        cdef int64_t op = E[o], n = E[o + 3]
        cdef int64_t a, b, c, w, i, start, na, da, e
        if op == X_WITH_RULES:
            return self.with_rules(o, s, cx)
        if op == X_PARTITION:
            # a static domain split by a fixed attribute: the part of the value read
            i = self.map_find(E[o + 1], self.kid(E[o + 4], s, cx))
            return self.obj(E[o + 1])[2 + 2 * i] if i >= 0 else E[o + 2]
        if op == X_DEFINED:
            try:
                self.kid(E[o + 4], s, cx)
            except (self.program.rules_error, ArithmeticError, TypeError, KeyError, ValueError,
                    IndexError, AttributeError):
                return FALSE
            return TRUE
        if op == X_TURN:
            if self.recording:
                self.see(self.program.cell_turn)
            return mk(T_INT, self.turn)
        if op == X_PHASE:
            if self.recording:
                self.see(self.program.cell_turn + 1)
            return mk(T_TEXT, self.program.t_phase_name[self.phase])
        if op == X_ROLLED:
            if self.recording:
                self.see(self.program.cell_turn + 2)
            return self.last_roll
        if op == X_LIST or op == X_SET:
            start = self.temp_top
            for i in range(n):
                self.gather(self.kid(E[o + 4 + i], s, cx))
            return self.collected(T_LIST if op == X_LIST else T_SET, start)
        a = self.kid(E[o + 4], s, cx) if n > 0 else NONE
        b = self.kid(E[o + 5], s, cx) if n > 1 else NONE
        c = self.kid(E[o + 6], s, cx) if n > 2 else NONE
        if op == X_NEG:
            if tag(a) == T_INT or tag(a) == T_BOOL:
                return mk(T_INT, -pay(a))
            self.fraction(a, &na, &da)
            return self.number(-na, da)
        if op == X_COUNT or op == X_LEN:
            if is_collection(tag(a)):
                return mk(T_INT, self.obj(a)[0])
            if tag(a) == T_TEXT:
                return mk(T_INT, len(self.program.strings[pay(a)]))
            raise TypeError(f"{self.text_of(a)} has no length")
        if op == X_ANY or op == X_ALL:
            a = self.seq(a)
            for i in range(self.obj(a)[0]):
                if self.holds(self.obj(a)[1 + i]) == (op == X_ANY):
                    return boolw(op == X_ANY)
            return boolw(op == X_ALL)
        if op == X_SUM or op == X_MAX or op == X_MIN:
            start = self.temp_top
            if n == 1:
                a = self.seq(a)
                for i in range(self.obj(a)[0]):
                    self.gather(self.obj(a)[1 + i])
            else:
                for i in range(n):
                    self.gather(a if i == 0 else b if i == 1 else c if i == 2
                                else self.kid(E[o + 4 + i], s, cx))
            return self.absorb(op, start)
        if op == X_DISTINCT or op == X_SET_OF:
            return self.make_set(self.seq_or_keys(a))
        if op == X_LIST_OF:
            a = self.seq(a)
            return mk(T_LIST, pay(a))
        if op == X_SORTED:
            a = self.seq(a)
            w = self.new(T_LIST, self.obj(a)[0])
            memcpy(self.obj(w) + 1, self.obj(a) + 1, sizeof(int64_t) * self.obj(a)[0])
            self.sort(self.obj(w) + 1, self.obj(w)[0])
            return w
        if op == X_FIRST:
            a = self.seq(a)
            if self.obj(a)[0] > 0:
                return self.obj(a)[1]
            return b
        if op == X_FLOOR or op == X_CEIL or op == X_ABS:
            self.fraction(a, &na, &da)
            if op == X_ABS:
                return self.number(-na if na < 0 else na, da)
            if op == X_FLOOR:
                return mk(T_INT, na // da if na >= 0 else -((-na + da - 1) // da))
            return mk(T_INT, -((-na) // da) if na < 0 else (na + da - 1) // da)
        if op == X_IS_NUMBER:
            return boolw(tag(a) == T_INT or tag(a) == T_FRAC)
        if op == X_NEIGHBOURS:
            return self.program.t_place_neighbours[self.place_of(a)]
        if op == X_ADJACENT:
            return boolw(self.contains(self.program.t_place_neighbours[self.place_of(a)], b))
        if op == X_NEXT_PLAYER:
            if tag(a) != T_PLAYER or self.program.t_next_seat[pay(a)] < 0:
                raise ValueError(f"{self.text_of(a)} is not a seat")
            return mk(T_PLAYER, self.program.t_next_seat[pay(a)])
        if op == X_DISTANCE:
            return self.distance(a, b)
        if op == X_DIRECTION:
            e = self.edge(self.place_of(a), self.place_of(b))
            if e < 0 or self.program.t_edges[e + 1] < 0:
                return NONE
            return mk(T_INT, self.program.t_edges[e + 1])
        if op == X_HEXSIDE:
            e = self.edge(self.place_of(a), self.place_of(b))
            return self.program.empty_set if e < 0 else self.program.t_edges[e + 2]
        if op == X_SIGHT_LINES:
            return self.sight_lines(self.place_of(a), self.place_of(b))
        if op == X_ZONE:
            return mk(T_PLACE, self.program.board.zone(self.py(a)).index)
        if op == X_ALLOWED:
            kind = self.text_of(a)
            action = self.program.board.actions.get(kind)
            return boolw(action is None or not self.forbidden(action, cx))
        if op == X_STR:
            return mk(T_TEXT, self.program.text(self.text_of(a)))
        if op == X_JOIN:
            a = self.seq(a)
            return mk(T_TEXT, self.program.text(self.text_of(b).join(
                [self.text_of(self.obj(a)[1 + i]) for i in range(self.obj(a)[0])])))
        if op == X_REST:
            a = self.seq(a)
            na = self.obj(a)[0]
            w = self.new(T_LIST, max(na - 1, 0))
            if na > 1:
                memcpy(self.obj(w) + 1, self.obj(a) + 2, sizeof(int64_t) * (na - 1))
            return w
        if op == X_UNION:
            a = self.seq(a)
            start = self.temp_top
            for i in range(self.obj(a)[0]):
                w = self.seq_or_keys(self.obj(a)[1 + i])
                for e in range(self.obj(w)[0]):
                    self.gather(self.obj(w)[1 + e])
            return self.collected(T_SET, start)
        if op == X_SUBSETS:
            a = self.seq(a)
            items = [self.obj(a)[1 + i] for i in range(self.obj(a)[0])]
            start = self.temp_top
            for combination in combinations(items, pay(b)):
                w = self.new(T_LIST, len(combination))
                for i, x in enumerate(combination):
                    self.obj(w)[1 + i] = x
                self.gather(w)
            return self.collected(T_LIST, start)
        if op == X_COLUMNS:
            return self.program.t_table_columns[pay(a)]
        if op == X_TABLE_RULE:
            return mk(T_TEXT, self.program.t_table_rule[pay(a)])
        if op == X_CELL:
            return self.row_cell(self.index(a, b), c)
        raise self.program.rules_error(f"the VM has no operator number {op}")

    cdef int64_t sight_lines(self, int64_t a, int64_t b) except? 15:
        """The hexes between two hexes, each way the line may pass (the board's
        ``sight_lines``), worked out once per pair for the program and kept by index."""
        cdef Program p = self.program
        cdef int64_t start, inner, i
        key = a * p.n_places + b
        lines = p.sight_lines.get(key)
        if lines is None:
            places = p.board.places
            lines = p.sight_lines[key] = tuple(
                tuple(x.index for x in line)
                for line in p.board.sight_lines(places[a], places[b]))
        start = self.temp_top
        for line in lines:
            inner = self.new(T_LIST, len(line))
            for i in range(len(line)):
                self.obj(inner)[1 + i] = mk(T_PLACE, line[i])
            self.gather(inner)
        return self.collected(T_LIST, start)

    cdef int64_t distance(self, int64_t a, int64_t b) except? 15:
        cdef int64_t i = self.place_of(a), j = self.place_of(b), d0, d1, d2
        if not self.program.t_place_is_hex[i] or not self.program.t_place_is_hex[j]:
            raise ValueError(f"distance is measured between hexes, not {self.text_of(a)} "
                             f"and {self.text_of(b)}")
        d0 = self.program.t_place_coords[3 * i] - self.program.t_place_coords[3 * j]
        d1 = self.program.t_place_coords[3 * i + 1] - self.program.t_place_coords[3 * j + 1]
        d2 = self.program.t_place_coords[3 * i + 2] - self.program.t_place_coords[3 * j + 2]
        return mk(T_INT, max(d0, -d0, d1, -d1, d2, -d2))

    cdef int64_t function(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """An expanded function: its parameters bound by name when the clauses it
        consults read them; its rule joins the trail being kept."""
        cdef int64_t *E = self.program.E
        cdef int64_t k = E[o + 2], i
        cdef Bind binds[16]
        cdef Ctx inner
        if k > 16:
            raise self.program.rules_error("a function of more than 16 parameters")
        inner = cx[0]
        for i in range(k):
            binds[i].name = E[o + 5 + k + i]
            binds[i].value = self.kid(E[o + 5 + i], s, cx)
            binds[i].next = inner.bound
            inner.bound = &binds[i]
        if self.trail != NULL and E[o + 1] >= 0:
            mark(self.trail, E[o + 1])
        return self.kid(E[o + 4], s, &inner)

    cdef int64_t with_rules(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        cdef int64_t found, rules, pair, start, k, b
        cdef uint64_t words[TRAIL_WORDS]
        cdef uint64_t *outer = self.trail
        cdef uint64_t bits
        memset(words, 0, sizeof(uint64_t) * TRAIL_WORDS)
        self.trail = words
        try:
            found = self.kid(self.program.E[o + 4], s, cx)
        finally:
            self.trail = outer
        start = self.temp_top
        for k in range(TRAIL_WORDS):
            if outer != NULL:
                outer[k] |= words[k]
            bits = words[k]
            b = 0
            while bits:
                if bits & 1:
                    self.gather(mk(T_TEXT, self.program.t_trail_text[64 * k + b]))
                bits >>= 1
                b += 1
        rules = self.collected(T_LIST, start)
        pair = self.new(T_LIST, 2)
        self.obj(pair)[1] = found
        self.obj(pair)[2] = rules
        return pair

    cdef int64_t each(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """A comprehension (``Each``) over the domain, its binder in ``slot``. One whose
        filter or element holds ``inv`` nodes (its scope number, ``E[o + 8]`` >= 0)
        runs as a new run of its scope, the outer run's restored after."""
        cdef int64_t scope = self.E[o + 8], saved, got
        if scope < 0:
            return self.each_run(o, s, cx)
        if self.scope_run == NULL:
            self._scope_arrays()
        saved = self.scope_run[scope]
        self.runs += 1
        self.scope_run[scope] = self.runs
        try:
            got = self.each_run(o, s, cx)
        finally:
            self.scope_run[scope] = saved
        return got

    cdef int64_t keyed(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """A ``keyed`` node: its body reads nothing that changes in play but the slots
        and names listed after it, so its value and the rules it cites, once found for
        those values, are the program's for good (a name not bound reads as unbound;
        a collection of the state's heap, read or found, is not kept)."""
        cdef Program p = self.program
        cdef int64_t *E = self.E
        cdef int64_t k = E[o + 2], i, inp, w, at, got
        cdef int64_t key[KEY_WIDTH]
        cdef uint64_t local[TRAIL_WORDS]
        cdef uint64_t *outer
        cdef uint64_t *marks
        cdef Bind *bound
        key[0] = E[o + 1]
        for i in range(k):
            inp = E[o + 5 + i]
            if inp >> 32 == 0:
                w = s[inp]
            else:
                w = UNB
                bound = cx.bound
                while bound != NULL:
                    if bound.name == (inp & LOW32) and bound.value != UNB:
                        w = bound.value
                        break
                    bound = bound.next
                if w == UNB:
                    at = cx.names[inp & LOW32]
                    if at >= 0:
                        w = cx.slots[at]
            if is_collection(tag(w)) and not (pay(w) & 1):
                return self.kid(E[o + 4], s, cx)
            key[1 + i] = w
        for i in range(k + 1, KEY_WIDTH):
            key[i] = 0
        if p.keyed_capacity > 0:
            at = p.keyed_slot(key)
            if p.keyed_keys[KEY_WIDTH * at] != -1:
                if self.trail != NULL:
                    marks = p.mark_sets + TRAIL_WORDS * p.keyed_marks[at]
                    for i in range(TRAIL_WORDS):
                        self.trail[i] |= marks[i]
                return p.keyed_values[at]
        outer = self.trail
        memset(local, 0, sizeof(uint64_t) * TRAIL_WORDS)
        self.trail = local
        try:
            got = self.kid(E[o + 4], s, cx)
        finally:
            self.trail = outer
        if outer != NULL:
            for i in range(TRAIL_WORDS):
                outer[i] |= local[i]
        if not is_collection(tag(got)) or pay(got) & 1:
            p.keyed_store(key, got, local)
        return got

    cdef int _scope_arrays(self) except -1:
        cdef Program p = self.program
        self.inv_value = <int64_t *>calloc(p.n_inv + 1, sizeof(int64_t))
        self.inv_stamp = <int64_t *>calloc(p.n_inv + 1, sizeof(int64_t))
        self.scope_run = <int64_t *>calloc(p.n_scopes + 1, sizeof(int64_t))
        if self.inv_value == NULL or self.inv_stamp == NULL or self.scope_run == NULL:
            raise MemoryError()
        return 0

    cdef int64_t inv(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        """An ``inv`` node: what the items of comprehension scope ``key2`` share, found at
        its first use in a run of the scope and kept for the rest of the run (found
        anew while a rule trail is kept)."""
        cdef int64_t *E = self.E
        cdef int64_t k = E[o + 1], run = self.scope_run[E[o + 2]], got
        if self.trail != NULL:
            return self.kid(E[o + 4], s, cx)
        if self.inv_stamp[k] == run:
            return self.inv_value[k]
        got = self.kid(E[o + 4], s, cx)
        self.inv_value[k], self.inv_stamp[k] = got, run
        return got

    cdef int64_t each_run(self, int64_t o, int64_t *s, Ctx *cx) except? 15:
        cdef int64_t *E = self.program.E
        cdef int64_t reduce = E[o + 1] & 255, slot = E[o + 1] >> 8
        cdef int64_t where = E[o + 5], element = E[o + 6], default = E[o + 7]
        cdef int64_t domain, x, i, n, start, got, hits = 0
        cdef Bind bind
        cdef Ctx inner = cx[0]
        if E[o + 2] >= 0:
            bind.name, bind.value, bind.next = E[o + 2], UNB, cx.bound
            inner.bound = &bind
        domain = self.kid(E[o + 4], s, cx)
        if reduce == R_DISTRIBUTION:
            return self.distribution(o, domain, s, &inner, &bind)
        domain = self.seq(domain)
        n = self.obj(domain)[0]
        start = self.temp_top
        for i in range(n):
            x = self.obj(domain)[1 + i]
            s[slot] = x
            bind.value = x
            if where >= 0 and not self.holds(self.kid(where, s, &inner)):
                if reduce == R_ALL:
                    self.temp_top = start
                    return FALSE
                continue
            if reduce == R_ALL:
                if element >= 0 and not self.holds(self.kid(element, s, &inner)):
                    self.temp_top = start
                    return FALSE
                continue
            if reduce == R_ANY and element < 0:
                return TRUE
            got = self.kid(element, s, &inner) if element >= 0 else x
            if reduce == R_COUNT:
                hits += 1
            elif reduce == R_FIRST and default < 0:
                self.temp_top = start
                return got
            else:
                self.gather(got)
        if reduce == R_ALL:
            return TRUE
        if reduce == R_COUNT:
            return mk(T_INT, hits)
        n = self.temp_top - start
        if default >= 0 and (reduce == R_MAX or reduce == R_MIN or reduce == R_FIRST):
            if n == 0:
                self.temp_top = start
                return self.kid(default, s, &inner)
            if reduce == R_FIRST:
                got = self.temp[start]
                self.temp_top = start
                return got
            for i in range(n):
                if not is_number(tag(self.temp[start + i])):
                    self.temp_top = start
                    raise TypeError("max() or min() of values that are not all numbers")
            return self.absorb(X_MAX if reduce == R_MAX else X_MIN, start)
        if reduce == R_ANY:
            for i in range(n):
                if self.holds(self.temp[start + i]):
                    self.temp_top = start
                    return TRUE
            self.temp_top = start
            return FALSE
        if reduce == R_SUM:
            return self.absorb(X_SUM, start)
        if reduce == R_MAX:
            return self.absorb(X_MAX, start)
        if reduce == R_MIN:
            return self.absorb(X_MIN, start)
        if reduce == R_FIRST:
            self.temp_top = start
            return NONE
        if reduce == R_LIST:
            return self.collected(T_LIST, start)
        if reduce == R_SET or reduce == R_DISTINCT:
            return self.collected(T_SET, start)
        if reduce == R_SORTED:
            got = self.collected(T_LIST, start)
            self.sort(self.obj(got) + 1, self.obj(got)[0])
            return got
        if reduce == R_UNION:
            got = self.collected(T_LIST, start)
            start = self.temp_top
            for i in range(self.obj(got)[0]):
                x = self.seq_or_keys(self.obj(got)[1 + i])
                for n in range(self.obj(x)[0]):
                    self.gather(self.obj(x)[1 + n])
            return self.collected(T_SET, start)
        raise self.program.rules_error(f"the VM has no reduction number {reduce}")

    cdef int64_t distribution(self, int64_t o, int64_t domain, int64_t *s, Ctx *inner,
                              Bind *bind) except? 15:
        """``distribution``: each value of the element with its exact chance, by value."""
        cdef Program p = self.program
        cdef int64_t *E = p.E
        cdef int64_t slot = E[o + 1] >> 8, where = E[o + 5], element = E[o + 6]
        cdef int64_t x, got, i, j, n, out
        outcomes = []
        if tag(domain) == T_DICE:
            for value, weight in self.dice_outcomes(pay(domain)):
                outcomes.append((value, weight))
        else:
            domain = self.seq(domain)
            n = self.obj(domain)[0]
            for i in range(n):
                outcomes.append((self.obj(domain)[1 + i], Fraction(1, n)))
        keys, weights = [], []
        for value, weight in outcomes:
            x = value
            s[slot] = x
            bind.value = x
            if where >= 0 and not self.holds(self.kid(where, s, inner)):
                continue
            got = self.kid(element, s, inner) if element >= 0 else x
            for j in range(len(keys)):
                if self.eq(keys[j], got):
                    weights[j] += weight
                    break
            else:
                keys.append(got)
                weights.append(weight)
        order = sorted(range(len(keys)), key=lambda k: _Ordered(self, keys[k]))
        out = self.new(T_MAP, len(keys))
        for i, k in enumerate(order):
            self.obj(out)[1 + 2 * i] = keys[k]
            self.obj(out)[2 + 2 * i] = self.from_fraction(weights[k])
        return out

    cdef int64_t from_fraction(self, object value) except? 15:
        return self.number(value.numerator, value.denominator)

    cdef list dice_outcomes(self, int64_t d):
        """Every result of dice ``d`` as (word, exact chance) (``values.dice_outcomes``)."""
        cdef int64_t *dice = self.program.t_dice + 3 * d
        cdef int64_t i
        if dice[2] >= 0:
            faces = [self.obj(dice[2])[1 + i] for i in range(self.obj(dice[2])[0])]
            counts = {}
            for f in faces:
                counts[f] = counts.get(f, 0) + 1
            return [(f, Fraction(k, len(faces))) for f, k in counts.items()]
        ways = {0: 1}
        for _ in range(dice[0]):
            nxt = {}
            for total, k in ways.items():
                for face in range(1, dice[1] + 1):
                    nxt[total + face] = nxt.get(total + face, 0) + k
            ways = nxt
        whole = int(dice[1]) ** int(dice[0])
        return [(mk(T_INT, total), Fraction(k, whole)) for total, k in sorted(ways.items())]

    # ------------------------------------------------------------ running
    cdef int run(self) except -1:
        """Execute instructions until a decision, a chance event or the end, then check
        the endings (``finish when``)."""
        cdef Program p = self.program
        cdef int64_t i
        cdef int64_t *s
        cdef Ctx cx
        self.listed = False
        while self.outcome_found is None and not self.step():
            pass
        if self.outcome_found is None:
            for i in range(p.n_endings):
                s = self.push(p.t_endings[2 * i + 1])
                cx.slots, cx.names, cx.bound = s, self.scope(p.empty_scope), NULL
                try:
                    if self.holds(self.kid(p.t_endings[2 * i], s, &cx)):
                        self.end_by(i, s, &cx)
                        break
                finally:
                    self.pop(s)
        if self.heap_top > self.heap_limit:
            self.collect_garbage()
        return 0

    cdef int end_by(self, int64_t i, int64_t *s, Ctx *cx) except -1:
        winner_at, reason, report, rule = self.program.compiled.endings[i]
        winner = self.kid(winner_at, s, cx) if winner_at >= 0 else None
        text = "".join([self.text_of(self.kid(x, s, cx)) for x in reason])
        details = {k: self.kid(x, s, cx) for k, x in report}
        self.finish(winner, text, details, rule)
        return 0

    cdef int finish(self, object winner, str reason, dict details, object rule) except -1:
        cdef Program p = self.program
        cdef int64_t w, i, column
        if winner is None or winner == NONE:
            winners = ()
        else:
            w = winner
            if tag(w) == T_LIST or tag(w) == T_SET:
                items = [self.obj(w)[1 + i] for i in range(self.obj(w)[0])]
                items.sort(key=lambda x: _Ordered(self, x))
                winners = tuple(self.text_of(x) for x in items)
            else:
                winners = (self.text_of(w),)
        scores = {}
        names = p.compiled.names
        column = -1
        if "score" in names:
            read = p.t_attr_read[2 * p.n_names + names["score"]]
            if read >> 32 == 1:
                column = read & LOW32
        if column >= 0:
            for i in range(p.n_seats):
                scores[p.strings[p.t_player_name[p.t_seats[i]]]] = self.py(
                    self.columns[p.t_column_base[column] + p.t_seats[i]])
        sequence = p.compiled.sequence_rule
        self.outcome_found = p.outcome(
            winners, reason, scores, {k: self.py(x) for k, x in details.items()},
            rule or (None if sequence.startswith("core:") else sequence))
        return 0

    cdef inline int64_t *frame_slots(self) noexcept:
        return self.slots + self.frame_base[self.depth - 1]

    cdef bint step(self) except -1:
        """Execute one instruction of the top frame; True at a pause."""
        cdef Program p = self.program
        cdef int64_t d = self.depth - 1
        cdef int64_t proc = self.frame_proc[d], pc = self.frame_pc[d]
        cdef int64_t *ins
        cdef int64_t *s = self.slots + self.frame_base[d]
        cdef int64_t op, w, i, n, pos
        cdef int64_t given[64]
        cdef Ctx cx
        if pc >= p.proc_end[proc]:
            self.leave()
            return False
        ins = p.code + pc * INSTRUCTION_WIDTH
        op = ins[0]
        cx.slots, cx.names, cx.bound = s, self.scope(p.proc_scope[proc]), NULL
        if op == I_CHOOSE or op == I_SEALED or op == I_ROLL or op == I_DRAW:
            if op == I_SEALED and self.next_chooser(ins, s, &cx) == NONE:
                self.frame_pc[d] = pc + 1
                return False
            if op == I_CHOOSE or op == I_SEALED:
                self.candidates()
                if self.n_candidates == 0:
                    raise p.rules_error(f"a choice in procedure {p.compiled.proc_names[proc]} "
                                        f"has no legal action [rule {p.strings[ins[8]]}]")
            if op == I_DRAW and self.length(self.pool(ins, s, &cx)) == 0:
                raise p.rules_error(f"nothing to draw from [rule {p.strings[ins[8]]}]")
            return True
        self.frame_pc[d] = pc + 1
        if op == I_LET:
            s[ins[1]] = self.kid(p.args[ins[4]], s, &cx)
        elif op == I_JUMPIFNOT:
            if not self.holds(self.kid(p.args[ins[4]], s, &cx)):
                self.frame_pc[d] = ins[3]
        elif op == I_JUMP:
            self.frame_pc[d] = ins[3]
        elif op == I_FORNEXT:
            w = s[ins[1]]
            pos = pay(s[ins[9]])
            n = self.obj(w)[0]
            self.frame_pc[d] = ins[3]
            while pos < n:
                s[ins[2]] = self.obj(w)[1 + pos]
                pos += 1
                if ins[5] == 0 or self.holds(self.kid(p.args[ins[4]], s, &cx)):
                    self.frame_pc[d] = pc + 1
                    break
            s[ins[9]] = mk(T_INT, pos)
        elif op == I_FORINIT:
            w = self.seq(self.kid(p.args[ins[4]], s, &cx))
            if tag(w) == T_SET:
                w = mk(T_LIST, pay(w))
            s[ins[1]] = w
            s[ins[9]] = mk(T_INT, 0)
        elif op == I_CALL:
            n = ins[5]
            if n > 64:
                raise p.rules_error("a procedure of more than 64 parameters")
            for i in range(n):
                given[i] = self.kid(p.args[ins[4] + i], s, &cx)
            self.enter(ins[1], given, n)
        elif op == I_RETURN:
            self.leave()
        else:
            self.rare(ins, s, &cx)
        return False

    cdef int rare(self, int64_t *ins, int64_t *s, Ctx *cx) except -1:
        """The instructions that write the state, log, end or change the turn."""
        cdef Program p = self.program
        cdef int64_t op = ins[0], d = self.depth - 1
        cdef int64_t a, b, column, i, n, entry, q
        cdef int t
        if op == I_SETGLOBAL:
            a = self.kid(p.args[ins[4]], s, cx)
            if a != self.values[ins[1]]:       # writing the same word changes nothing
                self.values[ins[1]] = a
                self.touch(p.cell_value + ins[1])
        elif op == I_SETATTR:
            a = self.kid(p.args[ins[4]], s, cx)
            b = self.kid(p.args[ins[4] + 1], s, cx)
            t = tag(a)
            column = (ins[1] if t == T_PIECE else ins[2] if t == T_PLACE else ins[9]
                      if t == T_PLAYER else -1)
            if column < 0:
                self.fail(f"cannot set {self.text_of(a)}.{p.strings[ins[8]]}: not a declared "
                          f"attribute", -1)
            if self.columns[p.t_column_base[column] + pay(a)] != b:
                self.columns[p.t_column_base[column] + pay(a)] = b
                self.touch(p.cell_column + p.t_column_base[column] + pay(a))
        elif op == I_PUT:
            a = self.kid(p.args[ins[4]], s, cx)
            b = self.kid(p.args[ins[4] + 1], s, cx)
            q = -1 if b == NONE else self.place_of(b)
            if tag(a) == T_LIST or tag(a) == T_SET:
                for i in range(self.obj(a)[0]):
                    self.put(pay(self.obj(a)[1 + i]), q)
            elif tag(a) == T_PIECE:
                self.put(pay(a), q)
            else:
                raise TypeError(f"cannot put {self.text_of(a)}")
        elif op == I_DISPATCH:
            q = s[ins[2]]
            if q == UNB or self.obj(q)[0] == 0:
                s[ins[2]] = UNB
                self.frame_pc[d] = ins[3]
                return 0
            entry = self.obj(q)[1]
            n = self.obj(q)[0]
            a = self.new(T_LIST, n - 1)
            memcpy(self.obj(a) + 1, self.obj(q) + 2, sizeof(int64_t) * (n - 1))
            s[ins[2]] = a
            s[ins[1]] = self.obj(entry)[1]
            for i in range((self.obj(entry)[0] - 2) // 2):
                s[pay(self.obj(entry)[3 + 2 * i])] = self.obj(entry)[4 + 2 * i]
            self.frame_pc[d] = p.opts[pay(self.obj(entry)[2]) * OPTION_WIDTH + 7]
        elif op == I_LOG:
            if self.log_lines is not None:
                self.log_line(ins, s, cx)
        elif op == I_FINISH:
            keys = p.compiled.keys[self.frame_pc[d] - 1]
            got = [(k, self.kid(p.args[ins[4] + i], s, cx)) for i, k in enumerate(keys)]
            winner = next((x for k, x in got if k == "winner"), None)
            reason = "".join([self.text_of(x) for k, x in got if k == "reason"])
            self.finish(winner, reason, {k[7:]: x for k, x in got if k.startswith("report:")},
                        p.compiled.proc_rules[self.frame_proc[d]])
        elif op == I_FAIL:
            raise p.rules_error(p.strings[ins[8]])
        elif op == I_REVEAL:
            a = self.kid(p.args[ins[4]], s, cx)
            b = self.kid(p.args[ins[4] + 1], s, cx)
            for x in self.py_items(a):
                for y in self.py_items(b):
                    self.revealed.add((pay(x), pay(y)))
        elif op == I_PHASE:
            self.phase = ins[1]
            self.touch(p.cell_turn + 1)
        elif op == I_ENDTURN:
            self.turn += 1
            self.touch(p.cell_turn)
            self.frame_pc[d] = ins[3]
            if self.turn_limit >= 0 and self.turn > self.turn_limit:
                self.turn = self.turn_limit
                self.finish(None, f"the turn limit ({self.turn_limit}) was reached", {}, None)
        elif op != I_SHUFFLE:
            raise p.rules_error(f"the VM has no instruction number {op}")
        return 0

    cdef list py_items(self, int64_t w):
        cdef int64_t i
        if tag(w) == T_LIST or tag(w) == T_SET:
            return [self.obj(w)[1 + i] for i in range(self.obj(w)[0])]
        return [w]

    cdef int log_line(self, int64_t *ins, int64_t *s, Ctx *cx) except -1:
        cdef Program p = self.program
        cdef int64_t i, w
        keys = p.compiled.keys[self.frame_pc[self.depth - 1] - 1]
        parts, cited, to = [], None, None
        for i, key in enumerate(keys):
            w = self.kid(p.args[ins[4] + i], s, cx)
            if key == "text":
                parts.append(self.text_of(w))
            elif key == "cite":
                cited = self.py(w)
            else:
                to = frozenset(self.text_of(x) for x in self.py_items(w))
        phase = p.compiled.phase_labels[self.phase] if p.compiled.phase_labels else ""
        self.log_lines.append(p.line(self.turn, phase, "".join(parts), p.cited_rules(cited),
                                     to))
        return 0

    # ------------------------------------------------------------ decisions
    cdef int64_t *pending(self) noexcept:
        cdef Program p = self.program
        if self.outcome_found is not None or self.depth == 0:
            return NULL
        return p.code + self.frame_pc[self.depth - 1] * INSTRUCTION_WIDTH

    cdef int64_t next_chooser(self, int64_t *ins, int64_t *s, Ctx *cx) except? 15:
        """``chooser``, worked out once per turn of a sealed choice: nothing but taking
        a decision changes who decides next."""
        cdef int64_t pc = self.frame_pc[self.depth - 1]
        if self.chooser_known and self.chooser_pc == pc and self.chooser_depth == self.depth:
            return self.chooser_word
        self.chooser_word = self.chooser(ins, s, cx)
        self.chooser_known = True
        self.chooser_pc, self.chooser_depth = pc, self.depth
        return self.chooser_word

    cdef int64_t chooser(self, int64_t *ins, int64_t *s, Ctx *cx) except? 15:
        """Who decides next in a sealed choice: the first of args[0] not yet in slot b."""
        cdef int64_t q = s[ins[2]], players, i, j, w
        cdef bint done
        players = self.seq(self.kid(self.program.args[ins[4]], s, cx))
        for i in range(self.obj(players)[0]):
            w = self.obj(players)[1 + i]
            done = False
            if q != UNB:
                for j in range(self.obj(q)[0]):
                    if self.obj(self.obj(q)[1 + j])[1] == w:
                        done = True
                        break
            if not done:
                return w
        return NONE

    cdef int candidates(self) except -1:
        """Every legal action of the pending decision, option by option: each option's
        parameters walked over their domains on a copy of the frame, its bindings
        computed, its filter and the forbid clauses on its action tested.

        The candidates of one value of an option's first parameter are a group, listed
        with the cells of state it read (``see``). When the decision is the one listed
        last (same instruction, same frame), a group none of whose cells was written
        since is taken from that listing instead of being listed again."""
        cdef Program p = self.program
        cdef int64_t d = self.depth - 1
        cdef int64_t proc = self.frame_proc[d]
        cdef int64_t *ins = self.pending()
        cdef int64_t *frame = self.frame_slots()
        cdef int64_t n = p.proc_frame[proc], k
        cdef int64_t *scratch
        cdef bint reuse
        cdef Ctx cx
        if self.listed:
            return 0
        if self.cell_tick == NULL:
            self._listing_arrays()
        reuse = (self.reusable and self.listed_pc == self.frame_pc[d]
                 and self.listed_depth == self.depth and self.listed_size == n
                 and self.same_frame(frame, p.t_decision_mask + ins[9], n))
        self.swap_listings()
        if not reuse:
            self.old_n_groups = 0
        self.n_candidates = self.write_top = self.n_groups = self.n_reads = 0
        self.cursor = 0
        self.reusable = False
        scratch = self.push(n)
        memcpy(scratch, frame, sizeof(int64_t) * n)
        cx.slots, cx.names, cx.bound = scratch, self.scope(p.proc_scope[proc]), NULL
        self.listing_serial += 1
        self.once_top = 0
        self.listing = True
        try:
            if ins[0] == I_SEALED:
                cx.slots = frame
                scratch[ins[1]] = self.next_chooser(ins, frame, &cx)
                cx.slots = scratch
            for k in range(ins[7]):
                self.list_option(ins[6] + k, scratch, &cx)
        finally:
            self.recording = self.listing = False
            self.pop(scratch)
        self.listed = self.reusable = True
        self.listed_pc, self.listed_depth, self.listed_size = self.frame_pc[d], self.depth, n
        memcpy(self.listed_frame, frame, sizeof(int64_t) * n)
        return 0

    cdef bint same_frame(self, int64_t *frame, int64_t *unread, int64_t n) noexcept:
        """Whether the frame's slots the listing may read are the kept listing's
        (``unread``: a flag per slot, set for those it cannot read first)."""
        cdef int64_t i
        for i in range(n):
            if not unread[i] and frame[i] != self.listed_frame[i]:
                return False
        return True

    cdef void swap_listings(self) noexcept:
        """The listing just used becomes the kept one, the kept one's arrays the new."""
        self.candidate_id, self.old_candidate_id = self.old_candidate_id, self.candidate_id
        self.candidate_option, self.old_candidate_option = (self.old_candidate_option,
                                                            self.candidate_option)
        self.candidate_writes, self.old_candidate_writes = (self.old_candidate_writes,
                                                            self.candidate_writes)
        self.candidate_capacity, self.old_candidate_capacity = (self.old_candidate_capacity,
                                                                self.candidate_capacity)
        self.n_candidates, self.old_n_candidates = self.old_n_candidates, self.n_candidates
        self.write_slot, self.old_write_slot = self.old_write_slot, self.write_slot
        self.write_value, self.old_write_value = self.old_write_value, self.write_value
        self.write_capacity, self.old_write_capacity = (self.old_write_capacity,
                                                        self.write_capacity)
        self.write_top, self.old_write_top = self.old_write_top, self.write_top
        self.groups, self.old_groups = self.old_groups, self.groups
        self.group_capacity, self.old_group_capacity = (self.old_group_capacity,
                                                        self.group_capacity)
        self.n_groups, self.old_n_groups = self.old_n_groups, self.n_groups
        self.reads, self.old_reads = self.old_reads, self.reads
        self.read_capacity, self.old_read_capacity = self.old_read_capacity, self.read_capacity
        self.n_reads, self.old_n_reads = self.old_n_reads, self.n_reads

    cdef int list_option(self, int64_t option, int64_t *scratch, Ctx *cx) except -1:
        """One option's candidates, group by group (one group when it has no parameter)."""
        cdef int64_t *opt = self.program.opts + option * OPTION_WIDTH
        cdef int64_t slot, domain, j, n
        if opt[2] == 0:
            return self.group(option, NONE, scratch, cx)
        slot = self.program.pairs[2 * opt[1]]
        domain = self.first_domain(option, opt, scratch, cx)
        n = self.obj(domain)[0]
        for j in range(n):
            scratch[slot] = self.obj(domain)[1 + j]
            self.group(option, scratch[slot], scratch, cx)
        return 0

    cdef int64_t first_domain(self, int64_t option, int64_t *opt, int64_t *scratch,
                              Ctx *cx) except? 15:
        """The domain of an option's first parameter. It is kept like a group (its
        number ``-1 - option``, the domain as its key, no candidates): taken from the
        kept listing when none of the cells it read was written since."""
        cdef int64_t g = self.kept_group(-1 - option, NONE)
        cdef int64_t reads = self.n_reads, tick = self.tick, domain
        if g >= 0:
            self.copy_group(g)
            domain = self.old_groups[GROUP_WIDTH * g + 1]
            tick = self.old_groups[GROUP_WIDTH * g + 2]
        else:
            self.serial += 1
            self.recording = True
            domain = self.seq(self.kid(self.program.pairs[2 * opt[1] + 1], scratch, cx))
            self.recording = False
        self.add_group(-1 - option, domain, tick, reads, self.n_candidates)
        return domain

    cdef int add_group(self, int64_t option, int64_t key, int64_t tick, int64_t reads,
                       int64_t first) except -1:
        """Note a group of the listing being made: its reads and candidates run from
        ``reads`` and ``first`` to the ends of the listing's arrays."""
        cdef int64_t at
        if self.n_groups >= self.group_capacity:
            self.group_capacity = max(64, 2 * self.group_capacity)
            self.groups = <int64_t *>realloc(self.groups,
                                             sizeof(int64_t) * GROUP_WIDTH * self.group_capacity)
            if self.groups == NULL:
                raise MemoryError()
        at = GROUP_WIDTH * self.n_groups
        self.groups[at] = option
        self.groups[at + 1] = key
        self.groups[at + 2] = tick
        self.groups[at + 3] = reads
        self.groups[at + 4] = self.n_reads - reads
        self.groups[at + 5] = first
        self.groups[at + 6] = self.n_candidates - first
        self.n_groups += 1
        return 0

    cdef int group(self, int64_t option, int64_t key, int64_t *scratch, Ctx *cx) except -1:
        cdef int64_t *opt = self.program.opts + option * OPTION_WIDTH
        cdef int64_t g = self.kept_group(option, key)
        cdef int64_t first = self.n_candidates, reads = self.n_reads
        cdef int64_t tick = self.tick
        if g >= 0:
            self.groups_reused += 1
            self.copy_group(g)
            tick = self.old_groups[GROUP_WIDTH * g + 2]
        else:
            self.groups_listed += 1
            self.serial += 1
            self.recording = True
            self.walk(option, 1 if opt[2] > 0 else 0, scratch, cx)
            self.recording = False
        return self.add_group(option, key, tick, reads, first)

    cdef int64_t kept_group(self, int64_t option, int64_t key) noexcept:
        """The kept group of ``option`` and first parameter ``key`` (any key for a
        domain's, ``option`` < 0) if none of the cells it read was written since it was
        listed, else -1."""
        cdef int64_t g = -1, i, at
        cdef int64_t *group
        if self.cursor < self.old_n_groups:
            at = GROUP_WIDTH * self.cursor
            if self.old_groups[at] == option and (option < 0
                                                  or self.old_groups[at + 1] == key):
                g = self.cursor
        if g < 0:
            for i in range(self.old_n_groups):
                at = GROUP_WIDTH * i
                if self.old_groups[at] == option and (option < 0
                                                      or self.old_groups[at + 1] == key):
                    g = i
                    break
        if g < 0:
            return -1
        self.cursor = g + 1
        group = self.old_groups + GROUP_WIDTH * g
        for i in range(group[3], group[3] + group[4]):
            if self.cell_tick[self.old_reads[i]] > group[2]:
                return -1
        return g

    cdef int copy_group(self, int64_t g) except -1:
        """Take kept group ``g``'s candidates and reads into the listing being made."""
        cdef int64_t *group = self.old_groups + GROUP_WIDTH * g
        cdef int64_t c, k, n, w, option
        cdef int64_t *grown
        for c in range(group[5], group[5] + group[6]):
            option = self.old_candidate_option[c]
            n = (self.program.opts[option * OPTION_WIDTH + 2]
                 + self.program.opts[option * OPTION_WIDTH + 4])
            self.room(n)
            self.candidate_id[self.n_candidates] = self.old_candidate_id[c]
            self.candidate_option[self.n_candidates] = option
            self.candidate_writes[self.n_candidates] = self.write_top
            self.n_candidates += 1
            w = self.old_candidate_writes[c]
            for k in range(n):
                self.write_slot[self.write_top] = self.old_write_slot[w + k]
                self.write_value[self.write_top] = self.old_write_value[w + k]
                self.write_top += 1
        while self.n_reads + group[4] > self.read_capacity:
            self.read_capacity = max(1024, 2 * self.read_capacity)
            grown = <int64_t *>realloc(self.reads, sizeof(int64_t) * self.read_capacity)
            if grown == NULL:
                raise MemoryError()
            self.reads = grown
        memcpy(self.reads + self.n_reads, self.old_reads + group[3], sizeof(int64_t) * group[4])
        self.n_reads += group[4]
        return 0

    cdef int walk(self, int64_t option, int64_t i, int64_t *scratch, Ctx *cx) except -1:
        cdef int64_t *opt = self.program.opts + option * OPTION_WIDTH
        cdef int64_t slot, domain, j, n, k
        if i < opt[2]:
            slot = self.program.pairs[2 * (opt[1] + i)]
            domain = self.seq(self.kid(self.program.pairs[2 * (opt[1] + i) + 1], scratch, cx))
            n = self.obj(domain)[0]
            for j in range(n):
                scratch[slot] = self.obj(domain)[1 + j]
                self.walk(option, i + 1, scratch, cx)
            return 0
        for j in range(opt[4]):
            k = 2 * (opt[3] + j)
            scratch[self.program.pairs[k]] = self.kid(self.program.pairs[k + 1], scratch, cx)
        if opt[5] >= 0 and not self.holds(self.kid(opt[5], scratch, cx)):
            return 0
        if self.forbidden(opt[0], cx):
            return 0
        self.add_candidate(option, opt, scratch)
        return 0

    cdef int room(self, int64_t writes) except -1:
        """Room for one more candidate and ``writes`` more writes."""
        if self.n_candidates >= self.candidate_capacity:
            self.candidate_capacity = max(256, 2 * self.candidate_capacity)
            self.candidate_id = <int64_t *>realloc(self.candidate_id,
                                                   sizeof(int64_t) * self.candidate_capacity)
            self.candidate_option = <int64_t *>realloc(
                self.candidate_option, sizeof(int64_t) * self.candidate_capacity)
            self.candidate_writes = <int64_t *>realloc(
                self.candidate_writes, sizeof(int64_t) * self.candidate_capacity)
            if (self.candidate_id == NULL or self.candidate_option == NULL
                    or self.candidate_writes == NULL):
                raise MemoryError()
        while self.write_top + writes > self.write_capacity:
            self.write_capacity = max(1024, 2 * self.write_capacity)
            self.write_slot = <int64_t *>realloc(self.write_slot,
                                                 sizeof(int64_t) * self.write_capacity)
            self.write_value = <int64_t *>realloc(self.write_value,
                                                  sizeof(int64_t) * self.write_capacity)
            if self.write_slot == NULL or self.write_value == NULL:
                raise MemoryError()
        return 0

    cdef int add_candidate(self, int64_t option, int64_t *opt, int64_t *scratch) except -1:
        cdef int64_t action = opt[0], number = 0, j, at, kind, size, w, position
        cdef int64_t count = opt[2] + opt[4]
        for j in range(opt[2]):
            at = self.program.t_action_domain_at[action] + j
            kind = self.program.t_action_domains[2 * at]
            size = self.program.t_action_domains[2 * at + 1]
            w = scratch[self.program.pairs[2 * (opt[1] + j)]]
            position = pay(w)
            if kind == 2:
                position = self.program.t_hex_position[position] if tag(w) == T_PLACE else -1
            if position < 0 or position >= size:
                raise self.program.rules_error(f"{self.text_of(w)} is outside the action's range")
            number = number * size + position
        self.room(count)
        self.candidate_id[self.n_candidates] = self.program.t_action_base[action] + number
        self.candidate_option[self.n_candidates] = option
        self.candidate_writes[self.n_candidates] = self.write_top
        self.n_candidates += 1
        for j in range(opt[2]):
            at = self.program.pairs[2 * (opt[1] + j)]
            self.write_slot[self.write_top] = at
            self.write_value[self.write_top] = scratch[at]
            self.write_top += 1
        for j in range(opt[4]):
            at = self.program.pairs[2 * (opt[3] + j)]
            self.write_slot[self.write_top] = at
            self.write_value[self.write_top] = scratch[at]
            self.write_top += 1
        return 0

    cdef int64_t pool(self, int64_t *ins, int64_t *s, Ctx *cx) except? 15:
        cdef int64_t source = self.kid(self.program.args[ins[4]], s, cx)
        if tag(source) == T_PLACE:
            return self.pieces_in(pay(source))
        return self.seq(source)

    cdef int64_t chance_number(self, int64_t *ins, int64_t w) except? 15:
        """The id of chance outcome ``w`` at a roll or a draw."""
        cdef Program p = self.program
        cdef int64_t i
        if ins[0] == I_DRAW:
            return p.draw_base + pay(w)
        if tag(w) == T_INT:
            return p.roll_base + pay(w)
        for i in range(p.n_roll_faces):
            if p.t_roll_faces[i] == pay(w):
                return p.roll_base + p.roll_max + 1 + i
        raise p.rules_error(f"{self.text_of(w)} is no roll of these dice")

    # ------------------------------------------------------------ the API
    def is_terminal(self):
        return self.outcome_found is not None

    @property
    def outcome(self):
        return self.outcome_found

    @property
    def log(self):
        return self.log_lines if self.log_lines is not None else []

    @property
    def nbytes(self):
        """The bytes of this state's own data: where each piece is, the places' pieces,
        the columns, the values, the slots in use and the heap in use (a clone copies
        these; the listing kept for reuse is not counted)."""
        cdef Program p = self.program
        return 8 * (p.n_pieces + p.n_places * p.piece_words + p.column_words + p.n_values
                    + self.top + self.heap_top + 3 * self.depth)

    @property
    def slots_in_use(self):
        """Words of the slot stack in use (the frames' own at a decision)."""
        return self.top

    @property
    def board(self):
        return self.program.board

    def is_chance_node(self):
        cdef int64_t *ins = self.pending()
        return ins != NULL and (ins[0] == I_ROLL or ins[0] == I_DRAW)

    def current_player(self):
        cdef int64_t *ins = self.pending()
        cdef Program p = self.program
        cdef int64_t proc
        cdef Ctx cx
        if ins == NULL:
            return None
        if ins[0] == I_ROLL or ins[0] == I_DRAW:
            return "chance"
        proc = self.frame_proc[self.depth - 1]
        cx.slots, cx.names, cx.bound = self.frame_slots(), self.scope(p.proc_scope[proc]), NULL
        if ins[0] == I_SEALED:
            return self.text_of(self.next_chooser(ins, self.frame_slots(), &cx))
        return self.text_of(self.kid(p.args[ins[4]], self.frame_slots(), &cx))

    def chance_outcomes(self):
        """At a chance node, every outcome's id with its exact probability, by id."""
        cdef int64_t *ins = self.pending()
        cdef Program p = self.program
        cdef int64_t proc, w, i
        cdef Ctx cx
        if ins == NULL or not (ins[0] == I_ROLL or ins[0] == I_DRAW):
            return []
        proc = self.frame_proc[self.depth - 1]
        cx.slots, cx.names, cx.bound = self.frame_slots(), self.scope(p.proc_scope[proc]), NULL
        if ins[0] == I_ROLL:
            w = self.kid(p.args[ins[4]], self.frame_slots(), &cx)
            return sorted((self.chance_number(ins, x), f) for x, f in self.dice_outcomes(pay(w)))
        w = self.pool(ins, self.frame_slots(), &cx)
        n = self.obj(w)[0]
        return sorted((self.chance_number(ins, self.obj(w)[1 + i]), Fraction(1, n))
                      for i in range(n))

    def legal_action_ids(self):
        """The pending decision's legal ids, ascending (a chance node's outcomes)."""
        cdef int64_t i
        cdef int64_t *ids
        if self.outcome_found is not None:
            return []
        if self.is_chance_node():
            return [n for n, _ in self.chance_outcomes()]
        self.candidates()
        if self.temp_top + self.n_candidates > TEMP_CAPACITY:
            return sorted([self.candidate_id[i] for i in range(self.n_candidates)])
        ids = self.temp + self.temp_top
        memcpy(ids, self.candidate_id, sizeof(int64_t) * self.n_candidates)
        qsort(ids, self.n_candidates, sizeof(int64_t), _by_value)
        return [ids[i] for i in range(self.n_candidates)]

    def list_anew(self, int64_t times=1):
        """List the pending decision ``times`` times, each anew, with nothing kept from
        an earlier listing (what a listing costs without reuse: benchmarks/c_listing.py);
        returns how many candidates it has."""
        cdef int64_t _
        if self.outcome_found is not None or self.is_chance_node():
            return 0
        for _ in range(times):
            self.listed = self.reusable = False
            self.candidates()
            if self.heap_top > self.heap_limit:   # as after each step of play
                self.collect_garbage()
        return self.n_candidates

    def legal_actions(self):
        return [self.program.board.action_text(n) for n in self.legal_action_ids()]

    cdef int64_t sample(self) except -1:
        """The id of a chance outcome drawn with the state's generator, as the reference
        draws it: a total of dice, a named face, or one of the pieces by id."""
        cdef int64_t *ins = self.pending()
        cdef Program p = self.program
        cdef int64_t proc, w, total, i, n
        cdef int64_t *dice
        cdef Ctx cx
        proc = self.frame_proc[self.depth - 1]
        cx.slots, cx.names, cx.bound = self.frame_slots(), self.scope(p.proc_scope[proc]), NULL
        if ins[0] == I_ROLL:
            w = self.kid(p.args[ins[4]], self.frame_slots(), &cx)
            dice = p.t_dice + 3 * pay(w)
            if dice[2] < 0:
                total = 0
                for _ in range(dice[0]):
                    total += <int64_t>_below(&self.rng, <uint64_t>dice[1]) + 1
                return self.chance_number(ins, mk(T_INT, total))
            i = <int64_t>_below(&self.rng, <uint64_t>self.obj(dice[2])[0])
            return self.chance_number(ins, self.obj(dice[2])[1 + i])
        w = self.pool(ins, self.frame_slots(), &cx)
        n = self.obj(w)[0]
        if tag(self.kid(p.args[ins[4]], self.frame_slots(), &cx)) != T_PLACE:
            w = self.make_set(w)      # the pieces by index, as their ids are ordered
            n = self.obj(w)[0]
        i = <int64_t>_below(&self.rng, <uint64_t>n)
        return self.chance_number(ins, self.obj(w)[1 + i])

    def sample_chance(self):
        """The id of a chance outcome drawn with the state's generator."""
        if not self.is_chance_node():
            raise self.program.rules_error("this is no chance node")
        return self.sample()

    def apply_chance(self):
        """Draw a chance outcome with the state's generator and take it; its id."""
        number = self.sample_chance()
        self.take(number, False)
        return number

    def apply(self, action):
        """Take a legal action (its id or text) and run to the next decision."""
        cdef Program p = self.program
        if isinstance(action, str):
            found = [n for n in self.legal_action_ids() if p.board.action_text(n) == action]
            if not found:
                raise p.rules_error(f"{action!r} is not legal here")
            action = found[0]
        self.take(action, True)

    cdef int take(self, int64_t number, bint check) except -1:
        """Take action ``number`` (a chance outcome is checked when ``check``) and run on."""
        cdef Program p = self.program
        cdef int64_t *ins
        cdef int64_t *s
        cdef int64_t d, i, j, k, entry, q, chooser, option, n, w, proc
        cdef Ctx cx
        ins = self.pending()
        if ins == NULL:
            raise p.rules_error("the game is over")
        d = self.depth - 1
        s = self.frame_slots()
        if ins[0] != I_SEALED:
            self.chooser_known = False
        if ins[0] == I_ROLL or ins[0] == I_DRAW:
            if check and number not in {n for n, _ in self.chance_outcomes()}:
                raise p.rules_error(f"{p.board.action_text(number)} is not an outcome here")
            if ins[0] == I_DRAW:
                s[ins[1]] = mk(T_PIECE, number - p.draw_base)
            else:
                if number - p.roll_base <= p.roll_max:
                    s[ins[1]] = mk(T_INT, number - p.roll_base)
                else:
                    s[ins[1]] = mk(T_TEXT, p.t_roll_faces[number - p.roll_base - p.roll_max - 1])
                self.last_roll = s[ins[1]]
                self.touch(p.cell_turn + 2)
            self.frame_pc[d] += 1
        else:
            self.candidates()
            k = -1
            for i in range(self.n_candidates):
                if self.candidate_id[i] == number:
                    k = i
                    break
            if k < 0:
                raise p.rules_error(f"{p.board.action_text(number)} is not legal here")
            option = self.candidate_option[k]
            n = p.opts[option * OPTION_WIDTH + 2] + p.opts[option * OPTION_WIDTH + 4]
            j = self.candidate_writes[k]
            if ins[0] == I_CHOOSE:
                for i in range(n):
                    s[self.write_slot[j + i]] = self.write_value[j + i]
                self.frame_pc[d] = p.opts[option * OPTION_WIDTH + 7]
            else:
                proc = self.frame_proc[d]
                cx.slots, cx.names, cx.bound = s, self.scope(p.proc_scope[proc]), NULL
                chooser = self.next_chooser(ins, s, &cx)
                self.chooser_known = False
                entry = self.new(T_LIST, 2 + 2 * n)
                self.obj(entry)[1] = chooser
                self.obj(entry)[2] = mk(T_INT, option)
                for i in range(n):
                    self.obj(entry)[3 + 2 * i] = mk(T_INT, self.write_slot[j + i])
                    self.obj(entry)[4 + 2 * i] = self.write_value[j + i]
                q = s[ins[2]]
                k = 0 if q == UNB else self.obj(q)[0]
                w = self.new(T_LIST, k + 1)
                for i in range(k):
                    self.obj(w)[1 + i] = self.obj(q)[1 + i]
                self.obj(w)[1 + k] = entry
                s[ins[2]] = w
                if self.next_chooser(ins, s, &cx) == NONE:
                    self.frame_pc[d] += 1
                    self.chooser_known = False
        self.listed = False
        self.run()
        return 0

    cdef int64_t kth_id(self, int64_t k) except -1:
        """The ``k``-th smallest candidate id (the listing is left in its order)."""
        cdef int64_t n = self.n_candidates
        cdef int64_t *ids = self.temp + self.temp_top
        if self.temp_top + n > TEMP_CAPACITY:
            raise self.program.rules_error("a decision with too many candidates")
        memcpy(ids, self.candidate_id, sizeof(int64_t) * n)
        qsort(ids, n, sizeof(int64_t), _by_value)
        return ids[k]

    def random_playout(self, seed, max_actions=None):
        """Play uniformly random legal actions to the end (a rollout), as the engine's
        ``GameState.random_playout`` picks them: each decision takes the ``i``-th of its
        ascending legal ids, ``i`` drawn by SplitMix64 from ``seed``; chance by the
        state's generator. Returns the actions taken."""
        cdef uint64_t chooser = <uint64_t>(seed & 0xFFFFFFFFFFFFFFFF)
        cdef int64_t limit = -1 if max_actions is None else max_actions
        cdef int64_t taken = 0, number
        cdef int64_t *ins
        while self.outcome_found is None and (limit < 0 or taken < limit):
            ins = self.pending()
            if ins[0] == I_ROLL or ins[0] == I_DRAW:
                number = self.sample()
            else:
                self.candidates()
                if self.n_candidates == 0:
                    raise self.program.rules_error("a decision with no legal action")
                number = self.kth_id(<int64_t>_below(&chooser, <uint64_t>self.n_candidates))
            self.take(number, False)
            taken += 1
        return taken

    def clone(self):
        """An independent copy of this state (the program is shared). A heap more than
        half way to its next collection is collected first, so that a clone copies
        little garbage (the state is the same, only its heap is compacted)."""
        cdef Program p = self.program
        cdef State c = State.__new__(State)
        if self.heap_top > self.heap_limit // 2:
            self.collect_garbage()
        c.program = p
        c.E = self.E
        c._allocate(max(2 * self.heap_top, 1 << 12))
        memcpy(c.where, self.where, sizeof(int64_t) * p.n_pieces)
        memcpy(c.occupied, self.occupied, sizeof(uint64_t) * p.n_places * p.piece_words)
        memcpy(c.columns, self.columns, sizeof(int64_t) * p.column_words)
        memcpy(c.values, self.values, sizeof(int64_t) * p.n_values)
        memcpy(c.slots, self.slots, sizeof(int64_t) * self.top)
        c.top = self.top
        memcpy(c.frame_proc, self.frame_proc, sizeof(int64_t) * self.depth)
        memcpy(c.frame_pc, self.frame_pc, sizeof(int64_t) * self.depth)
        memcpy(c.frame_base, self.frame_base, sizeof(int64_t) * self.depth)
        c.depth = self.depth
        memcpy(c.heap, self.heap, sizeof(int64_t) * self.heap_top)
        c.heap_top, c.heap_limit = self.heap_top, self.heap_limit
        c.rng, c.turn, c.phase = self.rng, self.turn, self.phase
        c.last_roll, c.turn_limit = self.last_roll, self.turn_limit
        c.log_lines = list(self.log_lines) if self.log_lines is not None else None
        c.outcome_found = self.outcome_found
        c.trail = NULL
        c.revealed = set(self.revealed)
        c.listed = False
        return c

    @property
    def seed_state(self):
        """The generator's state (what ``apply_chance`` draws from next)."""
        return self.rng

    @seed_state.setter
    def seed_state(self, value):
        self.rng = <uint64_t>(value & 0xFFFFFFFFFFFFFFFF)


class _Ordered:
    """A word under the canonical order, for Python's sort."""

    __slots__ = ("state", "word")

    def __init__(self, state, word):
        self.state, self.word = state, word

    def __lt__(self, other):
        return (<State>self.state).order(self.word, other.word) < 0
