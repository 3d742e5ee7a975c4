"""The one place where plain worker classes become Ray actors (muzero-general's roles, but each
class stays testable without Ray). Only plain Python values cross into Ray (no DictConfig, no unresolved interpolation; everything pickles)."""

from __future__ import annotations

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
