"""Full training checkpoints: model, optimiser, schedule, counters, RNG states, config, replay buffer.

Layout under a run directory::

    checkpoints/
        buffer_00001200.npz   replay buffer (ReplayBuffer.save; numpy, no pickle)
        ckpt_00001200.pt      everything else; written after the buffer file: the commit point
        latest                text: the file name of the newest checkpoint (for people and tools)

A checkpoint file is ``torch.save`` of one dict holding only tensors and plain Python types, so it
loads with ``torch.load(weights_only=True, map_location="cpu")`` (plain contents only)::

    {
        "format": "tabula-rasa-checkpoint", "format_version": 1,
        "step": int,                       # optimiser steps at save time (the file's name)
        "model": networks.checkpoint.model_payload(...),   # also readable by networks.load_model
        "learner": {"optimizer", "scheduler", "counters", "hyperparameters"},   # Learner.state_dict
        "counters": {...},                 # the caller's (games played, positions, versions...)
        "rng_states": {...},               # capture_rng_states(): numpy states as dicts, torch as tensors
        "config": {...},                   # the resolved run configuration, plain values
        "code_version": str,
        "game": {"name": str, "version": int},
        "buffer_file": "buffer_00001200.npz" or None,
        "extra": {...},                    # the caller's tensors and plain values (best weights...)
    }

Atomicity (an exception halfway through a write, or two Ctrl-C, leaves the previous checkpoint intact). Each file goes to a temporary name in the same folder, is fsync-ed and
renamed over its destination (:mod:`games.atomic`). The buffer file is written first and the
checkpoint file last, so a checkpoint file that exists names a buffer file that is complete. An
exception or a kill at any point leaves the previous checkpoint as it was. Old checkpoints beyond
the last ``keep_last``, checkpoints with a step above the one just written (left by a run that was
resumed from an older checkpoint because the newer one was unreadable), and buffer files without a
kept checkpoint are deleted only after the new checkpoint is in place.

Loading (a missing key, an extra key or another game's checkpoint is an error naming the mismatch). :func:`load_latest_checkpoint` tries checkpoints newest first and skips, with
a warning, one that is truncated, corrupt, or whose buffer file is missing or has any entry that
does not read back whole (every entry's CRC-32 is checked, not only the zip directory);
temporary files are never considered. :func:`restore_checkpoint` checks the game, the network
configuration and every key and shape before changing anything it restores into, and raises
``ValueError`` naming the mismatch.
"""

from __future__ import annotations

import os
import re
import subprocess
import warnings
from collections.abc import Callable, Mapping
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import torch

from games.atomic import atomic_write, atomic_write_text
from games.base import Game
from games.checks import is_int
from networks.checkpoint import check_plain, describe_load_error, model_payload
from networks.config import NetworkConfig
from selfplay.buffer_file import verify_buffer_file
from selfplay.replay_buffer import ReplayBuffer, read_buffer_file, write_buffer_file
from trainer.learner import Learner

CHECKPOINT_FORMAT = "tabula-rasa-checkpoint"
CHECKPOINT_FORMAT_VERSION = 1
CHECKPOINT_FOLDER = "checkpoints"
LATEST_FILE = "latest"

#: Top-level keys of a checkpoint file.
CHECKPOINT_KEYS = (
    "format",
    "format_version",
    "step",
    "model",
    "learner",
    "counters",
    "rng_states",
    "config",
    "code_version",
    "game",
    "buffer_file",
    "extra",
)

_CHECKPOINT_NAME = re.compile(r"^ckpt_(\d{8,})\.pt$")
_BUFFER_NAME = re.compile(r"^buffer_(\d{8,})\.npz$")


def checkpoint_folder(run_dir: str | os.PathLike) -> Path:
    """``run_dir / "checkpoints"``."""
    return Path(run_dir) / CHECKPOINT_FOLDER


