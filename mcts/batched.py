"""The batched search loop in one compiled call, with a bound network: self-play at the network's speed.

``mcts.search.search_loop`` runs each simulation step of ``B`` roots as a dozen numpy calls from
Python around one evaluator call: stepping the rules, the terminal test, the legal mask, the
observation, the softmax over the legal actions, the prior masking, the evaluation cache's lookup,
and for the Gumbel search its root choice. At ``B = 64`` on one core that Python costs about a
fifth of what the network itself costs (docs/results.md, "Benchmarks"). Here, as ``mcts.single``
does for one root, the whole loop runs in one compiled call (``batched_network_kernel``), for a
game with compiled rules and a compiled encoder and an evaluator that is a network working in
bound buffers (``mcts.evaluators.bound_network``, one image per position), optionally behind an
evaluation cache that offers its table (``compiled_cache()``, ``selfplay.eval_cache``):

1. the forced root actions of the Gumbel search (``mcts.halving``, ``RootChoice``), then ``mcts.kernels.select_leaves`` over all rows;
2. for each row whose walk ended at a missing child: the rules step it, a terminal leaf takes its
   exact value, any other is looked up in the cache (the same direct-mapped table, the same hash,
   ``selfplay.eval_cache.EvaluationCache.slots``) and, on a miss, encoded into the next row of the
   network's bound input;
3. one network run on the ``k`` rows that missed, through a ctypes callback into Python
   (``mcts.single``'s device: a function pointer is far cheaper than an object-mode block), the
   softmax over the legal actions in ``networks.policy_numpy``'s float32 order (numpy's own
   ``exp`` through a second callback, as there), the values clipped; the misses stored in the
   cache, last row of a shared slot last, as the cache stores them;
4. every evaluated leaf's priors masked as ``mcts.policy.mask_priors``, then
   ``mcts.kernels.expand_and_backup``.

Every operation is the Python loop's, in its order, on the same rows: the network sees the same
``k`` rows in the same order, so a search gives the same visit counts, Q values, move and policy
target to the last bit, and the cache the same hits (tests/test_batched_network_search.py).
Games with chance, backups other than the mean, the MCTS-solver's Gumbel root rule and symmetry
averaging stay in the Python loop.
"""

from __future__ import annotations

import math
import threading
from typing import NamedTuple

import numpy as np
from numba import njit

from games.base import CompiledRules, Game
from mcts.evaluators import bound_network
from mcts.halving import halving_actions_compiled
from mcts.kernels import CHANCE_NONE, expand_and_backup, select_leaves
from mcts.masking import MAX_ACTIONS, mask_prior_row
from mcts.single import count_degenerate_rows, guarded, normalise_weights, shift_legal_logits

_KERNELS: dict[tuple[CompiledRules, object], object] = {}

#: the network and buffers of the search running in this thread, for the callbacks
_ACTIVE = threading.local()

#: status codes of the kernel
SEARCH_DONE, SEARCH_NON_FINITE_VALUE, SEARCH_CALLBACK_FAILED = 0, 1, 2

_GOLDEN_MIX = np.uint64(0xBF58476D1CE4E5B9)


class RootChoice(NamedTuple):
    """The forced root action of each simulation, ``mcts.gumbel``'s Sequential Halving choice
    (``mcts.halving.halving_actions_compiled``), or none (``active`` False, PUCT).

    ``gumbel``, ``logits`` ``[B, A]`` float64; ``schedule`` ``[B, n]`` int32; ``c_visit``,
    ``c_scale`` float."""

    active: bool
    gumbel: np.ndarray
    logits: np.ndarray
    schedule: np.ndarray
    c_visit: float
    c_scale: float


#: PUCT: no forced root action
NO_ROOT_CHOICE = RootChoice(
    False, np.zeros((1, 1)), np.zeros((1, 1)), np.zeros((1, 1), dtype=np.int32), 0.0, 0.0
)


class CacheTable(NamedTuple):
    """An evaluation cache's table (``selfplay.eval_cache.EvaluationCache``), shared, not copied:
    ``keys`` ``[N, S]`` int64, ``filled`` ``[N]`` bool, ``priors`` ``[N, A]`` float32 (the
    evaluator's output, before masking), ``values`` ``[N]`` float32, ``multipliers`` ``[S]``
    uint64 (the hash's odd multipliers); ``counts`` ``[2]`` int64, hits and lookups made by the
    kernel (the caller adds them to the cache's counters). ``active`` False: no cache."""

    active: bool
    keys: np.ndarray
    filled: np.ndarray
    priors: np.ndarray
    values: np.ndarray
    multipliers: np.ndarray
    counts: np.ndarray


