"""ResNet and MLP: output shapes and dtypes, exact parameter counts, value range, input checks."""

from __future__ import annotations

import pytest
import torch

from networks import build_network
from networks.config import NetworkConfig
from networks.mlp import MLP
from networks.model_utils import count_parameters
from networks.resnet import ResNet

TICTACTOE = ((2, 3, 3), 9)
CONNECT4 = ((2, 6, 7), 7)


@pytest.mark.parametrize(
    ("config", "game"),
    [
        (NetworkConfig(num_blocks=2, channels=16), CONNECT4),
        (NetworkConfig(num_blocks=0, channels=8), TICTACTOE),
        (NetworkConfig(kind="mlp", mlp_hidden=(32, 32)), TICTACTOE),
        (NetworkConfig(kind="mlp", mlp_hidden=(32,)), CONNECT4),
    ],
)
@pytest.mark.parametrize("batch", [1, 5])
def test_forward_shapes_dtypes_and_value_range(config, game, batch):
    shape, actions = game
    torch.manual_seed(0)
    model = build_network(config, shape, actions).eval()
    assert model.observation_shape == shape and model.num_actions == actions and model.config is config
    # Large inputs drive the tanh into saturation; the value must stay in [-1, 1].
    logits, value = model(100 * torch.randn(batch, *shape))
    assert logits.shape == (batch, actions) and logits.dtype == torch.float32
    assert value.shape == (batch,) and value.dtype == torch.float32
    assert torch.isfinite(logits).all()
    assert (value.abs() <= 1).all()


def test_build_network_picks_the_class():
    assert isinstance(build_network(NetworkConfig(num_blocks=1, channels=4), *TICTACTOE), ResNet)
    assert isinstance(build_network(NetworkConfig(kind="mlp"), *TICTACTOE), MLP)
    with pytest.raises(ValueError, match="config: expected a NetworkConfig, got dict"):
        build_network({"kind": "mlp"}, *TICTACTOE)


def test_parameter_counts_are_the_documented_architecture():
    # ResNet b1c4 on (2, 3, 3), 9 actions, policy 2 filters, value 1 filter, value hidden 3:
    # stem 2*4*9 + BN 8 = 80; block 2 * (4*4*9 + 8) = 304; policy 4*2 + 4 + (18*9 + 9) = 183;
    # value 4*1 + 2 + (9*3 + 3) + (3 + 1) = 40.
    resnet = build_network(NetworkConfig(num_blocks=1, channels=4, value_hidden=3), *TICTACTOE)
    assert count_parameters(resnet) == 80 + 304 + 183 + 40
    # MLP (4,) on 18 inputs: trunk 18*4 + 4 = 76; policy 4*9 + 9 = 45; value (4*3 + 3) + (3 + 1) = 19.
    mlp = build_network(NetworkConfig(kind="mlp", mlp_hidden=(4,), value_hidden=3), *TICTACTOE)
    assert count_parameters(mlp) == 76 + 45 + 19


def test_rows_are_independent_in_eval_mode():
    torch.manual_seed(1)
    model = build_network(NetworkConfig(num_blocks=2, channels=8), *CONNECT4)
    # A few training-mode passes so batch-norm running statistics are not the identity.
    for _ in range(3):
        model(torch.randn(16, *CONNECT4[0]))
    model.eval()
    batch = torch.randn(6, *CONNECT4[0])
    logits, value = model(batch)
    for i in range(6):
        row_logits, row_value = model(batch[i : i + 1])
        torch.testing.assert_close(row_logits[0], logits[i], rtol=1e-5, atol=1e-5)
        torch.testing.assert_close(row_value[0], value[i], rtol=1e-5, atol=1e-5)


@pytest.mark.parametrize("config", [NetworkConfig(num_blocks=1, channels=4), NetworkConfig(kind="mlp")])
def test_forward_rejects_wrong_observation_shape(config):
    model = build_network(config, *TICTACTOE)
    with pytest.raises(ValueError, match=r"expected shape \[B, 2, 3, 3\], got \[4, 2, 6, 7\]"):
        model(torch.zeros(4, 2, 6, 7))
    with pytest.raises(ValueError, match=r"expected shape \[B, 2, 3, 3\], got \[2, 3, 3\]"):
        model(torch.zeros(2, 3, 3))
    with pytest.raises(ValueError, match="expected a float32 tensor"):
        model(torch.zeros(1, 2, 3, 3, dtype=torch.int64))


@pytest.mark.parametrize(
    ("shape", "actions", "pattern"),
    [((2, 3), 9, "observation_shape"), ((2, 0, 3), 9, "observation_shape"), ((2, 3, 3), 0, "num_actions")],
)
def test_build_rejects_bad_sizes(shape, actions, pattern):
    with pytest.raises(ValueError, match=pattern):
        build_network(NetworkConfig(kind="mlp"), shape, actions)


def test_wrong_kind_for_class():
    with pytest.raises(ValueError, match="expected config.kind 'resnet', got 'mlp'"):
        ResNet(NetworkConfig(kind="mlp"), *TICTACTOE)
    with pytest.raises(ValueError, match="expected config.kind 'mlp', got 'resnet'"):
        MLP(NetworkConfig(), *TICTACTOE)
