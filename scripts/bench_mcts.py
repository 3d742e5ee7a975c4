"""Benchmark of the batched PUCT search with a free evaluator: search and rules alone.

Prints one JSON object ``{"runs": [...]}``; each run has ``game``, ``batch_size``,
``simulations_per_move``, ``tree_sims_per_s`` (simulations per second summed over the batch, with
observations encoded as a network evaluator needs them) and ``tree_sims_per_s_states`` (the same
with a state evaluator, so no observation is encoded). The evaluator is the zero net (uniform
priors, value 0). Run it on one core (``taskset -c 0``) to compare with the issue's bar.

Usage: ``python scripts/bench_mcts.py [--games tictactoe connect4] [--batch-sizes 1 64 256]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from mcts import PUCTConfig, run_search, uniform_evaluator, uniform_state_evaluator


def bench(game_name: str, batch_size: int, num_simulations: int, evaluate_fn, min_seconds: float) -> float:
    """Simulations per second (all rows together) of searches from the start position."""
    game = games.make(game_name)
    roots = game.initial_states(batch_size)
    config = PUCTConfig(num_simulations=num_simulations)
    rng = np.random.default_rng(0)
    run_search(game, roots, evaluate_fn, config, rng, explore=True)  # compile and warm up
    searches = 0
    start = time.perf_counter()
    while True:
        run_search(game, roots, evaluate_fn, config, rng, explore=True)
        searches += 1
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            break
    return searches * batch_size * num_simulations / elapsed


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["tictactoe", "connect4"])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 64, 256])
    parser.add_argument("--simulations", type=int, default=200, help="simulations per move")
    parser.add_argument("--min-seconds", type=float, default=2.0, help="timing window per run")
    args = parser.parse_args(argv)
    runs = []
    for game_name in args.games:
        for batch_size in args.batch_sizes:
            runs.append(
                {
                    "game": game_name,
                    "batch_size": batch_size,
                    "simulations_per_move": args.simulations,
                    "tree_sims_per_s": round(
                        bench(game_name, batch_size, args.simulations, uniform_evaluator, args.min_seconds)
                    ),
                    "tree_sims_per_s_states": round(
                        bench(game_name, batch_size, args.simulations, uniform_state_evaluator, args.min_seconds)
                    ),
                }
            )
            print(json.dumps(runs[-1]), file=sys.stderr)
    print(json.dumps({"runs": runs}, indent=2))


if __name__ == "__main__":
    main()
