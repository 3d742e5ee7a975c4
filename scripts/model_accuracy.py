"""Mistake rates of one model on a game's labelled sets at several search budgets; prints JSON.

A mistake is a move whose game-theoretic outcome is worse than the best move's (``arena.accuracy``).
Each budget is measured the way the training loop measures its best model
(``arena.accuracy.network_mistake_rates``): all positions of a set searched together by greedy
PUCT without root noise, the most visited move played, lowest index on ties. Budget 0 is the
network's policy alone (the largest masked prior). ``--solver`` turns on the MCTS-solver
(``mcts.PUCTConfig.solver``) in the searches. ``--symmetries`` averages the network over the
game's symmetries at every evaluation (``mcts.evaluators.symmetry_averaged``; Connect Four: the
position and its mirror image, twice the network's work per simulation). ``--leaves-per-call N``
searches each position alone the way the engine protocol and ``play`` do
(``arena.model_player.make_model_player``: N leaves per network call, above 1 collected with
virtual loss, ``mcts.minibatch``; the engine's default is 1); with 1 it gives the batched search's
moves, one position at a time. The engine's default search is the batched one-leaf search with
``--symmetries`` (it averages the network by default; ``play --no-symmetries`` does not).

    python scripts/model_accuracy.py --model runs/c4/best --sims 0 64 200
    python scripts/model_accuracy.py --model runs/c4/best --sims 200 --set end_easy --limit 300
    python scripts/model_accuracy.py --model runs/c4/best --set pons-begin-hard --chosen-moves --workers 2
    python scripts/model_accuracy.py --model runs/c4/best --sims 200 --set pons-middle-medium --leaves-per-call 8

Output: ``{"model", "game", "solver", "symmetries", "leaves_per_call" (None: batched),
"sets": {name: positions}, "rates": {budget: {set: rate}},
"mistakes": {budget: {set: count}}, "seconds": {budget: s}}``.

Two models (``--model A --model B``, the same game) are measured on the same positions, and each
budget and set gets McNemar's exact test of their mistakes (``arena.elo.mcnemar_test``: the
binomial test on the positions where exactly one of them erred) beside the rates:
``"second_model"``, ``"second_rates"``, ``"second_mistakes"`` (B's, shaped as A's) and
``"mcnemar": {budget: {set: {"positions", "mistakes_a", "mistakes_b", "only_a", "only_b",
"p_value"}}}``. With ``--chosen-moves`` the same keys, on every line of Pons' sets.

    python scripts/model_accuracy.py --model runs/a/best --model runs/b/best --sims 0 200
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

from arena.positions import position_sets

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from arena.accuracy import available_sets, chosen_move_rate, labelled_sets, network_actions, player_actions
from arena.elo import mcnemar_test
from arena.model_player import load_model, make_model_player
from arena.positions.labelled import LabelledSet, mistake_mask
from mcts import PUCTConfig
from mcts.evaluators import symmetry_averaged


def policy_actions(game, evaluate_fn, labelled, batch_size: int) -> np.ndarray:
    """``[N]`` int64: the legal action with the largest prior, lowest index on ties."""
    chunks = []
    for begin in range(0, len(labelled), batch_size):
        states = labelled.states[begin : begin + batch_size]
        legal = game.legal_mask(states)
        priors, _ = evaluate_fn(game.observation(states), legal)
        chunks.append(np.argmax(np.where(legal, np.asarray(priors, dtype=np.float64), -1.0), axis=1))
    return np.concatenate(chunks).astype(np.int64) if chunks else np.zeros(0, dtype=np.int64)


def search_actions(args, game, evaluate_fn, sims: int, labelled) -> np.ndarray:
    """``[N]`` int64: the move searched with ``sims`` simulations in each position (0: the policy).

    Batched greedy PUCT over all positions at once (``arena.accuracy.network_actions``), or with
    ``args.leaves_per_call`` the engine protocol's player, one position at a time.
    """
    if sims == 0:
        return policy_actions(game, evaluate_fn, labelled, args.batch)
    if args.leaves_per_call is not None:
        player = make_model_player(evaluate_fn, sims, seed=0, leaves_per_call=args.leaves_per_call)
        return player_actions(game, player, labelled)
    return network_actions(game, evaluate_fn, PUCTConfig(num_simulations=sims, solver=args.solver), labelled, args.batch)


def mistakes(args, game, evaluate_fn, sims: int, labelled: LabelledSet) -> np.ndarray:
    """``[N]`` bool: True where the move searched with ``sims`` simulations loses value (a mistake)."""
    actions = search_actions(args, game, evaluate_fn, sims, labelled)
    return mistake_mask(labelled.outcomes)[np.arange(len(labelled)), actions]


def truncated(labelled: LabelledSet, limit: int | None) -> LabelledSet:
    if limit is None or limit >= len(labelled):
        return labelled
    return LabelledSet(
        name=labelled.name,
        moves=list(labelled.moves[:limit]),
        states=labelled.states[:limit],
        outcomes=labelled.outcomes[:limit],
        values=None if labelled.values is None else labelled.values[:limit],
    )


def chosen_moves_main(args, game, evaluate_fns, names: list[str]) -> int:
    """``--chosen-moves``: each budget on every line of the named Pons sets, as JSON; with two
    models, McNemar's test of their mistakes on each set."""
    groups = position_sets(game).labelled_set_groups()
    names = [member for name in names for member in groups.get(name, [name])]
    out = {
        "model": args.model[0], "game": game.name, "solver": args.solver, "symmetries": args.symmetries,
        "leaves_per_call": args.leaves_per_call, "chosen_moves": True, "sets": {},
    }
    prefixes = ["", "second_"][: len(evaluate_fns)]
    keys = ("rates", "mistakes", "seconds", "solved", "solve_seconds")
    for prefix in prefixes:
        out.update({prefix + key: {} for key in keys})
    if len(evaluate_fns) == 2:
        out.update({"second_model": args.model[1], "mcnemar": {}})
    for sims in args.sims:
        wrongs = []
        for prefix, evaluate_fn, model in zip(prefixes, evaluate_fns, args.model):

            def choose(positions, sims=sims, evaluate_fn=evaluate_fn):
                return search_actions(args, game, evaluate_fn, sims, positions)

            start = time.perf_counter()
            rows = {
                name: chosen_move_rate(game, name, choose, limit=args.limit, workers=args.workers) for name in names
            }
            wrongs.append({name: row["mistake_mask"] for name, row in rows.items()})
            out["sets"] = {name: row["positions"] for name, row in rows.items()}
            fields = {"rates": "mistake_rate", "mistakes": "mistakes", "solved": "solved", "solve_seconds": "solve_seconds"}
            for key, field in fields.items():
                out[prefix + key][str(sims)] = {name: row[field] for name, row in rows.items()}
            out[prefix + "seconds"][str(sims)] = round(time.perf_counter() - start, 1)
            progress = {"model": model, "sims": sims, "rates": out[prefix + "rates"][str(sims)]}
            print(json.dumps(progress), file=sys.stderr, flush=True)
        if len(wrongs) == 2:
            out["mcnemar"][str(sims)] = {
                name: mcnemar_test(wrongs[0][name], wrongs[1][name]).to_dict() for name in names
            }
    print(json.dumps(out, indent=1))
    return 0


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument(
        "--model", required=True, action="append",
        help="a run's best/ folder, an export folder or a .pt file; twice: both, with McNemar's test",
    )
    parser.add_argument("--sims", type=int, nargs="+", default=[0, 64, 200], help="budgets (0: policy alone)")
    parser.add_argument(
        "--set", action="append", dest="sets",
        help="set name (repeatable; default all, or with --chosen-moves every set measured by chosen moves)",
    )
    parser.add_argument("--limit", type=int, default=None, help="first N positions of each set")
    parser.add_argument("--solver", action="store_true", help="MCTS-solver in the searches")
    parser.add_argument("--batch", type=int, default=256, help="positions per search call")
    parser.add_argument("--threads", type=int, default=None, help="the network's CPU threads (default: one per core)")
    parser.add_argument(
        "--chosen-moves", action="store_true", help="Pons' sets: every line, only the chosen moves solved (cached)"
    )
    parser.add_argument("--workers", type=int, default=1, help="with --chosen-moves: processes solving at once")
    parser.add_argument(
        "--symmetries", action="store_true", help="average the network over the game's symmetries (G x the work)"
    )
    parser.add_argument(
        "--leaves-per-call",
        type=int,
        default=None,
        help="search each position alone as the engine protocol does, N leaves per network call (its default: 1)",
    )
    args = parser.parse_args(argv)
    if args.leaves_per_call is not None and args.leaves_per_call < 1:
        parser.error(f"--leaves-per-call: expected >= 1, got {args.leaves_per_call}")
    if args.leaves_per_call is not None and args.solver:
        parser.error("--leaves-per-call: the engine's player searches without the MCTS-solver; drop --solver")
    if args.workers < 1:
        parser.error(f"--workers: expected >= 1, got {args.workers}")
    if any(s < 0 for s in args.sims):
        parser.error(f"--sims: expected budgets >= 0, got {args.sims}")
    if args.limit is not None and args.limit < 1:
        parser.error(f"--limit: expected >= 1, got {args.limit}")
    if len(args.model) > 2:
        parser.error(f"--model: expected one or two models, got {len(args.model)}")
    try:
        models = [load_model(path, num_threads=args.threads) for path in args.model]
        game = models[0][0]
        if len(models) == 2 and models[1][0].name != game.name:
            raise ValueError(f"both models must play one game, got {game.name!r} and {models[1][0].name!r}")
        evaluate_fns = [symmetry_averaged(g, fn) if args.symmetries else fn for g, fn in models]
        if args.chosen_moves:  # default: the sets measured by chosen moves (Connect Four: Pons' files present)
            return chosen_moves_main(args, game, evaluate_fns, args.sets or position_sets(game).chosen_move_set_names())
        named = labelled_sets(game, args.sets or available_sets(game))
        sets = {name: truncated(ls, args.limit) for name, ls in named.items()}
    except (OSError, ValueError) as error:
        print(f"model_accuracy: {error}", file=sys.stderr)
        return 2
    out = {
        "model": args.model[0],
        "game": game.name,
        "solver": args.solver,
        "symmetries": args.symmetries,
        "leaves_per_call": args.leaves_per_call,
        "sets": {name: len(ls) for name, ls in sets.items()},
        "rates": {},
        "mistakes": {},
        "seconds": {},
    }
    prefixes = ["", "second_"][: len(evaluate_fns)]
    if len(evaluate_fns) == 2:
        out.update({"second_model": args.model[1], "second_rates": {}, "second_mistakes": {}, "mcnemar": {}})
    for sims in args.sims:
        start = time.perf_counter()
        wrongs = []
        for prefix, fn in zip(prefixes, evaluate_fns):
            wrong_of_set = {name: mistakes(args, game, fn, sims, ls) for name, ls in sets.items()}
            wrongs.append(wrong_of_set)
            out[prefix + "rates"][str(sims)] = {
                name: float(w.mean()) if len(w) else float("nan") for name, w in wrong_of_set.items()
            }
            out[prefix + "mistakes"][str(sims)] = {name: int(w.sum()) for name, w in wrong_of_set.items()}
        if len(wrongs) == 2:
            out["mcnemar"][str(sims)] = {name: mcnemar_test(wrongs[0][name], wrongs[1][name]).to_dict() for name in sets}
        out["seconds"][str(sims)] = round(time.perf_counter() - start, 1)
        print(json.dumps({"sims": sims, "rates": out["rates"][str(sims)]}), file=sys.stderr, flush=True)
    print(json.dumps(out, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
