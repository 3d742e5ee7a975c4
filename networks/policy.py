"""Masked softmax over legal actions, in torch.

Illegal actions are removed by filling their logits with ``-inf`` before the softmax, never by
multiplying logits by the mask: a multiplied-out logit becomes 0, which still takes probability
``exp(0) / Z`` (multiplying the logits by the mask would be wrong: logits ``[2, 1, 0.5]``, legal ``[1, 0, 1]`` give ``[0.8176, 0, 0.1824]``;
multiplying gives ``[0.7361, 0.0996, 0.1643]``, with mass on the illegal action). The softmax is shifted by
the largest *legal* logit, so a row whose legal logits are all ``-1000`` (a network that put all its
mass on illegal moves, e.g. a one-hot prior on an occupied cell) still gives the uniform distribution over legal actions.

A row with no legal action (a finished game) gives probabilities all 0 and log-probabilities all
``ILLEGAL_LOG_PROB``; nothing is NaN. Gradients reaching illegal logits are exactly 0 (the fill
blocks them), which the policy loss relies on (raising illegal logits changes neither loss nor gradient).

The numpy twins live in :mod:`networks.policy_numpy` so ONNX Runtime code paths need no torch.
"""

from __future__ import annotations

import math

import torch

from networks.policy_numpy import DEGENERATE_LEGAL_MASS


def _check(logits: torch.Tensor, legal_mask: torch.Tensor) -> None:
    if not isinstance(logits, torch.Tensor) or not isinstance(legal_mask, torch.Tensor):
        raise ValueError(
            f"expected torch tensors, got logits {type(logits).__name__} "
            f"and legal_mask {type(legal_mask).__name__}"
        )
    if logits.shape != legal_mask.shape or logits.dim() < 1:
        raise ValueError(
            f"legal_mask: expected the shape of logits {list(logits.shape)}, got {list(legal_mask.shape)}"
        )
    if legal_mask.dtype != torch.bool:
        raise ValueError(f"legal_mask: expected dtype torch.bool (True = legal), got {legal_mask.dtype}")
    if not logits.is_floating_point():
        raise ValueError(f"logits: expected a floating dtype, got {logits.dtype}")


def _filled(logits: torch.Tensor, legal_mask: torch.Tensor) -> torch.Tensor:
    """float32 logits with illegal entries at -inf; rows without a legal action are left whole."""
    any_legal = legal_mask.any(dim=-1, keepdim=True)
    # A row with no legal action keeps its logits so that log_softmax stays finite; the caller
    # overwrites the whole row afterwards.
    keep = legal_mask | ~any_legal
    return logits.float().masked_fill(~keep, float("-inf"))


def masked_softmax(logits: torch.Tensor, legal_mask: torch.Tensor) -> torch.Tensor:
    """Softmax over the legal actions of each row.

    Args:
        logits: ``[..., A]`` floating tensor (any float dtype; computed in float32).
        legal_mask: ``[..., A]`` bool tensor, True = legal.

    Returns:
        ``[..., A]`` float32 probabilities: exactly 0 on illegal actions, summing to 1 over the legal
        actions of each row (all 0 for a row without a legal action); finite everywhere.

    Raises:
        ValueError: if the shapes differ, ``legal_mask`` is not bool, or ``logits`` is not floating.
    """
    _check(logits, legal_mask)
    probs = torch.softmax(_filled(logits, legal_mask), dim=-1)
    return probs.masked_fill(~legal_mask, 0.0)


#: Log-probability given to illegal actions by :func:`masked_log_softmax`: the most negative
#: finite float32, so ``exp`` of it is exactly 0 and ``0 * ILLEGAL_LOG_PROB`` is 0, not NaN.
ILLEGAL_LOG_PROB = torch.finfo(torch.float32).min


def masked_log_softmax(logits: torch.Tensor, legal_mask: torch.Tensor) -> torch.Tensor:
    """Log-softmax over the legal actions of each row.

    Args:
        logits: ``[..., A]`` floating tensor (computed in float32).
        legal_mask: ``[..., A]`` bool tensor, True = legal.

    Returns:
        ``[..., A]`` float32 log-probabilities. Illegal entries hold ``ILLEGAL_LOG_PROB`` (finite,
        and ``exp`` gives exactly 0) rather than ``-inf``, so a cross-entropy
        ``-(target * log_probs).sum(-1)`` with a target that is 0 on illegal actions is finite and
        passes exactly zero gradient to illegal logits. Finite everywhere.

    Raises:
        ValueError: if the shapes differ, ``legal_mask`` is not bool, or ``logits`` is not floating.
    """
    _check(logits, legal_mask)
    log_probs = torch.log_softmax(_filled(logits, legal_mask), dim=-1)
    return log_probs.masked_fill(~legal_mask, ILLEGAL_LOG_PROB)


def count_degenerate_priors(
    logits: torch.Tensor, legal_mask: torch.Tensor, min_legal_mass: float = DEGENERATE_LEGAL_MASS
) -> int:
    """Rows whose unmasked softmax puts less than ``min_legal_mass`` on the legal actions.

    Such a network is almost sure of an illegal move (a one-hot prior on an occupied cell); masking still yields a valid
    prior, but the event is worth counting and logging. Rows without a legal action are not
    counted.

    Args:
        logits: ``[..., A]`` floating tensor.
        legal_mask: ``[..., A]`` bool tensor, True = legal.
        min_legal_mass: threshold in (0, 1).

    Returns:
        The number of degenerate rows (a Python int; synchronises with the device).

    Raises:
        ValueError: as :func:`masked_softmax`, or if ``min_legal_mass`` is not in (0, 1).
    """
    _check(logits, legal_mask)
    if not 0.0 < min_legal_mass < 1.0:
        raise ValueError(f"min_legal_mass: expected a value in (0, 1), got {min_legal_mass}")
    logits = logits.double()  # as the numpy twin, so both agree at the threshold
    any_legal = legal_mask.any(dim=-1)
    legal_lse = torch.logsumexp(logits.masked_fill(~legal_mask, float("-inf")), dim=-1)
    all_lse = torch.logsumexp(logits, dim=-1)
    degenerate = any_legal & ((legal_lse - all_lse) < math.log(min_legal_mass))
    return int(degenerate.sum().item())
