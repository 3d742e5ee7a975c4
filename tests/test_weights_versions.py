"""Each stored position keeps the version of the weights that searched it: per move in self-play
(selfplay/runner.py), through the game record (selfplay/records.py), the replay buffer, its file
and a resume (selfplay/replay_buffer.py, selfplay/buffer_file.py); the buffer's age in versions
and the ``max_generations_behind`` filter at sampling time."""

from __future__ import annotations

import dataclasses

import numpy as np
import pytest
from test_replay_buffer import random_record

import games
from mcts import PUCTConfig, uniform_evaluator
from selfplay.buffer_file import read_buffer_file, write_buffer_file
from selfplay.buffer_service import ReplayBufferService
from selfplay.records import UNKNOWN_VERSION
from selfplay.replay_buffer import ReplayBuffer
from selfplay.runner import SelfPlayRunner, SelfPlaySettings

TICTACTOE = games.make("tictactoe")


def game(game_id: int, version: int | None, plies: int = 5):
    """A 5-position tic-tac-toe game (a fixed random game per id) searched by weights ``version``."""
    record = random_record(TICTACTOE, np.random.default_rng(game_id), game_id, max_plies=plies)
    versions = None if version is None else np.full(record.num_positions, version, dtype=np.int64)
    return dataclasses.replace(record, model_versions=versions)


def test_each_position_records_the_weights_version_that_searched_it():
    runner = SelfPlayRunner(
        TICTACTOE, uniform_evaluator, PUCTConfig(num_simulations=4), 1, np.random.default_rng(0), settings=SelfPlaySettings(temperature_plies=9)
    )
    runner.model_version = 300
    finished, _ = runner.play_moves(2)  # plies 0 and 1 with version 300
    assert finished == []
    runner.model_version = 700  # new weights while the game goes on
    finished, _ = runner.play_moves(9)
    first = finished[0]
    assert first.model_versions.dtype == np.int64
    assert first.model_versions.tolist() == [300, 300] + [700] * (first.num_positions - 2)
    for later in finished[1:]:
        assert later.model_versions.tolist() == [700] * later.num_positions


def test_versions_go_through_the_buffer_into_batches_and_ages():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0, augment=False)
    for version in (0, 100, 200):
        buffer.note_best_version(version)
    buffer.note_best_version(100)  # older than the newest: ignored
    assert buffer.best_versions == [0, 100, 200]
    for game_id, version in enumerate((0, 100, 200, None)):
        buffer.add_game(game(game_id, version))
    assert buffer.window_versions().tolist() == [0] * 5 + [100] * 5 + [200] * 5 + [UNKNOWN_VERSION] * 5
    # age = best versions newer than the position's: 2, 1, 0; unknown counts as older than all 3
    assert buffer.version_ages().tolist() == [2] * 5 + [1] * 5 + [0] * 5 + [3] * 5
    batch = buffer.sample(64, np.random.default_rng(1))
    by_game = {0: 0, 1: 100, 2: 200, 3: UNKNOWN_VERSION}
    assert batch.model_versions.tolist() == [by_game[int(g)] for g in batch.game_ids]


def test_max_generations_behind_drops_older_positions_when_sampling():
    buffer = ReplayBuffer(100, TICTACTOE, seed=0, augment=False, max_generations_behind=1)
    buffer.note_best_version(0)
    buffer.add_game(game(0, 0))
    buffer.add_game(game(1, None))
    assert buffer.sampleable_size == buffer.size == 10  # one version known: unknown is 1 behind, K = 1
    buffer.note_best_version(100)
    assert buffer.sampleable_size == 5  # version 0 is 1 behind and stays; unknown is now 2 behind
    buffer.add_game(game(2, 100))
    buffer.note_best_version(250)
    buffer.add_game(game(3, 250))
    # versions 0 and unknown are now 2 and 3 behind: 10 of the 20 positions may be drawn
    assert (buffer.size, buffer.sampleable_size) == (20, 10)
    batch = buffer.sample(200, np.random.default_rng(2))
    assert sorted(set(batch.model_versions.tolist())) == [100, 250]
    assert sorted(set(batch.game_ids.tolist())) == [2, 3]
    assert buffer.can_sample(0, 10) and not buffer.can_sample(0, 11)  # a batch needs that many positions
    only_newest = ReplayBuffer(100, TICTACTOE, seed=0, max_generations_behind=0)
    only_newest.note_best_version(0)
    only_newest.add_game(game(0, 0))
    only_newest.note_best_version(100)
    with pytest.raises(ValueError, match="none of the 5 positions of the train window is within max_generations_behind=0"):
        only_newest.sample(4)
    with pytest.raises(ValueError, match="max_generations_behind"):
        ReplayBuffer(100, TICTACTOE, max_generations_behind=-1)


