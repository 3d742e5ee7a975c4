"""How varied a model's self-play games are: prints one JSON object.

Plays batched self-play with a model's weights in this process (one ``selfplay.worker.SelfPlayWorker``,
one thread, ONNX Runtime, root noise and an evaluation cache as in a training run) under each
``--setting``, and reports per setting: games finished, the evaluation cache's hit rate (the share
of network evaluations that repeat a position this actor already evaluated with these weights),
distinct 8-ply openings among the finished games, and positions recorded against distinct ones
(observations compared byte for byte). A hit rate near 1 and few distinct positions mean the games
repeat each other: extra positions then add little to the replay buffer
(docs/results/learning_efficiency.md, "The 60-minute run with the evaluation cache").

Each ``--setting`` is ``KEY=VALUE`` of ``SelfPlayWorker``'s own arguments
(``temperature_plies``, ``random_opening_plies``, ``temperature``); ``default`` is the run's
settings (``configs/selfplay/default.yaml``, ``configs/mcts/default.yaml``).

Example::

    .venv/bin/python scripts/experiments/selfplay_diversity.py --model runs/c4/best --setting default \\
        --setting random_opening_plies=4 --calls 12
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import torch
import yaml

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from mcts import PUCTConfig  # noqa: E402
from networks.checkpoint import load_model  # noqa: E402
from selfplay.runner import SelfPlaySettings  # noqa: E402
from selfplay.worker import SelfPlayWorker, WorkerSettings  # noqa: E402

REPO = Path(__file__).resolve().parents[2]

#: the settings ``--setting`` may change, with their types
SETTINGS = {"temperature_plies": int, "random_opening_plies": int, "temperature": float}


def run_defaults() -> tuple[dict, dict]:
    """The self-play and search settings of a default run: ``configs/selfplay/default.yaml`` and
    ``configs/mcts/default.yaml``."""
    read = lambda name: yaml.safe_load((REPO / "configs" / name / "default.yaml").read_text())  # noqa: E731
    return read("selfplay"), read("mcts")


def parse_setting(text: str) -> dict:
    """``default`` or ``KEY=VALUE`` to the keyword arguments it changes.

    Raises:
        ValueError: for a key outside ``SETTINGS`` or a value of the wrong type.
    """
    if text == "default":
        return {}
    key, sep, value = text.partition("=")
    if not sep or key not in SETTINGS:
        raise ValueError(f"--setting: expected 'default' or KEY=VALUE with KEY in {sorted(SETTINGS)}, got {text!r}")
    try:
        return {key: SETTINGS[key](value)}
    except ValueError as error:
        raise ValueError(f"--setting {text!r}: {key} expects a {SETTINGS[key].__name__}") from error


def measure(model_path: str, settings: list[str], games: int, calls: int, cache_size: int, seed: int) -> dict:
    """The report of the module docstring for ``settings`` (see ``parse_setting``)."""
    model, metadata = load_model(Path(model_path) / "model.pt" if Path(model_path).is_dir() else model_path)
    weights = {name: value.numpy().copy() for name, value in model.state_dict().items()}
    sp, mc = run_defaults()
    puct = PUCTConfig(**{key: mc[key] for key in ("num_simulations", "c_puct", "fpu_value", "dirichlet_alpha", "dirichlet_epsilon")})
    rows = []
    for text in settings:
        kwargs = {key: sp[key] for key in SETTINGS} | parse_setting(text)
        worker_settings = WorkerSettings(
            games, sp["moves_per_call"], device="cpu", eval_cache_size=cache_size, inference="onnx",
            play=SelfPlaySettings(**kwargs),
        )
        worker = SelfPlayWorker(metadata.game_name, metadata.config, puct, worker_settings, seed=seed, incarnation=1)
        records, hits, lookups = [], 0, 0
        start = time.process_time()
        for call in range(calls):
            finished, stats = worker.play(0, weights if call == 0 else None)
            records += finished
            hits, lookups = hits + stats.eval_cache_hits, lookups + stats.eval_cache_lookups
        positions = [observation.tobytes() for record in records for observation in record.observations]
        rows.append({
            "setting": text,
            "games": len(records),
            "eval_cache_hit_rate": round(hits / lookups, 4) if lookups else None,
            "distinct_8_ply_openings": len({tuple(record.actions[:8]) for record in records}),
            "positions": len(positions),
            "distinct_positions": len(set(positions)),
            "cpu_s": round(time.process_time() - start, 1),
        })
    return {"model": str(model_path), "game": metadata.game_name, "games_per_call": games, "calls": calls,
            "plies_per_call": sp["moves_per_call"], "simulations": mc["num_simulations"], "cache_slots": cache_size,
            "settings": rows}


def main(argv=None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--model", required=True, help="a run's best/ folder or a model.pt file")
    parser.add_argument("--setting", action="append", dest="settings", help="default or KEY=VALUE (repeatable)")
    parser.add_argument("--games", type=int, default=run_defaults()[0]["games_per_actor"], help="games played at once")
    parser.add_argument("--calls", type=int, default=12, help="play calls of selfplay.moves_per_call plies each")
    parser.add_argument("--cache-size", type=int, default=65536, help="evaluation cache slots (>= 1)")
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args(argv)
    if min(args.games, args.calls, args.cache_size) < 1:
        parser.error("--games, --calls and --cache-size: expected >= 1")
    torch.set_num_threads(1)
    try:
        report = measure(args.model, args.settings or ["default"], args.games, args.calls, args.cache_size, args.seed)
    except (OSError, ValueError) as error:
        parser.error(str(error))
    print(json.dumps(report, indent=1))
    return report


if __name__ == "__main__":
    main()
