"""The run's schedule (trainer/schedule.py), counters (trainer/counters.py), fault hook
(trainer/faults.py) and the replay-ratio rule (selfplay/replay_ratio.py), without Ray."""

from __future__ import annotations

import math
from types import SimpleNamespace

import pytest

from selfplay.replay_ratio import batches_allowed, enough_positions
from trainer.config import TrainSchema
from trainer.counters import RunCounters
from trainer.faults import FaultPlan, parse_faults
from trainer.schedule import Schedule, StepActions, checkpoint_due


def schedule(**changes) -> Schedule:
    settings = {
        "batch_size": 32, "replay_ratio": 8.0, "batches_per_fetch": 4, "min_replay_positions": 64,
        "publish_every_steps": 5, "gate_every_steps": 10, "checkpoint_every_steps": 10, "gating": True,
        "max_steps": 20, "max_seconds": 180.0,
    }
    settings.update(changes)
    return Schedule(**settings)


def test_the_replay_ratio_allows_floor_of_ratio_times_positions_less_samples_over_batch():
    # 8 samples per position, 100 positions, 640 samples trained: (800 - 640) / 32 = 5 batches
    assert batches_allowed(640, 100, 32, 8.0) == 5
    assert batches_allowed(641, 100, 32, 8.0) == 4  # 159 / 32
    assert batches_allowed(800, 100, 32, 8.0) == 0
    assert batches_allowed(900, 100, 32, 8.0) == 0  # never negative
    assert batches_allowed(10**9, 0, 32, None) == math.inf
    for bad in (0.0, -1.0, math.nan, math.inf):
        with pytest.raises(ValueError, match="replay_ratio: expected a finite value > 0"):
            batches_allowed(0, 0, 32, bad)
    with pytest.raises(ValueError, match="batch_size: expected an int >= 1"):
        batches_allowed(0, 0, 0, 1.0)
    assert enough_positions(64, 32, 64) and not enough_positions(63, 32, 64)
    assert not enough_positions(31, 32, 0)  # never fewer positions than one batch


def test_the_fetch_is_what_the_ratio_allows_capped_by_batches_per_fetch():
    s = schedule()
    assert s.batches_to_fetch(samples_trained=0, positions_added=100, buffer_size=63) == 0  # window too small
    assert s.batches_to_fetch(samples_trained=0, positions_added=100, buffer_size=100) == 4  # 25 allowed, cap 4
    assert s.batches_to_fetch(samples_trained=704, positions_added=100, buffer_size=100) == 3  # 96 / 32
    assert s.batches_to_fetch(samples_trained=800, positions_added=100, buffer_size=100) == 0


def test_the_buffer_and_the_schedule_agree_on_when_a_batch_may_be_drawn():
    import games
    from selfplay.replay_buffer import ReplayBuffer

    buffer = ReplayBuffer(1000, games.make("tictactoe"), min_positions_to_sample=64)
    s = schedule(batches_per_fetch=10**6)
    for size, positions, trained in ((63, 63, 0), (64, 64, 0), (64, 64, 480), (64, 64, 481), (100, 100, 800)):
        buffer._train.stored, buffer._train.positions_added = size, positions
        assert buffer.can_sample(trained, 32, 8.0) == (s.batches_to_fetch(trained, positions, size) >= 1)


def test_after_each_step_gating_runs_decide_gate_and_checkpoint():
    s = schedule()
    assert s.after_step(5, gate_in_flight=False) == StepActions(publish=False, gate=False, checkpoint=False)
    assert s.after_step(10, gate_in_flight=False) == StepActions(publish=False, gate=True, checkpoint=True)
    assert s.after_step(10, gate_in_flight=True) == StepActions(publish=False, gate=False, checkpoint=True)
    ungated = schedule(gating=False)
    assert ungated.after_step(5, gate_in_flight=False) == StepActions(publish=True, gate=False, checkpoint=False)
    assert ungated.after_step(10, gate_in_flight=False) == StepActions(publish=True, gate=False, checkpoint=True)
    assert [step for step in range(1, 21) if ungated.after_step(step, False).publish] == [5, 10, 15, 20]


