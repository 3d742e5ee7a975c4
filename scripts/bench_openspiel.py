"""Benchmark the OpenSpiel adapter against the native games: random-playout positions per second,
one core. Prints one JSON object.

For each pair (native id, ``openspiel:SPEC``) and batch size, the two are timed in alternating
rounds (A, B, A, B, ...) so that a load change on the machine hits both; the report gives each
one's median positions/s over the rounds and the ratio native / adapter. A playout position is
one legal mask, one random legal action and one step for one game, finished games restarting:
the rules work self-play adds per simulation (``scripts/bench_rules.py`` measures the same for
native games alone).

Usage: python scripts/bench_openspiel.py [--pairs tictactoe=tic_tac_toe connect4=connect_four]
       [--batch-sizes 1 64] [--rounds 3] [--seconds 0.5]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

import games

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark scripts
from bench_rules import time_playouts as playout_positions_per_s

DEFAULT_PAIRS = ["tictactoe=tic_tac_toe", "connect4=connect_four", "othello=othello"]


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", nargs="+", default=DEFAULT_PAIRS, help="NATIVE=OPENSPIEL_SPEC pairs")
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 64])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per measurement")
    parser.add_argument("--seconds", type=float, default=0.5, help="minimum timing per round (s)")
    args = parser.parse_args(argv)
    for text in args.pairs:
        if "=" not in text:
            parser.error(f"--pairs: expected NATIVE=OPENSPIEL_SPEC, got {text!r}")
    if args.rounds < 1 or args.seconds <= 0 or min(args.batch_sizes) < 1:
        parser.error("--rounds, --batch-sizes and --seconds must be positive")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    rng = np.random.default_rng(0)
    runs = []
    for text in args.pairs:
        native_name, spec = text.split("=", 1)
        native, adapted = games.make(native_name), games.make(f"{games.OPENSPIEL_PREFIX}{spec}")
        for batch_size in args.batch_sizes:
            for game in (native, adapted):  # compile and warm up
                playout_positions_per_s(game, batch_size, rng, 0.05)
            rates: dict[str, list[float]] = {"native": [], "adapter": []}
            for _ in range(args.rounds):
                rates["native"].append(playout_positions_per_s(native, batch_size, rng, args.seconds))
                rates["adapter"].append(playout_positions_per_s(adapted, batch_size, rng, args.seconds))
            native_rate, adapter_rate = statistics.median(rates["native"]), statistics.median(rates["adapter"])
            runs.append(
                {
                    "native": native_name,
                    "openspiel": spec,
                    "batch_size": batch_size,
                    "native_positions_per_s": round(native_rate),
                    "adapter_positions_per_s": round(adapter_rate),
                    "native_over_adapter": round(native_rate / adapter_rate, 1),
                }
            )
    report = {"benchmark": "openspiel_adapter", "cores": 1, "machine": platform.machine(), "runs": runs}
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
