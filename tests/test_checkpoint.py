"""Training checkpoints: atomic writes, optimiser and schedule resume, load errors,
plain contents, resume equivalence (learner half), buffer restore, no NaN saved."""

from __future__ import annotations

import dataclasses
import math
import os
import pickle
import struct
import warnings
import zipfile
from pathlib import Path

import numpy as np
import pytest
import torch
from test_replay_buffer import random_record

import games
from networks import NetworkConfig, build_network
from networks.checkpoint import load_model
from selfplay.buffer_file import verify_buffer_file
from selfplay.replay_buffer import ReplayBuffer
from trainer.checkpoint import (
    Checkpoint,
    capture_rng_states,
    check_compatible,
    checkpoint_file,
    checkpoint_folder,
    latest_checkpoint_path,
    list_checkpoints,
    load_checkpoint,
    load_latest_checkpoint,
    restore_checkpoint,
    restore_rng_states,
    save_checkpoint,
)
from trainer.learner import Learner, LearnerConfig

TICTACTOE = games.make("tictactoe")
CONNECT4 = games.make("connect4")
MLP_CONFIG = NetworkConfig(kind="mlp", mlp_hidden=(32,), value_hidden=16)
BATCH = 16


pytestmark = pytest.mark.usefixtures("one_torch_thread")


#: 40 distinct 5-position tic-tac-toe games, reused under new game ids (fast to build)
_TEMPLATES = [random_record(TICTACTOE, np.random.default_rng(i), i, max_plies=5) for i in range(40)]


def record(game_id: int):
    return dataclasses.replace(_TEMPLATES[game_id % len(_TEMPLATES)], game_id=game_id)


class Run:
    """The learner half of a training run: model, learner, buffer and two seeded generators."""

    def __init__(
        self,
        seed: int = 0,
        config: NetworkConfig = MLP_CONFIG,
        game=TICTACTOE,
        capacity: int = 400,
        optimizer: str = "adamw",
    ):
        torch.manual_seed(seed)
        self.model = build_network(config, game.observation_shape, game.num_actions)
        self.learner = Learner(
            self.model,
            LearnerConfig(optimizer=optimizer,
            learning_rate=1e-2,
            weight_decay=1e-4,
            lr_schedule="cosine",
            lr_schedule_samples=200 * BATCH,
            device="cpu"),
        )
        self.buffer = ReplayBuffer(capacity, game, seed=seed)
        self.generators = {
            "sample": np.random.default_rng(seed + 1),
            "selfplay": np.random.default_rng(seed + 2),
        }
        self.next_game_id = 0
        self.metrics: list[dict] = []

    def add_games(self, count: int) -> None:
        for _ in range(count):
            self.buffer.add_game(record(self.next_game_id))
            self.next_game_id += 1

    def train(self, steps: int) -> None:
        for _ in range(steps):
            # "self-play" adds a game now and then, chosen by its own generator
            if self.generators["selfplay"].random() < 0.3:
                self.add_games(1)
            self.metrics.append(self.learner.train_step(self.buffer.sample(BATCH, self.generators["sample"])))

    def save(self, run_dir, keep_last: int = 3):
        return save_checkpoint(
            run_dir,
            self.learner.steps,
            self.learner,
            self.buffer,
            capture_rng_states(self.generators),
            {"games": self.buffer.games_added, "next_game_id": self.next_game_id},
            {"trainer": {"batch_size": BATCH}, "game": "tictactoe"},
            "test-version",
            keep_last=keep_last,
        )

    def restore(self, run_dir) -> Checkpoint:
        checkpoint = load_latest_checkpoint(run_dir)
        restore_checkpoint(checkpoint, self.learner, self.buffer, self.generators)
        self.next_game_id = int(checkpoint.counters["next_game_id"])
        return checkpoint


def started_run(seed: int = 0, steps: int = 0, **kwargs) -> Run:
    run = Run(seed, **kwargs)
    run.add_games(10)
    run.train(steps)
    return run


