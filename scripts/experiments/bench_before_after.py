"""Four benchmark scripts run in two checkouts, interleaved: does any like-for-like figure drop?

Two worktrees of this repository, ``--before DIR`` and ``--after DIR``, each with its own
``.venv`` (``bash scripts/setup.sh`` inside each), run their own ``scripts/bench_mcts.py``,
``scripts/bench_uct.py``, ``scripts/bench_puct_single.py`` and ``scripts/bench_selfplay.py``
(their command lines differ where the scripts do). Each run is a fresh process pinned to one core
(``taskset -c --cpu``); a round runs every script once in the before tree and then once in the
after tree (A B, script by script), so load on the machine falls on both alike; ``--rounds``
rounds. One untimed warm-up round of tiny runs first (Numba compilation, caches).

Each script runs through a small loader (``LOADER``) that imports it as a module and calls its
``main(argv)``; the loader can do two things to a script, both to make the two trees measure
the same thing:

* ``cpu_clock``: the script's ``time.perf_counter`` becomes ``time.process_time`` (CPU seconds of
  the process and all its threads), as ``scripts/bench_selfplay.py`` does to ``bench_mcts.bench``,
  so that other jobs on the core do not count; used for ``bench_mcts.py`` (both trees) and for the
  older ``bench_puct_single.py``, which time wall-clock seconds only. ``bench_selfplay.py`` and the
  newer ``bench_puct_single.py`` time CPU seconds themselves, ``bench_uct.py`` reports both.
* ``connect4_puct``: ``bench_selfplay.py`` measures Connect Four with ``configs/mcts/default.yaml``
  (PUCT, 64 simulations), the search both trees can run, instead of the game's configured one.

Figures compared (all rates, higher is faster), each a pair of one key in each tree's JSON:

* ``bench_mcts``: tree simulations per second of the batched PUCT search with the free evaluator,
  per game and batch size, with observations encoded (``tree_sims_per_s``) and without
  (``tree_sims_per_s_states``);
* ``bench_uct``: the project's UCT simulations per CPU second in self-play, per game (OpenSpiel's
  C++ ``MCTSBot`` in the same run as the control);
* ``bench_puct_single``: searches per CPU second of the one-position PUCT search with a random b4c32
  through ONNX Runtime, 200 simulations: one leaf per network call with the network alone and
  averaged with the mirror image, and 8 leaves per call with virtual loss (mirror-averaged). The
  after tree's product search runs ONNX Runtime on one thread without spinning; the ``_ort_default``
  figure pairs the before tree's search with the after tree's on ONNX Runtime's own default
  session (a thread per core, spinning), the session the before tree used;
* ``bench_selfplay``: self-play leaf evaluations per CPU second, bare network evaluations per CPU
  second (the control), their ratio, self-play plies per CPU second and PUCT tree simulations per
  CPU second, per game and batch size, torch on one thread.

Prints one JSON object: the commits, the settings, the load average before and after, and per
figure the value of each round in each tree, their medians, the after/before ratio of each round,
the ratios' median, minimum and maximum, and ``drop`` (median ratio below 0.95 and every round's
ratio below 1); the same as a markdown table on stderr. ``--json PATH`` also writes the JSON
there, ``--raw DIR`` keeps every run's own JSON.

Example::

    .venv/bin/python scripts/experiments/bench_before_after.py --before ../bench-before \\
        --after ../bench-after --rounds 3 --cpu 1 --json docs/results/bench_before_after.json
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path

#: Runs a benchmark script as a module: ``python -c LOADER SCRIPT FLAGS -- ARGS...`` where FLAGS is
#: a comma-separated subset of ``cpu_clock,connect4_puct`` (or ``-``); see the module docstring.
LOADER = """
import importlib.util, sys, time, types
script, flags, _, *argv = sys.argv[1:]
flags = set(flags.split(",")) - {"-"}
sys.argv = [script, *argv]
spec = importlib.util.spec_from_file_location("benchmark_under_test", script)
module = importlib.util.module_from_spec(spec)
spec.loader.exec_module(module)
if "cpu_clock" in flags:
    module.time = types.SimpleNamespace(
        perf_counter=time.process_time, process_time=time.process_time, sleep=time.sleep
    )
if "connect4_puct" in flags:
    network, _, selfplay = module.DEFAULT_CONFIGS["connect4"]
    module.DEFAULT_CONFIGS["connect4"] = (network, "mcts/default.yaml", selfplay)