def checkpoint_file(run_dir: str | os.PathLike, step: int) -> Path:
    """``run_dir/checkpoints/ckpt_{step:08d}.pt``."""
    return checkpoint_folder(run_dir) / f"ckpt_{int(step):08d}.pt"


def buffer_file(run_dir: str | os.PathLike, step: int) -> Path:
    """``run_dir/checkpoints/buffer_{step:08d}.npz``."""
    return checkpoint_folder(run_dir) / f"buffer_{int(step):08d}.npz"


# ---------------------------------------------------------------------------------- RNG states
def capture_rng_states(generators: Mapping[str, np.random.Generator] | None = None) -> dict:
    """The states of named numpy generators and of torch's global generators, as plain values.

    Args:
        generators: ``{name: numpy.random.Generator}`` (e.g. the trainer's sampling generator).

    Returns:
        ``{"numpy": {name: bit_generator.state dict}, "torch": uint8 tensor,
        "torch_cuda": [uint8 tensor per device]}`` (``torch_cuda`` empty without CUDA).

    Raises:
        ValueError: if a value is not a ``numpy.random.Generator`` or a name is not a str.
    """
    numpy_states = {}
    for name, generator in dict(generators or {}).items():
        if not isinstance(name, str) or not isinstance(generator, np.random.Generator):
            raise ValueError(
                "generators: expected str names of numpy.random.Generator, "
                f"got {name!r}: {type(generator).__name__}"
            )
        numpy_states[name] = check_plain(generator.bit_generator.state, f"generators[{name!r}]")
    cuda_states = (
        [state.clone() for state in torch.cuda.get_rng_state_all()] if torch.cuda.is_available() else []
    )
    return {"numpy": numpy_states, "torch": torch.get_rng_state().clone(), "torch_cuda": cuda_states}


def restore_rng_states(states: Mapping, generators: Mapping[str, np.random.Generator] | None = None) -> None:
    """Put back the states :func:`capture_rng_states` captured.

    Every generator named in ``generators`` must have a saved state; saved states without a
    generator are ignored. Torch's CPU state is restored; CUDA states are restored when CUDA is
    present and as many devices were saved.

    Raises:
        ValueError: if the saved states lack ``"numpy"``/``"torch"`` or a generator's name, or the
            saved state is of another bit generator.
    """
    for key in ("numpy", "torch"):
        if key not in states:
            raise ValueError(f"rng_states: missing key {key!r}")
    for name, generator in dict(generators or {}).items():
        if name not in states["numpy"]:
            raise ValueError(
                f"rng_states: no saved state for generator {name!r}; saved: {sorted(states['numpy'])}"
            )
        saved = states["numpy"][name]
        kind = type(generator.bit_generator).__name__
        if saved.get("bit_generator") != kind:
            raise ValueError(
                f"rng_states[{name!r}]: saved for {saved.get('bit_generator')!r}, generator is {kind!r}"
            )
        generator.bit_generator.state = saved
    torch.set_rng_state(states["torch"].cpu())
    cuda_states = states.get("torch_cuda") or []
    if torch.cuda.is_available() and cuda_states and len(cuda_states) == torch.cuda.device_count():
        torch.cuda.set_rng_state_all([state.cpu() for state in cuda_states])


# ---------------------------------------------------------------------------------- save
def _to_cpu(value):
    if isinstance(value, torch.Tensor):
        return value.detach().to("cpu", copy=True)
    if isinstance(value, dict):
        return {key: _to_cpu(item) for key, item in value.items()}
    if isinstance(value, (list, tuple)):
        return type(value)(_to_cpu(item) for item in value)
    return value


def _game_of(game, buffer) -> Game:
    if game is None and isinstance(buffer, ReplayBuffer):
        game = buffer.game
    if not isinstance(game, Game):
        raise ValueError(
            "game: expected a games.Game (needed when buffer is not a ReplayBuffer), "
            f"got {type(game).__name__}"
        )
    return game


