"""The AlphaZero residual policy/value network.

Architecture of AlphaGo Zero (Silver et al., "Mastering the game of Go without human knowledge",
Nature 2017, Methods, "Neural network architecture"), kept by AlphaZero (Silver et al., Science
2018, supplementary "Domain knowledge"/"Architecture"):

* stem: 3x3 convolution (``channels`` filters, stride 1) -> batch norm -> ReLU;
* ``num_blocks`` residual blocks: conv3x3 -> BN -> ReLU -> conv3x3 -> BN -> add the block input
  (He et al. 2016 skip connection) -> ReLU;
* policy head: 1x1 conv (``policy_channels`` filters, 2 in the paper) -> BN -> ReLU -> fully
  connected layer to ``A`` logits;
* value head: 1x1 conv (``value_channels`` filters, 1 in the paper) -> BN -> ReLU -> fully
  connected (``value_hidden`` units, 256 in the paper) -> ReLU -> fully connected to 1 -> tanh.

Convolutions feeding a batch norm carry no bias (the BN shift plays that role).
"""

from __future__ import annotations

import torch
from torch import nn

from networks.config import NetworkConfig
from networks.model_utils import PolicyValueNetwork


def _conv_bn(in_channels: int, out_channels: int, kernel_size: int) -> list[nn.Module]:
    return [
        nn.Conv2d(in_channels, out_channels, kernel_size, padding=kernel_size // 2, bias=False),
        nn.BatchNorm2d(out_channels),
    ]


class ResidualBlock(nn.Module):
    """conv3x3-BN-ReLU-conv3x3-BN, plus the input, then ReLU; ``[B, c, H, W]`` -> same shape."""

    def __init__(self, channels: int) -> None:
        super().__init__()
        self.conv1, self.bn1 = _conv_bn(channels, channels, 3)
        self.conv2, self.bn2 = _conv_bn(channels, channels, 3)

    def forward(self, x: torch.Tensor) -> torch.Tensor:
        out = torch.relu(self.bn1(self.conv1(x)))
        out = self.bn2(self.conv2(out))
        return torch.relu(out + x)


class ResNet(PolicyValueNetwork):
    """AlphaZero ResNet (see module docstring for the layers and their source), built from a
    ``NetworkConfig`` with ``kind == "resnet"``; arguments, ``forward`` and errors as
    ``networks.model_utils.PolicyValueNetwork``."""

    def __init__(self, config: NetworkConfig, observation_shape, num_actions: int) -> None:
        super().__init__("resnet", config, observation_shape, num_actions)
        in_channels, height, width = self.observation_shape
        area = height * width
        self.stem = nn.Sequential(*_conv_bn(in_channels, config.channels, 3), nn.ReLU())
        self.blocks = nn.Sequential(*(ResidualBlock(config.channels) for _ in range(config.num_blocks)))
        self.policy_head = nn.Sequential(
            *_conv_bn(config.channels, config.policy_channels, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(config.policy_channels * area, self.num_actions),
        )
        self.value_head = nn.Sequential(
            *_conv_bn(config.channels, config.value_channels, 1),
            nn.ReLU(),
            nn.Flatten(),
            nn.Linear(config.value_channels * area, config.value_hidden),
            nn.ReLU(),
            nn.Linear(config.value_hidden, 1),
            nn.Tanh(),
        )

    def trunk_features(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, C, H, W]`` float32 -> ``[B, channels, H, W]`` (the stem, then the residual blocks)."""
        return self.blocks(self.stem(observations))
