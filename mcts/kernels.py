"""Numba-compiled per-simulation kernels: one call walks or updates all ``B`` trees.

The search loop (``mcts.search.search_loop``) calls ``select_leaves`` once per simulation step,
steps the game on the batch of leaves, evaluates them, then calls ``expand_and_backup`` once.
Neither kernel allocates node objects; both loop over the batch inside compiled code. The tree
arrives as one ``mcts.tree.TreeArrays`` record, the selection constants as one
``SelectionParams``, and the per-row results and new nodes as ``Walks``, ``NewNodes`` and
``NewOutcomes`` records (Numba compiles NamedTuples of arrays and scalars), so no kernel takes
its arrays one by one. The selection formulas are ``mcts.formulas``'.
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from mcts.formulas import puct_exploration, puct_score, ucb1_score

#: Selection rules understood by ``select_leaves``.
RULE_PUCT = 0
RULE_UCT = 1
#: Gumbel MuZero's deterministic interior selection (Danihelka et al. 2022, sec. 5, eq. 14).
RULE_GUMBEL = 2
#: ``root_actions`` entry that lets the rule choose at the root.
NO_FORCED_ACTION = -1
#: Chance modes understood by both kernels (``mcts.search``): no chance nodes, backed-up
#: expectation over every outcome, or one outcome sampled per visit.
CHANCE_NONE = 0
CHANCE_EXPECTATION = 1
CHANCE_SAMPLING = 2
#: ``node_proof`` codes, as ``mcts.tree`` (UNPROVEN, PROVEN_LOSS, PROVEN_DRAW, PROVEN_WIN).
_UNPROVEN = 0
_PROVEN_DRAW = 2
_PROVEN_WIN = 3


class SelectionParams(NamedTuple):
    """The constants of ``select_leaves``: the ``rule`` (``RULE_*``), PUCT's ``c_puct``,
    ``c_base``, ``c_init`` and ``use_c_base`` and first-play urgency ``fpu_value``, UCT's
    ``uct_c``, the MCTS-solver switch ``use_solver``, Gumbel's ``c_visit`` and ``c_scale``, and
    the ``chance_mode`` (``CHANCE_*``). Build it with ``selection_params`` (typed as the compiled
    kernels expect)."""

    rule: int
    c_puct: float
    c_base: float
    c_init: float
    use_c_base: bool
    fpu_value: float
    uct_c: float
    use_solver: bool
    c_visit: float
    c_scale: float
    chance_mode: int


def selection_params(
    rule, *, c_puct=0.0, c_base=None, c_init=0.0, fpu_value=0.0, uct_c=0.0, use_solver=False, c_visit=50.0,
    c_scale=0.1, chance_mode=CHANCE_NONE,
) -> SelectionParams:
    """A ``SelectionParams`` with Python ints, floats and bools (one compiled signature);
    ``c_base`` None turns the growing PUCT constant off."""
    return SelectionParams(
        int(rule), float(c_puct), float(c_base) if c_base is not None else 1.0, float(c_init), c_base is not None,
        float(fpu_value), float(uct_c), bool(use_solver), float(c_visit), float(c_scale), int(chance_mode),
    )


class Walks(NamedTuple):
    """Where each row's walk ended (``select_leaves``): ``parent``, ``action`` and ``leaf`` ``[B]``
    int32 and the parent's state ``parent_states`` ``[B, S]`` int64."""

    parent: np.ndarray
    action: np.ndarray
    leaf: np.ndarray
    parent_states: np.ndarray


class NewNodes(NamedTuple):
    """The node each row creates (``expand_and_backup``; read for rows whose walk ended at a
    missing child): ``states`` ``[B, S]`` int64, ``to_play`` ``[B]`` int8, ``terminal`` ``[B]``
    bool, ``values`` ``[B]`` float32 (player-to-move view), ``priors`` ``[B, W]`` float32,
    ``legal`` ``[B, W]`` bool."""

    states: np.ndarray
    to_play: np.ndarray
    terminal: np.ndarray
    values: np.ndarray
    priors: np.ndarray
    legal: np.ndarray


class NewOutcomes(NamedTuple):
    """The outcomes created below new chance nodes (``K = 0`` columns in a game without chance):
    ``is_chance`` ``[B]`` bool (the new node is a chance node), ``probs`` ``[B, K]`` float64,
    ``present`` ``[B, K]`` bool (outcome created now), and per outcome ``states`` ``[B, K, S]``,
    ``to_play``, ``terminal``, ``values``, ``priors`` ``[B, K, W]`` and ``legal``."""

    is_chance: np.ndarray
    probs: np.ndarray
    present: np.ndarray
    states: np.ndarray
    to_play: np.ndarray
    terminal: np.ndarray
    values: np.ndarray
    priors: np.ndarray
    legal: np.ndarray