def test_versions_survive_the_buffer_file_and_a_file_without_them_loads_as_unknown(tmp_path):
    buffer = ReplayBuffer(100, TICTACTOE, seed=0)
    buffer.note_best_version(0)
    buffer.note_best_version(40)
    buffer.add_game(game(0, 0))
    buffer.add_game(game(1, 40))
    path = buffer.save(tmp_path / "buffer.npz")
    again = ReplayBuffer(100, TICTACTOE, seed=0)
    again.load(path)
    assert again.best_versions == [0, 40]
    assert again.window_versions().tolist() == [0] * 5 + [40] * 5
    assert again.version_ages().tolist() == [1] * 5 + [0] * 5
    # a file written before positions carried versions: no model_versions entries, no best_versions
    old = read_buffer_file(path)
    for key in ("train/model_versions", "validation/model_versions", "best_versions"):
        del old[key]
    old_path = write_buffer_file(tmp_path / "old.npz", old)
    resumed = ReplayBuffer(100, TICTACTOE, seed=0)
    resumed.load(old_path)
    assert resumed.best_versions == []
    assert resumed.window_versions().tolist() == [UNKNOWN_VERSION] * 10
    resumed.note_best_version(40)  # the run notes its best version after the load
    assert resumed.version_ages().tolist() == [1] * 10  # older than every known version


def test_the_service_reports_the_age_of_its_window_in_versions():
    service = ReplayBufferService("tictactoe", 100, 1, seed=0, max_generations_behind=1)
    assert (service.stats()["age_versions_mean"], service.stats()["age_versions_max"]) == (None, None)
    service.note_best_version(0)
    service.add_games([game(0, 0), game(1, None)])
    stats = service.stats()
    assert (stats["age_versions_mean"], stats["age_versions_max"], stats["size"], stats["sampleable"]) == (0.0, 0, 10, 10)
    service.note_best_version(10)
    service.note_best_version(20)
    service.add_games([game(2, 10), game(3, 20), game(4, 20)])
    stats = service.stats()
    # known versions 0, 10, 20, 20 -> ages 2, 1, 0, 0 per game of 5 positions (unknown excluded)
    assert stats["age_versions_mean"] == pytest.approx(0.75)
    assert stats["age_versions_max"] == 2
    assert (stats["size"], stats["sampleable"]) == (25, 15)  # K = 1 keeps versions 10 and 20


def test_a_record_with_bad_versions_is_rejected_naming_the_field():
    record = game(7, 3)
    with pytest.raises(ValueError, match=r"game 7: field 'model_versions' expected a numpy array of shape \[5\]"):
        ReplayBuffer(100, TICTACTOE).add_game(dataclasses.replace(record, model_versions=np.zeros(4, np.int64)))
    with pytest.raises(ValueError, match=r"game 7: field 'model_versions' expected an integer dtype, got float32"):
        ReplayBuffer(100, TICTACTOE).add_game(dataclasses.replace(record, model_versions=np.zeros(5, np.float32)))
    with pytest.raises(ValueError, match=r"game 7: field 'model_versions' entry 2 is -3, expected a version >= 0"):
        ReplayBuffer(100, TICTACTOE).add_game(
            dataclasses.replace(record, model_versions=np.array([0, 0, -3, 0, 0], np.int64))
        )

