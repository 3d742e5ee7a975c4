"""Batched PUCT search: value signs, termination, masks, noise, move choice, subtree reuse and tree invariants."""

from __future__ import annotations

import functools

import numpy as np
import pytest
from helpers_games import CycleGame, ExplicitTreeGame, TreeNode, double_move_game, mixed_turn_game
from helpers_positions import P1, P2, P5, P6, TICTACTOE, board

from games.base import NO_WINNER
from mcts import (
    GREEDY_TEMPERATURE,
    ROOT_INDEX,
    UNVISITED,
    PUCTConfig,
    add_dirichlet_noise,
    completed_q_policy,
    improved_policy,
    mask_priors,
    reroot,
    select_actions,
    state_evaluator,
    uniform_evaluator,
    uniform_state_evaluator,
)
from mcts.search import run_puct


@functools.cache
def negamax(state: tuple) -> int:
    """Exact tic-tac-toe value for the player to move (pure-Python seed functions)."""
    if TICTACTOE.terminal_test(state):
        return int(TICTACTOE.utility(state, TICTACTOE.player(state)))
    return max(-negamax(TICTACTOE.result(state, a)) for a in TICTACTOE.actions(state))


def move_values(state: tuple) -> dict[int, int]:
    """Exact value of each legal move, for the player making it."""
    return {a: -negamax(TICTACTOE.result(state, a)) for a in TICTACTOE.actions(state)}


@state_evaluator
def minimax_oracle(states: np.ndarray, legal_mask: np.ndarray):
    """Uniform priors, exact minimax value."""
    priors, _ = uniform_evaluator(states, legal_mask)
    values = np.array([negamax(tuple(int(v) for v in row)) for row in states], dtype=np.float32)
    return priors, values


@state_evaluator
def threat_oracle(states: np.ndarray, legal_mask: np.ndarray):
    """The "threat oracle": uniform priors, +1 if the side to move can win at once, else 0."""
    priors, _ = uniform_evaluator(states, legal_mask)
    values = []
    for row in states:
        state = tuple(int(v) for v in row)
        me = TICTACTOE.player(state)
        wins = any(TICTACTOE.utility(TICTACTOE.result(state, a), me) == 1.0 for a in TICTACTOE.actions(state))
        values.append(1.0 if wins else 0.0)
    return priors, np.array(values, dtype=np.float32)


def no_noise(num_simulations: int, **kwargs) -> PUCTConfig:
    return PUCTConfig(num_simulations=num_simulations, **kwargs)


# --------------------------------------------------------------------------- value sign
def test_immediate_win_gets_the_visits_and_exact_values():
    out = run_puct(TICTACTOE, board(P1), uniform_evaluator, no_noise(200), np.random.default_rng(0), False)
    assert int(np.argmax(out.visit_counts[0])) == 2
    assert out.q_values[0, 2] == 1.0
    child = out.tree.children_index[0, ROOT_INDEX, 2]
    assert out.tree.node_terminal[0, child]
    assert out.tree.node_to_play[0, child] == 1  # O to move, and O has lost
    assert out.tree.node_values()[0, child] == -1.0
    assert out.tree.node_raw_value[0, child] == -1.0


def test_threat_oracle_first_visits_then_block():
    first = run_puct(TICTACTOE, board(P2), threat_oracle, no_noise(6), np.random.default_rng(0), False)
    assert first.visit_counts[0].tolist() == [0, 0, 1, 0, 1, 1, 1, 1, 1]
    expected = np.array([np.nan, np.nan, 0.0, np.nan, -1, -1, -1, -1, -1], dtype=np.float32)
    np.testing.assert_array_equal(first.q_values[0], expected)
    after = run_puct(TICTACTOE, board(P2), threat_oracle, no_noise(50), np.random.default_rng(0), False)
    assert int(np.argmax(after.visit_counts[0])) == 2


def test_same_player_twice_is_not_negated():
    game = double_move_game()
    out = run_puct(game, game.initial_states(1), game.oracle_evaluator(), no_noise(10), np.random.default_rng(0), False)
    assert out.visit_counts[0].tolist() == [10, 0]
    assert out.q_values[0, 0] == 1.0
    # Node 1 (player 0 again) has value +1 for player 0; the terminal node (player 1 to move) -1.
    tree = out.tree
    assert tree.node_to_play[0, :3].tolist() == [0, 0, 1]
    np.testing.assert_array_equal(tree.node_values()[0, :3], [1.0, 1.0, -1.0])
    assert out.root_values[0] == 1.0


