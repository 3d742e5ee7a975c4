"""Learner: optimiser step, schedules counted in samples, non-finite guard, weights hash."""

from __future__ import annotations

import math

import numpy as np
import pytest
import torch
from test_replay_buffer import random_record

import games
from networks import NetworkConfig, build_network
from selfplay.replay_buffer import ReplayBuffer
from trainer.learner import Learner, LearnerConfig, learning_rate_at, weights_hash

TICTACTOE = games.make("tictactoe")
MLP_CONFIG = NetworkConfig(kind="mlp", mlp_hidden=(32,), value_hidden=16)
RESNET_CONFIG = NetworkConfig(kind="resnet", num_blocks=1, channels=8, value_hidden=16)


pytestmark = pytest.mark.usefixtures("one_torch_thread")


def make_model(config: NetworkConfig = MLP_CONFIG, seed: int = 0) -> torch.nn.Module:
    torch.manual_seed(seed)
    return build_network(config, TICTACTOE.observation_shape, TICTACTOE.num_actions)


def make_buffer(num_games: int = 30, seed: int = 0) -> ReplayBuffer:
    buffer = ReplayBuffer(2000, TICTACTOE, seed=seed)
    rng = np.random.default_rng(seed)
    for game_id in range(num_games):
        buffer.add_game(random_record(TICTACTOE, rng, game_id))
    return buffer


def poisoned(batch, field: str = "values"):
    array = getattr(batch, field).copy()
    array[0] = np.nan
    return {
        **{name: getattr(batch, name) for name in ("observations", "legal_masks", "policies", "values")},
        field: array,
    }


def test_train_step_fits_a_fixed_batch_and_counts_samples():
    buffer = make_buffer()
    batch = buffer.sample(32, np.random.default_rng(0))
    learner = Learner(make_model(), LearnerConfig(optimizer="adamw", learning_rate=1e-2, weight_decay=0.0, device="cpu"))
    first = learner.train_step(batch)
    for _ in range(59):
        last = learner.train_step(batch)
    assert set(first) == {
        "policy_loss",
        "value_loss",
        "total_loss",
        "policy_entropy",
        "grad_norm",
        "learning_rate",
        "skipped",
        "num_skipped",
        "steps",
        "samples_trained",
    }
    assert first["skipped"] is False and first["steps"] == 1 and first["samples_trained"] == 32
    assert last["steps"] == 60 and last["samples_trained"] == 60 * 32
    assert learner.steps == 60 and learner.samples_trained == 1920
    assert last["value_loss"] < 0.5 * first["value_loss"]
    assert last["policy_loss"] < first["policy_loss"] - 0.1
    assert first["total_loss"] == pytest.approx(first["policy_loss"] + first["value_loss"], rel=1e-6)
    assert 0 < first["policy_entropy"] <= math.log(9)
    assert first["grad_norm"] > 0
    assert all(isinstance(value, (bool, int, float)) for value in last.values())


def test_learning_rate_schedules_known_values():
    assert learning_rate_at(123, 0.1) == 0.1
    assert learning_rate_at(0, 0.1, "cosine", 1000) == pytest.approx(0.1)
    assert learning_rate_at(500, 0.1, "cosine", 1000) == pytest.approx(0.05)
    assert learning_rate_at(500, 0.1, "cosine", 1000, lr_min_ratio=0.1) == pytest.approx(0.055)
    assert learning_rate_at(5000, 0.1, "cosine", 1000, lr_min_ratio=0.1) == pytest.approx(0.01)
    assert learning_rate_at(999, 0.1, "step", 1000) == pytest.approx(0.1)
    assert learning_rate_at(1000, 0.1, "step", 1000) == pytest.approx(0.01)
    assert learning_rate_at(2500, 0.1, "step", 1000, lr_step_gamma=0.5) == pytest.approx(0.025)
    assert learning_rate_at(49, 0.1, lr_warmup_samples=100) == pytest.approx(0.05)
    with pytest.raises(ValueError, match="lr_schedule: expected one of"):
        learning_rate_at(0, 0.1, "linear")
    with pytest.raises(
        ValueError, match="lr_schedule_samples: expected an int >= 1 for the 'cosine' schedule"
    ):
        learning_rate_at(0, 0.1, "cosine")


