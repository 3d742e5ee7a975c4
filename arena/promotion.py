"""The promotion rules of gating: does a candidate replace the best model? (``GateConfig.rule``)

* ``"fixed"`` (AlphaGo Zero, Silver et al. 2017, Methods, "Evaluator": promoted when it wins by a
  margin of 55%): one match of ``num_games`` games, draws counted as half a win,

      score = (wins + draws / 2) / games;  accepted  <=>  games > 0 and score >= threshold

  so a score of exactly the threshold is accepted, and an empty match is rejected (no division by
  zero).
* ``"sprt"``: the generalized SPRT on colour-paired games (``arena.sprt``; fishtest, OpenBench):
  ``pairs_per_look`` pairs at a time, each pair two games from one seeded opening with colours
  swapped, until the log-likelihood ratio of the pentanomial counts leaves Wald's bounds or the
  game cap is reached (undecided at the cap: rejected).

Pure rules over match results: how the games are played is the caller's (``arena.gating``'s arena
actor, ``scripts/gate_false_promotion.py``).
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from arena.results import MatchResult
from arena.sprt import ACCEPT, CONTINUE, SPRTConfig, pair_index, sprt_decision

#: the gate's decision rules (``GateConfig.rule``)
GATE_RULES = ("sprt", "fixed")


@dataclass(frozen=True)
class GateConfig:
    """How the gate decides (built once from the ``arena`` config, ``trainer.config.arena_gate``).

    Attributes:
        rule: ``"sprt"`` or ``"fixed"`` (module docstring).
        num_games: the fixed rule's match length, >= 1.
        threshold: the fixed rule's score to reach, in (0, 1].
        sprt: the sequential rule's bounds, error rates, cap and batch size.

    Raises:
        ValueError: for an unknown rule, ``num_games`` < 1 or a threshold outside (0, 1].
    """

    rule: str = "fixed"
    num_games: int = 40
    threshold: float = 0.55
    sprt: SPRTConfig = field(default_factory=SPRTConfig)

    def __post_init__(self) -> None:
        if self.rule not in GATE_RULES:
            raise ValueError(f"gate rule: expected one of {list(GATE_RULES)}, got {self.rule!r}")
        if isinstance(self.num_games, bool) or not isinstance(self.num_games, int) or self.num_games < 1:
            raise ValueError(f"gate num_games: expected an integer >= 1, got {self.num_games!r}")
        if not 0.0 < self.threshold <= 1.0:
            raise ValueError(f"gate threshold: expected in (0, 1], got {self.threshold}")
        if not isinstance(self.sprt, SPRTConfig):
            raise ValueError(f"gate sprt: expected an SPRTConfig, got {type(self.sprt).__name__}")


def pentanomial_counts(match: MatchResult) -> np.ndarray:
    """``[5]`` int64: A's pairs (games ``2p`` and ``2p + 1``, one opening, colours swapped) that
    scored 0, 1/2, 1, 3/2 and 2 points. A last game without its partner is not counted."""
    counts = np.zeros(5, dtype=np.int64)
    points = {"win": 1.0, "draw": 0.5, "loss": 0.0}
    games = match.games
    for first in range(0, len(games) - 1, 2):
        counts[pair_index(points[games[first].outcome_for_a] + points[games[first + 1].outcome_for_a])] += 1
    return counts


@dataclass(frozen=True)
class GateVerdict:
    """What a gate decided, before the versions are attached (``GateResult``).

    Attributes:
        wins, draws, losses: the candidate's games.
        score: its points per game, draws half (0.0 without games).
        accepted: promote.
        llr: the SPRT's log-likelihood ratio (0.0 for the fixed rule).
        pentanomial: ``(5,)`` pairs per pair score.
        distinct_games: different move strings among the games.
        sample_game: the first game's moves.
    """

    wins: int
    draws: int
    losses: int
    score: float
    accepted: bool
    llr: float
    pentanomial: tuple
    distinct_games: int
    sample_game: str


def decide_gate(play_fn: Callable[[int], MatchResult], config: GateConfig) -> GateVerdict:
    """Play the gate's games and decide.

    Args:
        play_fn: ``play_fn(num_games) -> MatchResult`` of the candidate (A) against the best, with
            fresh paired openings on every call (``arena.network_match.run_network_match`` draws
            a new opening seed each time).
        config: the rule. ``"fixed"``: one call of ``num_games``. ``"sprt"``: calls of
            ``2 * pairs_per_look`` games (fewer to stop exactly at the cap) until ``sprt_decision``
            is no longer ``CONTINUE``.

    Returns:
        ``GateVerdict``.
    """
    matches = []
    if config.rule == "fixed":
        matches.append(play_fn(config.num_games))
        wins, draws, losses = matches[0].wins, matches[0].draws, matches[0].losses
        score, accepted = gate_decision(wins, draws, losses, config.threshold)
        counts, llr = pentanomial_counts(matches[0]), 0.0
    else:
        sprt = config.sprt
        counts = np.zeros(5, dtype=np.int64)
        decision = CONTINUE
        while decision == CONTINUE:
            pairs = min(sprt.pairs_per_look, (sprt.max_games - 2 * int(counts.sum())) // 2)
            match = play_fn(2 * pairs)
            matches.append(match)
            counts += pentanomial_counts(match)
            llr, decision = sprt_decision(counts, sprt)
        accepted = decision == ACCEPT
        wins = sum(m.wins for m in matches)
        draws = sum(m.draws for m in matches)
        losses = sum(m.losses for m in matches)
        games = wins + draws + losses
        score = (wins + 0.5 * draws) / games
    distinct = len({g.moves for m in matches for g in m.games})
    sample = matches[0].games[0].moves if matches and matches[0].games else ""
    return GateVerdict(
        int(wins), int(draws), int(losses), float(score), bool(accepted), float(llr),
        tuple(int(c) for c in counts), distinct, sample,
    )


def gate_decision(wins: int, draws: int, losses: int, threshold: float) -> tuple[float, bool]:
    """Score (draws half) and acceptance; see the module docstring.

    Raises:
        ValueError: for negative counts or a threshold outside (0, 1].
    """
    if min(wins, draws, losses) < 0:
        raise ValueError(f"counts must be >= 0, got W={wins} D={draws} L={losses}")
    if not 0.0 < threshold <= 1.0:
        raise ValueError(f"threshold must be in (0, 1], got {threshold}")
    games = wins + draws + losses
    if games == 0:
        return 0.0, False
    score = (wins + 0.5 * draws) / games
    return score, score >= threshold
