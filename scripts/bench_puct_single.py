"""Benchmark: the one-position search of ``play``, the engine and the arena against its network floor.

The search of ``play --engine`` (``arena.players.MCTSPlayer.analyze``: PUCT, one root, one leaf per
network call) on Connect Four positions reached by seeded random plies, ``--simulations`` per
search, with an exported network run by ONNX Runtime, interleaved in one run (``--rounds`` rounds,
each position searched once by each variant per round):

* ``search`` / ``search_mirror``: the search, with the network alone and averaged over the position
  and its mirror image (``mcts.evaluators.symmetry_averaged``, ``play``'s default: one network
  call of 2 rows per simulation): one compiled call with the network bound to its buffers
  (``mcts.single.run_network_search``);
* ``via_evaluate`` / ``via_evaluate_mirror``: the same searches with the evaluator hidden behind a
  plain function, so that the compiled loop calls ``evaluate`` from Python at every leaf (two
  compiled calls, the observation, the softmax and the average in numpy per simulation: the path
  before ``mcts.single.run_network_search``);
* ``batched_loop`` / ``batched_loop_mirror``: the same searches through the batched loop of
  ``mcts.search.search_loop`` (the game's compiled rules hidden), the path before
  ``mcts.single``;
* the **network floor** of each: right after each search, the same number of bare
  ``session.run`` calls on the same batch size (1, or 2 with the mirror), timed apart;
  ``over_floor`` is the search's seconds over its floor's;
* ``--leaves-per-call N`` (above 1): the mirror-averaged search collecting ``N`` leaves a call
  with virtual loss (``mcts.minibatch``), against its floor of calls on ``2 N`` rows;
* ``--thread-settings``: the mirror-averaged search with sessions of other intra-op thread counts
  and spinning (``1`` one thread, ``1:spin`` one spinning, ``2``, ``0`` ONNX Runtime's own default
  of one thread per core, spinning), each ``over_best``: its seconds over the fastest setting's;
  measured in a second interleaved phase after the others, each search after a short pause.

The network is ``--model PATH`` (an export folder), else a seeded random ``--network`` (default
``b4c32``, the CPU training default) exported to a temporary folder: the weights do not change the
cost of a call. Seconds are CPU seconds of the process and all its threads (``--clock cpu``, the
default: other jobs on the core do not count, a spinning thread does), or ``--clock wall``. Prints
one JSON object. Run it pinned to one core (``taskset -c 1``); the
machine's other load lowers all figures alike: quote the ratios.

Usage: ``taskset -c 1 python scripts/bench_puct_single.py [--simulations 200] [--rounds 3]
[--thread-settings 1 1:spin 0]``
"""

from __future__ import annotations

import argparse
import json
import platform
import sys
import tempfile
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

import games
from arena.players import MCTSPlayer
from games.base import WithoutCompiledRules
from mcts import PUCTConfig
from mcts.evaluators import symmetry_averaged, uniform_evaluator
from networks.onnx_evaluator import INPUT_NAME, OUTPUT_NAMES, load_exported

sys.path.insert(0, str(Path(__file__).resolve().parent))  # the sibling benchmark scripts
from bench_hybrid import random_export


class _FreeNetwork:
    """A stand-in network that costs nothing: uniform priors and value 0, through ``evaluate`` and
    through bound buffers (``bind_buffers``) whose ``run`` only counts; the search's own cost."""

    min_legal_mass = 1e-6

    def __init__(self, game) -> None:
        self.game = game
        self.num_calls = 0

    def evaluate(self, observations, legal_mask):
        self.num_calls += 1
        return uniform_evaluator(observations, legal_mask)

    def bind_buffers(self, rows: int):
        network = self

        class Bound:
            observations = np.zeros((rows, *self.game.observation_shape), dtype=np.float32)
            logits = np.zeros((rows, self.game.num_actions), dtype=np.float32)
            values = np.zeros(rows, dtype=np.float32)
            min_legal_mass = self.min_legal_mass

            def run(self) -> None:
                network.num_calls += 1

            def count_degenerate(self, count: int) -> None:
                pass

        return Bound()


def _hidden(evaluate_fn):
    """``evaluate_fn`` behind a plain function: a search cannot bind its network to buffers."""
    return lambda observations, legal_mask: evaluate_fn(observations, legal_mask)


def positions(count: int, seed: int) -> np.ndarray:
    """``[count, S]`` Connect Four states after 0-9 seeded random plies (none finished)."""
    game = games.make("connect4")
    rng = np.random.default_rng(seed)
    rows = []
    while len(rows) < count:
        state = game.initial_state()
        for _ in range(int(rng.integers(0, 10))):
            state = game.result(state, int(rng.choice(game.actions(state))))
        if not game.terminal_test(state):
            rows.append(state)
    return np.array(rows, dtype=np.int64)


