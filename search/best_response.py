"""Exact best response, NashConv and expected value of tabular policies on a flat game tree.

A policy is a `[I, A]` float64 array over a ``GameTree``'s information states: row ``i`` is the
probability of each action at information state ``i`` (0 on illegal actions, rows sum to 1);
each player's rows are the ones of the information states where that player acts.

* ``best_response_value(tree, policy, player)``: the chips ``player`` wins on average by a best
  response to the other player's part of ``policy``, computed exactly: a backward pass over the
  tree that, at each of ``player``'s information states, picks the action with the largest
  counterfactual value ``sum_h pi_{-p}(h) * v(h, a)`` over the histories ``h`` of the state
  (``pi_{-p}``: chance and opponent reach; Johanson et al. 2011, "Accelerating Best Response
  Calculation in Large Extensive Games", sec. 3).
* ``nash_conv(tree, policy)``: ``sum_p (BR_p(policy) - u_p(policy))``, which for a zero-sum game
  is ``BR_0 + BR_1`` (Lanctot et al. 2017, "A Unified Game-Theoretic Approach to Multiagent
  Reinforcement Learning", sec. 3.1; OpenSpiel's ``nash_conv``). Exploitability is half of it.
* ``expected_value(tree, policy_0, policy_1)``: player 0's expected chips when player 0 plays
  ``policy_0`` and player 1 plays ``policy_1``.

All values are in chips.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from search.game_tree import CHANCE_NODE, DECISION, TERMINAL_NODE, GameTree, TreeArrays


def check_policy(tree: GameTree, policy: np.ndarray, name: str = "policy") -> np.ndarray:
    """``policy`` as a contiguous `[I, A]` float64 array, after checking it.

    Raises:
        ValueError: for a wrong shape, negative or non-finite entries, mass on an illegal action,
            or a row that does not sum to 1 (within 1e-6).
    """
    array = np.ascontiguousarray(policy, dtype=np.float64)
    expected = (tree.num_infostates, tree.num_actions)
    if array.shape != expected:
        raise ValueError(f"{name}: expected shape {expected}, got {array.shape}")
    if not np.all(np.isfinite(array)) or np.any(array < 0):
        raise ValueError(f"{name}: expected finite probabilities >= 0")
    illegal = ~tree.arrays.infostate_legal & (array != 0)
    if illegal.any():
        row = int(np.argwhere(illegal)[0, 0])
        raise ValueError(f"{name}: probability on an illegal action at {tree.infostate_names[row]!r}: {array[row].tolist()}")
    sums = array.sum(axis=1)
    bad = np.abs(sums - 1.0) > 1e-6
    if bad.any():
        row = int(np.argmax(bad))
        raise ValueError(f"{name}: expected each row to sum to 1, got {sums[row]} at {tree.infostate_names[row]!r}")
    return array


@njit(cache=True)
def _best_response(tree: TreeArrays, policy, player, out_best_action):  # pragma: no cover - compiled
    """Player ``player``'s best-response value (chips); fills ``out_best_action`` `[I]` int64."""
    num_nodes = tree.kind.shape[0]
    reach = np.empty(num_nodes)
    value = np.zeros(num_nodes)
    reach[0] = 1.0
    for node in range(num_nodes):
        kind = tree.kind[node]
        if kind == TERMINAL_NODE:
            continue
        first = tree.first_child[node]
        for child in range(first, first + tree.num_children[node]):
            if kind == CHANCE_NODE:
                reach[child] = reach[node] * tree.chance_probability[child]
            elif tree.player[node] == player:
                reach[child] = reach[node]
            else:
                reach[child] = reach[node] * policy[tree.infostate[node], tree.action[child]]
    action_value = np.zeros(policy.shape)
    sign = 1.0 if player == 0 else -1.0
    num_levels = tree.level_start.shape[0] - 1
    for level in range(num_levels - 1, -1, -1):
        start, stop = tree.level_start[level], tree.level_start[level + 1]
        for node in range(start, stop):
            if tree.kind[node] == DECISION and tree.player[node] == player:
                first = tree.first_child[node]
                state = tree.infostate[node]
                for child in range(first, first + tree.num_children[node]):
                    action_value[state, tree.action[child]] += reach[node] * value[child]
        for node in range(start, stop):
            kind = tree.kind[node]
            first = tree.first_child[node]
            if kind == TERMINAL_NODE:
                value[node] = sign * tree.utility[node]
            elif kind == CHANCE_NODE:
                total = 0.0
                for child in range(first, first + tree.num_children[node]):
                    total += tree.chance_probability[child] * value[child]
                value[node] = total
            elif tree.player[node] != player:
                state = tree.infostate[node]
                total = 0.0
                for child in range(first, first + tree.num_children[node]):
                    total += policy[state, tree.action[child]] * value[child]
                value[node] = total
            else:
                state = tree.infostate[node]
                best_child = first
                best = action_value[state, tree.action[first]]
                for child in range(first + 1, first + tree.num_children[node]):
                    if action_value[state, tree.action[child]] > best:
                        best = action_value[state, tree.action[child]]
                        best_child = child
                out_best_action[state] = tree.action[best_child]
                value[node] = value[best_child]
    return value[0]


