"""``cfr``: solve Kuhn or Leduc poker and write the average policy as JSON.

Usage::

    cfr --game kuhn|leduc --algorithm cfr|cfr+|mccfr|pimc --iterations N [--seed S] --out FILE

``cfr``, ``cfr+`` and ``mccfr`` (external sampling) run N iterations (one traversal per player
each; ``search/cfr.py``) and write the average policy; ``pimc`` writes the perfect-information
Monte Carlo policy (``search/pimc.py``) with N sampled worlds per information state (0: every
consistent world, exactly). The file (``arena/tabular_policy.py``) is written atomically; then one
JSON line goes to stdout::

    {"algorithm": "cfr+", "game": "kuhn", "game_value": -0.0555, "iterations": 1000,
     "nash_conv": 0.000175, "out": "kuhn.json", "seconds": 0.02, "seed": 0}

``nash_conv`` is exact (``search/best_response.py``), in chips; ``game_value`` is the first
player's expected chips when both players play the written policy; ``seconds`` is the solving time
(wall clock; loading the compiled kernels and the NashConv computation excluded). A progress bar
shows on a terminal's stderr.
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

import games
from arena.tabular_policy import game_tree, write_policy
from search.best_response import expected_value, nash_conv
from search.cfr import CFRSolver
from search.pimc import pimc_policy

ALGORITHMS = ("cfr", "cfr+", "mccfr", "pimc")
#: most iterations one command accepts (Leduc CFR+ runs about 1,000 a second on one core)
MAX_ITERATIONS = 100_000_000


class _Parser(argparse.ArgumentParser):
    def error(self, message):  # usage errors: one line and exit status 2, no traceback
        self.print_usage(sys.stderr)
        self.exit(2, f"{self.prog}: error: {message}\n")


def _parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="cfr", description="Solve Kuhn or Leduc poker; write the average policy as JSON.")
    parser.add_argument("--game", required=True, choices=games.names([games.IMPERFECT]))
    parser.add_argument("--algorithm", required=True, choices=ALGORITHMS)
    parser.add_argument("--iterations", required=True, type=int,
                        help="iterations (pimc: sampled worlds per information state, 0 = all)")
    parser.add_argument("--seed", type=int, default=0, help="seed of mccfr's and pimc's generator (default 0)")
    parser.add_argument("--out", required=True, metavar="FILE", help="policy JSON to write")
    parser.add_argument("--no-progress", dest="progress", action="store_false", help="no progress bar")
    return parser


def solve(game: str, algorithm: str, iterations: int, seed: int = 0, progress: bool = False):
    """``(tree, policy [I, A] float64, seconds)``: the solved policy and the solving time.

    Raises:
        ValueError: for an unknown game or algorithm, or a negative iteration count.
    """
    if algorithm not in ALGORITHMS:
        raise ValueError(f"expected an algorithm in {list(ALGORITHMS)}, got {algorithm!r}")
    tree = game_tree(game)
    rng = np.random.default_rng(seed)
    start = time.perf_counter()
    if algorithm == "pimc":
        policy = pimc_policy(tree, iterations, rng if iterations > 0 else None)
        return tree, policy, time.perf_counter() - start
    if iterations < 1:
        raise ValueError(f"--iterations: expected an integer >= 1 for {algorithm}, got {iterations}")
    CFRSolver(tree, algorithm, rng=np.random.default_rng(0)).iterate(1)  # compile or load the kernels: not timed
    solver = CFRSolver(tree, algorithm, rng=rng)
    start = time.perf_counter()
    chunk = max(1, iterations // 100)
    with _progress(progress, iterations) as advance:
        while solver.iterations < iterations:
            count = min(chunk, iterations - solver.iterations)
            solver.iterate(count)
            advance(count)
    return tree, solver.average_policy(), time.perf_counter() - start


class _progress:
    """A rich progress bar on stderr when asked and stderr is a terminal; else nothing."""

    def __init__(self, enabled: bool, total: int):
        self.bar = None
        if enabled and sys.stderr.isatty() and total >= 100:
            from rich.console import Console  # heavy dependency (rich): imported where it is used
            from rich.progress import Progress

            self.bar = Progress(console=Console(file=sys.stderr), transient=True)
            self.task = self.bar.add_task("iterations", total=total)

    def __enter__(self):
        if self.bar is not None:
            self.bar.start()
        return self.advance

    def advance(self, count: int) -> None:
        if self.bar is not None:
            self.bar.advance(self.task, count)

    def __exit__(self, *exc):
        if self.bar is not None:
            self.bar.stop()
        return False


def main(argv: list[str] | None = None) -> int:
    """Entry point of ``cfr``; returns the exit status (0 done, 2 bad arguments, 130 interrupted)."""
    args = _parser().parse_args(argv)
    try:
        if not 0 <= args.iterations <= MAX_ITERATIONS:
            raise ValueError(f"--iterations: expected 0..{MAX_ITERATIONS}, got {args.iterations}")
        if args.seed < 0:
            raise ValueError(f"--seed: expected an integer >= 0, got {args.seed}")

        folder = Path(args.out).resolve().parent
        if not folder.is_dir():
            raise FileNotFoundError(f"--out: folder {folder} does not exist")
        if Path(args.out).is_dir():
            raise ValueError(f"--out: {args.out} is a folder; expected a file name")

        tree, policy, seconds = solve(args.game, args.algorithm, args.iterations, args.seed, args.progress)
        write_policy(args.out, tree, policy)
        report = {
            "algorithm": args.algorithm,
            "game": args.game,
            "game_value": expected_value(tree, policy, policy),
            "iterations": args.iterations,
            "nash_conv": nash_conv(tree, policy),
            "out": args.out,
            "seconds": round(seconds, 4),
            "seed": args.seed,
        }
        print(json.dumps(report, sort_keys=True))
        return 0
    except (ValueError, FileNotFoundError, PermissionError) as error:
        print(f"cfr: error: {error}", file=sys.stderr)
        return 2
    except KeyboardInterrupt:
        return 130


if __name__ == "__main__":
    sys.exit(main())
