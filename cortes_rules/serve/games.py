"""Games kept in the server's memory, and what each player may be shown of them.

Everything here goes through the public API (``cortes_rules``,
``cortes_rules.record``, ``cortes_rules.picture``). A player's view is built
from ``observation(player)``, ``trail(ply, player)``, ``why_illegal(...,
player=...)`` and ``render_svg(..., viewer=player)``: nothing a player's
observation does not show leaves the server in his view.
"""

from __future__ import annotations

import secrets
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import CHANCE, Action, CortesRulesError, GameState, Observation, Rulebook, load
from ..picture import render_svg
from ..record import (apply_recorded, default_rulebook, format_record, parse_record,
                      replay)

HOTSEAT, SEATS = "hotseat", "seats"
MODES = (HOTSEAT, SEATS)
TRAIL_PLIES = 12
"""How many of the last actions the view gives the rule trail of."""
LOG_LINES = 40


class ServeError(CortesRulesError):
    """A request the server refuses; ``status`` is its HTTP status."""

    def __init__(self, message: str, status: int = 400,
                 rules: tuple[str, ...] = ()) -> None:
        super().__init__(message)
        self.status = status
        self.rules = rules


@dataclass
class Game:
    """One game: its state, who took each of its actions, and how it is played."""

    id: str
    book: Rulebook
    state: GameState
    mode: str = HOTSEAT
    cost: str | None = None
    forecast: str | None = None
    actors: list[str] = field(default_factory=list)


@dataclass
class Settings:
    """What new games start with (the command line's options)."""

    rulebook: str | None = None
    """None: the default rulebook."""
    options: tuple[str, ...] = ()
    setup: str | None = None
    cost: str | None = None
    forecast: str | None = None
    """An expression of the rules language giving a distribution (the exact
    chance of each result of what the player is about to decide), shown
    whenever it has a value."""


class Games:
    """The games of one server process, by id."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.games: dict[str, Game] = {}
        self._books: dict[tuple[str, tuple[str, ...]], Rulebook] = {}

    def book(self, name: str, options: tuple[str, ...]) -> Rulebook:
        """A rulebook, loaded once per name and options."""
        key = (name, options)
        if key not in self._books:
            self._books[key] = load(name, options=options)
        return self._books[key]

    def get(self, game_id: str) -> Game:
        """The game of that id (ServeError 404 when there is none)."""
        game = self.games.get(game_id)
        if game is None:
            raise ServeError(f"no game {game_id!r}", 404)
        return game

    def new(self, *, seed: int = 0, setup: str | None = None, options: str | None = None,
            mode: str = HOTSEAT) -> Game:
        """Start a game of the server's rulebook."""
        if mode not in MODES:
            raise ServeError(f"no mode {mode!r} (modes: {', '.join(MODES)})")
        if isinstance(seed, bool) or not isinstance(seed, int):
            raise ServeError(f"a seed is a whole number, not {seed!r}")
        chosen = tuple(options.split()) if options else self.settings.options
        book = self.book(self.settings.rulebook or default_rulebook(), chosen)
        setup = setup or self.settings.setup
        if setup is None and book.setups:
            setup = book.setups[-1]
        state = book.new_game(seed=seed, setup=setup)
        return self._add(book, state, mode, [])

    def load(self, text: str, mode: str = HOTSEAT) -> Game:
        """A game read from a record's text, played to its end."""
        if mode not in MODES:
            raise ServeError(f"no mode {mode!r} (modes: {', '.join(MODES)})")
        if not isinstance(text, str) or not text.strip():
            raise ServeError("the record is empty")
        record = parse_record(text, "<uploaded record>")
        state, actors = _replayed(record, len(record.actions))
        book = self.book(record.rulebook, tuple(record.options))
        return self._add(book, state, mode, actors)

    def _add(self, book: Rulebook, state: GameState, mode: str, actors: list[str]) -> Game:
        game = Game(secrets.token_hex(6), book, state, mode, self.settings.cost,
                    self.settings.forecast, actors)
        self.games[game.id] = game
        return game


