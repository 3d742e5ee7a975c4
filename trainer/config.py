"""Typed configuration of a training run: the schema behind ``configs/*.yaml``.

Every YAML file is checked against these dataclasses through Hydra's ConfigStore, so a misspelt
key or a wrong type fails at start-up. ``to_train_config`` converts the composed ``DictConfig``
once, at the entry point, into plain dataclasses; nothing downstream (Ray actors included) ever
sees a ``DictConfig`` or an unresolved ``${...}``. ``validate`` then checks values (ranges, names)
before Ray starts, once.

One set of defaults. The sections that configure a library object take their defaults from that
object's dataclass: ``mcts`` is built from the registered searches' settings classes
(``mcts.PUCTConfig``, ``mcts.GumbelConfig``, ``mcts.UCTConfig``; ``_mcts_schema``), ``network`` from
``networks.config.NetworkConfig``, the learner's keys of ``trainer`` from
``trainer.learner.LearnerConfig``, the game-playing keys of ``selfplay`` from
``selfplay.runner.SelfPlaySettings`` and ``selfplay.worker.WorkerSettings``. The YAML files of
``configs/`` choose the values a run uses
(``configs/mcts/default.yaml``: 64 simulations, where the library default is AlphaZero's 800).
:func:`network_config`, :func:`selfplay_search`, :func:`arena_search`, :func:`worker_settings` and
:func:`learner_config` are the one place where those frozen objects are built from a run's config;
the objects, not dicts, go to the actors.
"""

from __future__ import annotations

import dataclasses
import difflib
import math
import types
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import List, Optional, Union, get_args, get_origin, get_type_hints

import numpy as np

import games
import mcts
from arena.positions import position_sets
from arena.promotion import GATE_RULES, GateConfig
from arena.rating import DEFAULT_POOL, RatingPool
from arena.sprt import SPRTConfig
from games.checks import check_int, is_int
from networks.config import INFERENCE_RUNTIMES, NetworkConfig
from selfplay.runner import SelfPlaySettings
from selfplay.worker import WorkerSettings
from trainer.learner_config import LEARNER_DEFAULTS, LearnerConfig

_NETWORK = NetworkConfig()
_LEARNER = LEARNER_DEFAULTS


@dataclass
class GameSchema:
    name: str = "connect4"  # a registered id (games.names()), or "openspiel" with the key below
    openspiel: Optional[str] = None  # with name=openspiel: an OpenSpiel game string, e.g. "breakthrough(rows=5,columns=5)"


@dataclass
class NetworkSchema:
    """See ``networks.config.NetworkConfig`` (the defaults are its own)."""

    kind: str = _NETWORK.kind
    num_blocks: int = _NETWORK.num_blocks
    channels: int = _NETWORK.channels
    policy_channels: int = _NETWORK.policy_channels
    value_channels: int = _NETWORK.value_channels
    value_hidden: int = _NETWORK.value_hidden
    mlp_hidden: List[int] = field(default_factory=lambda: list(_NETWORK.mlp_hidden))


def _schema_type(annotation):
    """``X | None`` as ``Optional[X]`` (what OmegaConf's structured configs read); others unchanged."""
    if get_origin(annotation) in (Union, types.UnionType):
        others = [arg for arg in get_args(annotation) if arg is not type(None)]
        return Optional[others[0]] if len(others) == 1 else annotation
    return annotation


def _mcts_schema() -> type:
    """The ``mcts`` section, built from the library's settings classes (``mcts.registry``):
    ``algorithm`` (a registered search name) and one flat key per setting of every registered search
    (``mcts.config_key``: the field's name, or the name its class gives it, e.g. Gumbel's
    ``gumbel_c_visit``), with that class's default (the first registered, PUCT, for shared keys such
    as ``num_simulations`` and ``solver``). ``search_settings`` builds the chosen search's frozen
    settings from the keys its class has."""
    columns: list = [("algorithm", str, field(default="puct"))]
    seen = {"algorithm"}
    for name in mcts.names():
        settings_type = mcts.algorithm(name).settings_type
        hints = get_type_hints(settings_type)
        for f in dataclasses.fields(settings_type):
            key = mcts.config_key(settings_type, f.name)
            if key not in seen:
                seen.add(key)
                columns.append((key, _schema_type(hints[f.name]), field(default=f.default)))
    schema = dataclasses.make_dataclass("MCTSSchema", columns)
    schema.__module__ = __name__
    schema.__doc__ = _mcts_schema.__doc__
    return schema


