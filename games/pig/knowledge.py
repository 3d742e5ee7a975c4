"""Pig's knowledge (``games.knowledge.Knowledge``): the banked-score heuristic and the exact
value-iteration solver (``games.pig.solver``)."""

from __future__ import annotations

from games.knowledge import Knowledge
from games.pig.game import SCORE_0, SCORE_1, TO_PLAY, TURN_TOTAL
from games.pig.policy_chain import policy_match_against_optimal
from games.pig.solver import solver_for


class PigKnowledge(Knowledge):
    """What Pig's searches and players know beyond the rules (``games.pig.game.Pig``)."""

    #: bound of ``heuristic_fn`` (its values are clipped to [-1, 1])
    heuristic_bound = 1.0
    #: the dice make every game different
    default_opening_plies = 0

    def heuristic_fn(self):
        """Static evaluation for depth-limited search: ``(own + turn total - opponent) / goal`` for
        the player to move (the rolling player at a chance state), in ``[-1, 1]``
        (``heuristic_bound``)."""
        goal = float(self.game.goal)

        def evaluate(state: tuple) -> float:
            player = state[TO_PLAY]
            own = state[SCORE_0 + player] + state[TURN_TOTAL]
            value = (own - state[SCORE_1 - player]) / goal
            return max(-1.0, min(1.0, value))

        return evaluate

    def exact_solver(self):
        """The value-iteration solver of this goal and die (``games.pig.solver.PigSolver``), cached."""
        return solver_for(self.game)

    def exact_policy_match(self, policy_fn) -> dict:
        """Exact win probabilities of a stationary policy against optimal play from each seat, by
        solving the Markov chain the two policies make (``games.pig.policy_chain``).

        Args:
            policy_fn: ``policy_fn(states)``: ``[B, 8]`` int64 decision states to ``[B]`` actions.

        Returns:
            ``{"as_first": {"win", "loss", "unfinished"}, "as_second": {...}, "mean_win"}``.

        Raises:
            ValueError: if ``policy_fn`` answers with anything but ``[B]`` actions in {0, 1}.
        """
        return policy_match_against_optimal(self.game, policy_fn)
