"""scripts/gpu_check.sh: skips cleanly without CUDA; its CPU-versus-device comparison runs (here
with the CPU as the device, where the two must agree exactly)."""

from __future__ import annotations

import json
import subprocess
import sys

import numpy as np
import pytest
import torch
from helpers_scripts import REPO_ROOT, load_script

import games
from networks.config import NetworkConfig


def _module():
    return load_script("gpu_check")


@pytest.mark.slow
@pytest.mark.skipif(torch.cuda.is_available(), reason="the skip path is for machines without CUDA")
def test_gpu_check_skips_without_cuda():
    done = subprocess.run(["bash", str(REPO_ROOT / "scripts" / "gpu_check.sh")], capture_output=True, text=True, check=False,
                          env={"PYTHON": sys.executable, "PATH": "/usr/bin:/bin"})
    assert done.returncode == 0, done.stderr
    assert "no CUDA device" in json.loads(done.stdout)["skipped"]


@pytest.mark.slow
def test_gradient_comparison_agrees_with_itself_on_the_cpu():
    network = NetworkConfig(kind="resnet", num_blocks=1, channels=8, value_hidden=8)
    report = _module().check_gradients(games.make("connect4"), device="cpu", network=network, batch_size=32)
    assert report["ok"] is True
    assert report["cpu_policy_loss"] == report["cuda_policy_loss"]
    errors = report["gradient_error_against_float64"]
    assert errors["cpu_worst"] == errors["cuda_worst"] < errors["rtol"] == 5e-3


def test_gradient_errors_are_norm_relative_to_the_float64_reference():
    errors = _module()._relative_errors({"w": np.array([3.0, 4.05]), "b": np.array([0.0])},
                                        {"w": np.array([3.0, 4.0]), "b": np.array([0.0])})
    assert errors["w"] == pytest.approx(0.05 / 5.0)  # over the 5e-3 bar: a wrong gradient fails
    assert errors["b"] == 0.0
