"""Positions for the tests: tic-tac-toe drawings with a known best move (the search tests of
mcts/puct.py and mcts/uct.py), and seeded random finished games, as move strings, for the tests that
load positions (the engine's ``position`` and the web page's new game)."""

from __future__ import annotations

import numpy as np

import games
from games.base import Game

TICTACTOE = games.make("tictactoe")

#: tic-tac-toe drawings (rows top to bottom, ``.`` empty) and what the side to move must do
P1 = "X X . / O O . / . . ."  # X to move, wins at 2
P2 = "X X . / O . . / . . ."  # O to move, must block at 2
P3 = "X X X / O O . / . . ."  # finished, X won
P5 = "X O X / X O O / O X ."  # X to move, only move 8 (draw)
P6 = "X O X / . O . / . X ."  # O to move, legal 3, 5, 6, 8


def board(*drawings: str) -> np.ndarray:
    """Tic-tac-toe states ``[len, 4]`` int64 from drawings (rows top to bottom, ``.`` empty)."""
    return np.array([TICTACTOE.state_from_board(d) for d in drawings], dtype=np.int64)


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


def pons_file_of_own_set(folder, monkeypatch, own_set, set_name: str = "pons-begin-hard"):
    """Write Pons' ``set_name`` file into ``folder`` holding ``own_set``'s positions (a project set of
    ``arena.positions.connect4``; score: the best column's), point ``TABULA_PONS_DIR`` at it and
    ``TABULA_CACHE_DIR`` at an empty ``folder/cache``; returns the Pons folder. Each column's exact
    score is shipped with the project's sets, so every mistake is known without the solver."""
    from arena.positions import pons

    pons_folder = folder / "pons"
    pons_folder.mkdir()
    lines = "".join(f"{m} {s}\n" for m, s in zip(own_set.moves, own_set.values.tolist()))
    (pons_folder / pons.SETS[set_name]).write_text(lines)
    monkeypatch.setenv("TABULA_PONS_DIR", str(pons_folder))
    monkeypatch.setenv("TABULA_CACHE_DIR", str(folder / "cache"))
    return pons_folder


def own_set_mistakes(own_set) -> np.ndarray:
    """``[N, 7]`` bool: the mistakes of every column of ``own_set``, from its shipped exact scores."""
    from arena.positions.labelled import mistake_mask

    outcomes = np.where(own_set.legal_mask, np.sign(own_set.scores), -2).astype(np.int8)
    return mistake_mask(outcomes)
