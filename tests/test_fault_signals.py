"""``kill PID`` (SIGTERM) and Ctrl-C stop ``train`` through its checkpoint, even when the process
started with SIGINT ignored (a job started with ``&`` from a script)."""

from __future__ import annotations

import os
import re
import signal
import subprocess
import sys
import time
from pathlib import Path

import pytest

from trainer import checkpoint as ckpt
from trainer.signals import StopRequest, install_stop_handlers, restore_handlers

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.parametrize(
    "sig,stopped_by,start_ignoring_sigint",
    [(signal.SIGTERM, "terminated", False), (signal.SIGINT, "interrupted", True)],
    ids=["sigterm", "sigint-started-ignored"],
)
def test_a_stop_signal_writes_a_checkpoint_at_the_last_step(tmp_path, sig, stopped_by, start_ignoring_sigint):
    run_dir = tmp_path / "run"
    command = [
        sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=tictactoe", f"hydra.run.dir={run_dir}",
        "run.max_steps=100000", "run.max_minutes=4", "trainer.checkpoint_every_steps=100000",
        "run.status_every_seconds=0.5",
    ]
    out_path, err_path = tmp_path / "stdout.txt", tmp_path / "stderr.txt"
    # a child inherits an ignored SIGINT, as a job started with `&` from a script does
    previous = signal.signal(signal.SIGINT, signal.SIG_IGN) if start_ignoring_sigint else None
    try:
        with open(out_path, "w") as out, open(err_path, "w") as err:
            proc = subprocess.Popen(command, cwd=REPO_ROOT, stdout=out, stderr=err, start_new_session=True)
    finally:
        if previous is not None:
            signal.signal(signal.SIGINT, previous)
    try:
        # some training steps (the status line says so), no periodic checkpoint (every 100,000 steps);
        # a fresh checkout's first runs take longer to their first game
        deadline = time.monotonic() + 180
        while not re.search(r"^step [1-9]", out_path.read_text(), re.MULTILINE):
            assert proc.poll() is None, err_path.read_text()[-3000:]
            assert time.monotonic() < deadline, "train made no optimiser step in 180 s"
            time.sleep(0.5)
        os.kill(proc.pid, sig)
        proc.wait(timeout=120)
        stdout, stderr = out_path.read_text(), err_path.read_text()
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
    assert proc.returncode == 0, stderr[-3000:]
    assert f"{stopped_by}: writing a checkpoint, then stopping" in stdout + stderr
    finished = re.search(rf"run finished \({stopped_by}\): (\d+) steps", stdout)
    assert finished, stdout[-2000:]
    latest = ckpt.load_latest_checkpoint(run_dir)
    assert latest is not None and latest.step == int(finished.group(1)) > 0
    assert "SIGTERM received" not in stderr  # Ray's handler did not take the signal


def test_stop_signals_are_recorded_not_raised():
    """A handler that raises lands wherever the main thread is, e.g. inside a C extension's import,
    which turns the KeyboardInterrupt into an ImportError; so the handlers only record the first signal."""
    request = StopRequest()
    old = install_stop_handlers(request)
    try:
        assert not request and request.reason is None
        os.kill(os.getpid(), signal.SIGINT)
        time.sleep(0.05)  # the handler runs between bytecodes of the main thread
        assert request and request.reason == "interrupted"
        os.kill(os.getpid(), signal.SIGTERM)  # a second signal changes nothing
        time.sleep(0.05)
        assert request.reason == "interrupted"
    finally:
        restore_handlers(old)
    assert signal.getsignal(signal.SIGINT) is old[signal.SIGINT]
    assert signal.getsignal(signal.SIGTERM) is old[signal.SIGTERM]


def test_sigterm_first_is_recorded_as_terminated():
    request = StopRequest()
    old = install_stop_handlers(request)
    try:
        os.kill(os.getpid(), signal.SIGTERM)
        time.sleep(0.05)
        assert request.reason == "terminated"
    finally:
        restore_handlers(old)