def test_wsd_holds_the_rate_then_falls_linearly_to_the_floor_at_the_end_of_the_budget():
    # warmup-stable-decay (Hu et al. 2024, sec. 4.1): lr0 until 1 - f of the budget, then linear
    assert learning_rate_at(10**6, 0.1, "wsd", budget_progress=0.8) == pytest.approx(0.1)
    assert learning_rate_at(0, 0.1, "wsd", budget_progress=0.9) == pytest.approx(0.05)
    assert learning_rate_at(0, 0.1, "wsd", budget_progress=1.0) == pytest.approx(0.0)
    assert learning_rate_at(0, 0.1, "wsd", lr_decay_fraction=0.25, budget_progress=0.875) == pytest.approx(0.05)
    assert learning_rate_at(0, 0.1, "wsd", lr_min_ratio=0.1, budget_progress=1.0) == pytest.approx(0.01)
    assert learning_rate_at(0, 0.1, "wsd", lr_min_ratio=0.1, budget_progress=0.9) == pytest.approx(0.055)
    assert learning_rate_at(49, 0.1, "wsd", lr_warmup_samples=100, budget_progress=0.9) == pytest.approx(0.025)
    # the other schedules ignore the budget
    assert learning_rate_at(500, 0.1, "cosine", 1000, budget_progress=1.0) == pytest.approx(0.05)
    with pytest.raises(ValueError, match=r"budget_progress: expected a number in \[0, 1\], got 1.5"):
        learning_rate_at(0, 0.1, "wsd", budget_progress=1.5)
    with pytest.raises(ValueError, match=r"lr_decay_fraction: expected a number in \(0, 1\], got 0"):
        learning_rate_at(0, 0.1, "wsd", lr_decay_fraction=0)


def test_the_learner_steps_at_the_wsd_rate_of_the_budget_progress_it_is_given():
    buffer = make_buffer()
    learner = Learner(make_model(), LearnerConfig(optimizer="sgd", learning_rate=0.1, lr_schedule="wsd", device="cpu"))
    rng = np.random.default_rng(0)
    assert learner.train_step(buffer.sample(8, rng))["learning_rate"] == pytest.approx(0.1)
    learner.budget_progress = 0.95
    assert learner.train_step(buffer.sample(8, rng))["learning_rate"] == pytest.approx(0.025)
    assert learner.optimizer.param_groups[0]["lr"] == pytest.approx(0.025)
    with pytest.raises(ValueError, match=r"budget_progress: expected in \[0.0, 1.0\], got -0.1"):
        learner.budget_progress = -0.1


def test_schedule_counts_samples_not_steps():
    buffer = make_buffer()
    learner = Learner(
        make_model(),
        LearnerConfig(optimizer="sgd",
        learning_rate=0.1,
        lr_schedule="cosine",
        lr_schedule_samples=80,
        device="cpu"),
    )
    rng = np.random.default_rng(0)
    rates = [learner.train_step(buffer.sample(8, rng))["learning_rate"] for _ in range(10)]
    assert rates[0] == pytest.approx(0.1)
    assert rates[5] == pytest.approx(0.05)  # 40 samples of 80
    assert learner.learning_rate == pytest.approx(0.0)
    assert learner.optimizer.param_groups[0]["lr"] == pytest.approx(rates[-1])


def test_gradient_clipping_bounds_the_update():
    buffer = make_buffer()
    batch = buffer.sample(32, np.random.default_rng(1))
    learner = Learner(
        make_model(),
        LearnerConfig(optimizer="sgd",
        learning_rate=1.0,
        momentum=0.0,
        weight_decay=0.0,
        grad_clip=1e-3,
        device="cpu"),
    )
    before = torch.cat([p.detach().flatten().clone() for p in learner.model.parameters()])
    metrics = learner.train_step(batch)
    after = torch.cat([p.detach().flatten() for p in learner.model.parameters()])
    assert metrics["grad_norm"] > 1e-3  # reported before clipping
    assert torch.linalg.norm(after - before).item() == pytest.approx(1e-3, rel=1e-3)


# ------------------------------------------------------------------------- non-finite batches
@pytest.mark.parametrize("field", ["values", "policies", "observations"])
def test_nan_batch_is_skipped_and_weights_stay_finite(field):
    buffer = make_buffer()
    rng = np.random.default_rng(0)
    learner = Learner(make_model(RESNET_CONFIG), LearnerConfig(optimizer="sgd", learning_rate=0.05, device="cpu"))
    learner.train_step(buffer.sample(16, rng))
    hash_before = learner.weights_hash()
    metrics = learner.train_step(poisoned(buffer.sample(16, rng), field))
    assert metrics["skipped"] is True
    assert metrics["num_skipped"] == 1 and learner.num_skipped == 1
    assert not math.isfinite(metrics["total_loss"])
    assert metrics["steps"] == 1 and metrics["samples_trained"] == 16
    # no step taken and BatchNorm running statistics restored: bitwise the same weights
    assert learner.weights_hash() == hash_before
    assert learner.weights_finite()
    good = learner.train_step(buffer.sample(16, rng))
    assert good["skipped"] is False and good["steps"] == 2 and learner.consecutive_skips == 0
    assert learner.weights_finite()


