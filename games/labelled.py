"""Positions labelled by perfect play: the data that accuracy against perfect play is measured on.

A move is a *mistake* when another legal move has a strictly better game-theoretic outcome for the
player to move, with win > draw > loss (the definition AlphaZero.jl uses in its Connect Four
benchmark against Pons' solver). Games ship their sets through ``Game.labelled_set_names`` and
``Game.labelled_set``; ``arena.accuracy`` measures players on them.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

#: outcome code of an illegal action in ``LabelledSet.outcomes``
ILLEGAL = -2


@dataclass(frozen=True)
class LabelledSet:
    """Positions with the exact outcome of every action.

    Attributes:
        name: set name (``"middle_easy"``, ``"all"``, ...).
        moves: ``N`` move strings reaching the positions from the start (the game's notation).
        states: ``[N, S]`` int64 states, all non-terminal.
        outcomes: ``[N, A]`` int8, for the player to move: +1 if the action wins under perfect
            play, 0 if it draws, -1 if it loses; ``ILLEGAL`` (-2) for an illegal action.
    """

    name: str
    moves: list[str]
    states: np.ndarray
    outcomes: np.ndarray

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