def parse_setting(text: str) -> tuple[int, bool]:
    """``"N"`` or ``"N:spin"`` -> ``(intra-op threads, spinning)``; ``0`` is ONNX Runtime's own
    default (one thread per core), which spins.

    Raises:
        ValueError: for any other text.
    """
    threads, _, spin = text.partition(":")
    if not threads.isdigit() or spin not in ("", "spin"):
        raise ValueError(f"expected a thread setting N or N:spin (N >= 0), got {text!r}")
    return int(threads), spin == "spin" or int(threads) == 0


#: pause before each timed search of the thread-settings phase, in seconds: ONNX Runtime's
#: spinning worker threads keep spinning for a while after a run, and their CPU would count against
#: the next variant. Only that phase pauses, and it pauses busy (``settle``), not asleep: on this
#: machine a search right after a 50 ms sleep costs up to 4 ms more (caches and clocks gone cold),
#: which the warm floor measured right after it does not pay.
SETTLE_SECONDS = 0.05

#: pause after a variant whose session spins, in seconds: its spinning threads still run for a
#: moment after a search, and their CPU seconds would count against the next one. Short on purpose:
#: on this machine a core kept busy for a second runs the next searches up to 2.5x slower.
SETTLE_AFTER_SPINNING_SECONDS = 0.05

def settle(seconds: float) -> None:
    """Wait ``seconds`` without sleeping (a sleeping core comes back cold), untimed by the caller."""
    end = time.perf_counter() + seconds
    while time.perf_counter() < end:
        pass


