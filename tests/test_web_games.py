"""The game picker of ``play --web`` (frontends/web/catalogue.py, frontends/web/opponents.py) through
FastAPI's test client: the list of games and opponents for a given set of models, sessions
created and restarted with a game and an opponent spec, the opponents' moves checked against
alpha-beta (search/alphabeta.py) and the exact solvers, and the 400 answers for an unknown game or
opponent (nothing stored)."""

from __future__ import annotations

from pathlib import Path

import pytest
from fastapi.testclient import TestClient
from helpers_models import export_tiny_mlp
from helpers_web import new_session, post

import games
from arena.specs import build_player
from frontends.game_text import state_after
from frontends.play_cli import _parser
from frontends.web.app import create_app
from frontends.web.catalogue import WebOptions, build_catalogue, served_models
from frontends.web.opponents import OpponentChoice, check_opponent
from frontends.web.sessions import HUMAN, MODEL, OPPONENT
from networks.shipped import shipped_names, shipped_path
from search.alphabeta import alphabeta

SIMS = 8
C4_OPPONENTS = ["alphabeta:depth=4", "uct:sims=1000", "solver"]


@pytest.fixture(scope="module")
def connect4_model(tmp_path_factory) -> Path:
    return export_tiny_mlp("connect4", tmp_path_factory.mktemp("web-games") / "best")


@pytest.fixture(scope="module")
def catalogue(connect4_model):
    """Every registered game, with a model for Connect Four only."""
    return build_catalogue({"connect4": connect4_model}, "connect4", WebOptions(simulations=SIMS, max_simulations=64))


@pytest.fixture
def client(catalogue):
    with TestClient(create_app(catalogue)) as client:
        yield client


def test_the_games_list_names_each_games_model_opponents_and_seats(client, connect4_model):
    answer = client.get("/api/games").json()
    assert answer["default"] == "connect4"
    rows = [
        (g["game"], g["model"], [o["spec"] for o in g["opponents"]], g["seat_kinds"], g["default_seats"], g["chance"])
        for g in answer["games"]
    ]
    assert rows == [
        ("connect4", str(connect4_model), C4_OPPONENTS, [HUMAN, MODEL, OPPONENT], [HUMAN, MODEL], False),
        ("othello", None, ["alphabeta:depth=4", "uct:sims=1000"], [HUMAN, OPPONENT], [HUMAN, OPPONENT], False),
        ("othello6x6", None, ["alphabeta:depth=4", "uct:sims=1000"], [HUMAN, OPPONENT], [HUMAN, OPPONENT], False),
        ("pig", None, ["star2:depth=2", "solver"], [HUMAN, OPPONENT], [HUMAN, OPPONENT], True),
        ("tictactoe", None, ["alphabeta:depth=4", "uct:sims=1000", "solver"], [HUMAN, OPPONENT], [HUMAN, OPPONENT], False),
        ("kuhn", None, ["cfr+"], [HUMAN, OPPONENT], [HUMAN, OPPONENT], True),  # poker: tests/test_web_poker.py
        ("leduc", None, ["cfr+"], [HUMAN, OPPONENT], [HUMAN, OPPONENT], True),
    ]
    connect4 = answer["games"][0]
    assert connect4["opponents"] == [
        {"kind": "alphabeta", "label": "alpha-beta", "option": "depth", "values": [1, 2, 3, 4, 5, 6, 7, 8],
         "default": 4, "spec": "alphabeta:depth=4"},
        {"kind": "uct", "label": "UCT (random rollouts)", "option": "sims", "values": [100, 300, 1000, 3000, 10000],
         "default": 1000, "spec": "uct:sims=1000"},
        {"kind": "solver", "label": "perfect play", "option": None, "values": [], "default": None, "spec": "solver"},
    ]
    assert answer["games"][3]["opponents"][0]["values"] == [1, 2, 3, 4]  # Pig: star2 depths
    assert client.get("/api/info").json() == connect4
    assert client.get("/api/info", params={"game": "pig"}).json() == answer["games"][3]


