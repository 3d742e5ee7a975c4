"""Match statistics: score with a Wilson interval, Elo difference, Bradley-Terry (Elo) ladder fits.

Units: a *score* is points per game in ``[0, 1]`` (win 1, draw 1/2, loss 0); an *Elo* difference
is in Elo points, on the logistic scale where a difference ``D`` gives the stronger side the
expected score ``1 / (1 + 10 ** (-D / 400))`` (Elo, *The Rating of Chessplayers, Past and
Present*, 1978, in the logistic form used by USCF and most engine testers).

Formulas and sources:

* Score interval: the Wilson score interval (E. B. Wilson, "Probable inference, the law of
  succession, and statistical inference", JASA 22, 1927) applied to the score over ``N`` games.
  Unlike the normal ("Wald") interval it stays inside ``[0, 1]`` and is not empty for 40 draws or
  20 wins out of 20.
* Elo difference: ``D = 400 * log10(s / (1 - s))``, the inverse of the expected-score formula;
  ``+inf`` for ``s = 1`` and ``-inf`` for ``s = 0``. Its interval maps the Wilson bounds through
  the same (monotone) function.
* Ladder: the Bradley-Terry model (R. A. Bradley and M. E. Terry, "Rank analysis of incomplete
  block designs", Biometrika 39, 1952) in Elo units, ``P(i beats j) = 1 / (1 + 10 ** ((r_j -
  r_i) / 400))``, draws counted as half a win for each side, fitted by maximum likelihood with
  one player anchored at 0. Intervals are ``r +- z * se`` from the inverse of the observed Fisher
  information (the Hessian of the negative log-likelihood) at the optimum. The maximum-likelihood
  ratings exist only if the "scored against" graph is strongly connected (L. R. Ford, "Solution
  of a ranking problem from binary comparisons", Amer. Math. Monthly 64, 1957); a perfect player
  breaks that, so by default each pair that met also gets ``prior_draws`` virtual draws, as in
  R. Coulom's BayesElo.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

#: Elo points per natural-log unit of odds: ``400 / ln(10)``
ELO_PER_NATURAL_UNIT = 400.0 / math.log(10.0)


def _z(confidence: float) -> float:
    if not 0.0 < confidence < 1.0:
        raise ValueError(f"confidence must be in (0, 1), got {confidence}")
    from scipy.stats import norm  # heavy dependency (scipy): imported where it is used

    return float(norm.ppf(0.5 + confidence / 2.0))


def _check_counts(wins, draws, losses) -> int:
    for label, value in (("wins", wins), ("draws", draws), ("losses", losses)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{label} must be an integer >= 0, got {value!r}")
    games = int(wins) + int(draws) + int(losses)
    if games == 0:
        raise ValueError("no games: expected wins + draws + losses >= 1")
    return games


def wilson_interval(score: float, num_games: int, confidence: float = 0.95) -> tuple[float, float]:
    """Wilson score interval (Wilson 1927) for a mean score ``score`` in ``[0, 1]`` over ``num_games``.

    ``(c - h, c + h)`` with ``c = (s + z^2 / 2n) / (1 + z^2 / n)`` and
    ``h = z / (1 + z^2 / n) * sqrt(s (1 - s) / n + z^2 / 4n^2)``, ``z`` the normal quantile.

    Raises:
        ValueError: if ``score`` is outside ``[0, 1]``, ``num_games`` < 1 or ``confidence`` is
            outside ``(0, 1)``.
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score}")
    if isinstance(num_games, bool) or not isinstance(num_games, (int, np.integer)) or num_games < 1:
        raise ValueError(f"num_games must be an integer >= 1, got {num_games!r}")
    z = _z(confidence)
    n = float(num_games)
    denominator = 1.0 + z * z / n
    centre = (score + z * z / (2.0 * n)) / denominator
    half = z / denominator * math.sqrt(score * (1.0 - score) / n + z * z / (4.0 * n * n))
    return max(0.0, centre - half), min(1.0, centre + half)


def elo_from_score(score: float) -> float:
    """Elo difference (points) whose expected score is ``score``: ``400 log10(s / (1 - s))`` (Elo 1978).

    Returns ``+inf`` for 1 and ``-inf`` for 0, and exactly 0.0 for 0.5.

    Raises:
        ValueError: if ``score`` is outside ``[0, 1]``.
    """
    if not 0.0 <= score <= 1.0:
        raise ValueError(f"score must be in [0, 1], got {score}")
    if score == 1.0:
        return math.inf
    if score == 0.0:
        return -math.inf
    return 400.0 * math.log10(score / (1.0 - score)) + 0.0