def test_non_finite_gradient_is_skipped():
    buffer = make_buffer()
    learner = Learner(make_model(), LearnerConfig(optimizer="adamw", device="cpu"))
    first_weight = next(learner.model.parameters())
    handle = first_weight.register_hook(lambda grad: grad * float("nan"))
    hash_before = learner.weights_hash()
    metrics = learner.train_step(buffer.sample(16, np.random.default_rng(0)))
    handle.remove()
    assert metrics["skipped"] is True and math.isfinite(metrics["total_loss"])
    assert not math.isfinite(metrics["grad_norm"])
    assert learner.weights_hash() == hash_before
    assert learner.optimizer.state == {} or all(not s for s in learner.optimizer.state.values())


def test_consecutive_skips_raise_a_clear_error():
    buffer = make_buffer()
    learner = Learner(make_model(), LearnerConfig(device="cpu", max_consecutive_skips=3))
    rng = np.random.default_rng(0)
    learner.train_step(poisoned(buffer.sample(8, rng)))
    learner.train_step(poisoned(buffer.sample(8, rng)))
    hash_before = learner.weights_hash()
    with pytest.raises(RuntimeError, match="3 consecutive batches skipped \\(last: non-finite loss"):
        learner.train_step(poisoned(buffer.sample(8, rng)))
    assert learner.weights_hash() == hash_before and learner.weights_finite()


# ------------------------------------------------------------------------- snapshots and hashing
def test_snapshot_is_unchanged_by_a_step():
    buffer = make_buffer()
    learner = Learner(make_model(), LearnerConfig(optimizer="sgd", learning_rate=0.1, device="cpu"))
    best = learner.snapshot()
    best_hash = weights_hash(best)
    assert best_hash == learner.weights_hash()
    learner.train_step(buffer.sample(16, np.random.default_rng(0)))
    assert weights_hash(best) == best_hash
    assert learner.weights_hash() != best_hash


def test_weights_hash_sees_a_single_bit():
    model = make_model()
    original = weights_hash(model)
    assert weights_hash(make_model()) == original  # same seed, same weights
    with torch.no_grad():
        parameter = next(model.parameters())
        parameter.view(-1)[0] = torch.nextafter(parameter.view(-1)[0], torch.tensor(math.inf))
    assert weights_hash(model) != original
    with pytest.raises(ValueError, match="expected a torch.nn.Module or a state dict"):
        weights_hash([1, 2])


# ------------------------------------------------------------------------- state and validation
def test_state_dict_round_trip_and_mismatches():
    buffer = make_buffer()
    rng = np.random.default_rng(0)
    learner = Learner(make_model(), LearnerConfig(optimizer="adamw", device="cpu"))
    for _ in range(3):
        learner.train_step(buffer.sample(8, rng))
    state = learner.state_dict()
    fresh = Learner(make_model(seed=5), LearnerConfig(optimizer="adamw", device="cpu"))
    fresh.load_state_dict(state)
    assert fresh.weights_hash() == learner.weights_hash()
    assert fresh.steps == 3 and fresh.samples_trained == 24
    assert int(fresh.optimizer.state_dict()["state"][0]["step"]) == 3
    with pytest.raises(ValueError, match="optimizer expected 'sgd', got 'adamw'"):
        Learner(make_model(), LearnerConfig(optimizer="sgd", device="cpu")).load_state_dict(state)
    wider = Learner(make_model(NetworkConfig(kind="mlp", mlp_hidden=(64,), value_hidden=16)), LearnerConfig(device="cpu"))
    with pytest.raises(
        ValueError, match=r"model\['trunk.1.weight'\] has shape \[32, 18\], this network expects \[64, 18\]"
    ):
        wider.load_state_dict(state)
    other = Learner(make_model(RESNET_CONFIG), LearnerConfig(device="cpu"))
    with pytest.raises(ValueError, match="model missing keys"):
        other.load_state_dict(state)
    with pytest.raises(ValueError, match=r"missing keys \['counters'\], unexpected keys \['extra'\]"):
        fresh.load_state_dict({**{k: v for k, v in state.items() if k != "counters"}, "extra": 1})


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"optimizer": "adam"}, "optimizer: expected one of \\['adamw', 'sgd'\\], got 'adam'"),
        ({"learning_rate": 0.0}, "learning_rate: expected a finite number > 0, got 0.0"),
        ({"momentum": 1.0}, "momentum: expected in \\[0.0, 1.0\\), got 1.0"),
        ({"lr_schedule_samples": 0}, "lr_schedule_samples: expected an int >= 1, got 0"),
        ({"max_consecutive_skips": 0}, "max_consecutive_skips: expected an int >= 1, got 0"),
        ({"weight_decay": -1.0}, "weight_decay"),
        ({"grad_clip": 0.0}, "grad_clip"),
        ({"lr_schedule": "cosine"}, "lr_schedule_samples"),
        ({"bf16_autocast": True}, "bf16_autocast: only supported on CUDA"),
        ({"device": "tpu"}, "device: expected one of \\['auto', 'cpu', 'cuda'\\] or 'cuda:N', got 'tpu'"),
    ],
)
def test_constructor_validation(kwargs, message):
    if kwargs.get("bf16_autocast") and torch.cuda.is_available():
        pytest.skip("CUDA present: bf16 autocast is allowed")
    with pytest.raises(ValueError, match=message):
        Learner(make_model(), LearnerConfig(**{"device": "cpu", **kwargs}))


