"""The plain (non-terminal) status log: one line per change of progress, a heartbeat otherwise."""

from __future__ import annotations

from trainer import status as status_module
from trainer.status import StatusDisplay


def test_plain_lines_follow_progress_not_the_clock(capsys, monkeypatch):
    clock = [1000.0]
    monkeypatch.setattr(status_module.time, "monotonic", lambda: clock[0])
    display = StatusDisplay(live=False, every_seconds=2.0)
    printed = []
    for second, step in enumerate([1, 1, 1, 1, 2, 2, 3]):
        clock[0] = 1000.0 + 5 * second
        display.update({"step": step, "games": 10, "best_version": 0, "last_gate": "-"})
        printed.append(capsys.readouterr().out.count("step "))
    assert printed == [1, 0, 0, 0, 1, 0, 1]
    clock[0] += StatusDisplay.HEARTBEAT_SECONDS  # nothing new for a minute: one line all the same
    display.update({"step": 3, "games": 10, "best_version": 0, "last_gate": "-"})
    assert capsys.readouterr().out.startswith("step 3 | games 10")
    clock[0] += 1.0  # under every_seconds: nothing, even with progress
    display.update({"step": 4, "games": 11, "best_version": 0, "last_gate": "-"})
    assert capsys.readouterr().out == ""


def test_the_losses_read_as_a_dash_before_the_first_step(capsys):
    display = StatusDisplay(live=False, every_seconds=0.0)
    display.update({"step": 0, "games": 10, "policy_loss": float("nan"), "value_loss": float("nan")})
    assert "| loss policy - value - |" in capsys.readouterr().out
    display.update({"step": 4, "games": 12, "policy_loss": 1.9256, "value_loss": 0.3531})
    assert "| loss policy 1.926 value 0.353 |" in capsys.readouterr().out
