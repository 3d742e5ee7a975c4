"""Prior masking in compiled code: ``mcts.policy.mask_priors`` row by row, the same floats.

``mask_priors`` sums each row's legal mass with numpy, whose ``sum`` along a contiguous axis adds
in a pairwise order (eight accumulators per block of up to 128 entries); ``pairwise_sum`` adds in
that order, so the compiled masking here gives the same float32 priors to the last bit, and a
search that uses it the same visit counts (tests/test_mcts_regression.py,
tests/test_single_position_search.py). Used by ``mcts.evaluators.evaluate_leaves``, the
one-root search of ``mcts.single`` and Gumbel's root choice (``mcts.gumbel``).
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

from mcts.policy import mask_priors

#: most actions of a game the compiled masking sums in numpy's order (one block of its pairwise
#: summation); games with more take the batched loop
MAX_ACTIONS = 128


@njit(cache=True)
def pairwise_sum(values, count, zero):  # pragma: no cover - compiled
    """``values[:count].sum()`` of a float64 or float32 vector, ``count <= MAX_ACTIONS``, in numpy's
    order (one block of its pairwise summation: eight accumulators), so the result is the same float
    as numpy's ``sum`` along a contiguous axis. ``zero``: ``0.0`` for a float64 vector,
    ``np.float32(0.0)`` for float32 arithmetic (Numba compiles one version for each)."""
    if count < 8:
        total = zero
        for i in range(count):
            total += values[i]
        return total
    r0, r1, r2, r3 = values[0], values[1], values[2], values[3]
    r4, r5, r6, r7 = values[4], values[5], values[6], values[7]
    i = 8
    while i < count - (count % 8):
        r0 += values[i]
        r1 += values[i + 1]
        r2 += values[i + 2]
        r3 += values[i + 3]
        r4 += values[i + 4]
        r5 += values[i + 5]
        r6 += values[i + 6]
        r7 += values[i + 7]
        i += 8
    total = ((r0 + r1) + (r2 + r3)) + ((r4 + r5) + (r6 + r7))
    while i < count:
        total += values[i]
        i += 1
    return total


@njit(cache=True)
def mask_prior_row(priors, legal, out, scratch):  # pragma: no cover - compiled
    """``mcts.policy.mask_priors`` of one row, into ``out`` (``[A]`` float32); returns whether the
    row is degenerate (uniform over the legal actions instead). ``scratch``: ``[A]`` float64."""
    num_actions = legal.shape[0]
    num_legal = 0
    bad_entry = False
    for a in range(num_actions):
        scratch[a] = 0.0
        if legal[a]:
            num_legal += 1
            p = np.float64(priors[a])
            if math.isfinite(p) and p >= 0.0:
                scratch[a] = p
            else:
                bad_entry = True
    total = pairwise_sum(scratch, num_actions, 0.0)
    degenerate = num_legal > 0 and (bad_entry or not math.isfinite(total) or total <= 0.0)
    for a in range(num_actions):
        if not legal[a]:
            out[a] = 0.0
        elif degenerate:
            out[a] = 1.0 / num_legal
        else:
            out[a] = scratch[a] / total
    return degenerate


@njit(cache=True)
def mask_prior_rows(priors, legal, out, degenerate):  # pragma: no cover - compiled
    """``mcts.policy.mask_priors`` of ``[N, A]`` rows into ``out`` (``[N, A]`` float32) and
    ``degenerate`` (``[N]`` bool), the same floats; ``A <= MAX_ACTIONS``."""
    scratch = np.empty(priors.shape[1], dtype=np.float64)
    for row in range(priors.shape[0]):
        degenerate[row] = mask_prior_row(priors[row], legal[row], out[row], scratch)


def mask_priors_fast(priors: np.ndarray, legal: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """``mcts.policy.mask_priors`` (same output, same errors), compiled for ``A <= MAX_ACTIONS``
    real-valued priors."""
    priors = np.asarray(priors)
    legal = np.asarray(legal)
    if (
        priors.ndim != 2 or priors.shape != legal.shape or legal.dtype != np.bool_ or priors.shape[1] > MAX_ACTIONS
        or priors.dtype.kind != "f"
    ):
        return mask_priors(priors, legal)
    out = np.empty(priors.shape, dtype=np.float32)
    degenerate = np.empty(priors.shape[0], dtype=np.bool_)
    mask_prior_rows(priors, legal, out, degenerate)
    return out, degenerate
