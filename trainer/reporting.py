"""What a training run reports: TensorBoard self-play metrics, sample games, rates for the status.

One :class:`RunReport` per run. Self-play results arrive in lumps (one per actor task), so rates
are averaged over windows of at least ``SELFPLAY_LOG_SECONDS`` for TensorBoard and since the start
(or resume) for the terminal status.
"""

from __future__ import annotations

import time
from dataclasses import asdict
from pathlib import Path

import numpy as np

from networks.provenance import code_version, config_digest
from trainer.counters import RunCounters
from trainer.metrics import MetricsWriter

#: self-play rates are averaged over windows of at least this many seconds
SELFPLAY_LOG_SECONDS = 30.0


def search_record(settings, algorithm: str) -> dict:
    """``{"algorithm": NAME, ...settings}`` of a search's frozen settings (``mcts.PUCTConfig``,
    ``mcts.GumbelConfig``, ...: the registered search ``NAME``'s) for a provenance record."""
    return {"algorithm": algorithm, **asdict(settings)}


def run_provenance(
    config_dict: dict,
    config_path: Path,
    seconds: float,
    counters: RunCounters,
    steps: int,
    trained_with: dict,
    play_with: dict,
    mistake_rates: dict,
    measured_version: int | None,
) -> dict:
    """The ``provenance`` record of the run's exported best model (``networks.provenance``).

    Args:
        config_dict: the resolved config (``trainer.config.to_dict``), recorded with its digest.
        config_path: where the run saved it (``RUN/config.json``); recorded relative to the
            working folder when it lies below it (``outputs/GAME/DATE/config.json``).
        seconds: wall-clock seconds this invocation has trained (a resumed run: since the resume).
        counters: the run's totals (games, promotions, gates, best version).
        steps: optimiser steps taken.
        trained_with, play_with: :func:`search_record` of self-play's and the arena's search.
        mistake_rates: ``{set: rate}`` of the run's last measurement against perfect play
            (empty: the game has no labelled set, or nothing was measured yet).
        measured_version: the best version those rates were measured on (None: none measured).
    """
    try:
        config_path = Path(config_path).resolve().relative_to(Path.cwd().resolve())
    except ValueError:  # outside the working folder: the absolute path
        pass
    record = {
        "code": code_version(),
        "config": {"sha256": config_digest(config_dict), "path": str(config_path), "values": config_dict},
        "training": {
            "minutes": round(float(seconds) / 60.0, 2),
            "steps": int(steps),
            "games": int(counters.games),
            "promotions": int(counters.promotions),
            "gates": int(counters.gates),
            "best_version": int(counters.best_version),
        },
        "search": {"trained_with": trained_with, "play_with": play_with},
    }
    if mistake_rates:
        record["mistake_rates"] = {
            "rates": {name: float(rate) for name, rate in mistake_rates.items()},
            "measured_version": None if measured_version is None else int(measured_version),
        }
    return record