#: the ``mcts`` section: see ``_mcts_schema`` (``mcts.PUCTConfig``, ``mcts.GumbelConfig``, ``mcts.UCTConfig``)
MCTSSchema = _mcts_schema()


#: the self-play settings' defaults (``selfplay.runner.SelfPlaySettings``, ``selfplay.worker.WorkerSettings``), written once
_PLAY = SelfPlaySettings()
_WORKER = WorkerSettings()


@dataclass
class SelfPlaySchema:
    """The keys of ``selfplay.runner.SelfPlaySettings`` and ``selfplay.worker.WorkerSettings``
    (``games_per_actor`` is the worker's ``num_games``) default to those classes' defaults; the rest
    place the actors on Ray and filter the replay buffer."""

    num_actors: int = 2
    games_per_actor: int = _WORKER.num_games  # K games searched at once by one actor (the network batch)
    moves_per_call: int = _WORKER.moves_per_call  # plies played per actor task before results go back (weights are pulled between tasks)
    temperature: float = _PLAY.temperature
    temperature_plies: int = _PLAY.temperature_plies  # plies played at `temperature`; greedy afterwards
    random_opening_plies: int = _PLAY.random_opening_plies  # each game starts with 0..N random, unrecorded plies (more positions seen)
    # the share of games that start at a state the game's knowledge draws over its whole state space
    # (games/knowledge.py exploring_start; Pig only), reached by unrecorded events
    exploring_starts: float = _PLAY.exploring_starts
    reuse_tree: bool = _PLAY.reuse_tree  # subtree reuse: each search starts from the subtree of the move played
    num_cpus_per_actor: float = 1.0
    num_gpus_per_actor: float = 0.0  # set e.g. 0.1 on a GPU box to share the GPU between actors
    device: str = _WORKER.device  # network device of the actors: auto | cpu | cuda
    torch_threads: int = _WORKER.torch_threads
    # playout cap randomisation (Wu 2019, sec. 5): a ply is a full search with this probability,
    # else a cheap one of cheap_simulations whose policy is not a training target (1.0: off)
    full_search_probability: float = _PLAY.full_search_probability
    cheap_simulations: int = _PLAY.cheap_simulations
    value_target: str = _PLAY.value_target  # z (outcome) | q (root search value) | mix ((z + q) / 2) | lambda
    td_lambda: float = _PLAY.td_lambda  # lambda of value_target=lambda: 0 is q, 1 is z (selfplay/runner.py)
    # K: batches draw only positions searched by one of the last K + 1 best versions (K promotions
    # behind at most; with gating off, publishes), filtered when sampling (selfplay/replay_buffer.py); null: all
    max_generations_behind: Optional[int] = None
    eval_cache_size: int = _WORKER.eval_cache_size  # slots of each actor's evaluation cache (selfplay/eval_cache.py); 0: off
    # actor network runtime: onnx (ONNX Runtime on the CPU, re-exported for each new set of weights;
    # about 2.8x the self-play positions per CPU second of torch: docs/results/learning_efficiency.md) | torch
    inference: str = _WORKER.inference


@dataclass
class TrainerSchema:
    """The learner's keys default to ``trainer.learner.LearnerConfig``'s (see ``trainer/learner.py``
    for the schedules); the rest time the run (``trainer/schedule.py``) and size the replay buffer."""

    batch_size: int = 256
    optimizer: str = _LEARNER.optimizer  # adamw | sgd
    learning_rate: float = _LEARNER.learning_rate
    momentum: float = _LEARNER.momentum
    weight_decay: float = _LEARNER.weight_decay
    lr_schedule: str = _LEARNER.lr_schedule  # constant | cosine | step | wsd
    lr_schedule_samples: Optional[int] = _LEARNER.lr_schedule_samples  # cosine decay length, or step interval
    lr_warmup_samples: int = _LEARNER.lr_warmup_samples  # linear warm-up over this many samples (0: none)
    lr_min_ratio: float = _LEARNER.lr_min_ratio  # cosine floor, a fraction of learning_rate
    lr_step_gamma: float = _LEARNER.lr_step_gamma  # step schedule: factor at every lr_schedule_samples
    # wsd schedule: the last fraction of the run's budget (run.max_minutes / run.max_steps) over
    # which the learning rate falls linearly to lr_min_ratio * learning_rate
    lr_decay_fraction: float = _LEARNER.lr_decay_fraction
    grad_clip: float = _LEARNER.grad_clip
    replay_capacity: int = 200_000  # positions kept in the sliding window
    replay_window_growth_start: Optional[int] = None  # KataGo's growing window from this many positions (null: fixed)
    min_replay_positions: int = 2_000  # positions before the first optimiser step
    validation_every: int = 0  # k > 0: games whose id is a multiple of k are held out, validation/* losses
    replay_ratio: float = 4.0  # at most this many training samples per new self-play position
    batches_per_fetch: int = 4
    # a checkpoint (weights, optimiser, the replay buffer's file) every N minutes of wall clock,
    # and/or every N optimiser steps, whichever comes first; null turns either off
    # (trainer/schedule.py checkpoint_due; the disk written per hour: docs/reliability.md)
    checkpoint_every_minutes: Optional[float] = 5.0
    checkpoint_every_steps: Optional[int] = None
    keep_checkpoints: int = 3
    publish_every_steps: int = 100  # new weights to self-play (gating off) or to the arena (gating on)
    device: str = _LEARNER.device
    torch_threads: int = 1