@njit(cache=True)
def select_leaves(t, params, walks, root_actions, chance_seeds):  # pragma: no cover - compiled
    """Walk every row from the root to a leaf.

    For row ``b`` the walk stops either at an edge whose child does not exist yet
    (``walks.leaf[b] = -1``, ``walks.parent[b]``/``walks.action[b]`` name the edge and
    ``walks.parent_states[b]`` gets the parent's state) or at a terminal node already in the tree
    (``walks.leaf[b]`` = that node).

    PUCT (AlphaZero pseudocode, Silver et al. 2018 supplementary, ``ucb_score``;
    ``mcts.formulas.puct_score``)::

        score(s, a) = Q(s, a) + c(s) * P(s, a) * sqrt(N(s)) / (1 + N(s, a))
        c(s) = log((1 + N(s) + c_base) / c_base) + c_init      if use_c_base else c_puct

    where ``N(s)`` is the node's own visit count (its expansion counts one, so
    ``N(s) = 1 + sum_a N(s, a)``, as in mctx) so that priors order the children of a fresh node,
    and ``Q`` of an unvisited child is ``fpu_value`` (parent's view).

    UCT (Kocsis & Szepesvari 2006, UCB1 on results scaled to [0, 1]; ``mcts.formulas.ucb1_score``)::

        score(s, a) = (Q(s, a) + 1) / 2 + uct_c * sqrt(ln N(s) / N(s, a)),  +inf if N(s, a) = 0

    Gumbel interior (Danihelka et al. 2022, sec. 5, eq. 14; mctx
    ``gumbel_muzero_interior_action_selection``), deterministic::

        pi'(s) = softmax(log P(s, .) + sigma(completed Q(s, .)))        (``completed_q_policy``)
        a = argmax_a  pi'(s, a) - N(s, a) / (1 + sum_b N(s, b))

    ``root_actions[b] >= 0`` forces the action taken at row ``b``'s root (Sequential Halving of
    ``mcts.gumbel`` chooses it); ``NO_FORCED_ACTION`` lets the rule choose there too.

    MCTS-solver (``use_solver``; Winands et al. 2008, sec. 3): a child proven won for the node's
    player is taken at once, children proven lost for it are passed over while another child
    remains, a proven child's Q is its exact proven value, and the walk stops at a proven
    non-root node (its proven value is backed up, as for a terminal node).

    Chance nodes (``node_chance``; never the root) are not chosen at by a rule: with
    ``CHANCE_SAMPLING`` the walk goes to outcome ``k`` with probability ``chance_probs[b, node, k]``
    (inverse CDF of a uniform from ``splitmix64_uniform`` on ``chance_seeds[b]``, which the caller
    draws from its seeded generator); with ``CHANCE_EXPECTATION`` (every outcome already expanded)
    it goes to the outcome furthest below its share of the visits, ``argmax_k p_k / (1 + N_k)``,
    so visits follow the probabilities without randomness. An outcome not in the tree yet ends the
    walk like a missing child (``walks.parent`` is then the chance node).

    Ties go to the lowest action index.
    """
    batch = t.children_index.shape[0]
    num_actions = t.children_index.shape[2]
    chance_mode = params.chance_mode
    use_solver = params.use_solver
    rule = params.rule
    child_q = np.zeros(num_actions)
    child_n = np.zeros(num_actions)
    child_excluded = np.zeros(num_actions, dtype=np.bool_)
    for b in range(batch):
        node = 0
        while True:
            if t.node_terminal[b, node] or (use_solver and node != 0 and t.node_proof[b, node] != _UNPROVEN):
                walks.leaf[b] = node
                walks.parent[b] = -1
                walks.action[b] = -1
                break
            if chance_mode != CHANCE_NONE and t.node_chance[b, node]:
                outcome = _chance_outcome(t, chance_mode, chance_seeds, b, node)
                child = t.children_index[b, node, outcome]
                if child < 0:
                    _end_walk(t, walks, b, node, outcome)
                    break
                node = child
                continue
            if node == 0 and root_actions[b] >= 0:
                best_action = root_actions[b]
                child = t.children_index[b, node, best_action]
                if child < 0:
                    _end_walk(t, walks, b, node, best_action)
                    break
                node = child
                continue
            parent_visits = t.node_visits[b, node]
            explore = 0.0
            log_parent = 0.0
            if rule == RULE_PUCT:
                explore = puct_exploration(parent_visits, params.c_puct, params.c_base, params.c_init, params.use_c_base)
            else:
                log_parent = math.log(max(parent_visits, 1))
            best_action = -1
            best_score = -np.inf
            fallback_action = -1
            winning_action = -1
            player = t.node_to_play[b, node]
            total_visits = 0.0
            for a in range(num_actions):
                child_excluded[a] = False
                child_n[a] = 0.0
                child_q[a] = params.fpu_value
                if not t.children_legal[b, node, a]:
                    continue
                child = t.children_index[b, node, a]
                if child >= 0:
                    visits = t.node_visits[b, child]
                    child_n[a] = visits
                    total_visits += visits
                    if visits > 0:
                        q = t.node_value_sum[b, child] / visits
                        if t.node_to_play[b, child] != player:
                            q = -q
                        child_q[a] = q
                    if use_solver and t.node_proof[b, child] != _UNPROVEN:
                        proven = np.float64(t.node_proof[b, child] - _PROVEN_DRAW)
                        if t.node_to_play[b, child] != player:
                            proven = -proven
                        child_q[a] = proven
                        if proven > 0 and winning_action < 0:
                            winning_action = a
                        elif proven < 0:
                            child_excluded[a] = True
                            if fallback_action < 0:
                                fallback_action = a
            if rule == RULE_GUMBEL:
                _gumbel_interior_scores(t, b, node, child_q, child_n, total_visits, params.c_visit, params.c_scale)
            for a in range(num_actions):
                if not t.children_legal[b, node, a] or child_excluded[a]:
                    continue
                child_visits = child_n[a]
                q = child_q[a]
                if rule == RULE_PUCT:
                    score = puct_score(q, t.children_prior[b, node, a], child_visits, explore)
                elif rule == RULE_GUMBEL:
                    score = child_q[a]  # overwritten with pi'(a) - N(a) / (1 + sum N)
                else:
                    if child_visits == 0:
                        score = np.inf
                    else:
                        score = ucb1_score(q, child_visits, log_parent, params.uct_c)
                if best_action < 0 or score > best_score:
                    best_score = score
                    best_action = a
            if winning_action >= 0:
                best_action = winning_action
            elif best_action < 0:
                best_action = fallback_action  # every legal child is proven lost
            child = t.children_index[b, node, best_action]
            if child < 0:
                _end_walk(t, walks, b, node, best_action)
                break
            node = child


