"""False-promotion rate of the promotion gates at equal strength: prints one JSON object.

A network of random weights (torch seed ``--network-seed``, a small MLP) plays a copy of itself
through ``arena.promotion.decide_gate``, the decision procedure of the training run's arena actor:
the same batched greedy PUCT (``arena.network_match.run_network_match``, ``--simulations`` a move,
ties between equally visited moves broken by a seeded generator), the same paired seeded
openings (``--opening-plies`` random plies). Each decision gets its own generator,
``numpy.random.default_rng([seed, rule, decision])``. Since the two sides are one player, every
promotion is a false one.

Reported per rule (``fixed``: ``--games`` games, promote at a score >= ``--threshold``; ``sprt``:
the GSPRT of ``arena.sprt`` with ``--elo0 --elo1 --alpha --beta``, ``--max-games`` cap,
``--pairs-per-look``): decisions, promotions, the false-promotion rate with its 95% Wilson
interval (``arena.elo.wilson_interval``), the mean games a decision spent, and for the SPRT how
many decisions ended at each bound and at the cap.

Example::

    nice -n 5 .venv/bin/python scripts/gate_false_promotion.py --game tictactoe --decisions 200
"""

from __future__ import annotations

import argparse
import json
import sys
from collections import Counter
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games  # noqa: E402
from arena.elo import wilson_interval  # noqa: E402
from arena.promotion import GateConfig, decide_gate  # noqa: E402
from arena.network_match import run_network_match  # noqa: E402
from arena.sprt import SPRTConfig  # noqa: E402
from mcts import PUCTConfig  # noqa: E402
from networks import build_network  # noqa: E402
from networks.config import NetworkConfig  # noqa: E402
from networks.evaluator import TorchEvaluator  # noqa: E402
from trainer.config import ArenaSchema  # noqa: E402

RULES = ("fixed", "sprt")


def measure(game, evaluate_fn, config: GateConfig, puct: PUCTConfig, opening_plies: int, decisions: int,
            seed: int) -> dict:
    """``decisions`` gates of ``evaluate_fn`` against itself under ``config``; the summary as a dict."""
    rule_index = RULES.index(config.rule)
    accepted, num_games, endings = [], [], Counter()
    lower, upper = config.sprt.bounds
    for decision in range(decisions):
        rng = np.random.default_rng([seed, rule_index, decision])

        def play(count: int, rng=rng):
            return run_network_match(game, evaluate_fn, evaluate_fn, count, puct, rng, opening_plies, break_ties=True)

        verdict = decide_gate(play, config)
        accepted.append(verdict.accepted)
        num_games.append(verdict.wins + verdict.draws + verdict.losses)
        if config.rule == "sprt":
            endings["upper bound" if verdict.llr >= upper else "lower bound" if verdict.llr <= lower else "cap"] += 1
        print(json.dumps({"rule": config.rule, "decision": decision, "accepted": verdict.accepted,
                          "games": num_games[-1], "llr": round(verdict.llr, 4)}), file=sys.stderr, flush=True)
    promotions = int(sum(accepted))
    low, high = wilson_interval(promotions / decisions, decisions)
    out = {
        "decisions": decisions, "promotions": promotions, "false_promotion_rate": promotions / decisions,
        "wilson_95": [low, high], "mean_games": float(np.mean(num_games)), "max_games_spent": int(max(num_games)),
    }
    if config.rule == "sprt":
        out["endings"] = dict(endings)
    return out


def main(argv=None) -> dict:
    defaults = ArenaSchema()
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--decisions", type=int, default=100, help="decisions per rule")
    parser.add_argument("--rules", nargs="+", choices=RULES, default=list(RULES))
    parser.add_argument("--simulations", type=int, default=8)
    parser.add_argument("--opening-plies", type=int, default=None, help="default: the game's own")
    parser.add_argument("--games", type=int, default=defaults.num_games, help="the fixed rule's games")
    parser.add_argument("--threshold", type=float, default=defaults.threshold)
    parser.add_argument("--elo0", type=float, default=defaults.sprt_elo0)
    parser.add_argument("--elo1", type=float, default=defaults.sprt_elo1)
    parser.add_argument("--alpha", type=float, default=defaults.sprt_alpha)
    parser.add_argument("--beta", type=float, default=defaults.sprt_beta)
    parser.add_argument("--max-games", type=int, default=defaults.sprt_max_games)
    parser.add_argument("--pairs-per-look", type=int, default=defaults.sprt_pairs_per_look)
    parser.add_argument("--network-seed", type=int, default=1)
    parser.add_argument("--seed", type=int, default=0)
    args = parser.parse_args(argv)
    if args.decisions < 1:
        parser.error(f"--decisions: expected >= 1, got {args.decisions}")
    torch.set_num_threads(1)
    game = games.make(args.game)
    torch.manual_seed(args.network_seed)
    network = NetworkConfig(kind="mlp", mlp_hidden=(32,), value_hidden=16)
    evaluate_fn = TorchEvaluator(build_network(network, game.observation_shape, game.num_actions), device="cpu").evaluate
    puct = PUCTConfig(num_simulations=args.simulations)
    plies = games.knowledge(game).default_opening_plies if args.opening_plies is None else args.opening_plies
    sprt = SPRTConfig(args.elo0, args.elo1, args.alpha, args.beta, args.max_games, args.pairs_per_look)
    report = {
        "game": args.game, "simulations": args.simulations, "opening_plies": plies, "network": network.to_dict(),
        "network_seed": args.network_seed, "seed": args.seed,
        "fixed": {"games": args.games, "threshold": args.threshold},
        "sprt": {"elo0": args.elo0, "elo1": args.elo1, "alpha": args.alpha, "beta": args.beta,
                 "max_games": args.max_games, "pairs_per_look": args.pairs_per_look, "bounds": list(sprt.bounds)},
        "results": {},
    }
    for rule in args.rules:
        config = GateConfig(rule=rule, num_games=args.games, threshold=args.threshold, sprt=sprt)
        report["results"][rule] = measure(game, evaluate_fn, config, puct, plies, args.decisions, args.seed)
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
