"""Run ``train`` in a subprocess the way the fault tests need it, and read the error a composed
configuration is refused with."""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

from trainer.config import validate

REPO_ROOT = Path(__file__).resolve().parents[1]
#: the whole loop in seconds: a tiny tic-tac-toe run
TINY_TRAIN = [sys.executable, "-m", "trainer.cli", "experiment=tiny", "game=tictactoe"]


def run_train(command: list[str], fault: str | None = None, timeout: float = 300) -> subprocess.CompletedProcess:
    """Run ``command`` (a ``trainer.cli`` command line) from the repository root and return it.

    The environment is the test's, without a fault hook unless ``fault`` sets
    ``TABULA_RASA_FAULT``, and with a wide ``COLUMNS`` so that status messages do not wrap.
    """
    env = {key: value for key, value in os.environ.items() if key != "TABULA_RASA_FAULT"}
    env["COLUMNS"] = "1000"
    if fault:
        env["TABULA_RASA_FAULT"] = fault
    return subprocess.run(
        command, cwd=REPO_ROOT, env=env, capture_output=True, text=True, timeout=timeout, check=False
    )


def refusal(compose_fn, overrides: list[str]) -> str:
    """The message of the ``ValueError`` that ``trainer.config.validate`` raises for the config
    ``compose_fn(overrides)`` (the ``compose`` fixture of tests/conftest.py); fails the test when none is raised."""
    with pytest.raises(ValueError) as raised:
        validate(compose_fn(overrides))
    return str(raised.value)