def expected_score(elo_difference: float) -> float:
    """Expected score of the side ``elo_difference`` points stronger: ``1 / (1 + 10^(-D/400))``."""
    return 1.0 / (1.0 + 10.0 ** (-elo_difference / 400.0))


@dataclass(frozen=True)
class MatchStatistics:
    """Summary of a match from one side (A).

    Attributes:
        wins, draws, losses: A's results.
        num_games: their sum.
        score: A's points per game in ``[0, 1]``, draws half.
        score_ci: Wilson interval of ``score`` (``confidence``).
        elo: A's Elo difference over B, points (``+-inf`` for a score of 1 or 0).
        elo_ci: ``score_ci`` mapped to Elo.
        confidence: the intervals' level, e.g. 0.95.
    """

    wins: int
    draws: int
    losses: int
    num_games: int
    score: float
    score_ci: tuple[float, float]
    elo: float
    elo_ci: tuple[float, float]
    confidence: float

    def to_dict(self) -> dict:
        """JSON-ready dict; infinite Elo values become ``None`` (the score says which side)."""
        return {
            "wins": self.wins,
            "draws": self.draws,
            "losses": self.losses,
            "num_games": self.num_games,
            "score": self.score,
            "score_ci": list(self.score_ci),
            "elo": finite_or_none(self.elo),
            "elo_ci": [finite_or_none(v) for v in self.elo_ci],
            "confidence": self.confidence,
        }


def finite_or_none(value: float) -> float | None:
    """``value`` if finite, else None (JSON has no infinity)."""
    return float(value) if math.isfinite(value) else None


def match_statistics(wins: int, draws: int, losses: int, confidence: float = 0.95) -> MatchStatistics:
    """Score, Wilson interval and Elo difference of a W/D/L record (see the module docstring).

    ``(0, 40, 0)`` gives score 0.5, Elo 0.0 and a finite interval around it (forty draws and nothing else).

    Raises:
        ValueError: for a negative or non-integer count, no games at all, or a ``confidence``
            outside ``(0, 1)``.
    """
    games = _check_counts(wins, draws, losses)
    score = (wins + 0.5 * draws) / games
    low, high = wilson_interval(score, games, confidence)
    return MatchStatistics(
        wins=int(wins),
        draws=int(draws),
        losses=int(losses),
        num_games=games,
        score=score,
        score_ci=(low, high),
        elo=elo_from_score(score),
        elo_ci=(elo_from_score(low), elo_from_score(high)),
        confidence=confidence,
    )


# ------------------------------------------------------------------------------ Bradley-Terry
@dataclass(frozen=True)
class LadderRatings:
    """A Bradley-Terry (Elo) fit.

    Attributes:
        names: the players, in input order.
        ratings: ``[P]`` float64 Elo points, ``ratings[anchor] == 0``.
        standard_errors: ``[P]`` float64 Elo points (0 for the anchor).
        intervals: ``[P, 2]`` float64, ``ratings +- z * standard_errors``.
        anchor: index of the player fixed at 0.
        confidence: the intervals' level.
        prior_draws: virtual draws added to each pair that met.
    """

    names: list[str]
    ratings: np.ndarray
    standard_errors: np.ndarray
    intervals: np.ndarray
    anchor: int
    confidence: float
    prior_draws: float

    def to_dict(self) -> dict:
        return {
            "anchor": self.names[self.anchor],
            "confidence": self.confidence,
            "prior_draws": self.prior_draws,
            "ratings": {
                name: {
                    "elo": float(self.ratings[i]),
                    "se": float(self.standard_errors[i]),
                    "ci": [float(self.intervals[i, 0]), float(self.intervals[i, 1])],
                }
                for i, name in enumerate(self.names)
            },
        }


