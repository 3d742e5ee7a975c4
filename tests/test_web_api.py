"""The JSON API of ``play --web`` (frontends/web/app.py) through FastAPI's test client: moves and the
model's replies, every kind of bad request (answered 4xx, the game unchanged), undo, finished
games, an opponent, several sessions at once and a search that does not block other requests."""

from __future__ import annotations

import socket
import threading
from pathlib import Path

import numpy as np
import pytest
from fastapi.testclient import TestClient
from helpers_models import export_tiny_mlp
from helpers_positions import finished_games_with_a_pass
from helpers_web import get, new_session, post

import games
from arena.model_player import load_model
from arena.specs import build_player
from frontends.game_text import result_text
from frontends.play_cli import main
from frontends.web.app import create_app
from frontends.web.sessions import HUMAN, MODEL, OPPONENT, ModelService, RequestError
from mcts import uniform_evaluator

SIMS = 16


@pytest.fixture(scope="module")
def connect4_model(tmp_path_factory) -> Path:
    return export_tiny_mlp("connect4", tmp_path_factory.mktemp("web") / "best")


@pytest.fixture(scope="module")
def service(connect4_model) -> ModelService:
    game, evaluate_fn = load_model(str(connect4_model))
    return ModelService(game, evaluate_fn, model_name="tiny", default_simulations=SIMS, max_simulations=400)


@pytest.fixture
def client(service):
    with TestClient(create_app(service)) as client:
        yield client


def test_page_and_its_files_are_served_from_the_package(client):
    page = client.get("/")
    assert page.status_code == 200 and page.headers["content-type"].startswith("text/html")
    assert '<script src="/static/app.js"' in page.text and "https://" not in page.text
    for name, kind in (("app.js", "javascript"), ("style.css", "text/css")):
        answer = client.get(f"/static/{name}")
        assert answer.status_code == 200 and kind in answer.headers["content-type"]
        assert "https://" not in answer.text and "http://" not in answer.text.replace("http://www.w3.org", "")
    missing = client.get("/static/nothing.js")
    assert missing.status_code == 404 and "error" in missing.json()


def test_info_names_the_game_model_and_limits(client):
    info = client.get("/api/info").json()
    assert info["game"] == "connect4" and info["model"] == "tiny"
    assert info["seat_kinds"] == [HUMAN, MODEL, OPPONENT] and info["default_seats"] == [HUMAN, MODEL]
    assert (info["simulations"], info["max_simulations"]) == (SIMS, 400)
    assert info["moves"] == ["1", "2", "3", "4", "5", "6", "7"]


def test_a_new_game_draws_the_empty_board_with_a_control_per_column(client):
    game = new_session(client)
    assert (game["moves"], game["ply"], game["turn"], game["to_move"]) == ("", 0, HUMAN, 0)
    assert game["board"]["rows"] == 6 and game["board"]["columns"] == 7
    assert game["board"]["cells"] == [-1] * 42 and game["board"]["move_kind"] == "column"
    assert [(c["move"], c["legal"], c["target"]) for c in game["controls"]] == [
        (str(c + 1), True, c) for c in range(7)
    ]
    assert game["result"] is None and game["search"] is None and game["can_undo"] is False


def test_the_model_answers_a_move_with_its_search(client):
    game = new_session(client)
    game = post(client, game, "move", {"move": "4"}).json()
    assert (game["moves"], game["turn"], game["to_move"]) == ("4", MODEL, 1)
    assert game["board"]["cells"][5 * 7 + 3] == 0  # X's stone at the bottom of column 4
    game = post(client, game, "advance", {"sims": SIMS}).json()
    search = game["search"]
    assert game["ply"] == 2 and game["turn"] == HUMAN and game["last_move"] == search["best_move"]
    assert game["moves"] == "4" + search["best_move"]
    assert (search["source"], search["ply"], search["to_move"], search["simulations"]) == (MODEL, 1, 1, SIMS)
    visits = {m["move"]: m["visits"] for m in search["moves"]}
    assert sum(visits.values()) == SIMS  # one root visit per simulation
    assert visits[search["best_move"]] == max(visits.values())
    assert sum(m["prior"] for m in search["moves"]) == pytest.approx(1.0, abs=1e-3)
    # the evaluation is the human's (X): minus the model's Q of the move it played
    best_q = next(m["q"] for m in search["moves"] if m["move"] == search["best_move"])
    assert (search["view_side"], search["view_label"]) == (0, "you (X)")
    assert search["value"] == pytest.approx(-best_q, abs=1e-3)
    assert game["can_undo"] is True