def test_checkpoints_by_the_clock_by_steps_or_whichever_comes_first():
    five_minutes = 300.0
    # by the clock alone (the default): due once 300 s passed since the last checkpoint, at any step
    assert [checkpoint_due(step, seconds, None, five_minutes) for step, seconds in
            ((500, 299.9), (1, 300.0), (7, 301.5), (1000, 0.0))] == [False, True, True, False]
    # by steps alone: multiples of the interval, whatever the time
    assert [step for step in range(1, 31) if checkpoint_due(step, 10**6, 10, None)] == [10, 20, 30]
    # both: whichever comes first
    assert checkpoint_due(10, 5.0, 10, five_minutes) and checkpoint_due(13, 300.0, 10, five_minutes)
    assert not checkpoint_due(13, 299.0, 10, five_minutes)
    assert not checkpoint_due(10, 10**9, None, None)  # neither: never (validate refuses this config)


def test_a_run_of_500_steps_a_minute_writes_one_checkpoint_per_interval_by_default():
    """Steps every 0.12 s (500 steps a minute) for 15 minutes: with a checkpoint every 5 minutes
    (steps not counted) there are 3, at the steps where 300 s have passed since the previous one."""
    s = schedule(checkpoint_every_steps=None, checkpoint_every_seconds=300.0, gating=False)
    last, written = 0.0, []
    for step in range(1, 7501):
        now = step * 0.12
        if s.after_step(step, gate_in_flight=False, seconds_since_checkpoint=now - last).checkpoint:
            written.append(step)
            last = now
    assert written == [2500, 5000, 7500]
    # the same run counted in steps of 500, as before: 15 checkpoints
    by_steps = schedule(checkpoint_every_steps=500, gating=False)
    assert sum(by_steps.after_step(step, False).checkpoint for step in range(1, 7501)) == 15


def test_the_budget_names_what_stopped_the_run():
    s = schedule()
    assert s.stop_reason(19, 179.9) is None
    assert s.stop_reason(20, 0.0) == "max_steps"
    assert s.stop_reason(3, 180.0) == "max_minutes"
    assert schedule(max_steps=None, max_seconds=None).stop_reason(10**9, 1e9) is None


def test_budget_progress_is_the_furthest_of_steps_and_seconds_and_reaches_one_at_the_stop():
    s = schedule()  # 20 steps, 180 s
    assert s.budget_progress(5, 18.0) == pytest.approx(0.25)
    assert s.budget_progress(2, 90.0) == pytest.approx(0.5)
    assert s.budget_progress(20, 0.0) == 1.0 and s.stop_reason(20, 0.0) == "max_steps"
    assert s.budget_progress(3, 400.0) == 1.0
    assert schedule(max_steps=None).budget_progress(10**6, 45.0) == pytest.approx(0.25)
    assert schedule(max_seconds=None).budget_progress(15, 10**6) == pytest.approx(0.75)
    assert schedule(max_steps=None, max_seconds=None).budget_progress(10**6, 1e9) == 0.0


def test_the_schedule_of_a_config_takes_its_settings():
    config = TrainSchema()
    config.run.max_minutes, config.run.max_steps = 2.5, 7
    s = Schedule.from_config(config)
    tr, ar = config.trainer, config.arena
    assert (s.batch_size, s.replay_ratio, s.batches_per_fetch, s.min_replay_positions) == (
        tr.batch_size, tr.replay_ratio, tr.batches_per_fetch, tr.min_replay_positions
    )
    assert (s.publish_every_steps, s.gate_every_steps, s.checkpoint_every_steps, s.gating) == (
        tr.publish_every_steps, ar.gate_every_steps, tr.checkpoint_every_steps, ar.gating
    )
    assert (s.max_steps, s.max_seconds) == (7, 150.0)
    # the defaults: a checkpoint every 5 minutes of wall clock, none counted in steps
    assert (tr.checkpoint_every_minutes, tr.checkpoint_every_steps) == (5.0, None)
    assert (s.checkpoint_every_seconds, s.checkpoint_every_steps) == (300.0, None)
    config.trainer.checkpoint_every_minutes, config.trainer.checkpoint_every_steps = None, 40
    assert (Schedule.from_config(config).checkpoint_every_seconds, Schedule.from_config(config).checkpoint_every_steps) == (None, 40)


