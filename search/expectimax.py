"""Depth-limited search in games with chance: expectiminimax and Ballard's *-minimax (star1, star2).

Sources:

* expectiminimax: Michie, "Game-playing and game-learning automata" (1966); Russell & Norvig,
  *Artificial Intelligence: A Modern Approach*, 3rd ed., section 5.5 (EXPECTIMINIMAX);
* star1 and star2: Ballard, "The *-minimax search procedure for trees containing chance nodes",
  *Artificial Intelligence* 21 (1983), in the negamax form of Hauk, Buro & Schaeffer,
  "Rediscovering *-Minimax Search", *Computers and Games* 2004, sections 3-4.

**Value convention.** Negamax generalised to games where a player may move twice in a row: every
value is for the player to move at that node (at a chance node, the player whose decision led to
it), and a child's value is negated only when the child's player differs. A finished state is
worth ``game.utility`` (+1 / 0 / -1); a non-terminal state at the horizon is worth
``evaluate_fn(state)``, which must stay within ``[-bound, bound]``. Every value therefore lies in
``[L, U] = [-max(bound, 1), max(bound, 1)]``: star1 and star2 need those bounds to cut chance
nodes.

**Depth** counts decisions, not chance events (OpenSpiel's ``expectiminimax`` convention): a search
of depth ``d`` looks ``d`` decisions ahead and every chance node on the way is expanded fully; a
node reached with depth 0 (a decision or a chance node) is evaluated.

**Exactness.** Decision nodes use alpha-beta (fail-soft). A chance node under star1 narrows each
child's window so that the node's expected value is only bounded once it cannot fall inside the
parent's window (Ballard's fail-low / fail-high cut-offs); star2 first *probes* every child with
one successor (its first action), which bounds the child's value from one side, and cuts when
those bounds already settle the node. Inside the window every value is computed as the same sum in
the same order as expectiminimax, so star1 and star2 return exactly expectiminimax's value at the
root, with fewer nodes. Ties at the root go to the lowest action index.
"""

from __future__ import annotations

import math
import time
from collections.abc import Callable
from dataclasses import dataclass

import games
from games.base import Game

EvaluateFn = Callable[[tuple], float]
#: the algorithms of ``ChanceSearch``
ALGORITHMS = ("expectimax", "star1", "star2")
#: nodes between two clock checks in a timed search
TIME_CHECK_INTERVAL = 256


class SearchTimeout(Exception):
    """Raised inside a timed search when its deadline passes; the iteration is discarded."""


@dataclass(frozen=True)
class ChanceSearchResult:
    """One depth-limited search from a decision state.

    Attributes:
        value: the root's value for the player to move, in ``[L, U]``.
        action: the best action (lowest index among equals).
        depth: decisions searched.
        nodes: nodes visited (decision, chance, terminal and horizon nodes).
        algorithm: ``"expectimax"``, ``"star1"`` or ``"star2"``.
    """

    value: float
    action: int
    depth: int
    nodes: int
    algorithm: str


def zero_evaluate(state: tuple) -> float:
    """The evaluation of a game without a heuristic: 0 at the horizon."""
    return 0.0


