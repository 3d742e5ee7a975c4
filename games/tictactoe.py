"""Tic-tac-toe on 9-bit bitboards, batched.

Cells (= actions) are numbered 0-8 row-major from the top-left; move strings use 1-based cells
(``"159"`` is X in the top-left corner, O in the centre, X in the bottom-right corner). X (player 0)
moves first. State rows follow ``games.bitboard``: ``[current, mask, ply, status]`` with bit
``cell`` set for a stone on ``cell``.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import games.bitboard as bb
from games.base import CELL_MOVES, BoardView
from games.knowledge import Knowledge

NUM_CELLS = 9
FULL_MASK = (1 << NUM_CELLS) - 1

#: the 8 winning lines as bit masks: rows, columns, diagonals
WIN_LINES = np.array(
    [
        sum(1 << c for c in cells)
        for cells in (
            (0, 1, 2), (3, 4, 5), (6, 7, 8),
            (0, 3, 6), (1, 4, 7), (2, 5, 8),
            (0, 4, 8), (2, 4, 6),
        )
    ],
    dtype=np.int64,
)
_WIN_LINES_PY = tuple(int(v) for v in WIN_LINES)


def _rotate_clockwise(cell: int) -> int:
    row, col = divmod(cell, 3)
    return col * 3 + (2 - row)


def _reflect(cell: int) -> int:
    row, col = divmod(cell, 3)
    return row * 3 + (2 - col)


def _symmetry_table() -> np.ndarray:
    perms = []
    for reflect in (False, True):
        for turns in range(4):
            perm = []
            for cell in range(NUM_CELLS):
                c = _reflect(cell) if reflect else cell
                for _ in range(turns):
                    c = _rotate_clockwise(c)
                perm.append(c)
            perms.append(perm)
    return np.array(perms, dtype=np.int64)


#: ``[8, 9]``: row g sends cell a to ``SYMMETRIES[g, a]``; row 1 is 90 degrees clockwise
SYMMETRIES = _symmetry_table()


@njit(cache=True)
def _step_kernel(states, actions, lines, out):
    for b in range(states.shape[0]):
        current = states[b, 0]
        mask = states[b, 1]
        ply = states[b, 2]
        if states[b, 3] != 0:
            return b, 1
        a = actions[b]
        if a < 0 or a >= 9:
            return b, 2
        bit = np.int64(1) << a
        if mask & bit:
            return b, 2
        mover = current | bit
        status = 0
        for i in range(lines.shape[0]):
            if (mover & lines[i]) == lines[i]:
                status = 1 + (ply & 1)
                break
        if status == 0 and ply + 1 == 9:
            status = 3
        out[b, 0] = current ^ mask
        out[b, 1] = mask | bit
        out[b, 2] = ply + 1
        out[b, 3] = status
    return -1, 0


@njit(cache=True)
def _legal_kernel(states, out):
    for b in range(states.shape[0]):
        if states[b, 3] != 0:
            continue
        mask = states[b, 1]
        for a in range(9):
            out[b, a] = ((mask >> a) & 1) == 0
    return out


@njit(cache=True)
def _legal_one(state, out):
    count = 0
    finished = state[3] != 0
    for a in range(9):
        legal = not finished and ((state[1] >> a) & 1) == 0
        out[a] = legal
        count += legal
    return count


@njit(cache=True)
def _step_one(state, a, out):
    current = state[0]
    mask = state[1]
    ply = state[2]
    mover = current | (np.int64(1) << a)
    status = 0
    for i in range(WIN_LINES.shape[0]):
        if (mover & WIN_LINES[i]) == WIN_LINES[i]:
            status = 1 + (ply & 1)
            break
    if status == 0 and ply + 1 == 9:
        status = 3
    out[0] = current ^ mask
    out[1] = mask | (np.int64(1) << a)
    out[2] = ply + 1
    out[3] = status


#: the rules above as one record, built once (``Game.compiled_rules``)
_COMPILED_RULES = bb.compiled_rules(_legal_one, _step_one)


class TicTacToe(bb.BitboardGame):
    """Tic-tac-toe: 9 actions, observation ``(2, 3, 3)``, 8 symmetries (the dihedral group)."""

    name = "tictactoe"
    version = 1
    num_actions = NUM_CELLS
    observation_shape = (2, 3, 3)
    max_game_length = NUM_CELLS

    # ----------------------------------------------------------------- batched API
    def _legal_kernel(self, states, out):
        return _legal_kernel(states, out)

    def _step_kernel(self, states, actions, out):
        return _step_kernel(states, actions, WIN_LINES, out)

    def compiled_rules(self) -> bb.CompiledRules:
        return _COMPILED_RULES

    def compiled_observation(self):
        return _observation_one

    def observation(self, states: np.ndarray) -> np.ndarray:
        bb.check_batch(self, states)
        out = np.zeros((states.shape[0], 2, 3, 3), dtype=np.float32)
        return bb.bit_planes(states, 3, 3, 3, True, out)

    # ------------------------------------------------------------------ symmetries
    @property
    def action_symmetries(self) -> np.ndarray:
        return SYMMETRIES

    def transform_observation(self, observations: np.ndarray, symmetry: int) -> np.ndarray:
        if not 0 <= symmetry < len(SYMMETRIES):
            raise ValueError(f"symmetry must be in [0, {len(SYMMETRIES)}), got {symmetry}")
        flat = observations.reshape(observations.shape[:-2] + (NUM_CELLS,))
        out = np.empty_like(flat)
        out[..., SYMMETRIES[symmetry]] = flat
        return out.reshape(observations.shape)

    # ----------------------------------------------------------------- move strings
    def parse_moves(self, text: str) -> list[int]:
        actions: list[int] = []
        state = self.initial_state()
        for index, char in enumerate(text.strip()):
            if char not in "123456789":
                raise ValueError(f"move {index + 1}: expected a cell 1-9, got {char!r}")
            action = int(char) - 1
            if self.terminal_test(state):
                raise ValueError(f"move {index + 1}: the game is already over")
            if state[bb.MASK] >> action & 1:
                raise ValueError(f"move {index + 1}: cell {char} is occupied")
            state = self.result(state, action)
            actions.append(action)
        return actions

    def render(self, state) -> str:
        current, mask, ply, _ = (int(v) for v in state)
        x_stones = current if ply % 2 == 0 else current ^ mask
        rows = []
        for r in range(3):
            cells = []
            for c in range(3):
                bit = 1 << (3 * r + c)
                cells.append("." if not mask & bit else ("X" if x_stones & bit else "O"))
            rows.append(" ".join(cells))
        return "\n".join(rows)

    def board_view(self, state: tuple) -> BoardView:
        """Three rows of three cells; action ``a`` places a stone on cell ``a`` (row-major)."""
        owners, winning = bb.cell_owners(state, range(NUM_CELLS), _WIN_LINES_PY)
        return BoardView(3, 3, owners, CELL_MOVES, tuple(range(NUM_CELLS)), winning)

    def state_from_board(self, board: str) -> tuple:
        """State from a drawing like ``"X X . / O O . / . . ."`` (rows top to bottom).

        The player to move is X when both have as many stones, else O.

        Raises:
            ValueError: if the drawing does not have 9 cells of ``X``, ``O``, ``.`` or the stone
                counts are impossible.
        """
        cells = [c for c in board if c in "XO."]
        if len(cells) != NUM_CELLS or len([c for c in board if not c.isspace() and c != "/"]) != 9:
            raise ValueError(f"expected 9 cells of X, O or '.', got {board!r}")
        x = sum(1 << i for i, c in enumerate(cells) if c == "X")
        o = sum(1 << i for i, c in enumerate(cells) if c == "O")
        nx, no = bin(x).count("1"), bin(o).count("1")
        if nx - no not in (0, 1):
            raise ValueError(f"X has {nx} stones and O {no}: X moves first, so expected nx - no in (0, 1)")
        ply = nx + no
        current = x if ply % 2 == 0 else o
        status = bb.ONGOING
        if any(x & line == line for line in _WIN_LINES_PY):
            status = bb.FIRST_PLAYER_WON
        elif any(o & line == line for line in _WIN_LINES_PY):
            status = bb.SECOND_PLAYER_WON
        elif ply == NUM_CELLS:
            status = bb.DRAW
        return (current, x | o, ply, status)

    # ---------------------------------- the six single-state functions, pure Python for classical search
    def actions(self, state: tuple) -> list[int]:
        if state[bb.STATUS] != bb.ONGOING:
            return []
        mask = state[bb.MASK]
        return [a for a in range(NUM_CELLS) if not mask >> a & 1]

    def result(self, state: tuple, action: int) -> tuple:
        current, mask, ply, status = state
        bit = 1 << action
        if status != bb.ONGOING:
            raise ValueError("the game is over: no action is legal")
        if not 0 <= action < NUM_CELLS or mask & bit:
            raise ValueError(f"illegal action {action}: expected one of {self.actions(state)}")
        mover = current | bit
        new_status = bb.ONGOING
        for line in _WIN_LINES_PY:
            if mover & line == line:
                new_status = bb.FIRST_PLAYER_WON + (ply & 1)
                break
        else:
            if ply + 1 == NUM_CELLS:
                new_status = bb.DRAW
        return (current ^ mask, mask | bit, ply + 1, new_status)


class TicTacToeKnowledge(Knowledge):
    """What tic-tac-toe's searches and players know beyond the rules: centre-first move order and
    a small MLP; the exact solver is the generic exhaustive negamax (``games.exhaustive``)."""

    #: every one-ply position is still a draw under perfect play; some two-ply ones are lost
    default_opening_plies = 1

    def action_order(self) -> list[int]:
        """Centre, corners, edges: ``[4, 0, 2, 6, 8, 1, 3, 5, 7]``."""
        return [4, 0, 2, 6, 8, 1, 3, 5, 7]

    def default_network(self, gpu: bool = False) -> dict:
        """A two-layer MLP (128, 128) with a 64-unit value head, CPU or GPU: the whole game fits."""
        return {"kind": "mlp", "mlp_hidden": (128, 128), "value_hidden": 64}


@njit(cache=True)
def _observation_one(state, out):  # pragma: no cover - compiled
    """``observation`` of one state ``[S]`` int64 into ``out`` ``[2, H, W]`` float32 (``Game.compiled_observation``)."""
    bb.bit_planes_one(state, 3, 3, 3, True, out)
