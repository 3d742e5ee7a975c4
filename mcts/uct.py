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
from mcts.uct_compiled import compiled_uct_arrays

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


def compiled_applies(game: Game, root_states: np.ndarray, evaluate_fn, settings: UCTConfig, tree: Tree | None) -> bool:
    """Whether the ``uct`` search of ``mcts.run_search`` runs in one compiled call
    (``run_compiled_uct``): one root, random rollouts (no evaluator, one playout per leaf), no
    reused tree, and a game with compiled rules (``Game.compiled_rules``)."""
    return (
        evaluate_fn is None and tree is None and settings.num_rollouts == 1 and isinstance(root_states, np.ndarray)
        and root_states.ndim == 2 and root_states.shape[0] == 1 and game.compiled_rules() is not None
    )


def run_compiled_uct(game: Game, root_states: np.ndarray, settings: UCTConfig, rng: np.random.Generator) -> SearchOutput:
    """UCT for one root in one compiled call (``mcts.uct_compiled``, the algorithm of ``run_uct``
    on one tree; its playouts come from its own stream seeded by one draw of ``rng``).

    Args:
        game: a game with compiled rules.
        root_states: ``[1, S]`` int64, one non-terminal decision state.
        settings: ``num_simulations`` and ``c`` (``num_rollouts`` is 1).
        rng: the generator of the playouts' seed.

    Returns:
        ``SearchOutput`` whose ``tree`` is the whole search tree (``mcts.uct_compiled.CompiledUCTArrays``);
        ``root_priors`` are uniform over the legal actions; ``num_evaluations`` counts the random
        playouts, the root's included.

    Raises:
        ValueError: for malformed or terminal roots, and as ``compiled_uct_arrays``.
    """
    check_batch(game, root_states)
    tree, out, _, _ = compiled_uct_arrays(game, root_states[0], settings.num_simulations, rng, settings.c)
    return SearchOutput(
        visit_counts=out.visit_counts,
        root_values=out.root_values,
        q_values=out.q_values32,
        root_priors=out.root_priors,
        root_raw_priors=tree.root_raw_prior,
        tree=tree,
        num_degenerate_priors=np.zeros(1, dtype=np.int32),
        num_evaluations=out.num_evaluations,
        num_terminal_leaves=out.num_terminal_leaves,
        root_proof=np.zeros(1, dtype=np.int8),
        actions=out.actions,
        policy_targets=out.policy_targets,
    )