def test_zero_net_same_player_twice():
    game = double_move_game()
    out = run_puct(game, game.initial_states(1), uniform_evaluator, no_noise(10), np.random.default_rng(0), False)
    # Node 1 is evaluated once (value 0) and then reaches the win nine times, never negated.
    assert out.q_values[0, 0] == np.float32(9 / 10)
    assert out.root_values[0] == np.float32(9 / 11)


def test_mixed_turns_sign_per_edge():
    game = mixed_turn_game()
    out = run_puct(game, game.initial_states(1), game.oracle_evaluator(), no_noise(20), np.random.default_rng(0), False)
    assert out.q_values[0, 0] == 1.0
    assert out.q_values[0, 1] == -1.0
    assert int(np.argmax(out.visit_counts[0])) == 0


# --------------------------------------------------------------------------- termination
@pytest.mark.parametrize("num_actions", [1, 2])
def test_cycle_game_move_cap_is_a_draw(num_actions):
    game = CycleGame(move_cap=50, num_actions=num_actions)
    out = run_puct(game, game.initial_states(1), uniform_evaluator, no_noise(1000), np.random.default_rng(0), False)
    tree = out.tree
    used = tree.num_nodes[0]
    depths = tree.depths()[0, :used]
    assert depths.max() <= 50
    plies = tree.node_states[0, :used, 1]
    np.testing.assert_array_equal(plies, depths)
    assert np.all(tree.node_terminal[0, :used] == (plies == 50))
    assert np.all(tree.node_raw_value[0, :used][plies == 50] == 0.0)
    assert out.root_values[0] == 0.0
    assert out.visit_counts[0].sum() == 1000
    if num_actions == 1:
        # A single line: 50 new nodes, then every simulation ends on the capped (drawn) leaf.
        assert used == 51
        assert depths.max() == 50
        assert out.num_terminal_leaves[0] == 1000 - 49


# --------------------------------------------------------------------------- masks
def test_prior_on_occupied_cell_falls_back_to_uniform_and_counts():
    states = board("X . . / . . . / . . .")  # O to move

    def one_hot_on_occupied(observations, legal_mask):
        priors = np.zeros(legal_mask.shape, dtype=np.float32)
        priors[:, 0] = 1.0  # cell 0 holds X at the root
        return priors, np.zeros(len(legal_mask), dtype=np.float32)

    out = run_puct(TICTACTOE, states, one_hot_on_occupied, no_noise(1), np.random.default_rng(0), False)
    expected = np.array([0.0] + [1 / 8] * 8, dtype=np.float32)
    np.testing.assert_array_equal(out.root_raw_priors[0], expected)
    assert out.num_degenerate_priors[0] >= 1
    assert not np.isnan(out.tree.children_prior).any()


def test_mask_priors_degenerate_rows():
    legal = np.array([[False, True, True, True], [True, True, False, False], [True, False, True, False]])
    priors = np.array([[1.0, 0.0, 0.0, 0.0], [np.nan, 0.5, 0.0, 0.0], [0.6, 7.0, 0.2, 0.0]])
    masked, degenerate = mask_priors(priors, legal)
    assert degenerate.tolist() == [True, True, False]
    np.testing.assert_array_equal(masked[0], np.array([0, 1 / 3, 1 / 3, 1 / 3], dtype=np.float32))
    np.testing.assert_array_equal(masked[1], np.array([0.5, 0.5, 0, 0], dtype=np.float32))
    np.testing.assert_allclose(masked[2], [0.75, 0.0, 0.25, 0.0], rtol=1e-6)
    assert masked[2, 1] == 0.0


@pytest.mark.parametrize("num_simulations", [1, 3, 50])
def test_improved_policy_target_is_zero_on_illegal_actions(num_simulations):
    states = board(P6)
    out = run_puct(TICTACTOE, states, hashed_evaluator, no_noise(num_simulations), np.random.default_rng(0), False)
    policy = improved_policy(out)
    legal = TICTACTOE.legal_mask(states)
    assert policy.dtype == np.float32
    assert np.all(policy[~legal] == 0.0)
    assert np.all(np.isfinite(policy))
    np.testing.assert_allclose(policy.sum(axis=1), 1.0, rtol=1e-6)


