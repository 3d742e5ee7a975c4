"""Which input planes let an MLP learn Pig's value from self-play outcomes; prints JSON.

Takes the replay buffer of a Pig run (``checkpoints/buffer_*.npz``), reads back each position's
(own score, opponent's score, turn total) and fits the same MLP (``mlp128x2``'s trunk with a tanh
value head, AdamW, mean squared error) to the same outcome targets ``z`` twice: once with one-hot
planes (cell ``c`` is 1 when the number equals ``c``) and once with thermometer planes (cell ``c``
is 1 when the number is greater than ``c``, the encoding of ``games.pig.game``). It reports the
error of each against the exact solver's ``2 P - 1`` on the ``optimal_play`` labelled set, and,
per turn-total bucket, how the buffer's targets follow the solver's values (a sign error in the
targets across a change of mover would show there as a negative correlation).

    python scripts/experiments/pig_encoding_check.py --buffer runs/pig/checkpoints/buffer_00005699.npz

``--buffer-encoding`` says how the buffer's observations were written: ``thermometer`` (game
version 2, the default) or ``onehot`` (version 1).

Output: ``{"buffer", "positions", "steps", "targets": {bucket: {"n", "mean_z", "mean_exact", "corr"}},
"onehot": {"mae", "bias", "corr"}, "thermometer": {...}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import games  # noqa: E402
from arena.positions.pig import labelled_set  # noqa: E402


def decode(observations: np.ndarray, encoding: str) -> np.ndarray:
    """``[N, 3]`` int64 numbers from ``[N, 3, 1, goal]`` planes written with ``encoding``."""
    planes = observations[:, :, 0, :]
    if encoding == "onehot":
        return planes.argmax(axis=2).astype(np.int64)
    return planes.sum(axis=2).round().astype(np.int64)


def encode(numbers: np.ndarray, goal: int, encoding: str) -> np.ndarray:
    """``[N, 3 * goal]`` float32 planes of ``[N, 3]`` numbers (capped at ``goal - 1``)."""
    cells = np.arange(goal)
    capped = np.clip(numbers, 0, goal - 1)[:, :, None]
    planes = (cells == capped) if encoding == "onehot" else (cells < capped)
    return planes.astype(np.float32).reshape(len(numbers), -1)


#: turn-total buckets ``[low, high)`` of the target report
BUCKETS = ((0, 1), (1, 5), (5, 10), (10, 20), (20, 30), (30, 10**9))


def target_report(game, solver, numbers: np.ndarray, targets: np.ndarray) -> dict:
    """Per turn-total bucket: the buffer's mean target ``z``, the solver's mean ``2 P - 1`` over the
    same positions, and their correlation (a turn total reaching the goal is a win in hand, 1)."""
    own, opponent, turn_total = numbers[:, 0], numbers[:, 1], numbers[:, 2]
    exact = 2 * solver.win_probabilities(own, opponent, turn_total) - 1
    out = {}
    for low, high in BUCKETS:
        rows = (turn_total >= low) & (turn_total < high)
        if rows.sum() > 1:
            out[f"tt {low}+" if high > game.goal else f"tt {low}-{high - 1}"] = {
                "n": int(rows.sum()),
                "mean_z": float(targets[rows].mean()),
                "mean_exact": float(exact[rows].mean()),
                "corr": float(np.corrcoef(targets[rows], exact[rows])[0, 1]),
            }
    return out


def fit(inputs: np.ndarray, targets: np.ndarray, steps: int, batch_size: int, seed: int):
    import torch
    from torch import nn

    torch.manual_seed(seed)
    net = nn.Sequential(
        nn.Linear(inputs.shape[1], 128),
        nn.ReLU(),
        nn.Linear(128, 128),
        nn.ReLU(),
        nn.Linear(128, 1),
        nn.Tanh(),
    )
    optimiser = torch.optim.AdamW(net.parameters(), lr=3e-3, weight_decay=1e-4)
    x, y = torch.from_numpy(inputs), torch.from_numpy(targets.astype(np.float32))
    generator = torch.Generator().manual_seed(seed)
    for _ in range(steps):
        rows = torch.randint(0, len(x), (batch_size,), generator=generator)
        loss = ((net(x[rows]).squeeze(1) - y[rows]) ** 2).mean()
        optimiser.zero_grad()
        loss.backward()
        optimiser.step()
    return net


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--buffer", required=True, help="a Pig run's checkpoints/buffer_*.npz")
    parser.add_argument("--buffer-encoding", choices=("thermometer", "onehot"), default="thermometer")
    parser.add_argument("--steps", type=int, default=6000, help="optimiser steps per fit (default 6000)")
    parser.add_argument("--batch-size", type=int, default=128)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    import torch

    torch.set_num_threads(1)
    data = np.load(args.buffer)
    observations, targets = data["train/observations"], data["train/values"]
    game = games.make("pig", goal=observations.shape[-1])
    solver = games.knowledge(game).exact_solver()
    numbers = decode(observations, args.buffer_encoding)
    labelled = labelled_set(game, "optimal_play")
    test = np.array([game.scores(tuple(int(v) for v in row)) for row in labelled.states], dtype=np.int64)
    exact = 2 * solver.win_probabilities(test[:, 0], test[:, 1], test[:, 2]) - 1
    report = {"buffer": args.buffer, "positions": int(len(targets)), "steps": args.steps}
    report["targets"] = target_report(game, solver, numbers, targets)
    for encoding in ("onehot", "thermometer"):
        net = fit(encode(numbers, game.goal, encoding), targets, args.steps, args.batch_size, args.seed)
        with torch.no_grad():
            values = (
                net(torch.from_numpy(encode(test, game.goal, encoding))).squeeze(1).numpy().astype(np.float64)
            )
        error = values - exact
        report[encoding] = {
            "mae": float(np.abs(error).mean()),
            "bias": float(error.mean()),
            "corr": float(np.corrcoef(values, exact)[0, 1]),
        }
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
