"""Players backed by a network: PUCT search guided by it, or its policy alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.player_base import legal_actions, make_rng
from games.base import Game
from mcts import PUCTConfig, argmax_random_ties, run_puct, solver_visit_counts
from mcts.minibatch import run_puct_minibatch


class MCTSPlayer:
    """A network guiding PUCT search (``mcts.run_puct``): plays the most visited root child.

    No root noise and greedy move choice (arena and play searches use no Dirichlet noise; the robust child, Browne et al. 2012, sec. 3.3.3): ties between equally visited
    children go to the lowest action index (``break_ties=False``, the default: the same position gives
    the same answer, as the engine protocol of docs/engine_protocol.md and the mistake rates of
    arena/accuracy.py need), or are broken by ``rng`` (``break_ties=True``: an untrained network
    ties often, and the lowest index would always play the same move); then the highest Q among
    the tied children wins, and the generator picks among equal Q values. ``mcts:`` player specs
    (arena/specs.py) are seeded arena players and break ties; the engine protocol does not.

    Args:
        evaluate_fn: batched evaluator, ``(observations [B, C, H, W] float32, legal_mask [B, A]
            bool) -> (priors [B, A], values [B])``, values for the player to move.
        num_simulations: simulations per move, >= 1.
        c_puct: PUCT exploration constant, >= 0.
        leaves_per_call: leaves sent to the network per call, >= 1: above 1 the search collects
            them with virtual loss (``mcts.minibatch.run_puct_minibatch``, Leela's minibatches);
            1 (the default) is ``mcts.run_puct``'s search, one leaf per call. A game with chance
            states is always searched one leaf per call (``mcts.run_puct``'s chance nodes).
        time_limit: seconds per move, or None: the search stops starting rounds after it, and
            ``num_simulations`` is then the most simulations a move (``mcts.minibatch``).
        break_ties: break ties between the most visited children by Q value, then with ``rng``.
        chance: how chance nodes are searched in a game with chance, ``"expectation"`` or
            ``"sampling"`` (``mcts.PUCTConfig.chance``).
        solver: MCTS-solver proofs in the search (``mcts.PUCTConfig.solver``; Winands et al. 2008),
            and the proofs decide the move first (``mcts.solver_visit_counts``: a proven win is
            played, a proven loss avoided). Searches one leaf per call, without a time limit.

    Raises:
        ValueError: if ``num_simulations`` < 1, ``c_puct`` < 0, ``chance`` unknown (from ``mcts.PUCTConfig``),
            ``leaves_per_call`` < 1 or ``time_limit`` < 0; with ``solver``, for ``leaves_per_call`` above
            1, a ``time_limit`` or a game with chance states (``select_action``).
    """

    def __init__(
        self,
        evaluate_fn,
        num_simulations: int = 200,
        c_puct: float = 1.25,
        rng: np.random.Generator | int = 0,
        name: str | None = None,
        leaves_per_call: int = 1,
        time_limit: float | None = None,
        break_ties: bool = False,
        chance: str = "expectation",
        solver: bool = False,
    ) -> None:
        if isinstance(leaves_per_call, bool) or not isinstance(leaves_per_call, int) or leaves_per_call < 1:
            raise ValueError(f"leaves_per_call must be an integer >= 1, got {leaves_per_call!r}")
        if solver and (leaves_per_call > 1 or time_limit is not None):
            raise ValueError(
                "the MCTS-solver searches one leaf per call without a time limit: expected leaves_per_call=1 "
                f"and no time_limit, got {leaves_per_call} and {time_limit}"
            )
        self.config = PUCTConfig(num_simulations=num_simulations, c_puct=c_puct, chance=chance, solver=bool(solver))
        if time_limit is not None and not time_limit >= 0:
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit}")
        self.leaves_per_call = leaves_per_call
        self.time_limit = time_limit
        self.evaluate_fn = evaluate_fn
        self.rng = make_rng(rng)
        self.break_ties = bool(break_ties)
        self.name = name if name is not None else f"mcts({num_simulations})"

    def analyze(self, game: Game, state: tuple) -> Analysis:
        """Network priors and value plus the search's visit counts and Q values for ``state``."""
        legal_actions(game, state)
        row = np.asarray(state, dtype=np.int64).reshape(1, -1)
        priors, value = _evaluate_one(game, self.evaluate_fn, row)
        if game.num_chance_outcomes and self.time_limit is not None:
            raise ValueError(
                f"{self.name}: a time limit searches games without chance; {game.name} has chance states: "
                "give a number of simulations (sims=N) instead"
            )
        if not game.num_chance_outcomes and (self.leaves_per_call > 1 or self.time_limit is not None):
            output = run_puct_minibatch(
                game, row, self.evaluate_fn, self.config, self.rng, self.leaves_per_call, self.time_limit
            )
        else:
            output = run_puct(game, row, self.evaluate_fn, self.config, self.rng, add_root_noise=False)
        if self.config.solver:
            visits = solver_visit_counts(output)[0].astype(np.int64)  # the proofs decide first
        else:
            visits = output.visit_counts[0].astype(np.int64)
        if self.break_ties:
            # the most visited children; among them the highest Q, then the generator
            most = visits == visits.max()
            q_values = output.q_values[0].astype(np.float64)
            best_q = np.where(most, q_values, -2.0)  # -2: below every Q value in [-1, 1]
            best = int(argmax_random_ties(best_q[None], self.rng)[0])
        else:
            best = int(np.argmax(visits))
        return Analysis(
            to_move=game.player(state),
            priors=priors,
            network_value=value,
            visit_counts=visits,
            q_values=output.q_values[0].astype(np.float64),
            value=float(output.q_values[0, best]),
            best_action=best,
        )

    def select_action(self, game: Game, state: tuple) -> int:
        return self.analyze(game, state).best_action


class PolicyPlayer:
    """The network alone: the legal action with the largest masked prior (lowest index on ties).

    ``rng`` is unused (the choice is deterministic) but kept for the player interface.
    """

    def __init__(self, evaluate_fn, rng: np.random.Generator | int = 0, name: str = "policy") -> None:
        self.evaluate_fn = evaluate_fn
        self.rng = make_rng(rng)
        self.name = name

    def analyze(self, game: Game, state: tuple) -> Analysis:
        """Network priors and value; no search (visit counts are zero)."""
        legal_actions(game, state)
        row = np.asarray(state, dtype=np.int64).reshape(1, -1)
        priors, value = _evaluate_one(game, self.evaluate_fn, row)
        legal = game.legal_mask(row)[0]
        best = int(np.argmax(np.where(legal, priors, -1.0)))
        return Analysis(
            to_move=game.player(state),
            priors=priors,
            network_value=value,
            visit_counts=np.zeros(game.num_actions, dtype=np.int64),
            q_values=np.full(game.num_actions, np.nan),
            value=value,
            best_action=best,
        )

    def select_action(self, game: Game, state: tuple) -> int:
        return self.analyze(game, state).best_action


@dataclass
class Analysis:
    """A model's view of one position.

    Attributes:
        to_move: the player to move (0 = first player, X).
        priors: ``[A]`` float, masked network policy (0 on illegal actions, sums to 1).
        network_value: the network's value in ``[-1, 1]`` for the player to move.
        visit_counts: ``[A]`` int64 root visit counts (all 0 without search).
        q_values: ``[A]`` float, Q(root, a) for the player to move; NaN where unvisited.
        value: the search's value for the player to move: Q of ``best_action`` (the network value
            without search).
        best_action: the move the model plays (0-based).
    """

    to_move: int
    priors: np.ndarray
    network_value: float
    visit_counts: np.ndarray
    q_values: np.ndarray
    value: float
    best_action: int

    def value_for(self, player: int) -> float:
        """``value`` from the view of ``player`` (0 or 1): negated when ``player`` is not to move."""
        return self.value if player == self.to_move else -self.value


def _evaluate_one(game: Game, evaluate_fn, row: np.ndarray) -> tuple[np.ndarray, float]:
    legal = game.legal_mask(row)
    priors, values = evaluate_fn(game.observation(row), legal)
    priors = np.where(legal[0], np.asarray(priors, dtype=np.float64)[0], 0.0)
    total = priors.sum()
    priors = priors / total if total > 0 else legal[0] / legal[0].sum()
    return priors, float(np.clip(np.asarray(values, dtype=np.float64)[0], -1.0, 1.0))