def checkpoints_at_steps_2_and_4(folder: Path) -> Path:
    """A run's checkpoints after steps 2 and 4 in ``folder``; returns the newest one's path."""
    run = started_run(steps=2)
    run.save(folder)
    run.train(2)
    return run.save(folder)


def _walk(value, where="payload"):
    """Yield (path, type) of every leaf."""
    if isinstance(value, dict):
        for key, item in value.items():
            assert isinstance(key, (str, int)), f"{where}: key {key!r}"
            yield from _walk(item, f"{where}[{key!r}]")
    elif isinstance(value, (list, tuple)):
        for i, item in enumerate(value):
            yield from _walk(item, f"{where}[{i}]")
    else:
        yield where, type(value)


# ------------------------------------------------------------------------- plain contents and layout
def test_checkpoint_holds_only_tensors_and_plain_types(tmp_path):
    run = started_run(steps=5)
    path = run.save(tmp_path)
    assert path == tmp_path / "checkpoints" / "ckpt_00000005.pt"
    assert (tmp_path / "checkpoints" / "buffer_00000005.npz").is_file()
    assert (tmp_path / "checkpoints" / "latest").read_text() == "ckpt_00000005.pt\n"
    payload = torch.load(path, weights_only=True, map_location="cpu")
    allowed = (torch.Tensor, int, float, str, bool, type(None))
    leaves = list(_walk(payload))
    assert leaves and all(issubclass(kind, allowed) for _, kind in leaves), [
        x for x in leaves if not issubclass(x[1], allowed)
    ]
    assert payload["step"] == 5 and payload["code_version"] == "test-version"
    assert payload["game"] == {"name": "tictactoe", "version": TICTACTOE.version}
    assert payload["learner"]["counters"]["steps"] == 5
    assert payload["rng_states"]["numpy"]["sample"]["bit_generator"] == "PCG64"
    assert isinstance(payload["rng_states"]["torch"], torch.Tensor)
    # the model inside is a networks weights file too (export-model / play can read it)
    model, metadata = load_model(path, expected_game=TICTACTOE)
    assert metadata.config == MLP_CONFIG and metadata.extra == {"step": 5}
    for name, tensor in model.state_dict().items():
        assert torch.equal(tensor, run.model.state_dict()[name])


def test_keeps_the_last_k_and_prunes_their_buffers(tmp_path):
    run = started_run()
    for _ in range(5):
        run.train(2)
        run.save(tmp_path, keep_last=2)
    names = sorted(p.name for p in checkpoint_folder(tmp_path).iterdir())
    assert names == [
        "buffer_00000008.npz",
        "buffer_00000010.npz",
        "ckpt_00000008.pt",
        "ckpt_00000010.pt",
        "latest",
    ]
    assert [p.name for p in list_checkpoints(tmp_path)] == ["ckpt_00000008.pt", "ckpt_00000010.pt"]


# ------------------------------------------------------------------------- load errors
def test_save_perturb_load_restores_every_parameter(tmp_path):
    run = started_run(steps=3)
    saved = {name: tensor.clone() for name, tensor in run.model.state_dict().items()}
    run.save(tmp_path)
    with torch.no_grad():
        for parameter in run.model.parameters():
            parameter.add_(1.0)
    run.restore(tmp_path)
    for name, tensor in run.model.state_dict().items():
        assert torch.equal(tensor, saved[name]), name


def test_missing_files_raise_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="checkpoint file not found"):
        load_checkpoint(tmp_path / "checkpoints" / "ckpt_00000001.pt")
    with pytest.raises(FileNotFoundError, match="no checkpoint in"):
        load_latest_checkpoint(tmp_path)


def test_another_game_is_refused_naming_both(tmp_path):
    run = started_run(steps=1)
    run.save(tmp_path)
    other = Run(game=CONNECT4)
    checkpoint = load_latest_checkpoint(tmp_path)
    before = other.learner.weights_hash()
    with pytest.raises(ValueError, match="checkpoint is for game 'tictactoe', this run plays 'connect4'"):
        restore_checkpoint(checkpoint, other.learner, other.buffer, other.generators)
    assert other.learner.weights_hash() == before and other.buffer.games_added == 0


