"""The generalized SPRT on pentanomial counts (arena/sprt.py): exact likelihood ratios and bounds."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.optimize import minimize

from arena.elo import expected_score
from arena.sprt import (
    ACCEPT,
    CONTINUE,
    PAIR_SCORES,
    REJECT,
    SPRTConfig,
    constrained_mle,
    pair_index,
    pentanomial_llr,
    sprt_bounds,
    sprt_decision,
)


def _mle_by_numerical_optimisation(p: np.ndarray, mean: float) -> np.ndarray:
    """The constrained maximum-likelihood distribution found by SLSQP: an independent route."""
    constraints = [
        {"type": "eq", "fun": lambda q: q.sum() - 1.0},
        {"type": "eq", "fun": lambda q: q @ PAIR_SCORES - mean},
    ]
    result = minimize(
        lambda q: -float(np.sum(p * np.log(q))), p, constraints=constraints, bounds=[(1e-12, 1.0)] * 5,
        method="SLSQP", options={"ftol": 1e-15, "maxiter": 1000},
    )
    return result.x


def test_wald_bounds_are_log_beta_over_one_minus_alpha_and_log_one_minus_beta_over_alpha():
    lower, upper = sprt_bounds(0.05, 0.05)
    assert lower == pytest.approx(-math.log(19.0), abs=1e-15) and upper == pytest.approx(math.log(19.0), abs=1e-15)
    assert upper == pytest.approx(2.944438979166440)
    lower, upper = sprt_bounds(0.05, 0.10)
    assert lower == pytest.approx(math.log(0.10 / 0.95)) and upper == pytest.approx(math.log(0.90 / 0.05))
    with pytest.raises(ValueError, match=r"alpha: expected a rate in \(0, 1\), got 0.0"):
        sprt_bounds(0.0, 0.05)
    with pytest.raises(ValueError, match="alpha \\+ beta: expected < 1, got 0.5 \\+ 0.5"):
        sprt_bounds(0.5, 0.5)


def test_constrained_mle_on_two_scores_is_the_bernoulli_of_that_mean_whatever_the_data():
    np.testing.assert_allclose(constrained_mle([0.3, 0.7], [0.0, 1.0], 0.6), [0.4, 0.6], atol=1e-12)
    np.testing.assert_allclose(constrained_mle([0.9, 0.1], [0.0, 1.0], 0.25), [0.75, 0.25], atol=1e-12)


def test_constrained_mle_keeps_data_whose_mean_is_already_the_target():
    p = np.array([0.1, 0.2, 0.4, 0.2, 0.1])  # mean exactly 1/2
    np.testing.assert_allclose(constrained_mle(p, PAIR_SCORES, 0.5), p, atol=1e-12)


def test_pentanomial_llr_matches_a_numerically_optimised_likelihood_ratio():
    counts = np.array([1, 3, 7, 5, 4])  # 20 pairs, candidate scored 0.6 per game
    p = counts / counts.sum()
    q0 = _mle_by_numerical_optimisation(p, expected_score(0.0))
    q1 = _mle_by_numerical_optimisation(p, expected_score(10.0))
    independent = 20 * float(np.sum(p * np.log(q1 / q0)))
    assert pentanomial_llr(counts, 0.0, 10.0) == pytest.approx(independent, abs=1e-6)
    assert pentanomial_llr(counts, 0.0, 10.0) == pytest.approx(0.31165788678028, abs=1e-10)
    np.testing.assert_allclose(constrained_mle(p, PAIR_SCORES, 0.5), q0, atol=1e-6)


def test_pentanomial_llr_signs_exact_values_and_the_zero_count_regularization():
    assert pentanomial_llr([0, 0, 0, 0, 0], 0.0, 10.0) == 0.0
    # a score of exactly 1/2 (elo0) favours H0
    assert pentanomial_llr([0, 2, 10, 2, 0], 0.0, 10.0) == pytest.approx(-0.08032076073704657, abs=1e-10)
    assert pentanomial_llr([0, 0, 10, 0, 0], 0.0, 10.0) == pytest.approx(-0.28579586201902973, abs=1e-10)
    # 110 pairs won 2-0: each adds about log(s1 / s0) = 0.0284 (zero counts become 1e-3, fishtest's rule)
    assert pentanomial_llr([0, 0, 0, 0, 110], 0.0, 10.0) == pytest.approx(3.1205535113301828, abs=1e-9)
    assert pentanomial_llr([0, 0, 0, 0, 110], 0.0, 10.0) == pytest.approx(
        110 * math.log(expected_score(10.0) / 0.5), rel=0.01
    )


@settings(max_examples=40, deadline=None)
@given(st.lists(st.integers(0, 30), min_size=5, max_size=5))
def test_swapping_the_sides_mirrors_the_counts_and_the_hypotheses(counts):
    """The candidate's LLR for [elo0, elo1] is the opponent's for [-elo1, -elo0] with the sign flipped."""
    forward = pentanomial_llr(counts, 0.0, 10.0)
    mirrored = pentanomial_llr(counts[::-1], -10.0, 0.0)
    assert forward == pytest.approx(-mirrored, abs=1e-7)


def test_sprt_decision_accepts_rejects_and_rejects_at_the_cap():
    config = SPRTConfig(elo0=0.0, elo1=10.0, max_games=1000)
    assert sprt_decision([0, 0, 0, 0, 110], config)[1] == ACCEPT
    assert sprt_decision([0, 0, 0, 0, 100], config)[1] == CONTINUE
    assert sprt_decision([0, 0, 110, 0, 0], config)[1] == REJECT
    capped = SPRTConfig(elo0=0.0, elo1=10.0, max_games=40)
    llr, decision = sprt_decision([3, 0, 0, 0, 17], capped)  # 40 games: undecided means rejected
    assert decision == REJECT and 0.0 < llr < capped.bounds[1]


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ([1, 2, 3], r"pentanomial counts: expected \[5\] integers >= 0, got \[1, 2, 3\]"),
        ([1, 2, 3, 4, -1], r"pentanomial counts: expected \[5\] integers >= 0, got \[1, 2, 3, 4, -1\]"),
        ([0.5, 2, 3, 4, 1], r"pentanomial counts: expected \[5\] integers >= 0"),
    ],
)
def test_bad_pentanomial_counts_are_refused(counts, message):
    with pytest.raises(ValueError, match=message):
        pentanomial_llr(counts, 0.0, 10.0)


def test_bad_settings_and_pair_points_are_refused_with_what_was_expected():
    with pytest.raises(ValueError, match="expected finite elo0 < elo1, got 10.0 and 0.0"):
        pentanomial_llr([1, 1, 1, 1, 1], 10.0, 0.0)
    with pytest.raises(ValueError, match="max_games: expected an even integer >= 2, got 41"):
        SPRTConfig(max_games=41)
    with pytest.raises(ValueError, match="pairs_per_look: expected an integer >= 1, got 0"):
        SPRTConfig(pairs_per_look=0)
    with pytest.raises(ValueError, match=r"mean: expected in \(0.0, 1.0\), got 1.0"):
        constrained_mle([0.5, 0.5], [0.0, 1.0], 1.0)
    assert [pair_index(x) for x in (0, 0.5, 1, 1.5, 2)] == [0, 1, 2, 3, 4]
    with pytest.raises(ValueError, match="pair points: expected one of 0, 0.5, 1, 1.5, 2, got 2.5"):
        pair_index(2.5)
