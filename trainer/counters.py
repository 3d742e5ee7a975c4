"""The training run's counters: one dataclass, saved with every checkpoint as a plain dict."""

from __future__ import annotations

from dataclasses import asdict, dataclass, fields


@dataclass
class RunCounters:
    """Totals over the life of a run (resumes included); every field is an int.

    Attributes:
        games, positions: self-play games finished and their recorded positions.
        moves: self-play plies played (random opening plies excluded).
        leaf_evaluations: states the self-play searches sent to the network.
        simulations: self-play search simulations.
        best_version: the learner step whose weights are the best model (0: the initial weights).
        promotions, gates: gating matches won by the candidate, and played.
        actor_incarnations: self-play actors started; actor_restarts: of those, replacements.
        gating_restarts: arena actors replaced after dying.
        arena_incarnations: arena (gating) actors started; each seeds its generator from the run's
            seed and this number (``trainer.actors.actor_seed``), so no two share a stream.
        wins_first_player, wins_second_player, draws: self-play results.
    """

    games: int = 0
    positions: int = 0
    moves: int = 0
    leaf_evaluations: int = 0
    simulations: int = 0
    best_version: int = 0
    promotions: int = 0
    gates: int = 0
    actor_incarnations: int = 0
    actor_restarts: int = 0
    gating_restarts: int = 0
    arena_incarnations: int = 0
    wins_first_player: int = 0
    wins_second_player: int = 0
    draws: int = 0

    def add_selfplay(self, stats) -> None:
        """Add one ``selfplay.runner.SelfPlayStats``."""
        for name in ("games", "positions", "moves", "leaf_evaluations", "simulations",
                     "wins_first_player", "wins_second_player", "draws"):
            setattr(self, name, getattr(self, name) + int(getattr(stats, name)))

    @property
    def finished_games(self) -> int:
        """Self-play games with a result: wins of either player plus draws."""
        return self.wins_first_player + self.wins_second_player + self.draws

    def to_dict(self) -> dict[str, int]:
        return asdict(self)

    @classmethod
    def from_dict(cls, data: dict) -> RunCounters:
        """Counters from a checkpoint's dict; keys it lacks (an older run) start at 0.

        Raises:
            ValueError: naming keys this class does not know.
        """
        known = {f.name for f in fields(cls)}
        unknown = sorted(set(data) - known)
        if unknown:
            raise ValueError(f"run counters: unknown key(s) {unknown}; accepted {sorted(known)}")
        return cls(**{name: int(value) for name, value in data.items()})
