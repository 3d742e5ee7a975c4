"""CPU seconds of one learner step, observations in the default layout against channels-last: prints
one JSON object.

``trainer.learner.Learner`` feeds its observations to the network in the channels-last memory
layout on the CPU (the same values, NHWC strides), which oneDNN's convolutions run faster. This
script times ``Learner.train_step`` both ways on the same random batch, the two learners alternating
round by round so that machine drift hits both alike, with ``time.process_time`` (CPU seconds of
this process, ``--threads`` torch threads: the steadier figure on a shared machine).

Reported: ``seconds_per_step`` (median over rounds) of ``default_layout`` and ``channels_last``,
their ratio, and the largest difference of the first step's losses.

Example::

    .venv/bin/python scripts/bench_learner.py --game connect4 --batch 256 --rounds 5
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

from networks import build_network  # noqa: E402
from networks.config import NetworkConfig  # noqa: E402
from trainer.learner import Learner, LearnerConfig  # noqa: E402


class DefaultLayoutLearner(Learner):
    """The learner with its observations left in the default (NCHW-contiguous) layout."""

    def _batch_tensors(self, batch):
        observations, *rest = super()._batch_tensors(batch)
        return (observations.contiguous(), *rest)


def random_batch(game, size: int, rng: np.random.Generator) -> dict:
    """A batch of the learner's fields: 0/1 observation planes, all moves legal, Dirichlet targets."""
    return {
        "observations": (rng.random((size, *game.observation_shape)) < 0.3).astype(np.float32),
        "legal_masks": np.ones((size, game.num_actions), dtype=bool),
        "policies": rng.dirichlet(np.ones(game.num_actions), size).astype(np.float32),
        "values": rng.uniform(-1.0, 1.0, size).astype(np.float32),
    }


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="connect4")
    parser.add_argument("--network", default=None, help="e.g. b4c32 (default: the game's CPU network)")
    parser.add_argument("--batch", type=int, default=256)
    parser.add_argument("--steps", type=int, default=10, help="steps per round")
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--threads", type=int, default=1)
    args = parser.parse_args(argv)
    if min(args.batch, args.steps, args.rounds, args.threads) < 1:
        parser.error("--batch, --steps, --rounds and --threads: expected >= 1")
    torch.set_num_threads(args.threads)
    game = games.make(args.game)
    network = NetworkConfig.from_name(args.network) if args.network else NetworkConfig(**games.knowledge(game).default_network())
    batch = random_batch(game, args.batch, np.random.default_rng(0))
    learners = {}
    for name, cls in (("default_layout", DefaultLayoutLearner), ("channels_last", Learner)):
        torch.manual_seed(0)
        learners[name] = cls(build_network(network, game.observation_shape, game.num_actions), LearnerConfig(device="cpu"))
    first = {name: learner.train_step(batch) for name, learner in learners.items()}
    times = {name: [] for name in learners}
    for _ in range(args.rounds):
        for name, learner in learners.items():
            start = time.process_time()
            for _ in range(args.steps):
                learner.train_step(batch)
            times[name].append((time.process_time() - start) / args.steps)
    medians = {name: float(np.median(values)) for name, values in times.items()}
    report = {
        "game": args.game,
        "network": network.name,
        "batch": args.batch,
        "threads": args.threads,
        "rounds": args.rounds,
        "steps_per_round": args.steps,
        "machine": platform.processor() or platform.machine(),
        "torch": torch.__version__,
        "seconds_per_step": medians,
        "ratio_default_over_channels_last": medians["default_layout"] / medians["channels_last"],
        "first_step_loss_difference": max(
            abs(first["default_layout"][key] - first["channels_last"][key]) for key in ("policy_loss", "value_loss")
        ),
    }
    print(json.dumps(report, indent=2))
    return report


if __name__ == "__main__":
    main()
