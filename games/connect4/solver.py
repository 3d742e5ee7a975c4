"""Exact Connect Four solver: negamax alpha-beta on bitboards, compiled with Numba.

The algorithm follows Pascal Pons, "Solving Connect 4: how to build a perfect AI"
(blog.gamesolver.org, 2017), parts 3-12: negamax with alpha-beta pruning, centre-first move
ordering, bitboards, a transposition table holding lower and upper bounds, iterative null-window
search that narrows on the score, early detection of forced losses ("non-losing moves"), ordering
by the number of winning cells (threats) a move creates, and an opening book (looked up when one
is present; ``games.connect4.book`` ships one of depth 3). Two differences from Pons'
solver: a position and its mirror image share one transposition-table entry (the key is the
smaller of the two keys), and each entry is one ``int64`` holding the full key and the bound, so a
probe is one memory access. The search runs over an explicit stack rather than recursion. The game was first solved by
Allis (1988, "A knowledge-based approach of Connect-Four", Vrije Universiteit) and Allen (1988).

Board encoding: the bitboards of ``games.connect4.layout`` (``position`` there called
``current``: the stones of the side to move; ``mask``: all stones; ``key = position + mask``,
unique per position). The compiled search is in ``games.connect4.solver_kernels``.

Score convention (Pons' solver and test sets): for the side to move under
perfect play, ``0`` is a draw, ``22 - s`` a win where ``s`` is the number of stones the winner
has placed at the end, ``-(22 - s)`` a loss to an opponent who wins with its ``s``-th stone.
So an immediate win at ply ``p`` scores ``(43 - p) // 2`` and scores lie in ``[-18, 18]``.

Move strings are the 1-based column digits played from the empty board, e.g. ``"4453"``.

Public API: :func:`solve`, :func:`analyze` (module-level, sharing one lazily created
:class:`Solver`), :class:`Solver` (keeps its transposition table between calls and counts
nodes; :meth:`Solver.optimal_moves` for perfect play), :func:`parse_moves`, :func:`has_four`.
"""

from __future__ import annotations

from collections.abc import Sequence
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.connect4.book import load_book
from games.connect4.layout import (
    BOARD_MASK,
    BOTTOM_MASK,
    COLUMN_BITS,
    HEIGHT,
    NUM_CELLS,
    WIDTH,
    has_four,
    move_bit,
    top_mask,
)
from games.connect4.layout import winning_cells as _winning_cells
from games.connect4.solver_kernels import (
    COLUMN_ORDER,
    DEFAULT_TT_SIZE,
    MAX_SCORE,
    MIN_SCORE,
    NO_OUTCOME,
    NO_SCORE,
    SolverTables,
    _analyze,
    _move_reaches,
    _optimal_moves,
    _outcomes,
    _solve_many,
)


# --------------------------------------------------------------------------- parsing
@dataclass(frozen=True)
class Position:
    """A parsed position.

    Attributes:
        position: ``int`` bitboard of the side to move's stones (bit ``col * 7 + row``).
        mask: ``int`` bitboard of all stones.
        num_moves: plies played (0..42).
    """

    position: int
    mask: int
    num_moves: int

    @property
    def key(self) -> int:
        """``position + mask``, unique per position, below ``2**49``."""
        return self.position + self.mask


def parse_moves(moves: str, allow_empty: bool = False) -> Position:
    """Play ``moves`` (1-based column digits) from the empty board.

    Args:
        moves: e.g. ``"4453"``.
        allow_empty: accept ``""`` as the empty board.

    Returns:
        The :class:`Position` reached.

    Raises:
        ValueError: ``moves`` is empty (unless ``allow_empty``), holds a character other than
            ``1``-``7``, plays into a full column, or a move comes after (or makes) four in a row;
            the message names the 1-based move index and the character.
    """
    if not isinstance(moves, str):
        # ValueError, not TypeError: every bad position, whatever its form, is one kind of error
        raise ValueError(f"moves must be a str of column digits 1-7, got {type(moves).__name__}")
    if not moves and not allow_empty:
        raise ValueError("empty position: expected column digits 1-7")
    position = 0
    mask = 0
    for i, ch in enumerate(moves):
        if ch not in "1234567":
            raise ValueError(f"move {i + 1}: character {ch!r} is not a column 1-7")
        col = ord(ch) - ord("1")
        if mask & top_mask(col):
            raise ValueError(f"move {i + 1}: column {ch} is already full")
        move = move_bit(mask, col)
        if has_four(position | move):
            raise ValueError(f"move {i + 1}: column {ch} makes four in a row, so the position is already won")
        position ^= mask
        mask |= move
    return Position(position, mask, len(moves))


