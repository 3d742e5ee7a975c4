"""Train several configurations for the same wall clock and compare their mistake rates.

Each configuration (a name and Hydra overrides) is trained with ``train`` once per seed, one run
after another (never two at once on the same CPUs; ``--side-by-side`` below), for ``--minutes`` of wall clock each
(``run.max_minutes``). Every new best model's mistake rate against perfect play is read back from
the run's TensorBoard scalars (``arena/mistake_rate/SET``), with its time in seconds since the
``train`` command started (Ray start-up included). The script writes ``compare.json`` (every run's
curve, its command seconds, steps and games, its final best model's rates and, with
``--at-minutes``, the last rate measured at or before each mark) and ``compare.png`` (one
panel per labelled set, mistake rate against wall-clock seconds, a line per run), then prints the
JSON.

Examples::

    .venv/bin/python scripts/compare_runs.py --game tictactoe --minutes 1 --seeds 0 1 \\
        --config baseline= --config gumbel="mcts.algorithm=gumbel" --out runs/compare_ttt
    .venv/bin/python scripts/compare_runs.py --game connect4 --minutes 60 --at-minutes 15 30 60 \\
        --config puct= --config gumbel="mcts.algorithm=gumbel mcts.num_simulations=32" --out runs/c4
    .venv/bin/python scripts/compare_runs.py --game connect4 --minutes 15 --side-by-side \\
        --config default= --config gumbel="mcts.algorithm=gumbel mcts.num_simulations=32" --out runs/c4_sbs
    .venv/bin/python scripts/compare_runs.py --game connect4 --minutes 60 --seeds 1 --side-by-side \\
        --at-minutes 15 30 60 --snapshot-minutes 15 30 45 --config default= --config "z=selfplay.value_target=z" \\
        --out runs/cmp_z60_s1

After the runs, each configuration's final best model is compared with the first configuration's
of the same seed on the same labelled positions (``scripts/model_accuracy.py`` with both models,
``--paired-sims`` budgets, ``--paired-sets`` sets, default the game's own): both mistake rates and
McNemar's exact test of the positions where exactly one of them erred, per seed and pooled over the
seeds (the discordant counts summed; under "no difference" each discordant position is a fair coin
whichever seed it comes from). ``--paired-sims`` with no value skips the comparison.

Overrides of one configuration are separated by spaces. ``--nice N`` runs the trainings at a
lower priority (``nice -n N``) on a shared machine. ``--side-by-side`` runs the configurations of
one seed at the same time instead, each pinned to its own CPU (``taskset -c I``, configuration I on
CPU I) with ``ray.num_cpus`` set to the machine's CPU count so that every run starts the actors a
whole-machine run would: A and B then meet the same machine state at every moment, at the price of
one CPU each. ``--snapshot-minutes 15 30 45`` copies each run's ``best/`` to
``OUT/NAME/seedS_best15`` (and so on) when that many minutes of its command have passed, so that the
models of those moments can be measured afterwards (``scripts/model_accuracy.py --model ...``);
a mark the run does not reach is not copied.
"""

from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import time
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path

REPO = Path(__file__).resolve().parents[1]
sys.path.insert(0, str(REPO))

from arena.elo import mcnemar_p_value  # noqa: E402

MISTAKE_PREFIX = "arena/mistake_rate/"
#: tries of one run when Ray's start-up times out (before any training)
STARTUP_ATTEMPTS = 3
#: seconds between two looks at a running training for its snapshots
SNAPSHOT_POLL_SECONDS = 5.0


def parse_config(text: str) -> tuple[str, list[str]]:
    """``NAME=OVERRIDES`` (overrides separated by spaces) to ``(name, [override, ...])``.

    Raises:
        ValueError: without ``=`` or with an empty name.
    """
    if "=" not in text:
        raise ValueError(f"expected NAME=OVERRIDES, got {text!r}")
    name, overrides = text.split("=", 1)
    if not name or "/" in name:
        raise ValueError(f"expected a configuration name without '/', got {name!r}")
    return name, overrides.split()


def read_curves(run_dir: Path, start_wall: float) -> dict:
    """Mistake-rate curves and final counters of one run from its TensorBoard files.

    Returns:
        ``{"mistake_rates": {set: [[seconds since start_wall, rate], ...]}, "steps": int | None,
        "games": int | None}``.
    """
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    curves: dict[str, list[list[float]]] = {}
    games = steps = None
    board = run_dir / "tensorboard"
    if not board.exists():
        return {"mistake_rates": curves, "steps": steps, "games": games}
    events = EventAccumulator(str(board), size_guidance={"scalars": 0})
    events.Reload()
    for tag in events.Tags()["scalars"]:
        scalars = events.Scalars(tag)
        if tag.startswith(MISTAKE_PREFIX):
            curves[tag[len(MISTAKE_PREFIX):]] = [[round(e.wall_time - start_wall, 2), float(e.value)] for e in scalars]
        elif tag == "selfplay/games" and scalars:
            games = int(scalars[-1].value)
        if scalars:
            steps = max(steps or 0, int(scalars[-1].step))
    return {"mistake_rates": curves, "steps": steps, "games": games}


