"""Connect Four knowledge for classical search: heuristic evaluation, noisy moves, table key.

All three read a single Connect Four state tuple ``(current, mask, ply, status)`` (bitboards in
Pons' layout, ``games.connect4.layout``; ``current`` holds the stones of the player to move).
``ConnectFourKnowledge.heuristic_fn`` and ``.transposition_key`` (``games.connect4.knowledge``) hand
the first and the last to ``search.alphabeta``; pass ``noisy_actions`` as its quiescence hook.

The evaluation is a common hand-made one for depth-limited Connect Four search (the weights are
chosen here, not taken from a paper): over the 69 winning lines, every line holding three stones
of one player and one empty cell (an *open three*) and every line holding two stones of one player
and two empty cells (an *open two*) counts for that player, and so does every stone in the centre
column.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games.connect4.layout import (
    BOARD_MASK,
    BOTTOM_MASK,
    COLUMN_STRIDE,
    WIDTH,
    WIN_LINES,
    column_mask,
    popcount,
    winning_cells,
)

#: points per open three (a line with 3 stones of one player and 1 empty cell)
OPEN_THREE_WEIGHT = 50
#: points per open two (a line with 2 stones of one player and 2 empty cells)
OPEN_TWO_WEIGHT = 10
#: points per stone in the centre column (column 4 in move strings)
CENTRE_WEIGHT = 8
#: bound on |evaluate(s)|: 69 lines of the heavier kind plus 6 centre stones
MAX_EVALUATION = len(WIN_LINES) * OPEN_THREE_WEIGHT + 6 * CENTRE_WEIGHT

_LINES = np.array(WIN_LINES, dtype=np.int64)
_CENTRE_MASK = np.int64(column_mask(WIDTH // 2))


@njit(cache=True)
def _evaluate_kernel(current, mask):
    # the lines, weights and centre mask are module globals, frozen into the compiled code: two
    # int arguments keep the per-call dispatch cost low
    opponent = current ^ mask
    score = 0
    for i in range(_LINES.shape[0]):
        line = _LINES[i]
        mine = current & line
        theirs = opponent & line
        if theirs == 0:
            if mine != 0:
                n = popcount(mine)
                if n == 3:
                    score += OPEN_THREE_WEIGHT
                elif n == 2:
                    score += OPEN_TWO_WEIGHT
        elif mine == 0:
            n = popcount(theirs)
            if n == 3:
                score -= OPEN_THREE_WEIGHT
            elif n == 2:
                score -= OPEN_TWO_WEIGHT
    score += CENTRE_WEIGHT * (popcount(current & _CENTRE_MASK) - popcount(opponent & _CENTRE_MASK))
    return score


def evaluate(state: tuple) -> int:
    """Heuristic score of a non-terminal Connect Four state for the player to move (integer points).

    ``OPEN_THREE_WEIGHT * (own open threes - opponent's) + OPEN_TWO_WEIGHT * (own open twos -
    opponent's) + CENTRE_WEIGHT * (own centre stones - opponent's)``. Lines with four stones (a
    finished game) count nothing: searches score finished states exactly instead. Always within
    ``[-MAX_EVALUATION, MAX_EVALUATION]``, far inside ``search.minimax.PROVEN_THRESHOLD``.
    Compiled with Numba (the weights are compiled in): one 69-line loop per call, about a
    microsecond.
    """
    return int(_evaluate_kernel(state[0], state[1]))


def noisy_actions(state: tuple) -> list[int]:
    """Noisy moves of a Connect Four state: columns that win now or block the opponent's win now.

    For the quiescence hook of ``search.alphabeta``: the horizon must not cut a line just before
    an immediate win or a forced block. Columns in increasing order; empty for a finished state.
    """
    current, mask, _, status = state
    if status:
        return []
    playable = (mask + BOTTOM_MASK) & BOARD_MASK
    hot = playable & (int(winning_cells(current, mask)) | int(winning_cells(current ^ mask, mask)))
    if not hot:
        return []
    column_bits = (1 << COLUMN_STRIDE) - 1
    return [col for col in range(WIDTH) if hot >> (col * COLUMN_STRIDE) & column_bits]


def transposition_key(state: tuple) -> int:
    """Transposition-table key of a Connect Four state: ``current + mask``.

    Unique per position (the key of Pons' solver): a column with ``h`` stones contributes
    ``(2**h - 1) + stones``, which lies in ``[2**h - 1, 2**(h + 1) - 2]``, below the column's
    7-bit stride; the ranges for different ``h`` are disjoint, so height and stones can be read
    back from the key.
    """
    return state[0] + state[1]
