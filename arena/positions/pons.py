"""Pascal Pons' six Connect Four test sets, with the win/draw/loss of every move cached.

Pons published six sets of 1000 positions with his tutorial "Solving Connect 4: how to build a
perfect AI" (blog.gamesolver.org, 2017, part 2, "Test protocol"), each line ``MOVES SCORE``: the
position as 1-based column digits from the empty board and its exact score for the side to move
(Pons' convention, ``games.connect4.solver``). AlphaZero.jl reports its Connect Four mistake rates
on these sets. The data carry no licence, so they are not in this repository: they are read from
a folder beside the checkout, ``../shared/data/connect4/`` (or ``$TABULA_PONS_DIR``), and every
user of them skips or says so when it is absent.

A mistake (``arena.positions.labelled``) needs the outcome of every legal move, not only the position's
score. Those labels come from the project's solver with a weak solve
(``Solver.outcomes``: one ``(-1, 1)`` window search per move, Pons part 7), computed independently
of the file's score, and are cached outside the repository, because the begin sets cost seconds
to minutes of CPU a position:

* cache folder: ``$TABULA_CACHE_DIR/pons-labels``, else ``$XDG_CACHE_HOME/tabula-rasa/pons-labels``,
  else ``~/.cache/tabula-rasa/pons-labels``;
* one ``<file>.npz`` per set (``Test_L3_R1.npz``, ...): ``moves`` (the labelled lines'
  positions), ``outcomes`` ``[K, 7]`` int8 for lines 1..K (+1 win, 0 draw, -1 loss, -2 full
  column) and ``sha1`` (of the set file's bytes when last written, for reference). An entry
  belongs to a set and a line number, and holds while that line holds the same moves (a label
  depends on the moves only); a changed line drops its entry and every later one;
* written atomically (``games/atomic.py``: a temporary file in the same folder, flushed,
  ``fsync``-ed, then ``os.replace``), so a reader sees the old cache or the new one, and a labelling run that is stopped keeps every
  position saved before it.

Labels are added by ``scripts/label_pons_sets.py`` (``label_set`` here); reading a set
(``labelled_set``) never searches: it returns the labelled lines, in file order.

Set names (Pons' order; his names in the README of the data folder):
``pons-end-easy`` (Test_L3_R1), ``pons-middle-easy`` (Test_L2_R1), ``pons-middle-medium``
(Test_L2_R2), ``pons-begin-easy`` (Test_L1_R1), ``pons-begin-medium`` (Test_L1_R2),
``pons-begin-hard`` (Test_L1_R3); the group ``pons`` is all six.
"""

from __future__ import annotations

import hashlib
import os
import time
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from arena.positions.labelled import LabelledSet
from games.atomic import atomic_write
from games.connect4.game import ConnectFour
from games.connect4.layout import WIDTH
from games.connect4.solver import Solver

#: set name -> Pons' file name, in Pons' order
SETS = {
    "pons-end-easy": "Test_L3_R1",
    "pons-middle-easy": "Test_L2_R1",
    "pons-middle-medium": "Test_L2_R2",
    "pons-begin-easy": "Test_L1_R1",
    "pons-begin-medium": "Test_L1_R2",
    "pons-begin-hard": "Test_L1_R3",
}
#: name of the group of all six sets
GROUP = "pons"
#: outcome code of a full column (``arena.positions.labelled.ILLEGAL``)
NO_OUTCOME = -2

_REPO_ROOT = Path(__file__).resolve().parents[2]
#: the data folder beside the checkout (``tests/conftest.py`` uses the same one)
DEFAULT_DATA_DIR = _REPO_ROOT.parent / "shared" / "data" / "connect4"


def data_dir() -> Path:
    """Folder of Pons' set files: ``$TABULA_PONS_DIR`` if set, else ``../shared/data/connect4``
    beside the checkout. It may not exist (see :func:`available`)."""
    override = os.environ.get("TABULA_PONS_DIR")
    return Path(override) if override else DEFAULT_DATA_DIR


def available() -> list[str]:
    """Names of the sets whose file is present in :func:`data_dir` (Pons' order)."""
    folder = data_dir()
    return [name for name, file in SETS.items() if (folder / file).is_file()]


def cache_dir() -> Path:
    """Folder of the label cache (see the module doc); not created here."""
    if os.environ.get("TABULA_CACHE_DIR"):
        return Path(os.environ["TABULA_CACHE_DIR"]) / "pons-labels"
    base = os.environ.get("XDG_CACHE_HOME") or str(Path.home() / ".cache")
    return Path(base) / "tabula-rasa" / "pons-labels"


