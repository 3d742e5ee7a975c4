"""Players backed by a network: a registered search guided by it (``mcts.registry``), or its policy alone."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from arena.player_base import legal_actions, make_rng
from games.base import Game
from mcts import algorithm_of, run_search, solver_visit_counts


class MCTSPlayer:
    """A network guiding a registered search (``mcts.run_search``): plays the search's greedy move.

    No root noise; a visit-count search (PUCT, UCT) plays the most visited root child (the robust
    child, Browne et al. 2012, sec. 3.3.3), and Gumbel its Sequential Halving winner. Ties between
    equally visited children go to the lowest action index (``break_ties=False``, the default: the
    same position gives the same answer, as the engine protocol of docs/engine_protocol.md and the
    mistake rates of arena/accuracy.py need), or to the highest Q among them and then ``rng``
    (``break_ties=True``: an untrained network ties often, and the lowest index would always play
    the same move). ``mcts:`` player specs (arena/specs.py) are seeded arena players and break
    ties; the engine protocol does not. With the MCTS-solver the proofs decide first
    (``mcts.registry``'s move choice).

    Args:
        evaluate_fn: batched evaluator, ``(observations [B, C, H, W] float32, legal_mask [B, A]
            bool) -> (priors [B, A], values [B])``, values for the player to move.
        search_config: the frozen settings of a registered search (``mcts.PUCTConfig``,
            ``mcts.GumbelConfig``, ...); its ``num_simulations`` is the budget per move.
        leaves_per_call: leaves sent to the network per call, >= 1: above 1 the PUCT search collects
            them with virtual loss (``mcts.minibatch.run_puct_minibatch``, Leela's minibatches);
            1 (the default) sends one leaf per call. A game with chance states is always searched
            one leaf per call.
        time_limit: seconds per move, or None: the search stops starting rounds after it, and
            ``num_simulations`` is then the most simulations a move (PUCT, ``mcts.minibatch``).
        break_ties: break ties between the most visited children by Q value, then with ``rng``.

    Raises:
        ValueError: for settings of no registered search, ``leaves_per_call`` < 1 or ``time_limit``
            < 0; for a search that takes neither (``analyze``: Gumbel, UCT, the MCTS-solver) or a
            game with chance states with a time limit.
    """

    def __init__(
        self,
        evaluate_fn,
        search_config,
        rng: np.random.Generator | int = 0,
        name: str | None = None,
        leaves_per_call: int = 1,
        time_limit: float | None = None,
        break_ties: bool = False,
    ) -> None:
        algorithm_of(search_config)  # settings of a registered search, or ValueError
        if isinstance(leaves_per_call, bool) or not isinstance(leaves_per_call, int) or leaves_per_call < 1:
            raise ValueError(f"leaves_per_call must be an integer >= 1, got {leaves_per_call!r}")
        if time_limit is not None and not time_limit >= 0:
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit}")
        self.config = search_config
        self.leaves_per_call = leaves_per_call
        self.time_limit = time_limit
        self.evaluate_fn = evaluate_fn
        self.rng = make_rng(rng)
        self.break_ties = bool(break_ties)
        self.name = name if name is not None else f"mcts({search_config.num_simulations})"

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
        leaves = 1 if game.num_chance_outcomes else self.leaves_per_call
        output = run_search(
            game, row, self.evaluate_fn, self.config, self.rng, ties="q" if self.break_ties else "lowest",
            leaves_per_call=leaves, time_limit=self.time_limit,
        )
        best = int(output.actions[0])
        return Analysis(
            to_move=game.player(state),
            priors=priors,
            network_value=value,
            visit_counts=solver_visit_counts(output)[0].astype(np.int64),  # the proofs decide first
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
