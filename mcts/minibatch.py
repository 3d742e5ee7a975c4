"""PUCT for one position that sends several leaves to the network per call (virtual loss).

``mcts.run_puct`` over one root calls the network once per simulation, at batch 1, where a network
costs almost as much per call as at batch 8. Here each round walks the tree ``leaves_per_call``
times before calling the network: after each walk a *virtual loss* is put on the path (every edge
on it counts one more visit, lost for the player who chose it), so the next walk is steered to
another leaf; the leaves then go to the network in one call and the virtual losses are taken back
as the real values are backed up. This is the minibatch of Leela Chess Zero's search, after the
virtual loss of Chaslot, Winands & van den Herik, "Parallel Monte-Carlo Tree Search" (2008), as
AlphaGo used it across threads (Silver et al. 2016, Methods, "Search algorithm").

Selection is ``mcts.run_puct``'s rule (``mcts._kernels.select_leaves``) on the counts with the
virtual visits added::

    N'(s, a) = N(s, a) + V(s, a),   N'(s) = N(s) + sum_a V(s, a),
    Q'(s, a) = (N(s, a) Q(s, a) - V(s, a)) / N'(s, a)       (Q'(s, a) = fpu if N'(s, a) = 0)

``V(s, a)`` being the walks of this round through the edge. A walk that reaches an edge another
walk of the round is already expanding ends the round early (a collision: the network call goes
out with the leaves found so far). A walk that ends on a terminal node in the tree backs up its
exact value without a network call. Each walk is one simulation, so after ``num_simulations`` of
them the root's children visits sum to exactly ``num_simulations``. With ``leaves_per_call = 1``
the search is ``run_puct``'s, visit for visit.

The tree is ``mcts.tree.Tree`` with one row; no root noise (this is for ``play``, the arena and
the engine protocol) and no MCTS-solver.
"""

from __future__ import annotations

import math
import time

import numpy as np
from numba import njit

from games.base import Game, check_batch
from mcts.evaluators import EvaluateFn
from mcts.policy import check_rng
from mcts.search import PUCTConfig, SearchOutput, evaluate_leaves, with_visit_choice
from mcts.tree import ROOT_INDEX, UNPROVEN, empty_tree

#: leaves per network call of a search with a time limit (``mcts:...,time=S``), where collecting
#: them buys more simulations in the time (3.1x, ``scripts/bench_puct_single.py``). A search with a
#: fixed number of simulations (the engine protocol, ``play``, ``mcts:...,sims=N``) sends one:
#: at equal simulations the virtual loss costs strength (docs/results/learning_efficiency.md,
#: "The engine's search: one leaf per network call").
TIMED_LEAVES_PER_CALL = 8


@njit(cache=True)
def _select_many(
    children_index, children_prior, children_legal, node_visits, node_value_sum, node_to_play,
    node_terminal, node_states, parents, action_from_parent, edge_virtual, node_virtual, c_puct, c_base, c_init, use_c_base,
    fpu_value, max_leaves, out_parent, out_action, out_leaf, out_parent_states,
):  # pragma: no cover - compiled
    """Up to ``max_leaves`` walks of one tree with virtual loss; returns how many were found.

    Walk ``k`` ends at an unexpanded edge (``out_leaf[k] = -1``, ``out_parent[k]``/``out_action[k]``
    name it, ``out_parent_states[k]`` gets the parent's state) or at a terminal node in the tree
    (``out_leaf[k]`` = that node). The virtual visits of the walks stay in ``edge_virtual`` and
    ``node_virtual`` for ``_backup_many`` to take back.
    """
    num_actions = children_index.shape[1]
    count = 0
    for k in range(max_leaves):
        node = 0
        leaf = -1
        action = -1
        while True:
            if node_terminal[node]:
                leaf = node
                break
            parent_visits = node_visits[node] + node_virtual[node]
            if use_c_base:
                c = math.log((1.0 + parent_visits + c_base) / c_base) + c_init
            else:
                c = c_puct
            explore = c * math.sqrt(parent_visits)
            best_action = -1
            best_score = -np.inf
            player = node_to_play[node]
            for a in range(num_actions):
                if not children_legal[node, a]:
                    continue
                child = children_index[node, a]
                virtual = edge_virtual[node, a]
                child_visits = 0
                total = 0.0
                if child >= 0:
                    child_visits = node_visits[child]
                    total = node_value_sum[child]
                    if node_to_play[child] != player:
                        total = -total
                visits = child_visits + virtual
                if visits > 0:
                    q = (total - virtual) / visits
                else:
                    q = fpu_value
                score = q + explore * children_prior[node, a] / (1.0 + visits)
                if best_action < 0 or score > best_score:
                    best_score = score
                    best_action = a
            child = children_index[node, best_action]
            if child < 0:
                if edge_virtual[node, best_action] > 0:
                    return count  # a collision: another walk of this round expands this edge
                action = best_action
                break
            node = child
        # the virtual loss along the path: the new edge (if any), then every edge up to the root
        if leaf < 0:
            out_parent[count] = node
            out_action[count] = action
            out_leaf[count] = -1
            out_parent_states[count, :] = node_states[node, :]
            edge_virtual[node, action] += 1
            node_virtual[node] += 1
        else:
            out_parent[count] = -1
            out_action[count] = -1
            out_leaf[count] = leaf
        count += 1
        _apply_path(parents, action_from_parent, edge_virtual, node_virtual, node, 1)
    return count


