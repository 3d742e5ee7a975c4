"""Self-play core: value targets, greedy phase, records are copies."""

from __future__ import annotations

import numpy as np
import pytest

import games
from mcts import PUCTConfig, uniform_evaluator
from selfplay.runner import SelfPlayRunner, SelfPlaySettings, outcome_targets

TTT = games.make("tictactoe")


def test_value_targets_of_a_won_game_alternate_by_player_to_move():
    # X0 O3 X1 O4 X2: X wins; players to move were X, O, X, O, X
    to_play = np.array([0, 1, 0, 1, 0])
    np.testing.assert_array_equal(outcome_targets(to_play, winner=0), [1, -1, 1, -1, 1])
    np.testing.assert_array_equal(outcome_targets(to_play, winner=-1), [0, 0, 0, 0, 0])
    np.testing.assert_array_equal(outcome_targets(np.array([0, 1, 0, 1]), winner=1), [-1, 1, -1, 1])


def _runner(game, num_games=16, temperature_plies=2, seed=0, sims=16):
    return SelfPlayRunner(
        game, uniform_evaluator, PUCTConfig(num_simulations=sims), num_games, np.random.default_rng(seed),
        settings=SelfPlaySettings(temperature=1.0, temperature_plies=temperature_plies),
    )


def test_records_replay_to_their_outcome_with_consistent_targets():
    runner = _runner(TTT, num_games=16)
    records, stats = runner.play_moves(30)
    assert len(records) == stats.games > 16
    assert stats.positions == sum(r.num_positions for r in records)
    assert stats.wins_first_player + stats.wins_second_player + stats.draws == stats.games
    ids = [r.game_id for r in records]
    assert len(set(ids)) == len(ids)
    for record in records:
        state = TTT.states_from_moves([TTT.format_moves(record.actions)])
        assert TTT.terminal(state)[0]
        assert TTT.winner(state)[0] == record.winner
        np.testing.assert_array_equal(record.to_play, np.arange(record.num_positions) % 2)
        np.testing.assert_array_equal(record.values, outcome_targets(record.to_play, record.winner))
        np.testing.assert_allclose(record.policies.sum(axis=1), 1.0, rtol=1e-6)
        assert not (record.policies * ~record.legal_masks).any()  # no mass on illegal moves
        # the observation and legal mask stored at each ply match a replay of the game
        replay = TTT.initial_states(1)
        for ply, action in enumerate(record.actions):
            np.testing.assert_array_equal(record.observations[ply], TTT.observation(replay)[0])
            np.testing.assert_array_equal(record.legal_masks[ply], TTT.legal_mask(replay)[0])
            replay = TTT.step(replay, np.array([action]))


@pytest.mark.parametrize("name", ["tictactoe", "connect4"])
def test_greedy_phase_plays_the_largest_policy_entry_for_both_colours(name):
    game = games.make(name)
    runner = _runner(game, num_games=8, temperature_plies=2, sims=24)
    records, _ = runner.play_moves(game.max_game_length)
    assert records
    colours_seen = set()
    for record in records:
        for ply in range(2, record.num_positions):
            policy = record.policies[ply]
            # a largest entry; ties between equally visited moves go to the run's seeded generator
            assert policy[record.actions[ply]] == policy.max()
            colours_seen.add(int(record.to_play[ply]))
    assert colours_seen == {0, 1}


def test_records_are_copies_of_live_arrays():
    runner = _runner(TTT, num_games=4)
    records, _ = runner.play_moves(9)
    record = records[0]
    saved = (record.observations.copy(), record.policies.copy(), record.actions.copy())
    runner.play_moves(9)  # the runner reuses its buffers for new games
    runner._observations[:] = 7.0
    np.testing.assert_array_equal(record.observations, saved[0])
    np.testing.assert_array_equal(record.policies, saved[1])
    np.testing.assert_array_equal(record.actions, saved[2])


def test_runner_is_reproducible_with_the_same_seed():
    first, _ = _runner(TTT, seed=5).play_moves(12)
    second, _ = _runner(TTT, seed=5).play_moves(12)
    assert [TTT.format_moves(r.actions) for r in first] == [TTT.format_moves(r.actions) for r in second]


def test_runner_rejects_bad_arguments():
    with pytest.raises(ValueError, match="num_games"):
        SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=2), 0, np.random.default_rng(0))
    with pytest.raises(ValueError, match="temperature"):
        SelfPlayRunner(TTT, uniform_evaluator, PUCTConfig(num_simulations=2), 1, np.random.default_rng(0), settings=SelfPlaySettings(temperature=-1))


def test_random_openings_are_played_but_not_recorded():
    runner = SelfPlayRunner(
        TTT, uniform_evaluator, PUCTConfig(num_simulations=8), 16, np.random.default_rng(3),
        settings=SelfPlaySettings(temperature_plies=9, random_opening_plies=3),
    )
    records, stats = runner.play_moves(20)
    for record, text in zip(records, stats.sample_games[:1]):
        assert TTT.format_moves(record.actions) == text[len(text) - record.num_positions :]
    for record in records:
        first_to_move = int(record.to_play[0])
        np.testing.assert_array_equal(record.to_play, (np.arange(record.num_positions) + first_to_move) % 2)
        np.testing.assert_array_equal(record.values, outcome_targets(record.to_play, record.winner))
    # some games started after an opening (the first recorded position is not the empty board)
    assert any(record.observations[0].sum() > 0 for record in records)
    assert any(record.observations[0].sum() == 0 for record in records)
