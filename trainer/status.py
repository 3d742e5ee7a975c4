"""Terminal status of a training run: a live rich panel on a terminal, plain log lines elsewhere."""

from __future__ import annotations

import sys
import time


def _format_seconds(seconds: float | None) -> str:
    if seconds is None:
        return "-"
    seconds = max(0, int(seconds))
    return f"{seconds // 3600:d}:{seconds // 60 % 60:02d}:{seconds % 60:02d}"


def _format_losses(status: dict) -> str:
    """``"policy / value"`` to three decimals; ``-`` before the first optimiser step (no loss yet)."""
    if not status.get("step"):
        return "- / -"
    return f"{status.get('policy_loss', float('nan')):.3f} / {status.get('value_loss', float('nan')):.3f}"


#: printed once when a run starts: what each field of the plain status line means
LEGEND = (
    "status line: step = optimiser steps taken | games = self-play games finished | pos/s = self-play "
    "positions per second since the start | buffer = positions in the replay buffer | best vN = the "
    "learner step whose weights self-play uses | gate = the last gating match (candidate vs best; "
    "'off': gating is off and self-play takes the latest weights, so no promotion is expected) | "
    "loss policy / value = cross-entropy against the search's visit counts / squared error against "
    "the value target (selfplay.value_target: the game's outcome z, the root search value q, their mean or the lambda-return), "
    "of the last step | mistakes = share of labelled positions where the best "
    "model's move is worse than perfect play | left = wall-clock time left"
)


class StatusDisplay:
    """Shows steps, games, positions/s, buffer, last gating result and time left.

    Args:
        live: use a live-updating rich panel (only when stdout is a terminal).
        every_seconds: minimum seconds between two plain log lines. A line that would repeat the
            last one's step, games, best version and gate is skipped until ``HEARTBEAT_SECONDS``
            have passed, so a log file grows with progress, not with time.
    """

    #: the longest a plain log stays silent while nothing changes
    HEARTBEAT_SECONDS = 60.0

    def __init__(self, live: bool, every_seconds: float = 5.0) -> None:
        from rich.console import Console  # heavy dependency (rich): imported where it is used

        self.console = Console()
        self.live = None
        self.every_seconds = every_seconds
        self._last_line = 0.0
        self._last_progress: tuple | None = None
        if live and sys.stdout.isatty():
            from rich.live import Live  # heavy dependency (rich): imported where it is used

            self.live = Live(self._render({}), console=self.console, refresh_per_second=2, transient=False)
            self.live.start()

    def _render(self, status: dict):
        from rich.table import Table  # heavy dependency (rich): imported where it is used

        table = Table(title="tabula-rasa train", show_header=False, expand=False)
        table.add_column("what", style="bold")
        table.add_column("value")
        rows = [
            ("game / network", f"{status.get('game', '-')} / {status.get('network', '-')}"),
            ("optimiser steps", f"{status.get('step', 0):,}"),
            ("self-play games", f"{status.get('games', 0):,}"),
            ("positions/s", f"{status.get('positions_per_s', 0.0):,.0f}"),
            ("leaf evaluations/s", f"{status.get('evaluations_per_s', 0.0):,.0f}"),
            ("replay buffer", f"{status.get('buffer_size', 0):,} positions"),
            ("best model", f"version {status.get('best_version', 0)}"),
            ("last gating", status.get("last_gate", "-")),
            ("mistakes vs perfect play", status.get("mistake_rates", "-")),
            ("policy / value loss", _format_losses(status)),
            ("time left", _format_seconds(status.get("seconds_left"))),
        ]
        for what, value in rows:
            table.add_row(what, value)
        return table

    def update(self, status: dict) -> None:
        if self.live is not None:
            self.live.update(self._render(status))
            return
        now = time.monotonic()
        if now - self._last_line < self.every_seconds:
            return
        progress = tuple(status.get(k) for k in ("step", "games", "best_version", "last_gate"))
        if progress == self._last_progress and now - self._last_line < self.HEARTBEAT_SECONDS:
            return
        self._last_progress = progress
        self._last_line = now
        self.console.print(
            f"step {status.get('step', 0)} | games {status.get('games', 0)} | "
            f"{status.get('positions_per_s', 0.0):.0f} pos/s | buffer {status.get('buffer_size', 0)} | "
            f"best v{status.get('best_version', 0)} | gate {status.get('last_gate', '-')} | "
            f"loss policy {_format_losses(status).replace(' / ', ' value ')} | "
            f"mistakes {status.get('mistake_rates', '-')} | "
            f"left {_format_seconds(status.get('seconds_left'))}",
            highlight=False,
            soft_wrap=True,  # one line per update in log files
        )

    def message(self, text: str) -> None:
        self.console.print(text, highlight=False, soft_wrap=True)

    def close(self) -> None:
        if self.live is not None:
            self.live.stop()
            self.live = None
