"""Small torch helpers shared by the network modules."""

from __future__ import annotations

import copy
import hashlib
from collections.abc import Mapping

import numpy as np
import torch
from torch.nn.utils.fusion import fuse_conv_bn_eval

from networks.shapes import check_sizes


def check_observation_batch(observations: torch.Tensor, observation_shape: tuple[int, int, int]) -> None:
    """Raise ``ValueError`` unless ``observations`` is a ``[B, C, H, W]`` tensor with this ``(C, H, W)``.

    Skipped while tracing or compiling (ONNX export, ``torch.compile``), where shapes are symbolic.

    Raises:
        ValueError: giving the expected and the actual shape.
    """
    if torch.jit.is_tracing() or torch.compiler.is_compiling():
        return
    if not isinstance(observations, torch.Tensor):
        raise ValueError(f"observations: expected a torch.Tensor, got {type(observations).__name__}")
    if observations.dim() != 4 or tuple(observations.shape[1:]) != observation_shape:
        raise ValueError(
            f"observations: expected shape [B, {', '.join(map(str, observation_shape))}], "
            f"got {list(observations.shape)}"
        )
    if not observations.is_floating_point():
        raise ValueError(f"observations: expected a float32 tensor, got {observations.dtype}")


class PolicyValueNetwork(torch.nn.Module):
    """The contract of the policy/value networks (``networks.mlp.MLP``, ``networks.resnet.ResNet``):
    a trunk (``trunk_features``) shared by a policy head (``policy_head``, ``A`` logits) and a value
    head (``value_head``, one tanh value), as in AlphaGo Zero (Silver et al. 2017, Methods, "Neural
    network architecture").

    Args:
        kind: the ``config.kind`` this network is built for (``"mlp"``, ``"resnet"``).
        config: its ``NetworkConfig``.
        observation_shape: ``(C, H, W)`` of one observation.
        num_actions: ``A``, the number of policy logits.

    Raises:
        ValueError: if ``config.kind`` is not ``kind``, or the shape or action count is not positive.
    """

    def __init__(self, kind: str, config, observation_shape, num_actions: int) -> None:
        super().__init__()
        if config.kind != kind:
            raise ValueError(f"{type(self).__name__}: expected config.kind {kind!r}, got {config.kind!r}")
        self.observation_shape, self.num_actions = check_sizes(observation_shape, num_actions)
        self.config = config

    def trunk_features(self, observations: torch.Tensor) -> torch.Tensor:
        """The trunk's output for ``[B, C, H, W]`` float32 observations, read by both heads."""
        raise NotImplementedError

    def forward(self, observations: torch.Tensor) -> tuple[torch.Tensor, torch.Tensor]:
        """Policy logits and value for a batch.

        Args:
            observations: ``[B, C, H, W]`` float32, from the view of the player to move.

        Returns:
            ``(policy_logits, value)``: ``[B, A]`` float32 unmasked logits, and ``[B]`` float32
            values in ``[-1, 1]`` for the player to move.

        Raises:
            ValueError: if ``observations`` is not ``[B, C, H, W]`` with this network's ``(C, H, W)``.
        """
        check_observation_batch(observations, self.observation_shape)
        trunk = self.trunk_features(observations)
        policy_logits = self.policy_head(trunk)
        value = self.value_head(trunk).squeeze(-1)
        # Under bf16 autocast the heads come out in bf16; callers always get float32.
        return policy_logits.float(), value.float()


def count_parameters(model: torch.nn.Module) -> int:
    """Number of trainable scalars in ``model``."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)


def fuse_conv_batch_norm(model: torch.nn.Module) -> torch.nn.Module:
    """An inference copy of ``model`` with each Conv2d -> BatchNorm2d pair folded into one Conv2d.

    In eval mode batch norm is the affine map ``gamma * (x - mean) / sqrt(var + eps) + beta``
    (Ioffe & Szegedy 2015, Algorithm 2, the inference network), so it folds into the preceding
    convolution's weight and bias; the batch norm becomes ``Identity``. Outputs equal the original's
    up to float rounding (about 1e-7 relative) and the tower runs 1.2-2x faster on CPU. Pairs are
    found as consecutive children of the same parent (``nn.Sequential`` entries or attributes
    registered in that order, as in :class:`networks.resnet.ResidualBlock`).

    Args:
        model: any module; it is not modified.

    Returns:
        A deep copy in eval mode, with the same attributes (``observation_shape``...).
    """
    fused = copy.deepcopy(model).eval()
    for parent in fused.modules():
        names = list(parent._modules)
        for first, second in zip(names, names[1:]):
            conv, norm = parent._modules[first], parent._modules[second]
            if isinstance(conv, torch.nn.Conv2d) and isinstance(norm, torch.nn.BatchNorm2d):
                parent._modules[first] = fuse_conv_bn_eval(conv, norm)
                parent._modules[second] = torch.nn.Identity()
    return fused


def unwrap_model(model: torch.nn.Module) -> torch.nn.Module:
    """The module under a ``torch.compile`` wrapper (``OptimizedModule._orig_mod``), else ``model``.

    Saving the wrapper would prefix every state-dict key with ``_orig_mod.``; checkpoints and exports
    always store the plain module's keys.
    """
    return getattr(model, "_orig_mod", model)


def weights_hash(model_or_state) -> str:
    """SHA-256 hex digest of a model's ``state_dict`` (names, dtypes, shapes and bytes, sorted by name).

    Two models hash equal exactly when every parameter and buffer is bitwise equal (so a match between two copies of one network is refused: the
    best model's hash is unchanged by an optimiser step on the candidate it was copied from).

    Raises:
        ValueError: if the argument is neither a module nor a mapping of tensors.
    """
    if isinstance(model_or_state, torch.nn.Module):
        state = model_or_state.state_dict()
    elif isinstance(model_or_state, Mapping):
        state = model_or_state
    else:
        raise ValueError(f"expected a torch.nn.Module or a state dict, got {type(model_or_state).__name__}")
    digest = hashlib.sha256()
    for name in sorted(state):
        tensor = state[name]
        if isinstance(tensor, np.ndarray):
            tensor = torch.from_numpy(np.array(tensor, order="C"))  # a copy: Ray's arrays are read-only
        if not isinstance(tensor, torch.Tensor):
            raise ValueError(f"state[{name!r}]: expected a tensor or numpy array, got {type(tensor).__name__}")
        flat = tensor.detach().to("cpu").contiguous().reshape(-1)
        digest.update(f"{name}|{flat.dtype}|{list(tensor.shape)}|".encode())
        digest.update(flat.view(torch.uint8).numpy().tobytes())
    return digest.hexdigest()
