"""A saved model as a player: the Python API of docs/python_api.md, and what ``play`` uses.

``load_model`` opens an export folder (ONNX Runtime, no torch) or a ``.pt`` model file or training
checkpoint (torch) and returns the game it plays with a batched evaluator; ``make_model_player``
wraps the evaluator in a registered search without root noise (PUCT by default;
``arena.players.MCTSPlayer``), or in the network's policy alone for 0 simulations.
"""

from __future__ import annotations

import games
from arena.players import MCTSPlayer, PolicyPlayer
from mcts import settings_from
from networks.loading import is_export, model_play_search, resolve_model
from networks.onnx_evaluator import load_exported, read_sidecar


def load_model(path: str, game_name: str | None = None, num_threads: int | None = None):
    """``(game, evaluate_fn)`` for a model at ``path``; ONNX Runtime for an export folder.

    ``num_threads``: the network's CPU threads (``None``: one, without spinning:
    ``networks.onnx_evaluator.DEFAULT_NUM_THREADS``, ``networks.evaluator.DEFAULT_TORCH_THREADS``).

    ``path`` is anything ``networks.loading.resolve_model`` takes: an export folder, a model file,
    a training run folder (its ``best/``), a shipped model's name.

    Raises:
        FileNotFoundError: if ``path`` does not exist and names no shipped model.
        ValueError: if the model cannot be read, ``game_name`` differs from the model's game, or
            ``num_threads`` is not None or an integer >= 1.
    """
    path, _ = resolve_model(path, game_name)  # a run folder's best/, a shipped model's name
    if is_export(path):
        model_game = read_sidecar(path)["game"]["name"]
        if game_name is not None and game_name != model_game:
            raise ValueError(f"{path}: the model plays {model_game!r}, not {game_name!r}")
        game = games.make(model_game)
        return game, load_exported(path, expected_game=game, num_threads=num_threads).evaluate
    # heavy dependency (torch): imported where it is used
    from networks.checkpoint import load_model as load_weights
    from networks.evaluator import (  # heavy dependency (torch): imported where it is used
        TorchEvaluator,
        set_torch_threads,
    )

    set_torch_threads(num_threads)
    model, metadata = load_weights(path, expected_game=game_name)
    game = games.make(metadata.game_name)
    return game, TorchEvaluator(model, device="cpu").evaluate


def played_search(path, search: str | None = None) -> tuple[str, dict]:
    """The search a model is played with: ``(name, settings by field name)``.

    Without ``search``, the one its ``model.json`` records (``provenance.search.play_with``, less
    the simulations and root noise: ``networks.provenance.play_search``), else ``"puct"`` with the
    library's defaults. With ``search``, that search, with the recorded settings only when it is
    the recorded algorithm. ``path``: anything ``networks.loading.resolve_model`` takes.
    """
    try:
        recorded = model_play_search(path)
    except FileNotFoundError:  # loading the model reports the missing file; no record to read here
        recorded = None
    if recorded is None:
        return search or "puct", {}
    name, settings = recorded
    if search is None or search == name:
        return name, settings
    return search, {}


def make_model_player(
    evaluate_fn, num_simulations: int, seed: int, leaves_per_call: int = 1, break_ties: bool = False,
    search: str = "puct", search_settings: dict | None = None,
):
    """``MCTSPlayer`` with ``num_simulations`` (>= 1) of the registered search named ``search``
    (``mcts.registry``: ``"puct"``, ``"gumbel"``, ...) with ``search_settings`` (field: value, as
    :func:`played_search` gives them; the library's defaults for the rest), or ``PolicyPlayer`` for 0.

    ``leaves_per_call``: leaves per network call (above 1 collected with virtual loss,
    ``mcts.minibatch``, PUCT only); default 1, the strongest at a fixed number of simulations
    (docs/results/learning_efficiency.md, "The engine's search: one leaf per network call").
    ``break_ties``: ties between equally visited moves go to the generator seeded by ``seed``
    (default False: to the lowest move index, as the engine protocol promises).

    Raises:
        ValueError: for an unknown ``search`` or a value out of range (as its settings class).
    """
    if num_simulations == 0:
        return PolicyPlayer(evaluate_fn, rng=seed, name="model (policy)")
    return MCTSPlayer(
        evaluate_fn, settings_from(search, {}, **{**(search_settings or {}), "num_simulations": num_simulations}),
        rng=seed,
        name=f"model ({num_simulations} sims)", leaves_per_call=leaves_per_call, break_ties=break_ties,
    )
