"""TensorBoard logging with namespaced metric names (CleanRL's habit): ``train/``, ``selfplay/``,
``arena/``, ``perf/``. The x axis is the optimiser step."""

from __future__ import annotations

import json
from pathlib import Path


class MetricsWriter:
    """Thin wrapper over ``torch.utils.tensorboard.SummaryWriter``.

    Args:
        log_dir: the run's ``tensorboard/`` folder.
        purge_step: on resume, the step the run continues from; events at or after it written by
            the interrupted run are dropped by TensorBoard, so no step appears twice.
    """

    def __init__(self, log_dir: Path, purge_step: int | None = None) -> None:
        # heavy dependency (torch): imported where it is used
        from torch.utils.tensorboard import SummaryWriter

        self.writer = SummaryWriter(log_dir=str(log_dir), purge_step=purge_step)

    def scalars(self, values: dict[str, float], step: int) -> None:
        for name, value in values.items():
            if value is not None:
                self.writer.add_scalar(name, float(value), step)

    def config(self, config_dict: dict, hparams: dict[str, float | int | str | bool]) -> None:
        """The resolved config as text, and the run's hyper-parameters once."""
        self.writer.add_text("config", "```\n" + json.dumps(config_dict, indent=2) + "\n```", 0)
        self.writer.add_hparams(hparams, {"hparam/ready": 1.0}, run_name=".")

    def text(self, tag: str, text: str, step: int) -> None:
        self.writer.add_text(tag, text, step)

    def flush(self) -> None:
        self.writer.flush()

    def close(self) -> None:
        self.writer.close()


def flat_hparams(config_dict: dict) -> dict:
    """Flatten a nested config to ``section.key`` -> scalar for ``add_hparams``."""
    out = {}
    for section, values in config_dict.items():
        if isinstance(values, dict):
            for key, value in values.items():
                if isinstance(value, (int, float, str, bool)):
                    out[f"{section}.{key}"] = value
                elif value is not None:
                    out[f"{section}.{key}"] = str(value)
    return out
