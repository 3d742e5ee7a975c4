"""The MCTS-solver's move choice: proven results override visit counts at the root.

Source: Winands, Bjornsson, Saito 2008, "Monte-Carlo Tree Search Solver" (Computers and Games),
sec. 3.3 (final move selection: a proven win is played, a proven loss is avoided while any other
move remains). The proofs themselves are made during the search (``mcts._kernels``,
``PUCTConfig.solver``).
"""

from __future__ import annotations

import numpy as np

from mcts.search import SearchOutput, root_child_proven_values


def solver_visit_counts(output: SearchOutput) -> np.ndarray:
    """Root visit counts with proven results applied: ``[B, A]`` int32.

    Rows with a child proven won for the root player keep only those children (each at least 1
    visit, so a win found on the last simulation still counts); otherwise children proven lost
    get 0 visits unless every visited child is proven lost. Feed the result to
    ``mcts.select_actions``: a win in one or two is then never missed, at any simulation count.
    Without proofs (solver off) the counts come back unchanged.
    """
    counts = output.visit_counts.astype(np.int32)
    proven = root_child_proven_values(output.tree)
    won = proven == 1.0
    lost = proven == -1.0
    avoid = np.where(lost, 0, counts)
    counts = np.where((avoid.sum(axis=1) > 0)[:, None], avoid, counts)
    win_counts = np.where(won, np.maximum(counts, 1), 0)
    return np.where(won.any(axis=1)[:, None], win_counts, counts).astype(np.int32)
