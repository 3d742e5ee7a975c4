"""Export a network for deployment: ONNX graph, safetensors weights and a JSON sidecar.

``export_model`` writes three files into a folder, each atomically (:mod:`games.atomic`), the
sidecar last so that its SHA-256 entries describe complete files:

* ``model.onnx``: ONNX opset ``OPSET`` (>= 17), input ``observation`` ``[batch, C, H, W]`` float32,
  outputs ``policy_logits`` ``[batch, A]`` float32 (unmasked) and ``value`` ``[batch]`` float32 in
  ``[-1, 1]`` for the player to move; the batch axis is dynamic.
* ``model.safetensors``: the state dict (safetensors: no code can run on load).
* ``model.json``: ``format``, ``format_version``, ``game`` (``name``, ``version``),
  ``observation_shape``, ``num_actions``, ``network`` (``NetworkConfig.to_dict()``),
  ``network_name``, ``inputs``/``outputs``, ``onnx_opset``, ``files``, ``sha256`` (per file),
  ``extra`` (training step, arena record, ... as given) and ``provenance``: where the model came
  from (:data:`networks.provenance.PROVENANCE_KEYS`; ``code`` is always filled in at export, the rest when the caller
  knows it, as ``train`` does). Files written before ``provenance`` existed load as before;
  :func:`networks.provenance.provenance_summary` reads either kind.

Read it back with :func:`networks.onnx_evaluator.load_exported` (ONNX Runtime, no torch) or with
:func:`load_exported_torch` (torch, from the safetensors weights).
"""

from __future__ import annotations

import copy
import io
import json
import os
import warnings
from pathlib import Path

import numpy as np
import torch

from games.atomic import atomic_write_bytes, atomic_write_json
from games.checks import is_int
from networks.checkpoint import (
    FORMAT,
    FORMAT_VERSION,
    ModelMetadata,
    check_plain,
    checked_model,
    model_from_payload,
)
from networks.config import NetworkConfig
from networks.model_utils import unwrap_model
from networks.onnx_evaluator import (
    EXPORT_FORMAT,
    EXPORT_FORMAT_VERSION,
    INPUT_NAME,
    ONNX_FILE,
    OUTPUT_NAMES,
    SIDECAR_FILE,
    WEIGHTS_FILE,
    OnnxEvaluator,
    load_exported,
    read_sidecar,
    session_options,
    sha256_file,
)
from networks.provenance import PROVENANCE_KEYS, code_version

#: ONNX opset written by :func:`export_model`.
OPSET = 17

#: Largest absolute difference between ONNX Runtime and torch outputs accepted by the check that
#: ``export_model`` runs after writing (the export promises "match within 1e-5"), as an absolute error for
#: outputs below 1 and a relative one above.
PARITY_TOLERANCE = 1e-5

__all__ = [
    "OPSET", "PARITY_TOLERANCE", "export_model", "load_exported", "load_exported_torch", "onnx_bytes",
    "onnx_runtime_evaluator",
]


def onnx_bytes(model: torch.nn.Module, opset: int = OPSET) -> bytes:
    """Serialise ``model`` (eval mode, CPU, float32) to ONNX with a dynamic batch axis.

    Uses the TorchScript-based exporter (``dynamo=False``), which needs no extra package; the
    module is traced, so the network must not branch on its input values.

    Raises:
        ValueError: if ``opset`` < 17 or the model lacks ``observation_shape``.
    """
    if not is_int(opset) or opset < 17:
        raise ValueError(f"opset: expected an int >= 17, got {opset!r}")
    model = unwrap_model(model)
    if not hasattr(model, "observation_shape"):
        raise ValueError(
            "model: expected an attribute 'observation_shape' (build it with networks.build_network)"
        )
    model = copy.deepcopy(model).to("cpu").float().eval()
    example = torch.zeros((2, *model.observation_shape), dtype=torch.float32)
    buffer = io.BytesIO()
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")  # the legacy exporter's deprecation and tracer warnings
        torch.onnx.export(
            model,
            (example,),
            buffer,
            dynamo=False,
            opset_version=opset,
            input_names=[INPUT_NAME],
            output_names=list(OUTPUT_NAMES),
            dynamic_axes={
                INPUT_NAME: {0: "batch"},
                OUTPUT_NAMES[0]: {0: "batch"},
                OUTPUT_NAMES[1]: {0: "batch"},
            },
            do_constant_folding=True,
        )
    return buffer.getvalue()


