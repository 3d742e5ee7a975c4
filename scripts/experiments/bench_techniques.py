"""Self-play cost of the strength techniques, per CPU second: prints one JSON object.

For one game and its default CPU network (random weights), plays batched self-play with
``selfplay.runner.SelfPlayRunner`` in this process (one thread, no Ray) under each variant, the
variants interleaved round by round so machine drift hits all alike, and reports per variant
``positions_per_cpu_s`` (self-play plies per second of this process's CPU time,
``time.process_time``: steadier than wall clock on a shared machine), ``leaf_evaluations_per_move``
and, with the cache, its hit rate. Variants:

* ``torch``: PUCT with the torch evaluator (the default);
* ``onnx``: the same search, the network run by ONNX Runtime (``selfplay.inference=onnx``);
* ``cache``: the torch evaluator behind a 65,536-slot evaluation cache (``selfplay.eval_cache_size``);
* ``onnx_cache``: ONNX Runtime behind the same cache;
* ``gumbel``: Gumbel root search at the same simulation count (``mcts.algorithm=gumbel``);
* ``gumbel_cheap``: Gumbel with a quarter of the simulations;
* ``pcr``: playout cap randomisation, p = 0.25, a quarter of the simulations for cheap searches.

Example::

    .venv/bin/python scripts/experiments/bench_techniques.py --game connect4 --simulations 64 --games 64 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import os
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import games  # noqa: E402
from mcts import GumbelConfig, PUCTConfig  # noqa: E402
from networks.config import NetworkConfig  # noqa: E402
from selfplay.eval_cache import EvaluationCache  # noqa: E402
from selfplay.runner import SelfPlayRunner, SelfPlaySettings  # noqa: E402
from selfplay.worker import SelfPlayWorker, WorkerSettings  # noqa: E402


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--simulations", type=int, default=64)
    parser.add_argument("--games", type=int, default=64, help="games searched together (the batch)")
    parser.add_argument("--moves", type=int, default=8, help="plies per measurement")
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    game = games.make(args.game)
    network = NetworkConfig(**games.knowledge(game).default_network())
    sims, cheap = args.simulations, max(1, args.simulations // 4)
    workers = {
        name: SelfPlayWorker(
            args.game, network, PUCTConfig(num_simulations=sims),
            WorkerSettings(args.games, args.moves, device="cpu", inference="onnx" if name == "onnx" else "torch"),
            seed=0, incarnation=1,
        )
        for name in ("torch", "onnx")
    }
    torch_eval = workers["torch"].evaluate
    cache = EvaluationCache(game, torch_eval, 65536)
    onnx_cache = EvaluationCache(game, workers["onnx"].evaluate, 65536)
    rng = np.random.default_rng(0)
    runners = {
        "torch": SelfPlayRunner(game, torch_eval, PUCTConfig(num_simulations=sims), args.games, rng),
        "onnx": SelfPlayRunner(game, workers["onnx"].evaluate, PUCTConfig(num_simulations=sims), args.games, rng),
        "cache": SelfPlayRunner(game, cache, PUCTConfig(num_simulations=sims), args.games, rng),
        "onnx_cache": SelfPlayRunner(game, onnx_cache, PUCTConfig(num_simulations=sims), args.games, rng),
        "gumbel": SelfPlayRunner(game, torch_eval, GumbelConfig(num_simulations=sims), args.games, rng),
        "gumbel_cheap": SelfPlayRunner(game, torch_eval, GumbelConfig(num_simulations=cheap), args.games, rng),
        "pcr": SelfPlayRunner(game, torch_eval, PUCTConfig(num_simulations=sims), args.games, rng,
                              settings=SelfPlaySettings(full_search_probability=0.25, cheap_simulations=cheap)),
    }
    for runner in runners.values():  # warm-up: compile kernels, fill caches
        runner.play_moves(1)
    totals = {name: {"moves": 0, "cpu_s": 0.0, "evaluations": 0} for name in runners}
    hits = lookups = 0
    for _ in range(args.rounds):
        for name, runner in runners.items():
            before = (cache.hits, cache.lookups)
            start = time.process_time()
            _, stats = runner.play_moves(args.moves)
            totals[name]["cpu_s"] += time.process_time() - start
            totals[name]["moves"] += stats.moves
            totals[name]["evaluations"] += stats.leaf_evaluations
            if name == "cache":
                hits += cache.hits - before[0]
                lookups += cache.lookups - before[1]
    result = {
        "benchmark": "selfplay_techniques", "game": args.game, "network": network, "simulations": sims,
        "cheap_simulations": cheap, "games": args.games, "rounds": args.rounds, "moves_per_round": args.moves,
        "load_average_1min": round(os.getloadavg()[0], 2), "cpu_count": os.cpu_count(),
        "variants": {
            name: {
                "positions_per_cpu_s": round(t["moves"] / max(t["cpu_s"], 1e-9), 1),
                "leaf_evaluations_per_move": round(t["evaluations"] / max(t["moves"], 1), 2),
            }
            for name, t in totals.items()
        },
    }
    result["variants"]["cache"]["hit_rate"] = round(hits / max(lookups, 1), 3)
    base = result["variants"]["torch"]["positions_per_cpu_s"]
    for variant in result["variants"].values():
        variant["speed_over_torch"] = round(variant["positions_per_cpu_s"] / base, 3)
    print(json.dumps(result, indent=1))
    return result


if __name__ == "__main__":
    main()
