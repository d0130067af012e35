# Included by _core.pyx: the kernel "writes".
#
# StateWriter makes the writes of procedures on a game state (a piece
# attribute that changes, a piece put into a place, a place attribute, a game
# value, a sweep of every piece), as GameState._piece_changed, _put,
# _write_place, _write_value and _sweep_pieces in
# cortes_rules/engine/machine.py do (they are its specification): the cell,
# the stamps, the occupants, the native board and columns, each write logged
# while an action may fail, copy on write where a clone shares what is
# written. The generated code of the compiled backend calls these.
#
# The state's attributes are read from its __dict__ (plain instance
# attributes: no descriptor stands in front of them).

cdef class StateWriter:
    """Writes to a game state for the compiled backend's generated code.

    ``StateWriter(tick, piece_class, place_class, unput, put_reference, cells,
    scalars, at_place)``: ``tick`` gives each write its stamp; ``unput`` undoes
    a put (logged with it); ``put_reference`` is ``GameState._put_op``, which
    takes every put but that of one piece into a place or off the board;
    ``cells`` holds what a native column cell is
    (``engine/bytecode.column_cell``): the classes by column type, the cell of
    none, of a value with no cell, and the bound of integers; ``scalars`` are
    the types whose equal values no rule can tell apart (``machine._SCALARS``);
    ``at_place`` stands for a piece's own place in a sweep.
    """

    cdef object tick, piece_class, place_class, unput, put_reference, at_place
    cdef dict classes
    cdef frozenset scalars
    cdef long long none_cell, inexact, limit

    def __init__(self, tick, piece_class, place_class, unput, put_reference,
                 tuple cells, scalars, at_place):
        self.tick = tick
        self.piece_class = piece_class
        self.place_class = place_class
        self.unput = unput
        self.put_reference = put_reference
        self.classes = dict(cells[0])
        self.none_cell = cells[1]
        self.inexact = cells[2]
        self.limit = cells[3]
        self.scalars = frozenset(scalars)
        self.at_place = at_place

    cdef inline bint _same(self, old, value) except -1:
        # machine._same: whether writing value over old changes nothing a rule can tell.
        if old is value:
            return True
        return type(old) is type(value) and type(value) in self.scalars \
            and bool(old == value)

    cdef object _column(self, dict d, str table, str flag, str name):
        # GameState._piece_column(name) (table "piece_attrs", flag "_pieces_shared")
        # and _place_column(name): the column, this state's own, to write to. A
        # column shared with a clone is copied, and the table of columns with it
        # the first time (the flag then holds the set of the columns copied).
        cdef dict columns = d[table]
        shared = d[flag]
        if shared is False:
            return columns[name]
        if type(shared) is set:
            if name in <set>shared:
                return columns[name]
        else:
            columns = columns.copy()
            d[table] = columns
            shared = set()
            d[flag] = shared
        (<set>shared).add(name)
        column = columns[name][:]
        columns[name] = column
        return column

    cdef inline void _stamp(self, state, dict d, Py_ssize_t index) except *:
        # GameState._stamp(index).
        cdef list stamps
        if d["_stamps_shared"]:
            d["stamps"] = (<list>d["stamps"])[:]   # GameState._own_stamps()
            d["_stamps_shared"] = False
        stamps = d["stamps"]
        undo = d["_undo"]
        if undo is not None:
            undo.append((stamps, index, stamps[index]))
        stamps[index] = self.tick()

    def write_value(self, state, name, value):
        """``GameState._write_value(name, value)``."""
        cdef dict d = state.__dict__
        if d["_values_shared"]:
            d["values"] = d["values"].copy()
            d["_values_shared"] = False
        values = d["values"]
        undo = d["_undo"]
        if undo is not None:
            undo.append((values, name, values[name]))
        values[name] = value
        self._stamp(state, d, 0)

    def write_place(self, state, str name, Py_ssize_t index, value):
        """``GameState._write_place(name, index, value)``."""
        cdef dict d = state.__dict__
        old = d["place_attrs"][name][index]
        if self._same(old, value):
            return
        column = self._column(d, "place_attrs", "_places_shared", name)
        undo = d["_undo"]
        if undo is not None:
            undo.append((column, index, old))
        column[index] = value
        self._stamp(state, d, d["machine"].marks + index)
        native = d["native"]
        if native is not None:
            support = d["machine"]._native
            native_column = support.place_column.get(name)
            if native_column is not None:
                if d["_native_shared"]:
                    state._own_native()
                    native = d["native"]
                cells = native.places
                at = native_column[0] * support.n_places + index
                undo = d["_undo"]
                if undo is not None:
                    undo.append((cells, at, cells[at]))
                cells[at] = self._cell(value, native_column[1])

    def sweep_pieces(self, state, tuple writes):
        """``GameState._sweep_pieces(writes)``."""
        cdef dict d = state.__dict__
        cdef list column, new, changed, stamps
        cdef Py_ssize_t i, n, base = 0
        cdef set stamped = set()
        undo = d["_undo"]
        support = d["machine"]._native if d["native"] is not None else None
        for name, value in writes:
            column = d["piece_attrs"][name]
            n = len(column)
            changed = []
            if value is self.at_place:
                new = d["where"]
                for i in range(n):
                    if not self._same(column[i], new[i]):
                        changed.append(i)
            else:
                for i in range(n):
                    if not self._same(column[i], value):
                        changed.append(i)
            if not changed:
                continue
            column = self._column(d, "piece_attrs", "_pieces_shared", name)
            if undo is not None:
                undo.append((column, slice(None), column[:]))
            native_column = None
            if support is not None:
                native_column = support.piece_column.get(name)
            if native_column is not None:
                if d["_native_shared"]:
                    state._own_native()
                cells = d["native"].pieces
                base = native_column[0] * len(d["where"])
                if undo is not None:
                    cut = slice(base, base + n)
                    undo.append((cells, cut, cells[cut]))
            if value is self.at_place:
                for i in changed:
                    column[i] = new[i]
                    if native_column is not None:
                        cells[base + i] = self._cell(new[i], native_column[1])
            else:
                for i in changed:
                    column[i] = value
                if native_column is not None:
                    cell = self._cell(value, native_column[1])
                    for i in changed:
                        cells[base + i] = cell
            stamped.update(changed)
        if stamped:
            if d["_stamps_shared"]:
                d["stamps"] = (<list>d["stamps"])[:]   # GameState._own_stamps()
                d["_stamps_shared"] = False
            stamps = d["stamps"]
            if undo is not None:
                undo.extend([(stamps, 1 + i, stamps[1 + i]) for i in stamped])
            stamp = self.tick()
            for i in stamped:
                stamps[1 + i] = stamp

    cdef object _cell(self, value, str kind):
        cls = self.classes.get(kind)
        if cls is not None:
            if value is None:
                return self.none_cell
            return value.index if type(value) is cls else self.inexact
        if type(value) is int or type(value) is bool:
            if -self.limit < value < self.limit:
                return int(value)
        return self.inexact

    def piece_changed(self, state, str name, Py_ssize_t index, old, value):
        """``GameState._piece_changed(name, index, old, value)``."""
        cdef dict d = state.__dict__
        cdef list stamps
        column = self._column(d, "piece_attrs", "_pieces_shared", name)
        if d["_stamps_shared"]:
            d["stamps"] = (<list>d["stamps"])[:]   # GameState._own_stamps()
            d["_stamps_shared"] = False
        stamps = d["stamps"]
        undo = d["_undo"]
        if undo is not None:
            undo.append((column, index, old))
            undo.append((stamps, 1 + index, stamps[1 + index]))
        column[index] = value
        stamps[1 + index] = self.tick()
        native = d["native"]
        if native is not None:
            native_column = d["machine"]._native.piece_column.get(name)
            if native_column is not None:
                if d["_native_shared"]:
                    state._own_native()
                    native = d["native"]
                cells = native.pieces
                at = native_column[0] * len(d["where"]) + index
                if undo is not None:
                    undo.append((cells, at, cells[at]))
                cells[at] = self._cell(value, native_column[1])

    def put_op(self, state, what, where_to, span, proc):
        """``GameState._put_op(what, where_to, span, proc)``: one piece here, the rest
        (several pieces, or anything that is no piece or place) by the reference."""
        if type(what) is not self.piece_class or (
                where_to is not None and type(where_to) is not self.place_class):
            self.put_reference(state, what, where_to, span, proc)
            return
        self._put(state, what, where_to)

    cdef _put(self, state, piece, place):
        cdef dict d = state.__dict__
        cdef list where = d["where"]
        cdef list stamps
        cdef dict occupants
        cdef tuple there, here
        cdef Py_ssize_t index = piece.index, at, k, n
        cdef Py_ssize_t holds, left, entered
        old = where[index]
        if old is place:
            return
        stamp = self.tick()
        if d["_stamps_shared"]:
            d["stamps"] = (<list>d["stamps"])[:]   # GameState._own_stamps()
            d["_stamps_shared"] = False
        if d["_board_shared"]:
            where = where[:]
            d["where"] = where
            d["occupants"] = d["occupants"].copy()
            d["_board_shared"] = False
        stamps = d["stamps"]
        holds = d["machine"].holds
        occupants = d["occupants"]
        undo = d["_undo"]
        if undo is not None:
            left = holds + old.index if old is not None else 0
            entered = holds + place.index if place is not None else 0
            undo.append((self.unput, (where, occupants, stamps, piece, old, place),
                         (1 + index, stamps[1 + index], left, stamps[left],
                          entered, stamps[entered])))
        stamps[1 + index] = stamp
        if old is not None:
            stamps[holds + old.index] = stamp
            there = occupants[old.index]
            if len(there) == 1:
                del occupants[old.index]
            else:
                at = there.index(piece)
                occupants[old.index] = there[:at] + there[at + 1:]
        where[index] = place
        if place is not None:
            stamps[holds + place.index] = stamp
            here = occupants.get(place.index, ())
            # The place's pieces stay in ascending order of index.
            n = len(here)
            k = 0
            while k < n and here[k].index < index:
                k += 1
            occupants[place.index] = here[:k] + (piece,) + here[k:]
        native = d["native"]
        if native is not None:
            if d["_native_shared"]:
                state._own_native()
                native = d["native"]
            board = native.board
            if undo is not None:
                undo.append((board, index, -1 if old is None else old.index))
            board.put(index, -1 if place is None else place.index)
