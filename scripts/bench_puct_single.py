"""Benchmark: PUCT for one position, one leaf per network call (before) and several (virtual loss).

The arena's, ``play``'s and the engine protocol's searches have one root. ``mcts.run_puct`` on one
root calls the network once per simulation (batch 1); ``mcts.minibatch.run_puct_minibatch``
collects ``--leaves-per-call`` leaves per call with virtual loss. Both search the same Connect
Four positions (reached by seeded random plies from the start), ``--simulations`` per search, with
the same network, interleaved in one run (``--rounds`` rounds, each position searched once by each
variant per round). Reported per variant: searches, simulations, wall-clock seconds, seconds per
search, simulations per second, network calls, and ``after_over_before`` (the ratio of simulations
per second). ``--symmetries`` adds both searches with the network averaged over the position and
its mirror image (``mcts.evaluators.symmetry_averaged``, as ``play`` does by default), and each
variant's ``seconds_over_one_leaf``: its seconds per search over the plain one-leaf search's.

The network is ``--model PATH`` (an export folder through ONNX Runtime, as ``arena`` opens it, or
a ``.pt`` file), else a seeded random ``--network`` (default ``b4c32``, the CPU training default)
exported to a temporary folder: the weights do not change the cost of a call.

Prints one JSON object. The machine's other load lowers the figures alike: quote the ratio.

Usage: ``python scripts/bench_puct_single.py [--simulations 200] [--leaves-per-call 8] [--rounds 3]
[--symmetries]``
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from mcts import PUCTConfig, run_puct
from mcts.minibatch import TIMED_LEAVES_PER_CALL, run_puct_minibatch

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark scripts
from bench_hybrid import load_benchmark_model


class _Counting:
    def __init__(self, evaluate_fn):
        self.evaluate_fn = evaluate_fn
        self.calls = 0

    def __call__(self, observations, legal_mask):
        self.calls += 1
        return self.evaluate_fn(observations, legal_mask)


def positions(count: int, seed: int) -> np.ndarray:
    """``[count, S]`` Connect Four states after 0-9 seeded random plies (none finished)."""
    game = games.make("connect4")
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 10))):
            state = game.result(state, int(rng.choice(game.actions(state))))
        if not game.terminal_test(state):
            rows.append(state)
    return np.array(rows, dtype=np.int64)


def bench(
    evaluate_fn, simulations: int, leaves_per_call: int, rounds: int, num_positions: int, seed: int,
    symmetries: bool = False,
) -> dict:
    from mcts.evaluators import symmetry_averaged

    game = games.make("connect4")
    config = PUCTConfig(num_simulations=simulations)
    rng = np.random.default_rng(seed)
    roots = positions(num_positions, seed)
    one_leaf = lambda fn, row: run_puct(game, row[None], fn, config, rng, add_root_noise=False)
    minibatch = lambda fn, row: run_puct_minibatch(game, row, fn, config, rng, leaves_per_call)
    variants = {"before_one_leaf_per_call": (one_leaf, False), "after_minibatch": (minibatch, False)}
    if symmetries:
        variants["one_leaf_per_call_symmetries"] = (one_leaf, True)
        variants["minibatch_symmetries"] = (minibatch, True)
    for search, averaged in variants.values():  # warm-up: compile the kernels
        search(symmetry_averaged(game, evaluate_fn) if averaged else evaluate_fn, roots[0])
    totals = {name: {"searches": 0, "simulations": 0, "seconds": 0.0, "network_calls": 0} for name in variants}
    for _ in range(rounds):
        for row in roots:
            for name, (search, averaged) in variants.items():
                counting = _Counting(evaluate_fn)  # an averaged call is one network call of 2 images
                start = time.perf_counter()
                search(symmetry_averaged(game, counting) if averaged else counting, row)
                totals[name]["seconds"] += time.perf_counter() - start
                totals[name]["searches"] += 1
                totals[name]["simulations"] += simulations
                totals[name]["network_calls"] += counting.calls
    for entry in totals.values():
        entry["simulations_per_s"] = round(entry["simulations"] / entry["seconds"])
        entry["seconds_per_search"] = round(entry["seconds"] / entry["searches"], 4)
    for entry in totals.values():
        entry["seconds_over_one_leaf"] = round(entry["seconds"] / totals["before_one_leaf_per_call"]["seconds"], 3)
        entry["seconds"] = round(entry["seconds"], 3)
    totals["after_minibatch"]["leaves_per_call"] = leaves_per_call
    totals["after_over_before"] = round(
        totals["after_minibatch"]["simulations_per_s"] / totals["before_one_leaf_per_call"]["simulations_per_s"], 3
    )
    return totals


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="export folder or .pt file (default: a random --network)")
    parser.add_argument("--network", default="b4c32", help="random network when no --model (default b4c32)")
    parser.add_argument("--simulations", type=int, default=200, help="simulations per search (>= 1)")
    parser.add_argument("--leaves-per-call", type=int, default=TIMED_LEAVES_PER_CALL, help="leaves per call (>= 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (>= 1)")
    parser.add_argument("--positions", type=int, default=4, help="root positions (>= 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--symmetries", action="store_true", help="add both searches with the mirror-averaged network")
    args = parser.parse_args(argv)
    if min(args.simulations, args.leaves_per_call, args.rounds, args.positions) < 1:
        parser.error("expected --simulations, --leaves-per-call, --rounds and --positions >= 1")
    with tempfile.TemporaryDirectory() as scratch:
        evaluator, report = load_benchmark_model(args.model, args.network, Path(scratch))
        report = {
            **report,
            "simulations_per_search": args.simulations,
            "rounds": args.rounds,
            "positions": args.positions,
            "connect4": bench(
                evaluator.evaluate, args.simulations, args.leaves_per_call, args.rounds, args.positions, args.seed,
                args.symmetries,
            ),
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