def _no_cache(state_size: int, num_actions: int) -> CacheTable:
    return CacheTable(
        False, np.zeros((1, state_size), dtype=np.int64), np.zeros(1, dtype=np.bool_),
        np.zeros((1, num_actions), dtype=np.float32), np.zeros(1, dtype=np.float32),
        np.ones(state_size, dtype=np.uint64), np.zeros(2, dtype=np.int64),
    )


class BatchBuffers(NamedTuple):
    """The kernel's per-search buffers for ``B`` rows and ``A`` actions around a network bound for
    ``B`` rows: its ``observations`` (``[B, C, H, W]`` float32), ``logits`` (``[B, A]``) and
    ``values`` (``[B]``) float32; ``legal`` ``[B, A]`` bool (the network rows' legal masks);
    ``shifted``, ``weights``, ``probabilities`` ``[B, A]`` float32 (the softmax's steps);
    ``raw_priors`` ``[B, A]`` float32 and ``raw_values`` ``[B]`` float32 (each tree row's evaluator
    output); ``network_row`` ``[B]`` int64 (the network row of a tree row, -1 for a cache hit);
    ``slot`` ``[B]`` int64; ``evaluated`` ``[B]`` bool; ``count`` ``[1]`` int64 (the rows of the
    current run, read by the callback); ``scratch`` ``[A]`` float64; ``degenerate`` ``[1]`` int64
    (network rows with almost no legal mass); ``bad_value`` ``[1]`` float32; ``min_legal_mass``."""

    observations: np.ndarray
    logits: np.ndarray
    values: np.ndarray
    legal: np.ndarray
    shifted: np.ndarray
    weights: np.ndarray
    probabilities: np.ndarray
    raw_priors: np.ndarray
    raw_values: np.ndarray
    network_row: np.ndarray
    slot: np.ndarray
    evaluated: np.ndarray
    count: np.ndarray
    scratch: np.ndarray
    degenerate: np.ndarray
    bad_value: np.ndarray
    min_legal_mass: float


def _run_active_rows() -> None:
    """The bound network on the first ``count`` rows of its input."""
    _ACTIVE.network.run_rows(int(_ACTIVE.buffers.count[0]))


def _exp_active_rows() -> None:
    """numpy's ``exp`` of the first ``count`` rows of the shifted logits into the weights: the
    same function on the same contiguous ``[k, A]`` block as ``networks.policy_numpy``'s softmax."""
    buffers = _ACTIVE.buffers
    rows = int(buffers.count[0])
    np.exp(buffers.shifted[:rows], out=buffers.weights[:rows])


_RUN_CALLBACK = guarded(_run_active_rows, _ACTIVE)
_EXP_CALLBACK = guarded(_exp_active_rows, _ACTIVE)


@njit(cache=True)
def cache_slot(state, multipliers, capacity):  # pragma: no cover - compiled
    """``selfplay.eval_cache.EvaluationCache.slots`` of one state ``[S]`` int64: the same uint64
    arithmetic (wrapping), so the same slot in ``[0, capacity)``."""
    mixed = np.uint64(0)
    for i in range(state.shape[0]):
        mixed += np.uint64(state[i]) * multipliers[i]
    mixed ^= mixed >> np.uint64(29)
    mixed *= _GOLDEN_MIX
    mixed ^= mixed >> np.uint64(32)
    return np.int64(mixed % np.uint64(capacity))


def batched_network_kernel(rules: CompiledRules, observe_fn):
    """The compiled batched search for the game whose ``compiled_rules()`` is ``rules`` and
    ``compiled_observation()`` is ``observe_fn`` (memoised; built around the game's functions, so
    compiled once per process, not cached on disk, as ``mcts.single``).

    ``search(t, params, walks, (root_actions, seeds), (new, outcomes), num_simulations,
    (num_terminal, num_evaluations, num_degenerate), (root, cache, buffers)) -> status``: the
    ``num_simulations`` steps of ``mcts.search.search_loop`` on the tree ``t`` (module docstring).
    Returns ``SEARCH_DONE``, ``SEARCH_NON_FINITE_VALUE`` (the value in ``buffers.bad_value``) or
    ``SEARCH_CALLBACK_FAILED`` (the exception in ``_ACTIVE.error``); the search stops at either.
    """
    key = (rules, observe_fn)
    kernel = _KERNELS.get(key)
    if kernel is None:
        kernel = _KERNELS[key] = _build(rules, observe_fn)
    return kernel


