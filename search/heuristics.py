"""Connect Four's search knowledge under its older names (it lives in ``games.connect4.heuristic``).

``search.alphabeta`` asks the game for its evaluation and table key (``Game.heuristic_fn``,
``Game.transposition_key``); these names stay for callers and scripts that import them directly.
"""

from __future__ import annotations

from games.connect4.heuristic import (
    CENTRE_WEIGHT,
    MAX_EVALUATION,
    OPEN_THREE_WEIGHT,
    OPEN_TWO_WEIGHT,
)
from games.connect4.heuristic import evaluate as connect4_evaluate
from games.connect4.heuristic import noisy_actions as connect4_noisy_actions
from games.connect4.heuristic import transposition_key as connect4_key
from games.connect4.layout import winning_cells

__all__ = [
    "CENTRE_WEIGHT",
    "MAX_EVALUATION",
    "OPEN_THREE_WEIGHT",
    "OPEN_TWO_WEIGHT",
    "connect4_evaluate",
    "connect4_key",
    "connect4_noisy_actions",
    "winning_cells",
]
