"""The batched game API every game implements, and the six single-state functions of AIMA.

Conventions (shared by every module that imports this one):

* A batch of states is one ``int64`` array of shape ``[B, S]`` (``S = game.state_size``). Each
  game documents the meaning of its ``S`` columns. Rows are independent; nothing is shared.
* Players are numbered ``0`` (the first player, "X" / "yellow") and ``1`` (the second).
* ``legal_mask`` is ``[B, A]`` bool, True for legal. A finished state has an all-False mask and a
  non-terminal state always has at least one legal action (a state with no legal move is terminal).
* Values are in ``[-1, 1]`` from the view of the player to move in that state (negamax
  convention). ``terminal_value`` is exact for finished states and ``0.0`` for unfinished ones.
* ``winner`` is ``0`` or ``1`` for a won game and ``-1`` for a draw or an unfinished game.
* ``step`` never mutates its input; it returns a new array. Stepping an illegal action or a
  finished state raises ``ValueError`` naming the row and the action.
* Games with chance (dice) have *chance states*, where no player acts: the game lists the
  outcomes (``K = num_chance_outcomes`` indices) and their probabilities, and ``apply_chance``
  plays one. A chance state is not terminal, its legal mask is all False, and ``step`` refuses it
  (a chance state is never handed to a player). Its ``to_play`` is the player whose decision led
  to it, and a value of a chance state is from that player's view. Deterministic games have
  ``num_chance_outcomes = 0`` and no chance state; nothing changes for them.

The single-state functions (``initial_state``, ``player``, ``actions``, ``result``,
``terminal_test``, ``utility``) follow Russell & Norvig, *Artificial Intelligence: A Modern
Approach*, section 5.1. A single state there is a ``tuple`` of ``S`` Python
ints: hashable, so it is also a transposition-table key. Chance adds three (Russell & Norvig, 3rd
ed., section 5.5, "Stochastic games"): ``is_chance_state``, ``chance_outcomes`` and
``chance_result``.
"""

from __future__ import annotations

from abc import ABC, abstractmethod
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

#: Value of ``winner`` for a draw or an unfinished game.
NO_WINNER = -1
#: How far the probabilities of one chance state may sum from 1 (float64 rounding of a table).
PROBABILITY_TOLERANCE = 1e-9

#: ``BoardView.cells`` entry of an empty cell.
EMPTY_CELL = -1
#: ``BoardView.move_kind`` values: an action drops a stone into a column, or places one on a cell.
COLUMN_MOVES, CELL_MOVES = "column", "cell"
#: ``BoardView.stone_shape`` values: X and O marks (tic-tac-toe), or round discs (Connect Four, Othello).
MARKS, DISCS = "mark", "disc"


@dataclass(frozen=True)
class BoardView:
    """One position drawn as a grid of cells, for the web page (``frontends/web``).

    Attributes:
        rows, columns: size of the grid in cells; row 0 is the top row as drawn.
        cells: ``rows * columns`` ints, row-major from the top-left: ``EMPTY_CELL`` (-1) or the
            player (0 = X, who moves first; 1 = O) whose stone is on the cell.
        move_kind: ``COLUMN_MOVES`` (an action drops a stone into a column, as in Connect Four: a
            click anywhere in the column plays it) or ``CELL_MOVES`` (an action places a stone on
            one cell, as in tic-tac-toe).
        action_targets: ``A`` entries, for each action its column (``COLUMN_MOVES``) or its cell
            index ``row * columns + column`` (``CELL_MOVES``); None for an action with no place on
            the grid (a pass), which the page shows as a button.
        winning_cells: cell indices of the line that won the game (empty while it goes on, for a
            draw, or when the game does not say).
        stone_shape: ``MARKS`` (X and O) or ``DISCS`` (discs in the players' colours).

    Raises:
        ValueError: if the sizes disagree or an index is out of the grid.
    """

    rows: int
    columns: int
    cells: tuple[int, ...]
    move_kind: str
    action_targets: tuple[int | None, ...]
    winning_cells: tuple[int, ...] = ()
    stone_shape: str = MARKS

    def __post_init__(self) -> None:
        if self.rows < 1 or self.columns < 1:
            raise ValueError(f"expected a grid of at least 1 x 1 cells, got {self.rows} x {self.columns}")
        num_cells = self.rows * self.columns
        if len(self.cells) != num_cells:
            raise ValueError(f"expected {num_cells} cells ({self.rows} x {self.columns}), got {len(self.cells)}")
        if any(cell not in (EMPTY_CELL, 0, 1) for cell in self.cells):
            raise ValueError(f"expected cells of {EMPTY_CELL}, 0 or 1, got {sorted(set(self.cells))}")
        if self.move_kind not in (COLUMN_MOVES, CELL_MOVES):
            raise ValueError(f"expected move_kind {COLUMN_MOVES!r} or {CELL_MOVES!r}, got {self.move_kind!r}")
        bound = self.columns if self.move_kind == COLUMN_MOVES else num_cells
        if any(target is not None and not 0 <= target < bound for target in self.action_targets):
            raise ValueError(f"expected action targets in [0, {bound}) or None, got {list(self.action_targets)}")
        if self.stone_shape not in (MARKS, DISCS):
            raise ValueError(f"expected stone_shape {MARKS!r} or {DISCS!r}, got {self.stone_shape!r}")
        if any(not 0 <= cell < num_cells for cell in self.winning_cells):
            raise ValueError(f"expected winning cells in [0, {num_cells}), got {list(self.winning_cells)}")


