"""What is known about a game beyond its rules: the knowledge searches, players and networks use.

A ``Game`` (``games.base``) holds the rules, the notation and the symmetries. Everything a player
or a search may *know* about playing it well lives in a ``Knowledge`` object registered beside the
game (``games.knowledge(game)``; the registry in ``games/__init__.py``): the static move order and
the heuristic evaluation of alpha-beta, the transposition-table key, an exact solver, the default
network, the random opening plies of arena games and the exploring starts of self-play. Every item
has a generic default here, and a game's own subclass overrides the ones it knows better
(``games/connect4/knowledge.py``, ``games/pig/knowledge.py``, the classes beside
``games/tictactoe.py`` and ``games/othello.py``).

Labelled position sets and accuracy against perfect play are evaluation data, not knowledge: they
live in ``arena/positions``.
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from games.base import Game
from games.exhaustive import shared_exhaustive_solver


class Knowledge:
    """Generic knowledge of ``game``; a game's subclass overrides what it knows better.

    Args:
        game: the game (rules) this knowledge is about.

    Attributes:
        game: that game.
        heuristic_bound: bound on ``|heuristic_fn()(state)|`` (0.0 when there is no heuristic).
        default_opening_plies: seeded random plies that open each pair of arena games when the
            command line does not say (``arena --opening-plies``); enough for distinct games, few
            enough that perfect players are not handed lost positions too often.
    """

    heuristic_bound: float = 0.0
    default_opening_plies: int = 2

    def __init__(self, game: Game) -> None:
        self.game = game

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.game.name!r})"

    def action_order(self) -> list[int]:
        """Every action once, the a-priori most promising first (alpha-beta's static move order).

        Default: increasing order, ``list(range(num_actions))``.
        """
        return list(range(self.game.num_actions))

    def heuristic_fn(self) -> Callable[[tuple], float] | None:
        """Static evaluation of a non-terminal single-state tuple for the player to move, or None.

        The function's values lie in ``[-heuristic_bound, heuristic_bound]``. Default: None (the
        game has no heuristic; alpha-beta then scores the horizon 0).
        """
        return None

    def transposition_key(self, state: tuple) -> Hashable:
        """Transposition-table key of a single-state tuple: equal exactly for equal positions.

        Default: the state tuple itself.
        """
        return state

    def exact_solver(self):
        """An exact solver, or None: an object with ``action_scores(state) -> {action: score}``
        (the exact game-theoretic score of each legal action for the player to move, larger is
        better, positive a win, 0 a draw, negative a loss) and ``optimal_actions(state) ->
        list[int]`` (the legal actions with the best score, increasing).

        Default: exhaustive negamax (``games.exhaustive.ExhaustiveSolver``; scores -1.0, 0.0, +1.0)
        for games of at most ``games.exhaustive.MAX_EXHAUSTIVE_PLIES`` plies, else None. One object
        per game class and name, so its table is shared by every caller.
        """
        return shared_exhaustive_solver(self.game)

    def exact_policy_match(self, policy_fn) -> dict | None:
        """Exact win probabilities of a stationary policy (``policy_fn(states [B, S]) -> [B]``
        actions) against optimal play from each seat, or None where the game cannot compute them.

        Default: None. Pig solves the Markov chain of the two policies (``games/pig/knowledge.py``).
        """
        return None

    def exploring_start(self, rng: np.random.Generator) -> list[int] | None:
        """Events from the initial state to a start state drawn to cover the game's states, or None
        where the game offers no such draw (the generic answer).

        Exploring starts (Sutton & Barto 2018, *Reinforcement Learning*, sec. 5.3): self-play games
        that begin where its own play seldom goes, so the value learns those states too
        (``selfplay.exploring_starts``, ``selfplay/runner.py``). The events are those of the game's
        move strings (``Game.format_moves``: decisions and chance outcomes in play order), so a game
        record still replays from the initial state.

        Args:
            rng: the only source of randomness of the draw.

        Returns:
            the events (``int``), None without exploring starts.
        """
        return None

    def default_network(self, gpu: bool = False) -> dict:
        """Keyword arguments of ``networks.config.NetworkConfig`` for this game's default network.

        Default: the residual tower of 4 blocks of 32 channels on a CPU (``gpu=False``) and of
        10 blocks of 128 channels on a GPU (``networks.config`` measures both).
        """
        if gpu:
            return {"kind": "resnet", "num_blocks": 10, "channels": 128, "value_hidden": 128}
        return {"kind": "resnet", "num_blocks": 4, "channels": 32, "value_hidden": 64}
