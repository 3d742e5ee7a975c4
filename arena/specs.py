"""Player specs: one text syntax for every player, in the CLIs and in configs.

Syntax: ``KIND`` or ``KIND:KEY=VALUE[,KEY=VALUE...]``, for example::

    random                      uniformly random legal moves
    minimax                     exhaustive minimax (tic-tac-toe-sized games)
    alphabeta:depth=5           alpha-beta to 5 plies (alphabeta:time=1.0: 1 s per move)
    alphabeta:depth=4,model=PATH  alpha-beta with the network's value and policy (the hybrid)
    uct:sims=1000               UCT with random rollouts, 1000 simulations per move
    expectimax:depth=3          expectiminimax to 3 decisions (games with chance; time=SECONDS too)
    star2:depth=5               the same value with Ballard's star2 pruning (star1:depth=N too)
    solver                      perfect play: the game's exact solver (Connect Four: Pons'; short games: minimax)
    mcts:model=PATH,sims=200    a network with a search (search=NAME: any of mcts.registry, puct
                                by default, or gumbel, uct; batch=N: leaves per network call, with
                                virtual loss, PUCT only; default 1, 8 with time=;
                                time=0.5: 0.5 s per move, at most MAX_TIMED_SIMULATIONS or sims;
                                chance=sampling: chance nodes by sampling, not expectation;
                                backup=max_self: decision nodes back up the best of their value
                                and their children's (mcts.backup); without search= or these
                                keys, the search the model's model.json records to play with
                                (Pig's: backup=max_self);
                                solver=true: MCTS-solver proofs decide the move, one leaf a call)
    policy:model=PATH           the network alone: argmax of the masked policy
                                (every kind with model= takes threads=N: the network's CPU threads, default 1;
                                mcts and policy take symmetries=true: the network averaged over the
                                game's symmetries, mcts.evaluators.symmetry_averaged)
    human                       moves typed on stdin

Every kind accepts ``seed=INT`` (default: the caller's seed, else 0), so every player is
seeded. ``PATH`` is an export folder (or its ``model.onnx``/``model.json``; opened with ONNX
Runtime, no torch) or a ``.pt`` model file or training checkpoint (opened with torch). A path that
itself holds commas is read up to the next ``,KEY=``.
"""

from __future__ import annotations

import dataclasses
import math
from dataclasses import dataclass, field

import games
from arena import players
from arena.hybrid_player import HybridAlphaBetaPlayer
from arena.model_player import played_search
from games.base import Game
from mcts import algorithm, settings_from
from mcts import names as search_names
from mcts.evaluators import symmetry_averaged
from mcts.minibatch import TIMED_LEAVES_PER_CALL
from networks.loading import load_evaluator, resolve_model

#: accepted options of each kind: ``{kind: {option: type}}``; "model" is a path
SPEC_OPTIONS: dict[str, dict[str, type]] = {
    "random": {"seed": int},
    "minimax": {"seed": int},
    "alphabeta": {"depth": int, "time": float, "model": str, "threads": int, "seed": int},
    "uct": {"sims": int, "c": float, "seed": int},
    "expectimax": {"depth": int, "time": float, "seed": int},
    "star1": {"depth": int, "time": float, "seed": int},
    "star2": {"depth": int, "time": float, "seed": int},
    "solver": {"seed": int},
    "mcts": {
        "model": str, "search": str, "sims": int, "time": float, "c_puct": float, "batch": int, "threads": int,
        "chance": str, "backup": str, "solver": bool, "symmetries": bool, "seed": int,
    },
    "policy": {"model": str, "threads": int, "symmetries": bool, "seed": int},
    "human": {"seed": int},
}
#: kinds searched by ``search.expectimax.ChanceSearch`` (the kind is its algorithm)
CHANCE_SEARCH_KINDS = ("expectimax", "star1", "star2")
#: kinds whose search assumes no chance states (refused for a game with chance)
DETERMINISTIC_SEARCH_KINDS = ("minimax", "alphabeta", "uct")
#: values of the ``mcts`` option ``chance`` (``mcts.PUCTConfig.chance``)
CHANCE_MODE_NAMES = ("expectation", "sampling")
#: the words a yes/no option takes (``solver=true``)
BOOLEAN_VALUES = {"true": True, "false": False, "1": True, "0": False, "yes": True, "no": False}
#: the search of ``mcts`` players without ``search=`` (a name of ``mcts.registry``)
DEFAULT_SEARCH = "puct"
#: ``mcts`` options that are fields of the search's settings (``mcts.PUCTConfig.c_puct``, ...)
SEARCH_SETTING_OPTIONS = ("c_puct", "chance", "backup", "solver")
#: kinds whose ``model`` option is required
MODEL_KINDS = ("mcts", "policy")
#: default simulations of ``mcts`` players per move
DEFAULT_MCTS_SIMULATIONS = 200
#: most simulations per move of an ``mcts`` player with ``time=`` and no ``sims=`` (the tree's size)
MAX_TIMED_SIMULATIONS = 100_000


