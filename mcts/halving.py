"""Sequential Halving's root action in compiled code: the Gumbel search's choice of each simulation
(``mcts.gumbel``; Danihelka et al. 2022, sec. 3-5), one call for all rows, used by ``mcts.gumbel``
and by the compiled batched loop (``mcts.batched``)."""

from __future__ import annotations

import numpy as np
from numba import njit

from mcts.masking import pairwise_sum
from mcts.tree import ROOT_INDEX


@njit(cache=True)
def halving_actions_compiled(t, gumbel, logits, schedule, simulation, c_visit, c_scale, out):  # pragma: no cover - compiled
    """``_halving_actions(*_root_scores(...))`` without the solver, for all rows in one call, into
    ``out`` ``[B]`` int32: every float operation of ``completed_q_sigma`` and ``Tree.q_values`` in
    numpy's order (sums in its pairwise order, ``mcts.masking.pairwise_sum``), so the chosen actions
    are the same. ``t``: ``mcts.tree.TreeArrays``; ``gumbel``, ``logits``: ``[B, A]`` float64;
    ``schedule``: ``[B, n]`` int32, each row's Sequential Halving visit schedule
    (``_visit_table`` at its number of considered actions)."""
    batch = gumbel.shape[0]
    num_actions = gumbel.shape[1]
    tiny = np.float64(np.finfo(np.float32).tiny)
    n = np.empty(num_actions, dtype=np.float64)
    q = np.empty(num_actions, dtype=np.float64)
    work = np.empty(num_actions, dtype=np.float64)
    scores = np.empty(num_actions, dtype=np.float64)
    for b in range(batch):
        root_player = t.node_to_play[b, ROOT_INDEX]
        for a in range(num_actions):
            child = t.children_index[b, ROOT_INDEX, a]
            visits = t.node_visits[b, child] if child >= 0 else 0
            n[a] = np.float64(visits)
            q[a] = 0.0
            if child >= 0 and visits > 0 and t.children_legal[b, ROOT_INDEX, a]:
                mean = t.node_value_sum[b, child] / visits
                if t.node_to_play[b, child] != root_player:
                    mean = -mean
                q[a] = np.float64(np.float32(mean))  # Tree.q_values is float32
        total_visits = pairwise_sum(n, num_actions, 0.0)
        for a in range(num_actions):  # visited mass
            legal = t.children_legal[b, ROOT_INDEX, a]
            p = np.float64(t.root_raw_prior[b, a]) if legal else 0.0
            work[a] = max(p, tiny) if legal and n[a] > 0 else 0.0
        visited_mass = pairwise_sum(work, num_actions, 0.0)
        for a in range(num_actions):
            legal = t.children_legal[b, ROOT_INDEX, a]
            p = np.float64(t.root_raw_prior[b, a]) if legal else 0.0
            work[a] = max(p, tiny) * q[a] if legal and n[a] > 0 else 0.0
        weighted_q = pairwise_sum(work, num_actions, 0.0) / visited_mass if visited_mass > 0 else 0.0
        mixed = (np.float64(t.node_raw_value[b, ROOT_INDEX]) + total_visits * weighted_q) / (total_visits + 1.0)
        low = np.inf
        high = -np.inf
        most = 0.0
        for a in range(num_actions):
            most = max(most, n[a])
            work[a] = q[a] if t.children_legal[b, ROOT_INDEX, a] and n[a] > 0 else mixed  # completed Q
            if t.children_legal[b, ROOT_INDEX, a]:
                low = min(low, work[a])
                high = max(high, work[a])
        spread = max(high - low, 1e-8)
        scale = (c_visit + most) * c_scale
        for a in range(num_actions):
            if t.children_legal[b, ROOT_INDEX, a]:
                scores[a] = gumbel[b, a] + logits[b, a] + scale * ((work[a] - low) / spread)
            else:
                scores[a] = -np.inf
        wanted = schedule[b, simulation]
        best = -np.inf
        action = 0
        for a in range(num_actions):
            if t.children_legal[b, ROOT_INDEX, a] and n[a] == wanted and scores[a] > best:
                best = scores[a]
                action = a
        if not best > -np.inf:  # no action at the schedule's count: the least visited, best score
            fewest = np.inf
            for a in range(num_actions):
                if t.children_legal[b, ROOT_INDEX, a]:
                    fewest = min(fewest, n[a])
            best = -np.inf
            action = 0
            for a in range(num_actions):
                if t.children_legal[b, ROOT_INDEX, a] and n[a] == fewest and scores[a] > best:
                    best = scores[a]
                    action = a
        out[b] = action