def test_zero_simulations_play_the_policy_alone(client):
    game = new_session(client, seats=[MODEL, HUMAN])
    game = post(client, game, "advance", {"sims": 0}).json()
    search = game["search"]
    assert search["searched"] is False and all(m["visits"] == 0 for m in search["moves"])
    priors = {m["move"]: m["prior"] for m in search["moves"]}
    assert search["best_move"] == max(priors, key=priors.get) == game["moves"]


@pytest.mark.parametrize(
    ("body", "status", "message"),
    [
        ({"move": "8"}, 400, "malformed move '8'; legal moves: 1 2 3 4 5 6 7"),
        ({"move": "x"}, 400, "malformed move 'x'"),
        ({"move": ""}, 400, "malformed move ''"),
        ({"move": "44"}, 400, "malformed move '44'"),
        ({"move": 4}, 422, "move: Input should be a valid string"),
        ({"move": "4" * 17}, 422, "move: String should have at most 16 characters"),
        ({}, 422, "move: Field required"),
        ({"move": "4", "extra": 1}, 422, "extra: Extra inputs are not permitted"),
        (None, 422, "Field required"),
    ],
)
def test_malformed_moves_are_refused_and_leave_the_game_unchanged(client, body, status, message):
    game = new_session(client, moves="44")
    answer = post(client, game, "move", body)
    assert answer.status_code == status and message in answer.json()["error"]
    assert get(client, game) == game


def test_a_full_column_is_an_illegal_move(client):
    game = new_session(client, seats=[HUMAN, HUMAN], moves="444444")
    answer = post(client, game, "move", {"move": "4"})
    assert answer.status_code == 400
    assert answer.json()["error"] == "illegal move '4'; legal moves: 1 2 3 5 6 7"
    assert get(client, game) == game
    assert [c["legal"] for c in game["controls"]] == [True, True, True, False, True, True, True]


@pytest.mark.parametrize(
    ("sims", "status", "message"),
    [
        (401, 400, "sims: expected an integer in 0..400, got 401"),
        (10**12, 400, "sims: expected an integer in 0..400"),
        (-1, 400, "sims: expected an integer in 0..400, got -1"),
        ("16", 422, "sims: Input should be a valid integer"),
        (True, 422, "sims: Input should be a valid integer"),
        (1.5, 422, "sims: Input should be a valid integer"),
    ],
)
def test_bad_simulation_counts_are_refused(client, sims, status, message):
    game = new_session(client, seats=[MODEL, HUMAN])
    for action in ("advance", "hint"):
        answer = post(client, game, action, {"sims": sims})
        assert answer.status_code == status and message in answer.json()["error"]
    assert get(client, game) == game


def test_moves_out_of_turn_are_conflicts(client):
    game = new_session(client)
    answer = post(client, game, "advance", {})
    assert answer.status_code == 409 and answer.json()["error"] == "it is your turn (X): send a move"
    game = post(client, game, "move", {"move": "1"}).json()
    answer = post(client, game, "move", {"move": "2"})
    assert answer.status_code == 409 and answer.json()["error"] == "it is the model's turn (O)"
    assert get(client, game) == game


