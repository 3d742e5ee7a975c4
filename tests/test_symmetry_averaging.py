"""Symmetry averaging of an evaluator (``mcts.evaluators.symmetry_averaged``): each position is
evaluated in every image under the game's symmetries, the priors mapped back to its own actions,
priors and values averaged."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from mcts.evaluators import state_evaluator, symmetry_averaged, uniform_evaluator

CONNECT4 = games.make("connect4")
TICTACTOE = games.make("tictactoe")


def first_action_prior(observations, legal_mask):
    """All prior on action 0 and value +1 in every image it is shown."""
    priors = np.zeros(legal_mask.shape, dtype=np.float32)
    priors[:, 0] = 1.0
    return priors, np.ones(legal_mask.shape[0], dtype=np.float32)


def left_column_evaluator(observations, legal_mask):
    """Connect Four: value +1 when column 0 holds a stone, else -1; all prior on the leftmost such
    column among 0 and 6 (column 6 when neither)."""
    left = observations[:, :, :, 0].sum(axis=(1, 2)) > 0
    values = np.where(left, 1.0, -1.0).astype(np.float32)
    priors = np.zeros(legal_mask.shape, dtype=np.float32)
    priors[np.arange(len(left)), np.where(left, 0, 6)] = 1.0
    return priors, values


def linear_network(game, seed: int):
    """An asymmetric stand-in for a network: fixed random linear maps to logits and a tanh value."""
    rng = np.random.default_rng(seed)
    size = int(np.prod(game.observation(game.initial_states(1)).shape[1:]))
    weights = rng.normal(size=(size, game.num_actions)).astype(np.float32)
    value_weights = rng.normal(size=size).astype(np.float32)

    def evaluate(observations, legal_mask):
        flat = observations.reshape(len(observations), -1)
        logits = flat @ weights
        priors = np.exp(logits - logits.max(axis=1, keepdims=True))
        return priors / priors.sum(axis=1, keepdims=True), np.tanh(flat @ value_weights * 0.3)

    return evaluate


def test_connect_four_averages_the_position_and_its_mirror_image():
    states = CONNECT4.states_from_moves(["1"])  # one stone in column 0; its mirror has it in column 6
    priors, values = symmetry_averaged(CONNECT4, first_action_prior)(
        CONNECT4.observation(states), CONNECT4.legal_mask(states)
    )
    # action 0 of the mirror image is column 6 of the position itself
    np.testing.assert_array_equal(priors, [[0.5, 0, 0, 0, 0, 0, 0.5]])
    np.testing.assert_array_equal(values, [1.0])

    priors, values = symmetry_averaged(CONNECT4, left_column_evaluator)(
        CONNECT4.observation(states), CONNECT4.legal_mask(states)
    )
    # the position: value +1, prior on column 0; the mirror: value -1, prior on its column 6 = column 0
    np.testing.assert_array_equal(priors, [[1.0, 0, 0, 0, 0, 0, 0]])
    np.testing.assert_array_equal(values, [0.0])


def test_tic_tac_toe_spreads_a_corner_prior_over_the_four_corners():
    states = TICTACTOE.initial_states(2)
    priors, values = symmetry_averaged(TICTACTOE, first_action_prior)(
        TICTACTOE.observation(states), TICTACTOE.legal_mask(states)
    )
    # the eight symmetries of the square send corner 0 to each corner twice
    np.testing.assert_array_equal(priors, [[0.25, 0, 0.25, 0, 0, 0, 0.25, 0, 0.25]] * 2)
    np.testing.assert_array_equal(values, [1.0, 1.0])


def test_each_position_keeps_its_own_row_in_a_batch():
    states = CONNECT4.states_from_moves(["1", "7", "44"])
    priors, values = symmetry_averaged(CONNECT4, left_column_evaluator)(
        CONNECT4.observation(states), CONNECT4.legal_mask(states)
    )
    # "1" and "7" are each other's mirror: the same value, mirrored priors; "44" has a stone in
    # neither column 0 nor 6: value -1 in both images, whose priors on column 6 map back to 6 and 0
    np.testing.assert_array_equal(values, [0.0, 0.0, -1.0])
    np.testing.assert_array_equal(priors[:, [0, 6]], [[1.0, 0.0], [0.0, 1.0], [0.5, 0.5]])


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 6), min_size=0, max_size=20), st.integers(0, 3))
def test_averaged_output_is_mirror_equivariant_on_any_connect_four_position(columns, seed):
    state = CONNECT4.initial_states(1)
    for column in columns:
        if CONNECT4.terminal(state)[0] or not CONNECT4.legal_mask(state)[0, column]:
            continue
        state = CONNECT4.step(state, np.array([column]))
    observations = CONNECT4.observation(state)
    mirrored = CONNECT4.transform_observation(observations, 1)
    legal = CONNECT4.legal_mask(state)
    evaluate = symmetry_averaged(CONNECT4, linear_network(CONNECT4, seed))
    priors, values = evaluate(observations, legal)
    mirror_priors, mirror_values = evaluate(mirrored, legal[:, ::-1])
    np.testing.assert_allclose(mirror_priors, priors[:, ::-1], atol=1e-6)
    np.testing.assert_allclose(mirror_values, values, atol=1e-6)
    np.testing.assert_allclose(priors.sum(axis=1), 1.0, atol=1e-5)


def test_a_game_without_symmetries_gets_the_evaluator_itself():
    pig = games.make("pig")
    assert symmetry_averaged(pig, uniform_evaluator) is uniform_evaluator


def test_an_evaluator_on_game_states_is_refused():
    with pytest.raises(ValueError, match="needs an evaluator on observations"):
        symmetry_averaged(CONNECT4, state_evaluator(lambda states, legal: uniform_evaluator(states, legal)))
