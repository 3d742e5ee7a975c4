"""Connect Four's exact solver (``games.connect4.knowledge``): Pons' solver asked about single-state tuples.

The game's state layout (``(current, mask, ply, status)``, ``games.connect4.layout``) is the
solver's, so each child position is built directly from the bitboards, without move strings.
Scores follow Pons' convention (``games.connect4.solver``): positive when the side to move wins,
larger for a sooner win, so among winning moves the fastest win scores highest and among losing
ones the slowest loss.
"""

from __future__ import annotations

import numpy as np

import games.connect4.solver as c4
from games.connect4.layout import NUM_CELLS, has_four, move_bit


class ConnectFourSolver:
    """``action_scores`` and ``optimal_actions`` of Connect Four states, on the shared
    ``games.connect4.solver.default_solver()`` (its table and opening book persist).

    Early positions cost seconds to minutes each unless the opening book covers them.
    """

    def action_scores(self, state: tuple) -> dict[int, int]:
        """Exact Pons score of each legal column (0-based) for the player to move.

        All non-winning children are solved in one compiled call. An immediate win scores
        ``(42 + 1 - ply) // 2`` (Pons' solver, ``Position::nbMoves``).

        Raises:
            ValueError: if ``state`` is finished.
        """
        current, mask, ply, status = (int(v) for v in state)
        legal = [c for c in range(7) if move_bit(mask, c)] if status == 0 else []
        if not legal:
            raise ValueError(f"connect4: expected a non-terminal state, got a finished one: {state}")
        scores: dict[int, int] = {}
        children: list[tuple[int, c4.Position]] = []
        for column in legal:
            move = move_bit(mask, column)
            if has_four(current | move):
                scores[column] = (NUM_CELLS + 1 - ply) // 2
                continue
            # the child: the opponent to move, holding the stones that were not ours
            children.append((column, c4.Position(current ^ mask, mask | move, ply + 1)))
        if children:
            if ply + 1 == NUM_CELLS:
                child_scores = [0] * len(children)  # the last cell, no four: a draw
            else:
                child_scores, _ = c4.default_solver().solve_parsed([p for _, p in children])
            for (column, _), child_score in zip(children, child_scores):
                scores[column] = -int(child_score)
        return dict(sorted(scores.items()))

    def optimal_actions(self, state: tuple) -> list[int]:
        """The 0-based columns with the best exact score, increasing.

        Same answer as the maximum of :meth:`action_scores`, for less search: the position is
        solved once and each column checked with a null-window search
        (``games.connect4.solver.Solver.optimal_moves_parsed``).

        Raises:
            ValueError: if the board is full.
        """
        position = c4.Position(int(state[0]), int(state[1]), int(state[2]))
        _, optimal = c4.default_solver().optimal_moves_parsed(position)
        return [int(c) for c in np.flatnonzero(optimal)]


#: the one instance ``ConnectFourKnowledge.exact_solver`` returns
SOLVER = ConnectFourSolver()
