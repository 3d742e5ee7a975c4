"""The compiled search of the exact Connect Four solver (``games.connect4.solver`` is its API).

Negamax with alpha-beta pruning over an explicit stack, a transposition table of one ``int64`` per
entry, iterative null-window narrowing and the opening-book probe: Pascal Pons, "Solving Connect 4:
how to build a perfect AI" (blog.gamesolver.org, 2017), parts 3-12. Positions are the bitboards of
``games.connect4.layout``; scores follow Pons' convention (see ``games.connect4.solver``).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from games.connect4.layout import (
    BOARD_MASK,
    BOTTOM_MASK,
    CENTRE_FIRST_ORDER,
    COLUMN_MASKS,
    NUM_CELLS,
    TOP_MASKS,
    WIDTH,
    mirror_bits,
    popcount,
    winning_cells,
)

#: Lowest and highest score of any position (lose or win with the 4th stone).
MIN_SCORE = -(NUM_CELLS // 2) + 3
MAX_SCORE = (NUM_CELLS + 1) // 2 - 3

#: Columns (0-based) from the centre outwards; ties in move ordering follow this order.
COLUMN_ORDER = np.array(CENTRE_FIRST_ORDER, dtype=np.int64)

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




class SolverTables(NamedTuple):
    """What every search of one solver shares, passed to the kernels as one record (Numba
    compiles a NamedTuple of arrays as a plain tuple: no copy, no per-call cost).

    Attributes:
        table: `[T]` int64 transposition table (entries as described at ``DEFAULT_TT_SIZE``).
        book_keys: `[K]` int64 sorted canonical keys of the opening book (empty without a book).
        book_values: `[K]` int8 book values, ``score - MIN_SCORE + 1``.
        book_depth: deepest ply (int) stored in the book, -1 without a book.
        use_mirror: share table entries between a position and its mirror image (bool).
    """

    table: np.ndarray
    book_keys: np.ndarray
    book_values: np.ndarray
    book_depth: int
    use_mirror: bool


class Scratch(NamedTuple):
    """Working arrays of one search (``_new_scratch``).

    Attributes:
        stack: `[43, 8]` int64, one row per depth of the explicit negamax stack.
        move_stack: `[43, 7]` int64, the ordered moves of each depth.
        counters: `[1]` int64, nodes visited.
    """

    stack: np.ndarray
    move_stack: np.ndarray
    counters: np.ndarray


# --------------------------------------------------------------------------- small kernels
@njit(cache=True)
def _new_scratch():
    return Scratch(
        np.zeros((_MAX_PLIES, 8), dtype=np.int64), np.zeros((_MAX_PLIES, WIDTH), dtype=np.int64), np.zeros(1, dtype=np.int64)
    )


@njit(cache=True, inline="always")
def _div2(x):
    """Integer division by 2 rounding toward zero (C semantics, as in Pons' code)."""
    if x >= 0:
        return x // 2
    return -((-x) // 2)


@njit(cache=True, inline="always")
def _canonical_key(position, mask, use_mirror):
    key = position + mask
    if use_mirror:
        m = mirror_bits(key)
        if m < key:
            return m
    return key


@njit(cache=True, inline="always")
def _can_win_next(position, mask):
    return (winning_cells(position, mask) & ((mask + BOTTOM_MASK) & BOARD_MASK)) != 0


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
def _negamax(position, mask, num_moves, alpha, beta, tables, scratch):
    """Fail-soft negamax with alpha-beta over an explicit stack (Pons parts 3-12).

    Precondition: ``alpha < beta`` and the side to move cannot win with its next move.
    ``tables``: the ``SolverTables``; ``scratch``: a ``Scratch`` whose ``counters[0]`` is
    incremented once per node visited. Returns the score, exact if it lies strictly inside
    ``(alpha, beta)``, else a bound on the same side of the window.
    """
    table, book_keys, book_values = tables.table, tables.book_keys, tables.book_values
    book_depth, use_mirror = tables.book_depth, tables.use_mirror
    stack, move_stack, counters = scratch.stack, scratch.move_stack, scratch.counters
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
        opponent_win = winning_cells(pos ^ msk, msk)
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
                        mv = possible & COLUMN_MASKS[COLUMN_ORDER[i]]
                        if mv != 0:
                            score = popcount(winning_cells(pos | mv, msk))
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
def _solve(position, mask, num_moves, tables, scratch):
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
        r = _negamax(position, mask, num_moves, med, med + 1, tables, scratch)
        if r <= med:
            hi = r
        else:
            lo = r
    return lo


@njit(cache=True)
def _solve_many(positions, masks, num_moves, tables, scores, nodes):
    """Solve ``positions[i], masks[i], num_moves[i]`` into ``scores[i]`` and ``nodes[i]`` (all `[N]` int64)."""
    scratch = _new_scratch()
    counters = scratch.counters
    for i in range(positions.shape[0]):
        counters[0] = 0
        scores[i] = _solve(positions[i], masks[i], num_moves[i], tables, scratch)
        nodes[i] = counters[0]


@njit(cache=True)
def _analyze(position, mask, num_moves, tables, scores, nodes):
    """Score of every column into ``scores`` (`[7]` int64; ``NO_SCORE`` for a full column)."""
    scratch = _new_scratch()
    counters = scratch.counters
    wins = winning_cells(position, mask)
    for col in range(WIDTH):
        if mask & TOP_MASKS[col]:
            scores[col] = NO_SCORE
            continue
        move = (mask + BOTTOM_MASK) & COLUMN_MASKS[col]
        if move & wins:
            scores[col] = (NUM_CELLS + 1 - num_moves) // 2
            continue
        scores[col] = -_solve(position ^ mask, mask | move, num_moves + 1, tables, scratch)
    nodes[0] = counters[0]


@njit(cache=True)
def _optimal_moves(position, mask, num_moves, tables, optimal, nodes):
    """Exact score of an unfinished position and which columns keep it (``optimal``: `[7]` bool).

    Cheaper than scoring every column (:func:`_analyze`): the position is solved once, then each
    column ``c`` is tested with one null-window search on its child, ``score(child) <= -score``,
    which holds exactly for the moves that keep the score (every child scores at least ``-score``).
    The tests reuse the transposition table the root search filled.
    """
    scratch = _new_scratch()
    counters = scratch.counters
    wins = winning_cells(position, mask)
    can_win = False
    for col in range(WIDTH):
        optimal[col] = False
        if mask & TOP_MASKS[col] == 0 and (mask + BOTTOM_MASK) & COLUMN_MASKS[col] & wins:
            optimal[col] = True
            can_win = True
    if can_win:
        nodes[0] = 0
        return (NUM_CELLS + 1 - num_moves) // 2
    score = _solve(position, mask, num_moves, tables, scratch)
    for col in range(WIDTH):
        if mask & TOP_MASKS[col]:
            continue
        child_position = position ^ mask
        child_mask = mask | ((mask + BOTTOM_MASK) & COLUMN_MASKS[col])
        child_moves = num_moves + 1
        if child_moves == NUM_CELLS:
            child_score = 0  # the last cell, no four in a row
        elif _can_win_next(child_position, child_mask):
            child_score = (NUM_CELLS + 1 - child_moves) // 2
        else:
            r = _negamax(child_position, child_mask, child_moves, -score, -score + 1, tables, scratch)
            child_score = -score if r <= -score else -score + 1
        optimal[col] = child_score == -score
    nodes[0] = counters[0]
    return score


#: Outcome code of a full column in the arrays filled by :func:`_outcomes`.
NO_OUTCOME = -2


@njit(cache=True)
def _outcomes(position, mask, num_moves, tables, outcomes, nodes):
    """Win/draw/loss of every column for the side to move into ``outcomes`` (`[7]` int64: +1 win,
    0 draw, -1 loss, ``NO_OUTCOME`` for a full column).

    A weak solve (Pons part 7, "weak solver"): each child is searched once with the window
    ``(-1, 1)``, which finds the sign of its score but not the score itself, far fewer nodes than
    the exact score :func:`_analyze` narrows to. The transposition table holds bounds on exact
    scores, so it is shared with exact solves.
    """
    scratch = _new_scratch()
    counters = scratch.counters
    wins = winning_cells(position, mask)
    for col in range(WIDTH):
        if mask & TOP_MASKS[col]:
            outcomes[col] = NO_OUTCOME
            continue
        move = (mask + BOTTOM_MASK) & COLUMN_MASKS[col]
        if move & wins:
            outcomes[col] = 1
            continue
        child_position = position ^ mask
        child_mask = mask | move
        child_moves = num_moves + 1
        if child_moves == NUM_CELLS:
            outcomes[col] = 0  # the last cell, no four in a row
        elif _can_win_next(child_position, child_mask):
            outcomes[col] = -1
        else:
            r = _negamax(child_position, child_mask, child_moves, -1, 1, tables, scratch)
            outcomes[col] = 1 if r <= -1 else (-1 if r >= 1 else 0)
    nodes[0] = counters[0]


@njit(cache=True)
def _move_reaches(position, mask, num_moves, col, target, tables, nodes):
    """Whether playing 0-based column ``col`` (not full) gives the side to move an outcome of at
    least ``target`` (0: a draw or a win, 1: a win) under perfect play.

    One null-window search on the child, ``score(child) <= -target`` (the window
    ``(-target, -target + 1)``, Pons part 7), cheaper than the ``(-1, 1)`` window of
    :func:`_outcomes` when only one side of the question matters, as it does for a mistake.
    """
    scratch = _new_scratch()
    counters = scratch.counters
    move = (mask + BOTTOM_MASK) & COLUMN_MASKS[col]
    nodes[0] = 0
    if move & winning_cells(position, mask):
        return True
    child_position = position ^ mask
    child_mask = mask | move
    child_moves = num_moves + 1
    if child_moves == NUM_CELLS:
        return target <= 0  # the last cell, no four in a row: a draw
    if _can_win_next(child_position, child_mask):
        return False
    r = _negamax(child_position, child_mask, child_moves, -target, -target + 1, tables, scratch)
    nodes[0] = counters[0]
    return r <= -target