def test_bad_new_games_are_refused(client):
    game = new_session(client, moves="12")
    for body, message in (
        ({"seats": ["human"]}, "seats: expected two of ['human', 'model', 'opponent']"),
        ({"seats": ["human", "robot"]}, "seats: expected two of ['human', 'model', 'opponent']"),
        ({"seats": ["human", "model", "model"]}, "seats: List should have at most 2 items"),
        ({"moves": "1111111"}, "moves: move 7: column 1 is full"),
        ({"moves": "12x"}, "moves: move 3: expected a column 1-7"),
        ({"moves": "1" * 85}, "moves: expected at most 84 characters (the longest connect4 game, 42 plies), got 85"),
    ):
        answer = post(client, game, "new", body)
        assert 400 <= answer.status_code < 500 and message in answer.json()["error"], answer.text
    assert get(client, game) == game
    answer = client.post("/api/sessions", json={"moves": "9"})
    assert answer.status_code == 400 and "move 1: expected a column 1-7" in answer.json()["error"]


def test_a_game_played_to_the_end_is_announced_and_then_closed(client):
    game = new_session(client, seats=[HUMAN, HUMAN])
    for move in "121212":
        game = post(client, game, "move", {"move": move}).json()
        assert game["result"] is None
    game = post(client, game, "move", {"move": "1"}).json()  # X's fourth stone in column 1
    result = game["result"]
    assert (result["winner"], result["text"], result["message"]) == (0, "X wins (1-0)", "Human (X) wins.")
    assert (game["turn"], game["to_move"], game["moves"]) == (None, None, "1212121")
    assert game["board"]["winning_cells"] == [14, 21, 28, 35]  # rows 2-5 of column 1, top row first
    assert not any(c["legal"] for c in game["controls"])
    for action, body in (("move", {"move": "3"}), ("advance", {}), ("hint", {})):
        answer = post(client, game, action, body)
        assert answer.status_code == 409
        assert answer.json()["error"] == "the game is over (X wins (1-0)); start a new game"
    assert get(client, game) == game


def test_the_model_winning_is_announced_from_the_humans_side(client):
    game = new_session(client, seats=[MODEL, HUMAN], moves="121212")  # X (the model) wins in column 1
    game = post(client, game, "advance", {"sims": 64}).json()
    assert game["moves"] == "1212121"
    assert game["result"]["message"] == "Model (X) wins." and game["result"]["text"] == "X wins (1-0)"
    search = game["search"]
    assert (search["view_side"], search["view_label"]) == (1, "you (O)")
    assert search["value"] == -1.0 and search["verdict"] == "X is winning"  # a proven win: Q = +1 for X


def test_evaluation_names_the_side_and_says_x_is_winning_whoever_the_human_plays():
    """Tic-tac-toe ``X X . / O O . / . . .``, X to move: the zero net's search finds the win at
    cell 3 (Q = +1 exactly); the page reports X winning for the human on either side."""
    game = games.make("tictactoe")
    service = ModelService(game, uniform_evaluator, default_simulations=200)
    with TestClient(create_app(service)) as client:
        as_x = new_session(client, seats=[HUMAN, MODEL], moves="1425")
        hint = post(client, as_x, "hint", {}).json()["search"]
        assert (hint["source"], hint["best_move"], hint["view_label"]) == ("hint", "3", "you (X)")
        assert (hint["value"], hint["verdict"]) == (1.0, "X is winning")
        as_o = new_session(client, seats=[MODEL, HUMAN], moves="1425")
        after = post(client, as_o, "advance", {}).json()
        assert after["moves"] == "14253" and after["result"]["message"] == "Model (X) wins."
        assert after["board"]["winning_cells"] == [0, 1, 2] and after["board"]["move_kind"] == "cell"
        search = after["search"]
        assert (search["view_label"], search["value"], search["verdict"]) == ("you (O)", -1.0, "X is winning")