def _check_name(name: str) -> str:
    if name not in SETS:
        raise ValueError(f"unknown Pons set {name!r}; expected one of {list(SETS)}")
    return SETS[name]


# --------------------------------------------------------------------------- reading a set file
@dataclass(frozen=True)
class PonsFile:
    """A set file as read.

    Attributes:
        name: set name (``"pons-end-easy"``, ...).
        path: the file.
        sha1: hex SHA-1 of its bytes (recorded in the cache).
        moves: ``N`` move strings.
        scores: ``[N]`` int64, each position's exact score (Pons' convention, side to move).
    """

    name: str
    path: Path
    sha1: str
    moves: list[str]
    scores: np.ndarray


def parse_lines(lines, source: str = "<lines>") -> tuple[list[str], np.ndarray]:
    """Parse ``MOVES SCORE`` lines (blank lines skipped).

    Returns:
        ``(moves, scores)``: ``N`` strings of column digits and ``[N]`` int64 scores.

    Raises:
        ValueError: for a malformed line: not two fields, a position that is not column digits
            1-7, or a score that is not an integer in -18..18; the message names ``source`` and
            the 1-based line number.
    """
    moves: list[str] = []
    scores: list[int] = []
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if not fields:
            continue
        if len(fields) != 2:
            raise ValueError(f"{source} line {number}: expected 'MOVES SCORE', got {len(fields)} fields: {line!r}")
        position, score = fields
        if position.strip("1234567"):
            raise ValueError(f"{source} line {number}: position {position!r} must be column digits 1-7")
        try:
            value = int(score)
        except ValueError:
            raise ValueError(f"{source} line {number}: score {score!r} is not an integer") from None
        if not -18 <= value <= 18:
            raise ValueError(f"{source} line {number}: score {value} outside -18..18")
        moves.append(position)
        scores.append(value)
    return moves, np.array(scores, dtype=np.int64)


def read_set(name: str) -> PonsFile:
    """Read the set ``name`` from :func:`data_dir`.

    Raises:
        ValueError: for an unknown name, or a malformed line (named by file and line).
        FileNotFoundError: if the file is absent (the message names the folder looked in).
    """
    path = data_dir() / _check_name(name)
    if not path.is_file():
        raise FileNotFoundError(
            f"Pons' set {name} not found: expected {path} (set TABULA_PONS_DIR to the folder holding it)"
        )
    raw = path.read_bytes()
    moves, scores = parse_lines(raw.decode("utf-8").splitlines(), str(path))
    return PonsFile(name, path, hashlib.sha1(raw).hexdigest(), moves, scores)


# --------------------------------------------------------------------------- the cache
def cache_path(name: str) -> Path:
    """The cache file of set ``name``."""
    return cache_dir() / f"{_check_name(name)}.npz"


def load_labels(pons_file: PonsFile) -> np.ndarray:
    """``[K, 7]`` int8 cached outcomes of the file's first ``K`` lines (``K = 0`` without a cache).

    Entries are dropped from the first line whose moves differ from the file's (an unreadable
    cache counts as empty: labels are derived data).
    """
    path = cache_path(pons_file.name)
    empty = np.zeros((0, WIDTH), dtype=np.int8)
    if not path.is_file():
        return empty
    try:
        with np.load(path, allow_pickle=False) as data:
            moves, outcomes = data["moves"], data["outcomes"]
    except (OSError, KeyError, ValueError):
        return empty  # unreadable: labels are derived data, label again
    if outcomes.ndim != 2 or outcomes.shape[1] != WIDTH or len(moves) != len(outcomes):
        return empty
    count = 0
    for cached, current in zip(moves, pons_file.moves):
        if str(cached) != current:
            break
        count += 1
    return outcomes[:count].astype(np.int8)


