"""The hybrid player: alpha-beta with a policy/value network as its evaluation and move ordering.

``alphabeta:depth=N,model=PATH`` and ``alphabeta:time=S,model=PATH`` (``arena.specs``) build one.
The search is ``search.alphabeta.AlphaBeta`` with ``search.hybrid.NetworkEvaluation`` plugged in:
the network's value replaces the heuristic at the horizon and in quiescence, proven results stay
above every network value, and the policy orders the moves after the transposition-table move.
"""

from __future__ import annotations

import numpy as np

from arena.players import AlphaBetaPlayer
from games.base import Game
from search.hybrid import BatchedEvaluateFn, NetworkEvaluation
from search.minimax import NoisyActionsFn


class HybridAlphaBetaPlayer(AlphaBetaPlayer):
    """``AlphaBetaPlayer`` whose evaluation and move ordering come from a network.

    Args:
        game: the game the network plays (its observations encode the positions).
        evaluate_fn: batched evaluator, ``(observations [B, C, H, W] float32, legal_mask [B, A]
            bool) -> (priors [B, A], values [B])``, values in ``[-1, 1]`` for the player to move
            (an export folder's ONNX Runtime evaluator, or a torch one).
        depth, time_limit, rng, noisy_actions_fn, name: as ``AlphaBetaPlayer``.

    Raises:
        ValueError: as ``AlphaBetaPlayer``; from ``select_action``, as
            ``search.hybrid.NetworkEvaluation`` (a network value outside ``[-1, 1]``) and for a
            game other than ``game``.

    Attributes:
        network: the ``NetworkEvaluation`` (its ``num_calls`` and ``num_positions`` count the
            network's work over the player's life).
    """

    def __init__(
        self,
        game: Game,
        evaluate_fn: BatchedEvaluateFn,
        depth: int | None = None,
        time_limit: float | None = None,
        rng: np.random.Generator | int = 0,
        noisy_actions_fn: NoisyActionsFn | None = None,
        name: str | None = None,
    ) -> None:
        self.network = NetworkEvaluation(game, evaluate_fn)
        self.game = game
        super().__init__(
            depth=depth,
            time_limit=time_limit,
            rng=rng,
            evaluate_fn=self.network.evaluate,
            noisy_actions_fn=noisy_actions_fn,
            name=name,
            expand_fn=self.network.expand,
        )
        if name is None:
            self.name = self.name.replace("alphabeta(", "alphabeta+network(")

    def select_action(self, game: Game, state: tuple) -> int:
        if type(game) is not type(self.game):
            raise ValueError(f"this network plays {self.game.name}, got a {game.name} position")
        return super().select_action(game, state)
