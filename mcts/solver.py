"""The MCTS-solver's move choice: proven results override visit counts at the root.

Source: Winands, Bjornsson, Saito 2008, "Monte-Carlo Tree Search Solver" (Computers and Games),
sec. 3.3 (final move selection: a proven win is played, a proven loss is avoided while any other
move remains). The proofs themselves are made during the search (``mcts.kernels``,
``PUCTConfig.solver``).
"""

from __future__ import annotations

import numpy as np

from mcts.tree import PROVEN_DRAW, ROOT_INDEX, UNPROVEN, Tree


def playable_actions(proven_values: np.ndarray, legal_mask: np.ndarray) -> np.ndarray:
    """The root actions a search may play: ``[B, A]`` bool.

    The rule of Winands et al. 2008, sec. 3.3: a proven loss is never played while another legal
    move is unproven, drawn or won. A row whose legal actions are all proven lost keeps them all.
    Every search's final choice (``solver_visit_counts`` for visit-count searches, the Sequential
    Halving winner of ``mcts.gumbel``) and Sequential Halving's elimination go through it.

    Args:
        proven_values: ``[B, A]`` float, ``root_child_proven_values`` (NaN: not proven).
        legal_mask: ``[B, A]`` bool, True = legal.
    """
    legal = np.asarray(legal_mask, dtype=bool)
    keep = legal & ~(np.asarray(proven_values) == -1.0)
    return np.where(keep.any(axis=1, keepdims=True), keep, legal)


def solver_visit_counts(output) -> np.ndarray:
    """Root visit counts of a ``mcts.SearchOutput`` with proven results applied: ``[B, A]`` int32.

    Rows with a child proven won for the root player keep only those children (each at least 1
    visit, so a win found on the last simulation still counts); otherwise only the
    ``playable_actions`` keep their counts, and where none of them was visited (every visited
    child proven lost) each counts 1. Feed the result to ``mcts.select_actions``: a win in one or
    two is then never missed, and a proven loss never played while another move is not proven
    lost, at any simulation count. Without proofs (solver off) the counts come back unchanged.
    """
    counts = output.visit_counts.astype(np.int32)
    if not output.tree.node_proof.any():  # no proofs (the solver off): visits are 0 on illegal actions
        return counts
    num_actions = counts.shape[1]
    proven = root_child_proven_values(output.tree)[:, :num_actions]
    legal = output.tree.children_legal[:, ROOT_INDEX, :num_actions]
    won = proven == 1.0
    playable = playable_actions(proven, legal)
    kept = np.where(playable, counts, 0)
    counts = np.where((kept.sum(axis=1) > 0)[:, None], kept, playable.astype(np.int32))
    win_counts = np.where(won, np.maximum(counts, 1), 0)
    return np.where(won.any(axis=1)[:, None], win_counts, counts).astype(np.int32)


def root_child_proven_values(tree: Tree) -> np.ndarray:
    """Exact proven value of each root child from the root player's view: ``[B, A]`` float32,
    NaN where the child is not created or not proven (MCTS-solver; see ``mcts.tree``)."""
    rows = np.arange(tree.batch_size)[:, None]
    children = tree.children_index[:, ROOT_INDEX]
    safe = np.maximum(children, 0)
    proof = tree.node_proof[rows, safe]
    value = proof.astype(np.float32) - PROVEN_DRAW
    same = tree.node_to_play[rows, safe] == tree.node_to_play[:, ROOT_INDEX][:, None]
    value = np.where(same, value, -value)
    return np.where((children >= 0) & (proof != UNPROVEN), value, np.nan).astype(np.float32)
