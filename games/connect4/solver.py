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

Board encoding (7 columns x 6 rows, bit ``col * 7 + row``, row 0 at the bottom; each column
has one spare bit on top so that shifts never wrap into the next column):

* ``mask``: ``int64`` bitboard of all stones.
* ``position``: ``int64`` bitboard of the stones of the side to move.
* ``key = position + mask``: unique per position (the spare bit above each column's top stone
  marks its height), below ``2**49``.

Score convention (Pons, and ``../shared/data/connect4/README.md``): for the side to move under
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
from numba import njit

WIDTH = 7
HEIGHT = 6
#: Bits per column: ``HEIGHT`` cells plus one spare bit.
COLUMN_BITS = HEIGHT + 1
NUM_CELLS = WIDTH * HEIGHT
#: Lowest and highest score of any position (lose or win with the 4th stone).
MIN_SCORE = -(NUM_CELLS // 2) + 3
MAX_SCORE = (NUM_CELLS + 1) // 2 - 3

BOTTOM_MASK = sum(1 << (col * COLUMN_BITS) for col in range(WIDTH))
BOARD_MASK = BOTTOM_MASK * ((1 << HEIGHT) - 1)
#: Columns (0-based) from the centre outwards; ties in move ordering follow this order.
COLUMN_ORDER = np.array([3, 2, 4, 1, 5, 0, 6], dtype=np.int64)
_COLUMN_MASKS = np.array([((1 << HEIGHT) - 1) << (col * COLUMN_BITS) for col in range(WIDTH)], dtype=np.int64)
_TOP_MASKS = np.array([1 << (HEIGHT - 1 + col * COLUMN_BITS) for col in range(WIDTH)], dtype=np.int64)

#: Default transposition-table size: the prime ``2**23 + 9`` (Pons' choice; 64 MiB). Each entry is
#: one ``int64``, ``(key << 8) | value`` with the full 49-bit key, so a probe costs one memory
#: access and a slot never answers for another position; a new entry overwrites the old one.
DEFAULT_TT_SIZE = (1 << 23) + 9

# Transposition-table value encoding (0 = empty slot): an upper bound ``u`` is stored as
# ``u - MIN_SCORE + 1`` (1..37), a lower bound ``l`` as ``l + MAX_SCORE - 2 * MIN_SCORE + 2`` (38..74).
_UPPER_OFFSET = -MIN_SCORE + 1
_LOWER_OFFSET = MAX_SCORE - 2 * MIN_SCORE + 2
_LOWER_THRESHOLD = MAX_SCORE - MIN_SCORE + 1

_MAX_PLIES = NUM_CELLS + 1
#: Sentinel score for a full column in the arrays filled by the compiled analyser.
NO_SCORE = -128


# --------------------------------------------------------------------------- bitboard kernels
@njit(cache=True, inline="always")
def _winning_cells(position, mask):
    """Empty cells (bitboard) where ``position``'s owner would complete four in a row."""
    # vertical: three stones directly below
    r = (position << 1) & (position << 2) & (position << 3)
    # horizontal (shift 7), diagonal / (shift 8) and diagonal \ (shift 6)
    for s in (COLUMN_BITS, COLUMN_BITS + 1, COLUMN_BITS - 1):
        p = (position << s) & (position << (2 * s))
        r |= p & (position << (3 * s))
        r |= p & (position >> s)
        p = (position >> s) & (position >> (2 * s))
        r |= p & (position << s)
        r |= p & (position >> (3 * s))
    return r & (BOARD_MASK ^ mask)


@njit(cache=True, inline="always")
def _popcount(x):
    n = 0
    while x:
        x &= x - 1
        n += 1
    return n


@njit(cache=True, inline="always")
def _div2(x):
    """Integer division by 2 rounding toward zero (C semantics, as in Pons' code)."""
    if x >= 0:
        return x // 2
    return -((-x) // 2)


@njit(cache=True, inline="always")
def _mirror_key(key):
    m = 0
    for col in range(WIDTH):
        m |= ((key >> (col * COLUMN_BITS)) & 0x7F) << ((WIDTH - 1 - col) * COLUMN_BITS)
    return m


@njit(cache=True, inline="always")
def _canonical_key(position, mask, use_mirror):
    key = position + mask
    if use_mirror:
        m = _mirror_key(key)
        if m < key:
            return m
    return key


@njit(cache=True, inline="always")
def _can_win_next(position, mask):
    return (_winning_cells(position, mask) & ((mask + BOTTOM_MASK) & BOARD_MASK)) != 0


@njit(cache=True, inline="always")
def _tt_get(table, key):
    entry = table[key % table.shape[0]]
    if (entry >> 8) == key:
        return entry & 0xFF
    return np.int64(0)


@njit(cache=True, inline="always")
def _tt_put(table, key, value):
    table[key % table.shape[0]] = (key << 8) | value


@njit(cache=True, inline="always")
def _book_get(book_keys, book_values, key):
    n = book_keys.shape[0]
    if n == 0:
        return np.int64(0)
    i = np.searchsorted(book_keys, key)
    if i < n and book_keys[i] == key:
        return np.int64(book_values[i])
    return np.int64(0)


@njit(cache=True)
def _negamax(
    position,
    mask,
    num_moves,
    alpha,
    beta,
    table,
    book_keys,
    book_values,
    book_depth,
    use_mirror,
    stack,
    move_stack,
    counters,
):
    """Fail-soft negamax with alpha-beta over an explicit stack (Pons parts 3-12).

    Precondition: ``alpha < beta`` and the side to move cannot win with its next move.
    ``stack``: `[43, 8]` int64 scratch (one row per depth); ``move_stack``: `[43, 7]` int64 scratch.
    ``counters[0]`` is incremented once per node visited. Returns the score, exact if it lies
    strictly inside ``(alpha, beta)``, else a bound on the same side of the window.
    """
    # stack columns: 0 position, 1 mask, 2 alpha, 3 beta, 4 key, 5 number of moves, 6 next index
    depth = 0
    stack[0, 0] = position
    stack[0, 1] = mask
    stack[0, 2] = alpha
    stack[0, 3] = beta
    nodes = counters[0]
    while True:
        # ---- enter the node at ``depth``
        nodes += 1
        pos = stack[depth, 0]
        msk = stack[depth, 1]
        a = stack[depth, 2]
        b = stack[depth, 3]
        ply = num_moves + depth
        ret = np.int64(0)
        returned = True
        possible = (msk + BOTTOM_MASK) & BOARD_MASK
        opponent_win = _winning_cells(pos ^ msk, msk)
        forced = possible & opponent_win
        if forced != 0:
            if forced & (forced - 1):
                possible = 0  # two threats to block: lost
            else:
                possible = forced
        possible &= ~(opponent_win >> 1)  # never play below an opponent's winning cell
        if possible == 0:
            ret = -((NUM_CELLS - ply) // 2)  # the opponent wins next move
        elif ply >= NUM_CELLS - 2:
            ret = 0  # neither side can win any more
        else:
            returned = False
            lo = -((NUM_CELLS - 2 - ply) // 2)  # the opponent cannot win next move
            if a < lo:
                a = lo
                if a >= b:
                    ret = a
                    returned = True
            if not returned:
                key = _canonical_key(pos, msk, use_mirror)
                val = _tt_get(table, key)
                if val != 0:
                    if val > _LOWER_THRESHOLD:
                        lo = val - _LOWER_OFFSET
                        if a < lo:
                            a = lo
                            if a >= b:
                                ret = a
                                returned = True
                    else:
                        hi = val - _UPPER_OFFSET
                        if b > hi:
                            b = hi
                            if a >= b:
                                ret = b
                                returned = True
                if not returned and ply <= book_depth:
                    # the book is keyed by canonical (mirror-reduced) keys whatever use_mirror says
                    val = _book_get(
                        book_keys, book_values, key if use_mirror else _canonical_key(pos, msk, True)
                    )
                    if val != 0:
                        ret = val + MIN_SCORE - 1
                        returned = True
                if not returned:
                    # order moves by the number of winning cells they create; ties centre first.
                    # Insertion sort, ascending; moves are taken from the end.
                    n = 0
                    for i in range(WIDTH - 1, -1, -1):
                        mv = possible & _COLUMN_MASKS[COLUMN_ORDER[i]]
                        if mv != 0:
                            score = _popcount(_winning_cells(pos | mv, msk))
                            j = n
                            while j > 0 and (move_stack[depth, j - 1] >> 56) > score:
                                move_stack[depth, j] = move_stack[depth, j - 1]
                                j -= 1
                            move_stack[depth, j] = mv | (score << 56)
                            n += 1
                    stack[depth, 2] = a
                    stack[depth, 3] = b
                    stack[depth, 4] = key
                    stack[depth, 5] = n
                    stack[depth, 6] = n - 1
                    mv = move_stack[depth, n - 1] & BOARD_MASK
                    stack[depth + 1, 0] = pos ^ msk
                    stack[depth + 1, 1] = msk | mv
                    stack[depth + 1, 2] = -b
                    stack[depth + 1, 3] = -a
                    depth += 1
                    continue
        # ---- unwind: ``ret`` is the value of the node at ``depth``
        while True:
            if depth == 0:
                counters[0] = nodes
                return ret
            depth -= 1
            score = -ret
            if score >= stack[depth, 3]:
                v = min(max(score, MIN_SCORE), MAX_SCORE)
                _tt_put(table, stack[depth, 4], v + _LOWER_OFFSET)
                ret = score
                continue
            stack[depth, 2] = max(stack[depth, 2], score)
            i = stack[depth, 6] - 1
            if i >= 0:
                stack[depth, 6] = i
                mv = move_stack[depth, i] & BOARD_MASK
                pos = stack[depth, 0]
                msk = stack[depth, 1]
                stack[depth + 1, 0] = pos ^ msk
                stack[depth + 1, 1] = msk | mv
                stack[depth + 1, 2] = -stack[depth, 3]
                stack[depth + 1, 3] = -stack[depth, 2]
                depth += 1
                break
            a = stack[depth, 2]
            v = min(max(a, MIN_SCORE), MAX_SCORE)
            _tt_put(table, stack[depth, 4], v + _UPPER_OFFSET)
            ret = a


@njit(cache=True)
def _solve(
    position,
    mask,
    num_moves,
    table,
    book_keys,
    book_values,
    book_depth,
    use_mirror,
    stack,
    move_stack,
    counters,
):
    """Exact score of a position that is not finished (iterative null-window narrowing, Pons part 7)."""
    if _can_win_next(position, mask):
        return (NUM_CELLS + 1 - num_moves) // 2
    lo = -((NUM_CELLS - num_moves) // 2)
    hi = (NUM_CELLS + 1 - num_moves) // 2
    while lo < hi:
        med = lo + (hi - lo) // 2
        if med <= 0 and _div2(lo) < med:
            med = _div2(lo)
        elif med >= 0 and _div2(hi) > med:
            med = _div2(hi)
        r = _negamax(
            position,
            mask,
            num_moves,
            med,
            med + 1,
            table,
            book_keys,
            book_values,
            book_depth,
            use_mirror,
            stack,
            move_stack,
            counters,
        )
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def _solve_many(
    positions, masks, num_moves, table, book_keys, book_values, book_depth, use_mirror, scores, nodes
):
    """Solve ``positions[i], masks[i], num_moves[i]`` into ``scores[i]`` and ``nodes[i]`` (all `[N]` int64)."""
    stack = np.zeros((_MAX_PLIES, 8), dtype=np.int64)
    move_stack = np.zeros((_MAX_PLIES, WIDTH), dtype=np.int64)
    counters = np.zeros(1, dtype=np.int64)
    for i in range(positions.shape[0]):
        counters[0] = 0
        scores[i] = _solve(
            positions[i],
            masks[i],
            num_moves[i],
            table,
            book_keys,
            book_values,
            book_depth,
            use_mirror,
            stack,
            move_stack,
            counters,
        )
        nodes[i] = counters[0]


@njit(cache=True)
def _analyze(position, mask, num_moves, table, book_keys, book_values, book_depth, use_mirror, scores, nodes):
    """Score of every column into ``scores`` (`[7]` int64; ``NO_SCORE`` for a full column)."""
    stack = np.zeros((_MAX_PLIES, 8), dtype=np.int64)
    move_stack = np.zeros((_MAX_PLIES, WIDTH), dtype=np.int64)
    counters = np.zeros(1, dtype=np.int64)
    wins = _winning_cells(position, mask)
    for col in range(WIDTH):
        if mask & _TOP_MASKS[col]:
            scores[col] = NO_SCORE
            continue
        move = (mask + BOTTOM_MASK) & _COLUMN_MASKS[col]
        if move & wins:
            scores[col] = (NUM_CELLS + 1 - num_moves) // 2
            continue
        scores[col] = -_solve(
            position ^ mask,
            mask | move,
            num_moves + 1,
            table,
            book_keys,
            book_values,
            book_depth,
            use_mirror,
            stack,
            move_stack,
            counters,
        )
    nodes[0] = counters[0]


@njit(cache=True)
def _optimal_moves(
    position, mask, num_moves, table, book_keys, book_values, book_depth, use_mirror, optimal, nodes
):
    """Exact score of an unfinished position and which columns keep it (``optimal``: `[7]` bool).

    Cheaper than scoring every column (:func:`_analyze`): the position is solved once, then each
    column ``c`` is tested with one null-window search on its child, ``score(child) <= -score``,
    which holds exactly for the moves that keep the score (every child scores at least ``-score``).
    The tests reuse the transposition table the root search filled.
    """
    stack = np.zeros((_MAX_PLIES, 8), dtype=np.int64)
    move_stack = np.zeros((_MAX_PLIES, WIDTH), dtype=np.int64)
    counters = np.zeros(1, dtype=np.int64)
    wins = _winning_cells(position, mask)
    can_win = False
    for col in range(WIDTH):
        optimal[col] = False
        if mask & _TOP_MASKS[col] == 0 and (mask + BOTTOM_MASK) & _COLUMN_MASKS[col] & wins:
            optimal[col] = True
            can_win = True
    if can_win:
        nodes[0] = 0
        return (NUM_CELLS + 1 - num_moves) // 2
    score = _solve(
        position, mask, num_moves, table, book_keys, book_values, book_depth, use_mirror, stack, move_stack, counters
    )
    for col in range(WIDTH):
        if mask & _TOP_MASKS[col]:
            continue
        child_position = position ^ mask
        child_mask = mask | ((mask + BOTTOM_MASK) & _COLUMN_MASKS[col])
        child_moves = num_moves + 1
        if child_moves == NUM_CELLS:
            child_score = 0  # the last cell, no four in a row
        elif _can_win_next(child_position, child_mask):
            child_score = (NUM_CELLS + 1 - child_moves) // 2
        else:
            r = _negamax(
                child_position,
                child_mask,
                child_moves,
                -score,
                -score + 1,
                table,
                book_keys,
                book_values,
                book_depth,
                use_mirror,
                stack,
                move_stack,
                counters,
            )
            child_score = -score if r <= -score else -score + 1
        optimal[col] = child_score == -score
    nodes[0] = counters[0]
    return score


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


def has_four(bitboard: int) -> bool:
    """Whether the stones of ``bitboard`` (one side's, bit ``col * 7 + row``) hold four in a row."""
    for s in (1, COLUMN_BITS, COLUMN_BITS - 1, COLUMN_BITS + 1):
        m = bitboard & (bitboard >> s)
        if m & (m >> (2 * s)):
            return True
    return False


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
        raise ValueError(f"moves must be a str of column digits 1-7, got {type(moves).__name__}")  # noqa: TRY004
    if not moves and not allow_empty:
        raise ValueError("empty position: expected column digits 1-7")
    position = 0
    mask = 0
    for i, ch in enumerate(moves):
        if ch not in "1234567":
            raise ValueError(f"move {i + 1}: character {ch!r} is not a column 1-7")
        col = ord(ch) - ord("1")
        if mask & (1 << (HEIGHT - 1 + col * COLUMN_BITS)):
            raise ValueError(f"move {i + 1}: column {ch} is already full")
        move = (mask + (1 << (col * COLUMN_BITS))) & (((1 << HEIGHT) - 1) << (col * COLUMN_BITS))
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
            from games.connect4.book import load_book

            self.book_keys, self.book_values, self.book_depth = load_book(book_path)
        else:
            self.book_keys = np.zeros(0, dtype=np.int64)
            self.book_values = np.zeros(0, dtype=np.int8)
            self.book_depth = -1
        self.node_count = 0

    def reset(self) -> None:
        """Empty the transposition table."""
        self.table[:] = 0

    def _args(self):
        return (self.table, self.book_keys, self.book_values, self.book_depth, self.use_mirror)

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
        _solve_many(pos, msk, num, *self._args(), scores, nodes)
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
        _analyze(p.position, p.mask, p.num_moves, *self._args(), scores, nodes)
        self.node_count = int(nodes[0])
        return [None if s == NO_SCORE else int(s) for s in scores]


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
        score = _optimal_moves(position.position, position.mask, position.num_moves, *self._args(), optimal, nodes)
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
