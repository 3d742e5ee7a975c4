"""A policy/value network inside alpha-beta: the network's value at the leaves, its policy for ordering.

The hybrid of the strongest engines since 2020 (Stockfish's NNUE evaluation inside alpha-beta;
here a full AlphaZero policy/value network, Silver et al. 2018): ``NetworkEvaluation`` turns a
batched evaluator into the two hooks of ``search.alphabeta.AlphaBeta``:

* ``evaluate(state) -> int``: the network's value ``v`` in ``[-1, 1]`` for the player to move,
  as integer points ``round(v * NETWORK_VALUE_SCALE)``. It replaces the heuristic at the horizon
  and in quiescence. ``NETWORK_VALUE_SCALE`` is far below ``search.minimax.PROVEN_THRESHOLD``, so
  every proven win (``WIN_SCORE - ply``) scores above every network value and a proven loss below:
  a proven result is never traded for a good-looking evaluation. Finished states are scored
  exactly by the search and never sent to the network.
* ``expand(state, moves, depth) -> moves``: called by the search before it searches a node's
  moves, with the plies left below the node. At a frontier node (``depth <= 1``: the children are
  horizon or quiescence nodes, whose values the search reads next) the children that are not
  finished and not yet cached are evaluated with the node in one batched call: the frontier
  siblings share one network call. Deeper nodes evaluate only themselves (for their policy):
  their children are searched one by one and most are cut off before their value is needed. The
  moves come back by decreasing prior of ``state`` (the network's policy), ties in the order
  given; the search puts its transposition-table move in front.

Evaluations are cached by the search's transposition key, so a position is sent to the network at
most once while it stays in the cache (``max_cache_entries``; the cache is emptied when full).
"""

from __future__ import annotations

from collections.abc import Callable, Hashable

import numpy as np

from games.base import Game
from search.alphabeta import default_key_fn

#: integer points of a network value of +1 (a value ``v`` scores ``round(v * NETWORK_VALUE_SCALE)``);
#: below ``search.minimax.PROVEN_THRESHOLD``, so proven wins and losses stay outside every network value
NETWORK_VALUE_SCALE = 10_000
#: default bound on cached evaluations (about 200 bytes each)
DEFAULT_MAX_CACHE_ENTRIES = 200_000

#: ``evaluate_fn(observations [B, C, H, W] float32, legal_mask [B, A] bool) -> (priors [B, A], values [B])``
BatchedEvaluateFn = Callable[[np.ndarray, np.ndarray], tuple[np.ndarray, np.ndarray]]


