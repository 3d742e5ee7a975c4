"""UCT with random rollouts, and the rollout evaluator shared with PUCT."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_games import CycleGame, double_move_game
from helpers_positions import P1, P2, P3, P5, TICTACTOE, board

from mcts import PUCTConfig, UCTConfig, random_rollout_evaluator, random_rollouts, run_search, select_actions
from mcts.search import run_puct
from mcts.uct import run_uct


def test_random_rollouts_exact_where_the_result_is_forced():
    rng = np.random.default_rng(0)
    # P3 is finished (O to move, lost); P5's only move draws; a cycle game always draws.
    values = random_rollouts(TICTACTOE, board(P3, P5), rng, num_rollouts=8)
    assert values.dtype == np.float32
    assert values.tolist() == [-1.0, 0.0]
    cycle = CycleGame(move_cap=50, num_actions=2)
    assert random_rollouts(cycle, cycle.initial_states(3), rng).tolist() == [0.0, 0.0, 0.0]
    # The player moving twice wins: +1 for player 0 at the start, no negation for the double move.
    double = double_move_game()
    assert random_rollouts(double, double.initial_states(2), rng).tolist() == [1.0, 1.0]


def expected_playout_value(state: tuple) -> float:
    """Exact mean result of uniformly random play, for the player to move (by enumeration)."""
    if TICTACTOE.terminal_test(state):
        return TICTACTOE.utility(state, TICTACTOE.player(state))
    actions = TICTACTOE.actions(state)
    return sum(-expected_playout_value(TICTACTOE.result(state, a)) for a in actions) / len(actions)


@pytest.mark.parametrize("drawing", ["X X . / O O . / X . .", "X . . / . O . / . . .", P2])
def test_random_rollouts_are_from_the_view_of_the_player_to_move(drawing):
    rng = np.random.default_rng(1)
    states = board(drawing)
    value = random_rollouts(TICTACTOE, states, rng, num_rollouts=20000)[0]
    expected = expected_playout_value(tuple(int(v) for v in states[0]))
    assert abs(value - expected) < 0.03  # about 4 standard errors of 20000 playouts


def test_rollout_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="num_rollouts"):
        random_rollouts(TICTACTOE, board(P1), rng, num_rollouts=0)
    with pytest.raises(ValueError, match="num_rollouts"):
        random_rollout_evaluator(TICTACTOE, rng, num_rollouts=0)


def test_uct_of_one_root_wins_and_blocks():
    rng = np.random.default_rng(2)
    output = run_search(TICTACTOE, board(P1), None, UCTConfig(num_simulations=1000), rng)
    assert output.actions.tolist() == [2]
    assert output.visit_counts.sum() == 1000
    assert output.visit_counts.dtype == np.int32
    output = run_search(TICTACTOE, board(P2), None, UCTConfig(num_simulations=1000), rng)
    assert output.actions.tolist() == [2]
    assert output.visit_counts[0, 2] == output.visit_counts.max()


def test_uct_plays_the_most_visited_child_and_tries_every_move_first():
    rng = np.random.default_rng(3)
    out = run_uct(TICTACTOE, TICTACTOE.initial_states(2), 9, rng)
    assert out.visit_counts.tolist() == [[1] * 9, [1] * 9]  # untried actions first
    out = run_uct(TICTACTOE, board(P1), 300, rng)
    assert int(np.argmax(out.visit_counts[0])) == 2
    assert out.q_values[0, 2] == 1.0


def test_puct_with_rollout_values_uses_the_same_seam():
    rng = np.random.default_rng(4)
    evaluate = random_rollout_evaluator(TICTACTOE, rng, num_rollouts=2)
    out = run_puct(TICTACTOE, board(P1, P2), evaluate, PUCTConfig(num_simulations=300), rng, False)
    assert select_actions(out.visit_counts, 0.0, rng).tolist() == [2, 2]


def test_uct_validation():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="num_simulations"):
        run_uct(TICTACTOE, board(P1), 0, rng)
    with pytest.raises(ValueError, match="c finite"):
        run_uct(TICTACTOE, board(P1), 10, rng, c=-1.0)
    with pytest.raises(ValueError, match=r"root states must not be terminal; rows \[0\] are"):
        run_search(TICTACTOE, board(P3), None, UCTConfig(num_simulations=10), rng)


def play_uct_against_random(num_games_per_colour: int, num_simulations: int, seed: int) -> np.ndarray:
    """Batched games, UCT as X in the first half and O in the second; returns ``[G]`` UCT results."""
    rng = np.random.default_rng(seed)
    games_total = 2 * num_games_per_colour
    uct_player = np.repeat([0, 1], num_games_per_colour)
    states = TICTACTOE.initial_states(games_total)
    while True:
        live = np.flatnonzero(~TICTACTOE.terminal(states))
        if live.size == 0:
            break
        to_play = TICTACTOE.to_play(states[live])
        uct_rows = live[to_play == uct_player[live]]
        random_rows = live[to_play != uct_player[live]]
        if uct_rows.size:
            out = run_uct(TICTACTOE, states[uct_rows], num_simulations, rng)
            states[uct_rows] = TICTACTOE.step(states[uct_rows], select_actions(out.visit_counts, 0.0, rng))
        if random_rows.size:
            legal = TICTACTOE.legal_mask(states[random_rows])
            actions = np.argmax(np.where(legal, rng.random(legal.shape), -1.0), axis=1)
            states[random_rows] = TICTACTOE.step(states[random_rows], actions)
    winner = TICTACTOE.winner(states)
    return np.where(winner == -1, 0, np.where(winner == uct_player, 1, -1))


@pytest.mark.slow
def test_uct_1000_simulations_never_loses_to_random():
    """Issue 2's bar: 100 games, 50 per colour. Measured over 1000 games per colour (seeds 10-14):
    0 losses as X and 1 as O (random rollouts barely separate O's corner and centre replies to a
    corner opening), so a longer match can show a rare loss."""
    results = play_uct_against_random(num_games_per_colour=50, num_simulations=1000, seed=0)
    assert results.shape == (100,)
    assert np.all(results >= 0), f"losses in games {np.flatnonzero(results < 0).tolist()}"


def test_uct_beats_random_quick():
    results = play_uct_against_random(num_games_per_colour=5, num_simulations=200, seed=1)
    assert np.all(results >= 0)
