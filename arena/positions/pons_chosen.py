"""Mistakes of chosen moves on Pascal Pons' sets, solving only the moves a player picked.

Labelling every move of a position (``arena.positions.pons.label_set``) costs 23 CPU seconds a
position on ``pons-begin-hard``: every non-best move of an early position leads to a long game the
solver must prove. Whether one *chosen* move is a mistake needs far less. The file gives the
position's exact score, so its outcome ``v`` (the score's sign) is known, and a move is a mistake
exactly when its outcome is below ``v``:

* a lost position (``v = -1``): no move is a mistake, nothing to solve;
* a won one: the move is a mistake unless it wins (``Solver.move_reaches(moves, column, 1)``);
* a drawn one: the move is a mistake if it loses (``Solver.move_reaches(moves, column, 0)``).

Each is one null-window search on one child (Pons, "Solving Connect 4", part 7). Answers are
cached beside the full labels (``arena.positions.pons.cache_dir``), one ``<file>.moves.npz`` per
set: ``moves`` ``[N]`` (every line of the file), ``mistakes`` ``[N, 7]`` int8 (1 a mistake, 0 not,
``UNKNOWN`` not asked yet, ``NO_OUTCOME`` a full column) and ``sha1``; an entry holds while its line
holds the same moves, and the file is written atomically, so a stopped run keeps what it saved.
Lines the full-label cache covers are read from it and never searched.

Public API: :func:`chosen_move_mistakes`, :func:`load_mistakes`, :func:`known_mistakes`.
"""

from __future__ import annotations

import time
from concurrent.futures import ProcessPoolExecutor, ThreadPoolExecutor, as_completed
from multiprocessing import get_context
from pathlib import Path

import numpy as np

from arena.positions.pons import (
    NO_OUTCOME,
    PonsFile,
    cache_dir,
    load_labels,
    read_set,
    write_npz_atomically,
)
from games.connect4.layout import HEIGHT, WIDTH
from games.connect4.solver import Solver

#: code of a move not asked about yet, in ``mistakes``
UNKNOWN = -1


def moves_cache_path(pons_file: PonsFile) -> Path:
    """The chosen-move cache of ``pons_file``'s set."""
    return cache_dir() / f"{pons_file.path.name}.moves.npz"


def _full_columns(moves: list[str]) -> np.ndarray:
    """``[N, 7]`` bool: the columns already holding ``HEIGHT`` stones in each position."""
    counts = np.array([[m.count(str(c + 1)) for c in range(WIDTH)] for m in moves], dtype=np.int64)
    return counts.reshape(len(moves), WIDTH) >= HEIGHT


def known_mistakes(pons_file: PonsFile) -> np.ndarray:
    """``[N, 7]`` int8 of what is known without searching: ``NO_OUTCOME`` for full columns, 0 for
    every legal move of a lost position, the full labels' mistakes where ``pons.load_labels``
    covers the line, ``UNKNOWN`` elsewhere."""
    full = _full_columns(pons_file.moves)
    known = np.full((len(pons_file.moves), WIDTH), UNKNOWN, dtype=np.int8)
    known[pons_file.scores < 0] = 0
    labels = load_labels(pons_file)
    if len(labels):
        legal = labels != NO_OUTCOME
        best = np.where(legal, labels, NO_OUTCOME).max(axis=1, keepdims=True)
        known[: len(labels)] = (legal & (labels < best)).astype(np.int8)
    known[full] = NO_OUTCOME
    return known


def load_mistakes(pons_file: PonsFile) -> np.ndarray:
    """``[N, 7]`` int8: :func:`known_mistakes` with the cached answers of earlier calls filled in
    (for the lines whose moves still match; an unreadable cache counts as empty)."""
    known = known_mistakes(pons_file)
    path = moves_cache_path(pons_file)
    if not path.is_file():
        return known
    try:
        with np.load(path, allow_pickle=False) as data:
            moves, cached = data["moves"], data["mistakes"]
    except (OSError, KeyError, ValueError):
        return known  # derived data: ask again
    if cached.ndim != 2 or cached.shape[1] != WIDTH or len(moves) != len(cached):
        return known
    for line, (old, current) in enumerate(zip(moves, pons_file.moves)):
        if str(old) == current:
            answered = (known[line] == UNKNOWN) & np.isin(cached[line], (0, 1))
            known[line, answered] = cached[line, answered]
    return known


