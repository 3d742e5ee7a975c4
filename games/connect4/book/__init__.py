"""Opening book for the Connect Four solver: exact scores of early positions.

File ``opening_book.npz`` (built by ``scripts/build_opening_book.py``) holds:

* ``keys``: `[N]` int64, sorted ascending: the canonical key of each position, i.e.
  ``min(key, mirror(key))`` with ``key = position + mask`` in the solver's bitboard encoding
  (``games.connect4.solver``), so a position and its mirror image share one entry.
* ``values``: `[N]` int8, ``score - MIN_SCORE + 1`` (1..37) where ``score`` is the exact score for
  the side to move (Pons' convention); ``0`` never occurs.
* ``depth``: scalar int64, every stored position has at most this many plies. Positions up to
  ``depth`` that are missing were not needed (see the builder) and are searched normally.

The book is looked up by binary search inside the compiled search (Pons, "Solving Connect 4",
part 12, "Opening book"), at every node with at most ``depth`` plies.

The shipped book has depth 3: the 151 positions of plies 0-3 (one per mirror pair), 1,015 bytes.
Its 121 ply-3 positions were solved exactly by ``scripts/build_opening_book.py --depth 3``: 117 of
them in two ``--shard`` processes, 4,127 s of CPU in all (1,931 s and 2,196 s), 37 minutes of wall
time on the 2-core machine, 35 s per position on average (4 had been solved before). The rest was backed up by negamax; the empty
board scores +1 (the first player wins with its last stone; Allis 1988). With it, a position of
plies 0-3 answers at once and a move choice at plies 0-2 needs no search; positions of plies 4-5
still take seconds to minutes each. A deeper book (``--depth 4``, about 5x the positions) would
cover those. :func:`load_book` returns an empty book (depth -1) when the file is absent, and the
solver then searches every position.
"""

from __future__ import annotations

from pathlib import Path

import numpy as np

BOOK_PATH = Path(__file__).resolve().parent / "opening_book.npz"


def load_book(path: Path | str | None = None) -> tuple[np.ndarray, np.ndarray, int]:
    """Load the opening book.

    Args:
        path: ``.npz`` file; default the shipped ``opening_book.npz``.

    Returns:
        ``(keys, values, depth)``: `[N]` int64 sorted keys, `[N]` int8 encoded scores, the deepest
        ply. An absent default file gives an empty book with depth ``-1``.

    Raises:
        ValueError: if the file is malformed (keys not sorted, lengths differ, values out of range).
        FileNotFoundError: if an explicit ``path`` does not exist.
    """
    if path is None:
        if not BOOK_PATH.is_file():
            return np.zeros(0, dtype=np.int64), np.zeros(0, dtype=np.int8), -1
        path = BOOK_PATH
    with np.load(Path(path)) as data:
        keys = np.ascontiguousarray(data["keys"], dtype=np.int64)
        values = np.ascontiguousarray(data["values"], dtype=np.int8)
        depth = int(data["depth"])
    if keys.shape != values.shape or keys.ndim != 1:
        raise ValueError(f"book {path}: keys {keys.shape} and values {values.shape} must be equal 1-d shapes")
    if keys.size and not np.all(keys[1:] > keys[:-1]):
        raise ValueError(f"book {path}: keys must be strictly increasing")
    if values.size and (values.min() < 1 or values.max() > 37):
        raise ValueError(f"book {path}: values must lie in 1..37, got {values.min()}..{values.max()}")
    return keys, values, depth