class CompiledRules(NamedTuple):
    """The rules on one state as Numba-compiled functions, for searches that run inside compiled code.

    Each field is an ``@njit`` function on one state row ``state`` (``[S]`` int64):

    * ``legal(state, out) -> int``: writes the legal mask into ``out`` (``[A]`` bool, True = legal,
      all False for a finished state) and returns the number of legal actions;
    * ``step(state, action, out)``: writes the successor after the legal ``action`` into ``out``
      (``[S]`` int64; ``out`` is not ``state``); no checks;
    * ``is_terminal(state) -> bool``;
    * ``winner(state) -> int``: 0 or 1 for a won game, ``NO_WINNER`` (-1) for a draw or an
      unfinished game;
    * ``to_play(state) -> int``: 0 or 1.
    """

    legal: object
    step: object
    is_terminal: object
    winner: object
    to_play: object


class Game(ABC):
    """A perfect-information, two-player game with a batched API, deterministic or with chance.

    Subclasses set the class attributes below and implement the abstract methods.

    Attributes:
        name: registry id, e.g. ``"connect4"``.
        version: bumped whenever the rules, state layout or encoding change; checkpoints record it.
        num_actions: ``A``, the size of the action space.
        observation_shape: ``(C, H, W)`` of one encoded observation.
        state_size: ``S``, the number of ``int64`` columns of a state row.
        max_game_length: an upper bound on the plies of any game.
        num_chance_outcomes: ``K``, the most outcomes of any chance state; 0 for a game without
            chance (then no state is a chance state).

    What is known about playing a game well (move order, heuristic, transposition key, exact
    solver, default network, opening plies) is not here but in its ``games.knowledge.Knowledge``,
    registered beside it (``games.knowledge(game)``). Code outside ``games/`` never asks a game
    for its name to decide how to treat it.
    """

    name: str = ""
    version: int = 1
    num_actions: int = 0
    observation_shape: tuple[int, int, int] = (0, 0, 0)
    state_size: int = 0
    max_game_length: int = 0
    num_chance_outcomes: int = 0

    # ----------------------------------------------------------------- batched API
    @abstractmethod
    def initial_states(self, batch_size: int) -> np.ndarray:
        """``batch_size`` copies of the start position: ``[B, S]`` int64.

        Raises:
            ValueError: if ``batch_size`` < 1.
        """

    @abstractmethod
    def legal_mask(self, states: np.ndarray) -> np.ndarray:
        """Legal actions: ``[B, A]`` bool, True = legal, all False for finished states."""

    @abstractmethod
    def step(self, states: np.ndarray, actions: np.ndarray) -> np.ndarray:
        """Play ``actions`` (``[B]`` int) in ``states`` (``[B, S]``); returns new ``[B, S]`` int64.

        Raises:
            ValueError: if shapes disagree, a state is finished, or an action is illegal.
        """

    @abstractmethod
    def terminal(self, states: np.ndarray) -> np.ndarray:
        """``[B]`` bool: True where the game is over (win, draw, or no legal move)."""

    @abstractmethod
    def to_play(self, states: np.ndarray) -> np.ndarray:
        """``[B]`` int8: the player (0 or 1) to move. Defined for finished states too."""

    @abstractmethod
    def winner(self, states: np.ndarray) -> np.ndarray:
        """``[B]`` int8: 0 or 1 for a won game, ``NO_WINNER`` (-1) for a draw or unfinished game."""

    @abstractmethod
    def ply(self, states: np.ndarray) -> np.ndarray:
        """``[B]`` int64: plies played since the start position."""

    @abstractmethod
    def observation(self, states: np.ndarray) -> np.ndarray:
        """Network input from the view of the player to move: ``[B, C, H, W]`` float32."""

    def terminal_value(self, states: np.ndarray) -> np.ndarray:
        """``[B]`` float32: exact value for the player to move of finished states, 0 elsewhere.

        +1 if the player to move has won, -1 if it has lost, 0 for a draw or unfinished game.
        """
        winner = self.winner(states).astype(np.int16)
        to_play = self.to_play(states).astype(np.int16)
        value = np.where(winner == NO_WINNER, 0.0, np.where(winner == to_play, 1.0, -1.0))
        return value.astype(np.float32)

    def compiled_rules(self) -> CompiledRules | None:
        """The rules on one state as Numba functions (``CompiledRules``), or None (the default).

        Compiled single-tree searches (``mcts.uct_compiled``) need them; without them the
        searches fall back to the batched API.
        """
        return None

    def compiled_observation(self) -> object | None:
        """``observation`` of one state as a Numba function, or None (the default).

        ``observe(state, out)``: writes the network input of ``state`` (``[S]`` int64) into ``out``
        (``[C, H, W]`` float32, every entry), from the view of the player to move, the same floats
        as ``observation(state[None])[0]``. The compiled one-root search (``mcts.single``) encodes
        its leaves with it and runs whole in compiled code; without it that search calls the
        evaluator from Python at each leaf.
        """
        return None

    # ------------------------------------------------------------------------ chance
    def is_chance(self, states: np.ndarray) -> np.ndarray:
        """``[B]`` bool: True where the state is a chance state (dice to roll, no player acts).

        The default, for deterministic games, is all False.
        """
        check_batch(self, states)
        return np.zeros(states.shape[0], dtype=bool)

    def _chance_table(self, states: np.ndarray) -> np.ndarray:
        """Games with chance override: ``[B, K]`` float64 outcome probabilities, rows of
        non-chance states all 0. Called only through ``chance_probabilities``, which checks it."""
        return np.zeros((states.shape[0], self.num_chance_outcomes), dtype=np.float64)

    def _apply_chance(self, states: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
        """Games with chance override: the states after ``outcomes`` (already checked)."""
        raise ValueError(f"{self.name} has no chance states")

    def chance_probabilities(self, states: np.ndarray) -> np.ndarray:
        """Probabilities of the chance outcomes: ``[B, K]`` float64 (``K = num_chance_outcomes``).

        Row ``b`` of a chance state lists the probability of each outcome index (0 for an outcome
        that cannot happen there) and sums to 1; rows of other states are all 0.

        Raises:
            ValueError: if the game's table has the wrong shape, a negative or non-finite entry,
                a chance row not summing to 1 (within ``PROBABILITY_TOLERANCE``) or mass on a
                non-chance row; the message names the row, the sum and the expected 1.
        """
        check_batch(self, states)
        table = np.asarray(self._chance_table(states), dtype=np.float64)
        check_chance_table(self, self.is_chance(states), table)
        return table

    def apply_chance(self, states: np.ndarray, outcomes: np.ndarray) -> np.ndarray:
        """Play chance ``outcomes`` (``[B]`` int, outcome indices) in chance ``states`` (``[B, S]``).

        Returns a new ``[B, S]`` int64 array; the input is not mutated.

        Raises:
            ValueError: if shapes disagree, a row is not a chance state, or an outcome is out of
                range or has probability 0 there (row and outcome named).
        """
        outcomes = np.asarray(outcomes)
        check_batch(self, states, outcomes)
        chance = self.is_chance(states)
        if not chance.all():
            row = int(np.flatnonzero(~chance)[0])
            raise ValueError(f"{self.name}: row {row} is not a chance state; players move there with step")
        table = self.chance_probabilities(states)
        valid = (outcomes >= 0) & (outcomes < self.num_chance_outcomes)
        rows = np.arange(states.shape[0])
        valid[valid] &= table[rows[valid], outcomes[valid]] > 0
        if not valid.all():
            row = int(np.flatnonzero(~valid)[0])
            possible = np.flatnonzero(table[row] > 0).tolist()
            raise ValueError(
                f"{self.name}: impossible chance outcome {int(outcomes[row])} in row {row}; expected one of {possible}"
            )
        return self._apply_chance(states, outcomes.astype(np.int64))

    def sample_chance(self, states: np.ndarray, rng: np.random.Generator) -> np.ndarray:
        """``[B]`` int64 outcomes drawn by their probabilities with ``rng`` (one uniform per row).

        An outcome of probability 0 is never drawn (inverse CDF on the cumulative table).

        Raises:
            ValueError: as ``chance_probabilities``, and if a row is not a chance state.
        """
        table = self.chance_probabilities(states)
        chance = self.is_chance(states)
        if not chance.all():
            row = int(np.flatnonzero(~chance)[0])
            raise ValueError(f"{self.name}: row {row} is not a chance state; there is nothing to sample")
        cumulative = np.cumsum(table, axis=1)
        uniforms = rng.random(states.shape[0]) * cumulative[:, -1]
        return (cumulative <= uniforms[:, None]).sum(axis=1).astype(np.int64)

    def chance_outcome_to_string(self, outcome: int) -> str:
        """Text of one chance outcome (default: the 1-based index, a die's face)."""
        return str(int(outcome) + 1)

    # ------------------------------------------------------------------ symmetries
    @property
    def action_symmetries(self) -> np.ndarray:
        """``[G, A]`` int64: symmetry ``g`` sends action ``a`` to ``action_symmetries[g, a]``.

        Row 0 is the identity. A policy ``p`` (``[..., A]``) transforms as ``q[..., perm] = p``.
        """
        return np.arange(self.num_actions, dtype=np.int64)[None, :]

    def transform_observation(self, observations: np.ndarray, symmetry: int) -> np.ndarray:
        """Apply symmetry ``symmetry`` to observations ``[B, C, H, W]``; returns a new array."""
        if symmetry != 0:
            raise ValueError(f"{self.name} has only the identity symmetry, got {symmetry}")
        return observations.copy()

    def transform_policy(self, policies: np.ndarray, symmetry: int) -> np.ndarray:
        """Apply symmetry ``symmetry`` to policies or masks ``[..., A]``; returns a new array."""
        perm = self.action_symmetries[symmetry]
        out = np.empty_like(policies)
        out[..., perm] = policies
        return out

    @property
    def num_symmetries(self) -> int:
        return int(self.action_symmetries.shape[0])

    # ----------------------------------------------------------------- move strings
    @abstractmethod
    def parse_moves(self, text: str) -> list[int]:
        """Parse a move string into 0-based actions; validates legality from the start position.

        Raises:
            ValueError: naming the offending character position and why.
        """

    @abstractmethod
    def format_moves(self, actions) -> str:
        """Inverse of ``parse_moves``."""

    def action_to_string(self, action: int) -> str:
        return self.format_moves([action])

    @abstractmethod
    def render(self, state: np.ndarray | tuple) -> str:
        """Text drawing of one state (a ``[S]`` row or a tuple), rows top to bottom."""

    def board_view(self, state: tuple) -> BoardView | None:
        """The grid the web page draws for ``state`` (a single-state tuple), or None.

        None (the default) means the game has no grid drawing: the page shows ``render(state)``
        as text and one button per action, laid out in a square grid.
        """
        return None

    def states_from_moves(self, move_strings: list[str]) -> np.ndarray:
        """States reached by playing each move string from the start: ``[len, S]`` int64."""
        rows = []
        for text in move_strings:
            state = self.initial_states(1)
            for action in self.parse_moves(text):  # with chance: actions and outcomes in play order
                if self.is_chance(state)[0]:
                    state = self.apply_chance(state, np.array([action]))
                else:
                    state = self.step(state, np.array([action]))
            rows.append(state[0])
        if not rows:
            return np.zeros((0, self.state_size), dtype=np.int64)
        return np.stack(rows)

    # ------------------------------------------------ the six single-state functions (AIMA 5.1)
    def initial_state(self) -> tuple:
        """S0: the start position as a hashable tuple."""
        return tuple(int(v) for v in self.initial_states(1)[0])

    def player(self, state: tuple) -> int:
        """PLAYER(s): 0 or 1, the player to move."""
        return int(self.to_play(_row(state))[0])

    def actions(self, state: tuple) -> list[int]:
        """ACTIONS(s): legal actions in increasing order (empty if terminal)."""
        return [int(a) for a in np.flatnonzero(self.legal_mask(_row(state))[0])]

    def result(self, state: tuple, action: int) -> tuple:
        """RESULT(s, a): the successor state. Raises ValueError for an illegal action."""
        return tuple(int(v) for v in self.step(_row(state), np.array([action]))[0])

    def terminal_test(self, state: tuple) -> bool:
        """TERMINAL-TEST(s)."""
        return bool(self.terminal(_row(state))[0])

    def is_chance_state(self, state: tuple) -> bool:
        """True if ``state`` is a chance state (Russell & Norvig, 3rd ed., section 5.5)."""
        return bool(self.is_chance(_row(state))[0])

    def chance_outcomes(self, state: tuple) -> list[tuple[int, float]]:
        """``[(outcome, probability), ...]`` of a chance state, outcomes of probability > 0 in
        increasing order; the probabilities sum to 1.

        Raises:
            ValueError: if ``state`` is not a chance state, or as ``chance_probabilities``.
        """
        if not self.is_chance_state(state):
            raise ValueError(f"{self.name}: expected a chance state, got a decision or finished state {state}")
        table = self.chance_probabilities(_row(state))[0]
        return [(int(k), float(table[k])) for k in np.flatnonzero(table > 0)]

    def chance_result(self, state: tuple, outcome: int) -> tuple:
        """The state after chance ``outcome`` in chance ``state``. Raises ValueError as ``apply_chance``."""
        return tuple(int(v) for v in self.apply_chance(_row(state), np.array([outcome]))[0])

    def utility(self, state: tuple, player: int) -> float:
        """UTILITY(s, p): +1 / 0 / -1 for player ``p`` at a terminal state (0 if not terminal)."""
        winner = int(self.winner(_row(state))[0])
        if winner == NO_WINNER:
            return 0.0
        return 1.0 if winner == player else -1.0


def _row(state) -> np.ndarray:
    return np.asarray(state, dtype=np.int64).reshape(1, -1)


def check_chance_table(game: Game, chance: np.ndarray, table: np.ndarray) -> None:
    """Validate a ``[B, K]`` table of chance probabilities against the ``[B]`` chance flags.

    Raises:
        ValueError: for a wrong shape, a negative or non-finite probability, a chance row whose
            sum is not 1 within ``PROBABILITY_TOLERANCE``, or a non-chance row with any mass.
    """
    expected = (chance.shape[0], game.num_chance_outcomes)
    if table.shape != expected:
        raise ValueError(f"{game.name}: expected chance probabilities of shape {list(expected)}, got {list(table.shape)}")
    bad = ~np.isfinite(table).all(axis=1) | (table < 0).any(axis=1)
    if bad.any():
        row = int(np.flatnonzero(bad)[0])
        raise ValueError(f"{game.name}: chance probabilities of row {row} must be finite and >= 0, got {table[row].tolist()}")
    sums = table.sum(axis=1)
    wrong = np.where(chance, np.abs(sums - 1.0) > PROBABILITY_TOLERANCE, sums != 0.0)
    if wrong.any():
        row = int(np.flatnonzero(wrong)[0])
        if chance[row]:
            raise ValueError(
                f"{game.name}: chance probabilities of row {row} sum to {float(sums[row])!r}, expected 1 "
                f"(table {table[row].tolist()})"
            )
        raise ValueError(f"{game.name}: row {row} is not a chance state but its chance probabilities sum to {float(sums[row])!r}, expected 0")


def check_not_chance(game: Game, states: np.ndarray) -> None:
    """Refuse chance states where a player would act (``step``, players, search).

    Raises:
        ValueError: naming the first chance row: no player acts at a chance state.
    """
    chance = game.is_chance(states)
    if chance.any():
        row = int(np.flatnonzero(chance)[0])
        raise ValueError(
            f"{game.name}: row {row} is a chance state: no player acts there; "
            "play a chance outcome with apply_chance (or sample_chance)"
        )


def check_batch(game: Game, states: np.ndarray, actions: np.ndarray | None = None) -> None:
    """Validate shapes and dtypes of a batch; raises ValueError with expected and actual."""
    if not isinstance(states, np.ndarray) or states.ndim != 2 or states.shape[1] != game.state_size:
        shape = getattr(states, "shape", type(states).__name__)
        raise ValueError(f"{game.name}: expected states of shape [B, {game.state_size}], got {shape}")
    if states.dtype != np.int64:
        raise ValueError(f"{game.name}: expected int64 states, got {states.dtype}")
    if actions is not None:
        if actions.shape != (states.shape[0],):
            raise ValueError(
                f"{game.name}: expected actions of shape [{states.shape[0]}], got {actions.shape}"
            )


class WithoutCompiledRules:
    """``game`` with its compiled rules hidden: ``compiled_rules()`` returns None and every other
    attribute is the game's own, so one-root searches take the batched loop. For comparing the
    compiled and batched loops on the same game (tests/test_single_position_search.py,
    scripts/bench_puct_single.py)."""

    def __init__(self, game: Game):
        self._game = game

    def compiled_rules(self) -> None:
        return None

    def compiled_observation(self) -> None:
        return None

    def __getattr__(self, name):
        return getattr(self._game, name)