@njit(cache=True, inline="always")
def _end_walk(t, walks, b, node, action):  # pragma: no cover - compiled
    """Row ``b``'s walk ends at the missing child ``action`` of ``node``."""
    walks.leaf[b] = -1
    walks.parent[b] = node
    walks.action[b] = action
    walks.parent_states[b, :] = t.node_states[b, node, :]


@njit(cache=True)
def splitmix64_uniform(seeds, b):  # pragma: no cover - compiled
    """The next uniform in ``[0, 1)`` of row ``b``'s stream; advances ``seeds[b]`` (uint64).

    SplitMix64 (Steele, Lea & Flood, "Fast splittable pseudorandom number generators", OOPSLA
    2014), the top 53 bits as a float64.
    """
    z = seeds[b] + np.uint64(0x9E3779B97F4A7C15)
    seeds[b] = z
    z = (z ^ (z >> np.uint64(30))) * np.uint64(0xBF58476D1CE4E5B9)
    z = (z ^ (z >> np.uint64(27))) * np.uint64(0x94D049BB133111EB)
    z = z ^ (z >> np.uint64(31))
    return np.float64(z >> np.uint64(11)) * (1.0 / 9007199254740992.0)


@njit(cache=True)
def _chance_outcome(t, chance_mode, chance_seeds, b, node):  # pragma: no cover - compiled
    """The outcome a walk takes at chance node ``node`` of row ``b`` (see ``select_leaves``)."""
    num_outcomes = t.chance_probs.shape[2]
    last = -1
    if chance_mode == CHANCE_SAMPLING:
        u = splitmix64_uniform(chance_seeds, b)
        cumulative = 0.0
        for k in range(num_outcomes):
            p = t.chance_probs[b, node, k]
            if p > 0.0:
                last = k
                cumulative += p
                if u < cumulative:
                    return k
        return last  # u beyond the rounded total: the last possible outcome
    best = -1.0
    for k in range(num_outcomes):
        p = t.chance_probs[b, node, k]
        if p > 0.0:
            child = t.children_index[b, node, k]
            visits = t.node_visits[b, child] if child >= 0 else 0
            score = p / (1.0 + visits)
            if score > best:
                best = score
                last = k
    return last


