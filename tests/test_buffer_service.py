"""The replay-buffer service the buffer actor runs: whole games in, batches and counters out."""

from __future__ import annotations

import dataclasses

import numpy as np

import games
from mcts import PUCTConfig, uniform_evaluator
from selfplay.buffer_service import ReplayBufferService
from selfplay.runner import SelfPlayRunner


def _records(count_moves: int = 12):
    runner = SelfPlayRunner(
        games.make("tictactoe"), uniform_evaluator, PUCTConfig(num_simulations=4), 8, np.random.default_rng(0)
    )
    records, _ = runner.play_moves(count_moves)
    return records


def test_rejected_games_are_counted_and_never_half_inserted():
    service = ReplayBufferService("tictactoe", capacity_positions=500, min_positions_to_sample=10, seed=0)
    records = _records()
    bad_policy = records[0].policies.copy()
    bad_policy[0] *= 0.9  # sums to 0.9: rejected
    bad = dataclasses.replace(records[0], policies=bad_policy)
    accepted = service.add_games([bad, *records[1:]])
    stats = service.stats()
    assert accepted == len(records) - 1
    assert stats["rejected_games"] == 1 and "policies" in service.last_rejection
    assert stats["games_added"] == len(records) - 1
    assert stats["positions_added"] == sum(r.num_positions for r in records[1:])


def test_fetch_returns_batches_only_once_enough_positions_are_stored():
    service = ReplayBufferService("tictactoe", capacity_positions=500, min_positions_to_sample=10_000, seed=0)
    service.add_games(_records())
    batches, stats = service.fetch(3, 8)
    assert batches == [] and stats["size"] > 0
    service = ReplayBufferService("tictactoe", capacity_positions=500, min_positions_to_sample=10, seed=0)
    service.add_games(_records())
    batches, stats = service.fetch(3, 8)
    assert len(batches) == 3 and all(batch.values.shape == (8,) for batch in batches)


def test_growing_window_starts_small():
    service = ReplayBufferService("tictactoe", 500, 1, seed=0, window_growth_start=20)
    service.add_games(_records())
    buffer = service.buffer
    # 62 positions seen with c = 20: the window has grown past 20 but holds fewer than were stored
    assert buffer.positions_added == 62
    assert 20 < buffer.window == buffer.size < buffer.positions_added
    fixed = ReplayBufferService("tictactoe", 500, 1, seed=0)
    fixed.add_games(_records())
    assert fixed.buffer.window == 500 and fixed.buffer.size == 62
