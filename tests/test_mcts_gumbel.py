"""Gumbel AlphaZero root search (Danihelka et al. 2022; mcts/gumbel.py): exact Sequential Halving
visit schedules, the completed-Q improved policy's worked example, fresh seeded Gumbel draws, no
Dirichlet noise, eliminated actions never played, batch rows independent."""

from __future__ import annotations

import numpy as np
import pytest
from test_mcts import P1, P6, TICTACTOE, board, hashed_evaluator

import games
from mcts import GumbelConfig, completed_q_policy, considered_visit_sequence, uniform_evaluator
from mcts.gumbel import run_gumbel
from mcts.policy import completed_q_sigma

CONNECT4 = games.make("connect4")
EMPTY = ". . . / . . . / . . ."


def _visits_for_fixed_ranking(m: int, n: int) -> list[int]:
    """Play the schedule with action i always ranked above action i + 1."""
    visits = [0] * m
    for wanted in considered_visit_sequence(m, n):
        best = min(i for i in range(m) if visits[i] == wanted)
        visits[best] += 1
    return visits


@pytest.mark.parametrize(
    ("m", "n", "expected"),
    [
        (4, 8, [3, 3, 1, 1]),
        (4, 32, [12, 12, 4, 4]),
        (16, 200, [49, 49, 21, 21, 9, 9, 9, 9] + [3] * 8),
        (1, 5, [5]),
        (2, 3, [2, 1]),
    ],
)
def test_sequential_halving_schedule_for_a_fixed_ranking(m, n, expected):
    assert _visits_for_fixed_ranking(m, n) == expected
    assert len(considered_visit_sequence(m, n)) == n


def test_sequential_halving_schedule_rejects_bad_sizes():
    with pytest.raises(ValueError, match="num_simulations"):
        considered_visit_sequence(4, 0)
    with pytest.raises(ValueError, match="max_num_considered_actions"):
        considered_visit_sequence(0, 8)


def constant_evaluator(inputs, legal_mask):
    """Priors 1, 1/2, 1/3, ... by action index (a fixed ranking) and value 0 everywhere."""
    legal_mask = np.asarray(legal_mask, dtype=bool)
    priors = np.where(legal_mask, 1.0 / (1.0 + np.arange(legal_mask.shape[1])), 0.0)
    return priors.astype(np.float32), np.zeros(legal_mask.shape[0], dtype=np.float32)


@pytest.mark.parametrize(
    ("game", "m", "n", "expected"),
    [
        (TICTACTOE, 4, 8, [3, 3, 1, 1, 0, 0, 0, 0, 0]),
        (CONNECT4, 4, 8, [3, 3, 1, 1, 0, 0, 0]),
        (CONNECT4, 4, 32, [12, 12, 4, 4, 0, 0, 0]),
    ],
)
def test_search_visits_follow_the_schedule(game, m, n, expected):
    """Value 0 everywhere (no terminal state within reach) and no Gumbel draw: the ranking is the
    prior's, so the root visits are exactly the schedule's."""
    states = game.initial_states(1)
    out = run_gumbel(
        game, states, constant_evaluator, GumbelConfig(num_simulations=n, max_num_considered_actions=m),
        np.random.default_rng(0), add_gumbel_noise=False,
    )
    assert out.visit_counts[0].tolist() == expected
    assert int(out.actions[0]) == 0
    assert out.considered[0].tolist() == [i < m for i in range(game.num_actions)]


def test_worked_improved_policy_example():
    """Priors [0.5, 0.3, 0.2], visits [3, 1, 0], normalised Q [0.50, 0.56, -], value 0.50."""
    args = {
        "priors": np.array([[0.5, 0.3, 0.2]]), "legal_mask": np.ones((1, 3), bool),
        "q_values": np.array([[0.50, 0.56, np.nan]]), "visit_counts": np.array([[3, 1, 0]]),
        "raw_values": np.array([0.50]), "c_visit": 50.0, "rescale_values": False,
    }
    _, sigma = completed_q_sigma(
        args["priors"], args["legal_mask"], args["q_values"], args["visit_counts"], args["raw_values"],
        c_visit=50.0, c_scale=1.0, rescale_values=False,
    )
    completed = sigma[0] / (50.0 + 3.0)
    np.testing.assert_allclose(completed, [0.50, 0.56, 0.518], atol=1e-12)  # v_mix = 0.518
    np.testing.assert_allclose(
        completed_q_policy(**args, c_scale=1.0)[0], [0.060729, 0.876207, 0.063063], atol=1e-6
    )
    np.testing.assert_allclose(
        completed_q_policy(**args, c_scale=0.1)[0], [0.441566, 0.364127, 0.194307], atol=1e-6
    )


