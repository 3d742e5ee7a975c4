"""Plain words for a person watching a game: the players' symbols, who leads, how a game ended.

Shared by the terminal ``play`` (``arena/play_cli.py``) and the web page (``arena/web``).
"""

from __future__ import annotations

#: the players' symbols, by player (0 moves first)
PLAYER_SYMBOLS = ("X", "O")


def verdict(value_for_first: float) -> str:
    """Plain words for a value in ``[-1, 1]`` from X's (the first player's) view."""
    leader = "X" if value_for_first > 0 else "O"
    size = abs(value_for_first)
    if size >= 0.8:
        return f"{leader} is winning"
    if size >= 0.25:
        return f"{leader} is better"
    return "balanced"


def result_text(game, state: tuple) -> str:
    """The result of the finished ``state`` (a single-state tuple) with its score in PGN notation."""
    utility = game.utility(state, 0)
    if utility > 0:
        return "X wins (1-0)"
    if utility < 0:
        return "O wins (0-1)"
    return "draw (1/2-1/2)"