def test_another_network_shape_is_refused_naming_both(tmp_path):
    run = started_run(steps=1)
    run.save(tmp_path)
    wider = NetworkConfig(kind="mlp", mlp_hidden=(64,), value_hidden=16)
    other = Run(config=wider)
    checkpoint = load_latest_checkpoint(tmp_path)
    with pytest.raises(
        ValueError, match=r"network is mlp32x1 .* this run builds mlp64x1 .*cannot change on resume"
    ):
        restore_checkpoint(checkpoint, other.learner, other.buffer, other.generators)
    with pytest.raises(ValueError, match="network is mlp32x1"):
        check_compatible(checkpoint, TICTACTOE, wider)
    check_compatible(checkpoint, TICTACTOE, MLP_CONFIG)  # the matching one passes
    # the learner's own key/shape check names the parameter when configs are not compared
    with pytest.raises(
        ValueError, match=r"model\['trunk.1.weight'\] has shape \[32, 18\], this network expects \[64, 18\]"
    ):
        restore_checkpoint(checkpoint, other.learner, None, None, game=TICTACTOE, network_config=MLP_CONFIG)


def test_missing_and_extra_keys_are_named(tmp_path):
    run = started_run(steps=1)
    path = run.save(tmp_path)
    payload = torch.load(path, weights_only=True, map_location="cpu")
    broken = tmp_path / "broken.pt"
    del payload["counters"]
    payload["surprise"] = 1
    torch.save(payload, broken)
    with pytest.raises(ValueError, match=r"missing keys \['counters'\], unexpected keys \['surprise'\]"):
        load_checkpoint(broken)


class _Exploit:
    def __init__(self, marker):
        self.marker = marker

    def __reduce__(self):
        return (os.system, (f"touch {self.marker}",))


