"""Games kept in the server's memory, and what each player may be shown of them.

Everything here goes through the public API (``cortes_rules``,
``cortes_rules.record``, ``cortes_rules.picture``), and everything a player
is sent is built from his information state: his ``observation(player)``,
``trail(ply, player)``, ``why_illegal(..., player=player)``,
``reachable(..., player=player)``, his view of the record
(``format_record(state, player=...)``) and ``render_svg(..., viewer=player)``.
In a game played one browser per player, a request speaks for the seat
whose token it carries (``.seats``).
"""

from __future__ import annotations

import secrets
from collections import OrderedDict
from dataclasses import dataclass, field
from fractions import Fraction
from typing import Any

from .. import CHANCE, Action, CortesRulesError, GameState, Observation, Rulebook, load
from ..picture import render_svg
from ..record import (apply_recorded, book_of, default_rulebook, format_record,
                      parse_record, replay)
from .patches import Pictures
from .seats import Seats
from .shapes import ServeError, shown

__all__ = ["HOTSEAT", "MODES", "SEATS", "Game", "Games", "ServeError", "Settings", "act",
           "deciding", "move", "reachable", "record_text", "seat_of", "undo", "view"]

HOTSEAT, SEATS = "hotseat", "seats"
MODES = (HOTSEAT, SEATS)
TRAIL_PLIES = 12
"""How many of the last actions the view gives the rule trail of."""
LOG_LINES = 40
HIDDEN_ROUTES = ("pieces are hidden from you: the map shades only the places one step away "
                 "(a longer route would tell what they are)")
BOOKS_KEPT = 6
"""Rulebooks (one per set of options) a server keeps compiled."""


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
    seats: Seats | None = None
    """The seats and their tokens' digests (None in a hot-seat game)."""
    pictures: Pictures = field(default_factory=Pictures)
    piece_ids: frozenset[str] = frozenset()
    place_ids: frozenset[str] = frozenset()


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


def _options(given: str | list[str] | None) -> tuple[str, ...] | None:
    """Load options as a request gives them: one text (separated by commas or
    spaces) or a list of texts; None when none are given."""
    if not given:
        return None
    words = given.replace(",", " ").split() if isinstance(given, str) else \
        [w for item in given for w in item.replace(",", " ").split()]
    return tuple(sorted(set(words))) or None


class Games:
    """The games of one server process, by id."""

    def __init__(self, settings: Settings) -> None:
        self.settings = settings
        self.games: dict[str, Game] = {}
        self._books: OrderedDict[tuple[str, tuple[str, ...]], Rulebook] = OrderedDict()

    def book(self, name: str, options: tuple[str, ...]) -> Rulebook:
        """A rulebook, loaded once per name and options (the last few kept)."""
        key = (name, options)
        if key not in self._books:
            self._books[key] = load(name, options=options)
            while len(self._books) > BOOKS_KEPT:
                self._books.popitem(last=False)
        self._books.move_to_end(key)
        return self._books[key]

    def get(self, game_id: str) -> Game:
        """The game of that id (ServeError 404 when there is none)."""
        game = self.games.get(game_id)
        if game is None:
            raise ServeError(f"no game {shown(game_id)}", 404)
        return game

    def new(self, *, seed: int = 0, setup: str | None = None,
            options: str | list[str] | None = None, mode: str = HOTSEAT,
            seat: str | None = None) -> tuple[Game, str | None]:
        """Start a game of the server's rulebook: the game, and in a seat game
        the token of the asker's seat (``seat``, by default the first player's)."""
        _check_mode(mode)
        chosen = _options(options) or self.settings.options
        book = self.book(self.settings.rulebook or default_rulebook(), chosen)
        setup = setup or self.settings.setup
        if setup is None and book.setups:
            setup = book.setups[-1]
        _check_seat(book, mode, seat)
        state = book.new_game(seed=seed, setup=setup)
        return self._add(book, state, mode, [], seat)

    def load(self, text: str, mode: str = HOTSEAT, seat: str | None = None
             ) -> tuple[Game, str | None]:
        """A game read from a record's text, played to its end (as ``new``)."""
        _check_mode(mode)
        if not text.strip():
            raise ServeError("the record is empty")
        record = parse_record(text, "<uploaded record>")
        book = book_of(record)
        _check_seat(book, mode, seat)
        state, actors = _replayed(record, book, len(record.actions))
        return self._add(book, state, mode, actors, seat)

    def _add(self, book: Rulebook, state: GameState, mode: str, actors: list[str],
             seat: str | None) -> tuple[Game, str | None]:
        game = Game(secrets.token_hex(8), book, state, mode, self.settings.cost,
                    self.settings.forecast, actors,
                    seats=Seats(book.players) if mode == SEATS else None,
                    piece_ids=frozenset(book.piece_ids), place_ids=frozenset(book.place_ids))
        token = game.seats.take(seat or book.players[0]) if game.seats else None
        self.games[game.id] = game
        return game, token