def test_completed_q_policy_by_hand():
    # Visited: action 0 (N=2, Q=1). Unvisited legal action 1 gets the mixed value
    # (0 + 2 * 1) / 3 = 2/3; rescaled completed Q = [1, 0]; sigma = (50 + 2) * 0.1 * [1, 0].
    policy = completed_q_policy(
        priors=np.array([[0.5, 0.5, 0.0]]), legal_mask=np.array([[True, True, False]]),
        q_values=np.array([[1.0, np.nan, np.nan]]), visit_counts=np.array([[2, 0, 0]]),
        raw_values=np.array([0.0]),
    )
    expected = 1.0 / (1.0 + np.exp(-5.2))
    np.testing.assert_allclose(policy[0], [expected, 1.0 - expected, 0.0], rtol=1e-6)
    assert policy[0, 2] == 0.0
    with pytest.raises(ValueError, match="q_values"):
        completed_q_policy(np.ones((1, 3)), np.ones((1, 3), bool), np.ones((1, 2)), np.ones((1, 3)), np.zeros(1))
    with pytest.raises(ValueError, match="no legal"):
        completed_q_policy(np.ones((1, 3)), np.zeros((1, 3), bool), np.ones((1, 3)), np.ones((1, 3)), np.zeros(1))


# --------------------------------------------------------------------------- noise
def test_noise_over_legal_moves_only():
    legal = np.zeros((2000, 9), dtype=bool)
    legal[:, [3, 5, 6, 8]] = True
    priors = np.zeros((2000, 9))
    priors[:, [3, 5, 6, 8]] = [0.4, 0.3, 0.2, 0.1]
    mixed = add_dirichlet_noise(priors, legal, alpha=0.3, epsilon=0.25, rng=np.random.default_rng(1))
    assert np.all(mixed[:, [0, 1, 2, 4, 7]] == 0.0)
    np.testing.assert_allclose(mixed.sum(axis=1), 1.0, rtol=1e-6)
    noise = (mixed[:, [3, 5, 6, 8]] - 0.75 * priors[:, [3, 5, 6, 8]]) / 0.25
    assert np.all(np.abs(noise.mean(axis=0) - 0.25) < 0.02)
    assert not np.any(np.all(np.isclose(noise, noise[:, :1]), axis=1))  # not all equal within a draw


def test_root_noise_in_search_is_fresh_and_interior_priors_raw():
    states = board(P6)

    @state_evaluator
    def fixed(states_, legal_mask):
        priors = np.zeros(legal_mask.shape, dtype=np.float32)
        priors[:, [3, 5, 6, 8]] = [0.4, 0.3, 0.2, 0.1]
        return priors, np.zeros(len(legal_mask), dtype=np.float32)

    config = PUCTConfig(num_simulations=30)
    rng = np.random.default_rng(7)
    first = run_puct(TICTACTOE, states, fixed, config, rng, True)
    second = run_puct(TICTACTOE, states, fixed, config, rng, True)
    raw = np.zeros(9, dtype=np.float32)
    legal = TICTACTOE.legal_mask(states)[0]
    raw[legal] = np.array([0.4, 0.3, 0.2, 0.1], dtype=np.float32)
    np.testing.assert_array_equal(first.root_raw_priors[0], raw)
    assert not np.array_equal(first.root_priors, second.root_priors)  # fresh noise per search
    for out in (first, second):
        assert np.all(out.root_priors[0, ~legal] == 0.0)
        np.testing.assert_allclose(out.root_priors[0].sum(), 1.0, rtol=1e-6)
        tree = out.tree
        used = tree.num_nodes[0]
        interior = [i for i in range(1, used) if not tree.node_terminal[0, i]]
        assert interior
        for i in interior:
            node_legal = tree.children_legal[0, i]
            expected, _ = mask_priors(fixed(None, node_legal[None])[0], node_legal[None])
            np.testing.assert_array_equal(tree.children_prior[0, i], expected[0])
    quiet = run_puct(TICTACTOE, states, fixed, config, rng, False)
    np.testing.assert_array_equal(quiet.root_priors[0], raw)