def _network_config_of(model: torch.nn.Module, network_config) -> NetworkConfig:
    config = network_config if network_config is not None else getattr(model, "config", None)
    if not isinstance(config, NetworkConfig):
        raise ValueError(
            "network_config: expected a NetworkConfig (or a model built by networks.build_network), "
            f"got {type(config).__name__}"
        )
    return config


def _remove_stale_temporaries(folder: Path) -> None:
    # temporary files of an interrupted save (kill -9 gives no chance to clean up)
    for path in folder.glob(".*.tmp"):
        if path.name.startswith((".ckpt_", ".buffer_", f".{LATEST_FILE}.")):
            try:
                path.unlink()
            except FileNotFoundError:
                pass


def save_checkpoint(
    run_dir: str | os.PathLike,
    step: int,
    learner: Learner,
    buffer: ReplayBuffer | Mapping | Callable[[Path], object] | None,
    rng_states: Mapping | None,
    counters: Mapping,
    config_dict: Mapping,
    code_version: str,
    *,
    extra: Mapping | None = None,
    game: Game | None = None,
    network_config: NetworkConfig | None = None,
    keep_last: int = 3,
) -> Path:
    """Write ``checkpoints/ckpt_{step:08d}.pt`` and its buffer file atomically; prune old ones.

    Args:
        run_dir: the run directory (``checkpoints/`` is created inside it).
        step: optimiser steps so far, >= 0 (names the files).
        learner: the :class:`~trainer.learner.Learner`; its weights must be finite.
        buffer: a :class:`~selfplay.replay_buffer.ReplayBuffer`, its ``state_dict()`` (e.g.
            fetched from the buffer's Ray actor), a function ``save_fn(path)`` that writes the buffer
            file atomically, or ``None`` for no buffer file.
        rng_states: from :func:`capture_rng_states` (plain values and tensors); ``None`` captures
            torch's generators only.
        counters: plain counters of the run (games, positions, model versions...).
        config_dict: the resolved configuration as plain values.
        code_version: e.g. the git commit.
        extra: more tensors and plain values to keep (e.g. the best model's weights, the last
            gating result); read back as :attr:`Checkpoint.extra`.
        game: the game; defaults to ``buffer.game``.
        network_config: defaults to ``learner.model.config``.
        keep_last: checkpoints kept after this one is written, >= 1.

    Returns:
        The checkpoint file's path.

    Raises:
        ValueError: for a negative step, ``keep_last`` < 1, non-finite weights (nothing is written;
            NaN weights are never saved), a non-plain value in ``counters``/``config_dict``/``rng_states``/``extra``
            (its path is named), a missing game or network configuration, or a buffer state dict
            that is not one.
        Whatever writing raises (``OSError``...); the previous checkpoint is then intact.
    """
    if not is_int(step) or step < 0:
        raise ValueError(f"step: expected an int >= 0, got {step!r}")
    if not is_int(keep_last) or keep_last < 1:
        raise ValueError(f"keep_last: expected an int >= 1, got {keep_last!r}")
    if not isinstance(learner, Learner):
        raise ValueError(f"learner: expected a trainer.learner.Learner, got {type(learner).__name__}")
    game = _game_of(game, buffer)
    config = _network_config_of(learner.model, network_config)
    # model_payload copies the weights to CPU and refuses non-finite ones before anything is written
    model = model_payload(learner.model, config, game.name, int(game.version), extra={"step": int(step)})
    learner_state = _to_cpu({key: value for key, value in learner.state_dict().items() if key != "model"})
    folder = checkpoint_folder(run_dir)
    folder.mkdir(parents=True, exist_ok=True)
    _remove_stale_temporaries(folder)
    payload = {
        "format": CHECKPOINT_FORMAT,
        "format_version": CHECKPOINT_FORMAT_VERSION,
        "step": int(step),
        "model": model,
        "learner": learner_state,
        "counters": check_plain(dict(counters), "counters"),
        "rng_states": check_plain(
            _to_cpu(dict(rng_states if rng_states is not None else capture_rng_states())), "rng_states"
        ),
        "config": check_plain(dict(config_dict), "config_dict"),
        "code_version": str(code_version),
        "game": {"name": game.name, "version": int(game.version)},
        "buffer_file": None,
        "extra": check_plain(_to_cpu(dict(extra or {})), "extra"),
    }
    if buffer is not None:
        path = buffer_file(run_dir, step)
        if isinstance(buffer, ReplayBuffer):
            buffer.save(path)
        elif isinstance(buffer, Mapping):
            write_buffer_file(path, dict(buffer))
        elif callable(buffer):
            buffer(path)
        else:
            raise ValueError(
                "buffer: expected a ReplayBuffer, its state dict, a save function or None, "
                f"got {type(buffer).__name__}"
            )
        payload["buffer_file"] = path.name
    target = checkpoint_file(run_dir, step)
    atomic_write(target, lambda handle: torch.save(payload, handle))  # the commit point
    atomic_write_text(folder / LATEST_FILE, target.name + "\n")
    _prune(folder, keep_last, int(step))
    return target


