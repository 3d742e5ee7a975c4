"""Shared layout and Numba kernels of the bitboard games (tic-tac-toe and Connect Four).

Both games store one state as the row ``[current, mask, ply, status]`` (``int64``):

* ``current``: bitboard of the stones of the player to move;
* ``mask``: bitboard of all stones;
* ``ply``: plies played so far (the player to move is ``ply % 2``; 0 moved first);
* ``status``: ``ONGOING``, ``FIRST_PLAYER_WON``, ``SECOND_PLAYER_WON`` or ``DRAW``.

This is the layout of Pascal Pons' Connect Four solver ("Solving Connect 4", part 6, bitboard):
the opponent's stones are ``current ^ mask``, and after a move ``current`` becomes the old
opponent's stones, so the encoding is always from the view of the player to move.
"""

from __future__ import annotations

import numpy as np
from numba import njit

CURRENT, MASK, PLY, STATUS = 0, 1, 2, 3
STATE_SIZE = 4

ONGOING, FIRST_PLAYER_WON, SECOND_PLAYER_WON, DRAW = 0, 1, 2, 3

#: error codes returned by the step kernels
OK, ERROR_FINISHED, ERROR_ILLEGAL = 0, 1, 2


def to_play(states: np.ndarray) -> np.ndarray:
    return (states[:, PLY] & 1).astype(np.int8)


def winner(states: np.ndarray) -> np.ndarray:
    status = states[:, STATUS]
    out = np.full(status.shape, -1, dtype=np.int8)
    out[status == FIRST_PLAYER_WON] = 0
    out[status == SECOND_PLAYER_WON] = 1
    return out


def terminal(states: np.ndarray) -> np.ndarray:
    return states[:, STATUS] != ONGOING


@njit(cache=True)
def bit_planes(states, height, width, column_stride, row_major_top_first, out):
    """Write the two stone planes of each state into ``out`` ``[B, 2, H, W]`` float32.

    Plane 0: stones of the player to move; plane 1: the opponent's. For a column-major board
    (Connect Four, bit = col * column_stride + row, row 0 at the bottom) pass
    ``row_major_top_first=False``; image row 0 is then the top row. For a row-major board
    (tic-tac-toe, bit = row * width + col) pass True.
    """
    for b in range(states.shape[0]):
        current = states[b, 0]
        opponent = current ^ states[b, 1]
        for h in range(height):
            for w in range(width):
                if row_major_top_first:
                    bit = h * width + w
                else:
                    bit = w * column_stride + (height - 1 - h)
                out[b, 0, h, w] = (current >> bit) & 1
                out[b, 1, h, w] = (opponent >> bit) & 1
    return out
