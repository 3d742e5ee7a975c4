"""Exact win probabilities of two-player Pig by value iteration.

Source: Neller & Presser, "Optimal Play of the Dice Game Pig", *The UMAP Journal* 25(1), 2004,
section "Solving Pig": with ``P(i, j, k)`` the probability that the player to move wins from own
score ``i``, opponent's score ``j`` and turn total ``k`` under optimal play by both,

* ``P(i, j, k) = 1`` if ``i + k >= goal`` (holding wins);
* ``P_roll(i, j, k) = (1 - P(j, i, 0)) / d + sum_{r=2..d} P(i, j, k + r) / d``;
* ``P_hold(i, j, k) = 1 - P(j, i + k, 0)``;
* ``P(i, j, k) = max(P_roll, P_hold)``.

Every dependency of a state either has a larger score sum ``i + j`` (a hold with ``k > 0``) or the
same sum; so the sums are solved from the largest down, and within one sum the equations are
iterated (Gauss-Seidel, turn totals from the largest down) until no probability moves by more
than ``tolerance``. The paper's values: the first player wins with probability 0.5305927 at goal
100 with a six-sided die, and ``P(99, 99, 0) = 6/7``.

The game's horizon (``games.pig.game``) is ignored: these are the probabilities of the game
without one.
"""

from __future__ import annotations

import functools

import numpy as np
from numba import njit

#: default convergence threshold of the value iteration (max change of a probability per sweep)
DEFAULT_TOLERANCE = 1e-13


@njit(cache=True)
def _value_iteration(goal, die, tolerance, win):
    sweeps = 0
    for total in range(2 * goal - 2, -1, -1):
        low = max(0, total - (goal - 1))
        high = min(goal - 1, total)
        while True:
            sweeps += 1
            delta = 0.0
            for i in range(low, high + 1):
                j = total - i
                for k in range(goal - 1 - i, -1, -1):
                    roll = (1.0 - win[j, i, 0]) / die
                    for face in range(2, die + 1):
                        if i + k + face >= goal:
                            roll += 1.0 / die
                        else:
                            roll += win[i, j, k + face] / die
                    hold = 1.0 - win[j, i + k, 0]
                    value = roll if roll > hold else hold
                    change = abs(value - win[i, j, k])
                    if change > delta:
                        delta = change
                    win[i, j, k] = value
            if delta < tolerance:
                break
    return sweeps


