"""Game rules and game knowledge, one registry for every kind of game. Imports numpy (and numba) only.

``games.make("connect4")``, ``games.make("pig", goal=10)``, ``games.make("kuhn")`` return the game
objects; ``games.make("openspiel:SPEC")`` wraps an OpenSpiel game (``games.openspiel_adapter``;
needs the optional ``open_spiel`` package). Each registered game has a *kind*:

* ``PERFECT``: perfect information, deterministic (tic-tac-toe, Connect Four, Othello, OpenSpiel);
* ``CHANCE``: perfect information with chance states (Pig);
* ``IMPERFECT``: imperfect information with chance (Kuhn and Leduc poker,
  ``games.imperfect.base.ImperfectInformationGame``), solved by ``search.cfr``.

The first two share the batched ``games.base.Game`` interface that self-play, MCTS and the arena
play (``BATCHED``). ``games.knowledge(game)`` returns what is known about a batched game beyond its
rules (``games.knowledge.Knowledge``: move order, heuristic, transposition key, exact solver,
default network, opening plies), registered beside the rules class.

A batched game defined outside this repository is named by its class,
``games.make("mypkg.mygame:MyGame")`` (a ``module:Class`` spec; the module must be importable, in
every Ray actor too, e.g. through ``PYTHONPATH``); the game object's ``name`` is then the spec, so
model files and checkpoints name it the same way, and its knowledge is the generic ``Knowledge``.
An installed package can instead name its games in the entry point group ``tabula_rasa.games``
(``connect3 = mypkg.mygame:MyGame``); each is then made by its entry point name, as the registered
games are.
"""

from __future__ import annotations

import argparse
import importlib
from importlib.metadata import entry_points
from typing import NamedTuple

from games.base import NO_WINNER, Game
from games.knowledge import Knowledge
from games.openspiel_adapter import PREFIX as OPENSPIEL_PREFIX
from games.openspiel_adapter import OpenSpielGame, OpenSpielKnowledge

#: kinds of game (``GameEntry.kind``)
PERFECT, CHANCE, IMPERFECT = "perfect", "chance", "imperfect"
#: the kinds with the batched ``games.base.Game`` interface
BATCHED = (PERFECT, CHANCE)
#: every kind
KINDS = (PERFECT, CHANCE, IMPERFECT)


class GameEntry(NamedTuple):
    """One registered game: where its classes live, imported when the game is first made.

    Attributes:
        rules: ``"module.Class"`` of the rules (a ``games.base.Game`` or, for ``IMPERFECT``, a
            ``games.imperfect.base.ImperfectInformationGame``), built with the game's keywords.
        knowledge: ``"module.Class"`` of its ``games.knowledge.Knowledge`` subclass, built with the
            game; None for the generic ``Knowledge`` (and for ``IMPERFECT`` games, which have none).
        kind: ``PERFECT``, ``CHANCE`` or ``IMPERFECT``.
    """

    rules: str
    knowledge: str | None = None
    kind: str = PERFECT


_REGISTRY: dict[str, GameEntry] = {
    "tictactoe": GameEntry("games.tictactoe.TicTacToe", "games.tictactoe.TicTacToeKnowledge"),
    "connect4": GameEntry("games.connect4.game.ConnectFour", "games.connect4.knowledge.ConnectFourKnowledge"),
    "othello": GameEntry("games.othello.Othello", "games.othello.OthelloKnowledge"),
    "othello6x6": GameEntry("games.othello.Othello6x6", "games.othello.OthelloKnowledge"),
    "pig": GameEntry("games.pig.game.Pig", "games.pig.knowledge.PigKnowledge", CHANCE),
    "kuhn": GameEntry("games.imperfect.kuhn.KuhnPoker", None, IMPERFECT),
    "leduc": GameEntry("games.imperfect.leduc.LeducPoker", None, IMPERFECT),
}

#: the entry point group in which installed packages name their batched games (``name = module:Class``)
ENTRY_POINT_GROUP = "tabula_rasa.games"

#: the game name that, with an OpenSpiel game string beside it, stands for ``openspiel:SPEC``
OPENSPIEL = "openspiel"


def _check_kinds(kinds) -> tuple[str, ...]:
    kinds = tuple(kinds)
    unknown = [kind for kind in kinds if kind not in KINDS]
    if unknown:
        raise ValueError(f"expected kinds among {list(KINDS)}, got {unknown}")
    return kinds


def _installed_games() -> dict[str, str]:
    """``{name: "module:Class"}`` of the entry point group ``ENTRY_POINT_GROUP`` (registered ids win)."""
    points = entry_points(group=ENTRY_POINT_GROUP)
    return {point.name: point.value for point in points if point.name not in _REGISTRY}


def names(kinds=BATCHED) -> list[str]:
    """Registered game ids of the given kinds, sorted (default: the batched games, ``BATCHED``),
    with the batched games of installed packages (``ENTRY_POINT_GROUP``).

    Raises:
        ValueError: for a kind not in ``KINDS``.
    """
    kinds = _check_kinds(kinds)
    installed = list(_installed_games()) if any(kind in kinds for kind in BATCHED) else []
    return sorted([name for name, entry in _REGISTRY.items() if entry.kind in kinds] + installed)


