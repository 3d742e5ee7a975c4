"""Benchmark of the classical search: alpha-beta nodes per second on Connect Four, minimax on tic-tac-toe.

Prints one JSON object:

* ``alphabeta_connect4``: for each fixed position (a move string), a fixed-depth search (plies)
  with every move-ordering heuristic on and the heuristic evaluation; ``nodes``, ``seconds`` and
  ``nodes_per_s`` (every state entered counts: interior, horizon and quiescence nodes), plus the
  total over the positions;
* ``minimax_tictactoe``: plain minimax without a table over the full tic-tac-toe tree from the empty
  board (549,946 nodes), ``nodes_per_s``; and the same with the transposition table.

Pure Python over the games' six single-state functions, one process. Run it on an idle core
(``taskset -c 0``) for numbers to compare; other load on the machine lowers them.

Each measurement is the fastest of ``--repeat`` runs (default 3).

Usage: ``python scripts/bench_search.py [--depth 9] [--repeat 3]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from search.alphabeta import AlphaBeta
from search.minimax import Minimax

#: opening, early middle game, middle game, late middle game
CONNECT4_POSITIONS = ("", "4453", "74447642367771311353", "56264643147144146675572")


def require_positive(parser: argparse.ArgumentParser, args: argparse.Namespace, *names: str) -> None:
    """Stop with ``parser.error`` ("--NAME: expected >= 1, got V") unless each named option is >= 1."""
    for name in names:
        value = getattr(args, name.replace("-", "_"))
        if value < 1:
            parser.error(f"--{name}: expected >= 1, got {value}")


def best_of(repeat: int, run_fn):
    """Run ``run_fn()`` ``repeat`` times; returns ``(fastest seconds, result of that run)``."""
    best = None
    for _ in range(repeat):
        start = time.perf_counter()
        result = run_fn()
        seconds = time.perf_counter() - start
        if best is None or seconds < best[0]:
            best = (seconds, result)
    return best


def bench_alphabeta(depth: int, repeat: int) -> dict:
    game = games.make("connect4")
    AlphaBeta(game).search(game.initial_state(), 2)  # load the compiled evaluation first
    runs = []
    for moves in CONNECT4_POSITIONS:
        state = game.initial_state()
        for action in game.parse_moves(moves):
            state = game.result(state, action)
        seconds, result = best_of(repeat, lambda state=state: AlphaBeta(game).search(state, depth))
        runs.append(
            {
                "moves": moves,
                "depth": depth,
                "nodes": result.nodes,
                "seconds": round(seconds, 4),
                "nodes_per_s": round(result.nodes / seconds),
            }
        )
    nodes = sum(r["nodes"] for r in runs)
    seconds = sum(r["seconds"] for r in runs)
    return {
        "positions": runs,
        "nodes": nodes,
        "seconds": round(seconds, 4),
        "nodes_per_s": round(nodes / seconds),
    }


def bench_minimax(repeat: int) -> dict:
    game = games.make("tictactoe")
    out = {}
    for label, use_table in (("plain", False), ("transposition_table", True)):

        def solve(use_table=use_table):
            search = Minimax(game, use_transposition_table=use_table)
            return search, search.value(game.initial_state())

        seconds, (search, value) = best_of(repeat, solve)
        out[label] = {
            "value": value,
            "nodes": search.nodes,
            "seconds": round(seconds, 4),
            "nodes_per_s": round(search.nodes / seconds),
        }
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--depth", type=int, default=9, help="alpha-beta depth in plies (>= 1)")
    parser.add_argument("--repeat", type=int, default=3, help="runs per measurement; the fastest counts")
    args = parser.parse_args(argv)
    require_positive(parser, args, "depth", "repeat")
    report = {
        "python": platform.python_version(),
        "repeat": args.repeat,
        "alphabeta_connect4": bench_alphabeta(args.depth, args.repeat),
        "minimax_tictactoe": bench_minimax(args.repeat),
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
