"""The compiled single-tree UCT (mcts/uct_compiled.py); the compiled rules are in the game contract test."""

from __future__ import annotations

import numpy as np
import pytest
from helpers_games import CycleGame
from helpers_positions import P1, P2, P3, P5, TICTACTOE

import games
from games.tictactoe import TicTacToe
from mcts import UCTConfig, run_search
from mcts.tree import ROOT_INDEX
from mcts.uct import run_uct
from mcts.uct_compiled import compiled_uct_search

CONNECT4 = games.make("connect4")



def row(drawing: str) -> np.ndarray:
    return np.array(TICTACTOE.state_from_board(drawing), dtype=np.int64)


def test_compiled_uct_takes_the_win_with_an_exact_q_value():
    rng = np.random.default_rng(0)
    action, counts, q_values, _, _, _ = compiled_uct_search(TICTACTOE, row(P1), 300, rng, 1.4)
    assert action == 2
    assert counts.sum() == 300
    # the child after 2 is finished, X won: its exact value is backed up every time
    assert q_values[2] == 1.0
    assert not np.isnan(q_values[[2, 5, 6, 7, 8]]).any()  # every legal move was tried
    assert np.isnan(q_values[[0, 1, 3, 4]]).all()  # occupied cells: never visited


def test_compiled_uct_blocks_and_tries_every_move_first():
    rng = np.random.default_rng(1)
    _, counts, _, _, _, _ = compiled_uct_search(TICTACTOE, TICTACTOE.initial_states(1)[0], 9, rng, 1.4)
    assert counts.tolist() == [1] * 9
    action, counts, _, _, _, _ = compiled_uct_search(TICTACTOE, row(P2), 2000, rng, 1.4)
    assert action == 2
    assert counts[2] == counts.max()


def test_compiled_uct_only_move_draws_exactly():
    rng = np.random.default_rng(2)
    action, counts, q_values, root_value, _, _ = compiled_uct_search(TICTACTOE, row(P5), 50, rng, 1.4)
    assert action == 8
    assert counts.tolist() == [0] * 8 + [50]
    assert q_values[8] == 0.0
    assert root_value == 0.0


def test_compiled_uct_is_reproducible_from_the_generator():
    state = CONNECT4.initial_states(1)[0]
    first = compiled_uct_search(CONNECT4, state, 500, np.random.default_rng(7), 1.4)[1]
    again = compiled_uct_search(CONNECT4, state, 500, np.random.default_rng(7), 1.4)[1]
    other = compiled_uct_search(CONNECT4, state, 500, np.random.default_rng(8), 1.4)[1]
    assert first.tolist() == again.tolist()
    assert first.tolist() != other.tolist()
    assert first.sum() == 500


def test_compiled_and_batched_uct_agree_on_the_root_values():
    # same algorithm, different random streams: Q of the centre of the empty board after 4000
    # simulations agrees within sampling error (random playouts: about 0.3 for X)
    rng = np.random.default_rng(3)
    state = TICTACTOE.initial_states(1)
    _, counts, _, root_value, _, _ = compiled_uct_search(TICTACTOE, state[0], 4000, rng, 1.4)
    batched = run_uct(TICTACTOE, state, 4000, rng, 1.4)
    assert abs(root_value - float(batched.root_values[0])) < 0.1
    assert int(np.argmax(counts)) in (0, 2, 4, 6, 8)  # centre or a corner, as with the batched UCT
    assert int(np.argmax(batched.visit_counts[0])) in (0, 2, 4, 6, 8)


