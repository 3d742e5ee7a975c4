"""A tiny exported model for the tests of the commands that load one (``play``, ``arena``, the API)."""

from __future__ import annotations

from pathlib import Path

import pytest

import games


def export_tiny_mlp(game_name: str, folder: Path, seed: int = 0) -> Path:
    """Export a random MLP (hidden 16, value hidden 8; torch seed ``seed``) for ``game_name`` into ``folder``,
    laid out like a run's ``best/`` (ONNX, safetensors, JSON sidecar); returns the folder.

    Skips the calling test when torch is not installed.
    """
    torch = pytest.importorskip("torch")
    from networks import NetworkConfig, build_network
    from networks.export import export_model

    game = games.make(game_name)
    torch.manual_seed(seed)
    config = NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8)
    model = build_network(config, game.observation_shape, game.num_actions)
    return export_model(model, config, game.name, game.version, folder)