@njit(cache=True)
def _apply_path(parents, action_from_parent, edge_virtual, node_virtual, node, delta):  # pragma: no cover - compiled
    """Add ``delta`` virtual visits to every edge on the path from the root down to ``node``."""
    while True:
        parent = parents[node]
        if parent < 0:
            break
        edge_virtual[parent, action_from_parent[node]] += delta
        node_virtual[parent] += delta
        node = parent


@njit(cache=True)
def _backup_many(
    node_visits, node_value_sum, node_raw_value, node_to_play, node_terminal, node_states, parents,
    action_from_parent, children_index, children_prior, children_legal, num_nodes, edge_virtual,
    node_virtual, count, leaf_parent, leaf_action, leaf_node, new_states, new_to_play, new_terminal,
    new_values, new_priors, new_legal,
):  # pragma: no cover - compiled
    """Take back the virtual visits of the ``count`` walks, create their leaves, back up the values.

    As ``mcts._kernels.expand_and_backup`` for one tree, walk ``k`` in the place of row ``b``.
    """
    num_actions = children_index.shape[1]
    for k in range(count):
        if leaf_node[k] < 0:
            parent = leaf_parent[k]
            edge_virtual[parent, leaf_action[k]] -= 1
            node_virtual[parent] -= 1
            _apply_path(parents, action_from_parent, edge_virtual, node_virtual, parent, -1)
            node = num_nodes[0]
            num_nodes[0] += 1
            parents[node] = parent
            action_from_parent[node] = leaf_action[k]
            children_index[parent, leaf_action[k]] = node
            node_to_play[node] = new_to_play[k]
            node_terminal[node] = new_terminal[k]
            node_states[node, :] = new_states[k, :]
            node_raw_value[node] = new_values[k]
            for a in range(num_actions):
                children_prior[node, a] = new_priors[k, a]
                children_legal[node, a] = new_legal[k, a]
            value = np.float64(new_values[k])
        else:
            node = leaf_node[k]
            _apply_path(parents, action_from_parent, edge_virtual, node_virtual, node, -1)
            value = np.float64(node_raw_value[node])
        while True:
            node_visits[node] += 1
            node_value_sum[node] += value
            parent = parents[node]
            if parent < 0:
                break
            if node_to_play[parent] != node_to_play[node]:
                value = -value
            node = parent


