"""Single-position PUCT with several leaves per network call (virtual loss): mcts/minibatch.py."""

from __future__ import annotations

import numpy as np
import pytest

import games
from arena.network_players import MCTSPlayer
from arena.specs import build_player
from mcts import PUCTConfig, uniform_evaluator
from mcts.evaluators import state_evaluator
from mcts.minibatch import run_puct_minibatch
from mcts.search import run_puct

TICTACTOE = games.make("tictactoe")
CONNECT4 = games.make("connect4")


@state_evaluator
def hashed_evaluator(states, legal_mask):
    """A deterministic stand-in for a network: priors and value are a hash of the position."""
    h = (states[:, 0] * 2654435761 + states[:, 1] * 40503 + states[:, 2]) % 1000003
    priors = np.stack([(h * (a + 3)) % 97 + 1 for a in range(legal_mask.shape[1])], axis=1)
    priors = (priors * legal_mask).astype(np.float32)
    return priors / priors.sum(axis=1, keepdims=True), ((h % 2001) / 1000.0 - 1.0).astype(np.float32)


class CountingEvaluator:
    def __init__(self, evaluate_fn):
        self.evaluate_fn = evaluate_fn
        self.takes_states = getattr(evaluate_fn, "takes_states", False)
        self.batch_sizes: list[int] = []

    def __call__(self, inputs, legal_mask):
        self.batch_sizes.append(int(legal_mask.shape[0]))
        return self.evaluate_fn(inputs, legal_mask)


@pytest.mark.parametrize(("game", "moves"), [(CONNECT4, ""), (CONNECT4, "4453"), (CONNECT4, "44444"), (TICTACTOE, "15")])
def test_one_leaf_per_call_is_the_plain_search_visit_for_visit(game, moves):
    states = game.states_from_moves([moves])
    config = PUCTConfig(num_simulations=150)
    rng = np.random.default_rng(0)
    plain = run_puct(game, states, hashed_evaluator, config, rng, add_root_noise=False)
    single = run_puct_minibatch(game, states[0], hashed_evaluator, config, rng, leaves_per_call=1)
    assert single.visit_counts.tolist() == plain.visit_counts.tolist()
    np.testing.assert_allclose(single.q_values, plain.q_values, equal_nan=True)
    np.testing.assert_allclose(single.root_values, plain.root_values)
    assert single.num_evaluations.tolist() == plain.num_evaluations.tolist()


def test_virtual_loss_sends_the_first_round_to_nine_different_cells():
    counting = CountingEvaluator(uniform_evaluator)
    config = PUCTConfig(num_simulations=9)
    out = run_puct_minibatch(TICTACTOE, TICTACTOE.initial_states(1)[0], counting, config, np.random.default_rng(0), 9)
    # uniform priors, value 0: each walk's virtual loss makes its cell look lost, so the next
    # walk takes the next untried cell; one call for the root, one for the nine leaves
    assert out.visit_counts.tolist() == [[1] * 9]
    assert counting.batch_sizes == [1, 9]


def test_leaves_share_calls_and_every_simulation_reaches_the_root():
    counting = CountingEvaluator(hashed_evaluator)
    config = PUCTConfig(num_simulations=400)
    out = run_puct_minibatch(CONNECT4, CONNECT4.initial_states(1)[0], counting, config, np.random.default_rng(0), 8)
    assert int(out.visit_counts.sum()) == 400
    assert out.tree.node_visits[0, 0] == 401
    assert sum(counting.batch_sizes) == out.num_evaluations[0]
    assert out.num_evaluations[0] + out.num_terminal_leaves[0] == 401
    assert max(counting.batch_sizes) == 8
    assert len(counting.batch_sizes) < 400 / 3  # mostly full rounds; collisions end a few early


