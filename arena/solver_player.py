"""Perfect play: the player that asks the game for its exact solver (``games.knowledge(game).exact_solver()``)."""

from __future__ import annotations

import numpy as np

import games
from arena.player_base import legal_actions, make_rng
from games.base import Game


def exact_solver_of(game: Game):
    """The game's exact solver, ``games.knowledge(game).exact_solver()``.

    Raises:
        ValueError: if the game has none.
    """
    solver = games.knowledge(game).exact_solver()
    if solver is None:
        raise ValueError(
            f"no exact solver for {game.name}; expected a game with one (Connect Four: Pons' solver) "
            "or a game short enough for exhaustive search (games.exhaustive.MAX_EXHAUSTIVE_PLIES plies)"
        )
    return solver


class SolverPlayer:
    """Perfect play: a move with the best exact game-theoretic score, ties broken by the ``rng``.

    The solver is the game's (``Knowledge.exact_solver``):

    * Connect Four: Pascal Pons' solver (``games.connect4.exact``; "Solving Connect 4", 2017).
      Scores follow Pons' convention (positive: the side to move wins, larger = sooner), so among
      winning moves it prefers the fastest win and among losing ones the slowest loss. Early
      positions cost seconds to minutes each unless the opening book covers them.
    * Tic-tac-toe (and by default any game of at most 16 plies): exhaustive negamax
      (``games.exhaustive``), values -1 / 0 / +1.

    Among the moves with the best score the choice is uniform with ``rng``.

    Raises (``select_action``):
        ValueError: if ``state`` is terminal or the game has no exact solver.
    """

    def __init__(self, rng: np.random.Generator | int = 0, name: str = "solver") -> None:
        self.rng = make_rng(rng)
        self.name = name

    def action_scores(self, game: Game, state: tuple) -> dict[int, int | float]:
        """Exact score of each legal action for the player to move: ``{action: score}``.

        Connect Four: Pons' scores (int, -18..18); short games: minimax values (-1.0, 0.0, 1.0).

        Raises:
            ValueError: if ``state`` is terminal or the game has no exact solver.
        """
        legal_actions(game, state)
        return exact_solver_of(game).action_scores(state)

    def select_action(self, game: Game, state: tuple) -> int:
        legal_actions(game, state)
        best = exact_solver_of(game).optimal_actions(state)
        if len(best) == 1:
            return int(best[0])
        return int(best[self.rng.integers(len(best))])