@dataclass(frozen=True)
class PlayerSpec:
    """A parsed player spec.

    Attributes:
        kind: one of ``SPEC_OPTIONS``.
        options: typed option values (``int``, ``float`` or ``str``).
        text: the spec as written (stripped); used as the player's name.
    """

    kind: str
    options: dict = field(default_factory=dict)
    text: str = ""

    @property
    def name(self) -> str:
        return self.text or self.kind


def parse_spec(text: str) -> PlayerSpec:
    """Parse ``KIND[:KEY=VALUE,...]``.

    Raises:
        ValueError: for an empty spec, an unknown kind or option (the message lists the accepted
            ones), a malformed ``KEY=VALUE``, a repeated option, a value of the wrong type or range
            (ints >= 1 for ``depth``/``sims``, finite floats >= 0 for ``time``/``c``/``c_puct``,
            ints >= 0 for ``seed``, ``expectation`` or ``sampling`` for ``chance``, a registered search for
            ``search``), or a missing ``model`` for ``mcts``/``policy``.
    """
    if not isinstance(text, str) or not text.strip():
        raise ValueError(
            f"expected a player spec such as 'alphabeta:depth=5', got {text!r}; kinds: {sorted(SPEC_OPTIONS)}"
        )
    text = text.strip()
    kind, _, rest = text.partition(":")
    kind = kind.strip()
    if kind not in SPEC_OPTIONS:
        raise ValueError(f"unknown player kind {kind!r} in {text!r}; expected one of {sorted(SPEC_OPTIONS)}")
    accepted = SPEC_OPTIONS[kind]
    pairs: list[list[str]] = []
    if rest.strip():
        for piece in rest.split(","):
            if "=" not in piece:
                if pairs and pairs[-1][0] == "model":
                    pairs[-1][1] += "," + piece  # a comma inside a model path
                    continue
                raise ValueError(
                    f"{text!r}: expected KEY=VALUE, got {piece!r}; {kind} accepts {sorted(accepted)}"
                )
            key, _, value = piece.partition("=")
            pairs.append([key.strip(), value.strip()])
    elif ":" in text:
        raise ValueError(f"{text!r}: expected options after ':'; {kind} accepts {sorted(accepted)}")
    options: dict = {}
    for key, value in pairs:
        if key not in accepted:
            raise ValueError(f"{text!r}: unknown option {key!r} for {kind}; accepted: {sorted(accepted)}")
        if key in options:
            raise ValueError(f"{text!r}: option {key!r} given twice")
        options[key] = _convert(text, key, value, accepted[key])
    if options.get("search", DEFAULT_SEARCH) not in search_names():
        raise ValueError(f"{text!r}: option 'search' expects one of {list(search_names())}, got {options['search']!r}")
    if options.get("chance", "expectation") not in CHANCE_MODE_NAMES:
        raise ValueError(f"{text!r}: option 'chance' expects one of {list(CHANCE_MODE_NAMES)}, got {options['chance']!r}")
    if kind in MODEL_KINDS and "model" not in options:
        raise ValueError(f"{text!r}: {kind} needs model=PATH (an export folder or a .pt file)")
    if kind == "alphabeta" and "depth" not in options and "time" not in options:
        raise ValueError(f"{text!r}: alphabeta needs depth=PLIES or time=SECONDS (or both)")
    if kind in CHANCE_SEARCH_KINDS and "depth" not in options and "time" not in options:
        raise ValueError(f"{text!r}: {kind} needs depth=DECISIONS or time=SECONDS (or both)")
    return PlayerSpec(kind, options, text)