def rate_at(curve: list[list[float]], seconds: float) -> float | None:
    """The last rate measured at or before ``seconds`` (None before the first measurement)."""
    rate = None
    for t, value in curve:
        if t <= seconds:
            rate = value
    return rate


def train_command(game: str, overrides: list[str], seed: int, minutes: float, run_dir: Path, nice: int = 0,
                  cpu: int | None = None) -> list[str]:
    """The ``train`` command line of one run; ``cpu``: pin it to that CPU (``--side-by-side``)."""
    command = [
        sys.executable, "-c", "from trainer.cli import main; main()",
        f"game={game}", f"run.max_minutes={minutes}", f"run.seed={seed}", "run.live_status=false",
        f"hydra.run.dir={run_dir}",
    ]
    if cpu is not None and not any(o.startswith("ray.num_cpus=") for o in overrides):
        # the actors a whole-machine run starts (Ray would count only the one CPU it may use)
        command.append(f"ray.num_cpus={os.cpu_count()}")
    command += overrides
    if nice:
        command = ["nice", "-n", str(nice), *command]
    if cpu is not None:
        command = ["taskset", "-c", str(cpu), *command]
    return command


def snapshot_best(run_dir: Path, dest: Path, tries: int = 5) -> int | None:
    """Copy ``run_dir/best`` to ``dest`` whole: into ``dest.tmp``, then renamed.

    The trainer replaces the files of ``best/`` one by one on a promotion; a copy during which any of
    them changed (modification time or size) is thrown away and taken again, so that the copy holds
    one model's files.

    Returns:
        The copied model's ``best_version`` (from ``model.json``; -1 without one), or None when
        ``best/`` does not exist yet or changed during every try.
    """
    source = run_dir / "best"

    def stamp() -> dict:
        return {f.name: (f.stat().st_mtime_ns, f.stat().st_size) for f in source.iterdir() if f.is_file()}

    tmp = dest.with_name(dest.name + ".tmp")
    for _ in range(tries):
        if not source.is_dir():
            return None
        try:
            before = stamp()
            shutil.rmtree(tmp, ignore_errors=True)
            shutil.copytree(source, tmp)
            if stamp() != before:
                raise FileNotFoundError("best/ changed during the copy")
        except (FileNotFoundError, shutil.Error):
            time.sleep(1.0)
            continue
        shutil.rmtree(dest, ignore_errors=True)
        os.replace(tmp, dest)
        try:
            return int(json.loads((dest / "model.json").read_text())["extra"]["best_version"])
        except (OSError, ValueError, KeyError, TypeError):
            return -1
    shutil.rmtree(tmp, ignore_errors=True)
    return None


def run_with_snapshots(command: list[str], env: dict, log_path: Path, run_dir: Path, dest_prefix: Path,
                       snapshot_minutes: list[float], poll_seconds: float = SNAPSHOT_POLL_SECONDS
                       ) -> tuple[int, str, dict[str, int]]:
    """Run ``command`` (its output to ``log_path``), copying ``run_dir/best`` to
    ``{dest_prefix}{M}`` once ``M`` minutes have passed since it started (``snapshot_best``; a mark
    is taken at the first look after it at which ``best/`` exists).

    Returns:
        ``(return code, the log, {"M": copied best_version})``.
    """
    marks = sorted(snapshot_minutes)
    taken: dict[str, int] = {}
    start = time.time()
    with open(log_path, "w") as log:
        process = subprocess.Popen(command, cwd=REPO, env=env, stdout=log, stderr=subprocess.STDOUT, text=True)
        while True:
            try:
                process.wait(timeout=poll_seconds)
                break
            except subprocess.TimeoutExpired:
                pass
            elapsed = time.time() - start
            for mark in marks:
                key = f"{mark:g}"
                if key not in taken and elapsed >= 60 * mark:
                    version = snapshot_best(run_dir, Path(f"{dest_prefix}{key}"))
                    if version is not None:
                        taken[key] = version
    return process.returncode, log_path.read_text(), taken


