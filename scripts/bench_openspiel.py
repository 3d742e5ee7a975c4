"""Benchmark the native games against OpenSpiel's C++ rules and the OpenSpiel adapter:
random-playout positions per second, one core. Prints one JSON object.

For each pair (native id, OpenSpiel game string) and batch size, three rules engines are timed in
interleaved rounds (native, pyspiel, adapter, native, pyspiel, adapter, ...) so that a load change
on the machine hits all three:

* ``native``: the native game's batched API (``legal_mask``, a random legal action, ``step``,
  ``terminal``) on ``[B, S]`` arrays;
* ``single``: the native game's single-state functions (``actions``, ``random.choice`` of one,
  ``result``, ``terminal_test`` on state tuples), ``B`` states one after the other: the path of
  the ``alphabeta:`` players, and the same shape of loop as ``pyspiel``'s;
* ``pyspiel``: OpenSpiel's own C++ rules stepped through ``pyspiel``, ``B`` state objects one after
  the other (``legal_actions``, ``random.choice`` of one, ``apply_action``, ``is_terminal``), the
  way OpenSpiel's Python examples play random games;
* ``adapter``: the same OpenSpiel game through ``games.openspiel_adapter`` (``openspiel:SPEC``).

A playout position is one legal-move list or mask, one random legal action and one step for one
game, finished games restarting: the rules work self-play adds per simulation
(``scripts/bench_rules.py`` measures the same for native games alone). The report gives each
engine's median positions/s over the rounds and the ratios ``native_over_pyspiel``,
``single_over_pyspiel`` and ``native_over_adapter`` of the medians.

Usage: python scripts/bench_openspiel.py [--pairs tictactoe=tic_tac_toe connect4=connect_four]
       [--batch-sizes 1 64] [--rounds 3] [--seconds 0.5] [--no-adapter]
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import random
import statistics
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")

import numpy as np

import games
from games.openspiel_adapter import import_pyspiel

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark scripts
from bench_rules import time_playouts as playout_positions_per_s

DEFAULT_PAIRS = ["tictactoe=tic_tac_toe", "connect4=connect_four", "othello=othello"]


def pyspiel_positions_per_s(game, batch_size: int, rng: random.Random, min_seconds: float) -> float:
    """Random-playout positions per second of ``batch_size`` pyspiel states of ``game`` (a
    ``pyspiel.Game``) stepped one after the other, each a random legal action drawn by ``rng``;
    a finished game restarts from a new initial state."""
    states = [game.new_initial_state() for _ in range(batch_size)]
    positions = 0
    start = time.perf_counter()
    while True:
        for i, state in enumerate(states):
            state.apply_action(rng.choice(state.legal_actions()))
            if state.is_terminal():
                states[i] = game.new_initial_state()
        positions += batch_size
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return positions / elapsed


def single_state_positions_per_s(game, batch_size: int, rng: random.Random, min_seconds: float) -> float:
    """Random-playout positions per second of ``batch_size`` state tuples of the native ``game``
    stepped one after the other with its single-state functions, each a random legal action drawn
    by ``rng``; a finished game restarts from the initial state."""
    states = [game.initial_state()] * batch_size
    positions = 0
    start = time.perf_counter()
    while True:
        for i, state in enumerate(states):
            state = game.result(state, rng.choice(game.actions(state)))
            states[i] = game.initial_state() if game.terminal_test(state) else state
        positions += batch_size
        elapsed = time.perf_counter() - start
        if elapsed >= min_seconds:
            return positions / elapsed


def main(argv=None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--pairs", nargs="+", default=DEFAULT_PAIRS, help="NATIVE=OPENSPIEL_SPEC pairs")
    parser.add_argument("--batch-sizes", nargs="+", type=int, default=[1, 64])
    parser.add_argument("--rounds", type=int, default=3, help="alternating rounds per measurement")
    parser.add_argument("--seconds", type=float, default=0.5, help="minimum timing per round (s)")
    parser.add_argument("--no-adapter", action="store_true", help="time native and pyspiel only")
    args = parser.parse_args(argv)
    for text in args.pairs:
        if "=" not in text:
            parser.error(f"--pairs: expected NATIVE=OPENSPIEL_SPEC, got {text!r}")
    if args.rounds < 1 or args.seconds <= 0 or min(args.batch_sizes) < 1:
        parser.error("--rounds, --batch-sizes and --seconds must be positive")
    if hasattr(os, "sched_setaffinity"):
        os.sched_setaffinity(0, {min(os.sched_getaffinity(0))})
    rng = np.random.default_rng(0)
    spiel_rng = random.Random(0)
    pyspiel = import_pyspiel()
    runs = []
    for text in args.pairs:
        native_name, spec = text.split("=", 1)
        native, spiel_game = games.make(native_name), pyspiel.load_game(spec)
        engines = {
            "native": lambda b, s, game=native: playout_positions_per_s(game, b, rng, s),
            "single": lambda b, s, game=native: single_state_positions_per_s(game, b, spiel_rng, s),
            "pyspiel": lambda b, s, game=spiel_game: pyspiel_positions_per_s(game, b, spiel_rng, s),
        }
        if not args.no_adapter:
            adapted = games.make(f"{games.OPENSPIEL_PREFIX}{spec}")
            engines["adapter"] = lambda b, s, game=adapted: playout_positions_per_s(game, b, rng, s)
        for batch_size in args.batch_sizes:
            for time_fn in engines.values():  # compile and warm up
                time_fn(batch_size, 0.05)
            rates: dict[str, list[float]] = {name: [] for name in engines}
            for _ in range(args.rounds):
                for name, time_fn in engines.items():
                    rates[name].append(time_fn(batch_size, args.seconds))
            medians = {name: statistics.median(values) for name, values in rates.items()}
            run = {"native": native_name, "openspiel": spec, "batch_size": batch_size}
            run.update({f"{name}_positions_per_s": round(rate) for name, rate in medians.items()})
            run["native_over_pyspiel"] = round(medians["native"] / medians["pyspiel"], 2)
            run["single_over_pyspiel"] = round(medians["single"] / medians["pyspiel"], 2)
            if "adapter" in medians:
                run["native_over_adapter"] = round(medians["native"] / medians["adapter"], 1)
            runs.append(run)
    report = {
        "benchmark": "openspiel",
        "rounds": args.rounds,
        "seconds": args.seconds,
        "cores": 1,
        "machine": platform.machine(),
        "runs": runs,
    }
    print(json.dumps(report, indent=2))


if __name__ == "__main__":
    main()
