"""Kill -9 and resume, over and over: does a training run survive SIGKILL?

Each trial starts ``train`` (``experiment=tiny game=tictactoe``; the first trial a fresh run, every
later one ``resume=RUN``) in its own session, waits a seeded random time (seconds after the start, or 0-3 s after the run writes a new checkpoint), and SIGKILLs the whole
process group. The Ray worker processes of that run live in their own process groups but in the same
session; the script waits for them to go (they exit when their raylet dies) and counts any that stay
as strays (and kills them by pid). After each trial it checks, on disk:

* the newest checkpoint loads (``trainer.checkpoint.load_latest_checkpoint``) without skipping an
  unreadable one (a warning would mean a checkpoint file was left corrupt);
* the counters never go back: checkpoint step, games, positions, and the replay buffer's games
  added (the buffer file is restored, not refilled from zero);
* a resumed run says it resumed at the step of the newest checkpoint before it started;
* TensorBoard, read as TensorBoard reads the folder (``EventAccumulator``: ``purge_step`` drops the
  re-logged steps), has each ``train/policy_loss`` step once, steps 1..m with m >= the checkpoint
  step.

After the trials, one last resume runs to the end unkilled; the best model (``best/model.pt``) must
load and play a game of tic-tac-toe with its search. Prints one JSON object::

    .venv/bin/python scripts/kill_resume_trials.py                 # 20 trials
    .venv/bin/python scripts/kill_resume_trials.py --trials 3 --seed 1 --run-dir /tmp/kr
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
import warnings
from pathlib import Path

import numpy as np

REPO_ROOT = Path(__file__).resolve().parents[1]
if str(REPO_ROOT) not in sys.path:
    sys.path.insert(0, str(REPO_ROOT))

TRAIN = [sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=tictactoe"]


def session_processes(session_id: int) -> list[tuple[int, str]]:
    """``(pid, command)`` of every live process whose session id is ``session_id`` (from /proc)."""
    found = []
    for entry in os.listdir("/proc"):
        if not entry.isdigit():
            continue
        try:
            with open(f"/proc/{entry}/stat") as handle:
                stat = handle.read()
            # fields after the command (which may hold spaces) start after the last ')'
            fields = stat[stat.rindex(")") + 2 :].split()
            state, sid = fields[0], int(fields[3])
            if sid != session_id or state in ("Z", "X"):
                continue
            with open(f"/proc/{entry}/cmdline", "rb") as handle:
                command = handle.read().replace(b"\0", b" ").decode(errors="replace").strip()
            found.append((int(entry), command))
        except (OSError, ValueError, IndexError):
            continue  # the process went away while we looked
    return found


def wait_for_session_to_end(session_id: int, timeout: float) -> list[tuple[int, str]]:
    """Wait until no process of the session is left; return (and SIGKILL) those still there."""
    deadline = time.monotonic() + timeout
    left = session_processes(session_id)
    while left and time.monotonic() < deadline:
        time.sleep(0.5)
        left = session_processes(session_id)
    for pid, _ in left:
        try:
            os.kill(pid, signal.SIGKILL)
        except ProcessLookupError:
            pass
    return left


def _latest_text(run_dir: Path) -> str:
    try:
        return (run_dir / "checkpoints" / "latest").read_text()
    except OSError:
        return ""


def run_train(
    overrides: list[str],
    log_path: Path,
    kill_after: float | None,
    timeout: float,
    env: dict | None = None,
    run_dir: Path | None = None,
) -> dict:
    """Run ``train`` in a new session; SIGKILL its process group ``kill_after`` seconds after the
    start or, with ``run_dir``, ``kill_after`` seconds after the run writes a new checkpoint.

    Returns ``{"killed", "returncode", "seconds", "strays"}``; ``killed`` is False when the run
    ended before the kill (or ``kill_after`` is None, or ``timeout`` passed first).
    """
    start = time.monotonic()
    old_latest = _latest_text(run_dir) if run_dir is not None else None
    deadline = start + kill_after if kill_after is not None and run_dir is None else None
    killed = False
    with open(log_path, "w") as log:
        process = subprocess.Popen(
            [*TRAIN, *overrides],
            cwd=REPO_ROOT,
            stdout=log,
            stderr=subprocess.STDOUT,
            start_new_session=True,
            env={**(env or os.environ), "COLUMNS": "1000"},  # unwrapped messages
        )
        while process.poll() is None:
            now = time.monotonic()
            if deadline is None and kill_after is not None and run_dir is not None:
                if _latest_text(run_dir) != old_latest:  # a new checkpoint: kill a little later
                    deadline = now + kill_after
            if (deadline is not None and now >= deadline) or now - start > timeout:
                os.killpg(process.pid, signal.SIGKILL)
                process.wait()
                killed = deadline is not None and now >= deadline
                break
            time.sleep(0.05)
    strays = wait_for_session_to_end(process.pid, timeout=30.0)
    return {
        "killed": killed,
        "returncode": process.returncode,
        "seconds": round(time.monotonic() - start, 1),
        "strays": [command[:120] for _, command in strays],
    }


def snapshot(run_dir: Path) -> dict | None:
    """What the newest checkpoint says (None before the first one); raises if a file was skipped."""
    from trainer import checkpoint as ckpt

    if not ckpt.list_checkpoints(run_dir):
        return None
    with warnings.catch_warnings(record=True) as caught:
        warnings.simplefilter("always")
        latest = ckpt.load_latest_checkpoint(run_dir)
        buffer_state = latest.buffer_state()
    skipped = [str(w.message) for w in caught if "skipping unreadable checkpoint" in str(w.message)]
    if skipped:
        raise AssertionError(f"an unreadable checkpoint was left on disk: {skipped[0][:300]}")
    return {
        "step": latest.step,
        "games": int(latest.counters["games"]),
        "positions": int(latest.counters["positions"]),
        "buffer_games_added": int(buffer_state["train_games_added"] + buffer_state["validation_games_added"]),
        "buffer_size": int(buffer_state["train/values"].shape[0]),
    }


def policy_loss_steps(run_dir: Path) -> list[int]:
    """Steps of ``train/policy_loss`` as TensorBoard shows them (all event files of the folder)."""
    from tensorboard.backend.event_processing.event_accumulator import EventAccumulator

    folder = run_dir / "tensorboard"
    if not folder.is_dir():
        return []
    accumulator = EventAccumulator(str(folder), size_guidance={"scalars": 0})
    accumulator.Reload()
    if "train/policy_loss" not in accumulator.Tags()["scalars"]:
        return []
    return [event.step for event in accumulator.Scalars("train/policy_loss")]


def check_trial(
    run_dir: Path, before: dict | None, after: dict | None, log_text: str, resumed: bool
) -> list[str]:
    """Problems found after one trial (empty: it survived)."""
    problems = []
    if before is not None:
        if after is None:
            return ["the checkpoints disappeared"]
        for key in ("step", "games", "positions", "buffer_games_added"):
            if after[key] < before[key]:
                problems.append(f"{key} went back: {before[key]} -> {after[key]}")
        if after["buffer_games_added"] > 0 and after["buffer_size"] == 0:
            problems.append("the buffer file is empty")
    if resumed and before is not None and "resumed" in log_text:
        if f"at step {before['step']}" not in log_text:
            problems.append(f"the resume did not start at the checkpoint's step {before['step']}")
    steps = policy_loss_steps(run_dir)
    if len(steps) != len(set(steps)):
        duplicates = sorted({s for s in steps if steps.count(s) > 1})
        problems.append(f"TensorBoard has duplicate train/policy_loss steps {duplicates[:10]}")
    if steps and sorted(steps) != list(range(1, max(steps) + 1)):
        problems.append(
            f"TensorBoard train/policy_loss steps have gaps: {sorted(set(range(1, max(steps) + 1)) - set(steps))[:10]}"
        )
    if after is not None and (max(steps) if steps else 0) < after["step"]:
        problems.append(
            f"TensorBoard stops at step {max(steps) if steps else 0}, the checkpoint is at {after['step']}"
        )
    return problems


def play_best_model(run_dir: Path) -> dict:
    """Load ``best/model.pt`` and play one game of it (with 16-simulation PUCT) against itself."""
    import games
    from arena.players import MCTSPlayer, play_game
    from mcts import PUCTConfig
    from networks.checkpoint import load_model
    from networks.evaluator import TorchEvaluator

    game = games.make("tictactoe")
    model, _metadata = load_model(run_dir / "best" / "model.pt", expected_game=game)
    evaluate = TorchEvaluator(model, device="cpu").evaluate
    player = MCTSPlayer(evaluate, PUCTConfig(num_simulations=16), rng=0)
    winner, actions = play_game(game, player, player)
    return {
        "winner": int(winner),
        "moves": game.format_moves(actions),
        "plies": len(actions),
        "onnx": (run_dir / "best" / "model.onnx").is_file(),
    }


def run_trials(
    trials: int,
    seed: int,
    run_dir: Path,
    steps_per_trial: int,
    min_delay: float,
    max_delay: float,
    timeout: float,
) -> dict:
    rng = np.random.default_rng(seed)
    run_dir.mkdir(parents=True, exist_ok=True)
    logs = run_dir.parent / f"{run_dir.name}-logs"
    logs.mkdir(exist_ok=True)
    results = []
    before: dict | None = None
    started = time.monotonic()
    for trial in range(trials):
        # a third of the kills land during start-up or the first steps (seconds after the start),
        # the others 0-3 s after the run writes a new checkpoint (training, writing, gating)
        phase = "start" if rng.random() < 1 / 3 else "after_checkpoint"
        delay = float(rng.uniform(min_delay, max_delay) if phase == "start" else rng.uniform(0.0, 3.0))
        resumed = trial > 0
        target = (before["step"] if before else 0) + steps_per_trial
        overrides = [f"hydra.run.dir={run_dir}", f"run.max_steps={target}"]
        if resumed:
            overrides.append(f"resume={run_dir}")
        log_path = logs / f"trial_{trial:02d}.log"
        outcome = run_train(
            overrides,
            log_path,
            kill_after=delay,
            timeout=timeout,
            run_dir=run_dir if phase != "start" else None,
        )
        log_text = log_path.read_text(errors="replace")
        problems = []
        if outcome["strays"]:
            problems.append(
                f"{len(outcome['strays'])} process(es) of the run outlived the kill: {outcome['strays'][:3]}"
            )
        if not outcome["killed"] and outcome["returncode"] != 0:
            problems.append(f"train failed with status {outcome['returncode']}: {log_text[-500:]}")
        try:
            after = snapshot(run_dir)
            problems += check_trial(run_dir, before, after, log_text, resumed)
        except Exception as error:  # noqa: BLE001 - a checkpoint that does not load is a failed trial, not a crash
            after = before
            problems.append(f"{type(error).__name__}: {error}")
        advanced = after is not None and (before is None or after["step"] > before["step"])
        results.append(
            {
                "trial": trial,
                "phase": phase,
                "kill_after_s": round(delay, 2),
                **outcome,
                "checkpoint": after,
                "new_checkpoint": advanced,
                "problems": problems,
            }
        )
        print(json.dumps(results[-1]), file=sys.stderr, flush=True)
        if after is not None:
            before = after
    # the last resume runs to its end; then the best model must load and play
    target = (before["step"] if before else 0) + steps_per_trial
    final_log = logs / "final.log"
    final = run_train(
        [f"hydra.run.dir={run_dir}", f"run.max_steps={target}", f"resume={run_dir}"], final_log, None, timeout
    )
    final_problems = []
    if final["returncode"] != 0:
        final_problems.append(f"the final resume failed: {final_log.read_text(errors='replace')[-800:]}")
    try:
        after = snapshot(run_dir)
        final_problems += check_trial(run_dir, before, after, final_log.read_text(errors="replace"), True)
        if after is None or after["step"] != target:
            final_problems.append(
                f"the final run stopped at step {after and after['step']}, expected {target}"
            )
        final["checkpoint"] = after
        final["game"] = play_best_model(run_dir)
    except Exception as error:  # noqa: BLE001 - reported as a failure of the final run
        final_problems.append(f"{type(error).__name__}: {error}")
    final["problems"] = final_problems
    survived = sum(1 for r in results if not r["problems"])
    return {
        "trials": trials,
        "killed": sum(1 for r in results if r["killed"]),
        "killed_after_a_new_checkpoint": sum(1 for r in results if r["killed"] and r["new_checkpoint"]),
        "survived": survived,
        "final_ok": not final_problems,
        "stray_processes": sum(len(r["strays"]) for r in results),
        "seed": seed,
        "run_dir": str(run_dir),
        "seconds": round(time.monotonic() - started, 1),
        "final": final,
        "failures": [r for r in results if r["problems"]],
        "kill_times_s": [r["kill_after_s"] for r in results],
    }


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trials", type=int, default=20)
    parser.add_argument("--seed", type=int, default=0)
    parser.add_argument("--run-dir", type=Path, default=None, help="default: a new temporary folder")
    parser.add_argument(
        "--steps-per-trial", type=int, default=20, help="each (re)start aims this many steps on"
    )
    parser.add_argument("--min-delay", type=float, default=3.0, help="seconds; earliest start-up kill")
    parser.add_argument("--max-delay", type=float, default=25.0, help="seconds; latest start-up kill")
    parser.add_argument("--timeout", type=float, default=300.0, help="seconds; the limit of each run")
    args = parser.parse_args(argv)
    if args.trials < 1 or not 0 < args.min_delay <= args.max_delay:
        parser.error("need --trials >= 1 and 0 < --min-delay <= --max-delay")
    run_dir = args.run_dir or Path(tempfile.mkdtemp(prefix="kill-resume-")) / "run"
    report = run_trials(
        args.trials,
        args.seed,
        run_dir.resolve(),
        args.steps_per_trial,
        args.min_delay,
        args.max_delay,
        args.timeout,
    )
    print(json.dumps(report, indent=2))
    return 0 if report["survived"] == report["trials"] and report["final_ok"] else 1


if __name__ == "__main__":
    sys.exit(main())
