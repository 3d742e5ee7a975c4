"""Positions labelled by perfect play: the data that accuracy against perfect play is measured on.

A move is a *mistake* when another legal move has a strictly better game-theoretic outcome for the
player to move, with win > draw > loss (the definition AlphaZero.jl uses in its Connect Four
benchmark against Pons' solver). In a game with chance the outcome of a move is a win
probability (``LabelledSet.values``): a mistake is a move whose win probability under optimal
play afterwards is below the best move's. Games ship their sets through ``Game.labelled_set_names`` and
``Game.labelled_set``; ``arena.accuracy`` measures players on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: outcome code of an illegal action in ``LabelledSet.outcomes``
ILLEGAL = -2
#: win probabilities closer than this count as equal (the solvers' convergence is 1e-13)
VALUE_TOLERANCE = 1e-9


@dataclass(frozen=True)
class LabelledSet:
    """Positions with the exact outcome of every action.

    Attributes:
        name: set name (``"middle_easy"``, ``"all"``, ...).
        moves: ``N`` move strings reaching the positions from the start (the game's notation).
        states: ``[N, S]`` int64 states, all non-terminal.
        outcomes: ``[N, A]`` int8, for the player to move: +1 if the action wins under perfect
            play, 0 if it draws, -1 if it loses; ``ILLEGAL`` (-2) for an illegal action. In a set
            labelled by win probability: +1 for the best actions, -1 for the others.
        values: None, or ``[N, A]`` float64: the win probability of each action for the player
            to move under optimal play afterwards (games with chance; NaN for an illegal action).
    """

    name: str
    moves: list[str]
    states: np.ndarray
    outcomes: np.ndarray
    values: np.ndarray | None = None

    @classmethod
    def from_values(cls, name: str, moves: list[str], states: np.ndarray, values: np.ndarray) -> LabelledSet:
        """A set labelled by win probability: ``values`` ``[N, A]`` float64, NaN for illegal
        actions; an action more than ``VALUE_TOLERANCE`` below its row's best is a mistake.

        Raises:
            ValueError: for a row without a legal action or a value outside ``[0, 1]``.
        """
        values = np.asarray(values, dtype=np.float64)
        legal = ~np.isnan(values)
        if values.ndim != 2 or not legal.any(axis=1).all():
            raise ValueError(f"expected [N, A] values with a legal action in every row, got shape {values.shape}")
        if np.any((values[legal] < 0) | (values[legal] > 1)):
            raise ValueError("expected win probabilities in [0, 1]")
        best = np.where(legal, values, -1.0).max(axis=1, keepdims=True)
        outcomes = np.where(legal, np.where(values < best - VALUE_TOLERANCE, -1, 1), ILLEGAL).astype(np.int8)
        return cls(name, list(moves), np.asarray(states, dtype=np.int64), outcomes, values)

    def value_losses(self, actions: np.ndarray) -> np.ndarray:
        """``[N]`` float64: the best action's win probability minus the chosen one's (0 where the
        set has no ``values``: outcome-labelled sets measure mistakes only)."""
        if self.values is None:
            return np.zeros(len(self))
        rows = np.arange(len(self))
        best = np.nanmax(self.values, axis=1)
        return np.maximum(best - self.values[rows, np.asarray(actions)], 0.0)

    def head(self, count: int) -> LabelledSet:
        """The first ``count`` positions."""
        values = None if self.values is None else self.values[:count]
        return LabelledSet(self.name, self.moves[:count], self.states[:count], self.outcomes[:count], values)

    def __len__(self) -> int:
        return len(self.moves)

    @property
    def legal_mask(self) -> np.ndarray:
        """``[N, A]`` bool, True for legal actions."""
        return self.outcomes != ILLEGAL

    @property
    def mistake_mask(self) -> np.ndarray:
        """``[N, A]`` bool, True for legal actions whose outcome is worse than the best one."""
        return mistake_mask(self.outcomes)


def mistake_mask(outcomes: np.ndarray) -> np.ndarray:
    """``[N, A]`` bool: legal actions (outcome != ``ILLEGAL``) with an outcome below the row's best.

    Raises:
        ValueError: if ``outcomes`` is not ``[N, A]`` with values in {-2, -1, 0, 1} and a legal
            action in every row.
    """
    outcomes = np.asarray(outcomes)
    if outcomes.ndim != 2:
        raise ValueError(f"expected outcomes of shape [N, A], got {outcomes.shape}")
    if not np.all(np.isin(outcomes, (ILLEGAL, -1, 0, 1))):
        raise ValueError("expected outcomes in {-2 (illegal), -1, 0, 1}")
    legal = outcomes != ILLEGAL
    if not np.all(legal.any(axis=1)):
        raise ValueError(f"rows {np.flatnonzero(~legal.any(axis=1)).tolist()} have no legal action")
    best = np.where(legal, outcomes, ILLEGAL).max(axis=1, keepdims=True)
    return legal & (outcomes < best)
