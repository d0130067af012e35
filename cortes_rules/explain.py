"""Explanations: what a sequence of actions would do from a position, and why.

``explain(state, question)`` plays the question's actions on a copy of the
position, one after the other. The first one the rules refuse ends the
answer: the explanation names it and the rules that forbid it (a cavalry
move into a chinampa hex off the causeway, a sixth infantry unit in a hex).
When every action is legal, the answer follows the game on from there to
the point where the question began (the same decision, made by the same
procedure step: the next attack of the combat phase, the next move), or to
the end of the phase, and lists every way it can get there:

- every chance event (a roll, a draw) is followed through all its outcomes
  with their exact probabilities, so chained rolls (a roll that decides
  whether another is made) are exact too;
- a decision on the way (which unit takes a loss, whether to advance) is
  taken by a *policy*; the default takes the first legal action (the
  lowest action id), and the explanation says so.

Each outcome carries its probability (a Fraction; they sum to 1) and its
rule trail: the log lines produced, each citing the rules that decided it.
The explanation also gives, for each side, the expected change of every
numeric piece attribute (for a wargame's ``steps``: the expected steps lost).

Nothing here knows a game: the question is actions of the rulebook, the
answer is what its clauses did. The schema of ``Explanation.as_dict()``
is described in ``docs/explain.md``.
"""

from __future__ import annotations

import heapq
from collections.abc import Callable, Iterable, Sequence
from fractions import Fraction
from typing import TYPE_CHECKING, Any

import attrs

from .engine.action_space import _nearest
from .engine.actions import Action
from .engine.compile import format_value
from .engine.log import LogEntry, _log_between
from . import arguments
from .errors import CortesRulesError, IllegalActionError, UnknownIdError, UnknownNameError

if TYPE_CHECKING:
    from .engine.machine import GameState

SCHEMA = "cortes_rules.explain/1"
"""The name and version of the JSON form of an explanation."""

MAX_BRANCHES = 200_000
"""How many positions an explanation may visit before it gives up."""

MAX_DECISIONS = 5_000
"""How many decisions one branch may take before it is called endless."""

Policy = Callable[["GameState"], int]
"""Chooses a legal action id at a decision the question did not settle."""

Leaf = tuple[Fraction, "GameState", tuple[str, ...]]
"""One end of a question's consequences: (probability, state, decisions taken)."""


def first_legal(state: GameState) -> int:
    """The default policy: the legal action with the lowest id."""
    return min(state.legal_action_ids())


@attrs.frozen
class Line:
    """One line of a rule trail: what happened and the rules that decided it."""

    text: str
    rules: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """The line as plain data."""
        return {"text": self.text, "rules": list(self.rules)}

    def __str__(self) -> str:
        return f"[{', '.join(self.rules)}] {self.text}" if self.rules else self.text


@attrs.frozen
class Step:
    """One action of the question, who took it and its rule trail."""

    action: str
    player: str | None
    trail: tuple[Line, ...]

    def as_dict(self) -> dict[str, Any]:
        """The step as plain data."""
        return {"action": self.action, "player": self.player,
                "trail": [line.as_dict() for line in self.trail]}


@attrs.frozen
class Refusal:
    """The first action of the question the rules refuse, and why."""

    index: int
    action: str
    player: str | None
    reasons: tuple[tuple[str | None, str], ...]
    """``Reason`` objects (``GameState.why_illegal``): each the pair (rule, text),
    with the rule's title and summary, the fact and the clause apart."""

    @property
    def rules(self) -> tuple[str, ...]:
        """The numbers of the rules that forbid the action."""
        return tuple(rule for rule, _ in self.reasons if rule)

    def as_dict(self) -> dict[str, Any]:
        """The refusal as plain data."""
        return {"index": self.index, "action": self.action, "player": self.player,
                "reasons": [_reason_dict(reason) for reason in self.reasons]}


def _reason_dict(reason: tuple[str | None, str]) -> dict[str, Any]:
    rule, text = reason
    out: dict[str, Any] = {"rule": rule, "text": text}
    for name in ("title", "summary", "fact", "clause"):
        out[name] = getattr(reason, name, "")
    return out