def test_undo_takes_back_the_human_move_and_the_reply_never_the_start(client):
    game = new_session(client, moves="4")  # the human (X)... O is to move: the model
    assert game["turn"] == MODEL and game["can_undo"] is False
    answer = post(client, game, "undo")
    assert (
        answer.status_code == 409
        and answer.json()["error"] == "nothing to undo: no move of yours since the start"
    )
    game = post(client, game, "advance", {}).json()
    reply = game["last_move"]
    game = post(client, game, "move", {"move": "1"}).json()
    game = post(client, game, "advance", {}).json()
    assert game["ply"] == 4 and game["search"]["ply"] == 3
    game = post(client, game, "undo").json()
    assert (game["moves"], game["turn"], game["search"]) == ("4" + reply, HUMAN, None)
    assert game["can_undo"] is False and post(client, game, "undo").status_code == 409


def test_undo_keeps_a_hint_of_the_position_it_returns_to(client):
    game = new_session(client)
    game = post(client, game, "hint", {"sims": 8}).json()
    assert game["search"]["source"] == "hint" and game["search"]["ply"] == 0 and game["moves"] == ""
    game = post(client, game, "move", {"move": game["search"]["best_move"]}).json()
    assert game["search"]["ply"] == 0  # still the search of the position before the move
    game = post(client, game, "undo").json()
    assert game["search"]["ply"] == 0 and game["moves"] == ""


def test_undo_without_a_human_takes_back_one_move(client):
    game = new_session(client, seats=[MODEL, MODEL])
    game = post(client, game, "advance", {}).json()
    game = post(client, game, "advance", {}).json()
    game = post(client, game, "undo").json()
    assert game["ply"] == 1


def test_sessions_do_not_mix(client):
    first, second = new_session(client), new_session(client, seats=[MODEL, HUMAN])
    assert first["session"] != second["session"]
    post(client, first, "move", {"move": "1"})
    post(client, second, "advance", {})
    assert get(client, first)["moves"] == "1" and len(get(client, second)["moves"]) == 1
    post(client, first, "new", {"seats": [HUMAN, HUMAN], "moves": "77"})
    assert get(client, first)["moves"] == "77" and get(client, second)["seats"] == [MODEL, HUMAN]


def test_sessions_played_from_several_threads_stay_apart(client):
    sessions = [new_session(client, seats=[MODEL, MODEL], moves=str(k + 1)) for k in range(4)]
    failures: list[str] = []

    def play(game: dict) -> None:
        for _ in range(3):
            answer = post(client, game, "advance", {"sims": 8})
            if answer.status_code != 200:
                failures.append(answer.text)

    threads = [threading.Thread(target=play, args=(game,)) for game in sessions]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join(timeout=120)
    assert not failures
    for k, game in enumerate(sessions):
        moves = get(client, game)["moves"]
        assert len(moves) == 4 and moves[0] == str(k + 1)


def test_unknown_and_dropped_sessions_are_not_found(service):
    with TestClient(create_app(service, max_sessions=2)) as client:
        answer = client.get("/api/sessions/nope")
        assert (
            answer.status_code == 404 and answer.json()["error"] == "no game session 'nope'; start a new one"
        )
        first = new_session(client)
        new_session(client)
        new_session(client)  # the third drops the least recently used: the first
        assert client.get(f"/api/sessions/{first['session']}").status_code == 404


def test_a_search_runs_off_the_event_loop_and_its_session_answers_busy():
    """An evaluator that waits for the test: while it waits, the server answers other requests
    (in the same event loop), and another request of the same session gets 409."""
    game = games.make("tictactoe")
    entered, release = threading.Event(), threading.Event()

    def slow_evaluator(observations, legal_mask):
        entered.set()
        release.wait(timeout=60)
        return uniform_evaluator(observations, legal_mask)

    service = ModelService(game, slow_evaluator, default_simulations=2)
    with TestClient(create_app(service)) as client:
        busy, other = new_session(client, seats=[MODEL, HUMAN]), new_session(client)
        answers: list = []
        thread = threading.Thread(target=lambda: answers.append(post(client, busy, "advance", {})))
        thread.start()
        assert entered.wait(timeout=60)
        assert client.get("/api/info").status_code == 200
        assert post(client, other, "move", {"move": "5"}).json()["moves"] == "5"
        answer = post(client, busy, "undo")
        assert answer.status_code == 409 and "busy" in answer.json()["error"]
        release.set()
        thread.join(timeout=60)
        assert answers[0].status_code == 200 and answers[0].json()["ply"] == 1