#: the sequential gate's defaults (``arena.sprt.SPRTConfig``), written once
_SPRT = SPRTConfig()


@dataclass
class ArenaSchema:
    # the search of gating and the in-run mistake rates (a name of mcts.registry; its settings are
    # the mcts section's, with arena.num_simulations and no MCTS-solver)
    algorithm: str = "puct"
    gating: bool = True
    gate_every_steps: int = 500
    num_games: int = 40
    threshold: float = 0.55  # promote when score >= threshold (draws count half)
    # the promotion rule: sprt (sequential test on colour-paired games, arena/sprt.py) | fixed
    # (num_games games, promote at a score >= threshold)
    gate: str = "sprt"
    sprt_elo0: float = _SPRT.elo0  # logistic Elo of H0 (reject)
    sprt_elo1: float = _SPRT.elo1  # logistic Elo of H1 (accept)
    sprt_alpha: float = _SPRT.alpha
    sprt_beta: float = _SPRT.beta
    sprt_max_games: int = _SPRT.max_games  # the cap: a test undecided after this many games rejects
    sprt_pairs_per_look: int = _SPRT.pairs_per_look  # pairs played (in one batch) between two looks
    num_simulations: int = 64
    # the arena's PUCT backup (mcts.backup's choices), which exported models are also played with;
    # None: mcts.backup, self-play's (Pig trains with robust and plays max_self: docs/results/pig.md)
    backup: Optional[str] = None
    opening_random_plies: int = 2  # seeded random plies at the start of each arena game
    num_cpus: float = 0.0  # CPUs reserved for the gating actor; 0 shares them with self-play
    inference: str = "onnx"  # the arena actor's network runtime on its CPU: onnx (ONNX Runtime) | torch
    # labelled sets measured besides the game's own (Connect Four: "pons" or "pons-end-easy", ...)
    extra_labelled_sets: List[str] = field(default_factory=list)
    # every new best model rated against fixed reference players (arena/rating.py): arena/rating/elo
    # and its interval; costs len(rating_pool) * rating_games games per new best model
    rating: bool = False
    rating_pool: List[str] = field(default_factory=lambda: list(DEFAULT_POOL))
    rating_games: int = 10  # games against each reference player (even)


@dataclass
class RaySchema:
    address: Optional[str] = None  # None: start a local Ray; "auto" or "host:port": join a cluster
    num_cpus: Optional[int] = None  # local Ray only
    num_gpus: Optional[int] = None  # local Ray only
    include_dashboard: bool = False
    object_store_memory: Optional[int] = None  # bytes, local Ray only


@dataclass
class RunSchema:
    max_steps: Optional[int] = None  # optimiser steps
    max_minutes: Optional[float] = 60.0  # wall clock
    seed: int = 0
    status_every_seconds: float = 2.0
    live_status: bool = True  # rich live panel; off in tests and when stdout is not a terminal
    sample_games_every: int = 200  # write one game's move string to games/ every N games


@dataclass
class TrainSchema:
    game: GameSchema = field(default_factory=GameSchema)
    network: NetworkSchema = field(default_factory=NetworkSchema)
    mcts: MCTSSchema = field(default_factory=MCTSSchema)
    selfplay: SelfPlaySchema = field(default_factory=SelfPlaySchema)
    trainer: TrainerSchema = field(default_factory=TrainerSchema)
    arena: ArenaSchema = field(default_factory=ArenaSchema)
    ray: RaySchema = field(default_factory=RaySchema)
    run: RunSchema = field(default_factory=RunSchema)
    resume: Optional[str] = None  # a run directory to continue