def _check_mode(mode: str) -> None:
    if mode not in MODES:
        raise ServeError(f"no mode {shown(mode)} (modes: {', '.join(MODES)})")


def _check_seat(book: Rulebook, mode: str, seat: str | None) -> None:
    if seat is None:
        return
    if mode != SEATS:
        raise ServeError("a hot-seat game has no seats to take")
    if seat not in book.players:
        raise ServeError(f"no seat {shown(seat)} (seats: {', '.join(book.players)})")


def _replayed(record: Any, book: Rulebook, plies: int) -> tuple[GameState, list[str]]:
    """The state after a record's first ``plies`` actions, and who took each."""
    state = replay(record, book, to_ply=0)
    actors: list[str] = []
    for _, action in record.actions[:plies]:
        actors.append(state.current_player or "")
        apply_recorded(state, action)
    return state, actors


def seat_of(game: Game, token: str | None, player: str | None) -> str:
    """The player a request speaks for.

    In a hot-seat game, the ``player`` it names. In a seat game, the seat
    whose token it carries; a ``player`` it names must be that seat.

    Raises:
        ServeError: no such player (400); in a seat game, no token, the token
            of no seat, or another seat's token (403).
    """
    if game.seats is None:
        return _check_player(game, player)
    holder = game.seats.holder(token)
    if player is not None and player != holder:
        raise ServeError(f"this request is for {shown(player)}, and its token is not "
                         f"that seat's", 403)
    return holder


def join(game: Game, player: str) -> str:
    """Take a free seat of a seat game: its token."""
    if game.seats is None:
        raise ServeError("a hot-seat game has no seats to take")
    return game.seats.take(player)


def undo(game: Game, player: str) -> None:
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
        game.state, game.actors = _replayed(record, game.book, last)
        return
    while len(game.actors) > last:
        state.undo()
        game.actors.pop()


def _check_player(game: Game, player: str | None) -> str:
    if not player or player not in game.book.players:
        raise ServeError(f"no player {shown(player)} (players: "
                         f"{', '.join(game.book.players)})")
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


def act(game: Game, player: str, text: str | int) -> None:
    """Apply an action of ``player`` (its text or its id), or roll the dice (``"roll"``)."""
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
    legal = state.legal_actions()
    wanted = _legal_match(game, legal, text)
    if wanted is None:
        reasons = state.why_illegal(text, player=player) if isinstance(text, str) else []
        rules = tuple(rule for rule, _ in reasons if rule)
        said = "; ".join(f"[{rule}] {why}" if rule else why for rule, why in reasons)
        named = text if isinstance(text, int) or (len(text) <= 80 and text.isprintable()) \
            else shown(text)
        raise ServeError(f"illegal: {named}" + (f": {said}" if said else ""), 422, rules)
    game.actors.append(player)
    state.apply(wanted)


