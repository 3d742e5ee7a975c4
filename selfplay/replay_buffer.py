"""The replay buffer: a sliding window of the most recent self-play positions.

Positions live in preallocated numpy arrays used as a ring (``[N, ...]`` with ``N =
capacity_positions``); nothing is a Python object per position. Whole games go in atomically
(:meth:`ReplayBuffer.add_game` validates every field of a :class:`~selfplay.records.GameRecord`
before writing anything) and are copied in. Sampling is uniform over the
window, with one random symmetry of the game applied to each sample (observation, legal mask and
policy target move together; the value target z is unchanged).

Window. With ``window_growth=None`` the window is the last ``capacity_positions`` positions. With
``window_growth=WindowGrowth(c, alpha, beta)`` it grows with the number of positions ever added
to the training split, ``n``, as in KataGo (Wu 2019, "Accelerating Self-Play Learning in Go",
arXiv:1902.10565, the formula for ``N_window``; KataGo's ``python/shuffle.py`` implements it with
``-taper-window-exponent`` = alpha and ``-expand-window-per-row`` = beta)::

    window(n) = min(capacity, c)                                          for n <= c
    window(n) = min(capacity, c * (1 + beta * ((n / c) ** alpha - 1) / alpha))   for n > c

KataGo uses ``c = 250_000``, ``alpha = 0.75``, ``beta = 0.4``: early, when the network changes
fast, old data leaves the window quickly; later the window grows sublinearly so data stays
diverse. The window is measured in positions, and never exceeds ``capacity_positions``.

Validation split (by game id: train and validation games are disjoint). With ``validation_every=k > 0``, a game whose ``game_id % k == 0``
goes to a separate held-out ring (capacity ``validation_capacity_positions``) and is never
sampled for training; :meth:`ReplayBuffer.sample_validation` draws from it.

Replay ratio. :meth:`ReplayBuffer.can_sample` says whether the trainer may take another batch, by
the rule of ``selfplay/replay_ratio.py``: the window must hold at least ``min_positions_to_sample``
positions (no starving start), and, with a limit ``r``, the samples trained so far plus this batch
may not exceed ``r`` times the positions added to the training split.

Weights versions. Every position keeps the version of the weights that searched it
(``GameRecord.model_versions``; the learner step of those weights), and the buffer keeps the list
of best versions the run has had (:meth:`ReplayBuffer.note_best_version`, in order). A position's
age in versions is the number of best versions newer than its own: 0 for the current best's
positions, 1 after one promotion (one publish when gating is off), and so on
(:meth:`ReplayBuffer.version_ages`). With ``max_generations_behind=K`` the training sample draws
only from window positions of age <= K: older positions stay stored (and saved) but are not
sampled, so the filter acts at sampling time and follows each promotion at once, and a position
whose worker lagged behind is dropped as soon as it is too old. A position of unknown version
(``UNKNOWN_VERSION``: a record without versions, or a buffer file written before positions carried
one) counts as older than every known version: its age is the number of versions known. The
held-out validation split is never filtered.

Persistence. :meth:`state_dict` holds numpy arrays and plain Python values only;
:meth:`save` writes them atomically as an ``.npz`` file (loaded with ``allow_pickle=False``), with
the scalar fields and the random generator's state as one JSON string (``selfplay/buffer_file.py``).
"""

from __future__ import annotations

import json
import os
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from games.base import Game
from games.checks import check_int
from selfplay.buffer_file import (  # noqa: F401  (read_buffer_file, write_buffer_file: importable from here too)
    BUFFER_FORMAT,
    BUFFER_FORMAT_VERSION,
    json_default,
    read_buffer_file,
    write_buffer_file,
)
from selfplay.records import POLICY_SUM_TOLERANCE, UNKNOWN_VERSION, GameRecord, validate_record  # noqa: F401
from selfplay.replay_ratio import batches_allowed, enough_positions

TRAIN = "train"
VALIDATION = "validation"

#: Per-position arrays stored for each split.
_FIELDS = ("observations", "legal_masks", "policies", "values", "game_ids")
#: fields a saved buffer may lack (written before they existed), with the value and dtype they then take
_OPTIONAL_FIELDS = {"policy_weights": (1.0, np.float32), "model_versions": (UNKNOWN_VERSION, np.int64)}