def run_one(game: str, name: str, overrides: list[str], seed: int, minutes: float, out: Path, nice: int,
            cpu: int | None = None, snapshot_minutes: list[float] | None = None) -> dict:
    run_dir = out / name / f"seed{seed}"
    command = train_command(game, overrides, seed, minutes, run_dir, nice, cpu)
    env = dict(os.environ, PYTHONPATH=str(REPO) + os.pathsep + os.environ.get("PYTHONPATH", ""))
    (out / name).mkdir(parents=True, exist_ok=True)
    for attempt in range(1, STARTUP_ATTEMPTS + 1):
        start = time.time()
        returncode, log, snapshots = run_with_snapshots(
            command, env, out / name / f"seed{seed}.log", run_dir, out / name / f"seed{seed}_best",
            snapshot_minutes or [])
        seconds = time.time() - start
        if returncode == 0 or "timed out during startup" not in log:
            break
        # Ray waits 30 s for its raylet: on a loaded machine start-up can fail before training starts
        shutil.rmtree(run_dir, ignore_errors=True)
    result = {"seed": seed, "returncode": returncode, "command_seconds": round(seconds, 1),
              "attempts": attempt, "snapshots": snapshots}
    result.update(read_curves(run_dir, start))
    return result


def paired_comparison(model_a: Path, model_b: Path, sims: list[int], sets: list[str] | None, nice: int = 0) -> dict:
    """Both models on the same positions with McNemar's test: ``scripts/model_accuracy.py --model A
    --model B`` in a process of its own; its JSON.

    Raises:
        RuntimeError: if the script fails (its stderr in the message).
    """
    command = [sys.executable, str(REPO / "scripts" / "model_accuracy.py"), "--model", str(model_a),
               "--model", str(model_b), "--sims", *[str(s) for s in sims]]
    for name in sets or []:
        command += ["--set", name]
    if nice:
        command = ["nice", "-n", str(nice), *command]
    done = subprocess.run(command, cwd=REPO, capture_output=True, text=True)
    if done.returncode != 0:
        raise RuntimeError(f"model_accuracy.py failed ({done.returncode}): {done.stderr.strip()[-2000:]}")
    return json.loads(done.stdout)


def pooled_mcnemar(per_seed: list[dict]) -> dict:
    """McNemar's exact test over several seeds' comparisons: the discordant counts of each budget and
    set summed, then ``arena.elo.mcnemar_p_value``.

    Args:
        per_seed: ``model_accuracy.py`` outputs' ``"mcnemar"`` dicts, ``{budget: {set: {...}}}``.

    Returns:
        ``{budget: {set: {"positions", "mistakes_a", "mistakes_b", "only_a", "only_b", "p_value"}}}``
        for the budgets and sets every seed has.
    """
    if not per_seed:
        return {}
    pooled: dict = {}
    for budget in per_seed[0]:
        for name in per_seed[0][budget]:
            rows = [entry[budget][name] for entry in per_seed if name in entry.get(budget, {})]
            if len(rows) != len(per_seed):
                continue
            total = {key: sum(row[key] for row in rows) for key in ("positions", "mistakes_a", "mistakes_b", "only_a", "only_b")}
            total["p_value"] = mcnemar_p_value(total["only_a"], total["only_b"])
            pooled.setdefault(budget, {})[name] = total
    return pooled


def paired_comparisons(out: Path, names: list[str], seeds: list[int], sims: list[int], sets: list[str] | None,
                       nice: int = 0) -> dict:
    """Every configuration after the first against the first, per seed and pooled (module docstring).

    Returns:
        ``{"NAME_vs_BASE": {"seedS": {"rates_a", "rates_b", "mcnemar"}, "pooled": {...}}}``; a seed
        whose runs left no ``best/`` is left out.
    """
    base = names[0]
    report = {}
    for name in names[1:]:
        entry, per_seed = {}, []
        for seed in seeds:
            model_a, model_b = out / base / f"seed{seed}" / "best", out / name / f"seed{seed}" / "best"
            if not (model_a.is_dir() and model_b.is_dir()):
                continue
            measured = paired_comparison(model_a, model_b, sims, sets, nice)
            entry[f"seed{seed}"] = {"rates_a": measured["rates"], "rates_b": measured["second_rates"],
                                    "mcnemar": measured["mcnemar"]}
            per_seed.append(measured["mcnemar"])
        entry["pooled"] = pooled_mcnemar(per_seed)
        report[f"{name}_vs_{base}"] = entry
    return report


