"""Shape and dtype checks shared by the torch and ONNX Runtime paths. numpy only (no torch).

Every public entry point that takes arrays validates them here, so a wrong shape fails with a
``ValueError`` that gives the expected and the actual shape instead of a broadcasting surprise deep
inside the network or the search.
"""

from __future__ import annotations

import numpy as np

from games.checks import is_int


def check_sizes(observation_shape, num_actions) -> tuple[tuple[int, int, int], int]:
    """Validate a game's ``(C, H, W)`` and ``A``; returns them as ``(tuple of 3 ints, int)``.

    Raises:
        ValueError: if ``observation_shape`` is not three positive ints or ``num_actions`` is not a
            positive int.
    """
    try:
        shape = tuple(int(v) for v in observation_shape)
    except (TypeError, ValueError):
        raise ValueError(f"observation_shape: expected (C, H, W) of positive ints, got {observation_shape!r}")
    if len(shape) != 3 or min(shape) < 1 or shape != tuple(observation_shape):
        raise ValueError(f"observation_shape: expected (C, H, W) of positive ints, got {observation_shape!r}")
    if not is_int(num_actions) or num_actions < 1:
        raise ValueError(f"num_actions: expected a positive int, got {num_actions!r}")
    return shape, int(num_actions)


def check_evaluate_inputs(
    observations, legal_mask, observation_shape: tuple[int, int, int], num_actions: int
) -> tuple[np.ndarray, np.ndarray]:
    """Validate the arguments of an ``evaluate(observations, legal_mask)`` call.

    Args:
        observations: ``[B, C, H, W]`` numpy array (float32 preferred; other real dtypes are
            converted).
        legal_mask: ``[B, A]`` numpy bool array, True = legal.
        observation_shape: the expected ``(C, H, W)``.
        num_actions: the expected ``A``.

    Returns:
        ``(observations, legal_mask)`` as C-contiguous float32 and bool arrays (no copy when they
        already are).

    Raises:
        ValueError: if either is not a numpy array, a shape differs from the expected one, the batch
            sizes differ, or ``legal_mask`` is not bool.
    """
    if not isinstance(observations, np.ndarray):
        raise ValueError(f"observations: expected a numpy array, got {type(observations).__name__}")
    if not isinstance(legal_mask, np.ndarray):
        raise ValueError(f"legal_mask: expected a numpy array, got {type(legal_mask).__name__}")
    if observations.ndim != 4 or tuple(observations.shape[1:]) != tuple(observation_shape):
        raise ValueError(
            f"observations: expected shape [B, {', '.join(map(str, observation_shape))}], "
            f"got {list(observations.shape)}"
        )
    batch = observations.shape[0]
    if legal_mask.shape != (batch, num_actions):
        raise ValueError(f"legal_mask: expected shape [{batch}, {num_actions}], got {list(legal_mask.shape)}")
    if legal_mask.dtype != np.bool_:
        raise ValueError(f"legal_mask: expected dtype bool (True = legal), got {legal_mask.dtype}")
    if not np.issubdtype(observations.dtype, np.number) or np.issubdtype(
        observations.dtype, np.complexfloating
    ):
        raise ValueError(f"observations: expected dtype float32, got {observations.dtype}")
    return np.ascontiguousarray(observations, dtype=np.float32), np.ascontiguousarray(legal_mask)