def _replayed(record: Any, plies: int) -> tuple[GameState, list[str]]:
    """The state after a record's first ``plies`` actions, and who took each."""
    state = replay(record, to_ply=0)
    actors: list[str] = []
    for _, action in record.actions[:plies]:
        actors.append(state.current_player or "")
        apply_recorded(state, action)
    return state, actors


def _undo(game: Game, player: str) -> None:
    """Take back the last decision of ``player`` and everything after it
    (``GameState.undo()``, one action at a time; the dice rolled before that
    decision stay as they fell)."""
    last = max((i for i, who in enumerate(game.actors) if who == player), default=None)
    if last is None:
        raise ServeError(f"{player} has no decision to take back", 409)
    state = game.state
    if state.undo_depth < len(game.actors) - last:
        # A game loaded from a record keeps no undo stack beyond what it replayed.
        record = parse_record(format_record(state), "<game>")
        game.state, game.actors = _replayed(record, last)
        return
    while len(game.actors) > last:
        state.undo()
        game.actors.pop()


def _check_player(game: Game, player: str | None) -> str:
    if not player or player not in game.book.players:
        raise ServeError(f"no player {player!r} (players: {', '.join(game.book.players)})")
    return player


def deciding(game: Game) -> str:
    """Whose screen a hot-seat game shows: who is to act, or at a chance node
    (or once the game is over) whoever decided last."""
    who = game.state.current_player
    if who is not None and who != CHANCE:
        return who
    for actor in reversed(game.actors):
        if actor in game.book.players:
            return actor
    return game.book.players[0]


def act(game: Game, player: str | None, text: Any) -> None:
    """Apply an action of ``player`` (its text or its id), or roll the dice (``"roll"``)."""
    player = _check_player(game, player)
    state = game.state
    if state.is_terminal():
        raise ServeError("the game is over", 409)
    if state.is_chance_node():
        if text != "roll":
            raise ServeError("the dice are to be rolled first", 409)
        game.actors.append(CHANCE)
        state.apply_chance()
        return
    if state.current_player != player:
        raise ServeError(f"it is {state.current_player}'s decision, not {player}'s", 409)
    if isinstance(text, bool) or not isinstance(text, (str, int)):
        raise ServeError("an action is its text or its number")
    legal = state.legal_actions()
    wanted = _legal_match(game, legal, text)
    if wanted is None:
        reasons = state.why_illegal(text, player=player) if isinstance(text, str) else []
        rules = tuple(rule for rule, _ in reasons if rule)
        said = "; ".join(f"[{rule}] {why}" if rule else why for rule, why in reasons)
        raise ServeError(f"illegal: {text}" + (f": {said}" if said else ""), 422, rules)
    game.actors.append(player)
    state.apply(wanted)


def _legal_match(game: Game, legal: list[Action], text: str | int) -> Action | None:
    if isinstance(text, int):
        return next((a for a in legal if game.book.action_id(a) == text), None)
    return next((a for a in legal if str(a) == text.strip()), None)


def move(game: Game, player: str | None, piece: Any, place: Any) -> None:
    """Take ``piece`` to ``place`` by its cheapest route (``GameState.move_to``)."""
    player = _check_player(game, player)
    state = game.state
    if state.is_terminal() or state.current_player != player:
        raise ServeError(f"it is not {player}'s decision", 409)
    if not isinstance(piece, str) or piece not in state.observation(player)["pieces"]:
        raise ServeError(f"{player} sees no piece {piece!r}", 422)
    if not isinstance(place, str):
        raise ServeError("a place is its id")
    before = len(state.history)
    try:
        state.move_to(piece, place, cost=game.cost)
    except CortesRulesError:
        raise ServeError(f"{piece} cannot reach {place} here", 422) from None
    game.actors.extend([player] * (len(state.history) - before))


def reachable(game: Game, player: str | None, piece: Any) -> dict[str, int]:
    """The places a piece of ``player`` can reach now, with their costs."""
    player = _check_player(game, player)
    state = game.state
    if state.is_terminal() or state.current_player != player:
        return {}
    if not isinstance(piece, str) or piece not in state.observation(player)["pieces"]:
        raise ServeError(f"{player} sees no piece {piece!r}", 422)
    try:
        routes = state.reachable(piece, cost=game.cost)
    except CortesRulesError:
        return {}
    return {place: int(way.cost) for place, way in routes.items()}