# --------------------------------------------------------------------------- PUCT and move choice
def test_fresh_node_follows_the_prior():
    game = ExplicitTreeGame(
        [TreeNode(0, {0: 1, 1: 2, 2: 3}), TreeNode(1, winner=NO_WINNER), TreeNode(1, winner=NO_WINNER),
         TreeNode(1, winner=NO_WINNER)],
        num_actions=3,
    )

    def prior_fn(observations, legal_mask):
        return np.tile([0.1, 0.7, 0.2], (len(legal_mask), 1)), np.zeros(len(legal_mask))

    out = run_puct(game, game.initial_states(1), prior_fn, no_noise(1), np.random.default_rng(0), False)
    assert out.visit_counts[0].tolist() == [0, 1, 0]
    out = run_puct(game, game.initial_states(1), prior_fn, no_noise(1, c_base=19652.0), np.random.default_rng(0), False)
    assert out.visit_counts[0].tolist() == [0, 1, 0]


def test_temperature_sampling_frequencies():
    rng = np.random.default_rng(3)
    counts = np.tile([6, 3, 1], (20000, 1))
    for temperature, expected in ((1.0, [0.6, 0.3, 0.1]), (0.5, [0.783, 0.196, 0.022])):
        actions = select_actions(counts, temperature, rng)
        freq = np.bincount(actions, minlength=3) / len(actions)
        np.testing.assert_allclose(freq, expected, atol=0.015)
    close = np.tile([800, 799], (1000, 1))
    for temperature in (0.001, 0.0011, 1e-4, 0.0):
        actions = select_actions(close, temperature, rng)
        assert actions.dtype == np.int64
        assert set(actions.tolist()) <= {0, 1}
    assert np.all(select_actions(close, 1e-4, rng) == 0)
    # Greedy below the threshold: most visits, lowest index on ties, zero-count actions never.
    assert select_actions(np.array([[0, 5, 5, 1]]), GREEDY_TEMPERATURE / 2, rng).tolist() == [1]
    sampled = select_actions(np.tile([0, 5, 0, 1], (5000, 1)), 3.0, rng)
    assert set(sampled.tolist()) == {1, 3}


def test_per_row_temperatures():
    rng = np.random.default_rng(0)
    counts = np.tile([1, 9], (4000, 1))
    temps = np.where(np.arange(4000) % 2 == 0, 0.0, 1.0)
    actions = select_actions(counts, temps, rng)
    assert np.all(actions[::2] == 1)
    assert 0.05 < np.mean(actions[1::2] == 0) < 0.15


@pytest.mark.parametrize(
    "counts, temperature",
    [
        (np.array([1, 2]), 1.0),
        (np.array([[0, 0], [1, 2]]), 1.0),
        (np.array([[1, -2]]), 1.0),
        (np.array([[1, 2]]), -1.0),
        (np.array([[1, 2]]), np.array([1.0, 1.0])),
        (np.array([[1, 2]]), float("nan")),
    ],
)
def test_select_actions_rejects_bad_input(counts, temperature):
    with pytest.raises(ValueError):
        select_actions(counts, temperature, np.random.default_rng(0))


def test_subtree_reuse_keeps_the_child_and_drops_the_rest():
    empty = TICTACTOE.initial_states(1)
    rng = np.random.default_rng(5)
    config = PUCTConfig(num_simulations=400)
    out = run_puct(TICTACTOE, empty, uniform_evaluator, config, rng, True)
    old = out.tree
    child = old.children_index[0, ROOT_INDEX, 4]
    subtree_size = int(np.sum(_descends_from(old, child)))
    new = reroot(old, np.array([4]))
    assert new.num_nodes[0] == subtree_size
    assert new.capacity == subtree_size  # nothing unreachable stays allocated
    assert new.node_visits[0, ROOT_INDEX] == old.node_visits[0, child]
    np.testing.assert_array_equal(new.children_visits(ROOT_INDEX)[0], old.children_visits(child)[0])
    np.testing.assert_array_equal(new.node_states[0, ROOT_INDEX], TICTACTOE.step(empty, np.array([4]))[0])
    np.testing.assert_array_equal(new.root_raw_prior[0], old.children_prior[0, child])
    # Parent links are consistent after renumbering.
    for i in range(1, new.num_nodes[0]):
        parent = new.parents[0, i]
        assert new.children_index[0, parent, new.action_from_parent[0, i]] == i
    states = new.node_states[:, ROOT_INDEX].copy()
    before = new.children_visits(ROOT_INDEX)[0].copy()
    again = run_puct(TICTACTOE, states, uniform_evaluator, config, rng, True, tree=new)
    assert again.visit_counts[0].sum() == before.sum() + 400
    assert np.all(again.visit_counts[0] >= before)
    np.testing.assert_array_equal(again.root_raw_priors[0], old.children_prior[0, child])
    assert not np.allclose(again.root_priors[0], again.root_raw_priors[0])  # fresh noise at the new root
    legal = TICTACTOE.legal_mask(states)[0]
    assert np.all(again.root_priors[0, ~legal] == 0.0)