def _build(rules: CompiledRules, observe_fn):
    legal_fn = rules.legal
    step_fn = rules.step
    is_terminal_fn = rules.is_terminal
    winner_fn = rules.winner
    to_play_fn = rules.to_play

    @njit
    def search(t, params, walks, walk_inputs, new_nodes, num_simulations, counters, leaf_inputs):  # pragma: no cover - compiled
        root_actions, seeds = walk_inputs
        root, cache, buffers = leaf_inputs
        new, outcomes = new_nodes
        num_terminal, num_evaluations, num_degenerate = counters
        use_solver = params.use_solver
        batch = walks.leaf.shape[0]
        num_actions = new.legal.shape[1]
        capacity = cache.filled.shape[0]
        minus_one, one = np.float32(-1.0), np.float32(1.0)
        for simulation in range(num_simulations):
            if root.active:
                halving_actions_compiled(
                    t, root.gumbel, root.logits, root.schedule, simulation, root.c_visit, root.c_scale, root_actions
                )
            select_leaves(t, params, walks, root_actions, seeds)
            rows = 0
            for b in range(batch):
                buffers.evaluated[b] = False
                if walks.leaf[b] >= 0:  # a terminal node already in the tree
                    num_terminal[b] += 1
                    continue
                state = new.states[b]
                step_fn(walks.parent_states[b], np.int64(walks.action[b]), state)
                player = to_play_fn(state)
                new.to_play[b] = player
                if is_terminal_fn(state):
                    winner = winner_fn(state)
                    new.terminal[b] = True
                    new.values[b] = 0.0 if winner < 0 else (1.0 if winner == player else -1.0)
                    for a in range(num_actions):
                        new.priors[b, a] = 0.0
                        new.legal[b, a] = False
                    num_terminal[b] += 1
                    continue
                new.terminal[b] = False
                legal_fn(state, new.legal[b])
                buffers.evaluated[b] = True
                num_evaluations[b] += 1
                if cache.active:
                    slot = cache_slot(state, cache.multipliers, capacity)
                    buffers.slot[b] = slot
                    cache.counts[1] += 1
                    hit = cache.filled[slot]
                    if hit:
                        for i in range(state.shape[0]):
                            if cache.keys[slot, i] != state[i]:
                                hit = False
                                break
                    if hit:
                        cache.counts[0] += 1
                        for a in range(num_actions):
                            buffers.raw_priors[b, a] = cache.priors[slot, a]
                        buffers.raw_values[b] = cache.values[slot]
                        buffers.network_row[b] = -1
                        continue
                buffers.network_row[b] = rows
                observe_fn(state, buffers.observations[rows])
                for a in range(num_actions):
                    buffers.legal[rows, a] = new.legal[b, a]
                rows += 1
            if rows > 0:
                buffers.count[0] = rows
                if _RUN_CALLBACK() != 0:
                    return SEARCH_CALLBACK_FAILED
                logits = buffers.logits[:rows]
                legal = buffers.legal[:rows]
                buffers.degenerate[0] += count_degenerate_rows(logits, legal, buffers.min_legal_mass)
                shift_legal_logits(logits, legal, buffers.shifted[:rows])
                if _EXP_CALLBACK() != 0:
                    return SEARCH_CALLBACK_FAILED
                normalise_weights(buffers.weights[:rows], buffers.probabilities[:rows])
                for b in range(batch):
                    row = buffers.network_row[b]
                    if not buffers.evaluated[b] or row < 0:
                        continue
                    value = buffers.values[row]  # the evaluator's clipping (NaN stays NaN)
                    value = max(value, minus_one) if not math.isnan(value) else value
                    value = min(value, one) if not math.isnan(value) else value
                    if not math.isfinite(value):
                        buffers.bad_value[0] = value
                        return SEARCH_NON_FINITE_VALUE
                    buffers.raw_values[b] = value
                    for a in range(num_actions):
                        buffers.raw_priors[b, a] = buffers.probabilities[row, a]
                    if cache.active:  # stored in row order: the last row of a shared slot stays
                        slot = buffers.slot[b]
                        for i in range(new.states.shape[1]):
                            cache.keys[slot, i] = new.states[b, i]
                        for a in range(num_actions):
                            cache.priors[slot, a] = buffers.probabilities[row, a]
                        cache.values[slot] = value
                        cache.filled[slot] = True
            for b in range(batch):
                if not buffers.evaluated[b]:
                    continue
                if mask_prior_row(buffers.raw_priors[b], new.legal[b], new.priors[b], buffers.scratch):
                    num_degenerate[b] += 1
                new.values[b] = min(max(buffers.raw_values[b], minus_one), one)
            expand_and_backup(t, walks, new, outcomes, use_solver, CHANCE_NONE)
        return SEARCH_DONE

    return search


