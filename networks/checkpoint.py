"""Model weights files: the network's weights plus what is needed to rebuild and check it.

A weights file is ``torch.save`` of one dict holding only tensors and plain Python types, so it loads with ``weights_only=True``::

    {
        "format": "tabula-rasa-model", "format_version": 1,
        "game": {"name": str, "version": int},
        "observation_shape": [C, H, W], "num_actions": A,
        "network": NetworkConfig.to_dict(),
        "state_dict": {name: tensor},   # CPU tensors
        "extra": {...},                 # plain types: training step, arena record, ...
    }

It is written atomically (:mod:`games.atomic`) and read with ``torch.load(weights_only=True)``,
so a crafted pickle cannot run code. A training checkpoint may embed the same dict under the key
``"model"`` (see :func:`model_payload`); :func:`load_model` accepts both. Every load error is a
``ValueError`` that names the file and says what was expected and what was found (KataGo's rule:
a load error says exactly what does not match).
"""

from __future__ import annotations

import io
import os
import re
from dataclasses import dataclass, field
from pathlib import Path

import numpy as np
import torch

from games.atomic import atomic_write_bytes
from games.checks import is_int
from networks import build_network
from networks.config import NetworkConfig
from networks.model_utils import unwrap_model

FORMAT = "tabula-rasa-model"
FORMAT_VERSION = 1


@dataclass(frozen=True)
class ModelMetadata:
    """What a weights file says about its model.

    Attributes:
        game_name, game_version: the game id and rules version the model was trained on.
        observation_shape: ``(C, H, W)``; num_actions: ``A``.
        config: the ``NetworkConfig``.
        extra: the plain-typed extras given to :func:`save_model` (training step, arena record...).
        path: the file it was read from (``None`` for an in-memory payload).
    """

    game_name: str
    game_version: int
    observation_shape: tuple[int, int, int]
    num_actions: int
    config: NetworkConfig
    extra: dict = field(default_factory=dict)
    path: str | None = None


def check_plain(value, where: str = "extra"):
    """Return ``value`` with numpy scalars turned into Python ones; reject anything not plain.

    Plain means ``None``, ``bool``, ``int``, ``float``, ``str``, ``torch.Tensor``, and lists, tuples
    and dicts with ``str`` keys of those, which is what ``torch.load(weights_only=True)`` reads back.

    Raises:
        ValueError: naming the path of the first offending entry (e.g. ``extra['arena']['elo']``) and
            its type.
    """
    if value is None or isinstance(value, (bool, int, float, str, torch.Tensor)):
        return value
    if isinstance(value, np.generic):
        return value.item()
    if isinstance(value, (list, tuple)):
        items = [check_plain(item, f"{where}[{i}]") for i, item in enumerate(value)]
        return tuple(items) if isinstance(value, tuple) else items  # a namedtuple becomes a tuple
    if isinstance(value, dict):
        out = {}
        for key, item in value.items():
            if not isinstance(key, str):
                raise ValueError(f"{where}: expected str keys, got {type(key).__name__} key {key!r}")
            out[key] = check_plain(item, f"{where}[{key!r}]")
        return out
    raise ValueError(
        f"{where}: expected only None, bool, int, float, str, tensors, and lists/tuples/dicts of them, "
        f"got {type(value).__name__}"
    )


def checked_model(
    model: torch.nn.Module, config: NetworkConfig, game_name: str, game_version: int
) -> tuple[torch.nn.Module, list[int], int]:
    """The model to save (unwrapped from ``torch.compile``/DDP), its observation shape and action
    count, after checking what a saved model is filed under (used by ``model_payload`` and
    ``networks.export.export_model``).

    Raises:
        ValueError: if ``config`` is not a ``NetworkConfig``, ``game_name`` is not a non-empty str,
            ``game_version`` not an int, or the model lacks ``observation_shape``/``num_actions``.
    """
    if not isinstance(config, NetworkConfig):
        raise ValueError(f"config: expected a NetworkConfig, got {type(config).__name__}")
    if not isinstance(game_name, str) or not game_name:
        raise ValueError(f"game_name: expected a non-empty str, got {game_name!r}")
    if not is_int(game_version):
        raise ValueError(f"game_version: expected an int, got {game_version!r}")
    model = unwrap_model(model)
    for attribute in ("observation_shape", "num_actions"):
        if not hasattr(model, attribute):
            raise ValueError(
                f"model: expected an attribute {attribute!r} (build it with networks.build_network)"
            )
    return model, [int(v) for v in model.observation_shape], int(model.num_actions)


