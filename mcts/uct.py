"""UCT with random rollouts (Kocsis & Szepesvari 2006, "Bandit based Monte-Carlo Planning").

The tree, the batched simulation loop and the backup are those of the PUCT search
(``mcts.search``); only the selection rule and the evaluator differ (OpenSpiel's evaluator seam).
Selection is UCB1 on results scaled to ``[0, 1]``::

    score(s, a) = (Q(s, a) + 1) / 2 + c * sqrt(ln N(s) / N(s, a)),    untried actions first

where untried actions are taken in increasing index order. Each new leaf is valued by random
playouts (``mcts.evaluators.random_rollout_evaluator``): +1 win, 0 draw, -1 loss for the player
to move there, i.e. results 1, 1/2, 0 after scaling. The move played is the most visited root
child (the robust child, Browne et al. 2012, sec. 3.3.3), lowest action index on ties.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import ClassVar

import numpy as np

from games.base import Game, check_batch
from games.checks import is_int
from mcts.evaluators import EvaluateFn, random_rollout_evaluator
from mcts.kernels import RULE_UCT, selection_params
from mcts.search import LoopSettings, SearchOutput, search_loop, with_visit_choice
from mcts.tree import Tree
from mcts.uct_compiled import compiled_uct_search

#: The usual UCB1 exploration constant on [0, 1] results (about sqrt(2)).
DEFAULT_UCT_C = 1.4


@dataclass(frozen=True)
class UCTConfig:
    """Settings of UCT with random rollouts (the ``uct`` search of ``mcts.registry``).

    Attributes:
        num_simulations: simulations per search, >= 1; each adds one node and runs its playouts.
        c: UCB1 exploration constant on ``[0, 1]``-scaled results, finite, >= 0.
        num_rollouts: random playouts per new leaf, >= 1 (used when no evaluator is given).

    Raises:
        ValueError: for a value out of range.
    """

    algorithm: ClassVar[str] = "uct"
    #: flat keys of ``trainer.config``'s ``mcts`` section for fields named otherwise there
    config_keys: ClassVar[dict[str, str]] = {"c": "uct_c", "num_rollouts": "uct_num_rollouts"}

    num_simulations: int = 1000
    c: float = DEFAULT_UCT_C
    num_rollouts: int = 1

    def __post_init__(self) -> None:
        _check_options(self.num_simulations, self.c)
        if not is_int(self.num_rollouts) or self.num_rollouts < 1:
            raise ValueError(f"expected an int num_rollouts >= 1, got {self.num_rollouts!r}")


def run_uct(
    game: Game,
    root_states: np.ndarray,
    num_simulations: int,
    rng: np.random.Generator,
    c: float = DEFAULT_UCT_C,
    num_rollouts: int = 1,
    evaluate_fn: EvaluateFn | None = None,
    tree: Tree | None = None,
) -> SearchOutput:
    """Batched UCT from ``B`` root states.

    Args:
        game: the rules.
        root_states: ``[B, S]`` int64 non-terminal states.
        num_simulations: simulations per root, >= 1; each adds one node and runs its playouts.
        rng: the generator for every playout move.
        c: UCB1 exploration constant on ``[0, 1]``-scaled results, >= 0.
        num_rollouts: random playouts per new leaf, >= 1.
        evaluate_fn: replaces the random-rollout evaluator (priors are ignored by UCT).
        tree: optional tree from ``mcts.tree.reroot`` for subtree reuse.

    Returns:
        ``SearchOutput`` (``root_priors`` are uniform, ``root_values`` in ``[-1, 1]``).

    Raises:
        ValueError: for ``num_simulations`` < 1, ``c`` < 0 or non-finite, ``num_rollouts`` < 1,
            and as ``run_puct``.
    """
    _check_options(num_simulations, c)
    if evaluate_fn is None:
        evaluate_fn = random_rollout_evaluator(game, rng, num_rollouts)
    settings = LoopSettings(int(num_simulations), selection_params(RULE_UCT, uct_c=c))
    output = search_loop(game, root_states, evaluate_fn, rng, settings, tree=tree)
    return with_visit_choice(output, solver=False)


def _check_options(num_simulations, c) -> None:
    if not is_int(num_simulations) or num_simulations < 1:
        raise ValueError(f"expected an int num_simulations >= 1, got {num_simulations!r}")
    if not (math.isfinite(c) and c >= 0):
        raise ValueError(f"expected c finite and >= 0, got {c}")


def uct_search(
    game: Game, state_row: np.ndarray, num_simulations: int, rng: np.random.Generator, c: float = DEFAULT_UCT_C
) -> tuple[int, np.ndarray]:
    """UCT for one state, for a baseline player: returns ``(action, visit_counts [A] int32)``.

    The action is the most visited root child, the lowest index on ties. A game with compiled
    rules (``Game.compiled_rules``) is searched in one compiled call (``mcts.uct_compiled``, the
    same algorithm on one tree); any other game by ``run_uct`` on a batch of one.

    Raises:
        ValueError: if ``state_row`` is not one ``[S]`` (or ``[1, S]``) state, and as ``run_uct``.
    """
    row = np.asarray(state_row)
    if row.ndim == 1:
        row = row[None, :]
    if row.shape != (1, game.state_size):
        raise ValueError(f"expected one state of shape [{game.state_size}], got {np.asarray(state_row).shape}")
    row = row.astype(np.int64)
    if game.compiled_rules() is not None:
        _check_options(num_simulations, c)
        check_batch(game, row)
        if game.terminal(row)[0]:
            raise ValueError("the root state must not be terminal")
        action, counts, _, _ = compiled_uct_search(game, row[0], int(num_simulations), rng, float(c))
        return action, counts
    output = run_uct(game, row, num_simulations, rng, c)
    counts = output.visit_counts[0]
    return int(np.argmax(counts)), counts