def run_puct_minibatch(
    game: Game,
    root_state: np.ndarray,
    evaluate_fn: EvaluateFn,
    config: PUCTConfig,
    rng: np.random.Generator,
    leaves_per_call: int = TIMED_LEAVES_PER_CALL,
    time_limit: float | None = None,
) -> SearchOutput:
    """PUCT from one root, up to ``leaves_per_call`` leaves per network call (see the module doc).

    Args:
        game: the rules.
        root_state: ``[S]`` (or ``[1, S]``) int64 non-terminal state.
        evaluate_fn: as ``mcts.run_puct``; called once for the root and then once per round with
            the round's non-terminal new leaves (``[k, ...]``, ``1 <= k <= leaves_per_call``).
        config: search hyper-parameters; ``num_simulations`` walks in all. Root noise settings
            are unused (no noise); ``config.solver`` must be False.
        rng: checked for the interface; the search draws nothing.
        leaves_per_call: walks per round (>= 1); 1 gives ``run_puct``'s search exactly.
        time_limit: seconds (>= 0) after which no new round starts (the root's evaluation and
            at least one round always run); ``num_simulations`` stays the most walks, and the
            tree's size. None: no limit.

    Returns:
        ``SearchOutput`` with one row.

    Raises:
        ValueError: for ``leaves_per_call`` < 1, a negative ``time_limit``, ``config.solver`` on,
            a game with chance,
            a malformed or terminal root, or evaluator output of the wrong shape or with
            non-finite values.
    """
    start = time.perf_counter()
    if time_limit is not None and not time_limit >= 0:
        raise ValueError(f"expected time_limit >= 0 seconds or None, got {time_limit}")
    if isinstance(leaves_per_call, bool) or not isinstance(leaves_per_call, (int, np.integer)) or leaves_per_call < 1:
        raise ValueError(f"expected an int leaves_per_call >= 1, got {leaves_per_call!r}")
    if config.solver:
        raise ValueError("run_puct_minibatch has no MCTS-solver; expected config.solver=False (use run_puct)")
    if game.num_chance_outcomes:
        raise ValueError(
            f"{game.name} has chance states: run_puct_minibatch searches games without chance; "
            "use run_puct (one leaf per call, no time limit)"
        )
    check_rng(rng)
    root = np.asarray(root_state)
    root = root.reshape(1, -1) if root.ndim == 1 else root
    check_batch(game, root)
    if root.shape[0] != 1:
        raise ValueError(f"expected one root state, got {root.shape[0]}")
    if game.terminal(root)[0]:
        raise ValueError("the root state must not be terminal")
    num_simulations = int(config.num_simulations)
    num_actions = game.num_actions
    tree = empty_tree(1, num_simulations + 1, num_actions, game.state_size)
    legal = game.legal_mask(root)
    priors, values, degenerate = evaluate_leaves(game, evaluate_fn, root, legal)
    num_degenerate = int(degenerate[0])
    tree.node_states[0, ROOT_INDEX] = root[0]
    tree.node_to_play[0, ROOT_INDEX] = game.to_play(root)[0]
    tree.node_raw_value[0, ROOT_INDEX] = values[0]
    tree.node_visits[0, ROOT_INDEX] = 1
    tree.node_value_sum[0, ROOT_INDEX] = values[0]
    tree.children_prior[0, ROOT_INDEX] = priors[0]
    tree.children_legal[0, ROOT_INDEX] = legal[0]
    tree.root_raw_prior[0] = priors[0]
    tree.num_nodes[0] = 1

    k_max = int(leaves_per_call)
    edge_virtual = np.zeros((num_simulations + 1, num_actions), dtype=np.int32)
    node_virtual = np.zeros(num_simulations + 1, dtype=np.int32)
    leaf_parent = np.empty(k_max, dtype=np.int32)
    leaf_action = np.empty(k_max, dtype=np.int32)
    leaf_node = np.empty(k_max, dtype=np.int32)
    parent_states = np.empty((k_max, game.state_size), dtype=np.int64)
    new_states = np.zeros((k_max, game.state_size), dtype=np.int64)
    new_to_play = np.zeros(k_max, dtype=np.int8)
    new_terminal = np.zeros(k_max, dtype=np.bool_)
    new_values = np.zeros(k_max, dtype=np.float32)
    new_priors = np.zeros((k_max, num_actions), dtype=np.float32)
    new_legal = np.zeros((k_max, num_actions), dtype=np.bool_)
    use_c_base = config.c_base is not None
    c_base = float(config.c_base) if use_c_base else 1.0
    t = tree
    evaluations = 1
    terminal_leaves = 0
    done = 0
    while done < num_simulations:
        count = _select_many(
            t.children_index[0], t.children_prior[0], t.children_legal[0], t.node_visits[0],
            t.node_value_sum[0], t.node_to_play[0], t.node_terminal[0], t.node_states[0], t.parents[0],
            t.action_from_parent[0], edge_virtual, node_virtual, float(config.c_puct), c_base,
            float(config.c_init), use_c_base, float(config.fpu_value), min(k_max, num_simulations - done),
            leaf_parent, leaf_action, leaf_node, parent_states,
        )
        expand = np.flatnonzero(leaf_node[:count] < 0)
        terminal_leaves += count - expand.size
        if expand.size:
            stepped = game.step(parent_states[expand], leaf_action[expand].astype(np.int64))
            terminal = game.terminal(stepped)
            new_states[expand] = stepped
            new_to_play[expand] = game.to_play(stepped)
            new_terminal[expand] = terminal
            finished = expand[terminal]
            terminal_leaves += finished.size
            new_values[finished] = game.terminal_value(stepped[terminal])
            new_priors[finished] = 0.0
            new_legal[finished] = False
            live = expand[~terminal]
            if live.size:
                live_states = stepped[~terminal]
                live_legal = game.legal_mask(live_states)
                priors, values, degenerate = evaluate_leaves(game, evaluate_fn, live_states, live_legal)
                new_priors[live] = priors
                new_legal[live] = live_legal
                new_values[live] = values
                evaluations += live.size
                num_degenerate += int(degenerate.sum())
        _backup_many(
            t.node_visits[0], t.node_value_sum[0], t.node_raw_value[0], t.node_to_play[0],
            t.node_terminal[0], t.node_states[0], t.parents[0], t.action_from_parent[0],
            t.children_index[0], t.children_prior[0], t.children_legal[0], t.num_nodes, edge_virtual,
            node_virtual, count, leaf_parent, leaf_action, leaf_node, new_states, new_to_play,
            new_terminal, new_values, new_priors, new_legal,
        )
        done += count
        if time_limit is not None and time.perf_counter() - start >= time_limit:
            break

    root_values = (tree.node_value_sum[:, ROOT_INDEX] / tree.node_visits[:, ROOT_INDEX]).astype(np.float32)
    output = SearchOutput(
        visit_counts=tree.children_visits(ROOT_INDEX),
        root_values=root_values,
        q_values=tree.q_values(ROOT_INDEX),
        root_priors=tree.children_prior[:, ROOT_INDEX].copy(),
        root_raw_priors=tree.root_raw_prior.copy(),
        tree=tree,
        num_degenerate_priors=np.array([num_degenerate], dtype=np.int32),
        num_evaluations=np.array([evaluations], dtype=np.int32),
        num_terminal_leaves=np.array([terminal_leaves], dtype=np.int32),
        root_proof=np.array([UNPROVEN], dtype=np.int8),
        actions=None,
        policy_targets=None,
    )
    return with_visit_choice(output, solver=False)
