"""Game rules, batched over a leading batch axis. Imports numpy (and numba) only.

``games.make("connect4")``, ``games.make("othello")``, ... return the game objects;
``games.make("openspiel:SPEC")`` wraps an OpenSpiel game (``games.openspiel_adapter``; needs the
optional ``open_spiel`` package). A game with parameters takes them as keywords
(``games.make("pig", goal=10)``).
"""

from __future__ import annotations

from games.base import NO_WINNER, Game

_REGISTRY = {
    "tictactoe": ("games.tictactoe", "TicTacToe"),
    "connect4": ("games.connect4.game", "ConnectFour"),
    "othello": ("games.othello", "Othello"),
    "othello6x6": ("games.othello", "Othello6x6"),
    "pig": ("games.pig.game", "Pig"),
}


def names() -> list[str]:
    """Registered game ids."""
    return sorted(_REGISTRY)


#: the game id prefix of OpenSpiel games, ``openspiel:SPEC``
OPENSPIEL_PREFIX = "openspiel:"
#: the game name that, with an OpenSpiel game string beside it, stands for ``openspiel:SPEC``
OPENSPIEL = "openspiel"


def resolve(name: str, openspiel: str | None = None) -> str:
    """The game id of a name and an optional OpenSpiel game string (``train``'s ``game.name`` and
    ``game.openspiel``): ``resolve("openspiel", "hex")`` is ``"openspiel:hex"``; any other name is
    itself.

    Raises:
        ValueError: if ``name`` is ``openspiel`` without a game string, or another name has one.
    """
    if name == OPENSPIEL:
        if not openspiel:
            raise ValueError('game.name=openspiel needs game.openspiel, e.g. game.openspiel="breakthrough(rows=5,columns=5)"')
        return OPENSPIEL_PREFIX + openspiel.strip()
    if openspiel:
        raise ValueError(f"game.openspiel={openspiel!r} is read only with game.name=openspiel, got game.name={name!r}")
    return name


def is_known(name: str) -> bool:
    """True for a registered id or an ``openspiel:SPEC`` id (whether SPEC loads is ``make``'s test)."""
    return name in _REGISTRY or name.startswith(OPENSPIEL_PREFIX)


def game_name_argument(text: str) -> str:
    """``argparse`` type of a ``--game`` option: a registered id or ``openspiel:SPEC``.

    Raises:
        argparse.ArgumentTypeError: for anything else, listing the registered ids.
    """
    if is_known(text):
        return text
    import argparse

    raise argparse.ArgumentTypeError(f"expected one of {names()} or openspiel:SPEC, got {text!r}")


def make(name: str, **params) -> Game:
    """Return the game registered as ``name`` built with ``params`` (e.g. Pig's ``goal``), or the
    OpenSpiel game of ``openspiel:SPEC``.

    Raises:
        ValueError: for an unknown name (the message lists the registered ones), a parameter the
            game does not take or one out of its range, and as
            ``games.openspiel_adapter.OpenSpielGame`` for an OpenSpiel id (open_spiel missing,
            a spec it cannot load, a game of a kind the project cannot play).
    """
    if name.startswith(OPENSPIEL_PREFIX):
        from games.openspiel_adapter import OpenSpielGame

        return OpenSpielGame(name[len(OPENSPIEL_PREFIX) :])
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; expected one of {names()} or openspiel:SPEC")
    import importlib

    module_name, class_name = _REGISTRY[name]
    cls = getattr(importlib.import_module(module_name), class_name)
    try:
        return cls(**params)
    except TypeError as error:
        raise ValueError(f"game {name!r} does not take the parameters {sorted(params)}: {error}") from None


__all__ = ["NO_WINNER", "OPENSPIEL", "OPENSPIEL_PREFIX", "Game", "game_name_argument", "is_known", "make", "names", "resolve"]
