"""Match statistics and Bradley-Terry ladder fits; the statistics of an all-draw match."""

from __future__ import annotations

import math

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from scipy.stats import binomtest

from arena.elo import (
    elo_from_score,
    expected_score,
    fit_bradley_terry,
    mcnemar_p_value,
    mcnemar_p_value_bound,
    mcnemar_test,
    match_statistics,
    wilson_interval,
)


def test_all_draws_score_half_elo_zero_without_dividing_by_zero():
    # forty draws and nothing else: (W, L, D) = (0, 0, 40)
    stats = match_statistics(wins=0, draws=40, losses=0)
    assert stats.score == 0.5
    assert stats.elo == 0.0
    assert stats.num_games == 40
    low, high = stats.score_ci
    assert 0.0 < low < 0.5 < high < 1.0
    assert low == pytest.approx(1.0 - high)
    assert stats.elo_ci[0] == pytest.approx(-stats.elo_ci[1])
    assert all(math.isfinite(v) for v in stats.elo_ci)


def test_six_wins_four_losses_thirty_draws():
    stats = match_statistics(wins=6, draws=30, losses=4)
    assert stats.score == pytest.approx(0.525)
    assert stats.elo == pytest.approx(400 * math.log10(0.525 / 0.475))
    assert stats.elo == pytest.approx(17.39, abs=0.01)


@pytest.mark.parametrize(("successes", "trials"), [(0, 20), (7, 20), (20, 40), (20, 20), (1, 3)])
def test_wilson_interval_matches_scipy(successes, trials):
    reference = binomtest(successes, trials).proportion_ci(confidence_level=0.95, method="wilson")
    low, high = wilson_interval(successes / trials, trials)
    assert low == pytest.approx(reference.low, abs=1e-12)
    assert high == pytest.approx(reference.high, abs=1e-12)


def test_elo_from_score_known_values_and_inverse():
    assert elo_from_score(0.75) == pytest.approx(400 * math.log10(3))
    assert elo_from_score(0.75) == pytest.approx(190.85, abs=0.01)
    assert elo_from_score(1.0) == math.inf
    assert elo_from_score(0.0) == -math.inf
    for difference in (-350.0, -10.0, 0.0, 120.0):
        assert elo_from_score(expected_score(difference)) == pytest.approx(difference)


def test_perfect_score_gives_infinite_elo_and_json_null():
    stats = match_statistics(wins=20, draws=0, losses=0)
    assert stats.score == 1.0 and stats.elo == math.inf
    assert stats.score_ci[1] == 1.0 and stats.score_ci[0] == pytest.approx(0.8389, abs=1e-4)
    data = stats.to_dict()
    assert data["elo"] is None
    assert data["elo_ci"][0] == pytest.approx(elo_from_score(stats.score_ci[0]))
    assert data["elo_ci"][1] is None


@pytest.mark.parametrize(
    ("wins", "draws", "losses", "message"),
    [(0, 0, 0, "no games"), (-1, 2, 0, "wins"), (1, 2.5, 0, "draws"), (True, 0, 1, "wins")],
)
def test_match_statistics_rejects_bad_counts(wins, draws, losses, message):
    with pytest.raises(ValueError, match=message):
        match_statistics(wins, draws, losses)


def test_interval_inputs_are_validated():
    with pytest.raises(ValueError, match="score"):
        wilson_interval(1.5, 10)
    with pytest.raises(ValueError, match="num_games"):
        wilson_interval(0.5, 0)
    with pytest.raises(ValueError, match="confidence"):
        match_statistics(1, 1, 1, confidence=1.0)
    with pytest.raises(ValueError, match="score"):
        elo_from_score(-0.1)


def _tables_from_expected(ratings: np.ndarray, games_per_pair: int):
    """Points equal to their expectation under the model: the fit must return ``ratings`` exactly."""
    n = len(ratings)
    games = np.full((n, n), float(games_per_pair))
    np.fill_diagonal(games, 0.0)
    points = games * expected_score(ratings[:, None] - ratings[None, :])
    np.fill_diagonal(points, 0.0)
    return points, games


