"""Connect Four (7 columns x 6 rows) on 64-bit bitboards, batched.

Actions are columns 0-6; move strings use 1-based column digits from the empty board (``"4453"``),
the notation of Pascal Pons' test sets. Player 0 ("X") moves first. State rows follow
``games.bitboard``: ``[current, mask, ply, status]``, with bit ``col * 7 + row`` for the cell in
column ``col`` and row ``row`` (row 0 at the bottom; the 7th bit of each column is an always-empty
sentinel), the layout of Pons' solver ("Solving Connect 4", part 6).
"""

from __future__ import annotations

import numpy as np
from numba import njit

import games.bitboard as bb
from games.base import COLUMN_MOVES, DISCS, BoardView
from games.connect4.layout import (
    COLUMN_STRIDE,
    HEIGHT,
    NUM_CELLS,
    WIDTH,
    WIN_LINES,
    bottom_mask,
    four,
    has_four,
    mirror_bits,
    top_mask,
)


@njit(cache=True)
def _step_kernel(states, actions, out):
    for b in range(states.shape[0]):
        current = states[b, 0]
        mask = states[b, 1]
        ply = states[b, 2]
        if states[b, 3] != 0:
            return b, 1
        a = actions[b]
        if a < 0 or a >= 7:
            return b, 2
        if mask & (np.int64(1) << (5 + 7 * a)):
            return b, 2
        new_mask = mask | (mask + (np.int64(1) << (7 * a)))
        mover = current | (new_mask ^ mask)
        status = 0
        if four(mover):
            status = 1 + (ply & 1)
        elif ply + 1 == 42:
            status = 3
        out[b, 0] = current ^ mask
        out[b, 1] = new_mask
        out[b, 2] = ply + 1
        out[b, 3] = status
    return -1, 0


@njit(cache=True)
def _legal_kernel(states, out):
    for b in range(states.shape[0]):
        if states[b, 3] != 0:
            continue
        mask = states[b, 1]
        for a in range(7):
            out[b, a] = (mask & (np.int64(1) << (5 + 7 * a))) == 0
    return out


@njit(cache=True)
def _legal_one(state, out):
    count = 0
    finished = state[3] != 0
    for a in range(7):
        legal = not finished and (state[1] & (np.int64(1) << (5 + 7 * a))) == 0
        out[a] = legal
        count += legal
    return count


@njit(cache=True)
def _step_one(state, a, out):
    current = state[0]
    mask = state[1]
    ply = state[2]
    new_mask = mask | (mask + (np.int64(1) << (7 * a)))
    status = 0
    if four(current | (new_mask ^ mask)):
        status = 1 + (ply & 1)
    elif ply + 1 == 42:
        status = 3
    out[0] = current ^ mask
    out[1] = new_mask
    out[2] = ply + 1
    out[3] = status


#: the rules above as one record, built once (``Game.compiled_rules``)
_COMPILED_RULES = bb.compiled_rules(_legal_one, _step_one)


