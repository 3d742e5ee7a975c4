"""The learner: one optimiser step per batch, with a learning-rate schedule counted in samples and a
guard against non-finite losses and gradients.

One :meth:`Learner.train_step` does, for a batch sampled from the replay buffer:

1. set the learning rate from the schedule at ``samples_trained`` (schedules count *samples*, as
   KataGo does, so they survive a change of batch size);
2. forward pass (bf16 autocast on CUDA only; the loss is computed in float32); on the CPU the
   observations enter in the channels-last memory layout (NHWC strides, the same values), which
   oneDNN's convolutions run faster: 1.2-1.4x fewer CPU seconds a step for the Connect Four b4c32
   network at batch 256, one thread (``scripts/bench_learner.py``); the weights keep the default
   layout, so snapshots, checkpoints and exports are unchanged;
3. the AlphaZero loss (:func:`trainer.losses.alphazero_loss`, Silver et al. 2017, eq. (1));
4. backward, gradient-norm clipping (``torch.nn.utils.clip_grad_norm_``), optimiser step.

Non-finite guard. If the loss or the gradient norm is NaN or infinite, the batch is
skipped: no optimiser step, gradients cleared, and the model's buffers (BatchNorm running
statistics, which the forward pass already updated) restored to their values before the batch, so
the weights stay finite. Skips are counted (``num_skipped``) and reported in the metrics; after
``max_consecutive_skips`` skips in a row :meth:`train_step` raises ``RuntimeError``.

Weight decay. ``optimizer="sgd"``: SGD with momentum (AlphaZero's choice, Silver et al. 2018,
supplementary "Training") whose ``weight_decay`` is the L2 term ``c ||theta||^2`` of eq. (1) with
``c = weight_decay / 2``. ``optimizer="adamw"``: AdamW, decoupled weight decay (Loshchilov &
Hutter 2019). It applies to every parameter.

Learning-rate schedules (``s`` = samples trained, ``S`` = ``lr_schedule_samples``, ``lr0`` =
``learning_rate``, then multiplied by a linear warm-up ``min(1, (s + 1) / lr_warmup_samples)`` when
``lr_warmup_samples > 0``):

* ``"constant"``: ``lr0``.
* ``"cosine"``: ``lr_min + (lr0 - lr_min) * (1 + cos(pi * min(s, S) / S)) / 2`` with ``lr_min =
  lr_min_ratio * lr0`` (Loshchilov & Hutter 2017, SGDR, eq. (5) without restarts).
* ``"step"``: ``lr0 * lr_step_gamma ** floor(s / S)`` (AlphaGo Zero's step drops, Methods).
* ``"wsd"`` (warmup-stable-decay; Hu et al. 2024, "MiniCPM", sec. 4.1): ``lr0`` until the last
  ``f = lr_decay_fraction`` of the run's budget, then a linear decay to ``lr_min`` at its end:
  ``lr_min + (lr0 - lr_min) * min(1, (1 - p) / f)``, where ``p`` in [0, 1] is the fraction of the
  budget spent (:attr:`Learner.budget_progress`, set by ``trainer/loop.py`` from
  ``trainer.schedule.Schedule.budget_progress``: wall clock of ``run.max_minutes`` or steps of
  ``run.max_steps``, whichever is further on). Counted in the budget rather than in samples
  because a run of N minutes cannot know how many samples it will train: the decay ends when the
  run does, on a fast machine or a slow one.
"""

from __future__ import annotations

import math
from collections.abc import Mapping

import numpy as np
import torch

from games.checks import check_number
from networks.evaluator import resolve_device
from networks.model_utils import weights_hash  # noqa: F401  (re-exported: trainer.learner.weights_hash)
from trainer.learner_config import LEARNER_DEFAULTS, LR_SCHEDULES, LearnerConfig
from trainer.losses import alphazero_loss

#: Keys of :meth:`Learner.state_dict`.
STATE_KEYS = ("model", "optimizer", "scheduler", "counters", "hyperparameters")