def test_fit_recovers_ratings_from_expected_results():
    truth = np.array([0.0, 150.0, 400.0, -200.0])
    points, games = _tables_from_expected(truth, 100)
    fit = fit_bradley_terry(["random", "a", "b", "c"], points, games, anchor=0, prior_draws=0.0)
    np.testing.assert_allclose(fit.ratings, truth, atol=1e-6)
    assert fit.standard_errors[0] == 0.0
    assert np.all(fit.standard_errors[1:] > 0)


def test_fit_recovers_ratings_from_sampled_games():
    rng = np.random.default_rng(7)
    truth = np.array([0.0, 100.0, 300.0, 600.0])
    n = len(truth)
    points = np.zeros((n, n))
    games = np.zeros((n, n))
    for i in range(n):
        for j in range(i + 1, n):
            wins = rng.binomial(2000, expected_score(truth[i] - truth[j]))
            points[i, j], points[j, i] = wins, 2000 - wins
            games[i, j] = games[j, i] = 2000
    fit = fit_bradley_terry(["random", "b", "c", "d"], points, games, anchor=0, prior_draws=0.0)
    assert np.all(np.abs(fit.ratings - truth) < 3.5 * np.maximum(fit.standard_errors, 1e-9) + 1e-9)
    assert np.all(np.abs(fit.ratings - truth) < 40.0)
    inside = (fit.intervals[:, 0] <= truth) & (truth <= fit.intervals[:, 1])
    assert inside.sum() >= 3


def test_fit_standard_errors_match_two_player_formula():
    # two players, n games, score s: se(Elo) = 1 / (k * sqrt(n s (1 - s))), k = ln(10) / 400
    points = np.array([[0.0, 30.0], [70.0, 0.0]])
    games = np.array([[0.0, 100.0], [100.0, 0.0]])
    fit = fit_bradley_terry(["random", "x"], points, games, anchor=0, prior_draws=0.0)
    assert fit.ratings[1] == pytest.approx(elo_from_score(0.7), abs=1e-6)
    k = math.log(10) / 400
    assert fit.standard_errors[1] == pytest.approx(1 / (k * math.sqrt(100 * 0.7 * 0.3)), rel=1e-4)
    assert fit.intervals[1, 0] == pytest.approx(fit.ratings[1] - 1.959964 * fit.standard_errors[1], rel=1e-5)


def test_perfect_player_needs_a_prior():
    points = np.array([[0.0, 0.0], [10.0, 0.0]])
    games = np.array([[0.0, 10.0], [10.0, 0.0]])
    with pytest.raises(ValueError, match="prior_draws"):
        fit_bradley_terry(["random", "solver"], points, games, prior_draws=0.0)
    fit = fit_bradley_terry(["random", "solver"], points, games, prior_draws=1.0)
    # one virtual draw: 10.5 points out of 11 games
    assert fit.ratings[1] == pytest.approx(elo_from_score(10.5 / 11), abs=1e-3)


def test_fit_rejects_disconnected_and_inconsistent_tables():
    games = np.zeros((3, 3))
    games[0, 1] = games[1, 0] = 4
    points = games / 2
    with pytest.raises(ValueError, match="connected"):
        fit_bradley_terry(["a", "b", "c"], points, games)
    with pytest.raises(ValueError, match="points"):
        fit_bradley_terry(["a", "b"], np.array([[0.0, 3.0], [3.0, 0.0]]), np.array([[0.0, 4.0], [4.0, 0.0]]))
    with pytest.raises(ValueError, match="anchor"):
        fit_bradley_terry(
            ["a", "b"], np.array([[0.0, 2.0], [2.0, 0.0]]), np.array([[0.0, 4.0], [4.0, 0.0]]), anchor=2
        )


def test_fit_rejects_bad_shapes_counts_and_prior():
    square = np.array([[0.0, 2.0], [2.0, 0.0]])
    with pytest.raises(ValueError, match="shape"):
        fit_bradley_terry(["a", "b", "c"], square, square)
    with pytest.raises(ValueError, match="at least 2"):
        fit_bradley_terry(["a"], np.zeros((1, 1)), np.zeros((1, 1)))
    with pytest.raises(ValueError, match="non-negative"):
        fit_bradley_terry(["a", "b"], -square, -square)
    with pytest.raises(ValueError, match="prior_draws"):
        fit_bradley_terry(["a", "b"], square, 2 * square, prior_draws=-1.0)


