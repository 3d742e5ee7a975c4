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

from games.base import EMPTY_CELL, CompiledRules, Game, check_batch

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
        bit_planes_one(states[b], height, width, column_stride, row_major_top_first, out[b])
    return out


@njit(cache=True)
def bit_planes_one(state, height, width, column_stride, row_major_top_first, out):
    """``bit_planes`` of one state ``[S]`` int64 into ``out`` ``[2, H, W]`` float32."""
    current = state[CURRENT]
    opponent = current ^ state[MASK]
    for h in range(height):
        for w in range(width):
            if row_major_top_first:
                bit = h * width + w
            else:
                bit = w * column_stride + (height - 1 - h)
            out[0, h, w] = (current >> bit) & 1
            out[1, h, w] = (opponent >> bit) & 1


def cell_owners(state, cell_bits, win_lines) -> tuple[tuple[int, ...], tuple[int, ...]]:
    """Who holds each drawn cell of one state, and which cells won, for ``games.base.BoardView``.

    Args:
        state: one ``[current, mask, ply, status]`` row (a tuple or a ``[4]`` array).
        cell_bits: for each drawn cell in order, its bit index on the board.
        win_lines: the game's winning lines as bitboards.

    Returns:
        ``(owners, winning_cells)``: ``owners[i]`` is ``EMPTY_CELL``, 0 (X) or 1 (O) for drawn cell
        ``i``; ``winning_cells`` lists, in increasing order, the drawn cells on a winning line
        the winner holds completely (empty unless the game is won).
    """
    current, mask, ply, status = (int(v) for v in state)
    x_stones = current if ply % 2 == 0 else current ^ mask
    owners = tuple(
        EMPTY_CELL if not mask >> bit & 1 else (0 if x_stones >> bit & 1 else 1) for bit in cell_bits
    )
    if status not in (FIRST_PLAYER_WON, SECOND_PLAYER_WON):
        return owners, ()
    stones = x_stones if status == FIRST_PLAYER_WON else x_stones ^ mask
    won = 0
    for line in win_lines:
        if stones & int(line) == int(line):
            won |= int(line)
    return owners, tuple(i for i, bit in enumerate(cell_bits) if won >> bit & 1)


@njit(cache=True)
def is_terminal_one(state):
    """``TERMINAL-TEST`` of one ``[4]`` int64 state row, compiled."""
    return state[STATUS] != ONGOING


@njit(cache=True)
def winner_one(state):
    """0 or 1 for a won game, -1 for a draw or an unfinished one: one ``[4]`` int64 row, compiled."""
    status = state[STATUS]
    if status == FIRST_PLAYER_WON:
        return 0
    if status == SECOND_PLAYER_WON:
        return 1
    return -1


@njit(cache=True)
def to_play_one(state):
    """The player to move (0 or 1) of one ``[4]`` int64 state row, compiled."""
    return state[PLY] & 1


def compiled_rules(legal_one, step_one) -> CompiledRules:
    """``games.base.CompiledRules`` of a bitboard game from its two per-game compiled functions."""
    return CompiledRules(legal_one, step_one, is_terminal_one, winner_one, to_play_one)


class BitboardGame(Game):
    """What tic-tac-toe and Connect Four share: the ``[current, mask, ply, status]`` rows, the
    batched bookkeeping and the single-state functions that only read ``ply``/``status``.

    Subclasses set the ``Game`` attributes and implement ``_legal_kernel(states, out)`` and
    ``_step_kernel(states, actions, out) -> (row, error)`` (Numba kernels; ``error`` is ``OK``,
    ``ERROR_FINISHED`` or ``ERROR_ILLEGAL`` for the first bad ``row``).
    """

    state_size = STATE_SIZE

    def _legal_kernel(self, states: np.ndarray, out: np.ndarray) -> np.ndarray:
        raise NotImplementedError

    def _step_kernel(self, states: np.ndarray, actions: np.ndarray, out: np.ndarray):
        raise NotImplementedError

    # ----------------------------------------------------------------- batched API
    def initial_states(self, batch_size: int) -> np.ndarray:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        return np.zeros((batch_size, STATE_SIZE), dtype=np.int64)

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        return self._legal_kernel(states, np.zeros((states.shape[0], self.num_actions), dtype=np.bool_))

    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        actions = np.asarray(actions, dtype=np.int64)
        check_batch(self, states, actions)
        out = np.empty_like(states)
        row, error = self._step_kernel(states, actions, out)
        if error == ERROR_FINISHED:
            raise ValueError(f"{self.name}: row {row} is a finished game; no action is legal")
        if error:
            legal = np.flatnonzero(self.legal_mask(states[row : row + 1])[0]).tolist()
            raise ValueError(
                f"{self.name}: row {row}: illegal action {int(actions[row])}; expected one of {legal}"
            )
        return out

    def terminal(self, states: np.ndarray) -> np.ndarray:
        return terminal(states)

    def to_play(self, states: np.ndarray) -> np.ndarray:
        return to_play(states)

    def winner(self, states: np.ndarray) -> np.ndarray:
        return winner(states)

    def ply(self, states: np.ndarray) -> np.ndarray:
        return states[:, PLY].copy()

    def format_moves(self, actions) -> str:
        return "".join(str(int(a) + 1) for a in actions)

    # ---------------------------------- the six single-state functions, pure Python for classical search
    def player(self, state: tuple) -> int:
        return state[PLY] & 1

    def terminal_test(self, state: tuple) -> bool:
        return state[STATUS] != ONGOING

    def utility(self, state: tuple, player: int) -> float:
        status = state[STATUS]
        if status in (ONGOING, DRAW):
            return 0.0
        return 1.0 if status - FIRST_PLAYER_WON == player else -1.0