def _steps_in(folder: Path, pattern: re.Pattern) -> dict[int, Path]:
    found = {}
    if folder.is_dir():
        for path in folder.iterdir():
            match = pattern.match(path.name)
            if match and path.is_file():
                found[int(match.group(1))] = path
    return found


def _prune(folder: Path, keep_last: int, current_step: int) -> None:
    checkpoints = _steps_in(folder, _CHECKPOINT_NAME)
    # A checkpoint newer than the one just written belongs to an abandoned future (the run was
    # resumed from an older one because that one could not be read): it goes, so that "latest"
    # and the newest file agree and counters never go back on the next resume.
    kept_steps = sorted(step for step in checkpoints if step <= current_step)[-keep_last:]
    keep = set(kept_steps)
    for step, path in checkpoints.items():
        if step not in keep:
            path.unlink(missing_ok=True)
    # a buffer file without a kept checkpoint is an old one or the orphan of a failed save
    for step, path in _steps_in(folder, _BUFFER_NAME).items():
        if step not in keep:
            path.unlink(missing_ok=True)


# ---------------------------------------------------------------------------------- load
@dataclass(frozen=True)
class Checkpoint:
    """A checkpoint read from disk.

    Attributes:
        path: the checkpoint file.
        payload: its contents (see the module docstring); tensors on ``map_location``.
        buffer_path: the buffer file beside it, or ``None`` if it was saved without one.
    """

    path: Path
    payload: dict
    buffer_path: Path | None

    @property
    def step(self) -> int:
        return int(self.payload["step"])

    @property
    def counters(self) -> dict:
        return self.payload["counters"]

    @property
    def config(self) -> dict:
        return self.payload["config"]

    @property
    def rng_states(self) -> dict:
        return self.payload["rng_states"]

    @property
    def code_version(self) -> str:
        return self.payload["code_version"]

    @property
    def game_name(self) -> str:
        return self.payload["game"]["name"]

    @property
    def extra(self) -> dict:
        return self.payload["extra"]

    @property
    def network_config(self) -> NetworkConfig:
        return NetworkConfig.from_dict(self.payload["model"]["network"])

    def buffer_state(self) -> dict | None:
        """The replay buffer's state dict read from the buffer file (``None`` if saved without one),
        e.g. to hand to the buffer's Ray actor.

        Raises:
            FileNotFoundError: if the buffer file has disappeared since the checkpoint was loaded.
            ValueError: if it is unreadable.
        """
        return None if self.buffer_path is None else read_buffer_file(self.buffer_path)


