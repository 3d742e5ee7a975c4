"""Replay buffer: atomic validated inserts that copy, sliding window, symmetries at sampling,
validation split by game id, replay-ratio gate, persistence."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from selfplay.records import GameRecord
from selfplay.replay_buffer import Batch, ReplayBuffer, WindowGrowth, read_buffer_file, repeated_game_ids

TICTACTOE = games.make("tictactoe")
CONNECT4 = games.make("connect4")


def random_record(game, rng: np.random.Generator, game_id: int, max_plies: int | None = None) -> GameRecord:
    """A random game played to the end (or ``max_plies``): Dirichlet policy targets over the legal
    actions, z from the view of the player to move (+1 winner, -1 loser, 0 draw)."""
    state = game.initial_states(1)
    observations, masks, policies, to_play, actions = [], [], [], [], []
    while not game.terminal(state)[0] and (max_plies is None or len(actions) < max_plies):
        legal = game.legal_mask(state)[0]
        policy = np.zeros(game.num_actions, dtype=np.float32)
        policy[legal] = rng.dirichlet(np.ones(int(legal.sum())))
        policy /= policy.sum()
        action = int(rng.choice(np.flatnonzero(legal)))
        observations.append(game.observation(state)[0])
        masks.append(legal)
        policies.append(policy)
        to_play.append(int(game.to_play(state)[0]))
        actions.append(action)
        state = game.step(state, np.array([action]))
    winner = int(game.winner(state)[0])
    to_play_array = np.array(to_play, dtype=np.int8)
    values = np.where(winner < 0, 0.0, np.where(to_play_array == winner, 1.0, -1.0)).astype(np.float32)
    return GameRecord(
        game_id=game_id,
        game_name=game.name,
        observations=np.stack(observations).astype(np.float32),
        legal_masks=np.stack(masks),
        policies=np.stack(policies),
        values=values,
        to_play=to_play_array,
        actions=np.array(actions, dtype=np.int64),
        winner=winner,
    )


def fill(buffer: ReplayBuffer, game, num_games: int, seed: int = 0, first_id: int = 0) -> list[GameRecord]:
    rng = np.random.default_rng(seed)
    records = [random_record(game, rng, first_id + i) for i in range(num_games)]
    for record in records:
        buffer.add_game(record)
    return records


# ------------------------------------------------------------------------- inserts
def test_counters_and_size_after_inserts():
    buffer = ReplayBuffer(1000, TICTACTOE, seed=0)
    records = fill(buffer, TICTACTOE, 10)
    total = sum(r.num_positions for r in records)
    assert buffer.games_added == 10
    assert buffer.positions_added == total
    assert buffer.size == total
    assert list(buffer.game_ids_in_window()) == list(range(10))


def _corrupt(record: GameRecord, field: str, value) -> GameRecord:
    return dataclasses.replace(record, **{field: value})


def _p6_record() -> GameRecord:
    """One position: P6 `X O X / . O . / . X .`, O to move, legal 3, 5, 6, 8 ."""
    state = np.array([TICTACTOE.state_from_board("X O X / . O . / . X .")], dtype=np.int64)
    legal = TICTACTOE.legal_mask(state)[0]
    assert list(np.flatnonzero(legal)) == [3, 5, 6, 8]
    policy = np.zeros(9, dtype=np.float32)
    policy[[3, 5, 6, 8]] = [0.4, 0.3, 0.2, 0.1]
    return GameRecord(
        game_id=17,
        game_name="tictactoe",
        observations=TICTACTOE.observation(state).astype(np.float32),
        legal_masks=legal[None, :].copy(),
        policies=policy[None, :],
        values=np.array([0.0], dtype=np.float32),
        to_play=np.array([1], dtype=np.int8),
        actions=np.array([3], dtype=np.int64),
        winner=-1,
    )


def _with_policy(record: GameRecord, policy) -> GameRecord:
    return _corrupt(record, "policies", np.array([policy], dtype=np.float32))


MALFORMED_RECORDS = {
    "policy sums to 0.9": (
        lambda r: _with_policy(r, [0, 0, 0, 0.4, 0, 0.3, 0.1, 0, 0.1]),
        "policies",
        "sums to 0.9",
    ),
    "mass on the occupied cell 0": (
        lambda r: _with_policy(r, [0.1, 0, 0, 0.3, 0, 0.3, 0.2, 0, 0.1]),
        "policies",
        "illegal action 0",
    ),
    "negative policy entry": (
        lambda r: _with_policy(r, [0, 0, 0, 1.2, 0, -0.2, 0, 0, 0]),
        "policies",
        "negative",
    ),
    "action out of range": (lambda r: _corrupt(r, "actions", np.array([9])), "actions", "[0, 9)"),
    "action on an occupied cell": (lambda r: _corrupt(r, "actions", np.array([4])), "actions", "illegal"),
    "value outside [-1, 1]": (
        lambda r: _corrupt(r, "values", np.array([1.5], np.float32)),
        "values",
        "[-1, 1]",
    ),
    "NaN value": (lambda r: _corrupt(r, "values", np.array([np.nan], np.float32)), "values", "non-finite"),
    "infinite observation": (
        lambda r: _corrupt(r, "observations", np.full((1, 2, 3, 3), np.inf, np.float32)),
        "observations",
        "non-finite",
    ),
    "observation shape": (
        lambda r: _corrupt(r, "observations", np.zeros((1, 2, 6, 7), np.float32)),
        "observations",
        "[1, 2, 3, 3]",
    ),
    "policy shape": (
        lambda r: _corrupt(r, "policies", np.full((1, 7), 1 / 7, np.float32)),
        "policies",
        "[1, 9]",
    ),
    "legal mask dtype": (
        lambda r: _corrupt(r, "legal_masks", r.legal_masks.astype(np.float32)),
        "legal_masks",
        "bool",
    ),
    "empty legal mask": (
        lambda r: _corrupt(r, "legal_masks", np.zeros((1, 9), bool)),
        "legal_masks",
        "no legal action",
    ),
    "to_play not 0/1": (lambda r: _corrupt(r, "to_play", np.array([2], np.int8)), "to_play", "0 or 1"),
    "another game": (lambda r: _corrupt(r, "game_name", "connect4"), "game_name", "'tictactoe'"),
    "no positions": (lambda r: _corrupt(r, "values", np.zeros((0,), np.float32)), "values", "T >= 1"),
}


def test_valid_p6_record_is_accepted():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    assert buffer.add_game(_p6_record()) == "train"
    assert buffer.size == 1


@pytest.mark.parametrize("case", sorted(MALFORMED_RECORDS))
def test_invalid_record_rejected_naming_field_and_game(case):
    make, field, detail = MALFORMED_RECORDS[case]
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    buffer.add_game(_p6_record())
    before = buffer.state_dict()
    with pytest.raises(ValueError) as error:
        buffer.add_game(make(_p6_record()))
    message = str(error.value)
    assert f"field '{field}'" in message
    assert "game 17" in message
    assert detail in message
    # nothing was written: counters and contents unchanged
    assert buffer.games_added == 1 and buffer.positions_added == 1
    after = buffer.state_dict()
    for key, value in before.items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(after[key], value)


def test_bad_last_position_rejects_the_whole_game():
    rng = np.random.default_rng(3)
    record = random_record(TICTACTOE, rng, game_id=5)
    policies = record.policies.copy()
    policies[-1] *= 0.9
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    with pytest.raises(
        ValueError, match=rf"game 5: field 'policies' row {record.num_positions - 1} sums to 0.9"
    ):
        buffer.add_game(_corrupt(record, "policies", policies))
    assert buffer.games_added == 0 and buffer.positions_added == 0 and buffer.size == 0


def test_game_longer_than_capacity_is_rejected():
    record = random_record(TICTACTOE, np.random.default_rng(0), game_id=1)
    buffer = ReplayBuffer(record.num_positions - 1, TICTACTOE, seed=0)
    with pytest.raises(ValueError, match="game 1: field 'values' has .* more than the train capacity"):
        buffer.add_game(record)
    assert buffer.size == 0


def test_stored_arrays_are_copies():
    record = random_record(TICTACTOE, np.random.default_rng(1), game_id=0)
    saved = {
        name: getattr(record, name).copy() for name in ("observations", "legal_masks", "policies", "values")
    }
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    buffer.add_game(record)
    # mutate the live arrays the record was built from
    record.observations[...] = 7.0
    record.legal_masks[...] = False
    record.policies[...] = 0.5
    record.values[...] = 0.25
    state = buffer.state_dict()
    for name, original in saved.items():
        np.testing.assert_array_equal(state[f"train/{name}"], original)
    # and a sampled batch is not a view of the buffer either
    batch = buffer.sample(4, np.random.default_rng(0))
    batch.observations[...] = -1.0
    np.testing.assert_array_equal(buffer.state_dict()["train/observations"], saved["observations"])


# ------------------------------------------------------------------------- window and sampling
def test_ring_keeps_only_the_most_recent_positions():
    rng = np.random.default_rng(0)
    records = [random_record(TICTACTOE, rng, i) for i in range(30)]
    capacity = 40
    buffer = ReplayBuffer(capacity, TICTACTOE, seed=0)
    for record in records:
        buffer.add_game(record)
    assert buffer.size == capacity
    expected_values = np.concatenate([r.values for r in records])[-capacity:]
    expected_ids = np.concatenate([np.full(r.num_positions, r.game_id) for r in records])[-capacity:]
    np.testing.assert_array_equal(buffer.state_dict()["train/values"], expected_values)
    np.testing.assert_array_equal(buffer.state_dict()["train/game_ids"], expected_ids)
    batch = buffer.sample(500, np.random.default_rng(1))
    assert set(batch.game_ids.tolist()) <= set(expected_ids.tolist())
    assert min(batch.game_ids) >= expected_ids[0]


def test_sampling_is_uniform_over_the_window():
    buffer = ReplayBuffer(50, TICTACTOE, seed=0, augment=False)
    fill(buffer, TICTACTOE, 20)
    size = buffer.size
    values_in_window = buffer.state_dict()["train/observations"].reshape(size, -1)
    batch = buffer.sample(40_000, np.random.default_rng(5))
    # identify each sample by its slot: match observation + policy rows to stored rows
    stored = np.concatenate([values_in_window, buffer.state_dict()["train/policies"]], axis=1)
    drawn = np.concatenate([batch.observations.reshape(len(batch), -1), batch.policies], axis=1)
    _, inverse = np.unique(np.concatenate([stored, drawn]), axis=0, return_inverse=True)
    inverse = inverse.ravel()
    counts = np.bincount(inverse[size:], minlength=inverse.max() + 1)[inverse[:size]]
    expected = 40_000 / size
    # binomial standard deviation ~ sqrt(expected); 5 sigma bound
    assert np.all(np.abs(counts - expected) < 5 * np.sqrt(expected)), counts


def test_growing_window_follows_katago_formula():
    growth = WindowGrowth(c=10, alpha=0.5, beta=1.0)
    assert growth.window(5) == 10
    assert growth.window(10) == 10
    # 10 * (1 + 1 * ((40 / 10) ** 0.5 - 1) / 0.5) = 30
    assert growth.window(40) == pytest.approx(30.0)
    buffer = ReplayBuffer(35, TICTACTOE, seed=0, window_growth=growth)
    assert buffer.window == 10
    records = fill(buffer, TICTACTOE, 12)
    seen = sum(r.num_positions for r in records)
    expected = min(35, int(10 * (1 + ((seen / 10) ** 0.5 - 1) / 0.5)))
    assert buffer.window == expected
    assert buffer.size == min(expected, 35, seen)


def test_katago_default_window_at_one_million():
    # c = 250k, alpha = 0.75, beta = 0.4 at n = 1M: 250k * (1 + 0.4 * (4 ** 0.75 - 1) / 0.75)
    assert WindowGrowth().window(1_000_000) == pytest.approx(250_000 * (1 + 0.4 * (2**1.5 - 1) / 0.75))
    assert WindowGrowth().window(1_000_000) == pytest.approx(493_790.6, abs=1.0)


def test_symmetries_move_board_mask_and_policy_together_tictactoe():
    buffer = ReplayBuffer(500, TICTACTOE, seed=0)
    fill(buffer, TICTACTOE, 40)
    batch = buffer.sample(2000, np.random.default_rng(2))
    assert set(batch.symmetries.tolist()) == set(range(8))
    # the legal mask equals the empty cells of the transformed board, and the policy has no mass
    # on illegal actions, for every symmetry
    empty = batch.observations.sum(axis=1).reshape(len(batch), 9) == 0
    np.testing.assert_array_equal(batch.legal_masks, empty)
    assert np.all(batch.policies[~batch.legal_masks] == 0)
    np.testing.assert_allclose(batch.policies.sum(axis=1), 1.0, atol=1e-5)


def test_connect4_mirror_leaves_the_value_target_unchanged():
    record = random_record(CONNECT4, np.random.default_rng(4), game_id=0, max_plies=9)
    buffer = ReplayBuffer(100, CONNECT4, seed=0)
    buffer.add_game(record)
    batch = buffer.sample(400, np.random.default_rng(0))
    assert set(batch.symmetries.tolist()) == {0, 1}
    # identify each sample's source row by its value-independent content: the unmirrored or
    # mirrored observation
    for i in range(len(batch)):
        g = batch.symmetries[i]
        source = batch.observations[i] if g == 0 else batch.observations[i][..., ::-1]
        matches = [t for t in range(record.num_positions) if np.array_equal(record.observations[t], source)]
        assert matches, "sample does not come from the record"
        t = matches[0]
        if g == 0:
            np.testing.assert_array_equal(batch.legal_masks[i], record.legal_masks[t])
            np.testing.assert_array_equal(batch.policies[i], record.policies[t])
        else:
            np.testing.assert_array_equal(batch.legal_masks[i], record.legal_masks[t][::-1])
            np.testing.assert_array_equal(batch.policies[i], record.policies[t][::-1])
        assert batch.values[i] == record.values[t]  # z unchanged
    # mirroring twice gives the original
    twice = CONNECT4.transform_observation(CONNECT4.transform_observation(record.observations, 1), 1)
    np.testing.assert_array_equal(twice, record.observations)


def test_no_augment_gives_identity():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0, augment=False)
    fill(buffer, TICTACTOE, 5)
    batch = buffer.sample(64, np.random.default_rng(0))
    assert np.all(batch.symmetries == 0)


def test_sample_draws_only_from_the_passed_generator():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    fill(buffer, TICTACTOE, 5)
    first = buffer.sample(32, np.random.default_rng(9))
    second = buffer.sample(32, np.random.default_rng(9))
    for name in ("observations", "legal_masks", "policies", "values", "symmetries"):
        np.testing.assert_array_equal(getattr(first, name), getattr(second, name))
    assert isinstance(first, Batch)
    assert first.observations.dtype == np.float32 and first.observations.shape == (32, 2, 3, 3)
    assert first.legal_masks.dtype == np.bool_ and first.policies.dtype == np.float32
    assert first.values.dtype == np.float32 and first.values.shape == (32,)


def test_sample_errors():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    with pytest.raises(ValueError, match="empty train split"):
        buffer.sample(4)
    fill(buffer, TICTACTOE, 1)
    with pytest.raises(ValueError, match="batch_size: expected an int >= 1, got 0"):
        buffer.sample(0)
    with pytest.raises(ValueError, match="empty validation split"):
        buffer.sample_validation(4)


@pytest.mark.parametrize(
    "kwargs, message",
    [
        ({"capacity_positions": 0}, "capacity_positions: expected an int >= 1, got 0"),
        ({"min_positions_to_sample": 0}, "min_positions_to_sample"),
        ({"validation_every": -1}, "validation_every"),
        ({"window_growth": 5}, "window_growth"),
    ],
)
def test_constructor_validation(kwargs, message):
    arguments = {"capacity_positions": 10, "game": TICTACTOE, "seed": 0, **kwargs}
    with pytest.raises(ValueError, match=message):
        ReplayBuffer(**arguments)


def test_window_growth_validation():
    with pytest.raises(ValueError, match="alpha"):
        WindowGrowth(c=10, alpha=0.0)
    with pytest.raises(ValueError, match="beta"):
        WindowGrowth(c=10, beta=-1.0)
    with pytest.raises(ValueError, match="c: expected"):
        WindowGrowth(c=0)


# ------------------------------------------------------------------------- replay ratio
def test_can_sample_waits_for_min_size_and_limits_the_replay_ratio():
    buffer = ReplayBuffer(1000, TICTACTOE, seed=0, min_positions_to_sample=30)
    assert not buffer.can_sample(0, 8)
    records = fill(buffer, TICTACTOE, 2)
    positions = sum(r.num_positions for r in records)
    assert positions < 30 and not buffer.can_sample(0, 8)
    records += fill(buffer, TICTACTOE, 10, seed=1, first_id=2)
    positions = sum(r.num_positions for r in records)
    assert buffer.can_sample(0, 8)
    assert buffer.can_sample(10**9, 8)  # no limit given
    # ratio 2: at most 2 * positions training samples
    assert buffer.can_sample(2 * positions - 8, 8, max_replay_ratio=2.0)
    assert not buffer.can_sample(2 * positions - 7, 8, max_replay_ratio=2.0)
    with pytest.raises(ValueError, match="max_replay_ratio"):
        buffer.can_sample(0, 8, max_replay_ratio=0.0)
    with pytest.raises(ValueError, match="samples_trained"):
        buffer.can_sample(-1, 8)


def test_can_sample_needs_a_full_batch():
    buffer = ReplayBuffer(1000, TICTACTOE, seed=0)
    records = fill(buffer, TICTACTOE, 1)
    assert buffer.can_sample(0, records[0].num_positions)
    assert not buffer.can_sample(0, records[0].num_positions + 1)


# ------------------------------------------------------------------------- validation split
def test_validation_split_by_game_id_is_disjoint():
    buffer = ReplayBuffer(2000, TICTACTOE, seed=0, validation_every=4)
    splits = [
        buffer.add_game(r) for r in [random_record(TICTACTOE, np.random.default_rng(i), i) for i in range(40)]
    ]
    assert splits == ["validation" if i % 4 == 0 else "train" for i in range(40)]
    validation_ids = set(buffer.validation_game_ids().tolist())
    train_ids = set(buffer.game_ids_in_window().tolist())
    assert validation_ids == set(range(0, 40, 4))
    assert train_ids == {i for i in range(40) if i % 4}
    assert not validation_ids & train_ids
    assert buffer.games_added == 40 and buffer.validation_games_added == 10
    batch = buffer.sample(1000, np.random.default_rng(0))
    assert not set(batch.game_ids.tolist()) & validation_ids
    held_out = buffer.sample_validation(200, np.random.default_rng(0))
    assert set(held_out.game_ids.tolist()) <= validation_ids
    assert np.all(held_out.symmetries == 0)
    # the window and the replay ratio count training positions only
    assert buffer.size == buffer.train_positions_added < buffer.positions_added


# ------------------------------------------------------------------------- persistence
def test_state_dict_round_trip_continues_the_same_stream(tmp_path):
    buffer = ReplayBuffer(60, TICTACTOE, seed=11, validation_every=5)
    fill(buffer, TICTACTOE, 25)
    path = buffer.save(tmp_path / "buffer.npz")
    restored = ReplayBuffer(60, TICTACTOE, seed=999, validation_every=5)
    restored.load(path)
    assert restored.games_added == 25
    assert restored.positions_added == buffer.positions_added
    assert restored.size == buffer.size and restored.validation_size == buffer.validation_size
    a, b = buffer.sample(64), restored.sample(64)  # the buffers' own generators, restored too
    for name in ("observations", "legal_masks", "policies", "values", "game_ids", "symmetries"):
        np.testing.assert_array_equal(getattr(a, name), getattr(b, name))
    # later inserts land in the same place
    extra = random_record(TICTACTOE, np.random.default_rng(77), 1000 + 1)
    buffer.add_game(extra)
    restored.add_game(extra)
    for key, value in buffer.state_dict().items():
        if isinstance(value, np.ndarray):
            np.testing.assert_array_equal(restored.state_dict()[key], value)


def test_saved_file_needs_no_pickle(tmp_path):
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    fill(buffer, TICTACTOE, 3)
    path = buffer.save(tmp_path / "b.npz")
    with np.load(path, allow_pickle=False) as data:
        assert all(data[key].dtype != object for key in data.files)
    state = read_buffer_file(path)
    assert state["game_name"] == "tictactoe" and state["train_games_added"] == 3
    assert not [p for p in tmp_path.iterdir() if p.name != "b.npz"]  # no temporary file left


def test_load_errors(tmp_path):
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    fill(buffer, TICTACTOE, 2)
    path = buffer.save(tmp_path / "ttt.npz")
    with pytest.raises(FileNotFoundError, match="missing.npz"):
        buffer.load(tmp_path / "missing.npz")
    with pytest.raises(ValueError, match="game_name expected 'connect4', got 'tictactoe'"):
        ReplayBuffer(100, CONNECT4, seed=0).load(path)
    with pytest.raises(ValueError, match="validation_every expected 3, got 0"):
        ReplayBuffer(100, TICTACTOE, seed=0, validation_every=3).load(path)
    truncated = tmp_path / "truncated.npz"
    truncated.write_bytes(path.read_bytes()[:200])
    with pytest.raises(ValueError, match="not a readable replay buffer file"):
        buffer.load(truncated)
    state = buffer.state_dict()
    del state["train/values"]
    with pytest.raises(ValueError, match=r"missing keys \['train/values'\]"):
        buffer.load_state_dict(state)


def test_load_into_a_smaller_buffer_keeps_the_newest_positions():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    fill(buffer, TICTACTOE, 10)
    smaller = ReplayBuffer(20, TICTACTOE, seed=0)
    smaller.load_state_dict(buffer.state_dict())
    assert smaller.size == 20
    np.testing.assert_array_equal(
        smaller.state_dict()["train/values"], buffer.state_dict()["train/values"][-20:]
    )
    assert smaller.games_added == 10


@settings(max_examples=25, deadline=None)
@given(
    capacity=st.integers(min_value=9, max_value=60),
    num_games=st.integers(min_value=1, max_value=25),
    seed=st.integers(min_value=0, max_value=10_000),
)
def test_window_invariants_property(capacity, num_games, seed):
    buffer = ReplayBuffer(capacity, TICTACTOE, seed=seed)
    records = fill(buffer, TICTACTOE, num_games, seed=seed)
    all_values = np.concatenate([r.values for r in records])
    assert buffer.size == min(capacity, len(all_values))
    assert buffer.positions_added == len(all_values)
    np.testing.assert_array_equal(buffer.state_dict()["train/values"], all_values[-buffer.size :])
    batch = buffer.sample(16, np.random.default_rng(seed))
    assert np.all(np.abs(batch.values) <= 1)
    np.testing.assert_allclose(batch.policies.sum(axis=1), 1.0, atol=1e-5)
    assert np.all(batch.policies[~batch.legal_masks] == 0)


def test_repeated_game_ids_are_ids_in_two_separate_runs_of_positions():
    assert repeated_game_ids(np.array([5, 5, 5, 9, 9, 7])).tolist() == []
    assert repeated_game_ids(np.array([5, 5, 9, 9, 5, 5, 7, 9])).tolist() == [5, 9]
    assert repeated_game_ids(np.array([], dtype=np.int64)).tolist() == []
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    for game_id in (1, 2, 1):  # a restarted worker hands out id 1 again
        buffer.add_game(random_record(TICTACTOE, np.random.default_rng(game_id), game_id, max_plies=5))
    assert repeated_game_ids(buffer.state_dict()["train/game_ids"]).tolist() == [1]
