"""Benchmark of the hybrid: alpha-beta with a network's evaluation against heuristic alpha-beta.

Prints one JSON object. For each fixed Connect Four position (a move string) and the fixed depth
``--depth`` (plies), heuristic alpha-beta (``games.connect4.heuristic.evaluate``) and the hybrid
(``search.hybrid.NetworkEvaluation``: the network's value at the horizon, its policy for the move
order, the frontier siblings in one batched call) run one after the other, interleaved, each with a
fresh search and a fresh evaluation cache. Per position and in total:

* ``nodes``, ``seconds``, ``nodes_per_s`` (every state entered counts, as ``scripts/bench_search.py``);
* for the hybrid also ``network_calls``, ``network_positions``, ``network_calls_per_node`` and
  ``positions_per_call`` (the mean batch size);
* ``hybrid_over_heuristic_nodes_per_s``: the ratio of the totals.

The network is ``--model PATH`` (an export folder, opened with ONNX Runtime as ``arena`` does, or a
``.pt`` file), else a seeded random network of ``--network`` (default ``b4c32``, the CPU training
default) exported to a temporary folder: its weights do not change the cost per call.

Each measurement is the fastest of ``--repeat`` runs (default 1). The machine's other load lowers
the figures; quote the ratio.

Usage: ``python scripts/bench_hybrid.py [--model PATH] [--depth 4] [--repeat 1]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from search.alphabeta import AlphaBeta
from search.hybrid import NetworkEvaluation

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark scripts
from bench_search import CONNECT4_POSITIONS, require_positive
from bench_search import best_of as _timed


def random_export(network: str, folder: Path) -> Path:
    """Export a seeded random network (a name such as ``b4c32``) for Connect Four into ``folder``."""
    import torch

    from networks import NetworkConfig, build_network
    from networks.export import export_model

    game = games.make("connect4")
    torch.manual_seed(0)
    config = NetworkConfig.from_name(network)
    model = build_network(config, game.observation_shape, game.num_actions)
    return export_model(model, config, game.name, game.version, folder)


def load_benchmark_model(model: str | None, network: str, scratch: Path) -> tuple:
    """The Connect Four evaluator of ``model`` (an export folder or ``.pt`` file), or of a seeded random
    ``network`` exported into ``scratch`` when ``model`` is None; returns ``(evaluator, report)``, the
    report naming the Python version, the model and the evaluator's backend."""
    from networks.loading import load_evaluator  # torch or ONNX Runtime: imported only when a model is loaded

    evaluator = load_evaluator(model if model else random_export(network, scratch / "model"), expected_game="connect4")
    report = {
        "python": platform.python_version(),
        "model": model if model else f"random {network}",
        "backend": type(evaluator).__name__,
    }
    return evaluator, report


def bench(evaluate_fn, depth: int, repeat: int, positions=CONNECT4_POSITIONS) -> dict:
    """Interleaved heuristic and hybrid searches of ``positions`` at ``depth`` plies; see the module doc."""
    game = games.make("connect4")
    AlphaBeta(game).search(game.initial_state(), 2)  # load the compiled heuristic first
    NetworkEvaluation(game, evaluate_fn).value(game.initial_state())  # and warm the network up
    rows = []
    raw_seconds = {"heuristic": 0.0, "hybrid": 0.0}  # unrounded: a depth-1 row rounds to 0.0000 s
    for moves in positions:
        state = game.initial_state()
        for action in game.parse_moves(moves):
            state = game.result(state, action)
        seconds, result = _timed(repeat, lambda state=state: AlphaBeta(game).search(state, depth))
        raw_seconds["heuristic"] += seconds
        heuristic = {"nodes": result.nodes, "seconds": round(seconds, 4), "nodes_per_s": round(result.nodes / seconds)}

        def hybrid_run(state=state):
            network = NetworkEvaluation(game, evaluate_fn)
            return network, AlphaBeta(game, network.evaluate, expand_fn=network.expand).search(state, depth)

        seconds, (network, result) = _timed(repeat, hybrid_run)
        raw_seconds["hybrid"] += seconds
        hybrid = {
            "nodes": result.nodes,
            "seconds": round(seconds, 4),
            "nodes_per_s": round(result.nodes / seconds),
            "network_calls": network.num_calls,
            "network_positions": network.num_positions,
        }
        rows.append({"moves": moves, "depth": depth, "heuristic": heuristic, "hybrid": hybrid})
    total = {}
    for kind in ("heuristic", "hybrid"):
        nodes = sum(r[kind]["nodes"] for r in rows)
        seconds = raw_seconds[kind]
        total[kind] = {"nodes": nodes, "seconds": round(seconds, 4), "nodes_per_s": round(nodes / seconds)}
    calls = sum(r["hybrid"]["network_calls"] for r in rows)
    evaluated = sum(r["hybrid"]["network_positions"] for r in rows)
    total["hybrid"].update(
        network_calls=calls,
        network_positions=evaluated,
        network_calls_per_node=round(calls / total["hybrid"]["nodes"], 4),
        positions_per_call=round(evaluated / calls, 2),
    )
    return {
        "positions": rows,
        "total": total,
        "hybrid_over_heuristic_nodes_per_s": round(
            total["hybrid"]["nodes_per_s"] / total["heuristic"]["nodes_per_s"], 4
        ),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="export folder or .pt file (default: a random --network)")
    parser.add_argument("--network", default="b4c32", help="random network when no --model (default b4c32)")
    parser.add_argument("--depth", type=int, default=4, help="alpha-beta depth in plies (>= 1)")
    parser.add_argument("--repeat", type=int, default=1, help="runs per measurement; the fastest counts")
    args = parser.parse_args(argv)
    require_positive(parser, args, "depth", "repeat")
    with tempfile.TemporaryDirectory() as scratch:
        evaluator, report = load_benchmark_model(args.model, args.network, Path(scratch))
        report = {
            **report,
            "repeat": args.repeat,
            "alphabeta_connect4": bench(evaluator.evaluate, args.depth, args.repeat),
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
