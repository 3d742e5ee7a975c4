"""Othello (Reversi) on 8x8 and 6x6 boards, on 64-bit bitboards, batched.

Rules (the World Othello Federation's): Black (player 0) moves first from the four centre discs
(White on d4 and e5, Black on d5 and e4). A placement must flip at least one line of the
opponent's discs, bracketed between the new disc and one of the mover's own, in any of the eight
directions. **A player without a legal placement passes**: the pass is an action of its own
(``pass_action``, the last index), legal exactly when no placement is, so the players still
alternate ply by ply. The game ends when neither player can place a disc (the board is full, or
both would pass); more discs wins, equal counts draw.

Cells are numbered row-major from the top-left, ``cell = row * N + col``; move strings use the
usual notation, a column letter and a row number from the top-left (``d3`` is row 2, column 3),
with ``pass`` for the pass, concatenated or separated by spaces (``"d3c5"``, ``"d3 c5 pass"``).

A state row is ``[current, opponent, ply, status]`` (``int64``): the discs of the player to move
and of the other player as bitboards (bit ``cell``; the 64-bit pattern is stored in an int64),
the plies played (passes included: the player to move is ``ply % 2``) and the status of
``games.bitboard`` (``ONGOING``, ``FIRST_PLAYER_WON``, ``SECOND_PLAYER_WON``, ``DRAW``).

Move generation is the usual shift-and-mask one (Kogge-Stone style fills along the eight
directions, as in chess-programming bitboards); the kernels work on ``uint64`` views only, so no
arithmetic right shift ever smears a sign bit.
"""

from __future__ import annotations

import numpy as np
from numba import njit

import games.bitboard as bb
from games.base import CELL_MOVES, DISCS, EMPTY_CELL, BoardView, check_batch
from games.knowledge import Knowledge

ONGOING, FIRST_PLAYER_WON, SECOND_PLAYER_WON, DRAW = (
    bb.ONGOING, bb.FIRST_PLAYER_WON, bb.SECOND_PLAYER_WON, bb.DRAW,
)
CURRENT, OPPONENT, PLY, STATUS = 0, 1, 2, 3
STATE_SIZE = 4

#: weights of the static evaluation (``OthelloKnowledge.heuristic_fn``): points per corner, per legal
#: placement and per disc, each counted as the mover's minus the opponent's
CORNER_WEIGHT = 25
MOBILITY_WEIGHT = 5
DISC_WEIGHT = 1

_U1 = np.uint64(1)
_U0 = np.uint64(0)


def _board_masks(n: int) -> tuple[np.uint64, np.uint64, np.uint64]:
    """``(board, not_first_column, not_last_column)`` bitboards of an ``n x n`` board."""
    board = (1 << (n * n)) - 1
    first = sum(1 << (r * n) for r in range(n))
    last = sum(1 << (r * n + n - 1) for r in range(n))
    return np.uint64(board), np.uint64(board & ~first), np.uint64(board & ~last)


@njit(cache=True, inline="always")
def _shift(x, direction, n, board, not_first, not_last):
    """Move every disc of ``x`` (uint64) one cell in ``direction`` 0-7, dropping what leaves the board.

    Directions: 0 east, 1 west, 2 south, 3 north, 4 south-east, 5 south-west, 6 north-east,
    7 north-west (south = towards higher rows).
    """
    un = np.uint64(n)
    if direction == 0:
        return (x << _U1) & not_first
    if direction == 1:
        return (x >> _U1) & not_last
    if direction == 2:
        return (x << un) & board
    if direction == 3:
        return x >> un
    if direction == 4:
        return (x << (un + _U1)) & not_first
    if direction == 5:
        return (x << (un - _U1)) & not_last
    if direction == 6:
        return (x >> (un - _U1)) & not_first
    return (x >> (un + _U1)) & not_last


