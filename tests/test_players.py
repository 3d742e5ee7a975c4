"""Baseline players and the sequential match driver."""

from __future__ import annotations

import numpy as np
import pytest

import games
from arena.players import (
    AlphaBetaPlayer,
    MatchResult,
    MinimaxPlayer,
    Player,
    RandomPlayer,
    Record,
    UCTPlayer,
    make_player,
    make_rng,
    play_game,
    play_match,
)
from games.base import NO_WINNER


class _FixedPlayer:
    """Plays the moves it is given, in order (a test double)."""

    def __init__(self, moves, name="fixed"):
        self.moves = list(moves)
        self.name = name
        self.rng = np.random.default_rng(0)

    def select_action(self, game, state):
        return self.moves.pop(0)


def test_every_baseline_follows_the_protocol():
    for player in (RandomPlayer(), MinimaxPlayer(), AlphaBetaPlayer(depth=2), UCTPlayer(10)):
        assert isinstance(player, Player)
        assert isinstance(player.rng, np.random.Generator)
    assert [
        make_player(kind, **opts).name
        for kind, opts in [
            ("random", {}),
            ("minimax", {}),
            ("alphabeta", {"depth": 4}),
            ("uct", {"num_simulations": 50}),
        ]
    ] == ["random", "minimax", "alphabeta(depth=4)", "uct(50)"]
    assert AlphaBetaPlayer(depth=8, time_limit=0.5).name == "alphabeta(depth=8,time=0.5s)"


def test_random_player_is_legal_and_reproducible(connect4):
    state = connect4.initial_state()
    for _ in range(3):
        state = connect4.result(state, 3)
    first = [RandomPlayer(rng=7).select_action(connect4, state) for _ in range(5)]
    player = RandomPlayer(rng=7)
    sequence = [player.select_action(connect4, state) for _ in range(50)]
    assert all(a in connect4.actions(state) for a in sequence)
    assert len(set(sequence)) == 7
    assert first == [sequence[0]] * 5


def test_minimax_player_plays_the_winning_move(tictactoe):
    state = tictactoe.state_from_board("X X . / O O . / . . .")
    assert MinimaxPlayer().select_action(tictactoe, state) == 2
    # corner, adjacent edge: X wins with 3, 4 or 6; "lowest" picks 3, "random" one of them
    state = tictactoe.state_from_board("X O . / . . . / . . .")
    assert MinimaxPlayer(tie_break="lowest").select_action(tictactoe, state) == 3
    picks = {MinimaxPlayer(rng=seed).select_action(tictactoe, state) for seed in range(30)}
    assert picks == {3, 4, 6}


def test_minimax_never_loses_to_random(tictactoe):
    result = play_match(tictactoe, MinimaxPlayer(), RandomPlayer(), num_games=100, seed=0)
    assert result.num_games == 100
    assert (result.as_first.losses, result.as_second.losses) == (0, 0)
    assert result.as_first.games == result.as_second.games == 50
    assert result.wins >= 80


def test_minimax_against_itself_always_draws(tictactoe):
    result = play_match(tictactoe, MinimaxPlayer(), MinimaxPlayer(), num_games=10, seed=1)
    assert result.draws == 10


def test_alphabeta_depth_4_beats_random_at_connect4(connect4):
    result = play_match(connect4, AlphaBetaPlayer(depth=4), RandomPlayer(), num_games=100, seed=0)
    assert result.wins >= 99
    assert result.as_first.games == result.as_second.games == 50


def test_alphabeta_player_with_a_time_limit_records_its_search(connect4):
    player = AlphaBetaPlayer(time_limit=0.0)
    action = player.select_action(connect4, connect4.initial_state())
    assert action in range(7)
    assert player.last_result.depth == 1
    capped = AlphaBetaPlayer(depth=3, time_limit=60.0)
    capped.select_action(connect4, connect4.initial_state())
    assert capped.last_result.depth == 3


