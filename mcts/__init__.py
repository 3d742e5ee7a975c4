"""Batched Monte Carlo tree search: PUCT (AlphaZero), Gumbel root search, MCTS-solver proofs and
UCT with random rollouts, behind one interface (``mcts.registry``): a frozen settings object names
its algorithm, ``run_search`` runs any of them the same way and returns one ``SearchOutput``.
The functions behind each algorithm (``mcts.search.run_puct``, ``mcts.gumbel.run_gumbel``,
``mcts.uct.run_uct``, ...) stay in their modules; ``run_search`` is the one public call.

Imports ``games`` only; the network arrives as an ``evaluate_fn`` (see ``mcts.evaluators``).
Trees are preallocated arrays with a leading batch axis (``mcts.tree``, mctx layout), and the
per-simulation work for all ``B`` games runs in Numba-compiled kernels (``mcts.kernels``).
"""

from mcts import algorithms  # noqa: F401 (registers puct, gumbel and uct)
from mcts.evaluators import (
    random_rollout_evaluator,
    random_rollouts,
    state_evaluator,
    uniform_evaluator,
    uniform_state_evaluator,
)
from mcts.gumbel import GumbelConfig, considered_visit_sequence
from mcts.policy import (
    GREEDY_TEMPERATURE,
    add_dirichlet_noise,
    argmax_random_ties,
    completed_q_policy,
    dirichlet_noise,
    improved_policy,
    mask_priors,
    select_actions,
    visit_policy,
)
from mcts.registry import (
    TIES,
    Algorithm,
    SearchOptions,
    algorithm,
    algorithm_of,
    choose_moves,
    config_key,
    names,
    register,
    run_search,
    settings_from,
    unregister,
)
from mcts.search import CHANCE_MODES, PUCTConfig, SearchOutput, search_loop
from mcts.solver import playable_actions, root_child_proven_values, solver_visit_counts
from mcts.tree import (
    NO_PARENT,
    PROVEN_DRAW,
    PROVEN_LOSS,
    PROVEN_WIN,
    ROOT_INDEX,
    UNPROVEN,
    UNVISITED,
    Tree,
    reroot,
)
from mcts.uct import DEFAULT_UCT_C, UCTConfig

__all__ = [
    "CHANCE_MODES",
    "DEFAULT_UCT_C",
    "GREEDY_TEMPERATURE",
    "NO_PARENT",
    "PROVEN_DRAW",
    "PROVEN_LOSS",
    "PROVEN_WIN",
    "ROOT_INDEX",
    "TIES",
    "UNPROVEN",
    "UNVISITED",
    "Algorithm",
    "GumbelConfig",
    "PUCTConfig",
    "SearchOptions",
    "SearchOutput",
    "Tree",
    "UCTConfig",
    "add_dirichlet_noise",
    "algorithm",
    "algorithm_of",
    "argmax_random_ties",
    "choose_moves",
    "completed_q_policy",
    "config_key",
    "considered_visit_sequence",
    "dirichlet_noise",
    "improved_policy",
    "mask_priors",
    "names",
    "playable_actions",
    "random_rollout_evaluator",
    "random_rollouts",
    "register",
    "reroot",
    "root_child_proven_values",
    "run_search",
    "search_loop",
    "select_actions",
    "settings_from",
    "solver_visit_counts",
    "state_evaluator",
    "uniform_evaluator",
    "uniform_state_evaluator",
    "unregister",
    "visit_policy",
]
