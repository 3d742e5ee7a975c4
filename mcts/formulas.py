"""The selection formulas, each written once as a compiled helper that every search calls.

* PUCT (AlphaZero; Silver et al. 2018, supplementary pseudocode ``ucb_score``)::

      score(s, a) = Q(s, a) + c(s) * P(s, a) * sqrt(N(s)) / (1 + N(s, a))
      c(s) = log((1 + N(s) + c_base) / c_base) + c_init    if use_c_base else c_puct

  used by the batched search (``mcts.kernels.select_leaves``) and by the virtual-loss search of
  one root (``mcts.minibatch``).
* UCB1 on results scaled to ``[0, 1]`` (Kocsis & Szepesvari 2006, "Bandit based Monte-Carlo
  Planning")::

      score(s, a) = (Q(s, a) + 1) / 2 + c * sqrt(ln N(s) / N(s, a))     for N(s, a) > 0

  used by the batched UCT (``mcts.kernels.select_leaves``) and the compiled single-tree UCT
  (``mcts.uct_compiled``).

Q is from the view of the player choosing at ``s``, in ``[-1, 1]``; ``N`` are visit counts.
"""

from __future__ import annotations

import math

from numba import njit


@njit(cache=True, inline="always")
def puct_exploration(parent_visits, c_puct, c_base, c_init, use_c_base):  # pragma: no cover - compiled
    """``c(s) * sqrt(N(s))``, the part of the PUCT score shared by every child of ``s`` (float)."""
    if use_c_base:
        c = math.log((1.0 + parent_visits + c_base) / c_base) + c_init
    else:
        c = c_puct
    return c * math.sqrt(parent_visits)


@njit(cache=True, inline="always")
def puct_score(q, prior, child_visits, exploration):  # pragma: no cover - compiled
    """``Q(s, a) + exploration * P(s, a) / (1 + N(s, a))`` with ``exploration`` from ``puct_exploration``."""
    return q + exploration * prior / (1.0 + child_visits)


@njit(cache=True, inline="always")
def ucb1_score(q, child_visits, log_parent_visits, c):  # pragma: no cover - compiled
    """``(Q + 1) / 2 + c * sqrt(ln N(s) / N(s, a))`` for a visited child (``child_visits > 0``)."""
    return 0.5 * (q + 1.0) + c * math.sqrt(log_parent_visits / child_visits)
