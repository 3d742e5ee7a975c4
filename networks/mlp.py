"""A small fully connected policy/value network, enough for tic-tac-toe.

The observation is flattened and passed through ``len(config.mlp_hidden)`` Linear -> ReLU layers
(a shared trunk); the policy head is one Linear layer to ``A`` logits and the value head is
Linear(``value_hidden``) -> ReLU -> Linear(1) -> tanh, the value head of AlphaGo Zero (Silver et
al. 2017, Methods, "Neural network architecture") on a fully connected trunk.
"""

from __future__ import annotations

import math

import torch
from torch import nn

from networks.config import NetworkConfig
from networks.model_utils import PolicyValueNetwork


class MLP(PolicyValueNetwork):
    """Fully connected policy/value network, built from a ``NetworkConfig`` with ``kind == "mlp"``;
    arguments, ``forward`` and errors as ``networks.model_utils.PolicyValueNetwork``."""

    def __init__(self, config: NetworkConfig, observation_shape, num_actions: int) -> None:
        super().__init__("mlp", config, observation_shape, num_actions)
        layers: list[nn.Module] = [nn.Flatten()]
        width = math.prod(self.observation_shape)
        for hidden in config.mlp_hidden:
            layers += [nn.Linear(width, hidden), nn.ReLU()]
            width = hidden
        self.trunk = nn.Sequential(*layers)
        self.policy_head = nn.Linear(width, self.num_actions)
        self.value_head = nn.Sequential(
            nn.Linear(width, config.value_hidden), nn.ReLU(), nn.Linear(config.value_hidden, 1), nn.Tanh()
        )

    def trunk_features(self, observations: torch.Tensor) -> torch.Tensor:
        """``[B, C, H, W]`` float32 -> ``[B, mlp_hidden[-1]]`` (flattened, then the Linear -> ReLU layers)."""
        return self.trunk(observations)
