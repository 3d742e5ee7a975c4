"""Every position of a short game labelled by exhaustive negamax (``games.exhaustive``): the
tic-tac-toe set ``all`` that accuracy against perfect play is measured on."""

from __future__ import annotations

from collections import deque

import numpy as np

from arena.positions.labelled import ILLEGAL, LabelledSet
from games.exhaustive import shared_exhaustive_solver


def every_position_labelled_set(game, name: str = "all"):
    """Every reachable non-terminal position, each action labelled by ``ExhaustiveSolver``.

    Breadth first from the start, each position with its shortest move string. Returns a
    ``arena.positions.labelled.LabelledSet`` (outcome +1 win, 0 draw, -1 loss, ``ILLEGAL`` for an illegal
    action).

    Raises:
        ValueError: if the game is too long to solve exhaustively.
    """
    solver = shared_exhaustive_solver(game)
    if solver is None:
        raise ValueError(f"{game.name} is too long to label every position exhaustively")
    start = game.initial_state()
    seen = {start: ""}
    queue = deque([start])
    moves, states, outcomes = [], [], []
    while queue:
        state = queue.popleft()
        if game.terminal_test(state):
            continue
        row = np.full(game.num_actions, ILLEGAL, dtype=np.int8)
        for action, value in solver.action_scores(state).items():
            row[action] = int(np.sign(value))
            child = game.result(state, action)
            if child not in seen:
                seen[child] = seen[state] + game.action_to_string(action)
                queue.append(child)
        moves.append(seen[state])
        states.append(state)
        outcomes.append(row)
    return LabelledSet(name, moves, np.array(states, dtype=np.int64), np.stack(outcomes))