@njit(cache=True, inline="always")
def _placements_along(current, opponent, empty, shift, towards_higher, keep, fills):
    """Empty cells (uint64) that bracket a run of ``opponent`` discs against a ``current`` disc
    along one direction: a shift by ``shift`` bits towards higher (or lower) bits, keeping
    ``keep`` (the board without the column a disc would wrap into); runs of up to ``fills + 1``."""
    if towards_higher:
        t = (current << shift) & keep & opponent
        for _ in range(fills):
            t |= (t << shift) & keep & opponent
        return (t << shift) & keep & empty
    t = (current >> shift) & keep & opponent
    for _ in range(fills):
        t |= (t >> shift) & keep & opponent
    return (t >> shift) & keep & empty


@njit(cache=True)
def _placements(current, opponent, n, board, not_first, not_last):
    """Bitboard (uint64) of the legal placements of the player owning ``current``.

    The eight directions of ``_shift`` written out one by one (east, west, south, north,
    south-east, south-west, north-east, north-west), so each shift is a constant the compiler sees.
    """
    empty = board & ~(current | opponent)
    un = np.uint64(n)
    fills = n - 3
    return (
        _placements_along(current, opponent, empty, _U1, True, not_first, fills)
        | _placements_along(current, opponent, empty, _U1, False, not_last, fills)
        | _placements_along(current, opponent, empty, un, True, board, fills)
        | _placements_along(current, opponent, empty, un, False, board, fills)
        | _placements_along(current, opponent, empty, un + _U1, True, not_first, fills)
        | _placements_along(current, opponent, empty, un - _U1, True, not_last, fills)
        | _placements_along(current, opponent, empty, un - _U1, False, not_first, fills)
        | _placements_along(current, opponent, empty, un + _U1, False, not_last, fills)
    )


@njit(cache=True)
def _flips(current, opponent, move, n, board, not_first, not_last):
    """Discs (uint64) flipped by placing the disc ``move`` (one bit) for the owner of ``current``."""
    flipped = _U0
    for d in range(8):
        line = _U0
        x = _shift(move, d, n, board, not_first, not_last)
        while x != _U0 and (x & opponent) != _U0:
            line |= x
            x = _shift(x, d, n, board, not_first, not_last)
        if (x & current) != _U0:
            flipped |= line
    return flipped


@njit(cache=True, inline="always")
def _popcount(x):
    count = 0
    while x != _U0:
        x &= x - _U1
        count += 1
    return count


@njit(cache=True)
def _play(current, opponent, ply, action, n, board, not_first, not_last):
    """One move from a live position; returns ``(current, opponent, ply, status, error)``.

    The returned bitboards are from the view of the new player to move; ``error`` is
    ``bb.ERROR_ILLEGAL`` (2) for an illegal action, else ``bb.OK`` (0).
    """
    cells = n * n
    if action == cells:  # the pass: legal only without a placement
        if _placements(current, opponent, n, board, not_first, not_last) != _U0:
            return current, opponent, ply, 0, 2
        new_current, new_opponent = opponent, current
    else:
        if action < 0 or action > cells:
            return current, opponent, ply, 0, 2
        bit = _U1 << np.uint64(action)
        if (bit & (current | opponent)) != _U0:
            return current, opponent, ply, 0, 2
        # a placement on an empty cell is legal exactly when it flips a disc (the definition
        # ``_placements`` generates), so the flips are the legality test
        flipped = _flips(current, opponent, bit, n, board, not_first, not_last)
        if flipped == _U0:
            return current, opponent, ply, 0, 2
        new_current = opponent & ~flipped
        new_opponent = current | bit | flipped
    status = 0
    if (
        _placements(new_current, new_opponent, n, board, not_first, not_last) == _U0
        and _placements(new_opponent, new_current, n, board, not_first, not_last) == _U0
    ):
        to_move_discs = _popcount(new_current)
        other_discs = _popcount(new_opponent)
        if to_move_discs == other_discs:
            status = 3
        else:
            to_move = (ply + 1) & 1
            winner = to_move if to_move_discs > other_discs else 1 - to_move
            status = 1 + winner
    return new_current, new_opponent, ply + 1, status, 0


