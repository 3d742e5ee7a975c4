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

When the evaluator is a network that works in bound buffers (``mcts.evaluators.bound_network``:
ONNX Runtime's IO binding, ``networks.onnx_evaluator.OnnxEvaluator.bind_buffers``), alone or
averaged over the game's symmetries (``mcts.evaluators.symmetry_averaged``), and the game has a
compiled encoder (``Game.compiled_observation``), the whole search is one compiled call
(``network_search_kernel``): it writes each leaf's observation, and every symmetric image of it,
straight into the network's input buffer, calls back into Python through a ctypes function
pointer to run the bound network (``_RUN_CALLBACK``; far cheaper than a Numba object-mode block),
and turns the raw logits into the evaluator's priors itself: the softmax over the legal actions of
``networks.policy_numpy.masked_softmax_with_count_numpy`` (its float32 operations in numpy's
order, the exponentials by numpy's own ``exp`` on the same contiguous ``[G, A]`` block through a
second callback, ``_EXP_CALLBACK``: numpy's vectorised ``exp`` is not the correctly rounded one a
compiled ``exp`` gives), the images' average of ``symmetry_averaged`` and the clipping of the
values. The priors, values, tree and move are the same floats as through
``evaluate_fn`` (tests/test_single_position_search.py); what goes is the Python work around each
network run.
"""

from __future__ import annotations

import ctypes
import math
import threading
from typing import NamedTuple

import numpy as np
from numba import njit

from games.base import CompiledRules, Game
from mcts.evaluators import bound_network, takes_states
from mcts.kernels import CHANCE_NONE, expand_and_backup, select_leaves
from mcts.masking import MAX_ACTIONS, mask_prior_row, pairwise_sum  # MAX_ACTIONS: mcts.search's bound too

_KERNELS: dict[CompiledRules, object] = {}
_NETWORK_KERNELS: dict[tuple[CompiledRules, object], object] = {}

#: the bound network and leaf buffers of the search running in this thread: the leaf callback of
#: ``network_search_kernel`` reaches them here (a compiled function takes no Python object)
_ACTIVE = threading.local()

#: status codes of ``network_search_kernel``
SEARCH_DONE, SEARCH_NON_FINITE_VALUE, SEARCH_CALLBACK_FAILED = 0, 1, 2


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
    if run_network_search(game, rules, evaluate_fn, num_simulations, loop):
        return
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


class LeafBuffers(NamedTuple):
    """The buffers of ``network_search_kernel`` for a network on ``G`` images of each leaf (``G = 1``
    without symmetry averaging), ``A`` actions and ``D = C * H * W`` observation entries.

    ``encoded`` ``[C, H, W]`` float32 (the leaf's observation) and ``encoded_flat`` ``[D]`` (the same
    memory); ``images`` ``[G, D]`` float32, the network's bound input; ``image_index`` ``[G, D]``
    int64 (image ``g``'s entry ``i`` is ``encoded_flat[image_index[g, i]]``); ``action_images``
    ``[G, A]`` int64 (``game.action_symmetries``: the position's action ``a`` is image ``g``'s action
    ``action_images[g, a]``); ``image_legal`` ``[G, A]`` bool; ``logits`` ``[G, A]`` and ``values``
    ``[G]`` float32, the network's bound outputs; ``shifted`` and ``weights`` ``[G, A]`` float32, the
    softmax's shifted logits and their exponentials; ``probabilities`` ``[G, A]`` float32; ``priors``
    ``[A]`` float32; ``scratch`` ``[A]`` float64; ``counts`` ``[2]`` int64 (network rows with almost no
    probability on legal actions, degenerate priors); ``bad_value`` ``[1]`` float32 (a non-finite
    value, for the error); ``min_legal_mass``, the network's threshold for the first count."""

    encoded: np.ndarray
    encoded_flat: np.ndarray
    images: np.ndarray
    image_index: np.ndarray
    action_images: np.ndarray
    image_legal: np.ndarray
    logits: np.ndarray
    values: np.ndarray
    shifted: np.ndarray
    weights: np.ndarray
    probabilities: np.ndarray
    priors: np.ndarray
    scratch: np.ndarray
    counts: np.ndarray
    bad_value: np.ndarray
    min_legal_mass: float


def guarded(step, holder=_ACTIVE):
    """``step`` as a C callback for compiled code: returns 0, or 1 after keeping the exception in
    ``holder.error`` (a ctypes callback cannot raise into its caller); ``holder``: the thread-local
    record of the search that runs it (this module's, or ``mcts.batched``'s)."""

    def callback() -> int:
        try:
            step()
        except BaseException as error:  # noqa: BLE001 - kept and raised again by the search that called it
            holder.error = error
            return 1
        return 0

    return ctypes.CFUNCTYPE(ctypes.c_int)(callback)


def _run_active_network() -> None:
    """The network bound in ``_ACTIVE`` on the images written into its input."""
    _ACTIVE.network.run()


def _exp_active_leaf() -> None:
    """numpy's ``exp`` of the active leaf's shifted logits into its weights, in place: the same
    function on the same contiguous ``[G, A]`` block as ``networks.policy_numpy``'s softmax, so
    the same floats."""
    leaf = _ACTIVE.leaf
    np.exp(leaf.shifted, out=leaf.weights)


#: the two Python steps of each leaf of ``network_search_kernel`` as C function pointers, which
#: compiled code calls directly (far cheaper than a Numba object-mode block)
_RUN_CALLBACK = guarded(_run_active_network)
_EXP_CALLBACK = guarded(_exp_active_leaf)


@njit(cache=True)
def shift_legal_logits(logits, legal, shifted):  # pragma: no cover - compiled
    """Row by row, the legal logits minus the row's largest legal logit, illegal entries ``-inf``
    (``networks.policy_numpy``'s ``_shifted``: float32, a NaN legal logit makes the maximum NaN);
    ``logits``, ``shifted`` ``[G, A]`` float32, ``legal`` ``[G, A]`` bool; every row has a legal action."""
    minus_inf = np.float32(-np.inf)
    for g in range(logits.shape[0]):
        legal_max = minus_inf
        has_nan = False
        for a in range(logits.shape[1]):
            if legal[g, a]:
                x = logits[g, a]
                if math.isnan(x):
                    has_nan = True
                elif x > legal_max:
                    legal_max = x
        if has_nan:
            legal_max = np.float32(np.nan)
        for a in range(logits.shape[1]):
            filled = logits[g, a] if legal[g, a] else minus_inf
            shifted[g, a] = filled - legal_max


@njit(cache=True)
def normalise_weights(weights, probabilities):  # pragma: no cover - compiled
    """``weights / weights.sum(axis=-1, keepdims=True)`` in float32 (numpy's summation order), row
    by row, into ``probabilities`` (``[G, A]`` float32)."""
    num_actions = weights.shape[1]
    for g in range(weights.shape[0]):
        total = pairwise_sum(weights[g], num_actions, np.float32(0.0))
        for a in range(num_actions):
            probabilities[g, a] = weights[g, a] / total


@njit(cache=True)
def count_degenerate_rows(logits, legal, min_legal_mass):  # pragma: no cover - compiled
    """Rows whose unmasked softmax puts less than ``min_legal_mass`` on legal actions, as
    ``networks.policy_numpy.masked_softmax_with_count_numpy`` counts them (rows whose best legal
    logit is far below the best logit, then the exact legal mass in float64)."""
    num_actions = logits.shape[1]
    bound = math.log(min_legal_mass) + math.log(num_actions)
    count = 0
    for g in range(logits.shape[0]):
        legal_max = np.float32(-np.inf)
        row_max = np.float32(-np.inf)
        has_nan = False
        for a in range(num_actions):
            x = logits[g, a]
            if math.isnan(x):
                has_nan = True
            elif x > row_max:
                row_max = x
            if legal[g, a] and not math.isnan(x) and x > legal_max:
                legal_max = x
        if has_nan or not (np.float32(legal_max - row_max) < bound):
            continue
        top = np.float64(row_max)
        total = 0.0
        legal_mass = 0.0
        for a in range(num_actions):
            w = math.exp(np.float64(logits[g, a]) - top)
            total += w
            if legal[g, a]:
                legal_mass += w
        if legal_mass / total < min_legal_mass:
            count += 1
    return count


def network_search_kernel(rules: CompiledRules, observe_fn):
    """The compiled whole search with a bound network for the game whose ``compiled_rules()`` is
    ``rules`` and ``compiled_observation()`` is ``observe_fn`` (memoised).

    ``search(t, params, walks, (root_actions, seeds), (new, outcomes), remaining, (num_terminal,
    num_evaluations), leaf) -> status``: runs ``remaining`` simulations on the one-row tree ``t``
    as ``advance`` and ``finish_leaf`` (module docstring), evaluating each new leaf with the network
    bound in ``_ACTIVE`` through the buffers ``leaf`` (``LeafBuffers``) and the two callbacks.
    Returns ``SEARCH_DONE``, ``SEARCH_NON_FINITE_VALUE`` (the value in ``leaf.bad_value``) or
    ``SEARCH_CALLBACK_FAILED`` (the exception in ``_ACTIVE.error``); the search stops at either.
    """
    key = (rules, observe_fn)
    kernel = _NETWORK_KERNELS.get(key)
    if kernel is None:
        kernel = _NETWORK_KERNELS[key] = _build_network_search(single_root_kernel(rules), observe_fn)
    return kernel


def _build_network_search(advance, observe_fn):
    @njit
    def search(t, params, walks, walk_inputs, new_nodes, remaining, counts, leaf):  # pragma: no cover - compiled
        new, outcomes = new_nodes
        num_terminal, num_evaluations = counts
        use_solver = params.use_solver
        num_images, size = leaf.image_index.shape
        num_actions = leaf.priors.shape[0]
        minus_one, one = np.float32(-1.0), np.float32(1.0)
        while remaining > 0:
            done, pending = advance(t, params, walks, walk_inputs, new, outcomes, remaining, num_terminal)
            remaining -= done
            if not pending:
                break
            observe_fn(new.states[0], leaf.encoded)
            for g in range(num_images):
                for i in range(size):
                    leaf.images[g, i] = leaf.encoded_flat[leaf.image_index[g, i]]
                for a in range(num_actions):
                    leaf.image_legal[g, leaf.action_images[g, a]] = new.legal[0, a]
            if _RUN_CALLBACK() != 0:
                return SEARCH_CALLBACK_FAILED
            leaf.counts[0] += count_degenerate_rows(leaf.logits, leaf.image_legal, leaf.min_legal_mass)
            shift_legal_logits(leaf.logits, leaf.image_legal, leaf.shifted)
            if _EXP_CALLBACK() != 0:
                return SEARCH_CALLBACK_FAILED
            normalise_weights(leaf.weights, leaf.probabilities)
            # the evaluator's clipped values, averaged over the images as mcts.evaluators.symmetry_averaged
            value = leaf.values[0]
            value = max(value, minus_one) if not math.isnan(value) else value
            value = min(value, one) if not math.isnan(value) else value
            if num_images == 1:
                for a in range(num_actions):
                    leaf.priors[a] = leaf.probabilities[0, a]
            else:
                for a in range(num_actions):
                    leaf.priors[a] = leaf.probabilities[0, leaf.action_images[0, a]]
                for g in range(1, num_images):
                    image_value = leaf.values[g]
                    image_value = max(image_value, minus_one) if not math.isnan(image_value) else image_value
                    image_value = min(image_value, one) if not math.isnan(image_value) else image_value
                    value = np.float32(value + image_value)
                    for a in range(num_actions):
                        leaf.priors[a] = np.float32(leaf.priors[a] + leaf.probabilities[g, leaf.action_images[g, a]])
                count = np.float32(num_images)
                for a in range(num_actions):
                    leaf.priors[a] = np.float32(leaf.priors[a] / count)
                value = np.float32(value / count)
            if not math.isfinite(value):
                leaf.bad_value[0] = value
                return SEARCH_NON_FINITE_VALUE
            if mask_prior_row(leaf.priors, new.legal[0], new.priors[0], leaf.scratch):
                leaf.counts[1] += 1
            new.values[0] = min(max(value, minus_one), one)
            expand_and_backup(t, walks, new, outcomes, use_solver, CHANCE_NONE)
            num_evaluations[0] += 1
            remaining -= 1
        return SEARCH_DONE

    return search


def leaf_buffers(game: Game, network, num_images: int) -> LeafBuffers:
    """``LeafBuffers`` around a bound ``network`` (``mcts.evaluators.bound_network``) of
    ``num_images`` rows: the game's ``num_images`` symmetries (all of them), or the identity for 1.

    Raises:
        ValueError: if the game's ``transform_observation`` is not a permutation of the entries
            (then the images cannot be gathered from the encoded leaf).
    """
    shape = tuple(game.observation_shape)
    size = int(np.prod(shape))
    num_actions = game.num_actions
    if num_images == 1:
        image_index = np.arange(size, dtype=np.int64)[None]
        action_images = np.arange(num_actions, dtype=np.int64)[None]
    else:
        positions = np.arange(size, dtype=np.float64).reshape((1, *shape))
        image_index = np.stack(
            [np.asarray(game.transform_observation(positions, g), dtype=np.float64).reshape(size) for g in range(num_images)]
        ).astype(np.int64)
        if np.any(np.sort(image_index, axis=1) != np.arange(size)):
            raise ValueError(f"{game.name}: expected symmetries that permute the observation's entries")
        action_images = np.ascontiguousarray(np.asarray(game.action_symmetries, dtype=np.int64))
    encoded = np.zeros(shape, dtype=np.float32)
    return LeafBuffers(
        encoded=encoded, encoded_flat=encoded.reshape(size),
        images=network.observations.reshape(num_images, size), image_index=image_index, action_images=action_images,
        image_legal=np.zeros((num_images, num_actions), dtype=np.bool_),
        logits=network.logits, values=network.values,
        shifted=np.zeros((num_images, num_actions), dtype=np.float32),
        weights=np.zeros((num_images, num_actions), dtype=np.float32),
        probabilities=np.zeros((num_images, num_actions), dtype=np.float32),
        priors=np.zeros(num_actions, dtype=np.float32), scratch=np.zeros(num_actions, dtype=np.float64),
        counts=np.zeros(2, dtype=np.int64), bad_value=np.zeros(1, dtype=np.float32),
        min_legal_mass=float(network.min_legal_mass),
    )


def run_network_search(game: Game, rules: CompiledRules, evaluate_fn, num_simulations: int, loop: SingleRootLoop) -> bool:
    """``run_single_root`` in one compiled call when ``evaluate_fn`` is a bound network
    (``mcts.evaluators.bound_network``) and the game has a compiled encoder; returns False (nothing
    done) otherwise. The network's own counters (calls, positions, degenerate rows) count as
    through ``evaluate_fn``.

    Raises:
        ValueError: for a non-finite network value (as ``run_single_root``).
        Exception: whatever the network's run raises, raised again here.
    """
    observe_fn = game.compiled_observation()
    if observe_fn is None or game.num_actions > MAX_ACTIONS:
        return False
    found = bound_network(evaluate_fn, game)
    if found is None:
        return False
    network, num_images = found
    leaf = leaf_buffers(game, network, num_images)
    search = network_search_kernel(rules, observe_fn)
    counters = loop.counters
    previous = getattr(_ACTIVE, "network", None), getattr(_ACTIVE, "leaf", None)
    _ACTIVE.network, _ACTIVE.leaf, _ACTIVE.error = network, leaf, None
    try:
        status = search(
            loop.arrays, loop.params, loop.walks, (loop.root_actions, loop.seeds), (loop.new, loop.outcomes),
            int(num_simulations), (counters.num_terminal, counters.num_evaluations), leaf,
        )
    finally:
        error, _ACTIVE.error = _ACTIVE.error, None
        _ACTIVE.network, _ACTIVE.leaf = previous
        network.count_degenerate(int(leaf.counts[0]))
    counters.num_degenerate[0] += int(leaf.counts[1])
    if status == SEARCH_CALLBACK_FAILED:
        raise error
    if status == SEARCH_NON_FINITE_VALUE:
        raise ValueError(f"evaluate_fn returned non-finite values: {leaf.bad_value}")
    return True