@attrs.frozen
class Path:
    """One way of reaching an outcome: its exact probability and rule trail."""

    probability: Fraction
    trail: tuple[Line, ...]
    decisions: tuple[str, ...]

    def as_dict(self) -> dict[str, Any]:
        """The path as plain data (the probability as a fraction text and a float)."""
        return {"probability": str(self.probability), "p": float(self.probability),
                "trail": [line.as_dict() for line in self.trail],
                "decisions": list(self.decisions)}


@attrs.frozen
class Possibility:
    """One position the question can end in, with its exact probability.

    Attributes:
        probability: the chance of ending in this position.
        moved: the pieces whose place changed: (piece, from, to), None for off the map.
        changes: per side, the change of each numeric piece attribute.
        values: the declared values that changed: (name, before, after) as text.
        paths: the distinct rule trails that lead here (rolls that give the
            same result are different paths to one outcome), most likely first.
    """

    probability: Fraction
    moved: tuple[tuple[str, str | None, str | None], ...]
    changes: dict[str, dict[str, int]]
    values: tuple[tuple[str, str, str], ...]
    paths: tuple[Path, ...]

    @property
    def trail(self) -> tuple[Line, ...]:
        """The trail of the most likely path."""
        return self.paths[0].trail

    def summary(self) -> str:
        """The outcome in one line: the changes per side and the pieces that moved."""
        parts = [f"{side} " + ", ".join(f"{name} {delta:+d}" for name, delta in sorted(c.items()))
                 for side, c in self.changes.items()]
        parts += [f"{piece} {before or 'off'} -> {after or 'off'}"
                  for piece, before, after in self.moved]
        parts += [f"{name} {before} -> {after}" for name, before, after in self.values]
        return "; ".join(parts) or "no change"

    def as_dict(self) -> dict[str, Any]:
        """The outcome as plain data (the probability as a fraction text and a float)."""
        return {"probability": str(self.probability), "p": float(self.probability),
                "summary": self.summary(),
                "moved": [{"piece": p, "from": a, "to": b} for p, a, b in self.moved],
                "changes": {side: dict(c) for side, c in self.changes.items()},
                "values": [{"name": n, "from": a, "to": b} for n, a, b in self.values],
                "paths": [path.as_dict() for path in self.paths]}


