"""Benchmark the exact Connect Four solver on Pascal Pons' test sets; prints one JSON object.

Usage::

    python scripts/bench_solver.py                       # every set, up to 60 s each, no book
    python scripts/bench_solver.py --positions 200 --time-cap 20 --sets Test_L3_R1 Test_L2_R1
    python scripts/bench_solver.py --book                # with the shipped opening book
    python scripts/bench_solver.py --optimal-moves --positions 20   # perfect-play move choice

``--optimal-moves`` benchmarks choosing a perfect move instead, on the project's own labelled sets
(``arena/positions/connect4``): for each position, from an empty transposition table, the CPU time
of scoring every column (``Solver.analyze``) and of finding the columns that keep the score
(``Solver.optimal_moves``: one solve, then a null-window test per column), and whether both agree
with the labels. Prints the mean of each and their ratio per set.

For each file of ``../shared/data/connect4`` (relative to the repository; an absent folder gives
``"sets": {}`` and a ``"skipped"`` reason), in Pons' order: the mean wall time per position in
microseconds, the mean number of nodes searched, and how many positions got exactly the stored
score. As in Pons' own benchmark (his ``main.cpp``), positions are parsed before the clock starts
and one transposition table (fresh per set) is kept across the positions of a set. Positions are
solved in growing chunks (1, 2, 4, ... 256 per compiled call, while a chunk is expected to take
under a quarter of the time left) until ``--positions`` are done or the set has used
``--time-cap`` seconds; one slow position can overrun the cap (a search is not interrupted). ``mean_us`` is wall time (Pons' measure);
``mean_cpu_us`` is this process's CPU time, which shows how much of the wall time went to other
processes on a shared machine (pinning fixes the core, not the competition for it). Numba compilation (cached on disk) happens before any
timing. The process pins itself to one CPU and to one Numba thread. Pons' reference figures
(``PONS``) are those he publishes for his C++ solver (one core, no book).
"""

from __future__ import annotations

import argparse
import json
import os
import platform
import sys
import time
from pathlib import Path

os.environ.setdefault("NUMBA_NUM_THREADS", "1")
for _var in ("OMP_NUM_THREADS", "OPENBLAS_NUM_THREADS", "MKL_NUM_THREADS"):
    os.environ.setdefault(_var, "1")

REPO_ROOT = Path(__file__).resolve().parents[1]
DATA_DIR = REPO_ROOT.parent / "shared" / "data" / "connect4"
sys.path.insert(0, str(REPO_ROOT))

#: name -> (Pons' mean time per position in microseconds, low and high, Pons' mean nodes)
PONS = {
    "Test_L3_R1": ((7, 11), 51),
    "Test_L2_R1": ((60, 110), 450),
    "Test_L2_R2": ((7_000, 9_000), 39_900),
    "Test_L1_R1": ((400, 700), 3_300),
    "Test_L1_R2": ((230_000, 230_000), 1_200_000),
    "Test_L1_R3": ((12_000_000, 12_000_000), None),
}


def bench_set(path: Path, max_positions: int | None, time_cap: float, use_book: bool) -> dict:
    from games.connect4.solver import Solver, parse_moves

    rows = [line.split() for line in path.read_text().splitlines() if line.strip()]
    if max_positions is not None:
        rows = rows[:max_positions]
    parsed = [parse_moves(r[0]) for r in rows]
    expected = [int(r[1]) for r in rows]
    solver = Solver(use_book=use_book)
    solver.solve("4455")  # warm the dispatcher
    solver.reset()
    done = 0
    chunk = 1
    elapsed = 0.0
    cpu = 0.0
    nodes = 0
    correct = 0
    while done < len(parsed) and elapsed < time_cap:
        part = parsed[done : done + chunk]
        t0, c0 = time.perf_counter(), time.process_time()
        scores, node_counts = solver.solve_parsed(part)
        elapsed += time.perf_counter() - t0
        cpu += time.process_time() - c0
        nodes += int(node_counts.sum())
        correct += sum(int(s) == e for s, e in zip(scores, expected[done : done + chunk]))
        done += len(part)
        # grow the chunk while a quarter of the remaining cap covers it at the mean rate so far
        per_position = max(elapsed / done, 1e-9)
        chunk = max(1, min(chunk * 2, 256, int((time_cap - elapsed) / 4 / per_position)))
    (pons_low, pons_high), pons_nodes = PONS.get(path.name, ((None, None), None))
    mean_us = elapsed / done * 1e6 if done else None
    mean_nodes = nodes / done if done else None
    out = {
        "positions": done,
        "positions_in_file": len(rows) if max_positions is None else None,
        "mean_us": round(mean_us, 2) if mean_us is not None else None,
        "mean_cpu_us": round(cpu / done * 1e6, 2) if done else None,
        "mean_nodes": round(mean_nodes, 1) if mean_nodes is not None else None,
        "correct": correct,
        "seconds": round(elapsed, 3),
    }
    if pons_low is not None and mean_us is not None:
        out["pons_us"] = [pons_low, pons_high]
        out["time_vs_pons_low"] = round(mean_us / pons_low, 3)
    if pons_nodes is not None and mean_nodes is not None:
        out["pons_nodes"] = pons_nodes
        out["nodes_vs_pons"] = round(mean_nodes / pons_nodes, 3)
    return out