class ChanceSearch:
    """Expectiminimax, star1 or star2 to a depth, or by iterative deepening under a time limit.

    Args:
        game: any ``games.base.Game`` (deterministic games work too: no chance node is met).
        algorithm: one of ``ALGORITHMS``.
        evaluate_fn: static evaluation of a non-terminal state for its player to move; default the
            game's ``Knowledge.heuristic_fn()`` with its ``heuristic_bound``, else 0.
        bound: ``|evaluate_fn(state)| <= bound`` for every state (required with ``evaluate_fn``).

    Raises:
        ValueError: for an unknown algorithm, an ``evaluate_fn`` without a finite ``bound`` >= 0;
            from a search, for a root that is finished or a chance state, a depth < 1, or an
            evaluation outside ``[-bound, bound]``.
    """

    def __init__(
        self,
        game: Game,
        algorithm: str = "star2",
        evaluate_fn: EvaluateFn | None = None,
        bound: float | None = None,
    ) -> None:
        if algorithm not in ALGORITHMS:
            raise ValueError(f"unknown algorithm {algorithm!r}; expected one of {list(ALGORITHMS)}")
        knowledge = games.knowledge(game)
        if evaluate_fn is None:
            evaluate_fn = knowledge.heuristic_fn()
            bound = float(knowledge.heuristic_bound) if evaluate_fn is not None else 0.0
            evaluate_fn = evaluate_fn if evaluate_fn is not None else zero_evaluate
        elif bound is None or not (isinstance(bound, (int, float)) and math.isfinite(bound) and bound >= 0):
            raise ValueError(f"an evaluate_fn needs its bound: a finite number >= 0, got {bound!r}")
        self.game = game
        self.algorithm = algorithm
        self.evaluate_fn = evaluate_fn
        self.bound = float(bound)
        self.upper = max(1.0, self.bound)
        self.lower = -self.upper
        self.nodes = 0
        self._deadline: float | None = None
        self._order = {a: i for i, a in enumerate(knowledge.action_order())}

    # ------------------------------------------------------------------ public searches
    def search(self, state: tuple, depth: int) -> ChanceSearchResult:
        """Search ``depth`` decisions ahead of the decision ``state``.

        Raises:
            ValueError: if ``state`` is finished or a chance state, or ``depth`` < 1.
        """
        return self._root(state, depth, None)

    def iterative_deepening(
        self, state: tuple, time_limit: float, max_depth: int | None = None
    ) -> ChanceSearchResult:
        """Depths 1, 2, ... until ``time_limit`` seconds pass (or ``max_depth``): the deepest
        completed search. Depth 1 always completes; a deeper one is abandoned when the clock,
        checked every ``TIME_CHECK_INTERVAL`` nodes inside the search, passes the deadline.

        Raises:
            ValueError: as ``search``, and for ``time_limit`` < 0 or ``max_depth`` < 1.
        """
        if not (isinstance(time_limit, (int, float)) and time_limit >= 0):
            raise ValueError(f"time_limit must be >= 0 seconds, got {time_limit!r}")
        if max_depth is not None and (isinstance(max_depth, bool) or not isinstance(max_depth, int) or max_depth < 1):
            raise ValueError(f"max_depth must be an integer >= 1, got {max_depth!r}")
        deadline = time.perf_counter() + time_limit
        result = self._root(state, 1, None)
        depth = 1
        while max_depth is None or depth < max_depth:
            depth += 1
            if time.perf_counter() >= deadline:
                break
            try:
                result = self._root(state, depth, deadline)
            except SearchTimeout:
                break
            if abs(result.value) >= 1.0 and self.bound < 1.0:
                break  # a proven result: deeper searches cannot change it
        return result

    # ------------------------------------------------------------------ the root
    def _root(self, state: tuple, depth: int, deadline: float | None) -> ChanceSearchResult:
        game = self.game
        if isinstance(depth, bool) or not isinstance(depth, int) or depth < 1:
            raise ValueError(f"depth must be an integer >= 1 decision, got {depth!r}")
        if game.terminal_test(state):
            raise ValueError(f"{game.name}: expected a decision state, got a finished one: {state}")
        if game.is_chance_state(state):
            raise ValueError(f"{game.name}: expected a decision state, got a chance state: {state}")
        self.nodes = 1
        self._deadline = deadline
        player = game.player(state)
        best_value, best_action = -math.inf, -1
        for action in game.actions(state):  # increasing: the lowest index wins ties
            child = game.result(state, action)
            if self.algorithm == "expectimax":
                value = self._value_from(player, child, depth - 1, -math.inf, math.inf)
            else:
                alpha = best_value if best_value > -math.inf else -math.inf
                value = self._value_from(player, child, depth - 1, alpha, math.inf)
            if value > best_value:
                best_value, best_action = value, action
        self._deadline = None
        return ChanceSearchResult(float(best_value), int(best_action), depth, self.nodes, self.algorithm)

    # ------------------------------------------------------------------ recursion
    def _tick(self) -> None:
        self.nodes += 1
        if self._deadline is not None and self.nodes % TIME_CHECK_INTERVAL == 0:
            if time.perf_counter() >= self._deadline:
                raise SearchTimeout

    def _evaluate(self, state: tuple) -> float:
        value = float(self.evaluate_fn(state))
        if not abs(value) <= self.bound:
            raise ValueError(f"evaluation {value!r} outside [-{self.bound}, {self.bound}] at {state}")
        return value

    def _value_from(self, player: int, child: tuple, depth: int, alpha: float, beta: float) -> float:
        """``child``'s value for ``player`` (the parent's player), searched in window ``(alpha, beta)``
        of ``player``'s view."""
        if self.game.player(child) == player:
            return self._node(child, depth, alpha, beta)
        return -self._node(child, depth, -beta, -alpha)

    def _node(self, state: tuple, depth: int, alpha: float, beta: float) -> float:
        """Value of ``state`` for its player to move; fail-soft: a result <= alpha is an upper
        bound, >= beta a lower bound, in between exact."""
        self._tick()
        game = self.game
        if game.terminal_test(state):
            return game.utility(state, game.player(state))
        if depth == 0:
            return self._evaluate(state)
        if game.is_chance_state(state):
            if self.algorithm == "expectimax":
                return self._expectation(state, depth)
            return self._chance(state, depth, alpha, beta, probe=self.algorithm == "star2")
        player = game.player(state)
        actions = game.actions(state)
        if self.algorithm != "expectimax":
            actions = sorted(actions, key=self._order.__getitem__)
        best = -math.inf
        for action in actions:
            value = self._value_from(player, game.result(state, action), depth - 1, max(alpha, best), beta)
            if value > best:
                best = value
                if self.algorithm != "expectimax" and best >= beta:
                    break
        return best

    def _expectation(self, state: tuple, depth: int) -> float:
        game = self.game
        player = game.player(state)
        total = 0.0
        for outcome, probability in game.chance_outcomes(state):
            total += probability * self._value_from(player, game.chance_result(state, outcome), depth, -math.inf, math.inf)
        return total

    def _probe(self, player: int, child: tuple, depth: int, alpha: float, beta: float) -> float:
        """The value for ``player`` of ``child``'s first action (in the game's action order): a
        bound on ``child``'s value from the side of ``child``'s player (Ballard's probe)."""
        self._tick()
        first = min(self.game.actions(child), key=self._order.__getitem__)
        return self._value_from(player, self.game.result(child, first), depth - 1, alpha, beta)

    def _chance(self, state: tuple, depth: int, alpha: float, beta: float, probe: bool) -> float:
        """Star1 (``probe`` False) or star2 (``probe`` True) at a chance node (Ballard 1983)."""
        game = self.game
        player = game.player(state)
        lower, upper = self.lower, self.upper
        outcomes = game.chance_outcomes(state)
        children = [game.chance_result(state, outcome) for outcome, _ in outcomes]
        probabilities = [p for _, p in outcomes]
        low = [lower] * len(children)  # bounds of each child's value for ``player``
        high = [upper] * len(children)
        if probe:  # star2's probing phase: one successor of each child bounds it from one side
            for i, child in enumerate(children):
                p = probabilities[i]
                rest_low = sum(q * v for j, (q, v) in enumerate(zip(probabilities, low)) if j != i)
                rest_high = sum(q * v for j, (q, v) in enumerate(zip(probabilities, high)) if j != i)
                if game.terminal_test(child) or depth == 0 or game.is_chance_state(child):
                    continue  # bounded by its full search below
                if game.player(child) == player:  # the child maximises for us: a lower bound
                    cut = (beta - rest_low) / p
                    if cut >= upper:
                        continue  # no value of this child can reach beta: a probe cannot cut
                    w = self._probe(player, child, depth, -math.inf, cut)
                    low[i] = max(low[i], w)
                    if rest_low + p * low[i] >= beta:
                        return rest_low + p * low[i]
                else:  # the opponent moves there: its one move bounds our value from above
                    cut = (alpha - rest_high) / p
                    if cut <= lower:
                        continue  # no value of this child can fall to alpha: a probe cannot cut
                    w = self._probe(player, child, depth, cut, math.inf)
                    high[i] = min(high[i], w)
                    if rest_high + p * high[i] <= alpha:
                        return rest_high + p * high[i]
        # star1's search phase with the bounds known so far
        for i, child in enumerate(children):
            p = probabilities[i]
            rest_low = sum(q * v for j, (q, v) in enumerate(zip(probabilities, low)) if j != i)
            rest_high = sum(q * v for j, (q, v) in enumerate(zip(probabilities, high)) if j != i)
            window_low = max((alpha - rest_high) / p, lower)
            window_high = min((beta - rest_low) / p, upper)
            value = self._value_from(player, child, depth, window_low, window_high)
            if value >= window_high and window_high < upper:
                return rest_low + p * value  # fail high: a lower bound >= beta
            if value <= window_low and window_low > lower:
                return rest_high + p * value  # fail low: an upper bound <= alpha
            low[i] = high[i] = value
        total = 0.0
        for p, value in zip(probabilities, low):
            total += p * value
        return total