@pytest.mark.parametrize(("drawing", "game", "num_legal"), [(EMPTY, TICTACTOE, 9), (None, CONNECT4, 7), (P6, TICTACTOE, 4)])
def test_one_policy_entry_per_legal_root_action_and_no_dirichlet_noise(drawing, game, num_legal):
    states = board(drawing) if drawing else game.initial_states(1)
    out = run_gumbel(game, states, hashed_evaluator, GumbelConfig(num_simulations=16), np.random.default_rng(3))
    legal = game.legal_mask(states)
    target = out.policy_targets[0]
    assert target.dtype == np.float32
    assert int((target > 0).sum()) == num_legal
    assert np.all(target[~legal[0]] == 0.0)
    assert np.all(np.isfinite(target))
    np.testing.assert_allclose(target.sum(), 1.0, rtol=1e-6)
    np.testing.assert_array_equal(out.root_priors, out.root_raw_priors)  # no noise mixed in
    assert out.visit_counts.sum() == 16


def test_gumbel_draw_is_fresh_per_search_and_reproducible():
    states = board(EMPTY)
    config = GumbelConfig(num_simulations=8, max_num_considered_actions=4)
    rng = np.random.default_rng(11)
    first = run_gumbel(TICTACTOE, states, uniform_evaluator, config, rng)
    second = run_gumbel(TICTACTOE, states, uniform_evaluator, config, rng)
    assert not np.array_equal(first.gumbel, second.gumbel)
    assert not np.array_equal(first.considered, second.considered) or not np.array_equal(
        first.visit_counts, second.visit_counts
    )
    again = run_gumbel(TICTACTOE, states, uniform_evaluator, config, np.random.default_rng(11))
    np.testing.assert_array_equal(first.gumbel, again.gumbel)
    np.testing.assert_array_equal(first.visit_counts, again.visit_counts)
    np.testing.assert_array_equal(first.actions, again.actions)
    np.testing.assert_array_equal(first.policy_targets, again.policy_targets)


@pytest.mark.parametrize("seed", range(12))
def test_eliminated_actions_are_never_played(seed):
    """The move has the most visits of the row (it survived every halving) and was considered,
    whatever the scores of the actions eliminated earlier."""
    states = board(EMPTY, P1, P6, "X . . / . O . / . . X")
    config = GumbelConfig(num_simulations=10, max_num_considered_actions=4)
    out = run_gumbel(TICTACTOE, states, hashed_evaluator, config, np.random.default_rng(seed))
    visits = out.visit_counts
    rows = np.arange(len(states))
    assert np.all(visits[rows, out.actions] == visits.max(axis=1))
    assert np.all(out.considered[rows, out.actions])
    assert np.all(visits[~out.considered] == 0)


def test_batch_rows_are_independent():
    states = board(EMPTY, P1, P6)
    config = GumbelConfig(num_simulations=20, max_num_considered_actions=4)
    batched = run_gumbel(TICTACTOE, states, hashed_evaluator, config, np.random.default_rng(0), add_gumbel_noise=False)
    for b in range(len(states)):
        alone = run_gumbel(
            TICTACTOE, states[b : b + 1], hashed_evaluator, config, np.random.default_rng(0), add_gumbel_noise=False
        )
        np.testing.assert_array_equal(batched.visit_counts[b], alone.visit_counts[0])
        np.testing.assert_array_equal(batched.q_values[b], alone.q_values[0])
        np.testing.assert_array_equal(batched.policy_targets[b], alone.policy_targets[0])
        assert batched.actions[b] == alone.actions[0]


def test_interior_selection_is_deterministic_and_finds_the_win():
    """P1 (X wins at 2): without a draw the search is deterministic and plays the win."""
    config = GumbelConfig(num_simulations=32, max_num_considered_actions=4)
    runs = [
        run_gumbel(TICTACTOE, board(P1), uniform_evaluator, config, np.random.default_rng(s), add_gumbel_noise=False)
        for s in (0, 1)
    ]
    np.testing.assert_array_equal(runs[0].tree.node_visits, runs[1].tree.node_visits)
    assert int(runs[0].actions[0]) == 2
    assert runs[0].q_values[0, 2] == 1.0


def test_config_validation():
    with pytest.raises(ValueError, match="num_simulations"):
        GumbelConfig(num_simulations=0)
    with pytest.raises(ValueError, match="max_num_considered_actions"):
        GumbelConfig(max_num_considered_actions=0)
    with pytest.raises(ValueError, match="gumbel_scale"):
        GumbelConfig(gumbel_scale=-1.0)
    with pytest.raises(ValueError, match="Generator"):
        run_gumbel(TICTACTOE, board(P1), uniform_evaluator, GumbelConfig(), rng=0)
