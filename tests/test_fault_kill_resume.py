"""Kill -9 and resume: ``scripts/kill_resume_trials.py`` with 3 trials.

Each trial SIGKILLs ``train``'s whole process group at a seeded random moment and resumes; the
script checks checkpoints, counters, the restored buffer, TensorBoard steps and stray Ray
processes, then lets a last resume finish and plays a game with the best model. The 20-trial
figure is in docs/reliability.md.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

REPO_ROOT = Path(__file__).resolve().parents[1]


@pytest.mark.slow
def test_three_kill_9_trials_survive(tmp_path):
    command = [
        sys.executable,
        "scripts/kill_resume_trials.py",
        "--trials",
        "3",
        "--seed",
        "3",
        "--run-dir",
        str(tmp_path / "run"),
        "--steps-per-trial",
        "10",
        "--min-delay",
        "4",
        "--max-delay",
        "30",
    ]
    result = subprocess.run(command, cwd=REPO_ROOT, capture_output=True, text=True, timeout=900, check=False)
    report = json.loads(result.stdout)
    assert report["failures"] == [], json.dumps(report["failures"], indent=1)[-3000:]
    assert report["trials"] == 3 and report["survived"] == 3
    assert report["stray_processes"] == 0
    assert report["final_ok"], report["final"]
    assert result.returncode == 0
    final = report["final"]
    assert final["checkpoint"]["step"] >= 10  # the runs got somewhere
    game = final["game"]
    assert 5 <= game["plies"] <= 9 and game["winner"] in (-1, 0, 1)
    assert len(game["moves"]) == game["plies"]
