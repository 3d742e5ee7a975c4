"""Arena matches, the ``arena`` command and ladders (paired openings; a perfect player against random)."""

from __future__ import annotations

import json

import numpy as np
import pytest

import games
from arena.match import run_ladder, run_match
from arena.players import RandomPlayer, SolverPlayer
from frontends.arena_cli import main
from games.base import NO_WINNER

#: a Connect Four position at ply 16 that is a draw under perfect play and solves in milliseconds
DRAWN_CONNECT4 = "4756644264521244"


def _replay_winner(game, moves: str) -> int:
    state = game.initial_state()
    for action in game.parse_moves(moves):
        state = game.result(state, action)
    assert game.terminal_test(state)
    return int(game.winner(np.asarray(state, dtype=np.int64)[None])[0])


def test_perfect_player_never_loses_to_random_and_counts_agree_with_the_log(tictactoe):
    # a perfect player against random: 20 games, colours alternated, never loses, per-colour counts agree with the log
    result = run_match(
        tictactoe, SolverPlayer(rng=1), RandomPlayer(rng=2), 20, np.random.default_rng(0), opening_plies=0
    )
    assert result.losses == 0
    assert result.wins + result.draws + result.losses == 20 == result.num_games
    assert [g.a_first for g in result.games] == [i % 2 == 0 for i in range(20)]
    for a_first, record in ((True, result.as_first), (False, result.as_second)):
        log = [g.outcome_for_a for g in result.games if g.a_first == a_first]
        assert (record.wins, record.draws, record.losses) == (
            log.count("win"),
            log.count("draw"),
            log.count("loss"),
        )
        assert record.games == 10
    for g in result.games:
        assert _replay_winner(tictactoe, g.moves) == g.winner
        expected = "draw" if g.winner == NO_WINNER else ("win" if (g.winner == 0) == g.a_first else "loss")
        assert g.outcome_for_a == expected
    summary = result.to_dict()
    for field in (
        "wins",
        "draws",
        "losses",
        "score",
        "elo",
        "elo_ci",
        "distinct_games",
        "as_first",
        "as_second",
    ):
        assert field in summary
    assert summary["score"] == pytest.approx((result.wins + 0.5 * result.draws) / 20)
    assert summary["distinct_games"] == len({g.moves for g in result.games})


def test_paired_openings_and_reproducibility(tictactoe):
    def play(seed):
        return run_match(
            tictactoe,
            RandomPlayer(rng=1),
            RandomPlayer(rng=2),
            8,
            np.random.default_rng(seed),
            opening_plies=3,
        )

    result = play(5)
    for pair in range(4):
        first, second = result.games[2 * pair], result.games[2 * pair + 1]
        assert first.moves[:3] == second.moves[:3]
        assert first.opening_plies == second.opening_plies == 3
    assert len({result.games[2 * k].moves[:3] for k in range(4)}) > 1
    assert [g.moves for g in play(5).games] == [g.moves for g in result.games]


def test_openings_depend_only_on_the_seed_and_the_game_index(tictactoe):
    from arena.openings import PairedOpenings

    def play(num_games):
        return run_match(
            tictactoe, RandomPlayer(rng=1), RandomPlayer(rng=2), num_games, np.random.default_rng(9), opening_plies=2
        )

    short, long = play(4), play(10)
    assert [g.moves[:2] for g in short.games] == [g.moves[:2] for g in long.games[:4]]
    openings = PairedOpenings(tictactoe, 2, seed=11, start="5")
    assert openings.opening(6) == openings.opening(7) == PairedOpenings(tictactoe, 2, seed=11, start="5").opening(7)
    assert openings.opening(6)[0] == 4  # the start move comes first
    assert len({tuple(openings.opening(2 * pair)) for pair in range(20)}) > 1
    with pytest.raises(ValueError, match="seed"):
        PairedOpenings(tictactoe, 2, seed=-1)


def test_run_match_validates(tictactoe):
    rng = np.random.default_rng(0)
    a, b = RandomPlayer(), RandomPlayer()
    with pytest.raises(ValueError, match="num_games"):
        run_match(tictactoe, a, b, 0, rng)
    with pytest.raises(ValueError, match="opening_plies"):
        run_match(tictactoe, a, b, 2, rng, opening_plies=-1)
    with pytest.raises(ValueError, match="Generator"):
        run_match(tictactoe, a, b, 2, 0)
    with pytest.raises(ValueError, match="already finished"):
        run_match(tictactoe, a, b, 2, rng, start="14253")  # X completes the top row
    with pytest.raises(ValueError, match="move 2"):
        run_match(tictactoe, a, b, 2, rng, start="11")


