"""The evaluator seam: one interface for the network, a free evaluator and random rollouts.

An *evaluator* is a callable ``evaluate_fn(inputs, legal_mask) -> (priors, values)``:

* ``inputs`` are observations ``[B', C, H, W]`` float32 (``game.observation``) by default, or the
  raw game states ``[B', S]`` int64 when the callable has an attribute ``takes_states = True``
  (use the ``state_evaluator`` decorator). Rollout evaluators need states; networks need
  observations. The search computes only what the evaluator asks for.
* ``legal_mask`` is ``[B', A]`` bool, True = legal; every row has a legal action (the search
  never sends terminal states).
* ``priors`` is ``[B', A]`` float (probabilities; the search masks and renormalises them, see
  ``mcts.policy.mask_priors``), ``values`` is ``[B']`` float in ``[-1, 1]`` from the view of the
  player to move in each state.

This mirrors OpenSpiel's single evaluator interface (``open_spiel/python/algorithms/mcts.py``):
UCT and AlphaZero share the tree code and differ only in the evaluator and the selection rule.
"""

from __future__ import annotations

from collections.abc import Callable

import numpy as np

from games.base import NO_WINNER, Game
from mcts.masking import mask_priors_fast
from mcts.policy import check_rng

EvaluateFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


def state_evaluator(fn: EvaluateFn) -> EvaluateFn:
    """Mark ``fn`` as taking game states ``[B', S]`` int64 instead of observations; returns ``fn``."""
    fn.takes_states = True
    return fn


def takes_states(evaluate_fn: EvaluateFn) -> bool:
    """True when ``evaluate_fn`` wants game states rather than observations."""
    return bool(getattr(evaluate_fn, "takes_states", False))


