"""Exact results of two stationary Pig policies (games/pig/policy_chain.py), checked by hand, by a
transition matrix built from the game's own rules, and by seeded simulation."""

from __future__ import annotations

import math
from fractions import Fraction

import numpy as np
import pytest

import games
from games.pig.game import CHANCE, HOLD, ROLL, SCORE_0, SCORE_1, TO_PLAY, TURN_TOTAL
from games.pig.policy_chain import (
    hold_at_table,
    hold_table,
    optimal_hold_table,
    policy_match_against_optimal,
    policy_win_probabilities,
)
from games.pig.solver import solve


def test_optimal_against_optimal_gives_the_papers_first_player_win_probability_at_goal_100():
    hold = optimal_hold_table(solve(100))
    first, second = policy_win_probabilities(100, 6, hold, hold)
    assert first == pytest.approx(0.5305927, abs=5e-8)  # Neller & Presser 2004
    assert first == pytest.approx(solve(100).win_probability(0, 0, 0), abs=1e-10)
    assert second == pytest.approx(1.0 - first, abs=1e-10)


@pytest.mark.parametrize(
    ("goal", "expected"),
    [
        # a two-sided die, both always roll: goal 2 is won by the first 2 (P = 1/2 + (1 - P) / 2)
        (2, Fraction(2, 3)),
        # goal 3 needs two 2s in one turn (1/4): P = 1/4 + 3/4 (1 - P)
        (3, Fraction(4, 7)),
    ],
)
def test_always_rolling_with_a_two_sided_die_by_hand(goal, expected):
    never = np.zeros((goal, goal, goal), dtype=bool)
    first, second = policy_win_probabilities(goal, 2, never, never)
    assert first == pytest.approx(float(expected), abs=1e-12)
    assert second == pytest.approx(float(1 - expected), abs=1e-12)


def test_two_policies_that_always_pass_never_finish():
    always = np.ones((5, 5, 5), dtype=bool)
    assert policy_win_probabilities(5, 6, always, always) == (0.0, 0.0)


def _absorbing_chain_probability(game, hold_first, hold_second) -> float:
    """P(first player wins) from a transition matrix over the states the game's own ``result`` and
    ``chance_result`` reach (the ply and decision counters left out of a state's key)."""
    start = game.initial_state()

    def key(state):
        return (state[TO_PLAY], state[SCORE_0], state[SCORE_1], state[TURN_TOTAL], state[CHANCE])

    index, states, queue = {}, [], [start]
    index[key(start)] = 0
    states.append(start)
    edges = []
    while queue:
        state = queue.pop()
        row = index[key(state)]
        if game.is_chance_state(state):
            moves = [(game.chance_result(state, o), p) for o, p in game.chance_outcomes(state)]
        else:
            player = game.player(state)
            own, other = state[SCORE_0 + player], state[SCORE_1 - player]
            table = hold_first if player == 0 else hold_second
            legal = game.actions(state)
            action = HOLD if ROLL not in legal or table[own, other, state[TURN_TOTAL]] else ROLL
            moves = [(game.result(state, action), 1.0)]
        for child, probability in moves:
            if game.terminal_test(child):
                edges.append((row, None, probability * (game.utility(child, 0) > 0)))
                continue
            if key(child) not in index:
                index[key(child)] = len(states)
                states.append(child)
                queue.append(child)
            edges.append((row, index[key(child)], probability))
    size = len(states)
    matrix, rhs = np.eye(size), np.zeros(size)
    for row, column, probability in edges:
        if column is None:
            rhs[row] += probability
        else:
            matrix[row, column] -= probability
    return float(np.linalg.solve(matrix, rhs)[0])


@pytest.mark.parametrize(("goal", "die", "seed"), [(6, 3, 0), (8, 4, 1), (7, 6, 2)])
def test_random_policies_on_small_goals_match_a_linear_solve_over_the_games_own_transitions(goal, die, seed):
    rng = np.random.default_rng(seed)
    tables = []
    for _ in range(2):
        table = rng.random((goal, goal, goal)) < 0.4
        table[:, :, 0] = False  # no passing with a turn total of 0: every game ends
        tables.append(table)
    game = games.make("pig", goal=goal, die=die, horizon=10**6)
    expected = _absorbing_chain_probability(game, *tables)
    first, second = policy_win_probabilities(goal, die, *tables)
    assert first == pytest.approx(expected, abs=1e-10)
    assert first + second == pytest.approx(1.0, abs=1e-10)


