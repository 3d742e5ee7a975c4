"""The replay buffer as a service: a plain class that ``trainer.actors`` runs as one Ray actor.

Self-play workers push finished games (``add_games``); the trainer pulls several batches per call
(``sample_batches``) to keep round trips few. A record that fails validation is rejected and
counted, never half-inserted, and never stops the service.
"""

from __future__ import annotations

import logging

import games
from selfplay.records import UNKNOWN_VERSION, GameRecord
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
        max_generations_behind: ``K``: batches hold only positions at most K best versions behind
            (``selfplay.replay_buffer``, "Weights versions"); None: no limit.
    """

    def __init__(
        self,
        game_name: str,
        capacity_positions: int,
        min_positions_to_sample: int,
        seed: int,
        window_growth_start: int | None = None,
        validation_every: int = 0,
        max_generations_behind: int | None = None,
    ) -> None:
        growth = None if window_growth_start is None else WindowGrowth(c=int(window_growth_start))
        self.buffer = ReplayBuffer(
            capacity_positions,
            games.make(game_name),
            seed=seed,
            window_growth=growth,
            min_positions_to_sample=max(1, min_positions_to_sample),
            validation_every=validation_every,
            max_generations_behind=max_generations_behind,
        )
        self.rejected_games = 0
        self.last_rejection = ""
        self._ages_key = None  # (games added, versions noted) of the cached age figures
        self._ages: dict = {}

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

    def note_best_version(self, version: int) -> None:
        """The run's best weights are now ``version`` (``ReplayBuffer.note_best_version``)."""
        self.buffer.note_best_version(version)

    def stats(self) -> dict:
        """Counters of the buffer (ints) and the age of its training window in versions.

        Keys: ``games_added``, ``positions_added``, ``size`` (the training window),
        ``sampleable`` (the positions batches may draw: ``size`` less those more than
        ``max_generations_behind`` versions behind), ``rejected_games``, and
        ``age_versions_mean`` (float) and ``age_versions_max`` (int) over the window's positions of
        known version (None while there is none; ``ReplayBuffer.version_ages``).
        """
        return {
            "games_added": self.buffer.games_added,
            "positions_added": self.buffer.positions_added,
            "size": self.buffer.size,
            "sampleable": self.buffer.sampleable_size,
            "rejected_games": self.rejected_games,
            **self._age_stats(),
        }

    def _age_stats(self) -> dict:
        # one pass over the window, redone only when games or versions arrived since the last
        key = (self.buffer.games_added, len(self.buffer.best_versions), self.buffer.size)
        if key != self._ages_key:
            versions = self.buffer.window_versions()
            known = versions[versions != UNKNOWN_VERSION]
            ages = self.buffer.version_ages(known)
            self._ages = {
                "age_versions_mean": float(ages.mean()) if ages.size else None,
                "age_versions_max": int(ages.max()) if ages.size else None,
            }
            self._ages_key = key
        return self._ages

    def state_dict(self) -> dict:
        return self.buffer.state_dict()

    def load_state_dict(self, state: dict) -> None:
        self.buffer.load_state_dict(state)
        self._ages_key = None

    def save(self, path: str) -> str:
        return str(self.buffer.save(path))

    def load(self, path: str) -> None:
        self.buffer.load(path)
        self._ages_key = None
