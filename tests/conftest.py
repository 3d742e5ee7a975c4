"""Shared pytest fixtures."""

from __future__ import annotations

from pathlib import Path

import pytest

import games
from arena.positions.pons import data_dir

REPO_ROOT = Path(__file__).resolve().parents[1]
#: Pons' test sets: ``../shared/data/connect4`` beside the checkout, or ``$TABULA_PONS_DIR``
CONNECT4_TEST_SETS = data_dir()


@pytest.fixture
def connect4_test_sets() -> Path:
    """Folder of Pascal Pons' Connect Four test sets; skips the test when it is absent."""
    if not (CONNECT4_TEST_SETS / "Test_L3_R1").is_file():
        pytest.skip(f"Pons' test sets not found at {CONNECT4_TEST_SETS}")
    return CONNECT4_TEST_SETS


@pytest.fixture(scope="module")
def connect4():
    """The Connect Four rules object (``games.make("connect4")``), one per test module."""
    return games.make("connect4")


@pytest.fixture(scope="module")
def tictactoe():
    """The tic-tac-toe rules object (``games.make("tictactoe")``), one per test module."""
    return games.make("tictactoe")


@pytest.fixture
def one_torch_thread():
    """Torch on one thread for the test: tiny networks run faster so than on cores shared with other
    processes. Modules use it with ``pytestmark = pytest.mark.usefixtures("one_torch_thread")``."""
    import torch  # only the modules that ask for it pay for importing torch

    threads = torch.get_num_threads()
    torch.set_num_threads(1)
    yield
    torch.set_num_threads(threads)


@pytest.fixture(scope="module")
def compose():
    """``compose(overrides)``: the typed train config (``trainer.config.TrainSchema``) that ``train``
    builds from configs/train.yaml and the Hydra override strings ``overrides``."""
    # Hydra and trainer/ (torch, Ray) are imported only by the modules that compose a config
    from hydra import compose as hydra_compose
    from hydra import initialize_config_dir

    from trainer.cli import CONFIG_DIR
    from trainer.config import to_train_config

    with initialize_config_dir(config_dir=CONFIG_DIR, version_base="1.3"):
        yield lambda overrides: to_train_config(hydra_compose("train", overrides=overrides))
