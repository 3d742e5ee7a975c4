"""PUCT for one position that sends several leaves to the network per call (virtual loss).

``mcts.search.run_puct`` over one root calls the network once per simulation, at batch 1, where a network
costs almost as much per call as at batch 8. Here each round walks the tree ``leaves_per_call``
times before calling the network: after each walk a *virtual loss* is put on the path (every edge
on it counts one more visit, lost for the player who chose it), so the next walk is steered to
another leaf; the leaves then go to the network in one call and the virtual losses are taken back
as the real values are backed up. This is the minibatch of Leela Chess Zero's search, after the
virtual loss of Chaslot, Winands & van den Herik, "Parallel Monte-Carlo Tree Search" (2008), as
AlphaGo used it across threads (Silver et al. 2016, Methods, "Search algorithm").

Selection is ``mcts.search.run_puct``'s rule (``mcts.kernels.select_leaves``) on the counts with the
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

import time
from typing import NamedTuple

import numpy as np
from numba import njit

from games.base import Game, check_batch
from mcts.evaluators import EvaluateFn, evaluate_leaves
from mcts.formulas import puct_exploration, puct_score
from mcts.kernels import RULE_PUCT, NewNodes, Walks, selection_params
from mcts.policy import check_rng
from mcts.search import PUCTConfig, SearchOutput, with_visit_choice
from mcts.tree import ROOT_INDEX, UNPROVEN, empty_tree

#: leaves per network call of a search with a time limit (``mcts:...,time=S``), where collecting
#: them buys more simulations in the time (3.1x, ``scripts/bench_puct_single.py``). A search with a
#: fixed number of simulations (the engine protocol, ``play``, ``mcts:...,sims=N``) sends one:
#: at equal simulations the virtual loss costs strength (docs/results/learning_efficiency.md,
#: "The engine's search: one leaf per network call").
TIMED_LEAVES_PER_CALL = 8


class VirtualLoss(NamedTuple):
    """The virtual visits of one round's walks: ``edges`` ``[N, A]`` int32 per edge and ``nodes``
    ``[N]`` int32 per node (their sum over the node's edges)."""

    edges: np.ndarray
    nodes: np.ndarray


@njit(cache=True)
def _select_many(t, virtual, params, max_leaves, walks):  # pragma: no cover - compiled
    """Up to ``max_leaves`` walks of one tree (``t``: ``mcts.tree.Tree.row_arrays``) with virtual
    loss; returns how many were found.

    Walk ``k`` ends at an unexpanded edge (``walks.leaf[k] = -1``, ``walks.parent[k]`` and
    ``walks.action[k]`` name it, ``walks.parent_states[k]`` gets the parent's state) or at a
    terminal node in the tree (``walks.leaf[k]`` = that node). The virtual visits of the walks stay
    in ``virtual`` for ``_backup_many`` to take back. Scores are ``mcts.formulas``' PUCT.
    """
    num_actions = t.children_index.shape[1]
    count = 0
    for k in range(max_leaves):
        node = 0
        leaf = -1
        action = -1
        while True:
            if t.node_terminal[node]:
                leaf = node
                break
            parent_visits = t.node_visits[node] + virtual.nodes[node]
            explore = puct_exploration(parent_visits, params.c_puct, params.c_base, params.c_init, params.use_c_base)
            best_action = -1
            best_score = -np.inf
            player = t.node_to_play[node]
            for a in range(num_actions):
                if not t.children_legal[node, a]:
                    continue
                child = t.children_index[node, a]
                edge_virtual = virtual.edges[node, a]
                child_visits = 0
                total = 0.0
                if child >= 0:
                    child_visits = t.node_visits[child]
                    total = t.node_value_sum[child]
                    if t.node_to_play[child] != player:
                        total = -total
                visits = child_visits + edge_virtual
                if visits > 0:
                    q = (total - edge_virtual) / visits
                else:
                    q = params.fpu_value
                score = puct_score(q, t.children_prior[node, a], visits, explore)
                if best_action < 0 or score > best_score:
                    best_score = score
                    best_action = a
            child = t.children_index[node, best_action]
            if child < 0:
                if virtual.edges[node, best_action] > 0:
                    return count  # a collision: another walk of this round expands this edge
                action = best_action
                break
            node = child
        # the virtual loss along the path: the new edge (if any), then every edge up to the root
        if leaf < 0:
            walks.parent[count] = node
            walks.action[count] = action
            walks.leaf[count] = -1
            walks.parent_states[count, :] = t.node_states[node, :]
            virtual.edges[node, action] += 1
            virtual.nodes[node] += 1
        else:
            walks.parent[count] = -1
            walks.action[count] = -1
            walks.leaf[count] = leaf
        count += 1
        _apply_path(t, virtual, node, 1)
    return count


@njit(cache=True)
def _apply_path(t, virtual, node, delta):  # pragma: no cover - compiled
    """Add ``delta`` virtual visits to every edge on the path from the root down to ``node``."""
    while True:
        parent = t.parents[node]
        if parent < 0:
            break
        virtual.edges[parent, t.action_from_parent[node]] += delta
        virtual.nodes[parent] += delta
        node = parent


@njit(cache=True)
def _backup_many(t, virtual, count, walks, new):  # pragma: no cover - compiled
    """Take back the virtual visits of the ``count`` walks, create their leaves (``new``, a
    ``mcts.kernels.NewNodes`` indexed by walk), back up the values.

    As ``mcts.kernels.expand_and_backup`` for one tree, walk ``k`` in the place of row ``b``.
    """
    num_actions = t.children_index.shape[1]
    for k in range(count):
        if walks.leaf[k] < 0:
            parent = walks.parent[k]
            virtual.edges[parent, walks.action[k]] -= 1
            virtual.nodes[parent] -= 1
            _apply_path(t, virtual, parent, -1)
            node = t.num_nodes[0]
            t.num_nodes[0] += 1
            t.parents[node] = parent
            t.action_from_parent[node] = walks.action[k]
            t.children_index[parent, walks.action[k]] = node
            t.node_to_play[node] = new.to_play[k]
            t.node_terminal[node] = new.terminal[k]
            t.node_states[node, :] = new.states[k, :]
            t.node_raw_value[node] = new.values[k]
            for a in range(num_actions):
                t.children_prior[node, a] = new.priors[k, a]
                t.children_legal[node, a] = new.legal[k, a]
            value = np.float64(new.values[k])
        else:
            node = walks.leaf[k]
            _apply_path(t, virtual, node, -1)
            value = np.float64(t.node_raw_value[node])
        while True:
            t.node_visits[node] += 1
            t.node_value_sum[node] += value
            parent = t.parents[node]
            if parent < 0:
                break
            if t.node_to_play[parent] != t.node_to_play[node]:
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
        evaluate_fn: as ``mcts.search.run_puct``; called once for the root and then once per round with
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
            a ``config.backup`` other than ``"mean"``, a game with chance,
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
    if config.backup != "mean":
        raise ValueError(f"run_puct_minibatch backs up means only; expected config.backup='mean' (use run_puct), got {config.backup!r}")
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
    virtual = VirtualLoss(
        np.zeros((num_simulations + 1, num_actions), dtype=np.int32), np.zeros(num_simulations + 1, dtype=np.int32)
    )
    walks = Walks(
        parent=np.empty(k_max, dtype=np.int32), action=np.empty(k_max, dtype=np.int32),
        leaf=np.empty(k_max, dtype=np.int32), parent_states=np.empty((k_max, game.state_size), dtype=np.int64),
    )
    new = NewNodes(
        states=np.zeros((k_max, game.state_size), dtype=np.int64), to_play=np.zeros(k_max, dtype=np.int8),
        terminal=np.zeros(k_max, dtype=np.bool_), values=np.zeros(k_max, dtype=np.float32),
        priors=np.zeros((k_max, num_actions), dtype=np.float32), legal=np.zeros((k_max, num_actions), dtype=np.bool_),
    )
    params = selection_params(
        RULE_PUCT, c_puct=config.c_puct, c_base=config.c_base, c_init=config.c_init, fpu_value=config.fpu_value
    )
    t = tree.row_arrays(0)
    evaluations = 1
    terminal_leaves = 0
    done = 0
    while done < num_simulations:
        count = _select_many(t, virtual, params, min(k_max, num_simulations - done), walks)
        expand = np.flatnonzero(walks.leaf[:count] < 0)
        terminal_leaves += count - expand.size
        if expand.size:
            stepped = game.step(walks.parent_states[expand], walks.action[expand].astype(np.int64))
            terminal = game.terminal(stepped)
            new.states[expand] = stepped
            new.to_play[expand] = game.to_play(stepped)
            new.terminal[expand] = terminal
            finished = expand[terminal]
            terminal_leaves += finished.size
            new.values[finished] = game.terminal_value(stepped[terminal])
            new.priors[finished] = 0.0
            new.legal[finished] = False
            live = expand[~terminal]
            if live.size:
                live_states = stepped[~terminal]
                live_legal = game.legal_mask(live_states)
                priors, values, degenerate = evaluate_leaves(game, evaluate_fn, live_states, live_legal)
                new.priors[live] = priors
                new.legal[live] = live_legal
                new.values[live] = values
                evaluations += live.size
                num_degenerate += int(degenerate.sum())
        _backup_many(t, virtual, count, walks, new)
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