# ---------------------------------------------------------------- McNemar's exact test
def _two_sided_binomial_by_counting(k: int, n: int) -> float:
    """Exact two-sided p-value at 1/2 from binomial coefficients (the symmetric distribution doubles
    the smaller tail)."""
    tail = sum(math.comb(n, i) for i in range(min(k, n - k) + 1))
    return min(1.0, 2 * tail / 2**n)


@pytest.mark.parametrize(
    ("only_a", "only_b", "expected"),
    [
        (0, 5, 1 / 16),  # 2 * (1/2)^5
        (2, 8, 112 / 1024),  # 2 * (1 + 10 + 45) / 2^10
        (5, 5, 1.0),
        (0, 0, 1.0),  # no discordant position: no evidence either way
        (1, 0, 1.0),
    ],
)
def test_mcnemar_exact_p_values_by_hand(only_a, only_b, expected):
    assert mcnemar_p_value(only_a, only_b) == pytest.approx(expected, abs=1e-15)


def test_mcnemar_p_values_agree_with_counting_binomial_coefficients():
    for only_a, only_b in ((20, 40), (60, 100), (47, 53), (3, 17)):
        assert mcnemar_p_value(only_a, only_b) == pytest.approx(
            _two_sided_binomial_by_counting(only_a, only_a + only_b), rel=1e-9
        )
        assert mcnemar_p_value(only_a, only_b) == mcnemar_p_value(only_b, only_a)
    assert mcnemar_p_value(20, 40) == pytest.approx(0.01348929373119186, rel=1e-9)


def test_mcnemar_test_counts_the_discordant_positions_only():
    a = np.array([1, 1, 0, 0, 1, 0, 0, 0], dtype=bool)
    b = np.array([1, 0, 0, 0, 0, 0, 1, 0], dtype=bool)
    result = mcnemar_test(a, b)
    assert (result.num_positions, result.mistakes_a, result.mistakes_b) == (8, 3, 2)
    assert (result.only_a, result.only_b) == (2, 1) and result.p_value == 1.0
    with pytest.raises(ValueError, match=r"expected two \[N\] mistake arrays of one length, got shapes \(8,\) and \(3,\)"):
        mcnemar_test(a, b[:3])
    with pytest.raises(ValueError, match="only_a: expected an integer >= 0, got -1"):
        mcnemar_p_value(-1, 3)


@settings(max_examples=60, deadline=None)
@given(st.integers(0, 2000), st.integers(0, 2000))
def test_the_mcnemar_bound_from_totals_is_never_below_the_p_value_of_any_overlap(mistakes_a, mistakes_b):
    """With c positions missed by both, the discordant counts are (a - c, b - c); the bound (c = 0)
    is the largest of those p-values (two-sided at 1/2: twice the smaller tail, at most 1)."""
    from scipy.stats import binom

    bound = mcnemar_p_value_bound(mistakes_a, mistakes_b)
    overlap = np.arange(0, min(mistakes_a, mistakes_b) + 1)
    only_a, trials = mistakes_a - overlap, mistakes_a + mistakes_b - 2 * overlap
    tails = np.minimum(binom.cdf(only_a, trials, 0.5), binom.sf(only_a - 1, trials, 0.5))
    p_values = np.where(trials > 0, np.minimum(1.0, 2.0 * tails), 1.0)
    assert bound == pytest.approx(p_values[0], rel=1e-9, abs=1e-300)
    assert np.all(p_values <= bound * (1 + 1e-9) + 1e-300)


def test_the_mcnemar_bound_of_two_seeds_pooled():
    # the value target of Connect Four's hour: 84 + 75 mistakes with mix against 108 + 107 with z
    assert mcnemar_p_value_bound(159, 215) == pytest.approx(0.004392, rel=1e-3)
    assert mcnemar_p_value_bound(79, 81) == pytest.approx(0.937, abs=1e-3)  # no difference to speak of
