"""When may the learner take a batch: the replay-ratio rule, in one place.

The replay ratio is training samples per new self-play position. With a limit ``r``, after
``P`` positions entered the training split and ``S`` samples were trained, another batch of
``B`` is allowed while ``S + B <= r * P``: the learner does not overfit old data while self-play
lags (KataGo, Wu 2019, arXiv:1902.10565, sec. 5, bounds the same ratio). And no batch is drawn
before the window holds ``max(min_positions, B)`` positions, so the first steps do not train on
a handful of games. :meth:`selfplay.replay_buffer.ReplayBuffer.can_sample`, the buffer service
and ``trainer.schedule`` all ask these two functions.
"""

from __future__ import annotations

import math

from games.checks import is_int


def batches_allowed(
    samples_trained: int, positions_added: int, batch_size: int, replay_ratio: float | None
) -> float:
    """How many more batches of ``batch_size`` the replay ratio allows: ``floor((r * P - S) / B)``,
    at least 0; ``math.inf`` without a limit (``replay_ratio=None``).

    Args:
        samples_trained: ``S``, samples (positions) trained so far, >= 0.
        positions_added: ``P``, positions ever added to the training split, >= 0.
        batch_size: ``B``, >= 1.
        replay_ratio: ``r`` > 0, or None for no limit.

    Raises:
        ValueError: for a ratio <= 0 (or not finite), a batch size < 1, or a negative count.
    """
    if not is_int(batch_size) or batch_size < 1:
        raise ValueError(f"batch_size: expected an int >= 1, got {batch_size!r}")
    if samples_trained < 0 or positions_added < 0:
        raise ValueError(
            "samples_trained, positions_added: expected counts >= 0, got "
            f"{samples_trained!r}, {positions_added!r}"
        )
    if replay_ratio is None:
        return math.inf
    if not (math.isfinite(float(replay_ratio)) and float(replay_ratio) > 0.0):
        raise ValueError(f"replay_ratio: expected a finite value > 0 or None, got {replay_ratio!r}")
    return max(0, math.floor((float(replay_ratio) * positions_added - samples_trained) / batch_size))


def enough_positions(size: int, batch_size: int, min_positions: int) -> bool:
    """True when a window of ``size`` positions may be sampled: ``size >= max(min_positions, batch_size)``."""
    return size >= max(min_positions, batch_size)