def register_configs() -> None:
    """Store the schema in Hydra's ConfigStore as ``train_schema`` (``configs/train.yaml`` uses it)."""
    from hydra.core.config_store import ConfigStore  # heavy dependency (hydra): imported where it is used

    ConfigStore.instance().store(name="train_schema", node=TrainSchema)


#: config groups of ``configs/`` (``group=option`` picks a file); ``experiment`` is a group only
CONFIG_GROUPS = ("game", "network", "mcts", "selfplay", "trainer", "arena", "ray", "experiment")


def check_overrides(overrides: list[str], config_dir: str | None = None) -> None:
    """Check command-line overrides against the schema and the config folder before Hydra composes.

    ``section.key=value`` must name a field of that section (Hydra would say only "Could not
    override", and suggest appending it with ``+``) and give a value of its type (Hydra would print
    OmegaConf's conversion message); ``name=value`` must be a config group or ``resume``, and a
    group's option a file of ``config_dir/GROUP/`` (Hydra would print its search path); a ``+``
    append into the schema is refused too (the field would be ignored). ``hydra...`` keys and
    options (``--cfg``, ``-m``...) are left to Hydra. ``game=module:Class`` (a game class outside
    this repository, ``games.make``) is accepted as a game option.

    Args:
        overrides: the command line's words.
        config_dir: the folder of the config groups (None: options are not checked).

    Raises:
        ValueError: naming the unknown key or option, the accepted ones and the closest one, or
            the expected type of a value.
    """
    sections = {name: f.default_factory for name, f in TrainSchema.__dataclass_fields__.items() if name != "resume"}
    errors = []
    for override in overrides:
        if override.startswith("-") or "=" not in override:
            continue
        key, value = override.split("=", 1)
        key = key.lstrip("+~")
        if not key or key.startswith("hydra") or "/" in key or "@" in key:
            continue
        parts = key.split(".")
        if len(parts) == 1:
            accepted = sorted({*CONFIG_GROUPS, "resume"})
            if key not in accepted:
                errors.append(_unknown_top_level(key, accepted, sections))
            elif key in CONFIG_GROUPS and config_dir is not None:
                errors.extend(_check_option(key, value, Path(config_dir)))
            continue
        if parts[0] not in sections:
            errors.append(_unknown(parts[0], "config sections", sorted(sections), shown=key))
            continue
        accepted = sorted(sections[parts[0]]().__dataclass_fields__)
        if parts[1] not in accepted:
            errors.append(_unknown(parts[1], f"keys of {parts[0]}", accepted, shown=key, prefix=f"{parts[0]}."))
        elif len(parts) == 2 and not override.startswith("~"):
            errors.extend(_check_type(sections[parts[0]], parts[1], key, override))
    if errors:
        raise ValueError("invalid configuration:\n  " + "\n  ".join(errors))


def _unknown(name: str, what: str, accepted: list[str], shown: str | None = None, prefix: str = "") -> str:
    close = difflib.get_close_matches(name, accepted, n=1)
    hint = f"; did you mean {prefix}{close[0]}?" if close else ""
    return f"{shown or name}: unknown key; accepted {what}: {accepted}{hint}"


def _unknown_top_level(key: str, accepted: list[str], sections: dict) -> str:
    """The message for an unknown ``key=value``: the groups, and the sections set as ``section.key``
    (``run`` among them, which has no group), with the section key of that name when one exists."""
    owners = [f"{name}.{key}" for name, cls in sections.items() if key in cls.__dataclass_fields__]
    close = owners[:1] or difflib.get_close_matches(key, accepted, n=1)
    hint = f"; did you mean {close[0]}?" if close else ""
    return (
        f"{key}: unknown key; accepted top-level keys and config groups: {accepted}, and section.key=value "
        f"for the sections {sorted(sections)} (e.g. run.max_minutes=5){hint}"
    )


def _check_option(group: str, value: str, config_dir: Path) -> list[str]:
    """``group=value`` must name ``config_dir/group/value.yaml`` (or, for ``game``, a module:Class spec)."""
    if group == "game" and (games.is_class_spec(value) or value in games.names()):
        return []  # a game class outside this repository: configs/game/module.yaml (trainer/cli.py)
    folder = config_dir / group
    options = sorted(path.stem for path in folder.glob("*.yaml"))
    if not folder.is_dir() or value in options or not value or value.startswith(("[", "null")):
        return []
    close = difflib.get_close_matches(value, options, n=1)
    hint = f"; did you mean {group}={close[0]}?" if close else ""
    also = " or a game class outside this repository as module:Class" if group == "game" else ""
    return [f"{group}={value}: no such option; accepted options of {group}: {options}{also}{hint}"]


