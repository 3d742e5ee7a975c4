"""Connect Four's knowledge (``games.knowledge.Knowledge``): centre-first move order, the heuristic
of ``games.connect4.heuristic``, the bitboard transposition key and Pons' exact solver."""

from __future__ import annotations

from games.connect4.exact import SOLVER
from games.connect4.heuristic import MAX_EVALUATION, evaluate
from games.connect4.layout import CENTRE_FIRST_ORDER
from games.knowledge import Knowledge


class ConnectFourKnowledge(Knowledge):
    """What Connect Four's searches and players know beyond the rules (``games.connect4.game``)."""

    #: bound on the heuristic evaluation (``games.connect4.heuristic.MAX_EVALUATION`` points)
    heuristic_bound = float(MAX_EVALUATION)

    def action_order(self) -> list[int]:
        """Columns by distance from the centre column: ``[3, 2, 4, 1, 5, 0, 6]``."""
        return list(CENTRE_FIRST_ORDER)

    def heuristic_fn(self):
        """``games.connect4.heuristic.evaluate``: open threes, open twos and centre stones, in
        integer points within ``[-heuristic_bound, heuristic_bound]``."""
        return evaluate

    def transposition_key(self, state: tuple) -> int:
        """``current + mask``, unique per position (``games.connect4.heuristic.transposition_key``)."""
        return state[0] + state[1]

    def exact_solver(self):
        """Pons' solver with the shipped opening book (``games.connect4.exact.ConnectFourSolver``;
        scores in Pons' convention, -18..18)."""
        return SOLVER

    def default_network(self, gpu: bool = False) -> dict:
        """4 residual blocks of 32 channels on a CPU (77k parameters, ``configs/network/b4c32.yaml``),
        10 blocks of 128 channels on a GPU (``networks.config`` has the measurements)."""
        if gpu:
            return {"kind": "resnet", "num_blocks": 10, "channels": 128, "value_hidden": 128}
        return {"kind": "resnet", "num_blocks": 4, "channels": 32, "value_hidden": 64}