def model_payload(
    model: torch.nn.Module,
    config: NetworkConfig,
    game_name: str,
    game_version: int,
    extra: dict | None = None,
) -> dict:
    """The dict a weights file holds (see module docstring), with CPU copies of the weights.

    A training checkpoint can store it under ``"model"`` so that :func:`load_model` and
    ``export-model`` read the model out of it.

    Raises:
        ValueError: if ``config`` is not a ``NetworkConfig``, ``game_name`` is not a non-empty str,
            ``game_version`` not an int, the model lacks ``observation_shape``/``num_actions``, a
            weight is not finite, or ``extra`` holds a non-plain value (its path is named).
    """
    model, observation_shape, num_actions = checked_model(model, config, game_name, game_version)
    state_dict = {}
    for key, value in model.state_dict().items():
        tensor = value.detach().to("cpu", copy=True)
        if tensor.is_floating_point() and not bool(torch.isfinite(tensor).all()):
            raise ValueError(f"refusing to save non-finite weights: {key!r} holds NaN or infinity")
        state_dict[key] = tensor
    return {
        "format": FORMAT,
        "format_version": FORMAT_VERSION,
        "game": {"name": game_name, "version": game_version},
        "observation_shape": observation_shape,
        "num_actions": num_actions,
        "network": config.to_dict(),
        "state_dict": state_dict,
        "extra": check_plain(dict(extra or {})),
    }


def save_model(
    path: str | os.PathLike,
    model: torch.nn.Module,
    config: NetworkConfig,
    game_name: str,
    game_version: int,
    extra: dict | None = None,
) -> Path:
    """Write a model weights file atomically (temp file in the same folder, fsync, ``os.replace``).

    Args:
        path: destination file; its folder must exist.
        model: a network from :func:`networks.build_network` (any device; saved as CPU tensors).
        config: the ``NetworkConfig`` it was built from.
        game_name, game_version: the game id and its ``version``.
        extra: plain-typed extras (training step, arena record, ...); see :func:`check_plain`.

    Returns:
        ``path`` as a ``Path``.

    Raises:
        ValueError: as :func:`model_payload`.
        FileNotFoundError: if the destination folder does not exist.
    """
    payload = model_payload(model, config, game_name, game_version, extra)
    return atomic_torch_save(payload, path)


def _expected_game(expected_game) -> tuple[str | None, int | None, tuple | None, int | None]:
    if expected_game is None:
        return None, None, None, None
    if isinstance(expected_game, str):
        return expected_game, None, None, None
    if hasattr(expected_game, "name"):
        shape = getattr(expected_game, "observation_shape", None)
        actions = getattr(expected_game, "num_actions", None)
        return (
            expected_game.name,
            getattr(expected_game, "version", None),
            tuple(int(v) for v in shape) if shape is not None else None,
            int(actions) if actions is not None else None,
        )
    raise ValueError(
        f"expected_game: expected None, a game id str or a game object, got {type(expected_game).__name__}"
    )


def describe_load_error(error: Exception) -> str:
    """One line on why ``torch.load(weights_only=True)`` refused a file.

    torch's own message advises retrying with ``weights_only=False``, which would run whatever code
    the file carries; we never do, and say what was found instead.
    """
    text = str(error)
    forbidden = re.search(r"GLOBAL ([\w.]+)", text)
    if forbidden:
        return (
            f"it refers to the Python object {forbidden[1]!r}, which a weights file never holds; "
            "refused without running it (a crafted or foreign pickle)"
        )
    lines = [line.strip() for line in text.splitlines() if line.strip()]
    boilerplate = ("Weights only load failed", "Check the documentation", "Please file an issue")
    useful = [line for line in lines if not line.startswith(boilerplate)]
    detail = (useful or lines or [""])[0]
    if len(detail) > 160:
        detail = detail[:157] + "..."
    return f"the file is truncated, corrupt or not such a file ({type(error).__name__}: {detail})"


def _read_payload(path: Path, map_location) -> dict:
    if not path.exists():
        raise FileNotFoundError(f"model weights file not found: {path}")
    if path.is_dir():
        raise ValueError(
            f"{path} is a folder; expected a model weights file written by networks.checkpoint.save_model"
        )
    try:
        obj = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # truncated zip, random bytes, a forbidden global in the pickle...
        raise ValueError(
            f"cannot read model weights from {path}: expected a file written by "
            "networks.checkpoint.save_model (torch.save of tensors and plain types, read with "
            f"weights_only=True); {describe_load_error(error)}"
        ) from error
    if isinstance(obj, dict) and obj.get("format") != FORMAT and isinstance(obj.get("model"), dict):
        obj = obj["model"]  # a training checkpoint embedding model_payload()
    if not isinstance(obj, dict) or obj.get("format") != FORMAT:
        found = (
            f"a dict with keys {sorted(map(str, obj))[:10]}" if isinstance(obj, dict) else type(obj).__name__
        )
        raise ValueError(
            f"{path}: expected a dict with format {FORMAT!r} (or one under key 'model'), found {found}"
        )
    if obj.get("format_version") != FORMAT_VERSION:
        raise ValueError(
            f"{path}: expected format_version {FORMAT_VERSION}, found {obj.get('format_version')!r}"
        )
    return obj