@njit(cache=True)
def _step_kernel(states, actions, out, n, board, not_first, not_last):
    bits = states.view(np.uint64)
    out_bits = out.view(np.uint64)
    for b in range(states.shape[0]):
        if states[b, 3] != 0:
            return b, 1
        current, opponent, ply, status, error = _play(
            bits[b, 0], bits[b, 1], states[b, 2], actions[b], n, board, not_first, not_last
        )
        if error:
            return b, error
        out_bits[b, 0] = current
        out_bits[b, 1] = opponent
        out[b, 2] = ply
        out[b, 3] = status
    return -1, 0


@njit(cache=True)
def _legal_kernel(states, out, n, board, not_first, not_last):
    bits = states.view(np.uint64)
    cells = n * n
    for b in range(states.shape[0]):
        if states[b, 3] != 0:
            continue
        moves = _placements(bits[b, 0], bits[b, 1], n, board, not_first, not_last)
        if moves == _U0:
            out[b, cells] = True
            continue
        for cell in range(cells):
            if (moves >> np.uint64(cell)) & _U1:
                out[b, cell] = True
    return out


@njit(cache=True)
def _observation_kernel(states, out, n):
    bits = states.view(np.uint64)
    for b in range(states.shape[0]):
        for cell in range(n * n):
            out[b, 0, cell // n, cell % n] = (bits[b, 0] >> np.uint64(cell)) & _U1
            out[b, 1, cell // n, cell % n] = (bits[b, 1] >> np.uint64(cell)) & _U1
    return out


@njit(cache=True)
def _single_actions(current, opponent, n, board, not_first, not_last):
    """Legal actions of a live position, in increasing order (int64 arguments, bit patterns)."""
    moves = _placements(np.uint64(current), np.uint64(opponent), n, board, not_first, not_last)
    out = []
    if moves == _U0:
        out.append(n * n)
        return out
    for cell in range(n * n):
        if (moves >> np.uint64(cell)) & _U1:
            out.append(cell)
    return out


@njit(cache=True)
def _single_result(current, opponent, ply, action, n, board, not_first, not_last):
    new_current, new_opponent, new_ply, status, error = _play(
        np.uint64(current), np.uint64(opponent), ply, action, n, board, not_first, not_last
    )
    return np.int64(new_current), np.int64(new_opponent), new_ply, status, error


@njit(cache=True)
def _evaluate(current, opponent, n, board, not_first, not_last, corners):
    me = np.uint64(current)
    them = np.uint64(opponent)
    mobility = _popcount(_placements(me, them, n, board, not_first, not_last)) - _popcount(
        _placements(them, me, n, board, not_first, not_last)
    )
    corner = _popcount(me & corners) - _popcount(them & corners)
    discs = _popcount(me) - _popcount(them)
    return CORNER_WEIGHT * corner + MOBILITY_WEIGHT * mobility + DISC_WEIGHT * discs


@njit(cache=True, inline="always")
def _legal_one(state, out, n, board, not_first, not_last):
    out[:] = False
    if state[3] != 0:
        return 0
    moves = _placements(np.uint64(state[0]), np.uint64(state[1]), n, board, not_first, not_last)
    if moves == _U0:
        out[n * n] = True
        return 1
    count = 0
    for cell in range(n * n):
        if (moves >> np.uint64(cell)) & _U1:
            out[cell] = True
            count += 1
    return count


@njit(cache=True, inline="always")
def _step_one(state, action, out, n, board, not_first, not_last):
    current, opponent, ply, status, _ = _play(
        np.uint64(state[0]), np.uint64(state[1]), state[2], action, n, board, not_first, not_last
    )
    out[0] = np.int64(current)
    out[1] = np.int64(opponent)
    out[2] = ply
    out[3] = status


# one compiled pair per board size, the masks frozen in as constants (Game.compiled_rules)
_BOARD_8, _NOT_FIRST_8, _NOT_LAST_8 = _board_masks(8)
_BOARD_6, _NOT_FIRST_6, _NOT_LAST_6 = _board_masks(6)


@njit(cache=True)
def _legal_one_8(state, out):
    return _legal_one(state, out, 8, _BOARD_8, _NOT_FIRST_8, _NOT_LAST_8)


@njit(cache=True)
def _step_one_8(state, action, out):
    _step_one(state, action, out, 8, _BOARD_8, _NOT_FIRST_8, _NOT_LAST_8)


@njit(cache=True)
def _legal_one_6(state, out):
    return _legal_one(state, out, 6, _BOARD_6, _NOT_FIRST_6, _NOT_LAST_6)


@njit(cache=True)
def _step_one_6(state, action, out):
    _step_one(state, action, out, 6, _BOARD_6, _NOT_FIRST_6, _NOT_LAST_6)


_COMPILED_ONE = {8: (_legal_one_8, _step_one_8), 6: (_legal_one_6, _step_one_6)}
#: ``games.base.CompiledRules`` per board size, built once (``Othello.compiled_rules``)
_COMPILED_RULES: dict[int, bb.CompiledRules] = {}


# The batched API and the single-state functions in one compiled call each, the masks frozen in as
# constants. At batch 1 the cost of a step is the calls around the rules (type checks, argument
# unboxing, allocation), not the rules, so each of these does in one call what would otherwise
# take several numpy and Numba calls; the rules are the shared kernels above, so every result is
# identical. The two batched ones are compiled for exactly one signature (C-contiguous, writable,
# aligned int64 arrays) and compile nothing else, so Numba's own argument check is the type check
# of the common case: anything else raises TypeError at the call, and ``Othello`` then converts
# or refuses it with the usual ValueError (``games.base.check_batch``).

_STATES_TYPE = "int64[:, ::1]"
_ACTIONS_TYPE = "int64[::1]"


class _BadShape(Exception):
    """Raised inside the compiled batched calls for a batch of the right type but wrong shape."""


class _BadMove(Exception):
    """Raised inside the compiled batched step for a finished state or an illegal action."""


@njit(cache=True, inline="always")
def _legal_mask_batch(states, num_actions, n, board, not_first, not_last):
    if states.shape[1] != STATE_SIZE:
        raise _BadShape()
    out = np.zeros((states.shape[0], num_actions), dtype=np.bool_)
    return _legal_kernel(states, out, n, board, not_first, not_last)


@njit(cache=True, inline="always")
def _step_batch(states, actions, n, board, not_first, not_last):
    if states.shape[1] != STATE_SIZE or actions.shape[0] != states.shape[0]:
        raise _BadShape()
    out = np.empty_like(states)
    _, error = _step_kernel(states, actions, out, n, board, not_first, not_last)
    if error:
        raise _BadMove()
    return out


@njit(cache=True)
def _legal_mask_8(states):
    return _legal_mask_batch(states, 65, 8, _BOARD_8, _NOT_FIRST_8, _NOT_LAST_8)


@njit(cache=True)
def _step_8(states, actions):
    return _step_batch(states, actions, 8, _BOARD_8, _NOT_FIRST_8, _NOT_LAST_8)


@njit(cache=True)
def _actions_8(current, opponent):
    return _single_actions(current, opponent, 8, _BOARD_8, _NOT_FIRST_8, _NOT_LAST_8)


@njit(cache=True)
def _result_8(current, opponent, ply, action):
    return _single_result(current, opponent, ply, action, 8, _BOARD_8, _NOT_FIRST_8, _NOT_LAST_8)


@njit(cache=True)
def _legal_mask_6(states):
    return _legal_mask_batch(states, 37, 6, _BOARD_6, _NOT_FIRST_6, _NOT_LAST_6)


@njit(cache=True)
def _step_6(states, actions):
    return _step_batch(states, actions, 6, _BOARD_6, _NOT_FIRST_6, _NOT_LAST_6)


@njit(cache=True)
def _actions_6(current, opponent):
    return _single_actions(current, opponent, 6, _BOARD_6, _NOT_FIRST_6, _NOT_LAST_6)


@njit(cache=True)
def _result_6(current, opponent, ply, action):
    return _single_result(current, opponent, ply, action, 6, _BOARD_6, _NOT_FIRST_6, _NOT_LAST_6)


# compiled (or loaded from Numba's cache) once per process, at import, so that an instance made in
# another process (unpickled by Ray) finds them frozen too
for _legal_fn, _step_fn in ((_legal_mask_8, _step_8), (_legal_mask_6, _step_6)):
    _legal_fn.compile(f"({_STATES_TYPE},)")
    _step_fn.compile(f"({_STATES_TYPE}, {_ACTIONS_TYPE})")
    _legal_fn.disable_compile()
    _step_fn.disable_compile()
del _legal_fn, _step_fn


def _symmetry_table(n: int) -> np.ndarray:
    """``[8, n*n + 1]``: row ``4 * reflect + turns`` mirrors left-right (if ``reflect``), then
    turns the board ``turns`` quarter turns clockwise; the pass maps to itself."""
    perms = []
    for reflect in (False, True):
        for turns in range(4):
            perm = []
            for cell in range(n * n):
                row, col = divmod(cell, n)
                if reflect:
                    col = n - 1 - col
                for _ in range(turns):
                    row, col = col, n - 1 - row
                perm.append(row * n + col)
            perms.append(perm + [n * n])
    return np.array(perms, dtype=np.int64)


class Othello(bb.BitboardGame):
    """Othello on an 8x8 board: 65 actions (64 cells, then the pass), observation ``(2, 8, 8)``
    (plane 0 the discs of the player to move, plane 1 the opponent's; image row 0 = row 1),
    8 symmetries (the board's rotations and reflections)."""

    name = "othello"
    version = 1
    size = 8
    num_actions = 8 * 8 + 1
    observation_shape = (2, 8, 8)
    state_size = STATE_SIZE
    max_game_length = 2 * (8 * 8 - 4)  # 60 placements, and at most one pass before each
    # the rules of this board size, one compiled call each (class attributes, so nothing compiled
    # travels with a pickled instance)
    _legal_fn = staticmethod(_legal_mask_8)
    _step_fn = staticmethod(_step_8)
    _actions_fn = staticmethod(_actions_8)
    _result_fn = staticmethod(_result_8)

    def __init__(self) -> None:
        n = self.size
        self._board, self._not_first, self._not_last = _board_masks(n)
        self._masks = (n, self._board, self._not_first, self._not_last)
        self._symmetries = _symmetry_table(n)
        self._letters = "abcdefghijklmnopqrstuvwxyz"[:n]

    @property
    def pass_action(self) -> int:
        """The pass: the last action index, ``N * N``."""
        return self.size * self.size

    # ----------------------------------------------------------------- batched API
    def initial_states(self, batch_size: int) -> np.ndarray:
        if batch_size < 1:
            raise ValueError(f"batch_size must be >= 1, got {batch_size}")
        n, h = self.size, self.size // 2
        white = (1 << ((h - 1) * n + h - 1)) | (1 << (h * n + h))  # d4, e5 on 8x8
        black = (1 << ((h - 1) * n + h)) | (1 << (h * n + h - 1))  # e4, d5
        states = np.zeros((batch_size, STATE_SIZE), dtype=np.int64)
        states[:, CURRENT] = black
        states[:, OPPONENT] = white
        return states

    def _legal_kernel(self, states, out):
        return _legal_kernel(states, out, *self._masks)

    def _step_kernel(self, states, actions, out):
        return _step_kernel(np.ascontiguousarray(states), actions, out, *self._masks)

    def _checked_batch(self, states) -> np.ndarray:
        """``states`` as a C-contiguous, writable ``[B, 4]`` int64 ndarray (a copy).

        Raises:
            ValueError: as ``games.base.check_batch``, for anything but ``[B, 4]`` int64 states.
        """
        check_batch(self, states)
        return np.array(states, dtype=np.int64, order="C")

    # The common case (C-contiguous writable int64 arrays of the right shapes) is one compiled
    # call that checks the types and shapes itself; anything else fails that call and is then
    # converted (another memory layout, a list of actions) or refused with a ValueError.

    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        try:
            return self._legal_fn(states)
        except (TypeError, _BadShape):
            return self._legal_fn(self._checked_batch(states))

    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        try:
            return self._step_fn(states, actions)
        except (TypeError, _BadShape):
            states = self._checked_batch(states)
            actions = np.array(actions, dtype=np.int64)
            check_batch(self, states, actions)
            try:
                return self._step_fn(states, actions)
            except _BadMove:
                pass
        except _BadMove:
            pass
        return super().step(states, actions)  # raises the error naming the first bad row

    def terminal(self, states: np.ndarray) -> np.ndarray:
        return states[:, STATUS].astype(np.bool_)  # ONGOING is 0, every other status ends the game

    def compiled_rules(self) -> bb.CompiledRules:
        """The single-state rules compiled for this board size (``games.base.CompiledRules``)."""
        rules = _COMPILED_RULES.get(self.size)
        if rules is None:
            rules = _COMPILED_RULES[self.size] = bb.compiled_rules(*_COMPILED_ONE[self.size])
        return rules

    def observation(self, states: np.ndarray) -> np.ndarray:
        check_batch(self, states)
        out = np.zeros((states.shape[0], *self.observation_shape), dtype=np.float32)
        return _observation_kernel(np.ascontiguousarray(states), out, self.size)

    def disc_counts(self, states: np.ndarray) -> np.ndarray:
        """``[B, 2]`` int64: discs of player 0 (Black) and player 1 (White)."""
        check_batch(self, states)
        bits = np.ascontiguousarray(states[:, :2]).view(np.uint64)
        counts = np.zeros((states.shape[0], 2), dtype=np.int64)
        for column in range(2):
            x = bits[:, column].copy()
            while x.any():
                counts[:, column] += (x & np.uint64(1)).astype(np.int64)
                x >>= np.uint64(1)
        black_to_move = (states[:, PLY] & 1) == 0
        return np.where(black_to_move[:, None], counts, counts[:, ::-1])

    # ------------------------------------------------------------------ symmetries
    @property
    def action_symmetries(self) -> np.ndarray:
        return self._symmetries

    def transform_observation(self, observations: np.ndarray, symmetry: int) -> np.ndarray:
        if not 0 <= symmetry < 8:
            raise ValueError(f"symmetry must be in 0..7, got {symmetry}")
        n = self.size
        flat = observations.reshape(*observations.shape[:-2], n * n)
        out = np.empty_like(flat)
        out[..., self._symmetries[symmetry, : n * n]] = flat
        return out.reshape(observations.shape)

    def transform_states(self, states: np.ndarray, symmetry: int) -> np.ndarray:
        """The image of each state ``[B, S]`` under symmetry ``symmetry`` (same ply and status).

        Four of the eight symmetries (the quarter turns and the reflections in a vertical or
        horizontal axis) do not fix the start position: they swap its colours. Their images are
        positions of the same rules, though not reachable from the standard start.

        Raises:
            ValueError: for a symmetry outside 0..7 or a bad batch.
        """
        check_batch(self, states)
        if not 0 <= symmetry < 8:
            raise ValueError(f"symmetry must be in 0..7, got {symmetry}")
        n = self.size
        bits = np.ascontiguousarray(states[:, :2]).view(np.uint64)
        cells = np.arange(n * n, dtype=np.uint64)
        planes = ((bits[:, :, None] >> cells) & np.uint64(1)).astype(bool)  # [B, 2, N*N]
        moved = np.zeros_like(planes)
        moved[..., self._symmetries[symmetry, : n * n]] = planes
        packed = (moved.astype(np.uint64) << cells).sum(axis=-1, dtype=np.uint64)
        out = states.copy()
        out[:, :2] = packed.view(np.int64)
        return out

    # ----------------------------------------------------------------- move strings
    def action_to_string(self, action: int) -> str:
        action = int(action)
        if action == self.pass_action:
            return "pass"
        if not 0 <= action < self.pass_action:
            raise ValueError(f"expected an action in 0..{self.pass_action}, got {action}")
        row, col = divmod(action, self.size)
        return f"{self._letters[col]}{row + 1}"

    def format_moves(self, actions) -> str:
        return "".join(self.action_to_string(a) for a in actions)

    def parse_cell(self, text: str) -> int:
        """The action of one cell or the pass in move notation (``"d3"``, ``"pass"``).

        Raises:
            ValueError: for anything else.
        """
        token = text.strip().lower()
        if token == "pass":
            return self.pass_action
        n = self.size
        if len(token) >= 2 and token[0] in self._letters and token[1:].isdigit() and 1 <= int(token[1:]) <= n:
            return (int(token[1:]) - 1) * n + self._letters.index(token[0])
        raise ValueError(f"expected a cell a1-{self._letters[-1]}{n} or 'pass', got {text!r}")

    def parse_moves(self, text: str) -> list[int]:
        """Parse ``"d3c5"``, ``"d3 c5 pass"`` (case-insensitive) into actions from the start.

        Raises:
            ValueError: ``move N: ...`` for a token that is not a cell or ``pass``, an occupied or
                non-flipping cell, a pass while a placement exists, or a move after the end.
        """
        actions: list[int] = []
        state = self.initial_state()
        text = text.strip().lower()
        i = 0
        n = self.size
        while i < len(text):
            if text[i].isspace():
                i += 1
                continue
            number = len(actions) + 1
            if text.startswith("pass", i):
                action, i = self.pass_action, i + 4
            elif text[i] in self._letters:
                j = i + 1
                while j < len(text) and text[j].isdigit():
                    j += 1
                if j == i + 1 or not 1 <= int(text[i + 1 : j]) <= n:
                    raise ValueError(
                        f"move {number}: expected a row 1-{n} after {text[i]!r}, got {text[i + 1 : j + 1]!r}"
                    )
                action = (int(text[i + 1 : j]) - 1) * n + self._letters.index(text[i])
                i = j
            else:
                raise ValueError(
                    f"move {number}: expected a cell a1-{self._letters[-1]}{n} or 'pass', got {text[i]!r}"
                )
            if self.terminal_test(state):
                raise ValueError(f"move {number}: the game is already over")
            legal = self.actions(state)
            if action not in legal:
                why = "a placement exists" if action == self.pass_action else "it flips no disc"
                if action != self.pass_action and (state[CURRENT] | state[OPPONENT]) >> action & 1:
                    why = "the cell is occupied"
                raise ValueError(
                    f"move {number}: {self.action_to_string(action)} is illegal ({why}); "
                    f"legal: {' '.join(self.action_to_string(a) for a in legal)}"
                )
            state = self.result(state, action)
            actions.append(action)
        return actions

    def render(self, state) -> str:
        current, opponent, ply, _ = (int(v) for v in state)
        black, white = (current, opponent) if ply % 2 == 0 else (opponent, current)
        n = self.size
        rows = ["  " + " ".join(self._letters)]
        for row in range(n):
            cells = []
            for col in range(n):
                bit = 1 << (row * n + col)
                cells.append("X" if black & bit else ("O" if white & bit else "."))
            rows.append(f"{row + 1} " + " ".join(cells))
        rows.append(f"{'X (Black)' if ply % 2 == 0 else 'O (White)'} to move")
        return "\n".join(rows)

    def board_view(self, state: tuple) -> BoardView:
        """N rows of N cells, row 1 at the top (as ``render``); X = Black; the pass has no cell."""
        current, opponent, ply = int(state[CURRENT]), int(state[OPPONENT]), int(state[2])
        black, white = (current, opponent) if ply % 2 == 0 else (opponent, current)
        cells = tuple(
            0 if black >> cell & 1 else 1 if white >> cell & 1 else EMPTY_CELL for cell in range(self.pass_action)
        )
        targets = (*range(self.pass_action), None)
        return BoardView(self.size, self.size, cells, CELL_MOVES, targets, stone_shape=DISCS)

    # ---------------------------------- the six single-state functions, compiled for classical search
    def actions(self, state: tuple) -> list[int]:
        if state[STATUS] != ONGOING:
            return []
        return self._actions_fn(state[CURRENT], state[OPPONENT])

    def result(self, state: tuple, action: int) -> tuple:
        if state[STATUS] != ONGOING:
            raise ValueError("the game is over: no action is legal")
        current, opponent, ply, status, error = self._result_fn(
            state[CURRENT], state[OPPONENT], state[PLY], int(action)
        )
        if error:
            raise ValueError(f"illegal action {action}: expected one of {self.actions(state)}")
        return (current, opponent, ply, status)


class Othello6x6(Othello):
    """Othello on a 6x6 board: 37 actions (36 cells, then the pass), observation ``(2, 6, 6)``."""

    name = "othello6x6"
    version = 1
    size = 6
    num_actions = 6 * 6 + 1
    observation_shape = (2, 6, 6)
    max_game_length = 2 * (6 * 6 - 4)
    _legal_fn = staticmethod(_legal_mask_6)
    _step_fn = staticmethod(_step_6)
    _actions_fn = staticmethod(_actions_6)
    _result_fn = staticmethod(_result_6)


class OthelloKnowledge(Knowledge):
    """What Othello's searches know beyond the rules (either board size): a static evaluation
    (``heuristic_fn``) and a corners-first move order. The transposition key and the network are
    the ``Knowledge`` defaults (the state tuple; ResNet b4c32 on a CPU, b10c128 on a GPU)."""

    def __init__(self, game: Othello) -> None:
        super().__init__(game)
        n = game.size
        #: bound on ``|heuristic_fn()(state)|`` (4 corners, N*N placements, N*N discs)
        self.heuristic_bound = float(4 * CORNER_WEIGHT + 2 * n * n * MOBILITY_WEIGHT + n * n * DISC_WEIGHT)

    def heuristic_fn(self):
        """Static evaluation of a live state tuple for the player to move, an ``int`` with
        ``|value| <= heuristic_bound``: ``CORNER_WEIGHT`` x corner discs + ``MOBILITY_WEIGHT`` x
        legal placements + ``DISC_WEIGHT`` x discs, each the mover's minus the opponent's (the
        three classical Othello features: Rosenbloom, "A world-championship-level Othello
        program", *Artificial Intelligence* 19 (1982); the weights are chosen here)."""
        n = self.game.size
        masks = (n, *_board_masks(n))
        corners = np.uint64(sum(1 << c for c in (0, n - 1, n * (n - 1), n * n - 1)))

        def evaluate(state: tuple) -> int:
            return int(_evaluate(state[CURRENT], state[OPPONENT], *masks, corners))

        return evaluate

    def action_order(self) -> list[int]:
        """Corners first, then the other cells by how far they lie from the squares next to a
        corner (those last), then the pass."""
        n = self.game.size

        def rank(cell: int) -> tuple[int, int]:
            row, col = divmod(cell, n)
            edge_r, edge_c = min(row, n - 1 - row), min(col, n - 1 - col)
            if edge_r == 0 and edge_c == 0:
                return (0, cell)
            if edge_r <= 1 and edge_c <= 1:
                return (3, cell)  # X and C squares beside a corner
            if edge_r == 0 or edge_c == 0:
                return (1, cell)
            return (2, cell)

        return sorted(range(n * n), key=rank) + [self.game.pass_action]
