"""Property tests of the batched search on random positions of the real games (hypothesis)."""

from __future__ import annotations

import numpy as np
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from mcts import ROOT_INDEX, UNVISITED, PUCTConfig, reroot, state_evaluator
from mcts.search import run_puct


def random_positions(game, seed: int, batch: int) -> np.ndarray:
    """``batch`` non-terminal positions reached by random play of random length."""
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < batch:
        state = game.initial_states(1)
        for _ in range(int(rng.integers(0, game.max_game_length))):
            legal = game.legal_mask(state)[0]
            nxt = game.step(state, np.array([rng.choice(np.flatnonzero(legal))]))
            if game.terminal(nxt)[0]:
                break
            state = nxt
        rows.append(state[0])
    return np.stack(rows)


def noisy_evaluator(seed: int):
    """Random priors (sometimes degenerate) and values, from its own generator."""
    rng = np.random.default_rng(seed)

    @state_evaluator
    def evaluate(states, legal_mask):
        priors = rng.random(legal_mask.shape).astype(np.float32)
        priors[rng.random(len(states)) < 0.1] = 0.0  # degenerate rows
        return priors, rng.uniform(-1, 1, len(states)).astype(np.float32)

    return evaluate


@settings(max_examples=25, deadline=None)
@given(
    game_name=st.sampled_from(["tictactoe", "connect4"]),
    seed=st.integers(0, 10_000),
    batch=st.integers(1, 6),
    num_simulations=st.integers(1, 60),
    noise=st.booleans(),
    c_base=st.sampled_from([None, 19652.0, 10.0]),
    fpu=st.sampled_from([0.0, -1.0, 0.5]),
)
def test_search_invariants(game_name, seed, batch, num_simulations, noise, c_base, fpu):
    game = games.make(game_name)
    states = random_positions(game, seed, batch)
    config = PUCTConfig(num_simulations=num_simulations, c_base=c_base, fpu_value=fpu)
    out = run_puct(game, states, noisy_evaluator(seed), config, np.random.default_rng(seed), noise)
    legal = game.legal_mask(states)
    tree = out.tree
    assert out.visit_counts.sum(axis=1).tolist() == [num_simulations] * batch
    assert np.all(out.visit_counts[~legal] == 0)
    assert np.all(np.isnan(out.q_values[out.visit_counts == 0]))
    visited = out.visit_counts > 0
    assert np.all(np.abs(out.q_values[visited]) <= 1.0)
    assert np.all(np.abs(out.root_values) <= 1.0)
    assert np.all(tree.children_prior[~tree.children_legal] == 0.0)
    for b in range(batch):
        used = tree.num_nodes[b]
        assert 1 <= used <= num_simulations + 1
        live = ~tree.node_terminal[b, :used]
        np.testing.assert_allclose(tree.children_prior[b, :used][live].sum(axis=1), 1.0, rtol=1e-5)
        np.testing.assert_array_equal(tree.children_legal[b, :used], game.legal_mask(tree.node_states[b, :used]))
        for i in range(1, used):
            parent, action = tree.parents[b, i], tree.action_from_parent[b, i]
            assert tree.children_index[b, parent, action] == i
            np.testing.assert_array_equal(
                tree.node_states[b, i], game.step(tree.node_states[b, parent][None], np.array([action]))[0]
            )
        assert np.all(tree.children_index[b, used:] == UNVISITED)
    actions = np.argmax(out.visit_counts, axis=1)
    new = reroot(tree, actions)
    rows = np.arange(batch)
    np.testing.assert_array_equal(new.node_visits[:, ROOT_INDEX], out.visit_counts[rows, actions])