def test_alphabeta_at_depth_2_answers_the_searched_move(client):
    """Nine plies in, O (the opponent) to move: its move is the one a depth-2 alpha-beta search
    picks (search/alphabeta.py, the game's heuristic at the horizon), which differs here from
    the picks at depths 1 and 3, so the depth asked for is the depth searched."""
    game = games.make("connect4")
    start = "156243415"
    session = new_session(client, game="connect4", opponent="alphabeta:depth=2", moves=start)
    assert (session["seats"], session["opponent"], session["turn"]) == ([HUMAN, OPPONENT], "alphabeta:depth=2", OPPONENT)
    assert session["seat_names"] == ["you", "alphabeta:depth=2"]
    state = state_after(game, game.parse_moves(start))
    expected = game.action_to_string(alphabeta(game, state, 2).action)
    assert expected not in {game.action_to_string(alphabeta(game, state, depth).action) for depth in (1, 3)}
    answer = post(client, session, "advance")
    assert answer.status_code == 200, answer.text
    assert answer.json()["moves"] == start + expected


def test_perfect_play_answers_the_solvers_only_move(client):
    """Tic-tac-toe: X holds 1 and 2 and O must block at 3; the exhaustive solver's only optimal move."""
    game = games.make("tictactoe")
    start = "152"
    state = state_after(game, game.parse_moves(start))
    optimal = games.knowledge(game).exact_solver().optimal_actions(state)
    assert [game.action_to_string(a) for a in optimal] == ["3"]
    session = new_session(client, game="tictactoe", opponent="solver", moves=start)
    answer = post(client, session, "advance").json()
    assert answer["moves"] == start + "3" and answer["seat_names"][1] == "solver"


def test_pigs_optimal_policy_answers_its_decision(client):
    """Pig: X rolled a 4 and held; O (perfect play: games.pig.solver's optimal policy) decides, the
    server rolls, and O decides again; every decision is the solver's."""
    game = games.make("pig")
    solver = games.knowledge(game).exact_solver()
    session = new_session(client, game="pig", opponent="solver", moves="r4h")
    assert session["turn"] == OPPONENT
    answer = post(client, session, "advance").json()
    events = game.parse_moves(session["moves"])
    state = state_after(game, events)
    decision = game.parse_moves(answer["moves"])[len(events)]
    assert decision in solver.optimal_actions(state)
    assert len(solver.optimal_actions(state)) == 1


def test_a_session_switches_game_and_opponent_with_a_new_game(client):
    session = new_session(client)  # the default game, with its model
    assert (session["game"], session["seats"], session["opponent"]) == ("connect4", [HUMAN, MODEL], "alphabeta:depth=4")
    answer = post(client, session, "new", {"game": "tictactoe"}).json()
    assert (answer["game"], answer["seats"], answer["opponent"], answer["ply"]) == (
        "tictactoe", [HUMAN, OPPONENT], "alphabeta:depth=4", 0,
    )
    assert [c["move"] for c in answer["controls"]] == list("123456789")
    answer = post(client, session, "new", {"opponent": "uct:sims=100", "seats": [OPPONENT, HUMAN]}).json()
    assert (answer["game"], answer["seats"], answer["opponent"]) == ("tictactoe", [OPPONENT, HUMAN], "uct:sims=100")
    answer = post(client, session, "new", {"seats": [HUMAN, OPPONENT]}).json()  # the opponent stays
    assert answer["opponent"] == "uct:sims=100"


@pytest.mark.parametrize(
    "body, message",
    [
        ({"game": "chess"}, "game: expected one of ['connect4', 'othello', 'othello6x6', 'pig', 'tictactoe', 'kuhn', 'leduc'], got 'chess'"),
        (
            {"game": "connect4", "opponent": "alphabeta:depth=9"},
            (
                "opponent: expected one of alphabeta:depth=1..8, uct:sims=100|300|1000|3000|10000, solver for "
                "connect4, got 'alphabeta:depth=9'"
            ),
        ),
        (
            {"game": "othello", "opponent": "solver"},
            "opponent: expected one of alphabeta:depth=1..8, uct:sims=100|300|1000|3000|10000 for othello, got 'solver'",
        ),
        (
            {"game": "pig", "opponent": "alphabeta:depth=2"},
            "opponent: expected one of star2:depth=1..4, solver for pig, got 'alphabeta:depth=2'",
        ),
        (
            {"opponent": "mcts:model=/etc,sims=5"},
            (
                "opponent: expected one of alphabeta:depth=1..8, uct:sims=100|300|1000|3000|10000, solver for "
                "connect4, got 'mcts:model=/etc,sims=5'"
            ),
        ),
        (
            {"opponent": "alphabeta:depth=2,time=1"},
            (
                "opponent: expected one of alphabeta:depth=1..8, uct:sims=100|300|1000|3000|10000, solver for "
                "connect4, got 'alphabeta:depth=2,time=1'"
            ),
        ),
        ({"game": "pig", "seats": [HUMAN, MODEL]}, "seats: expected two of ['human', 'opponent'], got ['human', 'model']"),
    ],
)
def test_unknown_games_and_opponents_are_refused_and_nothing_is_stored(catalogue, body, message):
    with TestClient(create_app(catalogue)) as client:
        answer = client.post("/api/sessions", json=body)
        assert (answer.status_code, answer.json()) == (400, {"error": message})
        assert len(client.app.state.store) == 0
        session = new_session(client)
        answer = post(client, session, "new", body)
        assert (answer.status_code, answer.json()) == (400, {"error": message})
        assert client.get(f"/api/sessions/{session['session']}").json() == session  # unchanged