module.main(argv)
"""

GAMES = ("tictactoe", "connect4")
BATCH_SIZES = (1, 64, 256)


def commands(quick: bool) -> dict:
    """Per script: ``{"flags": {tree: flags}, "args": {tree: [...]}}``, tree ``before`` or ``after``.

    ``quick`` shrinks every run (a check of the driver, not a measurement).
    """
    seconds = "0.05" if quick else "0.5"
    batch_sizes = ["1", "8"] if quick else [str(b) for b in BATCH_SIZES]
    mcts = ["--games", *GAMES, "--batch-sizes", *batch_sizes, "--simulations", "200", "--min-seconds", seconds]
    uct = ["--simulations", "400", "--rounds", "2", "--seconds", seconds]
    single = ["--simulations", "200", "--rounds", "1", "--positions", "1" if quick else "4", "--leaves-per-call", "8"]
    selfplay = ["--games", *GAMES, "--batch-sizes", *batch_sizes, "--seconds", "0.1" if quick else "1", "--json", "-"]
    return {
        "bench_mcts": {"flags": {"before": "cpu_clock", "after": "cpu_clock"}, "args": {"before": mcts, "after": mcts}},
        "bench_uct": {"flags": {"before": "-", "after": "-"}, "args": {"before": uct, "after": uct}},
        "bench_puct_single": {
            "flags": {"before": "cpu_clock", "after": "-"},
            "args": {"before": [*single, "--symmetries"], "after": [*single, "--thread-settings", "0", "--clock", "cpu"]},
        },
        "bench_selfplay": {
            "flags": {"before": "connect4_puct", "after": "connect4_puct"},
            "args": {"before": selfplay, "after": [*selfplay, "--inference", "torch"]},
        },
    }


def figures(script: str, tree: str, report: dict) -> dict[str, float]:
    """The like-for-like figures (rates, higher is faster) of one run's JSON ``report``.

    Raises:
        ValueError: if ``script`` is not one of the four compared scripts.
    """
    out: dict[str, float] = {}
    if script == "bench_mcts":
        for run in report["runs"]:
            key = f"{run['game']}_b{run['batch_size']}"
            out[f"mcts_tree_sims_per_s_{key}"] = run["tree_sims_per_s"]
            out[f"mcts_tree_sims_per_s_states_{key}"] = run["tree_sims_per_s_states"]
    elif script == "bench_uct":
        for game, entry in report["games"].items():
            out[f"uct_project_sims_per_cpu_s_{game}"] = entry["project"]["simulations_per_cpu_s"]
            out[f"uct_openspiel_sims_per_cpu_s_{game}"] = entry["openspiel"]["simulations_per_cpu_s"]
            out[f"uct_project_over_openspiel_{game}"] = entry["project_over_openspiel"]
    elif script == "bench_puct_single":
        entry = report["connect4"]
        if tree == "before":
            pairs = {
                "one_leaf": "before_one_leaf_per_call",
                "one_leaf_mirror": "one_leaf_per_call_symmetries",
                "one_leaf_mirror_ort_default": "one_leaf_per_call_symmetries",
                "leaves8_mirror": "minibatch_symmetries",
            }
        else:
            pairs = {
                "one_leaf": "search",
                "one_leaf_mirror": "search_mirror",
                "one_leaf_mirror_ort_default": "threads_0",
                "leaves8_mirror": "minibatch_8_mirror",
            }
        for name, key in pairs.items():
            out[f"single_searches_per_cpu_s_{name}"] = 1.0 / entry[key]["seconds_per_search"]
    elif script == "bench_selfplay":
        for run in report["runs"]:
            key = f"{run['game']}_b{run['batch_size']}"
            for field in ("selfplay_evals_per_s", "forward_evals_per_s", "ratio", "positions_per_s", "tree_sims_per_s"):
                out[f"selfplay_{field}_{key}"] = run[field]
    else:
        raise ValueError(f"expected one of bench_mcts, bench_uct, bench_puct_single, bench_selfplay, got {script!r}")
    return out


def run_script(tree: Path, script: str, flags: str, args: list[str], cpu: int, raw: Path | None, label: str) -> dict:
    """One run of the benchmark ``script`` of ``tree`` (its file in the scripts folder) pinned to ``cpu``; returns its JSON object.

    Raises:
        RuntimeError: if the run fails or prints no JSON object.
    """
    command = ["taskset", "-c", str(cpu), str(tree / ".venv" / "bin" / "python"), "-c", LOADER,
               str(tree / "scripts" / f"{script}.py"), flags, "--", *args]
    result = subprocess.run(command, cwd=tree, capture_output=True, text=True, check=False)
    if result.returncode != 0:
        raise RuntimeError(f"{label}: exit status {result.returncode}\n{result.stderr[-3000:]}")
    text = result.stdout
    start = text.find("{")
    if start < 0:
        raise RuntimeError(f"{label}: expected a JSON object on stdout, got {text[-500:]!r}")
    report = json.loads(text[start:])
    if raw is not None:
        (raw / f"{label}.json").write_text(json.dumps(report, indent=2) + "\n")
    return report


def summarise(values: dict[str, dict[str, list[float]]]) -> dict:
    """Per figure: rounds, medians, after/before ratio per round and its median, min and max."""
    out = {}
    for name in sorted(values["before"]):
        before, after = values["before"][name], values["after"].get(name, [])
        if len(after) != len(before):
            continue
        ratios = [a / b for a, b in zip(after, before)]
        median = statistics.median(ratios)
        out[name] = {
            "before": [round(v, 3) for v in before],
            "after": [round(v, 3) for v in after],
            "before_median": round(statistics.median(before), 3),
            "after_median": round(statistics.median(after), 3),
            "ratios": [round(r, 3) for r in ratios],
            "ratio_median": round(median, 3),
            "ratio_min": round(min(ratios), 3),
            "ratio_max": round(max(ratios), 3),
            "drop": bool(median < 0.95 and max(ratios) < 1.0),
        }
    return out


def markdown(summary: dict) -> str:
    """The figures as a markdown table: figure, before and after medians, median ratio (range)."""
    lines = ["| figure | before | after | after/before, median (range over rounds) |", "| --- | --- | --- | --- |"]
    for name, entry in summary.items():
        lines.append(
            f"| {name} | {entry['before_median']:,.6g} | {entry['after_median']:,.6g} | "
            f"{entry['ratio_median']:.2f} ({entry['ratio_min']:.2f}-{entry['ratio_max']:.2f}){' drop' if entry['drop'] else ''} |"
        )
    return "\n".join(lines)


def git_commit(tree: Path) -> str:
    """The commit checked out in ``tree``."""
    return subprocess.run(["git", "-C", str(tree), "rev-parse", "HEAD"], capture_output=True, text=True, check=True).stdout.strip()


def main(argv: list[str] | None = None) -> dict:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--before", type=Path, required=True, help="worktree of the before commit, with .venv")
    parser.add_argument("--after", type=Path, required=True, help="worktree of the after commit, with .venv")
    parser.add_argument("--rounds", type=int, default=3, help="timed rounds (>= 1), each before then after")
    parser.add_argument("--cpu", type=int, default=1, help="the core every run is pinned to")
    parser.add_argument("--scripts", nargs="+", default=["bench_mcts", "bench_uct", "bench_puct_single", "bench_selfplay"])
    parser.add_argument("--quick", action="store_true", help="tiny runs: a check of the driver, not a measurement")
    parser.add_argument("--no-warmup", action="store_true", help="skip the untimed warm-up round")
    parser.add_argument("--json", type=Path, help="also write the JSON object here")
    parser.add_argument("--raw", type=Path, help="folder for every run's own JSON")
    args = parser.parse_args(argv)
    if args.rounds < 1:
        parser.error(f"expected --rounds >= 1, got {args.rounds}")
    trees = {"before": args.before.resolve(), "after": args.after.resolve()}
    for tree in trees.values():
        if not (tree / ".venv" / "bin" / "python").is_file():
            parser.error(f"expected a worktree with .venv/bin/python, got {tree}")
    if args.raw is not None:
        args.raw.mkdir(parents=True, exist_ok=True)
    plan = commands(args.quick)
    if not args.no_warmup:  # compilation and caches only: the tiny runs of --quick
        warmup = commands(True)
        for script in args.scripts:
            for side, tree in trees.items():
                run_script(tree, script, warmup[script]["flags"][side], warmup[script]["args"][side], args.cpu, None, f"warmup_{script}_{side}")
    load_start = os.getloadavg()
    values: dict[str, dict[str, list[float]]] = {"before": {}, "after": {}}
    for round_index in range(args.rounds):
        for script in args.scripts:
            for side, tree in trees.items():
                label = f"round{round_index}_{script}_{side}"
                start = time.perf_counter()
                report = run_script(tree, script, plan[script]["flags"][side], plan[script]["args"][side], args.cpu, args.raw, label)
                for name, value in figures(script, side, report).items():
                    values[side].setdefault(name, []).append(float(value))
                print(f"{label}: {time.perf_counter() - start:.0f} s wall, load average {os.getloadavg()[0]:.1f}",
                      file=sys.stderr, flush=True)
    summary = {
        "commits": {side: git_commit(tree) for side, tree in trees.items()},
        "settings": {"rounds": args.rounds, "cpu": args.cpu, "quick": args.quick, "commands": plan},
        "load_average_1_5_15": {"start": [round(x, 1) for x in load_start], "end": [round(x, 1) for x in os.getloadavg()]},
        "figures": summarise(values),
    }
    text = json.dumps(summary, indent=2)
    print(markdown(summary["figures"]), file=sys.stderr)
    print(text)
    if args.json is not None:
        args.json.parent.mkdir(parents=True, exist_ok=True)
        args.json.write_text(text + "\n")
    return summary


if __name__ == "__main__":
    main()
