"""Typed records handed from self-play to the replay buffer."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class GameRecord:
    """One finished self-play game, position by position (T = plies played).

    Every array is owned by the record (copies, never views of live search state, so mutating a live board later changes nothing stored).

    Attributes:
        game_id: unique id of this game within a run (validation splits are by game id).
        game_name: registry id of the game, e.g. ``"connect4"``.
        observations: ``[T, C, H, W]`` float32, network input before each move.
        legal_masks: ``[T, A]`` bool, True = legal.
        policies: ``[T, A]`` float32, the search's visit distribution (policy target); sums to 1,
            0 on illegal actions.
        values: ``[T]`` float32, the value target z from the view of the player to move at that
            position: +1 if that player went on to win, -1 if it lost, 0 for a draw.
        to_play: ``[T]`` int8, the player (0/1) to move at each position.
        actions: ``[T]`` int64, the action played at each position.
        winner: 0 or 1, or -1 for a draw.
        model_version: version of the weights that played the game.
        policy_weights: ``[T]`` float32 in ``[0, 1]``, the weight of each position's policy target
            in the loss; 0 for positions of a cheap search under playout cap randomisation (Wu
            2019, "Accelerating Self-Play Learning in Go", sec. 5), whose value target still
            counts. None means 1 everywhere.
    """

    game_id: int
    game_name: str
    observations: np.ndarray
    legal_masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    to_play: np.ndarray
    actions: np.ndarray
    winner: int
    model_version: int = 0
    policy_weights: np.ndarray | None = None

    @property
    def num_positions(self) -> int:
        return int(self.values.shape[0])
