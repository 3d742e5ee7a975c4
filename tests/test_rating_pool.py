"""Ratings against a fixed pool of reference players (arena/rating.py) and their wiring into the
arena actor and the training config."""

from __future__ import annotations

import numpy as np
import pytest

import games
from arena.elo import fit_bradley_terry
from arena.match import ladder_tables, run_match
from arena.players import RandomPlayer, SolverPlayer
from arena.rating import RatingPlan, RatingPool


def _pool(**changes) -> RatingPool:
    options = {"specs": ("random", "alphabeta:depth=1", "solver"), "games_per_opponent": 4, "seed": 3, "opening_plies": 1}
    options.update(changes)
    return RatingPool(games.make("tictactoe"), **options)


def test_a_perfect_model_scores_as_the_solver_and_the_fit_is_the_ladders_fit():
    pool = _pool()
    rating = pool.rate(SolverPlayer(rng=0, name="model"))
    assert rating.num_games == 12 and pool.games_per_rating == 12
    assert rating.records["random"][2] == 0 and rating.records["solver"] == [0, 4, 0]  # perfect play draws perfect play
    # the same games refitted by hand: the pool's round robin plus the model's matches
    matches = dict(pool.round_robin())
    model = SolverPlayer(rng=0, name="model")
    for index, opponent in enumerate(pool._players()):
        matches[(3, index)] = run_match(pool.game, model, opponent, 4, pool._openings(index), 1)
    points, played = ladder_tables(4, matches)
    fit = fit_bradley_terry(["random", "alphabeta:depth=1", "solver", "model"], points, played)
    assert rating.elo == pytest.approx(fit.ratings[3], abs=1e-9)
    assert (rating.low, rating.high) == pytest.approx(tuple(fit.intervals[3]), abs=1e-9)
    assert rating.pool["random"] == 0.0 and rating.low < rating.elo < rating.high


def test_the_pool_plays_its_round_robin_once_and_the_same_openings_for_every_model():
    pool = _pool()
    first = pool.round_robin()
    assert pool.round_robin() is first and len(first) == 3
    a = pool.rate(RandomPlayer(rng=5, name="model"))
    b = pool.rate(RandomPlayer(rng=5, name="model"))
    assert a == b  # same player, same seeds, same openings: the same rating
    stronger = pool.rate(SolverPlayer(rng=0, name="model"))
    assert stronger.elo > a.elo


def test_bad_pools_are_refused_with_what_was_expected():
    with pytest.raises(ValueError, match=r"expected at least one reference player, all distinct, got \['random', 'random'\]"):
        _pool(specs=("random", "random"))
    with pytest.raises(ValueError, match="rating games per opponent: expected an even integer >= 2, got 3"):
        _pool(games_per_opponent=3)
    with pytest.raises(ValueError, match="uct searches games without chance"):
        RatingPool(games.make("pig", goal=10), ("random", "uct:sims=10"), 2, 0, 0)


def test_the_arena_actor_rates_each_new_best_model_when_it_has_a_pool():
    import torch

    from arena.gating import GatingWorker
    from mcts import PUCTConfig
    from networks import build_network
    from networks.config import NetworkConfig

    config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    game = games.make("tictactoe")
    torch.manual_seed(2)
    weights = build_network(config, game.observation_shape, game.num_actions).state_dict()
    worker = GatingWorker("tictactoe", config, PUCTConfig(num_simulations=4), 4, 0.55, 1, seed=0, inference="torch",
                          rating=RatingPlan(("random", "solver"), 2))
    out = worker.measure_best(7, weights)
    assert out["version"] == 7 and set(out["rates"]) == {"all"}
    rating = out["rating"]
    assert rating["games"] == 4 and set(rating["records"]) == {"random", "solver"}
    assert rating["low"] < rating["elo"] < rating["high"]
    assert rating["records"]["solver"][0] == 0  # nobody beats perfect play at tic-tac-toe
    plain = GatingWorker("tictactoe", config, PUCTConfig(num_simulations=4), 4, 0.55, 1, seed=0, inference="torch")
    assert plain.measure_best(7, weights)["rating"] is None


def test_the_training_config_turns_ratings_on_for_connect_four_and_checks_the_pool():
    from trainer.config import TrainSchema, validate

    config = TrainSchema()
    assert config.arena.rating is False and config.arena.rating_games == 10
    config.arena.rating, config.arena.rating_games = True, 3
    config.arena.rating_pool = ["random", "nobody"]
    with pytest.raises(ValueError) as raised:
        validate(config)
    assert "arena.rating_*: " in str(raised.value)