def test_reroot_on_unvisited_child_gives_empty_row_and_fresh_search():
    game = ExplicitTreeGame([TreeNode(0, {0: 1, 1: 2}), TreeNode(1, {0: 3}), TreeNode(1, {0: 3}),
                             TreeNode(0, winner=NO_WINNER)], num_actions=2)

    def prefer_first(observations, legal_mask):
        return np.where(legal_mask, [1.0, 0.0], 0.0), np.zeros(len(legal_mask))

    out = run_puct(game, game.initial_states(2), prefer_first, no_noise(3), np.random.default_rng(0), False)
    assert out.visit_counts.tolist() == [[3, 0], [3, 0]]
    new = reroot(out.tree, np.array([0, 1]))
    assert new.num_nodes.tolist() == [2, 0]  # node 1 and its terminal child; row 1 never tried action 1
    assert new.node_visits[0, ROOT_INDEX] == 3
    roots = game.step(game.initial_states(2), np.array([0, 1]))
    again = run_puct(game, roots, prefer_first, no_noise(2), np.random.default_rng(0), False, tree=new)
    assert again.tree.node_visits[:, ROOT_INDEX].tolist() == [3 + 2, 1 + 2]


def test_without_reuse_every_search_starts_empty():
    states = board(P6)
    rng = np.random.default_rng(0)
    first = run_puct(TICTACTOE, states, uniform_evaluator, no_noise(25), rng, False)
    second = run_puct(TICTACTOE, states, uniform_evaluator, no_noise(25), rng, False)
    assert second.tree is not first.tree
    assert second.tree.node_visits[0, ROOT_INDEX] == 26
    assert second.visit_counts[0].sum() == 25
    np.testing.assert_array_equal(first.visit_counts, second.visit_counts)


def test_reuse_after_dropping_finished_games():
    states = board(P1, P6, ". . . / . . . / . . .")
    rng = np.random.default_rng(2)
    out = run_puct(TICTACTOE, states, uniform_evaluator, no_noise(50), rng, False)
    actions = select_actions(out.visit_counts, 0.0, rng)
    assert actions[0] == 2  # P1 ends with X's win; the other two games go on
    next_states = TICTACTOE.step(states, actions)
    live = ~TICTACTOE.terminal(next_states)
    assert live.tolist() == [False, True, True]
    kept = reroot(out.tree, actions).take(live)
    assert kept.batch_size == 2
    again = run_puct(TICTACTOE, next_states[live], uniform_evaluator, no_noise(10), rng, False, tree=kept)
    np.testing.assert_array_equal(again.tree.node_states[:, ROOT_INDEX], next_states[live])
    with pytest.raises(ValueError, match="row indices"):
        out.tree.take(np.array([3]))
    with pytest.raises(ValueError, match="bool mask"):
        out.tree.take(np.array([True, False]))


def test_state_and_observation_zero_nets_build_the_same_tree():
    states = board(P2, P6)
    a = run_puct(TICTACTOE, states, uniform_evaluator, no_noise(40), np.random.default_rng(0), False)
    b = run_puct(TICTACTOE, states, uniform_state_evaluator, no_noise(40), np.random.default_rng(0), False)
    np.testing.assert_array_equal(a.tree.children_index, b.tree.children_index)
    np.testing.assert_array_equal(a.tree.node_value_sum, b.tree.node_value_sum)


