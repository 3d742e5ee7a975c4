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

Status: no book file is shipped yet, so :func:`load_book` returns an empty book and the solver
searches every position. The builder works (``tests/test_solver.py`` builds a subtree book), but a
useful book is too costly for the two shared cores it was developed on: depth 3 means solving
121 positions of ply 3 (one per mirror pair); measured with the builder's 2**26-entry table,
``444`` took 31 s of CPU (190 M nodes), ``443`` 6 s and ``441`` 8 s, so about 30-60 CPU-minutes in
all (over two hours of wall time on the busy machine). After it the empty board and every
position up to ply 3 answer at once, and positions of plies 4-6 take a few seconds each. Run ``python scripts/build_opening_book.py --depth 3 --progress
/tmp/book3.txt`` on a free machine (it resumes from the progress file; ``--shard K/N`` splits the work over
processes) and commit the ``.npz`` (about 1 KB). Without it the empty board takes many minutes; ply-2 positions take minutes.
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
