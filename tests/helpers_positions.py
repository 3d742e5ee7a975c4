"""Seeded random finished games, as move strings, for the tests that load positions (the engine's
``position`` and the web page's new game)."""

from __future__ import annotations

import numpy as np

from games.base import Game


def finished_games_with_a_pass(game: Game, seed: int, count: int) -> list[str]:
    """``count`` move strings of uniformly random finished games of ``game`` (Othello) that contain
    at least one pass (``game.pass_action``), drawn with ``numpy.random.default_rng(seed)``."""
    rng = np.random.default_rng(seed)
    found: list[str] = []
    while len(found) < count:
        state, actions = game.initial_state(), []
        while not game.terminal_test(state):
            legal = game.actions(state)
            actions.append(int(legal[rng.integers(len(legal))]))
            state = game.result(state, actions[-1])
        if game.pass_action in actions:
            found.append(game.format_moves(actions))
    return found
