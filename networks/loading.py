"""Open any saved model as an evaluator: a weights file (torch) or an export folder (ONNX Runtime).

This is what a player spec such as ``mcts:model=PATH`` needs: ``PATH`` may be a checkpoint or an
exported model, and the caller only wants ``evaluate(observations, legal_mask)``. Torch is imported
only for weights files, so an export folder opens without it.
"""

from __future__ import annotations

import os
from pathlib import Path

from networks.onnx_evaluator import ONNX_FILE, SIDECAR_FILE, WEIGHTS_FILE, load_exported


def is_export(path: str | os.PathLike) -> bool:
    """True if ``path`` is an export folder or one of its files (``model.json``, ``.onnx``, ...)."""
    path = Path(path)
    if path.is_dir():
        return (path / SIDECAR_FILE).is_file()
    return path.name in (SIDECAR_FILE, ONNX_FILE, WEIGHTS_FILE) and (path.parent / SIDECAR_FILE).is_file()


def load_evaluator(
    path: str | os.PathLike,
    expected_game=None,
    device: str = "auto",
    backend: str = "auto",
    num_threads: int | None = None,
):
    """An evaluator for the model at ``path``.

    Args:
        path: a weights file from :func:`networks.checkpoint.save_model` (or a training checkpoint
            embedding one), or an export folder from :func:`networks.export.export_model`.
        expected_game: ``None``, a game id ``str``, or a game object; checked against the file.
        device: for the torch backend: ``"auto"``, ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.
        backend: ``"auto"`` (ONNX Runtime for an export folder, torch for a weights file),
            ``"onnx"`` or ``"torch"`` (an export folder is then rebuilt from its safetensors).
        num_threads: ``None`` (the library's default: one thread per core) or threads >= 1 for the
            network: ONNX Runtime's intra-op threads of this session, or for torch
            ``torch.set_num_threads`` (process-wide).

    Returns:
        A ``TorchEvaluator`` or an ``OnnxEvaluator``; both have ``evaluate(observations [B, C, H, W]
        float32, legal_mask [B, A] bool) -> (priors [B, A] float32, values [B] float32)``.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: for an unknown ``backend``, ``backend="onnx"`` with a weights file, ``num_threads``
            below 1, or any load
            error of :func:`networks.checkpoint.load_model` / :func:`networks.onnx_evaluator.load_exported`.
    """
    if backend not in ("auto", "onnx", "torch"):
        raise ValueError(f"backend: expected one of ['auto', 'onnx', 'torch'], got {backend!r}")
    if num_threads is not None and (isinstance(num_threads, bool) or int(num_threads) != num_threads or num_threads < 1):
        raise ValueError(f"num_threads: expected None or an integer >= 1, got {num_threads!r}")
    if not Path(path).exists():
        raise FileNotFoundError(f"model not found: {path}")
    exported = is_export(path)
    if backend == "onnx" and not exported:
        raise ValueError(f"{path}: backend 'onnx' needs an export folder (export-model CHECKPOINT OUT_DIR)")
    if exported and backend in ("auto", "onnx"):
        return load_exported(path, expected_game=expected_game, num_threads=num_threads)
    from networks.evaluator import TorchEvaluator  # heavy dependency (torch): imported where it is used

    if num_threads is not None:
        import torch  # heavy dependency (torch): imported where it is used

        torch.set_num_threads(int(num_threads))

    if exported:
        from networks.export import load_exported_torch  # heavy dependency (torch): imported where it is used

        model, _ = load_exported_torch(path, expected_game=expected_game)
    else:
        from networks.checkpoint import load_model  # heavy dependency (torch): imported where it is used

        model, _ = load_model(path, expected_game=expected_game)
    return TorchEvaluator(model, device=device)