def learning_rate_at(
    samples_trained: int,
    learning_rate: float,
    lr_schedule: str = "constant",
    lr_schedule_samples: int | None = None,
    lr_warmup_samples: int = 0,
    lr_min_ratio: float = 0.0,
    lr_step_gamma: float = 0.1,
    lr_decay_fraction: float = 0.2,
    budget_progress: float = 0.0,
) -> float:
    """Learning rate after ``samples_trained`` samples (see the module docstring for the formulas).

    ``budget_progress`` (the fraction of the run's budget spent, in [0, 1]) is read by ``"wsd"``
    only.

    Raises:
        ValueError: for an unknown schedule, ``"cosine"``/``"step"`` without
            ``lr_schedule_samples >= 1``, ``lr_decay_fraction`` outside (0, 1] or
            ``budget_progress`` outside [0, 1].
    """
    if lr_schedule not in LR_SCHEDULES:
        raise ValueError(f"lr_schedule: expected one of {list(LR_SCHEDULES)}, got {lr_schedule!r}")
    if not 0.0 < lr_decay_fraction <= 1.0:
        raise ValueError(f"lr_decay_fraction: expected a number in (0, 1], got {lr_decay_fraction!r}")
    if not 0.0 <= budget_progress <= 1.0:
        raise ValueError(f"budget_progress: expected a number in [0, 1], got {budget_progress!r}")
    if lr_schedule in ("cosine", "step") and (lr_schedule_samples is None or lr_schedule_samples < 1):
        raise ValueError(
            f"lr_schedule_samples: expected an int >= 1 for the {lr_schedule!r} schedule, "
            f"got {lr_schedule_samples!r}"
        )
    s = float(samples_trained)
    if lr_schedule == "constant":
        lr = learning_rate
    elif lr_schedule == "cosine":
        progress = min(s, lr_schedule_samples) / lr_schedule_samples
        lr_min = lr_min_ratio * learning_rate
        lr = lr_min + (learning_rate - lr_min) * 0.5 * (1.0 + math.cos(math.pi * progress))
    elif lr_schedule == "wsd":
        lr_min = lr_min_ratio * learning_rate
        lr = lr_min + (learning_rate - lr_min) * min(1.0, (1.0 - budget_progress) / lr_decay_fraction)
    else:
        lr = learning_rate * lr_step_gamma ** math.floor(s / lr_schedule_samples)
    if lr_warmup_samples > 0:
        lr *= min(1.0, (s + 1.0) / lr_warmup_samples)
    return float(lr)