def _save(pons_file: PonsFile, mistakes: np.ndarray) -> Path:
    return write_npz_atomically(
        moves_cache_path(pons_file),
        sha1=np.array(pons_file.sha1),
        moves=np.array(pons_file.moves, dtype=np.str_),
        mistakes=mistakes.astype(np.int8),
    )


_WORKER_SOLVER = None


def _init_worker() -> None:
    global _WORKER_SOLVER
    _WORKER_SOLVER = Solver()


def _is_mistake(moves: str, column: int, target: int) -> tuple[bool, float]:
    """Whether ``column`` falls short of ``target`` in ``moves``, and the CPU seconds spent."""
    begin = time.process_time()
    reached = _WORKER_SOLVER.move_reaches(moves, column, target)
    return (not reached), time.process_time() - begin


def chosen_move_mistakes(
    name: str, actions, *, workers: int = 1, save_every_seconds: float = 30.0, progress=None
) -> dict:
    """Which of ``actions`` are mistakes on every line of Pons' set ``name``.

    Args:
        name: a set of ``arena.positions.pons.SETS``.
        actions: ``[K]`` int, the 0-based column chosen in each of the file's first ``K`` lines
            (``K`` at most the file's ``N``).
        workers: processes solving at once (each with its own 64 MiB transposition table; 1
            solves in this process).
        save_every_seconds: the cache is written this often while solving, and at the end.
        progress: None, or a callable given ``(answered, to_answer)`` after each solve.

    Returns:
        ``{"set", "positions": K, "mistakes": [K] bool, "solved": moves searched by this call,
        "seconds": their CPU seconds (``time.process_time`` in the solving processes)}``.

    Raises:
        ValueError: as ``pons.read_set``; if ``actions`` is not ``[N]`` or holds an illegal
            column (the line is named); for ``workers`` below 1.
        FileNotFoundError: as ``pons.read_set``.
    """
    if isinstance(workers, bool) or not isinstance(workers, (int, np.integer)) or workers < 1:
        raise ValueError(f"workers must be an integer >= 1, got {workers!r}")
    pons_file = read_set(name)
    actions = np.asarray(actions)
    count = len(actions)
    if actions.ndim != 1 or count > len(pons_file.moves) or not np.issubdtype(actions.dtype, np.integer):
        raise ValueError(
            f"expected [K <= {len(pons_file.moves)}] integer actions for {name}, got shape {actions.shape} {actions.dtype}"
        )
    mistakes = load_mistakes(pons_file)
    rows = np.arange(count)
    outside = (actions < 0) | (actions >= WIDTH)
    if outside.any() or np.any(mistakes[rows, actions] == NO_OUTCOME):
        line = int(
            np.flatnonzero(outside | (mistakes[rows, np.clip(actions, 0, WIDTH - 1)] == NO_OUTCOME))[0]
        )
        raise ValueError(
            f"{pons_file.path} line {line + 1} ({pons_file.moves[line]}): column {int(actions[line]) + 1} "
            "is not a legal move"
        )
    todo = np.flatnonzero(mistakes[rows, actions] == UNKNOWN)
    spent = 0.0
    if len(todo):
        last_save = time.monotonic()
        jobs = [(pons_file.moves[i], int(actions[i]), 1 if pons_file.scores[i] > 0 else 0) for i in todo]
        if workers == 1:  # in this process
            pool = ThreadPoolExecutor(1, initializer=_init_worker)
        else:
            pool = ProcessPoolExecutor(
                int(workers), mp_context=get_context("spawn"), initializer=_init_worker
            )
        try:
            futures = {pool.submit(_is_mistake, *job): line for job, line in zip(jobs, todo)}
            for answered, future in enumerate(as_completed(futures), 1):
                wrong, seconds = future.result()
                line = futures[future]
                mistakes[line, actions[line]] = int(wrong)
                spent += seconds
                if progress is not None:
                    progress(answered, len(todo))
                if time.monotonic() - last_save >= save_every_seconds:
                    _save(pons_file, mistakes)
                    last_save = time.monotonic()
        finally:
            pool.shutdown(wait=False, cancel_futures=True)  # a stop does not wait for the queue
            _save(pons_file, mistakes)  # keep every answer, also when stopped
    return {
        "set": name,
        "positions": count,
        "mistakes": mistakes[rows, actions] == 1,
        "solved": len(todo),
        "seconds": round(spent, 3),
    }
