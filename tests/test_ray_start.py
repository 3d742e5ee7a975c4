"""The local Ray a run starts (``trainer/actors.py``): its workers run at the driver's priority."""

from __future__ import annotations

import os

import ray

from trainer.actors import start_ray
from trainer.config import RaySchema


def test_local_ray_workers_run_at_the_drivers_niceness():
    """Ray's default makes every worker 15 nicer than the driver, which starves self-play on a
    small machine whenever the learner is busy."""
    assert not ray.is_initialized()
    assert start_ray(RaySchema(num_cpus=1)) is True
    try:
        @ray.remote(num_cpus=1)
        def niceness() -> int:
            return os.nice(0)

        assert ray.get(niceness.remote()) == os.nice(0)
        assert start_ray(RaySchema(num_cpus=1)) is False  # already up in this process
    finally:
        ray.shutdown()
