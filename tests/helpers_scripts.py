"""Finding, loading and running a file of ``scripts/`` (product tools) or ``scripts/experiments/``
(experiments and exercises), for the tests of the benchmark, diagnostic and experiment scripts; and
running a command's module (``python -m``) in a process of its own, as a user's shell would."""

from __future__ import annotations

import importlib.util
import os
import subprocess
import sys
from pathlib import Path

REPO_ROOT = Path(__file__).resolve().parents[1]
SCRIPT_FOLDERS = (REPO_ROOT / "scripts", REPO_ROOT / "scripts" / "experiments")


def script_path(name: str) -> Path:
    """The file ``scripts/<name>.py`` or ``scripts/experiments/<name>.py``.

    Raises:
        FileNotFoundError: neither folder holds ``<name>.py``.
    """
    for folder in SCRIPT_FOLDERS:
        path = folder / f"{name}.py"
        if path.is_file():
            return path
    raise FileNotFoundError(f"expected {name}.py in scripts/ or scripts/experiments/, found neither")


def load_script(name: str):
    """The module of :func:`script_path` ``(name)``, executed once per call."""
    spec = importlib.util.spec_from_file_location(name, script_path(name))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def run_module(module: str, *args: str, stdin: bytes = b"", timeout: float = 300) -> subprocess.CompletedProcess:
    """``python -m module args...`` from the repository root with ``stdin`` as its input; output as bytes
    (a test decodes it, since what is under test may be how undecodable input is answered)."""
    return subprocess.run(
        [sys.executable, "-m", module, *args], input=stdin, capture_output=True, check=False, cwd=REPO_ROOT,
        timeout=timeout,
    )


def run_script(name: str, *args: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run the script in a separate Python process from the repository root (a benchmark pins its
    CPU and sets torch's thread count, which must not leak into the test process); output as text."""
    return subprocess.run(
        [sys.executable, str(script_path(name)), *args],
        check=False,
        cwd=REPO_ROOT,
        env={**os.environ, "PYTHONPATH": str(REPO_ROOT)},
        capture_output=True,
        text=True,
        timeout=timeout,
    )
