"""Game rules, batched over a leading batch axis. Imports numpy (and numba) only.

``games.make("connect4")`` and ``games.make("tictactoe")`` return the game objects.
"""

from __future__ import annotations

from games.base import NO_WINNER, Game

_REGISTRY = {
    "tictactoe": ("games.tictactoe", "TicTacToe"),
    "connect4": ("games.connect4.game", "ConnectFour"),
    "othello": ("games.othello", "Othello"),
    "othello6x6": ("games.othello", "Othello6x6"),
}


def names() -> list[str]:
    """Registered game ids."""
    return sorted(_REGISTRY)


def make(name: str) -> Game:
    """Return the game registered as ``name``.

    Raises:
        ValueError: for an unknown name; the message lists the registered ones.
    """
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; expected one of {names()}")
    import importlib

    module_name, class_name = _REGISTRY[name]
    return getattr(importlib.import_module(module_name), class_name)()


__all__ = ["Game", "NO_WINNER", "make", "names"]