class ConnectFour(bb.BitboardGame):
    """Connect Four: 7 actions, observation ``(2, 6, 7)`` (image row 0 = top), 2 symmetries."""

    name = "connect4"
    version = 1
    num_actions = WIDTH
    observation_shape = (2, HEIGHT, WIDTH)
    max_game_length = NUM_CELLS

    # ----------------------------------------------------------------- batched API
    def _legal_kernel(self, states, out):
        return _legal_kernel(states, out)

    def _step_kernel(self, states, actions, out):
        return _step_kernel(states, actions, out)

    def compiled_rules(self) -> bb.CompiledRules:
        return _COMPILED_RULES

    def compiled_observation(self):
        return _observation_one

    def observation(self, states: np.ndarray) -> np.ndarray:
        bb.check_batch(self, states)
        out = np.zeros((states.shape[0], 2, HEIGHT, WIDTH), dtype=np.float32)
        return bb.bit_planes(states, HEIGHT, WIDTH, COLUMN_STRIDE, False, out)

    # ------------------------------------------------------------------ symmetries
    @property
    def action_symmetries(self) -> np.ndarray:
        return _SYMMETRIES

    def transform_observation(self, observations: np.ndarray, symmetry: int) -> np.ndarray:
        if symmetry == 0:
            return observations.copy()
        if symmetry == 1:
            return np.ascontiguousarray(observations[..., ::-1])
        raise ValueError(f"symmetry must be 0 (identity) or 1 (mirror), got {symmetry}")

    def mirror_state(self, state: tuple) -> tuple:
        """The left-right mirror of a single state (same status, same player to move)."""
        current, mask, ply, status = state
        return (int(mirror_bits(current)), int(mirror_bits(mask)), ply, status)

    # ----------------------------------------------------------------- move strings
    def parse_moves(self, text: str) -> list[int]:
        actions: list[int] = []
        state = self.initial_state()
        for index, char in enumerate(text.strip()):
            if char not in "1234567":
                raise ValueError(f"move {index + 1}: expected a column 1-7, got {char!r}")
            if self.terminal_test(state):
                raise ValueError(f"move {index + 1}: the game is already over")
            action = int(char) - 1
            if state[bb.MASK] & top_mask(action):
                raise ValueError(f"move {index + 1}: column {char} is full")
            state = self.result(state, action)
            actions.append(action)
        return actions

    def render(self, state) -> str:
        current, mask, ply, _ = (int(v) for v in state)
        x_stones = current if ply % 2 == 0 else current ^ mask
        rows = []
        for row in reversed(range(HEIGHT)):
            cells = []
            for col in range(WIDTH):
                bit = 1 << (col * COLUMN_STRIDE + row)
                cells.append("." if not mask & bit else ("X" if x_stones & bit else "O"))
            rows.append(" ".join(cells))
        rows.append(" ".join(str(c + 1) for c in range(WIDTH)))
        return "\n".join(rows)

    def board_view(self, state: tuple) -> BoardView:
        """Six rows of seven cells, top row first; action ``c`` drops a stone into column ``c``."""
        owners, winning = bb.cell_owners(state, _DRAWN_BITS, WIN_LINES)
        return BoardView(HEIGHT, WIDTH, owners, COLUMN_MOVES, tuple(range(WIDTH)), winning, DISCS)

    # ---------------------------------- the six single-state functions, pure Python for classical search
    def actions(self, state: tuple) -> list[int]:
        if state[bb.STATUS] != bb.ONGOING:
            return []
        mask = state[bb.MASK]
        return [c for c in range(WIDTH) if not mask & top_mask(c)]

    def result(self, state: tuple, action: int) -> tuple:
        current, mask, ply, status = state
        if status != bb.ONGOING:
            raise ValueError("the game is over: no action is legal")
        if not 0 <= action < WIDTH or mask & top_mask(action):
            raise ValueError(f"illegal action {action}: expected one of {self.actions(state)}")
        new_mask = mask | (mask + bottom_mask(action))
        mover = current | (new_mask ^ mask)
        if has_four(mover):
            new_status = bb.FIRST_PLAYER_WON + (ply & 1)
        elif ply + 1 == NUM_CELLS:
            new_status = bb.DRAW
        else:
            new_status = bb.ONGOING
        return (current ^ mask, new_mask, ply + 1, new_status)


#: bit of each drawn cell, row-major from the top-left (row 0 of the drawing is the top row)
_DRAWN_BITS = tuple(col * COLUMN_STRIDE + row for row in reversed(range(HEIGHT)) for col in range(WIDTH))

_SYMMETRIES = np.array([np.arange(WIDTH), np.arange(WIDTH)[::-1]], dtype=np.int64)


@njit(cache=True)
def _observation_one(state, out):  # pragma: no cover - compiled
    """``observation`` of one state ``[S]`` int64 into ``out`` ``[2, H, W]`` float32 (``Game.compiled_observation``)."""
    bb.bit_planes_one(state, HEIGHT, WIDTH, COLUMN_STRIDE, False, out)
