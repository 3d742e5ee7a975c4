"""A resumed run restores its counters before it creates its actors (trainer/loop.py,
``TrainingRun._restore_then_create_actors``): the new self-play workers and the arena actor take
incarnation numbers after the interrupted run's, so game ids never repeat ids already in the
restored buffer and the random streams are new. Ray is replaced by recording fakes."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
import ray
import torch
from test_replay_buffer import random_record

import games
import trainer.loop
from selfplay.replay_buffer import ReplayBuffer
from selfplay.worker import GAME_ID_BLOCK, SelfPlayWorker
from trainer import checkpoint as ckpt
from trainer.actors import actor_seed
from trainer.config import TrainSchema
from trainer.counters import RunCounters
from trainer.loop import TrainingRun

TICTACTOE = games.make("tictactoe")


def tiny_config() -> TrainSchema:
    """Like ``experiment=tiny game=tictactoe``: a small MLP, 2 actors of 4 games, 8 simulations."""
    config = TrainSchema()
    config.game.name = "tictactoe"
    config.network.kind = "mlp"
    config.network.mlp_hidden = [16]
    config.network.value_hidden = 8
    config.mcts.num_simulations = 8
    config.selfplay.num_actors, config.selfplay.games_per_actor, config.selfplay.inference = 2, 4, "torch"
    config.selfplay.device = config.trainer.device = "cpu"
    config.trainer.batch_size, config.trainer.replay_capacity, config.trainer.min_replay_positions = 8, 500, 8
    config.run.seed, config.run.max_steps = 5, 20
    return config


class _Remote:
    """``handle.method.remote(...)``: calls the method at once and returns its result."""

    def __init__(self, method):
        self.remote = method


class FakeHandle:
    def __init__(self, instance):
        self.instance = instance

    def __getattr__(self, name):
        return _Remote(getattr(self.instance, name))


class FakeActorClass:
    """``Actor.options(...).remote(*args, **kwargs)``: records the arguments; the buffer is real."""

    def __init__(self, role: str, created: list, build=None):
        self.role, self.created, self.build = role, created, build

    def options(self, **_options):
        return self

    def remote(self, *args, **kwargs):
        self.created.append((self.role, args, kwargs))
        return FakeHandle(self.build(*args, **kwargs) if self.build else object())


@pytest.fixture
def fake_ray(monkeypatch):
    created: list = []
    from selfplay.buffer_service import ReplayBufferService

    monkeypatch.setattr(trainer.loop, "SelfPlayActor", FakeActorClass("selfplay", created))
    monkeypatch.setattr(trainer.loop, "GatingActor", FakeActorClass("arena", created))
    monkeypatch.setattr(trainer.loop, "ReplayBufferActor", FakeActorClass("buffer", created, ReplayBufferService))
    monkeypatch.setattr(ray, "put", lambda value: value)
    monkeypatch.setattr(ray, "get", lambda value: value)
    return created


def interrupted_run(run_dir, config: TrainSchema) -> None:
    """The checkpoint an interrupted run leaves: 2 self-play actors and 1 arena actor started, and a
    buffer of 6 games from the first worker's block (ids 1 * GAME_ID_BLOCK + 0..5)."""
    run = TrainingRun(config, run_dir)
    run._setup_learner()
    run.learner.steps = 10  # as if it had trained 10 steps
    buffer = ReplayBuffer(config.trainer.replay_capacity, TICTACTOE, seed=config.run.seed)
    for index in range(6):
        record = random_record(TICTACTOE, np.random.default_rng(index), GAME_ID_BLOCK + index, max_plies=5)
        buffer.add_game(record)
    counters = RunCounters(games=6, actor_incarnations=2, arena_incarnations=1)
    weights = {name: tensor.clone() for name, tensor in run.learner.snapshot().items()}
    ckpt.save_checkpoint(
        run_dir, 10, run.learner, buffer, None, counters.to_dict(), {}, "test",
        extra={"best_weights": weights, "last_gate": "-", "sample_counts": {}, "gate_in_flight": False},
        game=TICTACTOE, network_config=run.network_config,
    )


def test_a_resumed_run_starts_its_actors_after_the_interrupted_runs_incarnations(tmp_path, fake_ray):
    config = tiny_config()
    interrupted_run(tmp_path, config)
    run = TrainingRun(config, tmp_path)
    run._setup_learner()
    assert run._restore_then_create_actors(ckpt.load_latest_checkpoint(tmp_path)) == 10
    roles = [role for role, _, _ in fake_ray]
    assert roles == ["buffer", "selfplay", "selfplay", "arena"]
    workers = [kwargs for role, _, kwargs in fake_ray if role == "selfplay"]
    assert [kwargs["incarnation"] for kwargs in workers] == [3, 4]  # not 1 and 2 again
    assert [kwargs["seed"] for kwargs in workers] == [5, 5]
    arena = fake_ray[-1][2]
    assert arena["seed"] == actor_seed(5, 2) != actor_seed(5, 1)
    assert (run.counters.actor_incarnations, run.counters.arena_incarnations, run.counters.games) == (4, 2, 6)
    # the restored buffer holds the interrupted run's games; the new workers' ids are not among them
    restored_ids = run.buffer.instance.buffer.game_ids_in_window()
    assert restored_ids.tolist() == [GAME_ID_BLOCK + index for index in range(6)]
    torch.set_num_threads(1)
    worker = SelfPlayWorker(**workers[0])
    assert worker.runner.game_ids.tolist() == [3 * GAME_ID_BLOCK + index for index in range(4)]
    assert not set(worker.runner.game_ids.tolist()) & set(restored_ids.tolist())
    # its random stream is the generator of (seed 5, incarnation 3), not the first worker's (5, 1)
    first_draws = worker.runner.rng.random(3)
    np.testing.assert_array_equal(first_draws, np.random.default_rng([5, 3]).random(3))
    assert not np.array_equal(first_draws, np.random.default_rng([5, 1]).random(3))


def test_a_new_run_numbers_its_actors_from_one(tmp_path, fake_ray):
    run = TrainingRun(tiny_config(), tmp_path)
    run._setup_learner()
    assert run._restore_then_create_actors(None) == 0
    assert [kwargs["incarnation"] for role, _, kwargs in fake_ray if role == "selfplay"] == [1, 2]
    assert fake_ray[-1][2]["seed"] == actor_seed(5, 1)
    assert (run.counters.actor_incarnations, run.counters.arena_incarnations) == (2, 1)


def test_a_checkpoint_without_the_arena_counter_counts_the_arena_actors_it_had(tmp_path, fake_ray):
    config = tiny_config()
    interrupted_run(tmp_path, config)
    loaded = ckpt.load_latest_checkpoint(tmp_path)
    counters = dict(loaded.counters, gating_restarts=2)
    del counters["arena_incarnations"]  # saved before the counter existed: 1 + 2 replacements had run
    loaded = dataclasses.replace(loaded, payload={**loaded.payload, "counters": counters})
    run = TrainingRun(config, tmp_path)
    run._setup_learner()
    run._restore_then_create_actors(loaded)
    assert run.counters.arena_incarnations == 4
    assert fake_ray[-1][2]["seed"] == actor_seed(5, 4)


def test_actor_seeds_differ_by_incarnation_and_run_seed():
    seeds = {actor_seed(run_seed, incarnation) for run_seed in range(3) for incarnation in range(1, 6)}
    assert len(seeds) == 15
    assert actor_seed(0, 1) == int(np.random.SeedSequence([0, 1]).generate_state(1)[0])