def test_reuse_rejects_a_tree_for_other_roots():
    out = run_puct(TICTACTOE, board(P6), uniform_evaluator, no_noise(10), np.random.default_rng(0), False)
    with pytest.raises(ValueError, match="differ"):
        run_puct(TICTACTOE, board(P2), uniform_evaluator, no_noise(10), np.random.default_rng(0), False,
                 tree=out.tree)
    with pytest.raises(ValueError, match="actions"):
        reroot(out.tree, np.array([4, 4]))
    with pytest.raises(ValueError, match="actions in"):
        reroot(out.tree, np.array([9]))


def _descends_from(tree, node: int) -> np.ndarray:
    used = tree.num_nodes[0]
    out = np.zeros(used, dtype=bool)
    for i in range(used):
        j = i
        while j >= 0 and j != node:
            j = tree.parents[0, j]
        out[i] = j == node
    return out


# --------------------------------------------------------------------------- tree invariants
@state_evaluator
def hashed_evaluator(states, legal_mask):
    """A deterministic fake network: priors and value from a hash of the state."""
    seeds = (states * np.array([1_000_003, 7919, 104_729, 31], dtype=np.int64)).sum(axis=1)
    keys = (seeds[:, None] * 2_654_435_761 + np.arange(legal_mask.shape[1]) * 40_503) % 1_000_003
    priors = (keys + 1).astype(np.float32) / 1_000_003.0
    values = ((seeds % 201) - 100).astype(np.float32) / 100.0
    return priors, values


def test_batch_rows_with_different_legal_masks_equal_single_searches():
    states = board(P1, P2, P5, P6, ". . . / . . . / . . .", "X . . / . O . / . . X")
    legal = TICTACTOE.legal_mask(states)
    assert len({tuple(row) for row in legal}) == len(states)
    config = PUCTConfig(num_simulations=60, c_base=50.0, fpu_value=-0.2)
    batched = run_puct(TICTACTOE, states, hashed_evaluator, config, np.random.default_rng(0), False)
    for b in range(len(states)):
        alone = run_puct(TICTACTOE, states[b : b + 1], hashed_evaluator, config, np.random.default_rng(0), False)
        for name in ("node_visits", "node_value_sum", "node_to_play", "node_terminal", "node_states", "parents",
                     "action_from_parent", "children_index", "children_prior", "children_legal", "num_nodes"):
            np.testing.assert_array_equal(getattr(batched.tree, name)[b], getattr(alone.tree, name)[0], err_msg=name)
        np.testing.assert_array_equal(batched.visit_counts[b], alone.visit_counts[0])
        np.testing.assert_array_equal(batched.q_values[b], alone.q_values[0])


@pytest.mark.parametrize("num_simulations", [1, 2, 17, 100])
def test_visit_counts_sum_to_simulations(num_simulations):
    states = board(P1, P2, P5, P6, ". . . / . . . / . . .")
    out = run_puct(TICTACTOE, states, hashed_evaluator, no_noise(num_simulations), np.random.default_rng(0), False)
    assert out.visit_counts.dtype == np.int32
    assert out.visit_counts.sum(axis=1).tolist() == [num_simulations] * len(states)
    assert out.tree.node_visits[:, ROOT_INDEX].tolist() == [num_simulations + 1] * len(states)
    assert np.all(out.visit_counts[~TICTACTOE.legal_mask(states)] == 0)
    assert out.tree.capacity == num_simulations + 1
    assert np.all(out.tree.num_nodes <= num_simulations + 1)
    # Every node's visits = 1 (its own evaluation) + its children's, except terminal nodes.
    tree = out.tree
    for b in range(len(states)):
        for i in range(tree.num_nodes[b]):
            if not tree.node_terminal[b, i]:
                assert tree.node_visits[b, i] == 1 + tree.children_visits(np.full(len(states), i))[b].sum()


def test_pinned_tree_for_a_deterministic_model():
    """P5 has one legal move (8), which draws: the whole tree is the root and one terminal child."""
    out = run_puct(TICTACTOE, board(P5), hashed_evaluator, no_noise(5), np.random.default_rng(0), False)
    tree = out.tree
    assert tree.num_nodes.tolist() == [2]
    assert tree.parents[0, :2].tolist() == [-1, 0]
    assert tree.action_from_parent[0, :2].tolist() == [-1, 8]
    assert tree.node_visits[0, :2].tolist() == [6, 5]
    assert tree.node_terminal[0, :2].tolist() == [False, True]
    assert tree.node_raw_value[0, 1] == 0.0
    root_value = hashed_evaluator(board(P5), TICTACTOE.legal_mask(board(P5)))[1][0]
    assert out.root_values[0] == np.float32(root_value / 6)
    assert out.visit_counts[0].tolist() == [0] * 8 + [5]
    assert out.num_terminal_leaves.tolist() == [5]
    assert out.num_evaluations.tolist() == [1]
    expected_children = np.full(9, UNVISITED)
    expected_children[8] = 1
    np.testing.assert_array_equal(tree.children_index[0, ROOT_INDEX], expected_children)


