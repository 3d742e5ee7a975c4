"""Benchmark: tabular CFR+ (``search/cfr.py``) against OpenSpiel's C++ ``CFRPlusSolver``, side by side.

For ``--repeat`` rounds, interleaved (ours, then OpenSpiel's, in the same process on the same pinned
core), each solver starts fresh and runs ``--iterations`` CFR+ iterations on ``--game``; the CPU
time of each run (``time.process_time``, seconds) is recorded. Both solvers are single-threaded.
Not timed: building our flat tree (once per game, reported as ``tree_build_seconds``), compiling
our kernels (one warm-up iteration first) and loading OpenSpiel's game. NashConv of each final
average policy is computed exactly (ours by ``search/best_response.py``, OpenSpiel's by
``pyspiel.nash_conv``) so the two runs are seen to do the same work.

Prints one JSON object: per solver the per-round ``seconds``, their ``median`` and ``nash_conv``,
and ``ratio`` = OpenSpiel's median / ours (above 1: ours is faster). Needs ``open_spiel``
(``pip install open_spiel``, the ``openspiel`` extra).

Usage: ``python scripts/bench_cfr.py [--game leduc] [--iterations 1000] [--repeat 3] [--cpu 0]``
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import statistics
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from search.best_response import nash_conv
from search.cfr import CFRSolver
from search.game_tree import build_tree

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark scripts
from bench_search import require_positive


def parse_args(argv=None):
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="leduc", choices=games.names([games.IMPERFECT]))
    parser.add_argument("--iterations", type=int, default=1000)
    parser.add_argument("--repeat", type=int, default=3)
    parser.add_argument("--cpu", type=int, default=0, help="core to pin to (-1: do not pin)")
    args = parser.parse_args(argv)
    require_positive(parser, args, "iterations", "repeat")
    return args


def run_ours(tree, iterations: int) -> tuple[float, object]:
    solver = CFRSolver(tree, "cfr+")
    start = time.process_time()
    solver.iterate(iterations)
    return time.process_time() - start, solver


def run_openspiel(pyspiel, game, iterations: int) -> tuple[float, object]:
    solver = pyspiel.CFRPlusSolver(game)
    start = time.process_time()
    for _ in range(iterations):
        solver.evaluate_and_update_policy()
    return time.process_time() - start, solver


def main(argv=None) -> int:
    args = parse_args(argv)
    try:
        import pyspiel
    except ImportError:
        print("bench_cfr: error: open_spiel is not installed (pip install open_spiel)", file=sys.stderr)
        return 2
    if args.cpu >= 0 and hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {args.cpu})
    start = time.perf_counter()
    tree = build_tree(args.game)
    build_seconds = time.perf_counter() - start
    CFRSolver(tree, "cfr+").iterate(1)  # compile (or load) the kernels
    game = pyspiel.load_game(tree.game.openspiel_name)
    ours, theirs = [], []
    for _ in range(args.repeat):
        seconds, solver = run_ours(tree, args.iterations)
        ours.append(seconds)
        seconds, spiel_solver = run_openspiel(pyspiel, game, args.iterations)
        theirs.append(seconds)
    ours_median, theirs_median = statistics.median(ours), statistics.median(theirs)
    result = {
        "game": args.game,
        "iterations": args.iterations,
        "repeat": args.repeat,
        "pinned_cpu": args.cpu,
        "tree_build_seconds": round(build_seconds, 3),
        "ours": {"seconds": [round(s, 4) for s in ours], "median": round(ours_median, 4),
                 "nash_conv": nash_conv(tree, solver.average_policy())},
        "openspiel_cpp_cfr_plus": {"seconds": [round(s, 4) for s in theirs], "median": round(theirs_median, 4),
                                   "nash_conv": pyspiel.nash_conv(game, spiel_solver.average_policy())},
        "ratio": round(theirs_median / ours_median, 2),
        "machine": platform.processor() or platform.machine(),
        "load_average": [round(x, 2) for x in os.getloadavg()],
    }
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
