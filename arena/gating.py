"""Gating: the run's arena actor plays a candidate network against the best one and decides by
one of the promotion rules of ``arena.promotion`` (the fixed 55% rule or the sequential test).

A match between two identical parameter sets is refused: it would only measure noise.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping

import numpy as np
import torch

import games
from arena.accuracy import greedy_policy_fn, labelled_sets, network_mistake_rates
from arena.network_match import run_network_match
from arena.network_players import MCTSPlayer
from arena.positions import position_sets
from arena.promotion import GateConfig, decide_gate
from arena.rating import RatingPlan, RatingPool
from arena.results import MatchResult
from mcts import algorithm_of
from networks import build_network
from networks.config import INFERENCE_RUNTIMES, NetworkConfig
from networks.evaluator import TorchEvaluator
from networks.export import onnx_runtime_evaluator
from networks.model_utils import weights_hash


@dataclass(frozen=True)
class GateResult:
    """Outcome of one gating match (plain values: it crosses process boundaries)."""

    candidate_version: int
    best_version: int
    wins: int
    draws: int
    losses: int
    score: float
    accepted: bool
    distinct_games: int
    refused_reason: str = ""
    sample_game: str = ""
    rule: str = "fixed"
    llr: float = 0.0  # the SPRT's log-likelihood ratio at the decision (0.0 for the fixed rule)
    pentanomial: tuple = (0, 0, 0, 0, 0)  # pairs scoring 0, 1/2, 1, 3/2, 2 points for the candidate

    @property
    def num_games(self) -> int:
        return self.wins + self.draws + self.losses

    @property
    def num_pairs(self) -> int:
        return int(sum(self.pentanomial))


def _to_numpy(value) -> np.ndarray:
    if hasattr(value, "detach"):
        return value.detach().cpu().numpy()
    return np.asarray(value)


class GatingWorker:
    """The run's arena: plays candidate-against-best matches and measures mistake rates against
    perfect play (plain class; ``trainer.actors`` wraps it for Ray).

    Args:
        game_name: registry id.
        network_config: the frozen ``networks.config.NetworkConfig``.
        search_config: the frozen settings of both sides' search (any registered search,
            ``mcts.registry``: ``mcts.PUCTConfig``, ``mcts.GumbelConfig``, ...).
        num_games, threshold, opening_random_plies: see ``arena.network_match.run_network_match``
            (``opening_plies``) and ``arena.promotion.gate_decision``.
        gate: the decision rule (``arena.promotion.GateConfig``); None: the fixed rule
            with ``num_games`` and ``threshold``.
        rating: the reference players that rate each new best model and the games against each
            (``arena.rating.RatingPlan``); None: no ratings.
        seed: seeds the matches: each match draws its own seed from one generator; within a
            match games 2p and 2p+1 share pair p's opening, once with each colour, and game k
            breaks ties with its own stream (``arena.openings.match_stream``).
        extra_labelled_sets: set or group names measured besides the game's own labelled sets
            (``arena.accuracy.labelled_sets``; Connect Four: ``"pons"`` or ``"pons-end-easy"``, ...).
        inference: ``"onnx"`` (each set of weights exported once and run by ONNX Runtime,
            ``networks.export.onnx_runtime_evaluator``) or ``"torch"``: the same outputs within float
            rounding, and on a 40-game Connect Four match of two random b4c32 networks the same
            W/D/L in 1.7x fewer CPU seconds (mistake rates: 1.4x; ``scripts/bench_gating.py``).

    Raises:
        ValueError: for an unknown ``inference``, ``network_config`` not a ``NetworkConfig``,
            ``gate`` neither None nor a ``GateConfig``, or ``search_config`` not the settings of a
            registered search.
    """

    def __init__(
        self,
        game_name: str,
        network_config,
        search_config,
        num_games: int,
        threshold: float,
        opening_random_plies: int,
        seed: int,
        torch_threads: int = 1,
        extra_labelled_sets: tuple = (),
        inference: str = "onnx",
        gate=None,
        rating: RatingPlan | None = None,
    ) -> None:
        if inference not in INFERENCE_RUNTIMES:
            raise ValueError(f"inference: expected one of {list(INFERENCE_RUNTIMES)}, got {inference!r}")
        torch.set_num_threads(max(1, int(torch_threads)))
        self.threads = max(1, int(torch_threads))
        self.inference = inference
        self._runtimes: dict = {}  # role -> (weights hash, ONNX Runtime evaluator of those weights)
        self.game = games.make(game_name)
        if not isinstance(network_config, NetworkConfig):
            raise ValueError(f"network_config: expected a NetworkConfig, got {type(network_config).__name__}")
        config = self.network_config = network_config
        shape, actions = self.game.observation_shape, self.game.num_actions
        self.candidate = TorchEvaluator(build_network(config, shape, actions), device="cpu")
        self.best = TorchEvaluator(build_network(config, shape, actions), device="cpu")
        algorithm_of(search_config)  # settings of a registered search, or ValueError
        self.search_config = search_config
        self.num_games = int(num_games)
        self.threshold = float(threshold)
        if gate is None:
            gate = GateConfig(rule="fixed", num_games=self.num_games, threshold=self.threshold)
        if not isinstance(gate, GateConfig):
            raise ValueError(f"gate: expected a GateConfig or None, got {type(gate).__name__}")
        self.gate_config = gate
        self.opening_random_plies = int(opening_random_plies)
        self.rating_pool = None
        if rating is not None:
            self.rating_pool = RatingPool(self.game, rating.specs, rating.games_per_opponent, seed, self.opening_random_plies)
        self.rng = np.random.default_rng([seed, 7])
        self.extra_labelled_sets = tuple(str(name) for name in extra_labelled_sets)
        self._labelled = None  # the sets, read once on the first measurement

    def mistake_rates(self, version: int, weights: Mapping) -> dict:
        """Mistake rates of ``weights`` with the arena's greedy search on every labelled set of the
        game (``arena.accuracy.network_mistake_rates``): ``{"version": int, "rates": {set: share}}``."""
        self.candidate.set_weights({k: np.array(_to_numpy(v)) for k, v in weights.items()}, version=version)
        evaluate = self._evaluate_of("candidate", weights_hash(weights))
        if self._labelled is None:
            names = position_sets(self.game).labelled_set_names()
            if self.extra_labelled_sets:
                names = list(names) + list(self.extra_labelled_sets)
            self._labelled = list(labelled_sets(self.game, names).values())
        rates = network_mistake_rates(self.game, evaluate, self.search_config, self._labelled)
        return {"version": int(version), "rates": {name: float(rate) for name, rate in rates.items()}}

    def measure_best(self, version: int, weights: Mapping) -> dict:
        """Everything measured on a new best model: ``mistake_rates``; where the game can compute it
        (``games.knowledge.Knowledge.exact_policy_match``; Pig), the exact win probability of the
        network's greedy policy against optimal play from each seat, which the labelled sets (drawn
        from optimal and random play) cannot see where the policy's own play goes; and, with a
        rating pool, its rating against the reference players (``arena.rating.RatingPool.rate``;
        the model plays with the arena's search, ``arena.network_players.MCTSPlayer``):
        ``{"version", "rates", "exact": {"as_first", "as_second", "mean_win"} or None,
        "rating": {"elo", "low", "high", "games", "records"} or None}``."""
        out = self.mistake_rates(version, weights)
        evaluate = self._evaluate_of("candidate", weights_hash(weights))
        out["exact"] = games.knowledge(self.game).exact_policy_match(greedy_policy_fn(self.game, evaluate))
        out["rating"] = None
        if self.rating_pool is not None:
            model = MCTSPlayer(
                evaluate, self.search_config, rng=int(version),
                name="model", break_ties=True,
            )
            rating = self.rating_pool.rate(model)
            out["rating"] = {"elo": rating.elo, "low": rating.low, "high": rating.high, "games": rating.num_games,
                             "records": rating.records}
        return out

    def gate(self, candidate_version: int, candidate_weights: Mapping, best_version: int, best_weights: Mapping) -> GateResult:
        """Play the match and decide. Identical weights are refused without playing."""
        candidate_hash, best_hash = weights_hash(candidate_weights), weights_hash(best_weights)
        if candidate_hash == best_hash:
            return GateResult(
                candidate_version, best_version, 0, 0, 0, 0.0, False, 0,
                refused_reason="candidate and best have identical weights",
            )
        # copies: arrays that arrive through Ray's object store are read-only views
        self.candidate.set_weights({k: np.array(_to_numpy(v)) for k, v in candidate_weights.items()}, version=candidate_version)
        self.best.set_weights({k: np.array(_to_numpy(v)) for k, v in best_weights.items()}, version=best_version)
        evaluate_candidate = self._evaluate_of("candidate", candidate_hash)
        evaluate_best = self._evaluate_of("best", best_hash)

        def play(num_games: int) -> MatchResult:
            return run_network_match(
                self.game, evaluate_candidate, evaluate_best, num_games, self.search_config,
                self.rng, self.opening_random_plies,
                names=(f"candidate {candidate_version}", f"best {best_version}"),
                break_ties=True,  # a seeded match: ties between equally visited moves go to each game's stream
            )

        verdict = decide_gate(play, self.gate_config)
        return GateResult(
            candidate_version, best_version, verdict.wins, verdict.draws, verdict.losses, verdict.score,
            verdict.accepted, verdict.distinct_games, sample_game=verdict.sample_game,
            rule=self.gate_config.rule, llr=verdict.llr, pentanomial=verdict.pentanomial,
        )

    def _evaluate_of(self, role: str, weights_key: str):
        """The evaluate function of ``role`` (``"candidate"`` or ``"best"``), whose torch evaluator
        holds the weights hashed ``weights_key``: with ONNX Runtime, exported once per set of weights."""
        evaluator = self.candidate if role == "candidate" else self.best
        if self.inference == "torch":
            return evaluator.evaluate
        cached = self._runtimes.get(role)
        if cached is None or cached[0] != weights_key:
            runtime = onnx_runtime_evaluator(evaluator.model, self.game, self.network_config, self.threads)
            self._runtimes[role] = cached = (weights_key, runtime)
        return cached[1].evaluate
