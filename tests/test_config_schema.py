"""One config schema (trainer/config.py): the library objects' defaults are the schema's, the run
builds frozen objects from it in one place, and the learner's schedules are reachable from YAML."""

from __future__ import annotations

import dataclasses
import pickle

import pytest

from mcts import GumbelConfig, PUCTConfig
from networks.config import NetworkConfig
from trainer.config import (
    MCTSSchema,
    NetworkSchema,
    SelfPlaySchema,
    TrainerSchema,
    TrainSchema,
    arena_search,
    learner_config,
    network_config,
    selfplay_search,
    worker_settings,
)
from selfplay.runner import SelfPlaySettings
from selfplay.worker import WorkerSettings
from trainer.learner import LearnerConfig


def test_the_schema_defaults_are_the_library_defaults():
    mcts = dataclasses.asdict(MCTSSchema())
    for key, value in dataclasses.asdict(PUCTConfig()).items():  # 800 simulations in both
        assert mcts[key] == value, key
    gumbel = GumbelConfig()
    assert (mcts["gumbel_max_considered_actions"], mcts["gumbel_scale"], mcts["gumbel_c_visit"], mcts["gumbel_c_scale"]) == (
        gumbel.max_num_considered_actions, gumbel.gumbel_scale, gumbel.c_visit, gumbel.c_scale
    )
    network = dataclasses.asdict(NetworkConfig())
    assert dataclasses.asdict(NetworkSchema()) == {**network, "mlp_hidden": list(network["mlp_hidden"])}
    trainer = dataclasses.asdict(TrainerSchema())
    for key, value in dataclasses.asdict(LearnerConfig()).items():
        if key in trainer:
            assert trainer[key] == value, key
    config = TrainSchema()
    assert selfplay_search(config) == PUCTConfig() and network_config(config) == NetworkConfig()


def test_every_selfplay_key_with_a_library_field_has_the_library_default():
    schema = {f.name: f.default for f in dataclasses.fields(SelfPlaySchema)}
    library = {f.name: f.default for cls in (SelfPlaySettings, WorkerSettings) for f in dataclasses.fields(cls)}
    renamed = {"games_per_actor": "num_games"}  # the schema's name for the worker's K games
    paired = {key: renamed.get(key, key) for key in schema if renamed.get(key, key) in library}
    # every library field is a schema key but the nested ``play`` (the worker's SelfPlaySettings)
    assert sorted(paired.values()) == sorted(set(library) - {"play"})
    for key, name in paired.items():
        assert schema[key] == library[name], (key, schema[key], library[name])
    assert (schema["cheap_simulations"], schema["inference"], schema["games_per_actor"]) == (16, "onnx", 64)


def test_the_run_builds_frozen_objects_from_the_yaml_values(compose):
    config = compose(["game=othello", "arena.num_simulations=13"])  # PUCT with the mcts group's defaults
    search = selfplay_search(config)
    assert search == PUCTConfig(num_simulations=64, dirichlet_alpha=1.0)  # configs/mcts/default.yaml
    assert arena_search(config) == PUCTConfig(num_simulations=13, dirichlet_alpha=1.0)
    assert network_config(config) == NetworkConfig(kind="resnet", num_blocks=4, channels=32)  # b4c32.yaml
    with pytest.raises(dataclasses.FrozenInstanceError):
        search.num_simulations = 1
    # what crosses to the actors: frozen objects that survive pickling unchanged
    for value in (search, network_config(config), learner_config(config)):
        assert pickle.loads(pickle.dumps(value)) == value


def test_the_step_schedule_and_warm_up_are_reachable_from_the_config(compose):
    import games
    from networks import build_network
    from trainer.loop import make_learner

    config = compose([
        "game=tictactoe", "trainer.lr_schedule=step", "trainer.lr_schedule_samples=100",
        "trainer.lr_step_gamma=0.5", "trainer.learning_rate=0.004", "trainer.lr_warmup_samples=10",
    ])
    assert learner_config(config) == LearnerConfig(
        learning_rate=0.004, lr_schedule="step", lr_schedule_samples=100, lr_step_gamma=0.5,
        lr_warmup_samples=10, device="cpu",
    )
    game = games.make("tictactoe")
    learner = make_learner(config, build_network(network_config(config), game.observation_shape, game.num_actions))
    learner.samples_trained = 4  # in the warm-up: 0.004 * (4 + 1) / 10
    assert learner.learning_rate == pytest.approx(0.002)
    learner.samples_trained = 250  # two drops: 0.004 * 0.5 ** 2
    assert learner.learning_rate == pytest.approx(0.001)


def test_a_workers_settings_are_the_selfplay_sections_values(compose):
    config = compose([
        "game=tictactoe", "selfplay.games_per_actor=5", "selfplay.moves_per_call=3", "selfplay.temperature=0.5",
        "selfplay.temperature_plies=2", "selfplay.random_opening_plies=1", "selfplay.reuse_tree=true",
        "selfplay.full_search_probability=0.25", "selfplay.cheap_simulations=4", "selfplay.value_target=q",
        "selfplay.eval_cache_size=7", "selfplay.inference=torch", "selfplay.torch_threads=2",
    ])
    assert worker_settings(config) == WorkerSettings(  # device: configs/train.yaml chooses the CPU
        num_games=5, moves_per_call=3, device="cpu", torch_threads=2, eval_cache_size=7, inference="torch",
        play=SelfPlaySettings(
            temperature=0.5, temperature_plies=2, random_opening_plies=1, full_search_probability=0.25,
            cheap_simulations=4, value_target="q", reuse_tree=True,
        ),
    )
    assert pickle.loads(pickle.dumps(worker_settings(config))) == worker_settings(config)
