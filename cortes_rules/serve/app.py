"""The Starlette application: the JSON API and the static page.

Routes (every answer is JSON but the page and the record downloads)::

    GET  /                                   the page (static/index.html)
    GET  /static/...                         app.js, style.css
    POST /api/games/new    {seed, setup, options, mode}     -> {game, players, mode}
    POST /api/games/load   {text, mode}                     -> {game, players, mode}
    GET  /api/games/{id}                     public summary: turn, phase, who acts
    GET  /api/games/{id}/view?player=P[&unit=U]             P's view (U's reach shaded)
    GET  /api/games/{id}/reachable?player=P&unit=U          {place: cost}
    POST /api/games/{id}/act   {player, action}             action text or id, or "roll"
    POST /api/games/{id}/move  {player, unit, to}           the unit's cheapest route
    POST /api/games/{id}/undo  {player}                     take back P's last decision
    GET  /api/games/{id}/save[?player=P]                    the record (P's view)

A refused request answers ``{"error": ..., "rules": [...]}`` with a 4xx status.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable
from pathlib import Path
from typing import Any

from starlette.applications import Starlette
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, PlainTextResponse, Response
from starlette.routing import Mount, Route
from starlette.staticfiles import StaticFiles

from .. import CortesRulesError, RecordError
from . import games as g

STATIC = Path(__file__).parent / "static"
Handler = Callable[[Request], Awaitable[Response]]


def _error(error: CortesRulesError) -> JSONResponse:
    status = error.status if isinstance(error, g.ServeError) else 400
    rules = list(error.rules) if isinstance(error, g.ServeError) else []
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


async def _body(request: Request) -> dict[str, Any]:
    try:
        data = await request.json()
    except ValueError:
        raise g.ServeError("the request's body is not JSON") from None
    if not isinstance(data, dict):
        raise g.ServeError("the request's body is not a JSON object")
    return data


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
            whenever it has a value (e.g. a rulebook's forecast of a battle).
    """
    games = g.Games(g.Settings(rulebook, tuple(options), setup, cost, forecast))

    async def page(request: Request) -> Response:
        return FileResponse(STATIC / "index.html")

    async def new(request: Request) -> Response:
        data = await _body(request)
        game = games.new(seed=data.get("seed", 0), setup=data.get("setup") or None,
                         options=data.get("options") or None,
                         mode=data.get("mode", g.HOTSEAT))
        return JSONResponse(_summary(game))

    async def load(request: Request) -> Response:
        data = await _body(request)
        game = games.load(data.get("text", ""), data.get("mode", g.HOTSEAT))
        return JSONResponse(_summary(game))

    async def summary(request: Request) -> Response:
        return JSONResponse(_summary(games.get(request.path_params["id"])))

    async def view(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        player, unit = request.query_params.get("player"), request.query_params.get("unit")
        shaded = {k: str(v) for k, v in g.reachable(game, player, unit).items()} if unit \
            else None
        return JSONResponse(g.view(game, player, shaded))  # type: ignore[arg-type]

    async def reach(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        q = request.query_params
        return JSONResponse(g.reachable(game, q.get("player"), q.get("unit")))

    async def act(request: Request) -> Response:
        game, data = games.get(request.path_params["id"]), await _body(request)
        g.act(game, data.get("player"), data.get("action"))
        return JSONResponse(_summary(game))

    async def move(request: Request) -> Response:
        game, data = games.get(request.path_params["id"]), await _body(request)
        g.move(game, data.get("player"), data.get("unit"), data.get("to"))
        return JSONResponse(_summary(game))

    async def undo(request: Request) -> Response:
        game, data = games.get(request.path_params["id"]), await _body(request)
        g._undo(game, g._check_player(game, data.get("player")))
        return JSONResponse(_summary(game))

    async def save(request: Request) -> Response:
        game = games.get(request.path_params["id"])
        player = request.query_params.get("player")
        text = g.record_text(game, player)
        name = f"{game.id}-{player}.record" if player else f"{game.id}.record"
        return PlainTextResponse(text, headers={
            "Content-Disposition": f'attachment; filename="{name}"'})

    routes = [
        Route("/", page),
        Route("/api/games/new", _guarded(new), methods=["POST"]),
        Route("/api/games/load", _guarded(load), methods=["POST"]),
        Route("/api/games/{id}", _guarded(summary)),
        Route("/api/games/{id}/view", _guarded(view)),
        Route("/api/games/{id}/reachable", _guarded(reach)),
        Route("/api/games/{id}/act", _guarded(act), methods=["POST"]),
        Route("/api/games/{id}/move", _guarded(move), methods=["POST"]),
        Route("/api/games/{id}/undo", _guarded(undo), methods=["POST"]),
        Route("/api/games/{id}/save", _guarded(save)),
        Mount("/static", StaticFiles(directory=STATIC), name="static"),
    ]
    app = Starlette(routes=routes)
    app.state.games = games
    return app


def _summary(game: g.Game) -> dict[str, Any]:
    """What anyone may know of a game: whose decision it is, not the position."""
    state = game.state
    return {"game": game.id, "players": list(game.book.players), "mode": game.mode,
            "turn": state.turn, "phase": state.phase_label, "to_act": state.current_player,
            "deciding": g.deciding(game), "terminal": state.is_terminal(),
            "plies": len(game.actors)}
