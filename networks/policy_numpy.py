"""Masked softmax over legal actions in numpy: the twin of :mod:`networks.policy` (no torch).

Same rules as the torch version: illegal logits are filled with ``-inf`` (never multiplied by the
mask), the softmax is shifted by the largest legal logit (so legal logits all ``-1000`` still give
uniform over the legal actions, as for a one-hot prior on an occupied cell), illegal actions get probability exactly 0, and a row
without a legal action gives all zeros. Used by the ONNX Runtime evaluator and by tests.
"""

from __future__ import annotations

import numpy as np

#: A prior is "degenerate" when the network's unmasked softmax puts less than this much probability
#: on the legal actions (a network almost sure of an illegal move).
DEGENERATE_LEGAL_MASS = 1e-6

#: Log-probability of an illegal action in :func:`masked_log_softmax_numpy` (exp gives exactly 0).
ILLEGAL_LOG_PROB = float(np.finfo(np.float32).min)


def _check(logits: np.ndarray, legal_mask: np.ndarray) -> None:
    if not isinstance(logits, np.ndarray) or not isinstance(legal_mask, np.ndarray):
        raise ValueError(
            f"expected numpy arrays, got logits {type(logits).__name__} "
            f"and legal_mask {type(legal_mask).__name__}"
        )
    if logits.shape != legal_mask.shape or logits.ndim < 1:
        raise ValueError(
            f"legal_mask: expected the shape of logits {list(logits.shape)}, got {list(legal_mask.shape)}"
        )
    if legal_mask.dtype != np.bool_:
        raise ValueError(f"legal_mask: expected dtype bool (True = legal), got {legal_mask.dtype}")


def _shifted(logits: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(legal logits minus the row's largest legal logit with illegal at -inf, that max, any-legal).

    Rows without a legal action come back all -inf with max 0.
    """
    any_legal = legal_mask.any(axis=-1, keepdims=True)
    filled = np.where(legal_mask, logits.astype(np.float32, copy=False), np.float32(-np.inf))
    legal_max = np.where(any_legal, filled.max(axis=-1, keepdims=True), np.float32(0.0))
    return filled - legal_max, legal_max, any_legal


def masked_softmax_with_count_numpy(
    logits: np.ndarray, legal_mask: np.ndarray, min_legal_mass: float = DEGENERATE_LEGAL_MASS
) -> tuple[np.ndarray, int]:
    """:func:`masked_softmax_numpy` and :func:`count_degenerate_priors_numpy` in one pass.

    The evaluators' hot path: the count costs one extra row maximum, plus an exact check only for
    rows whose best legal logit is far below the best logit (legal mass >= exp(gap) / A bounds it).

    Returns:
        ``(probabilities [..., A] float32, number of degenerate rows)``.

    Raises:
        ValueError: as :func:`masked_softmax_numpy`, or if ``min_legal_mass`` is not in (0, 1).
    """
    _check(logits, legal_mask)
    if not 0.0 < min_legal_mass < 1.0:
        raise ValueError(f"min_legal_mass: expected a value in (0, 1), got {min_legal_mass}")
    shifted, legal_max, any_legal = _shifted(logits, legal_mask)
    weights = np.exp(shifted)  # exp(-inf) = 0 exactly; the largest legal entry is exp(0) = 1
    total = weights.sum(axis=-1, keepdims=True)
    probs = (weights / np.where(any_legal, total, 1.0)).astype(np.float32, copy=False)
    gap = legal_max - logits.max(axis=-1, keepdims=True)
    candidates = any_legal & (gap < np.log(min_legal_mass) + np.log(logits.shape[-1]))
    num_degenerate = 0
    if candidates.any():
        rows = candidates[..., 0]
        num_degenerate = count_degenerate_priors_numpy(logits[rows], legal_mask[rows], min_legal_mass)
    return probs, num_degenerate


def masked_softmax_numpy(logits: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
    """Softmax over the legal actions of each row.

    Args:
        logits: ``[..., A]`` float array (computed in float32).
        legal_mask: ``[..., A]`` bool array, True = legal.

    Returns:
        ``[..., A]`` float32: exactly 0 on illegal actions, summing to 1 over each row's legal actions
        (all 0 for a row without a legal action); finite.

    Raises:
        ValueError: if the shapes differ or ``legal_mask`` is not bool.
    """
    _check(logits, legal_mask)
    shifted, _, any_legal = _shifted(logits, legal_mask)
    weights = np.exp(shifted)
    total = weights.sum(axis=-1, keepdims=True)
    return (weights / np.where(any_legal, total, 1.0)).astype(np.float32, copy=False)


def masked_log_softmax_numpy(logits: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
    """Log-softmax over legal actions; illegal entries hold ``ILLEGAL_LOG_PROB``; finite.

    Args:
        logits: ``[..., A]`` float array.
        legal_mask: ``[..., A]`` bool array, True = legal.

    Returns:
        ``[..., A]`` float32 log-probabilities.

    Raises:
        ValueError: if the shapes differ or ``legal_mask`` is not bool.
    """
    _check(logits, legal_mask)
    shifted, _, any_legal = _shifted(logits, legal_mask)
    log_total = np.log(np.where(any_legal, np.exp(shifted).sum(axis=-1, keepdims=True), 1.0))
    out = np.where(legal_mask, shifted - log_total, ILLEGAL_LOG_PROB)
    return out.astype(np.float32)


def count_degenerate_priors_numpy(
    logits: np.ndarray, legal_mask: np.ndarray, min_legal_mass: float = DEGENERATE_LEGAL_MASS
) -> int:
    """Rows whose unmasked softmax puts less than ``min_legal_mass`` on legal actions (a network almost sure of an illegal move).

    Rows without a legal action are not counted.

    Raises:
        ValueError: if the shapes differ, ``legal_mask`` is not bool, or ``min_legal_mass`` is not
            in (0, 1).
    """
    _check(logits, legal_mask)
    if not 0.0 < min_legal_mass < 1.0:
        raise ValueError(f"min_legal_mass: expected a value in (0, 1), got {min_legal_mass}")
    logits = logits.astype(np.float64)
    row_max = logits.max(axis=-1, keepdims=True)
    weights = np.exp(logits - row_max)
    legal_mass = np.where(legal_mask, weights, 0.0).sum(axis=-1) / weights.sum(axis=-1)
    return int(np.count_nonzero(legal_mask.any(axis=-1) & (legal_mass < min_legal_mass)))


def uniform_priors_numpy(legal_mask: np.ndarray) -> np.ndarray:
    """Uniform distribution over each row's legal actions: ``[B, A]`` float32 (zeros if none legal).

    Raises:
        ValueError: if ``legal_mask`` is not a bool numpy array.
    """
    if not isinstance(legal_mask, np.ndarray) or legal_mask.dtype != np.bool_:
        raise ValueError(
            f"legal_mask: expected a bool numpy array, got {getattr(legal_mask, 'dtype', type(legal_mask))}"
        )
    counts = legal_mask.sum(axis=-1, keepdims=True)
    return (legal_mask / np.maximum(counts, 1)).astype(np.float32)