@njit(cache=True)
def _gumbel_interior_scores(t, b, node, child_q, child_n, total_visits, c_visit, c_scale):  # pragma: no cover - compiled
    """Overwrite ``child_q[a]`` with ``pi'(a) - N(a) / (1 + sum N)`` for the legal actions.

    ``pi'`` is the completed-Q improved policy of ``mcts.policy.completed_q_policy`` (mixed value
    for unvisited children, min-max rescaling, ``sigma = (c_visit + max N) * c_scale * q``).
    """
    num_actions = child_q.shape[0]
    raw_value = t.node_raw_value[b, node]
    tiny = 1.1754943508222875e-38
    visited_mass = 0.0
    weighted = 0.0
    max_visits = 0.0
    for a in range(num_actions):
        if t.children_legal[b, node, a] and child_n[a] > 0:
            p = max(np.float64(t.children_prior[b, node, a]), tiny)
            visited_mass += p
            weighted += p * child_q[a]
            max_visits = max(max_visits, child_n[a])
    mixed = np.float64(raw_value)
    if visited_mass > 0:
        mixed = (raw_value + total_visits * (weighted / visited_mass)) / (total_visits + 1.0)
    low = np.inf
    high = -np.inf
    for a in range(num_actions):
        if not t.children_legal[b, node, a]:
            continue
        if child_n[a] == 0:  # unvisited (a proven child always has visits): the mixed value
            child_q[a] = mixed
        low = min(low, child_q[a])
        high = max(high, child_q[a])
    scale = (c_visit + max_visits) * c_scale / max(high - low, 1e-8)
    top = -np.inf
    for a in range(num_actions):
        if t.children_legal[b, node, a]:
            logit = math.log(max(np.float64(t.children_prior[b, node, a]), tiny)) + (child_q[a] - low) * scale
            child_q[a] = logit
            top = max(top, logit)
    total = 0.0
    for a in range(num_actions):
        if t.children_legal[b, node, a]:
            child_q[a] = math.exp(child_q[a] - top)
            total += child_q[a]
    for a in range(num_actions):
        if t.children_legal[b, node, a]:
            child_q[a] = child_q[a] / total - child_n[a] / (1.0 + total_visits)


@njit(cache=True)
def expand_and_backup(t, walks, new, outcomes, use_solver, chance_mode):  # pragma: no cover - compiled
    """Create the new leaves (rows with ``walks.leaf[b] == -1``) and back their values up.

    ``new`` (``NewNodes``) arrays are indexed by row ``b`` and only read for rows that create a node. The
    value of a terminal leaf already in the tree is its stored exact value. Backup adds the
    value to every node on the path, negating it only when the player to move changes between a
    node and its parent (negamax; a player moving twice in a row keeps its sign).

    With ``use_solver`` (MCTS-solver, Winands et al. 2008, sec. 3) a new terminal leaf whose exact
    value is -1, 0 or +1 is proven, a proven leaf backs up its proven value, and proofs move up
    the path: a parent with a child proven won for it is proven won; a parent whose legal children
    all exist and are proven takes the best of their values (all lost: a proven loss).

    Chance (``chance_mode`` not ``CHANCE_NONE``): a new leaf with ``outcomes.is_chance[b]`` is a chance
    node with outcome probabilities ``outcomes.probs[b]``; its outcomes ``k`` with
    ``outcomes.present[b, k]`` are created below it at once (``outcomes.*[b, k]``, one visit each,
    their own evaluation), and the backup starts at the chance node with ``new.values[b]``. With
    ``CHANCE_EXPECTATION`` a chance node on the path takes the probability-weighted mean of its
    outcomes' mean values, ``V(c) = sum_k p_k Q(c, k)`` (expectimax's chance rule, Russell &
    Norvig 3rd ed. section 5.5, over the tree's estimates): its value sum is set to
    ``N(c) * V(c)`` and ``V(c)`` is what goes on up. With ``CHANCE_SAMPLING`` chance nodes back
    up like any other node (a Monte Carlo estimate of the same expectation).
    """
    batch = t.node_visits.shape[0]
    num_actions = t.children_index.shape[2]
    for b in range(batch):
        if walks.leaf[b] < 0:
            node = t.num_nodes[b]
            t.num_nodes[b] += 1
            parent = walks.parent[b]
            t.parents[b, node] = parent
            t.action_from_parent[b, node] = walks.action[b]
            t.children_index[b, parent, walks.action[b]] = node
            t.node_to_play[b, node] = new.to_play[b]
            t.node_terminal[b, node] = new.terminal[b]
            t.node_states[b, node, :] = new.states[b, :]
            t.node_raw_value[b, node] = new.values[b]
            for a in range(num_actions):
                t.children_prior[b, node, a] = new.priors[b, a]
                t.children_legal[b, node, a] = new.legal[b, a]
            value = np.float64(new.values[b])
            if use_solver and new.terminal[b] and (value == -1.0 or value == 0.0 or value == 1.0):
                t.node_proof[b, node] = np.int8(value) + _PROVEN_DRAW
            if chance_mode != CHANCE_NONE and outcomes.is_chance[b]:
                _create_outcomes(t, outcomes, b, node)
        else:
            node = walks.leaf[b]
            value = np.float64(t.node_raw_value[b, node])
            if use_solver and t.node_proof[b, node] != _UNPROVEN:
                value = np.float64(t.node_proof[b, node] - _PROVEN_DRAW)
        leaf = node
        while True:
            t.node_visits[b, node] += 1
            if chance_mode == CHANCE_EXPECTATION and t.node_chance[b, node]:
                value = _expected_value(t, b, node)
                t.node_value_sum[b, node] = value * t.node_visits[b, node]
            else:
                t.node_value_sum[b, node] += value
            parent = t.parents[b, node]
            if parent < 0:
                break
            if t.node_to_play[b, parent] != t.node_to_play[b, node]:
                value = -value
            node = parent
        if use_solver:
            _propagate_proofs(t, b, leaf)


