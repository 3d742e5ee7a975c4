"""Connect Four's bitboard layout, in one place: constants, masks and the bit kernels on it.

The layout is Pascal Pons' ("Solving Connect 4: how to build a perfect AI", blog.gamesolver.org,
2017, part 6, bitboard): 7 columns x 6 rows, bit ``col * 7 + row`` for the cell in column ``col``
and row ``row`` (row 0 at the bottom). Each column has one spare bit on top (the 7th), always
empty, so that shifts never wrap into the next column. A position is two ``int64`` bitboards:

* ``mask``: all stones;
* ``current`` (Pons' ``position``): the stones of the player to move; the opponent's are
  ``current ^ mask``.

``current + mask`` is unique per position (the spare bit above each column's top stone marks its
height) and below ``2**49``: it is the transposition-table key of the solver and of alpha-beta.

The rules (``games.connect4.game``), the exact solver (``games.connect4.solver``) and the search
heuristic (``games.connect4.heuristic``) all read these names. The ``njit`` kernels are callable
from Python as well as from compiled code.
"""

from __future__ import annotations

import numpy as np
from numba import njit

WIDTH = 7
HEIGHT = 6
#: bits per column: ``HEIGHT`` cells plus the spare bit
COLUMN_STRIDE = HEIGHT + 1
#: the solver's name for ``COLUMN_STRIDE`` (Pons' code calls it ``HEIGHT + 1`` too)
COLUMN_BITS = COLUMN_STRIDE
NUM_CELLS = WIDTH * HEIGHT

#: the bottom cell of every column
BOTTOM_MASK = sum(1 << (c * COLUMN_STRIDE) for c in range(WIDTH))
#: every cell of the board (no spare bits)
BOARD_MASK = BOTTOM_MASK * ((1 << HEIGHT) - 1)
#: columns (0-based) from the centre outwards, the a-priori move order of every search
CENTRE_FIRST_ORDER = (3, 2, 4, 1, 5, 0, 6)


def top_mask(col: int) -> int:
    """Bit of the top cell of column ``col``."""
    return 1 << (HEIGHT - 1 + col * COLUMN_STRIDE)


def bottom_mask(col: int) -> int:
    """Bit of the bottom cell of column ``col``."""
    return 1 << (col * COLUMN_STRIDE)


def column_mask(col: int) -> int:
    """Bits of all six cells of column ``col``."""
    return ((1 << HEIGHT) - 1) << (col * COLUMN_STRIDE)


def move_bit(mask: int, col: int) -> int:
    """The bit of the cell a stone dropped in column ``col`` lands on (0 if the column is full)."""
    return (mask + bottom_mask(col)) & column_mask(col)


def has_four(stones: int) -> bool:
    """True if ``stones`` (one side's bitboard) holds four in a row (Pons, part 6: shift-and test)."""
    for shift in (1, COLUMN_STRIDE, COLUMN_STRIDE - 1, COLUMN_STRIDE + 1):
        m = stones & (stones >> shift)
        if m & (m >> (2 * shift)):
            return True
    return False


def _winning_lines() -> list[int]:
    lines = []
    for col in range(WIDTH):
        for row in range(HEIGHT):
            for dc, dr in ((1, 0), (0, 1), (1, 1), (1, -1)):
                cells = [(col + i * dc, row + i * dr) for i in range(4)]
                if all(0 <= c < WIDTH and 0 <= r < HEIGHT for c, r in cells):
                    lines.append(sum(1 << (c * COLUMN_STRIDE + r) for c, r in cells))
    return lines


#: the 69 winning lines as bitboards
WIN_LINES: tuple[int, ...] = tuple(_winning_lines())

#: ``[7]`` int64: the top cell, the bottom cell and all cells of each column
TOP_MASKS = np.array([top_mask(c) for c in range(WIDTH)], dtype=np.int64)
BOTTOM_MASKS = np.array([bottom_mask(c) for c in range(WIDTH)], dtype=np.int64)
COLUMN_MASKS = np.array([column_mask(c) for c in range(WIDTH)], dtype=np.int64)


@njit(cache=True, inline="always")
def four(stones):
    """``has_four`` for compiled code, the four directions unrolled."""
    m = stones & (stones >> 7)
    if m & (m >> 14):
        return True
    m = stones & (stones >> 6)
    if m & (m >> 12):
        return True
    m = stones & (stones >> 8)
    if m & (m >> 16):
        return True
    m = stones & (stones >> 1)
    if m & (m >> 2):
        return True
    return False


@njit(cache=True, inline="always")
def winning_cells(stones, mask):
    """Bitboard of the empty cells that would complete four in a row for ``stones``.

    ``mask`` is the bitboard of all stones. The cells need not be playable now. Pons' solver,
    ``compute_winning_position``: shifts in the four directions.
    """
    # vertical: three stones directly below
    cells = (stones << 1) & (stones << 2) & (stones << 3)
    # horizontal (shift 7), diagonal / (shift 8) and diagonal \ (shift 6)
    for shift in (COLUMN_STRIDE, COLUMN_STRIDE + 1, COLUMN_STRIDE - 1):
        pair = (stones << shift) & (stones << (2 * shift))
        cells |= pair & (stones << (3 * shift))
        cells |= pair & (stones >> shift)
        pair = (stones >> shift) & (stones >> (2 * shift))
        cells |= pair & (stones << shift)
        cells |= pair & (stones >> (3 * shift))
    return cells & (BOARD_MASK ^ mask)


@njit(cache=True, inline="always")
def popcount(bits):
    """Number of set bits of a non-negative ``int64``."""
    count = 0
    while bits:
        bits &= bits - 1
        count += 1
    return count


@njit(cache=True, inline="always")
def mirror_bits(bits):
    """The left-right mirror of a bitboard (column ``c`` goes to ``6 - c``, spare bits included)."""
    out = 0
    for col in range(WIDTH):
        out |= ((bits >> (col * COLUMN_STRIDE)) & 0x7F) << ((WIDTH - 1 - col) * COLUMN_STRIDE)
    return out