def test_an_opponent_spec_plays_a_seat(connect4_model):
    game, evaluate_fn = load_model(str(connect4_model))
    service = ModelService(
        game,
        evaluate_fn,
        default_simulations=8,
        opponent_factory=lambda seed: build_player("alphabeta:depth=2", game, seed=seed),
        opponent_name="alphabeta:depth=2",
        default_seats=(OPPONENT, MODEL),
    )
    with TestClient(create_app(service)) as client:
        info = client.get("/api/info").json()
        assert info["seat_kinds"] == [HUMAN, MODEL, OPPONENT] and info["opponent"] == "alphabeta:depth=2"
        game_json = new_session(client)
        assert game_json["seat_names"] == ["alphabeta:depth=2", "model"]
        for _ in range(42):
            if game_json["result"] is not None:
                break
            game_json = post(client, game_json, "advance", {}).json()
        assert game_json["result"] is not None
        state = games.make("connect4").states_from_moves([game_json["moves"]])
        assert bool(games.make("connect4").terminal(state)[0])


def test_a_game_without_a_grid_gets_its_text_and_a_button_per_move(monkeypatch):
    from example_game import ConnectThree  # the guide's worked example: no board_view

    monkeypatch.setitem(games._REGISTRY, "connect3", games.GameEntry("example_game.ConnectThree"))
    game = ConnectThree()
    service = ModelService(game, uniform_evaluator, default_simulations=4)
    with TestClient(create_app(service)) as client:
        game_json = new_session(client, moves="12")
        assert game_json["board"] is None and game_json["text"] == game.render(
            game.states_from_moves(["12"])[0]
        )
        assert [(c["move"], c["target"]) for c in game_json["controls"]] == [(m, None) for m in "1234"]
        assert post(client, game_json, "move", {"move": "3"}).json()["moves"] == "123"


def _free_port() -> int:
    with socket.socket() as sock:
        sock.bind(("127.0.0.1", 0))
        return sock.getsockname()[1]


def test_play_web_refuses_bad_options_before_serving(connect4_model, capsys):
    model = str(connect4_model)
    assert main(["--web", "--engine", "--model", model]) == 2
    assert "--web and --engine" in capsys.readouterr().err
    assert main(["--web", "--model", model, "--port", "70000"]) == 2
    assert "--port: expected 0..65535, got 70000" in capsys.readouterr().err
    assert main(["--web", "--model", model, "--opponent", "alphabeta"]) == 2
    assert "alphabeta needs depth=PLIES" in capsys.readouterr().err
    with socket.socket() as taken:
        taken.bind(("127.0.0.1", 0))
        taken.listen(1)
        port = taken.getsockname()[1]
        assert main(["--web", "--model", model, "--port", str(port)]) == 2
        assert f"cannot listen on 127.0.0.1:{port}" in capsys.readouterr().err
    assert (
        main(["--web", "--model", model, "--host", "no-such-host.invalid", "--port", str(_free_port())]) == 2
    )
    assert "--host: cannot resolve 'no-such-host.invalid'" in capsys.readouterr().err


def test_model_service_rejects_a_default_budget_over_the_limit():
    with pytest.raises(ValueError, match="expected 0 <= default simulations <= 10, got 11"):
        ModelService(games.make("tictactoe"), uniform_evaluator, default_simulations=11, max_simulations=10)


def test_session_seeds_are_distinct_children_of_the_base_seed():
    service = ModelService(games.make("tictactoe"), uniform_evaluator, seed=5)
    first, second = service.session_seed(), service.session_seed()
    assert first.spawn_key == (0,) and second.spawn_key == (1,) and first.entropy == 5
    assert not np.array_equal(first.generate_state(2), second.generate_state(2))


