"""Benchmark of self-play against the bare network: does the tree work keep the evaluator saturated?

Prints ONE JSON object ``{"runs": [...], ...}``; each run (one per game and batch size ``B``) has:

* ``game``, ``batch_size`` (``B``: games searched together), ``network`` (e.g. ``b4c32``),
  ``simulations_per_move``;
* ``forward_evals_per_s``: positions per second of bare ``evaluate`` calls of the network on ``B``
  positions at a time (numpy in and out, masking included), positions sampled by random play;
* ``selfplay_evals_per_s``: leaf evaluations per second (states sent to the network, roots
  included) during ``SelfPlayRunner`` self-play of ``B`` games with the same evaluator, i.e.
  ``SelfPlayStats.leaf_evaluations / SelfPlayStats.seconds``; the seconds include the search,
  the rules, move selection and recording;
* ``ratio``: ``selfplay_evals_per_s / forward_evals_per_s`` (the tree work must not dominate: it should stay above 0.8);
* ``bound_evals_per_s`` and ``ratio_bound`` (ONNX Runtime; None on torch): the network alone in its
  bound buffers on the same ``B`` positions (``BoundBuffers.run_rows``: no input checks, no
  softmax), the stricter floor, and self-play's leaf evaluations per second over it;
* ``positions_per_s``: self-play moves (plies, summed over the ``B`` games) per second;
* ``tree_sims_per_s``: simulations per second of the batched PUCT search and the rules alone,
  with the free "zero net" evaluator (uniform priors, value 0, observations still encoded), from
  the start position: ``scripts/bench_mcts.bench``;
* and, to read them by: ``selfplay_moves_measured``, ``selfplay_seconds`` (self-play time
  measured, s) and ``evals_per_simulation`` (below 1 when simulations end on terminal states).

Issue 4's bars, on one core: ``ratio >= 0.85`` and ``tree_sims_per_s >= 100,000`` for Connect Four
at ``B = 256`` with the default network. The script runs on one core: it pins itself with
``os.sched_setaffinity`` (``--cpu``), calls ``torch.set_num_threads(1)`` and sets
``NUMBA_NUM_THREADS=1`` before Numba is imported.

Timing: by default every rate is per second of CPU time of this (single-threaded, pinned)
process, ``time.process_time``, so other jobs sharing the core do not distort it; ``--clock wall``
uses wall-clock seconds instead (right on an idle machine).

Networks, searches and the network's runtime default to the training defaults: for Connect Four
``configs/network/b4c32.yaml``, ``configs/mcts/connect4.yaml`` (the Gumbel root search, 32
simulations, over ``configs/mcts/default.yaml``) and ``configs/selfplay/default.yaml``; for
tic-tac-toe ``configs/network/mlp128x2.yaml`` and the ``tictactoe.yaml`` files; the network runs
in ONNX Runtime on one thread as the self-play actors run it (``trainer.config``'s
``selfplay.inference``, ``networks.export.onnx_runtime_evaluator``; ``--inference torch`` for
torch). ``search`` and ``inference`` in each run name what was measured. Weights are fresh
(seeded) initialisations: the network's cost does not depend on its weights, and the search's cost
hardly does. ``tree_sims_per_s`` stays PUCT's (``scripts/bench_mcts.py``).

Each run: warm-up (3 bare calls, ``--warmup-moves`` self-play moves for Numba compilation), then
self-play moves (one ply of all ``B`` games each) for ``--seconds`` of self-play time. The two
network rates are measured interleaved move by move: after each self-play move, as many bare
calls on ``B`` positions as the move's network calls are timed apart, so both rates see the same
load and cache state; on a busy shared machine, separate timing windows differed by 15% or more
between repetitions. The self-play runner gets the evaluator as the actors do (its ``evaluate``
method), so with ONNX Runtime and a game with compiled rules and encoder the search runs whole in
compiled code with the network in its bound buffers (``mcts.batched``). Then the tree benchmark
runs for ``--seconds``.

Self-play starts every game from the opening (after the config's random opening plies), so at
large ``B`` the window covers the first plies only (Connect Four: no terminal leaves yet, every
leaf goes to the network); ``--warmup-moves`` plays more untimed moves first to measure later in
the game. Later in the game terminal leaves make the network batches smaller than ``B``, and the
CPU network's cost per position is not monotonic in the batch size (b4c32 on one core: about 25%
more positions/s at 200 than at 256), so there ``ratio`` can exceed 1 (1.11 after 14 plies at
``B = 256``); the opening measurement, with full batches, is the conservative one.

Examples::

    .venv/bin/python scripts/bench_selfplay.py
    .venv/bin/python scripts/bench_selfplay.py --games connect4 --batch-sizes 256 --seconds 10
    .venv/bin/python scripts/bench_selfplay.py --simulations 32 --seconds 0.5 --json /tmp/bench.json
"""

