"""The simulations of a one-root search in compiled code: one compiled call per network call.

``play``, the engine protocol, the web page and the arena's ``mcts:`` players search one position
with one leaf per evaluator call. There the batched loop of ``mcts.search.search_loop`` pays a
dozen numpy calls per simulation on ``[1, ...]`` arrays (stepping the rules, the terminal test,
the legal mask, the prior masking), several times the work of the leaf itself and, for a small
network, more than the network's own run. Here, for a game with compiled rules
(``games.base.CompiledRules``, ``Game.compiled_rules``), one compiled call (``advance``) runs the
walks of ``mcts.kernels.select_leaves``, steps the rules at the new leaf and backs terminal
leaves up with ``mcts.kernels.expand_and_backup`` until a leaf needs the evaluator; Python then
encodes its observation and calls the evaluator once; a second compiled call (``finish_leaf``)
masks the priors exactly as ``mcts.policy.mask_priors`` (the same float64 sums, in numpy's
pairwise order) and expands and backs the leaf up. The tree, the selection rule and the order of
every operation are those of the batched loop, so a search gives the same visit counts, Q values
and move to the last bit.

The ``advance`` function is built once per game and process around the game's compiled rules
(``single_root_kernel``; Numba cannot cache a function built around another game's functions on
disk, as ``mcts.uct_compiled``).
"""

from __future__ import annotations

import math
from typing import NamedTuple

import numpy as np
from numba import njit

from games.base import CompiledRules, Game
from mcts.evaluators import takes_states
from mcts.kernels import CHANCE_NONE, expand_and_backup, select_leaves
from mcts.masking import MAX_ACTIONS, mask_prior_row  # noqa: F401 (MAX_ACTIONS: mcts.search's bound)

_KERNELS: dict[CompiledRules, object] = {}


def single_root_kernel(rules: CompiledRules):
    """The compiled ``advance`` of the game whose ``compiled_rules()`` is ``rules`` (memoised).

    ``advance(t, params, walks, (root_actions, seeds), new, outcomes, remaining, num_terminal) ->
    (simulations done, leaf pending)``: runs simulations on the one-row tree ``t``
    (``mcts.tree.TreeArrays``) until one ends at a new non-terminal leaf (written to row 0 of
    ``new``: state, player to move and legal mask; pending True, that simulation not counted) or
    ``remaining`` simulations are done (pending False). Terminal leaves, new or already in the
    tree, are backed up inside and counted in ``num_terminal[0]``.
    """
    kernel = _KERNELS.get(rules)
    if kernel is None:
        kernel = _KERNELS[rules] = _build_advance(rules)
    return kernel


def _build_advance(rules: CompiledRules):
    legal_fn = rules.legal
    step_fn = rules.step
    is_terminal_fn = rules.is_terminal
    winner_fn = rules.winner
    to_play_fn = rules.to_play

    @njit
    def advance(t, params, walks, walk_inputs, new, outcomes, remaining, num_terminal):  # pragma: no cover - compiled
        root_actions, seeds = walk_inputs
        use_solver = params.use_solver
        done = 0
        num_actions = new.legal.shape[1]
        while done < remaining:
            select_leaves(t, params, walks, root_actions, seeds)
            if walks.leaf[0] < 0:
                state = new.states[0]
                step_fn(walks.parent_states[0], np.int64(walks.action[0]), state)
                player = to_play_fn(state)
                new.to_play[0] = player
                if not is_terminal_fn(state):
                    new.terminal[0] = False
                    legal_fn(state, new.legal[0])
                    return done, True
                winner = winner_fn(state)
                new.terminal[0] = True
                new.values[0] = 0.0 if winner < 0 else (1.0 if winner == player else -1.0)
                for a in range(num_actions):
                    new.priors[0, a] = 0.0
                    new.legal[0, a] = False
            num_terminal[0] += 1
            expand_and_backup(t, walks, new, outcomes, use_solver, CHANCE_NONE)
            done += 1
        return done, False

    return advance


@njit(cache=True)
def finish_leaf(t, walks, new, outcomes, use_solver, priors, value, scratch):  # pragma: no cover - compiled
    """Expand the pending leaf of ``advance`` (row 0 of ``new``) with the evaluator's ``priors``
    (``[A]``, masked here as ``mcts.policy.mask_priors``) and ``value`` (float32, clipped to
    ``[-1, 1]``) and back it up; returns whether the priors were degenerate."""
    degenerate = mask_prior_row(priors, new.legal[0], new.priors[0], scratch)
    new.values[0] = min(max(value, np.float32(-1.0)), np.float32(1.0))
    expand_and_backup(t, walks, new, outcomes, use_solver, CHANCE_NONE)
    return degenerate


class SingleRootLoop(NamedTuple):
    """The buffers of ``mcts.search.search_loop`` that ``run_single_root`` works in: the tree's
    ``arrays`` (``TreeArrays``), the selection ``params`` (``SelectionParams``), ``walks``,
    ``root_actions`` and chance ``seeds`` for ``select_leaves``, ``new`` and ``outcomes`` for
    ``expand_and_backup``, and the ``counters`` (``mcts.chance.LeafCounters``)."""

    arrays: object
    params: object
    walks: object
    root_actions: np.ndarray
    seeds: np.ndarray
    new: object
    outcomes: object
    counters: object


def run_single_root(game: Game, rules: CompiledRules, evaluate_fn, num_simulations: int, loop: SingleRootLoop) -> None:
    """The ``num_simulations`` simulations of ``mcts.search.search_loop`` for one root (``B = 1``,
    no chance, no forced root actions), in compiled calls (module docstring), in the loop's own
    buffers ``loop``; counted in ``loop.counters`` as there.

    Raises:
        ValueError: for evaluator output of the wrong shape or a non-finite value (as
            ``mcts.evaluators.evaluate_leaves``).
    """
    arrays, params, walks, new, outcomes, counters = (
        loop.arrays, loop.params, loop.walks, loop.new, loop.outcomes, loop.counters
    )
    use_solver = bool(params.use_solver)
    walk_inputs = (loop.root_actions, loop.seeds)
    advance = single_root_kernel(rules)
    on_states = takes_states(evaluate_fn)
    num_actions = game.num_actions
    scratch = np.empty(num_actions, dtype=np.float64)
    remaining = int(num_simulations)
    while remaining > 0:
        done, pending = advance(arrays, params, walks, walk_inputs, new, outcomes, remaining, counters.num_terminal)
        remaining -= done
        if not pending:
            break
        states = new.states[:1].copy()
        legal = new.legal[:1].copy()
        priors, values = evaluate_fn(states if on_states else game.observation(states), legal)
        priors = np.asarray(priors)
        values = np.asarray(values)
        if priors.shape != (1, num_actions):
            raise ValueError(f"evaluate_fn: expected priors of shape {(1, num_actions)}, got {priors.shape}")
        if values.shape != (1,):
            raise ValueError(f"evaluate_fn: expected values of shape (1,), got {values.shape}")
        value = np.float32(values[0])
        if not math.isfinite(value):
            raise ValueError(f"evaluate_fn returned non-finite values: {values.astype(np.float32)}")
        if finish_leaf(arrays, walks, new, outcomes, use_solver, priors[0], value, scratch):
            counters.num_degenerate[0] += 1
        counters.num_evaluations[0] += 1
        remaining -= 1
