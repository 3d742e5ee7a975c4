"""Stop signals of a training run: SIGTERM and SIGINT both end the run through its checkpoint.

The handlers only record the request; the training loop polls it between steps. Raising from a
handler (Python's default for SIGINT) would land wherever the main thread happens to be: inside
an import of a C extension, for example, where the extension turns the ``KeyboardInterrupt`` into
an ``ImportError`` and the run dies without its checkpoint.
"""

from __future__ import annotations

import signal
import sys
import threading

#: what a stop signal's name becomes in the run's summary (``run finished (REASON)``)
STOP_REASONS = {signal.SIGINT: "interrupted", signal.SIGTERM: "terminated"}


class StopRequest:
    """The first SIGINT (Ctrl-C) or SIGTERM (``kill PID``, a batch scheduler, systemd) a run received.

    ``reason`` is ``None`` until a signal arrives, then ``"interrupted"`` (SIGINT) or
    ``"terminated"`` (SIGTERM). Later signals change nothing: the checkpoint being written is
    never cut short (``kill -9`` still ends the process at once).
    """

    def __init__(self) -> None:
        self.reason: str | None = None

    def __bool__(self) -> bool:
        return self.reason is not None

    def handle(self, signum, frame) -> None:
        if self.reason is None:
            self.reason = STOP_REASONS[signum]
        else:
            print(f"{self.reason}: already stopping, the checkpoint is being written", file=sys.stderr)


def install_stop_handlers(request: StopRequest) -> dict:
    """Make SIGTERM and SIGINT set ``request`` instead of killing the process; returns the old handlers.

    This replaces the handlers whatever they were: SIGINT ignored at start (a job started with
    ``&`` from a script) and Ray's SIGTERM handler, which only prints a stack trace and dies.
    Outside the main thread nothing is changed (``{}``).
    """
    if threading.current_thread() is not threading.main_thread():
        return {}
    old = {sig: signal.getsignal(sig) for sig in STOP_REASONS}
    for sig in STOP_REASONS:
        signal.signal(sig, request.handle)
    return old


def restore_handlers(old: dict) -> None:
    """Put back what :func:`install_stop_handlers` replaced."""
    for sig, handler in old.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
