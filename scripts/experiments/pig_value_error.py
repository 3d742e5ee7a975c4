"""A Pig model against the exact solver: value error by turn total, and where search errs; prints JSON.

Pig's two actions are often close in win probability, so a search is only as good as the value it
backs up: a value biased at the start of a turn (turn total 0, the state a hold hands to the
opponent) tips the search towards holding or rolling whatever the policy says. This script
separates the parts:

* ``value``: the network's value against the solver's ``2 P(i, j, k) - 1`` (Neller & Presser
  2004) on each labelled set (``arena.positions.pig``) and on uniformly drawn states, as the mean
  error (bias) and the mean absolute error, per turn-total bucket;
* ``moves``: the mistake rate (``arena.accuracy``), the mean win probability given away and the
  share of ``roll`` decisions of the policy alone, of a one-step expectimax on the value, and of
  greedy PUCT at each budget, beside the optimal player's share of ``roll``.

    python scripts/experiments/pig_value_error.py --model runs/pig/best --sims 32 200
    python scripts/experiments/pig_value_error.py --exact --sims 2 8 32 200 --c-puct 1.25 0.1

``--exact`` searches with the solver's values and uniform priors instead of a network: what is
left is the error of the search itself (its mean backups mix the values of the moves it tries).

Output: ``{"model", "value": {set: {bucket: {"n", "bias", "mae"}}}, "moves": {set: {"optimal_roll_share",
"policy": M, "one_step_expectimax": M, "sims_N" or "sims_N_c_C": M}}}``, each ``M`` being
``{"mistake_rate", "mean_win_probability_loss", "roll_share"}``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import games  # noqa: E402
from arena.accuracy import network_actions  # noqa: E402
from arena.model_player import load_model  # noqa: E402
from arena.positions.pig import SET_NAMES, labelled_set  # noqa: E402
from games.pig.game import HOLD, ROLL  # noqa: E402
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
                "n": int(rows.sum()),
                "bias": float(error[rows].mean()),
                "mae": float(np.abs(error[rows]).mean()),
            }
    return out


def exact_evaluator(game):
    """Batched evaluator with the solver's ``2 P - 1`` as the value and uniform priors over legal moves.

    It reads (own, opponent, turn total) back from the thermometer planes (``games.pig.game``); a
    turn total that reaches the goal is a win in hand (value 1).
    """
    solver = games.knowledge(game).exact_solver()

    def evaluate(observations, legal_mask):
        numbers = np.asarray(observations)[:, :, 0, :].sum(axis=2).round().astype(np.int64)
        values = 2 * solver.win_probabilities(numbers[:, 0], numbers[:, 1], numbers[:, 2]) - 1
        legal = np.asarray(legal_mask, dtype=np.float32)
        priors = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1.0)
        return priors, values.astype(np.float32)

    return evaluate


def one_step_actions(game, evaluate_fn, states: np.ndarray) -> np.ndarray:
    """``[N]`` int64: one-step expectimax on the evaluator's values (Russell & Norvig, sec. 5.5).

    ``hold`` is worth 1 when it reaches the goal, else minus the opponent's value after banking;
    ``roll`` is the probability-weighted mean over the faces of the value for the roller (negated
    where a 1 passes the turn). Illegal actions are never chosen.
    """
    legal = game.legal_mask(states)
    mover = game.to_play(states)

    def values_for_mover(children):
        out = np.ones(len(children))
        open_rows = ~game.terminal(children)
        if open_rows.any():
            _, values = evaluate_fn(
                game.observation(children[open_rows]), game.legal_mask(children[open_rows])
            )
            values = np.asarray(values, dtype=np.float64).reshape(-1)
            out[open_rows] = np.where(game.to_play(children[open_rows]) == mover[open_rows], values, -values)
        return out

    hold = values_for_mover(game.step(states, np.full(len(states), HOLD)))
    rollable = np.where(legal[:, ROLL][:, None], states, game.initial_states(len(states)))
    chance = game.step(rollable, np.full(len(states), ROLL))
    probabilities = game.chance_probabilities(chance)
    roll = np.zeros(len(states))
    for outcome in range(game.num_chance_outcomes):
        roll += probabilities[:, outcome] * values_for_mover(
            game.apply_chance(chance, np.full(len(states), outcome))
        )
    scores = np.stack(
        [np.where(legal[:, ROLL], roll, -np.inf), np.where(legal[:, HOLD], hold, -np.inf)], axis=1
    )
    return np.argmax(scores, axis=1).astype(np.int64)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    source = parser.add_mutually_exclusive_group(required=True)
    source.add_argument("--model", help="a run's best/ folder, an export folder or a .pt file")
    source.add_argument(
        "--exact", action="store_true", help="the solver's values and uniform priors, no network"
    )
    parser.add_argument(
        "--c-puct", type=float, nargs="*", default=[1.25], help="PUCT constants (default 1.25)"
    )
    parser.add_argument(
        "--sims", type=int, nargs="*", default=[32], help="PUCT budgets to measure (default 32)"
    )
    parser.add_argument(
        "--uniform", type=int, default=20000, help="uniformly drawn states for the value report"
    )
    parser.add_argument("--threads", type=int, default=1, help="the network's CPU threads")
    args = parser.parse_args(argv)
    if any(s < 1 for s in args.sims) or args.uniform < 0 or any(not c >= 0 for c in args.c_puct):
        parser.error("--sims must be >= 1, --uniform >= 0 and --c-puct >= 0")
    if args.exact:
        game = games.make("pig")
        evaluate_fn = exact_evaluator(game)
    else:
        game, evaluate_fn = load_model(args.model, "pig", num_threads=args.threads)
        if game.goal != 100 or game.die != 6:
            parser.error("expected a model of Pig to 100 with a six-sided die")
    solver = games.knowledge(game).exact_solver()

    def values_of(states):
        _, values = evaluate_fn(game.observation(states), game.legal_mask(states))
        return np.asarray(values, dtype=np.float64).reshape(-1)

    report = {"model": "exact" if args.exact else args.model, "value": {}, "moves": {}}
    for name in SET_NAMES:
        labelled = labelled_set(game, name)
        ijk = np.array([game.scores(tuple(int(v) for v in row)) for row in labelled.states])
        exact = 2 * solver.win_probabilities(ijk[:, 0], ijk[:, 1], ijk[:, 2]) - 1
        report["value"][name] = value_report(values_of(labelled.states), exact, ijk[:, 2])
        rows = np.arange(len(labelled))
        mistakes = labelled.mistake_mask
        legal = game.legal_mask(labelled.states)
        priors, _ = evaluate_fn(game.observation(labelled.states), legal)
        policy = np.argmax(np.where(legal, np.asarray(priors, dtype=np.float64), -1.0), axis=1)
        best = np.nanargmax(labelled.values, axis=1)
        moves = {"optimal_roll_share": float(np.mean(best == ROLL))}

        def summary(actions):
            return {
                "mistake_rate": float(mistakes[rows, actions].mean()),
                "mean_win_probability_loss": float(labelled.value_losses(actions).mean()),
                "roll_share": float(np.mean(actions == ROLL)),
            }

        if not args.exact:
            moves["policy"] = summary(policy)
        moves["one_step_expectimax"] = summary(one_step_actions(game, evaluate_fn, labelled.states))
        for c_puct in args.c_puct:
            for sims in args.sims:
                actions = network_actions(
                    game, evaluate_fn, PUCTConfig(num_simulations=sims, c_puct=c_puct), labelled
                )
                key = f"sims_{sims}" if len(args.c_puct) == 1 else f"sims_{sims}_c_{c_puct:g}"
                moves[key] = summary(actions)
        report["moves"][name] = moves
    if args.uniform:
        rng = np.random.default_rng(0)
        own = rng.integers(0, game.goal, args.uniform)
        turn_total = np.minimum(rng.integers(0, 40, args.uniform), game.goal - 1 - own)
        opponent = rng.integers(0, game.goal, args.uniform)
        exact = 2 * solver.win_probabilities(own, opponent, turn_total) - 1
        report["value"]["uniform"] = value_report(
            values_of(game.states_at(own, opponent, turn_total)), exact, turn_total
        )
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
