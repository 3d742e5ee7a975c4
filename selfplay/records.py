"""Typed records handed from self-play to the replay buffer, and their validation."""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from games.base import Game

#: Tolerance on ``|sum(policy) - 1|`` accepted by :func:`validate_record`.
POLICY_SUM_TOLERANCE = 1e-3

#: The weights version of a position whose version was not recorded (a record without
#: ``model_versions``, or a replay-buffer file written before positions carried one). It counts as
#: older than every recorded version (``selfplay.replay_buffer.ReplayBuffer``).
UNKNOWN_VERSION = -1


@dataclass(frozen=True)
class GameRecord:
    """One finished self-play game, position by position (T = plies played).

    Every array is owned by the record (copies, never views of live search state, so mutating a live board later changes nothing stored).

    Attributes:
        game_id: unique id of this game within a run (validation splits are by game id).
        game_name: registry id of the game, e.g. ``"connect4"``.
        observations: ``[T, C, H, W]`` float32, network input before each move.
        legal_masks: ``[T, A]`` bool, True = legal.
        policies: ``[T, A]`` float32, the search's visit distribution (policy target); sums to 1,
            0 on illegal actions.
        values: ``[T]`` float32, the value target z from the view of the player to move at that
            position: +1 if that player went on to win, -1 if it lost, 0 for a draw.
        to_play: ``[T]`` int8, the player (0/1) to move at each position.
        actions: ``[T]`` int64, the action played at each position.
        winner: 0 or 1, or -1 for a draw.
        model_versions: ``[T]`` int64, the version of the weights that searched each position (the
            learner step of the weights the worker held at that ply; weights change between a
            worker's calls while its games go on, so one game may span several versions). None:
            not recorded, every entry ``UNKNOWN_VERSION``.
        policy_weights: ``[T]`` float32 in ``[0, 1]``, the weight of each position's policy target
            in the loss; 0 for positions of a cheap search under playout cap randomisation (Wu
            2019, "Accelerating Self-Play Learning in Go", sec. 5), whose value target still
            counts. None means 1 everywhere.
    """

    game_id: int
    game_name: str
    observations: np.ndarray
    legal_masks: np.ndarray
    policies: np.ndarray
    values: np.ndarray
    to_play: np.ndarray
    actions: np.ndarray
    winner: int
    model_versions: np.ndarray | None = None
    policy_weights: np.ndarray | None = None

    @property
    def num_positions(self) -> int:
        return int(self.values.shape[0])


