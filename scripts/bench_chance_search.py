"""Nodes of expectiminimax, star1 and star2 (search/expectimax.py) on random Pig positions.

Prints one JSON object: per depth, the total nodes of each algorithm over the same positions, the
ratios star1/expectimax and star2/expectimax, and whether every value agreed exactly. Node counts
do not depend on the machine; the seconds do (a shared, loaded CPU: compare ratios only).

    python scripts/bench_chance_search.py [--goal 100] [--positions 40] [--max-depth 5] [--seed 0]
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import numpy as np  # noqa: E402

import games  # noqa: E402
from search.expectimax import ALGORITHMS, ChanceSearch  # noqa: E402


def positions(game, count: int, rng: np.random.Generator) -> list[tuple]:
    out = []
    while len(out) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(1, 300))):
            if game.terminal_test(state):
                break
            if game.is_chance_state(state):
                state = game.chance_result(state, int(rng.integers(game.die)))
            else:
                state = game.result(state, int(rng.choice(game.actions(state))))
        if not game.terminal_test(state) and not game.is_chance_state(state):
            out.append(state)
    return out


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--goal", type=int, default=100)
    parser.add_argument("--positions", type=int, default=40)
    parser.add_argument("--max-depth", type=int, default=5)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    game = games.make("pig", goal=args.goal)
    states = positions(game, args.positions, np.random.default_rng(args.seed))
    rows = []
    for depth in range(1, args.max_depth + 1):
        nodes = dict.fromkeys(ALGORITHMS, 0)
        seconds = dict.fromkeys(ALGORITHMS, 0.0)
        exact = True
        for state in states:
            values = {}
            for algorithm in ALGORITHMS:  # interleaved per position
                start = time.perf_counter()
                result = ChanceSearch(game, algorithm).search(state, depth)
                seconds[algorithm] += time.perf_counter() - start
                nodes[algorithm] += result.nodes
                values[algorithm] = (result.value, result.action)
            exact &= len(set(values.values())) == 1
        rows.append({
            "depth": depth,
            "nodes": nodes,
            "star1_over_expectimax": nodes["star1"] / nodes["expectimax"],
            "star2_over_expectimax": nodes["star2"] / nodes["expectimax"],
            "seconds": {k: round(v, 3) for k, v in seconds.items()},
            "values_equal": bool(exact),
        })
    print(json.dumps({"game": repr(game), "positions": len(states), "evaluation": "heuristic_fn: (own + turn - opponent) / goal", "depths": rows}, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
