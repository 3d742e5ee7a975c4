"""Self-play techniques of selfplay/runner.py, selfplay/eval_cache.py and the loss: playout cap
randomisation (Wu 2019, sec. 5), value targets z / q / mix / lambda, Gumbel and solver self-play, the
evaluation cache (never another position's output, never a different search result)."""

from __future__ import annotations

import numpy as np
import pytest
import torch
from helpers_train import refusal
from hypothesis import given, settings
from hypothesis import strategies as st
from test_mcts import P1, board

import games
from mcts import GumbelConfig, PUCTConfig, uniform_evaluator
from mcts.search import run_puct
from networks.config import NetworkConfig
from selfplay.eval_cache import EvaluationCache
from selfplay.records import GameRecord
from selfplay.replay_buffer import ReplayBuffer
from selfplay.runner import SelfPlayRunner, SelfPlaySettings, lambda_returns, outcome_targets, value_targets
from selfplay.worker import GAME_ID_BLOCK, SelfPlayWorker, WorkerSettings
from trainer.losses import alphazero_loss

TTT = games.make("tictactoe")
C4 = games.make("connect4")


def observation_hash_evaluator(observations, legal_mask):
    """A deterministic fake network on observations: priors and value from the observation alone."""
    flat = observations.reshape(observations.shape[0], -1)
    weights = np.sin(np.arange(flat.shape[1]) * 12.9898) * 43758.5453 % 1.0
    seeds = flat @ weights
    priors = np.abs(np.sin(seeds[:, None] * (1.0 + np.arange(legal_mask.shape[1])))) + 0.01
    values = np.tanh(np.cos(seeds * 7.0))
    return priors.astype(np.float32), values.astype(np.float32)


# --------------------------------------------------------------------------- value targets
def test_value_targets_z_q_and_mix_exact():
    z = np.array([1.0, -1.0, 1.0], dtype=np.float32)
    q = np.array([0.5, -0.2, 0.0], dtype=np.float32)
    np.testing.assert_array_equal(value_targets(z, q, "z"), z)
    np.testing.assert_array_equal(value_targets(z, q, "q"), q)
    np.testing.assert_allclose(value_targets(z, q, "mix"), [0.75, -0.6, 0.5], rtol=1e-7)
    with pytest.raises(ValueError, match="value target"):
        value_targets(z, q, "td")
    with pytest.raises(ValueError, match="shape"):
        value_targets(z, q[:2], "mix")


def test_lambda_return_by_hand_with_a_kept_turn_and_two_changes():
    """Four positions of a Pig-like game: player 0 rolls (keeps the turn), then holds (turn to
    player 1), player 1 rolls a 1 (turn back to 0), player 0 wins. lambda = 0.5, backwards:
    G_3 = 0.5 * 0.8 + 0.5 * 1 = 0.9; G_2 = 0.5 * (-0.4) + 0.5 * (-0.9) = -0.65;
    G_1 = 0.5 * 0.2 + 0.5 * 0.65 = 0.425; G_0 = 0.5 * 0.6 + 0.5 * 0.425 = 0.5125."""
    to_play = np.array([0, 0, 1, 0])
    z = outcome_targets(to_play, 0)
    q = np.array([0.6, 0.2, -0.4, 0.8], dtype=np.float32)
    np.testing.assert_allclose(lambda_returns(z, q, to_play, 0.5), [0.5125, 0.425, -0.65, 0.9], atol=1e-6)
    np.testing.assert_allclose(value_targets(z, q, "lambda", to_play, 0.5), [0.5125, 0.425, -0.65, 0.9], atol=1e-6)
    # a drawn game: the outcome 0 enters with weight lambda^(T - t)
    np.testing.assert_allclose(lambda_returns(np.zeros(2), np.array([0.4, -0.2]), np.array([0, 1]), 0.5), [0.25, -0.1], atol=1e-7)


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.tuples(st.integers(0, 1), st.floats(-1, 1, width=32)), min_size=1, max_size=30),
    st.sampled_from([0, 1, -1]),
    st.floats(0, 1),
)
def test_lambda_return_runs_from_q_to_z_and_unrolls_to_its_weighted_sum(moves, winner, td_lambda):
    """lambda = 0 gives q, lambda = 1 gives z, and every lambda the unrolled sum
    sum_k (1 - lambda) lambda^k s(t, t+k) q_{t+k} + lambda^(T-t) s(t, T-1) z_{T-1}."""
    to_play = np.array([player for player, _ in moves])
    q = np.array([value for _, value in moves], dtype=np.float32)
    z = outcome_targets(to_play, winner)
    np.testing.assert_allclose(lambda_returns(z, q, to_play, 0.0), q, atol=1e-6)
    np.testing.assert_allclose(lambda_returns(z, q, to_play, 1.0), z, atol=1e-6)
    T = len(moves)
    for t in range(T):
        sign = np.where(to_play[t:] == to_play[t], 1.0, -1.0)  # s(t, t + k) for k = 0 .. T - 1 - t
        unrolled = sum((1 - td_lambda) * td_lambda**k * sign[k] * q[t + k] for k in range(T - t))
        unrolled += td_lambda ** (T - t) * sign[T - 1 - t] * z[T - 1]
        assert lambda_returns(z, q, to_play, td_lambda)[t] == pytest.approx(unrolled, abs=1e-5)