def fit_bradley_terry(
    names: list[str],
    points: np.ndarray,
    games: np.ndarray,
    anchor: int = 0,
    prior_draws: float = 1.0,
    confidence: float = 0.95,
) -> LadderRatings:
    """Maximum-likelihood Bradley-Terry ratings in Elo points (Bradley & Terry 1952; Elo 1978).

    Args:
        names: ``P`` player names.
        points: ``[P, P]`` float, ``points[i, j]`` = i's points against j (wins + draws / 2).
        games: ``[P, P]`` int, games between i and j (symmetric; ``points[i, j] + points[j, i]
            == games[i, j]``), zero diagonal.
        anchor: index of the player rated 0.
        prior_draws: virtual draws added to every pair with games (>= 0; 0 = plain maximum
            likelihood, which needs a strongly connected "scored against" graph).
        confidence: level of the intervals.

    Returns:
        ``LadderRatings``.

    Raises:
        ValueError: for shapes that disagree, negative or inconsistent counts, an anchor out of
            range, ``prior_draws`` < 0, players not all connected by games, or (with
            ``prior_draws == 0``) results for which no finite maximum exists (a player who won
            or lost every game, Ford 1957).
    """
    from scipy.optimize import minimize  # heavy dependency (scipy): imported where it is used
    from scipy.sparse.csgraph import connected_components

    num_players = len(names)
    points = np.asarray(points, dtype=np.float64)
    games = np.asarray(games, dtype=np.float64)
    if num_players < 2:
        raise ValueError(f"expected at least 2 players, got {num_players}")
    if points.shape != (num_players, num_players) or games.shape != (num_players, num_players):
        raise ValueError(
            f"expected points and games of shape {(num_players, num_players)}, "
            f"got {points.shape} and {games.shape}"
        )
    if (
        np.any(games < 0)
        or np.any(points < 0)
        or not np.allclose(games, games.T)
        or np.any(np.diag(games) != 0)
    ):
        raise ValueError("games must be symmetric, non-negative, with a zero diagonal")
    if not np.allclose(points + points.T, games):
        raise ValueError("points[i, j] + points[j, i] must equal games[i, j]")
    if not 0 <= anchor < num_players:
        raise ValueError(f"anchor must be in [0, {num_players}), got {anchor}")
    if not (math.isfinite(prior_draws) and prior_draws >= 0):
        raise ValueError(f"prior_draws must be >= 0, got {prior_draws}")
    z = _z(confidence)
    met = games > 0
    if connected_components(met, directed=False)[0] != 1:
        raise ValueError("every player must be connected to the others by games played")
    points = points + 0.5 * prior_draws * met
    games = games + prior_draws * met
    if prior_draws == 0 and connected_components(points > 0, directed=True, connection="strong")[0] != 1:
        raise ValueError(
            "no finite maximum-likelihood ratings: some player won (or lost) every game "
            "against the rest; use prior_draws > 0"
        )
    free = np.array([i for i in range(num_players) if i != anchor])
    scale = 1.0 / ELO_PER_NATURAL_UNIT  # natural-log odds per Elo point

    def full(x: np.ndarray) -> np.ndarray:
        ratings = np.zeros(num_players)
        ratings[free] = x
        return ratings

    def negative_log_likelihood(x: np.ndarray) -> tuple[float, np.ndarray]:
        ratings = full(x)
        logits = scale * (ratings[:, None] - ratings[None, :])
        # -sum_{i,j} points[i,j] * log sigmoid(logit_ij); each pair appears in both orders
        nll = float(np.sum(points * np.logaddexp(0.0, -logits)))
        probability = 1.0 / (1.0 + np.exp(-logits))
        gradient = -scale * np.sum(points - games * probability, axis=1)
        return nll, gradient[free]

    result = minimize(
        negative_log_likelihood,
        np.zeros(num_players - 1),
        jac=True,
        method="BFGS",
        options={"gtol": 1e-9, "maxiter": 10_000},
    )
    x = result.x

    def information(x: np.ndarray) -> np.ndarray:
        ratings = full(x)
        probability = 1.0 / (1.0 + np.exp(-scale * (ratings[:, None] - ratings[None, :])))
        weights = scale * scale * games * probability * (1.0 - probability)
        return np.diag(weights.sum(axis=1)) - weights  # Laplacian of the information weights

    for _ in range(20):  # Newton steps polish the quasi-Newton optimum (quadratic convergence)
        _, gradient = negative_log_likelihood(x)
        if np.max(np.abs(gradient)) < 1e-10 * max(1.0, games.sum()):
            break
        x = x - np.linalg.solve(information(x)[np.ix_(free, free)], gradient)
    _, gradient = negative_log_likelihood(x)
    if not np.all(np.isfinite(x)) or np.max(np.abs(gradient)) > 1e-6 * max(1.0, games.sum()):
        raise ValueError(
            f"the Bradley-Terry fit did not converge (largest gradient {np.max(np.abs(gradient)):.3g})"
        )
    ratings = full(x)
    hessian = information(x)
    covariance = np.linalg.inv(hessian[np.ix_(free, free)])
    errors = np.zeros(num_players)
    errors[free] = np.sqrt(np.maximum(np.diag(covariance), 0.0))
    intervals = np.stack([ratings - z * errors, ratings + z * errors], axis=1)
    return LadderRatings(list(names), ratings, errors, intervals, anchor, confidence, float(prior_draws))


