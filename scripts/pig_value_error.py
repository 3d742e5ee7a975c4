"""A Pig model against the exact solver: value error by turn total, and where search errs; prints JSON.

Pig's two actions are often close in win probability, so a search is only as good as the value it
backs up: a value biased at the start of a turn (turn total 0, the state a hold hands to the
opponent) tips the search towards holding or rolling whatever the policy says. This script
separates the parts:

* ``value``: the network's value against the solver's ``2 P(i, j, k) - 1`` (Neller & Presser
  2004) on each labelled set (``games.pig.positions``) and on uniformly drawn states, as the mean
  error (bias) and the mean absolute error, per turn-total bucket;
* ``moves``: the mistake rate (``arena.accuracy``) and the share of ``roll`` decisions of the
  policy alone and of greedy PUCT at each budget, beside the optimal player's share of ``roll``.

    python scripts/pig_value_error.py --model runs/pig/best --sims 32 200

Output: ``{"model", "value": {set: {bucket: {"n", "bias", "mae"}}}, "moves": {set: {"optimal_roll_share",
"policy": {...}, "sims_N": {"mistake_rate", "roll_share"}}}}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.accuracy import network_actions  # noqa: E402
from arena.model_player import load_model  # noqa: E402
from games.pig.game import ROLL  # noqa: E402
from games.pig.positions import SET_NAMES, labelled_set  # noqa: E402
from mcts import PUCTConfig  # noqa: E402

#: turn-total buckets ``[low, high)`` of the value report
BUCKETS = ((0, 1), (1, 10), (10, 20), (20, 30), (30, 100))


def value_report(values: np.ndarray, exact: np.ndarray, turn_totals: np.ndarray) -> dict:
    """``{"all" | "tt LOW-HIGH": {"n", "bias", "mae"}}`` of ``values - exact`` (both ``[N]``)."""
    error = np.asarray(values, dtype=np.float64) - exact
    out = {"all": {"n": int(error.size), "bias": float(error.mean()), "mae": float(np.abs(error).mean())}}
    for low, high in BUCKETS:
        rows = (turn_totals >= low) & (turn_totals < high)
        if rows.any():
            out[f"tt {low}-{high - 1}"] = {
                "n": int(rows.sum()), "bias": float(error[rows].mean()), "mae": float(np.abs(error[rows]).mean())
            }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", required=True, help="a run's best/ folder, an export folder or a .pt file")
    parser.add_argument("--sims", type=int, nargs="*", default=[32], help="PUCT budgets to measure (default 32)")
    parser.add_argument("--uniform", type=int, default=20000, help="uniformly drawn states for the value report")
    parser.add_argument("--threads", type=int, default=1, help="the network's CPU threads")
    args = parser.parse_args(argv)
    if any(s < 1 for s in args.sims) or args.uniform < 0:
        parser.error("--sims must be >= 1 and --uniform >= 0")
    game, evaluate_fn = load_model(args.model, "pig", num_threads=args.threads)
    if game.goal != 100 or game.die != 6:
        parser.error("expected a model of Pig to 100 with a six-sided die")
    solver = game.exact_solver()

    def values_of(states):
        _, values = evaluate_fn(game.observation(states), game.legal_mask(states))
        return np.asarray(values, dtype=np.float64).reshape(-1)

    report = {"model": args.model, "value": {}, "moves": {}}
    for name in SET_NAMES:
        labelled = labelled_set(game, name)
        ijk = np.array([game.scores(tuple(int(v) for v in row)) for row in labelled.states])
        exact = np.array([2 * solver.win_probability(*map(int, row)) - 1 for row in ijk])
        report["value"][name] = value_report(values_of(labelled.states), exact, ijk[:, 2])
        rows = np.arange(len(labelled))
        mistakes = labelled.mistake_mask
        legal = game.legal_mask(labelled.states)
        priors, _ = evaluate_fn(game.observation(labelled.states), legal)
        policy = np.argmax(np.where(legal, np.asarray(priors, dtype=np.float64), -1.0), axis=1)
        best = np.nanargmax(labelled.values, axis=1)
        moves = {"optimal_roll_share": float(np.mean(best == ROLL))}
        moves["policy"] = {"mistake_rate": float(mistakes[rows, policy].mean()), "roll_share": float(np.mean(policy == ROLL))}
        for sims in args.sims:
            actions = network_actions(game, evaluate_fn, PUCTConfig(num_simulations=sims), labelled)
            moves[f"sims_{sims}"] = {
                "mistake_rate": float(mistakes[rows, actions].mean()), "roll_share": float(np.mean(actions == ROLL))
            }
        report["moves"][name] = moves
    if args.uniform:
        rng = np.random.default_rng(0)
        own = rng.integers(0, game.goal, args.uniform)
        turn_total = np.minimum(rng.integers(0, 40, args.uniform), game.goal - 1 - own)
        opponent = rng.integers(0, game.goal, args.uniform)
        exact = np.array([2 * solver.win_probability(int(i), int(j), int(k)) - 1 for i, j, k in zip(own, opponent, turn_total)])
        report["value"]["uniform"] = value_report(values_of(game.states_at(own, opponent, turn_total)), exact, turn_total)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