from __future__ import annotations

import os

# Before anything imports Numba: one thread, like one self-play actor per core.
os.environ["NUMBA_NUM_THREADS"] = "1"

import argparse
import importlib.util
import json
import platform
import sys
import time
import types
from pathlib import Path

import numpy as np
import torch
import yaml

REPO_ROOT = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO_ROOT))

import games
from mcts import algorithm_of, settings_from, uniform_evaluator
from networks import NetworkConfig, build_network
from networks.evaluator import TorchEvaluator
from networks.export import onnx_runtime_evaluator
from selfplay.runner import SelfPlayRunner, SelfPlaySettings, SelfPlayStats
from trainer.config import SelfPlaySchema

#: Per game: (network yaml, mcts yaml, selfplay yaml), the training defaults (configs/train.yaml
#: with the overrides of configs/game/connect4.yaml and configs/game/tictactoe.yaml).
DEFAULT_CONFIGS = {
    "connect4": ("network/b4c32.yaml", "mcts/connect4.yaml", "selfplay/default.yaml"),
    "tictactoe": ("network/mlp128x2.yaml", "mcts/tictactoe.yaml", "selfplay/tictactoe.yaml"),
}
#: the self-play actors' network runtime by default (``trainer.config``'s ``selfplay.inference``)
DEFAULT_INFERENCE = SelfPlaySchema.inference
GAME_CHOICES = tuple(DEFAULT_CONFIGS)
DEFAULT_JSON = REPO_ROOT / "docs" / "results" / "bench_selfplay.json"


def tree_bench_with_clock(clock_name: str):
    """``bench`` of ``scripts/bench_mcts.py`` (``scripts`` is not a package), timed by ``clock``.

    The module is loaded as a private copy whose ``time.perf_counter`` (its only clock) is the
    chosen clock, so its measurement uses the same seconds as the rest of this script.
    """
    spec = importlib.util.spec_from_file_location("_bench_mcts", REPO_ROOT / "scripts" / "bench_mcts.py")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    module.time = types.SimpleNamespace(perf_counter=CLOCKS[clock_name])
    return module.bench


def _read_yaml(relative: str) -> dict:
    path = REPO_ROOT / "configs" / relative
    data = yaml.safe_load(path.read_text())
    if not isinstance(data, dict):
        raise ValueError(f"{path}: expected a mapping of settings, got {type(data).__name__}")  # noqa: TRY004 (project rule: ValueError)
    return data


def read_group(relative: str) -> dict:
    """A config group file with the files of its ``defaults`` list merged in first (Hydra's order
    for ``[other, _self_]``: the named files, then the file's own keys), ``defaults`` dropped."""
    data = _read_yaml(relative)
    merged: dict = {}
    folder = str(Path(relative).parent)
    for entry in data.pop("defaults", []):
        if entry != "_self_":
            merged.update(read_group(f"{folder}/{entry}.yaml"))
    merged.update(data)
    return merged