def bench_optimal_moves(name: str, max_positions: int | None, time_cap: float) -> dict:
    """Mean CPU seconds of ``analyze`` and ``optimal_moves`` per position of a labelled set."""
    from arena.positions.connect4 import load_position_set
    from games.connect4.solver import Solver

    labelled = load_position_set(name)
    solver = Solver(use_book=False)
    solver.optimal_moves("4455")  # warm the dispatchers
    solver.analyze("4455")
    limit = len(labelled) if max_positions is None else min(max_positions, len(labelled))
    analyze_cpu = optimal_cpu = 0.0
    correct = done = 0
    while done < limit and analyze_cpu + optimal_cpu < time_cap:
        moves = labelled.moves[done]
        solver.reset()
        c0 = time.process_time()
        scores = solver.analyze(moves)
        analyze_cpu += time.process_time() - c0
        solver.reset()
        c0 = time.process_time()
        score, optimal = solver.optimal_moves(moves)
        optimal_cpu += time.process_time() - c0
        best = max(x for x in scores if x is not None)
        correct += int(
            score == best == labelled.values[done]
            and optimal.tolist() == labelled.optimal_mask[done].tolist()
            and [x == best for x in scores] == labelled.optimal_mask[done].tolist()
        )
        done += 1
    return {
        "positions": done,
        "analyze_mean_ms": round(analyze_cpu / done * 1e3, 3) if done else None,
        "optimal_moves_mean_ms": round(optimal_cpu / done * 1e3, 3) if done else None,
        "speedup": round(analyze_cpu / optimal_cpu, 2) if optimal_cpu > 0 else None,
        "correct": correct,
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--positions", type=int, default=None, help="positions per set (default all)")
    parser.add_argument(
        "--time-cap", type=float, default=60.0, help="seconds of solving per set (default 60)"
    )
    parser.add_argument("--book", action="store_true", help="use the shipped opening book")
    parser.add_argument("--sets", nargs="*", default=None, help="set names (default every Test_* file)")
    parser.add_argument("--cpu", type=int, default=None, help="CPU to pin to (default the last allowed one)")
    parser.add_argument(
        "--optimal-moves",
        action="store_true",
        help="time perfect-move choice (analyze vs optimal_moves) on the project's labelled sets; "
        "--sets then names those sets (default begin_easy middle_medium begin_medium)",
    )
    args = parser.parse_args(argv)
    if args.positions is not None and args.positions < 1:
        parser.error("--positions must be at least 1")

    pinned = None
    if hasattr(os, "sched_setaffinity"):
        allowed = sorted(os.sched_getaffinity(0))
        pinned = args.cpu if args.cpu is not None else allowed[-1]
        os.sched_setaffinity(0, {pinned})

    result: dict = {
        "benchmark": "connect4_solver",
        "data_dir": str(DATA_DIR),
        "book": bool(args.book),
        "pinned_cpu": pinned,
        "numba_threads": os.environ.get("NUMBA_NUM_THREADS"),
        "python": platform.python_version(),
        "machine": platform.machine(),
        "load_average_1min": round(os.getloadavg()[0], 2) if hasattr(os, "getloadavg") else None,
        "timing": "compiled search only; parsing and compilation excluded; TT kept across a set",
        "sets": {},
    }
    if args.optimal_moves:
        from arena.positions.connect4 import SET_NAMES

        result.update(benchmark="connect4_optimal_moves", data_dir="arena/positions/connect4", book=False)
        result["timing"] = "CPU time per position, empty transposition table before each call"
        for name in args.sets or ["begin_easy", "middle_medium", "begin_medium"]:
            if name not in SET_NAMES:
                parser.error(f"--sets: unknown labelled set {name!r}; expected one of {', '.join(SET_NAMES)}")
            result["sets"][name] = bench_optimal_moves(name, args.positions, args.time_cap)
            print(f"{name}: {result['sets'][name]}", file=sys.stderr, flush=True)
        print(json.dumps(result, indent=2))
        return 0
    if not DATA_DIR.is_dir():
        result["skipped"] = f"data folder {DATA_DIR} not found"
        print(json.dumps(result, indent=2))
        return 0
    import numba

    result["numba"] = numba.__version__
    names = args.sets if args.sets else [n for n in PONS if (DATA_DIR / n).is_file()]
    names += [] if args.sets else sorted(p.name for p in DATA_DIR.glob("Test_*") if p.name not in PONS)
    for name in names:
        path = DATA_DIR / name
        if not path.is_file():
            result["sets"][name] = {"skipped": "file not found"}
            continue
        result["sets"][name] = bench_set(path, args.positions, args.time_cap, args.book)
        print(f"{name}: {result['sets'][name]}", file=sys.stderr, flush=True)
    print(json.dumps(result, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
