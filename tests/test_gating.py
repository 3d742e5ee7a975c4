"""Gating and batched network matches: CASES G1, G3."""

from __future__ import annotations

import numpy as np
import pytest
import torch

import games
from arena.gating import GatingWorker, gate_decision, weights_hash
from arena.network_match import play_match
from mcts import PUCTConfig, uniform_evaluator
from networks import build_network
from networks.config import NetworkConfig
from trainer.learner import Learner


def test_g1_gate_decisions():
    assert gate_decision(0, 40, 0, 0.55) == (0.5, False)
    assert gate_decision(0, 0, 0, 0.55) == (0.0, False)  # no games: rejected, no division by zero
    score, accepted = gate_decision(6, 30, 4, 0.55)
    assert score == pytest.approx(0.525) and not accepted
    assert gate_decision(11, 0, 9, 0.55) == (0.55, True)  # exactly the threshold is accepted
    assert gate_decision(10, 2, 8, 0.55) == (0.55, True)
    with pytest.raises(ValueError, match="threshold"):
        gate_decision(1, 1, 1, 0.0)
    with pytest.raises(ValueError, match="counts"):
        gate_decision(-1, 1, 1, 0.5)


def _tiny_config():
    return NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)


def test_g3_best_snapshot_is_unchanged_by_an_optimiser_step():
    game = games.make("tictactoe")
    model = build_network(_tiny_config(), game.observation_shape, game.num_actions)
    learner = Learner(model, device="cpu")
    best = learner.snapshot()
    best_hash = weights_hash(best)
    batch = {
        "observations": np.random.default_rng(0).random((8, 2, 3, 3), dtype=np.float32),
        "legal_masks": np.ones((8, 9), dtype=bool),
        "policies": np.full((8, 9), 1 / 9, dtype=np.float32),
        "values": np.ones(8, dtype=np.float32),
    }
    learner.train_step(batch)
    assert weights_hash(best) == best_hash
    assert weights_hash(learner.snapshot()) != best_hash


def test_g3_identical_weights_are_refused():
    game = games.make("tictactoe")
    worker = GatingWorker("tictactoe", _tiny_config().to_dict(), {"num_simulations": 4}, 4, 0.55, 1, seed=0)
    weights = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    result = worker.gate(3, weights, 2, {k: v.clone() for k, v in weights.items()})
    assert not result.accepted and result.refused_reason and result.wins + result.draws + result.losses == 0


def test_gating_worker_plays_the_configured_number_of_games():
    game = games.make("tictactoe")
    torch.manual_seed(0)
    a = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    b = build_network(_tiny_config(), game.observation_shape, game.num_actions).state_dict()
    worker = GatingWorker("tictactoe", _tiny_config().to_dict(), {"num_simulations": 13}, 7, 0.55, 2, seed=0)
    result = worker.gate(1, a, 0, b)
    assert result.wins + result.draws + result.losses == 7  # CASES M3: 7 arena games
    assert 1 <= result.distinct_games <= 7
    assert result.accepted == (result.score >= 0.55)


def test_match_alternates_colours_and_counts_by_colour():
    game = games.make("tictactoe")
    result = play_match(
        game, uniform_evaluator, uniform_evaluator, 10, PUCTConfig(num_simulations=8),
        np.random.default_rng(1), opening_random_plies=2,
    )
    assert result.num_games == 10
    assert result.wins_as_first + result.draws_as_first + result.losses_as_first == 5
    assert result.wins_as_second + result.draws_as_second + result.losses_as_second == 5
    assert result.wins == result.wins_as_first + result.wins_as_second
    for index, text in enumerate(result.games):
        state = game.states_from_moves([text])
        assert game.terminal(state)[0]
    # per-game log agrees with the counts: A is first in even games
    a_wins = 0
    for index, text in enumerate(result.games):
        winner = game.winner(game.states_from_moves([text]))[0]
        a_wins += int(winner >= 0 and (winner == 0) == (index % 2 == 0))
    assert a_wins == result.wins


def test_without_random_openings_identical_players_repeat_one_game():
    """Why arena games need seeded openings: deterministic searches replay the same game."""
    game = games.make("tictactoe")
    search = PUCTConfig(num_simulations=200)
    result = play_match(game, uniform_evaluator, uniform_evaluator, 2, search, np.random.default_rng(0), 0)
    assert result.distinct_games == 1 and result.num_games == 2
