"""The training run's schedule: when to train, publish weights, gate, checkpoint and stop.

A pure object of the run's settings: every answer is a function of counters passed in (learner
steps, samples trained, positions added, seconds), so tests reach it without Ray, and
``trainer/loop.py`` only asks it. Progress that depends on data volume is counted in samples and
positions, as KataGo's trainer counts it (Wu 2019, arXiv:1902.10565), through the replay-ratio
rule of ``selfplay/replay_ratio.py``.
"""

from __future__ import annotations

from dataclasses import dataclass

from selfplay.replay_ratio import batches_allowed, enough_positions


@dataclass(frozen=True)
class StepActions:
    """What the run does after optimiser step ``step``.

    Attributes:
        publish: send the learner's weights to self-play as the new best (gating off).
        gate: start a gating match of the learner's weights against the best (gating on).
        checkpoint: write a checkpoint.
    """

    publish: bool
    gate: bool
    checkpoint: bool


def checkpoint_due(
    step: int, seconds_since_checkpoint: float, every_steps: int | None, every_seconds: float | None
) -> bool:
    """Whether the run writes a checkpoint after optimiser step ``step``.

    A checkpoint is due when ``every_steps`` is set and ``step`` is a multiple of it, or when
    ``every_seconds`` is set and at least that many seconds passed since the last checkpoint (or
    since the run or its resume started), whichever comes first. The wall clock is the default
    (``trainer.checkpoint_every_minutes``): what a checkpoint costs is a file of the replay buffer's
    size, and counting in steps makes that cost follow the learner's speed (on today's Connect Four
    defaults, 500 steps pass in about 30 s; ``docs/reliability.md`` gives the disk written per hour).

    Args:
        step: optimiser steps so far, >= 1.
        seconds_since_checkpoint: wall-clock seconds since the last checkpoint was written.
        every_steps: an interval in optimiser steps, or None (not by steps).
        every_seconds: an interval in seconds, or None (not by the clock).
    """
    by_steps = every_steps is not None and step % every_steps == 0
    by_clock = every_seconds is not None and seconds_since_checkpoint >= every_seconds
    return bool(by_steps or by_clock)


@dataclass(frozen=True)
class Schedule:
    """Settings of ``config.trainer``, ``config.arena`` and ``config.run`` that time the run.

    Attributes:
        batch_size: samples per optimiser step.
        replay_ratio: at most this many samples trained per position added (> 0).
        batches_per_fetch: at most this many batches per request to the buffer.
        min_replay_positions: positions the window must hold before the first batch.
        publish_every_steps, gate_every_steps: intervals in optimiser steps.
        checkpoint_every_steps: checkpoint interval in optimiser steps, or None (not by steps).
        checkpoint_every_seconds: checkpoint interval in wall-clock seconds, or None (not by the
            clock); see :func:`checkpoint_due`.
        gating: True: candidates go through gating matches; False: every publish becomes the best.
        max_steps: stop at this many optimiser steps (None: no limit).
        max_seconds: stop after this many seconds since the start (None: no limit).
    """

    batch_size: int
    replay_ratio: float
    batches_per_fetch: int
    min_replay_positions: int
    publish_every_steps: int
    gate_every_steps: int
    checkpoint_every_steps: int | None
    gating: bool
    max_steps: int | None = None
    max_seconds: float | None = None
    checkpoint_every_seconds: float | None = None

    @classmethod
    def from_config(cls, config) -> Schedule:
        """The schedule of a ``trainer.config.TrainSchema``."""
        tr, ar, run = config.trainer, config.arena, config.run
        return cls(
            batch_size=tr.batch_size,
            replay_ratio=tr.replay_ratio,
            batches_per_fetch=tr.batches_per_fetch,
            min_replay_positions=tr.min_replay_positions,
            publish_every_steps=tr.publish_every_steps,
            gate_every_steps=ar.gate_every_steps,
            checkpoint_every_steps=tr.checkpoint_every_steps,
            gating=ar.gating,
            max_steps=run.max_steps,
            max_seconds=None if run.max_minutes is None else run.max_minutes * 60.0,
            checkpoint_every_seconds=(
                None if tr.checkpoint_every_minutes is None else tr.checkpoint_every_minutes * 60.0
            ),
        )

    def batches_to_fetch(self, samples_trained: int, positions_added: int, buffer_size: int) -> int:
        """Batches to request from the buffer now: 0 until the window holds enough positions, then
        what the replay ratio allows, at most ``batches_per_fetch``.

        Args:
            samples_trained: samples the learner has trained on.
            positions_added: positions the buffer ever accepted.
            buffer_size: positions in the buffer's window now.
        """
        if not enough_positions(buffer_size, self.batch_size, self.min_replay_positions):
            return 0
        allowed = batches_allowed(samples_trained, positions_added, self.batch_size, self.replay_ratio)
        return int(min(self.batches_per_fetch, allowed))

    def after_step(self, step: int, gate_in_flight: bool, seconds_since_checkpoint: float = 0.0) -> StepActions:
        """What to do after optimiser step ``step`` (>= 1); a gating match starts only when none is
        playing; ``seconds_since_checkpoint`` (wall clock) times the checkpoints
        (:func:`checkpoint_due`)."""
        return StepActions(
            publish=not self.gating and step % self.publish_every_steps == 0,
            gate=self.gating and step % self.gate_every_steps == 0 and not gate_in_flight,
            checkpoint=checkpoint_due(
                step, seconds_since_checkpoint, self.checkpoint_every_steps, self.checkpoint_every_seconds
            ),
        )

    def budget_progress(self, steps: int, elapsed_seconds: float) -> float:
        """Fraction of the run's budget spent, in [0, 1]: the larger of ``steps / max_steps`` and
        ``elapsed_seconds / max_seconds`` (a budget that is None counts 0), so it reaches 1 exactly
        when :meth:`stop_reason` stops the run. Read by the learner's ``"wsd"`` schedule."""
        fractions = [0.0]
        if self.max_steps is not None:
            fractions.append(steps / self.max_steps)
        if self.max_seconds is not None:
            fractions.append(elapsed_seconds / self.max_seconds)
        return float(min(1.0, max(0.0, *fractions)))

    def stop_reason(self, steps: int, elapsed_seconds: float) -> str | None:
        """``"max_steps"`` or ``"max_minutes"`` once a budget is spent, else None."""
        if self.max_steps is not None and steps >= self.max_steps:
            return "max_steps"
        if self.max_seconds is not None and elapsed_seconds >= self.max_seconds:
            return "max_minutes"
        return None
