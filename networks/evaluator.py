"""Run a policy/value network for the search: numpy in, numpy out, on CUDA when present.

:class:`TorchEvaluator` wraps a model built by :func:`networks.build_network`. Each ``evaluate``
call moves one batch to the device (through a reused pinned staging buffer and a non-blocking copy
on CUDA), runs the model in ``torch.inference_mode`` (with bf16 autocast on GPUs that support it, and
batch norm folded into the convolutions), copies logits and values back in one transfer, and masks
and normalises the policy on the host with
:func:`networks.policy_numpy.masked_softmax_with_count_numpy` (a ``[B, A]`` softmax is cheaper in
numpy than a dozen small torch calls, and the legal mask never has to travel to the device).
Weights are swapped in place with :meth:`TorchEvaluator.set_weights`, which is how self-play actors
pick up a newly promoted model.
"""

from __future__ import annotations

import copy
from collections.abc import Mapping

import numpy as np
import torch

from networks.config import check_device
from networks.evaluator_base import Evaluator, UniformEvaluator
from networks.model_utils import fuse_conv_batch_norm, unwrap_model
from networks.policy_numpy import masked_softmax_with_count_numpy
from networks.shapes import check_evaluate_inputs

__all__ = ["Evaluator", "TorchEvaluator", "UniformEvaluator", "device_from_config", "resolve_device"]


#: torch's CPU threads for the play and arena paths when the caller names none: one, as for ONNX
#: Runtime (``networks.onnx_evaluator.DEFAULT_NUM_THREADS``; the project's networks are too small
#: for intra-op parallelism to pay, and the training actors already run one thread each).
DEFAULT_TORCH_THREADS = 1


def set_torch_threads(num_threads: int | None = None) -> int:
    """``torch.set_num_threads`` (process-wide) to ``num_threads`` (``None``: ``DEFAULT_TORCH_THREADS``);
    returns the count set.

    Raises:
        ValueError: if ``num_threads`` is not None or an integer >= 1.
    """
    if num_threads is None:
        num_threads = DEFAULT_TORCH_THREADS
    if isinstance(num_threads, bool) or not isinstance(num_threads, (int, np.integer)) or num_threads < 1:
        raise ValueError(f"num_threads: expected None or an integer >= 1, got {num_threads!r}")
    torch.set_num_threads(int(num_threads))
    return int(num_threads)


def device_from_config(name: str = "auto") -> torch.device:
    """Resolve a device setting.

    Args:
        name: ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"`` or ``"cuda:N"``.

    Returns:
        The ``torch.device``.

    Raises:
        ValueError: for any other string, or for ``"cuda"``/``"cuda:N"`` when CUDA is not available
            or ``N`` is not a visible device.
    """
    check_device("device", name)
    if name == "auto":
        return torch.device("cuda" if torch.cuda.is_available() else "cpu")
    if name == "cpu":
        return torch.device("cpu")
    if not torch.cuda.is_available():
        raise ValueError(f"device {name!r} requested but CUDA is not available here; use 'auto' or 'cpu'")
    device = torch.device(name)
    if device.index is not None and device.index >= torch.cuda.device_count():
        raise ValueError(
            f"device {name!r}: expected an index below {torch.cuda.device_count()} (visible CUDA devices)"
        )
    return device


def resolve_device(device) -> torch.device:
    """The one device resolver of the project: ``None``, a setting as :func:`device_from_config`
    takes, or a ``torch.device`` (a CUDA one is checked to exist).

    Raises:
        ValueError: as :func:`device_from_config`.
    """
    if device is None:
        return device_from_config("auto")
    if isinstance(device, torch.device):
        return device_from_config(str(device)) if device.type == "cuda" else device
    return device_from_config(device)


