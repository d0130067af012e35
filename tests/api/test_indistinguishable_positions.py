"""What a player is told depends on what he may know, and on nothing hidden from him.

Two positions that differ only in what is hidden from a player P (a hidden
unit moved to where another hidden unit was, an attribute of a hidden unit
changed) are the same to him: his observation and his information state
are equal. Then every answer he may receive must be equal too: the legal
actions of his decision, ``why_illegal(action, player=P)`` for actions
that name the hidden units and the places around them, the errors of the
actions he tries, ``explain`` and ``reachable`` asked in his view, and the
rule trails he reads, as the two positions are played on with the same
actions for as long as he cannot tell them apart. Else asking questions
would be an oracle on hidden pieces (issue 47: "move A2 2709" against
"move A2 3011" told the Spanish player where a unit under an Aztec stack
stood and where it might go).

Checked on both backends, for Cortés's hidden stacks (8.8, veteran) and
for Grands Stratèges's screened deployment (scenario I) and face-down units
(scenario X).
"""

from __future__ import annotations

import os
import random
import re
from functools import cache
from typing import Any

import pytest
from hypothesis import HealthCheck, assume, given, settings
from hypothesis import strategies as st

import cortes_rules
from cortes_rules import GameState
from cortes_rules.errors import BackendError, CortesRulesError

SCALE = int(os.environ.get("PROPERTY_SCALE", "1"))

GAMES = [
    pytest.param("cortes", "veteran", None, "historical", 300, "spanish",
                 id="cortes-8.8-hidden-stacks"),
    pytest.param("grands_strateges", "", "I", None, 12, None,
                 id="grands-strateges-I-screened-deployment"),
    pytest.param("grands_strateges", "", "X", None, 120, None,
                 id="grands-strateges-X-face-down"),
]
BACKENDS = ["python", "compiled"]

_TOKEN = re.compile(r"[^\s(]+(?:\([^)]*\))?")


@cache
def _book(name: str, options: str, scenario: str | None, backend: str) -> cortes_rules.Rulebook:
    try:
        return cortes_rules.load(name, options=options or (), scenario=scenario,
                                 backend=backend)
    except BackendError:
        pytest.skip("the compiled core is not built")


def _step(state: GameState, rng: random.Random) -> None:
    if state.is_chance_node():
        state.apply_chance()
    else:
        ids = state.legal_action_ids()
        state.apply(ids[rng.randrange(len(ids))])


def _hidden(state: GameState, player: str) -> list[str]:
    viewer = state.machine.world.player[player]
    return [p.id for p in state.machine.world.pieces if state.hidden_from(p, viewer)]


def _placements(text: str) -> dict[str, tuple[int, str]]:
    """Each placed piece of a position's text: (its line, its token)."""
    found = {}
    for number, line in enumerate(text.splitlines()):
        if line.startswith("at "):
            for token in _TOKEN.findall(line.split(":", 1)[1]):
                found[token.split("(")[0]] = (number, token)
    return found


def _swapped(text: str, a: str, b: str) -> str | None:
    """The position with the hidden pieces ``a`` and ``b`` in each other's places, with
    their attributes (one may be off the board: the other then leaves it)."""
    placed = _placements(text)
    if a not in placed and b not in placed:
        return None
    lines = text.splitlines()
    line_a, token_a = placed.get(a, (None, ""))
    line_b, token_b = placed.get(b, (None, ""))
    if line_a == line_b:
        return None
    # Tokens hold the piece's attributes; an off-board piece has none written.
    for line, old, new in ((line_a, token_a, token_b or b), (line_b, token_b, token_a or a)):
        if line is None:
            continue
        head, rest = lines[line].split(":", 1)
        tokens = [new if t == old else t for t in _TOKEN.findall(rest)]
        lines[line] = f"{head}: " + " ".join(tokens)
    return "\n".join(lines) + "\n"


def _twins(book: cortes_rules.Rulebook, state: GameState, player: str,
           rng: random.Random) -> tuple[GameState, GameState, list[str]] | None:
    """Two positions ``player`` cannot tell apart, built from ``state`` by moving or
    changing only pieces hidden from him, and the hidden pieces changed."""
    text = state.to_notation()
    first = book.position(text)
    seen = first.information_state(player)
    hidden = _hidden(first, player)
    if not hidden:
        return None
    tries = [(a, b) for a in hidden for b in hidden if a < b]
    rng.shuffle(tries)
    for a, b in tries[:40]:
        edited = _swapped(text, a, b)
        if edited is None:
            continue
        try:
            twin = book.position(edited)
        except CortesRulesError:
            continue
        if twin.information_state(player) == seen and twin.to_notation() != first.to_notation():
            return first, twin, [a, b]
    # No swap keeps the positions alike to him: change an attribute of a hidden piece.
    for piece in rng.sample(hidden, min(len(hidden), 10)):
        twin = book.position(text)
        for name in ("moved", "spent", "steps"):
            value = twin.attribute(piece, name) if name in twin.piece_attrs else None
            if isinstance(value, int) and not isinstance(value, bool) and value > 0:
                twin.set_attribute(piece, name, value - 1)
                if twin.information_state(player) == seen:
                    return first, twin, [piece]
                twin = book.position(text)
    return None