def _batch_buffers(network, batch: int, num_actions: int) -> BatchBuffers:
    shape = (batch, num_actions)
    return BatchBuffers(
        observations=network.observations, logits=network.logits, values=network.values,
        legal=np.zeros(shape, dtype=np.bool_), shifted=np.zeros(shape, dtype=np.float32),
        weights=np.zeros(shape, dtype=np.float32), probabilities=np.zeros(shape, dtype=np.float32),
        raw_priors=np.zeros(shape, dtype=np.float32), raw_values=np.zeros(batch, dtype=np.float32),
        network_row=np.zeros(batch, dtype=np.int64), slot=np.zeros(batch, dtype=np.int64),
        evaluated=np.zeros(batch, dtype=np.bool_), count=np.zeros(1, dtype=np.int64),
        scratch=np.zeros(num_actions, dtype=np.float64), degenerate=np.zeros(1, dtype=np.int64),
        bad_value=np.zeros(1, dtype=np.float32), min_legal_mass=float(network.min_legal_mass),
    )


def _network_and_cache(evaluate_fn, game: Game, batch: int):
    """``(bound network of batch rows, CacheTable, cache or None)``, or None when ``evaluate_fn``
    is neither a bound network nor a cache in front of one."""
    cache = None
    inner = evaluate_fn
    compiled_cache = getattr(evaluate_fn, "compiled_cache", None)
    if compiled_cache is not None:
        cache = evaluate_fn
        table = compiled_cache()
        inner = table.evaluate_fn
    found = bound_network(inner, game, rows=batch)
    if found is None or found[1] != 1:  # symmetry averaging stays in the Python loop
        return None
    network = found[0]
    if not hasattr(network, "run_rows"):
        return None
    if cache is None:
        return network, _no_cache(game.state_size, game.num_actions), None
    counts = np.zeros(2, dtype=np.int64)
    return network, CacheTable(True, table.keys, table.filled, table.priors, table.values, table.multipliers, counts), cache


def run_batched_network_search(
    game: Game, evaluate_fn, num_simulations: int, loop, root: RootChoice | None
) -> bool:
    """The ``num_simulations`` steps of ``mcts.search.search_loop`` in one compiled call, in the
    loop's own buffers ``loop`` (``mcts.single.SingleRootLoop``'s fields, for ``B`` rows), when
    the game has compiled rules and a compiled encoder, no chance, at most ``MAX_ACTIONS`` actions,
    and ``evaluate_fn`` is a bound network or a cache in front of one; returns False (nothing done)
    otherwise. ``root``: the Gumbel root choice, None for none. The network's counters (calls,
    positions, degenerate rows) and the cache's (hits, lookups) count as through ``evaluate_fn``.

    Raises:
        ValueError: for a non-finite network value (as ``mcts.evaluators.evaluate_leaves``).
        Exception: whatever the network's run raises, raised again here.
    """
    if game.num_chance_outcomes or game.num_actions > MAX_ACTIONS:
        return False
    rules = game.compiled_rules()
    observe_fn = game.compiled_observation()
    if rules is None or observe_fn is None:
        return False
    batch = int(loop.walks.leaf.shape[0])
    found = _network_and_cache(evaluate_fn, game, batch)
    if found is None:
        return False
    network, table, cache = found
    buffers = _batch_buffers(network, batch, game.num_actions)
    search = batched_network_kernel(rules, observe_fn)
    counters = loop.counters
    previous = getattr(_ACTIVE, "network", None), getattr(_ACTIVE, "buffers", None)
    _ACTIVE.network, _ACTIVE.buffers, _ACTIVE.error = network, buffers, None
    try:
        status = search(
            loop.arrays, loop.params, loop.walks, (loop.root_actions, loop.seeds), (loop.new, loop.outcomes),
            int(num_simulations), (counters.num_terminal, counters.num_evaluations, counters.num_degenerate),
            (NO_ROOT_CHOICE if root is None else root, table, buffers),
        )
    finally:
        error, _ACTIVE.error = _ACTIVE.error, None
        _ACTIVE.network, _ACTIVE.buffers = previous
        network.count_degenerate(int(buffers.degenerate[0]))
        if cache is not None:
            cache.hits += int(table.counts[0])
            cache.lookups += int(table.counts[1])
    if status == SEARCH_CALLBACK_FAILED:
        raise error
    if status == SEARCH_NON_FINITE_VALUE:
        raise ValueError(f"evaluate_fn returned non-finite values: {buffers.bad_value}")
    return True
