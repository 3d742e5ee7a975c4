"""The learner's settings (torch-free, so the config schema imports them without torch)."""

from __future__ import annotations

from dataclasses import dataclass

from games.checks import check_choice, check_int, check_number
from networks.config import check_device

OPTIMIZERS = ("sgd", "adamw")
LR_SCHEDULES = ("constant", "cosine", "step", "wsd")


@dataclass(frozen=True)
class LearnerConfig:
    """The learner's settings, one set of defaults (``trainer.config.TrainerSchema`` takes its
    defaults from here, and ``trainer.config.learner_config`` builds one from a run's config).

    Attributes (the formulas of the schedules and of weight decay are in ``trainer/learner.py``):
        optimizer: ``"sgd"`` (momentum, Nesterov off) or ``"adamw"``.
        learning_rate: base learning rate ``lr0``, > 0.
        momentum: SGD momentum in [0, 1) (ignored by AdamW).
        weight_decay: >= 0; what it means per optimiser is in ``trainer/learner.py``.
        lr_schedule: ``"constant"``, ``"cosine"``, ``"step"`` or ``"wsd"``.
        lr_schedule_samples: ``S`` in samples: the cosine decay length or the step interval.
        lr_warmup_samples: linear warm-up length in samples (0 = none).
        lr_min_ratio: cosine floor as a fraction of ``lr0``, in [0, 1].
        lr_step_gamma: step-schedule factor, in (0, 1].
        lr_decay_fraction: the last fraction of the budget over which ``"wsd"`` decays, in (0, 1].
        grad_clip: maximum global gradient L2 norm, > 0, or ``None`` for no clipping.
        value_weight: weight of the value MSE in the loss (1 in the paper).
        device: ``"auto"`` (CUDA when present), ``"cpu"`` or ``"cuda"`` (``networks.evaluator.resolve_device``).
        max_consecutive_skips: raise after this many non-finite batches in a row, >= 1.
        bf16_autocast: ``None`` = on exactly when the device is CUDA; False turns it off. True on
            CPU is rejected (bf16 autocast is for the GPU only).

    Raises:
        ValueError: for a field out of its range above, one message naming the field, the range
            and the value (``games.checks``). Rules that join two fields (a ``"cosine"`` or
            ``"step"`` schedule needs ``lr_schedule_samples``) are ``trainer.learner.learning_rate_at``'s.
    """

    optimizer: str = "adamw"
    learning_rate: float = 2e-3
    momentum: float = 0.9
    weight_decay: float = 1e-4
    lr_schedule: str = "constant"
    lr_schedule_samples: int | None = None
    lr_warmup_samples: int = 0
    lr_min_ratio: float = 0.0
    lr_step_gamma: float = 0.1
    lr_decay_fraction: float = 0.2
    grad_clip: float | None = 5.0
    value_weight: float = 1.0
    device: str = "auto"
    max_consecutive_skips: int = 10
    bf16_autocast: bool | None = None

    def __post_init__(self) -> None:
        check_choice("optimizer", self.optimizer, sorted(OPTIMIZERS))
        check_number("learning_rate", self.learning_rate, 0, low_open=True)
        check_number("momentum", self.momentum, 0.0, 1.0, high_open=True)
        check_number("weight_decay", self.weight_decay, 0)
        check_choice("lr_schedule", self.lr_schedule, LR_SCHEDULES)
        if self.lr_schedule_samples is not None:
            check_int("lr_schedule_samples", self.lr_schedule_samples, 1)
        check_int("lr_warmup_samples", self.lr_warmup_samples, 0)
        check_number("lr_min_ratio", self.lr_min_ratio, 0.0, 1.0)
        check_number("lr_step_gamma", self.lr_step_gamma, 0, 1, low_open=True)
        check_number("lr_decay_fraction", self.lr_decay_fraction, 0, 1, low_open=True)
        if self.grad_clip is not None:
            check_number("grad_clip", self.grad_clip, 0, low_open=True)
        check_number("value_weight", self.value_weight, 0)
        check_device("device", self.device)
        check_int("max_consecutive_skips", self.max_consecutive_skips, 1)
        check_choice("bf16_autocast", self.bf16_autocast, (None, False, True))


#: the defaults of ``trainer.learner.Learner`` and of the ``trainer`` section of ``trainer/config.py``
LEARNER_DEFAULTS = LearnerConfig()