@attrs.frozen
class Explanation:
    """The answer to a question: legal or not, the rule trail, the exact outcomes.

    Attributes:
        question: the actions asked about, as text.
        where: the position the question starts from (turn, phase, who acts).
        player: whose view the answer is in (None: the umpire's, everything).
        steps: the question's actions that were played, each with its trail.
        refusal: the first action the rules refuse, or None when all are legal.
        outcomes: every distinct position the question can end in, most likely first.
        expected: for each side, the expected change of each numeric piece
            attribute that changes in some outcome.
        policy: how decisions inside the outcomes were taken.
    """

    question: tuple[str, ...]
    where: str
    player: str | None
    steps: tuple[Step, ...]
    refusal: Refusal | None
    outcomes: tuple[Possibility, ...]
    expected: dict[str, dict[str, Fraction]]
    policy: str

    @property
    def legal(self) -> bool:
        """Whether every action of the question is legal."""
        return self.refusal is None

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule the answer cites, each once, in the order first cited."""
        seen: dict[str, None] = {}
        lines = [line for step in self.steps for line in step.trail]
        lines += [line for outcome in self.outcomes for path in outcome.paths
                  for line in path.trail]
        for line in lines:
            seen.update(dict.fromkeys(line.rules))
        if self.refusal is not None:
            seen.update(dict.fromkeys(self.refusal.rules))
        return tuple(seen)

    def probability(self, text: str) -> Fraction:
        """The exact chance that some line of the trail contains ``text``."""
        return sum((path.probability for outcome in self.outcomes for path in outcome.paths
                    if any(text in line.text for line in path.trail)), Fraction(0))

    def as_dict(self) -> dict[str, Any]:
        """The explanation as plain data, ready for ``json.dumps`` (schema in docs/explain.md)."""
        return {
            "schema": SCHEMA,
            "question": list(self.question),
            "where": self.where,
            "player": self.player,
            "legal": self.legal,
            "refusal": self.refusal.as_dict() if self.refusal is not None else None,
            "steps": [step.as_dict() for step in self.steps],
            "outcomes": [outcome.as_dict() for outcome in self.outcomes],
            "total_probability": str(sum((b.probability for b in self.outcomes),
                                         Fraction(0))),
            "expected": {side: {name: {"exact": str(v), "value": float(v)}
                                for name, v in changes.items()}
                         for side, changes in self.expected.items()},
            "policy": self.policy,
            "rules": list(self.rules),
        }

    def __str__(self) -> str:
        out = [f"Position: {self.where}", f"Question: {'; '.join(self.question)}"]
        for step in self.steps:
            out.append(f"  {step.action} ({step.player})")
            out.extend(f"    {line}" for line in step.trail)
        if self.refusal is not None:
            refusal = self.refusal
            out.append(f"  {refusal.action} ({refusal.player}): illegal here")
            out.extend(f"    [{rule}] {text}" if rule else f"    {text}"
                       for rule, text in refusal.reasons)
            return "\n".join(out)
        total = sum((o.probability for o in self.outcomes), Fraction(0))
        out.append(f"Outcomes: {len(self.outcomes)}, exact, summing to {total}")
        for outcome in self.outcomes:
            out.append(f"  {outcome.probability} ({float(outcome.probability):.2%}): "
                       f"{outcome.summary()}")
            out.extend(f"    {line}" for line in outcome.trail)
            others = len(outcome.paths) - 1
            if others:
                out.append(f"    (and {others} other path{'s' if others > 1 else ''} to the "
                           f"same position, with other rolls or draws)")
        for side, changes in self.expected.items():
            shown = ", ".join(f"{name} {float(v):+.3f} ({v})" for name, v in changes.items())
            out.append(f"Expected change for {side}: {shown}")
        if any(path.decisions for outcome in self.outcomes for path in outcome.paths):
            out.append(f"Decisions inside the outcomes: {self.policy}.")
        return "\n".join(out)


def explain(state: GameState, question: str | Action | int | Iterable[str | Action | int], *,
            player: str | None = None, policy: Policy | None = None,
            rolls: int | None = None) -> Explanation:
    """Explain what a sequence of actions would do from ``state`` (left unchanged).

    Args:
        state: the position to ask about.
        question: one action, or several: a list, or a text with the actions
            separated by ``;`` (``"attack 1322; join S1; resolve"``).
        player: answer in this player's view. The answer may only show what
            the player may see, so it is refused while any piece is hidden
            from that player (the odds would tell what the hidden pieces
            are). None answers as the umpire, who sees everything.
        policy: chooses the decisions met inside the outcomes (default:
            ``first_legal()``).
        rolls: follow each outcome through at most this many chance events
            (rolls and draws), to the decision after the last one; None
            follows them all. An objection roll whose consequence is a whole
            interphase is asked with ``rolls=1``.

    Raises:
        CortesRulesError: an empty question, an unknown player, a question
            asked in a hidden player's view, or more than
            ``MAX_BRANCHES`` positions to follow.
        NotationError: an action's text is not an action of this rulebook.
    """
    actions = _actions(question)
    if rolls is not None and (isinstance(rolls, bool) or not isinstance(rolls, int)
                              or rolls < 0):
        raise CortesRulesError(f"rolls is a whole number of at least 0, not {rolls!r}")
    if player is not None:
        _check_view(state, player)
    where = _where(state)
    start_site = _site(state)
    turn_phase = (state.turn, state.phase_index)
    game = state.clone()
    steps: list[Step] = []
    for index, action in enumerate(actions):
        who = game.current_player
        try:
            game.apply(action)
        except IllegalActionError as error:
            text = str(action) if not isinstance(action, int) else str(
                game.machine.space.action(action))
            # The reasons as the player asking (or the umpire) is told them: a
            # question in a player's view over hidden things was refused above.
            told: tuple[tuple[str | None, str], ...] = tuple(
                game.why_illegal(action, player=player))
            reasons = told or tuple(error.reasons)
            refusal = Refusal(index, text, who, reasons)
            return Explanation(tuple(map(str, actions)), where, player, tuple(steps),
                               refusal, (), {}, _policy_name(policy))
        steps.append(Step(str(game.history[-1]), who, _lines(game.trail(), player)))
    asked = game._log    # the outcomes' trails start after the question's own
    leaves = _follow(game, start_site, turn_phase, policy or first_legal, rolls)
    outcomes, expected = _summarise(state, asked, leaves, player)
    return Explanation(tuple(step.action for step in steps), where, player, tuple(steps),
                       None, outcomes, expected, _policy_name(policy))


def _actions(question: Any) -> list[Any]:
    if isinstance(question, str):
        items: list[Any] = [part.strip() for part in question.replace("\n", ";").split(";")]
        items = [part for part in items if part]
    elif isinstance(question, (Action, int)) and not isinstance(question, bool):
        items = [question]
    else:
        try:
            items = list(question)
        except TypeError:
            raise CortesRulesError(f"a question is actions (a text, an Action, an id or a "
                                   f"list of them), not {question!r}") from None
    if not items:
        raise CortesRulesError("the question names no action")
    return items


def _check_view(state: GameState, player: str) -> None:
    world = state.machine.world
    viewer = world.player.get(arguments.name(player, "a player"))
    if viewer is None:
        raise UnknownNameError(f"no player {player!r}{_nearest(player, world.player)}")
    if any(state.hidden_from(piece, viewer) for piece in world.pieces):
        raise CortesRulesError(
            f"pieces are hidden from {player} here, and an exact answer would tell what "
            f"they are; ask as the umpire (no player) instead")
    if state.rules_hiding_from(viewer) is not None:
        # A player's attribute kept from him (a tally a scenario keeps secret, say).
        raise CortesRulesError(
            f"things are hidden from {player} here, and an exact answer would tell what "
            f"they are; ask as the umpire (no player) instead")


def _where(state: GameState) -> str:
    if state.is_terminal():
        return f"turn {state.turn}, the game is over"
    return f"turn {state.turn}, {state.phase_label}; to act: {state.current_player}"


def _site(state: GameState) -> tuple[int, int, int] | None:
    """Which decision is pending: the depth of the procedure stack, the procedure, the step."""
    if state.terminal:
        return None
    frame = state.stack[-1]
    return len(state.stack), id(frame[0]), frame[1]


def _lines(entries: Sequence[LogEntry], player: str | None) -> tuple[Line, ...]:
    return tuple(Line(e.text, e.rules) for e in entries
                 if player is None or e.visible_to(player))


def _policy_name(policy: Policy | None) -> str:
    if policy is None:
        return "the first legal action (the lowest id) at each decision"
    name = getattr(policy, "__doc__", None) or getattr(policy, "__name__", None)
    return str(name or "a policy given by the caller")


def _follow(game: GameState, site: tuple[int, int, int] | None, turn_phase: tuple[int, int],
            policy: Policy, rolls: int | None) -> list[Leaf]:
    """Every end of the question's consequences: (probability, state, decisions taken)."""
    leaves: list[Leaf] = []
    pending: list[tuple[Fraction, GameState, tuple[str, ...], int]] = [
        (Fraction(1), game, (), 0)]
    visited = 0
    while pending:
        probability, state, decisions, rolled = pending.pop()
        taken = 0
        while True:
            visited += 1
            if visited > MAX_BRANCHES:
                raise CortesRulesError(f"the question's outcomes branch beyond "
                                       f"{MAX_BRANCHES} positions; ask a narrower one")
            chance = state.is_chance_node()
            if (state.terminal or (state.turn, state.phase_index) != turn_phase
                    or (rolls is not None and rolled >= rolls)
                    or (not chance and _site(state) == site)):
                leaves.append((probability, state, decisions))
                break
            if chance:
                outcomes = state.chance_outcomes()
                rolled += 1
                for action, p in outcomes[1:]:
                    child = state.clone()
                    child.apply(action)
                    pending.append((probability * p, child, decisions, rolled))
                state.apply(outcomes[0][0])
                probability *= outcomes[0][1]
                continue
            if not state.legal_action_ids():
                leaves.append((probability, state, decisions))
                break
            taken += 1
            if taken > MAX_DECISIONS:
                raise CortesRulesError(f"an outcome took more than {MAX_DECISIONS} decisions "
                                       f"without coming back to the question's decision")
            number = policy(state)
            state.apply(number)
            decisions = (*decisions, str(state.history[-1]))
    return leaves