def plot(results: dict, path: Path) -> None:
    import matplotlib

    matplotlib.use("Agg")
    import matplotlib.pyplot as plt

    sets = sorted({s for runs in results.values() for run in runs for s in run["mistake_rates"]})
    if not sets:
        return
    fig, axes = plt.subplots(1, len(sets), figsize=(5 * len(sets), 4), squeeze=False)
    colours = plt.rcParams["axes.prop_cycle"].by_key()["color"]
    for axis, name in zip(axes[0], sets):
        for index, (config, runs) in enumerate(results.items()):
            for run in runs:
                curve = run["mistake_rates"].get(name)
                if not curve:
                    continue
                xs, ys = zip(*curve)
                style = "-" if run["seed"] == runs[0]["seed"] else "--"
                axis.plot(xs, [100 * y for y in ys], style, marker="o", markersize=3,
                          color=colours[index % len(colours)], label=f"{config} seed {run['seed']}")
        axis.set_title(f"mistake rate: {name}")
        axis.set_xlabel("wall-clock seconds since the command started")
        axis.set_ylabel("mistakes (%)")
        axis.grid(alpha=0.3)
    axes[0][0].legend(fontsize=7)
    fig.tight_layout()
    tmp = path.with_suffix(".tmp.png")
    fig.savefig(tmp, dpi=110)
    os.replace(tmp, path)


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--game", default="tictactoe")
    parser.add_argument("--minutes", type=float, default=1.0, help="run.max_minutes of every run")
    parser.add_argument("--seeds", type=int, nargs="+", default=[0, 1])
    parser.add_argument("--config", action="append", required=True, help="NAME=OVERRIDES (space separated)")
    parser.add_argument("--at-minutes", type=float, nargs="*", default=None,
                        help="also report the last rate at or before these minutes since each command started")
    parser.add_argument("--out", type=Path, required=True)
    parser.add_argument("--nice", type=int, default=0)
    parser.add_argument("--snapshot-minutes", type=float, nargs="*", default=None,
                        help="copy each run's best/ to OUT/NAME/seedS_bestM when M minutes of its command have passed")
    parser.add_argument("--side-by-side", action="store_true",
                        help="run the configurations of a seed at once, configuration I pinned to CPU I")
    parser.add_argument("--paired-sims", type=int, nargs="*", default=[0],
                        help="budgets of the paired comparison of final best models (none: skip it)")
    parser.add_argument("--paired-sets", nargs="*", default=None,
                        help="sets of the paired comparison (default: the game's own labelled sets)")
    args = parser.parse_args(argv)
    configs = [parse_config(text) for text in args.config]
    if any(mark <= 0 for mark in args.snapshot_minutes or []):
        parser.error(f"--snapshot-minutes: expected minutes > 0, got {args.snapshot_minutes}")
    if args.side_by_side and len(configs) > (os.cpu_count() or 1):
        parser.error(f"--side-by-side: expected at most {os.cpu_count()} configurations (one per CPU), "
                     f"got {len(configs)}")
    args.out.mkdir(parents=True, exist_ok=True)
    marks = args.at_minutes or []
    results: dict[str, list[dict]] = {name: [] for name, _ in configs}
    for seed in args.seeds:  # seeds outermost: configurations interleaved against machine drift
        if args.side_by_side:
            with ThreadPoolExecutor(len(configs)) as pool:
                runs = [pool.submit(run_one, args.game, name, overrides, seed, args.minutes, args.out, args.nice, cpu,
                                    args.snapshot_minutes)
                        for cpu, (name, overrides) in enumerate(configs)]
                for (name, _), run in zip(configs, runs):
                    results[name].append(run.result())
            continue
        for name, overrides in configs:
            results[name].append(run_one(args.game, name, overrides, seed, args.minutes, args.out, args.nice,
                                         snapshot_minutes=args.snapshot_minutes))
    summary = {}
    for name, runs in results.items():
        summary[name] = {}
        for run in runs:
            entry = {"final": {s: curve[-1][1] for s, curve in run["mistake_rates"].items() if curve},
                     "command_seconds": run["command_seconds"]}
            for mark in marks:
                entry[f"at_{mark:g}min"] = {s: rate_at(curve, 60 * mark) for s, curve in run["mistake_rates"].items()}
            summary[name][f"seed{run['seed']}"] = entry
    report = {
        "game": args.game, "minutes": args.minutes, "seeds": args.seeds, "nice": args.nice,
        "side_by_side": args.side_by_side, "snapshot_minutes": args.snapshot_minutes or [],
        "configs": {name: overrides for name, overrides in configs}, "cpu_count": os.cpu_count(),
        "load_average_at_end": os.getloadavg(), "summary": summary, "runs": results,
    }
    if args.paired_sims and len(configs) > 1:
        report["paired"] = paired_comparisons(
            args.out, [name for name, _ in configs], args.seeds, args.paired_sims, args.paired_sets, args.nice
        )
    tmp = args.out / "compare.json.tmp"
    tmp.write_text(json.dumps(report, indent=1))
    os.replace(tmp, args.out / "compare.json")
    plot(results, args.out / "compare.png")
    print(json.dumps(report))
    return report


if __name__ == "__main__":
    main()