def test_pinned_tree_mixed_turns_zero_net():
    """Four simulations on ``mixed_turn_game`` with the zero net, worked out by hand:
    sim 1 ties at the root (lowest index, action 0), sim 2 takes action 1 (unvisited, larger U),
    sim 3 ties again (action 0) and reaches the win, sim 4 returns to that terminal node."""
    game = mixed_turn_game()
    out = run_puct(game, game.initial_states(1), uniform_evaluator, no_noise(4), np.random.default_rng(0), False)
    tree = out.tree
    assert tree.num_nodes.tolist() == [4]
    assert tree.parents[0].tolist() == [-1, 0, 0, 1, -1]
    assert tree.action_from_parent[0].tolist() == [-1, 0, 1, 0, -1]
    assert tree.node_states[0, :4, 0].tolist() == [0, 1, 2, 3]
    assert tree.node_visits[0].tolist() == [5, 3, 1, 2, 0]
    assert tree.node_value_sum[0].tolist() == [2.0, 2.0, 0.0, -2.0, 0.0]
    assert tree.node_to_play[0, :4].tolist() == [0, 0, 1, 1]
    assert tree.node_terminal[0, :4].tolist() == [False, False, False, True]
    assert tree.children_index[0, :4].tolist() == [[1, 2], [3, -1], [-1, -1], [-1, -1]]
    assert out.visit_counts.tolist() == [[3, 1]]
    assert out.q_values[0].tolist() == [np.float32(2 / 3), 0.0]
    assert out.root_values.tolist() == [np.float32(0.4)]
    assert out.num_terminal_leaves.tolist() == [2]
    assert out.num_evaluations.tolist() == [3]


def test_evaluator_called_once_per_step_with_non_terminal_leaves_only():
    calls = []

    @state_evaluator
    def spy(states, legal_mask):
        calls.append(states.copy())
        return hashed_evaluator(states, legal_mask)

    states = board(P1, P5, P6)
    out = run_puct(TICTACTOE, states, spy, no_noise(40), np.random.default_rng(0), False)
    assert len(calls) <= 41
    sent = np.concatenate(calls)
    assert not TICTACTOE.terminal(sent).any()
    assert all(len(c) <= 3 for c in calls)
    assert int(out.num_evaluations.sum()) == len(sent)
    tree = out.tree
    created_live = sum(int((~tree.node_terminal[b, : tree.num_nodes[b]]).sum()) for b in range(3))
    assert created_live == len(sent)


def test_observation_evaluator_gets_observations():
    seen = []

    def spy(observations, legal_mask):
        seen.append(observations)
        return uniform_evaluator(observations, legal_mask)

    run_puct(TICTACTOE, board(P6), spy, no_noise(3), np.random.default_rng(0), False)
    assert seen[0].dtype == np.float32
    assert seen[0].shape == (1, *TICTACTOE.observation_shape)


# --------------------------------------------------------------------------- strength
def _positions_up_to(plies: int) -> list[tuple]:
    frontier = [TICTACTOE.initial_state()]
    seen = []
    for _ in range(plies + 1):
        next_frontier = []
        for state in frontier:
            if state in seen or TICTACTOE.terminal_test(state):
                continue
            seen.append(state)
            next_frontier.extend(TICTACTOE.result(state, a) for a in TICTACTOE.actions(state))
        frontier = next_frontier
    return seen


def test_oracle_evaluator_chooses_an_optimal_move_everywhere():
    positions = _positions_up_to(3) + [TICTACTOE.state_from_board(d) for d in (P1, P2, P5, P6)]
    states = np.array(positions, dtype=np.int64)
    out = run_puct(TICTACTOE, states, minimax_oracle, no_noise(100), np.random.default_rng(0), False)
    chosen = select_actions(out.visit_counts, 0.0, np.random.default_rng(0))
    for state, action in zip(positions, chosen):
        values = move_values(state)
        assert values[int(action)] == max(values.values()), TICTACTOE.render(state)