def test_lambda_return_refusals():
    with pytest.raises(ValueError, match="td_lambda"):
        lambda_returns(np.zeros(2), np.zeros(2), np.zeros(2, dtype=int), 1.5)
    with pytest.raises(ValueError, match="shape"):
        lambda_returns(np.zeros(2), np.zeros(3), np.zeros(2, dtype=int), 0.5)
    with pytest.raises(ValueError, match="to_play"):
        value_targets(np.zeros(2), np.zeros(2), "lambda")
    with pytest.raises(ValueError, match="td_lambda"):
        SelfPlaySettings(value_target="lambda", td_lambda=-0.1)


@pytest.mark.parametrize("kind", ["z", "q", "mix"])
def test_runner_records_the_chosen_value_target(kind):
    runner = SelfPlayRunner(
        TTT, observation_hash_evaluator, PUCTConfig(num_simulations=8), 4, np.random.default_rng(1),
        settings=SelfPlaySettings(value_target=kind),
    )
    records, _ = runner.play_moves(12)
    assert records
    for record in records:
        z = outcome_targets(record.to_play, record.winner)
        if kind == "z":
            np.testing.assert_array_equal(record.values, z)
        else:
            q = record.values if kind == "q" else 2.0 * record.values - z
            assert np.all(np.abs(q) <= 1.0 + 1e-6)
            assert not np.array_equal(record.values, z)  # the search's values are not the outcome
    with pytest.raises(ValueError, match="value_target"):
        SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=8), 2, np.random.default_rng(0), settings=SelfPlaySettings(value_target="v"))


def test_runner_records_lambda_returns_between_q_and_z():
    """The same seeded Pig games recorded with each target: lambda 0 is exactly q, lambda 1 exactly
    z, lambda 0.5 the lambda-return of the q and z recorded."""
    pig = games.make("pig")

    def records(kind, td_lambda=0.9):
        runner = SelfPlayRunner(
            pig, observation_hash_evaluator, PUCTConfig(num_simulations=4), 3, np.random.default_rng(4),
            settings=SelfPlaySettings(value_target=kind, td_lambda=td_lambda),
        )
        found = []
        while len(found) < 3:
            found.extend(runner.play_moves(200)[0])
        return sorted(found, key=lambda record: record.game_id)[:3]

    by_q, by_z = records("q"), records("z")
    for lam0, lam1, half, q, z in zip(records("lambda", 0.0), records("lambda", 1.0), records("lambda", 0.5), by_q, by_z):
        assert len(set(q.to_play.tolist())) == 2  # both players moved
        np.testing.assert_array_equal(lam0.values, q.values)
        np.testing.assert_array_equal(lam1.values, z.values)
        np.testing.assert_allclose(half.values, lambda_returns(z.values, q.values, q.to_play, 0.5), atol=1e-6)