def _changes(before: GameState, after: GameState) -> dict[str, dict[str, int]]:
    """Per side, the change of each numeric piece attribute between two states."""
    out: dict[str, dict[str, int]] = {}
    for piece in before.machine.world.pieces:
        if piece.side is None:
            continue
        for name, values in before.piece_attrs.items():
            old, new = values[piece.index], after.piece_attrs[name][piece.index]
            if isinstance(old, bool) or not isinstance(old, int) or not isinstance(new, int):
                continue
            if new != old:
                side = out.setdefault(str(piece.side), {})
                side[name] = side.get(name, 0) + new - old
    return out


def _moved(before: GameState, after: GameState) -> tuple[tuple[str, str | None, str | None], ...]:
    out = []
    for piece, old, new in zip(before.machine.world.pieces, before.where, after.where,
                               strict=True):
        if old is not new:
            out.append((piece.id, old.id if old is not None else None,
                        new.id if new is not None else None))
    return tuple(out)


def _values(before: GameState, after: GameState) -> tuple[tuple[str, str, str], ...]:
    def shown(value: Any) -> str:
        return format_value(value) or "(empty)"

    return tuple((name, shown(old), shown(after.values[name]))
                 for name, old in before.values.items()
                 if shown(old) != shown(after.values[name]))