def search_settings(mcts_settings: dict, num_simulations: int | None):
    """The frozen settings of the search a flat ``mcts`` config names (``algorithm``, default
    ``puct``; ``mcts.settings_from``), with ``num_simulations`` when given."""
    values = dict(mcts_settings)
    name = values.pop("algorithm", "puct")
    overrides = {} if num_simulations is None else {"num_simulations": num_simulations}
    return settings_from(name, values, **overrides)


def network_config(spec: str) -> NetworkConfig:
    """A network from a name (``b4c32``, ``mlp128x2``: ``NetworkConfig.from_name``, other fields at
    their defaults), or from ``configs/network/<name>.yaml`` when that file exists, or from a path
    to such a yaml file.

    Raises:
        ValueError: if ``spec`` is neither a readable yaml file nor a valid network name.
    """
    path = Path(spec)
    if path.suffix in (".yaml", ".yml"):
        if not path.is_file():
            raise ValueError(f"network file {spec!r} does not exist")
        return NetworkConfig.from_dict(yaml.safe_load(path.read_text()))
    named = REPO_ROOT / "configs" / "network" / f"{spec}.yaml"
    if named.is_file():
        return NetworkConfig.from_dict(_read_yaml(f"network/{spec}.yaml"))
    return NetworkConfig.from_name(spec)


def sample_positions(game, batch_size: int, rng: np.random.Generator, max_plies: int = 12):
    """``batch_size`` non-terminal positions reached by 0..``max_plies`` uniformly random plies.

    Returns ``(states [B, S] int64, observations [B, C, H, W] float32, legal_mask [B, A] bool)``.
    A row whose random move would end the game keeps the position before that move.
    """
    states = game.initial_states(batch_size)
    target = rng.integers(0, max_plies + 1, size=batch_size)
    for ply in range(max_plies):
        rows = np.flatnonzero(target > ply)
        if rows.size == 0:
            break
        legal = game.legal_mask(states[rows])
        keys = np.where(legal, rng.random(legal.shape), -1.0)
        stepped = game.step(states[rows], np.argmax(keys, axis=1).astype(np.int64))
        live = ~game.terminal(stepped)
        states[rows[live]] = stepped[live]
        target[rows[~live]] = ply  # stop there
    return states, game.observation(states), game.legal_mask(states)


#: Clocks of ``--clock``: seconds of CPU time of this process, or wall-clock seconds.
CLOCKS = {"cpu": time.process_time, "wall": time.perf_counter}