def test_q_target_is_the_root_search_value():
    """One game of P1-like play: the first stored q equals a fresh search's root value."""
    runner = SelfPlayRunner(
        TTT, observation_hash_evaluator, PUCTConfig(num_simulations=8, dirichlet_epsilon=0.0), 1,
        np.random.default_rng(0), settings=SelfPlaySettings(value_target="q", temperature_plies=0),
    )
    records, _ = runner.play_moves(9)
    first = records[0]
    expected = run_puct(TTT, TTT.initial_states(1), observation_hash_evaluator, PUCTConfig(num_simulations=8),
                        np.random.default_rng(5), False).root_values[0]
    assert first.values[0] == pytest.approx(expected, abs=1e-6)


# --------------------------------------------------------------------------- playout cap randomisation
def test_playout_cap_randomisation_weights_and_budgets():
    num_games, full, cheap = 8, 12, 3
    runner = SelfPlayRunner(
        TTT, uniform_evaluator, PUCTConfig(num_simulations=full), num_games, np.random.default_rng(7),
        settings=SelfPlaySettings(full_search_probability=0.25, cheap_simulations=cheap),
    )
    records, stats = runner.play_moves(40)
    full_plies = stats.full_searches // num_games
    cheap_plies = 40 - full_plies
    assert stats.full_searches % num_games == 0
    assert 0 < full_plies < 40
    assert stats.simulations == num_games * (full * full_plies + cheap * cheap_plies)
    weights = np.concatenate([r.policy_weights for r in records])
    assert set(np.unique(weights).tolist()) == {0.0, 1.0}
    for record in records:  # every position keeps its value target z, whatever its search
        np.testing.assert_array_equal(record.values, outcome_targets(record.to_play, record.winner))
        np.testing.assert_allclose(record.policies.sum(axis=1), 1.0, rtol=1e-6)
    off = SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=full), num_games, np.random.default_rng(7))
    records_off, stats_off = off.play_moves(40)
    assert stats_off.full_searches == 40 * num_games
    assert all(np.all(r.policy_weights == 1.0) for r in records_off)


def test_playout_cap_settings_are_checked():
    with pytest.raises(ValueError, match="full_search_probability"):
        SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=8), 2, np.random.default_rng(0),
                       settings=SelfPlaySettings(full_search_probability=0.0))
    with pytest.raises(ValueError, match="cheap_simulations"):
        SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=8), 2, np.random.default_rng(0),
                       settings=SelfPlaySettings(full_search_probability=0.5, cheap_simulations=9))


def test_policy_weight_zero_removes_the_policy_gradient_only():
    torch.manual_seed(0)
    logits = torch.randn(3, 4, requires_grad=True)
    value = torch.zeros(3, requires_grad=True)
    target = torch.tensor([[1.0, 0, 0, 0], [0, 1.0, 0, 0], [0.5, 0.5, 0, 0]])
    mask = torch.ones(3, 4, dtype=torch.bool)
    z = torch.tensor([1.0, -1.0, 0.5])
    weights = torch.tensor([1.0, 0.0, 1.0])
    total, parts = alphazero_loss(logits, value, target, z, mask, policy_weights=weights)
    total.backward()
    assert torch.all(logits.grad[1] == 0.0)
    assert torch.all(logits.grad[0] != 0.0)
    assert value.grad[1] != 0.0  # the value target still counts
    log_p = torch.log_softmax(logits.detach(), dim=-1)
    expected = -(target[0] * log_p[0]).sum() - (target[2] * log_p[2]).sum()
    assert parts["policy_loss"].item() == pytest.approx(expected.item() / 3, rel=1e-6)
    with pytest.raises(ValueError, match="policy_weights"):
        alphazero_loss(logits, value, target, z, mask, policy_weights=torch.ones(2))