def _legal_match(game: Game, legal: list[Action], text: str | int) -> Action | None:
    if isinstance(text, int):
        return next((a for a in legal if game.book.action_id(a) == text), None)
    return next((a for a in legal if str(a) == text.strip()), None)


def move(game: Game, player: str, piece: str, place: str) -> None:
    """Take ``piece`` to ``place`` by its cheapest route (``GameState.move_to``, in
    the player's view: refused while pieces are hidden from him)."""
    state = game.state
    if state.is_terminal() or state.current_player != player:
        raise ServeError(f"it is not {player}'s decision", 409)
    if piece not in state.observation(player)["pieces"]:
        raise ServeError(f"{player} sees no piece {shown(piece)}", 422)
    if place not in game.place_ids:
        raise ServeError(f"no place {shown(place)}", 422)
    before = len(state.history)
    try:
        state.move_to(piece, place, cost=game.cost, player=player)
    except CortesRulesError as error:
        reason = str(error).splitlines()[0] if str(error) else "it cannot get there"
        raise ServeError(f"{piece} cannot be taken to {place} here: {reason}", 422) from None
    game.actors.extend([player] * (len(state.history) - before))


def reachable(game: Game, player: str, piece: str) -> dict[str, int]:
    """The places a piece of ``player`` can reach now, with their costs, in his
    view (``GameState.reachable(..., player=player)``; nothing while pieces are
    hidden from him: the routes would tell where they are)."""
    return _reach(game, player, piece)[0]


def _reach(game: Game, player: str, piece: str) -> tuple[dict[str, int], str | None]:
    """The reachable places, and why there are none when the search was refused."""
    state = game.state
    seen = state.observation(player)
    if piece not in seen["pieces"]:
        raise ServeError(f"{player} sees no piece {shown(piece)}", 422)
    if state.is_terminal() or state.current_player != player:
        return {}, None
    try:
        routes = state.reachable(piece, cost=game.cost, player=player)
    except CortesRulesError as error:
        if seen["hidden"]:
            return {}, HIDDEN_ROUTES
        return {}, str(error).splitlines()[0] if str(error) else None
    return {place: int(way.cost) for place, way in routes.items()}, None


def record_text(game: Game, player: str | None) -> str:
    """The game's record: a player's view of it, or the full record (hot seat,
    or once the game is over)."""
    if player is None:
        if game.mode != HOTSEAT and not game.state.is_terminal():
            raise ServeError("the full record is given in hot-seat games and once the game "
                             "is over; ask for a player's view", 403)
        return format_record(game.state)
    return format_record(game.state, player=_check_player(game, player))


def _action(game: Game, action: Action) -> dict[str, Any]:
    """An action as the page offers it, with the pieces and places it names."""
    args = [str(x) for x in action.args]
    return {"id": game.book.action_id(action), "text": str(action), "kind": action.kind,
            "args": args, "pieces": [a for a in args if a in game.piece_ids],
            "places": [a for a in args if a in game.place_ids]}


def view(game: Game, player: str, *, unit: str | None = None, kind: str | None = None,
         since: str | None = None) -> dict[str, Any]:
    """Everything one player's page shows, as that player may see it.

    ``unit`` (a piece he sees) or ``kind`` (an action kind) selects what the
    map shades: the places the piece can reach, with their costs, and those
    its actions name; or the places that the actions of that kind name.
    ``since`` names the picture the page holds: the answer then patches it.
    """
    state = game.state
    seen = state.observation(player)
    to_act = state.current_player
    actions = [_action(game, a) for a in (state.legal_actions() if to_act == player else [])]
    selected, shade = _selection(game, player, actions, unit, kind)
    outcome = state.outcome()
    svg = render_svg(state, viewer=player, highlight=shade)
    return {
        "game": game.id, "player": player, "players": list(game.book.players),
        "mode": game.mode, "title": game.book.title, "turn": state.turn,
        "phase": state.phase_label, "to_act": to_act, "deciding": deciding(game),
        "chance": state.is_chance_node(), "terminal": state.is_terminal(),
        "outcome": str(outcome) if outcome is not None else None,
        "actions": actions,
        "selected": selected,
        "pieces": {pid: seen["pieces"][pid]["place"] for pid in seen["pieces"]},
        "mine": [pid for pid in seen["pieces"] if state.attribute(pid, "side") == player],
        "hidden": seen["hidden"],
        "log": seen["log"][-LOG_LINES:],
        "trail": _trails(game, player),
        "dice": _dice(game, player),
        "forecast": _forecast(game, player, seen) if actions else None,
        "plies": len(game.actors),
        "seats": game.seats.taken() if game.seats else None,
        **game.pictures.answer(player, svg, since),
    }