@pytest.mark.slow
def test_uniform_priors_many_simulations_agree_with_minimax():
    positions = [p for p in _positions_up_to(4) if len(set(move_values(p).values())) > 1]
    states = np.array(positions, dtype=np.int64)
    out = run_puct(TICTACTOE, states, uniform_evaluator, no_noise(3000), np.random.default_rng(0), False)
    chosen = select_actions(out.visit_counts, 0.0, np.random.default_rng(0))
    wrong = [TICTACTOE.render(s) for s, a in zip(positions, chosen) if move_values(s)[int(a)] != negamax(s)]
    assert not wrong, wrong[:3]


def test_uniform_priors_find_the_cases_moves():
    states = board(P1, P2, P5)
    out = run_puct(TICTACTOE, states, uniform_evaluator, no_noise(400), np.random.default_rng(0), False)
    assert select_actions(out.visit_counts, 0.0, np.random.default_rng(0)).tolist() == [2, 2, 8]


# --------------------------------------------------------------------------- validation
def test_config_validation():
    with pytest.raises(ValueError, match="num_simulations"):
        PUCTConfig(num_simulations=0)
    with pytest.raises(ValueError, match="num_simulations"):
        PUCTConfig(num_simulations=2.5)
    with pytest.raises(ValueError, match="c_base"):
        PUCTConfig(c_base=0.0)
    with pytest.raises(ValueError, match="fpu_value"):
        PUCTConfig(fpu_value=2.0)
    with pytest.raises(ValueError, match="dirichlet_alpha"):
        PUCTConfig(dirichlet_alpha=0.0)
    with pytest.raises(ValueError, match="dirichlet_epsilon"):
        PUCTConfig(dirichlet_epsilon=1.5)
    with pytest.raises(ValueError, match="c_puct"):
        PUCTConfig(c_puct=float("nan"))


def test_run_puct_rejects_bad_roots_and_evaluator_output():
    rng = np.random.default_rng(0)
    with pytest.raises(ValueError, match="terminal"):
        run_puct(TICTACTOE, board("X X X / O O . / . . ."), uniform_evaluator, no_noise(2), rng, False)
    with pytest.raises(ValueError, match="shape"):
        run_puct(TICTACTOE, board(P6)[0], uniform_evaluator, no_noise(2), rng, False)
    with pytest.raises(ValueError, match="int64"):
        run_puct(TICTACTOE, board(P6).astype(np.int32), uniform_evaluator, no_noise(2), rng, False)

    def wrong_shape(observations, legal_mask):
        return np.ones((len(legal_mask), 3)), np.zeros(len(legal_mask))

    def nan_value(observations, legal_mask):
        return uniform_evaluator(observations, legal_mask)[0], np.full(len(legal_mask), np.nan)

    with pytest.raises(ValueError, match="priors of shape"):
        run_puct(TICTACTOE, board(P6), wrong_shape, no_noise(2), rng, False)
    with pytest.raises(ValueError, match="non-finite"):
        run_puct(TICTACTOE, board(P6), nan_value, no_noise(2), rng, False)


def test_rng_must_be_a_generator():
    with pytest.raises(ValueError, match="Generator"):
        run_puct(TICTACTOE, board(P6), uniform_evaluator, no_noise(2), 0, False)
    with pytest.raises(ValueError, match="Generator"):
        select_actions(np.array([[1, 2]]), 1.0, np.random.RandomState(0))


def test_noise_validation():
    legal = np.array([[True, False], [False, False]])
    with pytest.raises(ValueError, match="no legal"):
        add_dirichlet_noise(np.zeros((2, 2)), legal, 0.3, 0.25, np.random.default_rng(0))
    with pytest.raises(ValueError, match="epsilon"):
        add_dirichlet_noise(np.zeros((1, 2)), legal[:1], 0.3, 2.0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="alpha"):
        add_dirichlet_noise(np.zeros((1, 2)), legal[:1], -1.0, 0.25, np.random.default_rng(0))
    with pytest.raises(ValueError, match="shape"):
        mask_priors(np.zeros((1, 3)), legal)