def test_buffer_stores_policy_weights_and_reads_old_states():
    runner = SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=4), 4, np.random.default_rng(3),
                            settings=SelfPlaySettings(full_search_probability=0.5, cheap_simulations=2))
    records, _ = runner.play_moves(20)
    buffer = ReplayBuffer(1000, TTT, seed=0)
    for record in records:
        buffer.add_game(record)
    batch = buffer.sample(64)
    assert batch.policy_weights.shape == (64,)
    assert set(np.unique(batch.policy_weights).tolist()) <= {0.0, 1.0}
    state = buffer.state_dict()
    stored = state["train/policy_weights"].copy()
    np.testing.assert_array_equal(stored, np.concatenate([r.policy_weights for r in records])[-len(stored):])
    old = {k: v for k, v in state.items() if not k.endswith("/policy_weights")}
    restored = ReplayBuffer(1000, TTT, seed=0)
    restored.load_state_dict(old)
    assert np.all(restored.sample(32).policy_weights == 1.0)
    bad = GameRecord(**{**records[0].__dict__, "policy_weights": np.full(records[0].num_positions, 2.0, np.float32)})
    with pytest.raises(ValueError, match="policy_weights"):
        buffer.add_game(bad)


# --------------------------------------------------------------------------- Gumbel and solver self-play
def test_gumbel_self_play_targets_cover_every_legal_move_and_play_the_winner():
    runner = SelfPlayRunner(TTT, observation_hash_evaluator, GumbelConfig(num_simulations=8, max_num_considered_actions=4),
                            4, np.random.default_rng(0))
    records, _ = runner.play_moves(12)
    for record in records:
        positive = record.policies > 0
        np.testing.assert_array_equal(positive, record.legal_masks)
        np.testing.assert_allclose(record.policies.sum(axis=1), 1.0, rtol=1e-6)


def test_solver_self_play_takes_the_proven_win():
    """P1 from the start of each game: the solver's counts keep only the winning move 2."""
    runner = SelfPlayRunner(TTT, observation_hash_evaluator, PUCTConfig(num_simulations=32, solver=True), 3,
                            np.random.default_rng(0), settings=SelfPlaySettings(temperature_plies=9))
    runner.states = np.repeat(board(P1), 3, axis=0)
    runner._start_ply[:] = TTT.ply(runner.states)
    records, _ = runner.play_moves(1)
    assert len(records) == 3
    for record in records:
        assert record.actions[0] == 2
        assert record.policies[0, 2] == 1.0


# --------------------------------------------------------------------------- evaluation cache
@pytest.mark.parametrize("capacity", [1, 7, 4096])
def test_cache_never_changes_a_search_or_self_play(capacity):
    """Same seed with and without the cache: identical games, targets and search counters; with one
    slot every lookup collides, and still no other position's output comes back."""
    cached = EvaluationCache(C4, observation_hash_evaluator, capacity)
    with_cache = SelfPlayRunner(C4, cached, PUCTConfig(num_simulations=16), 6, np.random.default_rng(4))
    plain = SelfPlayRunner(C4, observation_hash_evaluator, PUCTConfig(num_simulations=16), 6, np.random.default_rng(4))
    a_records, a_stats = with_cache.play_moves(15)
    b_records, b_stats = plain.play_moves(15)
    np.testing.assert_array_equal(with_cache.states, plain.states)
    assert a_stats.leaf_evaluations == b_stats.leaf_evaluations
    assert len(a_records) == len(b_records)
    for a, b in zip(a_records, b_records):
        np.testing.assert_array_equal(a.actions, b.actions)
        np.testing.assert_array_equal(a.policies, b.policies)
    assert cached.lookups == a_stats.leaf_evaluations
    if capacity == 4096:
        assert cached.hits / cached.lookups > 0.2  # the next ply's search revisits the played subtree


