"""The Starlette application: the JSON API and the static page.

Routes (every answer is JSON but the page and the record downloads)::

    GET  /                                   the page (static/index.html)
    GET  /static/...                         app.js, style.css
    POST /api/games/new    {seed, setup, options, mode, seat}   -> summary (+ seat, token)
    POST /api/games/load   {text, mode, seat}                   -> summary (+ seat, token)
    GET  /api/games/{id}                     public summary: turn, phase, who acts, seats
    POST /api/games/{id}/join  {player}                         -> summary, seat, token
    GET  /api/games/{id}/view?player=P[&unit=U|&kind=K][&since=D]   P's view
    GET  /api/games/{id}/reachable?player=P&unit=U          {place: cost}
    POST /api/games/{id}/act   {player, action}             action text or id, or "roll"
    POST /api/games/{id}/move  {player, unit, to}           the unit's cheapest route
    POST /api/games/{id}/undo  {player}                     take back P's last decision
    GET  /api/games/{id}/save[?player=P]                    the record (P's view)

In a game played one browser per player (``mode: "seats"``) the requests for
a seat (view, reachable, act, move, undo, save) carry its token in an
``Authorization: Bearer TOKEN`` header; ``player`` may then be left out.
A refused request answers ``{"error": ..., "rules": [...]}`` with a 4xx
status and changes nothing.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.middleware import Middleware
from starlette.middleware.gzip import GZipMiddleware
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import CortesRulesError, RecordError
from . import games as g
from . import shapes
from .seats import bearer
from .shapes import ServeError

STATIC = Path(__file__).parent / "static"
Handler = Callable[[Request], Awaitable[Response]]


def _error(error: CortesRulesError) -> JSONResponse:
    status = error.status if isinstance(error, ServeError) else 400
    rules = list(error.rules) if isinstance(error, ServeError) else []
    message = str(error).splitlines()[0] if str(error) else type(error).__name__
    return JSONResponse({"error": message, "rules": rules}, status_code=status)


def _guarded(handler: Handler) -> Handler:
    """Turn the package's errors into one-line JSON errors."""
    async def run(request: Request) -> Response:
        try:
            return await handler(request)
        except RecordError as error:
            return JSONResponse({"error": f"not a record: {error}".splitlines()[0],
                                 "rules": []}, status_code=422)
        except CortesRulesError as error:
            return _error(error)
    return run


async def _body(request: Request, shape: tuple[shapes.Field, ...],
                required: tuple[str, ...] = ()) -> dict[str, Any]:
    return shapes.fields(await shapes.body(request.stream()), shape, required)


def _token(request: Request) -> str | None:
    return bearer(request.headers.get("authorization"))


