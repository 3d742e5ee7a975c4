"""Exploring starts (Sutton & Barto 2018, sec. 5.3): Pig's knowledge draws turn-start states over the
whole score table, reached by events from the initial state, and self-play starts the share
``exploring_starts`` of its games there without recording the events as positions."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import games
from games.pig.game import Pig
from mcts import PUCTConfig, uniform_evaluator
from selfplay.runner import SelfPlayRunner, SelfPlaySettings


def replay(game, events) -> tuple:
    """The single state ``events`` (decisions and chance outcomes in play order) reach."""
    state = game.initial_state()
    for event in events:
        state = game.chance_result(state, event) if game.is_chance_state(state) else game.result(state, event)
    return state


def start_of(game, events) -> tuple[int, int, int, int]:
    """``(to_play, own, opponent, turn_total)`` of the state ``events`` reach."""
    state = replay(game, events)
    assert not game.terminal_test(state) and not game.is_chance_state(state)
    return (game.player(state), *game.scores(state))


def test_pig_draws_every_seat_and_pair_of_banked_scores_and_never_a_score_of_one():
    pig = Pig(goal=10)
    knowledge = games.knowledge(pig)
    assert knowledge.banked_scores() == [0, 2, 3, 4, 5, 6, 7, 8, 9]
    rng = np.random.default_rng(0)
    starts = [start_of(pig, knowledge.exploring_start(rng)) for _ in range(4000)]
    banked = knowledge.banked_scores()
    # 2 seats x 9 x 9 banked scores, every one drawn, each from a turn total of 0
    assert set(starts) == {(p, own, opp, 0) for p in (0, 1) for own in banked for opp in banked}
    counts = np.unique(np.array(starts), axis=0, return_counts=True)[1]
    assert counts.size == 162 and counts.min() >= 8  # 4000 / 162 = 24.7 expected each


def test_pig_exploring_start_events_read_as_a_move_string():
    pig = Pig()
    knowledge = games.knowledge(pig)
    events = knowledge.exploring_start(np.random.default_rng(3))
    moves = pig.format_moves(events)
    assert pig.parse_moves(moves) == events
    # a score of 7 is banked as 5 then 2 (the largest face that leaves no remainder of 1)
    assert pig.format_moves(knowledge._bank(7)) == "r5r2h"
    assert pig.format_moves(knowledge._bank(0) + knowledge._bank(12)) == "hr6r6h"


@settings(max_examples=60, deadline=None)
@given(seed=st.integers(0, 2**32 - 1), goal=st.integers(1, 120), die=st.integers(2, 9))
def test_pig_exploring_starts_are_reached_by_legal_events_for_any_goal_and_die(seed, goal, die):
    pig = Pig(goal=goal, die=die)
    knowledge = games.knowledge(pig)
    to_play, own, opponent, turn_total = start_of(pig, knowledge.exploring_start(np.random.default_rng(seed)))
    assert own in knowledge.banked_scores() and opponent in knowledge.banked_scores()
    assert turn_total == 0 and to_play in (0, 1)


def first_positions(runner, game, wanted: int) -> list[tuple[int, int, int]]:
    """``(own, opponent, turn_total)`` of the first recorded position of ``wanted`` finished games,
    read back from the thermometer planes (``games.pig.game``)."""
    out = []
    while len(out) < wanted:
        finished, _ = runner.play_moves(16)
        for record in finished:
            planes = record.observations[0, :, 0, :].sum(axis=1).round().astype(int)
            out.append(tuple(int(x) for x in planes))
            # decisions after the start only: the record replays from its first position
            assert record.actions.shape[0] == record.observations.shape[0]
    return out[:wanted]


def test_selfplay_starts_the_chosen_share_of_games_at_an_exploring_start():
    pig = Pig(goal=10)
    search = PUCTConfig(num_simulations=4)

    def runner(share):
        return SelfPlayRunner(
            pig, uniform_evaluator, search, num_games=8, rng=np.random.default_rng(1),
            settings=SelfPlaySettings(exploring_starts=share),
        )

    # without exploring starts every game is recorded from the initial state
    assert set(first_positions(runner(0.0), pig, 40)) == {(0, 0, 0)}
    # with every game at an exploring start, the first positions spread over the score table
    spread = first_positions(runner(1.0), pig, 40)
    banked = games.knowledge(pig).banked_scores()
    assert all(own in banked and opponent in banked and turn_total == 0 for own, opponent, turn_total in spread)
    assert len(set(spread)) >= 25  # 40 draws of 81 pairs: 32 distinct on average
    assert spread.count((0, 0, 0)) <= 3


def test_selfplay_sample_game_replays_through_the_exploring_start():
    pig = Pig(goal=10)
    runner = SelfPlayRunner(
        pig, uniform_evaluator, PUCTConfig(num_simulations=4), num_games=4, rng=np.random.default_rng(2),
        settings=SelfPlaySettings(exploring_starts=1.0),
    )
    while True:
        finished, stats = runner.play_moves(16)
        if finished:
            break
    record, events = finished[0], pig.parse_moves(stats.sample_games[0])
    decisions = []
    state = pig.initial_state()
    for event in events:
        if pig.is_chance_state(state):
            state = pig.chance_result(state, event)
        else:
            decisions.append(event)
            state = pig.result(state, event)
    assert pig.terminal_test(state)
    # the game's last decisions are the recorded ones; the start's are not recorded
    assert record.actions.tolist() == decisions[len(decisions) - len(record.actions) :]
    assert len(decisions) > len(record.actions)


def test_a_game_without_exploring_starts_is_refused():
    with pytest.raises(ValueError, match="exploring_starts: tictactoe draws no exploring starts"):
        SelfPlayRunner(
            games.make("tictactoe"), uniform_evaluator, PUCTConfig(num_simulations=2), num_games=1,
            rng=np.random.default_rng(0), settings=SelfPlaySettings(exploring_starts=0.5),
        )
    with pytest.raises(ValueError, match=r"exploring_starts: expected"):
        SelfPlaySettings(exploring_starts=1.5)
