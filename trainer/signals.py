"""Stop signals of a training run: SIGTERM and SIGINT both end the run through its checkpoint."""

from __future__ import annotations

import signal
import threading


class Terminated(KeyboardInterrupt):
    """SIGTERM (``kill PID``, a batch scheduler, systemd), handled like Ctrl-C: a checkpoint, then exit."""


def _raise_terminated(signum, frame) -> None:
    signal.signal(signal.SIGTERM, signal.SIG_IGN)  # a second SIGTERM must not cut the checkpoint short
    raise Terminated()


def install_stop_handlers() -> dict:
    """Make SIGTERM and SIGINT stop the run through its checkpointing path; returns the old handlers.

    SIGINT gets Python's ``default_int_handler`` back even when the process started with it
    ignored (a job started with ``&`` from a script), and SIGTERM raises :class:`Terminated`
    instead of Ray's handler, which only prints a stack trace and dies. Outside the main thread
    nothing is changed (``{}``).
    """
    if threading.current_thread() is not threading.main_thread():
        return {}
    old = {sig: signal.getsignal(sig) for sig in (signal.SIGINT, signal.SIGTERM)}
    signal.signal(signal.SIGINT, signal.default_int_handler)
    signal.signal(signal.SIGTERM, _raise_terminated)
    return old


def restore_handlers(old: dict) -> None:
    """Put back what :func:`install_stop_handlers` replaced."""
    for sig, handler in old.items():
        signal.signal(sig, handler if handler is not None else signal.SIG_DFL)