#: how a value of each schema type is described in an error
_TYPE_WORDS = {int: "an integer", float: "a number", bool: "true or false", str: "a string"}


def _check_type(section_cls, name: str, key: str, override: str) -> list[str]:
    """The value of ``section.name=value`` must convert to the field's type (as OmegaConf would)."""
    # heavy dependency (hydra, omegaconf): imported where it is used
    from hydra.core.override_parser.overrides_parser import OverridesParser
    from omegaconf import OmegaConf  # heavy dependency (omegaconf)
    from omegaconf.errors import OmegaConfBaseException  # heavy dependency (omegaconf)

    try:
        value = OverridesParser.create().parse_override(override.lstrip("+")).value()
    except Exception:  # noqa: BLE001 - Hydra's grammar errors are Hydra's to report
        return []
    if not isinstance(value, (str, int, float, bool)) and value is not None:
        return []  # lists, dicts, sweeps: OmegaConf's own checks
    node = OmegaConf.structured(section_cls)
    try:
        node[name] = value
    except OmegaConfBaseException:
        hint = get_type_hints(section_cls)[name]
        optional = type(None) in get_args(hint)
        base = next((t for t in (get_args(hint) or (hint,)) if t is not type(None)), hint)
        words = _TYPE_WORDS.get(base, getattr(base, "__name__", str(base)))
        return [f"{key}: expected {words}{' or null' if optional else ''}, got {value!r}"]
    return []


def to_train_config(cfg) -> TrainSchema:
    """Convert a composed ``DictConfig`` to plain dataclasses (interpolations resolved)."""
    from omegaconf import OmegaConf  # heavy dependency (omegaconf): imported where it is used

    obj = OmegaConf.to_object(cfg)
    if not isinstance(obj, TrainSchema):
        raise ValueError(f"expected a config composed from train_schema, got {type(obj).__name__}")
    return obj


def to_dict(config: TrainSchema) -> dict:
    """Plain nested dict of a config (for checkpoints, TensorBoard and Ray)."""
    return asdict(config)


def from_dict(data: dict) -> TrainSchema:
    """Inverse of ``to_dict``; unknown keys raise ValueError naming them."""

    def build(cls, values):
        known = {f for f in cls.__dataclass_fields__}
        unknown = sorted(set(values) - known)
        if unknown:
            raise ValueError(f"{cls.__name__}: unknown key(s) {unknown}; accepted {sorted(known)}")
        return cls(**values)

    parts = {}
    for name, f in TrainSchema.__dataclass_fields__.items():
        if name == "resume":
            continue
        parts[name] = build(f.default_factory().__class__, data.get(name, {}))
    return TrainSchema(**parts, resume=data.get("resume"))


def network_config(config: TrainSchema) -> NetworkConfig:
    """The run's network (frozen; what the learner, the actors and the checkpoints use).

    Raises:
        ValueError: as ``NetworkConfig``, for a size out of range or an unknown kind.
    """
    net = config.network
    return NetworkConfig(
        kind=net.kind,
        num_blocks=net.num_blocks,
        channels=net.channels,
        policy_channels=net.policy_channels,
        value_channels=net.value_channels,
        value_hidden=net.value_hidden,
        mlp_hidden=tuple(net.mlp_hidden),
    )


def search_settings(config: TrainSchema, algorithm: str | None = None, **overrides):
    """The frozen settings of the search named ``algorithm`` (default ``mcts.algorithm``), built from
    the ``mcts`` section (``mcts.settings_from``; keys of other searches are ignored) with
    ``overrides`` by field name.

    Raises:
        ValueError: for an unknown search name, and as its settings class for a value out of range.
    """
    return mcts.settings_from(algorithm or config.mcts.algorithm, asdict(config.mcts), **overrides)


def selfplay_search(config: TrainSchema):
    """The search of self-play (frozen settings of ``mcts.algorithm``), root noise included
    (self-play adds it). Raises ValueError as ``search_settings``."""
    return search_settings(config)


def arena_search(config: TrainSchema):
    """The search of gating and mistake rates (frozen), which the run's exported model records as
    its search to be played with: ``arena.algorithm`` with the ``mcts`` section's settings,
    ``arena.num_simulations``, ``arena.backup`` where it is set, and no MCTS-solver; the arena
    adds no root noise.

    Raises:
        ValueError: as ``search_settings``; ``arena.backup`` is ignored by a search without that setting.
    """
    overrides = {"num_simulations": config.arena.num_simulations, "solver": False}
    if config.arena.backup is not None:
        overrides["backup"] = config.arena.backup
    return search_settings(config, config.arena.algorithm, **overrides)