def save_labels(pons_file: PonsFile, outcomes: np.ndarray) -> Path:
    """Write the outcomes of the file's first ``len(outcomes)`` lines to the cache, atomically.

    Raises:
        ValueError: if ``outcomes`` is not ``[K, 7]`` with ``K`` at most the file's length, or holds
            a value outside {-2, -1, 0, 1}.
    """
    outcomes = np.asarray(outcomes)
    if outcomes.ndim != 2 or outcomes.shape[1] != WIDTH or len(outcomes) > len(pons_file.moves):
        raise ValueError(f"expected outcomes of shape [K <= {len(pons_file.moves)}, {WIDTH}], got {outcomes.shape}")
    if not np.all(np.isin(outcomes, (NO_OUTCOME, -1, 0, 1))):
        raise ValueError("expected outcomes in {-2 (full column), -1, 0, 1}")
    return write_npz_atomically(
        cache_path(pons_file.name),
        sha1=np.array(pons_file.sha1),
        moves=np.array(pons_file.moves[: len(outcomes)], dtype=np.str_),
        outcomes=outcomes.astype(np.int8),
    )


def write_npz_atomically(path: Path, **arrays) -> Path:
    """Write ``arrays`` to the ``.npz`` file ``path`` atomically (``games.atomic.atomic_write``).
    Creates the folder."""
    path.parent.mkdir(parents=True, exist_ok=True)
    return atomic_write(path, lambda handle: np.savez(handle, **arrays))


# --------------------------------------------------------------------------- labelling
def label_set(
    name: str, limit: int | None = None, solver=None, save_every_seconds: float = 30.0, deadline: float | None = None
) -> dict:
    """Label the first ``limit`` lines (all with None) of set ``name`` that the cache lacks.

    Each position's outcomes come from ``solver.outcomes`` (a ``games.connect4.solver.Solver``;
    default: a new one with the opening book); the cache is saved every ``save_every_seconds``
    and at the end, so a stopped run keeps its progress.

    Args:
        deadline: a ``time.monotonic()`` value after which no new position is started.

    Returns:
        ``{"set", "file", "positions": labelled in the cache now, "new": labelled by this call,
        "seconds": CPU seconds (process time) spent labelling, "seconds_per_position"}``.

    Raises:
        ValueError: as :func:`read_set`, for a ``limit`` below 1, or if a labelled position's best
            move disagrees with the sign of the file's score (the file or the solver is wrong).
        FileNotFoundError: as :func:`read_set`.
    """
    if limit is not None and (isinstance(limit, bool) or not isinstance(limit, (int, np.integer)) or limit < 1):
        raise ValueError(f"limit must be an integer >= 1 or None, got {limit!r}")
    pons_file = read_set(name)
    target = len(pons_file.moves) if limit is None else min(int(limit), len(pons_file.moves))
    labels = list(load_labels(pons_file))
    start = len(labels)
    if solver is None:
        solver = Solver()
    spent = 0.0
    last_save = time.monotonic()
    for index in range(start, target):
        if deadline is not None and time.monotonic() >= deadline:
            break
        begin = time.process_time()
        outcomes = solver.outcomes(pons_file.moves[index])
        spent += time.process_time() - begin
        best = int(outcomes[outcomes != NO_OUTCOME].max())
        expected = int(np.sign(pons_file.scores[index]))
        if best != expected:
            raise ValueError(
                f"{pons_file.path} line {index + 1} ({pons_file.moves[index]}): the best move's outcome is "
                f"{best}, but the score {int(pons_file.scores[index])} has sign {expected}"
            )
        labels.append(outcomes)
        if time.monotonic() - last_save >= save_every_seconds:
            save_labels(pons_file, np.array(labels, dtype=np.int8))
            last_save = time.monotonic()
    if len(labels) > start:
        save_labels(pons_file, np.array(labels, dtype=np.int8))
    new = len(labels) - start
    return {
        "set": name,
        "file": SETS[name],
        "positions": len(labels),
        "new": new,
        "seconds": round(spent, 3),
        "seconds_per_position": round(spent / new, 6) if new else None,
    }


def labelled_set(name: str, game=None):
    """The labelled lines of set ``name`` from the cache, as a ``arena.positions.labelled.LabelledSet``
    named ``name`` (fewer than 1000 positions when only a prefix is labelled). Never searches.

    Raises:
        ValueError: for an unknown name, a malformed file, or a set with no cached labels (the
            message gives the command that labels it).
        FileNotFoundError: as :func:`read_set`.
    """
    pons_file = read_set(name)
    outcomes = load_labels(pons_file)
    if not len(outcomes):
        raise ValueError(
            f"Pons set {name} has no cached labels in {cache_dir()}; label it first: "
            f"python scripts/label_pons_sets.py --set {name} [--limit N]"
        )
    if game is None:
        game = ConnectFour()
    moves = pons_file.moves[: len(outcomes)]
    return LabelledSet(name, moves, game.states_from_moves(moves), outcomes)