class NetworkEvaluation:
    """A batched policy/value evaluator as alpha-beta's leaf evaluation and move ordering.

    Args:
        game: the rules (``observation`` and ``legal_mask`` encode the positions).
        evaluate_fn: ``(observations [B, C, H, W] float32, legal_mask [B, A] bool) -> (priors
            [B, A], values [B])``, values in ``[-1, 1]`` for the player to move; a callable with
            the attribute ``takes_states = True`` gets the states ``[B, S]`` int64 instead of
            observations (the convention of ``mcts.evaluators``).
        key_fn: cache key of a state (default: the search's transposition key,
            ``search.alphabeta.default_key_fn``).
        max_cache_entries: evaluations kept, >= 1; the cache is emptied when it is full.

    Raises:
        ValueError: if ``max_cache_entries`` < 1; from ``evaluate``/``expand``, if the network
            returns arrays of the wrong shape, or a value that is not finite or lies outside
            ``[-1, 1]`` (the message gives the value and the position).

    Attributes:
        num_calls: batched network calls so far.
        num_positions: positions sent to the network so far.
    """

    def __init__(
        self,
        game: Game,
        evaluate_fn: BatchedEvaluateFn,
        key_fn: Callable[[tuple], Hashable] | None = None,
        max_cache_entries: int = DEFAULT_MAX_CACHE_ENTRIES,
    ) -> None:
        if isinstance(max_cache_entries, bool) or not isinstance(max_cache_entries, int) or max_cache_entries < 1:
            raise ValueError(f"max_cache_entries must be an integer >= 1, got {max_cache_entries!r}")
        self.game = game
        self.evaluate_fn = evaluate_fn
        self.key_fn = key_fn if key_fn is not None else default_key_fn(game)
        self.max_cache_entries = max_cache_entries
        self._takes_states = bool(getattr(evaluate_fn, "takes_states", False))
        self._cache: dict[Hashable, tuple[float, np.ndarray]] = {}
        self.num_calls = 0
        self.num_positions = 0

    # --------------------------------------------------------------------------- the two hooks
    def evaluate(self, state: tuple) -> int:
        """Integer score of the non-terminal ``state`` for the player to move: ``round(v * NETWORK_VALUE_SCALE)``."""
        return round(self._entry(state)[0] * NETWORK_VALUE_SCALE)

    def expand(self, state: tuple, moves: list[int], depth: int) -> list[int]:
        """``moves`` by decreasing prior of ``state``; at a frontier node (``depth`` <= 1 plies left)
        the unfinished, uncached children are evaluated first, with ``state``, in one call."""
        game = self.game
        key_fn = self.key_fn
        cache = self._cache
        missing: dict[Hashable, tuple] = {}
        if depth <= 1:
            for action in moves:
                child = game.result(state, action)
                if not game.terminal_test(child):
                    key = key_fn(child)
                    if key not in cache:
                        missing[key] = child
        key = key_fn(state)
        if key not in cache:
            missing.setdefault(key, state)
        if missing:
            self._evaluate_batch(list(missing.items()))
        priors = self._entry(state)[1]
        return sorted(moves, key=lambda a: -priors[a])

    # -------------------------------------------------------------------------------- queries
    def value(self, state: tuple) -> float:
        """The network's value of the non-terminal ``state`` for the player to move, in ``[-1, 1]``."""
        return self._entry(state)[0]

    def priors(self, state: tuple) -> np.ndarray:
        """``[A]`` float64 masked network policy of the non-terminal ``state`` (0 on illegal actions)."""
        return self._entry(state)[1].copy()

    def clear(self) -> None:
        """Empty the cache (the counters stay)."""
        self._cache.clear()

    # ------------------------------------------------------------------------------ internals
    def _entry(self, state: tuple) -> tuple[float, np.ndarray]:
        key = self.key_fn(state)
        entry = self._cache.get(key)
        if entry is None:
            self._evaluate_batch([(key, state)])
            entry = self._cache[key]
        return entry

    def _evaluate_batch(self, items: list[tuple[Hashable, tuple]]) -> None:
        game = self.game
        rows = np.array([state for _, state in items], dtype=np.int64)
        legal = game.legal_mask(rows)
        inputs = rows if self._takes_states else game.observation(rows)
        priors, values = self.evaluate_fn(inputs, legal)
        self.num_calls += 1
        self.num_positions += len(items)
        count = len(items)
        priors = np.asarray(priors, dtype=np.float64)
        values = np.asarray(values, dtype=np.float64)
        if priors.shape != (count, game.num_actions):
            raise ValueError(f"network: expected priors of shape {(count, game.num_actions)}, got {priors.shape}")
        if values.shape != (count,):
            raise ValueError(f"network: expected values of shape ({count},), got {values.shape}")
        bad = ~(np.isfinite(values) & (np.abs(values) <= 1.0))
        if bad.any():
            index = int(np.flatnonzero(bad)[0])
            raise ValueError(
                f"network: expected values in [-1, 1] for the player to move, got {values[index]!r} for "
                f"the position\n{game.render(items[index][1])}"
            )
        priors = np.where(legal, np.nan_to_num(priors, nan=0.0), 0.0)
        if len(self._cache) + count > self.max_cache_entries:
            self._cache.clear()
        for (key, _), value, prior in zip(items, values, priors):
            self._cache[key] = (float(value), prior)