#: Clocks of ``--clock``: CPU seconds of this process (all its threads), or wall-clock seconds.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def bench(
    folder: Path, simulations: int, rounds: int, num_positions: int, seed: int, settings: list[str], clock=time.process_time,
    leaves_per_call: int = 1,
) -> dict:
    """The interleaved measurement of the module docstring; returns the report's ``connect4`` entry."""
    game = games.make("connect4")
    hidden = WithoutCompiledRules(game)
    config = PUCTConfig(num_simulations=simulations)
    roots = [tuple(int(x) for x in row) for row in positions(num_positions, seed)]
    evaluator = load_exported(folder, providers=["CPUExecutionProvider"], num_threads=1, spinning=False)
    sessions = {}
    spinning_variants = set()
    for text in settings:
        threads, spinning = parse_setting(text)
        sessions[text] = load_exported(folder, providers=["CPUExecutionProvider"], num_threads=threads, spinning=spinning)
        if spinning:
            spinning_variants.add(f"threads_{text}")
    variants = {
        "search": (game, evaluator, False),
        "search_mirror": (game, evaluator, True),
        "via_evaluate": (game, evaluator, False),
        "via_evaluate_mirror": (game, evaluator, True),
        "batched_loop": (hidden, evaluator, False),
        "batched_loop_mirror": (hidden, evaluator, True),
    }
    variants["free_network"] = (game, _FreeNetwork(game), False)
    variants["free_network_mirror"] = (game, _FreeNetwork(game), True)
    if leaves_per_call > 1:  # several leaves a call with virtual loss (mcts.minibatch), the mirror averaged
        variants[f"minibatch_{leaves_per_call}_mirror"] = (game, evaluator, True)
    thread_variants = [f"threads_{text}" for text in sessions]
    for text, session in sessions.items():
        variants[f"threads_{text}"] = (game, session, True)
    floors = {name: 0.0 for name in variants}
    bound_seconds = {"search": 0.0, "search_mirror": 0.0}
    seconds = {name: 0.0 for name in variants}
    calls = {name: 0 for name in variants}

    def search(name, state):
        rules, runner, mirror = variants[name]
        evaluate_fn = _hidden(runner.evaluate) if name.startswith("via_evaluate") else runner.evaluate
        evaluate_fn = symmetry_averaged(game, evaluate_fn) if mirror else evaluate_fn
        calls_before = runner.num_calls
        player = MCTSPlayer(evaluate_fn, config, leaves_per_call=leaves_per_call if name.startswith("minibatch") else 1)
        if name in thread_variants:
            settle(SETTLE_SECONDS)  # the previous variant's spinning threads go idle, untimed
        start = clock()
        player.analyze(rules, state)
        elapsed = clock() - start
        num_calls = runner.num_calls - calls_before
        rows = (2 if mirror else 1) * (leaves_per_call if name.startswith("minibatch") else 1)
        batch = np.ascontiguousarray(game.observation(np.asarray([state] * rows, dtype=np.int64)))
        start = clock()
        for _ in range(num_calls):
            getattr(runner, "session", evaluator.session).run(list(OUTPUT_NAMES), {INPUT_NAME: batch})
        floor = clock() - start  # the free network: the real network's floor
        if name in ("search", "search_mirror"):  # the same runs through the bound buffers
            bound = evaluator.bind_buffers(rows)
            bound.observations[:] = batch
            start = clock()
            for _ in range(num_calls):
                bound.run()
            bound_seconds[name] += clock() - start
        return elapsed, floor, num_calls

    for name in variants:  # warm-up: compile the kernels, first session runs
        search(name, roots[0])
        if name in spinning_variants:
            settle(SETTLE_AFTER_SPINNING_SECONDS)  # untimed
    main_variants = [name for name in variants if name not in thread_variants]
    # two phases, each interleaved: the thread settings after the rest, so that no spinning
    # session's threads run beside the main variants
    for phase in (main_variants, thread_variants):
        for round_index in range(rounds):
            for position_index, state in enumerate(roots):
                turn = (round_index * len(roots) + position_index) % max(len(phase), 1)
                for name in phase[turn:] + phase[:turn]:  # each variant first in turn: no fixed neighbour
                    elapsed, floor, count = search(name, state)
                    if name in spinning_variants:
                        settle(SETTLE_AFTER_SPINNING_SECONDS)  # untimed
                    seconds[name] += elapsed
                    floors[name] += floor
                    calls[name] += count
    searches = rounds * len(roots)
    report = {}
    for name in variants:
        report[name] = {
            "seconds_per_search": round(seconds[name] / searches, 5),
            "floor_seconds_per_search": round(floors[name] / searches, 5),
            "over_floor": round(seconds[name] / floors[name], 3),
            "network_calls_per_search": round(calls[name] / searches, 1),
        }
    for name, seconds_bound in bound_seconds.items():
        report[name]["bound_runs_over_floor"] = round(seconds_bound / floors[name], 3)
    if sessions:
        best = min(seconds[f"threads_{text}"] for text in sessions)
        for text in sessions:
            report[f"threads_{text}"]["over_best"] = round(seconds[f"threads_{text}"] / best, 3)
    report["search_over_via_evaluate"] = round(seconds["search"] / seconds["via_evaluate"], 3)
    report["mirror_search_over_via_evaluate"] = round(seconds["search_mirror"] / seconds["via_evaluate_mirror"], 3)
    report["search_over_batched_loop"] = round(seconds["search"] / seconds["batched_loop"], 3)
    report["mirror_search_over_batched_loop"] = round(seconds["search_mirror"] / seconds["batched_loop_mirror"], 3)
    return report


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", help="export folder (default: a random --network)")
    parser.add_argument("--network", default="b4c32", help="random network when no --model (default b4c32)")
    parser.add_argument("--simulations", type=int, default=200, help="simulations per search (>= 1)")
    parser.add_argument("--rounds", type=int, default=3, help="interleaved rounds (>= 1)")
    parser.add_argument("--positions", type=int, default=4, help="root positions (>= 1)")
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument(
        "--symmetries", action="store_true",
        help="accepted for older commands: the mirror-averaged searches are always measured",
    )
    parser.add_argument(
        "--leaves-per-call", type=int, default=1,
        help="above 1: add the mirror-averaged search with this many leaves a call (virtual loss)",
    )
    parser.add_argument(
        "--thread-settings", nargs="*", default=["1", "1:spin", "2", "0"],
        help="ONNX Runtime settings compared on the mirror-averaged search: N or N:spin (0: its own default)",
    )
    parser.add_argument(
        "--clock", choices=tuple(CLOCKS), default="cpu",
        help="cpu (default): CPU seconds of this process and its threads, robust when other jobs share the core; wall",
    )
    args = parser.parse_args(argv)
    if min(args.simulations, args.rounds, args.positions, args.leaves_per_call) < 1:
        parser.error("expected --simulations, --rounds, --positions and --leaves-per-call >= 1")
    try:
        for text in args.thread_settings:
            parse_setting(text)
    except ValueError as error:
        parser.error(str(error))
    with tempfile.TemporaryDirectory() as scratch:
        folder = Path(args.model) if args.model else random_export(args.network, Path(scratch) / "model")
        report = {
            "python": platform.python_version(),
            "model": args.model if args.model else f"random {args.network}",
            "simulations_per_search": args.simulations,
            "rounds": args.rounds,
            "positions": args.positions,
            "clock": args.clock,
            "connect4": bench(
                folder, args.simulations, args.rounds, args.positions, args.seed, args.thread_settings,
                CLOCKS[args.clock], args.leaves_per_call,
            ),
        }
    print(json.dumps(report, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
