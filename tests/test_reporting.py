"""trainer/reporting.py: the self-play rates written to TensorBoard."""

from __future__ import annotations

from types import SimpleNamespace

from trainer.counters import RunCounters
from trainer.reporting import SELFPLAY_LOG_SECONDS, RunReport


class _Writer:
    def __init__(self) -> None:
        self.logged: list[tuple[int, dict]] = []

    def scalars(self, values: dict, step: int) -> None:
        self.logged.append((step, {k: v for k, v in values.items() if v is not None}))


def _stats(moves: int, evaluations: int) -> SimpleNamespace:
    return SimpleNamespace(moves=moves, leaf_evaluations=evaluations, full_searches=moves, eval_cache_hits=0,
                           eval_cache_lookups=0, game_lengths=[moves], games=1, sample_games=[])


def test_rates_are_positions_over_the_window_and_absent_when_nothing_was_played(tmp_path):
    now = [100.0]
    report = RunReport(tmp_path, sample_games_every=10, clock=lambda: now[0])
    report.writer = _Writer()
    buffer_stats = {"size": 42, "rejected_games": 0}
    report.add_selfplay(_stats(moves=300, evaluations=9000), step=5)
    now[0] += SELFPLAY_LOG_SECONDS * 2  # 60 s
    report.log_selfplay(7, RunCounters(), buffer_stats)
    step, first = report.writer.logged[-1]
    assert step == 7
    assert first["selfplay/positions_per_s"] == 5.0 and first["selfplay/leaf_evaluations_per_s"] == 150.0
    assert first["selfplay/game_length"] == 300.0
    # the forced last log of a run whose actors have stopped: counters, but no rate of 0
    now[0] += 1.0
    report.log_selfplay(8, RunCounters(), buffer_stats, force=True)
    step, last = report.writer.logged[-1]
    assert step == 8 and last["selfplay/buffer_size"] == 42
    assert "selfplay/positions_per_s" not in last and "selfplay/leaf_evaluations_per_s" not in last
