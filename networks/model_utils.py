"""Small torch helpers shared by the network modules."""

from __future__ import annotations

import torch


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


def count_parameters(model: torch.nn.Module) -> int:
    """Number of trainable scalars in ``model``."""
    return sum(p.numel() for p in model.parameters() if p.requires_grad)
