"""Soak test (memory must return to its baseline): run ``train`` for N minutes and watch the memory of every process.

``train`` (default ``game=tictactoe``, its normal config) runs in its own session; every
``--interval`` seconds the script reads, from /proc, the resident memory (VmRSS) of every process
of that session (the driver with the learner, the raylet, the GCS, the self-play, replay-buffer and
arena actors, Ray's helper processes), the Ray object store's use as Ray counts it (``ray memory
--stats-only`` against the run's GCS: the bytes of the objects the plasma store holds now, in
whole MiB, and their number), and the run's progress (newest checkpoint's step and games). The
raylet's touched shared memory (RssShmem) is recorded beside it for reference only: it counts the
pages of the plasma store's shared-memory file the raylet has ever touched, a high-water mark that
does not fall when objects are freed, so it is not the store's use. At the end the run gets SIGINT
(it writes a checkpoint and stops), SIGKILL if it has not stopped a minute later.

Growth is reported per role and in total, from the first sample after ``--warmup`` minutes to the
last sample, and as the largest sample after the warm-up against the level at the warm-up (our bar:
under 10% for the total resident memory; the object store within 10% or 1 MiB, the resolution of its figure).

With ``--kill-every MIN MAX`` the run also gets ``kill -9`` (SIGKILL to its whole session) at a
seeded random moment every MIN to MAX minutes and is resumed (``train resume=RUN``) at once. At
the end the script checks, on the run's own files, that every resume continued:

* no repeated game id in the final buffer (``selfplay.replay_buffer.repeated_game_ids`` on the
  newest checkpoint's buffer file: an id in two separate runs of positions is two games);
* counters monotone: every checkpoint seen during the soak has step, games, positions, gates,
  promotions and the actor incarnations at least those of the one seen before;
* TensorBoard steps unique: every ``train/`` scalar has each step once, read as TensorBoard reads
  the folder (``EventAccumulator``; a resume's ``purge_step`` drops re-logged steps).

Prints one JSON object; the exit status is 0 when the memory bar and every check hold::

    .venv/bin/python scripts/soak.py                       # 30 minutes, tic-tac-toe
    .venv/bin/python scripts/soak.py --minutes 10 --warmup 3 --run-dir /tmp/soak
    .venv/bin/python scripts/soak.py --minutes 5 -- game=connect4 selfplay.games_per_actor=16
    .venv/bin/python scripts/soak.py --minutes 120 --warmup 30 --kill-every 10 20 -- game=connect4
    .venv/bin/python scripts/soak.py --judge report.json   # the bar again, on a saved report's samples
"""

from __future__ import annotations

import argparse
import json
import os
import random
import re
import signal
import statistics
import subprocess
import sys
import tempfile
import time
import warnings
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))
if str(REPO_ROOT / "scripts") not in sys.path:  # the kill-and-resume trials' process helpers
    sys.path.insert(0, str(REPO_ROOT / "scripts"))

from kill_resume_trials import session_processes

#: counters that never go back from one checkpoint to the next, resumes included
MONOTONE_COUNTERS = (
    "step", "games", "positions", "gates", "promotions", "actor_incarnations", "arena_incarnations",
)
#: the object store's growth passes while at most this many MiB, whatever its relative size
#: (``ray memory`` reports whole MiB, so one MiB is its resolution)
OBJECT_STORE_SLACK_MIB = 1.0
#: ``ray memory --stats-only``'s line with the store's use
_PLASMA_LINE = re.compile(r"Plasma memory usage (\d+) MiB, (\d+) objects")

#: roles by the start of a process's command line (Ray names actor processes ``ray::Class``)
ROLES = (
    ("ray::_SelfPlayActor", "selfplay_actors"),
    ("ray::ReplayBufferService", "buffer_actor"),
    ("ray::GatingWorker", "arena_actor"),
    ("ray::IDLE", "idle_workers"),
    ("ray::", "other_ray_workers"),
)


