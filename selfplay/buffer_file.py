"""The replay buffer's file: a :meth:`~selfplay.replay_buffer.ReplayBuffer.state_dict` as one ``.npz``.

Arrays are stored as entries; every other value (counters, the game's name, the generator's state)
as one JSON string ``meta_json``, so the file loads with ``allow_pickle=False``. It is written
atomically (``games/atomic.py``).
"""

from __future__ import annotations

import json
import os
import zipfile
from pathlib import Path

import numpy as np

from games.atomic import atomic_write

#: ``format`` field of a saved buffer; bumped when the layout changes.
BUFFER_FORMAT = "tabula-rasa-replay-buffer"
BUFFER_FORMAT_VERSION = 1


def write_buffer_file(path: str | os.PathLike, state: dict) -> Path:
    """Write a :meth:`ReplayBuffer.state_dict` atomically as ``.npz`` (arrays as entries, the rest as
    one JSON string ``meta_json``); e.g. a state fetched from the buffer's Ray actor.

    Returns:
        The path written.

    Raises:
        ValueError: if ``state`` is not a buffer state (no ``format`` entry) or holds a value that is
            neither a numpy array nor JSON-serialisable.
        FileNotFoundError: if the folder does not exist (the old file, if any, is untouched).
    """
    if not isinstance(state, dict) or state.get("format") != BUFFER_FORMAT:
        raise ValueError(f"state: expected a replay buffer state dict with format {BUFFER_FORMAT!r}")
    arrays = {key: value for key, value in state.items() if isinstance(value, np.ndarray)}
    meta = {key: value for key, value in state.items() if not isinstance(value, np.ndarray)}
    try:
        arrays["meta_json"] = np.array(json.dumps(meta, sort_keys=True, default=json_default))
    except TypeError as error:
        raise ValueError(f"state: a non-array entry is not JSON-serialisable: {error}") from error
    return atomic_write(path, lambda handle: np.savez(handle, **arrays))


def read_buffer_file(path: str | os.PathLike) -> dict:
    """Read a file written by :meth:`ReplayBuffer.save` into a state dict (``allow_pickle=False``).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the file is truncated, not an ``.npz`` file, or lacks its metadata.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"replay buffer file not found: {path}")
    try:
        with np.load(path, allow_pickle=False) as data:
            state = {key: data[key] for key in data.files}
    except Exception as error:  # zipfile.BadZipFile, OSError, EOFError, pickle refusal, ...
        raise ValueError(
            f"{path}: not a readable replay buffer file ({type(error).__name__}: {error})"
        ) from error
    if "meta_json" not in state:
        raise ValueError(f"{path}: not a replay buffer file (no 'meta_json' entry)")
    meta = json.loads(str(state.pop("meta_json")))
    state.update(meta)
    return state


def verify_buffer_file(path: str | os.PathLike) -> None:
    """Check that every entry of a buffer file reads back whole, without loading it into memory.

    Reading the zip directory is not enough: a flipped or zeroed byte inside an entry leaves the
    directory intact and surfaces only when that entry is read. Here each entry is read in full and
    its CRC-32 compared with the one the directory records (``zipfile.ZipFile.testzip``), and the
    metadata entry must be present. The cost is one sequential read of the file.

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: naming the file and the first damaged entry, for a file that is not a zip
            archive, an entry whose bytes do not match its CRC-32 or cannot be read, or a missing
            ``meta_json`` entry.
    """
    path = Path(path)
    if not path.is_file():
        raise FileNotFoundError(f"replay buffer file not found: {path}")
    try:
        with zipfile.ZipFile(path) as archive:
            damaged = archive.testzip()
            names = archive.namelist()
    except Exception as error:  # BadZipFile, a truncated entry (EOFError, OSError), zlib errors...
        raise ValueError(
            f"{path}: not a readable replay buffer file ({type(error).__name__}: {error})"
        ) from error
    if damaged is not None:
        raise ValueError(f"{path}: entry {damaged!r} is damaged (its bytes do not match its CRC-32)")
    if "meta_json.npy" not in names:
        raise ValueError(f"{path}: not a replay buffer file (no 'meta_json' entry)")


def json_default(value):
    """``json.dumps`` fallback for numpy values: ints and arrays become plain Python values."""
    if isinstance(value, np.integer):
        return int(value)
    if isinstance(value, np.ndarray):
        return value.tolist()
    raise TypeError(f"cannot store {type(value).__name__} in a generator state")
