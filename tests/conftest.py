"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

from games.connect4.pons import data_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Pons' test sets: ``../shared/data/connect4`` beside the checkout, or ``$TABULA_PONS_DIR``
CONNECT4_TEST_SETS = data_dir()


@pytest.fixture
def connect4_test_sets() -> Path:
    """Folder of Pascal Pons' Connect Four test sets; skips the test when it is absent."""
    if not (CONNECT4_TEST_SETS / "Test_L3_R1").is_file():
        pytest.skip(f"Pons' test sets not found at {CONNECT4_TEST_SETS}")
    return CONNECT4_TEST_SETS