def uniform_evaluator(inputs: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The "zero net": uniform priors over legal actions and value 0 (``[B', A]`` f32, ``[B']`` f32)."""
    legal_mask = np.asarray(legal_mask, dtype=bool)
    priors = legal_mask / np.maximum(legal_mask.sum(axis=1, keepdims=True), 1)
    return priors.astype(np.float32), np.zeros(legal_mask.shape[0], dtype=np.float32)


#: The zero net on states: the same function, without the cost of encoding observations.
uniform_state_evaluator = state_evaluator(lambda states, legal_mask: uniform_evaluator(states, legal_mask))


def random_rollouts(game: Game, states: np.ndarray, rng: np.random.Generator, num_rollouts: int = 1) -> np.ndarray:
    """Mean result of uniformly random playouts, for the player to move in each state.

    All ``B * num_rollouts`` playouts advance together, one batched ``game.step`` per ply.

    Args:
        game: the rules.
        states: ``[B, S]`` int64 states (finished states return their exact result).
        rng: the generator every move choice comes from.
        num_rollouts: playouts per state, >= 1.

    Returns:
        ``[B]`` float32 in ``[-1, 1]``: +1 win, 0 draw, -1 loss for the player to move in ``states``.

    Raises:
        ValueError: if ``num_rollouts`` < 1, ``rng`` is not a ``numpy.random.Generator``, or a
            playout exceeds ``game.max_game_length`` plies.
    """
    if num_rollouts < 1:
        raise ValueError(f"expected num_rollouts >= 1, got {num_rollouts}")
    check_rng(rng)
    start_player = np.repeat(game.to_play(states).astype(np.int16), num_rollouts)
    current = np.repeat(states, num_rollouts, axis=0)
    active = np.flatnonzero(~game.terminal(current))
    for _ in range(game.max_game_length + 1):
        if active.size == 0:
            break
        rows = current[active]
        legal = game.legal_mask(rows)
        keys = np.where(legal, rng.random(legal.shape), -1.0)
        rows = game.step(rows, np.argmax(keys, axis=1).astype(np.int64))
        current[active] = rows
        active = active[~game.terminal(rows)]
    if active.size:
        raise ValueError(f"{game.name}: random playout longer than max_game_length={game.max_game_length}")
    winner = game.winner(current).astype(np.int16)
    result = np.where(winner == NO_WINNER, 0.0, np.where(winner == start_player, 1.0, -1.0))
    return result.reshape(-1, num_rollouts).mean(axis=1).astype(np.float32)


def random_rollout_evaluator(game: Game, rng: np.random.Generator, num_rollouts: int = 1) -> EvaluateFn:
    """A state evaluator: uniform priors over legal actions, value = mean of random playouts.

    Usable as the ``evaluate_fn`` of ``run_puct`` (PUCT with rollout values) and used by UCT.

    Raises:
        ValueError: if ``num_rollouts`` < 1 or ``rng`` is not a ``numpy.random.Generator``.
    """
    if num_rollouts < 1:
        raise ValueError(f"expected num_rollouts >= 1, got {num_rollouts}")
    check_rng(rng)

    @state_evaluator
    def evaluate(states: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        priors, _ = uniform_evaluator(states, legal_mask)
        return priors, random_rollouts(game, states, rng, num_rollouts)

    return evaluate


def symmetry_averaged(game: Game, evaluate_fn: EvaluateFn) -> EvaluateFn:
    """An evaluator that averages ``evaluate_fn`` over every symmetry of ``game``.

    Each position is evaluated in all ``G = game.num_symmetries`` images (one call of ``G * B'``
    rows); each image's priors are mapped back to the position's own actions and the ``G`` priors
    and values are averaged. Symmetric positions give the same averaged output in every image, so
    a search sees one value per equivalence class. This is test-time augmentation: AlphaGo (Silver
    et al. 2016, "Methods, Search algorithm") averaged the value network over the 8 board
    symmetries, AlphaGo Zero (Silver et al. 2017, "Methods, Self-play") evaluated one random
    symmetry per position. It costs ``G`` times the network's work per simulation.

    Args:
        game: the rules; its ``action_symmetries`` and ``transform_observation`` define the images.
        evaluate_fn: an evaluator on observations ``[B', C, H, W]`` float32 (not on states).

    Returns:
        ``evaluate_fn`` itself when the game has only the identity, else an evaluator with the same
        signature: priors ``[B', A]`` float32 (the mean of the images' probabilities), values
        ``[B']`` float32 (the mean of the images' values).

    Raises:
        ValueError: if ``evaluate_fn`` takes game states, which have no symmetry transform here.
    """
    if takes_states(evaluate_fn):
        raise ValueError("symmetry averaging needs an evaluator on observations, got one on game states")
    symmetries = np.asarray(game.action_symmetries, dtype=np.int64)
    if symmetries.shape[0] == 1:
        return evaluate_fn

    count = len(symmetries)
    images_of = range(count)

    def evaluate(observations: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        rows = observations.shape[0]
        images = np.concatenate([game.transform_observation(observations, g) for g in images_of])
        masks = np.concatenate([game.transform_policy(legal_mask, g) for g in images_of])
        priors, values = evaluate_fn(images, masks)  # one call: the G images of every row together
        priors = np.asarray(priors, dtype=np.float32).reshape(count, rows, -1)
        values = np.asarray(values, dtype=np.float32).reshape(count, rows)
        # image g's action perm[a] is the position's action a (transform_policy: q[..., perm] = p);
        # the means add the images in order, then divide, as numpy's mean over a leading axis
        prior_sum = priors[0][:, symmetries[0]]
        value_sum = values[0].copy()
        for g in range(1, count):
            prior_sum += priors[g][:, symmetries[g]]
            value_sum += values[g]
        return prior_sum / np.float32(count), value_sum / np.float32(count)

    evaluate.averages = (evaluate_fn, count)  # what it averages, for bound_network
    return evaluate


def bound_network(evaluate_fn: EvaluateFn, game: Game, rows: int = 1):
    """The network behind ``evaluate_fn`` with its input and outputs in preallocated buffers, or None.

    A network offers them when ``evaluate_fn`` is the bound ``evaluate`` method (or the instance)
    of an object with ``bind_buffers(rows)`` (``networks.onnx_evaluator.OnnxEvaluator``, whose
    ``evaluate`` is a softmax over the legal actions of its raw logits and its values clipped to
    ``[-1, 1]``), alone or wrapped once by ``symmetry_averaged``. ``bind_buffers(rows)`` returns an
    object with ``observations`` (``[rows, C, H, W]`` float32, C-contiguous, written by the caller),
    ``logits`` (``[rows, A]`` float32) and ``values`` (``[rows]`` float32) that ``run()`` fills from
    the network's raw outputs (``run_rows(k)``: the first ``k`` rows only), counting the call as
    ``evaluate`` does; ``min_legal_mass`` and ``count_degenerate(n)``, the threshold and the counter
    of rows with almost no probability on the legal actions; or None when it has no such buffers
    now (``selfplay.worker.SelfPlayWorker`` on torch). The compiled searches (``mcts.single``,
    ``mcts.batched``) evaluate their leaves there.

    Args:
        evaluate_fn: the evaluator.
        game: the rules the buffers must fit.
        rows: positions per network run (``mcts.batched``: the ``B`` rows of a batched search).

    Returns:
        ``(network, G)``: the bound network for ``G * rows`` rows, ``G`` the images of one position
        (``G = game.num_symmetries`` when averaged, else 1); None for any other evaluator or one
        whose buffers do not fit ``game``'s observation shape and action count.
    """
    inner, images = getattr(evaluate_fn, "averages", (evaluate_fn, 1))
    owner = inner if hasattr(inner, "bind_buffers") else getattr(inner, "__self__", None)
    if owner is None or not hasattr(owner, "bind_buffers"):
        return None
    if owner is not inner and getattr(inner, "__name__", None) != "evaluate":
        return None
    network = owner.bind_buffers(images * rows)
    if network is None:
        return None
    total = images * rows
    if (
        network.observations.shape != (total, *game.observation_shape)
        or network.logits.shape != (total, game.num_actions) or network.values.shape != (total,)
    ):
        return None
    return network, images


def evaluate_leaves(game: Game, evaluate_fn: EvaluateFn, states: np.ndarray, legal: np.ndarray):
    """Call ``evaluate_fn`` on non-terminal ``states`` ``[N, S]`` with their ``legal`` ``[N, A]``:
    ``(masked priors [N, A] float32, values [N] float32 clipped to [-1, 1], degenerate [N] bool)``.

    Raises:
        ValueError: for output of the wrong shape or non-finite values.
    """
    inputs = states if takes_states(evaluate_fn) else game.observation(states)
    priors, values = evaluate_fn(inputs, legal)
    priors = np.asarray(priors)
    values = np.asarray(values)
    count = states.shape[0]
    if priors.shape != (count, game.num_actions):
        raise ValueError(f"evaluate_fn: expected priors of shape {(count, game.num_actions)}, got {priors.shape}")
    if values.shape != (count,):
        raise ValueError(f"evaluate_fn: expected values of shape ({count},), got {values.shape}")
    values = values.astype(np.float32)
    if not np.all(np.isfinite(values)):
        raise ValueError(f"evaluate_fn returned non-finite values: {values[~np.isfinite(values)][:5]}")
    priors, degenerate = mask_priors_fast(priors, legal)  # mcts.policy.mask_priors, compiled
    return priors, np.clip(values, -1.0, 1.0), degenerate
