"""Benchmark: the project's single-position UCT (``mcts.run_search`` with ``mcts.UCTConfig``) against OpenSpiel's C++ MCTSBot.

Both play self-play games (each move a fresh search from the current position), ``--simulations``
per move (default 400), one uniformly random rollout per new leaf, the most visited root child
played, on tic-tac-toe and Connect Four. The two run interleaved in one process: ``--rounds``
rounds, each one block of games for OpenSpiel then one for the project, each block about
``--seconds`` seconds, so load on the machine falls on both alike. Reported per game:
simulations, wall-clock and CPU seconds, simulations per second of each, and
``project_over_openspiel`` (the ratio of simulations per CPU second; above 1: the project is
faster).

Settings matched: OpenSpiel's UCT scores values in ``[-1, 1]``, the project's UCB1 in ``[0, 1]``,
so OpenSpiel runs with ``uct_c = 2 * --c`` (the same selection); OpenSpiel's solver is off
(``solve=False``: the project's UCT has none, and a solved root would stop its search early).

Prints one JSON object. Needs ``open_spiel`` (``pip install open_spiel``).

Usage: ``python scripts/bench_uct.py [--simulations 400] [--rounds 3] [--seconds 3]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from mcts import UCTConfig, run_search

#: the project's game id -> OpenSpiel's
OPENSPIEL_GAMES = {"tictactoe": "tic_tac_toe", "connect4": "connect_four"}


def _clock():
    return time.perf_counter(), time.process_time()


def _self_play_block(new_game_fn, is_over_fn, play_fn, simulations: int, seconds: float) -> tuple[int, float, float, int]:
    """Self-play games for about ``seconds``: each starts as ``new_game_fn()`` and moves by
    ``state = play_fn(state)`` until ``is_over_fn(state)``; returns (simulations, wall s, CPU s, games)."""
    wall, cpu = _clock()
    total = played = 0
    while True:
        state = new_game_fn()
        while not is_over_fn(state):
            state = play_fn(state)
            total += simulations
        played += 1
        if time.perf_counter() - wall >= seconds:
            break
    end_wall, end_cpu = _clock()
    return total, end_wall - wall, end_cpu - cpu, played


def openspiel_block(bot, game, simulations: int, seconds: float) -> tuple[int, float, float, int]:
    """Self-play games with OpenSpiel's ``bot``; see ``_self_play_block``."""

    def play(state):
        state.apply_action(bot.step(state))
        return state

    return _self_play_block(game.new_initial_state, lambda state: state.is_terminal(), play, simulations, seconds)


def project_block(game, simulations: int, c: float, rng, seconds: float) -> tuple[int, float, float, int]:
    """The same with the ``uct`` search of ``mcts.run_search`` (one compiled call per move)."""
    settings = UCTConfig(num_simulations=simulations, c=c)

    def play(state):
        action = run_search(game, np.array([state], dtype=np.int64), None, settings, rng).actions[0]
        return game.result(state, int(action))

    return _self_play_block(game.initial_state, game.terminal_test, play, simulations, seconds)


def bench_game(name: str, simulations: int, c: float, rounds: int, seconds: float, seed: int) -> dict:
    import pyspiel

    spiel_game = pyspiel.load_game(OPENSPIEL_GAMES[name])
    evaluator = pyspiel.RandomRolloutEvaluator(1, seed)
    bot = pyspiel.MCTSBot(spiel_game, evaluator, 2 * c, simulations, 1000, False, seed, False)
    game = games.make(name)
    rng = np.random.default_rng(seed)
    # warm-up: compile the project's kernel, and one OpenSpiel game
    project_block(game, simulations, c, rng, 0.0)
    openspiel_block(bot, spiel_game, simulations, 0.0)
    sums = {"openspiel": [0, 0.0, 0.0, 0], "project": [0, 0.0, 0.0, 0]}
    for _ in range(rounds):
        for key, block in (
            ("openspiel", lambda: openspiel_block(bot, spiel_game, simulations, seconds)),
            ("project", lambda: project_block(game, simulations, c, rng, seconds)),
        ):
            for i, value in enumerate(block()):
                sums[key][i] += value
    out = {}
    for key, (sims, wall, cpu, played) in sums.items():
        out[key] = {
            "games": played,
            "simulations": sims,
            "wall_s": round(wall, 3),
            "cpu_s": round(cpu, 3),
            "simulations_per_wall_s": round(sims / wall),
            "simulations_per_cpu_s": round(sims / cpu),
        }
    out["project_over_openspiel"] = round(
        out["project"]["simulations_per_cpu_s"] / out["openspiel"]["simulations_per_cpu_s"], 3
    )
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--simulations", type=int, default=400, help="simulations per move (>= 1)")
    parser.add_argument("--c", type=float, default=1.4, help="UCB1 constant on [0, 1] results")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (>= 1)")
    parser.add_argument("--seconds", type=float, default=3.0, help="seconds per block (> 0)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--games", nargs="+", default=list(OPENSPIEL_GAMES), choices=list(OPENSPIEL_GAMES))
    args = parser.parse_args(argv)
    if args.simulations < 1 or args.rounds < 1 or not args.seconds > 0:
        parser.error("expected --simulations >= 1, --rounds >= 1 and --seconds > 0")
    import pyspiel

    report = {
        "python": platform.python_version(),
        "open_spiel": getattr(pyspiel, "__version__", "unknown"),
        "simulations_per_move": args.simulations,
        "rounds": args.rounds,
        "seconds_per_block": args.seconds,
        "games": {
            name: bench_game(name, args.simulations, args.c, args.rounds, args.seconds, args.seed) for name in args.games
        },
    }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
