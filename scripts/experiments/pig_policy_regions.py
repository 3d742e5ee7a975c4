"""Where a Pig policy loses against optimal play: its hold table beside the optimal one, and its
exact win probability with one region of its table at a time replaced by optimal play.

The policy is a model's greedy policy (the network alone, its larger prior at every decision,
``arena.accuracy.greedy_policy_fn``) or the table "hold at N" (Neller & Presser, "Optimal Play of
the Dice Game Pig", 2004). Win probabilities are exact, from the Markov chain of the two policies
(``games.pig.policy_chain``), averaged over the two seats as ``arena accuracy --exact`` does: 0.5 is
optimal play. A region whose replacement lifts the mean most is where the policy gives most away,
counting how often its own play reaches those states, which the labelled sets (drawn from optimal
and random play, ``arena/positions/pig.py``) cannot.

    python scripts/experiments/pig_policy_regions.py --model runs/pig/best
    python scripts/experiments/pig_policy_regions.py --hold-at 20

Prints one JSON object: ``{"policy", "mean_win", "as_first", "as_second", "disagreements":
{"states", "holds_where_optimal_rolls", "rolls_where_optimal_holds"}, "hold_totals": {"I,J":
{"policy": [turn totals where it holds, first 12], "optimal": [...]}}, "regions": {name: mean win
with optimal play in that region}}``; the first seat's table is reported (a network sees its seat
only through the scores, so the two seats' tables are the same).
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import games
from games.pig.policy_chain import (
    hold_at_table,
    hold_table,
    optimal_hold_table,
    tables_match_against_optimal,
)
from games.pig.solver import solver_for

#: (own score, opponent's score) pairs whose holding turn totals are listed
SHOWN_SCORES = ((0, 0), (20, 20), (40, 40), (0, 50), (50, 0), (60, 60), (80, 80))


def regions(goal: int, tables: np.ndarray, optimal: np.ndarray) -> dict[str, np.ndarray]:
    """Named ``[goal, goal, goal]`` bool masks over (own score, opponent's score, turn total)."""
    i, j, k = np.meshgrid(np.arange(goal), np.arange(goal), np.arange(goal), indexing="ij")
    return {
        "turn total 0": k == 0,
        "turn total 1-9": (k >= 1) & (k < 10),
        "turn total 10-19": (k >= 10) & (k < 20),
        "turn total 20-29": (k >= 20) & (k < 30),
        "turn total 30 and over": k >= 30,
        "own score below 50": i < 50,
        "own score 50 and over": i >= 50,
        "opponent below 50": j < 50,
        "opponent 50 and over": j >= 50,
        "holds where optimal rolls": tables.any(axis=0) & ~optimal,
        "rolls where optimal holds": optimal.copy(),
        "everywhere": np.ones_like(optimal),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a run's best/ folder, an export folder or a .pt file")
    source.add_argument("--hold-at", type=int, help="the policy that holds once the turn total reaches N")
    args = parser.parse_args(argv)
    game = games.make("pig")
    optimal = optimal_hold_table(solver_for(game))
    if args.model is not None:
        from arena.accuracy import greedy_policy_fn
        from arena.specs import build_player

        player = build_player(f"policy:model={args.model}", game)
        policy_fn = greedy_policy_fn(game, player.evaluate_fn)
        tables = np.stack([hold_table(game, policy_fn, seat) for seat in (0, 1)])
        label = f"policy:model={args.model}"
    else:
        if args.hold_at < 1:
            parser.error(f"--hold-at: expected an integer >= 1, got {args.hold_at}")
        tables = np.stack([hold_at_table(game.goal, args.hold_at)] * 2)
        label = f"hold at {args.hold_at}"
    i, _, k = np.meshgrid(*(np.arange(game.goal),) * 3, indexing="ij")
    valid = i + k < game.goal
    differ = valid & (tables[0] != optimal)
    match = tables_match_against_optimal(game, tables, optimal)
    out = {
        "policy": label,
        "mean_win": match["mean_win"],
        "as_first": match["as_first"]["win"],
        "as_second": match["as_second"]["win"],
        "disagreements": {
            "states": int(differ.sum()),
            "holds_where_optimal_rolls": int((differ & tables[0]).sum()),
            "rolls_where_optimal_holds": int((differ & ~tables[0]).sum()),
        },
        "hold_totals": {
            f"{a},{b}": {
                "policy": [int(x) for x in np.nonzero(tables[0, a, b, : game.goal - a])[0][:12]],
                "optimal": [int(x) for x in np.nonzero(optimal[a, b, : game.goal - a])[0][:12]],
            }
            for a, b in SHOWN_SCORES
        },
        "regions": {
            name: tables_match_against_optimal(game, np.where(mask[None], optimal[None], tables), optimal)["mean_win"]
            for name, mask in regions(game.goal, tables, optimal).items()
        },
    }
    print(json.dumps(out))
    return 0


if __name__ == "__main__":
    sys.exit(main())
