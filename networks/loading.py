"""Open any saved model as an evaluator: a weights file (torch) or an export folder (ONNX Runtime).

This is what a player spec such as ``mcts:model=PATH`` needs: ``PATH`` may be a checkpoint, an
exported model, a run folder of ``train`` (its ``best/`` is used) or the name of a shipped model
(``networks.shipped``), and the caller only wants ``evaluate(observations, legal_mask)``. Torch is
imported only for weights files, so an export folder opens without it.
"""

from __future__ import annotations

import os
from pathlib import Path

from networks.onnx_evaluator import ONNX_FILE, SIDECAR_FILE, WEIGHTS_FILE, load_exported, read_sidecar
from networks.provenance import play_search, provenance_summary
from networks.shipped import shipped_names, shipped_path

#: the folder of a ``train`` run that holds its promoted model
BEST_FOLDER = "best"

#: the game whose shipped model ``play`` opens when given neither a model nor a game
DEFAULT_GAME = "connect4"


def is_export(path: str | os.PathLike) -> bool:
    """True if ``path`` is an export folder or one of its files (``model.json``, ``.onnx``, ...)."""
    path = Path(path)
    if path.is_dir():
        return (path / SIDECAR_FILE).is_file()
    return path.name in (SIDECAR_FILE, ONNX_FILE, WEIGHTS_FILE) and (path.parent / SIDECAR_FILE).is_file()


def resolve_model(text: str | os.PathLike | None, game_name: str | None = None) -> tuple[Path, str | None]:
    """The model file or folder that ``text`` names, and a note to show the user (or None).

    In order: an existing export folder or model file is itself; a ``train`` run folder (one with
    ``best/``) means its ``best/``, with a note saying so; a name that is not a path is a shipped
    model (``networks.shipped``). ``None`` means the shipped model named after ``game_name`` (or,
    without a game, after ``DEFAULT_GAME``, else the first one shipped), with a note.

    Raises:
        FileNotFoundError: for a path that does not exist and is no shipped model's name, or
            ``None`` where no shipped model fits; the message lists the shipped models.
        ValueError: for an existing folder that is neither an export nor a run folder.
    """
    shipped = shipped_names()
    if text is None:
        wanted = game_name if game_name is not None else (DEFAULT_GAME if DEFAULT_GAME in shipped else None)
        if wanted is None and shipped:
            wanted = shipped[0]
        found = shipped_path(wanted) if wanted is not None else None
        if found is None:
            raise FileNotFoundError(
                f"no model given and no shipped model for {wanted or 'any game'}; expected --model PATH "
                f"(an export folder, a run folder or a .pt file) or a shipped model name: {shipped}"
            )
        return found, f"playing the shipped {wanted} model ({found})"
    path = Path(text).expanduser()
    if path.exists():
        if path.is_dir() and not is_export(path):
            best = path / BEST_FOLDER
            if is_export(best) or (best / "model.pt").is_file():
                return best, f"{path} is a training run folder: using its promoted model {best}"
            raise ValueError(
                f"{path}: expected an export folder (with {SIDECAR_FILE}), a training run folder (with "
                f"{BEST_FOLDER}/) or a .pt file"
            )
        return path, None
    found = shipped_path(str(text))
    if found is not None:
        return found, None
    raise FileNotFoundError(
        f"model not found: {text}; expected a path (export folder, run folder or .pt file) or a shipped "
        f"model name: {shipped}"
    )


def model_summary(path: str | os.PathLike) -> str | None:
    """The one-line provenance summary of the export at ``path`` (``networks.provenance``), or None
    for a weights file (its provenance is read only when exported)."""
    if not is_export(path):
        return None
    return provenance_summary(read_sidecar(path))


def model_play_search(path: str | os.PathLike) -> tuple[str, dict] | None:
    """The search the model at ``path`` (anything :func:`resolve_model` takes) records it should
    be played with (``networks.provenance.play_search``), or None for a weights file or an export
    without that record."""
    path, _ = resolve_model(path)
    return play_search(read_sidecar(path)) if is_export(path) else None


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
            embedding one), an export folder from :func:`networks.export.export_model`, a run
            folder or a shipped model's name (:func:`resolve_model`).
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
        FileNotFoundError: if ``path`` does not exist (as :func:`resolve_model`).
        ValueError: for a folder that holds no model, an unknown ``backend``, ``backend="onnx"`` with a weights file, ``num_threads``
            below 1, or any load
            error of :func:`networks.checkpoint.load_model` / :func:`networks.onnx_evaluator.load_exported`.
    """
    if backend not in ("auto", "onnx", "torch"):
        raise ValueError(f"backend: expected one of ['auto', 'onnx', 'torch'], got {backend!r}")
    if num_threads is not None and (isinstance(num_threads, bool) or int(num_threads) != num_threads or num_threads < 1):
        raise ValueError(f"num_threads: expected None or an integer >= 1, got {num_threads!r}")
    path, _ = resolve_model(path)
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
