"""Operating curve of the sequential gate from simulated pairs: prints one JSON object.

For each true Elo difference ``--elo`` the two games of a pair are drawn independently, each won
with the expected score ``s = 1 / (1 + 10 ** (-elo / 400))`` and never drawn (a model of
decisive games without colour advantage, not a measurement of games played), and pairs are fed
``--pairs-per-look`` at a time to ``arena.sprt.sprt_decision`` until it decides, exactly as
``arena.promotion.decide_gate`` feeds the pairs of real games. Reported per Elo: the share of
decisions that promote and the mean games per decision, over ``--decisions`` decisions (generator
``numpy.random.default_rng([seed, index of the Elo])``).

Example::

    .venv/bin/python scripts/sprt_operating_curve.py --elo 0 10 20 30 50 100 --elo1 10 --max-games 400
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.elo import expected_score, wilson_interval  # noqa: E402
from arena.sprt import ACCEPT, CONTINUE, SPRTConfig, sprt_decision  # noqa: E402


def operating_point(elo: float, config: SPRTConfig, decisions: int, rng: np.random.Generator) -> dict:
    """Promotion share (with its 95% Wilson interval) and mean games at a true difference ``elo``."""
    score = expected_score(elo)
    accepted, games = 0, []
    for _ in range(decisions):
        counts = np.zeros(5, dtype=np.int64)
        decision = CONTINUE
        while decision == CONTINUE:
            pairs = min(config.pairs_per_look, (config.max_games - 2 * int(counts.sum())) // 2)
            points = (rng.random((pairs, 2)) < score).sum(axis=1) * 2  # pentanomial index of a pair without draws
            counts += np.bincount(points, minlength=5)
            _, decision = sprt_decision(counts, config)
        accepted += decision == ACCEPT
        games.append(2 * int(counts.sum()))
    low, high = wilson_interval(accepted / decisions, decisions)
    return {"elo": elo, "promotion_rate": accepted / decisions, "wilson_95": [low, high], "mean_games": float(np.mean(games))}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--elo", type=float, nargs="+", default=[0.0, 10.0, 20.0, 30.0, 50.0, 100.0])
    parser.add_argument("--elo0", type=float, default=0.0)
    parser.add_argument("--elo1", type=float, default=10.0)
    parser.add_argument("--max-games", type=int, default=400)
    parser.add_argument("--pairs-per-look", type=int, default=10)
    parser.add_argument("--decisions", type=int, default=1000)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    config = SPRTConfig(args.elo0, args.elo1, max_games=args.max_games, pairs_per_look=args.pairs_per_look)
    report = {
        "elo0": args.elo0, "elo1": args.elo1, "max_games": args.max_games, "pairs_per_look": args.pairs_per_look,
        "decisions": args.decisions, "seed": args.seed,
        "curve": [operating_point(elo, config, args.decisions, np.random.default_rng([args.seed, index]))
                  for index, elo in enumerate(args.elo)],
    }
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
