# Included by _core.pyx: the kernel "frames".
#
# FrameRunner runs the stack of procedure frames of a game state, as
# GameState._run in cortes_rules/engine/machine.py does (that loop is its
# specification, and the test suite runs on both). The instructions are the
# tuples of engine/procedures.py; their operands are still the generated
# Python functions of the regions and expressions. What runs here in C is
# the dispatch: reading each instruction, jumping, counting the step budget,
# walking a `for each`, calling and returning. The rest (decisions, chance,
# writes, logs, the end of the game) is handed to the state's own methods,
# _pause() and _rare(), which the reference loop calls too.
#
# The opcodes are given by the engine when it makes the runner, so this file
# states no number of its own.

cdef class FrameRunner:
    """Runs a game state's procedure frames until a decision, a chance event or the end.

    ``FrameRunner(opcodes, pauses, as_iterable)``: ``opcodes`` maps each
    instruction's name in ``engine/procedures.py`` to its number; ``pauses``
    are the numbers of those that pause; ``as_iterable`` puts a set in the
    order the rules visit it (``engine/compile._as_iterable``).
    """

    cdef long jump_if_not, jump, region, let, for_next, call, ret, for_init
    cdef long pauses[8]
    cdef int n_pauses
    cdef object as_iterable

    def __init__(self, dict opcodes, pauses, as_iterable):
        self.jump_if_not = opcodes["JUMP_IF_NOT"]
        self.jump = opcodes["JUMP"]
        self.region = opcodes["REGION"]
        self.let = opcodes["LET"]
        self.for_next = opcodes["FOR_NEXT"]
        self.call = opcodes["CALL"]
        self.ret = opcodes["RETURN"]
        self.for_init = opcodes["FOR_INIT"]
        if len(pauses) > 8:
            raise ValueError("at most eight opcodes may pause")
        self.n_pauses = len(pauses)
        for k, op in enumerate(pauses):
            self.pauses[k] = op
        self.as_iterable = as_iterable

    cdef inline bint _pauses(self, long op) noexcept:
        cdef int k
        for k in range(self.n_pauses):
            if self.pauses[k] == op:
                return True
        return False

    def run(self, state, long budget):
        """Run ``state``'s frames, as ``GameState._run`` does, with this step budget."""
        cdef list stack = state.stack
        cdef list frame
        cdef list code
        cdef tuple ins
        cdef dict env, called
        cdef tuple walk
        cdef tuple items
        cdef dict procs = state.machine.procs
        cdef object proc, where, target, args, params, domain
        cdef Py_ssize_t pc, end, i, after, k
        cdef long op, taken
        while not state.terminal:
            frame = stack[len(stack) - 1]
            proc = frame[0]
            pc = frame[1]
            env = frame[2]
            code = proc.code
            end = len(code)
            op = -1
            while pc < end:
                ins = code[pc]
                op = ins[0]
                if op == self.jump_if_not:
                    if ins[1](state, env):
                        pc += 1
                    else:
                        pc = ins[2]
                elif op == self.jump:
                    if ins[1] <= pc:
                        budget -= 1
                        if budget <= 0:
                            state._runs_on(proc)
                    pc = ins[1]
                elif op == self.region:
                    taken = ins[1](state, env)
                    if taken < 0:   # not compiled: its instructions follow
                        pc += 1
                        continue
                    pc = ins[2]
                    budget -= taken
                    if budget <= 0:
                        state._runs_on(proc)
                elif op == self.let:
                    env[ins[1]] = ins[2](state, env)
                    pc += 1
                elif op == self.for_next:
                    walk = env[ins[1]]
                    items = walk[0]
                    i = walk[1]
                    where = ins[3]
                    after = ins[4]
                    while i < len(items):
                        env[ins[2]] = items[i]
                        i += 1
                        if where is None or where(state, env):
                            after = pc + 1
                            break
                    env[ins[1]] = (items, i)
                    pc = after
                else:
                    break
            else:
                stack.pop()
                if not stack:
                    state._finish(None, "the turn sequence ended")
                    return
                continue
            if self._pauses(op):
                frame[1] = pc
                if state._pause(op, ins, env, proc):
                    return
                frame[1] = pc + 1
                continue
            frame[1] = pc + 1
            if op == self.call:
                target = procs.get(ins[1])
                if target is None or target.pending is not None:
                    target = state.machine.proc(ins[1], ins[3], proc.rule)
                args = ins[2]
                params = target.params
                if len(args) != len(params) or len(stack) > 200:
                    state._bad_call(target, ins, proc)
                called = {}
                for k in range(len(args)):
                    called[params[k]] = args[k](state, env)
                stack.append([target, 0, called])
            elif op == self.for_init:
                domain = ins[2](state, env)
                if isinstance(domain, frozenset):
                    domain = self.as_iterable(domain)
                env[ins[1]] = (tuple(domain), 0)
            elif op == self.ret:
                stack.pop()
                if not stack:
                    state._finish(None, "the turn sequence ended")
                    return
            elif state._rare(op, ins, frame, env, proc):
                return