def test_cache_answers_repeats_exactly_and_clears():
    calls = []

    def counting(observations, legal_mask):
        calls.append(len(observations))
        return observation_hash_evaluator(observations, legal_mask)

    cache = EvaluationCache(TTT, counting, 64)
    states = board(P1, ". . . / . . . / . . .", P1)
    legal = TTT.legal_mask(states)
    priors, values = cache(states, legal)
    expected_p, expected_v = observation_hash_evaluator(TTT.observation(states), legal)
    np.testing.assert_array_equal(priors, expected_p)
    np.testing.assert_array_equal(values, expected_v)
    assert calls == [3] and cache.hits == 0  # a repeat inside one batch is evaluated with it
    cache(states, legal)
    assert calls == [3] and cache.hits == 3 and cache.lookups == 6
    cache.clear()
    cache(states[:1], legal[:1])
    assert calls == [3, 1]
    with pytest.raises(ValueError, match="capacity"):
        EvaluationCache(TTT, counting, 0)


def test_worker_clears_its_cache_when_the_weights_change():
    network = NetworkConfig(kind="mlp", mlp_hidden=(8,), value_hidden=4)
    settings = WorkerSettings(
        num_games=2, moves_per_call=2, device="cpu", eval_cache_size=256, inference="torch",
        play=SelfPlaySettings(temperature=1.0, temperature_plies=2),
    )
    worker = SelfPlayWorker("tictactoe", network, PUCTConfig(num_simulations=4), settings, seed=0, incarnation=1)
    weights = {k: v.numpy() for k, v in worker.evaluator.model.state_dict().items()}
    _, stats = worker.play(1, weights)
    assert stats.eval_cache_lookups > 0
    assert worker.cache._filled.any()
    seen = []
    original = worker.runner.play_moves

    def spy(num_moves):
        seen.append(int(worker.cache._filled.sum()))
        return original(num_moves)

    worker.runner.play_moves = spy
    _, stats = worker.play(1)  # the same weights: the table is kept
    assert stats.eval_cache_hits > 0
    worker.play(2, weights)  # new weights: emptied before the searches
    assert seen[0] > 0
    assert seen[1] == 0


def test_onnx_inference_follows_the_weights_and_matches_torch():
    network = NetworkConfig(kind="resnet", num_blocks=1, channels=8, value_hidden=8)
    settings = WorkerSettings(
        num_games=2, moves_per_call=2, device="cpu", inference="onnx",
        play=SelfPlaySettings(temperature=1.0, temperature_plies=2),
    )
    worker = SelfPlayWorker("connect4", network, PUCTConfig(num_simulations=4), settings, seed=0, incarnation=1)
    rng = np.random.default_rng(0)
    states = C4.initial_states(16)
    for _ in range(5):
        legal = C4.legal_mask(states)
        states = C4.step(states, np.array([rng.choice(np.flatnonzero(row)) for row in legal]))
    observations, legal = C4.observation(states), C4.legal_mask(states)
    torch.manual_seed(1)
    weights = {k: (v + 0.1 * torch.randn_like(v) if v.is_floating_point() else v).numpy()
               for k, v in worker.evaluator.model.state_dict().items()}
    worker.play(1, weights)
    onnx_priors, onnx_values = worker.evaluate(observations, legal)
    torch_priors, torch_values = worker.evaluator.evaluate(observations, legal)
    np.testing.assert_allclose(onnx_priors, torch_priors, atol=1e-5)
    np.testing.assert_allclose(onnx_values, torch_values, atol=1e-5)
    assert np.all(onnx_priors[~legal] == 0.0)
    with pytest.raises(ValueError, match=r"inference: expected one of \['torch', 'onnx'\], got 'tensorrt'"):
        WorkerSettings(num_games=2, moves_per_call=2, inference="tensorrt")