def test_counters_add_selfplay_results_and_round_trip_through_a_dict():
    counters = RunCounters()
    stats = SimpleNamespace(games=3, positions=27, moves=30, leaf_evaluations=240, simulations=256,
                            wins_first_player=2, wins_second_player=0, draws=1)
    counters.add_selfplay(stats)
    counters.add_selfplay(stats)
    assert (counters.games, counters.positions, counters.moves, counters.finished_games) == (6, 54, 60, 6)
    assert RunCounters.from_dict(counters.to_dict()) == counters
    assert RunCounters.from_dict({"games": 4}).games == 4  # an older checkpoint lacks keys
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['no_such'\]"):
        RunCounters.from_dict({"no_such": 1})


def test_each_fault_fires_once_and_gating_only_with_a_match_in_flight():
    plan = FaultPlan(parse_faults("kill_selfplay_actor_at_step:2,kill_gating_actor_at_step:3"))
    assert plan.due(1, gate_in_flight=True) == []
    assert plan.due(3, gate_in_flight=False) == ["selfplay"]
    assert plan.due(4, gate_in_flight=False) == []
    assert plan.due(5, gate_in_flight=True) == ["gating"]
    assert not plan and plan.due(6, True) == []
    assert not FaultPlan.from_env({})
    with pytest.raises(ValueError, match="expected kill_<role>_actor_at_step"):
        parse_faults("kill_learner_actor_at_step:1")


def test_held_out_games_give_validation_losses_without_training():
    """The replay validation split is reachable: ``trainer.validation_every`` -> the buffer service ->
    ``Learner.evaluate_losses``; the held-out games are never sampled for training."""
    import numpy as np
    import torch

    import games
    from mcts import PUCTConfig, uniform_evaluator
    from networks import NetworkConfig, build_network
    from selfplay.buffer_service import ReplayBufferService
    from selfplay.runner import SelfPlayRunner
    from trainer.learner import Learner, LearnerConfig

    game = games.make("tictactoe")
    runner = SelfPlayRunner(game, uniform_evaluator, PUCTConfig(num_simulations=4), num_games=8,
                            rng=np.random.default_rng(0))
    records, _ = runner.play_moves(9)
    assert sorted(r.game_id for r in records) == list(range(8))
    service = ReplayBufferService("tictactoe", 1000, 1, seed=0, validation_every=4)
    assert service.validation_batch(8) is None  # nothing held out yet
    assert service.add_games(records) == 8
    held_out = {0, 4}
    assert set(service.buffer.validation_game_ids().tolist()) == held_out
    assert set(service.buffer.game_ids_in_window().tolist()) == set(range(8)) - held_out
    batch = service.validation_batch(16)
    assert set(batch.game_ids.tolist()) <= held_out
    torch.manual_seed(0)
    model = build_network(NetworkConfig(kind="mlp", mlp_hidden=(16,), value_hidden=8), game.observation_shape,
                          game.num_actions)
    learner = Learner(model, LearnerConfig(device="cpu"))
    before = {k: v.clone() for k, v in model.state_dict().items()}
    losses = learner.evaluate_losses(batch)
    assert all(torch.equal(before[k], v) for k, v in model.state_dict().items()) and learner.steps == 0
    trained = learner.train_step(batch)  # the same forward pass (an MLP has no BatchNorm)
    assert losses["policy_loss"] == pytest.approx(trained["policy_loss"], rel=1e-5)
    assert losses["value_loss"] == pytest.approx(trained["value_loss"], rel=1e-5)