def onnx_runtime_evaluator(model: torch.nn.Module, game, network: NetworkConfig | dict, threads: int = 1):
    """An ONNX Runtime (CPU) evaluator of ``model``'s current weights, built in memory.

    What the self-play workers and the arena actor run on the CPU: the same outputs as
    ``networks.evaluator.TorchEvaluator`` within float rounding (``PARITY_TOLERANCE``), at 1.6-4.4x
    its positions per CPU second (docs/results/learning_efficiency.md, "Self-play cost per CPU second").
    Later changes to ``model`` are not seen: export again after new weights.

    Args:
        model: a network from ``networks.build_network`` (any device; exported as float32 on the CPU).
        game: the ``games.Game`` it plays (name, version, observation shape, actions: the metadata).
        network: its ``NetworkConfig`` (or ``to_dict()``), recorded in the metadata.
        threads: ONNX Runtime intra-op threads, >= 1.

    Returns:
        A ``networks.onnx_evaluator.OnnxEvaluator``.

    Raises:
        ValueError: if ``threads`` < 1, or as :func:`onnx_bytes`.
    """
    import onnxruntime  # heavy dependency (onnxruntime): imported where it is used

    if not is_int(threads) or threads < 1:
        raise ValueError(f"threads: expected an int >= 1, got {threads!r}")
    options = session_options(int(threads))  # one inter-op thread, no spinning (as every CPU session)
    session = onnxruntime.InferenceSession(onnx_bytes(model), sess_options=options, providers=["CPUExecutionProvider"])
    metadata = {
        "game": {"name": game.name, "version": int(game.version)},
        "observation_shape": list(game.observation_shape), "num_actions": int(game.num_actions),
        "network": network.to_dict() if isinstance(network, NetworkConfig) else dict(network),
    }
    return OnnxEvaluator(session, metadata)


def _check_parity(model: torch.nn.Module, folder: Path, seed: int = 0) -> float:
    evaluator = load_exported(folder, providers=["CPUExecutionProvider"])
    model = copy.deepcopy(model).to("cpu").float().eval()
    generator = np.random.default_rng(seed)
    worst = 0.0
    for batch in (1, 5):
        # stone planes are 0/1, as the games encode them
        observations = (generator.random((batch, *model.observation_shape)) < 0.3).astype(np.float32)
        with torch.inference_mode():
            logits, values = model(torch.from_numpy(observations))
        onnx_logits, onnx_values = evaluator.forward(observations)
        worst = max(
            worst,
            _relative_error(onnx_logits, logits.numpy()),
            _relative_error(onnx_values, values.numpy()),
        )
    if worst > PARITY_TOLERANCE:
        raise ValueError(
            f"{folder}: ONNX Runtime differs from torch by {worst:.3g}, expected at most {PARITY_TOLERANCE}"
        )
    return worst


def _relative_error(actual: np.ndarray, expected: np.ndarray) -> float:
    """``max |actual - expected| / max(1, |expected|)``: absolute below 1, relative above (float32
    rounding grows with the magnitude of a logit)."""
    return float((np.abs(actual - expected) / np.maximum(1.0, np.abs(expected))).max())