def test_worker_settings_are_one_checked_object():
    with pytest.raises(ValueError, match="moves_per_call: expected an int >= 1, got 0"):
        WorkerSettings(num_games=2, moves_per_call=0)
    with pytest.raises(ValueError, match="play: expected a selfplay.runner.SelfPlaySettings, got dict"):
        WorkerSettings(num_games=2, moves_per_call=1, play={"temperature": 1.0})
    network = NetworkConfig(kind="mlp", mlp_hidden=(8,), value_hidden=4)
    with pytest.raises(ValueError, match="settings: expected a selfplay.worker.WorkerSettings, got dict"):
        SelfPlayWorker("tictactoe", network, PUCTConfig(num_simulations=4), {"num_games": 2}, seed=0, incarnation=1)
    with pytest.raises(ValueError, match="settings: expected a selfplay.runner.SelfPlaySettings, got dict"):
        SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=4), 2, np.random.default_rng(0), {"temperature": 1.0})
    with pytest.raises(ValueError, match="network_config: expected a networks.config.NetworkConfig, got dict"):
        SelfPlayWorker("tictactoe", network.to_dict(), PUCTConfig(num_simulations=4),
                       WorkerSettings(num_games=2, moves_per_call=1), seed=0, incarnation=1)
    settings = WorkerSettings(num_games=3, moves_per_call=2, device="cpu", inference="torch",
                              play=SelfPlaySettings(temperature_plies=0))
    worker = SelfPlayWorker("tictactoe", network, PUCTConfig(num_simulations=4), settings, seed=0, incarnation=2)
    assert worker.runner.num_games == 3 and worker.moves_per_call == 2
    assert worker.runner.settings is settings.play
    assert worker.runner.game_ids.tolist() == [2 * GAME_ID_BLOCK + index for index in range(3)]


# --------------------------------------------------------------------------- configuration
@pytest.mark.parametrize(
    "overrides, expected",
    [
        (["mcts.algorithm=alphago"], "mcts.algorithm: expected one of ['puct', 'gumbel', 'uct'], got 'alphago'"),
        (["mcts.gumbel_max_considered_actions=0"], "mcts.gumbel_max_considered_actions: expected an int max_num_considered_actions >= 1, got 0"),
        (["selfplay.full_search_probability=0"], "selfplay.full_search_probability: expected in (0, 1], got 0.0"),
        (
            ["mcts.num_simulations=64", "selfplay.full_search_probability=0.25", "selfplay.cheap_simulations=100"],
            "selfplay.cheap_simulations: expected in [1, mcts.num_simulations = 64], got 100",
        ),
        (["selfplay.value_target=td"], "selfplay.value_target: expected one of ['z', 'q', 'mix', 'lambda'], got 'td'"),
            (["selfplay.td_lambda=1.5"], "selfplay.td_lambda: expected in [0, 1], got 1.5"),
        (["selfplay.eval_cache_size=-1"], "selfplay.eval_cache_size: expected an int >= 0, got -1"),
        (["selfplay.inference=tensorrt"], "selfplay.inference: expected one of ['torch', 'onnx'], got 'tensorrt'"),
    ],
)
def test_bad_technique_settings_are_refused(compose, overrides, expected):
    assert expected in refusal(compose, ["game=connect4", *overrides])


def test_technique_settings_reach_the_search_configs(compose):
    from trainer.config import selfplay_search, validate

    config = compose(["mcts.algorithm=gumbel", "mcts.solver=true", "mcts.gumbel_max_considered_actions=4"])
    validate(config)
    assert selfplay_search(config) == GumbelConfig(
        num_simulations=config.mcts.num_simulations, max_num_considered_actions=4, solver=True
    )
    puct = selfplay_search(compose(["mcts.algorithm=puct", "mcts.solver=true"]))
    assert isinstance(puct, PUCTConfig) and puct.solver is True
    # Connect Four's default (configs/game/connect4.yaml): Gumbel, 32 simulations over all 7 columns
    assert selfplay_search(compose([])) == GumbelConfig(num_simulations=32, max_num_considered_actions=7)
