"""The web app of ``play --web``: one page (``static/``) and the JSON API it uses (docs/web.md).

Routes (every body and answer is JSON; ``SID`` is a session id from ``POST /api/sessions``):

* ``GET /`` the page; ``GET /static/...`` its script and style sheet;
* ``GET /api/games`` every game served, each with its model (or null), its opponents and the
  information of ``/api/info``; ``default`` names the game the page opens on;
* ``GET /api/info`` (``?game=NAME``: that game's) the default game, its model, the seat kinds and
  the simulation limits;
* ``POST /api/sessions`` a new session with a new game (body as ``new``), answered 201; a bad
  body stores nothing, and a client address holding ``max_sessions_per_client`` sessions is
  answered 429;
* ``GET /api/sessions/SID`` the game;
* ``POST /api/sessions/SID/new`` ``{"game": "connect4", "opponent": "alphabeta:depth=4", "seats":
  ["human", "opponent"], "moves": "44"}`` (each optional; an unknown game or an opponent the game
  does not offer is answered 400);
* ``POST /api/sessions/SID/move`` ``{"move": "4"}``: the human's move;
* ``POST /api/sessions/SID/advance`` ``{"sims": 200}`` (optional): the model or opponent moves;
* ``POST /api/sessions/SID/hint`` ``{"sims": 200}``: the model's search of the position;
* ``POST /api/sessions/SID/undo``: take back the last human move and its replies.

Each answers the whole game (``GameSession.to_json``). A refused request answers 4xx with
``{"error": MESSAGE}`` and leaves the game unchanged: 400 bad value, 404 unknown session, 409 not
possible now (game over, not your turn, nothing to undo, busy), 422 a body of the wrong shape,
429 too many sessions from one address. In a game with chance the server rolls the dice (the
session's seeded generator) as soon as a chance state is reached; the answer's ``last_roll``
names the latest outcome.
Handlers are plain functions, which FastAPI runs in its thread pool: a search never blocks the
event loop, so other tabs and requests are answered while it runs.
"""

from __future__ import annotations

from pathlib import Path

from fastapi import FastAPI, Request
from fastapi.exceptions import RequestValidationError
from fastapi.responses import FileResponse, JSONResponse
from fastapi.staticfiles import StaticFiles
from pydantic import BaseModel, ConfigDict, Field, StrictInt, StrictStr
from starlette.exceptions import HTTPException as StarletteHTTPException

from frontends.web.sessions import (
    MAX_MOVE_TEXT,
    MAX_SESSIONS_PER_CLIENT,
    Catalogue,
    ModelService,
    RequestError,
    SessionStore,
)

STATIC_DIR = Path(__file__).resolve().parent / "static"


class _Body(BaseModel):
    model_config = ConfigDict(extra="forbid")


class NewGame(_Body):
    game: StrictStr | None = Field(default=None, max_length=64)
    opponent: StrictStr | None = Field(default=None, max_length=200)
    seats: list[StrictStr] | None = Field(default=None, max_length=2)
    moves: StrictStr | None = None  # bounded by the game: frontends.game_text.move_text_limit


class Move(_Body):
    move: StrictStr = Field(max_length=MAX_MOVE_TEXT)


class Budget(_Body):
    sims: StrictInt | None = None


def _error(status: int, message: str) -> JSONResponse:
    return JSONResponse({"error": message}, status_code=status)


def create_app(
    service: ModelService | Catalogue, max_sessions: int = 256,
    max_sessions_per_client: int = MAX_SESSIONS_PER_CLIENT,
) -> FastAPI:
    """The FastAPI app serving ``service``'s game (a ``Catalogue``: its games): at most
    ``max_sessions`` sessions at once, and at most ``max_sessions_per_client`` from one client
    address (``SessionStore``)."""
    app = FastAPI(title="Tabula Rasa", docs_url=None, redoc_url=None, openapi_url="/api/openapi.json")
    store = SessionStore(service, max_sessions=max_sessions, max_per_client=max_sessions_per_client)
    app.state.store = store
    catalogue = store.catalogue

    @app.exception_handler(RequestError)
    def _request_error(request: Request, error: RequestError) -> JSONResponse:
        return _error(error.status, error.message)

    @app.exception_handler(RequestValidationError)
    def _validation_error(request: Request, error: RequestValidationError) -> JSONResponse:
        problems = []
        for item in error.errors()[:3]:
            where = ".".join(str(part) for part in item.get("loc", ()) if part != "body") or "body"
            problems.append(f"{where}: {item.get('msg', 'invalid')}")
        return _error(422, "; ".join(problems) or "malformed request")

    @app.exception_handler(StarletteHTTPException)
    def _http_error(request: Request, error: StarletteHTTPException) -> JSONResponse:
        return _error(error.status_code, str(error.detail))

    @app.exception_handler(Exception)
    def _server_error(request: Request, error: Exception) -> JSONResponse:
        return _error(500, f"internal error: {type(error).__name__}: {error}"[:300])

    @app.get("/", include_in_schema=False)
    def page() -> FileResponse:
        return FileResponse(STATIC_DIR / "index.html", headers={"Cache-Control": "no-cache"})

    app.mount("/static", StaticFiles(directory=STATIC_DIR), name="static")

    @app.get("/api/games")
    def game_list() -> dict:
        return catalogue.games()

    @app.get("/api/info")
    def info(game: str | None = None) -> dict:
        return catalogue.service(game).info()

    @app.post("/api/sessions", status_code=201)
    def create(request: Request, body: NewGame | None = None) -> dict:
        body = body or NewGame()
        client = request.client.host if request.client is not None else ""
        session = store.create(client, body.seats, body.moves, game=body.game, opponent=body.opponent)
        with store.locked(session.id) as held:
            return held.to_json()

    @app.get("/api/sessions/{session_id}")
    def show(session_id: str) -> dict:
        with store.locked(session_id) as session:
            return session.to_json()

    @app.post("/api/sessions/{session_id}/new")
    def new_game(session_id: str, body: NewGame | None = None) -> dict:
        body = body or NewGame()
        with store.locked(session_id) as session:
            service = None if body.game is None else catalogue.service(body.game)
            return store.restart(session, body.seats, body.moves, body.opponent, service).to_json()

    @app.post("/api/sessions/{session_id}/move")
    def move(session_id: str, body: Move) -> dict:
        with store.locked(session_id) as session:
            session.move(body.move)
            return session.to_json()

    @app.post("/api/sessions/{session_id}/advance")
    def advance(session_id: str, body: Budget | None = None) -> dict:
        with store.locked(session_id) as session:
            session.advance((body or Budget()).sims)
            return session.to_json()

    @app.post("/api/sessions/{session_id}/hint")
    def hint(session_id: str, body: Budget | None = None) -> dict:
        with store.locked(session_id) as session:
            session.hint((body or Budget()).sims)
            return session.to_json()

    @app.post("/api/sessions/{session_id}/undo")
    def undo(session_id: str) -> dict:
        with store.locked(session_id) as session:
            session.undo()
            return session.to_json()

    return app
