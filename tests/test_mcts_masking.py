"""The compiled prior masking and Gumbel root choice give the same floats as their numpy twins."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from mcts import GumbelConfig
from mcts.gumbel import _halving_actions, _root_scores, _visit_table
from mcts.halving import halving_actions_compiled
from mcts.kernels import RULE_GUMBEL, selection_params
from mcts.masking import MAX_ACTIONS, mask_priors_fast, pairwise_sum
from mcts.policy import mask_priors
from mcts.search import LoopSettings, search_loop


@pytest.mark.parametrize("count", [1, 7, 8, 9, 15, 16, 17, 65, 127, 128])
def test_pairwise_sum_is_numpys_sum_to_the_last_bit(count):
    rng = np.random.default_rng(count)
    for _ in range(200):
        values = rng.random(count) * 10.0 ** rng.uniform(-6, 6, size=count)
        assert pairwise_sum(values, count, 0.0) == values.sum()
        single = values.astype(np.float32)
        assert pairwise_sum(single, count, np.float32(0.0)) == single.sum()


@settings(max_examples=200, deadline=None)
@given(
    rows=st.integers(1, 5), actions=st.integers(1, MAX_ACTIONS), seed=st.integers(0, 2**32 - 1),
    dtype=st.sampled_from([np.float32, np.float64]), spoil=st.sampled_from(["none", "nan", "negative", "zero"]),
)
def test_compiled_masking_equals_mask_priors_bit_for_bit(rows, actions, seed, dtype, spoil):
    rng = np.random.default_rng(seed)
    priors = (rng.random((rows, actions)) * 10.0 ** rng.uniform(-8, 2, size=(rows, actions))).astype(dtype)
    legal = rng.random((rows, actions)) < 0.7
    legal[-1] = False  # a row without a legal action (all zero, not degenerate)
    if spoil == "nan":
        priors[0, 0] = np.nan
    elif spoil == "negative":
        priors[0, -1] = -1.0
    elif spoil == "zero":
        priors[0] = 0.0
    expected, expected_degenerate = mask_priors(priors, legal)
    masked, degenerate = mask_priors_fast(priors, legal)
    assert masked.dtype == np.float32
    assert masked.tobytes() == expected.tobytes()
    assert degenerate.tolist() == expected_degenerate.tolist()


def test_compiled_masking_refuses_mismatched_shapes_as_mask_priors():
    with pytest.raises(ValueError, match=r"expected priors and legal_mask of one shape \[B, A\], got \(1, 3\) and \(1, 2\)"):
        mask_priors_fast(np.ones((1, 3)), np.ones((1, 2), dtype=bool))


@pytest.mark.parametrize("game_name", ["tictactoe", "connect4"])
def test_compiled_gumbel_root_choice_equals_the_numpy_scores(game_name):
    game = games.make(game_name)
    config = GumbelConfig(num_simulations=24, max_num_considered_actions=4)
    roots = game.states_from_moves(["", "1", "12", "123"] if game_name == "tictactoe" else ["", "4", "44", "4453"])
    rng = np.random.default_rng(3)
    draw = rng.random((len(roots), game.num_actions))

    def evaluate(observations, legal_mask):  # varied priors and values, so scores differ per row
        rows = observations.shape[0]
        priors = np.where(legal_mask, draw[np.arange(rows) % len(draw)] + 0.05, 0.0)
        return priors, np.linspace(-0.5, 0.5, rows, dtype=np.float32)

    table = _visit_table(config.max_num_considered_actions, config.num_simulations)
    compared = []

    def root_action_fn(tree, simulation):
        legal = tree.children_legal[:, 0]
        logits = np.where(legal, np.log(np.maximum(tree.root_raw_prior.astype(np.float64), np.finfo(np.float32).tiny)), 0.0)
        gumbel = np.where(legal, np.random.default_rng(simulation).gumbel(size=legal.shape), 0.0)
        considered = np.minimum(config.max_num_considered_actions, legal.sum(axis=1)).astype(np.int64)
        scores, visits, playable = _root_scores(tree, gumbel, logits, config, False)
        expected = _halving_actions(scores, visits, playable, table[considered, simulation])
        actions = np.zeros(len(roots), dtype=np.int32)
        halving_actions_compiled(
            tree.arrays(), gumbel, logits, table[considered], simulation, config.c_visit, config.c_scale, actions
        )
        compared.append((actions.tolist(), expected.tolist()))
        return actions

    selection = selection_params(RULE_GUMBEL, c_visit=config.c_visit, c_scale=config.c_scale)
    search_loop(game, roots, evaluate, rng, LoopSettings(config.num_simulations, selection), root_action_fn=root_action_fn)
    assert len(compared) == config.num_simulations
    assert all(actions == expected for actions, expected in compared)
    assert len({action for actions, _ in compared for action in actions}) >= 3  # the choice varies