@njit(cache=True)
def _create_outcomes(t, outcomes, b, chance_node):  # pragma: no cover - compiled
    """Mark ``chance_node`` of row ``b`` a chance node and create its present outcomes below it."""
    num_edges = t.children_index.shape[2]
    t.node_chance[b, chance_node] = True
    for k in range(t.chance_probs.shape[2]):
        t.chance_probs[b, chance_node, k] = outcomes.probs[b, k]
        if not outcomes.present[b, k]:
            continue
        node = t.num_nodes[b]
        t.num_nodes[b] += 1
        t.parents[b, node] = chance_node
        t.action_from_parent[b, node] = k
        t.children_index[b, chance_node, k] = node
        t.node_to_play[b, node] = outcomes.to_play[b, k]
        t.node_terminal[b, node] = outcomes.terminal[b, k]
        t.node_states[b, node, :] = outcomes.states[b, k, :]
        t.node_raw_value[b, node] = outcomes.values[b, k]
        t.node_visits[b, node] = 1
        t.node_value_sum[b, node] = np.float64(outcomes.values[b, k])
        for a in range(num_edges):
            t.children_prior[b, node, a] = outcomes.priors[b, k, a]
            t.children_legal[b, node, a] = outcomes.legal[b, k, a]


@njit(cache=True)
def _expected_value(t, b, node):  # pragma: no cover - compiled
    """``sum_k p_k Q(node, k)`` over the created outcomes of chance node ``node``, its player's view.

    Outcomes not created yet (only possible in sampling trees) are left out and the weights
    renormalised over those that are.
    """
    total = 0.0
    mass = 0.0
    player = t.node_to_play[b, node]
    for k in range(t.chance_probs.shape[2]):
        p = t.chance_probs[b, node, k]
        child = t.children_index[b, node, k]
        if p <= 0.0 or child < 0 or t.node_visits[b, child] <= 0:
            continue
        q = t.node_value_sum[b, child] / t.node_visits[b, child]
        if t.node_to_play[b, child] != player:
            q = -q
        total += p * q
        mass += p
    return total / mass if mass > 0.0 else 0.0


@njit(cache=True)
def _propagate_proofs(t, b, node):  # pragma: no cover - compiled
    """Move proofs from ``node`` towards the root of row ``b`` while a parent becomes proven."""
    num_actions = t.children_index.shape[2]
    while t.node_proof[b, node] != _UNPROVEN:
        parent = t.parents[b, node]
        if parent < 0 or t.node_proof[b, parent] != _UNPROVEN:
            return
        player = t.node_to_play[b, parent]
        all_proven = True
        best = -2
        for a in range(num_actions):
            if not t.children_legal[b, parent, a]:
                continue
            child = t.children_index[b, parent, a]
            if child < 0 or t.node_proof[b, child] == _UNPROVEN:
                all_proven = False
                continue
            value = t.node_proof[b, child] - _PROVEN_DRAW
            if t.node_to_play[b, child] != player:
                value = -value
            best = max(best, value)
        if best == 1:
            t.node_proof[b, parent] = _PROVEN_WIN
        elif all_proven:
            t.node_proof[b, parent] = best + _PROVEN_DRAW
        else:
            return
        node = parent
