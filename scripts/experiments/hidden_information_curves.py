"""NashConv against iterations for CFR, CFR+ and external-sampling MCCFR on Kuhn and Leduc poker,
with the PIMC player's NashConv as a line: the figure and table of docs/results/hidden_information.md.

For each game, each solver runs once (MCCFR with ``--seed``) and its average policy's exact
NashConv (``search/best_response.py``, chips) is recorded at log-spaced iteration counts up to
``--max-iterations`` (MCCFR: ``--mccfr-max-iterations``; its iterations are far cheaper). PIMC's
policy (``search/pimc.py``, every consistent world) gives one number per game. Also recorded: the
uniform policy's NashConv and the game value (player 0's expected chips) of the last CFR+ policy.

Writes ``OUT_DIR/hidden_information.png`` (log-log, one panel per game, matplotlib) and
``OUT_DIR/hidden_information.json``; prints the JSON too.

Usage: ``python scripts/experiments/hidden_information_curves.py [--max-iterations 10000]
[--mccfr-max-iterations 1000000] [--seed 0] [--out-dir docs/results]``
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path

import numpy as np

sys.path.insert(0, str(Path(__file__).resolve().parents[2]))

from games.atomic import atomic_write, atomic_write_json
from search.best_response import expected_value, nash_conv
from search.cfr import CFRSolver
from search.game_tree import build_tree
from search.pimc import pimc_policy

GAMES = ("kuhn", "leduc")
SOLVERS = ("cfr", "cfr+", "mccfr")
LABELS = {"cfr": "CFR", "cfr+": "CFR+", "mccfr": "external-sampling MCCFR"}


def checkpoints(maximum: int) -> list[int]:
    """1, 2, 5, 10, 20, 50, ... up to ``maximum`` (included)."""
    points = []
    scale = 1
    while scale <= maximum:
        points.extend(p for p in (scale, 2 * scale, 5 * scale) if p <= maximum)
        scale *= 10
    if points[-1] != maximum:
        points.append(maximum)
    return points


def curve(tree, algorithm: str, maximum: int, seed: int) -> dict:
    solver = CFRSolver(tree, algorithm, rng=np.random.default_rng(seed))
    iterations, values = [], []
    start = time.perf_counter()
    for point in checkpoints(maximum):
        solver.iterate(point - solver.iterations)
        iterations.append(point)
        values.append(nash_conv(tree, solver.average_policy()))
    return {"iterations": iterations, "nash_conv": values, "seconds": round(time.perf_counter() - start, 2),
            "policy": solver.average_policy()}


def measure(max_iterations: int, mccfr_max_iterations: int, seed: int) -> dict:
    result = {"seed": seed, "games": {}}
    for name in GAMES:
        tree = build_tree(name)
        entry = {"title": tree.game.title, "uniform_nash_conv": nash_conv(tree, tree.uniform_policy()), "curves": {}}
        for algorithm in SOLVERS:
            maximum = mccfr_max_iterations if algorithm == "mccfr" else max_iterations
            data = curve(tree, algorithm, maximum, seed)
            policy = data.pop("policy")
            entry["curves"][algorithm] = data
            if algorithm == "cfr+":
                entry["cfr_plus_game_value"] = expected_value(tree, policy, policy)
        pimc = pimc_policy(tree)
        entry["pimc_nash_conv"] = nash_conv(tree, pimc)
        entry["pimc_game_value"] = expected_value(tree, pimc, pimc)
        result["games"][name] = entry
    return result


def plot(result: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    figure, axes = plt.subplots(1, len(GAMES), figsize=(11, 4.2))
    for axis, name in zip(axes, GAMES):
        entry = result["games"][name]
        for algorithm in SOLVERS:
            data = entry["curves"][algorithm]
            axis.loglog(data["iterations"], data["nash_conv"], marker="o", markersize=3, label=LABELS[algorithm])
        axis.axhline(entry["pimc_nash_conv"], color="black", linestyle="--",
                     label=f"PIMC ({entry['pimc_nash_conv']:.3f})")
        axis.axhline(entry["uniform_nash_conv"], color="grey", linestyle=":",
                     label=f"uniform ({entry['uniform_nash_conv']:.3f})")
        axis.set_title(entry["title"])
        axis.set_xlabel("iterations")
        axis.set_ylabel("NashConv (chips)")
        axis.grid(True, which="major", alpha=0.3)
        axis.legend(fontsize=8)
    figure.tight_layout()
    atomic_write(path, lambda handle: figure.savefig(handle, format="png", dpi=110))
    plt.close(figure)


def main(argv=None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--max-iterations", type=int, default=10_000)
    parser.add_argument("--mccfr-max-iterations", type=int, default=1_000_000)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--out-dir", type=Path, default=Path(__file__).resolve().parents[2] / "docs" / "results")
    args = parser.parse_args(argv)
    if args.max_iterations < 1 or args.mccfr_max_iterations < 1:
        parser.error("--max-iterations and --mccfr-max-iterations: expected >= 1")
    if not args.out_dir.is_dir():
        parser.error(f"--out-dir: folder {args.out_dir} does not exist")
    result = measure(args.max_iterations, args.mccfr_max_iterations, args.seed)
    plot(result, args.out_dir / "hidden_information.png")
    atomic_write_json(args.out_dir / "hidden_information.json", result)
    print(json.dumps(result))
    return 0


if __name__ == "__main__":
    sys.exit(main())
