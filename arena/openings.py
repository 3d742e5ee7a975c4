"""Paired seeded openings and the per-game random streams of every arena match.

Games come in pairs ``(2p, 2p + 1)`` that share one opening: the ``start`` moves, then
``num_plies`` uniformly random legal plies. Player A moves first in the even game of each pair
and second in the odd one, so each opening is played once with each colour and a lucky opening
favours nobody. Pair ``p``'s random plies are drawn from their own generator,
``numpy.random.default_rng([seed, p])``, so game ``k``'s opening depends only on the opening
seed and ``k``: the same in a 10-game and a 20-game match, and whatever the players did before.

Every other random draw of a match has its own stream too (``match_stream``): the dice of pair
``p`` (``[seed, p, DICE_STREAM]``, shared by its two games) and the tie-breaking of game ``k``
(``[seed, k, player_seed, TIES_A_STREAM]`` for player A, where ``player_seed`` is one number A
drew from its own ``rng`` when the match began, likewise for B; one ``[seed, k, TIES_STREAM]``
per game in the batched driver, whose players are bare networks). So game ``k`` is the same game
whether it is played alone or as part of the whole match, and whichever games came before it
broke ties. The stream numbers are never 0: ``numpy.random.SeedSequence`` pads a short seed with
zeros, so ``[seed, p, 0]`` would be the opening stream ``[seed, p]`` again.
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


#: the last entry of a stream's seed (``match_stream``): pair p's dice, game k's ties (A, B, or
#: both players of the batched driver)
DICE_STREAM, TIES_A_STREAM, TIES_B_STREAM, TIES_STREAM = 1, 2, 3, 4


def match_stream(seed: int, number: int, stream: int, player_seed: int | None = None) -> np.random.Generator:
    """The generator ``numpy.random.default_rng([seed, number, stream])`` of one match, or
    ``default_rng([seed, number, player_seed, stream])`` for one player's.

    Args:
        seed: the match's seed (``opening_seed``), an integer >= 0.
        number: the game's index (ties) or the pair's (dice), >= 0.
        stream: one of ``DICE_STREAM``, ``TIES_A_STREAM``, ``TIES_B_STREAM``, ``TIES_STREAM``.
        player_seed: a number the player drew from its own generator (``opening_seed``) when the
            match began, so players with other seeds break ties differently; None for none.

    Raises:
        ValueError: for a negative seed, number or player seed, or an unknown stream.
    """
    if stream not in (DICE_STREAM, TIES_A_STREAM, TIES_B_STREAM, TIES_STREAM):
        raise ValueError(f"stream: expected one of 1, 2, 3, 4, got {stream!r}")
    own = [] if player_seed is None else [int(player_seed)]
    if min(int(seed), int(number), *own) < 0:
        raise ValueError(f"seed, number and player seed: expected integers >= 0, got {seed}, {number}, {player_seed}")
    return np.random.default_rng([int(seed), int(number), *own, stream])


def check_game_indices(game_indices, num_games: int) -> list[int]:
    """The games of a ``num_games``-game match to play: all of them when ``game_indices`` is None.

    Raises:
        ValueError: for an index outside ``0..num_games-1``, a repeated one, or an empty list.
    """
    if game_indices is None:
        return list(range(num_games))
    indices = [int(index) for index in game_indices]
    if not indices or len(set(indices)) != len(indices) or not all(0 <= i < num_games for i in indices):
        raise ValueError(
            f"game_indices: expected distinct game numbers in 0..{num_games - 1}, got {list(game_indices)!r}"
        )
    return indices


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