def test_a_stopping_server_ends_the_model_search_and_leaves_the_game():
    """``play --web`` sets ``stopping`` on Ctrl-C: the search ends at its next network call."""
    service = ModelService(games.make("tictactoe"), uniform_evaluator, default_simulations=8)
    with TestClient(create_app(service)) as client:
        game = new_session(client, seats=[MODEL, HUMAN])
        service.stopping.set()
        answer = post(client, game, "advance", {})
        assert answer.status_code == 503 and answer.json()["error"] == "the server is stopping"
        assert get(client, game) == game


def test_loopback_addresses_and_a_free_port():
    from frontends.web.server import bind, is_loopback

    assert all(is_loopback(host) for host in ("localhost", "127.0.0.1", "127.8.0.1", "::1"))
    assert not any(is_loopback(host) for host in ("0.0.0.0", "192.168.1.2", "example.org"))
    sock = bind("127.0.0.1", 0)
    try:
        assert sock.getsockname()[0] == "127.0.0.1" and sock.getsockname()[1] > 0
    finally:
        sock.close()


# ----------------------------------------------------------------- creation: validate, then store
def test_bad_creates_store_nothing(service):
    app = create_app(service)
    store = app.state.store
    with TestClient(app) as client:
        new_session(client)
        assert len(store) == 1
        for body, status in (
            ({"seats": ["human", "robot"]}, 400),
            ({"seats": ["human"]}, 400),
            ({"moves": "12x"}, 400),
            ({"moves": "1" * 85}, 400),
            ({"seats": ["human", "model", "model"]}, 422),
            ({"moves": 12}, 422),
        ):
            answer = client.post("/api/sessions", json=body)
            assert answer.status_code == status, answer.text
            assert len(store) == 1
        assert store.count("testclient") == 1


def test_one_address_holds_at_most_its_cap_and_other_addresses_keep_their_games(service):
    app = create_app(service, max_sessions=5, max_sessions_per_client=3)
    store = app.state.store
    with TestClient(app) as client:
        kept = [new_session(client) for _ in range(3)]
        answer = client.post("/api/sessions", json={})
        assert answer.status_code == 429
        assert answer.json()["error"] == (
            "too many games from your address: 3 are open and 3 is the most; "
            "play on in a tab you have open, or ask whoever runs the server to restart it"
        )
        assert len(store) == 3 and store.count("testclient") == 3
        for game in kept:  # the refused create dropped none of them
            assert client.get(f"/api/sessions/{game['session']}").status_code == 200
        # another address (a second client) still gets its own games up to the store's size
        other = store.create("192.0.2.7")
        store.create("192.0.2.7")
        assert (len(store), store.count("192.0.2.7")) == (5, 2)
        assert client.get(f"/api/sessions/{other.id}").status_code == 200
        with pytest.raises(RequestError) as refused:
            store.create("192.0.2.7", seats=["model", "robot"])
        assert refused.value.status == 400 and (len(store), store.count("192.0.2.7")) == (5, 2)


# ------------------------------------------------------------------------ a game with chance: Pig
@pytest.fixture(scope="module")
def pig_model(tmp_path_factory) -> Path:
    return export_tiny_mlp("pig", tmp_path_factory.mktemp("web-pig") / "best")


@pytest.fixture
def pig_client(pig_model):
    """A fresh server (seed 0: its first session's dice are the same in every run)."""
    game, evaluate_fn = load_model(str(pig_model))
    service = ModelService(game, evaluate_fn, model_name="tiny", default_simulations=8, max_simulations=400)
    with TestClient(create_app(service)) as client:
        yield client


def summary(answer) -> tuple:
    body = answer.json()
    if answer.status_code >= 400:
        return answer.status_code, body["error"]
    roll = body["last_roll"]
    return answer.status_code, body["moves"], body["turn"], None if roll is None else (roll["outcome"], roll["player"])