def bench_run(
    game_name: str,
    batch_size: int,
    config: NetworkConfig,
    puct,
    selfplay_settings: dict,
    seconds: float,
    warmup_moves: int,
    seed: int,
    tree_bench,
    clock=time.process_time,
    inference: str = DEFAULT_INFERENCE,
) -> dict:
    """One entry of ``runs`` (see the module docstring for the keys and units).

    Self-play and the bare network alternate move by move: after each self-play move (one ply of
    the ``B`` games), as many bare ``evaluate`` calls on ``B`` sampled positions as the move made
    network calls are timed apart, then as many runs of the network in its bound buffers (ONNX
    Runtime only). Moves are played until self-play alone has taken ``seconds`` (at least one
    move). The tree benchmark then runs for ``seconds``.
    """
    game = games.make(game_name)
    torch.manual_seed(seed)
    model = build_network(config, game.observation_shape, game.num_actions)
    if inference == "onnx":  # as the actors: networks.export.onnx_runtime_evaluator, one thread
        evaluator = onnx_runtime_evaluator(model, game, config, threads=1)
    else:
        evaluator = TorchEvaluator(model, device="cpu")
    _, observations, legal = sample_positions(game, batch_size, np.random.default_rng(seed))
    bound = evaluator.bind_buffers(batch_size) if hasattr(evaluator, "bind_buffers") else None
    runner = SelfPlayRunner(
        game,
        evaluator.evaluate,  # as the actors hand it over: the compiled loop runs the network in place
        puct,
        batch_size,
        np.random.default_rng(seed + 1),
        settings=SelfPlaySettings(
            temperature=1.0,
            temperature_plies=int(selfplay_settings["temperature_plies"]),
            random_opening_plies=int(selfplay_settings.get("random_opening_plies", 0)),
        ),
    )
    for _ in range(3):  # warm-up: first network calls
        evaluator.evaluate(observations, legal)
    runner.play_moves(warmup_moves)  # warm-up: Numba compilation (or cache load)
    forward_calls = forward_seconds = bound_seconds = 0.0
    stats = SelfPlayStats()
    while stats.seconds < seconds:
        calls_before = evaluator.num_calls
        start = clock()
        _, move_stats = runner.play_moves(1)
        move_stats.seconds = clock() - start
        stats.merge(move_stats)
        calls = evaluator.num_calls - calls_before
        if bound is not None:  # the bound run first: its buffers are also the search's
            bound.observations[:] = observations
            start = clock()
            for _ in range(calls):
                bound.run_rows(batch_size)
            bound_seconds += clock() - start
        start = clock()
        for _ in range(calls):
            evaluator.evaluate(observations, legal)
        forward_seconds += clock() - start
        forward_calls += calls
    forward = forward_calls * batch_size / forward_seconds
    selfplay = stats.leaf_evaluations / stats.seconds
    tree = tree_bench(game_name, batch_size, puct.num_simulations, uniform_evaluator, seconds)
    return {
        "game": game_name,
        "batch_size": batch_size,
        "network": config.name,
        "search": algorithm_of(puct).name,
        "inference": inference,
        "simulations_per_move": puct.num_simulations,
        "forward_evals_per_s": round(forward),
        "selfplay_evals_per_s": round(selfplay),
        "ratio": round(selfplay / forward, 3),
        "bound_evals_per_s": round(forward_calls * batch_size / bound_seconds) if bound is not None else None,
        "ratio_bound": round(selfplay * bound_seconds / (forward_calls * batch_size), 3) if bound is not None else None,
        "positions_per_s": round(stats.moves / stats.seconds, 1),
        "tree_sims_per_s": round(tree),
        "selfplay_moves_measured": stats.moves,
        "selfplay_seconds": round(stats.seconds, 2),
        "evals_per_simulation": round(stats.leaf_evaluations / stats.simulations, 3),
    }


def _number_argument(convert, accept, expected: str):
    """An argparse type: ``convert(text)``, refused with "expected EXPECTED, got ..." unless ``accept``."""

    def parse(text: str):
        try:
            value = convert(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"expected {expected}, got {text!r}") from None
        if not accept(value):
            raise argparse.ArgumentTypeError(f"expected {expected}, got {value}")
        return value

    return parse


_positive_int = _number_argument(int, lambda value: value >= 1, "a positive integer")
_non_negative_int = _number_argument(int, lambda value: value >= 0, "an integer >= 0")
_positive_seconds = _number_argument(float, lambda value: bool(np.isfinite(value) and value > 0), "a number of seconds > 0")


def pin_to_one_core(cpu: int | None) -> int | None:
    """Pin this process to ``cpu`` (default: the lowest CPU it may run on); returns the CPU.

    ``cpu = -1`` leaves the affinity alone and returns None.

    Raises:
        ValueError: if ``cpu`` is not one of the CPUs this process may run on.
    """
    if cpu == -1 or not hasattr(os, "sched_setaffinity"):
        return None
    allowed = sorted(os.sched_getaffinity(0))
    if cpu is None:
        cpu = allowed[0]
    if cpu not in allowed:
        raise ValueError(f"--cpu {cpu}: expected one of the CPUs this process may use, {allowed}, or -1")
    os.sched_setaffinity(0, {cpu})
    return cpu