# ------------------------------------------------------------------------------ paired comparisons
@dataclass(frozen=True)
class McNemarResult:
    """McNemar's exact test of two players' mistakes on the same positions.

    Attributes:
        num_positions: positions both were measured on.
        mistakes_a, mistakes_b: each player's mistakes.
        only_a, only_b: the discordant positions, where only A (only B) erred.
        p_value: two-sided exact p-value, ``binomtest(only_a, only_a + only_b, 1/2)``; 1.0 without
            a discordant position.
    """

    num_positions: int
    mistakes_a: int
    mistakes_b: int
    only_a: int
    only_b: int
    p_value: float

    def to_dict(self) -> dict:
        return {
            "positions": self.num_positions, "mistakes_a": self.mistakes_a, "mistakes_b": self.mistakes_b,
            "only_a": self.only_a, "only_b": self.only_b, "p_value": self.p_value,
        }


def mcnemar_p_value(only_a: int, only_b: int) -> float:
    """Two-sided exact McNemar p-value from the discordant counts (Q. McNemar, "Note on the sampling
    error of the difference between correlated proportions or percentages", Psychometrika 12, 1947;
    the exact form is the binomial test of ``only_a`` successes in ``only_a + only_b`` trials at 1/2,
    ``scipy.stats.binomtest``). Positions where both or neither erred carry no information about
    which is better and are left out. 1.0 for ``(0, 0)``.

    Raises:
        ValueError: for a count that is not an integer >= 0.
    """
    from scipy.stats import binomtest  # scipy: a heavy import, only where a test is asked for

    for label, value in (("only_a", only_a), ("only_b", only_b)):
        if isinstance(value, bool) or not isinstance(value, (int, np.integer)) or value < 0:
            raise ValueError(f"{label}: expected an integer >= 0, got {value!r}")
    if only_a + only_b == 0:
        return 1.0
    return float(binomtest(int(only_a), int(only_a) + int(only_b), 0.5).pvalue)


def mcnemar_p_value_bound(mistakes_a: int, mistakes_b: int) -> float:
    """The largest exact McNemar p-value (``mcnemar_p_value``) that two players' mistake totals on
    the same positions allow, for comparisons whose position-by-position records are gone.

    With ``c`` positions where both erred, the discordant counts are ``(mistakes_a - c,
    mistakes_b - c)``: the difference stays ``mistakes_a - mistakes_b`` while the number of
    discordant positions shrinks with ``c``, so the test is least sure at ``c = 0`` and the true
    p-value is at most ``mcnemar_p_value(mistakes_a, mistakes_b)`` (checked for every ``c`` in
    tests/test_arena_elo.py). Pooling several seeds' totals pairs each seed's two models on the
    same positions.

    Raises:
        ValueError: for a count that is not an integer >= 0.
    """
    return mcnemar_p_value(mistakes_a, mistakes_b)


def mcnemar_test(mistakes_a, mistakes_b) -> McNemarResult:
    """McNemar's exact test on the same positions (``mcnemar_p_value``).

    Args:
        mistakes_a, mistakes_b: ``[N]`` bool, True where that player erred on position i.

    Raises:
        ValueError: for arrays that are not one-dimensional of one length.
    """
    a = np.asarray(mistakes_a, dtype=bool)
    b = np.asarray(mistakes_b, dtype=bool)
    if a.ndim != 1 or a.shape != b.shape:
        raise ValueError(f"expected two [N] mistake arrays of one length, got shapes {a.shape} and {b.shape}")
    only_a, only_b = int(np.sum(a & ~b)), int(np.sum(b & ~a))
    return McNemarResult(len(a), int(a.sum()), int(b.sum()), only_a, only_b, mcnemar_p_value(only_a, only_b))