def record_text(game: Game, player: str | None) -> str:
    """The game's record: a player's view of it, or the full record (hot seat,
    or once the game is over)."""
    if player is None:
        if game.mode != HOTSEAT and not game.state.is_terminal():
            raise ServeError("the full record is given in hot-seat games and once the game "
                             "is over; ask for a player's view", 403)
        return format_record(game.state)
    return format_record(game.state, player=_check_player(game, player))


def view(game: Game, player: str | None, highlight: dict[str, int] | None = None
         ) -> dict[str, Any]:
    """Everything one player's page shows, as that player may see it."""
    player = _check_player(game, player)
    state = game.state
    seen = state.observation(player)
    to_act = state.current_player
    actions = [{"id": game.book.action_id(a), "text": str(a), "kind": a.kind,
                "args": [str(x) for x in a.args]}
               for a in (state.legal_actions() if to_act == player else [])]
    outcome = state.outcome()
    return {
        "game": game.id, "player": player, "players": list(game.book.players),
        "mode": game.mode, "title": game.book.title, "turn": state.turn,
        "phase": state.phase_label, "to_act": to_act, "deciding": deciding(game),
        "chance": state.is_chance_node(), "terminal": state.is_terminal(),
        "outcome": str(outcome) if outcome is not None else None,
        "actions": actions,
        "pieces": {pid: seen["pieces"][pid]["place"] for pid in seen["pieces"]},
        "hidden": seen["hidden"],
        "log": seen["log"][-LOG_LINES:],
        "trail": _trails(game, player),
        "dice": _dice(game),
        "forecast": _forecast(game, player, seen) if actions else None,
        "plies": len(game.actors),
        "svg": render_svg(state, viewer=player, highlight=highlight or {}),
    }


def _trails(game: Game, player: str) -> list[dict[str, Any]]:
    """The rule trails of the last actions as ``player`` may read them; the
    action's own text only for his actions and the dice."""
    state = game.state
    history = state.history
    out = []
    for ply in range(max(0, len(history) - TRAIL_PLIES), len(history)):
        who = game.actors[ply] if ply < len(game.actors) else ""
        shown = str(history[ply]) if who in (player, CHANCE) else None
        lines = [{"text": e.text, "rules": list(e.rules)} for e in state.trail(ply, player)]
        out.append({"ply": ply, "by": who, "action": shown, "lines": lines})
    return out


def _dice(game: Game) -> list[str]:
    """The last dice results and draws (public: every player sees the dice)."""
    history = game.state.history
    return [str(a) for a in history[-TRAIL_PLIES:] if a.is_chance]


def _forecast(game: Game, player: str, seen: Observation) -> dict[str, Any] | None:
    """The exact chance of each result of the forecast expression, when it has a
    value here; withheld while a place that the player's current run of
    decisions names holds pieces hidden from him (it would tell what they are)."""
    state = game.state
    if game.forecast is None:
        return None
    history = state.history
    named: set[str] = set()
    for ply in range(len(history) - 1, -1, -1):
        if ply >= len(game.actors) or game.actors[ply] != player:
            break
        named.update(str(x) for x in history[ply].args)
    if any(seen["hidden"].get(place) for place in named):
        return {"note": "pieces hidden from you are involved: no forecast", "results": []}
    try:
        chances = state.evaluate(game.forecast)
    except CortesRulesError:
        return None
    if not isinstance(chances, dict) or not chances:
        return None
    results = []
    for result, chance in sorted(chances.items(), key=lambda kv: str(kv[0])):
        label = "/".join(str(x) for x in result) if isinstance(result, tuple) else str(result)
        value = Fraction(chance)
        results.append({"result": label, "exact": str(value), "percent": float(value) * 100})
    return {"note": f"exact chance of each result ({game.forecast})", "results": results}
