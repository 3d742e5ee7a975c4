"""Fault injection for the fault tests (tests/test_fault_*.py): not a user setting.

With ``TABULA_RASA_FAULT=kill_<role>_actor_at_step:N`` in the environment (several joined by
commas), the run kills one of its own actors with ``ray.kill`` once the learner reaches step N:
``selfplay`` (self-play actor 0), ``buffer`` (the replay-buffer actor) or ``gating`` (the arena
actor, at the first step >= N with a gating match in flight). Each fires once per process.
"""

from __future__ import annotations

import os
import re

FAULT_ENV = "TABULA_RASA_FAULT"
FAULT_ROLES = ("selfplay", "buffer", "gating")


def parse_faults(text: str | None) -> list[tuple[str, int]]:
    """``"kill_selfplay_actor_at_step:5,kill_gating_actor_at_step:10"`` -> ``[("selfplay", 5),
    ("gating", 10)]``; empty or None -> ``[]``.

    Raises:
        ValueError: for any other text, naming the accepted form.
    """
    faults = []
    for part in (text or "").split(","):
        if not part.strip():
            continue
        match = re.fullmatch(r"kill_(\w+?)_actor_at_step:(\d+)", part.strip())
        if not match or match.group(1) not in FAULT_ROLES:
            raise ValueError(
                f"{FAULT_ENV}={text!r}: expected kill_<role>_actor_at_step:<step> (comma-separated) with role "
                f"one of {list(FAULT_ROLES)}"
            )
        faults.append((match.group(1), int(match.group(2))))
    return faults


class FaultPlan:
    """The faults still to fire (from ``parse_faults``).

    Raises:
        ValueError: as :func:`parse_faults`, from :meth:`from_env`.
    """

    def __init__(self, faults: list[tuple[str, int]]) -> None:
        self.pending = list(faults)

    @classmethod
    def from_env(cls, environ=None) -> FaultPlan:
        return cls(parse_faults((os.environ if environ is None else environ).get(FAULT_ENV)))

    def __bool__(self) -> bool:
        return bool(self.pending)

    def due(self, step: int, gate_in_flight: bool) -> list[str]:
        """The roles whose actor is to be killed now, at learner step ``step``; each fires once."""
        fired = []
        for fault in list(self.pending):
            role, at_step = fault
            if step < at_step or (role == "gating" and not gate_in_flight):
                continue
            self.pending.remove(fault)
            fired.append(role)
        return fired
