"""Prior masking, root Dirichlet noise and the final move choice by temperature.

All functions are vectorised over a leading batch axis and draw randomness only from the
``numpy.random.Generator`` passed in.
"""

from __future__ import annotations

import numpy as np

#: Temperatures below this choose greedily (most visits, lowest action index on ties).
GREEDY_TEMPERATURE = 1e-3


def check_rng(rng) -> None:
    """Raise ValueError unless ``rng`` is a ``numpy.random.Generator``."""
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"expected a numpy.random.Generator, got {type(rng).__name__}")  # noqa: TRY004


def mask_priors(priors: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """Mask and renormalise priors over legal actions.

    Illegal actions get exactly 0, then each row is divided by its legal mass. A row is
    *degenerate* when its legal mass is not a positive finite number, or a legal entry is
    negative or non-finite (e.g. a one-hot prior on an occupied cell); such a row falls
    back to the uniform distribution over its legal actions. Rows with no legal action (terminal
    states) come back all zero and are not counted as degenerate.

    Args:
        priors: ``[B, A]`` float, the evaluator's probabilities (need not be normalised).
        legal_mask: ``[B, A]`` bool, True = legal.

    Returns:
        ``(masked [B, A] float32, degenerate [B] bool)``.

    Raises:
        ValueError: if the shapes differ or are not two-dimensional.
    """
    priors = np.asarray(priors)
    legal_mask = np.asarray(legal_mask, dtype=bool)
    if priors.ndim != 2 or priors.shape != legal_mask.shape:
        raise ValueError(
            f"expected priors and legal_mask of one shape [B, A], got {priors.shape} and {legal_mask.shape}"
        )
    p = priors.astype(np.float64)
    bad_entry = legal_mask & ~(np.isfinite(p) & (p >= 0.0))
    masked = np.where(legal_mask & ~bad_entry, p, 0.0)
    total = masked.sum(axis=1)
    has_legal = legal_mask.any(axis=1)
    degenerate = has_legal & (bad_entry.any(axis=1) | ~np.isfinite(total) | (total <= 0.0))
    num_legal = legal_mask.sum(axis=1)
    uniform = legal_mask / np.maximum(num_legal, 1)[:, None]
    with np.errstate(invalid="ignore", divide="ignore"):
        normalised = masked / total[:, None]
    out = np.where(degenerate[:, None], uniform, np.where(has_legal[:, None], normalised, 0.0))
    out = np.where(legal_mask, out, 0.0)
    return out.astype(np.float32), degenerate


def dirichlet_noise(legal_mask: np.ndarray, alpha: float, rng: np.random.Generator) -> np.ndarray:
    """One Dirichlet(alpha, ..., alpha) draw per row over that row's legal actions only.

    Drawn as independent Gamma(alpha, 1) variables normalised over the legal actions (the
    standard construction of the Dirichlet distribution), so rows with different numbers of legal
    moves are handled in one vectorised call. Illegal actions get exactly 0.

    Args:
        legal_mask: ``[B, A]`` bool, True = legal; every row needs a legal action.
        alpha: concentration, > 0 (AlphaZero: 0.3 chess, 0.15 shogi, 0.03 Go; Silver et al. 2018).
        rng: the generator every draw comes from.

    Returns:
        ``[B, A]`` float64, each row sums to 1 over its legal actions.

    Raises:
        ValueError: if ``alpha`` <= 0, the mask is not ``[B, A]``, a row has no legal action, or
            ``rng`` is not a ``numpy.random.Generator``.
    """
    check_rng(rng)
    legal_mask = np.asarray(legal_mask, dtype=bool)
    if not alpha > 0:
        raise ValueError(f"expected dirichlet alpha > 0, got {alpha}")
    if legal_mask.ndim != 2:
        raise ValueError(f"expected legal_mask of shape [B, A], got {legal_mask.shape}")
    if not legal_mask.any(axis=1).all():
        raise ValueError(f"rows {np.flatnonzero(~legal_mask.any(axis=1)).tolist()} have no legal action")
    gamma = np.where(legal_mask, rng.standard_gamma(alpha, size=legal_mask.shape), 0.0)
    total = gamma.sum(axis=1, keepdims=True)
    # Underflow of every gamma draw (possible only for tiny alpha) falls back to uniform.
    uniform = legal_mask / legal_mask.sum(axis=1, keepdims=True)
    with np.errstate(invalid="ignore", divide="ignore"):
        noise = np.where(total > 0, gamma / total, uniform)
    return noise


def add_dirichlet_noise(
    priors: np.ndarray, legal_mask: np.ndarray, alpha: float, epsilon: float, rng: np.random.Generator
) -> np.ndarray:
    """Root exploration noise: ``(1 - epsilon) * P + epsilon * Dir(alpha)`` over legal actions.

    Source: Silver et al. 2018, supplementary pseudocode ``add_exploration_noise``.

    Args:
        priors: ``[B, A]`` masked priors (0 on illegal actions).
        legal_mask: ``[B, A]`` bool.
        alpha: Dirichlet concentration, > 0.
        epsilon: mixing weight in ``[0, 1]``.
        rng: the generator every draw comes from.

    Returns:
        ``[B, A]`` float32, exactly 0 on illegal actions, rows sum to 1.

    Raises:
        ValueError: for ``epsilon`` outside ``[0, 1]`` and as ``dirichlet_noise``.
    """
    if not 0.0 <= epsilon <= 1.0:
        raise ValueError(f"expected dirichlet epsilon in [0, 1], got {epsilon}")
    noise = dirichlet_noise(legal_mask, alpha, rng)
    mixed = (1.0 - epsilon) * np.asarray(priors, dtype=np.float64) + epsilon * noise
    return np.where(legal_mask, mixed, 0.0).astype(np.float32)


def select_actions(
    visit_counts: np.ndarray,
    temperature: float | np.ndarray,
    rng: np.random.Generator,
    break_ties: bool = False,
) -> np.ndarray:
    """Choose one action per row from root visit counts at a temperature.

    Row ``b`` samples ``a`` with probability ``N(a)^(1/T) / sum_b N(b)^(1/T)`` (Silver et al. 2017,
    "Mastering the game of Go without human knowledge", Methods: self-play), computed in log space
    (``exp((log N - max log N) / T)``) so that large counts at small ``T`` never overflow or give
    NaN (counts [800, 799] at temperature 0.001 stay finite: the powers are taken in log space).
    Rows with ``T < GREEDY_TEMPERATURE`` take the most visited action: with ``break_ties=False``
    the lowest index among equally visited ones, using no randomness (the deterministic rule, for
    the engine protocol); with ``break_ties=True`` one of them uniformly at random from ``rng``
    (self-play and seeded arena games: an untrained network leaves many positions with tied
    counts, and the lowest index would always play the same of them). Actions with zero visits
    are never chosen.

    Args:
        visit_counts: ``[B, A]`` non-negative counts (int or float).
        temperature: a float or ``[B]`` floats, each >= 0.
        rng: the generator for sampled rows (one uniform draw per call when any row samples) and,
            with ``break_ties``, for the greedy rows (one draw per greedy row and action).
        break_ties: break ties between the most visited actions of greedy rows at random.

    Returns:
        ``[B]`` int64 actions.

    Raises:
        ValueError: if counts are not ``[B, A]``, negative or non-finite, a row sums to 0, a
            temperature is negative, non-finite or of the wrong shape, or ``rng`` is not a
            ``numpy.random.Generator``.
    """
    check_rng(rng)
    counts = np.asarray(visit_counts, dtype=np.float64)
    if counts.ndim != 2:
        raise ValueError(f"expected visit_counts of shape [B, A], got {counts.shape}")
    if not np.all(np.isfinite(counts)) or np.any(counts < 0):
        raise ValueError("expected finite non-negative visit counts")
    if np.any(counts.sum(axis=1) <= 0):
        raise ValueError(f"rows {np.flatnonzero(counts.sum(axis=1) <= 0).tolist()} have no visits")
    batch = counts.shape[0]
    temps = np.asarray(temperature, dtype=np.float64)
    if temps.ndim == 0:
        temps = np.full(batch, float(temps))
    if temps.shape != (batch,):
        raise ValueError(f"expected a float or temperatures of shape [{batch}], got {temps.shape}")
    if not np.all(np.isfinite(temps)) or np.any(temps < 0):
        raise ValueError(f"expected finite temperatures >= 0, got {temps.tolist()}")
    actions = np.argmax(counts, axis=1).astype(np.int64)
    sample = temps >= GREEDY_TEMPERATURE
    greedy = ~sample
    if break_ties and np.any(greedy):
        actions[greedy] = argmax_random_ties(counts[greedy], rng)
    if np.any(sample):
        c = counts[sample]
        with np.errstate(divide="ignore"):
            log_counts = np.log(c)
        logits = (log_counts - log_counts.max(axis=1, keepdims=True)) / temps[sample][:, None]
        probs = np.exp(logits)  # exp(-inf) == 0 for unvisited actions
        cdf = np.cumsum(probs, axis=1)
        threshold = rng.random(c.shape[0]) * cdf[:, -1]
        actions[sample] = np.argmax(cdf > threshold[:, None], axis=1)
    return actions


def argmax_random_ties(values: np.ndarray, rng: np.random.Generator) -> np.ndarray:
    """Per row, the index of the largest entry, ties broken uniformly at random.

    Args:
        values: ``[B, A]`` finite numbers (visit counts, say).
        rng: one uniform draw per entry.

    Returns:
        ``[B]`` int64 indices.
    """
    values = np.asarray(values)
    is_max = values == values.max(axis=1, keepdims=True)
    keys = np.where(is_max, rng.random(values.shape), -1.0)
    return np.argmax(keys, axis=1).astype(np.int64)


def visit_policy(visit_counts: np.ndarray) -> np.ndarray:
    """Normalised visit counts, the AlphaZero policy target: ``[B, A]`` float32, rows sum to 1.

    Raises:
        ValueError: if a row has no visits.
    """
    counts = np.asarray(visit_counts, dtype=np.float64)
    total = counts.sum(axis=-1, keepdims=True)
    if np.any(total <= 0):
        raise ValueError("every row needs at least one visit")
    return (counts / total).astype(np.float32)


def completed_q_policy(
    priors: np.ndarray,
    legal_mask: np.ndarray,
    q_values: np.ndarray,
    visit_counts: np.ndarray,
    raw_values: np.ndarray,
    c_visit: float = 50.0,
    c_scale: float = 0.1,
    rescale_values: bool = True,
) -> np.ndarray:
    """Improved policy target ``softmax(log P + sigma(completed Q))`` over legal actions.

    Source: Danihelka et al. 2022, "Policy improvement by planning with Gumbel" (ICLR), eq. 11
    and appendix D, as implemented in mctx ``qtransform_completed_by_mix_value``:

    * unvisited actions get the *mixed value*
      ``(v_hat + sum_b N(b) * sum_{N(a)>0} P(a) Q(a) / sum_{N(a)>0} P(a)) / (1 + sum_b N(b))``
      where ``v_hat`` is the evaluator's value of the root;
    * completed Q is rescaled to ``[0, 1]`` by its min and max over legal actions
      (``rescale_values``; pass False for Q values that are already normalised);
    * ``sigma(q) = (c_visit + max_b N(b)) * c_scale * q``.

    Worked example: priors ``[0.5, 0.3, 0.2]``, visits ``[3, 1, 0]``, normalised Q
    ``[0.50, 0.56, -]``, root value 0.50 give the mixed value 0.518, completed Q
    ``[0.50, 0.56, 0.518]`` and, without rescaling, ``c_visit = 50``, ``c_scale = 1``, the policy
    ``[0.060729, 0.876207, 0.063063]`` (``c_scale = 0.1``: ``[0.441566, 0.364127, 0.194307]``).

    Args:
        priors: ``[B, A]`` masked root priors (before noise), 0 on illegal actions.
        legal_mask: ``[B, A]`` bool, True = legal; every row needs a legal action.
        q_values: ``[B, A]`` Q from the root player's view, NaN (or anything) where unvisited.
        visit_counts: ``[B, A]`` root children visits.
        raw_values: ``[B]`` the evaluator's value of each root (root player's view).
        c_visit: ``c_visit`` of the paper (mctx ``maxvisit_init``), >= 0.
        c_scale: ``c_scale`` of the paper (mctx ``value_scale``), >= 0.
        rescale_values: min-max rescale completed Q over the legal actions (mctx
            ``rescale_values``, the default); False takes Q as already normalised.

    Returns:
        ``[B, A]`` float32: exactly 0 on illegal actions, finite, rows sum to 1.

    Raises:
        ValueError: if shapes disagree, a row has no legal action, or a constant is negative.
    """
    legal = np.asarray(legal_mask, dtype=bool)
    shape = legal.shape
    arrays = {"priors": priors, "q_values": q_values, "visit_counts": visit_counts}
    for name, array in arrays.items():
        if np.shape(array) != shape:
            raise ValueError(f"expected {name} of shape {shape}, got {np.shape(array)}")
    if np.shape(raw_values) != shape[:1]:
        raise ValueError(f"expected raw_values of shape {shape[:1]}, got {np.shape(raw_values)}")
    if not legal.any(axis=1).all():
        raise ValueError(f"rows {np.flatnonzero(~legal.any(axis=1)).tolist()} have no legal action")
    if c_visit < 0 or c_scale < 0:
        raise ValueError(f"expected c_visit and c_scale >= 0, got {c_visit} and {c_scale}")
    safe_p, sigma = completed_q_sigma(priors, legal, q_values, visit_counts, raw_values, c_visit, c_scale, rescale_values)
    with np.errstate(divide="ignore"):
        logits = np.where(legal, np.log(safe_p) + sigma, -np.inf)
    logits = logits - logits.max(axis=1, keepdims=True)
    weights = np.exp(logits)
    return (weights / weights.sum(axis=1, keepdims=True)).astype(np.float32)


def completed_q_sigma(
    priors, legal, q_values, visit_counts, raw_values, c_visit: float, c_scale: float, rescale_values: bool = True
) -> tuple[np.ndarray, np.ndarray]:
    """``(P floored at the float32 tiny [B, A] float64, sigma(completed Q) [B, A] float64)``, the two
    terms of ``completed_q_policy`` (inputs unchecked; see there). Gumbel root selection
    (``mcts.gumbel``) adds ``sigma`` to the Gumbel draw and the prior logits."""
    legal = np.asarray(legal, dtype=bool)
    p = np.where(legal, np.asarray(priors, dtype=np.float64), 0.0)
    n = np.asarray(visit_counts, dtype=np.float64)
    visited = legal & (n > 0)
    q = np.where(visited, np.nan_to_num(np.asarray(q_values, dtype=np.float64)), 0.0)
    total_visits = n.sum(axis=1)
    safe_p = np.maximum(p, np.finfo(np.float32).tiny)
    visited_mass = np.where(visited, safe_p, 0.0).sum(axis=1)
    with np.errstate(invalid="ignore", divide="ignore"):
        weighted_q = np.where(visited_mass > 0, np.where(visited, safe_p * q, 0.0).sum(axis=1) / visited_mass, 0.0)
    mixed = (np.asarray(raw_values, dtype=np.float64) + total_visits * weighted_q) / (total_visits + 1.0)
    completed = np.where(visited, q, mixed[:, None])
    if rescale_values:
        low = np.where(legal, completed, np.inf).min(axis=1, keepdims=True)
        high = np.where(legal, completed, -np.inf).max(axis=1, keepdims=True)
        completed = (completed - low) / np.maximum(high - low, 1e-8)
    sigma = (c_visit + n.max(axis=1, keepdims=True)) * c_scale * completed
    return safe_p, np.where(legal, sigma, 0.0)


def improved_policy(output, c_visit: float = 50.0, c_scale: float = 0.1) -> np.ndarray:
    """``completed_q_policy`` of a ``SearchOutput`` (raw root priors, root evaluator values).

    Returns ``[B, A]`` float32. Raises ValueError as ``completed_q_policy``.
    """
    tree = output.tree
    return completed_q_policy(
        output.root_raw_priors, tree.children_legal[:, 0], output.q_values, output.visit_counts,
        tree.node_raw_value[:, 0], c_visit, c_scale,
    )