def _convert(text: str, key: str, value: str, kind: type):
    if value == "":
        raise ValueError(f"{text!r}: option {key!r} has no value")
    if kind is str:
        return value
    if kind is bool:
        if value.lower() not in BOOLEAN_VALUES:
            raise ValueError(f"{text!r}: option {key!r} expects true or false, got {value!r}")
        return BOOLEAN_VALUES[value.lower()]
    if kind is int:
        try:
            number = int(value)
        except ValueError:
            raise ValueError(f"{text!r}: option {key!r} expects an integer, got {value!r}") from None
        minimum = 0 if key == "seed" else 1
        if number < minimum:
            raise ValueError(f"{text!r}: option {key!r} expects an integer >= {minimum}, got {number}")
        return number
    try:
        number = float(value)
    except ValueError:
        raise ValueError(f"{text!r}: option {key!r} expects a number, got {value!r}") from None
    if not math.isfinite(number) or number < 0:
        raise ValueError(f"{text!r}: option {key!r} expects a finite number >= 0, got {value!r}")
    return number


_EVALUATORS: dict[tuple[str, str], object] = {}


def load_model_evaluator(path: str, game: Game, num_threads: int | None = None):
    """An evaluator for ``path`` (export folder: ONNX Runtime; ``.pt`` file: torch), cached per path
    and thread count (``networks.loading.load_evaluator``; ``None``: the library's default).

    Raises:
        FileNotFoundError: if ``path`` does not exist.
        ValueError: if the model cannot be read or is for another game (``networks.loading``).
    """
    resolved = str(resolve_model(path)[0].expanduser().resolve())  # a run folder's best/, a shipped name
    key = (resolved, game.name, num_threads)
    if key not in _EVALUATORS:
        evaluator = load_evaluator(resolved, expected_game=game, num_threads=num_threads)
        _EVALUATORS[key] = evaluator.evaluate if hasattr(evaluator, "evaluate") else evaluator
    return _EVALUATORS[key]


