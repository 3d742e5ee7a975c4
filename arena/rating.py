"""Ratings against a fixed pool of reference players: one comparable Elo curve over a run.

Every model rated plays the same reference players (for example ``random``, alpha-beta at two
depths and UCT, ``arena.specs``) for ``games_per_opponent`` games each, from the same seeded
paired openings every time (``arena.match.run_match``; each rating rebuilds the reference players
with the same seeds). The reference players' own round robin is played once, on the first rating,
and kept. The model's rating is the Bradley-Terry maximum-likelihood fit of all those games
(``arena.elo.fit_bradley_terry``, Elo units, ``prior_draws`` virtual draws per pair that met) with
the first reference player anchored at 0, so ratings of different models of a run sit on one
scale; its interval is ``elo +- z * se`` from the fit's observed information.

Cost: ``len(pool) * games_per_opponent`` games per model rated, plus ``len(pool) * (len(pool) -
1) / 2 * games_per_opponent`` once for the round robin.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from arena.elo import fit_bradley_terry
from arena.match import ladder_tables, run_match
from arena.specs import build_player
from games.base import Game

#: the reference players of a rating pool when none are named (games without chance)
DEFAULT_POOL = ("random", "alphabeta:depth=2", "alphabeta:depth=4", "uct:sims=200")


@dataclass(frozen=True)
class RatingPlan:
    """Which reference players rate each new best model, and how many games against each (the
    settings a ``RatingPool`` is built from; ``arena.rating``, ``arena.rating_pool`` and
    ``arena.rating_games`` in the config).

    Attributes:
        specs: the reference players' specs; the first is the anchor at 0 Elo.
        games_per_opponent: games against each reference player, even, >= 2.
    """

    specs: tuple
    games_per_opponent: int = 10


@dataclass(frozen=True)
class PoolRating:
    """One model's rating against the pool.

    Attributes:
        elo: the model's Elo points, the pool's first player at 0.
        low, high: its interval at ``confidence``.
        confidence: the interval's level.
        records: ``{reference player: [wins, draws, losses]}`` of the model.
        pool: ``{reference player: Elo}`` from the same fit.
    """

    elo: float
    low: float
    high: float
    confidence: float
    records: dict = field(default_factory=dict)
    pool: dict = field(default_factory=dict)

    @property
    def num_games(self) -> int:
        return int(sum(sum(record) for record in self.records.values()))


class RatingPool:
    """A fixed set of reference players that rates models (see the module docstring).

    Args:
        game: the game.
        specs: the reference players' specs, at least one, distinct; the first is the anchor.
        games_per_opponent: games the model (and each pair of reference players) plays, even, >= 2.
        seed: seeds the openings and the reference players.
        opening_plies: random plies opening each pair of games.
        prior_draws, confidence: as ``arena.elo.fit_bradley_terry``.

    Raises:
        ValueError: for no or repeated specs, a spec that does not build for ``game``
            (``arena.specs.build_player``), or ``games_per_opponent`` odd or < 2.
    """

    def __init__(
        self,
        game: Game,
        specs,
        games_per_opponent: int,
        seed: int,
        opening_plies: int,
        prior_draws: float = 1.0,
        confidence: float = 0.95,
    ) -> None:
        specs = tuple(str(s) for s in specs)
        if not specs or len(set(specs)) != len(specs):
            raise ValueError(f"rating pool: expected at least one reference player, all distinct, got {list(specs)}")
        if (
            isinstance(games_per_opponent, bool)
            or not isinstance(games_per_opponent, (int, np.integer))
            or games_per_opponent < 2
            or games_per_opponent % 2
        ):
            raise ValueError(f"rating games per opponent: expected an even integer >= 2, got {games_per_opponent!r}")
        self.game = game
        self.specs = specs
        self.games_per_opponent = int(games_per_opponent)
        self.seed = int(seed)
        self.opening_plies = int(opening_plies)
        self.prior_draws = float(prior_draws)
        self.confidence = float(confidence)
        self._players()  # every spec must build for this game
        self._round_robin: dict | None = None  # {(i, j): MatchResult}, played on the first rating

    def _players(self) -> list:
        seeds = np.random.SeedSequence([self.seed, 11]).spawn(len(self.specs))
        return [build_player(spec, self.game, seed=int(s.generate_state(1)[0])) for spec, s in zip(self.specs, seeds)]

    def _openings(self, index: int) -> np.random.Generator:
        return np.random.default_rng([self.seed, 13, index])

    @property
    def games_per_rating(self) -> int:
        """Games one rating plays (the round robin not counted)."""
        return len(self.specs) * self.games_per_opponent

    def round_robin(self) -> dict:
        """The reference players' matches ``{(i, j): MatchResult}``, played once."""
        if self._round_robin is None:
            players = self._players()
            matches = {}
            for i in range(len(players)):
                for j in range(i + 1, len(players)):
                    matches[(i, j)] = run_match(
                        self.game, players[i], players[j], self.games_per_opponent,
                        self._openings(1000 + i * len(players) + j), self.opening_plies,
                    )
            self._round_robin = matches
        return self._round_robin

    def rate(self, model) -> PoolRating:
        """Play ``model`` (an ``arena.players`` player) against every reference player and fit.

        Raises:
            ValueError: as ``arena.match.run_match`` and ``arena.elo.fit_bradley_terry``.
        """
        size = len(self.specs)
        matches = dict(self.round_robin())
        records = {}
        for index, opponent in enumerate(self._players()):
            match = run_match(self.game, model, opponent, self.games_per_opponent, self._openings(index), self.opening_plies)
            matches[(size, index)] = match  # the model is the last player, A of its matches
            records[self.specs[index]] = [match.wins, match.draws, match.losses]
        names = [*self.specs, "model"]
        points, games = ladder_tables(size + 1, matches)
        fit = fit_bradley_terry(names, points, games, anchor=0, prior_draws=self.prior_draws, confidence=self.confidence)
        return PoolRating(
            elo=float(fit.ratings[size]), low=float(fit.intervals[size, 0]), high=float(fit.intervals[size, 1]),
            confidence=self.confidence, records=records,
            pool={name: float(fit.ratings[i]) for i, name in enumerate(self.specs)},
        )
