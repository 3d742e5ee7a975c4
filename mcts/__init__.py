"""Batched Monte Carlo tree search: PUCT (AlphaZero) and UCT with random rollouts.

Imports ``games`` only; the network arrives as an ``evaluate_fn`` (see ``mcts.evaluators``).
Trees are preallocated arrays with a leading batch axis (``mcts.tree``, mctx layout), and the
per-simulation work for all ``B`` games runs in Numba-compiled kernels (``mcts._kernels``).
"""

from mcts.evaluators import (
    random_rollout_evaluator,
    random_rollouts,
    state_evaluator,
    uniform_evaluator,
    uniform_state_evaluator,
)
from mcts.policy import (
    GREEDY_TEMPERATURE,
    add_dirichlet_noise,
    completed_q_policy,
    dirichlet_noise,
    improved_policy,
    mask_priors,
    select_actions,
    visit_policy,
)
from mcts.search import PUCTConfig, SearchOutput, run_puct
from mcts.tree import NO_PARENT, ROOT_INDEX, UNVISITED, Tree, reroot
from mcts.uct import DEFAULT_UCT_C, run_uct, uct_search

__all__ = [
    "DEFAULT_UCT_C",
    "GREEDY_TEMPERATURE",
    "NO_PARENT",
    "ROOT_INDEX",
    "UNVISITED",
    "PUCTConfig",
    "SearchOutput",
    "Tree",
    "add_dirichlet_noise",
    "completed_q_policy",
    "dirichlet_noise",
    "improved_policy",
    "mask_priors",
    "random_rollout_evaluator",
    "random_rollouts",
    "reroot",
    "run_puct",
    "run_uct",
    "select_actions",
    "state_evaluator",
    "uct_search",
    "uniform_evaluator",
    "uniform_state_evaluator",
    "visit_policy",
]