def parse_args(argv: list[str] | None) -> argparse.Namespace:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--games", nargs="+", choices=GAME_CHOICES, default=list(GAME_CHOICES))
    parser.add_argument(
        "--batch-sizes",
        nargs="+",
        type=_positive_int,
        default=[1, 64, 256],
        help="games searched together (B); default 1 64 256",
    )
    parser.add_argument(
        "--simulations",
        type=_positive_int,
        default=None,
        help="simulations per move (default: num_simulations of the game's mcts config)",
    )
    parser.add_argument(
        "--seconds",
        type=_positive_seconds,
        default=3.0,
        help="timing window of each measurement, in seconds (default 3)",
    )
    parser.add_argument(
        "--warmup-moves",
        type=_positive_int,
        default=1,
        help="self-play moves played before timing (default 1: compilation)",
    )
    parser.add_argument(
        "--connect4-network",
        default="b4c32",
        help="name (b4c32, b6c64) or yaml path of the Connect Four network",
    )
    parser.add_argument(
        "--tictactoe-network", default="mlp128x2", help="name or yaml path of the tic-tac-toe network"
    )
    parser.add_argument("--cpu", type=int, default=None,
                        help="CPU to pin to (default: the lowest allowed one; -1: do not pin)")
    parser.add_argument("--clock", choices=tuple(CLOCKS), default="cpu",
                        help="cpu (default): CPU seconds of this process, robust when other jobs share the core; "
                        "wall: wall-clock seconds")
    parser.add_argument("--seed", type=_non_negative_int, default=0)
    parser.add_argument(
        "--inference", choices=("onnx", "torch"), default=DEFAULT_INFERENCE,
        help=f"the network's runtime (default {DEFAULT_INFERENCE}, the self-play actors')",
    )
    parser.add_argument(
        "--json",
        type=Path,
        default=DEFAULT_JSON,
        help=f"also write the JSON here (default {DEFAULT_JSON.relative_to(REPO_ROOT)}); '-' for stdout only",
    )
    return parser.parse_args(argv)


def main(argv: list[str] | None = None) -> dict:
    args = parse_args(argv)
    try:
        networks = {
            "connect4": network_config(args.connect4_network),
            "tictactoe": network_config(args.tictactoe_network),
        }
        cpu = pin_to_one_core(args.cpu)
    except ValueError as error:
        raise SystemExit(f"bench_selfplay: {error}") from None
    torch.set_num_threads(1)
    clock = CLOCKS[args.clock]
    tree_bench = tree_bench_with_clock(args.clock)
    runs = []
    for game_name in args.games:
        _, mcts_file, selfplay_file = DEFAULT_CONFIGS[game_name]
        puct = search_settings(read_group(mcts_file), args.simulations)
        selfplay_settings = read_group(selfplay_file)
        for batch_size in args.batch_sizes:
            run = bench_run(
                game_name,
                batch_size,
                networks[game_name],
                puct,
                selfplay_settings,
                args.seconds,
                args.warmup_moves,
                args.seed,
                tree_bench,
                clock,
                args.inference,
            )
            runs.append(run)
            print(json.dumps(run), file=sys.stderr, flush=True)
    report = {
        "runs": runs,
        "settings": {
            "seconds_per_measurement": args.seconds,
            "clock": args.clock,
            "warmup_moves": args.warmup_moves,
            "seed": args.seed,
            "cpu": cpu,
            "torch_threads": torch.get_num_threads(),
            "numba_threads": int(os.environ["NUMBA_NUM_THREADS"]),
        },
        "machine": {
            "processor": platform.processor() or platform.machine(),
            "python": platform.python_version(),
            "torch": torch.__version__,
        },
    }
    text = json.dumps(report, indent=2)
    print(text)
    if str(args.json) != "-":
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return report


if __name__ == "__main__":
    main()
