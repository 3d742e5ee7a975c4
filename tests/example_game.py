"""Connect Three on a 4x4 board: the worked example of ``docs/adding_a_game.md``.

Four columns of four cells. Players drop stones into columns; three in a row (across, up or
diagonally) wins; a full board without one is a draw. Actions are columns 0-3; move strings use
1-based column digits (``"11223"``). Built on ``games.bitboard.BitboardGame`` like Connect Four:
state rows ``[current, mask, ply, status]``, bit ``col * 5 + row`` for a stone in column ``col``
and row ``row`` (row 0 at the bottom; bit 4 of each column is an always-empty sentinel, so shifts
never wrap into the next column).

It lives in ``tests/`` only: ``tests/test_adding_a_game.py`` registers it while its tests run.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from games import bitboard as bb
from games.base import check_batch

WIDTH, HEIGHT = 4, 4
STRIDE = HEIGHT + 1  # bits per column: HEIGHT cells and one empty sentinel bit
NUM_CELLS = WIDTH * HEIGHT
ONGOING, FIRST_PLAYER_WON, DRAW = bb.ONGOING, bb.FIRST_PLAYER_WON, bb.DRAW
OK, ERROR_FINISHED, ERROR_ILLEGAL = bb.OK, bb.ERROR_FINISHED, bb.ERROR_ILLEGAL


@njit(cache=True)
def _three(stones):
    """True if the bitboard ``stones`` holds three in a row (up, both diagonals, across)."""
    for shift in (1, STRIDE - 1, STRIDE + 1, STRIDE):
        if stones & (stones >> shift) & (stones >> (2 * shift)):
            return True
    return False


@njit(cache=True)
def _legal_kernel(states, out):
    for b in range(states.shape[0]):
        if states[b, 3] == ONGOING:
            for a in range(WIDTH):
                out[b, a] = ((states[b, 1] >> (a * STRIDE + HEIGHT - 1)) & 1) == 0  # top cell empty
    return out


@njit(cache=True)
def _step_kernel(states, actions, out):
    for b in range(states.shape[0]):
        current, mask, ply = states[b, 0], states[b, 1], states[b, 2]
        if states[b, 3] != ONGOING:
            return b, ERROR_FINISHED
        a = actions[b]
        if a < 0 or a >= WIDTH or (mask >> (a * STRIDE + HEIGHT - 1)) & 1:
            return b, ERROR_ILLEGAL
        new_mask = mask | (mask + (np.int64(1) << (a * STRIDE)))  # the lowest empty cell of column a
        mover = current | (new_mask ^ mask)
        status = ONGOING
        if _three(mover):
            status = FIRST_PLAYER_WON + (ply & 1)  # FIRST_PLAYER_WON or SECOND_PLAYER_WON
        elif ply + 1 == NUM_CELLS:
            status = DRAW
        out[b, 0] = current ^ mask  # the opponent's stones: it is the opponent's turn now
        out[b, 1] = new_mask
        out[b, 2] = ply + 1
        out[b, 3] = status
    return -1, OK


#: ``[2, 4]``: the identity and the left-right mirror of the columns
MIRROR = np.array([[0, 1, 2, 3], [3, 2, 1, 0]], dtype=np.int64)


class ConnectThree(bb.BitboardGame):
    """Connect Three: 4 actions, observation ``(2, 4, 4)`` (image row 0 = top), 2 symmetries."""

    name = "connect3"
    version = 1
    num_actions = WIDTH
    observation_shape = (2, HEIGHT, WIDTH)
    max_game_length = NUM_CELLS
    # state_size = 4 comes from BitboardGame

    def _legal_kernel(self, states, out):
        return _legal_kernel(states, out)

    def _step_kernel(self, states, actions, out):
        return _step_kernel(states, actions, out)

    def observation(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        out = np.zeros((states.shape[0], *self.observation_shape), dtype=np.float32)
        return bb.bit_planes(states, HEIGHT, WIDTH, STRIDE, False, out)

    @property
    def action_symmetries(self) -> np.ndarray:
        return MIRROR

    def transform_observation(self, observations: np.ndarray, symmetry: int) -> np.ndarray:
        if symmetry == 0:
            return observations.copy()
        if symmetry == 1:
            return np.ascontiguousarray(observations[..., ::-1])
        raise ValueError(f"symmetry must be 0 (identity) or 1 (mirror), got {symmetry}")

    def parse_moves(self, text: str) -> list[int]:
        actions: list[int] = []
        state = self.initial_state()
        for index, char in enumerate(text.strip()):
            if char not in "1234":
                raise ValueError(f"move {index + 1}: expected a column 1-4, got {char!r}")
            if self.terminal_test(state):
                raise ValueError(f"move {index + 1}: the game is already over")
            action = int(char) - 1
            if action not in self.actions(state):
                raise ValueError(f"move {index + 1}: column {char} is full")
            state = self.result(state, action)
            actions.append(action)
        return actions

    def render(self, state) -> str:
        current, mask, ply, _ = (int(v) for v in state)
        x_stones = current if ply % 2 == 0 else current ^ mask  # player 0 is X
        rows = []
        for row in reversed(range(HEIGHT)):
            bits = [1 << (col * STRIDE + row) for col in range(WIDTH)]
            rows.append(" ".join("." if not mask & b else "X" if x_stones & b else "O" for b in bits))
        rows.append(" ".join(str(col + 1) for col in range(WIDTH)))
        return "\n".join(rows)