def test_arena_cli_json_fields(capsys):
    status = main(
        ["solver", "random", "--game", "tictactoe", "--games", "20", "--opening-plies", "0", "--json"]
    )
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert data["losses"] == 0
    assert data["wins"] + data["draws"] + data["losses"] == 20
    assert data["as_first"]["wins"] + data["as_second"]["wins"] == data["wins"]
    assert data["score"] == pytest.approx((data["wins"] + 0.5 * data["draws"]) / 20)
    assert data["elo"] is None or data["elo"] > 0
    assert len(data["elo_ci"]) == 2 and data["elo_ci"][0] > 0
    assert 1 <= data["distinct_games"] <= 20


def test_arena_cli_solver_never_loses_connect4(capsys, tmp_path):
    out = tmp_path / "games.json"
    status = main(
        [
            "solver",
            "random",
            "--game",
            "connect4",
            "--games",
            "4",
            "--start",
            DRAWN_CONNECT4,
            "--opening-plies",
            "0",
            "--seed",
            "3",
            "--json",
            "--out",
            str(out),
        ]
    )
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    assert data["losses"] == 0 and data["wins"] + data["draws"] == 4
    saved = json.loads(out.read_text())
    assert len(saved["games"]) == 4
    game = games.make("connect4")
    for record in saved["games"]:
        assert record["moves"].startswith(DRAWN_CONNECT4)
        assert _replay_winner(game, record["moves"]) == record["winner"]
        assert record["outcome_for_a"] in ("win", "draw")


def test_two_perfect_tictactoe_players_draw_every_game_by_default(capsys):
    # the default opening for tic-tac-toe is one random ply, after which every position is a draw
    assert main(["solver", "minimax", "--game", "tictactoe", "--games", "10", "--json"]) == 0
    data = json.loads(capsys.readouterr().out)
    assert (data["wins"], data["draws"], data["losses"]) == (0, 10, 0)
    assert data["opening_plies"] == 1 and data["distinct_games"] > 1


def test_arena_cli_text_report(capsys):
    assert main(["alphabeta:depth=1", "random", "--game", "tictactoe", "--games", "6"]) == 0
    text = capsys.readouterr().out
    assert "alphabeta:depth=1 (A) vs random (B): tictactoe, 6 games" in text
    for word in ("overall", "A first", "A second", "score", "95% CI", "Elo", "distinct games"):
        assert word in text


def test_arena_cli_errors(capsys):
    assert main(["alphabeta:depht=3", "random", "--game", "tictactoe"]) == 2
    assert "unknown option 'depht'" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["random", "--game", "tictactoe"])
    assert main(["solver", "random", "--game", "tictactoe", "--start", "99"]) == 2


def test_ladder_anchors_random_and_orders_players(tictactoe, capsys):
    status = main(
        [
            "--ladder",
            "random",
            "solver",
            "alphabeta:depth=1",
            "--game",
            "tictactoe",
            "--games",
            "6",
            "--opening-plies",
            "1",
            "--json",
        ]
    )
    assert status == 0
    data = json.loads(capsys.readouterr().out)
    ratings = data["ratings"]
    assert data["anchor"] == "random"
    assert ratings["random"]["elo"] == 0.0
    assert ratings["solver"]["elo"] > ratings["random"]["elo"]
    low, high = ratings["solver"]["ci"]
    assert low < ratings["solver"]["elo"] < high
    assert len(data["matches"]) == 3
    assert all(r["games"] == 12 for r in ratings.values())


def test_run_ladder_rejects_duplicates(tictactoe):
    with pytest.raises(ValueError, match="distinct"):
        run_ladder(tictactoe, [RandomPlayer(), RandomPlayer()], 2, np.random.default_rng(0))


def test_arena_cli_rejects_bad_levels_before_playing(capsys):
    with pytest.raises(SystemExit):
        main(["random", "random", "--game", "tictactoe", "--confidence", "1.5"])
    assert "--confidence" in capsys.readouterr().err
    with pytest.raises(SystemExit):
        main(["--ladder", "random", "minimax", "--game", "tictactoe", "--prior-draws", "-1"])
    assert "--prior-draws" in capsys.readouterr().err


def test_arena_takes_the_game_from_the_model(tmp_path):
    from frontends.arena_cli import _game_of_models
    from networks import build_network
    from networks.config import NetworkConfig
    from networks.export import export_model

    game = games.make("tictactoe")
    config = NetworkConfig(kind="mlp", mlp_hidden=(8,), value_hidden=4)
    export_model(build_network(config, game.observation_shape, game.num_actions), config, game.name, game.version, tmp_path)
    assert _game_of_models(["random", f"mcts:model={tmp_path},sims=4"]) == "tictactoe"
    assert _game_of_models(["random", "uct:sims=10"]) == "connect4"