@pytest.mark.parametrize("kind", ["truncated", "random bytes", "crafted pickle", "another format"])
def test_bad_files_give_a_clear_error_and_run_nothing(tmp_path, kind):
    run = started_run(steps=1)
    good = run.save(tmp_path)
    bad = tmp_path / "bad.pt"
    marker = tmp_path / "pwned"
    if kind == "truncated":
        bad.write_bytes(good.read_bytes()[: good.stat().st_size // 2])
    elif kind == "random bytes":
        bad.write_bytes(np.random.default_rng(0).integers(0, 256, 4096, dtype=np.uint8).tobytes())
    elif kind == "crafted pickle":
        with open(bad, "wb") as handle:
            pickle.dump({"format": "tabula-rasa-checkpoint", "x": _Exploit(marker)}, handle, protocol=2)
        torch.save({"format": "tabula-rasa-checkpoint", "x": _Exploit(marker)}, tmp_path / "bad2.pt")
    else:
        torch.save({"format": "something-else"}, bad)
    message = "expected format" if kind == "another format" else "cannot read checkpoint"
    with pytest.raises(ValueError, match=message):
        load_checkpoint(bad)
    if kind == "crafted pickle":
        with pytest.raises(ValueError, match="cannot read checkpoint"):
            load_checkpoint(tmp_path / "bad2.pt")
    assert not marker.exists()


def test_corrupt_newest_falls_back_to_the_previous_with_a_warning(tmp_path):
    newest = checkpoints_at_steps_2_and_4(tmp_path)
    newest.write_bytes(newest.read_bytes()[:1000])
    with pytest.warns(UserWarning, match="skipping unreadable checkpoint .*ckpt_00000004.pt"):
        checkpoint = load_latest_checkpoint(tmp_path)
    assert checkpoint.step == 2


def test_missing_buffer_file_falls_back(tmp_path):
    run = started_run(steps=2)
    run.save(tmp_path)
    run.train(1)
    run.save(tmp_path)
    (checkpoint_folder(tmp_path) / "buffer_00000003.npz").unlink()
    with pytest.warns(UserWarning, match="replay buffer file buffer_00000003.npz is missing"):
        assert load_latest_checkpoint(tmp_path).step == 2


def damage_entry(path, entry: str) -> None:
    """Flip one byte in the middle of a zip entry's data (the zip directory stays intact)."""
    with zipfile.ZipFile(path) as archive:
        info = archive.getinfo(entry)
    data = bytearray(path.read_bytes())
    offset = info.header_offset
    name_length, extra_length = struct.unpack("<HH", bytes(data[offset + 26 : offset + 30]))
    target = offset + 30 + name_length + extra_length + info.compress_size // 2
    data[target] ^= 0xFF
    path.write_bytes(bytes(data))


def test_a_damaged_buffer_entry_makes_the_checkpoint_fall_back_to_the_previous_one(tmp_path):
    run = started_run(steps=2)
    run.save(tmp_path)
    games_at_step_2 = run.buffer.games_added
    run.train(1)
    run.save(tmp_path)
    newest_buffer = checkpoint_folder(tmp_path) / "buffer_00000003.npz"
    damage_entry(newest_buffer, "train/observations.npy")
    with zipfile.ZipFile(newest_buffer) as archive:  # the directory alone still reads
        assert "train/observations.npy" in archive.namelist()
    with pytest.raises(ValueError, match=r"entry 'train/observations.npy' is damaged"):
        verify_buffer_file(newest_buffer)
    with pytest.warns(UserWarning, match=r"ckpt_00000003.pt: its replay buffer file buffer_00000003.npz is unreadable"):
        checkpoint = load_latest_checkpoint(tmp_path)
    assert checkpoint.step == 2
    assert checkpoint.buffer_state()["train_games_added"] == games_at_step_2  # the step-2 buffer reads whole


def test_temporary_files_are_ignored_and_cleaned(tmp_path):
    run = started_run(steps=2)
    run.save(tmp_path)
    stale = checkpoint_folder(tmp_path) / ".ckpt_00000099.pt.abc123.tmp"
    stale.write_bytes(b"half a checkpoint")
    assert load_latest_checkpoint(tmp_path).step == 2
    run.train(1)
    run.save(tmp_path)
    assert not stale.exists()


def test_resuming_from_an_older_checkpoint_drops_the_unreadable_newer_one(tmp_path):
    newest = checkpoints_at_steps_2_and_4(tmp_path)
    newest.write_bytes(b"not a checkpoint")
    resumed = Run()
    with pytest.warns(UserWarning, match="ckpt_00000004.pt"):
        assert resumed.restore(tmp_path).step == 2
    resumed.train(1)
    resumed.save(tmp_path)
    assert [p.name for p in list_checkpoints(tmp_path)] == ["ckpt_00000002.pt", "ckpt_00000003.pt"]
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert load_latest_checkpoint(tmp_path).step == 3


# ------------------------------------------------------------------------- atomic writes
@pytest.mark.parametrize("interruption", [RuntimeError("disk on fire"), KeyboardInterrupt()])
def test_failure_halfway_through_writing_leaves_the_previous_checkpoint(
    tmp_path, monkeypatch, interruption
):
    run = started_run(steps=20)
    previous = run.save(tmp_path)
    previous_bytes = previous.read_bytes()
    run.train(5)
    real_save = torch.save

    def torn_save(obj, handle, *args, **kwargs):
        real_save(obj, handle, *args, **kwargs)
        handle.truncate(handle.tell() // 2)  # half the file is on disk, then the failure
        raise interruption

    monkeypatch.setattr(torch, "save", torn_save)
    with pytest.raises(type(interruption)):
        run.save(tmp_path)
    monkeypatch.setattr(torch, "save", real_save)
    folder = checkpoint_folder(tmp_path)
    assert previous.read_bytes() == previous_bytes
    assert not checkpoint_file(tmp_path, 25).exists()
    assert not list(folder.glob(".*.tmp"))
    assert (folder / "latest").read_text() == "ckpt_00000020.pt\n"
    # resume picks the previous step, never 0
    fresh = Run()
    checkpoint = fresh.restore(tmp_path)
    assert checkpoint.step == 20 and fresh.learner.steps == 20
    # a later successful save removes the orphaned buffer file of the failed one
    fresh.train(1)
    fresh.save(tmp_path)
    assert not (folder / "buffer_00000025.npz").exists()


# ------------------------------------------------------------------------- optimiser and schedule resume
def test_adam_state_and_schedule_continue(tmp_path):
    run = started_run(steps=20)
    run.save(tmp_path)
    expected_lr = run.learner.learning_rate
    fresh = Run(seed=7)
    fresh.restore(tmp_path)
    state = fresh.learner.optimizer.state_dict()["state"]
    assert state and all(int(entry["step"]) == 20 for entry in state.values())
    assert all(
        float(entry["exp_avg"].abs().sum()) > 0 and float(entry["exp_avg_sq"].abs().sum()) > 0
        for entry in state.values()
    )
    assert fresh.learner.samples_trained == 20 * BATCH
    assert fresh.learner.learning_rate == pytest.approx(expected_lr)
    assert expected_lr < 1e-2  # the cosine schedule has moved
    metrics = fresh.learner.train_step(fresh.buffer.sample(BATCH, fresh.generators["sample"]))
    assert metrics["learning_rate"] == pytest.approx(expected_lr)
    assert all(int(entry["step"]) == 21 for entry in fresh.learner.optimizer.state_dict()["state"].values())
    # and the schedule goes on exactly as in the uninterrupted run
    run.train(1)
    assert run.metrics[-1]["learning_rate"] == metrics["learning_rate"]


# ------------------------------------------------------------------------- resume equivalence (learner half)
def test_50_steps_checkpoint_resume_50_steps_equal_100_steps(tmp_path):
    straight = started_run(steps=100)

    first = started_run(steps=50)
    first.save(tmp_path)
    resumed = Run(seed=123)  # fresh objects, other seeds: everything must come from the checkpoint
    checkpoint = resumed.restore(tmp_path)
    assert checkpoint.step == 50 and resumed.learner.steps == 50
    resumed.train(50)

    assert resumed.learner.steps == straight.learner.steps == 100
    assert resumed.learner.samples_trained == straight.learner.samples_trained
    assert resumed.learner.learning_rate == straight.learner.learning_rate
    assert [m["learning_rate"] for m in resumed.metrics] == [
        m["learning_rate"] for m in straight.metrics[50:]
    ]
    assert resumed.buffer.games_added == straight.buffer.games_added
    for key, value in straight.buffer.state_dict().items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(resumed.buffer.state_dict()[key], value)
    for name in ("sample", "selfplay"):
        assert resumed.generators[name].integers(0, 2**62) == straight.generators[name].integers(0, 2**62)
    for name, tensor in straight.model.state_dict().items():
        torch.testing.assert_close(resumed.model.state_dict()[name], tensor, rtol=1e-5, atol=1e-6)
    np.testing.assert_allclose(
        [m["total_loss"] for m in resumed.metrics],
        [m["total_loss"] for m in straight.metrics[50:]],
        rtol=1e-4,
    )


def test_torch_rng_state_round_trip():
    generators = {"a": np.random.default_rng(5)}
    states = capture_rng_states(generators)
    expected_numpy = generators["a"].random(3)
    expected_torch = torch.rand(3)
    restore_rng_states(states, generators)
    np.testing.assert_array_equal(generators["a"].random(3), expected_numpy)
    assert torch.equal(torch.rand(3), expected_torch)
    with pytest.raises(ValueError, match="no saved state for generator 'b'"):
        restore_rng_states(states, {"b": np.random.default_rng(0)})
    with pytest.raises(ValueError, match="saved for 'PCG64', generator is 'MT19937'"):
        restore_rng_states(states, {"a": np.random.Generator(np.random.MT19937(0))})
    with pytest.raises(ValueError, match="generators: expected str names"):
        capture_rng_states({"a": np.random.RandomState(0)})


# ------------------------------------------------------------------------- buffer restore
def test_buffer_of_1000_games_resumes_without_regenerating(tmp_path):
    run = Run(capacity=1000 * 5)  # every game here has 5 positions: 1000 games-worth
    run.add_games(1100)
    run.train(3)
    assert run.buffer.games_added == 1100 + (run.next_game_id - 1100)
    games_added = run.buffer.games_added
    run.save(tmp_path)

    resumed = Run(capacity=1000 * 5)
    resumed.restore(tmp_path)
    assert resumed.buffer.games_added == games_added >= 1100
    assert resumed.buffer.size == 5000
    window = resumed.buffer.game_ids_in_window()
    np.testing.assert_array_equal(window, np.arange(games_added - 1000, games_added))
    for key, value in run.buffer.state_dict().items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(resumed.buffer.state_dict()[key], value)
    # training resumes at once, no new game needed
    assert resumed.buffer.can_sample(resumed.learner.samples_trained, BATCH)
    assert (
        resumed.learner.train_step(resumed.buffer.sample(BATCH, resumed.generators["sample"]))["skipped"]
        is False
    )
    assert resumed.buffer.games_added == games_added


# ------------------------------------------------------------------------- no NaN saved
def test_non_finite_weights_are_never_saved(tmp_path):
    run = started_run(steps=2)
    run.save(tmp_path)
    with torch.no_grad():
        next(run.model.parameters()).view(-1)[0] = math.nan
    with pytest.raises(ValueError, match="refusing to save non-finite weights"):
        run.save(tmp_path)
    assert sorted(p.name for p in checkpoint_folder(tmp_path).iterdir()) == [
        "buffer_00000002.npz",
        "ckpt_00000002.pt",
        "latest",
    ]


def test_save_argument_validation(tmp_path):
    run = started_run(steps=1)
    arguments = (run.learner, run.buffer, capture_rng_states(), {}, {}, "v")
    with pytest.raises(ValueError, match="step: expected an int >= 0, got -1"):
        save_checkpoint(tmp_path, -1, *arguments)
    with pytest.raises(ValueError, match="keep_last: expected an int >= 1, got 0"):
        save_checkpoint(tmp_path, 1, *arguments, keep_last=0)
    with pytest.raises(ValueError, match=r"counters\['when'\]: expected only None, bool"):
        save_checkpoint(
            tmp_path, 1, run.learner, run.buffer, capture_rng_states(), {"when": object()}, {}, "v"
        )
    with pytest.raises(ValueError, match="game: expected a games.Game"):
        save_checkpoint(tmp_path, 1, run.learner, None, capture_rng_states(), {}, {}, "v")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        path = save_checkpoint(
            tmp_path, 1, run.learner, None, capture_rng_states(), {}, {}, "v", game=TICTACTOE
        )
    assert load_checkpoint(path).buffer_path is None


def test_extra_and_a_buffer_state_from_an_actor(tmp_path):
    run = started_run(steps=2)
    assert latest_checkpoint_path(tmp_path) is None
    best = run.learner.snapshot()
    path = save_checkpoint(
        tmp_path,
        2,
        run.learner,
        run.buffer.state_dict(),
        None,
        {"games": 10},
        {},
        "v",
        extra={"best_weights": best, "last_gate": "accepted 0.6"},
        game=TICTACTOE,
    )
    assert latest_checkpoint_path(tmp_path) == path
    checkpoint = load_latest_checkpoint(tmp_path)
    assert checkpoint.extra["last_gate"] == "accepted 0.6"
    for name, tensor in best.items():
        assert torch.equal(checkpoint.extra["best_weights"][name], tensor)
    state = checkpoint.buffer_state()
    for key, value in run.buffer.state_dict().items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(state[key], value)
        else:
            assert state[key] == value, key
    with pytest.raises(ValueError, match="expected a replay buffer state dict"):
        save_checkpoint(tmp_path, 3, run.learner, {"not": "a buffer"}, None, {}, {}, "v", game=TICTACTOE)
