"""Memory: 200 tic-tac-toe self-play games in one process keep memory at its
baseline: no search tree or game record is kept alive between calls, and traced allocations do not
grow with the number of games (the long-run check of a whole ``train`` is scripts/soak.py)."""

from __future__ import annotations

import gc
import tracemalloc

import numpy as np
import pytest
import torch

import games
from mcts import PUCTConfig
from mcts.tree import Tree
from networks import build_network
from networks.config import NetworkConfig
from networks.evaluator import TorchEvaluator
from selfplay.records import GameRecord
from selfplay.runner import SelfPlayRunner, SelfPlaySettings


def _alive(kind) -> int:
    gc.collect()
    return sum(1 for obj in gc.get_objects() if isinstance(obj, kind))


@pytest.mark.slow
def test_200_selfplay_games_return_memory_to_its_baseline():
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        game = games.make("tictactoe")
        model = build_network(
            NetworkConfig(kind="mlp", mlp_hidden=(32, 32), value_hidden=16),
            game.observation_shape,
            game.num_actions,
        )
        evaluator = TorchEvaluator(model, device="cpu")
        runner = SelfPlayRunner(
            game,
            evaluator.evaluate,
            PUCTConfig(num_simulations=8),
            8,
            np.random.default_rng(0),
            settings=SelfPlaySettings(random_opening_plies=2),
        )

        def play(games_wanted: int) -> int:
            played = 0
            while played < games_wanted:
                records, stats = runner.play_moves(3)
                played += stats.games
                del records
            return played

        play(40)  # warm-up: Numba compilation, torch's first calls, numpy's small-buffer cache
        trees_before, records_before = _alive(Tree), _alive(GameRecord)
        tracemalloc.start()
        try:
            baseline = tracemalloc.get_traced_memory()[0]
            growth = []
            for _ in range(4):
                play(50)
                gc.collect()
                growth.append(tracemalloc.get_traced_memory()[0] - baseline)
        finally:
            tracemalloc.stop()
    finally:
        torch.set_num_threads(threads)
    # nothing from finished searches or handed-over games stays alive (counted against what other
    # tests in the same process may still hold)
    assert _alive(Tree) <= trees_before + 1
    assert _alive(GameRecord) == records_before
    # 200 games: measured about 8 KB with the older search loop (numpy's bounded cache of small freed
    # buffers), 72-107 KB since the kernels take the tree as one record (mcts.kernels.TreeArrays):
    # allocations made inside the compiled kernels' dispatch, at their call sites in mcts/search.py,
    # that level off at about 104 KB however long self-play runs (1,200 games: 64 KB after the first
    # 100, 104 KB after 1,200, the last 500 adding 0.9 KB). A game or a tree kept per game would be
    # tens of kilobytes each, megabytes over 200 games.
    assert growth[-1] < 160 * 1024, growth
    assert growth[-1] - growth[0] < 32 * 1024, growth
