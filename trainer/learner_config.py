"""The learner's settings (torch-free, so the config schema imports them without torch)."""

from __future__ import annotations

from dataclasses import dataclass

OPTIMIZERS = ("sgd", "adamw")
LR_SCHEDULES = ("constant", "cosine", "step", "wsd")


@dataclass(frozen=True)
class LearnerConfig:
    """The learner's settings, one set of defaults (``trainer.config.TrainerSchema`` takes its
    defaults from here, and ``trainer.config.learner_config`` builds one from a run's config).

    Attributes: the keyword arguments of ``trainer.learner.Learner`` of the same names (see
    ``trainer/learner.py`` for the schedules' formulas).
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


#: the defaults of ``trainer.learner.Learner`` and of the ``trainer`` section of ``trainer/config.py``
LEARNER_DEFAULTS = LearnerConfig()