def list_checkpoints(run_dir: str | os.PathLike) -> list[Path]:
    """Checkpoint files of a run, oldest first (temporary files excluded; not opened)."""
    found = _steps_in(checkpoint_folder(run_dir), _CHECKPOINT_NAME)
    return [found[step] for step in sorted(found)]


def load_checkpoint(path: str | os.PathLike, map_location="cpu", check_buffer: bool = True) -> Checkpoint:
    """Read one checkpoint file with ``torch.load(weights_only=True)`` (no code in it runs).

    Args:
        path: the ``ckpt_*.pt`` file.
        map_location: passed to ``torch.load``; ``"cpu"`` loads a GPU checkpoint anywhere.
        check_buffer: also check that its buffer file exists and that every entry of it reads back
            whole (``selfplay.buffer_file.verify_buffer_file``: each entry's CRC-32), so that a
            damaged buffer file makes :func:`load_latest_checkpoint` fall back to an older checkpoint
            instead of failing when the buffer is restored.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the file is truncated, corrupt, a crafted pickle, another format, lacks or has
            extra keys (named), or its buffer file is missing or unreadable.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"checkpoint file not found: {path}")
    try:
        payload = torch.load(path, map_location=map_location, weights_only=True)
    except Exception as error:  # truncated zip, random bytes, a forbidden global in the pickle...
        raise ValueError(
            f"cannot read checkpoint {path}: expected a checkpoint written by "
            f"trainer.checkpoint.save_checkpoint; {describe_load_error(error)}"
        ) from error
    if not isinstance(payload, dict) or payload.get("format") != CHECKPOINT_FORMAT:
        found = payload.get("format") if isinstance(payload, dict) else type(payload).__name__
        raise ValueError(f"{path}: expected format {CHECKPOINT_FORMAT!r}, found {found!r}")
    if payload.get("format_version") != CHECKPOINT_FORMAT_VERSION:
        raise ValueError(
            f"{path}: expected format_version {CHECKPOINT_FORMAT_VERSION}, "
            f"found {payload.get('format_version')!r}"
        )
    missing = sorted(set(CHECKPOINT_KEYS) - set(payload))
    extra = sorted(set(payload) - set(CHECKPOINT_KEYS))
    if missing or extra:
        raise ValueError(f"{path}: missing keys {missing}, unexpected keys {extra}")
    buffer_path = None
    if payload["buffer_file"] is not None:
        buffer_path = path.parent / str(payload["buffer_file"])
        if check_buffer:
            if not buffer_path.is_file():
                raise ValueError(f"{path}: its replay buffer file {buffer_path.name} is missing")
            try:
                verify_buffer_file(buffer_path)  # every entry read and its CRC-32 checked
            except (ValueError, OSError) as error:
                raise ValueError(
                    f"{path}: its replay buffer file {buffer_path.name} is unreadable ({error})"
                ) from error
    return Checkpoint(path=path, payload=payload, buffer_path=buffer_path)


def latest_checkpoint_path(run_dir: str | os.PathLike) -> Path | None:
    """The file :func:`load_latest_checkpoint` would load, or ``None`` if there is none (this loads
    candidates to check them, warning about unreadable ones)."""
    try:
        return load_latest_checkpoint(run_dir).path
    except FileNotFoundError:
        return None


def load_latest_checkpoint(run_dir: str | os.PathLike, map_location="cpu") -> Checkpoint:
    """The newest complete checkpoint of a run.

    Tries checkpoint files newest step first; one that cannot be read (see :func:`load_checkpoint`)
    is skipped with a ``UserWarning`` naming it and the reason, and the previous one is tried.

    Raises:
        FileNotFoundError: if the run has no checkpoint file, or none of them is readable (the
            message lists why each was rejected).
    """
    candidates = list(reversed(list_checkpoints(run_dir)))
    if not candidates:
        raise FileNotFoundError(f"no checkpoint in {checkpoint_folder(run_dir)}")
    reasons = []
    for path in candidates:
        try:
            return load_checkpoint(path, map_location=map_location)
        except (ValueError, OSError) as error:
            reasons.append(f"{path.name}: {error}")
            warnings.warn(
                f"skipping unreadable checkpoint {path}: {error}; trying the previous one", stacklevel=2
            )
    raise FileNotFoundError(f"no readable checkpoint in {checkpoint_folder(run_dir)}: " + "; ".join(reasons))


def check_compatible(
    checkpoint: Checkpoint, game: Game | None = None, network_config: NetworkConfig | None = None
) -> None:
    """Raise if the checkpoint is for another game (or rules version) or another network.

    Raises:
        ValueError: naming the saved and the expected game or network configuration.
    """
    saved_game = checkpoint.payload["game"]
    if game is not None:
        if saved_game["name"] != game.name:
            raise ValueError(
                f"{checkpoint.path}: checkpoint is for game {saved_game['name']!r}, "
                f"this run plays {game.name!r}"
            )
        if int(saved_game["version"]) != int(game.version):
            raise ValueError(
                f"{checkpoint.path}: checkpoint is for {game.name!r} rules version {saved_game['version']}, "
                f"this code has version {game.version}"
            )
    if network_config is not None:
        try:
            saved = checkpoint.network_config
        except (KeyError, TypeError, ValueError) as error:
            raise ValueError(f"{checkpoint.path}: malformed network configuration: {error}") from error
        if saved != network_config:
            raise ValueError(
                f"{checkpoint.path}: network is {saved.name} {saved.to_dict()}, this run builds "
                f"{network_config.name} {network_config.to_dict()}; the network shape cannot change on resume"
            )


def restore_checkpoint(
    checkpoint: Checkpoint,
    learner: Learner,
    buffer: ReplayBuffer | None = None,
    generators: Mapping[str, np.random.Generator] | None = None,
    *,
    game: Game | None = None,
    network_config: NetworkConfig | None = None,
) -> None:
    """Restore learner (model, optimiser, schedule, counters), buffer and RNG states.

    Everything is checked before anything changes: game (``game`` or ``buffer.game``), network
    configuration (``network_config`` or ``learner.model.config``), learner keys and shapes, the
    buffer file's game and shapes.

    Raises:
        ValueError: naming the mismatch (another game, another network, missing or extra keys,
            another parameter shape, another optimiser, a buffer saved for another game).
        FileNotFoundError: if the checkpoint has a buffer file that has disappeared.
    """
    game = game if game is not None else (buffer.game if buffer is not None else None)
    config = network_config if network_config is not None else getattr(learner.model, "config", None)
    check_compatible(checkpoint, game, config if isinstance(config, NetworkConfig) else None)
    learner_state = dict(checkpoint.payload["learner"])
    learner_state["model"] = checkpoint.payload["model"]["state_dict"]
    buffer_state = None
    if buffer is not None:
        if checkpoint.buffer_path is None:
            raise ValueError(f"{checkpoint.path}: saved without a replay buffer file, but a buffer was given")
        buffer_state = read_buffer_file(checkpoint.buffer_path)
        buffer.check_state_dict(buffer_state)
    if generators:
        for name in generators:
            if name not in checkpoint.rng_states.get("numpy", {}):
                raise ValueError(f"{checkpoint.path}: no saved state for generator {name!r}")
    learner.load_state_dict(learner_state)
    if buffer_state is not None:
        buffer.load_state_dict(buffer_state)
    restore_rng_states(checkpoint.rng_states, generators)


def code_version() -> str:
    """The git commit of the code, or "unknown" outside a checkout."""
    try:
        out = subprocess.run(
            ["git", "rev-parse", "HEAD"], cwd=Path(__file__).resolve().parent, capture_output=True, text=True,
            timeout=5, check=False,
        )
        return out.stdout.strip() or "unknown"
    except (OSError, subprocess.SubprocessError):
        return "unknown"
