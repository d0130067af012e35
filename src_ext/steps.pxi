# Included by _core.pyx: the kernel "steps".
#
# StepRunner takes a game state from one decision to the next for an action
# id, and lists the legal ids of a decision, as GameState.apply(),
# _admitted(), _listed(), _carry_out(), _resume() and legal_action_ids() in
# cortes_rules/engine/machine.py do (they are its specification). It takes
# the common path of each (a decision made with `choose`, an option whose
# candidates were listed just before and whose bindings were worked out by
# its binder) and hands every other case to the state's own methods, which
# then do all of it as the reference does.
#
# The state's attributes are read from its __dict__ (plain instance
# attributes: no descriptor stands in front of them).

cdef class StepRunner:
    """Applies action ids and lists legal ids for the compiled backend.

    ``StepRunner(opcodes, sharing, errors, every)``: ``opcodes`` maps the names
    of ``CHOOSE``, ``ROLL`` and ``DRAW`` in ``engine/procedures.py`` to their
    numbers; ``sharing`` names a state's flags of what it shares with a clone
    (``machine._SHARING``); ``errors`` are ``CortesRulesError`` and
    ``RulesRuntimeError``; ``every`` is ``machine.CHECKPOINT_EVERY``, how many
    actions pass between two checkpoints of the undo stack.
    """

    cdef long choose, roll, draw, every
    cdef tuple sharing, sharing_all
    cdef object library_error, runtime_error

    def __init__(self, dict opcodes, tuple sharing, tuple errors, long every):
        self.choose = opcodes["CHOOSE"]
        self.roll = opcodes["ROLL"]
        self.draw = opcodes["DRAW"]
        self.sharing = sharing
        self.sharing_all = (True,) * len(sharing)
        self.library_error, self.runtime_error = errors
        self.every = every

    cdef tuple _pending(self, dict d):
        # (instruction, frame) of the state's next instruction, or None at the end.
        cdef list stack, frame
        if d["terminal"]:
            return None
        stack = d["stack"]
        frame = stack[len(stack) - 1]
        return (frame[0].code[frame[1]], frame)

    def legal_ids(self, state):
        """``GameState.legal_action_ids()``."""
        cdef dict d = state.__dict__
        cdef tuple pending = self._pending(d)
        cdef tuple ins
        cdef list ids, segment
        if pending is None:
            return []
        ins = pending[0]
        if ins[0] != self.choose:
            return state._legal_ids()
        segments = d["_legal"]
        if segments is None:
            segments = state._listing(ins[1], pending[1][2])
        ids = []
        for segment in segments:
            ids.extend(segment)
        ids.sort()
        return ids

    def admitted(self, state, kind, tuple values, number):
        """``GameState._admitted(kind, values, number)``."""
        found = self._listed(state, state.__dict__, kind, values, number)
        if found is None:
            return state._admitted(kind, values, number)
        return found

    cdef object _listed(self, state, dict d, kind, tuple values, number):
        # The common case of GameState._listed(); None for every other, which the
        # state's own _admitted() then decides as the reference does.
        cdef tuple pending, ins, params, bindings, bound
        cdef list frame
        cdef dict scratch
        cdef Py_ssize_t k, j, n
        segments = d["_legal"]
        if segments is None:
            return None
        pending = self._pending(d)
        if pending is None:
            return None
        ins = pending[0]
        frame = pending[1]
        if ins[0] != self.choose:
            return None
        options = ins[1].options
        if len(options) != len(segments):
            return None
        name = kind.name
        for k in range(len(options)):
            option = options[k]
            if option.kind != name:
                continue
            binder = option.binder
            if not option.clean or binder is None or number not in segments[k]:
                return None
            try:
                bound = binder(state, frame[2], values)
            except Exception:
                return None
            params = option.params
            bindings = option.bindings
            if len(bindings) != len(bound):
                return None
            scratch = {}
            n = min(len(params), len(values))
            for j in range(n):
                scratch[params[j][0]] = values[j]
            for j in range(len(bindings)):
                scratch[bindings[j][0]] = bound[j]
            return (option, scratch)
        return None

    def apply(self, state, number):
        """``GameState.apply(number)`` for an action id."""
        cdef dict d = state.__dict__
        cdef list frames, f
        cdef long since
        kind, values = d["machine"].space.decode(number)
        option, scratch = self.admitted(state, kind, values, number)
        owned = tuple([d[name] for name in self.sharing])
        snapshot = state.clone()
        undo = None
        since = d["_since"]
        # At a checkpoint of the undo stack the snapshot is kept: the state owns
        # nothing it had, so that it copies what it writes first.
        if owned != self.sharing_all and since < self.every:
            for k, name in enumerate(self.sharing):
                d[name] = owned[k]
            undo = []
            d["_undo"] = undo
        frames = []
        for f in d["stack"]:
            frames.append([f[0], f[1], f[2].copy()])
        d["stack"] = frames
        try:
            self.carry_out(state, kind, values, number, option, scratch)
        except self.library_error:
            state._roll_back(snapshot, undo)
            raise
        except RecursionError:
            state._roll_back(snapshot, undo)
            raise self.runtime_error("the rules call procedures too deeply") from None
        finally:
            d["_undo"] = None
        if since < self.every:
            d["_since"] = since + 1
        else:
            # The checkpoint: (state, undo depth there, previous), as GameState.apply.
            marks = d["_marks"]
            depth = (marks[1] if marks is not None else -self.every) + since
            d["_marks"] = (snapshot, depth, marks)
            d["_since"] = 1
        # The last action, to take back at once (GameState._last).
        d["_last"] = (snapshot, undo)

    def carry_out(self, state, kind, values, number, option, scratch):
        """``GameState._carry_out(kind, values, number, option, scratch)``."""
        cdef dict d = state.__dict__
        cdef tuple pending, ins, params
        cdef list frame
        cdef dict env
        cdef Py_ssize_t j, n
        d["_lists"] = d["_legal"] is not None
        d["_legal"] = None
        log_before = d["_log"]
        pending = self._pending(d)
        if pending is not None and option is not None \
                and (<tuple>pending[0])[0] == self.choose:
            # GameState._resume() of a decision made with `choose`.
            frame = pending[1]
            env = frame[2]
            params = option.params
            n = min(len(params), len(values))
            for j in range(n):
                env[params[j][0]] = values[j]
            for binding in option.bindings:
                env[binding[0]] = scratch[binding[0]]
            frame[1] = option.body
        else:
            state._resume(kind, values, option, scratch)
        d["_history"] = (number, d["_history"], log_before)
        state._run()
        state._check_endings()