def _summarise(before: GameState, asked: Any, leaves: list[Leaf], player: str | None
               ) -> tuple[tuple[Possibility, ...], dict[str, dict[str, Fraction]]]:
    """Group the ends by position; what changed is measured from the position asked
    about (``before``), the trails from the end of the question's actions (``asked``)."""
    # Leaves that end in one position are one outcome; their distinct trails its paths.
    groups: dict[Any, list[Any]] = {}
    expected: dict[str, dict[str, Fraction]] = {}
    for probability, state, decisions in leaves:
        trail = _lines(_log_between(asked, state._log), player)
        key = repr(state._position_key(outcome_only=True))
        group = groups.get(key)
        if group is None:
            group = groups[key] = [Fraction(0), state, {}]
        group[0] += probability
        paths = group[2]
        if trail in paths:
            paths[trail][0] += probability
        else:
            paths[trail] = [probability, decisions]
    outcomes = []
    for probability, state, paths in groups.values():
        changes = _changes(before, state)
        for side, deltas in changes.items():
            totals = expected.setdefault(side, {})
            for name, delta in deltas.items():
                totals[name] = totals.get(name, Fraction(0)) + probability * delta
        ordered = sorted((Path(p, trail, decisions) for trail, (p, decisions) in paths.items()),
                         key=lambda path: (-path.probability, [str(x) for x in path.trail]))
        outcomes.append(Possibility(probability, _moved(before, state), changes,
                                _values(before, state), tuple(ordered)))
    outcomes.sort(key=lambda o: (-o.probability, o.summary()))
    for side in list(expected):
        expected[side] = {name: v for name, v in sorted(expected[side].items()) if v != 0}
        if not expected[side]:
            del expected[side]
    return tuple(outcomes), dict(sorted(expected.items()))


MAX_REACH_POSITIONS = 20_000
"""How many positions a search for a way to a place may visit before it gives up."""


@attrs.frozen
class Reach:
    """Whether a piece can reach a place with the actions of one kind, and how.

    Attributes:
        piece, destination: what was asked.
        kind: the action kind walked with (``move``).
        steps: the cheapest sequence of actions found, each with its trail;
            empty when the destination cannot be reached.
        cost: the cost of those steps (see ``reach()``), None when unreachable.
        refusal: when unreachable, why the last step is refused from the
            nearest place reached next to the destination (None when no
            reached place is next to it).
        reached: every place reached, with its cheapest cost.
    """

    piece: str
    destination: str
    kind: str
    steps: tuple[Step, ...]
    cost: int | None
    refusal: Refusal | None
    reached: dict[str, int]

    @property
    def reachable(self) -> bool:
        """Whether the destination can be reached."""
        return self.cost is not None

    @property
    def rules(self) -> tuple[str, ...]:
        """Every rule the answer cites, each once, in the order first cited."""
        seen: dict[str, None] = {}
        for step in self.steps:
            for line in step.trail:
                seen.update(dict.fromkeys(line.rules))
        if self.refusal is not None:
            seen.update(dict.fromkeys(self.refusal.rules))
        return tuple(seen)

    def as_dict(self) -> dict[str, Any]:
        """The answer as plain data."""
        return {"schema": SCHEMA, "piece": self.piece, "destination": self.destination,
                "kind": self.kind, "reachable": self.reachable, "cost": self.cost,
                "steps": [step.as_dict() for step in self.steps],
                "refusal": self.refusal.as_dict() if self.refusal is not None else None,
                "reached": dict(self.reached), "rules": list(self.rules)}

    def __str__(self) -> str:
        if not self.reachable:
            out = [f"{self.piece} cannot reach {self.destination} by {self.kind} from here"]
            if self.refusal is not None:
                out.append(f"  {self.refusal.action}: illegal here")
                out.extend(f"    [{rule}] {text}" if rule else f"    {text}"
                           for rule, text in self.refusal.reasons)
            return "\n".join(out)
        out = [f"{self.piece} reaches {self.destination} in {len(self.steps)} "
               f"step{'s' if len(self.steps) != 1 else ''}, cost {self.cost}"]
        for step in self.steps:
            out.append(f"  {step.action}")
            out.extend(f"    {line}" for line in step.trail)
        return "\n".join(out)


