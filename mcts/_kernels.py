"""Numba-compiled per-simulation kernels: one call walks or updates all ``B`` trees.

The Python search loop (``mcts.search``) calls ``select_leaves`` once per simulation step, steps
the game on the batch of leaves, evaluates them, then calls ``expand_and_backup`` once. Neither
kernel allocates node objects; both loop over the batch inside compiled code.
"""

from __future__ import annotations

import math

import numpy as np
from numba import njit

#: Selection rules understood by ``select_leaves``.
RULE_PUCT = 0
RULE_UCT = 1


@njit(cache=True)
def select_leaves(
    children_index, children_prior, children_legal, node_visits, node_value_sum, node_to_play,
    node_terminal, node_states, rule, c_puct, c_base, c_init, use_c_base, fpu_value, uct_c,
    out_parent, out_action, out_leaf, out_parent_states,
):  # pragma: no cover - compiled
    """Walk every row from the root to a leaf.

    For row ``b`` the walk stops either at an edge whose child does not exist yet
    (``out_leaf[b] = -1``, ``out_parent[b]``/``out_action[b]`` name the edge and
    ``out_parent_states[b]`` gets the parent's state) or at a terminal node already in the tree
    (``out_leaf[b]`` = that node).

    PUCT (AlphaZero pseudocode, Silver et al. 2018 supplementary, ``ucb_score``)::

        score(s, a) = Q(s, a) + c(s) * P(s, a) * sqrt(N(s)) / (1 + N(s, a))
        c(s) = log((1 + N(s) + c_base) / c_base) + c_init      if use_c_base else c_puct

    where ``N(s)`` is the node's own visit count (its expansion counts one, so
    ``N(s) = 1 + sum_a N(s, a)``, as in mctx) so that priors order the children of a fresh node,
    and ``Q`` of an unvisited child is ``fpu_value`` (parent's view).

    UCT (Kocsis & Szepesvari 2006, UCB1 on results scaled to [0, 1])::

        score(s, a) = (Q(s, a) + 1) / 2 + uct_c * sqrt(ln N(s) / N(s, a)),  +inf if N(s, a) = 0

    Ties go to the lowest action index.
    """
    batch = children_index.shape[0]
    num_actions = children_index.shape[2]
    for b in range(batch):
        node = 0
        while True:
            if node_terminal[b, node]:
                out_leaf[b] = node
                out_parent[b] = -1
                out_action[b] = -1
                break
            parent_visits = node_visits[b, node]
            explore = 0.0
            log_parent = 0.0
            if rule == RULE_PUCT:
                if use_c_base:
                    c = math.log((1.0 + parent_visits + c_base) / c_base) + c_init
                else:
                    c = c_puct
                explore = c * math.sqrt(parent_visits)
            else:
                log_parent = math.log(max(parent_visits, 1))
            best_action = -1
            best_score = -np.inf
            player = node_to_play[b, node]
            for a in range(num_actions):
                if not children_legal[b, node, a]:
                    continue
                child = children_index[b, node, a]
                child_visits = 0
                q = fpu_value
                if child >= 0:
                    child_visits = node_visits[b, child]
                    if child_visits > 0:
                        q = node_value_sum[b, child] / child_visits
                        if node_to_play[b, child] != player:
                            q = -q
                if rule == RULE_PUCT:
                    score = q + explore * children_prior[b, node, a] / (1.0 + child_visits)
                else:
                    if child_visits == 0:
                        score = np.inf
                    else:
                        score = 0.5 * (q + 1.0) + uct_c * math.sqrt(log_parent / child_visits)
                if best_action < 0 or score > best_score:
                    best_score = score
                    best_action = a
            child = children_index[b, node, best_action]
            if child < 0:
                out_leaf[b] = -1
                out_parent[b] = node
                out_action[b] = best_action
                out_parent_states[b, :] = node_states[b, node, :]
                break
            node = child


@njit(cache=True)
def expand_and_backup(
    node_visits, node_value_sum, node_raw_value, node_to_play, node_terminal, node_states, parents,
    action_from_parent, children_index, children_prior, children_legal, num_nodes,
    leaf_parent, leaf_action, leaf_node, new_states, new_to_play, new_terminal, new_values,
    new_priors, new_legal,
):  # pragma: no cover - compiled
    """Create the new leaves (rows with ``leaf_node[b] == -1``) and back their values up.

    ``new_*`` arrays are indexed by row ``b`` and only read for rows that create a node. The
    value of a terminal leaf already in the tree is its stored exact value. Backup adds the
    value to every node on the path, negating it only when the player to move changes between a
    node and its parent (DESIGN.md; CASES A4).
    """
    batch = node_visits.shape[0]
    num_actions = children_index.shape[2]
    for b in range(batch):
        if leaf_node[b] < 0:
            node = num_nodes[b]
            num_nodes[b] += 1
            parent = leaf_parent[b]
            parents[b, node] = parent
            action_from_parent[b, node] = leaf_action[b]
            children_index[b, parent, leaf_action[b]] = node
            node_to_play[b, node] = new_to_play[b]
            node_terminal[b, node] = new_terminal[b]
            node_states[b, node, :] = new_states[b, :]
            node_raw_value[b, node] = new_values[b]
            for a in range(num_actions):
                children_prior[b, node, a] = new_priors[b, a]
                children_legal[b, node, a] = new_legal[b, a]
            value = np.float64(new_values[b])
        else:
            node = leaf_node[b]
            value = np.float64(node_raw_value[b, node])
        while True:
            node_visits[b, node] += 1
            node_value_sum[b, node] += value
            parent = parents[b, node]
            if parent < 0:
                break
            if node_to_play[b, parent] != node_to_play[b, node]:
                value = -value
            node = parent
