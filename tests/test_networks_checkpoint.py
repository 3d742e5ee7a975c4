"""Model weights files: round trip and named mismatches; plain types only, loaded with weights_only,
bad files (truncated, random bytes, crafted pickles), and atomic writes."""

from __future__ import annotations

import os
import pickle
from dataclasses import dataclass
from pathlib import Path

import numpy as np
import pytest
import torch

from games.atomic import atomic_write, atomic_write_bytes, atomic_write_json
from networks import build_network
from networks.checkpoint import atomic_torch_save, load_model, model_payload, save_model
from networks.config import NetworkConfig

CONNECT4 = ((2, 6, 7), 7)
TICTACTOE = ((2, 3, 3), 9)
CONFIG = NetworkConfig(num_blocks=1, channels=8, value_hidden=8)


@dataclass
class FakeGame:
    name: str = "connect4"
    version: int = 1
    observation_shape: tuple = (2, 6, 7)
    num_actions: int = 7


@pytest.fixture
def saved(tmp_path):
    torch.manual_seed(0)
    model = build_network(CONFIG, *CONNECT4)
    model(torch.randn(8, *CONNECT4[0]))  # non-trivial batch-norm running statistics
    path = save_model(
        tmp_path / "best.pt", model, CONFIG, "connect4", 1, {"step": 1200, "arena": {"elo": 35.5}}
    )
    return path, model


def test_save_perturb_load_restores_every_parameter(saved):
    path, model = saved
    reference = {key: value.clone() for key, value in model.state_dict().items()}
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.add_(1.0)
    loaded, metadata = load_model(path, expected_game=FakeGame())
    for key, value in loaded.state_dict().items():
        assert torch.equal(value, reference[key]), key
    assert not loaded.training
    assert metadata.game_name == "connect4" and metadata.game_version == 1
    assert metadata.observation_shape == (2, 6, 7) and metadata.num_actions == 7
    assert metadata.config == CONFIG
    assert metadata.extra == {"step": 1200, "arena": {"elo": 35.5}}
    assert metadata.path == str(path)


def test_missing_file_raises_file_not_found(tmp_path):
    with pytest.raises(FileNotFoundError, match="model weights file not found"):
        load_model(tmp_path / "nope.pt")
    with pytest.raises(ValueError, match="is a folder"):
        load_model(tmp_path)


def _rewrite(path: Path, change) -> None:
    payload = torch.load(path, weights_only=True)
    change(payload)
    torch.save(payload, path)


def test_missing_and_extra_keys_are_named(saved):
    path, _ = saved
    _rewrite(path, lambda p: p["state_dict"].pop("value_head.4.weight"))
    with pytest.raises(ValueError, match=r"missing keys \['value_head.4.weight'\], unexpected keys \[\]"):
        load_model(path)
    _rewrite(
        path,
        lambda p: p["state_dict"].update({"value_head.4.weight": torch.zeros(8, 8), "ghost": torch.ones(1)}),
    )
    with pytest.raises(ValueError, match=r"missing keys \[\], unexpected keys \['ghost'\]"):
        load_model(path)


def test_another_games_checkpoint_is_refused(saved):
    path, _ = saved
    with pytest.raises(
        ValueError, match=r"checkpoint is for game 'connect4' \(version 1\), expected 'tictactoe'"
    ):
        load_model(path, expected_game="tictactoe")
    with pytest.raises(ValueError, match="checkpoint is for game 'connect4'"):
        load_model(path, expected_game=FakeGame(name="tictactoe", observation_shape=(2, 3, 3), num_actions=9))
    with pytest.raises(ValueError, match="'connect4' version 1, expected version 2"):
        load_model(path, expected_game=FakeGame(version=2))
    with pytest.raises(ValueError, match=r"observation shape \[2, 6, 7\], expected \[3, 6, 7\]"):
        load_model(path, expected_game=FakeGame(observation_shape=(3, 6, 7)))


def test_another_network_shape_is_refused(saved, tmp_path):
    path, _ = saved
    with pytest.raises(ValueError, match=r"network is b1c8 .* expected b2c8"):
        load_model(path, expected_config=CONFIG.replace(num_blocks=2))
    # Weights of a wider network under this config's name: the first wrong shape is named.
    wide = build_network(CONFIG.replace(channels=16), *CONNECT4).state_dict()
    _rewrite(path, lambda p: p.update(state_dict=wide))
    with pytest.raises(
        ValueError,
        match=r"state_dict\['stem.0.weight'\] has shape \[16, 2, 3, 3\], network b1c8 expects \[8, 2, 3, 3\]",
    ):
        load_model(path)


