"""Which games ``play --web`` serves, and with which models: the page's game picker (docs/web.md).

Every batched game of the registry (``games.names()``) is served, since each has an opponent
without a model (``frontends.web.opponents.opponent_choices``), and so is every poker game (Kuhn,
Leduc: ``frontends.web.poker``, against a CFR+ policy); a game has a model when a shipped
model is named after it (``networks.shipped``), or when ``--model`` gives one (which replaces the
shipped one of its game and makes its game the default).
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass, field
from pathlib import Path

import games
from arena.model_player import load_model, played_search
from frontends.web.poker import PokerService, solved_policy
from frontends.web.sessions import HUMAN, MODEL, OPPONENT, Catalogue, ModelService
from mcts.evaluators import symmetry_averaged
from networks.loading import DEFAULT_GAME, resolve_model
from networks.shipped import shipped_names, shipped_path


@dataclass
class WebOptions:
    """The options of ``play --web`` that shape the served games (docs/web.md has their meaning).

    ``opponent``, ``position`` and ``human_side`` apply to the default game only.
    """

    simulations: int = 200
    max_simulations: int = 3200
    seed: int = 0
    symmetries: bool = True
    show_analysis: bool = True
    opponent: str | None = None
    position: str = ""
    human_side: int = 0
    #: ``(spec, game) -> player`` for ``opponent`` (``arena.specs.build_player``)
    build_player: Callable | None = field(default=None, repr=False)


def served_models(model: str | None, game_name: str | None) -> tuple[dict[str, Path], str, list[str]]:
    """The model folder of each game that has one, the default game, and notes for the user.

    Args:
        model: ``--model`` (anything ``networks.loading.resolve_model`` takes), or None.
        game_name: ``--game``, or None.

    Returns:
        ``(models, default_game, notes)``: ``models`` maps game names to model paths (the shipped
        models named after a registered game, and ``model`` for its game); the default game is
        ``model``'s game, else ``game_name``, else ``DEFAULT_GAME`` when it has a model, else the
        first game with one, else ``DEFAULT_GAME``.

    Raises:
        FileNotFoundError, ValueError: as ``resolve_model`` and ``load_model`` for a bad ``model``.
    """
    registered = set(games.names())
    models = {name: shipped_path(name) for name in shipped_names() if name in registered}
    notes = []
    default = game_name
    if model is not None:
        path, note = resolve_model(model, game_name)
        if note:
            notes.append(note)
        game, _ = load_model(str(path), game_name)
        models[game.name] = path
        default = game.name
    if default is None:
        default = DEFAULT_GAME if DEFAULT_GAME in models or not models else min(models)
    return models, default, notes


def build_catalogue(models: dict[str, Path], default_game: str, options: WebOptions) -> Catalogue:
    """A ``Catalogue`` of every registered batched game (and ``default_game``), each with its model
    from ``models`` (averaged over the game's symmetries when ``options.symmetries``), and of every
    poker game against its CFR+ policy (``frontends.web.poker.solved_policy``, computed here).

    Raises:
        ValueError: for a model that cannot be read, a bad ``options.opponent`` spec or
            ``options.position`` (before anything is served).
    """
    poker = games.names([games.IMPERFECT])
    names = sorted((set(games.names()) | set(models) | {default_game}) - set(poker))
    services = {}
    for name in names:
        path = models.get(name)
        evaluate_fn = None
        if path is not None:
            game, evaluate_fn = load_model(str(path), name)
            if options.symmetries:
                evaluate_fn = symmetry_averaged(game, evaluate_fn)
        else:
            game = games.make(name)
        services[name] = _service(game, evaluate_fn, path, name == default_game, options)
    for name in poker:  # poker: against a CFR+ policy solved here, once per process
        services[name] = PokerService(game=games.make(name), solved=solved_policy(name), seed=options.seed)
    return Catalogue(services, default_game)


def _service(game, evaluate_fn, path: Path | None, is_default: bool, options: WebOptions) -> ModelService:
    opponent_factory, opponent_name = None, ""
    seats = [MODEL, MODEL]
    moves = ""
    if is_default:
        if options.opponent is not None and options.build_player is not None:
            spec = options.opponent
            options.build_player(spec, game, 0)  # a bad spec or model stops here, before serving
            opponent_name = spec

            def opponent_factory(seed: int):
                return options.build_player(spec, game, seed)

        seats[options.human_side] = OPPONENT if opponent_factory is not None else HUMAN
        moves = game.format_moves(game.parse_moves(options.position)) if options.position else ""
    else:
        seats[0] = HUMAN
    if evaluate_fn is None:  # no model: the human against the opponent
        seats = [OPPONENT, OPPONENT]
        seats[options.human_side if is_default else 0] = HUMAN
    return ModelService(
        game=game,
        evaluate_fn=evaluate_fn,
        model_name=_model_name(path),
        default_simulations=options.simulations,
        max_simulations=options.max_simulations,
        opponent_factory=opponent_factory,
        opponent_name=opponent_name,
        seed=options.seed,
        default_seats=(seats[0], seats[1]),
        default_moves=moves,
        show_analysis=options.show_analysis,
        **_played_search(path),
    )


def _played_search(path: Path | None) -> dict:
    """``ModelService``'s ``search`` and ``search_settings`` for the model at ``path``."""
    if path is None:
        return {}
    search, settings = played_search(path)
    return {"search": search, "search_settings": settings}


def _model_name(path: Path | None) -> str:
    """How the page names a model: ``shipped NAME`` for a shipped model (``networks/shipped/NAME``),
    else its folder."""
    if path is None:
        return "model"
    for name in shipped_names():
        if shipped_path(name).resolve() == Path(path).resolve():
            return f"shipped {name}"
    return str(path)