def reach(state: GameState, piece: str, destination: str, *, kind: str | None = None,
          cost: str | None = None, player: str | None = None) -> Reach:
    """The cheapest way for ``piece`` to reach ``destination`` from here, or why it cannot.

    The search applies, on copies of the position, the legal actions of one
    kind that name the piece first and a place second (``move S9 3020``),
    one after the other, as the player to act would (no other piece moves).

    Args:
        kind: the action kind to walk with; by default the kind of the first
            legal action of that shape for this piece.
        cost: a numeric piece attribute whose growth is the cost of a step
            (for Cortés, ``spent``: movement points); by default each step
            costs 1.
        player: answer in this player's view (refused while pieces are hidden
            from that player, as ``explain()`` is).

    Raises:
        CortesRulesError: an unknown piece, place or attribute, no action of
            that shape for the piece here, or a search beyond
            ``MAX_REACH_POSITIONS`` positions.
    """
    world = state.machine.world
    if arguments.name(destination, "a place") not in world.place:
        raise UnknownIdError(f"no place {destination!r}{_nearest(destination, world.place)}")
    search = _Search(state, piece, kind, cost, player)
    found = search.run(destination)
    if found is not None:
        spent, path = found
        return Reach(piece, destination, search.kind, path, spent, None, search.best)
    # Unreachable: why the step in is refused from the cheapest neighbour reached.
    return Reach(piece, destination, search.kind, (), None,
                 _refused_step(state, piece, destination, search.kind, search.best, cost,
                               player), search.best)


@attrs.frozen
class Route:
    """The cheapest way found to one place: its cost and its steps, each with its trail."""

    place: str
    cost: int
    steps: tuple[Step, ...]

    @property
    def actions(self) -> tuple[str, ...]:
        """The actions of the route, in order."""
        return tuple(step.action for step in self.steps)

    def as_dict(self) -> dict[str, Any]:
        """The route as plain data."""
        return {"place": self.place, "cost": self.cost,
                "steps": [step.as_dict() for step in self.steps]}


def reachable(state: GameState, piece: str, *, kind: str | None = None,
              cost: str | None = None, player: str | None = None) -> dict[str, Route]:
    """Every place ``piece`` can reach from here with actions of one kind, and how.

    The same search as ``reach()``, run to the end: for each place reached,
    the cheapest cost and the steps to it (the piece's own place costs 0 and
    takes no step). A front end highlights these places; ``move_to()``
    takes a piece to one of them.

    Raises:
        CortesRulesError: as ``reach()``.
    """
    search = _Search(state, piece, kind, cost, player)
    search.run(None)
    return {place: Route(place, search.best[place], path)
            for place, path in search.paths.items()}


def move_to(state: GameState, piece: str, destination: str, *, kind: str | None = None,
            cost: str | None = None, player: str | None = None) -> Route:
    """Take ``piece`` to ``destination`` by the cheapest route, as one action of the
    player's: every step is applied to ``state`` in turn, or none if the place
    cannot be reached (the error then says why the last step is refused).

    Raises:
        CortesRulesError: the destination cannot be reached (with the rule
            that refuses the step in), or as ``reach()``.
    """
    found = reach(state, piece, destination, kind=kind, cost=cost, player=player)
    if not found.reachable:
        raise CortesRulesError(str(found).splitlines()[0] + (
            f": {found.refusal}" if found.refusal is not None else ""))
    for step in found.steps:
        state.apply(step.action)
    return Route(destination, found.cost or 0, found.steps)