def test_a_win_in_one_is_found_with_an_exact_q_value():
    # X X . / O O . / . . ., X to move: 2 wins; the zero net knows nothing
    state = np.array(TICTACTOE.state_from_board("X X . / O O . / . . ."), dtype=np.int64)
    out = run_puct_minibatch(TICTACTOE, state, uniform_evaluator, PUCTConfig(num_simulations=200), np.random.default_rng(0), 8)
    assert int(np.argmax(out.visit_counts[0])) == 2
    assert out.q_values[0, 2] == 1.0
    # virtual visits are all taken back: the root's children counts sum to the simulations
    assert int(out.visit_counts.sum()) == 200


def test_bad_input_is_refused():
    rng = np.random.default_rng(0)
    start = CONNECT4.initial_states(1)[0]
    with pytest.raises(ValueError, match="leaves_per_call >= 1"):
        run_puct_minibatch(CONNECT4, start, uniform_evaluator, PUCTConfig(num_simulations=4), rng, 0)
    with pytest.raises(ValueError, match="solver"):
        run_puct_minibatch(CONNECT4, start, uniform_evaluator, PUCTConfig(num_simulations=4, solver=True), rng, 4)
    finished = np.array(TICTACTOE.state_from_board("X X X / O O . / . . ."), dtype=np.int64)
    with pytest.raises(ValueError, match="terminal"):
        run_puct_minibatch(TICTACTOE, finished, uniform_evaluator, PUCTConfig(num_simulations=4), rng, 4)
    with pytest.raises(ValueError, match="leaves_per_call"):
        MCTSPlayer(uniform_evaluator, PUCTConfig(), leaves_per_call=0)


def test_players_collect_leaves_per_call(tmp_path):
    from tests.helpers_models import export_tiny_mlp

    folder = export_tiny_mlp("connect4", tmp_path / "model")
    player = build_player(f"mcts:model={folder},sims=40,batch=4", CONNECT4)
    assert player.leaves_per_call == 4
    # one leaf a call at a number of simulations, eight with a time limit unless batch= says otherwise
    assert build_player(f"mcts:model={folder},sims=40", CONNECT4).leaves_per_call == 1
    assert build_player(f"mcts:model={folder},time=0.5", CONNECT4).leaves_per_call == 8
    assert build_player(f"mcts:model={folder},time=0.5,batch=2", CONNECT4).leaves_per_call == 2
    analysis = player.analyze(CONNECT4, CONNECT4.initial_state())
    assert int(analysis.visit_counts.sum()) == 40
    assert analysis.best_action == int(np.argmax(analysis.visit_counts))


def test_a_time_limit_stops_after_the_round_that_passes_it():
    config = PUCTConfig(num_simulations=1000)
    out = run_puct_minibatch(
        TICTACTOE, TICTACTOE.initial_states(1)[0], uniform_evaluator, config, np.random.default_rng(0), 9, time_limit=0.0
    )
    # one round always runs: the nine cells of the first round, then the limit has passed
    assert out.visit_counts.tolist() == [[1] * 9]
    with pytest.raises(ValueError, match="time_limit"):
        run_puct_minibatch(TICTACTOE, TICTACTOE.initial_states(1)[0], uniform_evaluator, config, np.random.default_rng(0), 9, -1.0)


def test_a_timed_mcts_spec(tmp_path):
    from arena.specs import MAX_TIMED_SIMULATIONS
    from tests.helpers_models import export_tiny_mlp

    folder = export_tiny_mlp("connect4", tmp_path / "model")
    player = build_player(f"mcts:model={folder},time=0.0", CONNECT4)
    assert player.time_limit == 0.0
    assert player.config.num_simulations == MAX_TIMED_SIMULATIONS
    analysis = player.analyze(CONNECT4, CONNECT4.initial_state())
    assert 1 <= int(analysis.visit_counts.sum()) <= 8
    capped = build_player(f"mcts:model={folder},time=5,sims=16", CONNECT4)
    assert int(capped.analyze(CONNECT4, CONNECT4.initial_state()).visit_counts.sum()) == 16