@njit(cache=True)
def _expected_value(tree: TreeArrays, policy_0, policy_1):  # pragma: no cover - compiled
    num_nodes = tree.kind.shape[0]
    reach = np.empty(num_nodes)
    reach[0] = 1.0
    total = 0.0
    for node in range(num_nodes):
        kind = tree.kind[node]
        if kind == TERMINAL_NODE:
            total += reach[node] * tree.utility[node]
            continue
        first = tree.first_child[node]
        for child in range(first, first + tree.num_children[node]):
            if kind == CHANCE_NODE:
                reach[child] = reach[node] * tree.chance_probability[child]
            elif tree.player[node] == 0:
                reach[child] = reach[node] * policy_0[tree.infostate[node], tree.action[child]]
            else:
                reach[child] = reach[node] * policy_1[tree.infostate[node], tree.action[child]]
    return total


def best_response_value(tree: GameTree, policy: np.ndarray, player: int) -> float:
    """Chips ``player`` (0 or 1) wins on average with a best response to ``policy``'s other player.

    Raises:
        ValueError: for a bad policy (see ``check_policy``) or a player other than 0 or 1.
    """
    return best_response(tree, policy, player)[0]


def best_response(tree: GameTree, policy: np.ndarray, player: int) -> tuple[float, np.ndarray]:
    """``(value, best_action)``: the best-response value (chips) and `[I]` int64 the action it
    plays at each of ``player``'s information states (-1 at the other player's).

    Raises:
        ValueError: for a bad policy or a player other than 0 or 1.
    """
    if player not in (0, 1):
        raise ValueError(f"expected player 0 or 1, got {player}")
    array = check_policy(tree, policy)
    best_action = np.full(tree.num_infostates, -1, dtype=np.int64)
    value = float(_best_response(tree.arrays, array, player, best_action))
    return value, best_action


def nash_conv(tree: GameTree, policy: np.ndarray) -> float:
    """``BR_0 + BR_1`` in chips: 0 exactly at a Nash equilibrium (zero-sum, so the policy's own
    values cancel). Kuhn's uniform policy: 11/12; Leduc's: 4.747222.

    Raises:
        ValueError: for a bad policy (see ``check_policy``).
    """
    array = check_policy(tree, policy)
    scratch = np.full(tree.num_infostates, -1, dtype=np.int64)
    return float(_best_response(tree.arrays, array, 0, scratch) + _best_response(tree.arrays, array, 1, scratch))


def expected_value(tree: GameTree, policy_0: np.ndarray, policy_1: np.ndarray) -> float:
    """Player 0's expected chips when player 0 plays ``policy_0`` and player 1 ``policy_1``
    (each uses only its own player's rows), summed exactly over every history.

    Raises:
        ValueError: for a bad policy (see ``check_policy``).
    """
    first = check_policy(tree, policy_0, "policy_0")
    second = check_policy(tree, policy_1, "policy_1")
    return float(_expected_value(tree.arrays, first, second))