class _Search:
    """Dijkstra's search over the positions reached by one piece's steps of one kind."""

    def __init__(self, state: GameState, piece: str, kind: str | None, cost: str | None,
                 player: str | None) -> None:
        world = state.machine.world
        arguments.optional_name(kind, "an action kind")
        arguments.optional_name(cost, "a cost attribute")
        if arguments.name(piece, "a piece") not in world.piece:
            raise UnknownIdError(f"no piece {piece!r}{_nearest(piece, world.piece)}")
        if player is not None:
            _check_view(state, player)
        self.state, self.piece, self.cost, self.player = state, piece, cost, player
        self.places = world.place
        self.start_cost = _cost_of(state, piece, cost)
        self.first = self.steps_of(state, kind)
        if kind is None:
            if not self.first:
                raise CortesRulesError(f"no legal action here moves {piece} to a place; name "
                                       f"the kind of action to learn why a step is refused")
            kind = self.first[0].kind
            self.first = [a for a in self.first if a.kind == kind]
        self.kind: str = kind
        here = state.place_of(piece) or ""
        self.best: dict[str, int] = {here: 0}
        self.paths: dict[str, tuple[Step, ...]] = {here: ()}

    def steps_of(self, s: GameState, kind: str | None) -> list[Action]:
        if s.terminal or s.is_chance_node():
            return []
        return [a for a in s.legal_actions() if len(a.args) >= 2 and a.args[0] == self.piece
                and a.args[1] in self.places and (kind is None or a.kind == kind)]

    def run(self, destination: str | None) -> tuple[int, tuple[Step, ...]] | None:
        """Search until ``destination`` is taken off the frontier (its cost and steps), or
        to the end (None)."""
        state, piece, kind = self.state, self.piece, self.kind
        best, paths = self.best, self.paths
        frontier: list[tuple[int, int, GameState, tuple[Step, ...]]] = [(0, 0, state, ())]
        counter = visited = 0
        while frontier:
            spent, _, here, path = heapq.heappop(frontier)
            place = here.place_of(piece) or ""
            if place == destination:
                return spent, path
            if best.get(place, spent) < spent:
                continue
            for action in (self.first if here is state else self.steps_of(here, kind)):
                visited += 1
                if visited > MAX_REACH_POSITIONS:
                    raise CortesRulesError(f"the search for a way there visited more than "
                                           f"{MAX_REACH_POSITIONS} positions")
                after = here.clone()
                after.apply(action)
                to = after.place_of(piece) or ""
                price = _cost_of(after, piece, self.cost) - self.start_cost
                if best.get(to, price + 1) <= price:
                    continue
                best[to] = price
                counter += 1
                step = Step(str(action), here.current_player, _lines(after.trail(), self.player))
                paths[to] = (*path, step)
                heapq.heappush(frontier, (price, counter, after, (*path, step)))
        return None


def _cost_of(state: GameState, piece: str, cost: str | None) -> int:
    if cost is None:
        return len(state.history)
    value = state.attribute(piece, cost)
    if isinstance(value, bool) or not isinstance(value, int):
        raise CortesRulesError(f"the cost attribute {cost!r} of {piece} is not a number")
    return value


def _refused_step(state: GameState, piece: str, destination: str, kind: str,
                  best: dict[str, int], cost: str | None, player: str | None
                  ) -> Refusal | None:
    """From the cheapest reached place next to the destination: why the step in is refused."""
    goal = state.machine.world.place[destination]
    world = state.machine.world
    for place, _ in sorted(best.items(), key=lambda item: (item[1], item[0])):
        if world.place[place] not in goal.neighbours:
            continue
        game = state.clone()
        if game.place_of(piece) != place:
            found = reach(game, piece, place, kind=kind, cost=cost)
            for step in found.steps:
                game.apply(step.action)
        text = f"{kind} {piece} {destination}"
        reasons = game.why_illegal(text)
        if reasons:
            return Refusal(len(game.history) - len(state.history), text,
                           game.current_player, tuple(reasons))
    return None
