"""Policy/value networks, the batched torch evaluator, and the checkpoint and export formats.

Public API (imported lazily, so ``networks.onnx_evaluator`` and ``networks.config`` work without
loading torch, which keeps ``play`` on ONNX Runtime light)::

    build_network(config, observation_shape, num_actions) -> torch.nn.Module
    NetworkConfig, default_config                          (networks.config)
    masked_softmax, masked_log_softmax                     (networks.policy)
    TorchEvaluator, UniformEvaluator, device_from_config   (networks.evaluator)
    save_model, load_model, ModelMetadata                  (networks.checkpoint)
    export_model                                           (networks.export)
    load_exported                                          (networks.onnx_evaluator)
    load_evaluator (a weights file or an export folder)    (networks.loading)

Every network's ``forward(observations [B, C, H, W] float32)`` returns ``(policy_logits [B, A]
float32, value [B] float32 in [-1, 1])``, values for the player to move; the logits are unmasked.
"""

from __future__ import annotations

import importlib

from networks.config import NetworkConfig, default_config

_LAZY = {
    "masked_softmax": "networks.policy",
    "masked_log_softmax": "networks.policy",
    "TorchEvaluator": "networks.evaluator",
    "UniformEvaluator": "networks.evaluator_base",
    "device_from_config": "networks.evaluator",
    "save_model": "networks.checkpoint",
    "load_model": "networks.checkpoint",
    "ModelMetadata": "networks.checkpoint",
    "export_model": "networks.export",
    "load_exported": "networks.onnx_evaluator",
    "load_evaluator": "networks.loading",
    "ResNet": "networks.resnet",
    "MLP": "networks.mlp",
}


def build_network(config: NetworkConfig, observation_shape, num_actions: int):
    """Build the network ``config`` describes for a game, with fresh (PyTorch default) weights.

    Args:
        config: a ``NetworkConfig``; ``kind`` picks :class:`networks.resnet.ResNet` or
            :class:`networks.mlp.MLP`.
        observation_shape: ``(C, H, W)`` of the game's observations.
        num_actions: ``A``.

    Returns:
        A ``torch.nn.Module`` (in training mode, on CPU) with attributes ``config``,
        ``observation_shape`` and ``num_actions``.

    Raises:
        ValueError: if ``config`` is not a ``NetworkConfig`` or the shape or action count is not
            positive.
    """
    if not isinstance(config, NetworkConfig):
        raise ValueError(f"config: expected a NetworkConfig, got {type(config).__name__}")
    if config.kind == "resnet":
        from networks.resnet import ResNet  # heavy dependency (torch): imported where it is used

        return ResNet(config, observation_shape, num_actions)
    from networks.mlp import MLP  # heavy dependency (torch): imported where it is used

    return MLP(config, observation_shape, num_actions)


def __getattr__(name: str):
    if name in _LAZY:
        return getattr(importlib.import_module(_LAZY[name]), name)
    raise AttributeError(f"module 'networks' has no attribute {name!r}")


__all__ = [
    "MLP",
    "ModelMetadata",
    "NetworkConfig",
    "ResNet",
    "TorchEvaluator",
    "UniformEvaluator",
    "build_network",
    "default_config",
    "device_from_config",
    "export_model",
    "load_evaluator",
    "load_exported",
    "load_model",
    "masked_log_softmax",
    "masked_softmax",
    "save_model",
]