def kind(name: str) -> str:
    """The kind of the game ``name`` (``PERFECT`` for ``openspiel:SPEC``).

    Raises:
        ValueError: for an unknown name (the message lists the registered ones).
    """
    if name.startswith(OPENSPIEL_PREFIX):
        return PERFECT
    if name not in _REGISTRY:
        raise ValueError(f"unknown game {name!r}; expected one of {names(KINDS)} or openspiel:SPEC")
    return _REGISTRY[name].kind


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


def is_class_spec(name: str) -> bool:
    """True for a ``module:Class`` spec (``mypkg.mygame:MyGame``) naming a batched game class to import."""
    module, _, cls = name.partition(":")
    return (
        not name.startswith(OPENSPIEL_PREFIX) and bool(cls) and cls.isidentifier()
        and all(part.isidentifier() for part in module.split("."))
    )


def is_known(name: str, kinds=BATCHED) -> bool:
    """True for a registered id of the given kinds (default ``BATCHED``), or an ``openspiel:SPEC``
    id or a ``module:Class`` spec while a batched kind is among them (whether either loads is
    ``make``'s test)."""
    kinds = _check_kinds(kinds)
    if name.startswith(OPENSPIEL_PREFIX):
        return PERFECT in kinds
    if is_class_spec(name) or name in _installed_games():
        return any(kind in kinds for kind in BATCHED)
    return name in _REGISTRY and _REGISTRY[name].kind in kinds


def game_name_argument(text: str) -> str:
    """``argparse`` type of a ``--game`` option: a registered batched game or ``openspiel:SPEC``.

    Raises:
        argparse.ArgumentTypeError: for anything else, listing the registered ids.
    """
    if is_known(text):
        return text
    raise argparse.ArgumentTypeError(f"expected one of {names()}, openspiel:SPEC or module:Class, got {text!r}")


def _load(path: str):
    module_name, _, class_name = path.rpartition(".")
    return getattr(importlib.import_module(module_name), class_name)


def make(name: str, **params):
    """Return the game registered as ``name`` (any kind) built with ``params`` (e.g. Pig's
    ``goal``), the OpenSpiel game of ``openspiel:SPEC``, or an instance of the ``games.Game``
    subclass that a ``module:Class`` spec or an entry point of ``ENTRY_POINT_GROUP`` names (its
    ``name`` set to the spec or the entry point's name).

    Raises:
        ValueError: for an unknown name (the message lists the registered ones), a parameter the
            game does not take or one out of its range, and as
            ``games.openspiel_adapter.OpenSpielGame`` for an OpenSpiel id (open_spiel missing,
            a spec it cannot load, a game of a kind the project cannot play); for a
            ``module:Class`` spec whose module does not import or whose class is not a ``Game``.
    """
    if name.startswith(OPENSPIEL_PREFIX):
        return OpenSpielGame(name[len(OPENSPIEL_PREFIX) :], **params)
    if name in _REGISTRY:
        cls = _load(_REGISTRY[name].rules)
    elif is_class_spec(name) or name in _installed_games():
        cls = _load_class_spec(_installed_games().get(name, name))
    else:
        raise ValueError(f"unknown game {name!r}; expected one of {names(KINDS)}, openspiel:SPEC or module:Class")
    try:
        game = cls(**params)
    except TypeError as error:
        raise ValueError(f"game {name!r} does not take the parameters {sorted(params)}: {error}") from None
    if name not in _REGISTRY:
        game.name = name  # model files and actors rebuild it from this spec
    return game


def _load_class_spec(spec: str):
    """The ``games.Game`` subclass a ``module:Class`` spec names.

    Raises:
        ValueError: if the module does not import or the class is not a ``Game`` subclass.
    """
    module_name, class_name = spec.split(":")
    try:
        cls = getattr(importlib.import_module(module_name), class_name, None)
    except ImportError as error:
        raise ValueError(f"game {spec!r}: cannot import {module_name!r} ({error}); is it on PYTHONPATH?") from None
    if not (isinstance(cls, type) and issubclass(cls, Game)):
        raise ValueError(f"game {spec!r}: expected a subclass of games.Game named {class_name} in {module_name}")
    return cls


def knowledge(game: Game) -> Knowledge:
    """What is known about ``game`` beyond its rules: its registered ``Knowledge`` subclass built
    with the game, ``OpenSpielKnowledge`` for an OpenSpiel game, else the generic ``Knowledge``
    (a batched game outside the registry, such as one a test builds).

    Raises:
        ValueError: for an imperfect-information game (knowledge is for batched games).
    """
    if isinstance(game, OpenSpielGame):
        return OpenSpielKnowledge(game)
    entry = _REGISTRY.get(game.name)
    if entry is not None and entry.kind == IMPERFECT:
        raise ValueError(f"{game.name} is an imperfect-information game; knowledge is for the batched games {names()}")
    if entry is None or entry.knowledge is None:
        return Knowledge(game)
    return _load(entry.knowledge)(game)


__all__ = [
    "BATCHED",
    "CHANCE",
    "ENTRY_POINT_GROUP",
    "IMPERFECT",
    "KINDS",
    "NO_WINNER",
    "OPENSPIEL",
    "OPENSPIEL_PREFIX",
    "PERFECT",
    "Game",
    "GameEntry",
    "Knowledge",
    "game_name_argument",
    "is_class_spec",
    "is_known",
    "kind",
    "knowledge",
    "make",
    "names",
    "resolve",
]
