"""Where a Pig value is wrong, whether self-play ever sees those states, and how close the labelled
decisions are; prints JSON.

A search is only as right as the value it backs up, and Pig's roll and hold are often a few
thousandths of win probability apart. This script puts three things side by side:

* ``value``: the network's value at every turn-start state (turn total 0, every pair of scores)
  against the solver's ``2 P - 1`` (Neller & Presser 2004), as the mean error (bias) and the mean
  absolute error per band of the two scores (``--band`` wide, own score first), and in the corner
  where both scores are at least ``--corner`` against the rest;
* ``buffer``: for each replay buffer (a run's ``checkpoints/buffer_*.npz``), how many of its
  positions lie in that corner and how far its value targets are from the solver's values there and
  elsewhere: a corner that holds almost no positions is one the value extrapolates into;
* ``near_ties``: how many decisions of each labelled set (``arena.positions.pig``) have a gap in
  win probability between roll and hold below each threshold, the decisions a value with a given
  error cannot order.

    python scripts/experiments/pig_value_coverage.py --model networks/shipped/pig
    python scripts/experiments/pig_value_coverage.py --model runs/pig/best --buffer runs/pig/checkpoints/buffer_00049366.npz

Output: ``{"model", "corner", "value": {"corner": {"n", "bias", "mae"}, "elsewhere": {...}, "bands":
{"OWN_LOW-OWN_HIGH,OPP_LOW-OPP_HIGH": {"n", "bias", "mae"}}}, "buffer": {path: {"positions",
"corner": {"n", "share", "bias", "mae"}, "elsewhere": {...}}}, "near_ties": {set: {"decisions",
"below": {threshold: count}}}}``; ``value`` is absent without ``--model``.
"""

from __future__ import annotations

import argparse
import json
import sys
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

import games
from arena.positions.pig import SET_NAMES, labelled_set

#: gaps in win probability between roll and hold counted by ``near_ties``
TIE_THRESHOLDS = (0.0005, 0.001, 0.002, 0.005, 0.01)


def error_summary(errors: np.ndarray) -> dict:
    """``{"n", "bias", "mae"}`` of an ``[N]`` array of value errors (``bias``, ``mae`` None when empty)."""
    errors = np.asarray(errors, dtype=np.float64)
    if errors.size == 0:
        return {"n": 0, "bias": None, "mae": None}
    return {"n": int(errors.size), "bias": float(errors.mean()), "mae": float(np.abs(errors).mean())}


def turn_start_report(game, evaluate_fn, band: int, corner: int) -> dict:
    """The value's error at every turn-start state ``(own, opponent, 0)``, own and opponent in
    ``[0, goal)``: per band of ``band`` points of each score, in the corner (both at least
    ``corner``) and elsewhere. ``evaluate_fn`` is ``(observations, legal_mask) -> (priors, values)``."""
    solver = games.knowledge(game).exact_solver()
    own, opponent = (a.ravel() for a in np.meshgrid(np.arange(game.goal), np.arange(game.goal), indexing="ij"))
    turn_total = np.zeros_like(own)
    states = game.states_at(own, opponent, turn_total)
    _, values = evaluate_fn(game.observation(states), game.legal_mask(states))
    errors = np.asarray(values, dtype=np.float64).reshape(-1) - (
        2 * solver.win_probabilities(own, opponent, turn_total) - 1
    )
    in_corner = (own >= corner) & (opponent >= corner)
    bands = {}
    for low_own in range(0, game.goal, band):
        for low_opp in range(0, game.goal, band):
            rows = (own // band == low_own // band) & (opponent // band == low_opp // band)
            key = f"{low_own}-{min(low_own + band, game.goal) - 1},{low_opp}-{min(low_opp + band, game.goal) - 1}"
            bands[key] = error_summary(errors[rows])
    return {"corner": error_summary(errors[in_corner]), "elsewhere": error_summary(errors[~in_corner]), "bands": bands}


def buffer_report(game, numbers: np.ndarray, targets: np.ndarray, corner: int) -> dict:
    """How many buffer positions ``numbers`` ``[N, 3]`` (own, opponent, turn total) lie in the corner
    and the error of their value ``targets`` ``[N]`` against the solver's ``2 P - 1``, there and elsewhere."""
    solver = games.knowledge(game).exact_solver()
    own, opponent, turn_total = numbers[:, 0], numbers[:, 1], numbers[:, 2]
    errors = np.asarray(targets, dtype=np.float64) - (2 * solver.win_probabilities(own, opponent, turn_total) - 1)
    in_corner = (own >= corner) & (opponent >= corner)
    corner_summary = error_summary(errors[in_corner])
    corner_summary["share"] = float(in_corner.mean()) if in_corner.size else 0.0
    return {"positions": len(targets), "corner": corner_summary, "elsewhere": error_summary(errors[~in_corner])}


def read_buffer(path: str) -> tuple[np.ndarray, np.ndarray]:
    """``(numbers [N, 3] int64, targets [N] float32)`` of a Pig replay buffer's training positions,
    read back from its thermometer planes (``games.pig.game``: cell ``c`` is 1 when the number
    is greater than ``c``)."""
    with np.load(path, allow_pickle=False) as data:
        observations = data["train/observations"]
        targets = data["train/values"]
    numbers = observations[:, :, 0, :].sum(axis=2).round().astype(np.int64)
    return numbers, targets


def near_tie_report(game, thresholds=TIE_THRESHOLDS) -> dict:
    """Per labelled set: the decisions where both moves are legal, and how many of them have a gap
    in win probability between roll and hold below each threshold."""
    out = {}
    for name in SET_NAMES:
        labelled = labelled_set(game, name)
        gaps = np.abs(labelled.values[:, 0] - labelled.values[:, 1])
        gaps = gaps[~np.isnan(gaps)]
        out[name] = {"decisions": int(gaps.size), "below": {f"{t:g}": int((gaps < t).sum()) for t in thresholds}}
    return out


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--model", help="a run's best/ folder, an export folder or a .pt file")
    parser.add_argument("--buffer", action="append", default=[], help="a Pig run's checkpoints/buffer_*.npz (repeatable)")
    parser.add_argument("--band", type=int, default=10, help="width of the score bands (default 10)")
    parser.add_argument("--corner", type=int, default=80, help="the corner: both scores at least this (default 80)")
    args = parser.parse_args(argv)
    game = games.make("pig")
    if not 1 <= args.band <= game.goal or not 0 <= args.corner < game.goal:
        parser.error(f"expected --band in [1, {game.goal}] and --corner in [0, {game.goal})")
    report: dict = {"model": args.model, "corner": args.corner}
    if args.model:
        from arena.model_player import load_model

        game, evaluate_fn = load_model(args.model, "pig", num_threads=1)
        if game.goal != 100 or game.die != 6:
            parser.error("expected a model of Pig to 100 with a six-sided die")
        report["value"] = turn_start_report(game, evaluate_fn, args.band, args.corner)
    report["buffer"] = {path: buffer_report(game, *read_buffer(path), args.corner) for path in args.buffer}
    report["near_ties"] = near_tie_report(game)
    print(json.dumps(report, indent=1))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
