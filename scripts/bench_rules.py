"""Benchmark the batched rules: positions stepped per second, one core. Prints one JSON object.

``step_positions_per_s``: ``game.step`` alone on prepared batches of non-terminal states with
legal actions. ``playout_positions_per_s``: whole random playouts (legal mask, random legal
action, step, restart of finished games), the work self-play adds per simulation.

Usage: python scripts/bench_rules.py [--games connect4 tictactoe] [--batch-sizes 1 256 4096]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import time

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np  # noqa: E402

import games  # noqa: E402


def prepared_batches(game, batch_size: int, rng: np.random.Generator, count: int = 16):
    """``count`` pairs (states [B, S], legal actions [B]) of random non-terminal positions."""
    pairs = []
    while len(pairs) < count:
        states = game.initial_states(batch_size)
        depth = int(rng.integers(0, game.max_game_length // 2))
        for _ in range(depth):
            mask = game.legal_mask(states)
            live = mask.any(axis=1)
            actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
            states[live] = game.step(states[live], actions[live])
        states = states[~game.terminal(states)]
        if len(states) < batch_size:
            continue
        mask = game.legal_mask(states)
        pairs.append((states, np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)))
    return pairs


def time_step(game, pairs, min_seconds: float) -> float:
    calls, positions = 0, 0
    start = time.perf_counter()
    while True:
        states, actions = pairs[calls % len(pairs)]
        game.step(states, actions)
        calls += 1
        positions += len(states)
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds and calls >= len(pairs):
            return positions / elapsed


def time_playouts(game, batch_size: int, rng: np.random.Generator, min_seconds: float) -> float:
    states = game.initial_states(batch_size)
    fresh = game.initial_states(batch_size)
    positions = 0
    start = time.perf_counter()
    while True:
        mask = game.legal_mask(states)
        actions = np.where(mask, rng.random(mask.shape), -1.0).argmax(axis=1)
        states = game.step(states, actions)
        positions += batch_size
        done = game.terminal(states)
        if done.any():
            states[done] = fresh[done]
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return positions / elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", default=["connect4", "tictactoe"])
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 256, 4096])
    parser.add_argument("--seconds", type=float, default=1.0, help="minimum timing per measurement (s)")
    args = parser.parse_args(argv)
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {sorted(os.sched_getaffinity(0))[0]})
    rng = np.random.default_rng(0)
    runs = []
    for name in args.games:
        game = games.make(name)
        for batch_size in args.batch_sizes:
            pairs = prepared_batches(game, batch_size, rng)
            time_step(game, pairs, 0.05)  # compile and warm up
            runs.append(
                {
                    "game": name,
                    "batch_size": batch_size,
                    "step_positions_per_s": round(time_step(game, pairs, args.seconds)),
                    "playout_positions_per_s": round(time_playouts(game, batch_size, rng, args.seconds)),
                }
            )
    print(json.dumps({"benchmark": "rules", "cores": 1, "machine": platform.machine(), "runs": runs}, indent=2))


if __name__ == "__main__":
    main()