def arena_gate(config: TrainSchema) -> GateConfig:
    """The promotion rule (frozen): ``arena.gate`` with the fixed rule's ``num_games`` and
    ``threshold`` and the sequential test's ``sprt_*`` keys.

    Raises:
        ValueError: as ``arena.promotion.GateConfig`` and ``arena.sprt.SPRTConfig``, for a value out of range.
    """
    ar = config.arena
    sprt = SPRTConfig(
        elo0=float(ar.sprt_elo0), elo1=float(ar.sprt_elo1), alpha=float(ar.sprt_alpha), beta=float(ar.sprt_beta),
        max_games=int(ar.sprt_max_games), pairs_per_look=int(ar.sprt_pairs_per_look),
    )
    return GateConfig(rule=ar.gate, num_games=int(ar.num_games), threshold=float(ar.threshold), sprt=sprt)


#: keys of the ``selfplay`` section named otherwise than the worker's field
_WORKER_KEYS = {"num_games": "games_per_actor"}


def settings_from_section(settings_type: type, section, keys: dict[str, str] | None = None, **given):
    """A frozen settings dataclass from a config section: each field read from the key of its own
    name (or ``keys[field]``) where the section has it, ``given`` fields as given, the class's
    default otherwise. So a field added to the library class and its schema needs no edit here.

    Raises:
        ValueError: as ``settings_type`` for a value out of range.
    """
    keys = keys or {}
    values = dict(given)
    for f in dataclasses.fields(settings_type):
        key = keys.get(f.name, f.name)
        if f.name not in values and hasattr(section, key):
            values[f.name] = getattr(section, key)
    return settings_type(**values)


def worker_settings(config: TrainSchema) -> WorkerSettings:
    """A self-play worker's settings (frozen) from ``config.selfplay``; the ``mcts`` section's
    search is passed beside them (``selfplay_search``).

    Raises:
        ValueError: as ``selfplay.worker.WorkerSettings`` and ``selfplay.runner.SelfPlaySettings``.
    """
    play = settings_from_section(SelfPlaySettings, config.selfplay)
    return settings_from_section(WorkerSettings, config.selfplay, _WORKER_KEYS, play=play)


def learner_config(config: TrainSchema) -> LearnerConfig:
    """The learner's settings (frozen) from ``config.trainer`` (fields the section has no key for,
    such as ``value_weight``, keep ``LearnerConfig``'s defaults)."""
    return settings_from_section(LearnerConfig, config.trainer)


def _positive(errors: list, key: str, value, allow_zero: bool = False) -> None:
    if value is None:
        return
    if not math.isfinite(value) or value < 0 or (value == 0 and not allow_zero):
        if is_int(value):  # a count: refused as the library's counts are, by check_int
            try:
                check_int(key, value, 0 if allow_zero else 1)
            except ValueError as error:
                errors.append(str(error))
        else:
            expected = ">= 0" if allow_zero else "> 0"
            errors.append(f"{key}: expected a finite number {expected}, got {value}")


def _settings_errors(prefix: str, section, settings_types, key_of=lambda settings_type, name: name) -> list[str]:
    """``PREFIX.KEY: message`` for every key of a config section that the library settings class
    reading it refuses, each key tried alone (the class's other fields at their defaults), so that
    every bad key is named at once and each range is written once, in its class.

    Args:
        prefix: the section's name (``"mcts"``, ``"selfplay"``, ``"trainer"``).
        section: the section (a schema dataclass).
        settings_types: the frozen settings classes built from it (``settings_from_section``).
        key_of: ``(settings_type, field_name) -> key`` of the field in the section.
    """
    errors: dict[str, str] = {}
    for settings_type in settings_types:
        for f in dataclasses.fields(settings_type):
            key = key_of(settings_type, f.name)
            if key in errors or not hasattr(section, key):
                continue
            try:
                settings_type(**{f.name: getattr(section, key)})
            except (ValueError, TypeError) as exc:
                message = str(exc)
                errors[key] = f"{prefix}.{key}: {message.removeprefix(f'{f.name}: ')}"
    return list(errors.values())