def test_pig_rolls_the_sessions_dice_after_each_roll_and_the_game_goes_on(pig_client):
    """A roll is followed at once by the die's face, drawn with the session's seeded dice; after it
    the player who rolled decides again (or, on a 1, the other player does)."""
    game = new_session(pig_client)
    assert (game["moves"], game["turn"], game["last_roll"]) == ("", HUMAN, None)
    assert [c["move"] for c in game["controls"]] == ["r", "h"]
    steps = [
        ("move", {"move": "r"}, (200, "r1", MODEL, ("1", 0))),  # X rolls a 1: the turn passes to O
        ("move", {"move": "r"}, (409, "it is the model's turn (O)")),
        ("advance", {}, (200, "r1r1", HUMAN, ("1", 1))),  # the model rolls a 1 too
        ("advance", {}, (409, "it is your turn (X): send a move")),
        ("move", {"move": "r"}, (200, "r1r1r3", HUMAN, ("3", 0))),  # a 3: X decides again
        ("move", {"move": "h"}, (200, "r1r1r3h", MODEL, ("3", 0))),
        ("undo", None, (200, "r1r1r3", HUMAN, ("3", 0))),
        ("undo", None, (200, "r1r1", HUMAN, ("1", 1))),  # the roll goes with the decision before it
    ]
    for action, body, expected in steps:
        assert summary(post(pig_client, game, action, body)) == expected
    answer = get(pig_client, game)
    assert answer["move_list"] == ["r", "1", "r", "1"] and answer["ply"] == 4
    assert answer["text"] == "goal 100, die d6\nplayer 0: 0   player 1: 0\nplayer 0 to move, turn total 0"


def test_a_pig_start_position_with_dice_plays_on(pig_client):
    """``--position r4`` (a roll and its face): every later request answers as the game says."""
    game = new_session(pig_client, moves="r4")
    assert (game["moves"], game["turn"], game["can_undo"]) == ("r4", HUMAN, False)
    assert game["text"] == "goal 100, die d6\nplayer 0: 0   player 1: 0\nplayer 0 to move, turn total 4"
    assert summary(post(pig_client, game, "move", {"move": "h"})) == (200, "r4h", MODEL, ("4", 0))
    assert summary(post(pig_client, game, "advance", {})) == (200, "r4hr1", HUMAN, ("1", 1))
    assert summary(post(pig_client, game, "hint", {"sims": 4}))[:3] == (200, "r4hr1", HUMAN)
    assert get(pig_client, game)["text"].splitlines()[1] == "player 0: 4   player 1: 0"
    # a start position that ends with a roll is rolled at once (the server's second session: a 1)
    rolled = new_session(pig_client, moves="r4r")
    assert (rolled["moves"], rolled["turn"], rolled["last_roll"]) == ("r4r1", MODEL, {"ply": 3, "outcome": "1", "player": 0})


def test_othello_games_with_a_pass_load_as_new_games():
    """Finished 6x6 games with passes (``pass`` is 4 characters) load, written plainly or spaced,
    and the page draws the replayed position."""
    game = games.make("othello6x6")
    service = ModelService(game, uniform_evaluator, model_name="uniform", default_simulations=4)
    with TestClient(create_app(service)) as client:
        session = new_session(client, seats=[HUMAN, HUMAN])
        for text in finished_games_with_a_pass(game, seed=0, count=17):
            state = tuple(int(v) for v in game.states_from_moves([text])[0])
            spaced = " ".join(game.action_to_string(a) for a in game.parse_moves(text))
            for moves in (text, spaced):
                answer = post(client, session, "new", {"moves": moves})
                assert answer.status_code == 200, answer.text
                loaded = answer.json()
                assert (loaded["moves"], loaded["text"]) == (text, game.render(state))
                assert loaded["result"]["text"] == result_text(game, state)
            created = client.post("/api/sessions", json={"seats": [HUMAN, HUMAN], "moves": text})
            assert created.status_code == 201 and created.json()["text"] == game.render(state)
