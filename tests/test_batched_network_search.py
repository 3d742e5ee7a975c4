"""The batched search in one compiled call with a bound network (``mcts.batched``) against the
Python loop of ``mcts.search.search_loop``: the same trees, moves, policy targets, counters and
cache contents to the last bit, for the shipped Connect Four model and a tic-tac-toe network whose
searches end on finished games; self-play records the same games for the same seed."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import games
import mcts.search
from mcts import GumbelConfig, PUCTConfig, run_search
from mcts.batched import cache_slot
from networks import NetworkConfig, build_network
from networks.export import onnx_runtime_evaluator
from networks.onnx_evaluator import load_exported
from networks.shipped import shipped_path
from selfplay.eval_cache import EvaluationCache
from selfplay.runner import SelfPlayRunner, SelfPlaySettings

pytestmark = pytest.mark.usefixtures("one_torch_thread")


def _plain(evaluate_fn):
    """``evaluate_fn`` behind a plain function: the search then runs its Python loop."""
    return lambda observations, legal_mask: evaluate_fn(observations, legal_mask)


def _connect4():
    game = games.make("connect4")
    return game, load_exported(shipped_path("connect4"), game, providers=["CPUExecutionProvider"], num_threads=1)


def _tictactoe():
    game = games.make("tictactoe")
    torch.manual_seed(3)
    config = NetworkConfig.from_name("mlp128x2")
    model = build_network(config, game.observation_shape, game.num_actions)
    return game, onnx_runtime_evaluator(model, game, config, threads=1)


def _positions(game, count: int, seed: int, max_plies: int) -> np.ndarray:
    """``count`` non-terminal states after 0..``max_plies`` seeded random plies."""
    rng = np.random.default_rng(seed)
    states = game.initial_states(count)
    for row in range(count):
        for _ in range(int(rng.integers(0, max_plies + 1))):
            legal = np.flatnonzero(game.legal_mask(states[row : row + 1])[0])
            stepped = game.step(states[row : row + 1], np.array([rng.choice(legal)], dtype=np.int64))
            if game.terminal(stepped)[0]:
                break
            states[row] = stepped[0]
    return states


@pytest.fixture
def compiled_runs(monkeypatch):
    """The results of ``mcts.batched.run_batched_network_search`` in each search of the test."""
    results = []
    original = mcts.search.run_batched_network_search

    def spy(*args, **kwargs):
        results.append(original(*args, **kwargs))
        return results[-1]

    monkeypatch.setattr(mcts.search, "run_batched_network_search", spy)
    return results


def _counters(evaluator):
    return (evaluator.num_calls, evaluator.num_positions, evaluator.num_degenerate_priors)


def _assert_same_search(compiled, python):
    for name in ("visit_counts", "q_values", "root_values", "actions", "policy_targets", "root_priors",
                 "num_evaluations", "num_terminal_leaves", "num_degenerate_priors", "root_proof"):
        assert np.array_equal(getattr(compiled, name), getattr(python, name), equal_nan=name == "q_values"), name
    for name in ("node_visits", "node_value_sum", "node_raw_value", "children_index", "children_prior", "node_states", "node_proof"):
        assert np.array_equal(getattr(compiled.tree, name), getattr(python.tree, name)), name


SEARCHES = {
    "gumbel": (GumbelConfig(num_simulations=32, max_num_considered_actions=7), True),
    "puct_noise": (PUCTConfig(num_simulations=64), True),
    "puct_solver": (PUCTConfig(num_simulations=100, solver=True), False),
}


@pytest.mark.parametrize("game_name", ["connect4", "tictactoe"])
@pytest.mark.parametrize("search", list(SEARCHES))
def test_compiled_batched_search_equals_the_python_loop(game_name, search, compiled_runs):
    game, evaluator = _connect4() if game_name == "connect4" else _tictactoe()
    config, explore = SEARCHES[search]
    states = _positions(game, 12, seed=7, max_plies=30 if game_name == "connect4" else 6)
    outputs, counters = [], []
    for evaluate_fn in (evaluator.evaluate, _plain(evaluator.evaluate)):
        before = _counters(evaluator)
        outputs.append(run_search(game, states, evaluate_fn, config, np.random.default_rng(11), explore=explore))
        counters.append(np.subtract(_counters(evaluator), before).tolist())
    assert compiled_runs == [True, False]
    _assert_same_search(*outputs)
    assert counters[0] == counters[1]
    # every simulation of every row is counted once, at a network leaf or a finished game
    assert (outputs[0].num_evaluations - 1 + outputs[0].num_terminal_leaves).tolist() == [config.num_simulations] * 12
    assert counters[0][1] == int(outputs[0].num_evaluations.sum())
    if game_name == "tictactoe":
        assert outputs[0].num_terminal_leaves.sum() > 0


def test_compiled_batched_search_reads_and_fills_the_evaluation_cache_as_the_cache_does(compiled_runs):
    game, evaluator = _connect4()
    states = _positions(game, 16, seed=3, max_plies=8)
    config = GumbelConfig(num_simulations=32, max_num_considered_actions=7)
    results = []
    for evaluate_fn in (evaluator.evaluate, _plain(evaluator.evaluate)):
        cache = EvaluationCache(game, evaluate_fn, 1024)  # small: slots are shared and overwritten
        first = run_search(game, states, cache, config, np.random.default_rng(5), explore=True)
        second = run_search(game, states, cache, config, np.random.default_rng(6), explore=True)
        table = cache.compiled_cache()
        results.append((first, second, cache.hits, cache.lookups, table.keys.copy(), table.filled.copy(), table.priors.copy(), table.values.copy()))
    assert compiled_runs == [True, True, False, False]
    (first, second, hits, lookups, *table), (first_py, second_py, hits_py, lookups_py, *table_py) = results
    _assert_same_search(first, first_py)
    _assert_same_search(second, second_py)
    assert (hits, lookups) == (hits_py, lookups_py)
    assert lookups == int(first.num_evaluations.sum() + second.num_evaluations.sum())
    assert 0 < hits < lookups
    for compiled, python in zip(table, table_py):
        assert np.array_equal(compiled, python)


def test_cache_slot_is_the_cache_hash():
    game = games.make("connect4")
    cache = EvaluationCache(game, lambda observations, legal: None, 65536)
    states = _positions(game, 50, seed=1, max_plies=20)
    table = cache.compiled_cache()
    compiled = [cache_slot(state, table.multipliers, cache.capacity) for state in states]
    assert compiled == cache.slots(states).tolist()


def test_self_play_records_the_same_games_through_the_compiled_loop(compiled_runs):
    game, evaluator = _connect4()
    config = GumbelConfig(num_simulations=16, max_num_considered_actions=7)
    played = []
    for evaluate_fn in (evaluator.evaluate, _plain(evaluator.evaluate)):
        runner = SelfPlayRunner(
            game, evaluate_fn, config, 4, np.random.default_rng(2026),
            settings=SelfPlaySettings(temperature=1.0, temperature_plies=4, random_opening_plies=2),
        )
        records, _ = runner.play_moves(45)
        played.append([(game.format_moves(record.actions), record.winner) for record in records])
    assert set(compiled_runs[: len(compiled_runs) // 2]) == {True}
    assert played[0] == played[1]
    assert len(played[0]) >= 2


class _FailingNetwork:
    """An evaluator offering bound buffers whose runs fail or give a NaN value."""

    def __init__(self, game, failure: str) -> None:
        self.game, self.failure = game, failure
        self.num_calls = self.num_positions = self.num_degenerate_priors = 0

    def evaluate(self, observations, legal_mask):
        """The roots' evaluation, from Python: uniform priors, value 0."""
        priors = np.full(legal_mask.shape, 1 / legal_mask.shape[1], dtype=np.float32)
        return priors, np.zeros(len(observations), dtype=np.float32)

    def bind_buffers(self, rows):
        network = self

        class Bound:
            observations = np.zeros((rows, *network.game.observation_shape), dtype=np.float32)
            logits = np.zeros((rows, network.game.num_actions), dtype=np.float32)
            values = np.zeros(rows, dtype=np.float32)
            min_legal_mass = 1e-6

            def run_rows(self, count):
                if network.failure == "raise":
                    raise RuntimeError("the network broke")
                self.values[:count] = np.nan

            def count_degenerate(self, count):
                network.num_degenerate_priors += count

        return Bound()


@pytest.mark.parametrize(("failure", "error", "message"), [("raise", RuntimeError, "the network broke"), ("nan", ValueError, "non-finite")])
def test_a_failing_bound_network_raises_from_the_search(failure, error, message):
    game = games.make("connect4")
    states = game.initial_states(3)
    network = _FailingNetwork(game, failure)
    with pytest.raises(error, match=message):
        run_search(game, states, network.evaluate, PUCTConfig(num_simulations=8), np.random.default_rng(0))


def test_run_rows_runs_the_leading_rows_and_refuses_other_counts():
    game, evaluator = _connect4()
    states = _positions(game, 8, seed=4, max_plies=10)
    observations = game.observation(states)
    bound = evaluator.bind_buffers(8)
    assert evaluator.bind_buffers(8) is bound  # one set of buffers per thread and row count
    bound.observations[:] = observations
    bound.run_rows(3)
    logits, values = evaluator.forward(observations[:3])
    assert np.array_equal(bound.logits[:3], logits)
    assert np.array_equal(bound.values[:3], values)
    for rows in (0, 9, 2.5):
        with pytest.raises(ValueError, match=r"expected an integer in \[1, 8\]"):
            bound.run_rows(rows)