@dataclass(frozen=True)
class WindowGrowth:
    """KataGo's growing window (see the module docstring for the formula).

    Attributes:
        c: positions before the window starts growing, > 0.
        alpha: exponent of the growth, in (0, 1].
        beta: slope of the growth, > 0.
    """

    c: int = 250_000
    alpha: float = 0.75
    beta: float = 0.4

    def __post_init__(self) -> None:
        if not (isinstance(self.c, (int, np.integer)) and self.c > 0):
            raise ValueError(f"WindowGrowth.c: expected an int > 0, got {self.c!r}")
        if not 0.0 < float(self.alpha) <= 1.0:
            raise ValueError(f"WindowGrowth.alpha: expected a value in (0, 1], got {self.alpha!r}")
        if not float(self.beta) > 0.0:
            raise ValueError(f"WindowGrowth.beta: expected a value > 0, got {self.beta!r}")

    def window(self, positions_seen: int) -> float:
        """Window size in positions after ``positions_seen`` positions (before the capacity cap)."""
        c, alpha, beta = float(self.c), float(self.alpha), float(self.beta)
        if positions_seen <= c:
            return c
        return c * (1.0 + beta * ((positions_seen / c) ** alpha - 1.0) / alpha)


@dataclass(frozen=True)
class Batch:
    """A training batch sampled from the buffer (B = batch size, A = actions).

    Attributes:
        observations: ``[B, C, H, W]`` float32, network input (symmetry applied).
        legal_masks: ``[B, A]`` bool, True = legal (same symmetry applied).
        policies: ``[B, A]`` float32, policy target, sums to 1, 0 on illegal actions.
        values: ``[B]`` float32, value target z for the player to move, in [-1, 1].
        game_ids: ``[B]`` int64, the game each sample comes from.
        symmetries: ``[B]`` int64, the symmetry index applied (0 = identity).
        policy_weights: ``[B]`` float32 in ``[0, 1]``, the weight of each policy target in the loss
            (0 for cheap searches under playout cap randomisation; see ``GameRecord``).
        model_versions: ``[B]`` int64, the version of the weights that searched each sample
            (``UNKNOWN_VERSION`` where not recorded).
    """

    observations: np.ndarray
    legal_masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    game_ids: np.ndarray
    symmetries: np.ndarray
    policy_weights: np.ndarray | None = None
    model_versions: np.ndarray | None = None

    def __len__(self) -> int:
        return int(self.values.shape[0])


class _Ring:
    """Preallocated ring of positions; ``write`` is the next slot, ``stored`` the filled count."""

    def __init__(self, capacity: int, observation_shape: tuple[int, ...], num_actions: int) -> None:
        self.capacity = capacity
        self.observations = np.zeros((capacity, *observation_shape), dtype=np.float32)
        self.legal_masks = np.zeros((capacity, num_actions), dtype=bool)
        self.policies = np.zeros((capacity, num_actions), dtype=np.float32)
        self.values = np.zeros((capacity,), dtype=np.float32)
        self.game_ids = np.zeros((capacity,), dtype=np.int64)
        self.policy_weights = np.ones((capacity,), dtype=np.float32)
        self.model_versions = np.full((capacity,), UNKNOWN_VERSION, dtype=np.int64)
        self.write = 0
        self.stored = 0
        self.games_added = 0
        self.positions_added = 0

    def insert(self, record: GameRecord) -> None:
        count = record.num_positions
        slots = (self.write + np.arange(count)) % self.capacity
        self.observations[slots] = record.observations
        self.legal_masks[slots] = record.legal_masks
        self.policies[slots] = record.policies
        self.values[slots] = record.values
        self.game_ids[slots] = record.game_id
        self.policy_weights[slots] = 1.0 if record.policy_weights is None else record.policy_weights
        self.model_versions[slots] = UNKNOWN_VERSION if record.model_versions is None else record.model_versions
        self.write = int((self.write + count) % self.capacity)
        self.stored = min(self.capacity, self.stored + count)
        self.games_added += 1
        self.positions_added += count

    def recent_slots(self, size: int) -> np.ndarray:
        """Slots of the ``size`` most recent positions, oldest first: ``[size]`` int64."""
        return (self.write - size + np.arange(size)) % self.capacity

    def arrays_in_order(self) -> dict[str, np.ndarray]:
        slots = self.recent_slots(self.stored)
        return {
            "observations": self.observations[slots],
            "legal_masks": self.legal_masks[slots],
            "policies": self.policies[slots],
            "values": self.values[slots],
            "game_ids": self.game_ids[slots],
            "policy_weights": self.policy_weights[slots],
            "model_versions": self.model_versions[slots],
        }

    def restore(self, arrays: dict[str, np.ndarray], games_added: int, positions_added: int) -> None:
        count = int(arrays["values"].shape[0])
        keep = min(count, self.capacity)  # a smaller capacity keeps the newest positions
        for name in (*_FIELDS, *_OPTIONAL_FIELDS):
            target = getattr(self, name)
            target[...] = _OPTIONAL_FIELDS[name][0] if name in _OPTIONAL_FIELDS else 0
            target[:keep] = arrays[name][count - keep :]
        self.stored = keep
        self.write = keep % self.capacity
        self.games_added = int(games_added)
        self.positions_added = int(positions_added)