def validate_record(record: GameRecord, game: Game) -> None:
    """Check a :class:`GameRecord` against ``game`` (see ``selfplay.replay_buffer.ReplayBuffer.add_game``).

    Raises:
        ValueError: naming the game id and the field, with expected and actual.
    """
    if not isinstance(record, GameRecord):
        raise ValueError(f"expected a selfplay.records.GameRecord, got {type(record).__name__}")
    gid = record.game_id

    def fail(field: str, message: str) -> None:
        raise ValueError(f"game {gid}: field '{field}' {message}")

    if record.game_name != game.name:
        fail("game_name", f"expected {game.name!r}, got {record.game_name!r}")
    num_actions = game.num_actions
    arrays = {}
    for name in ("observations", "legal_masks", "policies", "values", "to_play", "actions"):
        value = getattr(record, name)
        if not isinstance(value, np.ndarray):
            fail(name, f"expected a numpy array, got {type(value).__name__}")
        arrays[name] = value
    values = arrays["values"]
    if values.ndim != 1 or values.shape[0] < 1:
        fail("values", f"expected shape [T] with T >= 1, got {list(values.shape)}")
    length = values.shape[0]
    expected_shapes = {
        "observations": (length, *game.observation_shape),
        "legal_masks": (length, num_actions),
        "policies": (length, num_actions),
        "to_play": (length,),
        "actions": (length,),
    }
    for name, shape in expected_shapes.items():
        if arrays[name].shape != shape:
            fail(name, f"expected shape {list(shape)}, got {list(arrays[name].shape)}")
    for name in ("observations", "policies", "values"):
        if not np.issubdtype(arrays[name].dtype, np.floating):
            fail(name, f"expected a float dtype, got {arrays[name].dtype}")
        bad = ~np.isfinite(arrays[name])
        if bad.any():
            fail(name, f"has a non-finite entry at index {tuple(int(i) for i in np.argwhere(bad)[0])}")
    for name in ("to_play", "actions"):
        if not np.issubdtype(arrays[name].dtype, np.integer):
            fail(name, f"expected an integer dtype, got {arrays[name].dtype}")
    legal = arrays["legal_masks"]
    if legal.dtype != np.bool_:
        fail("legal_masks", f"expected dtype bool (True = legal), got {legal.dtype}")
    no_legal = ~legal.any(axis=1)
    if no_legal.any():
        fail("legal_masks", f"row {int(np.argmax(no_legal))} has no legal action")
    policies = arrays["policies"].astype(np.float64)
    negative = policies < 0
    if negative.any():
        t, a = (int(i) for i in np.argwhere(negative)[0])
        fail("policies", f"row {t} has a negative entry {policies[t, a]} at action {a}")
    illegal_mass = np.where(legal, 0.0, policies)
    if (illegal_mass > 0).any():
        t, a = (int(i) for i in np.argwhere(illegal_mass > 0)[0])
        fail("policies", f"row {t} puts mass {policies[t, a]:.6g} on illegal action {a}, expected 0")
    sums = policies.sum(axis=1)
    off = np.abs(sums - 1.0) > POLICY_SUM_TOLERANCE
    if off.any():
        t = int(np.argmax(off))
        fail("policies", f"row {t} sums to {sums[t]:.6g}, expected 1 +- {POLICY_SUM_TOLERANCE}")
    if record.policy_weights is not None:
        weights = record.policy_weights
        if not isinstance(weights, np.ndarray) or weights.shape != (length,):
            fail("policy_weights", f"expected a numpy array of shape [{length}], got {getattr(weights, 'shape', weights)!r}")
        if not np.issubdtype(weights.dtype, np.floating) or not np.all((weights >= 0) & (weights <= 1)):
            fail("policy_weights", "expected floats in [0, 1]")
    if record.model_versions is not None:
        versions = record.model_versions
        if not isinstance(versions, np.ndarray) or versions.shape != (length,):
            fail("model_versions", f"expected a numpy array of shape [{length}], got {getattr(versions, 'shape', versions)!r}")
        if not np.issubdtype(versions.dtype, np.integer):
            fail("model_versions", f"expected an integer dtype, got {versions.dtype}")
        if (versions < UNKNOWN_VERSION).any():
            t = int(np.argmax(versions < UNKNOWN_VERSION))
            fail("model_versions", f"entry {t} is {int(versions[t])}, expected a version >= 0 (or {UNKNOWN_VERSION}: unknown)")
    out_of_range = np.abs(values) > 1.0
    if out_of_range.any():
        t = int(np.argmax(out_of_range))
        fail("values", f"entry {t} is {values[t]:.6g}, expected a value in [-1, 1]")
    to_play = arrays["to_play"]
    if not np.isin(to_play, (0, 1)).all():
        t = int(np.argmax(~np.isin(to_play, (0, 1))))
        fail("to_play", f"entry {t} is {int(to_play[t])}, expected 0 or 1")
    actions = arrays["actions"]
    bad_action = (actions < 0) | (actions >= num_actions)
    if bad_action.any():
        t = int(np.argmax(bad_action))
        fail("actions", f"entry {t} is {int(actions[t])}, expected an action in [0, {num_actions})")
    played_legal = legal[np.arange(length), actions]
    if not played_legal.all():
        t = int(np.argmax(~played_legal))
        fail("actions", f"entry {t} plays action {int(actions[t])}, which its legal mask marks illegal")