# --------------------------------------------------------------------------- public API
class Solver:
    """Exact Connect Four solver with a persistent transposition table.

    Args:
        tt_size: number of transposition-table entries, at least 1024 (a prime spreads keys
            best). Memory is 8 bytes per entry (default 64 MiB), allocated and touched here.
        use_book: look positions up in the opening book (``games/connect4/book``).
        book_path: an opening-book ``.npz`` to use instead of the shipped one (with ``use_book``).
        use_mirror: share transposition-table entries between a position and its mirror image.

    Attributes:
        node_count: nodes searched by the last :meth:`solve` / :meth:`analyze` call.
        book_depth: deepest ply stored in the book in use (-1 without a book).

    Raises:
        ValueError: for an invalid ``tt_size`` or a malformed book file.
        FileNotFoundError: if ``book_path`` does not exist.
    """

    def __init__(
        self,
        tt_size: int = DEFAULT_TT_SIZE,
        use_book: bool = True,
        use_mirror: bool = True,
        book_path: str | Path | None = None,
    ):
        if not isinstance(tt_size, (int, np.integer)) or isinstance(tt_size, bool) or tt_size < 1024:
            raise ValueError(f"tt_size must be an int of at least 1024, got {tt_size!r}")
        #: `[tt_size]` int64 transposition table, entries ``(key << 8) | value``; 0 is empty.
        self.table = np.zeros(int(tt_size), dtype=np.int64)
        self.reset()  # touch every page now, not during the first search
        self.use_mirror = bool(use_mirror)
        if use_book:
            self.book_keys, self.book_values, self.book_depth = load_book(book_path)
        else:
            self.book_keys = np.zeros(0, dtype=np.int64)
            self.book_values = np.zeros(0, dtype=np.int8)
            self.book_depth = -1
        self.node_count = 0

    def reset(self) -> None:
        """Empty the transposition table."""
        self.table[:] = 0

    def _tables(self) -> SolverTables:
        return SolverTables(self.table, self.book_keys, self.book_values, int(self.book_depth), bool(self.use_mirror))

    def solve(self, moves: str, allow_empty: bool = False) -> int:
        """Exact score of ``moves`` for the side to move (positive: it wins; see module doc).

        A full board (42 moves, no four in a row) scores 0.

        Raises:
            ValueError: as :func:`parse_moves`.
        """
        p = parse_moves(moves, allow_empty)
        scores, nodes = self.solve_parsed([p])
        self.node_count = int(nodes[0])
        return int(scores[0])

    def solve_parsed(self, positions: Sequence[Position]) -> tuple[np.ndarray, np.ndarray]:
        """Solve many parsed positions in one compiled call.

        Returns:
            ``(scores, nodes)``: two `[N]` int64 arrays, the exact score and nodes searched per position.
        """
        n = len(positions)
        pos = np.array([p.position for p in positions], dtype=np.int64).reshape(n)
        msk = np.array([p.mask for p in positions], dtype=np.int64).reshape(n)
        num = np.array([p.num_moves for p in positions], dtype=np.int64).reshape(n)
        scores = np.zeros(n, dtype=np.int64)
        nodes = np.zeros(n, dtype=np.int64)
        _solve_many(pos, msk, num, self._tables(), scores, nodes)
        self.node_count = int(nodes[-1]) if n else 0
        return scores, nodes

    def solve_many(self, moves_list: Sequence[str]) -> tuple[np.ndarray, np.ndarray]:
        """Solve many move strings in one compiled call (parsing first).

        Returns:
            ``(scores, nodes)``: `[N]` int64 arrays.

        Raises:
            ValueError: as :func:`parse_moves`, for the first bad string (named by index).
        """
        parsed = []
        for i, m in enumerate(moves_list):
            try:
                parsed.append(parse_moves(m))
            except ValueError as e:
                raise ValueError(f"position {i}: {e}") from None
        return self.solve_parsed(parsed)

    def analyze(self, moves: str, allow_empty: bool = False) -> list[int | None]:
        """Exact score of each of the 7 columns (1-7 in order) for the side to move.

        Each entry is the score of the position after playing that column, from the view of the
        side to move now (so ``max`` of the list is :meth:`solve`); ``None`` for a full column.

        Raises:
            ValueError: as :func:`parse_moves`.
        """
        p = parse_moves(moves, allow_empty)
        scores = np.zeros(WIDTH, dtype=np.int64)
        nodes = np.zeros(1, dtype=np.int64)
        _analyze(p.position, p.mask, p.num_moves, self._tables(), scores, nodes)
        self.node_count = int(nodes[0])
        return [None if s == NO_SCORE else int(s) for s in scores]

    def outcomes_parsed(self, position: Position) -> np.ndarray:
        """Win/draw/loss of each of the 7 columns of a parsed position, for the side to move.

        A weak solve: one ``(-1, 1)`` window search per column finds the sign of its score without
        the score (Pons, "Solving Connect 4", part 7), so it costs far fewer nodes than
        :meth:`analyze`; ``np.sign(analyze(...))`` is the same answer.

        Returns:
            `[7]` int8: +1 the move wins, 0 draws, -1 loses under perfect play; ``NO_OUTCOME``
            (-2) for a full column (every entry on a full board).
        """
        outcomes = np.zeros(WIDTH, dtype=np.int64)
        nodes = np.zeros(1, dtype=np.int64)
        _outcomes(position.position, position.mask, position.num_moves, self._tables(), outcomes, nodes)
        self.node_count = int(nodes[0])
        return outcomes.astype(np.int8)

    def outcomes(self, moves: str, allow_empty: bool = False) -> np.ndarray:
        """:meth:`outcomes_parsed` of a move string.

        Raises:
            ValueError: as :func:`parse_moves`.
        """
        return self.outcomes_parsed(parse_moves(moves, allow_empty))

    def move_reaches(self, moves: str, column: int, target: int, allow_empty: bool = False) -> bool:
        """Whether playing 0-based ``column`` in ``moves`` gives the side to move at least the
        outcome ``target`` under perfect play: ``target=1`` asks "does it win?", ``target=0``
        "does it avoid losing?".

        One null-window search on the child (Pons, "Solving Connect 4", part 7), so it costs a
        fraction of :meth:`outcomes`, which searches every column with the window ``(-1, 1)``.
        Whether a move is a mistake needs only this: in a won position a move is one exactly when it
        does not reach 1, in a drawn one when it does not reach 0.

        Raises:
            ValueError: as :func:`parse_moves`, for a column outside 0-6 or a full one, or a
                ``target`` other than 0 or 1.
        """
        if isinstance(target, bool) or target not in (0, 1):
            raise ValueError(f"target must be 0 (draw or better) or 1 (win), got {target!r}")
        if isinstance(column, bool) or not isinstance(column, (int, np.integer)) or not 0 <= column < WIDTH:
            raise ValueError(f"column must be an int in 0..{WIDTH - 1}, got {column!r}")
        p = parse_moves(moves, allow_empty)
        if p.mask & top_mask(int(column)):
            raise ValueError(f"column {int(column) + 1} of {moves!r} is full")
        nodes = np.zeros(1, dtype=np.int64)
        reached = _move_reaches(p.position, p.mask, p.num_moves, int(column), int(target), self._tables(), nodes)
        self.node_count = int(nodes[0])
        return bool(reached)

    def optimal_moves_parsed(self, position: Position) -> tuple[int, np.ndarray]:
        """Exact score of a parsed, unfinished position and the columns that keep it.

        Perfect play needs only this, not every column's score (:meth:`analyze`): the position is
        solved once and each column is then checked with one null-window search: 1.4x less CPU
        time than :meth:`analyze` on the project's ``middle_medium`` set, 3.2x on ``begin_medium``,
        and no search at all when a move wins at once (``scripts/bench_solver.py --optimal-moves``).

        Returns:
            ``(score, optimal)``: the score for the side to move (Pons' convention) and a `[7]`
            bool array, ``optimal[c]`` true when playing 0-based column ``c`` keeps that score.

        Raises:
            ValueError: if the position is finished (a full board).
        """
        if position.num_moves >= NUM_CELLS:
            raise ValueError("the board is full: no move to choose")
        optimal = np.zeros(WIDTH, dtype=np.bool_)
        nodes = np.zeros(1, dtype=np.int64)
        score = _optimal_moves(position.position, position.mask, position.num_moves, self._tables(), optimal, nodes)
        self.node_count = int(nodes[0])
        return int(score), optimal

    def optimal_moves(self, moves: str, allow_empty: bool = False) -> tuple[int, np.ndarray]:
        """:meth:`optimal_moves_parsed` of a move string.

        Raises:
            ValueError: as :func:`parse_moves`, or for a full board.
        """
        return self.optimal_moves_parsed(parse_moves(moves, allow_empty))


_DEFAULT_SOLVER: Solver | None = None


def default_solver() -> Solver:
    """The module's shared :class:`Solver` (created on first use, with the opening book)."""
    global _DEFAULT_SOLVER
    if _DEFAULT_SOLVER is None:
        _DEFAULT_SOLVER = Solver()
    return _DEFAULT_SOLVER


def solve(moves: str, allow_empty: bool = False) -> int:
    """Exact score of the position ``moves`` for the side to move (Pons' convention).

    Example: ``solve("4455") == 18``.

    Raises:
        ValueError: as :func:`parse_moves`.
    """
    return default_solver().solve(moves, allow_empty)


def analyze(moves: str, allow_empty: bool = False) -> list[int | None]:
    """Scores of the 7 moves of ``moves`` (``None`` for a full column); see :meth:`Solver.analyze`.

    Raises:
        ValueError: as :func:`parse_moves`.
    """
    return default_solver().analyze(moves, allow_empty)
