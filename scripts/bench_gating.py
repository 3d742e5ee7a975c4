"""CPU cost of the training run's arena actor, torch against ONNX Runtime: prints one JSON object.

For one game and its default CPU network, builds two ``arena.gating.GatingWorker`` of the same
seed, one per runtime (``arena.inference``), and times with ``time.process_time`` (CPU seconds of
this process, one thread: steadier than wall clock on a shared machine), alternating the runtimes
round by round so that machine drift hits both alike:

* ``gate``: one gating match (``arena.num_games`` games, ``arena.num_simulations`` simulations a
  move, seeded random openings) between two networks of random weights (torch seeds 1 and 2);
* ``mistake_rates``: the game's labelled sets measured as the run measures every new best model.

Reported per runtime: the median CPU seconds of each, and for the gate its W/D/L (the same
openings for both runtimes; the counts can differ only where float rounding flips a near-tie
between two moves' visit counts). ``ratio`` is torch's median over ONNX Runtime's.

Example::

    .venv/bin/python scripts/bench_gating.py --game connect4 --rounds 3
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

import games

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.gating import GatingWorker  # noqa: E402
from mcts import PUCTConfig  # noqa: E402
from networks import build_network  # noqa: E402
from networks.config import INFERENCE_RUNTIMES, NetworkConfig  # noqa: E402
from trainer.config import ArenaSchema  # noqa: E402


def _random_weights(game, network: NetworkConfig, seed: int) -> dict:
    torch.manual_seed(seed)
    model = build_network(network, game.observation_shape, game.num_actions)
    return {name: value.detach().numpy().copy() for name, value in model.state_dict().items()}


def main(argv=None) -> dict:
    defaults = ArenaSchema()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--games", type=int, default=defaults.num_games, help="games per gating match")
    parser.add_argument("--simulations", type=int, default=defaults.num_simulations)
    parser.add_argument("--rounds", type=int, default=3)
    args = parser.parse_args(argv)
    torch.set_num_threads(1)
    game = games.make(args.game)
    network = NetworkConfig(**games.knowledge(game).default_network())
    workers = {
        runtime: GatingWorker(
            args.game, network, PUCTConfig(num_simulations=args.simulations, c_puct=1.25),
            num_games=args.games, threshold=defaults.threshold, opening_random_plies=games.knowledge(game).default_opening_plies,
            seed=0, inference=runtime,
        )
        for runtime in INFERENCE_RUNTIMES
    }
    candidate, best = _random_weights(game, network, 1), _random_weights(game, network, 2)
    times = {runtime: {"gate": [], "mistake_rates": []} for runtime in workers}
    records = {runtime: [] for runtime in workers}
    for _ in range(args.rounds):
        for runtime, worker in workers.items():
            start = time.process_time()
            result = worker.gate(1, candidate, 0, best)
            times[runtime]["gate"].append(time.process_time() - start)
            records[runtime].append([result.wins, result.draws, result.losses])
            start = time.process_time()
            worker.mistake_rates(1, candidate)
            times[runtime]["mistake_rates"].append(time.process_time() - start)
    report = {
        "game": args.game,
        "network": network.name,
        "games_per_match": args.games,
        "simulations": args.simulations,
        "rounds": args.rounds,
        "machine": platform.processor() or platform.machine(),
        "runtimes": {
            runtime: {
                "gate_cpu_s_median": float(np.median(times[runtime]["gate"])),
                "mistake_rates_cpu_s_median": float(np.median(times[runtime]["mistake_rates"])),
                "gate_wins_draws_losses": records[runtime],
            }
            for runtime in workers
        },
    }
    report["ratio"] = {
        what: report["runtimes"]["torch"][f"{what}_cpu_s_median"] / report["runtimes"]["onnx"][f"{what}_cpu_s_median"]
        for what in ("gate", "mistake_rates")
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
