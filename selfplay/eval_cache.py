"""A bounded network-evaluation cache for one self-play actor, keyed by the exact game state.

Self-play searches revisit positions: the subtree of the move just played is searched again at
the next ply (self-play trees are not reused), and the K games of an actor share their openings.
leela-zero reports about 1.7x from such a cache (pull request 471). ``EvaluationCache`` wraps an
observation evaluator (``mcts.evaluators``) into a state evaluator that answers repeated states
from a table and sends only the others to the network, in one call.

The table is direct-mapped (``capacity`` slots; a new entry replaces the one in its slot), all
vectorised: a row's slot is a 64-bit multiplicative hash of its state modulo ``capacity``, and a
hit needs the stored state to equal the row's state in every column, so the cache never returns
another position's output. The key is the state itself, not its symmetry class: answering a
mirrored position with the mirrored output would change the search's result whenever the network
is not exactly symmetric. Call ``clear`` whenever the weights change (``selfplay.worker`` does).

Outputs are stored as the evaluator returned them (float32 priors before masking, values), so a
search with the cache equals the search without it whenever the evaluator gives a row the same
output in any batch (exactly so for a deterministic function of the row; a network on a CPU
may differ in the last bits between batch sizes).
"""

from __future__ import annotations

from typing import NamedTuple

import numpy as np

from games.base import Game

_MULTIPLIERS_SEED = 0x5EED_CAC4E


class CacheArrays(NamedTuple):
    """``EvaluationCache.compiled_cache``: the wrapped ``evaluate_fn`` and the table, ``keys``
    ``[capacity, S]`` int64, ``filled`` ``[capacity]`` bool, ``priors`` ``[capacity, A]`` float32,
    ``values`` ``[capacity]`` float32, and the hash's odd ``multipliers`` ``[S]`` uint64."""

    evaluate_fn: object
    keys: np.ndarray
    filled: np.ndarray
    priors: np.ndarray
    values: np.ndarray
    multipliers: np.ndarray


class EvaluationCache:
    """A state evaluator with a bounded table in front of ``evaluate_fn``.

    Args:
        game: the rules (``observation`` encodes the states that miss).
        evaluate_fn: ``(observations [B, C, H, W] float32, legal_mask [B, A] bool) -> (priors
            [B, A], values [B])``, values for the player to move.
        capacity: slots in the table, >= 1.

    Attributes:
        hits, lookups: states answered from the table, and states asked for, since creation.

    Raises:
        ValueError: if ``capacity`` < 1.
    """

    takes_states = True

    def __init__(self, game: Game, evaluate_fn, capacity: int) -> None:
        if isinstance(capacity, bool) or not isinstance(capacity, (int, np.integer)) or capacity < 1:
            raise ValueError(f"expected an int capacity >= 1, got {capacity!r}")
        self.game = game
        self.evaluate_fn = evaluate_fn
        self.capacity = int(capacity)
        self._keys = np.zeros((self.capacity, game.state_size), dtype=np.int64)
        self._filled = np.zeros(self.capacity, dtype=bool)
        self._priors = np.zeros((self.capacity, game.num_actions), dtype=np.float32)
        self._values = np.zeros(self.capacity, dtype=np.float32)
        multipliers = np.random.default_rng(_MULTIPLIERS_SEED).integers(1, 2**62, size=game.state_size)
        self._multipliers = (multipliers.astype(np.uint64) << np.uint64(1)) | np.uint64(1)  # odd
        self.hits = 0
        self.lookups = 0

    def compiled_cache(self) -> CacheArrays:
        """The table itself (not a copy) and the evaluator behind it, for the compiled batched search
        (``mcts.batched``), which looks states up and stores outputs exactly as ``__call__`` does
        and adds its hits and lookups to ``hits`` and ``lookups``."""
        return CacheArrays(self.evaluate_fn, self._keys, self._filled, self._priors, self._values, self._multipliers)

    def clear(self) -> None:
        """Forget every entry (call it when the weights change)."""
        self._filled[:] = False

    def slots(self, states: np.ndarray) -> np.ndarray:
        """Table slot of each state: ``[B]`` int64 in ``[0, capacity)``."""
        mixed = (states.astype(np.uint64) * self._multipliers).sum(axis=1, dtype=np.uint64)
        mixed ^= mixed >> np.uint64(29)
        mixed *= np.uint64(0xBF58476D1CE4E5B9)
        mixed ^= mixed >> np.uint64(32)
        return (mixed % np.uint64(self.capacity)).astype(np.int64)

    def __call__(self, states: np.ndarray, legal_mask: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
        """Priors ``[B, A]`` float32 and values ``[B]`` float32 of ``states`` ``[B, S]`` int64."""
        states = np.asarray(states, dtype=np.int64)
        count = states.shape[0]
        slots = self.slots(states)
        hit = self._filled[slots] & np.all(self._keys[slots] == states, axis=1)
        priors = np.empty((count, self.game.num_actions), dtype=np.float32)
        values = np.empty(count, dtype=np.float32)
        priors[hit] = self._priors[slots[hit]]
        values[hit] = self._values[slots[hit]]
        miss = np.flatnonzero(~hit)
        if miss.size:
            new_priors, new_values = self.evaluate_fn(self.game.observation(states[miss]), legal_mask[miss])
            new_priors = np.asarray(new_priors, dtype=np.float32)
            new_values = np.asarray(new_values, dtype=np.float32)
            priors[miss] = new_priors
            values[miss] = new_values
            # one write per slot (the last of the rows that share it), so keys and outputs agree
            targets = slots[miss]
            _, last_reversed = np.unique(targets[::-1], return_index=True)
            keep = targets.size - 1 - last_reversed
            targets = targets[keep]
            self._keys[targets] = states[miss[keep]]
            self._priors[targets] = new_priors[keep]
            self._values[targets] = new_values[keep]
            self._filled[targets] = True
        self.hits += int(hit.sum())
        self.lookups += count
        return priors, values
