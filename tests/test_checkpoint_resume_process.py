"""Resume equivalence across processes: 100 steps straight equal 50 steps, checkpoint, a new process that
resumes and trains 50 more (step, buffer, random streams, learning rate; weights allclose)."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
import torch
from test_checkpoint import started_run

TESTS_DIR = Path(__file__).resolve().parent
REPO_ROOT = TESTS_DIR.parent

_SCRIPT = r"""
import sys
import numpy as np
import torch
torch.set_num_threads(1)
from test_checkpoint import Run, started_run

mode, run_dir, out = sys.argv[1], sys.argv[2], sys.argv[3]
if mode == "first":
    started_run(steps=50).save(run_dir)
else:
    run = Run(seed=123)
    run.restore(run_dir)
    run.train(50)
    arrays = {f"model/{k}": v.numpy() for k, v in run.model.state_dict().items()}
    arrays.update({f"buffer/{k}": v for k, v in run.buffer.state_dict().items() if isinstance(v, np.ndarray)})
    arrays["steps"] = np.array(run.learner.steps)
    arrays["samples_trained"] = np.array(run.learner.samples_trained)
    arrays["games_added"] = np.array(run.buffer.games_added)
    arrays["learning_rate"] = np.array(run.learner.learning_rate)
    arrays["draws"] = np.array([run.generators[n].integers(0, 2**62) for n in ("sample", "selfplay")])
    arrays["torch_draw"] = torch.rand(4).numpy()
    np.savez(out, **arrays)
"""


def _run(mode: str, run_dir: Path, out: Path) -> None:
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(REPO_ROOT), str(TESTS_DIR)])}
    result = subprocess.run(
        [sys.executable, "-c", _SCRIPT, mode, str(run_dir), str(out)],
        cwd=REPO_ROOT,
        env=env,
        capture_output=True,
        text=True,
        timeout=600,
        check=False,
    )
    assert result.returncode == 0, result.stderr[-3000:]


@pytest.mark.slow
def test_resume_in_a_new_process_matches_a_straight_run(tmp_path):
    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    try:
        straight = started_run(steps=100)
        expected_torch_draw = torch.rand(4).numpy()  # training draws nothing from torch's generator
    finally:
        torch.set_num_threads(threads)
    _run("first", tmp_path / "run", tmp_path / "unused.npz")
    _run("resume", tmp_path / "run", tmp_path / "resumed.npz")
    with np.load(tmp_path / "resumed.npz", allow_pickle=False) as resumed:
        assert int(resumed["steps"]) == straight.learner.steps == 100
        assert int(resumed["samples_trained"]) == straight.learner.samples_trained
        assert int(resumed["games_added"]) == straight.buffer.games_added
        assert float(resumed["learning_rate"]) == straight.learner.learning_rate
        expected_draws = [straight.generators[n].integers(0, 2**62) for n in ("sample", "selfplay")]
        np.testing.assert_array_equal(resumed["draws"], expected_draws)
        np.testing.assert_array_equal(resumed["torch_draw"], expected_torch_draw)
        for key, value in straight.buffer.state_dict().items():
            if isinstance(value, np.ndarray):
                np.testing.assert_array_equal(resumed[f"buffer/{key}"], value)
        for name, tensor in straight.model.state_dict().items():
            np.testing.assert_allclose(resumed[f"model/{name}"], tensor.numpy(), rtol=1e-5, atol=1e-6)