class RunReport:
    """TensorBoard writer, sample-game files and self-play rates of one run.

    Args:
        run_dir: the run folder (``tensorboard/`` and ``games/`` go there).
        sample_games_every: write one self-play game's moves to ``games/selfplay.txt`` every this
            many games (the first game is kept).
        clock: seconds, monotonic (``time.monotonic``; tests pass their own).
    """

    def __init__(self, run_dir: Path, sample_games_every: int, clock=time.monotonic) -> None:
        self.run_dir = Path(run_dir)
        self.sample_games_every = int(sample_games_every)
        self.clock = clock
        self.writer = None
        self.sample_counts: dict[str, int] = {}
        self._pending_lengths: list[int] = []
        self._games_since_sample = self.sample_games_every
        self._window = self._new_window(clock())
        self._started = clock()
        self._start_moves = 0
        self._start_evaluations = 0

    @staticmethod
    def _new_window(start: float) -> dict:
        """Self-play counts since ``start`` (seconds of ``clock``), for the rates of one log line."""
        return {"positions": 0, "evaluations": 0, "full_searches": 0, "cache_hits": 0, "cache_lookups": 0, "start": start}

    def open_writer(self, purge_step: int | None):
        """Start the TensorBoard writer; events from ``purge_step`` on are dropped (a resume)."""
        self.writer = MetricsWriter(self.run_dir / "tensorboard", purge_step=purge_step)
        return self.writer

    def start_rates(self, counters: RunCounters) -> None:
        """The status rates count from these counters (the start or the resume)."""
        self._started = self.clock()
        self._start_moves = counters.moves
        self._start_evaluations = counters.leaf_evaluations

    def rates(self, counters: RunCounters) -> tuple[float, float]:
        """(positions/s, leaf evaluations/s) of self-play since :meth:`start_rates`."""
        elapsed = max(1e-9, self.clock() - self._started)
        return (
            (counters.moves - self._start_moves) / elapsed,
            (counters.leaf_evaluations - self._start_evaluations) / elapsed,
        )

    def add_selfplay(self, stats, step: int) -> None:
        """Note one ``SelfPlayStats``: window rates, game lengths, and a sample game when due."""
        self._window["positions"] += stats.moves
        self._window["evaluations"] += stats.leaf_evaluations
        self._window["full_searches"] += stats.full_searches
        self._window["cache_hits"] += stats.eval_cache_hits
        self._window["cache_lookups"] += stats.eval_cache_lookups
        if stats.game_lengths:
            self._pending_lengths.extend(stats.game_lengths)
        self._games_since_sample += stats.games
        if stats.sample_games and self._games_since_sample >= self.sample_games_every:
            self._games_since_sample = 0
            self.sample_game("selfplay", stats.sample_games[0], step)

    def sample_game(self, kind: str, text: str, step: int) -> None:
        """Append ``STEP MOVES`` to ``games/KIND.txt`` (self-play: one game in every
        ``sample_games_every``; arena: the first game of every gating match)."""
        self.sample_counts[kind] = self.sample_counts.get(kind, 0) + 1
        folder = self.run_dir / "games"
        folder.mkdir(parents=True, exist_ok=True)
        with open(folder / f"{kind}.txt", "a") as handle:
            handle.write(f"{step} {text}\n")

    def log_selfplay(self, step: int, counters: RunCounters, buffer_stats: dict, force: bool = False) -> None:
        """Self-play metrics over the last window of at least ``SELFPLAY_LOG_SECONDS``."""
        now = self.clock()
        seconds = max(1e-9, now - self._window["start"])
        if seconds < SELFPLAY_LOG_SECONDS and not force:
            return
        c = counters
        finished = c.finished_games
        # a window with no self-play result has no rate (the forced last log after the actors
        # stopped would otherwise end every rate curve with a 0)
        played = self._window["positions"] > 0
        values = {
            "selfplay/games": c.games,
            "selfplay/positions": c.positions,
            "selfplay/positions_per_s": self._window["positions"] / seconds if played else None,
            "selfplay/leaf_evaluations_per_s": self._window["evaluations"] / seconds if played else None,
            "selfplay/batch_fill": c.leaf_evaluations / c.simulations if c.simulations else None,
            "selfplay/buffer_size": buffer_stats["size"],
            # best versions newer than the weights that searched each window position (selfplay/replay_buffer.py)
            "selfplay/buffer_age_versions_mean": buffer_stats.get("age_versions_mean"),
            "selfplay/buffer_age_versions_max": buffer_stats.get("age_versions_max"),
            "selfplay/rejected_games": buffer_stats["rejected_games"],
            "selfplay/actor_restarts": c.actor_restarts,
            "selfplay/win_rate_first_player": c.wins_first_player / finished if finished else None,
            "selfplay/win_rate_second_player": c.wins_second_player / finished if finished else None,
            "selfplay/draw_rate": c.draws / finished if finished else None,
            "selfplay/full_search_fraction": (
                self._window["full_searches"] / self._window["positions"] if self._window["positions"] else None
            ),
            "selfplay/eval_cache_hit_rate": (
                self._window["cache_hits"] / self._window["cache_lookups"] if self._window["cache_lookups"] else None
            ),
        }
        if self._pending_lengths:
            values["selfplay/game_length"] = float(np.mean(self._pending_lengths))
            self._pending_lengths = []
        self.writer.scalars(values, step)
        self._window = self._new_window(now)

    def flush(self) -> None:
        if self.writer is not None:
            self.writer.flush()

    def close(self) -> None:
        if self.writer is not None:
            self.writer.close()
