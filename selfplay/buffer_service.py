"""The replay buffer as a service: a plain class that ``trainer.actors`` runs as one Ray actor.

Self-play workers push finished games (``add_games``); the trainer pulls several batches per call
(``sample_batches``) to keep round trips few. A record that fails validation is rejected and
counted, never half-inserted, and never stops the service.
"""

from __future__ import annotations

import logging

import games
from selfplay.records import GameRecord
from selfplay.replay_buffer import Batch, ReplayBuffer, WindowGrowth

log = logging.getLogger(__name__)


class ReplayBufferService:
    """Owns a ``ReplayBuffer`` for one game.

    Args:
        game_name: registry id.
        capacity_positions: positions in the sliding window.
        min_positions_to_sample: positions before sampling is allowed.
        seed: seeds the sampling generator.
        window_growth_start: None for a fixed window of ``capacity_positions``; else KataGo's
            growing window (``selfplay.replay_buffer.WindowGrowth``) starting at this many positions.
        validation_every: ``k`` > 0 holds out every game whose id is a multiple of ``k`` for
            validation (never trained on); 0 holds out none.
    """

    def __init__(
        self,
        game_name: str,
        capacity_positions: int,
        min_positions_to_sample: int,
        seed: int,
        window_growth_start: int | None = None,
        validation_every: int = 0,
    ) -> None:
        growth = None if window_growth_start is None else WindowGrowth(c=int(window_growth_start))
        self.buffer = ReplayBuffer(
            capacity_positions,
            games.make(game_name),
            seed=seed,
            window_growth=growth,
            min_positions_to_sample=max(1, min_positions_to_sample),
            validation_every=validation_every,
        )
        self.rejected_games = 0
        self.last_rejection = ""

    def add_games(self, records: list[GameRecord]) -> int:
        """Insert whole games; returns how many were accepted."""
        accepted = 0
        for record in records:
            try:
                self.buffer.add_game(record)
                accepted += 1
            except ValueError as exc:
                self.rejected_games += 1
                self.last_rejection = str(exc)
                log.warning("replay buffer rejected game %s: %s", getattr(record, "game_id", "?"), exc)
        return accepted

    def sample_batches(self, num_batches: int, batch_size: int) -> list[Batch]:
        """``num_batches`` uniform batches with symmetry augmentation (empty list if too small)."""
        if not self.buffer.can_sample(0, batch_size):
            return []
        return [self.buffer.sample(batch_size) for _ in range(num_batches)]

    def validation_batch(self, batch_size: int) -> Batch | None:
        """``batch_size`` held-out positions (no symmetry), or None while none is held out."""
        if self.buffer.validation_size == 0:
            return None
        return self.buffer.sample_validation(batch_size)

    def fetch(self, num_batches: int, batch_size: int) -> tuple[list[Batch], dict]:
        """``sample_batches`` and ``stats`` in one call (one round trip per trainer loop)."""
        return self.sample_batches(num_batches, batch_size), self.stats()

    def stats(self) -> dict:
        return {
            "games_added": self.buffer.games_added,
            "positions_added": self.buffer.positions_added,
            "size": self.buffer.size,
            "rejected_games": self.rejected_games,
        }

    def state_dict(self) -> dict:
        return self.buffer.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.buffer.load_state_dict(state)

    def save(self, path: str) -> str:
        return str(self.buffer.save(path))

    def load(self, path: str) -> None:
        self.buffer.load(path)