def model_from_payload(
    payload: dict, expected_game=None, expected_config: NetworkConfig | None = None, source: str = "payload"
) -> tuple[torch.nn.Module, ModelMetadata]:
    """Rebuild the network of a :func:`model_payload` dict and check it against expectations.

    Arguments and errors as :func:`load_model`; ``source`` names the origin in messages.
    """
    required = ("game", "observation_shape", "num_actions", "network", "state_dict")
    missing_fields = [key for key in required if key not in payload]
    if missing_fields:
        raise ValueError(f"{source}: missing field(s) {missing_fields} of a {FORMAT!r} file")
    try:
        game_name = str(payload["game"]["name"])
        game_version = int(payload["game"]["version"])
        observation_shape = tuple(int(v) for v in payload["observation_shape"])
        num_actions = int(payload["num_actions"])
        config = NetworkConfig.from_dict(payload["network"])
    except (KeyError, TypeError, ValueError) as error:
        raise ValueError(f"{source}: malformed metadata: {error}") from error

    want_name, want_version, want_shape, want_actions = _expected_game(expected_game)
    if want_name is not None and game_name != want_name:
        raise ValueError(
            f"{source}: checkpoint is for game {game_name!r} (version {game_version}), expected {want_name!r}"
        )
    if want_version is not None and game_version != want_version:
        raise ValueError(
            f"{source}: checkpoint is for {game_name!r} version {game_version}, "
            f"expected version {want_version} "
            "(the rules or the encoding changed since it was trained)"
        )
    if want_shape is not None and observation_shape != want_shape:
        raise ValueError(
            f"{source}: observation shape {list(observation_shape)}, expected {list(want_shape)}"
        )
    if want_actions is not None and num_actions != want_actions:
        raise ValueError(f"{source}: {num_actions} actions, expected {want_actions}")
    if expected_config is not None and config != expected_config:
        raise ValueError(
            f"{source}: network is {config.name} {config.to_dict()}, expected {expected_config.name} "
            f"{expected_config.to_dict()}"
        )

    model = build_network(config, observation_shape, num_actions)
    own = model.state_dict()
    state_dict = payload["state_dict"]
    if not isinstance(state_dict, dict):
        raise ValueError(f"{source}: state_dict is a {type(state_dict).__name__}, expected a dict of tensors")
    missing = sorted(set(own) - set(state_dict))
    unexpected = sorted(set(state_dict) - set(own))
    if missing or unexpected:
        raise ValueError(
            f"{source}: weights do not fit network {config.name} for {game_name}: "
            f"missing keys {missing}, unexpected keys {unexpected}"
        )
    for key, tensor in state_dict.items():
        if not isinstance(tensor, torch.Tensor):
            raise ValueError(f"{source}: state_dict[{key!r}] is a {type(tensor).__name__}, expected a tensor")
        if tuple(tensor.shape) != tuple(own[key].shape):
            raise ValueError(
                f"{source}: state_dict[{key!r}] has shape {list(tensor.shape)}, network {config.name} "
                f"expects {list(own[key].shape)}"
            )
    model.load_state_dict(state_dict, strict=True)
    model.eval()
    metadata = ModelMetadata(
        game_name=game_name,
        game_version=game_version,
        observation_shape=observation_shape,
        num_actions=num_actions,
        config=config,
        extra=dict(payload.get("extra") or {}),
        path=None if source == "payload" else source,
    )
    return model, metadata


def load_model(
    path: str | os.PathLike,
    expected_game=None,
    map_location="cpu",
    expected_config: NetworkConfig | None = None,
) -> tuple[torch.nn.Module, ModelMetadata]:
    """Load a weights file written by :func:`save_model` (or a checkpoint embedding one).

    Reads with ``torch.load(weights_only=True)`` and an explicit ``map_location``, so no code in the
    file runs and a GPU-saved file loads on a CPU-only machine.

    Args:
        path: the file.
        expected_game: ``None`` (no check), a game id ``str`` (checks the name), or a game object
            (checks ``name``, ``version``, ``observation_shape`` and ``num_actions`` where present).
        map_location: passed to ``torch.load``; ``"cpu"`` by default.
        expected_config: if given, the file's ``NetworkConfig`` must equal it.

    Returns:
        ``(model, metadata)``: the network in eval mode on CPU (move it yourself, or hand it to
        ``TorchEvaluator``), and a :class:`ModelMetadata`.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the file is a folder, truncated, random bytes, a pickle with forbidden content
            (never executed), another format, another game or game version, another network, or its
            weights have missing, unexpected or wrongly shaped keys; the message names the file and
            the mismatch.
    """
    path = Path(path)
    payload = _read_payload(path, map_location)
    return model_from_payload(payload, expected_game, expected_config, source=str(path))


def atomic_torch_save(obj, path: str | os.PathLike) -> Path:
    """``torch.save(obj)`` to ``path`` atomically.

    The object is serialised to memory first, so a serialisation error leaves no temporary file.
    Save only tensors and plain Python types, so that ``torch.load(weights_only=True)`` can read it
    back (checkpoints hold only tensors and plain Python types).

    Raises:
        FileNotFoundError: as :func:`atomic_write`.
        Whatever ``torch.save`` raises for an unpicklable object.
    """
    buffer = io.BytesIO()
    torch.save(obj, buffer)
    return atomic_write_bytes(path, buffer.getvalue())