def test_run_search_of_one_root_is_the_compiled_search_as_one_output():
    state = TICTACTOE.initial_states(1)
    action, counts, q_values, root_value, playouts, _ = compiled_uct_search(
        TICTACTOE, state[0], 200, np.random.default_rng(5), 1.4
    )
    output = run_search(TICTACTOE, state, None, UCTConfig(num_simulations=200), np.random.default_rng(5))
    np.testing.assert_array_equal(output.visit_counts[0], counts)
    np.testing.assert_array_equal(output.q_values[0], q_values.astype(np.float32))
    assert output.actions.tolist() == [action]
    assert output.root_values.tolist() == [np.float32(root_value)]
    np.testing.assert_array_equal(output.root_priors[0], np.full(9, 1 / 9, dtype=np.float32))
    # the whole tree: the root's visits are its playout and the 200 simulations, its children's
    # visits and Q values are the search's
    tree = output.tree
    assert tree.node_visits[0, ROOT_INDEX] == 201
    np.testing.assert_array_equal(tree.children_visits(ROOT_INDEX)[0], counts)
    np.testing.assert_allclose(tree.q_values(ROOT_INDEX)[0], q_values, rtol=1e-6)
    assert output.num_evaluations.tolist() == [playouts]
    assert int(output.num_evaluations[0] + output.num_terminal_leaves[0]) == 201  # the root's playout and 200 simulations
    np.testing.assert_allclose(output.policy_targets[0], counts / 200)


def test_the_compiled_tree_is_a_well_formed_search_tree():
    # every node's visits are its own evaluation plus its children's (terminal nodes: plus every
    # revisit), every child's state is its parent's after the edge's action, and each node's
    # priors are uniform over its legal moves
    state = CONNECT4.initial_states(1)
    output = run_search(CONNECT4, state, None, UCTConfig(num_simulations=300), np.random.default_rng(11))
    tree = output.tree
    n = int(tree.num_nodes[0])
    assert 1 < n <= 301
    assert tree.node_visits[0, :n].min() >= 1 and not tree.node_visits[0, n:].any()
    for node in range(n):
        children = tree.children_index[0, node]
        created = children[children >= 0]
        if tree.node_terminal[0, node]:
            assert created.size == 0 and not tree.children_legal[0, node].any()
            continue
        assert tree.node_visits[0, node] == 1 + tree.node_visits[0, created].sum()
        legal = CONNECT4.legal_mask(tree.node_states[0, node][None])[0]
        np.testing.assert_array_equal(tree.children_legal[0, node], legal)
        np.testing.assert_allclose(tree.children_prior[0, node], np.where(legal, 1 / legal.sum(), 0.0))
        for action in np.flatnonzero(children >= 0):
            child = children[action]
            assert tree.parents[0, child] == node and tree.action_from_parent[0, child] == action
            np.testing.assert_array_equal(
                tree.node_states[0, child], CONNECT4.step(tree.node_states[0, node][None], np.array([action]))[0]
            )
            assert tree.node_to_play[0, child] == CONNECT4.to_play(tree.node_states[0, child][None])[0]
    # the root's value is the mean of its visits' backed-up values
    assert output.root_values[0] == pytest.approx(tree.node_value_sum[0, 0] / 301, abs=1e-6)


def test_a_terminal_root_is_refused():
    finished = np.array([TICTACTOE.state_from_board(P3)], dtype=np.int64)
    with pytest.raises(ValueError, match=r"must not be terminal; rows \[0\] are"):
        run_search(TICTACTOE, finished, None, UCTConfig(num_simulations=10), np.random.default_rng(0))


def test_run_search_uses_the_batched_search_for_a_game_without_compiled_rules():
    cycle = CycleGame(move_cap=50, num_actions=2)
    assert cycle.compiled_rules() is None
    output = run_search(cycle, cycle.initial_states(1), None, UCTConfig(num_simulations=20), np.random.default_rng(0))
    np.testing.assert_array_equal(
        output.visit_counts, run_uct(cycle, cycle.initial_states(1), 20, np.random.default_rng(0)).visit_counts
    )
    assert output.visit_counts.sum() == 20
    assert output.actions[0] in (0, 1)
    with pytest.raises(ValueError, match="no compiled rules"):
        compiled_uct_search(cycle, cycle.initial_states(1)[0], 20, np.random.default_rng(0), 1.4)


def test_a_playout_longer_than_the_game_is_refused():
    class ShortTicTacToe(TicTacToe):
        max_game_length = 3

    game = ShortTicTacToe()
    with pytest.raises(ValueError, match="longer than max_game_length=3"):
        run_search(game, game.initial_states(1), None, UCTConfig(num_simulations=10), np.random.default_rng(0))
