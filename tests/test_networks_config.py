"""NetworkConfig validation, names and round trips."""

from __future__ import annotations

import pytest

from networks.config import (
    CONNECT4_CPU_DEFAULT,
    CONNECT4_GPU_DEFAULT,
    TICTACTOE_DEFAULT,
    NetworkConfig,
    default_config,
)


def test_names():
    assert NetworkConfig(num_blocks=6, channels=64).name == "b6c64"
    assert NetworkConfig(num_blocks=10, channels=128).name == "b10c128"
    assert NetworkConfig(kind="mlp", mlp_hidden=(128, 128)).name == "mlp128x2"
    assert NetworkConfig(kind="mlp", mlp_hidden=[128, 64]).name == "mlp128-64"


@pytest.mark.parametrize("name", ["b6c64", "b0c8", "mlp128x2", "mlp128-64", "mlp32x1"])
def test_from_name_round_trips(name):
    assert NetworkConfig.from_name(name).name == name


def test_from_name_rejects_garbage():
    with pytest.raises(ValueError, match="b<blocks>c<channels>"):
        NetworkConfig.from_name("resnet-big")


def test_dict_round_trip_and_list_becomes_tuple():
    config = NetworkConfig(kind="mlp", mlp_hidden=[16, 8], value_hidden=5)
    assert config.mlp_hidden == (16, 8)
    data = config.to_dict()
    assert data == {
        "kind": "mlp",
        "num_blocks": 6,
        "channels": 64,
        "policy_channels": 2,
        "value_channels": 1,
        "value_hidden": 5,
        "mlp_hidden": [16, 8],
    }
    assert NetworkConfig.from_dict(data) == config


def test_from_dict_names_unknown_key():
    with pytest.raises(ValueError, match=r"unknown key\(s\) \['chanels'\].*accepted keys"):
        NetworkConfig.from_dict({"kind": "resnet", "chanels": 64})


@pytest.mark.parametrize(
    ("changes", "pattern"),
    [
        ({"kind": "transformer"}, r"kind: expected one of \['resnet', 'mlp'\], got 'transformer'"),
        ({"num_blocks": -1}, r"num_blocks: expected an int >= 0, got -1"),
        ({"channels": 0}, r"channels: expected an int >= 1, got 0"),
        ({"channels": 64.0}, r"channels: expected an int >= 1, got 64.0"),
        ({"channels": True}, r"channels: expected an int >= 1, got True"),
        ({"policy_channels": 0}, r"policy_channels: expected an int >= 1"),
        ({"value_channels": 0}, r"value_channels: expected an int >= 1"),
        ({"value_hidden": 0}, r"value_hidden: expected an int >= 1"),
        ({"mlp_hidden": ()}, r"mlp_hidden: expected a non-empty sequence"),
        ({"mlp_hidden": "128"}, r"mlp_hidden: expected a non-empty sequence"),
        ({"mlp_hidden": (128, 0)}, r"mlp_hidden\[1\]: expected an int >= 1, got 0"),
    ],
)
def test_validation_names_field_and_accepted_values(changes, pattern):
    with pytest.raises(ValueError, match=pattern):
        NetworkConfig(**changes)


def test_defaults():
    assert default_config("tictactoe") is TICTACTOE_DEFAULT
    assert default_config("connect4") is CONNECT4_CPU_DEFAULT
    assert default_config("connect4", gpu=True) is CONNECT4_GPU_DEFAULT
    assert CONNECT4_GPU_DEFAULT.name == "b10c128"
    with pytest.raises(ValueError, match="no default network for game 'chess'"):
        default_config("chess")


def test_replace_validates():
    assert NetworkConfig().replace(num_blocks=2).name == "b2c64"
    with pytest.raises(ValueError, match="num_blocks"):
        NetworkConfig().replace(num_blocks=-3)