def classify(command: str, driver_pid: int, pid: int) -> str:
    if pid == driver_pid:
        return "driver"
    for prefix, role in ROLES:
        if command.startswith(prefix):
            return role
    if "raylet" in command.split(" ")[0]:
        return "raylet"
    if "gcs_server" in command.split(" ")[0]:
        return "gcs_server"
    return "other"


def _status_kib(pid: int) -> dict[str, int]:
    values = {}
    with open(f"/proc/{pid}/status") as handle:
        for line in handle:
            if line.startswith(("VmRSS:", "RssShmem:", "RssAnon:")):
                name, amount = line.split(":", 1)
                values[name] = int(amount.split()[0])
    return values


def session_memory(session_id: int, driver_pid: int) -> dict:
    """RSS in MiB by role for the processes of a session, the raylet's touched shared memory
    (``raylet_shm_mib``) and the address of the session's GCS (``gcs_address``, from the raylet's
    ``--gcs-address`` flag; None without a raylet)."""
    by_role: dict[str, float] = {}
    processes = 0
    raylet_shm = 0.0
    gcs_address = None
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        pid = int(entry)
        try:
            with open(f"/proc/{pid}/stat") as handle:
                stat = handle.read()
            fields = stat[stat.rindex(")") + 2 :].split()
            if int(fields[3]) != session_id or fields[0] in ("Z", "X"):
                continue
            with open(f"/proc/{pid}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            memory = _status_kib(pid)
        except (OSError, ValueError, IndexError):
            continue  # gone while we looked
        role = classify(command, driver_pid, pid)
        by_role[role] = by_role.get(role, 0.0) + memory.get("VmRSS", 0) / 1024
        processes += 1
        if role == "raylet":
            raylet_shm += memory.get("RssShmem", 0) / 1024
            gcs_address = gcs_address_of(command) or gcs_address
    return {
        "rss_mib": {role: round(value, 1) for role, value in sorted(by_role.items())},
        "total_rss_mib": round(sum(by_role.values()), 1),
        "raylet_shm_mib": round(raylet_shm, 1),
        "gcs_address": gcs_address,
        "processes": processes,
    }


def gcs_address_of(command: str) -> str | None:
    """The GCS address (``IP:PORT``) in a raylet's command line (its ``--gcs-address=`` flag), or None."""
    return next((word.split("=", 1)[1] for word in command.split(" ") if word.startswith("--gcs-address=")), None)


def parse_plasma_usage(text: str) -> dict | None:
    """``{"object_store_mib": MiB, "object_store_objects": count}`` from the output of ``ray memory
    --stats-only`` ("Plasma memory usage 38 MiB, 1 objects, ..."), None if the line is missing."""
    found = _PLASMA_LINE.search(text)
    if found is None:
        return None
    return {"object_store_mib": float(found.group(1)), "object_store_objects": int(found.group(2))}


def plasma_usage(gcs_address: str | None, timeout: float = 30.0) -> dict:
    """The object store's use as Ray reports it (``parse_plasma_usage``) for the cluster at
    ``gcs_address``; ``object_store_mib`` None when there is no address or no answer (a run
    starting or stopping)."""
    missing = {"object_store_mib": None, "object_store_objects": None}
    if gcs_address is None:
        return missing
    ray_cli = Path(sys.executable).parent / "ray"
    # a local Ray started by ``ray.init`` requires its token (kept in ~/.ray/auth_token), which the
    # command line sends only in token mode; the user's own RAY_AUTH_MODE wins
    env = {"RAY_AUTH_MODE": "token", **os.environ}
    try:
        answer = subprocess.run(
            [str(ray_cli), "memory", "--stats-only", "--address", gcs_address],
            check=False, capture_output=True, text=True, timeout=timeout, env=env,
        )
    except (OSError, subprocess.TimeoutExpired):
        return missing
    return parse_plasma_usage(answer.stdout) or missing


def progress(run_dir: Path) -> dict:
    """Step and counters of the newest checkpoint (read cheaply: file name and counters), with the
    checkpoint's file name as ``checkpoint``."""
    latest = run_dir / "checkpoints" / "latest"
    if not latest.is_file():
        return {"step": 0, "games": 0}
    try:
        import torch

        name = latest.read_text().strip()
        payload = torch.load(run_dir / "checkpoints" / name, map_location="cpu", weights_only=True)
        counters = {key: int(value) for key, value in payload["counters"].items()}
        return {"checkpoint": name, **counters, "step": int(payload["step"])}
    except Exception as error:  # noqa: BLE001 - a checkpoint being replaced right now: report, do not stop
        return {"step": None, "games": None, "error": f"{type(error).__name__}"}


def counter_regressions(history: list[dict]) -> list[str]:
    """Counters that went back between consecutive checkpoints of ``history`` (dicts of
    ``progress``, in the order seen); a key one of the two lacks is not compared."""
    problems = []
    for before, after in zip(history, history[1:]):
        for key in MONOTONE_COUNTERS:
            if key in before and key in after and after[key] < before[key]:
                problems.append(
                    f"{key} went back from {before[key]} ({before.get('checkpoint')}) to {after[key]} "
                    f"({after.get('checkpoint')})"
                )
    return problems


def duplicate_steps(steps_by_tag: dict[str, list[int]], prefix: str = "train/") -> dict[str, list[int]]:
    """For each tag starting with ``prefix``, the steps that appear more than once (sorted); tags
    with unique steps are left out. (Self-play tags are logged at the learner's step every 30 s and
    repeat a step while no optimiser step is taken, so only ``train/`` tags must be unique.)"""
    found = {}
    for tag, steps in sorted(steps_by_tag.items()):
        if not tag.startswith(prefix):
            continue
        seen, repeated = set(), set()
        for step in steps:
            (repeated if step in seen else seen).add(int(step))
        if repeated:
            found[tag] = sorted(repeated)
    return found


def tensorboard_steps(run_dir: Path) -> dict[str, list[int]]:
    """Steps of every scalar tag as TensorBoard shows them (all event files of the folder)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder = run_dir / "tensorboard"
    if not folder.is_dir():
        return {}
    accumulator = EventAccumulator(str(folder), size_guidance={"scalars": 0})
    accumulator.Reload()
    return {tag: [event.step for event in accumulator.Scalars(tag)] for tag in accumulator.Tags()["scalars"]}


def final_buffer_repeats(run_dir: Path) -> dict:
    """Repeated game ids (``selfplay.replay_buffer.repeated_game_ids``) in each split of the newest
    readable checkpoint's buffer, with that checkpoint's step and any checkpoint skipped as unreadable."""
    from selfplay.replay_buffer import repeated_game_ids
    from trainer import checkpoint as ckpt

    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        latest = ckpt.load_latest_checkpoint(run_dir)
    state = latest.buffer_state() or {}
    return {
        "step": latest.step,
        "skipped": [str(w.message)[:300] for w in caught if "skipping unreadable checkpoint" in str(w.message)],
        "positions": {split: int(len(state.get(f"{split}/game_ids", []))) for split in ("train", "validation")},
        "repeated": {
            split: repeated_game_ids(state[f"{split}/game_ids"]).tolist()[:20]
            for split in ("train", "validation")
            if f"{split}/game_ids" in state
        },
    }


def kill_session(process: subprocess.Popen, timeout: float = 30.0) -> int:
    """SIGKILL the process group of ``process`` and wait until no process of its session is left
    (Ray's workers have their own process groups in the same session and exit once their raylet
    is gone); those still there after ``timeout`` s are killed by pid. Returns how many were."""
    try:
        os.killpg(process.pid, signal.SIGKILL)
    except ProcessLookupError:
        pass
    process.wait()
    deadline = time.monotonic() + timeout
    while session_memory(process.pid, process.pid)["processes"] and time.monotonic() < deadline:
        time.sleep(0.5)
    strays = [pid for pid, _ in session_processes(process.pid)]
    for pid in strays:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return len(strays)


def growth(samples: list[dict], warmup_s: float, reference_s: float = 600.0) -> dict:
    """Memory growth after the warm-up.

    ``total_rss``, ``raylet_shm`` and ``by_role``: from the first sample at or after the
    warm-up to the last one. ``max_total_rss``: the highest sample after the warm-up against the
    *level at the warm-up*, the highest sample of the ``reference_s`` seconds up to it (the first
    sample after it if there is none). The level is a maximum because a run that is killed and
    resumed drops to a fresh process's memory for a minute or two at each resume; one sample taken
    in such a dip would make any later plateau look like growth.

    The object store is judged on medians over ``reference_s`` seconds: its level at the warm-up is
    the median of the samples of the ``reference_s`` seconds up to it, and
    ``max_window_median_object_store_mib`` the highest median of the samples of any
    ``reference_s``-second window after it, the last ``reference_s`` seconds included. A
    single sample sees the objects in flight at that moment (a checkpoint's replay buffer on its
    way to the driver is some 80 MiB for a few seconds), which is no level; a leak raises every
    sample from some time on, and with them the medians. ``max_object_store_mib`` is the highest
    single sample, reported, not judged. Samples without an object-store figure
    (``object_store_mib`` None: no answer from Ray) are left out; with none at all the figures are
    None.
    """
    after = [s for s in samples if s["t_s"] >= warmup_s]
    if len(after) < 2:
        return {"error": "not enough samples after the warm-up"}
    first, last = after[0], after[-1]
    reference = [s for s in samples if warmup_s - reference_s <= s["t_s"] <= warmup_s] or [first]

    def change(a: float, b: float) -> float | None:
        return None if a <= 0 else round((b - a) / a, 4)

    roles = sorted(set(first["rss_mib"]) | set(last["rss_mib"]))
    level_rss = max(s["total_rss_mib"] for s in reference)
    highest_rss = max(s["total_rss_mib"] for s in after)

    def store_values(chosen):
        return [s["object_store_mib"] for s in chosen if s.get("object_store_mib") is not None]

    store_after = store_values(after)
    store_level = store_values(reference) or store_after[:1]
    windows = [
        store_values([s for s in after if start["t_s"] <= s["t_s"] <= start["t_s"] + reference_s])
        for start in after
        if start["t_s"] + reference_s <= last["t_s"]
    ] + [store_values([s for s in after if s["t_s"] >= last["t_s"] - reference_s])]  # and the last one
    window_medians = [statistics.median(values) for values in windows if values]
    return {
        "from_t_s": first["t_s"],
        "to_t_s": last["t_s"],
        "total_rss": change(first["total_rss_mib"], last["total_rss_mib"]),
        "raylet_shm": change(first["raylet_shm_mib"], last["raylet_shm_mib"]),
        "level_at_warmup_total_rss_mib": level_rss,
        "max_total_rss_mib_after_warmup": highest_rss,
        "max_total_rss": change(level_rss, highest_rss),
        "level_at_warmup_object_store_mib": statistics.median(store_level) if store_level else None,
        "max_window_median_object_store_mib": max(window_medians) if window_medians else None,
        "max_object_store_mib": max(store_after) if store_after else None,
        "object_store_samples": len(store_after),
        "max_raylet_shm_mib": max(s["raylet_shm_mib"] for s in after),
        "by_role": {
            role: {
                "from_mib": first["rss_mib"].get(role, 0.0),
                "to_mib": last["rss_mib"].get(role, 0.0),
                "growth": change(first["rss_mib"].get(role, 0.0), last["rss_mib"].get(role, 0.0)),
            }
            for role in roles
        },
    }


def within_bar(result: dict, bar: float) -> bool:
    """The memory bar: the highest total resident memory after the warm-up is under ``1 + bar``
    times its level at the warm-up, and the object store's highest window median (as Ray counts
    it, ``growth``) is under ``1 + bar`` times its level or at most ``OBJECT_STORE_SLACK_MIB`` above
    it. Without an object-store figure the bar is not held."""
    if "error" in result or result["max_total_rss"] is None:
        return False
    store_level, store_max = result["level_at_warmup_object_store_mib"], result["max_window_median_object_store_mib"]
    if store_level is None or store_max is None:
        return False
    store_ok = store_max - store_level <= OBJECT_STORE_SLACK_MIB or (
        store_level > 0 and store_max / store_level - 1 < bar
    )
    return result["max_total_rss"] < bar and store_ok


def passed(report: dict) -> bool:
    """The exit status's rule: the memory bar, no early exit, and every check of the run's files."""
    checks = report["checks"]
    return bool(
        report["within_bar"] and report["exited_early_with"] is None and checks["no_repeated_game_id"]
        and checks["counters_monotone"] and checks["tensorboard_steps_unique"]
    )


def judge(path: Path, bar: float) -> int:
    """Recompute ``growth`` and the memory bar from the samples of the report saved at ``path``
    (the checks of the run's files are kept as they were); print the report; 0 if it passes."""
    report = json.loads(path.read_text())
    report["growth"] = growth(report["samples"], report["warmup_minutes"] * 60)
    report["bar"] = bar
    report["within_bar"] = within_bar(report["growth"], bar)
    report["judged_from"] = str(path)
    print(json.dumps({key: value for key, value in report.items() if key != "samples"}, indent=2))
    return 0 if passed(report) else 1


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0, help="minutes before growth is measured")
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between samples")
    parser.add_argument("--run-dir", type=Path, default=None, help="default: a new temporary folder")
    parser.add_argument("--bar", type=float, default=0.10, help="allowed total growth after warm-up")
    parser.add_argument(
        "--kill-every", type=float, nargs=2, metavar=("MIN", "MAX"), default=None,
        help="kill -9 the run every MIN to MAX minutes (uniform, seeded) and resume it",
    )
    parser.add_argument("--seed", type=int, default=0, help="seeds the kill times")
    parser.add_argument(
        "--judge", type=Path, default=None, metavar="REPORT",
        help="run nothing: judge the samples of a saved report (this script's JSON) by this script's memory bar",
    )
    parser.add_argument("overrides", nargs="*", help="train overrides (default: game=tictactoe)")
    args = parser.parse_args(argv)
    if args.judge is not None:
        return judge(args.judge, args.bar)
    if args.minutes <= 0 or args.interval <= 0 or not 0 <= args.warmup < args.minutes:
        parser.error("need --minutes > 0, --interval > 0 and 0 <= --warmup < --minutes")
    if args.kill_every is not None and not 0 < args.kill_every[0] <= args.kill_every[1]:
        parser.error(f"--kill-every: expected 0 < MIN <= MAX, got {args.kill_every}")
    run_dir = (args.run_dir or Path(tempfile.mkdtemp(prefix="soak-")) / "run").resolve()
    overrides = args.overrides or ["game=tictactoe"]
    command = [
        sys.executable,
        "-m",
        "trainer.cli",
        *overrides,
        f"hydra.run.dir={run_dir}",
        f"run.max_minutes={args.minutes + 5}",
        "run.max_steps=null",
        "run.live_status=false",
    ]
    run_dir.parent.mkdir(parents=True, exist_ok=True)
    log_path = run_dir.parent / f"{run_dir.name}.log"
    rng = random.Random(args.seed)
    samples: list[dict] = []
    checkpoints: list[dict] = []  # the progress of each new checkpoint seen, in order
    kills: list[dict] = []
    strays = 0
    early_exit = None
    start = time.monotonic()
    end = start + args.minutes * 60

    def next_kill(now: float) -> float | None:
        return None if args.kill_every is None else now + rng.uniform(*args.kill_every) * 60

    with open(log_path, "w") as log:
        next_sample = start
        resumed = False
        while True:
            process = subprocess.Popen(
                command + ([f"resume={run_dir}"] if resumed else []),
                cwd=REPO_ROOT,
                stdout=log,
                stderr=subprocess.STDOUT,
                start_new_session=True,
                env={**os.environ, "COLUMNS": "1000"},
            )
            kill_at = next_kill(time.monotonic())
            try:
                while time.monotonic() < end and process.poll() is None:
                    now = time.monotonic()
                    if kill_at is not None and now >= kill_at:
                        break
                    if now >= next_sample:
                        memory = session_memory(process.pid, process.pid)
                        sample = {
                            "t_s": round(now - start, 1),
                            **memory,
                            **plasma_usage(memory["gcs_address"]),
                            **progress(run_dir),
                        }
                        samples.append(sample)
                        print(json.dumps(sample), file=sys.stderr, flush=True)
                        if "checkpoint" in sample and (not checkpoints or checkpoints[-1]["checkpoint"] != sample["checkpoint"]):
                            checkpoints.append(
                                {key: sample[key] for key in ("t_s", "checkpoint", *MONOTONE_COUNTERS) if key in sample}
                            )
                        next_sample += args.interval
                    time.sleep(min(1.0, max(0.05, next_sample - time.monotonic())))
            except BaseException:
                kill_session(process)
                raise
            if process.poll() is not None:  # ended on its own: a crash or its budget
                early_exit = process.returncode
                break
            if time.monotonic() >= end:
                break
            strays += kill_session(process)
            kills.append({"t_s": round(time.monotonic() - start, 1), **progress(run_dir)})
            print(json.dumps({"kill_9": kills[-1]}), file=sys.stderr, flush=True)
            resumed = True
        if early_exit is None:
            os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: checkpoint, then stop
            try:
                process.wait(timeout=60)
            except subprocess.TimeoutExpired:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
    deadline = time.monotonic() + 30
    while session_memory(process.pid, process.pid)["processes"] and time.monotonic() < deadline:
        time.sleep(1)
    left = session_memory(process.pid, process.pid)["processes"]
    final = progress(run_dir)
    if "checkpoint" in final and (not checkpoints or checkpoints[-1]["checkpoint"] != final["checkpoint"]):
        checkpoints.append(final)
    result = growth(samples, args.warmup * 60)
    try:
        buffer = final_buffer_repeats(run_dir)
    except (FileNotFoundError, ValueError) as error:
        buffer = {"error": str(error)[:300]}
    checks = {
        "kills": len(kills),
        "stray_processes_killed": strays,
        "checkpoints_seen": len(checkpoints),
        "final_buffer": buffer,
        "no_repeated_game_id": "repeated" in buffer and not any(buffer["repeated"].values()) and not buffer["skipped"],
        "counter_regressions": counter_regressions(checkpoints),
        "duplicate_tensorboard_steps": duplicate_steps(tensorboard_steps(run_dir)),
    }
    checks["counters_monotone"] = not checks["counter_regressions"]
    checks["tensorboard_steps_unique"] = not checks["duplicate_tensorboard_steps"]
    report = {
        "minutes": args.minutes,
        "warmup_minutes": args.warmup,
        "kill_every_minutes": args.kill_every,
        "seed": args.seed,
        "command": " ".join(command[1:]),
        "run_dir": str(run_dir),
        "log": str(log_path),
        "exited_early_with": early_exit,
        "returncode": process.returncode,
        "processes_left_after_stop": left,
        "growth": result,
        "bar": args.bar,
        "within_bar": within_bar(result, args.bar),
        "checks": checks,
        "kills": kills,
        "checkpoints": checkpoints,
        "samples": samples,
    }
    print(json.dumps(report, indent=2))
    return 0 if passed(report) else 1

if __name__ == "__main__":
    sys.exit(main())
