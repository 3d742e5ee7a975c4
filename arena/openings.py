"""Paired seeded openings: the one opening generator of every arena match.

Games come in pairs ``(2p, 2p + 1)`` that share one opening: the ``start`` moves, then
``num_plies`` uniformly random legal plies. Player A moves first in the even game of each pair
and second in the odd one, so each opening is played once with each colour and a lucky opening
favours nobody. Pair ``p``'s random plies are drawn from their own generator,
``numpy.random.default_rng([seed, p])``, so game ``k``'s opening depends only on the opening
seed and ``k``: the same in a 10-game and a 20-game match, and whatever the players did before.
"""

from __future__ import annotations

import numpy as np

from games.base import Game


def opening_seed(rng: np.random.Generator) -> int:
    """One seed for a match's openings, drawn from ``rng`` (an integer in ``[0, 2**63)``).

    Raises:
        ValueError: if ``rng`` is not a ``numpy.random.Generator``.
    """
    if not isinstance(rng, np.random.Generator):
        raise ValueError(f"rng must be a numpy.random.Generator, got {type(rng).__name__}")
    return int(rng.integers(2**63))


def a_moves_first(game_index: int) -> bool:
    """True when player A moves first in game ``game_index`` (the even game of each pair)."""
    return game_index % 2 == 0


class PairedOpenings:
    """The openings of one match (see the module docstring).

    Args:
        game: the game.
        num_plies: random plies after ``start``, >= 0 (fewer if the game ends first).
        seed: an integer >= 0 (``opening_seed`` draws one).
        start: a move string (the game's notation) every game starts from, ``""`` for the start
            position.

    Raises:
        ValueError: if ``num_plies`` is not an integer >= 0, ``seed`` is not an integer >= 0,
            ``start`` is not a legal move string (as ``game.parse_moves``) or ends the game.
    """

    def __init__(self, game: Game, num_plies: int, seed: int, start: str = "") -> None:
        if isinstance(num_plies, bool) or not isinstance(num_plies, (int, np.integer)) or num_plies < 0:
            raise ValueError(f"opening_plies must be an integer >= 0, got {num_plies!r}")
        if isinstance(seed, bool) or not isinstance(seed, (int, np.integer)) or seed < 0:
            raise ValueError(f"seed must be an integer >= 0, got {seed!r}")
        self.game = game
        self.num_plies = int(num_plies)
        self.seed = int(seed)
        self.start_actions = game.parse_moves(start) if start else []
        state = game.initial_state()
        for action in self.start_actions:
            state = game.result(state, action)
        if game.terminal_test(state):
            raise ValueError(f"start position {start!r} is already finished")
        self._start_state = state

    def opening(self, game_index: int) -> list[int]:
        """The actions that open game ``game_index`` (start moves included); the same for both
        games of a pair."""
        rng = np.random.default_rng([self.seed, game_index // 2])
        game, state = self.game, self._start_state
        moves = list(self.start_actions)
        for _ in range(self.num_plies):
            legal = game.actions(state)
            if not legal:
                break
            action = int(legal[rng.integers(len(legal))])
            moves.append(action)
            state = game.result(state, action)
        return moves
