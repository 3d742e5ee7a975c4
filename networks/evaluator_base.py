"""The evaluator protocol the search calls, and the uniform evaluator. numpy only (no torch).

An evaluator is any object with ``evaluate(observations, legal_mask) -> (priors, values)``; the
batched search in ``mcts/`` calls it once per simulation step for all leaves that need it. The torch
implementation is :class:`networks.evaluator.TorchEvaluator`, the ONNX Runtime one
:class:`networks.onnx_evaluator.OnnxEvaluator`.
"""

from __future__ import annotations

from typing import Protocol

import numpy as np

from networks.policy_numpy import uniform_priors_numpy
from networks.shapes import check_evaluate_inputs, check_sizes


class Evaluator(Protocol):
    """What the search needs from a network."""

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors and values for a batch of positions.

        Args:
            observations: ``[B, C, H, W]`` float32, from the view of the player to move.
            legal_mask: ``[B, A]`` bool, True = legal.

        Returns:
            ``(priors, values)``: ``[B, A]`` float32, exactly 0 on illegal actions and summing to 1
            over legal ones; ``[B]`` float32 in ``[-1, 1]`` for the player to move.
        """
        ...


class UniformEvaluator:
    """Uniform priors over the legal actions and value 0 (a "zero net", the usual stand-in for an untrained network in tests).

    For tests and for measuring tree speed with a free evaluator. Counts its calls and positions.

    Args:
        observation_shape: ``(C, H, W)`` checked on each call.
        num_actions: ``A``.

    Raises:
        ValueError: for a bad shape or action count.
    """

    def __init__(self, observation_shape, num_actions: int) -> None:
        self.observation_shape, self.num_actions = check_sizes(observation_shape, num_actions)
        self.num_calls = 0
        self.num_positions = 0
        self.num_degenerate_priors = 0

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """``([B, A]`` float32 uniform-over-legal priors, ``[B]`` float32 zeros``)``.

        Raises:
            ValueError: for inputs of the wrong shape or dtype (expected vs actual in the message).
        """
        observations, legal_mask = check_evaluate_inputs(
            observations, legal_mask, self.observation_shape, self.num_actions
        )
        self.num_calls += 1
        self.num_positions += observations.shape[0]
        return uniform_priors_numpy(legal_mask), np.zeros(observations.shape[0], dtype=np.float32)

    __call__ = evaluate
