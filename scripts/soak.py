"""Soak test (memory must return to its baseline): run ``train`` for N minutes and watch the memory of every process.

``train`` (default ``game=tictactoe``, its normal config) runs in its own session; every
``--interval`` seconds the script reads, from /proc, the resident memory (VmRSS) of every process
of that session (the driver with the learner, the raylet, the GCS, the self-play, replay-buffer and
arena actors, Ray's helper processes) and, as the Ray object store's footprint, the shared memory
the raylet has touched (RssShmem of the raylet: the plasma store lives in the raylet and maps its
objects from shared memory), plus the run's progress (newest checkpoint's step and games). At the
end the run gets SIGINT (it writes a checkpoint and stops), SIGKILL if it has not stopped a minute
later.

Growth is reported per role and in total, from the first sample after ``--warmup`` minutes to the
last sample (our bar: under 10%). Prints one JSON object::

    .venv/bin/python scripts/soak.py                       # 30 minutes, tic-tac-toe
    .venv/bin/python scripts/soak.py --minutes 10 --warmup 3 --run-dir /tmp/soak
    .venv/bin/python scripts/soak.py --minutes 5 -- game=connect4 selfplay.games_per_actor=16
"""

from __future__ import annotations

import argparse
import json
import os
import signal
import subprocess
import sys
import tempfile
import time
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]

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
    """RSS in MiB by role for the processes of a session, and the raylet's shared memory."""
    by_role: dict[str, float] = {}
    processes = 0
    object_store = 0.0
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
            object_store += memory.get("RssShmem", 0) / 1024
    return {
        "rss_mib": {role: round(value, 1) for role, value in sorted(by_role.items())},
        "total_rss_mib": round(sum(by_role.values()), 1),
        "object_store_shm_mib": round(object_store, 1),
        "processes": processes,
    }


def progress(run_dir: Path) -> dict:
    """Step and games of the newest checkpoint (read cheaply: file name and counters)."""
    latest = run_dir / "checkpoints" / "latest"
    if not latest.is_file():
        return {"step": 0, "games": 0}
    try:
        import torch

        name = latest.read_text().strip()
        payload = torch.load(run_dir / "checkpoints" / name, map_location="cpu", weights_only=True)
        return {"step": int(payload["step"]), "games": int(payload["counters"]["games"])}
    except Exception as error:  # noqa: BLE001 - a checkpoint being replaced right now: report, do not stop
        return {"step": None, "games": None, "error": f"{type(error).__name__}"}


def growth(samples: list[dict], warmup_s: float) -> dict:
    """Relative growth per role, total and object store, from the first sample at or after the
    warm-up to the last one."""
    after = [s for s in samples if s["t_s"] >= warmup_s]
    if len(after) < 2:
        return {"error": "not enough samples after the warm-up"}
    first, last = after[0], after[-1]

    def change(a: float, b: float) -> float | None:
        return None if a <= 0 else round((b - a) / a, 4)

    roles = sorted(set(first["rss_mib"]) | set(last["rss_mib"]))
    return {
        "from_t_s": first["t_s"],
        "to_t_s": last["t_s"],
        "total_rss": change(first["total_rss_mib"], last["total_rss_mib"]),
        "object_store_shm": change(first["object_store_shm_mib"], last["object_store_shm_mib"]),
        "by_role": {
            role: {
                "from_mib": first["rss_mib"].get(role, 0.0),
                "to_mib": last["rss_mib"].get(role, 0.0),
                "growth": change(first["rss_mib"].get(role, 0.0), last["rss_mib"].get(role, 0.0)),
            }
            for role in roles
        },
        "max_total_rss_mib_after_warmup": max(s["total_rss_mib"] for s in after),
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--minutes", type=float, default=30.0)
    parser.add_argument("--warmup", type=float, default=5.0, help="minutes before growth is measured")
    parser.add_argument("--interval", type=float, default=60.0, help="seconds between samples")
    parser.add_argument("--run-dir", type=Path, default=None, help="default: a new temporary folder")
    parser.add_argument("--bar", type=float, default=0.10, help="allowed total growth after warm-up")
    parser.add_argument("overrides", nargs="*", help="train overrides (default: game=tictactoe)")
    args = parser.parse_args(argv)
    if args.minutes <= 0 or args.interval <= 0 or not 0 <= args.warmup < args.minutes:
        parser.error("need --minutes > 0, --interval > 0 and 0 <= --warmup < --minutes")
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
    samples: list[dict] = []
    start = time.monotonic()
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            command,
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**os.environ, "COLUMNS": "1000"},
        )
        try:
            next_sample = start
            while time.monotonic() - start < args.minutes * 60 and process.poll() is None:
                time.sleep(max(0.0, next_sample - time.monotonic()))
                sample = {
                    "t_s": round(time.monotonic() - start, 1),
                    **session_memory(process.pid, process.pid),
                    **progress(run_dir),
                }
                samples.append(sample)
                print(json.dumps(sample), file=sys.stderr, flush=True)
                next_sample += args.interval
            early_exit = process.poll()
            if early_exit is None:
                os.killpg(process.pid, signal.SIGINT)  # Ctrl-C: checkpoint, then stop
                try:
                    process.wait(timeout=60)
                except subprocess.TimeoutExpired:
                    os.killpg(process.pid, signal.SIGKILL)
                    process.wait()
        except BaseException:
            os.killpg(process.pid, signal.SIGKILL)
            raise
    deadline = time.monotonic() + 30
    while session_memory(process.pid, process.pid)["processes"] and time.monotonic() < deadline:
        time.sleep(1)
    left = session_memory(process.pid, process.pid)["processes"]
    result = growth(samples, args.warmup * 60)
    total = result.get("total_rss")
    report = {
        "minutes": args.minutes,
        "warmup_minutes": args.warmup,
        "command": " ".join(command[1:]),
        "run_dir": str(run_dir),
        "log": str(log_path),
        "exited_early_with": early_exit,
        "returncode": process.returncode,
        "processes_left_after_stop": left,
        "growth": result,
        "bar": args.bar,
        "within_bar": total is not None and total < args.bar,
        "samples": samples,
    }
    print(json.dumps(report, indent=2))
    return 0 if report["within_bar"] and early_exit is None else 1


if __name__ == "__main__":
    sys.exit(main())
