"""MCTS-solver (Winands et al. 2008; mcts/_kernels.py, mcts/solver.py): proven wins, losses and
draws back up exactly, drive selection and the final move, and Q stays in [-1, 1]."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_mcts import P1, TICTACTOE, board, hashed_evaluator, negamax

from mcts import (
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    UNPROVEN,
    UNVISITED,
    GumbelConfig,
    PUCTConfig,
    run_gumbel,
    run_puct,
    select_actions,
    solver_visit_counts,
    uniform_evaluator,
)

DOUBLE_THREAT = "X . X / . O . / X . O"  # O to move: X threatens 1 and 3, every O move loses


def losing_cell_prior(inputs, legal_mask):
    """Prior 0.9 on cell 6 (X's losing move in P1), 0.025 on every other cell; value 0."""
    legal_mask = np.asarray(legal_mask, dtype=bool)
    priors = np.full(legal_mask.shape, 0.025, dtype=np.float32)
    priors[:, 6] = 0.9
    return priors, np.zeros(legal_mask.shape[0], dtype=np.float32)


def test_win_in_one_is_proven_and_played_despite_the_prior():
    out = run_puct(TICTACTOE, board(P1), losing_cell_prior, PUCTConfig(num_simulations=64, solver=True),
                   np.random.default_rng(0), False)
    assert out.root_proof.tolist() == [PROVEN_WIN]
    assert out.root_values[0] == 1.0
    assert out.q_values[0, 2] == 1.0
    counts = solver_visit_counts(out)
    assert int(select_actions(counts, 0.0, np.random.default_rng(0))[0]) == 2
    assert int(select_actions(counts, 1.0, np.random.default_rng(0))[0]) == 2  # also when sampling


def test_without_the_solver_nothing_is_proven():
    out = run_puct(TICTACTOE, board(P1), losing_cell_prior, PUCTConfig(num_simulations=64),
                   np.random.default_rng(0), False)
    assert out.root_proof.tolist() == [UNPROVEN]
    assert np.all(out.tree.node_proof == UNPROVEN)
    np.testing.assert_array_equal(solver_visit_counts(out), out.visit_counts)


@pytest.mark.parametrize("num_simulations", [8, 9, 30, 100])
def test_double_threat_is_proven_lost_within_eight_expansions(num_simulations):
    out = run_puct(TICTACTOE, board(DOUBLE_THREAT), uniform_evaluator,
                   PUCTConfig(num_simulations=num_simulations, solver=True), np.random.default_rng(0), False)
    assert out.root_proof.tolist() == [PROVEN_LOSS]
    assert out.root_values[0] == -1.0
    legal = TICTACTOE.legal_mask(board(DOUBLE_THREAT))[0]
    np.testing.assert_array_equal(out.q_values[0, legal], [-1.0] * 4)
    assert out.visit_counts.sum() == num_simulations


def test_gumbel_root_with_the_solver_plays_the_proven_win():
    config = GumbelConfig(num_simulations=16, max_num_considered_actions=4, solver=True)
    out = run_gumbel(TICTACTOE, board(P1), losing_cell_prior, config, np.random.default_rng(0))
    assert int(out.actions[0]) == 2
    assert out.search.root_proof.tolist() == [PROVEN_WIN]
    assert out.search.root_values[0] == 1.0


def _random_position(seed: int) -> np.ndarray:
    rng = np.random.default_rng(seed)
    state = TICTACTOE.initial_states(1)
    for _ in range(int(rng.integers(0, 6))):
        legal = np.flatnonzero(TICTACTOE.legal_mask(state)[0])
        after = TICTACTOE.step(state, np.array([rng.choice(legal)]))
        if TICTACTOE.terminal(after)[0]:
            break
        state = after
    return state


@settings(max_examples=25, deadline=None)
@given(seed=st.integers(0, 10_000), num_simulations=st.integers(1, 300), gumbel=st.booleans())
def test_every_proof_is_the_exact_value_and_q_stays_in_range(seed, num_simulations, gumbel):
    state = _random_position(seed)
    if gumbel:
        config = GumbelConfig(num_simulations=num_simulations, max_num_considered_actions=4, solver=True)
        out = run_gumbel(TICTACTOE, state, hashed_evaluator, config, np.random.default_rng(seed)).search
    else:
        config = PUCTConfig(num_simulations=num_simulations, solver=True)
        out = run_puct(TICTACTOE, state, hashed_evaluator, config, np.random.default_rng(seed), True)
    tree = out.tree
    for i in range(tree.num_nodes[0]):
        node_state = tuple(int(v) for v in tree.node_states[0, i])
        if tree.node_terminal[0, i]:
            assert np.all(tree.children_index[0, i] == UNVISITED)  # terminal nodes are never expanded
            assert tree.node_proof[0, i] != UNPROVEN
        if tree.node_proof[0, i] != UNPROVEN:
            assert tree.node_proof[0, i] - PROVEN_DRAW == negamax(node_state)
    q = out.q_values[0][~np.isnan(out.q_values[0])]
    assert np.all((q >= -1.0) & (q <= 1.0))
    assert -1.0 <= out.root_values[0] <= 1.0
    values = tree.node_values()[0, : tree.num_nodes[0]]
    assert np.all((values >= -1.0) & (values <= 1.0))
