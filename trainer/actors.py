"""The one place where plain worker classes become Ray actors (muzero-general's roles, but each
class stays testable without Ray). Only plain Python values cross into Ray (no DictConfig, no unresolved interpolation; everything pickles)."""

from __future__ import annotations

import logging
import os

import numpy as np
import ray

from arena.gating import GatingWorker
from selfplay.buffer_service import ReplayBufferService
from selfplay.worker import SelfPlayWorker


class _SelfPlayActor(SelfPlayWorker):
    """A ``SelfPlayWorker`` whose finished games go straight to the replay-buffer actor."""

    def __init__(self, buffer, **kwargs) -> None:
        super().__init__(**kwargs, sink=lambda records: buffer.add_games.remote(records))

    def node_id(self) -> str:
        """The Ray node this actor runs on (the run records where its actors were placed)."""
        return ray.get_runtime_context().get_node_id()


SelfPlayActor = ray.remote(max_restarts=0)(_SelfPlayActor)
ReplayBufferActor = ray.remote(max_restarts=0)(ReplayBufferService)
GatingActor = ray.remote(max_restarts=0)(GatingWorker)


def actor_seed(run_seed: int, incarnation: int) -> int:
    """The int seed of the actor started ``incarnation``-th (1, 2, ...) in its role: a 32-bit word of
    ``numpy.random.SeedSequence([run_seed, incarnation])``, so every incarnation of a run, resumes
    included, has its own stream (self-play workers mix the same pair into their generator,
    ``selfplay.worker.SelfPlayWorker``)."""
    return int(np.random.SeedSequence([int(run_seed), int(incarnation)]).generate_state(1)[0])


#: Task events the GCS of a local Ray keeps (Ray's default: 100,000). A run sends tens of small
#: tasks a second (self-play calls, games to the buffer, batches), so with the default the GCS grew
#: by about 4 MiB a minute for the first half hour (scripts/soak.py, docs/reliability.md).
RAY_TASK_EVENTS_KEPT = 10_000

#: How much nicer than the driver Ray's workers run (Ray's default: 15). At 15 the self-play,
#: buffer and gating actors get almost no CPU whenever the learner (the driver) or anything else
#: at normal priority is busy, so on a small machine self-play starves; at 0 they share the CPU
#: with the learner as equals, and the replay ratio (``trainer/schedule.py``) sets the balance.
RAY_WORKER_NICENESS = 0


def start_ray(rc) -> bool:
    """Start Ray as ``config.ray`` (a ``trainer.config.RaySchema``) says; True if this call started it
    (False: Ray was already up in this process).

    ``rc.address`` set: join that cluster. Otherwise a new local Ray of this run's own
    (``address="local"``), even while another one runs on the machine, which a plain
    ``ray.init()`` would join.
    """
    if ray.is_initialized():
        return False
    kwargs = {"include_dashboard": rc.include_dashboard, "logging_level": logging.WARNING, "log_to_driver": True}
    if rc.address:
        ray.init(address=rc.address, **kwargs)
        return True
    system_config = {}
    if "RAY_task_events_max_num_task_in_gcs" not in os.environ:  # the user's setting wins
        system_config["task_events_max_num_task_in_gcs"] = RAY_TASK_EVENTS_KEPT
    if "RAY_worker_niceness" not in os.environ:
        system_config["worker_niceness"] = RAY_WORKER_NICENESS
    ray.init(
        address="local", num_cpus=rc.num_cpus, num_gpus=rc.num_gpus,
        object_store_memory=rc.object_store_memory, _system_config=system_config, **kwargs
    )
    return True