def _selection(game: Game, player: str, actions: list[dict[str, Any]], unit: str | None,
               kind: str | None) -> tuple[dict[str, Any] | None, dict[str, str]]:
    """What a view's ``unit`` or ``kind`` selects, and the places to shade."""
    if unit is not None:
        reach, note = _reach(game, player, unit)
        named = [a for a in actions if unit in a["pieces"]]
    elif kind is not None:
        reach, note = {}, None
        named = [a for a in actions if a["kind"] == kind and not a["pieces"]]
    else:
        return None, {}
    if unit is not None:   # where the piece stands is no place to go
        here = game.state.place_of(unit)
        reach = {p: cost for p, cost in reach.items() if p != here}
    places = sorted({p for a in named for p in a["places"]})
    shade = {p: "" for p in places}
    shade.update({p: str(cost) if cost else "" for p, cost in reach.items()})
    return ({"unit": unit, "kind": kind, "reach": reach, "note": note, "places": places},
            shade)


def _trails(game: Game, player: str) -> list[dict[str, Any]]:
    """The rule trails of the last actions as ``player`` may read them; the
    action's own text only for his actions and the dice he may see."""
    state = game.state
    out = []
    for ply in range(max(0, len(state.history) - TRAIL_PLIES), len(state.history)):
        who = game.actors[ply] if ply < len(game.actors) else ""
        lines = state.trail(ply, player)
        shown_text = _seen_action(game, ply, who, player, len(lines))
        out.append({"ply": ply, "by": who, "action": shown_text,
                    "lines": [{"text": e.text, "rules": list(e.rules)} for e in lines]})
    return out


def _seen_action(game: Game, ply: int, who: str, player: str, lines: int) -> str | None:
    """The text of the action of ``ply`` if ``player`` may see it: his own, or a
    die roll or draw none of whose log lines is kept from him (a roll made in
    secret for another player writes its result for that player alone)."""
    action = game.state.history[ply]
    if who == player or (action.is_chance and len(game.state.trail(ply)) == lines):
        return str(action)
    return None


def _dice(game: Game, player: str) -> list[str]:
    """The last dice results and draws that ``player`` may see."""
    state = game.state
    out = []
    for ply in range(max(0, len(state.history) - TRAIL_PLIES), len(state.history)):
        if state.history[ply].is_chance:
            seen = _seen_action(game, ply, "", player, len(state.trail(ply, player)))
            if seen is not None:
                out.append(seen)
    return out


def _forecast(game: Game, player: str, seen: Observation) -> dict[str, Any] | None:
    """The exact chance of each result of the forecast expression, when it has a
    value here; withheld while anything is hidden from the player (the
    chances are worked out on the whole position and would tell what is
    hidden, as ``explain(..., player=...)`` refuses to)."""
    state = game.state
    if game.forecast is None:
        return None
    if seen["hidden"] or any(set(state.player_attrs) - set(attrs)
                             for attrs in seen["players"].values()):
        return {"note": "no forecast while something is hidden from you (the chances would "
                        "tell what it is)", "results": []}
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