def _questions(state: GameState, twin: GameState, pieces: list[str], player: str,
               rng: random.Random) -> list[str]:
    """Actions to ask about: every action naming a changed piece and a place in or
    around where it is in either position, the player's own, and some at random."""
    world = state.machine.world
    kinds = state.machine.space.kinds
    places: set[str] = set()
    for s in (state, twin):
        for piece in pieces:
            at = s.place_of(piece)
            if at is not None:
                places.add(at)
                places.update(p.id for p in world.place[at].neighbours)
    asked: list[str] = []
    for kind in kinds.values():
        types = [t for _, t in kind.params]
        if types in (["piece", "hex"], ["piece", "place"]):
            asked += [f"{kind.name} {x} {h}" for x in pieces for h in sorted(places)]
        elif types == ["piece"]:
            asked += [f"{kind.name} {x}" for x in pieces]
        elif types in (["hex"], ["place"]):
            asked += [f"{kind.name} {h}" for h in sorted(places)]
        elif not types:
            asked.append(kind.name)
    own = [str(a) for a in state.legal_actions()] if state.current_player == player else []
    asked += rng.sample(own, min(len(own), 15))
    size = state.machine.space.size
    asked += [str(state.machine.space.action(rng.randrange(size))) for _ in range(15)]
    asked += ["fly away", f"move {pieces[0]}"]
    return list(dict.fromkeys(asked))


def _outcome(call: Any) -> Any:
    """What a call answers, or the error it raises as its class and message."""
    try:
        return call()
    except CortesRulesError as error:
        return f"{type(error).__name__}: {error}"


def _tried(state: GameState, action: str) -> Any:
    trial = state.clone()
    try:
        trial.apply(action)
    except CortesRulesError as error:
        return f"{type(error).__name__}: {error}"
    return "legal"


def _answers(state: GameState, player: str, questions: list[str]) -> dict[str, Any]:
    """Everything ``player`` may be told here, about these questions."""
    decides = state.current_player == player
    mine = [p for p in state.observation(player)["pieces"]][:3]
    return {
        "to act": state.current_player,
        "legal": [str(a) for a in state.legal_actions()] if decides else None,
        "why": {q: [(*reason, getattr(reason, "fact", ""), getattr(reason, "clause", ""))
                    for reason in state.why_illegal(q, player=player)] for q in questions},
        "tried": {q: _tried(state, q) for q in questions} if decides else None,
        "explain": {q: _outcome(lambda q=q: str(state.explain(q, player=player)))
                    for q in questions[:3]},
        "reachable": {p: _outcome(lambda p=p: {place: route.as_dict() for place, route in
                                               state.reachable(p, player=player).items()})
                      for p in mine},
        "trail": ([str(line) for line in state.trail(-1, player)] if state.history else []),
        "seen": state.information_state(player),
    }


@pytest.mark.rule("8.8")
@pytest.mark.rule("I.1", rulebook="grands_strateges")
@pytest.mark.parametrize("backend", BACKENDS)
@pytest.mark.parametrize(("name", "options", "scenario", "setup", "depth", "only"), GAMES)
@settings(max_examples=6 * SCALE, deadline=None,
          suppress_health_check=[HealthCheck.too_slow, HealthCheck.filter_too_much])
@given(seed=st.integers(0, 2**16), played=st.integers(0, 10**6), later=st.integers(0, 3),
       his=st.booleans())
def test_positions_a_player_cannot_tell_apart_give_him_the_same_answers(
        name: str, options: str, scenario: str | None, setup: str | None, depth: int,
        only: str | None, backend: str, seed: int, played: int, later: int,
        his: bool) -> None:
    book = _book(name, options, scenario, backend)
    rng = random.Random(seed)
    state = book.new_game(seed=seed, setup=setup)
    players = [only] if only else list(book.players)
    player = players[seed % len(players)]
    for _ in range(played % depth):
        if state.is_terminal():
            break
        _step(state, rng)
    # Asked at his own decision, or at another player's.
    for _ in range(depth):
        if state.is_terminal() or (state.current_player == player) == his:
            break
        _step(state, rng)
    assume(not state.is_terminal())
    made = _twins(book, state, player, rng)
    assume(made is not None)
    assert made is not None
    first, twin, changed = made
    questions = _questions(first, twin, changed, player, rng)
    # Played on alike: the same actions, for as long as he cannot tell them apart.
    for _ in range(later + 1):
        assert _answers(first, player, questions) == _answers(twin, player, questions), (
            seed, played, changed)
        if first.is_terminal() or twin.is_terminal():
            break
        if first.is_chance_node() and twin.is_chance_node():
            first.apply_chance()
            twin.apply_chance()
        else:
            common = sorted(set(first.legal_action_ids()) & set(twin.legal_action_ids()))
            if not common:
                break
            number = common[rng.randrange(len(common))]
            first.apply(number)
            twin.apply(number)
        if first.information_state(player) != twin.information_state(player):
            break