class ReplayBuffer:
    """Sliding window of the most recent self-play positions, sampled uniformly with symmetries.

    Args:
        capacity_positions: positions the training ring holds, >= 1 (its memory is allocated now:
            ``capacity * (4*C*H*W + 5*A + 24)`` bytes: float32 observation, bool legal mask, float32
            policy, value and policy weight, int64 game id and weights version; the buffer file holds
            the same bytes per stored position).
        game: the game whose records are stored; fixes observation shape, actions, symmetries.
        seed: seeds the buffer's own ``numpy.random.Generator``, used by :meth:`sample` when no
            generator is passed; its state is part of :meth:`state_dict`.
        window_growth: ``None`` for a fixed window of ``capacity_positions``, or a
            :class:`WindowGrowth` for KataGo's growing window.
        min_positions_to_sample: :meth:`can_sample` is False until the window holds this many
            positions, >= 1.
        validation_every: ``k``; games with ``game_id % k == 0`` are held out for validation
            (0 = no validation split), >= 0.
        validation_capacity_positions: capacity of the held-out ring (default
            ``max(1, capacity_positions // k)``, or 1 without a split).
        augment: apply a random symmetry to each sample in :meth:`sample`.
        max_generations_behind: ``K``: :meth:`sample` draws only positions at most K best versions
            behind the newest (module docstring, "Weights versions"); None: every position in the
            window, >= 0.

    Raises:
        ValueError: for a parameter out of range (message gives expected and actual).
    """

    def __init__(
        self,
        capacity_positions: int,
        game: Game,
        seed: int | None = 0,
        *,
        window_growth: WindowGrowth | None = None,
        min_positions_to_sample: int = 1,
        validation_every: int = 0,
        validation_capacity_positions: int | None = None,
        augment: bool = True,
        max_generations_behind: int | None = None,
    ) -> None:
        _check_int("capacity_positions", capacity_positions, 1)
        _check_int("min_positions_to_sample", min_positions_to_sample, 1)
        _check_int("validation_every", validation_every, 0)
        if validation_capacity_positions is None:  # no split: a 1-slot ring that stays empty
            validation_capacity_positions = (
                max(1, capacity_positions // validation_every) if validation_every else 1
            )
        _check_int("validation_capacity_positions", validation_capacity_positions, 1)
        if max_generations_behind is not None:
            _check_int("max_generations_behind", max_generations_behind, 0)
        if window_growth is not None and not isinstance(window_growth, WindowGrowth):
            raise ValueError(f"window_growth: expected None or a WindowGrowth, got {window_growth!r}")
        if not isinstance(game, Game):
            raise ValueError(f"game: expected a games.Game, got {type(game).__name__}")
        self.game = game
        self.capacity_positions = int(capacity_positions)
        self.window_growth = window_growth
        self.min_positions_to_sample = int(min_positions_to_sample)
        self.validation_every = int(validation_every)
        self.augment = bool(augment)
        self.max_generations_behind = None if max_generations_behind is None else int(max_generations_behind)
        self.best_versions: list[int] = []  # the run's best versions, oldest first (note_best_version)
        self.rng = np.random.default_rng(seed)
        shape = tuple(game.observation_shape)
        self._train = _Ring(self.capacity_positions, shape, game.num_actions)
        self._validation = _Ring(int(validation_capacity_positions), shape, game.num_actions)

    # ------------------------------------------------------------------ counters
    @property
    def games_added(self) -> int:
        """Games ever accepted, both splits (int)."""
        return self._train.games_added + self._validation.games_added

    @property
    def positions_added(self) -> int:
        """Positions ever accepted, both splits (int)."""
        return self._train.positions_added + self._validation.positions_added

    @property
    def train_positions_added(self) -> int:
        """Positions ever accepted into the training split (int); drives window and replay ratio."""
        return self._train.positions_added

    @property
    def validation_games_added(self) -> int:
        """Games ever accepted into the held-out split (int)."""
        return self._validation.games_added

    @property
    def window(self) -> int:
        """Current window in positions: ``capacity_positions`` or the growing window (int)."""
        if self.window_growth is None:
            return self.capacity_positions
        grown = self.window_growth.window(self._train.positions_added)
        return int(min(self.capacity_positions, grown))

    @property
    def size(self) -> int:
        """Positions :meth:`sample` draws from: ``min(window, stored)`` (int)."""
        return min(self.window, self._train.stored)

    @property
    def validation_size(self) -> int:
        """Positions held out for validation (int)."""
        return self._validation.stored

    def __len__(self) -> int:
        return self.size

    def game_ids_in_window(self) -> np.ndarray:
        """Sorted unique game ids of the positions in the training window: ``[G]`` int64."""
        return np.unique(self._train.game_ids[self._train.recent_slots(self.size)])

    def validation_game_ids(self) -> np.ndarray:
        """Sorted unique game ids held out for validation: ``[G]`` int64."""
        ring = self._validation
        return np.unique(ring.game_ids[ring.recent_slots(ring.stored)])

    def is_validation_game(self, game_id: int) -> bool:
        """True if ``game_id`` belongs to the held-out split (``game_id % k == 0``, k > 0)."""
        return self.validation_every > 0 and int(game_id) % self.validation_every == 0

    # ------------------------------------------------------------------ weights versions
    def note_best_version(self, version: int) -> None:
        """Record that ``version`` (a learner step) is now the best weights. Versions only grow; a
        version already noted, or older than the newest noted, changes nothing.

        Raises:
            ValueError: if ``version`` is not an int >= 0.
        """
        _check_int("version", version, 0)
        if not self.best_versions or int(version) > self.best_versions[-1]:
            self.best_versions.append(int(version))

    def window_versions(self) -> np.ndarray:
        """Weights version of each position in the training window, oldest first: ``[size]`` int64."""
        ring = self._train
        return ring.model_versions[ring.recent_slots(self.size)]

    def version_ages(self, versions: np.ndarray | None = None) -> np.ndarray:
        """Age in versions of each position of the training window (or of ``versions``): how many
        noted best versions are newer than the version that searched it, ``[size]`` int64, >= 0.
        ``UNKNOWN_VERSION`` counts as older than every noted version."""
        versions = self.window_versions() if versions is None else np.asarray(versions, dtype=np.int64)
        known = np.asarray(self.best_versions, dtype=np.int64)
        return (len(known) - np.searchsorted(known, versions, side="right")).astype(np.int64)

    def _sampleable_offsets(self) -> np.ndarray | None:
        """Offsets into the training window that :meth:`sample` may draw (``max_generations_behind``),
        ``[n]`` int64; None when every position may be drawn."""
        if self.max_generations_behind is None or len(self.best_versions) <= self.max_generations_behind:
            return None  # fewer versions than K + 1: nothing is K + 1 versions behind
        return np.flatnonzero(self.version_ages() <= self.max_generations_behind)

    @property
    def sampleable_size(self) -> int:
        """Positions :meth:`sample` may draw now: :attr:`size`, less those more than
        ``max_generations_behind`` versions behind (int)."""
        offsets = self._sampleable_offsets()
        return self.size if offsets is None else int(offsets.size)

    # ------------------------------------------------------------------ insert
    def add_game(self, record: GameRecord) -> str:
        """Validate and insert one whole game (all its positions, or none).

        The record's arrays are copied into the buffer; a game longer than the ring
        of its split is rejected, so a window never holds part of a game cut at insertion.

        Args:
            record: a finished game with ``T >= 1`` positions (see :class:`GameRecord`).

        Returns:
            ``"train"`` or ``"validation"``: the split the game went to.

        Raises:
            ValueError: naming the game id and the field, with expected and actual, for: another
                game, wrong shapes, non-finite entries, a legal mask without a legal action, a
                policy target not summing to 1 (within ``POLICY_SUM_TOLERANCE``) or negative or with
                mass on an illegal action, a value target outside [-1, 1], ``to_play`` not 0/1, an
                action out of range or illegal.
        """
        validate_record(record, self.game)
        split = VALIDATION if self.is_validation_game(record.game_id) else TRAIN
        ring = self._validation if split == VALIDATION else self._train
        if record.num_positions > ring.capacity:
            raise ValueError(
                f"game {record.game_id}: field 'values' has {record.num_positions} positions, more than "
                f"the {split} capacity of {ring.capacity} positions"
            )
        ring.insert(record)
        return split

    # ------------------------------------------------------------------ sampling
    def can_sample(
        self, samples_trained: int, batch_size: int, max_replay_ratio: float | None = None
    ) -> bool:
        """May the trainer take another batch of ``batch_size`` now?

        True when the window holds at least ``max(min_positions_to_sample, batch_size)``
        positions and, if ``max_replay_ratio`` is given, ``samples_trained + batch_size <=
        max_replay_ratio * train_positions_added`` (replay ratio = training samples per new
        self-play position; AlphaZero's published runs sit near 1-10 for Go/chess scale data).

        Args:
            samples_trained: samples (positions) the trainer has consumed so far, >= 0.
            batch_size: the next batch's size, >= 1.
            max_replay_ratio: the limit, > 0, or None for no limit.

        Raises:
            ValueError: for a negative count, a batch size < 1 or a ratio <= 0.
        """
        _check_int("samples_trained", samples_trained, 0)
        _check_int("batch_size", batch_size, 1)
        if max_replay_ratio is not None and not float(max_replay_ratio) > 0.0:
            raise ValueError(f"max_replay_ratio: expected a value > 0 or None, got {max_replay_ratio!r}")
        if not enough_positions(self.sampleable_size, batch_size, self.min_positions_to_sample):
            return False
        return batches_allowed(samples_trained, self.train_positions_added, batch_size, max_replay_ratio) >= 1

    def sample(self, batch_size: int, rng: np.random.Generator | None = None) -> Batch:
        """Draw ``batch_size`` positions uniformly (with replacement) from the training window (its
        positions at most ``max_generations_behind`` versions behind, when that is set).

        Each sample gets a symmetry drawn uniformly from the game's ``num_symmetries`` (if
        ``augment``): observation, legal mask and policy are transformed together, the value is
        unchanged. All draws come from ``rng`` (or the buffer's own generator).

        Args:
            batch_size: >= 1.
            rng: the generator to draw from; ``None`` uses ``self.rng``.

        Returns:
            A :class:`Batch` of new arrays (never views of the buffer).

        Raises:
            ValueError: if ``batch_size`` < 1 or the window holds no position that may be drawn.
        """
        return self._sample(self._train, self.size, batch_size, rng, self.augment, TRAIN, self._sampleable_offsets())

    def sample_validation(
        self, batch_size: int, rng: np.random.Generator | None = None, augment: bool = False
    ) -> Batch:
        """Draw ``batch_size`` held-out positions uniformly (no symmetry unless ``augment``).

        Raises:
            ValueError: if ``batch_size`` < 1 or there is no held-out position.
        """
        ring = self._validation
        return self._sample(ring, ring.stored, batch_size, rng, augment, VALIDATION)

    def _sample(
        self, ring: _Ring, size: int, batch_size: int, rng, augment: bool, split: str,
        allowed: np.ndarray | None = None,
    ) -> Batch:
        _check_int("batch_size", batch_size, 1)
        if size == 0:
            raise ValueError(f"cannot sample from an empty {split} split: it holds 0 positions")
        rng = self.rng if rng is None else rng
        if allowed is None:
            offsets = rng.integers(0, size, size=batch_size)
        elif allowed.size == 0:
            raise ValueError(
                f"cannot sample: none of the {size} positions of the {split} window is within "
                f"max_generations_behind={self.max_generations_behind} versions of the newest"
            )
        else:
            offsets = allowed[rng.integers(0, allowed.size, size=batch_size)]
        slots = (ring.write - size + offsets) % ring.capacity
        observations = ring.observations[slots]
        legal_masks = ring.legal_masks[slots]
        policies = ring.policies[slots]
        num_symmetries = self.game.num_symmetries
        if augment and num_symmetries > 1:
            symmetries = rng.integers(0, num_symmetries, size=batch_size).astype(np.int64)
            for g in np.unique(symmetries):
                if g == 0:
                    continue
                rows = symmetries == g
                observations[rows] = self.game.transform_observation(observations[rows], int(g))
                legal_masks[rows] = self.game.transform_policy(legal_masks[rows], int(g))
                policies[rows] = self.game.transform_policy(policies[rows], int(g))
        else:
            symmetries = np.zeros(batch_size, dtype=np.int64)
        return Batch(
            observations=observations,
            legal_masks=legal_masks,
            policies=policies,
            values=ring.values[slots],
            game_ids=ring.game_ids[slots],
            symmetries=symmetries,
            policy_weights=ring.policy_weights[slots],
            model_versions=ring.model_versions[slots],
        )

    # ------------------------------------------------------------------ persistence
    def state_dict(self) -> dict:
        """Everything needed to restore the buffer: numpy arrays and plain Python values.

        Arrays are the stored positions oldest first (``train/...`` and ``validation/...``); the
        rest are ints, strings and the generator's ``bit_generator.state`` dict.
        """
        state: dict = {
            "format": BUFFER_FORMAT,
            "format_version": BUFFER_FORMAT_VERSION,
            "game_name": self.game.name,
            "game_version": int(self.game.version),
            "observation_shape": [int(v) for v in self.game.observation_shape],
            "num_actions": int(self.game.num_actions),
            "capacity_positions": self.capacity_positions,
            "validation_every": self.validation_every,
            "train_games_added": self._train.games_added,
            "train_positions_added": self._train.positions_added,
            "validation_games_added": self._validation.games_added,
            "validation_positions_added": self._validation.positions_added,
            "rng_state": _plain_rng_state(self.rng),
            "best_versions": list(self.best_versions),
        }
        for split, ring in ((TRAIN, self._train), (VALIDATION, self._validation)):
            for name, array in ring.arrays_in_order().items():
                state[f"{split}/{name}"] = array
        return state

    def load_state_dict(self, state: dict) -> None:
        """Restore from :meth:`state_dict` output (or :meth:`save` contents).

        The buffer's own capacities apply: if they are smaller than the saved contents, the newest
        positions are kept. The window growth and sampling settings are this object's. Everything
        is checked (:meth:`check_state_dict`) before anything changes.

        Raises:
            ValueError: as :meth:`check_state_dict`.
        """
        splits = self.check_state_dict(state)
        for split, ring in ((TRAIN, self._train), (VALIDATION, self._validation)):
            ring.restore(splits[split], state[f"{split}_games_added"], state[f"{split}_positions_added"])
        self.rng.bit_generator.state = state["rng_state"]
        # a file from before versions were kept has none: positions there are UNKNOWN_VERSION
        self.best_versions = [int(version) for version in state.get("best_versions", [])]

    def check_state_dict(self, state: dict) -> dict[str, dict[str, np.ndarray]]:
        """Check that ``state`` fits this buffer; returns its arrays per split, unchanged.

        Raises:
            ValueError: naming the field, for another game or game version, another observation
                shape or action count, another validation split, wrongly shaped arrays, or missing
                keys.
        """
        required = {
            "format",
            "format_version",
            "game_name",
            "game_version",
            "observation_shape",
            "num_actions",
            "validation_every",
            "train_games_added",
            "train_positions_added",
            "validation_games_added",
            "validation_positions_added",
            "rng_state",
        }
        for split in (TRAIN, VALIDATION):
            for name in _FIELDS:
                required.add(f"{split}/{name}")
        missing = sorted(required - set(state))
        if missing:
            raise ValueError(f"replay buffer state: missing keys {missing}")
        if state["format"] != BUFFER_FORMAT or int(state["format_version"]) != BUFFER_FORMAT_VERSION:
            raise ValueError(
                f"replay buffer state: expected format {BUFFER_FORMAT!r} version {BUFFER_FORMAT_VERSION}, "
                f"got {state['format']!r} version {state['format_version']}"
            )
        expected = {
            "game_name": self.game.name,
            "game_version": int(self.game.version),
            "observation_shape": [int(v) for v in self.game.observation_shape],
            "num_actions": int(self.game.num_actions),
            "validation_every": self.validation_every,
        }
        for key, value in expected.items():
            actual = state[key]
            if isinstance(value, list):
                actual = [int(v) for v in actual]
            if actual != value:
                raise ValueError(f"replay buffer state: {key} expected {value!r}, got {actual!r}")
        versions = state.get("best_versions", [])
        if not isinstance(versions, (list, np.ndarray)) or list(versions) != sorted(set(int(v) for v in versions)):
            raise ValueError(f"replay buffer state: best_versions expected increasing ints, got {versions!r}")
        rng_kind = type(self.rng.bit_generator).__name__
        if not isinstance(state["rng_state"], dict) or state["rng_state"].get("bit_generator") != rng_kind:
            raise ValueError(
                f"replay buffer state: rng_state expected a {rng_kind} state, got {state['rng_state']!r}"
            )
        splits = {}
        for split in (TRAIN, VALIDATION):
            arrays = {name: np.asarray(state[f"{split}/{name}"]) for name in _FIELDS}
            count = arrays["values"].shape[0] if arrays["values"].ndim == 1 else -1
            for name, (fill, dtype) in _OPTIONAL_FIELDS.items():
                key = f"{split}/{name}"
                arrays[name] = np.asarray(state[key]) if key in state else np.full(max(count, 0), fill, dtype)
            shapes = {
                "observations": (count, *self.game.observation_shape),
                "legal_masks": (count, self.game.num_actions),
                "policies": (count, self.game.num_actions),
                "values": (count,),
                "game_ids": (count,),
                "policy_weights": (count,),
                "model_versions": (count,),
            }
            for name, shape in shapes.items():
                if arrays[name].shape != shape:
                    raise ValueError(
                        f"replay buffer state: {split}/{name} expected shape {list(shape)}, "
                        f"got {list(arrays[name].shape)}"
                    )
            splits[split] = arrays
        return splits

    def save(self, path: str | os.PathLike) -> Path:
        """Write :meth:`state_dict` atomically to ``path`` as an ``.npz`` file (no pickle).

        Returns:
            The path written.

        Raises:
            FileNotFoundError: if the folder does not exist (the old file, if any, is untouched).
        """
        return write_buffer_file(path, self.state_dict())

    def load(self, path: str | os.PathLike) -> None:
        """Restore the buffer from a file written by :meth:`save` (``allow_pickle=False``).

        Raises:
            FileNotFoundError: if ``path`` does not exist.
            ValueError: if the file is not a readable buffer file, or as :meth:`load_state_dict`.
        """
        self.load_state_dict(read_buffer_file(path))

    # ------------------------------------------------------------------ helpers
    def __repr__(self) -> str:
        return (
            f"ReplayBuffer(game={self.game.name!r}, size={self.size}, window={self.window}, "
            f"capacity_positions={self.capacity_positions}, games_added={self.games_added}, "
            f"positions_added={self.positions_added})"
        )


def repeated_game_ids(game_ids: np.ndarray) -> np.ndarray:
    """Game ids used by more than one game, from the game ids of stored positions in insertion
    order (``state_dict()["train/game_ids"]``, oldest first).

    Whole games go in at once, so one game's positions are consecutive; an id that appears in two
    separate runs of positions belongs to two games (a worker that restarted its id block, say).

    Args:
        game_ids: ``[N]`` int, one per position, oldest first.

    Returns:
        ``[R]`` int64, the sorted repeated ids (empty when every game has its own id).
    """
    game_ids = np.asarray(game_ids, dtype=np.int64).reshape(-1)
    if game_ids.size == 0:
        return np.zeros(0, dtype=np.int64)
    starts = np.concatenate([[True], game_ids[1:] != game_ids[:-1]])
    ids, runs = np.unique(game_ids[starts], return_counts=True)
    return ids[runs > 1]


def _check_int(name: str, value, minimum: int) -> None:
    check_int(name, value, minimum)


def _plain_rng_state(rng: np.random.Generator) -> dict:
    """``rng.bit_generator.state`` as JSON-able plain values (ints stay Python ints)."""
    return json.loads(json.dumps(rng.bit_generator.state, default=json_default))