def test_the_learner_takes_its_settings_as_one_learner_config():
    with pytest.raises(ValueError, match="config: expected a trainer.learner.LearnerConfig, got dict"):
        Learner(make_model(), {"device": "cpu"})
    learner = Learner(make_model(), LearnerConfig(optimizer="sgd", learning_rate=0.25, lr_warmup_samples=4, device="cpu"))
    assert isinstance(learner.optimizer, torch.optim.SGD)
    assert learner.hyperparameters["learning_rate"] == 0.25
    assert learner.learning_rate == pytest.approx(0.25 / 4)  # warm-up: (0 + 1) / 4 of lr0


def test_batch_validation():
    learner = Learner(make_model(), LearnerConfig(device="cpu"))
    with pytest.raises(ValueError, match="batch: missing field 'values'"):
        learner.train_step(
            {
                "observations": np.zeros((2, 2, 3, 3), np.float32),
                "legal_masks": np.ones((2, 9), bool),
                "policies": np.full((2, 9), 1 / 9, np.float32),
            }
        )
    with pytest.raises(ValueError, match="batch: expected observations"):
        learner.train_step(
            {
                "observations": np.zeros((3, 2, 3, 3), np.float32),
                "legal_masks": np.ones((2, 9), bool),
                "policies": np.full((2, 9), 1 / 9, np.float32),
                "values": np.zeros(2, np.float32),
            }
        )


@pytest.mark.parametrize("config", [RESNET_CONFIG, MLP_CONFIG], ids=["resnet", "mlp"])
def test_channels_last_inputs_give_the_default_layouts_loss_gradient_and_step(config):
    # the CPU learner feeds observations in the channels-last layout (trainer/learner.py, step 2):
    # the same values, so the same loss, gradient and update as a plain forward in the default layout
    import copy

    from trainer.losses import alphazero_loss

    batch = make_buffer().sample(32, np.random.default_rng(1))
    model = make_model(config, seed=3)
    reference = copy.deepcopy(model)
    learner = Learner(model, LearnerConfig(optimizer="sgd", learning_rate=0.05, momentum=0.0, weight_decay=0.0,
                      grad_clip=None, device="cpu"))
    metrics = learner.train_step(batch)

    observations = torch.as_tensor(batch.observations).float()
    assert observations.is_contiguous()  # what the reference sees: the default layout
    logits, value = reference(observations)
    total, parts = alphazero_loss(
        logits, value, torch.as_tensor(batch.policies).float(), torch.as_tensor(batch.values).float(),
        torch.as_tensor(batch.legal_masks).bool(), 1.0, None,
    )
    total.backward()
    grad_norm = torch.linalg.vector_norm(torch.stack([p.grad.norm() for p in reference.parameters()]))
    assert metrics["policy_loss"] == pytest.approx(float(parts["policy_loss"]), rel=1e-5)
    assert metrics["value_loss"] == pytest.approx(float(parts["value_loss"]), rel=1e-5)
    assert metrics["grad_norm"] == pytest.approx(float(grad_norm), rel=1e-4)
    with torch.no_grad():
        for parameter in reference.parameters():
            parameter -= 0.05 * parameter.grad
    for (name, trained), expected in zip(learner.model.named_parameters(), reference.parameters()):
        assert trained.is_contiguous(), name  # the weights keep the default layout
        torch.testing.assert_close(trained, expected, rtol=1e-5, atol=1e-6)
    assert all(tensor.is_contiguous() for tensor in learner.snapshot().values())