def create_app(*, rulebook: str | None = None, options: tuple[str, ...] = (),
               setup: str | None = None, cost: str | None = None,
               forecast: str | None = None) -> Starlette:
    """The application, with its own games in memory.

    Args:
        rulebook: the rulebook new games are played with (default: the default one).
        options: its load options (``"veteran"`` or rule numbers).
        setup: the set-up new games start from (default: the rulebook's last one).
        cost: the numeric piece attribute that a step's movement cost adds to
            (reachable places show it); None counts steps.
        forecast: an expression of the rules language giving a distribution,
            shown with its exact chances to the player about to decide
            whenever it has a value (e.g. a rulebook's forecast of a battle)
            and nothing is hidden from him.
    """
    games = g.Games(g.Settings(rulebook, tuple(options), setup, cost, forecast))

    def seat(request: Request, game: g.Game, player: str | None) -> str:
        return g.seat_of(game, _token(request), player)

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def new(request: Request) -> Response:
        data = await _body(request, shapes.NEW)
        game, token = games.new(seed=data.get("seed", 0), setup=data.get("setup") or None,
                                options=data.get("options"),
                                mode=data.get("mode", g.HOTSEAT), seat=data.get("seat"))
        return JSONResponse(_seated(game, token))

    async def load(request: Request) -> Response:
        data = await _body(request, shapes.LOAD, ("text",))
        game, token = games.load(data["text"], data.get("mode", g.HOTSEAT), data.get("seat"))
        return JSONResponse(_seated(game, token))

    async def summary(request: Request) -> Response:
        shapes.query(request.query_params, ())
        return JSONResponse(_summary(games.get(request.path_params["id"])))

    async def join(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        data = await _body(request, shapes.JOIN, ("player",))
        return JSONResponse(_seated(game, g.join(game, data["player"])))

    async def view(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        q = shapes.query(request.query_params, shapes.VIEW_QUERY)
        player = seat(request, game, q.get("player"))
        if "unit" in q and "kind" in q:
            raise ServeError("a view selects a unit or a kind of action, not both")
        return JSONResponse(g.view(game, player, unit=q.get("unit"), kind=q.get("kind"),
                                   since=q.get("since")))

    async def reach(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        q = shapes.query(request.query_params, shapes.REACH_QUERY, ("unit",))
        return JSONResponse(g.reachable(game, seat(request, game, q.get("player")), q["unit"]))

    async def act(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        data = await _body(request, shapes.ACT, ("action",))
        g.act(game, seat(request, game, data.get("player")), data["action"])
        return JSONResponse(_summary(game))

    async def move(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        data = await _body(request, shapes.MOVE, ("unit", "to"))
        g.move(game, seat(request, game, data.get("player")), data["unit"], data["to"])
        return JSONResponse(_summary(game))

    async def undo(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        data = await _body(request, shapes.UNDO)
        g.undo(game, seat(request, game, data.get("player")))
        return JSONResponse(_summary(game))

    async def save(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        player = shapes.query(request.query_params, shapes.SAVE_QUERY).get("player")
        if game.seats is not None:
            holder = game.seats.holder(_token(request))
            if player is not None:
                player = seat(request, game, player)
            elif not game.state.is_terminal():
                player = holder
        text = g.record_text(game, player)
        name = f"{game.id}-{player}.record" if player else f"{game.id}.record"
        return PlainTextResponse(text, headers={
            "Content-Disposition": f'attachment; filename="{name}"'})

    routes = [
        Route("/", page),
        Route("/api/games/new", _guarded(new), methods=["POST"]),
        Route("/api/games/load", _guarded(load), methods=["POST"]),
        Route("/api/games/{id}", _guarded(summary)),
        Route("/api/games/{id}/join", _guarded(join), methods=["POST"]),
        Route("/api/games/{id}/view", _guarded(view)),
        Route("/api/games/{id}/reachable", _guarded(reach)),
        Route("/api/games/{id}/act", _guarded(act), methods=["POST"]),
        Route("/api/games/{id}/move", _guarded(move), methods=["POST"]),
        Route("/api/games/{id}/undo", _guarded(undo), methods=["POST"]),
        Route("/api/games/{id}/save", _guarded(save)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes, middleware=[Middleware(GZipMiddleware, minimum_size=1000)])
    app.state.games = games
    return app


def _summary(game: g.Game) -> dict[str, Any]:
    """What anyone may know of a game: whose decision it is, not the position."""
    state = game.state
    return {"game": game.id, "players": list(game.book.players), "mode": game.mode,
            "turn": state.turn, "phase": state.phase_label, "to_act": state.current_player,
            "deciding": g.deciding(game), "terminal": state.is_terminal(),
            "plies": len(game.actors),
            "seats": game.seats.taken() if game.seats else None}


def _seated(game: g.Game, token: str | None) -> dict[str, Any]:
    """A summary, with the seat just taken and its token (in a seat game)."""
    out = _summary(game)
    if token is not None:
        assert game.seats is not None
        out["seat"] = game.seats.holder(token)
        out["token"] = token
    return out