def game_id(config: TrainSchema) -> str:
    """The id ``games.make`` takes: ``game.name``, or ``openspiel:SPEC`` for ``game.name=openspiel``
    with ``game.openspiel=SPEC``.

    Raises:
        ValueError: as ``games.resolve``.
    """
    return games.resolve(config.game.name, config.game.openspiel)


def validate(config: TrainSchema) -> None:
    """Check values before anything starts.

    Raises:
        ValueError: listing every invalid key with its accepted values.
    """
    errors: list[str] = []
    try:
        name = game_id(config)
    except ValueError as exc:
        errors.append(f"game: {exc}")
    else:
        if not games.is_known(name):
            errors.append(
                f"game.name: expected one of {games.names()}, got {config.game.name!r} "
                f"(or game.name=openspiel with game.openspiel=SPEC)"
            )
        else:
            try:
                game = games.make(name)
            except ValueError as exc:  # an OpenSpiel game that does not load or is refused
                errors.append(f"game.openspiel: {exc}")
            else:
                sets = position_sets(game)
                groups = sets.labelled_set_groups()
                own = sets.labelled_set_names()
                accepted = list(own) + list(groups) + [n for m in groups.values() for n in m]
                unknown = [n for n in config.arena.extra_labelled_sets if n not in accepted]
                if unknown:
                    errors.append(f"arena.extra_labelled_sets: expected names from {accepted}, got {unknown}")
                for key, search in (("mcts.algorithm", config.mcts.algorithm), ("arena.algorithm", config.arena.algorithm)):
                    if game.num_chance_outcomes and search in mcts.names() and not mcts.algorithm(search).searches_chance:
                        chance_searches = [n for n in mcts.names() if mcts.algorithm(n).searches_chance]
                        errors.append(f"{key}: {name} has chance states; the {search} search handles games "
                                      f"without chance only: expected one of {chance_searches}")
                if config.selfplay.exploring_starts > 0 and (
                    games.knowledge(game).exploring_start(np.random.default_rng(0)) is None
                ):
                    errors.append(f"selfplay.exploring_starts: {name} draws no exploring starts "
                                  f"(games/knowledge.py exploring_start); expected 0, got {config.selfplay.exploring_starts}")
                if game.num_chance_outcomes and config.mcts.solver:
                    errors.append(f"mcts.solver: {name} has chance states; the MCTS-solver proves games without "
                                  "chance only: expected mcts.solver=false")
    try:
        network_config(config)
    except ValueError as exc:
        errors.append(f"network: {exc}")
    # every key of the section, named, whichever search is chosen: each checked by its own
    # settings class (mcts/registry.py), so the ranges are written once, in the library
    mc = config.mcts
    errors.extend(_settings_errors("mcts", mc, [mcts.algorithm(n).settings_type for n in mcts.names()], mcts.config_key))
    section_ok = not any(error.startswith("mcts.") for error in errors)
    for key, search in (("mcts.algorithm", mc.algorithm), ("arena.algorithm", config.arena.algorithm)):
        if search not in mcts.names():
            errors.append(f"{key}: expected one of {list(mcts.names())}, got {search!r}")
    if section_ok and mc.algorithm in mcts.names():
        try:
            selfplay_search(config)
        except ValueError as exc:
            errors.append(f"mcts: {exc}")
    if section_ok and config.arena.algorithm in mcts.names() and config.arena.num_simulations > 0:
        try:
            arena_search(config)
        except ValueError as exc:
            errors.append(f"arena: {exc}")
    sp = config.selfplay
    errors.extend(_settings_errors(
        "selfplay", sp, (SelfPlaySettings, WorkerSettings), lambda settings_type, name: _WORKER_KEYS.get(name, name)
    ))
    _positive(errors, "selfplay.num_actors", sp.num_actors)
    _positive(errors, "selfplay.num_cpus_per_actor", sp.num_cpus_per_actor, allow_zero=True)
    _positive(errors, "selfplay.num_gpus_per_actor", sp.num_gpus_per_actor, allow_zero=True)
    _positive(errors, "selfplay.max_generations_behind", sp.max_generations_behind, allow_zero=True)
    if (
        0.0 < sp.full_search_probability < 1.0
        and sp.cheap_simulations >= 1 and not sp.cheap_simulations <= config.mcts.num_simulations
    ):
        errors.append(
            f"selfplay.cheap_simulations: expected in [1, mcts.num_simulations = {config.mcts.num_simulations}], "
            f"got {sp.cheap_simulations}"
        )
    if sp.inference == "onnx" and sp.device == "cuda":
        errors.append("selfplay.inference: 'onnx' runs on the CPU; with selfplay.device=cuda expected 'torch'")
    tr = config.trainer
    errors.extend(_settings_errors("trainer", tr, (LearnerConfig,)))
    for key in (
        "batch_size", "replay_capacity", "replay_ratio", "batches_per_fetch", "checkpoint_every_steps",
        "checkpoint_every_minutes", "keep_checkpoints", "publish_every_steps", "torch_threads",
        "replay_window_growth_start",
    ):
        _positive(errors, f"trainer.{key}", getattr(tr, key))
    if tr.checkpoint_every_steps is None and tr.checkpoint_every_minutes is None:
        errors.append(
            "trainer.checkpoint_every_minutes: expected a number > 0 (or trainer.checkpoint_every_steps), "
            "got null for both: the run would never write a checkpoint"
        )
    _positive(errors, "trainer.min_replay_positions", tr.min_replay_positions, allow_zero=True)
    _positive(errors, "trainer.validation_every", tr.validation_every, allow_zero=True)
    if tr.lr_schedule in ("cosine", "step") and tr.lr_schedule_samples is None:
        errors.append(
            f"trainer.lr_schedule_samples: expected an int > 0 with trainer.lr_schedule={tr.lr_schedule}, got null"
        )
    if tr.batch_size > tr.replay_capacity:
        errors.append(
            f"trainer.batch_size: expected <= trainer.replay_capacity ({tr.replay_capacity}), got {tr.batch_size}"
        )
    if tr.min_replay_positions > tr.replay_capacity:
        errors.append(
            f"trainer.min_replay_positions: expected <= trainer.replay_capacity ({tr.replay_capacity}), "
            f"got {tr.min_replay_positions}"
        )
    ar = config.arena
    _positive(errors, "arena.gate_every_steps", ar.gate_every_steps)
    _positive(errors, "arena.num_games", ar.num_games)
    _positive(errors, "arena.num_simulations", ar.num_simulations)
    _positive(errors, "arena.opening_random_plies", ar.opening_random_plies, allow_zero=True)
    _positive(errors, "arena.num_cpus", ar.num_cpus, allow_zero=True)
    if not (math.isfinite(ar.threshold) and 0.0 < ar.threshold <= 1.0):
        errors.append(f"arena.threshold: expected in (0, 1], got {ar.threshold}")
    if ar.gate not in GATE_RULES:
        errors.append(f"arena.gate: expected one of {list(GATE_RULES)}, got {ar.gate!r}")
    if ar.gate == "sprt":
        try:
            SPRTConfig(
                elo0=float(ar.sprt_elo0), elo1=float(ar.sprt_elo1), alpha=float(ar.sprt_alpha),
                beta=float(ar.sprt_beta), max_games=ar.sprt_max_games, pairs_per_look=ar.sprt_pairs_per_look,
            )
        except ValueError as error:
            errors.append(f"arena.sprt_*: {error}")
    if ar.rating:
        try:
            RatingPool(games.make(game_id(config)), ar.rating_pool, ar.rating_games, 0, ar.opening_random_plies)
        except (ValueError, FileNotFoundError) as error:
            errors.append(f"arena.rating_*: {error}")
    if ar.inference not in INFERENCE_RUNTIMES:
        errors.append(f"arena.inference: expected one of {list(INFERENCE_RUNTIMES)}, got {ar.inference!r}")
    _positive(errors, "ray.num_cpus", config.ray.num_cpus)
    _positive(errors, "ray.num_gpus", config.ray.num_gpus, allow_zero=True)
    _positive(errors, "ray.object_store_memory", config.ray.object_store_memory)
    if "cuda" in (sp.device, tr.device):
        import torch  # heavy dependency (torch): imported where it is used

        if not torch.cuda.is_available():
            for key, device in (("selfplay.device", sp.device), ("trainer.device", tr.device)):
                if device == "cuda":
                    errors.append(f"{key}: 'cuda' asked for, but CUDA is not available here; expected 'auto' or 'cpu'")
    _positive(errors, "run.max_steps", config.run.max_steps)
    _positive(errors, "run.max_minutes", config.run.max_minutes)
    if config.run.max_steps is None and config.run.max_minutes is None:
        errors.append("run: set run.max_steps or run.max_minutes (both are null: the run would never end)")
    _positive(errors, "run.sample_games_every", config.run.sample_games_every)
    _positive(errors, "run.status_every_seconds", config.run.status_every_seconds)
    if errors:
        raise ValueError("invalid configuration:\n  " + "\n  ".join(errors))