class Learner:
    """Owns the model's training: optimiser, learning-rate schedule, counters, non-finite guard.

    Args:
        model: a policy/value network (``forward(obs [B, C, H, W]) -> (logits [B, A], value [B])``,
            e.g. from :func:`networks.build_network`); moved to ``config.device``.
        config: the frozen ``trainer.learner_config.LearnerConfig`` (``trainer.config.learner_config``
            builds it from a run's config; its fields are documented there).

    Raises:
        ValueError: for a ``config`` that is not a ``LearnerConfig``, or a field out of range
            (expected vs actual).
    """

    def __init__(self, model: torch.nn.Module, config: LearnerConfig = LEARNER_DEFAULTS) -> None:
        if not isinstance(config, LearnerConfig):
            raise ValueError(f"config: expected a trainer.learner.LearnerConfig, got {type(config).__name__}")
        if not isinstance(model, torch.nn.Module):
            raise ValueError(f"model: expected a torch.nn.Module, got {type(model).__name__}")
        # the ranges are LearnerConfig's own (trainer/learner_config.py)
        self.hyperparameters = {
            "optimizer": config.optimizer,
            "learning_rate": float(config.learning_rate),
            "momentum": float(config.momentum),
            "weight_decay": float(config.weight_decay),
            "lr_schedule": config.lr_schedule,
            "lr_schedule_samples": None if config.lr_schedule_samples is None else int(config.lr_schedule_samples),
            "lr_warmup_samples": int(config.lr_warmup_samples),
            "lr_min_ratio": float(config.lr_min_ratio),
            "lr_step_gamma": float(config.lr_step_gamma),
            "lr_decay_fraction": float(config.lr_decay_fraction),
            "grad_clip": None if config.grad_clip is None else float(config.grad_clip),
            "value_weight": float(config.value_weight),
            "max_consecutive_skips": int(config.max_consecutive_skips),
        }
        # validates the schedule name and its length once, up front
        learning_rate_at(0, **self._schedule_arguments())
        self.device = resolve_device(config.device)
        bf16_autocast = self.device.type == "cuda" if config.bf16_autocast is None else config.bf16_autocast
        if bf16_autocast and self.device.type != "cuda":
            raise ValueError(f"bf16_autocast: only supported on CUDA, but the device is {self.device}")
        self.bf16_autocast = bool(bf16_autocast)
        self.model = model.to(self.device)
        parameters = [p for p in self.model.parameters() if p.requires_grad]
        if not parameters:
            raise ValueError("model: has no trainable parameters")
        hp = self.hyperparameters
        if config.optimizer == "sgd":
            self.optimizer: torch.optim.Optimizer = torch.optim.SGD(
                parameters, lr=hp["learning_rate"], momentum=hp["momentum"], weight_decay=hp["weight_decay"]
            )
        else:
            self.optimizer = torch.optim.AdamW(
                parameters, lr=hp["learning_rate"], weight_decay=hp["weight_decay"]
            )
        self.steps = 0
        self.samples_trained = 0
        self._budget_progress = 0.0
        self.num_skipped = 0
        self.consecutive_skips = 0

    # ------------------------------------------------------------------ schedule
    def _schedule_arguments(self) -> dict:
        hp = self.hyperparameters
        return {
            "learning_rate": hp["learning_rate"],
            "lr_schedule": hp["lr_schedule"],
            "lr_schedule_samples": hp["lr_schedule_samples"],
            "lr_warmup_samples": hp["lr_warmup_samples"],
            "lr_min_ratio": hp["lr_min_ratio"],
            "lr_step_gamma": hp["lr_step_gamma"],
            "lr_decay_fraction": hp["lr_decay_fraction"],
        }

    @property
    def learning_rate(self) -> float:
        """The learning rate the next step will use (float)."""
        return learning_rate_at(
            self.samples_trained, **self._schedule_arguments(), budget_progress=self.budget_progress
        )

    @property
    def budget_progress(self) -> float:
        """Fraction of the run's budget spent, in [0, 1] (float; read by the ``"wsd"`` schedule)."""
        return self._budget_progress

    @budget_progress.setter
    def budget_progress(self, value: float) -> None:
        self._budget_progress = check_number("budget_progress", value, 0.0, 1.0)

    # ------------------------------------------------------------------ training
    def _batch_tensors(self, batch) -> tuple[torch.Tensor, ...]:
        names = ("observations", "legal_masks", "policies", "values")
        tensors = []
        for name in names:
            value = batch.get(name) if isinstance(batch, Mapping) else getattr(batch, name, None)
            if value is None:
                raise ValueError(
                    f"batch: missing field {name!r}; expected a replay_buffer.Batch or a mapping"
                )
            if isinstance(value, np.ndarray) and not value.flags.writeable:
                value = value.copy()  # batches that arrive through Ray's object store are read-only
            tensors.append(torch.as_tensor(value).to(self.device, non_blocking=True))
        observations, legal_masks, policies, values = tensors
        size = values.shape[0] if values.dim() == 1 else -1
        if size < 1 or observations.dim() != 4 or observations.shape[0] != size:
            raise ValueError(
                f"batch: expected observations [B, C, H, W] and values [B] with B >= 1, got "
                f"{list(observations.shape)} and {list(values.shape)}"
            )
        weights = batch.get("policy_weights") if isinstance(batch, Mapping) else getattr(batch, "policy_weights", None)
        if weights is not None:
            weights = torch.as_tensor(np.array(weights, dtype=np.float32)).to(self.device, non_blocking=True)
        observations = observations.float()
        if self.device.type == "cpu":
            observations = observations.contiguous(memory_format=torch.channels_last)
        return observations, legal_masks.bool(), policies.float(), values.float(), weights

    def train_step(self, batch) -> dict:
        """One optimiser step on ``batch`` (or a skip, if the loss or gradient is not finite).

        Args:
            batch: a :class:`selfplay.replay_buffer.Batch`, or a mapping with ``observations``
                ``[B, C, H, W]`` float32, ``legal_masks`` ``[B, A]`` bool, ``policies`` ``[B, A]``
                float32 and ``values`` ``[B]`` float32 (numpy arrays or tensors).

        Returns:
            Plain Python metrics: ``policy_loss``, ``value_loss``, ``total_loss`` (nats / squared
            value units; NaN possible on a skipped batch), ``policy_entropy`` (nats),
            ``learning_rate``, ``grad_norm`` (global L2 norm before clipping; NaN if the loss was
            not finite), ``skipped`` (bool), ``num_skipped`` (total), ``steps`` and
            ``samples_trained`` (after this call).

        Raises:
            ValueError: if the batch lacks a field or has inconsistent shapes.
            RuntimeError: after ``max_consecutive_skips`` non-finite batches in a row.
        """
        observations, legal_masks, policies, values, policy_weights = self._batch_tensors(batch)
        batch_size = int(values.shape[0])
        lr = self.learning_rate
        for group in self.optimizer.param_groups:
            group["lr"] = lr
        self.model.train()
        saved_buffers = [buffer.detach().clone() for buffer in self.model.buffers()]
        self.optimizer.zero_grad(set_to_none=True)
        with torch.autocast(device_type=self.device.type, dtype=torch.bfloat16, enabled=self.bf16_autocast):
            policy_logits, value = self.model(observations)
        total, parts = alphazero_loss(
            policy_logits.float(),
            value.float(),
            policies,
            values,
            legal_masks,
            self.hyperparameters["value_weight"],
            policy_weights,
        )
        reason = None
        grad_norm = torch.tensor(float("nan"))
        if not bool(torch.isfinite(total)):
            reason = "non-finite loss"
        else:
            total.backward()
            max_norm = self.hyperparameters["grad_clip"]
            parameters = [p for group in self.optimizer.param_groups for p in group["params"]]
            grad_norm = torch.nn.utils.clip_grad_norm_(
                parameters, max_norm if max_norm is not None else math.inf
            )
            if not bool(torch.isfinite(grad_norm)):
                reason = "non-finite gradient"
        if reason is None:
            self.optimizer.step()
            self.steps += 1
            self.samples_trained += batch_size
            self.consecutive_skips = 0
        else:
            self.optimizer.zero_grad(set_to_none=True)
            with torch.no_grad():
                for buffer, saved in zip(self.model.buffers(), saved_buffers):
                    buffer.copy_(saved)
            self.num_skipped += 1
            self.consecutive_skips += 1
        numbers = torch.stack(
            [
                parts["policy_loss"],
                parts["value_loss"],
                total.detach(),
                parts["policy_entropy"],
                grad_norm.detach().float().to(total.device),
            ]
        ).tolist()
        metrics = {
            "policy_loss": numbers[0],
            "value_loss": numbers[1],
            "total_loss": numbers[2],
            "policy_entropy": numbers[3],
            "grad_norm": numbers[4],
            "learning_rate": lr,
            "skipped": reason is not None,
            "num_skipped": self.num_skipped,
            "steps": self.steps,
            "samples_trained": self.samples_trained,
        }
        if reason is not None and self.consecutive_skips >= self.hyperparameters["max_consecutive_skips"]:
            raise RuntimeError(
                f"{self.consecutive_skips} consecutive batches skipped (last: {reason}, policy loss "
                f"{metrics['policy_loss']}, value loss {metrics['value_loss']}) at step {self.steps}; the "
                "weights are left as they were before these batches. Check the replay data for NaN and "
                f"lower the learning rate (now {lr})."
            )
        return metrics

    def evaluate_losses(self, batch) -> dict:
        """The loss terms on ``batch`` without training: eval mode (BatchNorm running statistics),
        no gradient, no change to the weights or counters; e.g. on held-out validation games.

        Args:
            batch: as :meth:`train_step`.

        Returns:
            ``{"policy_loss", "value_loss", "total_loss", "policy_entropy"}`` as floats (nats /
            squared value units), with the terms of :func:`trainer.losses.alphazero_loss`.

        Raises:
            ValueError: as :meth:`train_step`.
        """
        observations, legal_masks, policies, values, policy_weights = self._batch_tensors(batch)
        was_training = self.model.training
        self.model.eval()
        try:
            with torch.no_grad():
                policy_logits, value = self.model(observations)
                total, parts = alphazero_loss(
                    policy_logits.float(), value.float(), policies, values, legal_masks,
                    self.hyperparameters["value_weight"], policy_weights,
                )
        finally:
            self.model.train(was_training)
        return {
            "policy_loss": float(parts["policy_loss"]),
            "value_loss": float(parts["value_loss"]),
            "total_loss": float(total),
            "policy_entropy": float(parts["policy_entropy"]),
        }

    # ------------------------------------------------------------------ inspection
    def weights_finite(self) -> bool:
        """True if every floating parameter and buffer of the model is finite."""
        with torch.no_grad():
            return all(
                bool(torch.isfinite(t).all())
                for t in self.model.state_dict().values()
                if t.is_floating_point()
            )

    def snapshot(self) -> dict[str, torch.Tensor]:
        """A CPU copy of the model's ``state_dict`` (never views of the live weights), e.g. for
        publishing weights or keeping the best model (an optimiser step never changes a snapshot)."""
        return {
            name: tensor.detach().to("cpu", copy=True) for name, tensor in self.model.state_dict().items()
        }

    def weights_hash(self) -> str:
        """:func:`weights_hash` of the current model."""
        return weights_hash(self.model)

    # ------------------------------------------------------------------ state
    def state_dict(self) -> dict:
        """Model, optimiser, scheduler and counters, as tensors and plain Python values.

        Returns:
            ``{"model": {name: tensor}, "optimizer": torch optimiser state dict, "scheduler":
            {"samples_trained": int, **schedule settings}, "counters": {"steps", "samples_trained",
            "num_skipped", "consecutive_skips": int}, "hyperparameters": dict}``. Tensors stay on
            the learner's device; :mod:`trainer.checkpoint` moves them to CPU.
        """
        return {
            "model": self.model.state_dict(),
            "optimizer": self.optimizer.state_dict(),
            "scheduler": {"samples_trained": self.samples_trained, **self._schedule_arguments()},
            "counters": {
                "steps": self.steps,
                "samples_trained": self.samples_trained,
                "num_skipped": self.num_skipped,
                "consecutive_skips": self.consecutive_skips,
            },
            "hyperparameters": dict(self.hyperparameters),
        }

    def load_state_dict(self, state: Mapping) -> None:
        """Restore from :meth:`state_dict` output.

        This object's hyperparameters (learning rate, schedule, weight decay, clipping) stay in
        force: the schedule continues from the restored ``samples_trained``. The optimiser kind must
        match, since its moment buffers cannot be converted.

        Raises:
            ValueError: naming the mismatch, for missing or extra top-level keys, model keys or
                parameter shapes that do not fit, or another optimiser kind.
        """
        if not isinstance(state, Mapping):
            raise ValueError(f"learner state: expected a dict, got {type(state).__name__}")
        missing = sorted(set(STATE_KEYS) - set(state))
        extra = sorted(set(state) - set(STATE_KEYS))
        if missing or extra:
            raise ValueError(f"learner state: missing keys {missing}, unexpected keys {extra}")
        saved_optimizer = state["hyperparameters"].get("optimizer")
        if saved_optimizer != self.hyperparameters["optimizer"]:
            raise ValueError(
                f"learner state: optimizer expected {self.hyperparameters['optimizer']!r}, "
                f"got {saved_optimizer!r}"
            )
        own = self.model.state_dict()
        model_state = state["model"]
        missing = sorted(set(own) - set(model_state))
        extra = sorted(set(model_state) - set(own))
        if missing or extra:
            raise ValueError(f"learner state: model missing keys {missing}, unexpected keys {extra}")
        for name, tensor in model_state.items():
            if tuple(tensor.shape) != tuple(own[name].shape):
                raise ValueError(
                    f"learner state: model[{name!r}] has shape {list(tensor.shape)}, "
                    f"this network expects {list(own[name].shape)}"
                )
        counters = state["counters"]
        for key in ("steps", "samples_trained", "num_skipped", "consecutive_skips"):
            if key not in counters:
                raise ValueError(f"learner state: counters missing key {key!r}")
        saved_groups = (
            state["optimizer"].get("param_groups", []) if isinstance(state["optimizer"], Mapping) else []
        )
        own_sizes = [len(group["params"]) for group in self.optimizer.param_groups]
        saved_sizes = [len(group.get("params", [])) for group in saved_groups]
        if saved_sizes != own_sizes:
            raise ValueError(
                f"learner state: optimizer parameter groups hold {saved_sizes} parameters, "
                f"expected {own_sizes}"
            )
        self.model.load_state_dict(model_state, strict=True)
        self.optimizer.load_state_dict(state["optimizer"])
        # the saved param groups carry the old hyperparameters; this object's settings win
        hp = self.hyperparameters
        for group in self.optimizer.param_groups:
            group["weight_decay"] = hp["weight_decay"]
            if hp["optimizer"] == "sgd":
                group["momentum"] = hp["momentum"]
        self.steps = int(counters["steps"])
        self.samples_trained = int(counters["samples_trained"])
        self.num_skipped = int(counters["num_skipped"])
        self.consecutive_skips = int(counters["consecutive_skips"])
        for group in self.optimizer.param_groups:
            group["lr"] = self.learning_rate