def export_model(
    model: torch.nn.Module,
    config: NetworkConfig,
    game_name: str,
    game_version: int,
    out_dir: str | os.PathLike,
    extra: dict | None = None,
    opset: int = OPSET,
    verify: bool = True,
    provenance: dict | None = None,
) -> Path:
    """Write ``model.onnx``, ``model.safetensors`` and ``model.json`` into ``out_dir``.

    Args:
        model: a network from :func:`networks.build_network` (any device; it is not modified).
        config: its ``NetworkConfig``.
        game_name, game_version: the game id and rules version.
        out_dir: the folder (created if missing; existing export files in it are replaced).
        extra: plain-typed extras for the sidecar (``training_step``, ``arena`` record, ...); must be
            JSON-serialisable.
        opset: ONNX opset, >= 17.
        verify: run ONNX Runtime on random inputs at batch sizes 1 and 5 and require agreement with
            torch within ``PARITY_TOLERANCE``.
        provenance: where the model came from, keys of ``networks.provenance.PROVENANCE_KEYS``
            (plain, JSON); ``code`` is filled in with ``networks.provenance.code_version()`` when missing.

    Returns:
        ``out_dir`` as a ``Path``.

    Raises:
        ValueError: for a bad ``config``, ``game_name``, ``game_version``, ``opset``, a non-plain or
            non-JSON ``extra`` or ``provenance``, a ``provenance`` key outside
            ``PROVENANCE_KEYS``, or (``verify``) an ONNX/torch mismatch.
    """
    # heavy dependency (safetensors): imported where it is used
    from safetensors.torch import save as safetensors_save

    model, _, _ = checked_model(model, config, game_name, game_version)
    extra = _plain_json("extra", extra)
    provenance = _plain_json("provenance", provenance)
    unknown = sorted(set(provenance) - set(PROVENANCE_KEYS))
    if unknown:
        raise ValueError(f"provenance: unknown keys {unknown}; expected some of {list(PROVENANCE_KEYS)}")
    provenance.setdefault("code", code_version())

    folder = Path(out_dir)
    folder.mkdir(parents=True, exist_ok=True)
    graph = onnx_bytes(model, opset)
    state_dict = {key: value.detach().to("cpu").contiguous() for key, value in model.state_dict().items()}
    weights = safetensors_save(state_dict, metadata={"game": game_name, "network": config.name})
    atomic_write_bytes(folder / ONNX_FILE, graph)
    atomic_write_bytes(folder / WEIGHTS_FILE, weights)
    observation_shape = [int(v) for v in model.observation_shape]
    sidecar = {
        "format": EXPORT_FORMAT,
        "format_version": EXPORT_FORMAT_VERSION,
        "game": {"name": game_name, "version": game_version},
        "observation_shape": observation_shape,
        "num_actions": int(model.num_actions),
        "network": config.to_dict(),
        "network_name": config.name,
        "onnx_opset": opset,
        "inputs": {INPUT_NAME: {"shape": ["batch", *observation_shape], "dtype": "float32"}},
        "outputs": {
            OUTPUT_NAMES[0]: {
                "shape": ["batch", int(model.num_actions)],
                "dtype": "float32",
                "masked": False,
            },
            OUTPUT_NAMES[1]: {
                "shape": ["batch"],
                "dtype": "float32",
                "range": [-1, 1],
                "view": "player to move",
            },
        },
        "files": {"onnx": ONNX_FILE, "weights": WEIGHTS_FILE},
        "sha256": {
            ONNX_FILE: sha256_file(folder / ONNX_FILE),
            WEIGHTS_FILE: sha256_file(folder / WEIGHTS_FILE),
        },
        "torch_version": torch.__version__,
        "extra": extra,
        "provenance": provenance,
    }
    atomic_write_json(folder / SIDECAR_FILE, sidecar)
    if verify:
        _check_parity(model, folder)
    return folder


def _plain_json(what: str, values: dict | None) -> dict:
    """``values`` as a plain dict that JSON can write; ValueError naming ``what`` otherwise."""
    values = check_plain(dict(values or {}), what)
    try:
        json.dumps(values, allow_nan=False)
    except (TypeError, ValueError) as error:
        raise ValueError(f"{what}: expected JSON-serialisable plain values ({error})") from error
    return values


def load_exported_torch(path: str | os.PathLike, expected_game=None) -> tuple[torch.nn.Module, ModelMetadata]:
    """Rebuild the torch network of an export folder from ``model.safetensors`` and ``model.json``.

    Args:
        path: the export folder (or a file in it).
        expected_game: as :func:`networks.checkpoint.load_model`.

    Returns:
        ``(model, metadata)`` like :func:`networks.checkpoint.load_model`.

    Raises:
        FileNotFoundError: if the folder, the sidecar or the weights file is missing.
        ValueError: if the weights do not match the SHA-256 in the sidecar, cannot be read, or do
            not fit the network or the expected game.
    """
    from safetensors import SafetensorError  # heavy dependency (safetensors): imported where it is used
    from safetensors.torch import load_file

    sidecar = read_sidecar(path)
    folder = Path(path) if Path(path).is_dir() else Path(path).parent
    weights_path = folder / sidecar["files"].get("weights", WEIGHTS_FILE)
    if not weights_path.is_file():
        raise FileNotFoundError(f"{folder}: no {weights_path.name}")
    expected_hash = sidecar.get("sha256", {}).get(weights_path.name)
    if expected_hash is not None and sha256_file(weights_path) != expected_hash:
        raise ValueError(
            f"{weights_path}: SHA-256 differs from the one in {SIDECAR_FILE}; re-export the model"
        )
    try:
        state_dict = load_file(str(weights_path), device="cpu")
    except (SafetensorError, OSError, ValueError) as error:
        raise ValueError(f"{weights_path}: cannot read safetensors weights ({error})") from error
    payload = {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": sidecar["game"],
        "observation_shape": sidecar["observation_shape"],
        "num_actions": sidecar["num_actions"],
        "network": sidecar["network"],
        "state_dict": state_dict,
        "extra": sidecar.get("extra", {}),
    }
    return model_from_payload(payload, expected_game, source=str(weights_path))
