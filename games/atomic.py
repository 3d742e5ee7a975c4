"""Atomic file writes: a reader sees the old file or the whole new one, never a torn write.

The data goes to a temporary file in the destination's folder (same file system, so the rename is
atomic), is flushed and ``fsync``-ed, then ``os.replace`` moves it over the destination and the
folder is ``fsync``-ed so the rename itself survives a power cut (POSIX). If anything fails before
the rename (an exception, Ctrl-C), the temporary file is removed and the old file is untouched
(an exception or a kill halfway through a write leaves the previous file intact).

It sits in ``games``, the lowest package, so that every layer writes files the same way: trainer
checkpoints and model files (``networks/checkpoint.py``, which adds the torch writer), replay-buffer
snapshots, arena results, Pons' label caches (``arena/positions/pons.py``). Standard library only.

Permissions. ``tempfile.mkstemp`` creates its file with mode 0600 whatever the umask; the written
file gets ``0o666 & ~umask`` instead, the mode ``open(path, "w")`` would give a new file (0644
under the usual umask 022, 0640 under 027), so teammates, a web server's user or a group share can
read models and checkpoints exactly as the user's umask allows.
"""

from __future__ import annotations

import json
import os
import tempfile
from collections.abc import Callable
from pathlib import Path
from typing import BinaryIO


def _fsync_directory(folder: Path) -> None:
    try:
        descriptor = os.open(folder, os.O_RDONLY)
    except OSError:  # e.g. Windows, where folders cannot be opened
        return
    try:
        os.fsync(descriptor)
    except OSError:
        pass
    finally:
        os.close(descriptor)


#: the mode of a new file before the umask applies (as ``open(path, "w")`` and ``touch`` use)
NEW_FILE_MODE = 0o666


def current_umask() -> int:
    """The process's umask, e.g. ``0o022``.

    Read from ``/proc/self/status`` where Linux provides it (no change to the process); elsewhere
    read by setting it and putting it back at once.
    """
    try:
        with open("/proc/self/status") as handle:
            for line in handle:
                if line.startswith("Umask:"):
                    return int(line.split()[1], 8)
    except (OSError, ValueError, IndexError):
        pass
    mask = os.umask(0o022)
    os.umask(mask)
    return mask


def atomic_write(path: str | os.PathLike, write_fn: Callable[[BinaryIO], None]) -> Path:
    """Write a file atomically by calling ``write_fn(binary_file)``.

    Args:
        path: destination; its folder must exist.
        write_fn: writes the whole content to the open binary file it is given.

    The file gets mode ``0o666 & ~umask`` (module docstring).

    Returns:
        The destination as a ``Path``.

    Raises:
        FileNotFoundError: if the destination folder does not exist.
        Whatever ``write_fn`` raises (the destination is then left as it was).
    """
    path = Path(path)
    folder = path.parent
    if not folder.is_dir():
        raise FileNotFoundError(f"cannot write {path}: folder {folder} does not exist")
    descriptor, temporary = tempfile.mkstemp(prefix=f".{path.name}.", suffix=".tmp", dir=folder)
    try:
        os.chmod(temporary, NEW_FILE_MODE & ~current_umask())  # mkstemp's 0600 would stay otherwise
        with os.fdopen(descriptor, "wb") as handle:
            write_fn(handle)
            handle.flush()
            os.fsync(handle.fileno())
        os.replace(temporary, path)
    except BaseException:
        try:
            os.unlink(temporary)
        except FileNotFoundError:
            pass
        raise
    _fsync_directory(folder)
    return path


def atomic_write_bytes(path: str | os.PathLike, data: bytes) -> Path:
    """Write ``data`` to ``path`` atomically (see module docstring). Raises as :func:`atomic_write`."""
    return atomic_write(path, lambda handle: handle.write(data))


def atomic_write_text(path: str | os.PathLike, text: str, encoding: str = "utf-8") -> Path:
    """Write ``text`` to ``path`` atomically. Raises as :func:`atomic_write`."""
    return atomic_write_bytes(path, text.encode(encoding))


def atomic_write_json(path: str | os.PathLike, data, indent: int = 2) -> Path:
    """Write ``data`` as JSON (sorted keys, trailing newline) atomically.

    Raises:
        TypeError: if ``data`` is not JSON-serialisable; ValueError: if it holds NaN or infinity
            (nothing is written either way).
        FileNotFoundError: as :func:`atomic_write`.
    """
    text = json.dumps(data, indent=indent, sort_keys=True, allow_nan=False) + "\n"
    return atomic_write_text(path, text)