def _simulate(game, hold_first, hold_second, num_games: int, rng) -> float:
    """Share of ``num_games`` seeded games (the game's batched rules) won by the first player."""
    states = game.initial_states(num_games)
    rows = np.arange(num_games)
    while True:
        live = ~game.terminal(states)
        if not live.any():
            break
        chance = live & game.is_chance(states)
        if chance.any():
            states[chance] = game.apply_chance(states[chance], game.sample_chance(states[chance], rng))
            continue
        player = states[:, TO_PLAY]
        own, other, turn = states[rows, SCORE_0 + player], states[rows, SCORE_1 - player], states[:, TURN_TOTAL]
        reached = own + turn >= game.goal
        index = np.minimum(own, game.goal - 1), np.minimum(other, game.goal - 1), np.minimum(turn, game.goal - 1)
        holds = np.where(player == 0, hold_first[index], hold_second[index]) | reached
        states[live] = game.step(states[live], np.where(holds, HOLD, ROLL)[live])
    return float(np.mean(game.winner(states) == 0))


def test_hold_at_20_against_optimal_play_matches_seeded_games_within_their_interval():
    game = games.make("pig")
    optimal, hold20 = optimal_hold_table(solve(100)), hold_at_table(100, 20)
    as_first = policy_win_probabilities(100, 6, hold20, optimal)[0]
    as_second = policy_win_probabilities(100, 6, optimal, hold20)[1]
    assert as_first == pytest.approx(0.4916579354531, abs=1e-9)
    assert as_second == pytest.approx(0.4285015697228, abs=1e-9)
    num_games = 20_000
    rng = np.random.default_rng(20)
    simulated_first = _simulate(game, hold20, optimal, num_games, rng)
    simulated_second = 1.0 - _simulate(game, optimal, hold20, num_games, rng)
    for exact, simulated in ((as_first, simulated_first), (as_second, simulated_second)):
        assert abs(simulated - exact) < 4.5 * math.sqrt(exact * (1 - exact) / num_games)


def test_policy_match_against_optimal_asks_the_policy_at_every_decision_state_of_each_seat():
    game = games.make("pig", goal=10)
    solver = games.knowledge(game).exact_solver()
    seats = []

    def optimal_policy(states):
        seats.append(int(states[0, TO_PLAY]))
        return np.array([solver.optimal_action(*_ijk(row)) for row in states])

    result = policy_match_against_optimal(game, optimal_policy)
    assert seats == [0, 1] and result["mean_win"] == pytest.approx(0.5, abs=1e-10)
    assert result["as_first"]["win"] == pytest.approx(0.7094243226, abs=1e-9)
    assert result["as_second"]["win"] == pytest.approx(1 - 0.7094243226, abs=1e-9)
    assert result["as_first"]["unfinished"] == pytest.approx(0.0, abs=1e-10)
    np.testing.assert_array_equal(hold_table(game, optimal_policy, 0), optimal_hold_table(solver))


def _ijk(row):
    player = row[TO_PLAY]
    return int(row[SCORE_0 + player]), int(row[SCORE_1 - player]), int(row[TURN_TOTAL])


def test_a_policy_answering_with_other_actions_is_refused():
    game = games.make("pig", goal=5)
    with pytest.raises(ValueError, match=r"policy_fn: expected \[75\] actions in \{0, 1\}"):
        hold_table(game, lambda states: np.full(len(states), 2), 0)
    with pytest.raises(ValueError, match=r"hold_first: expected a \[5, 5, 5\] bool hold table, got int64 \(5, 5, 5\)"):
        policy_win_probabilities(5, 6, np.zeros((5, 5, 5), dtype=np.int64), np.zeros((5, 5, 5), dtype=bool))
