"""The built-in searches of ``mcts.registry``: ``puct``, ``gumbel`` and ``uct``.

Each entry adapts one algorithm to the registry's call, ``run_fn(game, root_states, evaluate_fn,
settings, rng, options)``:

* ``puct`` (``mcts.PUCTConfig``; Silver et al. 2018): ``mcts.search.run_puct`` with Dirichlet root noise
  when ``options.explore``, subtree reuse and chance nodes; one root with
  ``options.leaves_per_call`` above 1 or a ``time_limit`` is searched with virtual loss
  (``mcts.minibatch.run_puct_minibatch``).
* ``gumbel`` (``mcts.GumbelConfig``; Danihelka et al. 2022): ``mcts.gumbel.run_gumbel``, the Gumbel draw
  when ``options.explore`` and chance nodes; plays its Sequential Halving winner.
* ``uct`` (``mcts.UCTConfig``; Kocsis & Szepesvari 2006): ``mcts.uct.run_uct``, random rollouts unless
  an evaluator is given; one root with random rollouts in a game with compiled rules is searched
  in one compiled call (``mcts.uct.run_compiled_uct``, the arena's UCT baseline).
"""

from __future__ import annotations

from mcts.gumbel import GumbelConfig, run_gumbel
from mcts.minibatch import run_puct_minibatch
from mcts.registry import SearchOptions, register
from mcts.search import PUCTConfig, run_puct
from mcts.uct import UCTConfig, compiled_applies, run_compiled_uct, run_uct


def _puct(game, root_states, evaluate_fn, settings: PUCTConfig, rng, options: SearchOptions):
    if options.leaves_per_call > 1 or options.time_limit is not None:
        if options.explore or options.tree is not None:
            raise ValueError("the PUCT search with several leaves a call or a time limit has no root noise and no tree reuse")
        return run_puct_minibatch(game, root_states, evaluate_fn, settings, rng, options.leaves_per_call, options.time_limit)
    return run_puct(game, root_states, evaluate_fn, settings, rng, add_root_noise=options.explore, tree=options.tree)


def _gumbel(game, root_states, evaluate_fn, settings: GumbelConfig, rng, options: SearchOptions):
    _one_leaf_a_call("gumbel", options)
    return run_gumbel(game, root_states, evaluate_fn, settings, rng, add_gumbel_noise=options.explore)


def _uct(game, root_states, evaluate_fn, settings: UCTConfig, rng, options: SearchOptions):
    _one_leaf_a_call("uct", options)
    if compiled_applies(game, root_states, evaluate_fn, settings, options.tree):
        return run_compiled_uct(game, root_states, settings, rng)
    return run_uct(
        game, root_states, settings.num_simulations, rng, settings.c, settings.num_rollouts, evaluate_fn, options.tree
    )


def _one_leaf_a_call(name: str, options: SearchOptions) -> None:
    if options.leaves_per_call != 1 or options.time_limit is not None:
        raise ValueError(
            f"the {name} search sends one leaf a call without a time limit: expected leaves_per_call=1 and no "
            f"time_limit, got {options.leaves_per_call} and {options.time_limit}"
        )


register(PUCTConfig, _puct, reuses_tree=True, searches_chance=True)
register(GumbelConfig, _gumbel, searches_chance=True, chooses_by_visits=False)
register(UCTConfig, _uct, reuses_tree=True)
