"""Decision-node backups other than the running mean (``PUCTConfig.backup``).

PUCT's value of a node is the mean of every simulation through it (``mcts.kernels.expand_and_backup``),
so it mixes in the moves the search tried and rejected below it. Where two moves are close (Pig's
roll and hold are often a few thousandths of win probability apart) that mixture decides: below
``roll`` the mover's own rejected later decisions pull ``Q(roll)`` down, below ``hold`` the
opponent's rejected decisions push ``Q(hold)`` up. The backups here recompute, after each
simulation's mean backup, the value of every node on the walked path from its children, bottom
up (Khandelwal et al. 2016, "On the Analysis of Complex Backup Strategies in Monte Carlo Tree
Search", ICML, sec. 3, the max and mixed backups; Coulom 2006, "Efficient Selectivity and Backup
Operators in Monte-Carlo Tree Search", sec. 3, the max of the children):

* ``"max"``: a decision node's value is the highest ``Q`` among its visited children (its player's
  view); a node with no visited child keeps its own evaluation;
* ``"max_self"``: the highest of the node's own evaluation and its visited children's ``Q``:
  with exact values (a solver's as the evaluator) every node's value is then exact, since a
  node's evaluation already is the best of its moves and no child estimate exceeds it; with a
  noisy value it is biased upwards by the noise;
* ``"robust"``: the ``Q`` of the most visited child, ties to the higher ``Q`` (Coulom 2006,
  sec. 3, the "robust max"; the child the search itself would play): it drops the rejected moves
  the mean mixes in, and it picks its child by visits, not by the highest of several noisy
  estimates, so it is less biased upwards than ``"max"``; a node with no visited child keeps its
  own evaluation;

and a chance node's value is always the probability-weighted mean of its outcomes' values
(``CHANCE_EXPECTATION``; renormalised over the outcomes in the tree) or, when outcomes are
sampled, their visit-weighted mean. A node's value is kept as ``node_value_sum = N * V`` so that
``Q``, ``root_values`` and selection read it as they read the mean. Visits are unchanged: the
backup changes values, not counts.
"""

from __future__ import annotations

import numpy as np
from numba import njit

from mcts.kernels import CHANCE_EXPECTATION

#: ``PUCTConfig.backup`` settings, and the codes of ``rebackup_paths``
BACKUP_MEAN = 0
BACKUP_MAX = 1
BACKUP_MAX_SELF = 2
BACKUP_ROBUST = 3
BACKUP_MODES = {"mean": BACKUP_MEAN, "max": BACKUP_MAX, "max_self": BACKUP_MAX_SELF, "robust": BACKUP_ROBUST}


@njit(cache=True)
def rebackup_paths(t, walks, mode, chance_mode):  # pragma: no cover - compiled
    """Recompute the values on each row's walked path after ``mcts.kernels.expand_and_backup``.

    ``t`` is a ``mcts.tree.TreeArrays``, ``walks`` the step's ``mcts.kernels.Walks`` (the leaf of a
    row is ``walks.leaf[b]``, or the child just created at ``walks.parent[b]``, ``walks.action[b]``),
    ``mode`` one of ``BACKUP_MAX``, ``BACKUP_MAX_SELF``, ``BACKUP_ROBUST`` (module docstring) and ``chance_mode`` the
    ``mcts.kernels`` chance code. Every ancestor of the leaf, bottom up, gets
    ``node_value_sum = node_visits * V`` with ``V`` its value by the module's rules; the leaf keeps
    its own.
    """
    batch = t.node_visits.shape[0]
    num_edges = t.children_index.shape[2]
    for b in range(batch):
        node = walks.leaf[b]
        if node < 0:
            node = t.children_index[b, walks.parent[b], walks.action[b]]
        node = t.parents[b, node]
        while node >= 0:
            player = t.node_to_play[b, node]
            if t.node_chance[b, node]:
                total = 0.0
                mass = 0.0
                for k in range(t.chance_probs.shape[2]):
                    child = t.children_index[b, node, k]
                    if child < 0 or t.node_visits[b, child] <= 0:
                        continue
                    weight = t.chance_probs[b, node, k] if chance_mode == CHANCE_EXPECTATION else np.float64(t.node_visits[b, child])
                    q = t.node_value_sum[b, child] / t.node_visits[b, child]
                    if t.node_to_play[b, child] != player:
                        q = -q
                    total += weight * q
                    mass += weight
                if mass > 0.0:
                    t.node_value_sum[b, node] = t.node_visits[b, node] * (total / mass)
            else:
                best = -np.inf
                most = 0
                for a in range(num_edges):
                    child = t.children_index[b, node, a]
                    if not t.children_legal[b, node, a] or child < 0 or t.node_visits[b, child] <= 0:
                        continue
                    q = t.node_value_sum[b, child] / t.node_visits[b, child]
                    if t.node_to_play[b, child] != player:
                        q = -q
                    if mode == BACKUP_ROBUST:
                        visits = t.node_visits[b, child]
                        if visits > most or (visits == most and q > best):
                            most = visits
                            best = q
                    else:
                        best = max(best, q)
                if mode == BACKUP_MAX_SELF:
                    best = max(best, np.float64(t.node_raw_value[b, node]))
                if best > -np.inf:
                    t.node_value_sum[b, node] = t.node_visits[b, node] * best
            node = t.parents[b, node]