class PigSolver:
    """Optimal play of Pig to ``goal`` with a ``die``-sided die.

    Attributes:
        goal, die: the game's parameters.
        win_table: ``[goal, goal, goal]`` float64, ``P(i, j, k)`` for ``i + k < goal`` (entries with
            ``i + k >= goal`` are unused; ``win_probability`` answers 1 there).
        sweeps: value-iteration sweeps it took.

    Raises:
        ValueError: if ``goal`` < 1, ``die`` < 2 or ``tolerance`` is not in (0, 1).
    """

    def __init__(self, goal: int, die: int = 6, tolerance: float = DEFAULT_TOLERANCE) -> None:
        if isinstance(goal, bool) or not isinstance(goal, (int, np.integer)) or goal < 1:
            raise ValueError(f"goal must be an integer >= 1, got {goal!r}")
        if isinstance(die, bool) or not isinstance(die, (int, np.integer)) or die < 2:
            raise ValueError(f"die must be an integer >= 2, got {die!r}")
        if not 0 < tolerance < 1:
            raise ValueError(f"tolerance must be in (0, 1), got {tolerance!r}")
        self.goal = int(goal)
        self.die = int(die)
        self.win_table = np.zeros((self.goal, self.goal, self.goal), dtype=np.float64)
        self.sweeps = int(_value_iteration(self.goal, self.die, float(tolerance), self.win_table))

    # ------------------------------------------------------------------ (i, j, k) queries
    def _check(self, i: int, j: int, k: int) -> None:
        for label, value in (("own score", i), ("opponent's score", j)):
            if not 0 <= value < self.goal:
                raise ValueError(f"{label} must be in [0, {self.goal}), got {value}")
        if k < 0:
            raise ValueError(f"turn total must be >= 0, got {k}")

    def win_probability(self, i: int, j: int, k: int) -> float:
        """``P(i, j, k)``: the probability that the player to move wins under optimal play.

        Raises:
            ValueError: if ``i`` or ``j`` is outside ``[0, goal)`` or ``k`` < 0.
        """
        self._check(i, j, k)
        return 1.0 if i + k >= self.goal else float(self.win_table[i, j, k])

    def win_probabilities(self, own, opponent, turn_total) -> np.ndarray:
        """``[N]`` float64 ``P(i, j, k)`` for ``[N]`` int arrays of own score, opponent's score and
        turn total (``win_probability`` batched: 1 where the turn total reaches the goal).

        Raises:
            ValueError: if a score is outside ``[0, goal)`` or a turn total is < 0.
        """
        i, j, k = (np.asarray(x, dtype=np.int64).reshape(-1) for x in (own, opponent, turn_total))
        for label, x in (("own score", i), ("opponent's score", j)):
            if np.any((x < 0) | (x >= self.goal)):
                raise ValueError(f"{label} must be in [0, {self.goal}), got {x.tolist()}")
        if np.any(k < 0):
            raise ValueError(f"turn total must be >= 0, got {k.tolist()}")
        won = i + k >= self.goal
        return np.where(won, 1.0, self.win_table[i, j, np.where(won, 0, k)])

    def action_values(self, i: int, j: int, k: int) -> tuple[float, float]:
        """``(P_roll, P_hold)``: win probabilities of rolling and of holding, then optimal play.

        Raises:
            ValueError: as ``win_probability``.
        """
        self._check(i, j, k)
        table, goal, die = self.win_table, self.goal, self.die
        roll = (1.0 - float(table[j, i, 0])) / die
        for face in range(2, die + 1):
            roll += (1.0 if i + k + face >= goal else float(table[i, j, k + face])) / die
        hold = 1.0 if i + k >= goal else 1.0 - float(table[j, i + k, 0])
        return roll, hold

    def optimal_action(self, i: int, j: int, k: int) -> int:
        """0 (roll) or 1 (hold): the action of the larger win probability, roll on an exact tie.

        Raises:
            ValueError: as ``win_probability``.
        """
        roll, hold = self.action_values(i, j, k)
        return 0 if roll >= hold else 1

    # ------------------------------------------------------------------ game-state queries
    def _ijk(self, state: tuple) -> tuple[int, int, int]:
        # the layout of games.pig.game: [ply, decisions, to_play, score_0, score_1, turn, chance, status]
        if state[7] != 0 or state[6] != 0:
            raise ValueError(f"pig solver: expected a decision state (no chance, not finished), got {state}")
        player = state[2]
        return int(state[3 + player]), int(state[4 - player]), int(state[5])

    def action_scores(self, state: tuple) -> dict[int, float]:
        """``{0: P_roll, 1: P_hold}`` for the player to move in a decision state of ``games.pig``
        (``{1: 1.0}`` where the goal is reached and only holding is legal).

        Raises:
            ValueError: for a chance or finished state.
        """
        i, j, k = self._ijk(state)
        if i + k >= self.goal:  # only holding is legal (games.pig.game): it wins
            return {1: 1.0}
        roll, hold = self.action_values(i, j, k)
        return {0: roll, 1: hold}

    def optimal_actions(self, state: tuple) -> list[int]:
        """The actions of the largest win probability (both on an exact tie).

        Raises:
            ValueError: for a chance or finished state.
        """
        scores = self.action_scores(state)
        best = max(scores.values())
        return [a for a, p in scores.items() if p == best]

    def state_value(self, state: tuple) -> float:
        """Win probability of the player to move in a decision state, under optimal play.

        Raises:
            ValueError: for a chance or finished state.
        """
        return self.win_probability(*self._ijk(state))


@functools.lru_cache(maxsize=8)
def solve(goal: int, die: int = 6) -> PigSolver:
    """The solver of ``(goal, die)``, computed once per process (goal 100: about a second)."""
    return PigSolver(goal, die)


def solver_for(game) -> PigSolver:
    """The solver of a ``games.pig.game.Pig`` (its goal and die)."""
    return solve(game.goal, game.die)
