"""Counterfactual regret minimisation on a flat game tree: CFR, CFR+ and external-sampling MCCFR.

* CFR (Zinkevich et al. 2007, "Regret Minimization in Games with Incomplete Information", sec. 3,
  eq. 7-8): each iteration computes every information state's counterfactual regrets under the
  current policy; the next policy is regret matching on the cumulative regrets; the average
  policy (weighted by the player's own reach) converges to a Nash equilibrium.
* CFR+ (Tammelin 2014, "Solving Large Imperfect Information Games Using CFR+", sec. 3; Tammelin et
  al. 2015, IJCAI): regret matching+ (cumulative regrets clipped at 0 after each update) and
  linear averaging (iteration ``t`` weighs ``t``).
* External-sampling Monte Carlo CFR (Lanctot et al. 2009, "Monte Carlo Sampling for Regret
  Minimization in Extensive Games", sec. 3.2, algorithm 1): the traverser explores all its actions;
  chance and the opponent sample one; the opponent's average policy gains its current policy at
  each visit ("simple" averaging, as OpenSpiel's ``external_sampling_mccfr``).

All three update the players in turn (alternating updates: player 0's traversal, then player 1's
with player 0's new policy), as OpenSpiel's ``CFRSolver`` and ``CFRPlusSolver`` do. One iteration
is one traversal for each player. Whole runs of iterations execute inside one Numba-compiled call
over the breadth-first arrays of ``search.game_tree`` (no Python per node).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np
from numba import njit

from search.game_tree import CHANCE_NODE, DECISION, TERMINAL_NODE, GameTree, TreeArrays

ALGORITHMS = ("cfr", "cfr+", "mccfr")


class RegretTables(NamedTuple):
    """The solver's cumulative tables, passed to the kernels as one record (Numba compiles a
    NamedTuple of arrays as a plain tuple, without copying).

    Attributes:
        regret: `[I, A]` float64 cumulative counterfactual regrets.
        strategy_sum: `[I, A]` float64 sums of the current policies (the average policy's mass).
    """

    regret: np.ndarray
    strategy_sum: np.ndarray


class ReachScratch(NamedTuple):
    """Working arrays of one full-tree traversal, `[N]` float64 each: the traverser's reach, the
    others' (chance included) reach, and each node's value for the traverser."""

    reach_self: np.ndarray
    reach_other: np.ndarray
    value: np.ndarray


class SamplingScratch(NamedTuple):
    """Working arrays of one external-sampling traversal: ``sigma`` `[A]` float64 (a current
    policy row), ``value`` `[N]` float64, ``sampled`` `[N]` int64 (the child sampled at each chance
    or opponent node) and ``stack`` `[2N + 1]` int64."""

    sigma: np.ndarray
    value: np.ndarray
    sampled: np.ndarray
    stack: np.ndarray


@njit(cache=True)
def _regret_matching(regret, legal, out_policy, player, infostate_player):  # pragma: no cover - compiled
    """Rows of ``player``: positive regrets normalised, uniform over legal actions when none is > 0."""
    num_actions = regret.shape[1]
    for state in range(regret.shape[0]):
        if infostate_player[state] != player:
            continue
        total = 0.0
        count = 0
        for a in range(num_actions):
            if legal[state, a]:
                count += 1
                if regret[state, a] > 0.0:
                    total += regret[state, a]
        for a in range(num_actions):
            if not legal[state, a]:
                out_policy[state, a] = 0.0
            elif total > 0.0:
                out_policy[state, a] = max(regret[state, a], 0.0) / total
            else:
                out_policy[state, a] = 1.0 / count


@njit(cache=True)
def _traverse_full(tree: TreeArrays, policy, tables: RegretTables, player, weight, scratch: ReachScratch):  # pragma: no cover
    """One full-tree CFR traversal for ``player``: regrets and average-policy sums of its states."""
    regret, strategy_sum = tables.regret, tables.strategy_sum
    reach_self, reach_other, value = scratch.reach_self, scratch.reach_other, scratch.value
    num_nodes = tree.kind.shape[0]
    reach_self[0] = 1.0
    reach_other[0] = 1.0
    for node in range(num_nodes):
        kind = tree.kind[node]
        if kind == TERMINAL_NODE:
            continue
        first = tree.first_child[node]
        for child in range(first, first + tree.num_children[node]):
            if kind == CHANCE_NODE:
                reach_self[child] = reach_self[node]
                reach_other[child] = reach_other[node] * tree.chance_probability[child]
            elif tree.player[node] == player:
                reach_self[child] = reach_self[node] * policy[tree.infostate[node], tree.action[child]]
                reach_other[child] = reach_other[node]
            else:
                reach_self[child] = reach_self[node]
                reach_other[child] = reach_other[node] * policy[tree.infostate[node], tree.action[child]]
    sign = 1.0 if player == 0 else -1.0
    for node in range(num_nodes - 1, -1, -1):
        kind = tree.kind[node]
        first = tree.first_child[node]
        stop = first + tree.num_children[node]
        if kind == TERMINAL_NODE:
            value[node] = sign * tree.utility[node]
        elif kind == CHANCE_NODE:
            total = 0.0
            for child in range(first, stop):
                total += tree.chance_probability[child] * value[child]
            value[node] = total
        else:
            state = tree.infostate[node]
            total = 0.0
            for child in range(first, stop):
                total += policy[state, tree.action[child]] * value[child]
            value[node] = total
            if tree.player[node] == player:
                for child in range(first, stop):
                    a = tree.action[child]
                    regret[state, a] += reach_other[node] * (value[child] - total)
                    strategy_sum[state, a] += weight * reach_self[node] * policy[state, a]


@njit(cache=True)
def _run_cfr(tree: TreeArrays, policy, regret, strategy_sum, first_iteration, num_iterations, plus):  # pragma: no cover
    """Iterations ``first_iteration + 1 .. first_iteration + num_iterations`` of CFR or CFR+."""
    num_nodes = tree.kind.shape[0]
    scratch = ReachScratch(np.empty(num_nodes), np.empty(num_nodes), np.empty(num_nodes))
    tables = RegretTables(regret, strategy_sum)
    for iteration in range(first_iteration + 1, first_iteration + num_iterations + 1):
        weight = float(iteration) if plus else 1.0
        for player in range(2):
            _traverse_full(tree, policy, tables, player, weight, scratch)
            if plus:
                for state in range(regret.shape[0]):
                    if tree.infostate_player[state] == player:
                        for a in range(regret.shape[1]):
                            regret[state, a] = max(regret[state, a], 0.0)
            _regret_matching(regret, tree.infostate_legal, policy, player, tree.infostate_player)


@njit(cache=True)
def _current_policy_row(regret, legal, state, out):  # pragma: no cover - compiled
    total = 0.0
    count = 0
    for a in range(regret.shape[1]):
        if legal[state, a]:
            count += 1
            if regret[state, a] > 0.0:
                total += regret[state, a]
    for a in range(regret.shape[1]):
        if not legal[state, a]:
            out[a] = 0.0
        elif total > 0.0:
            out[a] = max(regret[state, a], 0.0) / total
        else:
            out[a] = 1.0 / count


@njit(cache=True)
def _resolve(tree: TreeArrays, node, player, sampled):  # pragma: no cover - compiled
    """Follow sampled children through chance and opponent nodes to a traverser or terminal node."""
    while tree.kind[node] == CHANCE_NODE or (tree.kind[node] == DECISION and tree.player[node] != player):
        node = sampled[node]
    return node


@njit(cache=True)
def _external_sampling(tree: TreeArrays, player, tables: RegretTables, uniforms, position, scratch: SamplingScratch):  # pragma: no cover
    """One external-sampling traversal for ``player``; returns the next unused index of ``uniforms``.

    Lanctot et al. 2009, algorithm 1, as a depth-first walk with an explicit stack in the order of
    the recursive algorithm: a traverser's node is pushed, then popped again as ``-(node + 1)``
    once its children are done, to back their values up and update its regrets. A chance or
    opponent node's value is its sampled child's (``_resolve``). ``uniforms``: a stream of U[0, 1)
    draws, one taken from ``position`` on at each chance or opponent node visited (fewer than the
    tree's internal nodes per traversal). ``scratch``: the ``SamplingScratch`` of the run.
    """
    regret, strategy_sum = tables.regret, tables.strategy_sum
    sigma, value, sampled, stack = scratch.sigma, scratch.value, scratch.sampled, scratch.stack
    sign = 1.0 if player == 0 else -1.0
    top = 0
    stack[0] = 0
    while top >= 0:
        entry = stack[top]
        top -= 1
        if entry < 0:  # back up a node of the traverser
            node = -entry - 1
            first = tree.first_child[node]
            stop = first + tree.num_children[node]
            state = tree.infostate[node]
            _current_policy_row(regret, tree.infostate_legal, state, sigma)
            total = 0.0
            for child in range(first, stop):
                total += sigma[tree.action[child]] * value[_resolve(tree, child, player, sampled)]
            for child in range(first, stop):
                regret[state, tree.action[child]] += value[_resolve(tree, child, player, sampled)] - total
            value[node] = total
            continue
        node = entry
        kind = tree.kind[node]
        if kind == TERMINAL_NODE:
            value[node] = sign * tree.utility[node]
            continue
        first = tree.first_child[node]
        stop = first + tree.num_children[node]
        if kind == DECISION and tree.player[node] == player:
            top += 1
            stack[top] = -(node + 1)
            for child in range(stop - 1, first - 1, -1):
                top += 1
                stack[top] = child
            continue
        uniform = uniforms[position]  # chance or the opponent: sample one child
        position += 1
        cumulative = 0.0
        chosen = stop - 1
        if kind == CHANCE_NODE:
            for child in range(first, stop - 1):
                cumulative += tree.chance_probability[child]
                if uniform < cumulative:
                    chosen = child
                    break
        else:
            state = tree.infostate[node]
            _current_policy_row(regret, tree.infostate_legal, state, sigma)
            for a in range(regret.shape[1]):
                strategy_sum[state, a] += sigma[a]
            for child in range(first, stop - 1):
                cumulative += sigma[tree.action[child]]
                if uniform < cumulative:
                    chosen = child
                    break
        sampled[node] = chosen
        top += 1
        stack[top] = chosen
    return position


@njit(cache=True)
def _run_mccfr(tree: TreeArrays, regret, strategy_sum, uniforms, position, num_iterations, draws_per_iteration):  # pragma: no cover
    """Up to ``num_iterations`` iterations, while ``uniforms`` (a 1-D stream of U[0, 1) draws)
    still holds ``draws_per_iteration`` unused draws from ``position``; returns
    ``(iterations done, next unused position)``."""
    num_nodes = tree.kind.shape[0]
    scratch = SamplingScratch(
        np.zeros(regret.shape[1]), np.zeros(num_nodes), np.zeros(num_nodes, dtype=np.int64),
        np.zeros(2 * num_nodes + 1, dtype=np.int64),
    )
    tables = RegretTables(regret, strategy_sum)
    done = 0
    while done < num_iterations and position + draws_per_iteration <= uniforms.shape[0]:
        for player in range(2):
            position = _external_sampling(tree, player, tables, uniforms, position, scratch)
        done += 1
    return done, position


class CFRSolver:
    """Tabular CFR, CFR+ or external-sampling MCCFR on a ``GameTree``.

    MCCFR takes its U[0, 1) draws from ``rng`` in blocks and uses them in order, so a run depends
    only on the generator's seed and the number of iterations, not on how they are split into
    ``iterate`` calls.

    Args:
        tree: the game's flat tree (``search.game_tree.build_tree``).
        algorithm: ``"cfr"``, ``"cfr+"`` or ``"mccfr"``.
        rng: a seeded ``numpy.random.Generator`` MCCFR samples from (required for ``"mccfr"``).

    Attributes:
        iterations: iterations done so far (one traversal per player each).
        regret: `[I, A]` float64 cumulative counterfactual regrets.
        strategy_sum: `[I, A]` float64 reach-weighted sums of the current policies.

    Raises:
        ValueError: for an unknown algorithm, or ``"mccfr"`` without a generator.
    """

    #: draws fetched from the generator at a time by MCCFR
    UNIFORM_BLOCK = 1 << 16

    def __init__(self, tree: GameTree, algorithm: str = "cfr+", rng: np.random.Generator | None = None):
        if algorithm not in ALGORITHMS:
            raise ValueError(f"expected an algorithm in {list(ALGORITHMS)}, got {algorithm!r}")
        if algorithm == "mccfr" and not isinstance(rng, np.random.Generator):
            raise ValueError(f"mccfr samples: expected a numpy.random.Generator, got {type(rng).__name__}")
        self.tree = tree
        self.algorithm = algorithm
        self.rng = rng
        shape = (tree.num_infostates, tree.num_actions)
        self.regret = np.zeros(shape)
        self.strategy_sum = np.zeros(shape)
        self._policy = tree.uniform_policy()
        self._uniforms = np.zeros(0)
        self._position = 0
        self.iterations = 0

    def iterate(self, num_iterations: int = 1) -> None:
        """Run ``num_iterations`` more iterations.

        Raises:
            ValueError: if ``num_iterations`` < 0.
        """
        if num_iterations < 0:
            raise ValueError(f"expected num_iterations >= 0, got {num_iterations}")
        if num_iterations == 0:
            return
        arrays = self.tree.arrays
        if self.algorithm == "mccfr":
            # one draw per chance or opponent node visited, consumed in order from one stream
            bound = 2 * int(np.count_nonzero(arrays.kind != TERMINAL_NODE))
            remaining = num_iterations
            while remaining > 0:
                if self._uniforms.shape[0] - self._position < bound:
                    fresh = self.rng.random(max(bound, self.UNIFORM_BLOCK))
                    self._uniforms = np.concatenate([self._uniforms[self._position:], fresh])
                    self._position = 0
                done, self._position = _run_mccfr(arrays, self.regret, self.strategy_sum, self._uniforms,
                                                  self._position, remaining, bound)
                remaining -= done
        else:
            _run_cfr(arrays, self._policy, self.regret, self.strategy_sum, self.iterations, num_iterations,
                     self.algorithm == "cfr+")
        self.iterations += num_iterations

    def current_policy(self) -> np.ndarray:
        """`[I, A]` float64: regret matching (regret matching+ for CFR+) on the cumulative regrets."""
        policy = np.zeros_like(self.regret)
        for player in range(2):
            _regret_matching(self.regret, self.tree.arrays.infostate_legal, policy, player,
                             self.tree.arrays.infostate_player)
        return policy

    def average_policy(self) -> np.ndarray:
        """`[I, A]` float64: the normalised ``strategy_sum``; uniform over legal actions at states
        never reached. This is the policy that converges to a Nash equilibrium."""
        return normalise_sums(self.tree, self.strategy_sum)


def normalise_sums(tree: GameTree, sums: np.ndarray) -> np.ndarray:
    """Rows of ``sums`` `[I, A]` scaled to sum to 1; rows with no mass become uniform over legal."""
    totals = sums.sum(axis=1, keepdims=True)
    uniform = tree.uniform_policy()
    with np.errstate(invalid="ignore", divide="ignore"):
        policy = np.where(totals > 0, sums / np.where(totals > 0, totals, 1.0), uniform)
    return policy