class TorchEvaluator:
    """Batched network evaluation for the search.

    Args:
        model: a module whose ``forward(obs [B, C, H, W] float32)`` returns ``(logits [B, A],
            value [B])`` and which has ``observation_shape`` and ``num_actions`` attributes (every
            network from :func:`networks.build_network` does). The evaluator keeps its own copy on
            ``device`` in eval mode (batch norm uses its running statistics); the caller's model is
            not modified, and later changes to it arrive only through :meth:`set_weights`.
        device: ``None`` or ``"auto"`` (CUDA when available, else CPU), ``"cpu"``, ``"cuda"``,
            ``"cuda:N"`` or a ``torch.device``.
        use_bf16: bf16 autocast; ``None`` turns it on for CUDA devices with bf16 support and off on
            CPU. Outputs are float32 either way.
        compile: wrap the model in ``torch.compile`` (the first calls are slow while it compiles).
        fuse_batch_norm: evaluate an inference copy with each conv -> batch-norm pair folded into
            one convolution (:func:`networks.model_utils.fuse_conv_batch_norm`); same outputs up to
            float rounding, 1.2-2x faster on CPU. :meth:`set_weights` refreshes the copy.

    Attributes:
        num_calls, num_positions: counters of ``evaluate`` calls and positions evaluated.
        num_degenerate_priors: positions where the network put less than
            ``networks.policy_numpy.DEGENERATE_LEGAL_MASS`` on the legal actions (a network almost sure of an illegal move).
        weights_version: the ``version`` given to the last :meth:`set_weights` (``None`` before).

    Raises:
        ValueError: if ``model`` lacks ``observation_shape``/``num_actions``, the device string is
            not accepted or not available, or ``use_bf16=True`` on a device without bf16 autocast
            (any CPU device: autocast is for GPUs only here).
    """

    def __init__(
        self,
        model: torch.nn.Module,
        device=None,
        use_bf16: bool | None = None,
        compile: bool = False,
        fuse_batch_norm: bool = True,
    ):
        if not isinstance(model, torch.nn.Module):
            raise ValueError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
        for attribute in ("observation_shape", "num_actions"):
            if not hasattr(model, attribute):
                raise ValueError(
                    f"model: expected an attribute {attribute!r} (build it with networks.build_network)"
                )
        self.device = resolve_device(device)
        on_cuda = self.device.type == "cuda"
        bf16_available = on_cuda and torch.cuda.is_bf16_supported()
        if use_bf16 is None:
            use_bf16 = bf16_available
        elif use_bf16 and not bf16_available:
            raise ValueError(
                f"use_bf16=True: bf16 autocast needs a CUDA device with bf16 support, got {self.device}; "
                "use use_bf16=None (auto) or False"
            )
        self.use_bf16 = bool(use_bf16)
        # Our own copy: the caller's model keeps its device and training mode (a trainer may hand
        # over its live model), and later changes to it reach us only through set_weights().
        self.model = copy.deepcopy(unwrap_model(model)).to(self.device).eval()
        self.observation_shape = tuple(model.observation_shape)
        self.num_actions = int(model.num_actions)
        self.compiled = bool(compile)
        self.fuse_batch_norm = bool(fuse_batch_norm)
        self._inference = fuse_conv_batch_norm(self.model) if self.fuse_batch_norm else self.model
        self._forward = torch.compile(self._inference) if compile else self._inference
        self._staging: torch.Tensor | None = None  # pinned host buffer for CUDA uploads
        self.num_calls = 0
        self.num_positions = 0
        self.num_degenerate_priors = 0
        self.weights_version = None

    # ------------------------------------------------------------------ evaluation
    def _upload(self, observations: np.ndarray) -> torch.Tensor:
        host = torch.from_numpy(observations)
        if self.device.type != "cuda":
            return host
        batch = observations.shape[0]
        if self._staging is None or self._staging.shape[0] < batch:
            self._staging = torch.empty((batch, *self.observation_shape), dtype=torch.float32).pin_memory()
        staging = self._staging[:batch]
        staging.copy_(host)
        # Safe to reuse the staging buffer next call: evaluate() synchronises before returning.
        return staging.to(self.device, non_blocking=True)

    def evaluate(self, observations: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Masked priors and values for a batch.

        Args:
            observations: ``[B, C, H, W]`` float32 (other real dtypes are converted), from the view
                of the player to move.
            legal_mask: ``[B, A]`` bool, True = legal.

        Returns:
            ``(priors, values)``: ``[B, A]`` float32, exactly 0 on illegal actions and summing to 1
            over the legal ones (uniform over legal when the network's legal logits are all very
            negative; all 0 for a row without a legal action); ``[B]`` float32 in ``[-1, 1]``, for
            the player to move. Fresh arrays owned by the caller.

        Raises:
            ValueError: for inputs of the wrong type, shape or dtype (expected vs actual).
        """
        observations, legal_mask = check_evaluate_inputs(
            observations, legal_mask, self.observation_shape, self.num_actions
        )
        batch = observations.shape[0]
        if batch == 0:
            return np.zeros((0, self.num_actions), np.float32), np.zeros(0, np.float32)
        with torch.inference_mode():
            inputs = self._upload(observations)
            if self.use_bf16:
                with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16):
                    logits, values = self._forward(inputs)
            else:
                logits, values = self._forward(inputs)
            if self.device.type == "cpu":
                logits_host, values_host = logits.float().numpy(), values.float().numpy()
            else:  # one device-to-host copy for both outputs
                both = torch.cat([logits.float(), values.float()[:, None]], dim=1).cpu().numpy()
                logits_host, values_host = both[:, : self.num_actions], both[:, self.num_actions]
        priors, num_degenerate = masked_softmax_with_count_numpy(logits_host, legal_mask)
        self.num_degenerate_priors += num_degenerate
        self.num_calls += 1
        self.num_positions += batch
        return priors, np.clip(values_host, -1.0, 1.0)  # np.clip returns a fresh array

    __call__ = evaluate

    # --------------------------------------------------------------------- weights
    def set_weights(self, state_dict: Mapping, version=None) -> None:
        """Replace the model's weights in place (same architecture), e.g. a newly promoted model.

        Args:
            state_dict: parameter and buffer name -> ``torch.Tensor`` or numpy array, exactly the
                keys of ``model.state_dict()`` with the same shapes.
            version: any label (e.g. the training step) kept in ``weights_version``.

        Raises:
            ValueError: naming the missing keys, unexpected keys, or the first key whose shape
                differs (expected vs actual).
        """
        if not isinstance(state_dict, Mapping):
            raise ValueError(
                f"state_dict: expected a mapping of name -> tensor, got {type(state_dict).__name__}"
            )
        own = self.model.state_dict()
        missing = sorted(set(own) - set(state_dict))
        unexpected = sorted(set(state_dict) - set(own))
        if missing or unexpected:
            raise ValueError(
                f"state_dict does not fit the model: missing keys {missing}, unexpected keys {unexpected}"
            )
        tensors = {}
        for key, value in state_dict.items():
            tensor = torch.as_tensor(value)
            if tuple(tensor.shape) != tuple(own[key].shape):
                raise ValueError(
                    f"state_dict[{key!r}]: expected shape {list(own[key].shape)}, got {list(tensor.shape)}"
                )
            tensors[key] = tensor
        self.model.load_state_dict(tensors, strict=True)
        if self.fuse_batch_norm:
            # Copy into the existing inference module, so a compiled graph keeps its parameters.
            self._inference.load_state_dict(fuse_conv_batch_norm(self.model).state_dict(), strict=True)
        self.weights_version = version

    load_state_dict = set_weights

    def get_weights(self) -> dict[str, torch.Tensor]:
        """A CPU copy of the model's state dict (safe to ``ray.put`` or save)."""
        return {key: value.detach().to("cpu", copy=True) for key, value in self.model.state_dict().items()}