def test_a_game_without_a_model_has_no_hint(client):
    session = new_session(client, game="othello6x6")
    answer = post(client, session, "hint")
    assert (answer.status_code, answer.json()) == (409, {"error": "no model plays othello6x6 here: a hint needs one"})


def test_an_opponent_choice_accepts_only_its_own_values():
    choice = OpponentChoice("uct", "UCT", "sims", (100, 1000), 100)
    assert check_opponent((choice,), "tictactoe", "uct:sims=1000") == "uct:sims=1000"
    assert check_opponent((choice,), "tictactoe", " uct:sims=1000 ") == "uct:sims=1000"
    for text in ("uct", "uct:sims=999", "uct:sims=100,seed=3", 7):
        with pytest.raises(ValueError, match=r"^opponent: expected one of uct:sims=100\|1000 for tictactoe, got "):
            check_opponent((choice,), "tictactoe", text)


def test_play_web_serves_the_models_game_first_and_the_shipped_ones_beside(connect4_model):
    models, default, notes = served_models(str(connect4_model), None)
    assert default == "connect4" and models["connect4"] == connect4_model and notes == []
    with pytest.raises(ValueError, match="the model plays 'connect4', not 'tictactoe'"):
        served_models(str(connect4_model), "tictactoe")
    models, default, _ = served_models(None, "othello")
    assert default == "othello" and set(models) == set(shipped_names()) & set(games.names())


def test_the_server_opponent_spec_is_offered_first_for_the_default_game(connect4_model):
    args = _parser().parse_args(["--web"])
    assert args.model is None  # play --web without --model serves every game
    options = WebOptions(
        simulations=SIMS, max_simulations=64, opponent="alphabeta:depth=3,seed=2",
        build_player=lambda spec, game, seed: build_player(spec, game, seed=seed),
    )
    catalogue = build_catalogue({"connect4": connect4_model}, "connect4", options)
    with TestClient(create_app(catalogue)) as client:
        info = client.get("/api/info").json()
        assert [o["spec"] for o in info["opponents"]] == ["alphabeta:depth=3,seed=2", *C4_OPPONENTS]
        assert info["default_seats"] == [OPPONENT, MODEL] and info["default_opponent"] == "alphabeta:depth=3,seed=2"
        session = new_session(client)
        assert session["seat_names"] == ["alphabeta:depth=3,seed=2", "model"]
        tictactoe = client.get("/api/info", params={"game": "tictactoe"}).json()
        assert tictactoe["default_opponent"] == "alphabeta:depth=4"  # the --opponent is the default game's


def test_a_game_without_a_model_seats_the_human_against_the_server_opponent():
    options = WebOptions(
        opponent="star2:depth=3", human_side=1, build_player=lambda spec, game, seed: build_player(spec, game, seed=seed)
    )
    catalogue = build_catalogue({}, "pig", options)
    with TestClient(create_app(catalogue)) as client:
        info = client.get("/api/info").json()
        assert (info["game"], info["model"], info["default_seats"], info["default_opponent"]) == (
            "pig", None, [OPPONENT, HUMAN], "star2:depth=3",
        )
        assert [o["spec"] for o in info["opponents"]] == ["star2:depth=3", "star2:depth=2", "solver"]
        session = new_session(client)
        assert (session["seats"], session["turn"], session["seat_names"]) == (
            [OPPONENT, HUMAN], OPPONENT, ["star2:depth=3", "you"],
        )


def test_the_page_names_a_shipped_model_by_name_and_another_by_its_folder(connect4_model):
    catalogue = build_catalogue(
        {"tictactoe": shipped_path("tictactoe"), "connect4": connect4_model}, "tictactoe", WebOptions(simulations=SIMS)
    )
    with TestClient(create_app(catalogue)) as client:
        assert client.get("/api/info").json()["model"] == "shipped tictactoe"
        assert client.get("/api/info", params={"game": "connect4"}).json()["model"] == str(connect4_model)
