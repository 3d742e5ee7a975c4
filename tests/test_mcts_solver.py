"""MCTS-solver (Winands et al. 2008; mcts/kernels.py, mcts/solver.py): proven wins, losses and
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
    playable_actions,
    select_actions,
    solver_visit_counts,
    uniform_evaluator,
)
from mcts.gumbel import run_gumbel
from mcts.search import run_puct

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
    assert out.root_proof.tolist() == [PROVEN_WIN]
    assert out.root_values[0] == 1.0


DRAW_OR_LOSE = ". . . / X . O / X O X"  # O to move: cell 0 draws; cells 1, 2 and 4 lose (X plays 0)


def two_losing_cells_prior(inputs, legal_mask):
    """Prior 0.49 on cells 1 and 2 (both lose in DRAW_OR_LOSE), 0.01 elsewhere; value 0.5."""
    legal_mask = np.asarray(legal_mask, dtype=bool)
    priors = np.full(legal_mask.shape, 0.01, dtype=np.float32)
    priors[:, [1, 2]] = 0.49
    return priors, np.full(legal_mask.shape[0], 0.5, dtype=np.float32)


@pytest.mark.parametrize("num_considered", [2, 16])
def test_gumbel_with_the_solver_plays_the_draw_not_a_proven_loss(num_considered):
    # Winands et al. 2008, sec. 3.3: a proven loss is never played while another move is not
    # proven lost; Sequential Halving spends the simulations of proven-lost actions elsewhere
    config = GumbelConfig(num_simulations=16, max_num_considered_actions=num_considered, gumbel_scale=0, solver=True)
    out = run_gumbel(TICTACTOE, board(DRAW_OR_LOSE), two_losing_cells_prior, config, np.random.default_rng(0))
    assert out.actions.tolist() == [0]
    assert out.q_values[0, [1, 2, 4]].tolist() == [-1.0, -1.0, -1.0]  # all three proven lost


def test_playable_actions_drop_proven_losses_while_another_move_is_not_lost():
    nan = np.nan
    proven = np.array([[-1.0, nan, -1.0], [-1.0, -1.0, 0.0], [-1.0, -1.0, nan]])
    legal = np.array([[True, True, True], [True, True, True], [True, True, False]])
    assert playable_actions(proven, legal).tolist() == [
        [False, True, False],  # the unproven move
        [False, False, True],  # the proven draw
        [True, True, False],  # every legal move lost: all stay
    ]


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
        out = run_gumbel(TICTACTOE, state, hashed_evaluator, config, np.random.default_rng(seed))
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