@pytest.mark.slow
def test_uct_1000_never_loses_to_random_at_tictactoe(tictactoe):
    pytest.importorskip("mcts.uct")
    result = play_match(tictactoe, UCTPlayer(num_simulations=1000), RandomPlayer(), num_games=100, seed=0)
    assert (result.as_first.losses, result.as_second.losses) == (0, 0)
    assert result.as_first.games == result.as_second.games == 50


def test_uct_takes_the_immediate_win(tictactoe):
    pytest.importorskip("mcts.uct")
    state = tictactoe.state_from_board("X X . / O O . / . . .")
    assert UCTPlayer(num_simulations=200).select_action(tictactoe, state) == 2


def test_play_game_reports_winner_and_moves(tictactoe):
    # X: 0, 1, 2 (top row); O: 3, 4
    winner, actions = play_game(tictactoe, _FixedPlayer([0, 1, 2]), _FixedPlayer([3, 4]))
    assert (winner, actions) == (0, [0, 3, 1, 4, 2])
    winner, actions = play_game(tictactoe, _FixedPlayer([0, 1, 8]), _FixedPlayer([3, 4, 5]))
    assert (winner, actions) == (1, [0, 3, 1, 4, 8, 5])
    # X O X / X O O / O X X: a draw
    winner, _ = play_game(tictactoe, _FixedPlayer([0, 2, 3, 7, 8]), _FixedPlayer([1, 4, 5, 6]))
    assert winner == NO_WINNER


def test_play_game_rejects_an_illegal_action(tictactoe):
    with pytest.raises(ValueError, match="cheat .*illegal action 0"):
        play_game(tictactoe, _FixedPlayer([0, 1, 2]), _FixedPlayer([0], name="cheat"))


def test_play_match_alternates_colours_and_counts_from_a_side(tictactoe):
    # A wins the top row whenever it moves first; as second player it loses the same way
    def match(num_games):
        a = _FixedPlayer([0, 1, 2, 3, 4] * num_games, name="A")
        b = _FixedPlayer([3, 4, 0, 1, 2] * num_games, name="B")
        return play_match(tictactoe, a, b, num_games)

    result = match(4)
    assert isinstance(result, MatchResult)
    assert (result.player_a, result.player_b, result.as_first, result.as_second) == (
        "A", "B", Record(wins=2), Record(losses=2),
    )
    assert (result.wins, result.draws, result.losses, result.score) == (2, 0, 2, 0.5)


def test_play_match_seed_makes_it_reproducible(connect4):
    first = play_match(connect4, RandomPlayer(rng=1), RandomPlayer(rng=2), num_games=6, seed=5)
    second = play_match(connect4, RandomPlayer(rng=3), RandomPlayer(rng=4), num_games=6, seed=5)
    assert first == second


def test_invalid_arguments_raise_value_error(tictactoe):
    finished = tictactoe.state_from_board("X X X / O O . / . . .")
    with pytest.raises(ValueError, match="Generator or an int seed"):
        make_rng(None)
    with pytest.raises(ValueError, match="tie_break"):
        MinimaxPlayer(tie_break="first")
    connect4 = games.make("connect4")
    with pytest.raises(ValueError, match="use alphabeta"):
        MinimaxPlayer().select_action(connect4, connect4.initial_state())
    with pytest.raises(ValueError, match="got neither"):
        AlphaBetaPlayer()
    with pytest.raises(ValueError, match="depth must be"):
        AlphaBetaPlayer(depth=0)
    with pytest.raises(ValueError, match="time_limit"):
        AlphaBetaPlayer(time_limit=-1)
    with pytest.raises(ValueError, match="num_simulations"):
        UCTPlayer(num_simulations=0)
    with pytest.raises(ValueError, match="c must be"):
        UCTPlayer(c=-0.5)
    with pytest.raises(ValueError, match="unknown player"):
        make_player("alphazero")
    with pytest.raises(ValueError, match="num_games"):
        play_match(tictactoe, RandomPlayer(), RandomPlayer(), num_games=0)
    for player in (RandomPlayer(), MinimaxPlayer(), AlphaBetaPlayer(depth=2), UCTPlayer(10)):
        with pytest.raises(ValueError, match="non-terminal"):
            player.select_action(tictactoe, finished)
