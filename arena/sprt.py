"""The generalized sequential probability ratio test (GSPRT) on colour-paired games.

Sources: A. Wald, "Sequential tests of statistical hypotheses", Ann. Math. Statist. 16, 1945
(the stopping bounds); M. Van den Bergh, "A simple statistical test for chess engines" and
"Maximum likelihood estimation of a multinomial distribution with a given expectation value"
(Proposition 1.1), the generalized SPRT that fishtest and OpenBench run on pentanomial counts.

A *pair* is two games from one seeded opening, the candidate moving first in one and second in the
other (``arena.openings``). Its score is the candidate's points over the two games, 0, 1/2, 1,
3/2 or 2; per game that is ``PAIR_SCORES = (0, 1/4, 1/2, 3/4, 1)``. The *pentanomial* counts
``[5]`` are how many pairs scored each. Pairs rather than games are the independent trials: both
games of a pair share an opening (and in a game with chance the dice), so their results are
correlated and counting them as two independent games would misstate the variance.

The test, between ``H0: elo = elo0`` and ``H1: elo = elo1`` (logistic Elo, ``arena.elo``):

* ``s0, s1``: the expected per-game scores of ``elo0`` and ``elo1``,
  ``s = 1 / (1 + 10 ** (-elo / 400))``.
* ``p``: the observed pair frequencies; a count of 0 is replaced by ``REGULARIZATION`` (1e-3)
  first, as fishtest does, so that a maximum-likelihood distribution of any mean exists.
* ``q0, q1``: the maximum-likelihood distributions on ``PAIR_SCORES`` whose mean is ``s0`` (``s1``):
  ``q_i = p_i / (1 + x (a_i - s))`` with ``x`` the root of ``sum_i p_i (a_i - s) / (1 + x (a_i - s))
  = 0`` (Van den Bergh, Proposition 1.1; ``constrained_mle``).
* ``LLR = N * sum_i p_i log(q1_i / q0_i)``, ``N`` the number of pairs (regularized).
* Wald's bounds: accept H1 once ``LLR >= log((1 - beta) / alpha)``, accept H0 once
  ``LLR <= log(beta / (1 - alpha))``; with alpha = beta = 0.05, ``+-log(19) = +-2.944``.

A gate runs the test with a cap on games: a test still undecided at the cap rejects the candidate.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np
from scipy.optimize import brentq

from arena.elo import expected_score

#: per-game score of a pair whose two games scored 0, 1/2, 1, 3/2, 2 points
PAIR_SCORES = np.array([0.0, 0.25, 0.5, 0.75, 1.0])
#: what a pentanomial count of 0 becomes before the likelihoods (fishtest's regularization)
REGULARIZATION = 1e-3

ACCEPT = "accept"  # H1: the candidate is at least elo1 stronger
REJECT = "reject"  # H0: the candidate is at most elo0 stronger
CONTINUE = "continue"


def sprt_bounds(alpha: float, beta: float) -> tuple[float, float]:
    """Wald's (1945) stopping bounds ``(log(beta / (1 - alpha)), log((1 - beta) / alpha))``.

    Args:
        alpha: the false-acceptance rate wanted under H0, in (0, 1).
        beta: the false-rejection rate wanted under H1, in (0, 1), with ``alpha + beta < 1``.

    Raises:
        ValueError: for rates outside (0, 1) or ``alpha + beta >= 1``.
    """
    for label, value in (("alpha", alpha), ("beta", beta)):
        if not (isinstance(value, (int, float)) and 0.0 < value < 1.0):
            raise ValueError(f"{label}: expected a rate in (0, 1), got {value!r}")
    if alpha + beta >= 1.0:
        raise ValueError(f"alpha + beta: expected < 1, got {alpha} + {beta}")
    return math.log(beta / (1.0 - alpha)), math.log((1.0 - beta) / alpha)


def constrained_mle(frequencies, scores, mean: float) -> np.ndarray:
    """The distribution on ``scores`` nearest ``frequencies`` in likelihood whose mean is ``mean``.

    Van den Bergh, Proposition 1.1: ``q_i = p_i / (1 + x (a_i - mean))`` with ``x`` the one root of
    ``sum_i p_i (a_i - mean) / (1 + x (a_i - mean)) = 0`` in ``(-1 / (max a - mean),
    1 / (mean - min a))`` (the sum falls strictly there; Brent's method finds it).

    Args:
        frequencies: ``[K]`` float, ``p_i > 0``, summing to 1.
        scores: ``[K]`` float ``a_i``, strictly increasing.
        mean: strictly between ``scores[0]`` and ``scores[-1]``.

    Returns:
        ``[K]`` float64 ``q``, summing to 1 with ``sum q_i a_i == mean``.

    Raises:
        ValueError: for shapes that disagree, a frequency <= 0, frequencies not summing to 1,
            scores not increasing or a ``mean`` outside ``(scores[0], scores[-1])``.
    """
    p = np.asarray(frequencies, dtype=np.float64)
    a = np.asarray(scores, dtype=np.float64)
    if p.ndim != 1 or p.shape != a.shape or len(p) < 2:
        raise ValueError(f"expected frequencies and scores of one shape [K], K >= 2, got {p.shape} and {a.shape}")
    if np.any(p <= 0) or not math.isclose(float(p.sum()), 1.0, rel_tol=1e-12, abs_tol=1e-12):
        raise ValueError(f"frequencies: expected values > 0 summing to 1, got {p.tolist()}")
    if np.any(np.diff(a) <= 0):
        raise ValueError(f"scores: expected strictly increasing, got {a.tolist()}")
    if not a[0] < mean < a[-1]:
        raise ValueError(f"mean: expected in ({a[0]}, {a[-1]}), got {mean}")
    d = a - mean
    low, high = -1.0 / d[-1], -1.0 / d[0]
    margin = 1e-12 * (high - low)

    def secular(x: float) -> float:
        return float(np.sum(p * d / (1.0 + x * d)))

    x = brentq(secular, low + margin, high - margin, xtol=1e-15, rtol=4 * np.finfo(float).eps, maxiter=500)
    q = p / (1.0 + x * d)
    return q / q.sum()


def _check_pentanomial(counts) -> np.ndarray:
    c = np.asarray(counts)
    if c.shape != (5,) or not np.issubdtype(c.dtype, np.integer) or np.any(c < 0):
        raise ValueError(f"pentanomial counts: expected [5] integers >= 0, got {np.asarray(counts).tolist()!r}")
    return c.astype(np.int64)


def pentanomial_llr(counts, elo0: float, elo1: float) -> float:
    """The GSPRT log-likelihood ratio of H1 (``elo1``) over H0 (``elo0``) from pentanomial counts.

    See the module docstring for the formula. Zero pairs give 0.0.

    Args:
        counts: ``[5]`` int, pairs that scored 0, 1/2, 1, 3/2 and 2 points for the candidate.
        elo0, elo1: logistic Elo bounds (``arena.elo``), ``elo0 < elo1``.

    Returns:
        The LLR (natural log), > 0 where the data favour ``elo1``.

    Raises:
        ValueError: for counts that are not ``[5]`` integers >= 0, or ``elo0 >= elo1``.
    """
    c = _check_pentanomial(counts)
    if not (math.isfinite(elo0) and math.isfinite(elo1) and elo0 < elo1):
        raise ValueError(f"Elo bounds: expected finite elo0 < elo1, got {elo0} and {elo1}")
    if c.sum() == 0:
        return 0.0
    regularized = np.where(c == 0, REGULARIZATION, c.astype(np.float64))
    num_pairs = float(regularized.sum())
    p = regularized / num_pairs
    q0 = constrained_mle(p, PAIR_SCORES, expected_score(elo0))
    q1 = constrained_mle(p, PAIR_SCORES, expected_score(elo1))
    return float(num_pairs * np.sum(p * (np.log(q1) - np.log(q0))))


def pair_index(points: float) -> int:
    """Pentanomial index 0-4 of a pair in which the candidate scored ``points`` (0, 0.5, ..., 2).

    Raises:
        ValueError: for anything else.
    """
    index = 2.0 * points
    if index not in (0.0, 1.0, 2.0, 3.0, 4.0):
        raise ValueError(f"pair points: expected one of 0, 0.5, 1, 1.5, 2, got {points!r}")
    return int(index)


@dataclass(frozen=True)
class SPRTConfig:
    """The sequential gate's settings (``arena.sprt_*`` of the training config).

    Attributes:
        elo0, elo1: logistic Elo of H0 (reject) and H1 (accept), ``elo0 < elo1``.
        alpha, beta: Wald's error rates.
        max_games: the cap; a test undecided once this many games are played rejects. Even, >= 2.
        pairs_per_look: pairs played (in one batch) between two looks at the LLR, >= 1.
    """

    elo0: float = 0.0
    # 50, not 10: within a 400-game cap [0, 10] seldom promotes even a clearly stronger candidate
    # (scripts/sprt_operating_curve.py; docs/results.md, "Promotion gates at equal strength")
    elo1: float = 50.0
    alpha: float = 0.05
    beta: float = 0.05
    max_games: int = 400
    pairs_per_look: int = 10

    def __post_init__(self) -> None:
        if not (math.isfinite(self.elo0) and math.isfinite(self.elo1) and self.elo0 < self.elo1):
            raise ValueError(f"sprt Elo bounds: expected finite elo0 < elo1, got {self.elo0} and {self.elo1}")
        sprt_bounds(self.alpha, self.beta)
        if isinstance(self.max_games, bool) or not isinstance(self.max_games, int) or self.max_games < 2 or self.max_games % 2:
            raise ValueError(f"sprt max_games: expected an even integer >= 2, got {self.max_games!r}")
        if isinstance(self.pairs_per_look, bool) or not isinstance(self.pairs_per_look, int) or self.pairs_per_look < 1:
            raise ValueError(f"sprt pairs_per_look: expected an integer >= 1, got {self.pairs_per_look!r}")

    @property
    def bounds(self) -> tuple[float, float]:
        """``(lower, upper)``: ``sprt_bounds(alpha, beta)``."""
        return sprt_bounds(self.alpha, self.beta)


def sprt_decision(counts, config: SPRTConfig) -> tuple[float, str]:
    """``(LLR, decision)`` after the pairs counted so far.

    ``ACCEPT`` once the LLR reaches the upper bound, ``REJECT`` once it reaches the lower one or
    once ``2 * pairs >= config.max_games`` (the cap: undecided means rejected), else ``CONTINUE``.

    Raises:
        ValueError: as ``pentanomial_llr``.
    """
    c = _check_pentanomial(counts)
    llr = pentanomial_llr(c, config.elo0, config.elo1)
    lower, upper = config.bounds
    if llr >= upper:
        return llr, ACCEPT
    if llr <= lower or 2 * int(c.sum()) >= config.max_games:
        return llr, REJECT
    return llr, CONTINUE