def test_truncated_file_and_random_bytes(saved, tmp_path):
    path, _ = saved
    data = path.read_bytes()
    truncated = tmp_path / "truncated.pt"
    truncated.write_bytes(data[: len(data) // 2])
    with pytest.raises(
        ValueError, match=r"cannot read model weights from .*truncated.pt: expected a file written by"
    ):
        load_model(truncated)
    noise = tmp_path / "noise.pt"
    noise.write_bytes(np.random.default_rng(0).bytes(5000))
    with pytest.raises(ValueError, match=r"cannot read model weights from .*noise.pt"):
        load_model(noise)
    empty = tmp_path / "empty.pt"
    empty.write_bytes(b"")
    with pytest.raises(ValueError, match="cannot read model weights"):
        load_model(empty)


def test_other_formats_are_named(tmp_path):
    path = tmp_path / "plain.pt"
    torch.save({"weights": torch.zeros(3)}, path)
    with pytest.raises(
        ValueError,
        match=r"expected a dict with format 'tabula-rasa-model' .* found a dict with keys \['weights'\]",
    ):
        load_model(path)
    torch.save([torch.zeros(3)], path)
    with pytest.raises(ValueError, match="found list"):
        load_model(path)


class _Payload:
    """Pickles to a call that creates ``marker`` when unpickled."""

    def __init__(self, marker: Path):
        self.marker = marker

    def __reduce__(self):
        return (os.mkdir, (str(self.marker),))


@pytest.mark.parametrize("container", ["torch.save", "raw pickle"])
def test_crafted_pickle_is_not_executed(tmp_path, container):
    marker = tmp_path / "pwned"
    # The payload works: plain pickle runs it.
    pickle.loads(pickle.dumps(_Payload(tmp_path / "proof")))
    assert (tmp_path / "proof").exists()
    path = tmp_path / "evil.pt"
    if container == "torch.save":
        torch.save({"format": "tabula-rasa-model", "state_dict": _Payload(marker)}, path)
    else:
        path.write_bytes(pickle.dumps(_Payload(marker), protocol=2))
    with pytest.raises(ValueError, match="cannot read model weights from .*evil.pt") as raised:
        load_model(path)
    assert not marker.exists()
    message = str(raised.value)
    assert "'posix.mkdir'" in message and "refused without running it" in message
    assert "weights_only` set to `False`" not in message  # never advise running untrusted code


def test_file_holds_only_tensors_and_plain_types(saved):
    path, _ = saved
    payload = torch.load(path, weights_only=True, map_location="cpu")

    def walk(value, where="payload"):
        if isinstance(value, dict):
            for key, item in value.items():
                assert isinstance(key, str), where
                walk(item, f"{where}[{key!r}]")
        elif isinstance(value, (list, tuple)):
            for i, item in enumerate(value):
                walk(item, f"{where}[{i}]")
        else:
            assert value is None or isinstance(value, (bool, int, float, str, torch.Tensor)), (
                where,
                type(value),
            )
            if isinstance(value, torch.Tensor):
                assert value.device.type == "cpu", where

    walk(payload)
    assert set(payload) == {
        "format",
        "format_version",
        "game",
        "observation_shape",
        "num_actions",
        "network",
        "state_dict",
        "extra",
    }


def test_explicit_map_location(saved):
    path, _ = saved
    loaded, _ = load_model(path, map_location=torch.device("cpu"))
    assert all(p.device.type == "cpu" for p in loaded.parameters())


def test_extra_must_be_plain_and_numpy_scalars_are_converted(tmp_path):
    model = build_network(NetworkConfig(kind="mlp", mlp_hidden=(8,)), *TICTACTOE)
    config = model.config
    with pytest.raises(
        ValueError,
        match=r"extra\['when'\]: expected only None, bool, int, float, str, tensors.*got PosixPath",
    ):
        save_model(tmp_path / "m.pt", model, config, "tictactoe", 1, {"when": Path("x")})
    with pytest.raises(ValueError, match=r"extra\['record'\]\[1\]"):
        save_model(tmp_path / "m.pt", model, config, "tictactoe", 1, {"record": [1, object()]})
    assert not (tmp_path / "m.pt").exists()
    save_model(
        tmp_path / "m.pt", model, config, "tictactoe", 1, {"step": np.int64(5), "loss": np.float32(0.5)}
    )
    _, metadata = load_model(tmp_path / "m.pt", expected_game="tictactoe")
    assert metadata.extra == {"step": 5, "loss": 0.5} and type(metadata.extra["step"]) is int


def test_save_validates_arguments(tmp_path):
    model = build_network(CONFIG, *CONNECT4)
    with pytest.raises(ValueError, match="config: expected a NetworkConfig"):
        save_model(tmp_path / "m.pt", model, CONFIG.to_dict(), "connect4", 1)
    with pytest.raises(ValueError, match="game_name: expected a non-empty str"):
        save_model(tmp_path / "m.pt", model, CONFIG, "", 1)
    with pytest.raises(ValueError, match="game_version: expected an int"):
        save_model(tmp_path / "m.pt", model, CONFIG, "connect4", "1")
    with pytest.raises(ValueError, match="expected an attribute 'observation_shape'"):
        save_model(tmp_path / "m.pt", torch.nn.Linear(2, 2), CONFIG, "connect4", 1)
    with torch.no_grad():
        model.stem[0].weight[0, 0, 0, 0] = float("nan")
    with pytest.raises(ValueError, match=r"refusing to save non-finite weights: 'stem.0.weight'"):
        save_model(tmp_path / "m.pt", model, CONFIG, "connect4", 1)
    assert not (tmp_path / "m.pt").exists()


def test_a_training_checkpoint_embedding_the_model_loads(tmp_path):
    model = build_network(CONFIG, *CONNECT4)
    checkpoint = {"model": model_payload(model, CONFIG, "connect4", 1, {"step": 3}), "optimizer": {"step": 3}}
    atomic_torch_save(checkpoint, tmp_path / "train.pt")
    loaded, metadata = load_model(tmp_path / "train.pt", expected_game="connect4")
    assert metadata.extra == {"step": 3}
    for key, value in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)


def test_atomic_write_keeps_the_old_file_when_writing_fails(tmp_path):
    path = tmp_path / "best.pt"
    atomic_write_bytes(path, b"old")

    def fail_halfway(handle):
        handle.write(b"new but incomplete")
        raise KeyboardInterrupt

    with pytest.raises(KeyboardInterrupt):
        atomic_write(path, fail_halfway)
    assert path.read_bytes() == b"old"
    assert sorted(p.name for p in tmp_path.iterdir()) == ["best.pt"]  # no temporary file left
    with pytest.raises(ValueError):
        atomic_write_json(path, {"loss": float("nan")})
    assert path.read_bytes() == b"old"
    atomic_write_json(path, {"b": 1, "a": [1, 2]})
    assert path.read_text() == '{\n  "a": [\n    1,\n    2\n  ],\n  "b": 1\n}\n'
    with pytest.raises(FileNotFoundError, match="does not exist"):
        atomic_write_bytes(tmp_path / "missing" / "x", b"")


def test_save_over_an_existing_file_is_complete(saved):
    path, model = saved
    with torch.no_grad():
        for parameter in model.parameters():
            parameter.mul_(2)
    save_model(path, model, CONFIG, "connect4", 1, {"step": 2})
    loaded, metadata = load_model(path)
    assert metadata.extra == {"step": 2}
    for key, value in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)
    assert sorted(p.name for p in path.parent.iterdir()) == ["best.pt"]


@pytest.mark.slow  # importing torch._dynamo takes several seconds
def test_a_compiled_wrapper_saves_the_plain_keys(tmp_path):
    model = build_network(CONFIG, *CONNECT4)
    wrapped = torch.compile(model)  # compiles lazily: nothing runs here
    save_model(tmp_path / "m.pt", wrapped, CONFIG, "connect4", 1)
    payload = torch.load(tmp_path / "m.pt", weights_only=True)
    assert set(payload["state_dict"]) == set(model.state_dict())
    loaded, _ = load_model(tmp_path / "m.pt")
    for key, value in model.state_dict().items():
        assert torch.equal(loaded.state_dict()[key], value)
