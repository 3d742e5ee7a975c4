"""Pig's knowledge (``games.knowledge.Knowledge``): the banked-score heuristic and the exact
value-iteration solver (``games.pig.solver``)."""

from __future__ import annotations

import numpy as np

from games.knowledge import Knowledge
from games.pig.game import HOLD, ROLL, SCORE_0, SCORE_1, TO_PLAY, TURN_TOTAL
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

    def banked_scores(self) -> list[int]:
        """Every score a player can have banked before the goal: 0 and 2 to ``goal - 1`` (a turn
        banks the sum of faces of 2 or more, so a score of 1 is never reached)."""
        return [0, *range(2, self.game.goal)]

    def exploring_start(self, rng: np.random.Generator) -> list[int]:
        """Events to a turn-start state drawn uniformly over the player to move and the two banked
        scores (``banked_scores``), with a turn total of 0.

        The first player banks their score in one turn, the second player theirs, and when the
        second player is to move the first then holds at a turn total of 0 (a pass). A score of 0 is
        banked by holding at once; another by rolling faces of 2 or more that sum to it (the
        largest face that leaves no remainder of 1, so about ``score / die`` rolls), then holding.
        Two good players seldom both near the goal (``docs/results/pig.md``, "Why the search does
        not help, and random openings"): a uniform draw puts one start in 25 where both scores are
        at least ``0.8 goal``.

        Args:
            rng: the only source of randomness of the draw.

        Returns:
            the events (``games.pig.game``'s move strings: 0 roll, 1 hold, ``face - 1`` for a die).
        """
        banked = self.banked_scores()
        to_play = int(rng.integers(2))
        own, opponent = (banked[int(i)] for i in rng.integers(len(banked), size=2))
        first, second = (own, opponent) if to_play == 0 else (opponent, own)
        events = self._bank(first) + self._bank(second)
        return events + [HOLD] if to_play == 1 else events

    def _bank(self, score: int) -> list[int]:
        """Events of one turn that banks ``score`` (0 or at least 2) and holds."""
        events = []
        while score:
            face = min(self.game.die, score)
            if score - face == 1:
                face -= 1
            events += [ROLL, face - 1]
            score -= face
        return events + [HOLD]

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
