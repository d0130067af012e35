# Included by _core.pyx: the kernel "logs".
#
# LogWriter adds a line to a game state's log for the generated code, as
# GameState._log_values and _without_blind_readers in
# cortes_rules/engine/machine.py do (they are its specification): the line
# keeps its template, values and citation, to be written out when read, and
# its audience, the players from whom no piece it names is hidden by the
# rulebook's hide clauses. A line addressed to some players goes to the
# state's own method.

cdef class LogWriter:
    """Log lines for the compiled backend's generated code.

    ``LogWriter(everyone, later, piece_class, named_text, no_piece, reference)``:
    ``everyone`` marks a line for every player; ``later`` makes a log entry
    (``LogEntry.later``); ``named_text`` is the class of texts joined from
    pieces, which name them; ``no_piece`` are the types that never name one;
    ``reference`` is ``GameState._log_values``, which takes the other lines.
    """

    cdef object everyone, later, piece_class, named_text, reference
    cdef frozenset no_piece

    def __init__(self, everyone, later, piece_class, named_text, no_piece, reference):
        self.everyone = everyone
        self.later = later
        self.piece_class = piece_class
        self.named_text = named_text
        self.no_piece = frozenset(no_piece)
        self.reference = reference

    cdef int _named(self, values, list out) except -1:
        # log._pieces_named: the pieces a line's values name, nested ones too.
        for value in values:
            kind = type(value)
            if kind is self.piece_class:
                out.append(value)
            elif kind in self.no_piece:
                continue
            elif isinstance(value, (tuple, list, frozenset, set)):
                self._named(value, out)
            elif isinstance(value, self.named_text):
                out.extend(value.pieces)
            elif isinstance(value, self.piece_class):
                out.append(value)
        return 0

    def log_values(self, state, parts, values, cited, to):
        """``GameState._log_values(parts, values, cited, to)``."""
        cdef dict d
        cdef list named
        if to is not self.everyone:
            self.reference(state, parts, values, cited, to)
            return
        d = state.__dict__
        machine = d["machine"]
        audience = None
        hides = machine.hides
        if hides:
            named = []
            self._named(values, named)
            if named:
                audience = self._readers(state, d, machine, hides, named)
        phases = machine.phases
        label = phases[d["phase_index"]].label if phases else ""
        entry = self.later(d["turn"], label, parts, values, cited, audience)
        d["_log"] = (entry, d["_log"])

    cdef object _readers(self, state, dict d, machine, hides, list named):
        # GameState._without_blind_readers for a line addressed to every player.
        cdef list readers = []
        cdef tuple rows = hides.by_viewer()
        players = machine.world.players
        revealed = d["revealed"]
        for viewer in players:
            row = rows[viewer.index]
            for piece in named:
                applying = row[piece.index]
                if applying and self._held(state, revealed, piece, viewer, applying):
                    break
            else:
                readers.append(viewer.name)
        if len(readers) == len(players):
            return None
        return frozenset(readers)

    cdef bint _held(self, state, revealed, piece, viewer, tuple applying) except -1:
        # GameState._held: one of the clauses keeps the piece from the viewer.
        if (piece.index, viewer.index) in revealed:
            return False
        env = {"piece": piece, "viewer": viewer}
        for hide in applying:
            if hide(state, env):
                return True
        return False