def build_player(spec: PlayerSpec | str, game: Game, seed: int | None = None, **human_streams):
    """The player a spec describes, for ``game``.

    Args:
        spec: a ``PlayerSpec`` or its text.
        game: the game to play (players with ``model=`` check the model against it).
        seed: the player's seed when the spec has no ``seed=`` option (default 0).
        human_streams: ``input_stream``/``output_stream`` for ``human``.

    Returns:
        An ``arena.players`` player named after the spec text.

    Raises:
        ValueError: as ``parse_spec``, for a ``solver`` on a game without an exact solver, for a
            search of deterministic games (``DETERMINISTIC_SEARCH_KINDS``) on a game with chance, and
            for a model that cannot be read or belongs to another game.
        FileNotFoundError: for a missing model path.
    """
    if isinstance(spec, str):
        spec = parse_spec(spec)
    options = dict(spec.options)
    rng = options.pop("seed", seed if seed is not None else 0)
    name = spec.name
    kind = spec.kind
    if game.num_chance_outcomes and kind in DETERMINISTIC_SEARCH_KINDS:
        raise ValueError(
            f"{spec.text!r}: {kind} searches games without chance; {game.name} rolls dice: "
            f"use one of {list(CHANCE_SEARCH_KINDS)} (e.g. star2:depth=3), solver or random"
        )
    if kind == "random":
        return players.RandomPlayer(rng=rng, name=name)
    if kind == "minimax":
        return players.MinimaxPlayer(rng=rng, name=name)
    if kind == "alphabeta" and "model" in options:
        return HybridAlphaBetaPlayer(
            game, load_model_evaluator(options["model"], game, options.get("threads")), depth=options.get("depth"),
            time_limit=options.get("time"), rng=rng, name=name,
        )
    if kind in CHANCE_SEARCH_KINDS:
        return players.ExpectimaxPlayer(
            algorithm=kind, depth=options.get("depth"), time_limit=options.get("time"), rng=rng, name=name
        )
    if kind == "alphabeta":
        return players.AlphaBetaPlayer(
            depth=options.get("depth"), time_limit=options.get("time"), rng=rng, name=name
        )
    if kind == "uct":
        return players.UCTPlayer(
            num_simulations=options.get("sims", 1000), c=options.get("c", 1.4), rng=rng, name=name
        )
    if kind == "solver":
        if games.knowledge(game).exact_solver() is None:
            raise ValueError(
                f"solver: no exact solver for {game.name}; it plays games with one (Knowledge.exact_solver: "
                "Connect Four's, and exhaustive search for games of at most 16 plies such as tic-tac-toe)"
            )
        return players.SolverPlayer(rng=rng, name=name)
    if kind == "human":
        return players.HumanPlayer(rng=rng, name=name, **human_streams)
    evaluate_fn = load_model_evaluator(options["model"], game, options.get("threads"))
    if options.get("symmetries", False):
        evaluate_fn = symmetry_averaged(game, evaluate_fn)
    if kind == "policy":
        return players.PolicyPlayer(evaluate_fn, rng=rng, name=name)

    default_simulations = MAX_TIMED_SIMULATIONS if "time" in options else DEFAULT_MCTS_SIMULATIONS
    return players.MCTSPlayer(
        evaluate_fn,
        search_settings(spec, options.get("sims", default_simulations)),
        time_limit=options.get("time"),
        rng=rng,
        name=name,
        # one leaf a call for a number of simulations (the strongest at equal simulations), several
        # for a time limit (more simulations in the time); the MCTS-solver searches one leaf a
        # call, and an explicit batch= with it is refused there
        leaves_per_call=options.get(
            "batch", TIMED_LEAVES_PER_CALL if "time" in options and not options.get("solver") else 1
        ),
        break_ties=True,  # a seeded arena game: ties between equally visited moves go to the generator
    )


def search_settings(spec: PlayerSpec, num_simulations: int):
    """The frozen settings of an ``mcts`` spec's search: ``search=NAME`` from ``mcts.registry``
    (default: the search the model's ``model.json`` records to play with, else ``puct``:
    ``arena.model_player.played_search``), ``num_simulations`` simulations, the spec's
    ``SEARCH_SETTING_OPTIONS`` over the recorded settings (the library's defaults for the rest).

    Raises:
        ValueError: for an option the named search has no setting for (``c_puct`` with
            ``search=gumbel``), or a value out of range (as the settings class).
    """
    if "model" in spec.options:  # the search its model.json records to play with, where it does
        name, recorded = played_search(spec.options["model"], spec.options.get("search"))
    else:
        name, recorded = spec.options.get("search", DEFAULT_SEARCH), {}
    settings_type = algorithm(name).settings_type
    fields = {f.name for f in dataclasses.fields(settings_type)}
    given = {option: spec.options[option] for option in SEARCH_SETTING_OPTIONS if option in spec.options}
    unknown = sorted(set(given) - fields)
    if unknown:
        raise ValueError(f"{spec.text!r}: search={name} has no setting {unknown}; its settings: {sorted(fields)}")
    return settings_from(name, {}, **{**recorded, **given, "num_simulations": num_simulations})
