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
    python scripts/experiments/pig_value_error.py --exact --sims 2 8 32 200 --backup mean max max_self \
        --value-noise 0.05 --prior-error 0.1 --limit 500

``--exact`` searches with the solver's values and uniform priors instead of a network: what is
left is the error of the search itself (its mean backups mix the values of the moves it tries).
``--value-noise SD`` adds seeded Gaussian noise of that standard deviation to the exact value
(fixed per state, as a network's error is, clipped to [-1, 1]); ``--prior-error F`` replaces the
uniform priors with 0.8 on the solver's best move and 0.2 on the other, except on a seeded share
``F`` of the states, where the two are swapped (a policy that errs on about that share).
``--backup`` names ``PUCTConfig.backup`` settings to compare (``mcts.backup``). Each search is
reported three times: the move played (most visited, lowest index on ties, ``sims_N``), the
highest root ``Q`` among the visited moves (``q_sims_N``), and the most visited with ties to the
highest ``Q`` (``tq_sims_N``, ``mcts.run_search(ties="q")``, the arena players' choice).

Output: ``{"model", "value": {set: {bucket: {"n", "bias", "mae"}}}, "moves": {set: {"optimal_roll_share",
"policy": M, "one_step_expectimax": M, "[q_]sims_N[_c_C][_BACKUP]": M}}}``, each ``M`` being
``{"mistake_rate", "mean_win_probability_loss", "roll_share"}``.
"""

from __future__ import annotations

import argparse
import dataclasses
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
from mcts import PUCTConfig, run_search  # noqa: E402

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


def exact_evaluator(game, value_noise: float = 0.0, prior_error: float | None = None, seed: int = 0):
    """Batched evaluator with the solver's ``2 P - 1`` as the value and uniform priors over legal moves.

    It reads (own, opponent, turn total) back from the thermometer planes (``games.pig.game``); a
    turn total that reaches the goal is a win in hand (value 1). ``value_noise`` > 0 adds a seeded
    Gaussian error of that standard deviation, fixed per state, clipped to [-1, 1]; ``prior_error``
    (not None) gives priors of 0.8 on the solver's best move (roll on a tie) and 0.2 on the other,
    swapped on a seeded share ``prior_error`` of the states (module docstring).
    """
    solver = games.knowledge(game).exact_solver()
    goal, die, table = game.goal, game.die, solver.win_table
    rng = np.random.default_rng(seed)
    noise = rng.normal(0.0, value_noise, size=(goal, goal, goal)) if value_noise > 0 else None
    flipped = rng.random((goal, goal, goal)) < prior_error if prior_error is not None else None

    def best_is_roll(i, j, k):
        roll = (1.0 - table[j, i, 0]) / die
        for face in range(2, die + 1):
            total = k + face
            roll = roll + np.where(i + total >= goal, 1.0, table[i, j, np.minimum(total, goal - 1)]) / die
        hold = np.where(i + k >= goal, 1.0, 1.0 - table[j, np.minimum(i + k, goal - 1), 0])
        return roll >= hold

    def evaluate(observations, legal_mask):
        numbers = np.asarray(observations)[:, :, 0, :].sum(axis=2).round().astype(np.int64)
        i, j, k = numbers[:, 0], numbers[:, 1], numbers[:, 2]
        values = 2 * solver.win_probabilities(i, j, k) - 1
        cell = (i, j, np.minimum(k, goal - 1))
        if noise is not None:
            values = np.clip(values + noise[cell], -1.0, 1.0)
        legal = np.asarray(legal_mask, dtype=np.float32)
        if flipped is not None:
            roll_first = best_is_roll(i, j, k) != flipped[cell]
            weights = np.stack([np.where(roll_first, 0.8, 0.2), np.where(roll_first, 0.2, 0.8)], axis=1)
            legal = legal * weights.astype(np.float32)
        priors = legal / np.maximum(legal.sum(axis=1, keepdims=True), 1e-12)
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
    parser.add_argument(
        "--backup", nargs="*", default=["mean"], help="PUCTConfig.backup settings to compare (default mean)"
    )
    parser.add_argument("--value-noise", type=float, default=0.0, help="--exact: sd of the value's seeded error")
    parser.add_argument(
        "--prior-error", type=float, default=None, help="--exact: share of states whose priors favour the worse move"
    )
    parser.add_argument("--limit", type=int, default=None, help="only the first N decisions of each set")
    parser.add_argument("--sets", nargs="*", default=list(SET_NAMES), help="labelled sets (default all)")
    args = parser.parse_args(argv)
    if any(s < 1 for s in args.sims) or args.uniform < 0 or any(not c >= 0 for c in args.c_puct):
        parser.error("--sims must be >= 1, --uniform >= 0 and --c-puct >= 0")
    if args.exact:
        game = games.make("pig")
        evaluate_fn = exact_evaluator(game, args.value_noise, args.prior_error)
    else:
        game, evaluate_fn = load_model(args.model, "pig", num_threads=args.threads)
        if game.goal != 100 or game.die != 6:
            parser.error("expected a model of Pig to 100 with a six-sided die")
    solver = games.knowledge(game).exact_solver()

    def values_of(states):
        _, values = evaluate_fn(game.observation(states), game.legal_mask(states))
        return np.asarray(values, dtype=np.float64).reshape(-1)

    report = {"model": "exact" if args.exact else args.model, "value": {}, "moves": {}}
    for name in args.sets:
        labelled = labelled_set(game, name)
        if args.limit is not None:
            n = min(args.limit, len(labelled))
            labelled = dataclasses.replace(
                labelled, moves=labelled.moves[:n], states=labelled.states[:n], outcomes=labelled.outcomes[:n],
                values=labelled.values[:n],
            )
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

        if not args.exact or args.prior_error is not None:
            moves["policy"] = summary(policy)
        moves["one_step_expectimax"] = summary(one_step_actions(game, evaluate_fn, labelled.states))
        for backup in args.backup:
            for c_puct in args.c_puct:
                for sims in args.sims:
                    config = PUCTConfig(num_simulations=sims, c_puct=c_puct, backup=backup)
                    key = f"sims_{sims}" + (f"_c_{c_puct:g}" if len(args.c_puct) > 1 else "")
                    key += f"_{backup}" if len(args.backup) > 1 else ""
                    if backup == "mean" and len(args.backup) == 1:
                        moves[key] = summary(network_actions(game, evaluate_fn, config, labelled))
                        continue
                    played, by_q, ties_q = [], [], []
                    for begin in range(0, len(labelled), 500):
                        output = run_search(
                            game, labelled.states[begin : begin + 500], evaluate_fn, config, np.random.default_rng(0)
                        )
                        played.append(output.actions)
                        q_values = np.where(output.visit_counts > 0, np.nan_to_num(output.q_values, nan=-2.0), -2.0)
                        by_q.append(np.argmax(q_values, axis=1))
                        most = output.visit_counts == output.visit_counts.max(axis=1, keepdims=True)
                        ties_q.append(np.argmax(np.where(most, q_values, -3.0), axis=1))
                    moves[key] = summary(np.concatenate(played))
                    moves["q_" + key] = summary(np.concatenate(by_q))
                    moves["tq_" + key] = summary(np.concatenate(ties_q))
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
