"""Benchmark bare network forward passes: prints one JSON object.

For each network and batch size it reports ``forward_positions_per_s`` (positions per second of
``model(observations)`` alone, in ``torch.inference_mode``, input already a tensor on the device)
and ``evaluator_positions_per_s`` (``TorchEvaluator.evaluate`` with numpy in and out, masking
included: what the search sees), each also per process CPU second (``..._per_cpu_s``), which is the
steadier figure on a machine shared with other work. Positions are random 0/1 planes of the game's
observation shape. The bare forward runs the evaluator's own inference module (batch norm folded).

Defaults: CPU, ``torch.set_num_threads(1)`` (one self-play actor per core), the project's default
Connect Four network (``networks.config.CONNECT4_CPU_DEFAULT``) and tic-tac-toe MLP, batch sizes
1, 64 and 256, about 1 second per measurement.

With ``--onnx`` each network is also exported (``networks.export``) and run by ONNX Runtime on
the CPU with ``--threads`` intra-op threads (``networks.onnx_evaluator``, what ``play`` uses),
interleaved with the torch evaluator: ``onnx_evaluator_positions_per_s``, its ratio to the torch
evaluator, and the largest absolute difference of priors and values on the same inputs.

Examples::

    .venv/bin/python scripts/bench_network.py
    .venv/bin/python scripts/bench_network.py --threads 2 --connect4 b4c32,b6c64,b10c128
    .venv/bin/python scripts/bench_network.py --device cuda --connect4 b10c128 --batch-sizes 256,1024
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

import numpy as np
import torch

sys.path.insert(0, str(Path(__file__).resolve().parents[1]))

from networks import build_network  # noqa: E402
from networks.config import (  # noqa: E402
    CONNECT4_CPU_DEFAULT,
    CONNECT4_GPU_DEFAULT,
    TICTACTOE_DEFAULT,
    NetworkConfig,
)
from networks.evaluator import TorchEvaluator, device_from_config  # noqa: E402
from networks.model_utils import count_parameters  # noqa: E402

# Observation shapes and action counts of the games (games/tictactoe.py, games/connect4/game.py).
GAMES = {"connect4": ((2, 6, 7), 7), "tictactoe": ((2, 3, 3), 9)}


def _rate(fn, batch: int, seconds: float, device: torch.device) -> tuple[float, float]:
    """Positions per wall-clock second and per process CPU second of ``fn()`` (one call = ``batch``
    positions), after a warm-up. On a shared machine the CPU-second rate is the steadier figure."""
    for _ in range(3):
        fn()
    if device.type == "cuda":
        torch.cuda.synchronize(device)
    calls = 0
    start, start_cpu = time.perf_counter(), time.process_time()
    while True:
        fn()
        calls += 1
        if device.type == "cuda":
            torch.cuda.synchronize(device)
        elapsed = time.perf_counter() - start
        if elapsed >= seconds and calls >= 3:
            cpu = max(time.process_time() - start_cpu, 1e-9)
            return calls * batch / elapsed, calls * batch / cpu


def bench(
    config: NetworkConfig, game: str, batch_sizes, seconds: float, device, use_bf16, compile_model,
    onnx_threads: int | None = None,
) -> list:
    shape, actions = GAMES[game]
    torch.manual_seed(0)
    model = build_network(config, shape, actions)
    evaluator = TorchEvaluator(model, device=device, use_bf16=use_bf16, compile=compile_model)
    forward = evaluator._forward  # the (possibly compiled) module the evaluator calls
    generator = np.random.default_rng(0)
    onnx = _onnx_evaluator(model, config, game, onnx_threads) if onnx_threads else None
    runs = []
    for batch in batch_sizes:
        observations = generator.integers(0, 2, size=(batch, *shape)).astype(np.float32)
        legal = generator.random((batch, actions)) < 0.8
        legal[:, 0] = True
        inputs = torch.from_numpy(observations).to(evaluator.device)

        def bare(inputs=inputs):
            with (
                torch.inference_mode(),
                torch.autocast(evaluator.device.type, dtype=torch.bfloat16, enabled=evaluator.use_bf16),
            ):
                forward(inputs)

        forward_wall, forward_cpu = _rate(bare, batch, seconds, evaluator.device)
        evaluator_wall, evaluator_cpu = _rate(
            lambda o=observations, m=legal: evaluator.evaluate(o, m), batch, seconds, evaluator.device
        )
        run = {
            "game": game,
            "network": config.name,
            "parameters": count_parameters(model),
            "batch_size": batch,
            "forward_positions_per_s": round(forward_wall, 1),
            "evaluator_positions_per_s": round(evaluator_wall, 1),
            "forward_positions_per_cpu_s": round(forward_cpu, 1),
            "evaluator_positions_per_cpu_s": round(evaluator_cpu, 1),
        }
        if onnx is not None:
            onnx_wall, onnx_cpu = _rate(lambda o=observations, m=legal: onnx.evaluate(o, m), batch, seconds, device)
            torch_again, _ = _rate(
                lambda o=observations, m=legal: evaluator.evaluate(o, m), batch, seconds, evaluator.device
            )
            torch_priors, torch_values = evaluator.evaluate(observations, legal)
            onnx_priors, onnx_values = onnx.evaluate(observations, legal)
            run.update({
                "onnx_evaluator_positions_per_s": round(onnx_wall, 1),
                "onnx_evaluator_positions_per_cpu_s": round(onnx_cpu, 1),
                "onnx_over_torch_evaluator": round(onnx_wall / (0.5 * (evaluator_wall + torch_again)), 3),
                "onnx_max_abs_prior_difference": float(np.abs(np.asarray(onnx_priors) - torch_priors).max()),
                "onnx_max_abs_value_difference": float(np.abs(np.asarray(onnx_values) - torch_values).max()),
            })
        runs.append(run)
    return runs


def _onnx_evaluator(model, config: NetworkConfig, game: str, threads: int):
    """Export ``model`` to a temporary folder and open it with ONNX Runtime on the CPU."""
    import tempfile

    import games
    from networks.export import export_model
    from networks.onnx_evaluator import load_exported

    folder = Path(tempfile.mkdtemp(prefix="bench_onnx_"))
    export_model(model.cpu(), config, game, games.make(game).version, folder)
    return load_exported(folder, providers=["CPUExecutionProvider"], num_threads=threads)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--threads", type=int, default=1, help="torch.set_num_threads (default 1)")
    parser.add_argument("--device", default="cpu", help="cpu (default), cuda, cuda:N or auto")
    parser.add_argument("--batch-sizes", default="1,64,256", help="comma-separated (default 1,64,256)")
    parser.add_argument("--seconds", type=float, default=1.0, help="seconds per measurement (default 1.0)")
    parser.add_argument(
        "--connect4",
        default=CONNECT4_CPU_DEFAULT.name,
        help=f"comma-separated Connect Four network names (default {CONNECT4_CPU_DEFAULT.name})",
    )
    parser.add_argument("--tictactoe", default=TICTACTOE_DEFAULT.name, help="tic-tac-toe network names")
    parser.add_argument(
        "--bf16", choices=["auto", "on", "off"], default="auto", help="bf16 autocast (GPU only)"
    )
    parser.add_argument("--compile", action="store_true", help="torch.compile the model")
    parser.add_argument("--onnx", action="store_true", help="also time ONNX Runtime (CPU) at equal inputs")
    args = parser.parse_args(argv)
    if args.threads < 1:
        parser.error(f"--threads: expected an int >= 1, got {args.threads}")
    try:
        batch_sizes = [int(b) for b in args.batch_sizes.split(",")]
        device = device_from_config(args.device)
    except ValueError as error:
        parser.error(str(error))
    if min(batch_sizes) < 1:
        parser.error(f"--batch-sizes: expected positive ints, got {args.batch_sizes}")
    torch.set_num_threads(args.threads)
    use_bf16 = {"auto": None, "on": True, "off": False}[args.bf16]

    def named(name: str, defaults: NetworkConfig) -> NetworkConfig:
        # Keep the default's head sizes for the named size when it is the default itself.
        for candidate in (CONNECT4_CPU_DEFAULT, CONNECT4_GPU_DEFAULT, TICTACTOE_DEFAULT):
            if candidate.name == name:
                return candidate
        return NetworkConfig.from_name(name, value_hidden=defaults.value_hidden)

    runs = []
    for name in filter(None, args.connect4.split(",")):
        config = named(name, CONNECT4_CPU_DEFAULT)
        runs += bench(config, "connect4", batch_sizes, args.seconds, device, use_bf16, args.compile,
                      args.threads if args.onnx else None)
    for name in filter(None, args.tictactoe.split(",")):
        config = named(name, TICTACTOE_DEFAULT)
        runs += bench(config, "tictactoe", batch_sizes, args.seconds, device, use_bf16, args.compile,
                      args.threads if args.onnx else None)
    result = {
        "benchmark": "network_forward",
        "device": str(device),
        "device_name": torch.cuda.get_device_name(device) if device.type == "cuda" else platform.processor(),
        "threads": args.threads,
        "torch": torch.__version__,
        "seconds_per_measurement": args.seconds,
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "cpu_count": os.cpu_count(),
        "defaults": {
            "connect4_cpu": CONNECT4_CPU_DEFAULT.name,
            "connect4_gpu": CONNECT4_GPU_DEFAULT.name,
            "tictactoe": TICTACTOE_DEFAULT.name,
        },
        "runs": runs,
    }
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    sys.exit(main())
